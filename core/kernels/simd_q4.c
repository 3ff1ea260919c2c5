/*
** simd_q4.c -- the Q4 weight format (simd.h): the quantizer, row
** dequantization, the split into the CUDA kernels' two arrays and the
** portable dot product the plain-C table uses.
**
** Format: blocks of SIMD_Q4_BLOCK = 32 weights along `in`, 4-bit codes
** q in [0, 15] and per block a scale d and an offset m, w ~= q * d + m,
** both stored as bfloat16 in one 32-bit word: 16 + 4 bytes per 32 weights,
** 0.625 bytes a weight (Q8: 1.125, bf16: 2).  A row keeps its codes and
** words together, 8 blocks' codes then their 8 words (simd.h), so decode
** reads each row as one stream (simd_q4_rows.h has the measurements); the
** codes of a full group of 8 are interleaved 4 bytes at a time, so one
** 32-byte load holds a lane per block (simd_q4_rows.h).
**
** Why an offset: at the same 0.625 bytes a weight, a symmetric 4-bit code
** with an fp32 scale (q in [-8, 7], the scale fitted by least squares) was
** measured against this one by tests/unit/test_q4.c: relative RMS error of
** W on Gaussian rows 0.083 (symmetric) vs 0.074 (offset), heavy-tailed
** (Student t2) 0.114 vs 0.086, one-sided 0.082 vs 0.041: the offset lets
** the 16 levels span the block's own [min, max], not a symmetric range.  bf16 for d and m
** costs nothing measurable (their rounding, at most 2^-9 relative, is ~1%
** of a code step) and, unlike fp16, has no range limit for blocks of tiny
** weights.
**
** Quantizer: start from d = (max - min) / 15, m = min and nearest codes,
** then alternate a least-squares refit of (d, m) to the codes with new
** nearest codes (each step can only lower the block's squared error), and
** finally round d and m to bf16 and choose the codes once more for the
** rounded pair.  Plain C, one implementation for every kernel table:
** bit-identical results on every CPU (the weight cache relies on it).
*/
#include "simd.h"

#include <string.h>

#include "dtype.h"
#include "simd_impl.h"

/* Refit / recode rounds after the min-max start (measured: a third round
** lowered the error of Gaussian blocks by < 0.1%). */
#define Q4_ITERS 2

/*
** V rounded to the nearest integer, ties to even (what lrintf and
** vcvtps2dq do in the default rounding mode), for |V| < 2^22: adding and
** subtracting 1.5 * 2^23 leaves no fraction bits.  Inline and vectorizable,
** where lrintf is a libm call (it took half the time of a 4-bit decode).
*/
static inline float
q4_rne(float v)
{
    return (v + 12582912.0f) - 12582912.0f;
}

/* 4-float / 4-int vectors (GCC/Clang vector extension: SSE on any x86-64,
** NEON on arm64), so the code loops run without branches. */
typedef float q4_v4 __attribute__((vector_size(16)));
typedef int32_t q4_i4 __attribute__((vector_size(16)));
typedef uint8_t q4_u4 __attribute__((vector_size(4)));

/* Nearest codes of the N weights W for the pair (D > 0, M), by the
** reciprocal (a tie may go the other way than by division, no matter):
** t = (w - m) / d clamped to [0, 15] (by masks: the compiler keeps a
** ternary as a branch), rounded to nearest even. */
static inline void
q4_codes(const float *w, int n, float d, float m, uint8_t *codes)
{
    const float id = 1.0f / d;
    float buf[SIMD_Q4_BLOCK + 3] = {0};
    int i;

    memcpy(buf, w, (size_t)n * sizeof(float));
    for (i = 0; i < n; i += 4) {
        q4_v4 t, top = {15, 15, 15, 15};
        q4_i4 lo, hi, v;
        memcpy(&t, buf + i, sizeof t);
        t = (t - m) * id;
        lo = t < 0;                      /* -1 where negative */
        hi = t > 15;
        t = (q4_v4)(((q4_i4)t & ~lo & ~hi) | ((q4_i4)top & hi));
        t = (t + 12582912.0f) - 12582912.0f;
        v = __builtin_convertvector(t, q4_i4);
        if (i + 4 <= n) {   /* 0..15: the four codes as bytes in one store */
            q4_u4 b = __builtin_convertvector(v, q4_u4);
            memcpy(codes + i, &b, sizeof b);
        } else {
            for (int k = 0; i + k < n; k++)
                codes[i + k] = (uint8_t)v[k];
        }
    }
}

