/*
** kernels.h -- the compute kernels of the forward pass.
**
** Weight matrices are passed as a kern_mat (dtype + data + dims).  A matrix
** is always applied as y = W x with W stored [rows = out][cols = in]
** row-major (PyTorch Linear layout), in float32, bfloat16, IEEE half,
** blockwise int8 (simd.h's Q8: int8 codes and one fp32 scale per 32
** weights) or blockwise 4-bit (simd.h's Q4: 4-bit codes, a bf16 scale and
** offset per 32 weights).  Accumulation is always float32 and activations come in and go
** out as float32.
**
** The products run on core/kernels/simd.h's kernels (AVX-512 / AVX2 / portable,
** picked at run time) and are split across the thread pool by output rows
** (simd_split_rows: contiguous, 4-aligned ranges, so the result of a row does
** not depend on the thread count).  One token goes to the matrix-vector
** kernel, several to the matrix-matrix kernel (activations prepared once,
** by the pool's threads, and shared read-only; split by simd_split_matmul:
** 64-row bands, or token ranges for matrices with few rows -- results
** again independent of the thread count).
*/
#ifndef RWKV_KERNELS_H
#define RWKV_KERNELS_H

#include <stddef.h>

#include "simd.h"
#include "threadpool.h"

/* Same values as enum simd_dtype. */
enum kern_dtype { KERN_F32 = SIMD_F32, KERN_BF16 = SIMD_BF16, KERN_F16 = SIMD_F16,
                  KERN_Q8 = SIMD_Q8, KERN_Q4 = SIMD_Q4 };

typedef struct kern_mat {
    enum kern_dtype dtype;
    int             rows, cols;   /* out, in */
    const void     *data;         /* borrowed: float / uint16_t / int8_t [rows][cols],
                                     KERN_Q4: rows of codes and block words (simd.h) */
    const float    *scales;       /* borrowed, KERN_Q8: [rows][simd_q8_nblocks(cols)];
                                     NULL for the others */
} kern_mat;

/*
** What a product runs with: the pool (may be NULL), the kernel table and a
** scratch area for prepared activations (simd_act_bytes for the widest
** matrix and the longest pass; owned by whoever made the context) and one
** for the one-token products' (kern_mv_ws_bytes, the largest over the
** matrices; 64-byte aligned).  Plain data, filled in by the model at open.
*/
/* Wall time and weight bytes of one-token products (kern_matmul with T = 1,
** kern_matvec_multi), added up while a kern_ctx points at one: decode's
** products, which `rwkv-tui bench` reports apart from the work between
** them.  Written by the calling thread only. */
typedef struct kern_tally {
    double seconds;
    double bytes;
} kern_tally;

typedef struct kern_ctx {
    tpool              *pool;
    const simd_kernels *k;
    void               *act_ws;
    size_t              act_bytes;
    void               *mv_ws;
    size_t              mv_bytes;
    kern_tally         *tally;      /* NULL: not counted */
} kern_ctx;

/* The kernel table to use: simd_kernels_best(0), or the one named by the
** environment variable RWKV_KERNELS ("portable", "avx2", "avx2-vnni",
** "avx512", "avx512-exact") when the CPU has it (for comparisons). */
const simd_kernels *kern_default_kernels(void);
/* "" when RWKV_KERNELS is unset or was followed; else one line saying why
** it was not (an unknown name, a set this CPU cannot run) and what runs. */
const char *kern_env_note(void);
/* For a report of the kernels: "" (unset), "RWKV_KERNELS set" or
** "RWKV_KERNELS not followed". */
const char *kern_env_state(void);

/*
** Y[t][o] = sum_i W[o][i] * X[t][i] for t < T (X is [T][cols], Y [T][rows]).
** CTX NULL: single-threaded, kern_default_kernels(), token by token.
*/
void kern_matmul(const kern_ctx *ctx, const kern_mat *w, const float *x, size_t t,
                 float *y);
/*
** One-token products batched into ONE pool dispatch (decode): several
** matrices, each applied to its own input vector, with an optional
** element-wise function applied to each output as it is written.
*/
enum kern_act {          /* computed by vmath.h's vm_* (as prefill does) */
    KERN_ACT_NONE = 0,
    KERN_ACT_TANH,      /* y = tanh(y) */
    KERN_ACT_SIGMOID,   /* y = sigmoid(y) */
    KERN_ACT_RELU2      /* y = max(y, 0)^2 */
};

typedef struct kern_mv {
    const kern_mat *w;     /* borrowed */
    const float    *x;     /* [w->cols], borrowed */
    float          *y;     /* [w->rows] OUT; must not be any product's x */
    enum kern_act   act;
} kern_mv;

/* Most products in one kern_matvec_multi call. */
#define KERN_MV_MAX 16

/*
** Y_i = act_i(W_i X_i) for the N (<= KERN_MV_MAX) products of LIST, in one
** dispatch of CTX's pool: the rows of all the matrices, weighted by their
** weight bytes, are cut into equal shares (row boundaries multiples of
** SIMD_ROW_ALIGN), so every thread streams about the same number of bytes
** and small products (LoRAs) ride along with big ones instead of costing a
** dispatch (or a single thread) each.  Every y equals kern_matmul's (plus
** the act) bit for bit, for any thread count.  CTX NULL: single-threaded.
*/
void kern_matvec_multi(const kern_ctx *ctx, const kern_mv *list, int n);

/*
** Scratch bytes (kern_ctx.mv_ws) with which one-token products by W run
** with X prepared once per product rather than once per thread's share
** (simd_mv_prep_bytes: 4-bit matrices quantize X); 0 for most formats.
** Without it they still run, each share preparing its own.
*/
size_t kern_mv_ws_bytes(const kern_mat *w);

/*
** Quantize rows [r0, r1) of SRC [rows][cols] to simd.h's Q8 format (codes
** into Q [rows][cols], scales into SCALES [rows][simd_q8_nblocks(cols)]),
** choosing each block's scale by least squares (smaller error than
** simd_q8_quantize's max/127, same kernels).  Disjoint row ranges may run
** concurrently.
*/
void kern_q8_quantize(const float *src, int64_t cols, int64_t r0, int64_t r1, int8_t *q,
                      float *scales);
/* Bytes of KERN_* element data (Q8: 1, scales not counted; Q4: 0, see
** kern_data_bytes). */
size_t kern_dtype_size(enum kern_dtype dt);
/* Bytes of the data and of the scales of a [ROWS][COLS] matrix of DT. */
uint64_t kern_data_bytes(enum kern_dtype dt, int64_t rows, int64_t cols);
uint64_t kern_scale_bytes(enum kern_dtype dt, int64_t rows, int64_t cols);
/* Bytes W occupies (data + scales). */
size_t kern_mat_bytes(const kern_mat *w);
/* Dot product of N floats. */
float kern_dot(const float *a, const float *b, size_t n);
/* Y = layer_norm(X) * W + B over N values (biased variance); Y may be X. */
void kern_layer_norm(const float *x, const float *w, const float *b, float *y,
                     size_t n, float eps);
/* Group norm of H groups of N values each, per-channel W and B; Y may be X. */
void kern_group_norm(const float *x, const float *w, const float *b, float *y,
                     size_t h, size_t n, float eps);

/* 4-float SIMD vectors (GCC/Clang vector extension: SSE on any x86-64, NEON
 * on arm64) for the small element-wise loops. */
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
