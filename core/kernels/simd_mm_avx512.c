/*
** simd_mm_avx512.c -- AVX-512 matrix-matrix products (prefill, T > 1),
** compiled with the Makefile's AVX512_FLAGS and entered only through the
** simd_avx512.c tables after simd_kernels_get() checked the CPU.
**
** Outer-product form.  Y[t, r..r+64) is a register tile row: MM_MR = 6
** tokens x MM_NV = 4 zmm vectors of 16 output rows = 24 accumulators.  Per
** step along `in` the kernel loads MM_NV vectors of W (16 rows each) from a packed
** panel and broadcasts one activation per token straight from X's
** row-major storage; the tile is added into Y once per column block, with
** plain vector loads and stores (Y rows are contiguous in r).
**
**   fp32 kernel  vfmadd231ps: panel fp32 [kc][64], X fp32 (the caller's)
**   bf16 kernel  vdpbf16ps:   panel of bf16 pairs [kc/2][64] (W[r, 2p],
**                W[r, 2p+1] in one 32-bit lane), X bf16 (simd_act_prepare,
**                row stride even), one 32-bit pair broadcast per token
**
** The panel: for each column block of MM_KC_* columns and each 64-row band
** of the caller's row range, the band's weights are read once from their
** row-major storage (the mmap'd checkpoint), converted (bf16 / f16 -> fp32
** for the fp32 kernel; Q8 -> code * scale in fp32 -> fp32, or -> bf16 for
** the bf16 kernel; Q4 -> code * d + m likewise) and transposed 16 x 16 into the panel (32 KiB, stays in
** L1) that every token tile of the call then reuses: conversion costs once
** per weight per call, not per token.  The column block of X (T x MM_KC_*,
** 128 KiB at T = 256) stays in L2 across all bands of a row group, and the
** group's rows of Y (<= MM_Y_BYTES) stay in L2 across the column blocks.
** While a band's tiles run, the next band's weights are prefetched a slice
** per tile.
**
** Numerics are those of the formats (simd.h): fp32 products with fp32 sums;
** bf16 dot products with fp32 accumulation of bf16 x bf16 products; Q8
** dequantized to bf16(code * scale) for the bf16 kernel, code * scale
** (fp32) for the fp32 one.  Only the summation order differs from
** simd.c's portable kernels.
*/
#if defined(__x86_64__)

#include <immintrin.h>
#include <string.h>

#include "simd_impl.h"
#include "simd_q4_avx2.h"

#define AI static inline __attribute__((always_inline))

/* Register tile: MM_MR tokens x MM_NV vectors of 16 rows = 24 accumulators
** + 4 W vectors + 1 broadcast of 32 zmm.  Per step 4 loads and 6 broadcasts
** feed 24 multiply-adds (measured a few % above 8 x 3, which needs 11), and
** 64-row bands divide the model's row counts (2048, 8192) evenly. */
#ifndef MM_MR
#define MM_MR 6
#endif
#ifndef MM_NV
#define MM_NV 4
#endif
#define MM_NR (16 * MM_NV)
_Static_assert(MM_MR <= 8 && MM_NV <= 4 && MM_MR * MM_NV <= 24, "tile fits 32 zmm");
#if !defined(MM_EXPERIMENT)
_Static_assert(MM_NR == SIMD_MM_ROW_BLOCK, "simd_split_matmul splits on our bands");
#endif
/* Columns of W per panel (multiples of 32 so a Q8 scale block never
** straddles a chunk): 64 rows x KC fits L1 (32 KiB of 48) in both kernels. */
#ifndef MM_KC_F32
#define MM_KC_F32 128
#endif
#ifndef MM_KC_BF16
#define MM_KC_BF16 256
#endif
/* Bytes of Y kept in L2 while the column blocks pass (a row group). */
#ifndef MM_Y_BYTES
#define MM_Y_BYTES (384 << 10)
#endif
_Static_assert(MM_KC_F32 % 32 == 0 && MM_KC_BF16 % 32 == 0, "KC: whole Q8 blocks");
_Static_assert(MM_KC_F32 / 32 <= SIMD_Q4_STAGE && MM_KC_BF16 / 32 <= SIMD_Q4_STAGE,
               "a Q4 panel row stages its blocks at once");

