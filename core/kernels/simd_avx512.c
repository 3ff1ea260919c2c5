/*
** simd_avx512.c -- AVX-512 kernels (F/BW/VL/DQ + BF16 + VNNI), compiled with
** the Makefile's AVX512_FLAGS and entered only through the tables below
** after simd_kernels_get() checked the CPU.
**
** Matvec (decode) is bound by weight bytes: each step streams NR_MV rows
** at once (NR_MV_PF for bf16/f16/int8, each from its own run of the rows:
** NR_MV_PF long sequential streams, each prefetched MV_PF_ROW bytes ahead
** of itself, so that the slower-per-byte 16- and 8-bit kernels still keep
** enough cache misses in flight to reach DRAM bandwidth), widening
** bf16/f16/int8 to fp32 in registers (activations stay fp32; int8: int16).
**
** Matmul (prefill): the tables use core/kernels/simd_mm_avx512.c's outer-product
** kernels (6 tokens x 64 rows register tiles on a per-call packed W panel;
** 1.3-1.5x faster).  The matmuls below are the earlier design, kept for
** the VNNI comparison table and for bench_kernels (simd_avx512_dot_matmul):
** the dot-product form Y[t, r] = W[r, :] . X[t, :]
** with a 4 rows x 4 tokens register tile (16 zmm accumulators) and cache
** blocking: TB tokens x KB columns of X (<= 256 KiB, L2) are reused by every
** row tile; a tile's 4 W row slices (<= 16 KiB, L1) are reused by TB / 4
** token tiles.  Partial sums of each KB slice are added into Y, so Y is
** written ceil(cols / KB) times.  The 16 accumulators of a tile are
** reduced with one transpose-and-add tree (hsum16).
**
**   f32, f16, bf16 (exact)   vfmadd231ps on widened weights
**   bf16 (default)           vdpbf16ps, activations rounded to bf16 once
**                            (simd_act_prepare)
**   Q8, Q4 (exact)           codes widened to fp32, scaled (Q4: + offset) per
**                            block into the fp32 panel, FMA
**   Q8 (default)             vpdpbusd: activations as u8 = code + 128, so
**                            sum (x + 128) w - 128 sum w = sum x w; the
**                            correction -128 sum w is computed per W slice
**                            by a second vpdpbusd; each 32-block is scaled
**                            by s_w * s_x in fp32.
** The Q8 matvec (both tables) takes x as int16 per 32-block (simd_impl.h's
** simd_q8_x) and sums with vpdpwssd, exact in int32.
*/
#if defined(__x86_64__)

#include <immintrin.h>
#include <string.h>

#include "simd_impl.h"

#define AI static inline __attribute__((always_inline))

/* Rows streamed at once by matvec: 8 rows x 2 chains = 16 accumulators
** (measured ~10% more DRAM bandwidth than 4 rows on this machine class). */
#ifndef NR_MV
#define NR_MV 8
#endif
/* Rows streamed at once by the prefetched (bf16, f16, Q8) matvecs: 4 rows
** (4 + 4 streams with the prefetch) reach more DRAM bandwidth than 8
** (measured, 2 threads, [8192, 2048]: Q8 median ~36 vs ~31 GB/s, bf16 ~38
** vs ~35; without the prefetch 30 and 21).  These kernels spend more
** instructions per byte than fp32, so their out-of-order window holds too
** few cache misses to reach DRAM bandwidth on their own: each row's stream
** is prefetched MV_PF_ROW bytes ahead (simd_impl.h). */
#ifndef NR_MV_PF
#define NR_MV_PF 4
#endif
_Static_assert(NR_MV_PF <= NR_MV, "the row block must fit the NR_MV arrays");

/* Matmul cache block: tokens x columns (elements) of X reused from L2. */
#ifndef TB
#define TB 64
#endif
#ifndef KB
#define KB 1024
#endif

enum fmt { FMT_F32, FMT_BF16, FMT_F16, FMT_Q8 };

static const size_t fmt_size[] = {4, 2, 2, 1};

/* ---- loads: 16 weights at element I of row P, widened to fp32 ---------- */

AI __m512
ldw(enum fmt f, const void *p, int64_t i)
{
    switch (f) {
    case FMT_F32:
        return _mm512_loadu_ps((const float *)p + i);
    case FMT_BF16:
        return _mm512_castsi512_ps(_mm512_slli_epi32(
            _mm512_cvtepu16_epi32(
                _mm256_loadu_si256((const __m256i *)((const uint16_t *)p + i))),
            16));
    case FMT_F16:
        return _mm512_cvtph_ps(
            _mm256_loadu_si256((const __m256i *)((const uint16_t *)p + i)));
    case FMT_Q8:
        return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
            _mm_loadu_si128((const __m128i *)((const int8_t *)p + i))));
    }
    return _mm512_setzero_ps();
}

/* Same with lanes outside M zero (and not read). */
AI __m512
ldw_m(enum fmt f, const void *p, int64_t i, __mmask16 m)
{
    switch (f) {
    case FMT_F32:
        return _mm512_maskz_loadu_ps(m, (const float *)p + i);
    case FMT_BF16:
        return _mm512_castsi512_ps(_mm512_slli_epi32(
            _mm512_cvtepu16_epi32(
                _mm256_maskz_loadu_epi16(m, (const uint16_t *)p + i)),
            16));
    case FMT_F16:
        return _mm512_cvtph_ps(
            _mm256_maskz_loadu_epi16(m, (const uint16_t *)p + i));
    case FMT_Q8:
        return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
            _mm_maskz_loadu_epi8(m, (const int8_t *)p + i)));
    }
    return _mm512_setzero_ps();
}