/* Least-squares (D, M) for the codes; 0 when they do not determine one
** with D > 0 (all codes equal).  Float sums in 4 lanes, lane k taking
** elements k, k + 4, ... in order (D and M end up in bf16: 8 bits); the
** lanes are vectors for whole quads, the same additions as one by one. */
static inline int
q4_fit(const float *w, int n, const uint8_t *codes, float *d, float *m)
{
    q4_v4 sw = {0, 0, 0, 0}, swq = {0, 0, 0, 0};
    q4_i4 sq4 = {0, 0, 0, 0}, sqq4 = {0, 0, 0, 0};
    float nd, sumw, sumwq;
    int sq, sqq, det, i = 0;

    for (; i + 4 <= n; i += 4) {
        q4_v4 w4;
        q4_i4 c4 = {codes[i], codes[i + 1], codes[i + 2], codes[i + 3]};
        memcpy(&w4, w + i, sizeof w4);
        sq4 += c4;
        sqq4 += c4 * c4;
        sw += w4;
        swq += w4 * __builtin_convertvector(c4, q4_v4);
    }
    for (; i < n; i++) {
        sq4[i & 3] += codes[i];
        sqq4[i & 3] += codes[i] * codes[i];
        sw[i & 3] += w[i];
        swq[i & 3] += w[i] * (float)codes[i];
    }
    sq = sq4[0] + sq4[1] + sq4[2] + sq4[3];
    sqq = sqq4[0] + sqq4[1] + sqq4[2] + sqq4[3];
    sumw = (sw[0] + sw[1]) + (sw[2] + sw[3]);
    sumwq = (swq[0] + swq[1]) + (swq[2] + swq[3]);
    det = n * sqq - sq * sq;   /* <= 32 * 32 * 225: no overflow */
    if (det <= 0)
        return 0;
    nd = ((float)n * sumwq - (float)sq * sumw) / (float)det;
    if (!(nd > 0))
        return 0;
    *d = nd;
    *m = (sumw - nd * (float)sq) / (float)n;
    return 1;
}

/* Min and max of the 32 weights W as the loop in q4_block finds them
** (the first of equal values), by 4-lane masks: the same values, and when
** the minimum is a zero (-0 and +0 compare equal, and which one comes first
** decides the offset's sign) the plain loop decides. */
static inline void
q4_minmax(const float *w, float *mn, float *mx)
{
    q4_v4 lo, hi;
    float a, b;

    memcpy(&lo, w, sizeof lo);
    hi = lo;
    for (int i = 4; i < SIMD_Q4_BLOCK; i += 4) {
        q4_v4 v;
        q4_i4 l, h;
        memcpy(&v, w + i, sizeof v);
        l = v < lo;
        h = v > hi;
        lo = (q4_v4)(((q4_i4)v & l) | ((q4_i4)lo & ~l));
        hi = (q4_v4)(((q4_i4)v & h) | ((q4_i4)hi & ~h));
    }
    a = lo[0] < lo[1] ? lo[0] : lo[1];
    b = lo[2] < lo[3] ? lo[2] : lo[3];
    *mn = a < b ? a : b;
    a = hi[0] > hi[1] ? hi[0] : hi[1];
    b = hi[2] > hi[3] ? hi[2] : hi[3];
    *mx = a > b ? a : b;
    if (*mn == 0) {
        *mn = *mx = w[0];
        for (int i = 1; i < SIMD_Q4_BLOCK; i++) {
            *mn = w[i] < *mn ? w[i] : *mn;
            *mx = w[i] > *mx ? w[i] : *mx;
        }
    }
}

/* One block of N (1..32) weights: codes into CODES [32] (zero past N) and
** the block word. */
static inline __attribute__((always_inline)) uint32_t
q4_block(const float *w, int n, uint8_t *codes)
{
    float mn = w[0], mx = w[0], d, m;
    uint16_t db, mb;

    memset(codes, 0, SIMD_Q4_BLOCK);
    if (n == SIMD_Q4_BLOCK)
        q4_minmax(w, &mn, &mx);
    else
        for (int i = 1; i < n; i++) {
            mn = w[i] < mn ? w[i] : mn;
            mx = w[i] > mx ? w[i] : mx;
        }
    d = (mx - mn) / 15.0f;
    m = mn;
    if (!(d > 0))   /* a constant block: the offset alone */
        return (uint32_t)dtype_f32_to_bf16(mn) << 16;
    q4_codes(w, n, d, m, codes);
    for (int it = 0; it < Q4_ITERS && q4_fit(w, n, codes, &d, &m); it++)
        q4_codes(w, n, d, m, codes);
    db = dtype_f32_to_bf16(d);
    mb = dtype_f32_to_bf16(m);
    d = dtype_bf16_to_f32(db);
    if (!(d > 0))   /* d below bf16's range: the offset alone */
        return (uint32_t)dtype_f32_to_bf16(mn + (mx - mn) / 2) << 16;
    q4_codes(w, n, d, dtype_bf16_to_f32(mb), codes);
    return (uint32_t)db | (uint32_t)mb << 16;
}

