/*
 * For xs_lowprec_each.h (no include guard): declares the loops of the pair
 * XS_LP_S, XS_LP_U (xs_lowprec.h lists them).
 */
#if XS_LP_HAS_PAIR
XS_LP_WITH_PAIR(XS_LP_DECLARE_PAIR, XS_LP_S, XS_LP_U)
#endif
#if XS_LP_HAS_SUM
XS_LP_WITH_PAIR(XS_LP_DECLARE_SUM, XS_LP_S, XS_LP_U)
#endif
