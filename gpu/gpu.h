/*
** gpu.h -- the CUDA layer: devices, device memory, cuBLAS products and the
** RWKV kernels (WKV recurrences of v5.x / v6 / v7, layer and group norms,
** fused token-shift mixes, 4-bit, int8 and fp16 weight products, element-wise
** ops).
**
** Plain C11: no CUDA header is needed to include this file.  In a build
** without CUDA (CUDA=0, or no nvcc) gpu/gpu_stub.c replaces the whole layer
** and every function returns RWKV_ENOTSUP with "built without CUDA".
**
** Conventions (they mirror core/model/model_v*.c so a layer can run on either):
**   - A gpu_ctx binds one device, one CUDA stream and one cuBLAS handle.
**     Every kernel function enqueues work on that stream and returns at
**     once; launch errors are reported by the call, errors of the work
**     itself by the next gpu_sync / gpu_download.  A context is used by one
**     host thread at a time.
**   - Pointers given to kernel functions are device pointers (gpu_alloc),
**     float32 unless stated.  Activations are row-major [T][C] (T tokens of
**     C = H*N channels); per-channel vectors are [C]; the WKV state of one
**     layer is [H][N][N] float32 laid out exactly as the CPU engine's state
**     (v5/v6: S[h][key i][value j], v7: S[h][value i][key j]), so a state
**     copied between host and device is the same bytes on either.
**   - Weight matrices are [rows = out][cols = in] (PyTorch Linear layout)
**     and a product is Y[t][r] = sum_c W[r][c] X[t][c].  Q8 is core/kernels/simd.h's
**     format: int8 codes in [-127, 127] [rows][cols] plus one float scale per
**     block of GPU_Q8_BLOCK weights along `in`: scales [rows][ceil(cols/32)].
**     Q4 is simd.h's 4-bit format: per row ceil(cols/32) blocks of 16 bytes
**     (byte j: the code of column j in its low nibble, of column j + 16 in
**     its high nibble) and one 32-bit word per block, bf16 bits of the scale
**     d in the low half and of the offset m in the high half; a weight is
**     code * d + m.
**   - Accumulation is float32 everywhere (cuBLAS with CUBLAS_COMPUTE_32F), so
**     the reference's fp16 layer rescaling is not needed.
**   - Sizes are int (a dimension) or size_t (bytes, element counts); calls
**     validate dimensions and return RWKV_EINVAL for impossible ones.
*/
#ifndef RWKV_GPU_H
#define RWKV_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "../core/status.h"

/* Weights per Q8 scale block (== SIMD_Q8_BLOCK of core/kernels/simd.h). */
#define GPU_Q8_BLOCK 32
/* Weights per Q4 block (== SIMD_Q4_BLOCK): 16 bytes of codes, one word. */
#define GPU_Q4_BLOCK 32
/* Largest head size the WKV and per-head kernels take (one thread per
 * channel of a head; the state row lives in registers). */
#define GPU_MAX_HEAD 128
/* Most mixes one gpu_token_mix call produces (v7 has six: r w k v a g). */
#define GPU_MIX_MAX 6

typedef struct gpu_ctx gpu_ctx;   /* opaque: device + stream + cuBLAS handle */

/* Plain data about a device (gpu_device_query). */
typedef struct gpu_device_info {
    int    index;
    char   name[128];
    int    cc_major, cc_minor;    /* compute capability */
    int    sm_count;
    size_t total_bytes, free_bytes;
} gpu_device_info;

/* Element types of device arrays given to gpu_gemm / gpu_convert. */
enum gpu_dtype { GPU_F32 = 0, GPU_F16, GPU_BF16 };

/* ---- devices, contexts, memory (gpu_device.c) ---- */

/* 1 when this build has CUDA compiled in, 0 for the stub. */
int gpu_compiled(void);
/*
** *N = number of usable CUDA devices.  A CUDA build on a machine without a
** driver or device returns RWKV_OK with *N = 0 (ERR says why, for a
** "skipped: ..." line); the stub returns RWKV_ENOTSUP.
*/
int gpu_device_count(int *n /* OUT */, rwkv_err *err);
int gpu_device_query(int dev, gpu_device_info *out /* OUT */, rwkv_err *err);

