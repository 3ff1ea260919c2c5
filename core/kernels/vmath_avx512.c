/*
** vmath_avx512.c -- the vmath kernels (vmath_impl.h) with 16-float vectors,
** compiled with the Makefile's AVX512_FLAGS and used only after vm_get()
** checked the CPU.
*/
#if defined(__x86_64__)

#define VM_W     16
#define VM_TABLE vm_ops_avx512
#define VM_NAME  "avx512"
#define VM_ISA   SIMD_ISA_AVX512
#include "vmath_impl.h"

#else
typedef int vmath_avx512_unused;   /* ISO C: no empty translation unit */
#endif
