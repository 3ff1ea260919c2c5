/*
** simd_q4_avxvnni.c -- the Q4 matvec (decode) of the "avx2-vnni" table:
** the AVX2 kernel (core/kernels/simd_q4_avx2.c) with the VEX-encoded
** vpdpbusd of AVX-VNNI (Alder Lake and later, Zen 5) in place of
** vpmaddubsw x 2 + vpaddw x 2 (and a group's vpmaddwd): one instruction
** per half, accumulating in 32-bit lanes.  Compiled with the Makefile's
** AVXVNNI_FLAGS and entered only through that table after
** simd_kernels_get() found AVX-VNNI in cpuid.  The integer sums are the same
** as the other tables' (exact), so are the results.
*/
#if defined(__x86_64__)

#include <immintrin.h>

#define DPBUSD _mm256_dpbusd_avx_epi32
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

Q4_ENTRY_POINTS(simd_q4_rows_avxvnni, simd_mv_avxvnni_q4)

#endif /* __x86_64__ */