void
simd_q4_quantize(const float *src, int64_t cols, int64_t r0, int64_t r1, uint8_t *dst)
{
    const int64_t nb = simd_q4_nblocks(cols), rb = simd_q4_row_bytes(cols);

    for (int64_t r = r0; r < r1; r++)
        for (int64_t b = 0; b < nb; b++) {
            int64_t c0 = b * SIMD_Q4_BLOCK;
            int n = (int)(cols - c0 < SIMD_Q4_BLOCK ? cols - c0 : SIMD_Q4_BLOCK);
            uint8_t codes[SIMD_Q4_BLOCK], packed[16], *row = dst + r * rb,
                    *q = row + simd_q4_code_at(nb, b, 0);
            /* full blocks with a constant count: unrolled and vectorized */
            uint32_t word = n == SIMD_Q4_BLOCK ? q4_block(src + r * cols + c0, SIMD_Q4_BLOCK, codes)
                                               : q4_block(src + r * cols + c0, n, codes);

            memcpy(row + simd_q4_word_offset(nb, b), &word, 4);
            for (int j = 0; j < 16; j++)
                packed[j] = (uint8_t)(codes[j] | codes[j + 16] << 4);
            if (simd_q4_interleaved(nb, b))   /* 4 bytes a block per 32 */
                for (int k = 0; k < 4; k++)
                    memcpy(q + k * (4 * SIMD_Q4_GROUP), packed + 4 * k, 4);
            else
                memcpy(q, packed, 16);
        }
}

void
simd_q4_split(const simd_matrix *w, int64_t r0, int64_t r1, uint8_t *codes, uint32_t *words)
{
    const int64_t nb = simd_q4_nblocks(w->cols);

    for (int64_t r = r0; r < r1; r++) {
        const uint8_t *row = simd_q4_row(w, r);
        for (int64_t b = 0; b < nb; b++) {
            simd_q4_block_codes(row, nb, b, codes + ((r - r0) * nb + b) * 16);
            memcpy(words + (r - r0) * nb + b, row + simd_q4_word_offset(nb, b), 4);
        }
    }
}

/* Code of column J (0..31) of the 16-byte block P. */
static inline int
q4_code(const uint8_t *p, int j)
{
    return j < 16 ? p[j] & 15 : p[j - 16] >> 4;
}

void
simd_q4_dequantize_row(const simd_matrix *w, int64_t r, float *dst)
{
    int64_t nb = simd_q4_nblocks(w->cols);
    const uint8_t *row = simd_q4_row(w, r);

    for (int64_t b = 0; b < nb; b++) {
        uint8_t p[16];
        float d, m;
        int64_t c0 = b * SIMD_Q4_BLOCK;
        simd_q4_block_codes(row, nb, b, p);
        simd_q4_dm(row, nb, b, &d, &m);
        for (int j = 0; j < SIMD_Q4_BLOCK && c0 + j < w->cols; j++)
            dst[c0 + j] = (float)q4_code(p, j) * d + m;
    }
}

/* Row R of Q4 matrix W . x: per block d * (q . x) + m * sum(x), 8 partial
** sums per block as the other portable dot products keep. */
float
simd_q4_dot_portable(const simd_matrix *w, int64_t r, const float *x)
{
    const int64_t n = w->cols, nb = simd_q4_nblocks(n);
    const uint8_t *row = simd_q4_row(w, r);
    float total = 0;

    for (int64_t b = 0; b < nb; b++) {
        const float *xb = x + b * SIMD_Q4_BLOCK;
        int len = (int)(n - b * SIMD_Q4_BLOCK < SIMD_Q4_BLOCK ? n - b * SIMD_Q4_BLOCK
                                                               : SIMD_Q4_BLOCK);
        float s[8] = {0}, xs[8] = {0}, d, m;
        uint8_t p[16];

        simd_q4_block_codes(row, nb, b, p);
        for (int j = 0; j < len; j++) {
            s[j & 7] += (float)q4_code(p, j) * xb[j];
            xs[j & 7] += xb[j];
        }
        simd_q4_dm(row, nb, b, &d, &m);
        total += d * (((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]))) +
                 m * (((xs[0] + xs[4]) + (xs[1] + xs[5])) + ((xs[2] + xs[6]) + (xs[3] + xs[7])));
    }
    return total;
}

/* ---- matvec: int8 activations (simd_impl.h) ------------------------------- */

