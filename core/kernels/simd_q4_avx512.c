/*
** simd_q4_avx512.c -- the AVX-512 VNNI Q4 matvec (decode), compiled with
** the Makefile's AVX512_FLAGS and entered only through the AVX-512 tables
** after simd_kernels_get() checked the CPU.
**
** The AVX2 kernel's scheme (core/kernels/simd_q4_avx2.c, simd_impl.h) with
** vpdpbusd (AVX512-VL VNNI) in place of vpmaddubsw x 2 + vpaddw + vpmaddwd:
** per 32-byte load of codes (a dword of each of a group's 8 blocks) an AND
** and a shift for the low / high nibbles and two vpdpbusd into the row's
** 32-bit sums (lane j block j); per group one vcvtdq2ps and one FMA by d *
** dx (simd_q4_rows.h).  At 256 bits: with the earlier layout a 512-bit
** version (a quad of blocks per load, vpermps per quad) measured no faster
** on Zen 5 here and kept more live registers.
*/
#if defined(__x86_64__)

#include <immintrin.h>

#define DPBUSD _mm256_dpbusd_epi32
/* lane j += the products of block j's dword, by two vpdpbusd (u8 x s8,
** four products a lane, into s32) */
static inline __attribute__((always_inline)) __m256i
q4_isum_add(__m256i acc, __m256i v, __m256i xl, __m256i xh)
{
    const __m256i m4 = _mm256_set1_epi8(15);
    const __m256i lo = _mm256_and_si256(v, m4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);

    return DPBUSD(DPBUSD(acc, lo, xl), hi, xh);
}
#define Q4_ISUM_T __m256i
#define Q4_ISUM_ZERO _mm256_setzero_si256()
#define Q4_ISUM_ADD(acc, v, xl, xh) q4_isum_add((acc), (v), (xl), (xh))
#define Q4_ISUM_I32(acc) (acc)

#include "simd_q4_rows.h"

Q4_ENTRY_POINTS(simd_q4_rows_avx512, simd_mv_avx512_q4)

#endif /* __x86_64__ */
