/*
** simd_q4_avx2.h -- private to the AVX2- and AVX-512-compiled simd files:
** widening Q4 weights (simd.h) for the packed-panel matmuls of
** simd_mm_avx2.c (8 fp32 at a time) and simd_mm_avx512.c (a block as 16
** bf16 pairs, or half a block as 16 fp32); the Q4 matvecs are
** core/simd_q4_avx*.c.
**
** A panel first stages each of its rows' blocks (simd_q4_stage): the 16
** code bytes of every block in the block's own order (a full group's
** interleaved codes transposed back in registers: 4 loads and 8 unpacks
** per group with AVX2, 2 loads and 2 vpermt2d with AVX-512) and its d and
** m as floats (one load of a group's words, a shift and an AND), so the
** chunks below read a block with one load and broadcast d and m from
** memory, where each chunk used to find and split its block word itself.
** The same panel values bit for bit; one thread, [2048, 2048] from memory,
** old and new alternating (Zen 5 VM, 2026-12-07): AVX-512 bf16 panels
** 1.17-1.40x at 4 tokens, 1.10-1.13x at 16, 1.02x at 64 (the earlier
** experiment that loaded a block's 4 dwords one by one was 1.3-1.4x
** slower at 4-16); AVX2 fp32 panels 1.00x at 4, 1.00-1.05x at 16, 0.99x at
** 64.  (Unrolled: with the stage's loop of loads left rolled GCC kept the
** 4 vectors in memory, and AVX2 prefill of 4 tokens ran 0.93x.)
*/
#ifndef RWKV_SIMD_Q4_AVX2_H
#define RWKV_SIMD_Q4_AVX2_H

#include <immintrin.h>

#include "simd.h"

/* A panel row's staged blocks (at most SIMD_Q4_STAGE of them). */
#define SIMD_Q4_STAGE 8
typedef struct simd_q4_staged {
    uint8_t codes[SIMD_Q4_STAGE][16];   /* each block's own order */
    float d[SIMD_Q4_STAGE], m[SIMD_Q4_STAGE];
} simd_q4_staged;

/* Codes of the 8 blocks of the full group at G into OUT [8][16]. */
static inline __attribute__((always_inline)) void
simd_q4_stage_group(const uint8_t *g, uint8_t *out)
{
#if defined(__AVX512F__)
    /* dword k of block j is dword 8k + j of the group's 128 bytes */
    const __m512i i0 = _mm512_setr_epi32(0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27);
    const __m512i z0 = _mm512_loadu_si512((const void *)g);
    const __m512i z1 = _mm512_loadu_si512((const void *)(g + 64));

    _mm512_storeu_si512((void *)out, _mm512_permutex2var_epi32(z0, i0, z1));
    _mm512_storeu_si512((void *)(out + 64),
                        _mm512_permutex2var_epi32(z0, _mm512_add_epi32(i0, _mm512_set1_epi32(4)),
                                                  z1));
#else
    __m256i a[4], t[4], u[4];

#pragma GCC unroll 4
    for (int k = 0; k < 4; k++)
        a[k] = _mm256_loadu_si256((const __m256i *)(const void *)(g + 32 * k));
    t[0] = _mm256_unpacklo_epi32(a[0], a[1]);   /* blocks 0 1 | 4 5, dwords 0 1 */
    t[1] = _mm256_unpackhi_epi32(a[0], a[1]);   /* blocks 2 3 | 6 7 */
    t[2] = _mm256_unpacklo_epi32(a[2], a[3]);   /* dwords 2 3 */
    t[3] = _mm256_unpackhi_epi32(a[2], a[3]);
    u[0] = _mm256_unpacklo_epi64(t[0], t[2]);   /* block 0 | block 4 */
    u[1] = _mm256_unpackhi_epi64(t[0], t[2]);   /* block 1 | block 5 */
    u[2] = _mm256_unpacklo_epi64(t[1], t[3]);
    u[3] = _mm256_unpackhi_epi64(t[1], t[3]);
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
        _mm_storeu_si128((__m128i *)(void *)(out + 16 * j), _mm256_castsi256_si128(u[j]));
        _mm_storeu_si128((__m128i *)(void *)(out + 16 * (4 + j)), _mm256_extracti128_si256(u[j], 1));
    }
#endif
}

/* Codes of blocks 4H..4H+3 of the full group at G into OUT [4][16]. */
static inline __attribute__((always_inline)) void
simd_q4_stage_half(const uint8_t *g, int h, uint8_t *out)
{
    __m128i a[4], t[4];

#pragma GCC unroll 4
    for (int k = 0; k < 4; k++)
        a[k] = _mm_loadu_si128((const __m128i *)(const void *)(g + 32 * k + 16 * h));
    t[0] = _mm_unpacklo_epi32(a[0], a[1]);
    t[1] = _mm_unpackhi_epi32(a[0], a[1]);
    t[2] = _mm_unpacklo_epi32(a[2], a[3]);
    t[3] = _mm_unpackhi_epi32(a[2], a[3]);
    _mm_storeu_si128((__m128i *)(void *)out, _mm_unpacklo_epi64(t[0], t[2]));
    _mm_storeu_si128((__m128i *)(void *)(out + 16), _mm_unpackhi_epi64(t[0], t[2]));
    _mm_storeu_si128((__m128i *)(void *)(out + 32), _mm_unpacklo_epi64(t[1], t[3]));
    _mm_storeu_si128((__m128i *)(void *)(out + 48), _mm_unpackhi_epi64(t[1], t[3]));
}

