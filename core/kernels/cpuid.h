/*
** cpuid.h -- x86 CPU feature detection for the run-time kernel dispatch.
**
** A feature counts as present only when both the CPU reports it and the OS
** saves the register state it needs (XGETBV), so an AVX-512 CPU under an OS
** or hypervisor that does not enable ZMM state reports no AVX-512.  On
** non-x86 builds every flag is 0 and the portable kernels run.
*/
#ifndef RWKV_CPUID_H
#define RWKV_CPUID_H

/* Feature bits returned by cpuid_features(). */
enum cpuid_feature {
    CPUID_AVX2       = 1 << 0,
    CPUID_FMA        = 1 << 1,
    CPUID_F16C       = 1 << 2,
    CPUID_AVX512F    = 1 << 3,
    CPUID_AVX512BW   = 1 << 4,
    CPUID_AVX512VL   = 1 << 5,
    CPUID_AVX512DQ   = 1 << 6,
    CPUID_AVX512BF16 = 1 << 7,
    CPUID_AVX512VNNI = 1 << 8,
    CPUID_AVX_VNNI   = 1 << 9  /* VEX-encoded vpdpbusd (Alder Lake, Zen 5) */
};

/* What the kernels in core/kernels/simd_avx2.c need (the Makefile's AVX2_FLAGS). */
#define CPUID_LEVEL_AVX2 (CPUID_AVX2 | CPUID_FMA | CPUID_F16C)
/* What core/kernels/simd_avx512.c needs (the Makefile's AVX512_FLAGS). */
#define CPUID_LEVEL_AVX512                                                     \
    (CPUID_LEVEL_AVX2 | CPUID_AVX512F | CPUID_AVX512BW | CPUID_AVX512VL |      \
     CPUID_AVX512DQ | CPUID_AVX512BF16 | CPUID_AVX512VNNI)

/* Bitwise OR of enum cpuid_feature for the running CPU.  Cheap after the
** first call is not guaranteed: callers cache the result they derive. */
unsigned cpuid_features(void);

/*
** The names of the features in F (from cpuid_features) that the kernels
** care about, space-separated, in a fixed order: "avx2 fma f16c avx512f
** avx512bw avx512vl avx512dq bf16 vnni avx_vnni" (bf16 / vnni: the AVX-512
** forms); "none" when F is 0.  Writes at most N bytes including the NUL
** into BUF (owned by the caller; truncated if short); returns BUF.
*/
char *cpuid_feature_names(unsigned f, char *buf, unsigned long n);

#endif
