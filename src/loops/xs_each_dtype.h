/*
 * The input dtypes of the loops, held once (NumPy's "begin repeat" idea, in
 * plain C): one row per dtype, in registration order.  Define XS_EACH as the
 * header to include for every row, then include this file: that header sees
 * the row as XS_ROW and reads it with XS_TRAIT (xs_dtypes.h, which also
 * says what the fields mean).  The loop templates, the declarations
 * (xs_loops.h), the registration tables (xs_loops_tables.c) and the code
 * loaders all go through it.  No include guard: included once per use.
 */
#include "loops/xs_dtypes.h"

#ifndef XS_EACH
#error "define XS_EACH as the header to include for each dtype"
#endif

/*              name      float cells columns large slot ctype          add                  times                  dot                 squares
 */
#define XS_ROW (float64,  1,    1,    1,      1,    -1,  double,        -,                   -,                     XS_DOT_KIND_FMA,    8)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (float32,  1,    1,    1,      0,    -1,  float,         -,                   -,                     XS_DOT_KIND_NARROW, 4)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (float16,  1,    0,    0,      0,    -1,  -,             -,                   -,                     XS_DOT_KIND_NARROW, 0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (bfloat16, 1,    1,    0,      0,    -1,  uint16_t,      -,                   -,                     XS_DOT_KIND_NARROW, 0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (bool,     0,    0,    0,      0,    -1,  unsigned char, xs_small_add_bool,   xs_add_bool_times,     XS_DOT_KIND_NONE,   0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (int8,     0,    0,    0,      0,    -1,  int8_t,        xs_small_add_int64,  xs_add_signed_times,   XS_DOT_KIND_NONE,   0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (uint8,    0,    0,    0,      0,    -1,  uint8_t,       xs_small_add_uint64, xs_add_unsigned_times, XS_DOT_KIND_NONE,   0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (int16,    0,    0,    0,      0,    -1,  int16_t,       xs_small_add_int64,  xs_add_signed_times,   XS_DOT_KIND_NONE,   0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (uint16,   0,    0,    0,      0,    -1,  uint16_t,      xs_small_add_uint64, xs_add_unsigned_times, XS_DOT_KIND_NONE,   0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (int32,    0,    0,    0,      0,    -1,  int32_t,       xs_small_add_int64,  xs_add_signed_times,   XS_DOT_KIND_NONE,   0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (uint32,   0,    0,    0,      0,    -1,  uint32_t,      xs_small_add_uint64, xs_add_unsigned_times, XS_DOT_KIND_NONE,   0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (int64,    0,    0,    0,      0,    -1,  int64_t,       xs_small_add_int64,  xs_add_signed_times,   XS_DOT_KIND_NONE,   0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (uint64,   0,    0,    0,      0,    -1,  uint64_t,      xs_small_add_uint64, xs_add_unsigned_times, XS_DOT_KIND_NONE,   0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (code0,    1,    0,    0,      0,    0,   -,             -,                   -,                     XS_DOT_KIND_NARROW, 0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (code1,    1,    0,    0,      0,    1,   -,             -,                   -,                     XS_DOT_KIND_NARROW, 0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (code2,    1,    0,    0,      0,    2,   -,             -,                   -,                     XS_DOT_KIND_NARROW, 0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (code3,    1,    0,    0,      0,    3,   -,             -,                   -,                     XS_DOT_KIND_NARROW, 0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (code4,    1,    0,    0,      0,    4,   -,             -,                   -,                     XS_DOT_KIND_NARROW, 0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (code5,    1,    0,    0,      0,    5,   -,             -,                   -,                     XS_DOT_KIND_NARROW, 0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (code6,    1,    0,    0,      0,    6,   -,             -,                   -,                     XS_DOT_KIND_NARROW, 0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (code7,    1,    0,    0,      0,    7,   -,             -,                   -,                     XS_DOT_KIND_NARROW, 0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (code8,    1,    0,    0,      0,    8,   -,             -,                   -,                     XS_DOT_KIND_NARROW, 0)
#include XS_EACH
#undef XS_ROW
#define XS_ROW (code9,    1,    0,    0,      0,    9,   -,             -,                   -,                     XS_DOT_KIND_NARROW, 0)
#include XS_EACH
#undef XS_ROW

#undef XS_EACH
