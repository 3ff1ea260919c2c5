/*
** simd_q4_avx2.h -- private to the AVX2-compiled simd files: widening Q4
** weights (simd.h) 8 at a time, for the packed-panel matmul of
** simd_mm_avx2.c (the Q4 matvec is core/simd_q4_avx2.c).
*/
#ifndef RWKV_SIMD_Q4_AVX2_H
#define RWKV_SIMD_Q4_AVX2_H

#include <immintrin.h>

#include "simd.h"

/* Columns [c, c + 8) of row R of Q4 matrix W as fp32 q * d + m (one
** rounding); C a multiple of 8, all 8 columns inside the row. */
static inline __attribute__((always_inline)) __m256
simd_q4_avx2_chunk(const simd_matrix *w, int64_t r, int64_t c)
{
    const int64_t nb = simd_q4_nblocks(w->cols), b = c / SIMD_Q4_BLOCK;
    const int o = (int)(c % SIMD_Q4_BLOCK);
    const uint8_t *p = (const uint8_t *)w->data + (size_t)(r * nb + b) * 16 + (o & 15);
    __m128i v = _mm_loadl_epi64((const __m128i *)(const void *)p);
    float d, m;

    if (o >= 16)
        v = _mm_srli_epi16(v, 4);
    v = _mm_and_si128(v, _mm_set1_epi8(15));
    simd_q4_dm(w->scales, r * nb + b, &d, &m);
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v)), _mm256_set1_ps(d),
                           _mm256_set1_ps(m));
}

/* One weight of row R, column C. */
static inline __attribute__((always_inline)) float
simd_q4_w1(const simd_matrix *w, int64_t r, int64_t c)
{
    const int64_t nb = simd_q4_nblocks(w->cols), b = c / SIMD_Q4_BLOCK;
    const int o = (int)(c % SIMD_Q4_BLOCK);
    const uint8_t byte = ((const uint8_t *)w->data)[(size_t)(r * nb + b) * 16 + (o & 15)];
    float d, m;

    simd_q4_dm(w->scales, r * nb + b, &d, &m);
    return __builtin_fmaf((float)(o < 16 ? byte & 15 : byte >> 4), d, m);
}

#endif
