# The floating-point flags of a loop called without NumPy's ufunc machinery,
# included by _ufuncs.pyx and _lowprec_ufuncs.pyx: the four flags NumPy turns
# into warnings (np.errstate).  A call whose loop raised one is run again
# through its ufunc, so that the warnings and errors are NumPy's own.
cdef extern from *:
    """
    #include <fenv.h>
    #define XS_ROW_FLAGS (FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID)
    static int xs_row_flags(void) { return fetestexcept(XS_ROW_FLAGS) != 0; }
    /* Tested first: feclearexcept rewrites the x87 environment (tens of ns),
       and the flags are usually clear already. */
    static void xs_row_flags_clear(void)
    {
        if (fetestexcept(XS_ROW_FLAGS)) {
            feclearexcept(XS_ROW_FLAGS);
        }
    }
    """
    int xs_row_flags()
    void xs_row_flags_clear()
