/*
 * Ends one instruction set's section of xs_cells.c or xs_dot_cells.c: undefines
 * the macros of xs_cells_kernel.h (XS_CK_*) and xs_dot_cells_kernel.h
 * (XS_DK_*) that describe it, so that the next section defines its own.
 */
#undef XS_CK_TARGET
#undef XS_CK_V
#undef XS_CK_VW
#undef XS_CK_CHAINS
#undef XS_CK_LOW_CHAINS
#undef XS_CK_LOAD
#undef XS_CK_STORE
#undef XS_CK_ADD
#undef XS_CK_SUB
#undef XS_CK_SET1
#undef XS_CK_RANGE_INIT
#undef XS_CK_RANGE_STEP
#undef XS_CK_RANGE_END
#undef XS_DK_TARGET
#undef XS_DK_V
#undef XS_DK_VW
#undef XS_DK_CHAINS
#undef XS_DK_LOAD
#undef XS_DK_LOADU
#undef XS_DK_STORE
#undef XS_DK_ADD
#undef XS_DK_SUB
#undef XS_DK_MUL
#undef XS_DK_FMSUB
#undef XS_DK_SET1
#undef XS_DK_RANGE_INIT
#undef XS_DK_NONZERO_MIN
#undef XS_DK_RANGE_STEP
#undef XS_DK_RANGE_END
#undef XS_DK_CELLS_NAN
#undef XS_DK_SPAN
#undef XS_DK_CARRY