AI __mmask16
mask16(int64_t left)
{
    return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
}

AI const char *
row_ptr(const simd_matrix *w, int64_t r)
{
    return (const char *)w->data + (size_t)r * (size_t)w->cols * fmt_size[w->dtype];
}

/* ---- matvec --------------------------------------------------------------- */

/* y[r + i RS], i < NR, for f32 / bf16 / f16 rows; PF: prefetch each row's
** stream ahead (simd_mv_prefetch_runs). */
AI void
mv_rows_wide(enum fmt f, int NR, const simd_matrix *w, const float *x,
             float *y, int64_t r, int64_t rs, int pf)
{
    const int64_t n = w->cols, rb = n * (int64_t)fmt_size[f];
    const char *p[NR_MV];
    __m512 a0[NR_MV], a1[NR_MV];
    int64_t c = 0;

#pragma GCC unroll 8
    for (int i = 0; i < NR; i++) {
        p[i] = row_ptr(w, r + i * rs);
        a0[i] = _mm512_setzero_ps();
        a1[i] = _mm512_setzero_ps();
    }
    if (f == FMT_BF16) {
        /* One 64-byte load holds 32 bf16 = 16 (even, odd) pairs: the even
        ** elements widen with a shift, the odd ones with a mask, against x
        ** split into even / odd lanes once per step for all NR rows. */
        const __m512i ie = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16,
                                            14, 12, 10, 8, 6, 4, 2, 0);
        const __m512i io = _mm512_add_epi32(ie, _mm512_set1_epi32(1));
        const __m512i hi = _mm512_set1_epi32((int)0xffff0000u);
        for (; c + 32 <= n; c += 32) {
            __m512 x0 = _mm512_loadu_ps(x + c), x1 = _mm512_loadu_ps(x + c + 16);
            __m512 xe = _mm512_permutex2var_ps(x0, ie, x1);
            __m512 xo = _mm512_permutex2var_ps(x0, io, x1);

            if (pf)
                simd_mv_prefetch_runs(p, NR, c * 2, MV_PF_ROW, rb, rb);
#pragma GCC unroll 8
            for (int i = 0; i < NR; i++) {
                __m512i v = _mm512_loadu_si512((const uint16_t *)p[i] + c);
                a0[i] = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_slli_epi32(v, 16)),
                                        xe, a0[i]);
                a1[i] = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_and_si512(v, hi)),
                                        xo, a1[i]);
            }
        }
    }
    for (; c + 32 <= n; c += 32) {
        __m512 x0 = _mm512_loadu_ps(x + c), x1 = _mm512_loadu_ps(x + c + 16);

        if (pf)   /* (f16: 64 bytes a step) */
            simd_mv_prefetch_runs(p, NR, c * 2, MV_PF_ROW, rb, rb);
#pragma GCC unroll 8
        for (int i = 0; i < NR; i++) {
            a0[i] = _mm512_fmadd_ps(ldw(f, p[i], c), x0, a0[i]);
            a1[i] = _mm512_fmadd_ps(ldw(f, p[i], c + 16), x1, a1[i]);
        }
    }
    for (; c < n; c += 16) {
        __mmask16 m = mask16(n - c);
        __m512 xv = _mm512_maskz_loadu_ps(m, x + c);
#pragma GCC unroll 8
        for (int i = 0; i < NR; i++)
            a0[i] = _mm512_fmadd_ps(ldw_m(f, p[i], c, m), xv, a0[i]);
    }
#pragma GCC unroll 8
    for (int i = 0; i < NR; i++)
        y[r + i * rs] = _mm512_reduce_add_ps(_mm512_add_ps(a0[i], a1[i]));
}

