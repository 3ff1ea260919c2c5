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

/* two vpdpbusd a load, into the row's 32-bit sums (simd_q4_rows.h) */
#define Q4_DPBUSD _mm256_dpbusd_avx_epi32

#include "simd_q4_rows.h"

Q4_ENTRY_POINTS(simd_q4_rows_avxvnni, simd_mv_avxvnni_q4)

#endif /* __x86_64__ */