void
simd_q4_act_block(const float *x, int len, simd_q4_x *q, int64_t b)
{
    int8_t *xg = q->xq + simd_q4_xq_at(b, 0);
    float xb[SIMD_Q4_BLOCK] = {0}, s[8] = {0}, amax = 0, d, id;

    memcpy(xb, x, (size_t)(len > 0 ? len : 0) * sizeof(float));
    for (int j = 0; j < SIMD_Q4_BLOCK; j++) {
        float a = xb[j] < 0 ? -xb[j] : xb[j];
        amax = a > amax ? a : amax;
        s[j & 7] += xb[j];
    }
    d = amax / 127.0f;
    id = d > 0 ? 1.0f / d : 0.0f;
    q->xd[b] = d;
    q->xs[b] = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
    for (int j = 0; j < SIMD_Q4_BLOCK; j++) {
        float v = q4_rne(xb[j] * id);   /* |v| <= 127 up to rounding */
        xg[simd_q4_xq_at(0, j % 16) + (j / 16) * SIMD_Q4_XHI] =
            (int8_t)(v < -127 ? -127 : v > 127 ? 127 : (int)v);
    }
}

void
simd_q4_act(const float *x, int64_t n, simd_q4_x *q)
{
    const int64_t nb = simd_q4_nblocks(n);
    const int64_t nbg = (nb + SIMD_Q4_GROUP - 1) / SIMD_Q4_GROUP * SIMD_Q4_GROUP;

    for (int64_t b = 0; b < nbg; b++) {
        int64_t c0 = b * SIMD_Q4_BLOCK;
        simd_q4_act_block(x + (c0 < n ? c0 : 0),
                          (int)(n - c0 < 0 ? 0 : n - c0 < SIMD_Q4_BLOCK ? n - c0 : SIMD_Q4_BLOCK), q,
                          b);
    }
}

int32_t
simd_q4_isum(const uint8_t *p, const simd_q4_x *q, int64_t k)
{
    const int8_t *xg = q->xq + simd_q4_xq_at(k, 0);
    int32_t s = 0;

    for (int j = 0; j < 16; j++) {
        const int8_t *a = xg + simd_q4_xq_at(0, j);
        s += (p[j] & 15) * a[0] + (p[j] >> 4) * a[SIMD_Q4_XHI];
    }
    return s;
}

/* Each pass starts a group (simd_q4_rows.h reads whole groups from there). */
_Static_assert(SIMD_Q4_XCOLS % (SIMD_Q4_BLOCK * SIMD_Q4_GROUP) == 0,
               "a Q4 column pass must begin a group of blocks");

void
simd_q4_matvec(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1,
               simd_q4_act_fn act, simd_q4_rows_fn rows)
{
    simd_q4_x q;

    for (int64_t c0 = 0; c0 < w->cols; c0 += SIMD_Q4_XCOLS) {
        int64_t n = w->cols - c0 < SIMD_Q4_XCOLS ? w->cols - c0 : SIMD_Q4_XCOLS;
        act(x + c0, n, &q);
        rows(w, &q, simd_q4_nblocks(n), y, r0, r1, c0 / SIMD_Q4_BLOCK, c0 > 0);
    }
}

/*
** Rows [r0, r1): NBLK blocks from block B0, in the order of the SIMD row
** loop (simd_q4_rows.h), so every table gives the same bits: 8 lanes, lane
** j taking block j of each full group (m * sum(x), then the exact integer
** sum times d * dx, each one fused multiply-add), the lanes summed
** ((0 + 4) + (2 + 6)) + ((1 + 5) + (3 + 7)), then the short last group
** (simd_q4_tail).
*/
void
simd_q4_rows_portable(const simd_matrix *w, const simd_q4_x *q, int64_t nblk, float *y,
                      int64_t r0, int64_t r1, int64_t b0, int add)
{
    const int64_t nb = simd_q4_nblocks(w->cols);

    for (int64_t r = r0; r < r1; r++) {
        const uint8_t *row = simd_q4_row(w, r);
        float s[SIMD_Q4_GROUP] = {0}, v;
        int64_t k = 0;

        for (; k + SIMD_Q4_GROUP <= nblk; k += SIMD_Q4_GROUP)
            for (int j = 0; j < SIMD_Q4_GROUP; j++) {
                uint8_t p[16];
                float d, m;
                simd_q4_block_codes(row, nb, b0 + k + j, p);
                simd_q4_dm(row, nb, b0 + k + j, &d, &m);
                s[j] = __builtin_fmaf(m, q->xs[k + j], s[j]);
                s[j] = __builtin_fmaf((float)simd_q4_isum(p, q, k + j), d * q->xd[k + j], s[j]);
            }
        v = ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
        if (k < nblk)   /* the short last group (as the SIMD loop: no + 0) */
            v += simd_q4_tail(row, nb, q, b0, k, nblk);
        y[r] = add ? y[r] + v : v;
    }
}

void
simd_q4_mv_portable(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)
{
    simd_q4_matvec(w, x, y, r0, r1, simd_q4_act, simd_q4_rows_portable);
}