/* How a band of W becomes a panel: source format -> panel format. */
enum mm_pack {
    PK_F32_F32,   /* fp32 -> fp32                          */
    PK_BF16_F32,  /* bf16 widened -> fp32 (exact)          */
    PK_F16_F32,   /* f16 widened -> fp32                   */
    PK_Q8_F32,    /* code * scale in fp32 -> fp32 (exact)  */
    PK_Q4_F32,    /* code * d + m in fp32 -> fp32 (exact)  */
    PK_BF16_BF16, /* bf16 pairs as they are                */
    PK_Q8_BF16,   /* bf16(code * scale) pairs              */
    PK_Q4_BF16    /* bf16(code * d + m) pairs (core/kernels/simd_q4.c) */
};

typedef int32_t __attribute__((may_alias)) mm_i32a;

AI int
pk_bf16(enum mm_pack pk)
{
    return pk == PK_BF16_BF16 || pk == PK_Q8_BF16 || pk == PK_Q4_BF16;
}

AI int64_t
pk_kc(enum mm_pack pk)
{
    return pk_bf16(pk) ? MM_KC_BF16 : MM_KC_F32;
}

/* Bytes per element of the source format. */
AI int64_t
pk_esize(enum mm_pack pk)
{
    switch (pk) {
    case PK_F32_F32:
        return 4;
    case PK_BF16_F32:
    case PK_F16_F32:
    case PK_BF16_BF16:
        return 2;
    case PK_Q8_F32:
    case PK_Q8_BF16:
    case PK_Q4_F32:    /* (half a byte: mm_prefetch_rows) */
    case PK_Q4_BF16:
        return 1;
    }
    return 1;
}

AI __mmask16
mm_mask16(int64_t left)
{
    return left >= 16 ? (__mmask16)0xffff : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);
}

AI __mmask32
mm_mask32(int64_t left)
{
    return left >= 32 ? (__mmask32)0xffffffffu
                      : left <= 0 ? 0 : (__mmask32)((1u << left) - 1);
}

/* ---- packing ---------------------------------------------------------------- */

/* In place: v[j] lane i <- v[i] lane j (16 x 16 of 32-bit elements). */
AI void
tr16(__m512i v[16])
{
    __m512i a[16], b[16];

#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        a[2 * i] = _mm512_unpacklo_epi32(v[2 * i], v[2 * i + 1]);
        a[2 * i + 1] = _mm512_unpackhi_epi32(v[2 * i], v[2 * i + 1]);
    }
    /* b[4g + j], 128-bit lane L: column 4L + j of rows 4g..4g+3 */
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) {
        b[4 * g + 0] = _mm512_unpacklo_epi64(a[4 * g], a[4 * g + 2]);
        b[4 * g + 1] = _mm512_unpackhi_epi64(a[4 * g], a[4 * g + 2]);
        b[4 * g + 2] = _mm512_unpacklo_epi64(a[4 * g + 1], a[4 * g + 3]);
        b[4 * g + 3] = _mm512_unpackhi_epi64(a[4 * g + 1], a[4 * g + 3]);
    }
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
        __m512i t0 = _mm512_shuffle_i32x4(b[j], b[4 + j], _MM_SHUFFLE(1, 0, 1, 0));
        __m512i t1 = _mm512_shuffle_i32x4(b[j], b[4 + j], _MM_SHUFFLE(3, 2, 3, 2));
        __m512i t2 = _mm512_shuffle_i32x4(b[8 + j], b[12 + j], _MM_SHUFFLE(1, 0, 1, 0));
        __m512i t3 = _mm512_shuffle_i32x4(b[8 + j], b[12 + j], _MM_SHUFFLE(3, 2, 3, 2));
        v[0 + j] = _mm512_shuffle_i32x4(t0, t2, _MM_SHUFFLE(2, 0, 2, 0));
        v[4 + j] = _mm512_shuffle_i32x4(t0, t2, _MM_SHUFFLE(3, 1, 3, 1));
        v[8 + j] = _mm512_shuffle_i32x4(t1, t3, _MM_SHUFFLE(2, 0, 2, 0));
        v[12 + j] = _mm512_shuffle_i32x4(t1, t3, _MM_SHUFFLE(3, 1, 3, 1));
    }
}

