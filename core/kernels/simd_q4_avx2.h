/*
** simd_q4_avx2.h -- private to the AVX2- and AVX-512-compiled simd files:
** widening Q4 weights (simd.h) for the packed-panel matmuls of
** simd_mm_avx2.c (8 fp32 at a time) and simd_mm_avx512.c (a block as 16
** bf16 pairs); the Q4 matvecs are core/simd_q4_avx*.c.
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
    const uint8_t *row = simd_q4_row(w, r), *p = simd_q4_codes(row, b) + (o & 15);
    __m128i v = _mm_loadl_epi64((const __m128i *)(const void *)p);
    float d, m;

    if (o >= 16)
        v = _mm_srli_epi16(v, 4);
    v = _mm_and_si128(v, _mm_set1_epi8(15));
    simd_q4_dm(row, nb, b, &d, &m);
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v)), _mm256_set1_ps(d),
                           _mm256_set1_ps(m));
}

/* One weight of row R, column C. */
static inline __attribute__((always_inline)) float
simd_q4_w1(const simd_matrix *w, int64_t r, int64_t c)
{
    const int64_t nb = simd_q4_nblocks(w->cols), b = c / SIMD_Q4_BLOCK;
    const int o = (int)(c % SIMD_Q4_BLOCK);
    const uint8_t *row = simd_q4_row(w, r), byte = simd_q4_codes(row, b)[o & 15];
    float d, m;

    simd_q4_dm(row, nb, b, &d, &m);
    return __builtin_fmaf((float)(o < 16 ? byte & 15 : byte >> 4), d, m);
}

#if defined(__AVX512BF16__)
/* Columns [c, c + 32) of row R (one block, C a multiple of 32) as 16 bf16
** pairs of bf16(q * d + m), round to nearest even; zero past LEFT columns. */
static inline __attribute__((always_inline)) __m512i
simd_q4_avx512_chunk(const simd_matrix *w, int64_t r, int64_t c, int64_t left)
{
    const int64_t nb = simd_q4_nblocks(w->cols), b = c / SIMD_Q4_BLOCK;
    const uint8_t *row = simd_q4_row(w, r);
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)simd_q4_codes(row, b));
    __m128i m4 = _mm_set1_epi8(15);
    __m512 d, m, lo, hi;
    float fd, fm;

    simd_q4_dm(row, nb, b, &fd, &fm);
    d = _mm512_set1_ps(fd);
    m = _mm512_set1_ps(fm);
    lo = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_and_si128(v, m4))), d, m);
    hi = _mm512_fmadd_ps(
        _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_and_si128(_mm_srli_epi16(v, 4), m4))), d, m);
    if (left < 32) {
        lo = _mm512_maskz_mov_ps(left >= 16 ? (__mmask16)0xffff
                                            : (__mmask16)((1u << (left > 0 ? left : 0)) - 1), lo);
        hi = _mm512_maskz_mov_ps(left <= 16 ? 0 : (__mmask16)((1u << (left - 16)) - 1), hi);
    }
    return (__m512i)_mm512_cvtne2ps_pbh(hi, lo);
}
#endif

#endif
