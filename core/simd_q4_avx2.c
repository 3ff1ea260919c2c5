/*
** simd_q4_avx2.c -- the AVX2 + FMA Q4 matvec (decode), compiled with the
** Makefile's AVX2_FLAGS and entered only through the AVX2 / AVX-512 tables
** after simd_kernels_get() checked the CPU.
**
** Q4 decode reads 0.625 bytes a weight, so the kernel must widen ~1.6x
** more weights per byte than Q8's: per 32-weight block and row, the block's
** 16 code bytes are broadcast to both 128-bit lanes (a load), two vpshufb
** spread bytes 0-7 and 8-15 one per 32-bit lane, an AND and a shift split
** them into low and high nibbles (columns 0-7 / 16-23 and 8-15 / 24-31),
** and four vcvtdq2ps + FMAs sum q . x unscaled; the block then adds
** d * (q . x) + m * sum(x) with sum(x) computed once per block for the
** rows of the step.  NR_Q4 rows per step share the activation loads, and a
** later row block is prefetched at the pace the rows are read (as the Q8
** kernel does).  Activations stay fp32 (simd.h's matvec contract).
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

/* Row R's last, partial block B (LEN columns) . x, scaled. */
static float
q4_tail(const simd_matrix *w, int64_t r, int64_t b, int len, const float *x)
{
    const int64_t nb = simd_q4_nblocks(w->cols);
    const uint8_t *p = (const uint8_t *)w->data + (size_t)(r * nb + b) * 16;
    const float *xb = x + b * SIMD_Q4_BLOCK;
    float s = 0, xs = 0, d, m;

    for (int j = 0; j < len; j++) {
        s += (float)(j < 16 ? p[j] & 15 : p[j - 16] >> 4) * xb[j];
        xs += xb[j];
    }
    simd_q4_dm(w->scales, r * nb + b, &d, &m);
    return d * s + m * xs;
}

/* y[r..r+NR) of Q4 matrix W; NEXT: the row block to prefetch, or NULL. */
AI void
q4_rows(int NR, const simd_matrix *w, const float *x, float *y, int64_t r, const char *next)
{
    const int64_t n = w->cols, nb = simd_q4_nblocks(n), nfull = n / SIMD_Q4_BLOCK;
    const __m256i sh_a = _mm256_setr_epi8(0, -1, -1, -1, 1, -1, -1, -1, 2, -1, -1, -1, 3, -1,
                                          -1, -1, 4, -1, -1, -1, 5, -1, -1, -1, 6, -1, -1, -1,
                                          7, -1, -1, -1);
    const __m256i sh_b = _mm256_add_epi32(sh_a, _mm256_set1_epi32(8));
    const __m256i lo4 = _mm256_set1_epi32(15), hi16 = _mm256_set1_epi32((int)0xffff0000u);
    const uint8_t *p[NR_Q4];
    const char *s[NR_Q4];
    __m256 acc[NR_Q4];

#pragma GCC unroll 4
    for (int i = 0; i < NR; i++) {
        p[i] = (const uint8_t *)w->data + (size_t)((r + i) * nb) * 16;
        s[i] = (const char *)w->scales + (size_t)((r + i) * nb) * 4;
        acc[i] = _mm256_setzero_ps();
    }
    for (int64_t b = 0; b < nfull; b++) {
        const float *xb = x + b * SIMD_Q4_BLOCK;
        __m256 x0 = _mm256_loadu_ps(xb), x1 = _mm256_loadu_ps(xb + 8);
        __m256 x2 = _mm256_loadu_ps(xb + 16), x3 = _mm256_loadu_ps(xb + 24);
        __m256 xs = _mm256_add_ps(_mm256_add_ps(x0, x1), _mm256_add_ps(x2, x3));

        if (next != NULL)
            _mm_prefetch(next + b * NR * 16, _MM_HINT_T0);
#pragma GCC unroll 4
        for (int i = 0; i < NR; i++) {
            __m256i v = _mm256_broadcastsi128_si256(
                _mm_loadu_si128((const __m128i *)(const void *)(p[i] + b * 16)));
            __m256i va = _mm256_shuffle_epi8(v, sh_a), vb = _mm256_shuffle_epi8(v, sh_b);
            int32_t word;
            __m256i dm;
            __m256 t;

            memcpy(&word, s[i] + b * 4, 4);
            dm = _mm256_set1_epi32(word);
            t = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(va, lo4)), x0);
            t = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_and_si256(vb, lo4)), x1, t);
            t = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(va, 4)), x2, t);
            t = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(vb, 4)), x3, t);
            acc[i] = _mm256_fmadd_ps(t, _mm256_castsi256_ps(_mm256_slli_epi32(dm, 16)), acc[i]);
            acc[i] = _mm256_fmadd_ps(xs, _mm256_castsi256_ps(_mm256_and_si256(dm, hi16)),
                                     acc[i]);
        }
    }
#pragma GCC unroll 4
    for (int i = 0; i < NR; i++) {
        float v = q4_hsum8(acc[i]);
        if (nfull < nb)
            v += q4_tail(w, r + i, nfull, (int)(n - nfull * SIMD_Q4_BLOCK), x);
        y[r + i] = v;
    }
}

void
simd_mv_avx2_q4(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)
{
    const int64_t blk = NR_Q4 * simd_q4_nblocks(w->cols) * 16; /* bytes per row block */
    const int64_t ahead =
        NR_Q4 * (blk >= Q4_PF_MIN_BYTES || blk == 0 ? 1 : (Q4_PF_MIN_BYTES + blk - 1) / blk);
    int64_t r = r0;

    for (; r + NR_Q4 <= r1; r += NR_Q4) {
        const char *next = r + ahead + NR_Q4 <= r1
                               ? (const char *)w->data + (size_t)(r + ahead) * (size_t)(blk / NR_Q4)
                               : NULL;
        q4_rows(NR_Q4, w, x, y, r, next);
    }
    for (; r < r1; r++)
        q4_rows(1, w, x, y, r, NULL);
}

#endif /* __x86_64__ */