/* Create a context on device DEV; *OUT owned by caller (gpu_ctx_destroy). */
int gpu_ctx_create(int dev, gpu_ctx **out /* OUT */, rwkv_err *err);
/* Waits for pending work, frees the stream and handle.  NULL is fine. */
void gpu_ctx_destroy(gpu_ctx *g);
/* Wait for all work enqueued on G; reports errors of that work. */
int gpu_sync(gpu_ctx *g, rwkv_err *err);

/* BYTES of device memory on G's device; *OUT owned by caller (gpu_free). */
int gpu_alloc(gpu_ctx *g, size_t bytes, void **out /* OUT */, rwkv_err *err);
void gpu_free(gpu_ctx *g, void *p);    /* NULL is fine */
/* Page-locked host memory (fast, async copies); free with gpu_host_free. */
int gpu_host_alloc(gpu_ctx *g, size_t bytes, void **out /* OUT */, rwkv_err *err);
void gpu_host_free(gpu_ctx *g, void *p);
/* Host -> device, enqueued on G's stream (SRC must stay valid until the
 * next gpu_sync unless it is pageable memory, which CUDA copies at once). */
int gpu_upload(gpu_ctx *g, void *dst, const void *src, size_t bytes, rwkv_err *err);
/* Device -> host; waits for the copy (and all earlier work on G). */
int gpu_download(gpu_ctx *g, void *dst, const void *src, size_t bytes, rwkv_err *err);
/* Device -> device, enqueued. */
int gpu_copy(gpu_ctx *g, void *dst, const void *src, size_t bytes, rwkv_err *err);
/* Set BYTES of device memory to zero, enqueued. */
int gpu_zero(gpu_ctx *g, void *dst, size_t bytes, rwkv_err *err);

/*
** CUDA graphs: record a fixed sequence of calls once, replay it with one
** launch (a decode step is dozens of small kernels; replaying removes the
** per-launch CPU cost).  Between gpu_capture_begin and gpu_capture_end the
** kernel functions, gpu_gemm, gpu_copy and gpu_zero on G are recorded, not
** run; nothing else may be called on G (no upload / download / sync).
** Pointers and sizes are baked into the graph: replay with the same buffers.
*/
typedef struct gpu_graph gpu_graph;   /* opaque */
int gpu_capture_begin(gpu_ctx *g, rwkv_err *err);
/* Ends the recording (also after a failed call); *OUT owned by caller. */
int gpu_capture_end(gpu_ctx *g, gpu_graph **out /* OUT */, rwkv_err *err);
/* Enqueue the recorded work on G's stream. */
int gpu_graph_launch(gpu_ctx *g, gpu_graph *gr, rwkv_err *err);
void gpu_graph_destroy(gpu_graph *gr);   /* NULL is fine */

/*
** Events, for ordering work between two contexts on one device (the layer
** streaming of `*N+` plans copies on a second context while the first
** computes).  An event is made on G's device; record it on one context's
** stream, make another context's stream wait for it.
*/
typedef struct gpu_event gpu_event;   /* opaque */
int  gpu_event_create(gpu_ctx *g, gpu_event **out /* OUT */, rwkv_err *err);
void gpu_event_destroy(gpu_event *e);     /* NULL is fine */
/* Record E on G's stream (after the work enqueued so far). */
int  gpu_event_record(gpu_ctx *g, gpu_event *e, rwkv_err *err);
/* Work enqueued on G after this call waits for E's latest record. */
int  gpu_stream_wait(gpu_ctx *g, gpu_event *e, rwkv_err *err);

/*
** Device-to-device copy bandwidth of device DEV in bytes/s, counted as read
** + write (2 x bytes copied per second: the yardstick for "fraction of the
** memory bandwidth"): the best of REPS timed copies of BYTES after a warm-up.
** Makes and frees its own context and buffers.
*/
int gpu_copy_bandwidth(int dev, size_t bytes, int reps, double *bytes_per_s /* OUT */,
                       rwkv_err *err);