/*
** One chunk of row R (columns [c, c + 16) for fp32 panels, [c, c + 32) as
** 16 pairs for bf16 panels; LEFT = valid columns from c, may exceed the
** chunk), as 16 32-bit lanes; zero beyond LEFT.  C is a multiple of 16
** (32 for pairs) measured from column 0 of the row.
*/
AI __m512i
pk_chunk(enum mm_pack pk, const simd_matrix *w, int64_t r, int64_t c, int64_t left)
{
    const int64_t n = w->cols;
    const size_t off = (size_t)r * (size_t)n + (size_t)c;

    switch (pk) {
    case PK_F32_F32:
        return _mm512_maskz_loadu_epi32(mm_mask16(left), (const float *)w->data + off);
    case PK_BF16_F32:
        return _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(
                                     mm_mask16(left), (const uint16_t *)w->data + off)),
                                 16);
    case PK_F16_F32:
        return _mm512_castps_si512(_mm512_cvtph_ps(
            _mm256_maskz_loadu_epi16(mm_mask16(left), (const uint16_t *)w->data + off)));
    case PK_Q8_F32: {
        __m512 s = _mm512_set1_ps(w->scales[r * simd_q8_nblocks(n) + c / SIMD_Q8_BLOCK]);
        __m512 q = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
            _mm_maskz_loadu_epi8(mm_mask16(left), (const int8_t *)w->data + off)));
        return _mm512_castps_si512(_mm512_mul_ps(q, s));
    }
    case PK_BF16_BF16:
        return _mm512_maskz_loadu_epi16(mm_mask32(left), (const uint16_t *)w->data + off);
    case PK_Q8_BF16: {
        __m512 s = _mm512_set1_ps(w->scales[r * simd_q8_nblocks(n) + c / SIMD_Q8_BLOCK]);
        __m256i q = _mm256_maskz_loadu_epi8(mm_mask32(left), (const int8_t *)w->data + off);
        __m512 lo = _mm512_mul_ps(
            _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm256_castsi256_si128(q))), s);
        __m512 hi = _mm512_mul_ps(
            _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm256_extracti128_si256(q, 1))), s);
        /* round to nearest even, like the earlier 4-row panel did (only
        ** subnormal products, |q * s| < 1.2e-38, are flushed) */
        return (__m512i)_mm512_cvtne2ps_pbh(hi, lo);
    }
    case PK_Q4_F32:   /* mm_pack_band_q4 */
    case PK_Q4_BF16:
        break;
    }
    return _mm512_setzero_si512();
}

/* mm_pack_band for Q4: each 16 rows' blocks staged first (simd_q4_avx2.h:
** a group's interleaved codes transposed back by two vpermt2d, d and m as
** floats), then the same chunks and transposes. */
AI void
mm_pack_band_q4(enum mm_pack pk, const simd_matrix *w, int64_t r, int nr, int64_t k0,
                int64_t kn, int32_t *panel)
{
    const int bf = pk == PK_Q4_BF16;
    const int64_t step = bf ? 32 : 16; /* columns per chunk */
    const int nbk = (int)((kn + SIMD_Q4_BLOCK - 1) / SIMD_Q4_BLOCK);
    simd_q4_staged st[16];

    for (int v = 0; v * 16 < nr; v++) {
        int rows = nr - 16 * v < 16 ? nr - 16 * v : 16;
        for (int l = 0; l < rows; l++)
            simd_q4_stage(w, r + 16 * v + l, k0 / SIMD_Q4_BLOCK, nbk, &st[l]);
        for (int64_t c = 0; c < kn; c += step) {
            __m512i t[16];
            int32_t *dst = panel + (c / (step / 16)) * MM_NR + 16 * v;
            const int i = (int)(c / SIMD_Q4_BLOCK), h = (int)(c % SIMD_Q4_BLOCK) / 16;
#pragma GCC unroll 16
            for (int l = 0; l < 16; l++)
                t[l] = l >= rows ? _mm512_setzero_si512()
                       : bf      ? simd_q4_avx512_chunk(&st[l], i, kn - c)
                                 : _mm512_castps_si512(simd_q4_avx512_half(&st[l], i, h, kn - c));
            tr16(t);
#pragma GCC unroll 16
            for (int s = 0; s < 16; s++)
                _mm512_store_si512((__m512i *)(dst + s * MM_NR), t[s]);
        }
    }
}

