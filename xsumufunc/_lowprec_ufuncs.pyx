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
