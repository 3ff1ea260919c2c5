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
** pair's value; m * sum(x) goes in per 8 blocks (the row loop, shared with
** the AVX-512 kernel, is core/kernels/simd_q4_rows.h).
*/
#if defined(__x86_64__)

#include <immintrin.h>

/* vpmaddubsw (u8 x s8 pairs -> s16, at most 2 * 15 * 127: no saturation)
** for both halves, added, then vpmaddwd by 1 -> s32. */
#define Q4_PAIR_ISUM(lo, hi, xl, xh)                                                        \
    _mm256_madd_epi16(_mm256_add_epi16(_mm256_maddubs_epi16((lo), (xl)),                    \
                                       _mm256_maddubs_epi16((hi), (xh))),                   \
                      _mm256_set1_epi16(1))

#include "simd_q4_rows.h"

Q4_ENTRY_POINTS(simd_q4_rows_avx2, simd_mv_avx2_q4)

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
