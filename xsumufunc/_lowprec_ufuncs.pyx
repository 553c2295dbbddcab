# cython: language_level=3
"""The raw low-precision ufuncs, built at import from the C loops in
src/lowprec/xs_lowprec.c.  Public wrappers with argument checks: xsumufunc.lowprec.

* ``kahan_add_ufunc(w, c, u) -> (w, c)``: element-wise, storage bfloat16,
  float16 or float32 (``w`` and ``c`` of that dtype), update ``u`` of the
  storage dtype, float32 or float64.
* ``stochastic_add_ufunc(w, u, bits) -> w``: the same storage and update
  dtypes, ``bits`` uint16 or uint32.
* ``kahan_sum_ufunc``: gufunc ``(n)->()`` for float64, float32, float16,
  bfloat16, the result in the input dtype.
* ``_stochastic_round_to_bfloat16`` and ``_stochastic_round_to_float16``:
  ``(x, bits) -> uint16`` bit patterns (x float32 or float64): the
  wrapper views them as the target dtype, so no loop needs a bfloat16
  output that NumPy could not find from the inputs.
  ``_stochastic_round_to_float32``: float64 x -> float32.

Loop order: NumPy takes the *first* fitting loop among the built-in ones,
and (2.4) the *last* fitting one among user loops (those registered on
bfloat16's run-time type number).  So built-in loops go narrowest first and
bfloat16 loops widest first; uint16 bits must never reach a uint32 loop (it
would change the meaning of the bits), hence uint16 before uint32 among
built-ins and after it among user loops.  Each loop is the one its own
input dtypes resolve to, which the builder (_ufunc_builder.pxi) checks.

>>> import numpy as np, ml_dtypes
>>> from xsumufunc import _lowprec_ufuncs as raw
>>> w = np.array([1.0], dtype=ml_dtypes.bfloat16)
>>> w2, c2 = raw.kahan_add_ufunc(w, np.zeros_like(w), np.float32(2.0**-10))
>>> float(w2[0]), float(c2[0])
(1.0, -0.0009765625)
"""
cimport numpy as cnp

import ml_dtypes
import numpy as np

cnp.import_array()
cnp.import_ufunc()

