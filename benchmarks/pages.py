"""The benchmark scripts' tables written into the docs: each script's --write
PAGE puts its table between the page's markers ``<!-- NAME begin -->`` and
``<!-- NAME end -->`` (NAME: the script, and its options that change the
table), leaving the rest of the page as it is.  Imports nothing heavy, so
that a script may take its options before NumPy loads its BLAS."""


def add_write_option(parser):
    """--write PAGE: the script's table goes into its block of the page too."""
    parser.add_argument("--write", metavar="PAGE",
                        help="a page (docs/performance.md) whose block of this table gets it")


def write_block(path, name, text):
    """Put text between the markers of block `name` of the page at path."""
    begin, end = f"<!-- {name} begin -->", f"<!-- {name} end -->"
    with open(path) as f:
        page = f.read()
    if begin not in page or end not in page:
        raise SystemExit(f"{path} has no {begin} ... {end} block")
    head, rest = page.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(path, "w") as f:
        f.write(head + begin + "\n" + text.rstrip("\n") + "\n" + end + tail)


def emit(lines, page, name):
    """Print the table's lines; with a page (--write), put them in block `name`."""
    text = "\n".join(lines) + "\n"
    print(text)
    if page:
        write_block(page, name, text)
