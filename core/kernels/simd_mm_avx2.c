/*
** simd_mm_avx2.c -- AVX2 + FMA (+ F16C) matrix-matrix products (prefill,
** T > 1), compiled with the Makefile's AVX2_FLAGS and entered only through
** simd_kernels_avx2 after simd_kernels_get() checked the CPU.
**
** The same outer-product form as simd_mm_avx512.c at 8 lanes.  A register
** tile is M2_MR = 6 tokens x M2_NV = 2 ymm vectors of 8 output rows = 12
** accumulators + 2 W vectors + 1 broadcast (15 of the 16 ymm registers).
** Per step along `in` the kernel loads the 2 W vectors from a packed panel
** and broadcasts one activation per token straight from X's row-major
** storage: 12 multiply-adds per 2 loads + 6 broadcasts, and no conversion
** in the inner loop (the earlier 4 rows x 2 tokens dot-product tile widened
** every bf16 / f16 / int8 weight again for every token pair and loaded as
** much as it multiplied, which is what held it to ~30% of the FMA peak on
** CPUs with two load ports).
**
** The panel: for each column block of M2_KC columns and each 16-row band
** of the caller's row range, the band's weights are read once from their
** row-major storage (the mmap'd checkpoint), widened to fp32 (bf16: shift;
** f16: vcvtph2ps; Q8: code * block scale, exact in fp32) and transposed
** 8 x 8 into the panel ([M2_KC][16] fp32 = 8 KiB, stays in L1), which
** every token tile of the call then reuses: conversion costs once per
** weight per call, not per token.  The column block of X (T x M2_KC fp32,
** 128 KiB at T = 256) stays in L2 across the bands of a row group; the
** group's rows of Y (<= M2_Y_BYTES) stay in cache across the column
** blocks.  While a band's tiles run, the next band's weights are prefetched
** a slice per tile.
**
** Numerics: every product is the exact fp32 product of the widened weight
** (Q8: fp32(code * scale), as the dot-product kernel computed it) and the
** fp32 activation, summed in fp32; only the summation order differs from
** the portable kernels (and from the earlier AVX2 tile).
*/
#if defined(__x86_64__)

#include <immintrin.h>
#include <string.h>

#include "simd_impl.h"
#include "simd_q4_avx2.h"

#define AI static inline __attribute__((always_inline))

/* Register tile: tokens x ymm vectors of 8 rows (see the top). */
#define M2_MR 6
#define M2_NV 2
#define M2_NR (8 * M2_NV)
_Static_assert(M2_MR * M2_NV + M2_NV + 1 <= 16, "tile fits 16 ymm");
_Static_assert(SIMD_MM_ROW_BLOCK % M2_NR == 0, "split bands hold whole bands of ours");
/* Columns per panel: 16 rows x 128 fp32 = 8 KiB of L1D, and X's column
** block (T x 128 fp32, 128 KiB at T = 256) plus Y's row group fit the
** smallest L2 of the AVX2 class (256 - 512 KiB); a multiple of 32 so a Q8
** block never straddles two panels.  (On the Zen 5 here 128, 256 and 512
** measured the same, 110-120 GFLOP/s per thread of a 125 peak.) */
#ifndef M2_KC
#define M2_KC 128
#endif
_Static_assert(M2_KC % SIMD_Q8_BLOCK == 0 && M2_KC % 8 == 0, "KC: whole Q8 blocks");
_Static_assert(M2_KC / SIMD_Q4_BLOCK <= SIMD_Q4_STAGE, "a Q4 panel row stages its blocks at once");
/* Bytes of Y kept in cache while the column blocks pass (a row group). */
#ifndef M2_Y_BYTES
#define M2_Y_BYTES (128 << 10)
#endif

enum m2_fmt { M2_F32, M2_BF16, M2_F16, M2_Q8, M2_Q4 };

AI int64_t
m2_esize(enum m2_fmt f)
{
    return f == M2_F32 ? 4 : f == M2_Q8 ? 1 : 2;
}

/* ---- packing ------------------------------------------------------------------ */