cdef extern from "lowprec/xs_lowprec.h":
    void xs_lp_kahan_add_bfloat16_bfloat16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_kahan_add_bfloat16_float32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_kahan_add_bfloat16_float64(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_kahan_add_float16_float16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_kahan_add_float16_float32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_kahan_add_float16_float64(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_kahan_add_float32_float32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_kahan_add_float32_float64(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)

    void xs_lp_stochastic_add_bfloat16_bfloat16_u16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_add_bfloat16_bfloat16_u32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_add_bfloat16_float32_u16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_add_bfloat16_float32_u32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_add_bfloat16_float64_u16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_add_bfloat16_float64_u32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_add_float16_float16_u16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_add_float16_float16_u32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_add_float16_float32_u16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_add_float16_float32_u32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_add_float16_float64_u16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_add_float16_float64_u32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_add_float32_float32_u16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_add_float32_float32_u32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_add_float32_float64_u16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_add_float32_float64_u32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)

    void xs_lp_stochastic_round_bfloat16_float32_u16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_round_bfloat16_float32_u32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_round_bfloat16_float64_u16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_round_bfloat16_float64_u32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_round_float16_float32_u16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_round_float16_float32_u32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_round_float16_float64_u16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_round_float16_float64_u32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_round_float32_float64_u16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_stochastic_round_float32_float64_u32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)

    void xs_lp_kahan_sum_bfloat16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_kahan_sum_float16(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_kahan_sum_float32(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)
    void xs_lp_kahan_sum_float64(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
BF16, F16, F32, F64 = BFLOAT16, np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
U16, U32 = np.dtype(np.uint16), np.dtype(np.uint32)


cdef extern from "runtime/xs_fpenv.h":
    # What every loop is registered as: the loop in the pinned floating-point mode.
    void _registered_loop "xs_pinned_loop"(char **, const cnp.npy_intp *,
                                           const cnp.npy_intp *, void *)


cdef void *_keep(void *p) except NULL:
    """p, never freed (NumPy points at it for the life of the process)."""
    if p == NULL:
        raise MemoryError()
    return p


include "_ufunc_builder.pxi"


def _loop(fn, *dtypes):
    """A loop that its own input dtypes resolve to, registered on bfloat16's
    type number when it takes or gives bfloat16."""
    return _Loop(fn, 0, dtypes, BF16.num if BF16 in dtypes else 0, True)


kahan_add_ufunc = _ufunc(
    "kahan_add_ufunc",
    [_loop(<size_t>xs_lp_kahan_add_float16_float16, F16, F16, F16, F16, F16),
     _loop(<size_t>xs_lp_kahan_add_float16_float32, F16, F16, F32, F16, F16),
     _loop(<size_t>xs_lp_kahan_add_float16_float64, F16, F16, F64, F16, F16),
     _loop(<size_t>xs_lp_kahan_add_float32_float32, F32, F32, F32, F32, F32),
     _loop(<size_t>xs_lp_kahan_add_float32_float64, F32, F32, F64, F32, F32),
     # bfloat16 user loops, widest update first (the last fitting one wins).
     _loop(<size_t>xs_lp_kahan_add_bfloat16_float64, BF16, BF16, F64, BF16, BF16),
     _loop(<size_t>xs_lp_kahan_add_bfloat16_float32, BF16, BF16, F32, BF16, BF16),
     _loop(<size_t>xs_lp_kahan_add_bfloat16_bfloat16, BF16, BF16, BF16, BF16, BF16)],
    "kahan_add_ufunc(w, c, u) -> (w_new, c_new): Kahan-compensated update\n"
    "(Zamirai et al., Algorithm 1), every operation rounded in w's dtype.\n"
    "See xsumufunc.kahan_add.",
    "(),(),()->(),()")
stochastic_add_ufunc = _ufunc(
    "stochastic_add_ufunc",
    [_loop(<size_t>xs_lp_stochastic_add_float16_float16_u16, F16, F16, U16, F16),
     _loop(<size_t>xs_lp_stochastic_add_float16_float16_u32, F16, F16, U32, F16),
     _loop(<size_t>xs_lp_stochastic_add_float16_float32_u16, F16, F32, U16, F16),
     _loop(<size_t>xs_lp_stochastic_add_float16_float32_u32, F16, F32, U32, F16),
     _loop(<size_t>xs_lp_stochastic_add_float16_float64_u16, F16, F64, U16, F16),
     _loop(<size_t>xs_lp_stochastic_add_float16_float64_u32, F16, F64, U32, F16),
     _loop(<size_t>xs_lp_stochastic_add_float32_float32_u16, F32, F32, U16, F32),
     _loop(<size_t>xs_lp_stochastic_add_float32_float32_u32, F32, F32, U32, F32),
     _loop(<size_t>xs_lp_stochastic_add_float32_float64_u16, F32, F64, U16, F32),
     _loop(<size_t>xs_lp_stochastic_add_float32_float64_u32, F32, F64, U32, F32),
     _loop(<size_t>xs_lp_stochastic_add_bfloat16_float64_u32, BF16, F64, U32, BF16),
     _loop(<size_t>xs_lp_stochastic_add_bfloat16_float64_u16, BF16, F64, U16, BF16),
     _loop(<size_t>xs_lp_stochastic_add_bfloat16_float32_u32, BF16, F32, U32, BF16),
     _loop(<size_t>xs_lp_stochastic_add_bfloat16_float32_u16, BF16, F32, U16, BF16),
     _loop(<size_t>xs_lp_stochastic_add_bfloat16_bfloat16_u32, BF16, BF16, U32, BF16),
     _loop(<size_t>xs_lp_stochastic_add_bfloat16_bfloat16_u16, BF16, BF16, U16, BF16)],
    "stochastic_add_ufunc(w, u, bits) -> w + u, computed exactly and rounded\n"
    "stochastically into w's dtype.  See xsumufunc.stochastic_add.",
    "(),(),()->()")
kahan_sum_ufunc = _ufunc(
    "kahan_sum_ufunc",
    [_loop(<size_t>xs_lp_kahan_sum_float16, F16, F16),
     _loop(<size_t>xs_lp_kahan_sum_float32, F32, F32),
     _loop(<size_t>xs_lp_kahan_sum_float64, F64, F64),
     _loop(<size_t>xs_lp_kahan_sum_bfloat16, BF16, BF16)],
    "Kahan-compensated sum over the last axis, every operation rounded in the\n"
    "input dtype (NOT exact).  See xsumufunc.kahan_sum.",
    "(n)->()")

def _bit_pattern_loops(f32_u16, f32_u32, f64_u16, f64_u32):
    """(x, bits) -> uint16 bit patterns, x float32 or float64."""
    return [_loop(f32_u16, F32, U16, U16), _loop(f32_u32, F32, U32, U16),
            _loop(f64_u16, F64, U16, U16), _loop(f64_u32, F64, U32, U16)]


_stochastic_round_to_bfloat16 = _ufunc(
    "_stochastic_round_to_bfloat16",
    _bit_pattern_loops(<size_t>xs_lp_stochastic_round_bfloat16_float32_u16,
                       <size_t>xs_lp_stochastic_round_bfloat16_float32_u32,
                       <size_t>xs_lp_stochastic_round_bfloat16_float64_u16,
                       <size_t>xs_lp_stochastic_round_bfloat16_float64_u32),
    "(x, bits) -> bfloat16 bit patterns of x rounded stochastically.",
    "(),()->()")
_stochastic_round_to_float16 = _ufunc(
    "_stochastic_round_to_float16",
    _bit_pattern_loops(<size_t>xs_lp_stochastic_round_float16_float32_u16,
                       <size_t>xs_lp_stochastic_round_float16_float32_u32,
                       <size_t>xs_lp_stochastic_round_float16_float64_u16,
                       <size_t>xs_lp_stochastic_round_float16_float64_u32),
    "(x, bits) -> float16 bit patterns of x rounded stochastically.",
    "(),()->()")
_stochastic_round_to_float32 = _ufunc(
    "_stochastic_round_to_float32",
    [_loop(<size_t>xs_lp_stochastic_round_float32_float64_u16, F64, U16, F32),
     _loop(<size_t>xs_lp_stochastic_round_float32_float64_u32, F64, U32, F32)],
    "(x, bits) -> float64 x rounded stochastically into float32.",
    "(),()->()")


# ---- the common calls without the ufunc machinery ---------------------------
#
# On 10 values NumPy's ufunc call (type resolution, the iterator, outputs)
# cost about 1 us around loops of a few tens of ns, and the public wrapper's
# checks as much again (issue 30: small calls).  The entries below take a
# public call whole when the registered loop takes its arguments as they
# are: exactly NumPy arrays (another library's or a subclass goes through
# dispatch), native and aligned, of one shape with at least one dimension,
# 1-D of any stride or C-contiguous, of dtypes with a loop of their own (the
# one the ufunc resolves them to), no `out` (a loop that raised a flag has
# then written nothing the caller sees).  They run that loop (pinned mode:
# _registered_loop) into a new array and give the result, or None: the
# public function then takes its general path, which gives every error and,
# when the loop raised a floating-point flag, NumPy's own warnings.
include "_row_flags.pxi"

cdef extern from "runtime/xs_fpenv.h":
    void _pinned_loop_nogil "xs_pinned_loop"(char **, const cnp.npy_intp *,
                                             const cnp.npy_intp *, void *) nogil

cdef int _BF16_NUM = BF16.num
cdef int _F16_NUM = F16.num
cdef int _U16_NUM = U16.num
cdef int _U32_NUM = U32.num
# The scalar types a dtype is most often given as (module attributes cost a look-up).
cdef object _FLOAT32_TYPE = np.float32
cdef object _FLOAT16_TYPE = np.float16
cdef object _BFLOAT16_TYPE = ml_dtypes.bfloat16
# NumPy releases the GIL around a loop of more than 500 elements
# (NPY_BEGIN_THREADS_THRESHOLDED); so do these.
cdef cnp.npy_intp _NOGIL_FROM = 501

# The pinned loops by code: storage 0 bfloat16, 1 float16, 2 float32
# (_storage_code); update 0 the storage dtype, 1 float32, 2 float64
# (_update_code; a float32 storage's own update is code 0); bits 0 uint16,
# 1 uint32; the value rounded 0 float32, 1 float64.  NULL: no such loop.
cdef void *_KAHAN_ADD[3][3]
cdef void *_STOCHASTIC_ADD[3][3][2]
cdef void *_STOCHASTIC_ROUND[3][2][2]


cdef void *_pin(size_t fn) except NULL:
    return _pinned(fn, 0)


_KAHAN_ADD[0][:] = [_pin(<size_t>xs_lp_kahan_add_bfloat16_bfloat16),
                    _pin(<size_t>xs_lp_kahan_add_bfloat16_float32),
                    _pin(<size_t>xs_lp_kahan_add_bfloat16_float64)]
_KAHAN_ADD[1][:] = [_pin(<size_t>xs_lp_kahan_add_float16_float16),
                    _pin(<size_t>xs_lp_kahan_add_float16_float32),
                    _pin(<size_t>xs_lp_kahan_add_float16_float64)]
_KAHAN_ADD[2][:] = [_pin(<size_t>xs_lp_kahan_add_float32_float32), NULL,
                    _pin(<size_t>xs_lp_kahan_add_float32_float64)]
_STOCHASTIC_ADD[0][0][:] = [_pin(<size_t>xs_lp_stochastic_add_bfloat16_bfloat16_u16),
                            _pin(<size_t>xs_lp_stochastic_add_bfloat16_bfloat16_u32)]
_STOCHASTIC_ADD[0][1][:] = [_pin(<size_t>xs_lp_stochastic_add_bfloat16_float32_u16),
                            _pin(<size_t>xs_lp_stochastic_add_bfloat16_float32_u32)]
_STOCHASTIC_ADD[0][2][:] = [_pin(<size_t>xs_lp_stochastic_add_bfloat16_float64_u16),
                            _pin(<size_t>xs_lp_stochastic_add_bfloat16_float64_u32)]
_STOCHASTIC_ADD[1][0][:] = [_pin(<size_t>xs_lp_stochastic_add_float16_float16_u16),
                            _pin(<size_t>xs_lp_stochastic_add_float16_float16_u32)]
_STOCHASTIC_ADD[1][1][:] = [_pin(<size_t>xs_lp_stochastic_add_float16_float32_u16),
                            _pin(<size_t>xs_lp_stochastic_add_float16_float32_u32)]
_STOCHASTIC_ADD[1][2][:] = [_pin(<size_t>xs_lp_stochastic_add_float16_float64_u16),
                            _pin(<size_t>xs_lp_stochastic_add_float16_float64_u32)]
_STOCHASTIC_ADD[2][0][:] = [_pin(<size_t>xs_lp_stochastic_add_float32_float32_u16),
                            _pin(<size_t>xs_lp_stochastic_add_float32_float32_u32)]
_STOCHASTIC_ADD[2][1][:] = [NULL, NULL]
_STOCHASTIC_ADD[2][2][:] = [_pin(<size_t>xs_lp_stochastic_add_float32_float64_u16),
                            _pin(<size_t>xs_lp_stochastic_add_float32_float64_u32)]
_STOCHASTIC_ROUND[0][0][:] = [_pin(<size_t>xs_lp_stochastic_round_bfloat16_float32_u16),
                              _pin(<size_t>xs_lp_stochastic_round_bfloat16_float32_u32)]
_STOCHASTIC_ROUND[0][1][:] = [_pin(<size_t>xs_lp_stochastic_round_bfloat16_float64_u16),
                              _pin(<size_t>xs_lp_stochastic_round_bfloat16_float64_u32)]
_STOCHASTIC_ROUND[1][0][:] = [_pin(<size_t>xs_lp_stochastic_round_float16_float32_u16),
                              _pin(<size_t>xs_lp_stochastic_round_float16_float32_u32)]
_STOCHASTIC_ROUND[1][1][:] = [_pin(<size_t>xs_lp_stochastic_round_float16_float64_u16),
                              _pin(<size_t>xs_lp_stochastic_round_float16_float64_u32)]
# float32 into float32: the general path widens x to float64 first.
_STOCHASTIC_ROUND[2][0][:] = [NULL, NULL]
_STOCHASTIC_ROUND[2][1][:] = [_pin(<size_t>xs_lp_stochastic_round_float32_float64_u16),
                              _pin(<size_t>xs_lp_stochastic_round_float32_float64_u32)]


cdef inline int _storage_code(int num):
    if num == _BF16_NUM:
        return 0
    if num == _F16_NUM:
        return 1
    if num == cnp.NPY_FLOAT:
        return 2
    return -1


cdef inline int _update_code(int num, int storage_num):
    if num == storage_num:
        return 0
    if num == cnp.NPY_FLOAT:
        return 1
    if num == cnp.NPY_DOUBLE:
        return 2
    return -1


cdef inline int _bits_code(int num):
    # By the dtypes' own numbers: uint32 may be NPY_UINT or NPY_ULONG, and an
    # array of the other one goes through the ufunc's resolution.
    if num == _U16_NUM:
        return 0
    if num == _U32_NUM:
        return 1
    return -1


cdef inline int _rounded_code(object target):
    """The target of stochastic_round given as a scalar type or dtype: 0
    bfloat16, 1 float16, 2 float32, -1 another (or a name: the general path)."""
    if target is _FLOAT32_TYPE or target is F32:
        return 2
    if target is _BFLOAT16_TYPE or target is BF16:
        return 0
    if target is _FLOAT16_TYPE or target is F16:
        return 1
    return -1


cdef bint _fits(tuple args, dict kwargs, tuple names):
    """Does the call name no parameter but these, each once?  (Anything
    else is the general path's to report.)"""
    cdef Py_ssize_t nargs = len(args)
    if nargs > len(names):
        return False
    if kwargs:
        for key in kwargs:
            if key not in names[nargs:]:
                return False
    return True


cdef inline object _arg(tuple args, dict kwargs, Py_ssize_t i, str name):
    """Parameter i of the call (`name`), None when not given."""
    if i < len(args):
        return args[i]
    return kwargs.get(name) if kwargs else None


cdef bint _plain(object obj, cnp.ndarray like, cnp.npy_intp *step):
    """Does the loop take obj beside `like` (see the top of this section)?
    If so its element i is at byte i * step[0] of its data."""
    if not cnp.PyArray_CheckExact(obj):
        return False
    cdef cnp.ndarray a = <cnp.ndarray>obj
    cdef int nd = cnp.PyArray_NDIM(a)
    if nd == 0 or nd != cnp.PyArray_NDIM(like) or not cnp.PyArray_ISNOTSWAPPED(a) \
            or not cnp.PyArray_ISALIGNED(a) \
            or not cnp.PyArray_CompareLists(cnp.PyArray_DIMS(a), cnp.PyArray_DIMS(like), nd):
        return False
    if nd == 1:
        step[0] = cnp.PyArray_STRIDE(a, 0)
        return True
    if not cnp.PyArray_IS_C_CONTIGUOUS(a):
        return False
    step[0] = cnp.PyArray_ITEMSIZE(a)
    return True


cdef cnp.ndarray _new_like(cnp.ndarray like, int typenum, cnp.npy_intp *step):
    """A new C-contiguous array of like's shape; its step into step[0]."""
    cdef cnp.ndarray res = cnp.PyArray_EMPTY(cnp.PyArray_NDIM(like), cnp.PyArray_DIMS(like),
                                            typenum, 0)
    step[0] = cnp.PyArray_ITEMSIZE(res)
    return res


cdef bint _run(void *loop, char **args, cnp.npy_intp *steps, cnp.ndarray like):
    """The registered element-wise `loop` over like's elements: did it
    raise no floating-point flag NumPy warns about?"""
    cdef cnp.npy_intp n = cnp.PyArray_SIZE(like)
    xs_row_flags_clear()
    if n >= _NOGIL_FROM:
        with nogil:
            _pinned_loop_nogil(args, &n, steps, loop)
    else:
        _pinned_loop_nogil(args, &n, steps, loop)
    return not xs_row_flags()


cdef tuple _KAHAN_ADD_PARAMS = ("w", "c", "u", "out", "compute_dtype")
cdef tuple _STOCHASTIC_ADD_PARAMS = ("w", "u", "bits", "rng", "out")
cdef tuple _STOCHASTIC_ROUND_PARAMS = ("x", "dtype", "bits", "rng", "out")


def _kahan_add_call(tuple args, dict kwargs):
    """xsumufunc.kahan_add(*args, **kwargs) by its loop: (w_new, c_new), or
    None for the general path."""
    if not _fits(args, kwargs, _KAHAN_ADD_PARAMS) \
            or _arg(args, kwargs, 3, "out") is not None \
            or _arg(args, kwargs, 4, "compute_dtype") is not None:
        return None
    w = _arg(args, kwargs, 0, "w")
    c = _arg(args, kwargs, 1, "c")
    u = _arg(args, kwargs, 2, "u")
    if not cnp.PyArray_CheckExact(w):
        return None
    cdef cnp.ndarray like = <cnp.ndarray>w
    cdef cnp.npy_intp steps[5]
    if not (_plain(w, like, &steps[0]) and _plain(c, like, &steps[1])
            and _plain(u, like, &steps[2])):
        return None
    cdef int num = cnp.PyArray_TYPE(like)
    cdef int s = _storage_code(num)
    cdef int k = _update_code(cnp.PyArray_TYPE(<cnp.ndarray>u), num)
    if s < 0 or k < 0 or cnp.PyArray_TYPE(<cnp.ndarray>c) != num or _KAHAN_ADD[s][k] == NULL:
        return None
    cdef cnp.ndarray w_new = _new_like(like, num, &steps[3])
    cdef cnp.ndarray c_new = _new_like(like, num, &steps[4])
    cdef char *data[5]
    data[:] = [cnp.PyArray_BYTES(like), cnp.PyArray_BYTES(<cnp.ndarray>c),
               cnp.PyArray_BYTES(<cnp.ndarray>u), cnp.PyArray_BYTES(w_new),
               cnp.PyArray_BYTES(c_new)]
    return (w_new, c_new) if _run(_KAHAN_ADD[s][k], data, steps, like) else None


def _stochastic_add_call(tuple args, dict kwargs):
    """xsumufunc.stochastic_add(*args, **kwargs) by its loop, or None for
    the general path."""
    if not _fits(args, kwargs, _STOCHASTIC_ADD_PARAMS) \
            or _arg(args, kwargs, 3, "rng") is not None \
            or _arg(args, kwargs, 4, "out") is not None:
        return None
    w = _arg(args, kwargs, 0, "w")
    u = _arg(args, kwargs, 1, "u")
    bits = _arg(args, kwargs, 2, "bits")
    if not cnp.PyArray_CheckExact(w):
        return None
    cdef cnp.ndarray like = <cnp.ndarray>w
    cdef cnp.npy_intp steps[4]
    if not (_plain(w, like, &steps[0]) and _plain(u, like, &steps[1])
            and _plain(bits, like, &steps[2])):
        return None
    cdef int num = cnp.PyArray_TYPE(like)
    cdef int s = _storage_code(num)
    cdef int k = _update_code(cnp.PyArray_TYPE(<cnp.ndarray>u), num)
    cdef int b = _bits_code(cnp.PyArray_TYPE(<cnp.ndarray>bits))
    if s < 0 or k < 0 or b < 0 or _STOCHASTIC_ADD[s][k][b] == NULL:
        return None
    cdef cnp.ndarray res = _new_like(like, num, &steps[3])
    cdef char *data[4]
    data[:] = [cnp.PyArray_BYTES(like), cnp.PyArray_BYTES(<cnp.ndarray>u),
               cnp.PyArray_BYTES(<cnp.ndarray>bits), cnp.PyArray_BYTES(res)]
    return res if _run(_STOCHASTIC_ADD[s][k][b], data, steps, like) else None


def _stochastic_round_call(tuple args, dict kwargs):
    """xsumufunc.stochastic_round(*args, **kwargs) by its loop, or None for
    the general path.  The bfloat16 and float16 loops write bit patterns:
    into an array of the target dtype, as the general path views them."""
    if not _fits(args, kwargs, _STOCHASTIC_ROUND_PARAMS) \
            or _arg(args, kwargs, 3, "rng") is not None \
            or _arg(args, kwargs, 4, "out") is not None:
        return None
    x = _arg(args, kwargs, 0, "x")
    bits = _arg(args, kwargs, 2, "bits")
    cdef int t = _rounded_code(_arg(args, kwargs, 1, "dtype"))
    if t < 0 or not cnp.PyArray_CheckExact(x):
        return None
    cdef cnp.ndarray like = <cnp.ndarray>x
    cdef cnp.npy_intp steps[3]
    if not (_plain(x, like, &steps[0]) and _plain(bits, like, &steps[1])):
        return None
    cdef int num = cnp.PyArray_TYPE(like)
    cdef int v = 0 if num == cnp.NPY_FLOAT else 1 if num == cnp.NPY_DOUBLE else -1
    cdef int b = _bits_code(cnp.PyArray_TYPE(<cnp.ndarray>bits))
    if v < 0 or b < 0 or _STOCHASTIC_ROUND[t][v][b] == NULL:
        return None
    cdef int target = _BF16_NUM if t == 0 else _F16_NUM if t == 1 else cnp.NPY_FLOAT
    cdef cnp.ndarray res = _new_like(like, target, &steps[2])
    cdef char *data[3]
    data[:] = [cnp.PyArray_BYTES(like), cnp.PyArray_BYTES(<cnp.ndarray>bits),
               cnp.PyArray_BYTES(res)]
    return res if _run(_STOCHASTIC_ROUND[t][v][b], data, steps, like) else None
