# cython: language_level=3
"""The raw generalized ufuncs, built at import from the C loops in src/.

Every loop reads its input as it is (no cast) and rounds once into its
output dtype, so the loop list is the product (input dtype) x (result dtype).
NumPy picks the first registered loop that an input can be cast to safely,
hence the order: integers before floats, narrow floats before wide ones, and
for each input its default result (float64 for integers, itself for floats)
before the other results.  Loops that involve bfloat16 (a dtype that
ml_dtypes registers at run time) are added with PyUFunc_RegisterLoopForType
on the type number NumPy assigned it in this process; among such user loops
NumPy (2.4) takes the one registered *last* that fits, so a bfloat16 input's
default loop is registered after all the others (checked by
``resolve_dtypes`` in the tests).
"""
from cpython.mem cimport PyMem_Malloc
cimport numpy as cnp

import ml_dtypes
import numpy as np

cnp.import_array()
cnp.import_ufunc()

cdef extern from "loops/xs_loops.h":
    ctypedef void (*xs_loop_fn)(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    ctypedef struct xs_target:
        pass
    ctypedef struct xs_input_loops:
        const char *dtype_name
        xs_loop_fn sum
        xs_loop_fn mean
        xs_loop_fn cumsum
        xs_loop_fn sum_state
        xs_loop_fn masked_state
    ctypedef struct xs_named_target:
        const char *dtype_name
        const xs_target *target
    ctypedef struct xs_dot_loops:
        const char *dtype_name
        xs_loop_fn dot
        xs_loop_fn dot_state
    const xs_dot_loops xs_dot_loops_table[]
    const int xs_dot_loops_count
    const xs_input_loops xs_input_loops_table[]
    const int xs_input_loops_count
    const xs_named_target xs_targets_table[]
    const int xs_targets_count
    void xs_state_merge(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_state_round(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_state_mean(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_dot_state_round(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    int XS_STATE_LEN
    void *xs_keep_registration_array(void *p)

cdef extern from "exact/xs_dot.h":
    int XS_DOT_SCALE

cdef extern from "kernels/codes/xs_codes.h":
    int XS_CODE_SLOTS
    int xs_code_format_init(int slot, const double *values, const unsigned char *encodable,
                            const unsigned char *special_codes, int precision, int emin,
                            int emax)
    const xs_target *xs_code_target(int slot)

cdef extern from "kernels/moving/xs_moving.h":
    void xs_moving_float64(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)

cdef extern from "kernels/moving/xs_moving_var.h":
    void xs_moving_var(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_grouped_var(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)

cdef extern from "kernels/dot/xs_norm.h":
    void xs_norm_float64(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_norm_float32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)

cdef extern from "exact/xs_small.h":
    int XS_NCHUNKS
    int XS_CHUNK_BITS
    int XS_UNIT_SHIFT
    long long XS_STATE_TOP_LIMIT

cdef extern from "exact/xs_round.h":
    unsigned XS_HAS_TERM
    unsigned XS_NOT_NEG_ZERO
    unsigned XS_POS_INF
    unsigned XS_NEG_INF
    unsigned XS_NAN
    unsigned XS_FLAG_BITS

cdef extern from "cpu/xs_cpu.h":
    ctypedef int xs_isa
    xs_isa xs_cpu_level() nogil
    xs_isa xs_cpu_best() nogil
    const char *xs_cpu_level_name(xs_isa level) nogil
    int xs_cpu_cap_unknown() nogil


def _simd_levels():
    """The SIMD level in force and the CPU's best (src/cpu/xs_cpu.h names).

    ``XSUMUFUNC_KERNEL`` caps the first; results never depend on either.

    >>> from xsumufunc import _ufuncs
    >>> level, best = _ufuncs._simd_levels()
    >>> level in ("generic", "sse2", "avx2", "avx512", "avx512vbmi", "avx512vnni", "neon")
    True
    """
    return (xs_cpu_level_name(xs_cpu_level()).decode(),
            xs_cpu_level_name(xs_cpu_best()).decode())


if xs_cpu_cap_unknown():
    import os as _os
    import warnings as _warnings
    _warnings.warn(
        f"XSUMUFUNC_KERNEL={_os.environ.get('XSUMUFUNC_KERNEL')!r} names no SIMD level "
        "(generic, sse2, avx2, avx512, avx512vbmi, avx512vnni, neon, best): "
        "using the best this CPU has", RuntimeWarning, stacklevel=2)


cdef extern from "runtime/xs_threads.h":
    int xs_get_num_threads() nogil
    void xs_set_num_threads(int n) nogil

def get_num_threads():
    """Threads one long row (2**20 terms or more) is split over.

    The result never depends on it: each part is summed exactly and the
    exact parts are merged.  Default: the environment variable
    ``XSUMUFUNC_NUM_THREADS``, else the number of online CPUs.

    >>> import xsumufunc
    >>> xsumufunc.get_num_threads() >= 1
    True
    """
    return xs_get_num_threads()


def set_num_threads(n):
    """Set the number of threads for long rows (``None`` or 0: the default).

    >>> import xsumufunc
    >>> old = xsumufunc.get_num_threads()
    >>> xsumufunc.set_num_threads(1); xsumufunc.get_num_threads()
    1
    >>> xsumufunc.set_num_threads(None)
    """
    if n is None:
        n = 0
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"set_num_threads: n must be None or a non-negative int, not {n!r}")
    xs_set_num_threads(min(n, 2**31 - 1))      # a C int; the C side caps it anyway


#: Length of the int64 exact state: 68 fixed-point chunks and a flags word.
STATE_LENGTH = XS_STATE_LEN
#: Length of an exact dot product's state: three states (ordinary products,
#: products finer than 2**-1074 scaled up, overflowing ones scaled down).
DOT_STATE_LENGTH = 3 * XS_STATE_LEN

#: The state format, as the C side defines it (src/exact/xs_small.h, src/exact/xs_round.h);
#: xsumufunc._core.stateformat reads it from here and nowhere else.
STATE_FORMAT = {
    "digits": XS_NCHUNKS,               # fixed-point digits; the last is the signed top
    "digit_bits": XS_CHUNK_BITS,        # digits below the top are in [0, 2**digit_bits)
    "unit_exponent": -XS_UNIT_SHIFT,    # digit j weighs 2**(digit_bits*j + unit_exponent)
    "top_limit": XS_STATE_TOP_LIMIT,    # |top digit| the C loops read back
    "has_term": XS_HAS_TERM,
    "not_neg_zero": XS_NOT_NEG_ZERO,
    "pos_inf": XS_POS_INF,
    "neg_inf": XS_NEG_INF,
    "nan": XS_NAN,
    "flag_bits": XS_FLAG_BITS,
    # A dot product's state: three states, the ordinary products, the finest
    # ones times 2**dot_scale, the overflowing ones times 2**-dot_scale.
    "dot_scale": XS_DOT_SCALE,
}

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
cdef int BF16_NUM = BFLOAT16.num
cdef int INT64_NUM = np.dtype(np.int64).num

# Input dtypes in registration order (see the module docstring).  Every
# integer type number gets the loop of its size and signedness, so that
# 'long' and 'long long' both find one.
_INTEGER_CHARS = "?bBhHiIlLqQ"
_FLOAT_INPUTS = ("float16", "float32", "float64")
_RESULTS_BY_INPUT = {
    "float16": ("float16", "float32", "float64"),
    "float32": ("float32", "float64", "float16"),
    "float64": ("float64", "float32", "float16"),
}
_BUILTIN_RESULTS = ("float64", "float32", "float16")
_BF16_RESULTS_LAST_WINS = ("float16", "float64", "float32", "bfloat16")


def _loop_name(dt):
    """Name of the C loop family for an integer/bool dtype."""
    if dt.kind == "b":
        return "bool"
    return ("int" if dt.kind == "i" else "uint") + str(8 * dt.itemsize)


cdef dict _input_loops():
    cdef int i
    loops = {}
    for i in range(xs_input_loops_count):
        row = xs_input_loops_table[i]
        loops[row.dtype_name.decode()] = i
    return loops


cdef dict _targets():
    cdef int i
    found = {}
    for i in range(xs_targets_count):
        found[xs_targets_table[i].dtype_name.decode()] = i
    return found


cdef xs_loop_fn _pick(int row, str kind):
    if kind == "sum":
        return xs_input_loops_table[row].sum
    if kind == "mean":
        return xs_input_loops_table[row].mean
    if kind == "cumsum":
        return xs_input_loops_table[row].cumsum
    if kind == "masked_state":
        return xs_input_loops_table[row].masked_state
    return xs_input_loops_table[row].sum_state


# NumPy keeps pointers to names, docs and the loop arrays: they live as long
# as the module, in this list and in never-freed C arrays.
_keep_alive = []


cdef void *_kept(void *p) except NULL:
    """p, also pointed to from C (xs_keep_registration_array): NumPy may drop
    its own pointers when the ufuncs are freed at interpreter exit, and
    memory checkers (valgrind) would then call these one-time arrays lost."""
    if p == NULL:
        raise MemoryError()
    return xs_keep_registration_array(p)


cdef extern from "runtime/xs_fpenv.h":
    void *xs_pinned_new(cnp.PyUFuncGenericFunction fn, void *data)

cdef extern from "runtime/xs_interrupt.h":
    # What every loop is registered as: the pinned loop (xs_fpenv.h) run in
    # an interrupt context, so that long calls answer Ctrl-C.
    void xs_checked_loop(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)


cdef void *_pinned(size_t fn_address, void *data) except NULL:
    """The loop at fn_address registered to run in the pinned floating-point
    mode (src/runtime/xs_fpenv.h)."""
    cdef void *p = xs_pinned_new(<cnp.PyUFuncGenericFunction>fn_address, data)
    if p == NULL:
        raise MemoryError()
    return _kept(p)


cdef object _make_gufunc(list loops, int nin, int nout, str name, str doc, str signature):
    """loops: list of (C function, data pointer as int, [type numbers])."""
    cdef int ntypes = len(loops)
    cdef int nargs = nin + nout
    cdef cnp.PyUFuncGenericFunction *funcs = <cnp.PyUFuncGenericFunction *>_kept(PyMem_Malloc(
        ntypes * sizeof(cnp.PyUFuncGenericFunction)))
    cdef void **data = <void **>_kept(PyMem_Malloc(ntypes * sizeof(void *)))
    cdef char *types = <char *>_kept(PyMem_Malloc(ntypes * nargs * sizeof(char)))
    cdef int i, k
    cdef size_t fn_address
    for i in range(ntypes):
        fn_address, data_address, typenums = loops[i]
        funcs[i] = <cnp.PyUFuncGenericFunction>xs_checked_loop
        data[i] = _pinned(fn_address, <void *><size_t>data_address)
        for k in range(nargs):
            types[i * nargs + k] = <char>typenums[k]
    name_b = name.encode()
    doc_b = doc.encode()
    sig_b = signature.encode()
    _keep_alive.extend([name_b, doc_b, sig_b])
    return cnp.PyUFunc_FromFuncAndDataAndSignature(
        funcs, data, types, ntypes, nin, nout, cnp.PyUFunc_None, name_b, doc_b, 0, sig_b)


cdef int _register_user(object ufunc, int usertype, size_t fn_address, size_t data_address,
                        list typenums) except -1:
    """Add a loop on ml_dtypes' dtypes (type numbers assigned in this process)."""
    cdef int *args = <int *>_kept(PyMem_Malloc(len(typenums) * sizeof(int)))
    cdef int k
    for k in range(len(typenums)):
        args[k] = typenums[k]
    if cnp.PyUFunc_RegisterLoopForType(
            <cnp.ufunc>ufunc, usertype, <cnp.PyUFuncGenericFunction>xs_checked_loop, args,
            _pinned(fn_address, <void *>data_address)) < 0:
        raise RuntimeError(f"cannot register a loop of {ufunc.__name__} for {typenums}")
    return 0


cdef int _register_bf16(object ufunc, size_t fn_address, size_t data_address,
                        list typenums) except -1:
    return _register_user(ufunc, BF16_NUM, fn_address, data_address, typenums)


# ---- byte-coded formats: ml_dtypes' float8, float6 and float4 -----------
#
# Each gets a slot in src/kernels/codes/xs_codes.c, filled here from ml_dtypes itself (the
# value of every code, the codes its conversion gives 0, -0, Inf, -Inf and
# NaN, its grid from ml_dtypes.finfo): the only place their layouts are read.
# float8_e8m0fnu is left out on purpose: it encodes scales 2**k (no zero, no
# sign), the exponents of MX blocks, not terms to add (docs/lowprec.md).
_CODE_FORMAT_NAMES = (
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
    "float8_e4m3b11fnuz", "float8_e3m4", "float8_e4m3",
    "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn",
)


cdef tuple _code_formats():
    """({dtype: slot}, {dtype: (precision, emin, emax)}) for the formats this
    ml_dtypes has, their slots filled."""
    cdef cnp.ndarray values, encodable, special
    slots, grids = {}, {}
    for name in _CODE_FORMAT_NAMES:
        if not hasattr(ml_dtypes, name):
            continue
        dt = np.dtype(getattr(ml_dtypes, name))
        slot = len(slots)
        if slot >= XS_CODE_SLOTS:
            break
        codes = np.arange(256, dtype=np.uint8)
        with np.errstate(all="ignore"):
            values = np.ascontiguousarray(codes.view(dt).astype(np.float64))
            encodable = np.ascontiguousarray(values.astype(dt).view(np.uint8) == codes)
            special = np.ascontiguousarray(
                np.array([0.0, -0.0, np.inf, -np.inf, np.nan]).astype(dt).view(np.uint8))
        info = ml_dtypes.finfo(dt)
        grid = (int(info.nmant) + 1, int(info.minexp), int(info.maxexp) - 1)
        if xs_code_format_init(slot, <const double *>values.data,
                               <const unsigned char *>encodable.data,
                               <const unsigned char *>special.data,
                               grid[0], grid[1], grid[2]) != 0:
            raise RuntimeError(f"xsumufunc: cannot read the format of ml_dtypes.{name}")
        slots[dt] = slot
        grids[dt] = grid
    return slots, grids


#: CODE_FORMATS: {dtype: (precision, emin, emax)} of the byte-coded formats
#: read above (emax: the top binade); xsumufunc._core.dtypes takes them from here.
_CODE_SLOTS, CODE_FORMATS = _code_formats()


cdef size_t _target_address(object result):
    """The xs_target of a result dtype (a name, or a byte-coded dtype)."""
    if isinstance(result, np.dtype):
        return <size_t>xs_code_target(_CODE_SLOTS[result])
    return <size_t>xs_targets_table[_TARGETS[result]].target


cdef int _num(object result):
    return result.num if isinstance(result, np.dtype) else (
        BF16_NUM if result == "bfloat16" else np.dtype(result).num)


def _code_loop_name(dt):
    return f"code{_CODE_SLOTS[dt]}"


cdef int _register_codes(object ufunc, dict loop_of, list other_inputs, int copies,
                         list results) except -1:
    """Register the byte-coded formats on a rounding ufunc whose loops take
    `copies` arguments of the input dtype, then the result.

    loop_of: {input key: loop address}, keys dtype names and codeK;
    other_inputs: (type number, key) of the inputs that have loops already;
    results: the other result dtypes (names).  Each code format gets every
    other input rounded into it, and itself as input rounded into every
    result, its own default (itself) registered last.
    """
    for code in _CODE_SLOTS:
        for num, key in other_inputs:
            _register_user(ufunc, code.num, loop_of[key], _target_address(code),
                           [num] * copies + [code.num])
        outs = list(results) + [c for c in _CODE_SLOTS if c != code] + [code]
        for result in outs:
            _register_user(ufunc, code.num, loop_of[_code_loop_name(code)],
                           _target_address(result),
                           [code.num] * copies + [_num(result)])
    return 0


_INPUTS = _input_loops()
_TARGETS = _targets()


cdef object _rounding_gufunc(str kind, str name, str doc, str signature):
    """(input) -> one rounded result per (input, result) dtype pair."""
    builtin = []
    for ch in _INTEGER_CHARS:
        dt = np.dtype(ch)
        row = _INPUTS[_loop_name(dt)]
        for result in _BUILTIN_RESULTS:
            builtin.append((<size_t>_pick(row, kind), _target_address(result),
                            [dt.num, np.dtype(result).num]))
    for source in _FLOAT_INPUTS:
        row = _INPUTS[source]
        for result in _RESULTS_BY_INPUT[source]:
            builtin.append((<size_t>_pick(row, kind), _target_address(result),
                            [np.dtype(source).num, np.dtype(result).num]))
    ufunc = _make_gufunc(builtin, 1, 1, name, doc, signature)
    # Every other input rounded straight into bfloat16.
    for ch in _INTEGER_CHARS:
        dt = np.dtype(ch)
        _register_bf16(ufunc, <size_t>_pick(_INPUTS[_loop_name(dt)], kind),
                       _target_address("bfloat16"), [dt.num, BF16_NUM])
    for source in _FLOAT_INPUTS:
        _register_bf16(ufunc, <size_t>_pick(_INPUTS[source], kind),
                       _target_address("bfloat16"), [np.dtype(source).num, BF16_NUM])
    # bfloat16 input: NumPy takes the user loop registered last among those
    # that fit, so its default (the bfloat16 result) is registered last.
    row = _INPUTS["bfloat16"]
    for result in _BF16_RESULTS_LAST_WINS:
        out_num = BF16_NUM if result == "bfloat16" else np.dtype(result).num
        _register_bf16(ufunc, <size_t>_pick(row, kind), _target_address(result),
                       [BF16_NUM, out_num])
    others = ([(np.dtype(ch).num, _loop_name(np.dtype(ch))) for ch in _INTEGER_CHARS]
              + [(np.dtype(f).num, f) for f in _FLOAT_INPUTS] + [(BF16_NUM, "bfloat16")])
    loops = {key: <size_t>_pick(row, kind) for key, row in _INPUTS.items()}
    _register_codes(ufunc, loops, others, 1, list(_BF16_RESULTS_LAST_WINS))
    return ufunc


cdef object _state_gufunc():
    builtin = []
    for ch in _INTEGER_CHARS:
        dt = np.dtype(ch)
        builtin.append((<size_t>_pick(_INPUTS[_loop_name(dt)], "state"), 0,
                        [dt.num, INT64_NUM]))
    for source in _FLOAT_INPUTS:
        builtin.append((<size_t>_pick(_INPUTS[source], "state"), 0,
                        [np.dtype(source).num, INT64_NUM]))
    ufunc = _make_gufunc(
        builtin, 1, 1, "exact_sum_state_ufunc",
        "Exact sum as a portable int64 state (last axis of the result).",
        f"(n)->({XS_STATE_LEN})")
    _register_bf16(ufunc, <size_t>_pick(_INPUTS["bfloat16"], "state"), 0,
                   [BF16_NUM, INT64_NUM])
    for code in _CODE_SLOTS:
        _register_user(ufunc, code.num, <size_t>_pick(_INPUTS[_code_loop_name(code)], "state"),
                       0, [code.num, INT64_NUM])
    return ufunc


cdef object _masked_state_gufunc():
    """(values, mask, skip_nan) -> (state, count) of the selected terms."""
    bool_num = np.dtype(bool).num
    builtin = []
    for ch in _INTEGER_CHARS:
        dt = np.dtype(ch)
        builtin.append((<size_t>_pick(_INPUTS[_loop_name(dt)], "masked_state"), 0,
                        [dt.num, bool_num, bool_num, INT64_NUM, INT64_NUM]))
    for source in _FLOAT_INPUTS:
        builtin.append((<size_t>_pick(_INPUTS[source], "masked_state"), 0,
                        [np.dtype(source).num, bool_num, bool_num, INT64_NUM, INT64_NUM]))
    ufunc = _make_gufunc(
        builtin, 3, 2, "exact_masked_state_ufunc",
        "Exact state and count of the terms whose mask is True (and, when the\n"
        "third argument is True, that are not NaN).",
        f"(n),(n),()->({XS_STATE_LEN}),()")
    _register_bf16(ufunc, <size_t>_pick(_INPUTS["bfloat16"], "masked_state"), 0,
                   [BF16_NUM, bool_num, bool_num, INT64_NUM, INT64_NUM])
    for code in _CODE_SLOTS:
        _register_user(ufunc, code.num,
                       <size_t>_pick(_INPUTS[_code_loop_name(code)], "masked_state"), 0,
                       [code.num, bool_num, bool_num, INT64_NUM, INT64_NUM])
    return ufunc


cdef object _merge_gufunc():
    return _make_gufunc(
        [(<size_t>xs_state_merge, 0, [INT64_NUM, INT64_NUM])], 1, 1,
        "exact_state_merge_ufunc", "Merge m exact states into one.",
        f"(m,{XS_STATE_LEN})->({XS_STATE_LEN})")


cdef object _round_gufunc(size_t loop, int nin, str name, str doc, str signature):
    """(state[, count]) -> rounded result, one loop per result dtype."""
    loops = [(loop, _target_address(result), [INT64_NUM] * nin + [np.dtype(result).num])
             for result in _BUILTIN_RESULTS]
    ufunc = _make_gufunc(loops, nin, 1, name, doc, signature)
    _register_bf16(ufunc, loop, _target_address("bfloat16"), [INT64_NUM] * nin + [BF16_NUM])
    for code in _CODE_SLOTS:
        _register_user(ufunc, code.num, loop, _target_address(code),
                       [INT64_NUM] * nin + [code.num])
    return ufunc


cdef dict _dot_loops(str kind="dot"):
    cdef int i
    found = {}
    for i in range(xs_dot_loops_count):
        found[xs_dot_loops_table[i].dtype_name.decode()] = (
            <size_t>xs_dot_loops_table[i].dot if kind == "dot"
            else <size_t>xs_dot_loops_table[i].dot_state)
    return found


cdef object _dot_state_gufunc():
    """(n),(n)->(3*69): the exact dot product as a mergeable state."""
    states = _dot_loops("state")
    builtin = [(states[source], 0, [np.dtype(source).num] * 2 + [INT64_NUM])
               for source in _FLOAT_INPUTS]
    ufunc = _make_gufunc(
        builtin, 2, 1, "exact_dot_state_ufunc",
        "Exact dot product over the last axis as an int64 state of three parts\n"
        "(merge each part with exact_state_merge_ufunc; round with\n"
        "exact_dot_state_round_ufunc).",
        f"(n),(n)->({3 * XS_STATE_LEN})")
    _register_bf16(ufunc, states["bfloat16"], 0, [BF16_NUM, BF16_NUM, INT64_NUM])
    for code in _CODE_SLOTS:
        _register_user(ufunc, code.num, states[_code_loop_name(code)], 0,
                       [code.num, code.num, INT64_NUM])
    return ufunc


cdef extern from *:
    """
    /* The dot gufuncs have float loops only: NumPy's default resolution
       would cast 64-bit integers into the float64 loop, rounding those
       beyond 2**53.  Refuse them (xsumufunc.exact_dot is exact for them);
       smaller integers and bools cast exactly. */
    static int xs_dot_type_resolver(PyUFuncObject *ufunc, NPY_CASTING casting,
                                    PyArrayObject **operands, PyObject *type_tup,
                                    PyArray_Descr **out_dtypes)
    {
        for (int i = 0; i < 2; i++) {
            PyArray_Descr *descr = PyArray_DESCR(operands[i]);
            if ((descr->kind == 'i' || descr->kind == 'u') && PyDataType_ELSIZE(descr) > 4) {
                PyErr_Format(PyExc_TypeError,
                             "%s: operand %d is %d-bit integers, which its float64 loop "
                             "would round beyond 2**53; use xsumufunc.exact_dot, exact for "
                             "every integer", ufunc->name, i + 1,
                             (int)(8 * PyDataType_ELSIZE(descr)));
                return -1;
            }
        }
        return PyUFunc_DefaultTypeResolver(ufunc, casting, operands, type_tup, out_dtypes);
    }

    static void xs_refuse_wide_integers(PyObject *ufunc)
    {
        ((PyUFuncObject *)ufunc)->type_resolver = &xs_dot_type_resolver;
    }
    """
    void xs_refuse_wide_integers(object ufunc)


cdef object _dot_gufunc():
    """(n),(n)->(): both inputs of one float dtype; mixed pairs are brought to
    a common dtype that holds both exactly by the Python wrapper."""
    dots = _dot_loops()
    builtin = []
    for source in _FLOAT_INPUTS:
        num = np.dtype(source).num
        for result in _RESULTS_BY_INPUT[source]:
            builtin.append((dots[source], _target_address(result),
                            [num, num, np.dtype(result).num]))
    ufunc = _make_gufunc(
        builtin, 2, 1, "exact_dot_ufunc",
        "Exact dot product over the last axis, rounded once into the result dtype.\n\n"
        "The raw gufunc behind xsumufunc.exact_dot, signature (n),(n)->().",
        "(n),(n)->()")
    for source in _FLOAT_INPUTS:
        num = np.dtype(source).num
        _register_bf16(ufunc, dots[source], _target_address("bfloat16"), [num, num, BF16_NUM])
    for result in _BF16_RESULTS_LAST_WINS:          # the default last: see above
        out_num = BF16_NUM if result == "bfloat16" else np.dtype(result).num
        _register_bf16(ufunc, dots["bfloat16"], _target_address(result),
                       [BF16_NUM, BF16_NUM, out_num])
    others = [(np.dtype(f).num, f) for f in _FLOAT_INPUTS] + [(BF16_NUM, "bfloat16")]
    _register_codes(ufunc, dots, others, 2, list(_BF16_RESULTS_LAST_WINS))
    return ufunc


exact_sum_ufunc = _rounding_gufunc(
    "sum", "exact_sum_ufunc",
    "Exact sum over the last axis, rounded once into the result dtype.\n\n"
    "The raw gufunc behind xsumufunc.exact_sum, signature (n)->().",
    "(n)->()")
exact_cumsum_ufunc = _rounding_gufunc(
    "cumsum", "exact_cumsum_ufunc",
    "Every prefix sum of the last axis, each exact and rounded once.\n\n"
    "The raw gufunc behind xsumufunc.exact_add.accumulate, signature (n)->(n).",
    "(n)->(n)")
exact_mean_ufunc = _rounding_gufunc(
    "mean", "exact_mean_ufunc",
    "Exact mean over the last axis (exact sum / n), rounded once into the result dtype.\n\n"
    "The raw gufunc behind xsumufunc.exact_mean, signature (n)->().",
    "(n)->()")
exact_dot_ufunc = _dot_gufunc()
xs_refuse_wide_integers(exact_dot_ufunc)
exact_sum_state_ufunc = _state_gufunc()
exact_masked_state_ufunc = _masked_state_gufunc()
exact_state_merge_ufunc = _merge_gufunc()
exact_state_round_ufunc = _round_gufunc(
    <size_t>xs_state_round, 1, "exact_state_round_ufunc",
    "Round an exact state once into the result dtype.", f"({XS_STATE_LEN})->()")
exact_dot_state_ufunc = _dot_state_gufunc()
xs_refuse_wide_integers(exact_dot_state_ufunc)
exact_dot_state_round_ufunc = _round_gufunc(
    <size_t>xs_dot_state_round, 1, "exact_dot_state_round_ufunc",
    "Round an exact dot product's state once into the result dtype.",
    f"({3 * XS_STATE_LEN})->()")
exact_state_mean_ufunc = _round_gufunc(
    <size_t>xs_state_mean, 2, "exact_state_mean_ufunc",
    "Divide an exact state by an int64 count, rounding once into the result dtype.",
    f"({XS_STATE_LEN}),()->()")

cdef object _moving_gufunc():
    """(values, window, min_count, mean) -> each window's exact sum or mean."""
    f64, i64, b = np.dtype(np.float64).num, INT64_NUM, np.dtype(bool).num
    loops = [(<size_t>xs_moving_float64, _target_address(result),
              [f64, i64, i64, b, np.dtype(result).num]) for result in _BUILTIN_RESULTS]
    ufunc = _make_gufunc(
        loops, 4, 1, "exact_moving_ufunc",
        "Exact sum (or mean) of each trailing window of the last axis, rounded once.\n\n"
        "The raw gufunc behind xsumufunc.exact_moving_sum and exact_moving_mean:\n"
        "float64 values, int64 window, int64 min_count, bool mean; signature\n"
        "(n),(),(),()->(n).  NaNs are not terms; a window with fewer than\n"
        "min_count terms gives NaN.",
        "(n),(),(),()->(n)")
    _register_bf16(ufunc, <size_t>xs_moving_float64, _target_address("bfloat16"),
                   [f64, i64, i64, b, BF16_NUM])
    for code in _CODE_SLOTS:
        _register_user(ufunc, code.num, <size_t>xs_moving_float64, _target_address(code),
                       [f64, i64, i64, b, code.num])
    return ufunc


exact_moving_ufunc = _moving_gufunc()


cdef object _moving_var_gufunc():
    """(values, window, min_count, ddof, std) -> each window's variance (or
    standard deviation) where decided, and whether it was."""
    f64, i64, b = np.dtype(np.float64).num, INT64_NUM, np.dtype(bool).num
    loops = [(<size_t>xs_moving_var, _target_address(result),
              [f64, i64, i64, i64, b, np.dtype(result).num, b]) for result in _BUILTIN_RESULTS]
    ufunc = _make_gufunc(
        loops, 5, 2, "_moving_var_ufunc",
        "Variance (or standard deviation) of each trailing window of the last axis,\n"
        "rounded once, where two-double approximations decide it.\n\n"
        "float64 values, int64 window, int64 min_count, int64 ddof, bool std;\n"
        "signature (n),(),(),(),()->(n),(n): the values and a flag per window,\n"
        "False where xsumufunc._core.moving must compute the window exactly.",
        "(n),(),(),(),()->(n),(n)")
    _register_bf16(ufunc, <size_t>xs_moving_var, _target_address("bfloat16"),
                   [f64, i64, i64, i64, b, BF16_NUM, b])
    for code in _CODE_SLOTS:
        _register_user(ufunc, code.num, <size_t>xs_moving_var, _target_address(code),
                       [f64, i64, i64, i64, b, code.num, b])
    return ufunc


_moving_var_ufunc = _moving_var_gufunc()


cdef object _grouped_var_gufunc():
    """(values sorted by group, group ends, ddof, std) -> each group's
    variance (or standard deviation) where decided, and whether it was."""
    f64, i64, b = np.dtype(np.float64).num, INT64_NUM, np.dtype(bool).num
    loops = [(<size_t>xs_grouped_var, _target_address(result),
              [f64, i64, i64, b, np.dtype(result).num, b]) for result in _BUILTIN_RESULTS]
    ufunc = _make_gufunc(
        loops, 4, 2, "_grouped_var_ufunc",
        "Variance (or standard deviation) of each group of sorted values, rounded\n"
        "once, where two-double approximations decide it.\n\n"
        "float64 values sorted by group, int64 group end offsets, int64 ddof, bool\n"
        "std; signature (n),(g),(),()->(g),(g): the values and a flag per group,\n"
        "False where xsumufunc._core.grouped must compute the group exactly.",
        "(n),(g),(),()->(g),(g)")
    _register_bf16(ufunc, <size_t>xs_grouped_var, _target_address("bfloat16"),
                   [f64, i64, i64, b, BF16_NUM, b])
    for code in _CODE_SLOTS:
        _register_user(ufunc, code.num, <size_t>xs_grouped_var, _target_address(code),
                       [f64, i64, i64, b, code.num, b])
    return ufunc


_grouped_var_ufunc = _grouped_var_gufunc()


# The one-pass norms of rows (src/kernels/dot/xs_norm.c): each row's norm and whether the
# two-double sum of squares decided it; xsumufunc._core.norm takes the rest.
_norm_rows_ufunc = _make_gufunc(
    [(<size_t>xs_norm_float64, 0, [np.dtype(np.float64).num] * 2 + [np.dtype(bool).num]),
     (<size_t>xs_norm_float32, 0, [np.dtype(np.float32).num] * 2 + [np.dtype(bool).num])],
    1, 2, "_norm_rows_ufunc",
    "Correctly rounded 2-norms of rows where a two-double sum of squares decides\n"
    "them, and a flag saying where it did; signature (n)->(),().  float64 rows\n"
    "give float64 norms, float32 rows float32 norms.",
    "(n)->(),()")