/*
** The CUDA backend of core/model/backend.h (gpu_model.c): after this call model
** strategies with `cuda` stages run on the GPU(s).  Call once at start-up,
** before opening models.  The CPU-only build's stub does nothing (cuda
** strategies then say "built without CUDA").
*/
void gpu_backend_register(void);

/* ---- cuBLAS (gpu_blas.c) ---- */

/*
** Y[t][r] = sum_c W[r][c] X[t][c] (+ BETA * Y[t][r]) for t < T, r < ROWS:
** W [rows][cols] and X [T][cols] both of type DT (GPU_F16, GPU_BF16, or
** GPU_F32 for true fp32 products, no TF32), Y [T][ldy] float32, ldy >= rows.
** cublasGemmEx with fp32 accumulation.
*/
int gpu_gemm(gpu_ctx *g, enum gpu_dtype dt, const void *w, int rows, int cols,
             const void *x, int t, float *y, int ldy, float beta, rwkv_err *err);
/* gpu_gemm with X's rows LDX elements apart (ldx >= cols): X [T][ldx]. */
int gpu_gemm_ldx(gpu_ctx *g, enum gpu_dtype dt, const void *w, int rows, int cols,
                 const void *x, int ldx, int t, float *y, int ldy, float beta, rwkv_err *err);

/* ---- kernels (gpu_kernels.cu) ---- */

/* DST[i] = SRC[i] converted to DT (f16 / bf16: round to nearest even). */
int gpu_convert(gpu_ctx *g, const float *src, enum gpu_dtype dt, void *dst, size_t n,
                rwkv_err *err);

/*
** Dequantize Q8 weights Q [rows][cols] with SCALES [rows][ceil(cols/32)] to
** DST [rows][cols] of type DT: dst = DT(float(q) * scale) (f16 / bf16 round
** to nearest even).  For prefill: dequantize a layer's matrix into a scratch
** once, then gpu_gemm, instead of re-reading the codes every 8 tokens.
*/
int gpu_dequant_q8(gpu_ctx *g, const int8_t *q, const float *scales, int rows, int cols,
                   enum gpu_dtype dt, void *dst, rwkv_err *err);
/* The same for Q4: codes Q [rows][ceil(cols/32)][16], block words DM
 * [rows][ceil(cols/32)]; dst = DT(code * d + m) (code * d is exact in fp32,
 * so the value is simd_q4_dequantize_row's bit for bit). */
int gpu_dequant_q4(gpu_ctx *g, const uint8_t *q, const uint32_t *dm, int rows, int cols,
                   enum gpu_dtype dt, void *dst, rwkv_err *err);

/*
** Own weight products for decode and short passes (fp32 activations, fp32
** accumulation, one warp per output row): Y [T][rows] = W X.
**   Q8:  Q int8 [rows][cols], SCALES [rows][ceil(cols/32)].
**   Q4:  Q codes [rows][ceil(cols/32)][16], DM block words [rows][ceil(cols/32)]
**        (the weights code * d + m against fp32 activations: unlike the CPU's
**        Q4 matvec, x is not quantized).
**   F16: W binary16 bits [rows][cols].
*/
int gpu_matmul_q8(gpu_ctx *g, const int8_t *q, const float *scales, int rows, int cols,
                  const float *x, int t, float *y, rwkv_err *err);
int gpu_matmul_q4(gpu_ctx *g, const uint8_t *q, const uint32_t *dm, int rows, int cols,
                  const float *x, int t, float *y, rwkv_err *err);
int gpu_matmul_f16(gpu_ctx *g, const uint16_t *w, int rows, int cols, const float *x,
                   int t, float *y, rwkv_err *err);

/* Y[t] = layer_norm(X[t]) * W + B over C values (biased variance, EPS);
 * Y may be X.  Means and variances in double, like kern_layer_norm. */
int gpu_layer_norm(gpu_ctx *g, const float *x, const float *w, const float *b, float *y,
                   int t, int c, float eps, rwkv_err *err);
