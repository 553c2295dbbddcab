/* Byte-coded formats (float8/float6/float4): decode tables, counting
 * summation and the store of a rounded result.  See xs_codes.h. */
#include "kernels/codes/xs_codes.h"
#include "kernels/codes/xs_codes_fixed.h"

#include <fenv.h>
#include <math.h>
#include <string.h>

xs_code_format xs_code_formats[XS_CODE_SLOTS];

/* Order of the special codes handed to xs_code_format_init. */
enum { POS_ZERO, NEG_ZERO, POS_INF, NEG_INF, NAN_CODE };

static void store_code(char *p, double x, const xs_target *self)
{
    const xs_code_format *f = self->ctx;
    uint8_t code;
    if (isnan(x)) {
        code = f->nan_code;
        if (!f->nan_is_nan) {
            feraiseexcept(FE_INVALID);          /* no NaN in this format */
        }
    }
    else if (x == 0.0) {
        code = f->zero_code[signbit(x) ? 1 : 0];
    }
    else if (fabs(x) > f->max) {
        /* Beyond the largest finite value (the grid's top binade may hold
         * values the format lacks, e4m3fn's 480): Inf, NaN or saturation. */
        code = f->inf_code[x < 0.0 ? 1 : 0];
        if (!(isinf(x) && f->inf_is_inf)) {
            feraiseexcept(FE_OVERFLOW | FE_INEXACT);
        }
    }
    else {
        /* x is a value of the grid within range, so it is one of the
         * finite values: binary search. */
        int lo = 0, hi = f->nfinite - 1;
        code = f->nan_code;
        while (lo <= hi) {
            int mid = (lo + hi) / 2;
            if (f->finite[mid] < x) {
                lo = mid + 1;
            }
            else if (f->finite[mid] > x) {
                hi = mid - 1;
            }
            else {
                code = f->finite_code[mid];
                break;
            }
        }
    }
    memcpy(p, &code, 1);
}

int xs_code_format_init(int slot, const double *values, const unsigned char *encodable,
                        const unsigned char *special_codes, int precision, int emin, int emax)
{
    if (slot < 0 || slot >= XS_CODE_SLOTS || precision < 1 || precision > 24 ||
            emin > emax) {
        return -1;
    }
    xs_code_format *f = &xs_code_formats[slot];
    memset(f, 0, sizeof *f);
    f->max = 0.0;
    for (int c = 0; c < 256; c++) {
        f->decode_bits[c] = xs_double_bits(values[c]);
        if (!encodable[c] || !isfinite(values[c]) || values[c] == 0.0) {
            continue;
        }
        /* Insertion into the ascending list (256 entries at most, once). */
        int k = f->nfinite++;
        while (k > 0 && f->finite[k - 1] > values[c]) {
            f->finite[k] = f->finite[k - 1];
            f->finite_code[k] = f->finite_code[k - 1];
            k--;
        }
        if (k > 0 && f->finite[k - 1] == values[c]) {
            return -1;                          /* two codes for one value */
        }
        f->finite[k] = values[c];
        f->finite_code[k] = (uint8_t)c;
        if (fabs(values[c]) > f->max) {
            f->max = fabs(values[c]);
        }
    }
    f->zero_code[0] = special_codes[POS_ZERO];
    f->zero_code[1] = special_codes[NEG_ZERO];
    f->inf_code[0] = special_codes[POS_INF];
    f->inf_code[1] = special_codes[NEG_INF];
    f->nan_code = special_codes[NAN_CODE];
    f->inf_is_inf = isinf(values[f->inf_code[0]]) && isinf(values[f->inf_code[1]]);
    f->nan_is_nan = isnan(values[f->nan_code]) != 0;
    f->format = (xs_format){precision, emin, emax};
    f->target = (xs_target){&f->format, store_code, f};
    xs_code_fixed_init(f);
    return 0;
}

const xs_target *xs_code_target(int slot)
{
    return (slot >= 0 && slot < XS_CODE_SLOTS) ? &xs_code_formats[slot].target : NULL;
}

/* Contiguous bytes are counted 8 at a time, byte lane k of each 64-bit
 * word into table k: a run of one code (common: most of a normal sample
 * falls on a few codes) then feeds 8 independent counters instead of
 * serialising on one.  32-bit counters, folded into the 64-bit counts every
 * block so they cannot wrap (each gets at most BLOCK / 8 increments). */
#define XS_HISTOGRAM_LANES 8
#define XS_HISTOGRAM_BLOCK ((ptrdiff_t)1 << 30)

static void histogram_contiguous(uint64_t counts[256], const unsigned char *p, ptrdiff_t n)
{
    uint32_t table[XS_HISTOGRAM_LANES][256];
    while (n > 0) {
        ptrdiff_t m = n < XS_HISTOGRAM_BLOCK ? n : XS_HISTOGRAM_BLOCK;
        memset(table, 0, sizeof table);
        ptrdiff_t i = 0;
        for (; i + 8 <= m; i += 8) {
            uint64_t w;
            memcpy(&w, p + i, sizeof w);
            for (int k = 0; k < XS_HISTOGRAM_LANES; k++) {
                table[k][(w >> (8 * k)) & 0xff]++;
            }
        }
        for (; i < m; i++) {
            table[0][p[i]]++;
        }
        for (int c = 0; c < 256; c++) {
            uint64_t total = 0;
            for (int k = 0; k < XS_HISTOGRAM_LANES; k++) {
                total += table[k][c];
            }
            counts[c] += total;
        }
        p += m;
        n -= m;
    }
}

void xs_code_histogram(uint64_t counts[256], const char *p, ptrdiff_t n, ptrdiff_t stride)
{
    if (stride == 1) {
        histogram_contiguous(counts, (const unsigned char *)p, n);
        return;
    }
    for (ptrdiff_t i = 0; i < n; i++, p += stride) {
        counts[*(const unsigned char *)p]++;
    }
}

/* Rows shorter than this are added value by value when they are counted:
 * clearing and folding the counters costs about as much as adding ~500
 * values. */
#define XS_CODE_COUNT_MIN_TERMS 512

void xs_code_count(const xs_code_format *f, xs_small *acc, const char *p, ptrdiff_t n,
                   ptrdiff_t stride)
{
    uint64_t counts[256] = {0};
    xs_code_histogram(counts, p, n, stride);
    for (int c = 0; c < 256; c++) {
        xs_small_add_double_times(acc, f->decode_bits[c], counts[c]);   /* 0: nothing */
    }
}

void xs_code_accumulate(int slot, xs_small *acc, const char *p, ptrdiff_t n,
                        ptrdiff_t stride)
{
    const xs_code_format *f = &xs_code_formats[slot];
    /* Contiguous: the fixed-point form, and each block it refuses counted. */
    ptrdiff_t refused = stride == 1;
    while (refused > 0) {
        ptrdiff_t done = xs_code_fixed_accumulate(f, acc, (const unsigned char *)p, n, &refused);
        p += done;
        n -= done;
        if (refused > 0) {
            xs_code_count(f, acc, p, refused, 1);
            p += refused;
            n -= refused;
            if (acc->flags & XS_NAN) {
                return;                 /* NaN absorbs the rest: nothing to add */
            }
        }
    }
    if (n >= XS_CODE_COUNT_MIN_TERMS) {
        xs_code_count(f, acc, p, n, stride);
        return;
    }
    for (ptrdiff_t i = 0; i < n; i++, p += stride) {
        xs_small_add_bits(acc, f->decode_bits[*(const unsigned char *)p]);
    }
}