/* One weight of row R, column C, widened (Q8: times its block scale). */
AI float
m2_w1(enum m2_fmt f, const simd_matrix *w, int64_t r, int64_t c)
{
    const size_t off = (size_t)r * (size_t)w->cols + (size_t)c;
    uint16_t h;
    uint32_t u;
    float v;

    switch (f) {
    case M2_F32:
        return ((const float *)w->data)[off];
    case M2_BF16:
        memcpy(&h, (const uint16_t *)w->data + off, 2);
        u = (uint32_t)h << 16;
        memcpy(&v, &u, 4);
        return v;
    case M2_F16:
        memcpy(&h, (const uint16_t *)w->data + off, 2);
        return _cvtsh_ss(h);
    case M2_Q8:
        return (float)((const int8_t *)w->data)[off] *
               w->scales[r * simd_q8_nblocks(w->cols) + c / SIMD_Q8_BLOCK];
    case M2_Q4:   /* m2_pack_band_q4 */
        break;
    }
    return 0;
}

/* Columns [c, c + 8) of row R widened to fp32, zero past LEFT valid ones. */
AI __m256
m2_chunk(enum m2_fmt f, const simd_matrix *w, int64_t r, int64_t c, int64_t left)
{
    const size_t off = (size_t)r * (size_t)w->cols + (size_t)c;

    if (left < 8) {
        float t[8] = {0};
        for (int64_t i = 0; i < left; i++)
            t[i] = m2_w1(f, w, r, c + i);
        return _mm256_loadu_ps(t);
    }
    switch (f) {
    case M2_F32:
        return _mm256_loadu_ps((const float *)w->data + off);
    case M2_BF16:
        return _mm256_castsi256_ps(_mm256_slli_epi32(
            _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)((const uint16_t *)w->data + off))),
            16));
    case M2_F16:
        return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const uint16_t *)w->data + off)));
    case M2_Q8:
        return _mm256_mul_ps(
            _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
                _mm_loadl_epi64((const __m128i *)((const int8_t *)w->data + off)))),
            _mm256_set1_ps(w->scales[r * simd_q8_nblocks(w->cols) + c / SIMD_Q8_BLOCK]));
    case M2_Q4:   /* m2_pack_band_q4 */
        break;
    }
    return _mm256_setzero_ps();
}

/* m2_pack_band for Q4: each 8 rows' blocks staged first (simd_q4_avx2.h:
** the interleaved codes of a group transposed back, d and m as floats),
** then the same chunks and transposes. */
AI void
m2_pack_band_q4(const simd_matrix *w, int64_t r, int nr, int64_t k0, int64_t kn, float *panel)
{
    const int nbk = (int)((kn + SIMD_Q4_BLOCK - 1) / SIMD_Q4_BLOCK);
    simd_q4_staged st[8];

    for (int v = 0; v * 8 < nr; v++) {
        const int rows = nr - 8 * v < 8 ? nr - 8 * v : 8;
        for (int l = 0; l < rows; l++)
            simd_q4_stage(w, r + 8 * v + l, k0 / SIMD_Q4_BLOCK, nbk, &st[l]);
        for (int64_t c = 0; c < kn; c += 8) {
            __m256 t[8];
            float *dst = panel + c * M2_NR + 8 * v;
#pragma GCC unroll 8
            for (int l = 0; l < 8; l++)
                t[l] = l < rows ? simd_q4_avx2_chunk(&st[l], (int)(c / SIMD_Q4_BLOCK),
                                                     (int)(c % SIMD_Q4_BLOCK), kn - c)
                                : _mm256_setzero_ps();
            simd_avx2_tr8(t);
#pragma GCC unroll 8
            for (int s = 0; s < 8; s++)
                _mm256_store_ps(dst + s * M2_NR, t[s]);
        }
    }
}

/*
** Panel of rows [r, r + nr) (nr <= M2_NR), columns [k0, k0 + kn): lane
** 8 v + l of panel row s holds W[r + 8 v + l, k0 + s].  Rows past nr are
** zero; panel rows past kn (up to the next multiple of 8) are zero.
*/
AI void
m2_pack_band(enum m2_fmt f, const simd_matrix *w, int64_t r, int nr, int64_t k0,
             int64_t kn, float *panel)
{
    if (f == M2_Q4) {
        m2_pack_band_q4(w, r, nr, k0, kn, panel);
        return;
    }
    for (int v = 0; v * 8 < nr; v++) {
        const int rows = nr - 8 * v < 8 ? nr - 8 * v : 8;
        for (int64_t c = 0; c < kn; c += 8) {
            __m256 t[8];
            float *dst = panel + c * M2_NR + 8 * v;
#pragma GCC unroll 8
            for (int l = 0; l < 8; l++)
                t[l] = l < rows ? m2_chunk(f, w, r + 8 * v + l, k0 + c, kn - c)
                                : _mm256_setzero_ps();
            simd_avx2_tr8(t);
#pragma GCC unroll 8
            for (int s = 0; s < 8; s++)
                _mm256_store_ps(dst + s * M2_NR, t[s]);
        }
    }
}