/* Group norm of H groups of N per token with per-channel W, B, then times
 * GATE[t][c] when GATE is not NULL (v5.1+/v6: y = GN(x) * silu(g), with the
 * silu applied by the caller); Y may be X. */
int gpu_group_norm(gpu_ctx *g, const float *x, const float *w, const float *b,
                   const float *gate, float *y, int t, int h, int n, float eps,
                   rwkv_err *err);

/* Token-shift mixes: SX[t] = XN[t-1] (PREV for t = 0), then PREV = XN[T-1]. */
enum gpu_mix_form {
    GPU_MIX_V5 = 0,  /* out = xx * mix + sx * (1 - mix)   (v4, v5.x)   */
    GPU_MIX_LERP     /* out = xx + (sx - xx) * mix        (v6, v7)     */
};
typedef struct gpu_mix {
    enum gpu_mix_form form;
    int          n;                    /* mixes, 0..GPU_MIX_MAX        */
    const float *mix[GPU_MIX_MAX];     /* [C] each                     */
    float       *out[GPU_MIX_MAX];     /* [T][C] each                  */
    float       *delta;                /* optional [T][C]: sx - xx     */
} gpu_mix;
/* All mixes of MX from XN [T][C] in one pass; updates PREV [C].  The outputs
 * (and delta) must not overlap XN or PREV: tokens run in parallel. */
int gpu_token_mix(gpu_ctx *g, const float *xn, float *prev, int t, int c,
                  const gpu_mix *mx, rwkv_err *err);
/* gpu_layer_norm of X into XN, then gpu_token_mix of XN: one launch for one
 * token (decode; XN is written as well), the two calls otherwise.  XN must
 * not be NULL when T > 1. */
int gpu_ln_mix(gpu_ctx *g, const float *x, const float *w, const float *b, float *xn,
               float *prev, int t, int c, float eps, const gpu_mix *mx, rwkv_err *err);
/* v6 second stage: OUT[t][c] = XN + DELTA * (MAA[c] + ADD[t][c]). */
int gpu_mix_add(gpu_ctx *g, const float *xn, const float *delta, const float *maa,
                const float *add, float *out, int t, int c, rwkv_err *err);

/* Element-wise ops over N values; operands named "[C]" are per-channel
 * vectors indexed i % PERIOD.  Y may alias any input. */
enum gpu_op {
    GPU_OP_ADD = 0,      /* y = a + b                                  */
    GPU_OP_MUL,          /* y = a * b                                  */
    GPU_OP_SILU,         /* y = a * sigmoid(a)                         */
    GPU_OP_SIGMOID,      /* y = sigmoid(a)                             */
    GPU_OP_TANH,         /* y = tanh(a)                                */
    GPU_OP_RELU_SQ,      /* y = max(a, 0)^2                            */
    GPU_OP_SIGMUL_ADD,   /* y = a + sigmoid(b) * c   (v4-v6 FFN out)   */
    GPU_OP_V6_DECAY,     /* y = exp(-exp(b[C] + a))                    */
    GPU_NOP
};
int gpu_ewise(gpu_ctx *g, enum gpu_op op, size_t n, int period, const float *a,
              const float *b, const float *c, float *y, rwkv_err *err);

/*
** Several products in one launch (decode: a layer's products that share no
** data run together; the activation and the residual add fused into each):
**     Y [T][rows] (+)= ACT(W X),  X [T][ldx] (ldx 0: cols).
** ACT: GPU_NOP, GPU_OP_TANH, GPU_OP_SIGMOID, GPU_OP_SILU or GPU_OP_RELU_SQ;
** ACCUMULATE 1 adds to Y.  No job's Y may overlap any job's X or another
** job's Y.  Weights as for the calls above (GPU_W_BF16: bfloat16 bits,
** GPU_W_F32: floats [rows][cols]); one warp per output row, T tokens in
** passes of 8.
*/
enum gpu_wtype { GPU_W_F32 = 0, GPU_W_F16, GPU_W_BF16, GPU_W_Q8, GPU_W_Q4 };
#define GPU_MMB_MAX 8
typedef struct gpu_mm_job {
    enum gpu_wtype wt;
    const void    *w;            /* weights (Q8 / Q4: the codes)          */
    const void    *scales;       /* Q8 scales / Q4 block words, else NULL  */
    int            rows, cols, ldx;
    const float   *x;
    float         *y;
    enum gpu_op    act;
    int            accumulate;
} gpu_mm_job;
int gpu_matmul_batch(gpu_ctx *g, const gpu_mm_job *jobs, int n, int t, rwkv_err *err);

