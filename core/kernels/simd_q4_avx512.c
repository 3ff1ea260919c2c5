/*
** simd_q4_avx512.c -- the AVX-512 VNNI Q4 matvec (decode), compiled with
** the Makefile's AVX512_FLAGS and entered only through the AVX-512 tables
** after simd_kernels_get() checked the CPU.
**
** The AVX2 kernel's scheme (core/kernels/simd_q4_avx2.c, simd_impl.h) with
** vpdpbusd (AVX512-VL VNNI) in place of vpmaddubsw x 2 + vpaddw + vpmaddwd:
** per pair of blocks and row one 32-byte load of codes, an AND and a shift
** for the low / high nibbles, two vpdpbusd against the activation codes,
** one vcvtdq2ps + FMA by d * dx.  At 256 bits: a 512-bit version (a quad
** of blocks per load, vpermps per quad) measured no faster on Zen 5 here
** (decode is bound by bandwidth once the widening is integer) and kept
** more live registers.
*/
#if defined(__x86_64__)

#include <immintrin.h>

/* two vpdpbusd (u8 x s8, four products a lane, into s32) */
#define Q4_PAIR_ISUM(lo, hi, xl, xh)                                                        \
    _mm256_dpbusd_epi32(_mm256_dpbusd_epi32(_mm256_setzero_si256(), (lo), (xl)), (hi), (xh))

#include "simd_q4_rows.h"

Q4_ENTRY_POINTS(simd_q4_rows_avx512, simd_mv_avx512_q4)

#endif /* __x86_64__ */