/*
** y[r + i RS], i < NR, (+)= NBLK blocks from block B0 of Q8 rows against the int16
** activation codes Q (simd_impl.h): per block one 32-code vpmovsxbw load
** (masked for a row's last, partial block), one vpdpwssd against the
** block's codes (16 exact int32 sums), one vcvtdq2ps and one FMA by
** s * dx (the products of 16 blocks at once) -- 3 arithmetic uops per 32
** weights where widening every code to fp32 took 5 and 2 shuffles.  PF:
** each row's codes prefetched ahead as mv_rows_wide does, its scales (a
** stream of their own) as far ahead in blocks.
*/
AI void
mv_rows_q8x(int NR, const simd_matrix *w, const simd_q8_x *q, int64_t nblk, float *y,
            int64_t r, int64_t rs, int64_t b0, int add, int pf)
{
    const int64_t n = w->cols, nb = simd_q8_nblocks(n);
    const int64_t len = (b0 + nblk) * SIMD_Q8_BLOCK < n ? nblk * SIMD_Q8_BLOCK
                                                       : n - b0 * SIMD_Q8_BLOCK;
    const char *p[NR_MV], *pc[NR_MV], *ps[NR_MV];
    const float *s[NR_MV];
    __m512 acc[NR_MV];
    int64_t k = 0;

#pragma GCC unroll 8
    for (int i = 0; i < NR; i++) {
        p[i] = row_ptr(w, r + i * rs);
        pc[i] = p[i] + b0 * SIMD_Q8_BLOCK;
        s[i] = w->scales + (r + i * rs) * nb + b0;
        ps[i] = (const char *)s[i];
        acc[i] = _mm512_setzero_ps();
    }
    while (k < nblk) {
        /* up to 16 blocks: their s * dx for every row in one multiply */
        const int64_t kn = nblk - k < 16 ? nblk - k : 16;
        const __mmask16 mk = mask16(kn);
        const __m512 xd = _mm512_maskz_loadu_ps(mk, q->xd + k);
        float dd[NR_MV][16] __attribute__((aligned(64)));

#pragma GCC unroll 8
        for (int i = 0; i < NR; i++)
            _mm512_store_ps(dd[i], _mm512_mul_ps(_mm512_maskz_loadu_ps(mk, s[i] + k), xd));
        for (int64_t j = 0; j < kn; j++, k++) {
            const int64_t c = (b0 + k) * SIMD_Q8_BLOCK;
            const __m512i xv = _mm512_load_si512((const void *)(q->xq + k * 32));
            const __mmask32 mw = n - c >= 32 ? (__mmask32)0xffffffffu
                                             : (__mmask32)((1u << (n - c)) - 1);

            if (pf && (k & 1) == 0)   /* 64 bytes of codes, 64 of scales per 16 blocks */
                simd_mv_prefetch_runs(pc, NR, k * SIMD_Q8_BLOCK, MV_PF_ROW, len, n);
            if (pf && (k & 15) == 0)
                simd_mv_prefetch_runs(ps, NR, k * 4, MV_PF_ROW / SIMD_Q8_BLOCK * 4, nblk * 4,
                                      nb * 4);
#pragma GCC unroll 8
            for (int i = 0; i < NR; i++) {
                __m512i wv = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(mw, p[i] + c));
                __m512i si = _mm512_dpwssd_epi32(_mm512_setzero_si512(), wv, xv);
                acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(si), _mm512_set1_ps(dd[i][j]),
                                         acc[i]);
            }
        }
    }
#pragma GCC unroll 8
    for (int i = 0; i < NR; i++) {
        float v = _mm512_reduce_add_ps(acc[i]);
        y[r + i * rs] = add ? y[r + i * rs] + v : v;
    }
}

/* The rows of a matvec (Q8: the Q pass of NBLK blocks from B0, X unused;
** the other formats read X, whole rows).  bf16, f16 and Q8: NR_MV_PF runs
** of the rows, each row of a step from its own run (a stream prefetched
** ahead of itself, as simd_avx2.c's), then the rest one at a time; f32
** reads as fast without help: NR_MV adjacent rows a step. */
AI void
mv_drive(enum fmt f, const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1,
         const simd_q8_x *q, int64_t nblk, int64_t b0, int add)
{
    const int64_t run = f == FMT_F32 ? 0 : (r1 - r0) / NR_MV_PF;
    int64_t r;

    /* (NR a constant at each call, for the unrolled row loops) */
    for (r = r0; r < r0 + run; r++) {
        if (f == FMT_Q8)
            mv_rows_q8x(NR_MV_PF, w, q, nblk, y, r, run, b0, add, MV_PF_ROW > 0);
        else
            mv_rows_wide(f, NR_MV_PF, w, x, y, r, run, MV_PF_ROW > 0);
    }
    r = r0 + NR_MV_PF * run;
    if (f == FMT_F32)
        for (; r + NR_MV <= r1; r += NR_MV)
            mv_rows_wide(f, NR_MV, w, x, y, r, 1, 0);
    for (; r < r1; r++) {
        if (f == FMT_Q8)
            mv_rows_q8x(1, w, q, nblk, y, r, 1, b0, add, 0);
        else
            mv_rows_wide(f, 1, w, x, y, r, 1, 0);
    }
}

static void
mv_f32(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)
{
    mv_drive(FMT_F32, w, x, y, r0, r1, NULL, 0, 0, 0);
}

static void
mv_bf16(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)
{
    mv_drive(FMT_BF16, w, x, y, r0, r1, NULL, 0, 0, 0);
}

static void
mv_f16(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)
{
    mv_drive(FMT_F16, w, x, y, r0, r1, NULL, 0, 0, 0);
}

static void
q8x_rows(const simd_matrix *w, const simd_q8_x *q, int64_t nblk, float *y, int64_t r0,
         int64_t r1, int64_t b0, int add)
{
    mv_drive(FMT_Q8, w, NULL, y, r0, r1, q, nblk, b0, add);
}

static void
mv_q8(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)
{
    simd_q8x_matvec(w, x, y, r0, r1, simd_q8x_act_avx2, q8x_rows);
}

/* ---- matmul tiles ------------------------------------------------------- */

