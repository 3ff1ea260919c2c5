/*
** kernels.h -- the float32 compute kernels of the forward pass.
**
** Weight matrices are passed as a kern_mat (dtype + pointer + dims) so that
** quantised or bf16 variants can be added behind the same calls later.  A
** matrix is always applied as y = W x with W stored [rows = out][cols = in]
** row-major (PyTorch Linear layout).  Products are split across the thread
** pool by output rows.  Plain loops with restrict pointers so that the
** compiler vectorises them.
*/
#ifndef RWKV_KERNELS_H
#define RWKV_KERNELS_H

#include <stddef.h>

#include "threadpool.h"

enum kern_dtype { KERN_F32 };

typedef struct kern_mat {
    enum kern_dtype dtype;
    int             rows, cols;   /* out, in */
    const float    *f32;          /* borrowed (model weights) */
} kern_mat;

/* Y[t][o] = sum_i W[o][i] * X[t][i] for t < T (X is [T][cols], Y [T][rows]). */
void kern_matmul(tpool *pool, const kern_mat *w, const float *x, size_t t,
                 float *y);
/* Dot product of N floats. */
float kern_dot(const float *a, const float *b, size_t n);
/* Y = layer_norm(X) * W + B over N values (biased variance); Y may be X. */
void kern_layer_norm(const float *x, const float *w, const float *b, float *y,
                     size_t n, float eps);
/* Group norm of H groups of N values each, per-channel W and B; Y may be X. */
void kern_group_norm(const float *x, const float *w, const float *b, float *y,
                     size_t h, size_t n, float eps);

/* 4-float SIMD vectors (GCC/Clang vector extension: SSE on any x86-64, NEON
 * on arm64).  Wider ISAs come as separate *_avx2.c / *_avx512.c kernels. */
typedef float kern_v4 __attribute__((vector_size(16)));

static inline kern_v4
kern_ld4(const float *p)
{
    kern_v4 v;
    __builtin_memcpy(&v, p, sizeof v);   /* unaligned load */
    return v;
}

static inline void
kern_st4(float *p, kern_v4 v)
{
    __builtin_memcpy(p, &v, sizeof v);
}

static inline float
kern_hsum(kern_v4 v)
{
    return (v[0] + v[1]) + (v[2] + v[3]);
}

static inline float kern_sigmoid(float x) { return 1.0f / (1.0f + __builtin_expf(-x)); }

#endif