/* ---- register tiles ---------------------------------------------------------------- */

/* Y[i*ldy + 8v + l] (+)= acc[i][v] lane l; lanes l >= REM of the last
** vector are untouched.  (The mask is made here, not passed in: a vector
** live across the tile loop would be a 16th register and make GCC spill
** accumulators.) */
AI void
m2_put(int MR, int NV, __m256 acc[M2_MR][M2_NV], float *y, int64_t ldy, int first, int rem)
{
    const int partial = rem < 8;
    const __m256i mlast = _mm256_cmpgt_epi32(_mm256_set1_epi32(rem),
                                             _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));

#pragma GCC unroll 6
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++) {
            float *p = y + i * ldy + 8 * v;
            __m256 s = acc[i][v];
            if (partial && v == NV - 1) {
                if (!first)
                    s = _mm256_add_ps(s, _mm256_maskload_ps(p, mlast));
                _mm256_maskstore_ps(p, mlast, s);
            } else {
                if (!first)
                    s = _mm256_add_ps(s, _mm256_loadu_ps(p));
                _mm256_storeu_ps(p, s);
            }
        }
}

/* Y[t0 + i, band] (+)= sum_k panel[k] * X[t0 + i, k0 + k]; X at (t0, k0). */
AI void
m2_tile(int MR, int NV, const float *pan, const float *x, int64_t ldx, int64_t kn, float *y,
        int64_t ldy, int first, int rem)
{
    __m256 acc[M2_MR][M2_NV];
    const float *xr[M2_MR];
    const float *pend = pan + kn * M2_NR;

#pragma GCC unroll 6
    for (int i = 0; i < MR; i++) {
        xr[i] = x + i * ldx;
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++)
            acc[i][v] = _mm256_setzero_ps();
    }
#pragma GCC unroll 2
    for (; pan < pend; pan += M2_NR) {
        __m256 b[M2_NV];
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++)
            b[v] = _mm256_load_ps(pan + 8 * v);
#pragma GCC unroll 6
        for (int i = 0; i < MR; i++) {
            __m256 xb = _mm256_broadcast_ss(xr[i]++);
#pragma GCC unroll 2
            for (int v = 0; v < NV; v++)
                acc[i][v] = _mm256_fmadd_ps(b[v], xb, acc[i][v]);
        }
    }
    m2_put(MR, NV, acc, y, ldy, first, rem);
}

/* Tokens [t, t + mr) of one band, mr <= M2_MR, as tiles of M2_MR or 4, 2, 1. */
AI void
m2_tiles(int NV, const float *pan, const simd_act *a, int64_t t, int mr, int64_t k0,
         int64_t kn, float *y, int64_t ldy, int first, int rem)
{
    const int64_t ldx = a->cols;
    const float *x = a->x + t * ldx + k0;

    y += t * ldy;
    if (mr == M2_MR) {
        m2_tile(M2_MR, NV, pan, x, ldx, kn, y, ldy, first, rem);
        return;
    }
    if (mr & 4) {
        m2_tile(4, NV, pan, x, ldx, kn, y, ldy, first, rem);
        x += 4 * ldx;
        y += 4 * ldy;
    }
    if (mr & 2) {
        m2_tile(2, NV, pan, x, ldx, kn, y, ldy, first, rem);
        x += 2 * ldx;
        y += 2 * ldy;
    }
    if (mr & 1)
        m2_tile(1, NV, pan, x, ldx, kn, y, ldy, first, rem);
}

/* ---- driver -------------------------------------------------------------------------- */