/*
** Sum each of 16 vectors: result lane 4*(k%4) + k/4 = sum(v[k]), i.e. with
** v[4i + j] = acc[row i][token j], quarter j holds rows 0..3 of token j.
*/
AI __m512
hsum16(const __m512 v[16])
{
    __m512 s1[8], s2[4], s3[2], lo, hi;

#pragma GCC unroll 8
    for (int p = 0; p < 8; p++) {
        lo = _mm512_shuffle_f32x4(v[2 * p], v[2 * p + 1], _MM_SHUFFLE(1, 0, 1, 0));
        hi = _mm512_shuffle_f32x4(v[2 * p], v[2 * p + 1], _MM_SHUFFLE(3, 2, 3, 2));
        s1[p] = _mm512_add_ps(lo, hi);
    }
#pragma GCC unroll 4
    for (int p = 0; p < 4; p++) {
        lo = _mm512_shuffle_f32x4(s1[2 * p], s1[2 * p + 1], _MM_SHUFFLE(2, 0, 2, 0));
        hi = _mm512_shuffle_f32x4(s1[2 * p], s1[2 * p + 1], _MM_SHUFFLE(3, 1, 3, 1));
        s2[p] = _mm512_add_ps(lo, hi);
    }
#pragma GCC unroll 2
    for (int p = 0; p < 2; p++) {
        lo = _mm512_shuffle_ps(s2[2 * p], s2[2 * p + 1], _MM_SHUFFLE(2, 0, 2, 0));
        hi = _mm512_shuffle_ps(s2[2 * p], s2[2 * p + 1], _MM_SHUFFLE(3, 1, 3, 1));
        s3[p] = _mm512_add_ps(lo, hi);
    }
    lo = _mm512_shuffle_ps(s3[0], s3[1], _MM_SHUFFLE(2, 0, 2, 0));
    hi = _mm512_shuffle_ps(s3[0], s3[1], _MM_SHUFFLE(3, 1, 3, 1));
    return _mm512_add_ps(lo, hi);
}

/* Y[j*ldy + i] (+)= sum(acc[i][j]) for the NR x NT tile at Y. */
AI void
tile_store(int NR, int NT, __m512 acc[4][4], float *y, int64_t ldy, int first)
{
    if (NR == 4 && NT == 4) {
        __m512 v[16], s;

#pragma GCC unroll 4
        for (int i = 0; i < 4; i++)
#pragma GCC unroll 4
            for (int j = 0; j < 4; j++)
                v[4 * i + j] = acc[i][j];
        s = hsum16(v);
        {
            __m128 q[4] = {_mm512_extractf32x4_ps(s, 0), _mm512_extractf32x4_ps(s, 1),
                           _mm512_extractf32x4_ps(s, 2), _mm512_extractf32x4_ps(s, 3)};
#pragma GCC unroll 4
            for (int j = 0; j < 4; j++) {
                float *yj = y + j * ldy;
                if (!first)
                    q[j] = _mm_add_ps(q[j], _mm_loadu_ps(yj));
                _mm_storeu_ps(yj, q[j]);
            }
        }
        return;
    }
    for (int i = 0; i < NR; i++)
        for (int j = 0; j < NT; j++) {
            float v = _mm512_reduce_add_ps(acc[i][j]);
            y[j * ldy + i] = first ? v : y[j * ldy + i] + v;
        }
}

/*
** fp32-FMA tile (f32 / f16 / bf16 widened, Q8 dequantized):
** Y[t0+j, r+i] (+)= W[r+i, k0:k0+kn] . X[t0+j, k0:k0+kn].
** X points at token t0 column 0; Y at token t0, row r.
*/
AI void
tile_fma(enum fmt f, int NR, int NT, const simd_matrix *w, int64_t r,
         const float *x, int64_t ldx, int64_t k0, int64_t kn, float *y,
         int64_t ldy, int first)
{
    const int64_t nb = simd_q8_nblocks(w->cols);
    const char *p[4];
    const float *s[4];
    __m512 acc[4][4];
    const int64_t kend = k0 + kn;
    int64_t c = k0;

#pragma GCC unroll 4
    for (int i = 0; i < NR; i++) {
        p[i] = row_ptr(w, r + i);
        s[i] = f == FMT_Q8 ? w->scales + (r + i) * nb : NULL;
#pragma GCC unroll 4
        for (int j = 0; j < NT; j++)
            acc[i][j] = _mm512_setzero_ps();
    }
    if (f == FMT_Q8) {
        /* k0 and KB are multiples of 32: c walks whole blocks. */
        for (; c < kend; c += 32) {
            __mmask16 m0 = mask16(kend - c);
            __mmask16 m1 = mask16(kend - c - 16 > 0 ? kend - c - 16 : 0);
            __m512 w0[4], w1[4];
#pragma GCC unroll 4
            for (int i = 0; i < NR; i++) {
                __m512 sc = _mm512_set1_ps(s[i][c / 32]);
                w0[i] = _mm512_mul_ps(ldw_m(f, p[i], c, m0), sc);
                w1[i] = _mm512_mul_ps(ldw_m(f, p[i], c + 16, m1), sc);
            }
#pragma GCC unroll 4
            for (int j = 0; j < NT; j++) {
                __m512 x0 = _mm512_maskz_loadu_ps(m0, x + j * ldx + c);
                __m512 x1 = _mm512_maskz_loadu_ps(m1, x + j * ldx + c + 16);
#pragma GCC unroll 4
                for (int i = 0; i < NR; i++) {
                    acc[i][j] = _mm512_fmadd_ps(w0[i], x0, acc[i][j]);
                    acc[i][j] = _mm512_fmadd_ps(w1[i], x1, acc[i][j]);
                }
            }
        }
    } else {
        for (; c + 16 <= kend; c += 16) {
            __m512 wv[4];
#pragma GCC unroll 4
            for (int i = 0; i < NR; i++)
                wv[i] = ldw(f, p[i], c);
#pragma GCC unroll 4
            for (int j = 0; j < NT; j++) {
                __m512 xv = _mm512_loadu_ps(x + j * ldx + c);
#pragma GCC unroll 4
                for (int i = 0; i < NR; i++)
                    acc[i][j] = _mm512_fmadd_ps(wv[i], xv, acc[i][j]);
            }
        }
        if (c < kend) {
            __mmask16 m = mask16(kend - c);
            __m512 wv[4];
#pragma GCC unroll 4
            for (int i = 0; i < NR; i++)
                wv[i] = ldw_m(f, p[i], c, m);
#pragma GCC unroll 4
            for (int j = 0; j < NT; j++) {
                __m512 xv = _mm512_maskz_loadu_ps(m, x + j * ldx + c);
#pragma GCC unroll 4
                for (int i = 0; i < NR; i++)
                    acc[i][j] = _mm512_fmadd_ps(wv[i], xv, acc[i][j]);
            }
        }
    }
    tile_store(NR, NT, acc, y, ldy, first);
}

