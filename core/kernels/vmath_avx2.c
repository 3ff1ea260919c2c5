/*
** vmath_avx2.c -- the vmath kernels (vmath_impl.h) with 8-float vectors,
** compiled with the Makefile's AVX2_FLAGS and used only after vm_get()
** checked the CPU.
*/
#if defined(__x86_64__)

#define VM_W     8
#define VM_TABLE vm_ops_avx2
#define VM_NAME  "avx2"
#define VM_ISA   SIMD_ISA_AVX2
#include "vmath_impl.h"

#else
typedef int vmath_avx2_unused;   /* ISO C: no empty translation unit */
#endif
