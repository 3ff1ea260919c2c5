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

/* two vpdpbusd a load, into the row's 32-bit sums (simd_q4_rows.h) */
#define Q4_DPBUSD _mm256_dpbusd_epi32

#include "simd_q4_rows.h"

Q4_ENTRY_POINTS(simd_q4_rows_avx512, simd_mv_avx512_q4)

#endif /* __x86_64__ */