AI __mmask32
mask32(int64_t left)
{
    return left >= 32 ? (__mmask32)0xffffffffu : (__mmask32)((1u << left) - 1);
}

/*
** vdpbf16ps tile: NR bf16 weight rows at WP (row stride LDW) against NT
** token rows of bf16 activations at XB (row stride LDX), KN columns; both
** pointers already at the first column of the slice.
*/
AI void
tile_bf16dp(int NR, int NT, const uint16_t *wp, int64_t ldw,
            const uint16_t *xb, int64_t ldx, int64_t kn, float *y,
            int64_t ldy, int first)
{
    __m512 acc[4][4];

#pragma GCC unroll 4
    for (int i = 0; i < NR; i++)
#pragma GCC unroll 4
        for (int j = 0; j < NT; j++)
            acc[i][j] = _mm512_setzero_ps();
    for (int64_t c = 0; c < kn; c += 32) {
        __mmask32 m = mask32(kn - c);
        __m512i wv[4];
#pragma GCC unroll 4
        for (int i = 0; i < NR; i++)
            wv[i] = _mm512_maskz_loadu_epi16(m, wp + i * ldw + c);
#pragma GCC unroll 4
        for (int j = 0; j < NT; j++) {
            __m512i xv = _mm512_maskz_loadu_epi16(m, xb + j * ldx + c);
#pragma GCC unroll 4
            for (int i = 0; i < NR; i++)
                acc[i][j] = _mm512_dpbf16_ps(acc[i][j], (__m512bh)wv[i],
                                             (__m512bh)xv);
        }
    }
    tile_store(NR, NT, acc, y, ldy, first);
}

/*
** VNNI tile: W int8 rows against X as u8 codes + 128 (XQ [.., ldx]) with
** scales XS [.., ldx / 32].  k0 and KB are multiples of 64.
*/
AI void
tile_q8vnni(int NR, int NT, const simd_matrix *w, int64_t r, const uint8_t *xq,
            const float *xs, int64_t ldx, int64_t k0, int64_t kn, float *y,
            int64_t ldy, int first)
{
    const int64_t nb = simd_q8_nblocks(w->cols), nbx = ldx / 32;
    const int8_t *p[4];
    const float *s[4];
    __m512 acc[4][4];
    const int64_t kend = k0 + kn;
    const __m512i idx = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1,
                                         0, 0, 0, 0, 0, 0, 0, 0);
    const __m512i b128 = _mm512_set1_epi8((char)0x80);
    int64_t c = k0;

#pragma GCC unroll 4
    for (int i = 0; i < NR; i++) {
        p[i] = (const int8_t *)w->data + (size_t)(r + i) * (size_t)w->cols;
        s[i] = w->scales + (r + i) * nb;
#pragma GCC unroll 4
        for (int j = 0; j < NT; j++)
            acc[i][j] = _mm512_setzero_ps();
    }
    for (; c < kend; c += 64) {
        int64_t left = kend - c;
        __mmask64 m = left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
        __mmask16 ms = left > 32 ? 0x3 : 0x1;
        __m512i wv[4], nc[4];
        __m512 sw[4];
#pragma GCC unroll 4
        for (int i = 0; i < NR; i++) {
            wv[i] = _mm512_maskz_loadu_epi8(m, p[i] + c);
            /* -128 * (sum of each 4 weights): cancels the +128 bias of X */
            nc[i] = _mm512_sub_epi32(_mm512_setzero_si512(),
                _mm512_dpbusd_epi32(_mm512_setzero_si512(), b128, wv[i]));
            sw[i] = _mm512_permutexvar_ps(idx,
                _mm512_maskz_loadu_ps(ms, s[i] + c / 32));
        }
#pragma GCC unroll 4
        for (int j = 0; j < NT; j++) {
            __m512i xv = _mm512_loadu_si512(xq + j * ldx + c);
            __m512 sx = _mm512_permutexvar_ps(idx,
                _mm512_maskz_loadu_ps(0x3, xs + j * nbx + c / 32));
#pragma GCC unroll 4
            for (int i = 0; i < NR; i++) {
                __m512i d = _mm512_dpbusd_epi32(nc[i], xv, wv[i]);
                acc[i][j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d),
                                            _mm512_mul_ps(sw[i], sx), acc[i][j]);
            }
        }
    }
    tile_store(NR, NT, acc, y, ldy, first);
}

/* ---- matmul driver -------------------------------------------------------- */