/*
** Panel of rows [r, r + nr) (nr <= MM_NR), columns [k0, k0 + kn): lane
** 16 v + l of panel row s holds row r + 16 v + l, column k0 + s (fp32) or
** pair k0 / 2 + s (bf16).  Rows past nr and columns past kn are zero up to
** the chunk (16 lanes, 16 panel rows) they fall in.
*/
AI void
mm_pack_band(enum mm_pack pk, const simd_matrix *w, int64_t r, int nr, int64_t k0,
             int64_t kn, int32_t *panel)
{
    const int64_t step = pk_bf16(pk) ? 32 : 16; /* columns per chunk */

    if (pk == PK_Q4_F32 || pk == PK_Q4_BF16) {
        mm_pack_band_q4(pk, w, r, nr, k0, kn, panel);
        return;
    }
    for (int v = 0; v * 16 < nr; v++) {
        int rows = nr - 16 * v < 16 ? nr - 16 * v : 16;
        for (int64_t c = 0; c < kn; c += step) {
            __m512i t[16];
            int32_t *dst = panel + (c / (step / 16)) * MM_NR + 16 * v;
#pragma GCC unroll 16
            for (int l = 0; l < 16; l++)
                t[l] = l < rows ? pk_chunk(pk, w, r + 16 * v + l, k0 + c, kn - c)
                                : _mm512_setzero_si512();
            tr16(t);
#pragma GCC unroll 16
            for (int s = 0; s < 16; s++)
                _mm512_store_si512((__m512i *)(dst + s * MM_NR), t[s]);
        }
    }
}

/* ---- register tiles ------------------------------------------------------------ */

/* Y[i*ldy + 16v + l] (+)= acc[i][v] lane l; lanes of the last vector past
** MLAST untouched. */
AI void
mm_put(int MR, int NV, __m512 acc[MM_MR][MM_NV], float *y, int64_t ldy, int first,
       __mmask16 mlast)
{
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
            float *p = y + i * ldy + 16 * v;
            __mmask16 m = v == NV - 1 ? mlast : (__mmask16)0xffff;
            __m512 s = acc[i][v];
            if (!first)
                s = _mm512_add_ps(s, _mm512_maskz_loadu_ps(m, p));
            _mm512_mask_storeu_ps(p, m, s);
        }
}

/* fp32: Y[t0 + i, band] (+)= sum_k panel[k] * X[t0 + i, k0 + k]; X at
** (t0, k0).  One pointer per token row keeps the loop free of spills. */
AI void
mm_tile_f32(int MR, int NV, const float *pan, const float *x, int64_t ldx, int64_t kn,
            float *y, int64_t ldy, int first, __mmask16 mlast)
{
    __m512 acc[MM_MR][MM_NV];
    const float *xr[MM_MR];
    const float *pend = pan + kn * MM_NR;

#pragma GCC unroll 8
    for (int i = 0; i < MR; i++) {
        xr[i] = x + i * ldx;
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            acc[i][v] = _mm512_setzero_ps();
    }
    for (; pan < pend; pan += MM_NR) {
        __m512 b[MM_NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            b[v] = _mm512_load_ps(pan + 16 * v);
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) {
            __m512 xb = _mm512_set1_ps(*xr[i]++);
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++)
                acc[i][v] = _mm512_fmadd_ps(b[v], xb, acc[i][v]);
        }
    }
    mm_put(MR, NV, acc, y, ldy, first, mlast);
}

