/*
** simd_q4_avx2.c -- the AVX2 + FMA Q4 matvec (decode), compiled with the
** Makefile's AVX2_FLAGS and entered only through the AVX2 / AVX-512 tables
** after simd_kernels_get() checked the CPU.
**
** Q4 decode reads 0.625 bytes a weight, so the kernel must handle ~1.8x
** more weights per byte than Q8's; widening every code to fp32 (a first
** version) ran at 13 GB/s a thread, 65% of the read bandwidth, slower than
** Q8.  So x is quantized to int8 per 32-block once per call (simd_impl.h)
** and per pair of blocks and row one 32-byte load of codes, an AND and a
** shift (low / high nibbles), two vpmaddubsw against the activation codes,
** vpmaddwd and one vcvtdq2ps + FMA by d * dx (permuted per block) give the
** pair's value; m * sum(x) goes in per 8 blocks.  NR_Q4 rows per step
** share the activation loads, and a later row block is prefetched at the
** pace the rows are read (as the Q8 kernel does).
*/
#if defined(__x86_64__)

#include <immintrin.h>
#include <string.h>

#include "simd_impl.h"

#define AI static inline __attribute__((always_inline))

#define NR_Q4 4
/* Prefetch distance: at least this many bytes ahead (one row block of a
** narrow matrix is less). */
#define Q4_PF_MIN_BYTES 16384

AI float
q4_hsum8(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));

    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* Permutation indices: lanes 0-3 <- lane 2P, lanes 4-7 <- lane 2P + 1. */
AI __m256i
q4_pair_idx(int pr)
{
    return _mm256_setr_epi32(2 * pr, 2 * pr, 2 * pr, 2 * pr, 2 * pr + 1, 2 * pr + 1, 2 * pr + 1,
                             2 * pr + 1);
}

/* y[r..r+NR) (+)= the NBLK blocks from B0; NEXT: the row block to prefetch,
** or NULL. */
AI void
q4_rows(int NR, const simd_matrix *w, const simd_q4_x *q, int64_t nblk, float *y, int64_t r,
        int64_t b0, int add, const char *next)
{
    const int64_t nb = simd_q4_nblocks(w->cols);
    const __m256i m4 = _mm256_set1_epi8(15), ones = _mm256_set1_epi16(1);
    const __m256i hi16 = _mm256_set1_epi32((int)0xffff0000u);
    const uint8_t *p[NR_Q4];
    const char *s[NR_Q4];
    __m256 acc[NR_Q4];
    float tail[NR_Q4];
    int64_t k = 0;

#pragma GCC unroll 4
    for (int i = 0; i < NR; i++) {
        p[i] = (const uint8_t *)w->data + (size_t)((r + i) * nb + b0) * 16;
        s[i] = (const char *)w->scales + (size_t)((r + i) * nb + b0) * 4;
        acc[i] = _mm256_setzero_ps();
        tail[i] = 0;
    }
    for (; k + 8 <= nblk; k += 8) {
        const int8_t *xq = q->xq + (k / SIMD_Q4_QUAD) * 128;
        const __m256 xd = _mm256_loadu_ps(q->xd + k), xs = _mm256_loadu_ps(q->xs + k);

        if (next != NULL)
            for (int u = 0; u < NR * 128; u += 64)
                _mm_prefetch(next + (b0 + k) * 16 * NR + u, _MM_HINT_T0);
#pragma GCC unroll 4
        for (int i = 0; i < NR; i++) {
            const __m256i wd = _mm256_loadu_si256((const __m256i *)(const void *)(s[i] + k * 4));
            const __m256 dd = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(wd, 16)), xd);

            acc[i] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(wd, hi16)), xs, acc[i]);
#pragma GCC unroll 4
            for (int pr = 0; pr < 4; pr++) {
                /* blocks k + 2pr, k + 2pr + 1: quad (k + 2pr) / 4, half pr % 2 */
                const int8_t *xp = xq + (pr / 2) * 128 + (pr % 2) * 32;
                __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p[i] + (k + 2 * pr) * 16));
                __m256i lo = _mm256_and_si256(v, m4);
                __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
                __m256i s16 = _mm256_add_epi16(
                    _mm256_maddubs_epi16(lo, _mm256_load_si256((const __m256i *)(const void *)xp)),
                    _mm256_maddubs_epi16(hi, _mm256_load_si256((const __m256i *)(const void *)(xp + 64))));
                acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_madd_epi16(s16, ones)),
                                         _mm256_permutevar8x32_ps(dd, q4_pair_idx(pr)), acc[i]);
            }
        }
    }
    for (; k < nblk; k++)
#pragma GCC unroll 4
        for (int i = 0; i < NR; i++) {
            float d, m;
            simd_q4_dm(w->scales, (r + i) * nb + b0 + k, &d, &m);
            tail[i] += d * q->xd[k] * (float)simd_q4_isum(p[i] + k * 16, q, k) + m * q->xs[k];
        }
