/*
** simd_q4_avx512.c -- the AVX-512 VNNI Q4 matvec (decode), compiled with
** the Makefile's AVX512_FLAGS and entered only through the AVX-512 tables
** after simd_kernels_get() checked the CPU.
**
** The AVX2 kernel's scheme (core/simd_q4_avx2.c, simd_impl.h) at 64 bytes:
** per quad of 4 blocks and row, one load of 64 code bytes, an AND and a
** shift for the low / high nibbles, and two vpdpbusd against the quad's
** activation codes give 16 int32 partial sums (4 per block), converted and
** scaled by d * dx per block in one FMA; m * sum(x) per 8 blocks.
*/
#if defined(__x86_64__)

#include <immintrin.h>

#include "simd_impl.h"

#define AI static inline __attribute__((always_inline))

#define NR_Q4 4
#define Q4_PF_MIN_BYTES 16384

/* y[r..r+NR) (+)= the NBLK blocks from B0; NEXT: the row block to prefetch. */
AI void
q4_rows512(int NR, const simd_matrix *w, const simd_q4_x *q, int64_t nblk, float *y, int64_t r,
           int64_t b0, int add, const char *next)
{
    const int64_t nb = simd_q4_nblocks(w->cols);
    const __m512i m4 = _mm512_set1_epi8(15);
    const __m256i hi16 = _mm256_set1_epi32((int)0xffff0000u);
    /* lane l of quad j's scale: block 4j + l / 4 of the 8 */
    const __m512i idx0 = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    const __m512i idx1 = _mm512_add_epi32(idx0, _mm512_set1_epi32(4));
    const uint8_t *p[NR_Q4];
    const char *s[NR_Q4];
    __m512 acc[NR_Q4];
    __m256 accm[NR_Q4];
    float tail[NR_Q4];
    int64_t k = 0;

#pragma GCC unroll 4
    for (int i = 0; i < NR; i++) {
        p[i] = (const uint8_t *)w->data + (size_t)((r + i) * nb + b0) * 16;
        s[i] = (const char *)w->scales + (size_t)((r + i) * nb + b0) * 4;
        acc[i] = _mm512_setzero_ps();
        accm[i] = _mm256_setzero_ps();
        tail[i] = 0;
    }
    for (; k + 8 <= nblk; k += 8) {
        const int8_t *xq = q->xq + (k / SIMD_Q4_QUAD) * 128;
        const __m512i xl0 = _mm512_load_si512(xq), xh0 = _mm512_load_si512(xq + 64);
        const __m512i xl1 = _mm512_load_si512(xq + 128), xh1 = _mm512_load_si512(xq + 192);
        const __m256 xd = _mm256_loadu_ps(q->xd + k), xs = _mm256_loadu_ps(q->xs + k);

        if (next != NULL)
            for (int u = 0; u < NR * 128; u += 64)
                _mm_prefetch(next + (b0 + k) * 16 * NR + u, _MM_HINT_T0);
#pragma GCC unroll 4
        for (int i = 0; i < NR; i++) {
            const __m256i wd = _mm256_loadu_si256((const __m256i *)(const void *)(s[i] + k * 4));
            const __m512 dd = _mm512_castps256_ps512(
                _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(wd, 16)), xd));
            __m512i v0 = _mm512_loadu_si512(p[i] + k * 16);
            __m512i v1 = _mm512_loadu_si512(p[i] + k * 16 + 64);
            __m512i s0 = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_and_si512(v0, m4), xl0);
            __m512i s1 = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_and_si512(v1, m4), xl1);

            s0 = _mm512_dpbusd_epi32(s0, _mm512_and_si512(_mm512_srli_epi16(v0, 4), m4), xh0);
            s1 = _mm512_dpbusd_epi32(s1, _mm512_and_si512(_mm512_srli_epi16(v1, 4), m4), xh1);
            acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s0), _mm512_permutexvar_ps(idx0, dd), acc[i]);
            acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s1), _mm512_permutexvar_ps(idx1, dd), acc[i]);
            accm[i] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(wd, hi16)), xs, accm[i]);
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
        float v = _mm512_reduce_add_ps(acc[i]) +
                  _mm512_reduce_add_ps(_mm512_castps256_ps512(accm[i])) + tail[i];
        y[r + i] = add ? y[r + i] + v : v;
    }
}

static void
q4_rows_avx512(const simd_matrix *w, const simd_q4_x *q, int64_t nblk, float *y, int64_t r0,
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
        q4_rows512(NR_Q4, w, q, nblk, y, r, b0, add, next);
    }
    for (; r < r1; r++)
        q4_rows512(1, w, q, nblk, y, r, b0, add, NULL);
}

void
simd_mv_avx512_q4(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)
{
    simd_q4_matvec(w, x, y, r0, r1, simd_q4_act_avx2, q4_rows_avx512);
}

#endif /* __x86_64__ */