/* bf16 pairs: the same with vdpbf16ps; X bf16 at (t0, k0), ldx even. */
AI void
mm_tile_bf16(int MR, int NV, const int32_t *pan, const uint16_t *x, int64_t ldx,
             int64_t kn, float *y, int64_t ldy, int first, __mmask16 mlast)
{
    __m512 acc[MM_MR][MM_NV];
    const mm_i32a *xr[MM_MR];
    const int32_t *pend = pan + (kn + 1) / 2 * MM_NR;

#pragma GCC unroll 8
    for (int i = 0; i < MR; i++) {
        xr[i] = (const mm_i32a *)(x + i * ldx);
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            acc[i][v] = _mm512_setzero_ps();
    }
    for (; pan < pend; pan += MM_NR) {
        __m512i b[MM_NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            b[v] = _mm512_load_si512((const __m512i *)(pan + 16 * v));
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) {
            __m512i xb = _mm512_set1_epi32(*xr[i]++);
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++)
                acc[i][v] = _mm512_dpbf16_ps(acc[i][v], (__m512bh)b[v], (__m512bh)xb);
        }
    }
    mm_put(MR, NV, acc, y, ldy, first, mlast);
}

AI void
mm_tile(int bf, int MR, int NV, const int32_t *pan, const simd_act *a, int64_t t,
        int64_t k0, int64_t kn, float *y, int64_t ldy, int first, __mmask16 mlast)
{
    if (bf)
        mm_tile_bf16(MR, NV, pan, (const uint16_t *)a->xq + t * a->ldq + k0, a->ldq, kn,
                     y + t * ldy, ldy, first, mlast);
    else
        mm_tile_f32(MR, NV, (const float *)pan, a->x + t * a->cols + k0, a->cols, kn,
                    y + t * ldy, ldy, first, mlast);
}

/* Tokens [t, t + mr) of one band, mr <= MM_MR, as tiles of MM_MR or 4, 2, 1. */
AI void
mm_tiles(int bf, int NV, const int32_t *pan, const simd_act *a, int64_t t, int mr,
         int64_t k0, int64_t kn, float *y, int64_t ldy, int first, __mmask16 mlast)
{
    if (mr == MM_MR) {
        mm_tile(bf, MM_MR, NV, pan, a, t, k0, kn, y, ldy, first, mlast);
        return;
    }
    if (mr & 4) {
        mm_tile(bf, 4, NV, pan, a, t, k0, kn, y, ldy, first, mlast);
        t += 4;
    }
    if (mr & 2) {
        mm_tile(bf, 2, NV, pan, a, t, k0, kn, y, ldy, first, mlast);
        t += 2;
    }
    if (mr & 1)
        mm_tile(bf, 1, NV, pan, a, t, k0, kn, y, ldy, first, mlast);
}

/* ---- driver ------------------------------------------------------------------------ */

/* Prefetch rows [i0, i1) of the band at (r, k0) (bytes kn * esize each). */
AI void
mm_prefetch_rows(enum mm_pack pk, const simd_matrix *w, int64_t r, int64_t i0, int64_t i1,
                 int64_t k0, int64_t kn)
{
    const int q4 = pk == PK_Q4_BF16 || pk == PK_Q4_F32;
    const int64_t es = pk_esize(pk), nb = simd_q4_nblocks(w->cols);
    int64_t bytes = kn * es;

    for (int64_t i = i0; i < i1; i++) {
        /* Q4: the groups of codes and block words that hold the band */
        const char *p = q4 ? (const char *)simd_q4_span(simd_q4_row(w, r + i), nb, k0 / SIMD_Q4_BLOCK,
                                                        (k0 + kn + SIMD_Q4_BLOCK - 1) / SIMD_Q4_BLOCK,
                                                        &bytes)
                           : (const char *)w->data + ((size_t)(r + i) * (size_t)w->cols + (size_t)k0) * (size_t)es;
        for (int64_t b = 0; b < bytes; b += 64)
            _mm_prefetch(p + b, _MM_HINT_T0);
        _mm_prefetch(p + bytes - 1, _MM_HINT_T0);
    }
}