/* Prefetch rows [i0, i1) of the band at (r, k0), KN columns each. */
AI void
m2_prefetch_rows(enum m2_fmt f, const simd_matrix *w, int64_t r, int64_t i0, int64_t i1,
                 int64_t k0, int64_t kn)
{
    const int64_t es = m2_esize(f), nb = simd_q4_nblocks(w->cols);
    int64_t bytes = kn * es;

    for (int64_t i = i0; i < i1; i++) {
        /* Q4: the groups of codes and block words that hold the band */
        const char *p = f == M2_Q4 ? (const char *)simd_q4_span(simd_q4_row(w, r + i), nb,
                                                                k0 / SIMD_Q4_BLOCK,
                                                                (k0 + kn + SIMD_Q4_BLOCK - 1) /
                                                                    SIMD_Q4_BLOCK,
                                                                &bytes)
                                   : (const char *)w->data +
                        ((size_t)(r + i) * (size_t)w->cols + (size_t)k0) * (size_t)es;
        for (int64_t b = 0; b < bytes; b += 64)
            _mm_prefetch(p + b, _MM_HINT_T0);
        _mm_prefetch(p + bytes - 1, _MM_HINT_T0);
    }
}

AI void
m2_run(enum m2_fmt f, const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
       int64_t r0, int64_t r1)
{
    const int64_t n = w->cols, T = a->T;
    const int64_t ntiles = (T + M2_MR - 1) / M2_MR;
    /* rows per group: the group's Y [T, rg] stays in cache across column blocks */
    const int64_t rg = M2_NR * (M2_Y_BYTES / (T * M2_NR * 4) > 1
                                    ? M2_Y_BYTES / (T * M2_NR * 4) : 1);
    float panel[M2_KC * M2_NR] __attribute__((aligned(32)));

    for (int64_t g0 = r0; g0 < r1; g0 += rg) {
        const int64_t g1 = r1 - g0 < rg ? r1 : g0 + rg;
        for (int64_t k0 = 0; k0 < n; k0 += M2_KC) {
            const int64_t kn = n - k0 < M2_KC ? n - k0 : M2_KC;
            const int first = k0 == 0;

            for (int64_t r = g0; r < g1; r += M2_NR) {
                const int nr = g1 - r < M2_NR ? (int)(g1 - r) : M2_NR;
                const int nv = (nr + 7) / 8;
                const int rem = nr - 8 * (nv - 1); /* rows in the last vector */
                /* the band after this one, prefetched while this one runs */
                int64_t pr = r + M2_NR, pk0 = k0, pnr = 0;
                if (pr >= g1) {
                    pr = g0;
                    pk0 = k0 + M2_KC;
                    if (pk0 >= n) {
                        pr = g1;
                        pk0 = 0;
                    }
                }
                if (pr < r1)
                    pnr = r1 - pr < M2_NR ? r1 - pr : M2_NR;

                m2_pack_band(f, w, r, nr, k0, kn, panel);
                for (int64_t ti = 0; ti < ntiles; ti++) {
                    const int64_t t = ti * M2_MR;
                    const int mr = T - t < M2_MR ? (int)(T - t) : M2_MR;
                    if (pnr > 0)
                        m2_prefetch_rows(f, w, pr, pnr * ti / ntiles, pnr * (ti + 1) / ntiles,
                                         pk0, n - pk0 < M2_KC ? n - pk0 : M2_KC);
                    if (nv == 1)
                        m2_tiles(1, panel, a, t, mr, k0, kn, y + r, ldy, first, rem);
                    else
                        m2_tiles(M2_NV, panel, a, t, mr, k0, kn, y + r, ldy, first, rem);
                }
            }
        }
    }
}

void
simd_mm_avx2_f32(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy, int64_t r0,
                 int64_t r1)
{
    m2_run(M2_F32, w, a, y, ldy, r0, r1);
}

void
simd_mm_avx2_bf16(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy, int64_t r0,
                  int64_t r1)
{
    m2_run(M2_BF16, w, a, y, ldy, r0, r1);
}

void
simd_mm_avx2_f16(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy, int64_t r0,
                 int64_t r1)
{
    m2_run(M2_F16, w, a, y, ldy, r0, r1);
}

void
simd_mm_avx2_q8(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy, int64_t r0,
                int64_t r1)
{
    m2_run(M2_Q8, w, a, y, ldy, r0, r1);
}

void
simd_mm_avx2_q4(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy, int64_t r0,
                int64_t r1)
{
    m2_run(M2_Q4, w, a, y, ldy, r0, r1);
}

#endif /* __x86_64__ */
