# The one ufunc builder of the compiled modules, included by _ufuncs.pyx and
# _lowprec_ufuncs.pyx.  Each (g)ufunc is declared as one data row:
#
#     name = _ufunc(name, loops, doc, signature, identity=None)
#
# with loops a list of _Loop rows in registration order.  The including
# module declares, before the include:
#   * _registered_loop: the C function every loop is registered as (it runs
#     the real loop, kept with its data by xs_pinned_new, in the pinned
#     floating-point mode: src/runtime/xs_fpenv.h);
#   * _keep(p): p (raising MemoryError for NULL), kept for the life of the
#     process: NumPy points at the registration arrays until exit.
#
# NumPy takes the *first* fitting loop among built-in ones and, among the
# user loops (those registered on a dtype that a library adds at run time:
# ml_dtypes' bfloat16 and byte-coded formats), the first fitting one in a
# list it keeps sorted by safe casts (2.4), where bfloat16's loop registered
# last comes first.  The rows are ordered for that, and the builder does not
# trust it: each loop marked `default` must be the one NumPy resolves its
# inputs to, checked when the ufunc is built (an import error, not a
# silently different loop).
import collections

from cpython.mem cimport PyMem_Malloc

cdef extern from "runtime/xs_fpenv.h":
    void *xs_pinned_new(cnp.PyUFuncGenericFunction fn, void *data)

#: One loop: the C function's address, its data pointer as an int, the
#: dtypes of its arguments (inputs, then outputs), the run-time dtype number
#: it is registered under (0: a built-in loop) and whether it is the loop
#: its inputs resolve to when no output dtype is asked for.
_Loop = collections.namedtuple("_Loop", "fn data dtypes usertype default")

# The identities a row may declare (every loop here is a gufunc or a
# several-output ufunc, so none has one yet).
_IDENTITIES = {None: cnp.PyUFunc_None}

# NumPy keeps pointers to the names, docs and signatures: they live as long
# as the module, here.
_keep_alive = []


cdef void *_pinned(size_t fn_address, size_t data_address) except NULL:
    """The loop at fn_address, with its data, as registered (src/runtime/xs_fpenv.h)."""
    return _keep(xs_pinned_new(<cnp.PyUFuncGenericFunction>fn_address, <void *>data_address))


cdef tuple _arity(str signature):
    """(nin, nout, element-wise?) of a signature such as "(n),(n)->()";
    one with no core dimension, "(),()->()", is an element-wise ufunc."""
    ins, outs = signature.split("->")
    return ins.count("("), outs.count("("), set(signature) <= set("(),->")


cdef object _from_builtin(list loops, int nin, int nout, str name, str doc, str signature,
                          object identity):
    """The ufunc with its built-in loops."""
    cdef int ntypes = len(loops)
    cdef int nargs = nin + nout
    cdef cnp.PyUFuncGenericFunction *funcs = <cnp.PyUFuncGenericFunction *>_keep(PyMem_Malloc(
        ntypes * sizeof(cnp.PyUFuncGenericFunction)))
    cdef void **data = <void **>_keep(PyMem_Malloc(ntypes * sizeof(void *)))
    cdef char *types = <char *>_keep(PyMem_Malloc(ntypes * nargs * sizeof(char)))
    cdef int i, k
    for i in range(ntypes):
        funcs[i] = <cnp.PyUFuncGenericFunction>_registered_loop
        data[i] = _pinned(loops[i].fn, loops[i].data)
        for k in range(nargs):
            types[i * nargs + k] = <char>loops[i].dtypes[k].num
    name_b, doc_b, sig_b = name.encode(), doc.encode(), signature.encode()
    _keep_alive.extend([name_b, doc_b, sig_b])
    if _arity(signature)[2]:
        return cnp.PyUFunc_FromFuncAndData(
            funcs, data, types, ntypes, nin, nout, _IDENTITIES[identity], name_b, doc_b, 0)
    return cnp.PyUFunc_FromFuncAndDataAndSignature(
        funcs, data, types, ntypes, nin, nout, _IDENTITIES[identity], name_b, doc_b, 0, sig_b)


cdef int _register_user(object ufunc, loop) except -1:
    """Add a loop on a run-time dtype (type numbers assigned in this process)."""
    cdef int *args = <int *>_keep(PyMem_Malloc(len(loop.dtypes) * sizeof(int)))
    cdef int k
    for k in range(len(loop.dtypes)):
        args[k] = loop.dtypes[k].num
    if cnp.PyUFunc_RegisterLoopForType(
            <cnp.ufunc>ufunc, loop.usertype, <cnp.PyUFuncGenericFunction>_registered_loop,
            args, _pinned(loop.fn, loop.data)) < 0:
        raise RuntimeError(f"cannot register a loop of {ufunc.__name__} for {loop.dtypes}")
    return 0


cdef int _check_defaults(object ufunc, list loops, int nin) except -1:
    """Raise unless NumPy resolves the inputs of each default loop to it."""
    for loop in loops:
        if not loop.default:
            continue
        ask = tuple(loop.dtypes[:nin]) + (None,) * (len(loop.dtypes) - nin)
        got = ufunc.resolve_dtypes(ask)
        if got != tuple(loop.dtypes):
            raise RuntimeError(
                f"xsumufunc: {ufunc.__name__} resolves {ask[:nin]} to the loop {got}, not "
                f"{tuple(loop.dtypes)}: this NumPy picks among loops in another order")
    return 0


cdef object _ufunc(str name, list loops, str doc, str signature, object identity=None):
    """The (g)ufunc of one declaration row (see the top of this file)."""
    nin, nout, _ = _arity(signature)
    ufunc = _from_builtin([loop for loop in loops if not loop.usertype], nin, nout, name, doc,
                          signature, identity)
    for loop in loops:
        if loop.usertype:
            _register_user(ufunc, loop)
    _check_defaults(ufunc, loops, nin)
    return ufunc
