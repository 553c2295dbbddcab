/*
 * How to read a row of the dtype table (xs_each_dtype.h): the templates and
 * the per-row headers included for each row see it as XS_ROW and read its
 * fields with XS_TRAIT(field), usable in #if.  The fields:
 *   name     the dtype (its loops are xs_sum_<name>, xs_dot_<name>, ...)
 *   float    1: xs_load_<name>(p) gives the element's float64 bit pattern;
 *            0: the element is an integer of C type `ctype`, added exactly
 *               by `add` (one element) and `times` (n copies of one)
 *   cells    1: the cells front end (kernels/cells) takes its contiguous
 *               rows, whose elements are of C type `ctype`
 *   columns  1: the column kernels take its slow-axis reductions
 *   large    1: its long rows go through xs_large_add_<name>
 *   slot     a byte-coded format's slot (rows summed by counting codes), -1
 *   dot      how the dot loops take its products: XS_DOT_KIND_FMA (float64:
 *            p and its fma error, the dot cells for long rows),
 *            XS_DOT_KIND_NARROW (products exact in double) or
 *            XS_DOT_KIND_NONE (no dot loops)
 *   squares  rows dotted with themselves go to xs_dot_squares.c with
 *            elements of this many bytes (0: never)
 */
#ifndef XS_DTYPES_H
#define XS_DTYPES_H

#define XS_DOT_KIND_NONE 0
#define XS_DOT_KIND_NARROW 1
#define XS_DOT_KIND_FMA 2

#define XS_TRAIT(field) XS_TRAIT_PICK_(XS_TRAIT_##field, XS_ROW)
#define XS_TRAIT_PICK_(pick, row) pick row
#define XS_TRAIT_name(n, f, c, col, l, s, t, a, ti, d, sq) n
#define XS_TRAIT_float(n, f, c, col, l, s, t, a, ti, d, sq) f
#define XS_TRAIT_cells(n, f, c, col, l, s, t, a, ti, d, sq) c
#define XS_TRAIT_columns(n, f, c, col, l, s, t, a, ti, d, sq) col
#define XS_TRAIT_large(n, f, c, col, l, s, t, a, ti, d, sq) l
#define XS_TRAIT_slot(n, f, c, col, l, s, t, a, ti, d, sq) s
#define XS_TRAIT_ctype(n, f, c, col, l, s, t, a, ti, d, sq) t
#define XS_TRAIT_add(n, f, c, col, l, s, t, a, ti, d, sq) a
#define XS_TRAIT_times(n, f, c, col, l, s, t, a, ti, d, sq) ti
#define XS_TRAIT_dot(n, f, c, col, l, s, t, a, ti, d, sq) d
#define XS_TRAIT_squares(n, f, c, col, l, s, t, a, ti, d, sq) sq

/* NAME(IN) with IN expanded first (IN is XS_TRAIT(name) in the per-row
 * headers; NAME pastes it). */
#define XS_WITH_NAME(NAME, IN) NAME(IN)

#endif
