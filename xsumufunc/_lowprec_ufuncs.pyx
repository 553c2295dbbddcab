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
built-ins and after it among user loops.

>>> import numpy as np, ml_dtypes
>>> from xsumufunc import _lowprec_ufuncs as raw
>>> w = np.array([1.0], dtype=ml_dtypes.bfloat16)
>>> w2, c2 = raw.kahan_add_ufunc(w, np.zeros_like(w), np.float32(2.0**-10))
>>> float(w2[0]), float(c2[0])
(1.0, -0.0009765625)
"""
from cpython.mem cimport PyMem_Malloc
cimport numpy as cnp

import ml_dtypes
import numpy as np

cnp.import_array()
cnp.import_ufunc()

ctypedef void (*xs_lp_loop)(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)

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
cdef int BF16 = BFLOAT16.num
cdef int F16 = np.dtype(np.float16).num
cdef int F32 = np.dtype(np.float32).num
cdef int F64 = np.dtype(np.float64).num
cdef int U16 = np.dtype(np.uint16).num
cdef int U32 = np.dtype(np.uint32).num

# NumPy keeps pointers to names, docs and loop arrays: keep them for the life
# of the module (the C arrays are never freed).
_keep_alive = []


cdef extern from "runtime/xs_fpenv.h":
    void *xs_pinned_new(cnp.PyUFuncGenericFunction fn, void *data)
    void xs_pinned_loop(char **, const cnp.npy_intp *, const cnp.npy_intp *, void *)


cdef void *_pinned(size_t fn_address, void *data) except NULL:
    """The loop at fn_address registered to run in the pinned floating-point
    mode (src/runtime/xs_fpenv.h)."""
    cdef void *p = xs_pinned_new(<cnp.PyUFuncGenericFunction>fn_address, data)
    if p == NULL:
        raise MemoryError()
    _keep_alive.append(<size_t>p)   # never freed
    return p


cdef object _make_ufunc(list loops, int nin, int nout, str name, str doc, str signature):
    """loops: list of (C function address, [type numbers]); signature "" for
    an element-wise ufunc."""
    cdef int ntypes = len(loops)
    cdef int nargs = nin + nout
    cdef cnp.PyUFuncGenericFunction *funcs = <cnp.PyUFuncGenericFunction *>PyMem_Malloc(
        ntypes * sizeof(cnp.PyUFuncGenericFunction))
    cdef void **data = <void **>PyMem_Malloc(ntypes * sizeof(void *))
    cdef char *types = <char *>PyMem_Malloc(ntypes * nargs * sizeof(char))
    if funcs == NULL or data == NULL or types == NULL:
        raise MemoryError()
    cdef int i, k
    cdef size_t fn_address
    for i in range(ntypes):
        fn_address, typenums = loops[i]
        funcs[i] = <cnp.PyUFuncGenericFunction>xs_pinned_loop
        data[i] = _pinned(fn_address, NULL)
        for k in range(nargs):
            types[i * nargs + k] = <char>typenums[k]
    name_b = name.encode()
    doc_b = doc.encode()
    _keep_alive.extend([name_b, doc_b])
    if not signature:
        return cnp.PyUFunc_FromFuncAndData(
            funcs, data, types, ntypes, nin, nout, cnp.PyUFunc_None, name_b, doc_b, 0)
    sig_b = signature.encode()
    _keep_alive.append(sig_b)
    return cnp.PyUFunc_FromFuncAndDataAndSignature(
        funcs, data, types, ntypes, nin, nout, cnp.PyUFunc_None, name_b, doc_b, 0, sig_b)


cdef int _register_bf16(object ufunc, size_t fn_address, list typenums) except -1:
    cdef int *args = <int *>PyMem_Malloc(len(typenums) * sizeof(int))
    if args == NULL:
        raise MemoryError()
    cdef int k
    for k in range(len(typenums)):
        args[k] = typenums[k]
    cnp.PyUFunc_RegisterLoopForType(
        <cnp.ufunc>ufunc, BF16, <cnp.PyUFuncGenericFunction>xs_pinned_loop, args,
        _pinned(fn_address, NULL))
    return 0


cdef object _kahan_add():
    builtin = [
        (<size_t>xs_lp_kahan_add_float16_float16, [F16, F16, F16, F16, F16]),
        (<size_t>xs_lp_kahan_add_float16_float32, [F16, F16, F32, F16, F16]),
        (<size_t>xs_lp_kahan_add_float16_float64, [F16, F16, F64, F16, F16]),
        (<size_t>xs_lp_kahan_add_float32_float32, [F32, F32, F32, F32, F32]),
        (<size_t>xs_lp_kahan_add_float32_float64, [F32, F32, F64, F32, F32]),
    ]
    ufunc = _make_ufunc(
        builtin, 3, 2, "kahan_add_ufunc",
        "kahan_add_ufunc(w, c, u) -> (w_new, c_new): Kahan-compensated update\n"
        "(Zamirai et al., Algorithm 1), every operation rounded in w's dtype.\n"
        "See xsumufunc.kahan_add.", "")
    # bfloat16 user loops, widest update first (the last fitting one wins).
    _register_bf16(ufunc, <size_t>xs_lp_kahan_add_bfloat16_float64, [BF16, BF16, F64, BF16, BF16])
    _register_bf16(ufunc, <size_t>xs_lp_kahan_add_bfloat16_float32, [BF16, BF16, F32, BF16, BF16])
    _register_bf16(ufunc, <size_t>xs_lp_kahan_add_bfloat16_bfloat16, [BF16, BF16, BF16, BF16, BF16])
    return ufunc


cdef object _stochastic_add():
    builtin = [
        (<size_t>xs_lp_stochastic_add_float16_float16_u16, [F16, F16, U16, F16]),
        (<size_t>xs_lp_stochastic_add_float16_float16_u32, [F16, F16, U32, F16]),
        (<size_t>xs_lp_stochastic_add_float16_float32_u16, [F16, F32, U16, F16]),
        (<size_t>xs_lp_stochastic_add_float16_float32_u32, [F16, F32, U32, F16]),
        (<size_t>xs_lp_stochastic_add_float16_float64_u16, [F16, F64, U16, F16]),
        (<size_t>xs_lp_stochastic_add_float16_float64_u32, [F16, F64, U32, F16]),
        (<size_t>xs_lp_stochastic_add_float32_float32_u16, [F32, F32, U16, F32]),
        (<size_t>xs_lp_stochastic_add_float32_float32_u32, [F32, F32, U32, F32]),
        (<size_t>xs_lp_stochastic_add_float32_float64_u16, [F32, F64, U16, F32]),
        (<size_t>xs_lp_stochastic_add_float32_float64_u32, [F32, F64, U32, F32]),
    ]
    ufunc = _make_ufunc(
        builtin, 3, 1, "stochastic_add_ufunc",
        "stochastic_add_ufunc(w, u, bits) -> w + u, computed exactly and rounded\n"
        "stochastically into w's dtype.  See xsumufunc.stochastic_add.", "")
    _register_bf16(ufunc, <size_t>xs_lp_stochastic_add_bfloat16_float64_u32, [BF16, F64, U32, BF16])
    _register_bf16(ufunc, <size_t>xs_lp_stochastic_add_bfloat16_float64_u16, [BF16, F64, U16, BF16])
    _register_bf16(ufunc, <size_t>xs_lp_stochastic_add_bfloat16_float32_u32, [BF16, F32, U32, BF16])
    _register_bf16(ufunc, <size_t>xs_lp_stochastic_add_bfloat16_float32_u16, [BF16, F32, U16, BF16])
    _register_bf16(ufunc, <size_t>xs_lp_stochastic_add_bfloat16_bfloat16_u32, [BF16, BF16, U32, BF16])
    _register_bf16(ufunc, <size_t>xs_lp_stochastic_add_bfloat16_bfloat16_u16, [BF16, BF16, U16, BF16])
    return ufunc


cdef object _kahan_sum():
    builtin = [
        (<size_t>xs_lp_kahan_sum_float16, [F16, F16]),
        (<size_t>xs_lp_kahan_sum_float32, [F32, F32]),
        (<size_t>xs_lp_kahan_sum_float64, [F64, F64]),
    ]
    ufunc = _make_ufunc(
        builtin, 1, 1, "kahan_sum_ufunc",
        "Kahan-compensated sum over the last axis, every operation rounded in the\n"
        "input dtype (NOT exact).  See xsumufunc.kahan_sum.", "(n)->()")
    _register_bf16(ufunc, <size_t>xs_lp_kahan_sum_bfloat16, [BF16, BF16])
    return ufunc


kahan_add_ufunc = _kahan_add()
stochastic_add_ufunc = _stochastic_add()
kahan_sum_ufunc = _kahan_sum()

_stochastic_round_to_bfloat16 = _make_ufunc(
    [(<size_t>xs_lp_stochastic_round_bfloat16_float32_u16, [F32, U16, U16]),
     (<size_t>xs_lp_stochastic_round_bfloat16_float32_u32, [F32, U32, U16]),
     (<size_t>xs_lp_stochastic_round_bfloat16_float64_u16, [F64, U16, U16]),
     (<size_t>xs_lp_stochastic_round_bfloat16_float64_u32, [F64, U32, U16])],
    2, 1, "_stochastic_round_to_bfloat16",
    "(x, bits) -> bfloat16 bit patterns of x rounded stochastically.", "")
_stochastic_round_to_float16 = _make_ufunc(
    [(<size_t>xs_lp_stochastic_round_float16_float32_u16, [F32, U16, U16]),
     (<size_t>xs_lp_stochastic_round_float16_float32_u32, [F32, U32, U16]),
     (<size_t>xs_lp_stochastic_round_float16_float64_u16, [F64, U16, U16]),
     (<size_t>xs_lp_stochastic_round_float16_float64_u32, [F64, U32, U16])],
    2, 1, "_stochastic_round_to_float16",
    "(x, bits) -> float16 bit patterns of x rounded stochastically.", "")
_stochastic_round_to_float32 = _make_ufunc(
    [(<size_t>xs_lp_stochastic_round_float32_float64_u16, [F64, U16, F32]),
     (<size_t>xs_lp_stochastic_round_float32_float64_u32, [F64, U32, F32])],
    2, 1, "_stochastic_round_to_float32",
    "(x, bits) -> float64 x rounded stochastically into float32.", "")