#pragma GCC unroll 4
    for (int i = 0; i < NR; i++) {
        float v = q4_hsum8(acc[i]) + tail[i];
        y[r + i] = add ? y[r + i] + v : v;
    }
}

static void
q4_rows_avx2(const simd_matrix *w, const simd_q4_x *q, int64_t nblk, float *y, int64_t r0,
             int64_t r1, int64_t b0, int add)
{
    const int64_t blk = NR_Q4 * simd_q4_nblocks(w->cols) * 16; /* bytes per row block */
    const int64_t ahead =
        NR_Q4 * (blk >= Q4_PF_MIN_BYTES || blk == 0 ? 1 : (Q4_PF_MIN_BYTES + blk - 1) / blk);
    int64_t r = r0;

    for (; r + NR_Q4 <= r1; r += NR_Q4) {
        const char *next = r + ahead + NR_Q4 <= r1
                               ? (const char *)w->data + (size_t)(r + ahead) * (size_t)(blk / NR_Q4)
                               : NULL;
        q4_rows(NR_Q4, w, q, nblk, y, r, b0, add, next);
    }
    for (; r < r1; r++)
        q4_rows(1, w, q, nblk, y, r, b0, add, NULL);
}

void
simd_mv_avx2_q4(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)
{
    simd_q4_matvec(w, x, y, r0, r1, simd_q4_act_avx2, q4_rows_avx2);
}

/*
** simd_q4_act with whole blocks in registers, the same bytes as the plain
** C version: |x| maximum, sum(x) in 8 lanes (lane l: x[l], x[l + 8], ...
** from 0, as simd_q4_act_block sums) and the same tree, codes by
** vcvtps2dq (round to nearest even, as q4_rne), clamped to +-127.
*/
void
simd_q4_act_avx2(const float *x, int64_t n, simd_q4_x *q)
{
    const int64_t nb = simd_q4_nblocks(n);
    const int64_t nbq = (nb + SIMD_Q4_QUAD - 1) / SIMD_Q4_QUAD * SIMD_Q4_QUAD;
    const __m256 sign = _mm256_set1_ps(-0.0f);
    const __m256i lim = _mm256_set1_epi32(127), nlim = _mm256_set1_epi32(-127);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    int64_t b = 0;

    for (; b < n / SIMD_Q4_BLOCK; b++) {
        const float *xb = x + b * SIMD_Q4_BLOCK;
        int8_t *lo = q->xq + (b / SIMD_Q4_QUAD) * 128 + (b % SIMD_Q4_QUAD) * 16;
        __m256 v[4], s = _mm256_setzero_ps(), m = _mm256_setzero_ps(), idv;
        __m128 t, h;
        __m256i c[4], r;
        float amax, d, id;

        for (int k = 0; k < 4; k++) {
            v[k] = _mm256_loadu_ps(xb + 8 * k);
            s = _mm256_add_ps(s, v[k]);
            m = _mm256_max_ps(m, _mm256_andnot_ps(sign, v[k]));
        }
        t = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        t = _mm_max_ps(t, _mm_movehl_ps(t, t));
        amax = _mm_cvtss_f32(_mm_max_ss(t, _mm_movehdup_ps(t)));
        d = amax / 127.0f;
        id = d > 0 ? 1.0f / d : 0.0f;
        q->xd[b] = d;
        h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1)); /* s_l + s_l+4 */
        h = _mm_hadd_ps(h, h);                                                   /* pairs */
        q->xs[b] = _mm_cvtss_f32(_mm_add_ss(h, _mm_movehdup_ps(h)));
        idv = _mm256_set1_ps(id);
        for (int k = 0; k < 4; k++)
            c[k] = _mm256_max_epi32(nlim, _mm256_min_epi32(lim, _mm256_cvtps_epi32(
                                                                    _mm256_mul_ps(v[k], idv))));
        r = _mm256_packs_epi16(_mm256_packs_epi32(c[0], c[1]), _mm256_packs_epi32(c[2], c[3]));
        r = _mm256_permutevar8x32_epi32(r, order);
        _mm_storeu_si128((__m128i *)(void *)lo, _mm256_castsi256_si128(r));
        _mm_storeu_si128((__m128i *)(void *)(lo + 64), _mm256_extracti128_si256(r, 1));
    }
    for (; b < nbq; b++) {   /* the partial block and the padding */
        int64_t c0 = b * SIMD_Q4_BLOCK;
        simd_q4_act_block(x + (c0 < n ? c0 : 0),
                          (int)(n - c0 < 0 ? 0 : n - c0 < SIMD_Q4_BLOCK ? n - c0 : SIMD_Q4_BLOCK), q,
                          b);
    }
}

#endif /* __x86_64__ */