/* Round to nearest even in integer arithmetic (vcvtneps2bf16 would flush
** subnormal inputs to zero; this matches dtype_f32_to_bf16 bit for bit). */
AI __m256i
bf16_rne(__m512 v)
{
    __m512i u = _mm512_castps_si512(v);
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_srli_epi32(
        _mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff))), 16);
    __m512i qnan = _mm512_or_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x40));
    __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);

    return _mm512_cvtepi32_epi16(_mm512_mask_mov_epi32(r, nan, qnan));
}

/*
** Q8 rows [r, r+nr) x columns [k0, k0+kn) dequantized to bf16 (code *
** scale in fp32, then round to nearest even) into PANEL [nr, KB]: 4 rows
** x KB = 8 KiB, rebuilt once per (row block, column block, token block).  k0 is a
** multiple of 32, so each 16-vector has one scale.
*/
static void
q8_panel_bf16(const simd_matrix *w, int64_t r, int nr, int64_t k0, int64_t kn,
              uint16_t *panel)
{
    const int64_t nb = simd_q8_nblocks(w->cols);

    for (int i = 0; i < nr; i++) {
        const int8_t *q = (const int8_t *)w->data + (size_t)(r + i) * (size_t)w->cols + k0;
        const float *s = w->scales + (r + i) * nb + k0 / 32;
        uint16_t *dst = panel + (size_t)i * KB;
        for (int64_t c = 0; c < kn; c += 16) {
            __mmask16 m = mask16(kn - c);
            __m512 v = _mm512_mul_ps(ldw_m(FMT_Q8, q, c, m), _mm512_set1_ps(s[c / 32]));
            /* vcvtneps2bf16 rounds to nearest even like bf16_rne; it only
            ** differs on subnormal inputs (flushed), i.e. |q * s| < 1.2e-38 */
            _mm256_mask_storeu_epi16(dst + c, m, (__m256i)_mm512_cvtneps_pbh(v));
        }
    }
}

enum mm_kind { MM_FMA, MM_BF16DP, MM_Q8VNNI, MM_Q8BF16 };

AI void
mm_tile(enum mm_kind kind, enum fmt f, int NR, int NT, const simd_matrix *w,
        const simd_act *a, int64_t r, int64_t t, int64_t k0, int64_t kn,
        float *y, int64_t ldy, int first, const uint16_t *panel)
{
    float *yt = y + t * ldy + r;

    switch (kind) {
    case MM_Q8BF16:
        tile_bf16dp(NR, NT, panel, KB, (const uint16_t *)a->xq + t * a->ldq + k0,
                    a->ldq, kn, yt, ldy, first);
        break;
    case MM_FMA:
        tile_fma(f, NR, NT, w, r, a->x + t * a->cols, a->cols, k0, kn, yt, ldy,
                 first);
        break;
    case MM_BF16DP:
        tile_bf16dp(NR, NT, (const uint16_t *)w->data + (size_t)r * (size_t)w->cols + k0,
                    w->cols, (const uint16_t *)a->xq + t * a->ldq + k0, a->ldq, kn,
                    yt, ldy, first);
        break;
    case MM_Q8VNNI:
        tile_q8vnni(NR, NT, w, r, (const uint8_t *)a->xq + t * a->ldq,
                    a->xs + t * (a->ldq / 32), a->ldq, k0, kn, yt, ldy, first);
        break;
    }
}

AI void
mm_drive(enum mm_kind kind, enum fmt f, const simd_matrix *w,
         const simd_act *a, float *y, int64_t ldy, int64_t r0, int64_t r1)
{
    const int64_t n = w->cols, T = a->T;
    /* bf16 activations are half the bytes: twice the tokens fit in L2 */
    const int64_t tb = kind == MM_BF16DP || kind == MM_Q8BF16 ? 2 * TB : TB;
    uint16_t panel[4 * KB] __attribute__((aligned(64)));

    for (int64_t t0 = 0; t0 < T; t0 += tb) {
        int64_t t1 = t0 + tb < T ? t0 + tb : T;
        for (int64_t k0 = 0; k0 < n; k0 += KB) {
            int64_t kn = n - k0 < KB ? n - k0 : KB;
            int first = k0 == 0;
            int64_t r = r0;
            for (; r + 4 <= r1; r += 4) {
                int64_t t = t0;
                if (kind == MM_Q8BF16)
                    q8_panel_bf16(w, r, 4, k0, kn, panel);
                for (; t + 4 <= t1; t += 4)
                    mm_tile(kind, f, 4, 4, w, a, r, t, k0, kn, y, ldy, first, panel);
                for (; t < t1; t++)
                    mm_tile(kind, f, 4, 1, w, a, r, t, k0, kn, y, ldy, first, panel);
            }
            for (; r < r1; r++) {
                int64_t t = t0;
                if (kind == MM_Q8BF16)
                    q8_panel_bf16(w, r, 1, k0, kn, panel);
                for (; t + 4 <= t1; t += 4)
                    mm_tile(kind, f, 1, 4, w, a, r, t, k0, kn, y, ldy, first, panel);
                for (; t < t1; t++)
                    mm_tile(kind, f, 1, 1, w, a, r, t, k0, kn, y, ldy, first, panel);
            }
        }
    }
}

static void
mm_f32(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
       int64_t r0, int64_t r1)
{
    mm_drive(MM_FMA, FMT_F32, w, a, y, ldy, r0, r1);
}

static void
mm_bf16_fma(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
            int64_t r0, int64_t r1)
{
    mm_drive(MM_FMA, FMT_BF16, w, a, y, ldy, r0, r1);
}