/*
** WKV of v5.x and v6, T tokens sequentially, state S [H][N][N] (key i,
** value j) updated in place:
**     y_j = sum_i r_i (u_i k_i v_j + S_ij),   S_ij = k_i v_j + w_i S_ij.
** R, K, V, Y [T][H*N].  W and U by version:
**   v5.0/5.1: W, U [H]  (one value per head)      W_TOK = 0, CHAN = 0
**   v5.2:     W, U [C]  (per key channel)         W_TOK = 0, CHAN = 1
**   v6:       W [T][C] (per token), U [C]         W_TOK = 1, CHAN = 1
** (W is the decay factor itself, exp(-exp(.)), as in core's mdl_layer.)
*/
int gpu_wkv5(gpu_ctx *g, int t, int h, int n, float *state, const float *r,
             const float *k, const float *v, const float *w, const float *u, int w_tok,
             int chan, float *y, rwkv_err *err);
/*
** WKV of v7, T tokens sequentially, state S [H][N][N] (value i, key j):
**     S = S diag(w) + (S (-kk)) (kka)^T + v k^T,   y = S r.
** R, W, K, V, KK, KKA (= kk * a), Y [T][H*N].
*/
int gpu_wkv7(gpu_ctx *g, int t, int h, int n, float *state, const float *r,
             const float *w, const float *k, const float *v, const float *kk,
             const float *kka, float *y, rwkv_err *err);

/*
** v7 per-token preparation, fused (in place, [T][C] each), as model_v7.c:
**   a  = sigmoid(a0 + a);  kk = normalize_per_head(k * k_k);
**   k  = k * (1 + (a - 1) * k_a);  a = kk * a  (a then holds kk*a);
**   w  = exp(-0.606531 * sigmoid(w0 + w));
**   if VF: v = v + (vf - v) * sigmoid(v0 + vg)   (layers > 0).
*/
typedef struct gpu_v7_prep_args {
    float       *k, *a, *kk, *w, *v;        /* [T][C]; kk is OUT only */
    const float *vf, *vg;                   /* [T][C] or both NULL (layer 0) */
    const float *a0, *k_k, *k_a, *w0, *v0;  /* [C] */
} gpu_v7_prep_args;
int gpu_v7_prep(gpu_ctx *g, int t, int h, int n, const gpu_v7_prep_args *p,
                rwkv_err *err);
/*
** v7 WKV output, fused, in place on Y [T][C]:
**   y = (group_norm(y) * lnx_w + lnx_b + (sum_head r*k*r_k) * v) * g.
*/
int gpu_v7_out(gpu_ctx *g, int t, int h, int n, float *y, const float *r, const float *k,
               const float *v, const float *gate, const float *lnx_w, const float *lnx_b,
               const float *r_k, float eps, rwkv_err *err);

/*
** One token of v7's attention after the products, in one launch:
** gpu_v7_prep (P's vectors read, not written), gpu_wkv7 (STATE in place)
** and gpu_v7_out into Y [C] (Y may not be P's k or v), with the same
** results.  Decode's path; T > 1 takes the three calls.
*/
int gpu_v7_att1(gpu_ctx *g, int h, int n, float *state, const gpu_v7_prep_args *p,
                const float *r, const float *gate, const float *lnx_w, const float *lnx_b,
                const float *r_k, float eps, float *y, rwkv_err *err);

#ifdef __cplusplus
}
#endif

#endif
