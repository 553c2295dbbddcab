/*
 * xs_cells_kernel.h for one instruction set and one input type, once per
 * cell count 1..XS_CELLS_MAX (3..XS_CELLS_MAX when the includer defines
 * XS_CK_BINNED: see XS_CELLS_SET_BINNED): the includer defines the vector
 * macros of xs_cells_kernel.h, XS_CK_ELEMENT, XS_CK_LOAD_IN and
 * XS_CI_NAME(K), the name of the instance with K cells; those three and
 * XS_CK_BINNED are undefined at the end.
 */
#ifndef XS_CK_BINNED
#define XS_CK_CELLS 1
#define XS_CK_NAME XS_CI_NAME(1)
#include "kernels/cells/xs_cells_kernel.h"
#define XS_CK_CELLS 2
#define XS_CK_NAME XS_CI_NAME(2)
#include "kernels/cells/xs_cells_kernel.h"
#endif
#define XS_CK_CELLS 3
#define XS_CK_NAME XS_CI_NAME(3)
#include "kernels/cells/xs_cells_kernel.h"
#define XS_CK_CELLS 4
#define XS_CK_NAME XS_CI_NAME(4)
#include "kernels/cells/xs_cells_kernel.h"
_Static_assert(XS_CELLS_MAX == 4, "one instance per cell count up to XS_CELLS_MAX");
#undef XS_CK_ELEMENT
#undef XS_CK_LOAD_IN
#undef XS_CI_NAME
#undef XS_CK_BINNED
