"""The exact state's layout, read from the compiled extension.

The C side (``src/exact/xs_small.h``, ``src/exact/xs_round.h``) defines the format; this
module names it for the Python side, and every other module reads it from
here.  A state is ``LENGTH`` int64 words: ``DIGITS`` fixed-point digits
(digit ``j`` weighs ``2**(DIGIT_BITS * j + UNIT_EXPONENT)``; digits below the
top one are in ``[0, 2**DIGIT_BITS)``, the top one is signed), then a flags
word.  Portable states are little-endian (``DTYPE``); the loops read native
int64 (``NATIVE``).
"""

import numpy as np

from .._ufuncs import DOT_STATE_LENGTH, STATE_FORMAT, STATE_LENGTH

LENGTH = STATE_LENGTH
#: An exact dot product's state: three states side by side, the ordinary
#: products, those finer than 2**-1074 times 2**DOT_SCALE and the
#: overflowing ones times 2**-DOT_SCALE.
DOT_LENGTH = DOT_STATE_LENGTH
DOT_SCALE = STATE_FORMAT["dot_scale"]
DIGITS = STATE_FORMAT["digits"]
DIGIT_BITS = STATE_FORMAT["digit_bits"]
UNIT_EXPONENT = STATE_FORMAT["unit_exponent"]
#: Index of the signed top digit and of the flags word.
TOP = DIGITS - 1
FLAGS = LENGTH - 1
DIGIT_LIMIT = 1 << DIGIT_BITS

HAS_TERM = STATE_FORMAT["has_term"]
NOT_NEG_ZERO = STATE_FORMAT["not_neg_zero"]
POS_INF = STATE_FORMAT["pos_inf"]
NEG_INF = STATE_FORMAT["neg_inf"]
NAN = STATE_FORMAT["nan"]
FLAG_BITS = STATE_FORMAT["flag_bits"]
SPECIALS = POS_INF | NEG_INF | NAN

#: States given to us must have |top digit| below this.  Any sum of fewer
#: than 2**63 finite float64 terms stays below 2**18 there; 2**24 leaves room
#: to merge any number of states that fits in memory without reaching the
#: range the C loops read back (C_TOP_LIMIT).
TOP_LIMIT = 1 << 24
C_TOP_LIMIT = STATE_FORMAT["top_limit"]

#: Portable states and counts: little-endian int64 on every machine.
DTYPE = np.dtype("<i8")
#: What the loops read and write.
NATIVE = np.dtype(np.int64)

# ---- framed states: the public, versioned, mergeable form -------------------
#
# A framed state is one little-endian int64 array: a header, then one record
# per result (a record layout per family below, the same records the Dask
# backend merges).  Header words: MAGIC, VERSION, the kind's code, the name of
# the terms' dtype (ASCII, NUL-padded, HEADER_NAME_WORDS words), the number of
# result axes, then the result shape.

#: "xsumstat" read as a little-endian int64: marks a framed state.
MAGIC = int.from_bytes(b"xsumstat", "little")
#: Raised whenever a record layout or the meaning of a header word changes.
VERSION = 1
#: Kind of state -> (its code in the header, the family of its records).
KINDS = {
    "sum": (1, "sum"),
    "dot": (2, "dot"),
    "moments": (3, "moments"),
    "grouped_sum": (4, "sum"),
    "grouped_moments": (5, "moments"),
}
HEADER_NAME_WORDS = 2
#: Words before the shape: magic, version, kind, dtype name, ndim.
HEADER_WORDS = 4 + HEADER_NAME_WORDS


def record_dtype(family, is_complex):
    """The record of one result of a state `family`, little-endian.

    sum: the term count and the exact state of the terms (``s1``);
    moments: also the exact dot state of the terms with themselves (``s2``)
    and a word that is 1 when a term is NaN or infinite (``special``);
    dot: the exact dot states of the products, one per component.
    A sum record is the start of a moments record: both finish as sums.
    """
    comp = (2,) if is_complex else ()
    if family == "sum":
        return np.dtype([("count", DTYPE), ("s1", DTYPE, comp + (LENGTH,))])
    if family == "moments":
        return np.dtype([("count", DTYPE), ("s1", DTYPE, comp + (LENGTH,)),
                         ("s2", DTYPE, comp + (DOT_LENGTH,)), ("special", DTYPE)])
    if family == "dot":
        return np.dtype([("dot", DTYPE, (2 if is_complex else 1, DOT_LENGTH))])
    raise ValueError(f"no state family {family!r}")
