/*
 * For xs_each_dtype.h (no include guard): XS_EACH_APPLY(name) for the row's
 * dtype when XS_EACH_WHEN holds for it.  Define both, then include the table
 * with XS_EACH "loops/xs_each_apply.h".
 */
#if XS_EACH_WHEN
XS_WITH_NAME(XS_EACH_APPLY, XS_TRAIT(name))
#endif