static void
mm_f16(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
       int64_t r0, int64_t r1)
{
    mm_drive(MM_FMA, FMT_F16, w, a, y, ldy, r0, r1);
}

static void
mm_q8_fma(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
          int64_t r0, int64_t r1)
{
    mm_drive(MM_FMA, FMT_Q8, w, a, y, ldy, r0, r1);
}

static void
mm_bf16_dp(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
           int64_t r0, int64_t r1)
{
    mm_drive(MM_BF16DP, FMT_BF16, w, a, y, ldy, r0, r1);
}

static void
mm_q8_vnni(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
           int64_t r0, int64_t r1)
{
    mm_drive(MM_Q8VNNI, FMT_Q8, w, a, y, ldy, r0, r1);
}

static void
mm_q8_bf16(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
           int64_t r0, int64_t r1)
{
    mm_drive(MM_Q8BF16, FMT_Q8, w, a, y, ldy, r0, r1);
}

const simd_matmul_fn simd_avx512_dot_matmul[2][SIMD_NDTYPE] = {
    {mm_f32, mm_bf16_dp, mm_f16, mm_q8_bf16},
    {mm_f32, mm_bf16_fma, mm_f16, mm_q8_fma},
};

/* ---- conversions ---------------------------------------------------------- */

static void
avx512_f32_to_bf16(const float *src, uint16_t *dst, size_t n)
{
    size_t i = 0;

    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(dst + i), bf16_rne(_mm512_loadu_ps(src + i)));
    if (i < n) {
        __mmask16 m = mask16((int64_t)(n - i));
        _mm256_mask_storeu_epi16(dst + i, m, bf16_rne(_mm512_maskz_loadu_ps(m, src + i)));
    }
}