AI void
mm_run(enum mm_pack pk, const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
       int64_t r0, int64_t r1)
{
    const int bf = pk_bf16(pk);
    const int64_t n = w->cols, T = a->T, kc = pk_kc(pk);
    const int64_t ntiles = (T + MM_MR - 1) / MM_MR;
    /* rows per group: the group's Y [T, rg] stays in L2 across column blocks */
    const int64_t rg = MM_NR * (MM_Y_BYTES / (T * MM_NR * 4) > 1
                                    ? MM_Y_BYTES / (T * MM_NR * 4) : 1);
    /* fp32 [kc][64] or bf16 pairs [kc / 2][64]: 32 KiB either way */
    int32_t panel[(MM_KC_F32 > MM_KC_BF16 / 2 ? MM_KC_F32 : MM_KC_BF16 / 2) * MM_NR]
        __attribute__((aligned(64)));

    for (int64_t g0 = r0; g0 < r1; g0 += rg) {
        const int64_t g1 = r1 - g0 < rg ? r1 : g0 + rg;
        for (int64_t k0 = 0; k0 < n; k0 += kc) {
            const int64_t kn = n - k0 < kc ? n - k0 : kc;
            const int first = k0 == 0;

            for (int64_t r = g0; r < g1; r += MM_NR) {
                const int nr = g1 - r < MM_NR ? (int)(g1 - r) : MM_NR;
                const int nv = (nr + 15) / 16;
                const __mmask16 mlast = mm_mask16(nr - 16 * (nv - 1));
                /* the band after this one, prefetched while this one runs */
                int64_t pr = r + MM_NR, pk0 = k0, pnr = 0;
                if (pr >= g1) {
                    pr = g0;
                    pk0 = k0 + kc;
                    if (pk0 >= n) {
                        pr = g1;
                        pk0 = 0;
                    }
                }
                if (pr < r1)
                    pnr = r1 - pr < MM_NR ? r1 - pr : MM_NR;

                mm_pack_band(pk, w, r, nr, k0, kn, panel);
                for (int64_t ti = 0; ti < ntiles; ti++) {
                    const int64_t t = ti * MM_MR;
                    const int mr = T - t < MM_MR ? (int)(T - t) : MM_MR;
                    if (pnr > 0)
                        mm_prefetch_rows(pk, w, pr, pnr * ti / ntiles,
                                         pnr * (ti + 1) / ntiles, pk0,
                                         n - pk0 < kc ? n - pk0 : kc);
                    switch (nv) {
                    case 1:
                        mm_tiles(bf, 1, panel, a, t, mr, k0, kn, y + r, ldy, first, mlast);
                        break;
                    case 2:
                        mm_tiles(bf, 2, panel, a, t, mr, k0, kn, y + r, ldy, first, mlast);
                        break;
                    case 3:
                        mm_tiles(bf, 3, panel, a, t, mr, k0, kn, y + r, ldy, first, mlast);
                        break;
                    default:
                        mm_tiles(bf, MM_NV, panel, a, t, mr, k0, kn, y + r, ldy, first,
                                 mlast);
                        break;
                    }
                }
            }
        }
    }
}

void
simd_mm_avx512_f32(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
                   int64_t r0, int64_t r1)
{
    mm_run(PK_F32_F32, w, a, y, ldy, r0, r1);
}

void
simd_mm_avx512_f16(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
                   int64_t r0, int64_t r1)
{
    mm_run(PK_F16_F32, w, a, y, ldy, r0, r1);
}

void
simd_mm_avx512_bf16_exact(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
                          int64_t r0, int64_t r1)
{
    mm_run(PK_BF16_F32, w, a, y, ldy, r0, r1);
}

void
simd_mm_avx512_q8_exact(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
                        int64_t r0, int64_t r1)
{
    mm_run(PK_Q8_F32, w, a, y, ldy, r0, r1);
}

void
simd_mm_avx512_bf16(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
                    int64_t r0, int64_t r1)
{
    mm_run(PK_BF16_BF16, w, a, y, ldy, r0, r1);
}

void
simd_mm_avx512_q8(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
                  int64_t r0, int64_t r1)
{
    mm_run(PK_Q8_BF16, w, a, y, ldy, r0, r1);
}

void
simd_mm_avx512_q4(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
                  int64_t r0, int64_t r1)
{
    mm_run(PK_Q4_BF16, w, a, y, ldy, r0, r1);
}

void
simd_mm_avx512_q4_exact(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
                        int64_t r0, int64_t r1)
{
    mm_run(PK_Q4_F32, w, a, y, ldy, r0, r1);
}

#endif /* __x86_64__ */
