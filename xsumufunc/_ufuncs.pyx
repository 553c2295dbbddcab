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
NumPy (2.4) keeps them sorted by safe casts, and a bfloat16 input's default
loop comes first when it is registered after all the others.  The builder
(_ufunc_builder.pxi) checks each input's default loop when it builds a ufunc.
"""
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
    int XS_REGISTRATION_MAX

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
    void xs_moving_float32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)

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


cdef extern from "kernels/cells/xs_cells.h":
    Py_ssize_t xs_cells_binned_min_terms(Py_ssize_t n) nogil


def _binned_min_terms(Py_ssize_t n=-1):
    """The length from which float64 rows share their blocks between the
    cuts and a large accumulator (src/kernels/cells/xs_cells.h); ``n >= 0``
    sets it, and the value before is returned.  A test hook: the tests and
    the fuzzer lower it so that short rows reach those kernels; results
    never depend on it.

    >>> from xsumufunc import _ufuncs
    >>> before = _ufuncs._binned_min_terms(256)
    >>> _ufuncs._binned_min_terms(before)
    256
    """
    return xs_cells_binned_min_terms(n)


cdef extern from "kernels/cells/xs_columns.h":
    Py_ssize_t xs_columns_split_blocks() nogil


def _split_blocks():
    """How many strip blocks of float32 columns the split kernel has summed
    (src/kernels/cells/xs_columns_variants.h) in this process: a test hook,
    so that the tests know they reached it.

    >>> from xsumufunc import _ufuncs
    >>> _ufuncs._split_blocks() >= 0
    True
    """
    return xs_columns_split_blocks()


cdef extern from "kernels/dot/xs_dot_cells.h":
    Py_ssize_t xs_dot_cells_binned_min_terms(Py_ssize_t n) nogil


def _dot_binned_min_terms(Py_ssize_t n=-1):
    """The length from which float64 dot products share their blocks
    between the cuts and bins of exact products, where the SIMD level has
    such kernels (src/kernels/dot/xs_dot_cells.h); ``n >= 0`` sets it, and
    the value before is returned.  A test hook, as ``_binned_min_terms``.

    >>> from xsumufunc import _ufuncs
    >>> before = _ufuncs._dot_binned_min_terms(256)
    >>> _ufuncs._dot_binned_min_terms(before)
    256
    """
    return xs_dot_cells_binned_min_terms(n)


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
INT64 = np.dtype(np.int64)
BOOL = np.dtype(bool)
F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)

# Input dtypes in registration order (see the module docstring).  Every
# integer type number gets the loop of its size and signedness, so that
# 'long' and 'long long' both find one.
_INTEGERS = [np.dtype(ch) for ch in "?bBhHiIlLqQ"]
_FLOATS = [F16, F32, F64]
_RESULTS_BY_INPUT = {F16: [F16, F32, F64], F32: [F32, F64, F16], F64: [F64, F32, F16]}
_BUILTIN_RESULTS = [F64, F32, F16]
# The results of a run-time input besides itself (its default, registered last).
_USER_RESULTS = [F16, F64, F32]


# ---- registration: every loop goes through _keep --------------------------

cdef extern from "runtime/xs_interrupt.h":
    # What every loop is registered as: the pinned loop (xs_fpenv.h) run in
    # an interrupt context, so that long calls answer Ctrl-C.
    void _registered_loop "xs_checked_loop"(char **, const cnp.npy_intp *,
                                            const cnp.npy_intp *, void *)

cdef extern from *:
    """
    /* How many arrays src/loops/xs_loops.c keeps; it stops keeping them at
       XS_REGISTRATION_MAX (xs_keep_registration_array). */
    extern int xs_registration_count;
    """
    int xs_registration_count


cdef void *_keep(void *p) except NULL:
    """p, also pointed to from C (xs_keep_registration_array): NumPy may drop
    its own pointers when the ufuncs are freed at interpreter exit, and
    memory checkers (valgrind) would then call these one-time arrays lost."""
    if p == NULL:
        raise MemoryError()
    if xs_registration_count >= XS_REGISTRATION_MAX:
        raise RuntimeError(f"xsumufunc: more than XS_REGISTRATION_MAX = {XS_REGISTRATION_MAX} "
                           "registration arrays (src/loops/xs_loops.h): raise it")
    return xs_keep_registration_array(p)


include "_ufunc_builder.pxi"


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
_CODES = list(_CODE_SLOTS)


def _loop_key(dt):
    """The name of an input dtype's row in the C loop tables: its slot for a
    byte-coded format, the size and signedness for an integer."""
    if dt in _CODE_SLOTS:
        return f"code{_CODE_SLOTS[dt]}"
    if dt.kind == "b":
        return "bool"
    if dt.kind in "iu":
        return ("int" if dt.kind == "i" else "uint") + str(8 * dt.itemsize)
    return dt.name


cdef extern from "numpy/ndarraytypes.h":
    int NPY_USERDEF                     # the first run-time type number


cdef int _user(object dt):
    """The run-time type number a loop on dt is registered under (0: built in)."""
    return dt.num if dt.num >= NPY_USERDEF else 0


cdef dict _table_rows():
    """{dtype name: row} of the loops by input (xs_input_loops_table)."""
    cdef int i
    return {xs_input_loops_table[i].dtype_name.decode(): i for i in range(xs_input_loops_count)}


cdef dict _target_rows():
    """{dtype name: row} of the rounding targets (xs_targets_table)."""
    cdef int i
    return {xs_targets_table[i].dtype_name.decode(): i for i in range(xs_targets_count)}


_INPUTS = _table_rows()
_TARGETS = _target_rows()


cdef size_t _target_address(object result):
    """The xs_target of a result dtype."""
    if result in _CODE_SLOTS:
        return <size_t>xs_code_target(_CODE_SLOTS[result])
    return <size_t>xs_targets_table[_TARGETS[result.name]].target


cdef dict _input_fns(str kind):
    """{input dtype: address of its `kind` loop} (kind: a column of
    xs_input_loops_table)."""
    return {dt: <size_t>_pick(_INPUTS[_loop_key(dt)], kind)
            for dt in _INTEGERS + _FLOATS + [BFLOAT16] + _CODES}


cdef dict _dot_fns(str kind):
    """{input dtype: address of its dot loop} (kind "dot" or "state")."""
    cdef int i
    rows = {xs_dot_loops_table[i].dtype_name.decode(): i for i in range(xs_dot_loops_count)}
    return {dt: (<size_t>xs_dot_loops_table[rows[_loop_key(dt)]].dot if kind == "dot"
                 else <size_t>xs_dot_loops_table[rows[_loop_key(dt)]].dot_state)
            for dt in _FLOATS + [BFLOAT16] + _CODES}


# ---- the loop lists of each kind of ufunc ---------------------------------

cdef list _into_user(dict fn_of, object user, list earlier, list results, int copies):
    """The loops registered on a run-time dtype: every earlier input rounded
    into it, then it rounded into each result and into itself, its default
    last (see _ufunc_builder.pxi).

    Only bfloat16's default is one: ml_dtypes declares most byte-coded
    formats safely castable into each other, and NumPy keeps the user loops
    of a dtype sorted by safe casts, so a code format's input may resolve to
    another format's loop (float8_e4m3fn to float8_e4m3fnuz).  The Python
    layer names the result dtype of every call on them."""
    loops = [_Loop(fn_of[dt], _target_address(user), (dt,) * copies + (user,), user.num, False)
             for dt in earlier]
    return loops + [_Loop(fn_of[user], _target_address(r), (user,) * copies + (r,), user.num,
                          r is user and user is BFLOAT16) for r in results + [user]]


cdef list _rounding_loops(dict fn_of, list builtin, int copies):
    """(input x copies) -> result for every input and result dtype: the
    built-in pairs (each input's default result first), then bfloat16 and
    the byte-coded formats, each as input and result."""
    loops = [_Loop(fn_of[dt], _target_address(r), (dt,) * copies + (r,), 0, r is results[0])
             for dt in builtin
             for results in [_RESULTS_BY_INPUT.get(dt, _BUILTIN_RESULTS)] for r in results]
    loops += _into_user(fn_of, BFLOAT16, builtin, _USER_RESULTS, copies)
    for code in _CODES:
        loops += _into_user(fn_of, code, builtin + [BFLOAT16],
                            _USER_RESULTS + [BFLOAT16] + [c for c in _CODES if c != code], copies)
    return loops


cdef list _per_input(dict fn_of, list inputs, int copies, tuple more, tuple outputs):
    """One loop per input dtype: (input x copies, *more) -> outputs."""
    return [_Loop(fn_of[dt], 0, (dt,) * copies + more + outputs, _user(dt), True)
            for dt in inputs + [BFLOAT16] + _CODES]


cdef list _per_result(size_t fn, tuple inputs, tuple more_outputs=()):
    """One loop per result dtype: inputs -> (result, *more_outputs), float64
    the default."""
    return [_Loop(fn, _target_address(r), inputs + (r,) + more_outputs, _user(r), r is F64)
            for r in _BUILTIN_RESULTS + [BFLOAT16] + _CODES]


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


# ---- the ufuncs, one declaration each: name, loops, doc, signature --------

cdef str _STATE = f"({XS_STATE_LEN})"          # an exact state
cdef str _DOT_STATE = f"({3 * XS_STATE_LEN})"      # an exact dot product's state

exact_sum_ufunc = _ufunc(
    "exact_sum_ufunc", _rounding_loops(_input_fns("sum"), _INTEGERS + _FLOATS, 1),
    "Exact sum over the last axis, rounded once into the result dtype.\n\n"
    "The raw gufunc behind xsumufunc.exact_sum, signature (n)->().",
    "(n)->()")
exact_cumsum_ufunc = _ufunc(
    "exact_cumsum_ufunc", _rounding_loops(_input_fns("cumsum"), _INTEGERS + _FLOATS, 1),
    "Every prefix sum of the last axis, each exact and rounded once.\n\n"
    "The raw gufunc behind xsumufunc.exact_add.accumulate, signature (n)->(n).",
    "(n)->(n)")
exact_mean_ufunc = _ufunc(
    "exact_mean_ufunc", _rounding_loops(_input_fns("mean"), _INTEGERS + _FLOATS, 1),
    "Exact mean over the last axis (exact sum / n), rounded once into the result dtype.\n\n"
    "The raw gufunc behind xsumufunc.exact_mean, signature (n)->().",
    "(n)->()")
# Both inputs of one float dtype; mixed pairs are brought to a common dtype
# that holds both exactly by the Python wrapper.
exact_dot_ufunc = _ufunc(
    "exact_dot_ufunc", _rounding_loops(_dot_fns("dot"), _FLOATS, 2),
    "Exact dot product over the last axis, rounded once into the result dtype.\n\n"
    "The raw gufunc behind xsumufunc.exact_dot, signature (n),(n)->().",
    "(n),(n)->()")
xs_refuse_wide_integers(exact_dot_ufunc)
exact_sum_state_ufunc = _ufunc(
    "exact_sum_state_ufunc", _per_input(_input_fns("state"), _INTEGERS + _FLOATS, 1, (), (INT64,)),
    "Exact sum as a portable int64 state (last axis of the result).",
    f"(n)->{_STATE}")
exact_masked_state_ufunc = _ufunc(
    "exact_masked_state_ufunc",
    _per_input(_input_fns("masked_state"), _INTEGERS + _FLOATS, 1, (BOOL, BOOL), (INT64, INT64)),
    "Exact state and count of the terms whose mask is True (and, when the\n"
    "third argument is True, that are not NaN).",
    f"(n),(n),()->{_STATE},()")
exact_state_merge_ufunc = _ufunc(
    "exact_state_merge_ufunc", [_Loop(<size_t>xs_state_merge, 0, (INT64, INT64), 0, True)],
    "Merge m exact states into one.",
    f"(m,{XS_STATE_LEN})->{_STATE}")
exact_state_round_ufunc = _ufunc(
    "exact_state_round_ufunc", _per_result(<size_t>xs_state_round, (INT64,)),
    "Round an exact state once into the result dtype.",
    f"{_STATE}->()")
exact_dot_state_ufunc = _ufunc(
    "exact_dot_state_ufunc", _per_input(_dot_fns("state"), _FLOATS, 2, (), (INT64,)),
    "Exact dot product over the last axis as an int64 state of three parts\n"
    "(merge each part with exact_state_merge_ufunc; round with\n"
    "exact_dot_state_round_ufunc).",
    f"(n),(n)->{_DOT_STATE}")
xs_refuse_wide_integers(exact_dot_state_ufunc)
exact_dot_state_round_ufunc = _ufunc(
    "exact_dot_state_round_ufunc", _per_result(<size_t>xs_dot_state_round, (INT64,)),
    "Round an exact dot product's state once into the result dtype.",
    f"{_DOT_STATE}->()")
exact_state_mean_ufunc = _ufunc(
    "exact_state_mean_ufunc", _per_result(<size_t>xs_state_mean, (INT64, INT64)),
    "Divide an exact state by an int64 count, rounding once into the result dtype.",
    f"{_STATE},()->()")

# float32 values have one loop of their own (into float32), read as they are;
# it comes last, so that a call without a signature resolves as before.
exact_moving_ufunc = _ufunc(
    "exact_moving_ufunc",
    _per_result(<size_t>xs_moving_float64, (F64, INT64, INT64, BOOL))
    + [_Loop(<size_t>xs_moving_float32, _target_address(F32), (F32, INT64, INT64, BOOL, F32),
             0, False)],
    "Exact sum (or mean) of each trailing window of the last axis, rounded once.\n\n"
    "The raw gufunc behind xsumufunc.exact_moving_sum and exact_moving_mean:\n"
    "float64 values, int64 window, int64 min_count, bool mean; signature\n"
    "(n),(),(),()->(n).  NaNs are not terms; a window with fewer than\n"
    "min_count terms gives NaN.  float32 values into float32 results take\n"
    "a loop of their own: signature=(float32, int64, int64, bool, float32).",
    "(n),(),(),()->(n)")
_moving_var_ufunc = _ufunc(
    "_moving_var_ufunc",
    _per_result(<size_t>xs_moving_var, (F64, INT64, INT64, INT64, BOOL), (BOOL,)),
    "Variance (or standard deviation) of each trailing window of the last axis,\n"
    "rounded once, where two-double approximations decide it.\n\n"
    "float64 values, int64 window, int64 min_count, int64 ddof, bool std;\n"
    "signature (n),(),(),(),()->(n),(n): the values and a flag per window,\n"
    "False where xsumufunc._core.moving must compute the window exactly.",
    "(n),(),(),(),()->(n),(n)")
_grouped_var_ufunc = _ufunc(
    "_grouped_var_ufunc", _per_result(<size_t>xs_grouped_var, (F64, INT64, INT64, BOOL), (BOOL,)),
    "Variance (or standard deviation) of each group of sorted values, rounded\n"
    "once, where two-double approximations decide it.\n\n"
    "float64 values sorted by group, int64 group end offsets, int64 ddof, bool\n"
    "std; signature (n),(g),(),()->(g),(g): the values and a flag per group,\n"
    "False where xsumufunc._core.grouped must compute the group exactly.",
    "(n),(g),(),()->(g),(g)")



# ---- one row without the ufunc machinery ---------------------------------
#
# A moving window over 10 values cost about 1.2 us in NumPy's gufunc call
# (type resolution, the iterator) around a loop of 0.1 us (issue 30: small
# calls).  These run the same registered loops (pinned mode, interrupt
# context: _registered_loop) on one row given by its data pointer and stride.
# A row whose loop raised a floating-point flag (an overflow, say) gives
# None: the caller runs the gufunc instead, whose warnings (np.errstate, the
# message) are NumPy's own.  The caller (_core.moving) hands a 1-D array of
# the loop's input dtype.
include "_row_flags.pxi"

from cpython.exc cimport PyErr_Occurred

cdef void *_MOVING_ROW_F64 = _pinned(<size_t>xs_moving_float64, _target_address(F64))
cdef void *_MOVING_ROW_F32 = _pinned(<size_t>xs_moving_float32, _target_address(F32))
cdef void *_MOVING_VAR_ROW = _pinned(<size_t>xs_moving_var, _target_address(F64))


cdef int _run_row(void *loop, char **args, cnp.npy_intp n, cnp.npy_intp *steps) except -1:
    """The registered `loop` on one row of n terms: 1 when it raised no
    floating-point flag, else 0; an interrupt's exception raised."""
    cdef cnp.npy_intp dimensions[2]
    dimensions[0] = 1
    dimensions[1] = n
    xs_row_flags_clear()
    _registered_loop(args, dimensions, steps, loop)
    if PyErr_Occurred():
        return -1
    return not xs_row_flags()


def _moving_row(cnp.ndarray values, cnp.int64_t window, cnp.int64_t min_count, bint mean):
    """exact_moving_ufunc on a 1-D float64 or float32 array (native byte
    order), into its dtype (window and min_count already checked); None
    when the loop raised a floating-point flag."""
    cdef int typenum = cnp.PyArray_TYPE(values)
    if cnp.PyArray_NDIM(values) != 1 or typenum not in (cnp.NPY_DOUBLE, cnp.NPY_FLOAT) or \
            not cnp.PyArray_ISNOTSWAPPED(values):
        raise TypeError("_moving_row: a 1-D native float64 or float32 array")
    cdef cnp.npy_intp n = cnp.PyArray_DIM(values, 0)
    cdef cnp.ndarray out = cnp.PyArray_EMPTY(1, &n, typenum, 0)
    cdef cnp.npy_bool flag = mean
    cdef char *args[5]
    cdef cnp.npy_intp steps[7]
    args[:] = [cnp.PyArray_BYTES(values), <char *>&window, <char *>&min_count, <char *>&flag,
               cnp.PyArray_BYTES(out)]
    steps[:] = [0, 0, 0, 0, 0, cnp.PyArray_STRIDE(values, 0), cnp.PyArray_ITEMSIZE(out)]
    if _run_row(_MOVING_ROW_F64 if typenum == cnp.NPY_DOUBLE else _MOVING_ROW_F32, args, n,
                steps):
        return out
    return None


def _moving_var_row(cnp.ndarray values, cnp.int64_t window, cnp.int64_t min_count,
                    cnp.int64_t ddof, bint std):
    """_moving_var_ufunc on a 1-D native float64 array into float64: (the
    values, the decided flags), or None when the loop raised a
    floating-point flag (it puts back those it raises: never, so far)."""
    if cnp.PyArray_NDIM(values) != 1 or cnp.PyArray_TYPE(values) != cnp.NPY_DOUBLE or \
            not cnp.PyArray_ISNOTSWAPPED(values):
        raise TypeError("_moving_var_row: a 1-D native float64 array")
    cdef cnp.npy_intp n = cnp.PyArray_DIM(values, 0)
    cdef cnp.ndarray out = cnp.PyArray_EMPTY(1, &n, cnp.NPY_DOUBLE, 0)
    cdef cnp.ndarray decided = cnp.PyArray_EMPTY(1, &n, cnp.NPY_BOOL, 0)
    cdef cnp.npy_bool flag = std
    cdef char *args[7]
    cdef cnp.npy_intp steps[10]
    args[:] = [cnp.PyArray_BYTES(values), <char *>&window, <char *>&min_count, <char *>&ddof,
               <char *>&flag, cnp.PyArray_BYTES(out), cnp.PyArray_BYTES(decided)]
    steps[:] = [0, 0, 0, 0, 0, 0, 0, cnp.PyArray_STRIDE(values, 0), sizeof(double),
                sizeof(cnp.npy_bool)]
    if _run_row(_MOVING_VAR_ROW, args, n, steps):
        return out, decided
    return None

# The one-pass norms of rows (src/kernels/dot/xs_norm.c): each row's norm and whether the
# two-double sum of squares decided it; xsumufunc._core.norm takes the rest.
_norm_rows_ufunc = _ufunc(
    "_norm_rows_ufunc",
    [_Loop(<size_t>xs_norm_float64, 0, (F64, F64, BOOL), 0, True),
     _Loop(<size_t>xs_norm_float32, 0, (F32, F32, BOOL), 0, True)],
    "Correctly rounded 2-norms of rows where a two-double sum of squares decides\n"
    "them, and a flag saying where it did; signature (n)->(),().  float64 rows\n"
    "give float64 norms, float32 rows float32 norms.",
    "(n)->(),()")


# ---- states handed to us: checked and made canonical in one pass each -----
#
# The Python layer (xsumufunc._core.states) checks every state it is handed
# and gives the canonical form of every state it returns; on small calls the
# whole-array NumPy reductions that did this cost ten times the loops.
cdef extern from "loops/xs_loops.h":
    cnp.npy_intp xs_states_first_invalid(const char *base, cnp.npy_intp n,
                                         cnp.npy_intp row_step, cnp.npy_intp word_step,
                                         long long top_limit) nogil
    long long xs_states_canonicalize(char *base, cnp.npy_intp n, cnp.npy_intp row_step,
                                     cnp.npy_intp word_step) nogil


cdef _check_state_rows(cnp.ndarray rows, str what):
    """TypeError unless rows is a native int64 (m, STATE_LENGTH) array (long
    or long long: either type of 8 bytes): the C side reads exactly that."""
    if (rows.ndim != 2 or rows.shape[1] != XS_STATE_LEN or not cnp.PyArray_ISSIGNED(rows)
            or cnp.PyArray_ITEMSIZE(rows) != 8 or not cnp.PyArray_ISNOTSWAPPED(rows)):
        raise TypeError(f"{what}: rows must be a native int64 (m, {XS_STATE_LEN}) array")


def _first_invalid_state(cnp.ndarray rows, long long top_limit):
    """Index of the first row of `rows` (native int64, (m, STATE_LENGTH)) that
    is not a well-formed state with |top digit| < top_limit, or -1."""
    _check_state_rows(rows, "_first_invalid_state")
    cdef const char *base = cnp.PyArray_BYTES(rows)
    cdef cnp.npy_intp n = rows.shape[0], row_step = rows.strides[0], word_step = rows.strides[1]
    cdef cnp.npy_intp found
    with nogil:
        found = xs_states_first_invalid(base, n, row_step, word_step, top_limit)
    return found


def _canonicalize_states(cnp.ndarray rows):
    """Put the states of writeable `rows` (native int64, (m, STATE_LENGTH)) in
    canonical form in place (a state with an Inf or NaN keeps only its
    flags); returns the largest |top digit| it saw (before clearing any)."""
    _check_state_rows(rows, "_canonicalize_states")
    if not cnp.PyArray_ISWRITEABLE(rows):
        raise ValueError("_canonicalize_states: rows is read-only")
    cdef char *base = cnp.PyArray_BYTES(rows)
    cdef cnp.npy_intp n = rows.shape[0], row_step = rows.strides[0], word_step = rows.strides[1]
    cdef long long largest
    with nogil:
        largest = xs_states_canonicalize(base, n, row_step, word_step)
    return largest


# ---- exact_add.reduceat's small calls: every segment in one C call -------
cdef extern from "loops/xs_loops.h":
    cnp.npy_intp xs_segment_sums(const char *values, cnp.npy_intp n, cnp.npy_intp stride,
                                 int is_float32, const cnp.npy_intp *indices, cnp.npy_intp k,
                                 char *out) nogil


def _segment_sums(values, indices):
    """Exact sums of the segments of `values` (a 1-D native float64 or
    float32 ndarray, any stride) that np.add.reduceat(values, indices) sums,
    each rounded once into values' dtype, `indices` a 1-D native intp
    ndarray.  None when the general path must answer: other arguments, an
    index out of bounds (its error) or a result that is Inf or NaN (its
    warning).  For short segments: every term goes through the small
    accumulator."""
    if type(values) is not np.ndarray or type(indices) is not np.ndarray:
        return None
    cdef cnp.ndarray vals = values, idx = indices
    cdef int kind = cnp.PyArray_TYPE(vals)
    if (vals.ndim != 1 or idx.ndim != 1 or (kind != cnp.NPY_DOUBLE and kind != cnp.NPY_FLOAT)
            or cnp.PyArray_TYPE(idx) != cnp.NPY_INTP or not cnp.PyArray_ISNOTSWAPPED(vals)
            or not cnp.PyArray_ISNOTSWAPPED(idx)):
        return None
    if not cnp.PyArray_IS_C_CONTIGUOUS(idx):
        idx = np.ascontiguousarray(idx)
    cdef cnp.npy_intp k = idx.shape[0]
    cdef cnp.ndarray res = cnp.PyArray_EMPTY(1, &k, kind, 0)
    cdef const char *data = cnp.PyArray_BYTES(vals)
    cdef cnp.npy_intp n = vals.shape[0], stride = vals.strides[0]
    cdef const cnp.npy_intp *at = <const cnp.npy_intp *>cnp.PyArray_DATA(idx)
    cdef char *into = cnp.PyArray_BYTES(res)
    cdef cnp.npy_intp found
    with nogil:
        found = xs_segment_sums(data, n, stride, kind == cnp.NPY_FLOAT, at, k, into)
    return res if found < 0 else None


# ---- the floating-point mode of a whole public call ----------------------
#
# The loops pin the mode for themselves (src/runtime/xs_fpenv.h), but a public call
# also rounds in Python and NumPy between them (variances, norms, moving and
# grouped results): under a caller's flush-to-zero, denormals-are-zero or
# directed rounding those steps would change the bits.  So the dispatch layer
# (xsumufunc._dispatch) brackets every public call with _fp_pin and
# _fp_restore.  C, not Python, because the mode is a register: one call each,
# a few nanoseconds of work.
cdef extern from *:
    """
    #include <fenv.h>
    #if defined(__x86_64__) || defined(_M_X64)
    #include <xmmintrin.h>
    /* MXCSR (Intel SDM vol. 1, 10.2.3): exception flags bits 0-5, DAZ bit 6,
       rounding control bits 13-14, FTZ bit 15. */
    #define XS_CALL_CSR_FLAGS 0x003fu
    #define XS_CALL_CSR_CLEAR 0xe040u           /* FTZ | rounding | DAZ */
    static unsigned xs_call_csr_get(void) { return _mm_getcsr(); }
    static void xs_call_csr_set(unsigned csr, int restoring)
    {
        /* Restoring: the caller's control bits with the flags raised since
           (sticky: NumPy and the caller read them). */
        if (restoring) {
            csr = (csr & ~XS_CALL_CSR_FLAGS) | (_mm_getcsr() & XS_CALL_CSR_FLAGS);
        }
        _mm_setcsr(csr);
    }
    #elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
    /* FPCR (Arm ARM, C5.2.8): FIZ bit 0 and AH bit 1 (FEAT_AFP, else RES0),
       FZ16 bit 19, RMode bits 22-23, FZ bit 24.  The flags live in FPSR,
       which is not touched. */
    #define XS_CALL_CSR_CLEAR 0x01c80003u
    static unsigned xs_call_csr_get(void)
    {
        unsigned long long v;
        __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
        return (unsigned)v;
    }
    static void xs_call_csr_set(unsigned csr, int restoring)
    {
        unsigned long long v = csr;
        (void)restoring;
        __asm__ __volatile__("msr fpcr, %0" : : "r"(v));
    }
    #else
    #define XS_CALL_CSR_CLEAR 0u                /* only the C rounding mode */
    static unsigned xs_call_csr_get(void) { return 0; }
    static void xs_call_csr_set(unsigned csr, int restoring) { (void)csr; (void)restoring; }
    #endif

    /* The caller's mode, packed: control register in the low 32 bits, C
       rounding mode above; the mode is then round to nearest without
       flush-to-zero or denormals-are-zero. */
    static unsigned long long xs_call_fp_pin(void)
    {
        unsigned csr = xs_call_csr_get();   /* first: fesetround changes it */
        int rounding = fegetround();
        if (rounding != FE_TONEAREST) {
            fesetround(FE_TONEAREST);       /* x87 and SSE (or FPCR) alike */
        }
        if (csr & XS_CALL_CSR_CLEAR) {
            xs_call_csr_set(csr & ~XS_CALL_CSR_CLEAR, 0);
        }
        return ((unsigned long long)(unsigned)rounding << 32) | csr;
    }

    static void xs_call_fp_restore(unsigned long long saved)
    {
        int rounding = (int)(saved >> 32);
        unsigned csr = (unsigned)saved;
        if (rounding != FE_TONEAREST) {
            fesetround(rounding);
        }
        if (csr & XS_CALL_CSR_CLEAR) {
            xs_call_csr_set(csr, 1);    /* last: the register exactly as it was */
        }
    }
    """
    unsigned long long xs_call_fp_pin() nogil
    void xs_call_fp_restore(unsigned long long saved) nogil


def _fp_pin():
    """Pin round to nearest, no FTZ/DAZ; return the caller's mode for _fp_restore."""
    return xs_call_fp_pin()


def _fp_restore(unsigned long long saved):
    """Put back the mode _fp_pin saved (keeping the exception flags raised since)."""
    xs_call_fp_restore(saved)


# ---- an invalid XSUMUFUNC_NUM_THREADS is named, once --------------------
cdef extern from "runtime/xs_threads.h":
    int xs_env_num_threads() nogil


def _warn_invalid_num_threads_env():
    """Warn (once: at import) when XSUMUFUNC_NUM_THREADS is set to what the
    C side ignores (src/runtime/xs_threads.c decides; anything but a
    positive decimal integer), naming the value."""
    import os
    import warnings
    if xs_env_num_threads() < 0:
        warnings.warn(
            f"XSUMUFUNC_NUM_THREADS={os.environ.get('XSUMUFUNC_NUM_THREADS')!r} is not a "
            "positive decimal integer and is ignored: the default number of threads is used",
            RuntimeWarning, stacklevel=2)


_warn_invalid_num_threads_env()


# ---- grouped sums and means of a few values: one accumulator per group ----
cdef extern from "exact/xs_ieee.h":
    enum:
        XS_F64_MANT_BITS
        XS_F64_EXP_MASK

cdef extern from "exact/xs_small.h":
    enum:
        XS_NCHUNKS
        XS_UNIT_SHIFT
        XS_ADDS_BETWEEN_CARRIES
        XS_CHUNK_EXP_SHIFT
    ctypedef struct xs_small:
        long long chunk[XS_NCHUNKS]
        unsigned int flags
    ctypedef struct xs_format:
        pass
    const xs_format xs_format_float64
    void xs_small_init(xs_small *acc) nogil
    void xs_small_add_bits(xs_small *acc, unsigned long long bits) nogil
    double xs_small_round_divided(xs_small *acc, unsigned long long divisor,
                                  const xs_format *fmt) nogil
    double xs_round_fixed(long long *chunk, int nchunks, int unit_shift, unsigned int flags,
                          unsigned long long divisor, const xs_format *fmt) nogil
    void xs_fixed_propagate(long long *chunk, int nchunks) nogil

from libc.math cimport NAN, isfinite
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy


cdef enum:
    _FEW_ON_STACK = 8       # groups this few keep their accumulators on the stack
    # Chunks below a group's lowest that _round_span's window keeps: the
    # rounding reads the quantum 52 bits below the top and, for a mean, 13
    # more quotient bits (a count below 2^13): 65 bits, within 3 chunks of 32.
    _SPAN_CHUNKS_BELOW = 3


cdef struct _few_group:
    unsigned long long count
    int lo, hi              # the lowest and highest chunk its values reach


cdef double _round_span(xs_small *acc, const _few_group *group, bint mean) noexcept nogil:
    """The group's exact sum (mean) rounded once, from the chunks its values
    reached: with no carry propagation yet (fewer adds than
    XS_ADDS_BETWEEN_CARRIES), every chunk outside [lo, hi + 1] is zero, so
    the value is that window's, its unit shifted by 32 bits a chunk.  The
    window starts _SPAN_CHUNKS_BELOW chunks below lo (or at 0) so that
    every bit position the rounding reads (the quantum 52 bits below the
    top, and for a mean 13 more quotient bits for a count below 2^13) stays
    at or above 0, as on the whole accumulator; it ends past hi + 1, the
    highest chunk a value of chunk hi reaches."""
    if group.count >= XS_ADDS_BETWEEN_CARRIES:
        return xs_small_round_divided(acc, group.count if mean else 1, &xs_format_float64)
    cdef int lo = group.lo - _SPAN_CHUNKS_BELOW if group.lo > _SPAN_CHUNKS_BELOW else 0
    cdef int top = group.hi + 2 if group.hi + 2 < XS_NCHUNKS else XS_NCHUNKS
    xs_fixed_propagate(&acc.chunk[lo], top - lo)
    return xs_round_fixed(&acc.chunk[lo], top - lo, XS_UNIT_SHIFT - XS_CHUNK_BITS * lo,
                          acc.flags, group.count if mean else 1, &xs_format_float64)


cdef Py_ssize_t _few_groups_into(const char *vp, Py_ssize_t vs, const char *cp,
                                 Py_ssize_t cs, Py_ssize_t n, Py_ssize_t ngroups, bint mean,
                                 xs_small *accs, _few_group *groups,
                                 double *res) noexcept nogil:
    """Each group's exact sum (mean) into res, and the number of empty groups
    (+0.0 for a sum, NaN for a mean); -1 when a code is outside
    [0, ngroups) (the caller then leaves the call to the general path)."""
    cdef Py_ssize_t i, g
    cdef unsigned long long bits
    cdef long long code
    cdef int chunk
    cdef Py_ssize_t empty = 0
    for g in range(ngroups):
        xs_small_init(&accs[g])
        groups[g].count = 0
        groups[g].lo = XS_NCHUNKS
        groups[g].hi = 0
    for i in range(n):
        memcpy(&code, cp + i * cs, sizeof(code))
        if code < 0 or code >= ngroups:
            return -1
        memcpy(&bits, vp + i * vs, sizeof(bits))
        xs_small_add_bits(&accs[code], bits)
        # The chunk of its biased exponent (a subnormal's, 0, is chunk 0
        # too): the value reaches that chunk and the next.
        chunk = <int>((bits >> XS_F64_MANT_BITS) & XS_F64_EXP_MASK) >> XS_CHUNK_EXP_SHIFT
        groups[code].count += 1
        if chunk < groups[code].lo:
            groups[code].lo = chunk
        if chunk > groups[code].hi:
            groups[code].hi = chunk
    for g in range(ngroups):
        if groups[g].count == 0:
            res[g] = NAN if mean else 0.0      # +0: exact_sum of nothing
            empty += 1
        else:
            res[g] = _round_span(&accs[g], &groups[g], mean)
    return empty


def _grouped_few(object values, object codes, object ngroups, bint mean, Py_ssize_t cells):
    """Exact float64 sums (mean: means) of each group of a few float64
    values, each group's exact sum in its own accumulator, rounded once
    (divided by the group's count for a mean): (a new float64 array, the
    number of empty groups: +0.0 for a sum, NaN for a mean, whose caller
    warns).
    Every check is here, so a small call is this one call: values a 1-D
    native float64 ndarray (any strides, alignment), codes a native int64
    ndarray of its shape, ngroups an int, 0 < values times groups <= cells.
    None otherwise, or when a code is outside [0, ngroups): the caller's
    general path then decides, with its errors."""
    if not (cnp.PyArray_CheckExact(values) and cnp.PyArray_CheckExact(codes)
            and type(ngroups) is int):
        return None
    cdef cnp.ndarray v = <cnp.ndarray>values
    cdef cnp.ndarray c = <cnp.ndarray>codes
    if not (v.ndim == 1 and c.ndim == 1 and v.shape[0] == c.shape[0]
            and cnp.PyArray_TYPE(v) == cnp.NPY_FLOAT64
            and cnp.PyArray_TYPE(c) == cnp.NPY_INT64
            and cnp.PyArray_ISNOTSWAPPED(v) and cnp.PyArray_ISNOTSWAPPED(c)):
        return None
    cdef Py_ssize_t n = v.shape[0]
    if not (n > 0 and 0 < ngroups <= cells // n):
        return None
    cdef Py_ssize_t g = ngroups
    cdef cnp.npy_intp dim = g
    out = cnp.PyArray_EMPTY(1, &dim, cnp.NPY_FLOAT64, 0)
    cdef double *res = <double *>cnp.PyArray_DATA(out)
    cdef xs_small stack_accs[_FEW_ON_STACK]
    cdef _few_group stack_groups[_FEW_ON_STACK]
    cdef xs_small *accs = stack_accs
    cdef _few_group *groups = stack_groups
    if g > _FEW_ON_STACK:
        accs = <xs_small *>malloc(g * sizeof(xs_small))
        groups = <_few_group *>malloc(g * sizeof(_few_group))
        if accs == NULL or groups == NULL:
            free(accs)
            free(groups)
            raise MemoryError()
    cdef const char *vp = <const char *>cnp.PyArray_DATA(v)
    cdef const char *cp = <const char *>cnp.PyArray_DATA(c)
    cdef Py_ssize_t vs = v.strides[0], cs = c.strides[0]
    cdef Py_ssize_t empty
    with nogil:
        empty = _few_groups_into(vp, vs, cp, cs, n, g, mean, accs, groups, res)
    if g > _FEW_ON_STACK:
        free(accs)
        free(groups)
    return None if empty < 0 else (out, empty)


# ---- matmul with an inner dimension of 1 (issue 30): products in one pass ----
cdef bint _outer_into(const char *ap, Py_ssize_t as_, const char *bp, Py_ssize_t bs,
                      Py_ssize_t n, Py_ssize_t m, bint single, char *out) noexcept nogil:
    """out[i, j] = a[i] * b[j] (C order), each product rounded once: a
    float64 product by IEEE multiplication; a float32 one is exact as a
    double (24 + 24 bits) and rounded once to float32.  False when an
    entry is not finite (NaN, Inf, overflow)."""
    cdef Py_ssize_t i, j
    cdef double x, p
    cdef float pf, yf, xf
    cdef double y
    cdef bint finite = True
    for i in range(n):
        if single:
            memcpy(&xf, ap + i * as_, sizeof(float))
            x = xf
        else:
            memcpy(&x, ap + i * as_, sizeof(double))
        for j in range(m):
            if single:
                memcpy(&yf, bp + j * bs, sizeof(float))
                pf = <float>(x * <double>yf)
                finite &= isfinite(pf) != 0
                (<float *>out)[i * m + j] = pf
            else:
                memcpy(&y, bp + j * bs, sizeof(double))
                p = x * y
                finite &= isfinite(p) != 0
                (<double *>out)[i * m + j] = p
    return finite


def _outer_product(object a, object b):
    """a @ b for a of shape (n, 1) and b of shape (1, m), ndarrays of one
    native dtype, float64 or float32 (any strides, alignment): every entry
    is one product, rounded once (the caller runs in the pinned mode: no
    flush to zero), computed and checked in one pass.  None when the call
    is not one of these or an entry is not finite: the general path then
    decides, with exact_dot's warnings."""
    if not (cnp.PyArray_CheckExact(a) and cnp.PyArray_CheckExact(b)):
        return None
    cdef cnp.ndarray x = <cnp.ndarray>a
    cdef cnp.ndarray y = <cnp.ndarray>b
    cdef int kind = cnp.PyArray_TYPE(x)
    if not (x.ndim == 2 and y.ndim == 2 and x.shape[1] == 1 and y.shape[0] == 1
            and (kind == cnp.NPY_FLOAT64 or kind == cnp.NPY_FLOAT32)
            and cnp.PyArray_TYPE(y) == kind
            and cnp.PyArray_ISNOTSWAPPED(x) and cnp.PyArray_ISNOTSWAPPED(y)):
        return None
    cdef cnp.npy_intp dims[2]
    dims[0] = x.shape[0]
    dims[1] = y.shape[1]
    out = cnp.PyArray_EMPTY(2, dims, kind, 0)
    cdef const char *ap = <const char *>cnp.PyArray_DATA(x)
    cdef const char *bp = <const char *>cnp.PyArray_DATA(y)
    cdef char *op = <char *>cnp.PyArray_DATA(out)
    cdef Py_ssize_t as_ = x.strides[0], bs = y.strides[1]
    cdef bint single = kind == cnp.NPY_FLOAT32
    cdef bint finite
    with nogil:
        finite = _outer_into(ap, as_, bp, bs, dims[0], dims[1], single, op)
    return out if finite else None


# ---- the public functions' call (issue 30): the plain-argument test and the pinned mode in one step ----
#: What _pinned_call returns when an argument is not of a plain type.
NOT_PLAIN = object()


def _pinned_call(object core, tuple args, dict kwargs, tuple positions, tuple names,
                 frozenset plain):
    """core(*args, **kwargs) in the pinned mode (as between _fp_pin and
    _fp_restore, restored on an exception too) when the array arguments
    (args at `positions`, kwargs under `names`) are all of a type in
    `plain`; NOT_PLAIN, with nothing called, otherwise.  The dispatch
    wrapper's step on every public call, compiled: a small call is a
    microsecond or two."""
    cdef Py_ssize_t nargs = len(args), p
    for p in positions:
        if p < nargs and type(args[p]) not in plain:
            return NOT_PLAIN
    if kwargs:
        for a in names:
            if a in kwargs and type(kwargs[a]) not in plain:
                return NOT_PLAIN
    cdef unsigned long long saved = xs_call_fp_pin()
    try:
        return core(*args, **kwargs)
    finally:
        xs_call_fp_restore(saved)


# ---- exact states as Python integers (issue 30): one compiled step a state ----
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize

_from_bytes = int.from_bytes


cdef object _state_integer(const long long *row):
    """One state's exact value as an integer count of 2**-XS_UNIT_SHIFT: the
    digits below the top one (each in [0, 2**32)) read as one little-endian
    integer, up to the highest non-zero one, plus the signed top digit
    shifted above them."""
    cdef int top = XS_NCHUNKS - 1
    cdef Py_ssize_t used = top, j
    cdef unsigned long long digit
    cdef unsigned char *out
    while used > 0 and row[used - 1] == 0:
        used -= 1
    if used == 0:
        return (<object>row[top]) << (32 * top)
    low = PyBytes_FromStringAndSize(NULL, 4 * used)
    out = <unsigned char *>PyBytes_AS_STRING(low)
    for j in range(used):
        digit = <unsigned long long>row[j]
        out[4 * j] = digit & 0xff
        out[4 * j + 1] = (digit >> 8) & 0xff
        out[4 * j + 2] = (digit >> 16) & 0xff
        out[4 * j + 3] = (digit >> 24) & 0xff
    value = _from_bytes(low, "little")
    if row[top]:
        value += (<object>row[top]) << (32 * top)
    return value


def _state_integers(cnp.ndarray states, tuple shifts):
    """The exact values of groups of states, in row-major order: `states` a
    C-contiguous native int64 array whose last axis is len(shifts) states
    (each XS_NCHUNKS digits, then the flags), the value of a group the sum
    of its states' values (integer counts of 2**-XS_UNIT_SHIFT), the k-th
    shifted left by shifts[k] (a dot state: its main, fine and huge parts).
    A zero state adds nothing and costs no conversion."""
    cdef Py_ssize_t nparts = len(shifts), i, k
    if not (cnp.PyArray_TYPE(states) == cnp.NPY_INT64 and cnp.PyArray_ISCARRAY_RO(states)
            and cnp.PyArray_ISNOTSWAPPED(states) and states.ndim >= 1 and nparts >= 1
            and states.shape[states.ndim - 1] == nparts * (XS_NCHUNKS + 1)):
        raise TypeError("_state_integers: C-contiguous native int64 states")
    cdef const long long *row = <const long long *>cnp.PyArray_DATA(states)
    cdef Py_ssize_t count = cnp.PyArray_SIZE(states) // (nparts * (XS_NCHUNKS + 1))
    values = []
    for i in range(count):
        value = 0
        for k in range(nparts):
            if _nonzero(row, XS_NCHUNKS):
                part = _state_integer(row)
                value += part << shifts[k] if shifts[k] else part
            row += XS_NCHUNKS + 1
        values.append(value)
    return values


cdef inline bint _nonzero(const long long *digits, Py_ssize_t n) noexcept:
    cdef Py_ssize_t j
    for j in range(n):
        if digits[j]:
            return True
    return False