/* Blocks [B0, B0 + N) of row R of Q4 matrix W (N <= SIMD_Q4_STAGE; B0 a
** multiple of 4, as the panels' column blocks begin) into *S. */
static inline __attribute__((always_inline)) void
simd_q4_stage(const simd_matrix *w, int64_t r, int64_t b0, int n, simd_q4_staged *s)
{
    const int64_t nb = simd_q4_nblocks(w->cols);
    const uint8_t *row = simd_q4_row(w, r);
    int i = 0;

    while (i < n) {
        const int64_t b = b0 + i, g = b - b % SIMD_Q4_GROUP;
        const uint8_t *gp = row + g * SIMD_Q4_BLOCK_BYTES;
        const uint8_t *wp = gp + SIMD_Q4_GROUP * 16;   /* a full group's words */

        if (simd_q4_interleaved(nb, b) && b == g && i + 8 <= n) {
            const __m256i wd = _mm256_loadu_si256((const __m256i *)(const void *)wp);
            simd_q4_stage_group(gp, s->codes[i]);
            _mm256_storeu_ps(s->d + i, _mm256_castsi256_ps(_mm256_slli_epi32(wd, 16)));
            _mm256_storeu_ps(s->m + i, _mm256_castsi256_ps(_mm256_and_si256(
                                           wd, _mm256_set1_epi32((int)0xffff0000u))));
            i += 8;
        } else if (simd_q4_interleaved(nb, b) && b % 4 == 0 && i + 4 <= n) {
            const __m128i wd =
                _mm_loadu_si128((const __m128i *)(const void *)(wp + 4 * (b - g)));
            simd_q4_stage_half(gp, (int)(b - g) / 4, s->codes[i]);
            _mm_storeu_ps(s->d + i, _mm_castsi128_ps(_mm_slli_epi32(wd, 16)));
            _mm_storeu_ps(s->m + i, _mm_castsi128_ps(_mm_and_si128(
                                        wd, _mm_set1_epi32((int)0xffff0000u))));
            i += 4;
        } else {
            simd_q4_block_codes(row, nb, b, s->codes[i]);
            simd_q4_dm(row, nb, b, &s->d[i], &s->m[i]);
            i++;
        }
    }
}

/* Columns [o, o + 8) of staged block I (O a multiple of 8) as fp32 q * d
** + m (one rounding: simd_q4_dequantize_row's value), zero past LEFT. */
static inline __attribute__((always_inline)) __m256
simd_q4_avx2_chunk(const simd_q4_staged *s, int i, int o, int64_t left)
{
    __m128i v = _mm_loadl_epi64((const __m128i *)(const void *)(s->codes[i] + (o & 15)));
    __m256 f;

    if (o >= 16)
        v = _mm_srli_epi16(v, 4);
    v = _mm_and_si128(v, _mm_set1_epi8(15));
    f = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v)), _mm256_broadcast_ss(&s->d[i]),
                        _mm256_broadcast_ss(&s->m[i]));
    if (left < 8)
        f = _mm256_and_ps(f, _mm256_castsi256_ps(_mm256_cmpgt_epi32(
                                 _mm256_set1_epi32((int)(left > 0 ? left : 0)),
                                 _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))));
    return f;
}

#if defined(__AVX512F__)
/* Columns [16 h, 16 h + 16) of staged block I (H 0 or 1) as fp32 q * d +
** m (code * d is exact: the fused multiply-add is simd_q4_dequantize_row's
** value), zero past LEFT. */
static inline __attribute__((always_inline)) __m512
simd_q4_avx512_half(const simd_q4_staged *s, int i, int h, int64_t left)
{
    __m512i codes = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)s->codes[i]));

    codes = h ? _mm512_srli_epi32(codes, 4) : _mm512_and_si512(codes, _mm512_set1_epi32(15));
    return _mm512_maskz_fmadd_ps(left >= 16 ? (__mmask16)0xffff
                                            : (__mmask16)((1u << (left > 0 ? left : 0)) - 1),
                                 _mm512_cvtepi32_ps(codes), _mm512_set1_ps(s->d[i]),
                                 _mm512_set1_ps(s->m[i]));
}
#endif

/* In place: v[j] lane i <- v[i] lane j (8 x 8 of 32-bit elements): the Q4
** panels' staging (simd_mm_avx2.c) and the AVX2 activation codes' group
** order (simd_q4_avx2.c). */
static inline __attribute__((always_inline)) void
simd_avx2_tr8(__m256 v[8])
{
    __m256 t[8], s[8];

#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm256_unpacklo_ps(v[2 * i], v[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(v[2 * i], v[2 * i + 1]);
    }
    /* s[4h + j], 128-bit half L: column 4L + j of rows 4h..4h+3 */
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        s[4 * h + 0] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], _MM_SHUFFLE(1, 0, 1, 0));
        s[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], _MM_SHUFFLE(3, 2, 3, 2));
        s[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], _MM_SHUFFLE(1, 0, 1, 0));
        s[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
        v[j] = _mm256_permute2f128_ps(s[j], s[4 + j], 0x20);
        v[4 + j] = _mm256_permute2f128_ps(s[j], s[4 + j], 0x31);
    }
}

#if defined(__AVX512BF16__)
/* Staged block I (32 columns) as 16 bf16 pairs of bf16(q * d + m), round
** to nearest even; zero past LEFT columns. */
static inline __attribute__((always_inline)) __m512i
simd_q4_avx512_chunk(const simd_q4_staged *s, int i, int64_t left)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s->codes[i]);
    __m128i m4 = _mm_set1_epi8(15);
    __m512 d = _mm512_set1_ps(s->d[i]), m = _mm512_set1_ps(s->m[i]), lo, hi;

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