static void
avx512_f32_to_f16(const float *src, uint16_t *dst, size_t n)
{
    size_t i = 0;

    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(dst + i),
            _mm512_cvtps_ph(_mm512_loadu_ps(src + i),
                            _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    if (i < n) {
        __mmask16 m = mask16((int64_t)(n - i));
        _mm256_mask_storeu_epi16(dst + i, m,
            _mm512_cvtps_ph(_mm512_maskz_loadu_ps(m, src + i),
                            _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
}

static void
avx512_bf16_to_f32(const uint16_t *src, float *dst, size_t n)
{
    size_t i = 0;

    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(dst + i, ldw(FMT_BF16, src, (int64_t)i));
    if (i < n) {
        __mmask16 m = mask16((int64_t)(n - i));
        _mm512_mask_storeu_ps(dst + i, m, ldw_m(FMT_BF16, src, (int64_t)i, m));
    }
}

static void
avx512_f16_to_f32(const uint16_t *src, float *dst, size_t n)
{
    size_t i = 0;

    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(dst + i, ldw(FMT_F16, src, (int64_t)i));
    if (i < n) {
        __mmask16 m = mask16((int64_t)(n - i));
        _mm512_mask_storeu_ps(dst + i, m, ldw_m(FMT_F16, src, (int64_t)i, m));
    }
}

/*
** Q8 quantization, bit-identical to simd_q8_quantize_portable: the same
** max, the same division (vdivps is correctly rounded like '/') and the
** same round-to-nearest-even conversion (MXCSR default, as lrintf).
*/
static void
avx512_q8_quantize(const float *src, int64_t cols, int64_t r0, int64_t r1,
                   int8_t *q, float *scales)
{
    const int64_t nb = simd_q8_nblocks(cols);
    const __m512i lim = _mm512_set1_epi32(127);

    for (int64_t r = r0; r < r1; r++) {
        const float *row = src + r * cols;
        int8_t *qr = q + r * cols;

        for (int64_t b = 0; b < nb; b++) {
            int64_t c = b * 32;
            __mmask16 m0 = mask16(cols - c);
            __mmask16 m1 = mask16(cols - c - 16 > 0 ? cols - c - 16 : 0);
            __m512 v0 = _mm512_maskz_loadu_ps(m0, row + c);
            __m512 v1 = _mm512_maskz_loadu_ps(m1, row + c + 16);
            float amax = _mm512_reduce_max_ps(
                _mm512_max_ps(_mm512_abs_ps(v0), _mm512_abs_ps(v1)));
            float d = amax / 127.0f;
            __m512i q0 = _mm512_setzero_si512(), q1 = _mm512_setzero_si512();

            scales[r * nb + b] = d;
            if (d > 0) {
                __m512 vd = _mm512_set1_ps(d);
                q0 = _mm512_cvtps_epi32(_mm512_div_ps(v0, vd));
                q1 = _mm512_cvtps_epi32(_mm512_div_ps(v1, vd));
                q0 = _mm512_max_epi32(_mm512_min_epi32(q0, lim), _mm512_sub_epi32(_mm512_setzero_si512(), lim));
                q1 = _mm512_max_epi32(_mm512_min_epi32(q1, lim), _mm512_sub_epi32(_mm512_setzero_si512(), lim));
            }
            _mm_mask_storeu_epi8(qr + c, m0, _mm512_cvtsepi32_epi8(q0));
            _mm_mask_storeu_epi8(qr + c + 16, m1, _mm512_cvtsepi32_epi8(q1));
        }
    }
}

/* 16 independent zmm chains of vfmadd231ps or vdpbf16ps. */
static double
avx512_peak(int dot_bf16, int64_t iters)
{
    __m512 a[16];
    volatile float sink;

#pragma GCC unroll 16
    for (int l = 0; l < 16; l++)
        a[l] = _mm512_set1_ps((float)l);
    if (dot_bf16) {
        __m512i u = _mm512_set1_epi16(0x3f80), v = _mm512_set1_epi16(0x3380); /* 1, ~6e-8 */
        for (int64_t i = 0; i < iters; i++)
#pragma GCC unroll 16
            for (int l = 0; l < 16; l++)
                a[l] = _mm512_dpbf16_ps(a[l], (__m512bh)u, (__m512bh)v);
    } else {
        __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
        for (int64_t i = 0; i < iters; i++)
#pragma GCC unroll 16
            for (int l = 0; l < 16; l++)
                a[l] = _mm512_fmadd_ps(a[l], m, c);
    }
    for (int l = 1; l < 16; l++)
        a[0] = _mm512_add_ps(a[0], a[l]);
    sink = _mm512_reduce_add_ps(a[0]);
    (void)sink;
    return (dot_bf16 ? 4.0 * 16 : 2.0 * 16) * 16 * (double)iters;
}

/* Q4 decode (core/kernels/simd_q4_avx512.c); the Q4 matmul of the default table is
** the bf16 panel one (as Q8's), the exact table's the fp32 panel one, the VNNI
** table's the AVX2 fp32 one. */
#define SIMD_MV_AVX512_Q4 simd_mv_avx512_q4

const struct simd_kernels simd_kernels_avx512 = {
    .name = "avx512",
    .isa = SIMD_ISA_AVX512,
    .flags = 0,
    .matvec = {mv_f32, mv_bf16, mv_f16, mv_q8, SIMD_MV_AVX512_Q4},
    .matmul = {simd_mm_avx512_f32, simd_mm_avx512_bf16, simd_mm_avx512_f16,
               simd_mm_avx512_q8, simd_mm_avx512_q4},
    .act = {SIMD_ACT_F32, SIMD_ACT_BF16, SIMD_ACT_F32, SIMD_ACT_BF16, SIMD_ACT_BF16},
    .f32_to_bf16 = avx512_f32_to_bf16,
    .f32_to_f16 = avx512_f32_to_f16,
    .bf16_to_f32 = avx512_bf16_to_f32,
    .f16_to_f32 = avx512_f16_to_f32,
    .q8_quantize = avx512_q8_quantize,
    .peak = avx512_peak,
    .read = simd_read_avx2,
    .q4_act = simd_q4_act_avx2,
    .q4_rows = simd_q4_rows_avx512,
    .q8_act = simd_q8x_act_avx2,
    .q8_rows = q8x_rows,
};

/* The default table with the VNNI int8 matmul (int8 activations), kept for
** comparison (bench_kernels, test_simd); not reachable via simd_kernels_get. */
const struct simd_kernels simd_kernels_avx512_vnni = {
    .name = "avx512-vnni",
    .isa = SIMD_ISA_AVX512,
    .flags = 0,
    .matvec = {mv_f32, mv_bf16, mv_f16, mv_q8, SIMD_MV_AVX512_Q4},
    .matmul = {simd_mm_avx512_f32, simd_mm_avx512_bf16, simd_mm_avx512_f16,
               mm_q8_vnni, simd_mm_avx2_q4},
    .act = {SIMD_ACT_F32, SIMD_ACT_BF16, SIMD_ACT_F32, SIMD_ACT_Q8U, SIMD_ACT_F32},
    .f32_to_bf16 = avx512_f32_to_bf16,
    .f32_to_f16 = avx512_f32_to_f16,
    .bf16_to_f32 = avx512_bf16_to_f32,
    .f16_to_f32 = avx512_f16_to_f32,
    .q8_quantize = avx512_q8_quantize,
    .peak = avx512_peak,
    .read = simd_read_avx2,
    .q4_act = simd_q4_act_avx2,
    .q4_rows = simd_q4_rows_avx512,
    .q8_act = simd_q8x_act_avx2,
    .q8_rows = q8x_rows,
};

const struct simd_kernels simd_kernels_avx512_exact = {
    .name = "avx512-exact",
    .isa = SIMD_ISA_AVX512,
    .flags = SIMD_EXACT,
    .matvec = {mv_f32, mv_bf16, mv_f16, mv_q8, SIMD_MV_AVX512_Q4},
    .matmul = {simd_mm_avx512_f32, simd_mm_avx512_bf16_exact, simd_mm_avx512_f16,
               simd_mm_avx512_q8_exact, simd_mm_avx512_q4_exact},
    .act = {SIMD_ACT_F32, SIMD_ACT_F32, SIMD_ACT_F32, SIMD_ACT_F32, SIMD_ACT_F32},
    .f32_to_bf16 = avx512_f32_to_bf16,
    .f32_to_f16 = avx512_f32_to_f16,
    .bf16_to_f32 = avx512_bf16_to_f32,
    .f16_to_f32 = avx512_f16_to_f32,
    .q8_quantize = avx512_q8_quantize,
    .peak = avx512_peak,
    .read = simd_read_avx2,
    .q4_act = simd_q4_act_avx2,
    .q4_rows = simd_q4_rows_avx512,
    .q8_act = simd_q8x_act_avx2,
    .q8_rows = q8x_rows,
};

#endif /* __x86_64__ */
