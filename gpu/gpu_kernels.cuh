/*
** gpu_kernels.cuh -- the RWKV kernels on CUDA (device code only), mirroring core/model/model_v5.c,
** model_v6.c, model_v7.c and core/kernels/kernels.c operation by operation (same
** formulas, same order of the per-element arithmetic; reductions are
** tree-shaped here, so sums differ from the CPU's sequential ones by
** rounding only).
**
** Launch shapes (every kernel runs on the context's stream):
**   WKV (v5/v6)           grid H, block N: one block per head, one thread
**                         per channel of the head holding its state column
**                         (value j) in registers, the T tokens run
**                         sequentially inside the block, the per-token vectors
**                         of the head staged in shared memory WKV_CH tokens at
**                         a time.  N is a template parameter (8..128).
**   WKV (v7)              grid (H, N / 32), block 32 rows x 4 lanes: a state
**                         row (value i) split over 4 lanes' registers, rows
**                         independent, chunks staged as for v5.
**   per-head norms        grid (H, T), block pad32(N): group norm, v7 prep
**   (v7 prep / out)       and v7 out reduce over one head of one token.
**   layer norm            grid T, block 256.
**   token mix             grid (C / 128, T), one thread per channel and token
**                         (the t = 0 thread owns prev[c]: reads, then writes).
**   matmul q8 / q4 / f16  one warp per output row, MM_TILE tokens (1 for decode) in
**                         registers per pass over the row (k_matmul; the weight
**                         formats q8_view, q4_view, f16_view give the loads).
**   element-wise          grid-stride loops.
** Included by gpu_kernels.cu (after cuda_fp16.h / cuda_bf16.h; the host
** wrappers are there) and by tests/gpu/test_gpu_emu.cpp, which runs these
** kernels on the CPU through tests/gpu/emu_cuda.h so CI checks their index
** arithmetic without a GPU: no CUDA runtime call may appear here.
** Invariants: state is float32 [H][N][N] in the CPU engine's layout; all
** sums of norms are in double (as kern_layer_norm); fp32 everywhere else.
*/
#ifndef RWKV_GPU_KERNELS_CUH
#define RWKV_GPU_KERNELS_CUH

#include <math.h>
#include <stdint.h>

#include "gpu.h"

static_assert(GPU_Q4_BLOCK == GPU_Q8_BLOCK, "k_matmul_batch counts Q8 and Q4 blocks alike");

/* Tokens per pass of the matmul kernels (accumulators per lane). */
#define MM_TILE 8
/* Warps per block of the matmul kernels. */
#define MM_WARPS 8
/* Threads per block of layer norm and element-wise kernels. */
#define LN_THREADS 256
#define EW_THREADS 256
/* Most blocks of a grid-stride element-wise launch. */
#define EW_MAX_BLOCKS 4096
/* Largest grid.y (tokens per call of the per-head kernels). */
#define GRID_Y_MAX 65535
/* v7 decay scale exp(-0.5) and F.normalize eps (as core/model/model_v7.c). */
#define V7_DECAY_SCALE 0.606531f
#define V7_NORM_EPS 1e-12f

static __device__ __forceinline__ float
sigmoidf_(float x)
{
    return 1.0f / (1.0f + expf(-x));
}

/*
** Sum of V over the block.  blockDim.x must be a multiple of 32 (<= 1024);
** every thread of the block must call it; SH has 32 slots.  The leading
** barrier protects SH from the readers of a previous call.
*/
template <typename F>
static __device__ __forceinline__ F
block_sum(F v, F *sh)
{
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    F s = 0;

    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();
    if (lane == 0)
        sh[wid] = v;
    __syncthreads();
    for (int i = 0; i < nw; i++)
        s += sh[i];
    return s;
}

static __device__ __forceinline__ float
warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* ---------------------------------------------------------------- convert */

__global__ void
k_to_f16(const float *__restrict__ s, __half *__restrict__ d, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        d[i] = __float2half_rn(s[i]);
}

__global__ void
k_to_bf16(const float *__restrict__ s, __nv_bfloat16 *__restrict__ d, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        d[i] = __float2bfloat16_rn(s[i]);
}

/* A dequantized weight as T (float, __half or __nv_bfloat16). */
static __device__ __forceinline__ void
store_as(float *d, float v) { *d = v; }
static __device__ __forceinline__ void
store_as(__half *d, float v) { *d = __float2half_rn(v); }
static __device__ __forceinline__ void
store_as(__nv_bfloat16 *d, float v) { *d = __float2bfloat16_rn(v); }

/*
** Weight formats of the products and of k_dequant.  Each gives weight
** (r, c) as a float (at: any shape, the scalar path), says whether its
** vector path may run (vec_ok: shape and alignment) and has that path
** (row<TILE>: lane LANE's share of row R against TN <= TILE token rows of
** X, added to ACC[TILE]; the warp's lanes together cover every column).
*/

/* Q8: int8 codes [rows][cols] * an fp32 scale per 32-block. */
struct q8_view {
    const int8_t *q;
    const float *sc;
    int cols, nb;

    __device__ __forceinline__ float at(size_t r, int c) const
    {
        return (float)q[r * cols + c] * sc[r * nb + c / GPU_Q8_BLOCK];
    }
    /* vector loads need 4-byte aligned rows of codes and 16-byte aligned x rows */
    __device__ __forceinline__ bool vec_ok(const float *x, int ldx) const
    {
        return (cols & 3) == 0 && (ldx & 3) == 0 && ((uintptr_t)q & 3) == 0 &&
               ((uintptr_t)x & 15) == 0;
    }
    /* 4 codes per lane (one char4 load), all in one 32-block */
    template <int TILE>
    __device__ __forceinline__ void row(int r, int lane, const float *__restrict__ xt, int ldx,
                                        int tn, float *acc) const
    {
        const int8_t *qr = q + (size_t)r * cols;
        const float *sr = sc + (size_t)r * nb;

        /* (unrolled 4 times the 8-token tile spilled 24 bytes, sm_90) */
#pragma unroll (TILE == 1 ? 4 : 2)
        for (int c = lane * 4; c < cols; c += 128) {
            char4 qq = *(const char4 *)(qr + c);
            float s = sr[c / GPU_Q8_BLOCK];
            float q0 = (float)qq.x, q1 = (float)qq.y, q2 = (float)qq.z, q3 = (float)qq.w;
#pragma unroll
            for (int tt = 0; tt < TILE; tt++) {
                if (tt < tn) {
                    float4 xv = *(const float4 *)(xt + (size_t)tt * ldx + c);
                    acc[tt] += s * (q0 * xv.x + q1 * xv.y + q2 * xv.z + q3 * xv.w);
                }
            }
        }
    }
};

/* Scale d and offset m of a Q4 block word (bf16 bits in each half). */
static __device__ __forceinline__ void
q4_dm(uint32_t u, float *d, float *m)
{
    *d = __uint_as_float(u << 16);
    *m = __uint_as_float(u & 0xffff0000u);
}

/* Q4: per 32-block 16 bytes of 4-bit codes and a word (d, m); weight =
 * code * d + m (code * d is exact: 4 x 8 significant bits, so fused or not
 * the sum rounds once, as on the CPU). */
struct q4_view {
    const uint8_t *q;
    const uint32_t *dm;
    int cols, nb;

    __device__ __forceinline__ float at(size_t r, int c) const
    {
        size_t b = r * nb + c / GPU_Q4_BLOCK;
        int j = c % GPU_Q4_BLOCK, code;
        float d, m;

        code = j < 16 ? q[b * 16 + j] & 15 : q[b * 16 + j - 16] >> 4;
        q4_dm(dm[b], &d, &m);
        return (float)code * d + m;
    }
    /* vector loads need whole blocks and 16-byte aligned codes and x rows */
    __device__ __forceinline__ bool vec_ok(const float *x, int ldx) const
    {
        return cols % GPU_Q4_BLOCK == 0 && (ldx & 3) == 0 &&
               (((uintptr_t)q | (uintptr_t)x) & 15) == 0;
    }
    /*
    ** Four lanes per block, eight blocks (128 bytes of codes) per warp and
    ** step: lane l takes bytes 4 (l % 4) .. + 3 of block l / 4, i.e. columns
    ** 4 (l % 4) + 0..3 (low nibbles) and 16 + 4 (l % 4) + 0..3 (high
    ** nibbles), so its x loads are two float4 and each four lanes read 64
    ** contiguous bytes of x (coalesced, as Q8's).
    */
    template <int TILE>
    __device__ __forceinline__ void row(int r, int lane, const float *__restrict__ xt, int ldx,
                                        int tn, float *acc) const
    {
        const uint8_t *qr = q + (size_t)r * nb * 16;
        const uint32_t *dr = dm + (size_t)r * nb;
        int sub = lane & 3;

#pragma unroll 4
        for (int b = lane >> 2; b < nb; b += 8) {
            uint32_t u = *(const uint32_t *)(qr + (size_t)b * 16 + sub * 4);
            int c = b * GPU_Q4_BLOCK + sub * 4;
            float d, m, w[8];
            q4_dm(dr[b], &d, &m);
#pragma unroll
            for (int i = 0; i < 4; i++) {
                w[i] = (float)((u >> (8 * i)) & 15) * d + m;
                w[4 + i] = (float)((u >> (8 * i + 4)) & 15) * d + m;
            }
#pragma unroll
            for (int tt = 0; tt < TILE; tt++) {
                if (tt < tn) {
                    const float *xp = xt + (size_t)tt * ldx + c;
                    float4 lo = *(const float4 *)xp, hi = *(const float4 *)(xp + 16);
                    acc[tt] += w[0] * lo.x + w[1] * lo.y + w[2] * lo.z + w[3] * lo.w +
                               w[4] * hi.x + w[5] * hi.y + w[6] * hi.z + w[7] * hi.w;
                }
            }
        }
    }
};

/* ACC[tt] += the 8 weights F . x[tt][c .. c + 7] for the TN <= TILE token
 * rows of XT (row stride LDX; 16-byte aligned), in the order f0 x0 + f1 x1 ... */
template <int TILE>
static __device__ __forceinline__ void
dot8(const float *f, const float *__restrict__ xt, int ldx, int c, int tn, float *acc)
{
#pragma unroll
    for (int tt = 0; tt < TILE; tt++) {
        if (tt < tn) {
            const float *xp = xt + (size_t)tt * ldx + c;
            float4 a = *(const float4 *)xp, b = *(const float4 *)(xp + 4);
            acc[tt] += f[0] * a.x + f[1] * a.y + f[2] * a.z + f[3] * a.w + f[4] * b.x +
                       f[5] * b.y + f[6] * b.z + f[7] * b.w;
        }
    }
}

/* F16: binary16 weights [rows][cols]. */
struct f16_view {
    const __half *w;
    int cols;

    __device__ __forceinline__ float at(size_t r, int c) const
    {
        return __half2float(w[r * cols + c]);
    }
    /* vector loads need 16-byte aligned rows of W and X */
    __device__ __forceinline__ bool vec_ok(const float *x, int ldx) const
    {
        return (cols & 7) == 0 && (ldx & 3) == 0 && (((uintptr_t)w | (uintptr_t)x) & 15) == 0;
    }
    /* 8 weights per lane: one 16-byte load */
    template <int TILE>
    __device__ __forceinline__ void row(int r, int lane, const float *__restrict__ xt, int ldx,
                                        int tn, float *acc) const
    {
        const __half *wr = w + (size_t)r * cols;

#pragma unroll (TILE == 1 ? 4 : 2)
        for (int c = lane * 8; c < cols; c += 256) {
            uint4 raw = *(const uint4 *)(wr + c);
            const __half2 *h2 = (const __half2 *)&raw;
            float f[8];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                float2 p = __half22float2(h2[i]);
                f[2 * i] = p.x, f[2 * i + 1] = p.y;
            }
            dot8<TILE>(f, xt, ldx, c, tn, acc);
        }
    }
};

/* BF16: bfloat16 weights [rows][cols] (a bf16 is the top half of a float). */
struct bf16_view {
    const uint16_t *w;
    int cols;

    __device__ __forceinline__ float at(size_t r, int c) const
    {
        return __uint_as_float((uint32_t)w[r * cols + c] << 16);
    }
    __device__ __forceinline__ bool vec_ok(const float *x, int ldx) const
    {
        return (cols & 7) == 0 && (ldx & 3) == 0 && (((uintptr_t)w | (uintptr_t)x) & 15) == 0;
    }
    /* 8 weights per lane: one 16-byte load */
    template <int TILE>
    __device__ __forceinline__ void row(int r, int lane, const float *__restrict__ xt, int ldx,
                                        int tn, float *acc) const
    {
        const uint16_t *wr = w + (size_t)r * cols;

#pragma unroll (TILE == 1 ? 4 : 2)
        for (int c = lane * 8; c < cols; c += 256) {
            uint4 raw = *(const uint4 *)(wr + c);
            float f[8];
            f[0] = __uint_as_float(raw.x << 16), f[1] = __uint_as_float(raw.x & 0xffff0000u);
            f[2] = __uint_as_float(raw.y << 16), f[3] = __uint_as_float(raw.y & 0xffff0000u);
            f[4] = __uint_as_float(raw.z << 16), f[5] = __uint_as_float(raw.z & 0xffff0000u);
            f[6] = __uint_as_float(raw.w << 16), f[7] = __uint_as_float(raw.w & 0xffff0000u);
            dot8<TILE>(f, xt, ldx, c, tn, acc);
        }
    }
};

/* F32: float weights [rows][cols] (the LoRA matrices, cuda fp32). */
struct f32_view {
    const float *w;
    int cols;

    __device__ __forceinline__ float at(size_t r, int c) const { return w[r * cols + c]; }
    __device__ __forceinline__ bool vec_ok(const float *x, int ldx) const
    {
        return (cols & 3) == 0 && (ldx & 3) == 0 && (((uintptr_t)w | (uintptr_t)x) & 15) == 0;
    }
    /* 4 weights per lane: one 16-byte load */
    template <int TILE>
    __device__ __forceinline__ void row(int r, int lane, const float *__restrict__ xt, int ldx,
                                        int tn, float *acc) const
    {
        const float *wr = w + (size_t)r * cols;

#pragma unroll (TILE == 1 ? 4 : 2)
        for (int c = lane * 4; c < cols; c += 128) {
            float4 q = *(const float4 *)(wr + c);
#pragma unroll
            for (int tt = 0; tt < TILE; tt++) {
                if (tt < tn) {
                    float4 a = *(const float4 *)(xt + (size_t)tt * ldx + c);
                    acc[tt] += q.x * a.x + q.y * a.y + q.z * a.z + q.w * a.w;
                }
            }
        }
    }
};

/* ACT applied to a product's sum (the batch kernel's fused epilogue). */
static __device__ __forceinline__ float
mm_act(int act, float z)
{
    switch (act) {
    case GPU_OP_TANH:    return tanhf(z);
    case GPU_OP_SIGMOID: return sigmoidf_(z);
    case GPU_OP_SILU:    return z * sigmoidf_(z);
    case GPU_OP_RELU_SQ: {
        float q = z > 0 ? z : 0.0f;
        return q * q;
    }
    default:             return z;
    }
}

/*
** Row ROW of Y (T, rows) = ACT(W (rows, cols) @ X (T, ldx)), added to Y when
** ACC: one warp, TILE tokens per pass over the row (accumulators per lane),
** F's vector path where it may run, else one weight per lane.
*/
template <int TILE, typename F>
static __device__ __forceinline__ void
mm_row(const F &f, int row, int lane, int rows, int cols, const float *__restrict__ x, int ldx,
       int T, float *__restrict__ y, int act, int acc_out)
{
    bool vec = f.vec_ok(x, ldx);

    for (int t0 = 0; t0 < T; t0 += TILE) {
        int tn = min(TILE, T - t0);
        const float *xt = x + (size_t)t0 * ldx;
        float acc[TILE];

#pragma unroll
        for (int tt = 0; tt < TILE; tt++)
            acc[tt] = 0;
        if (vec) {
            f.template row<TILE>(row, lane, xt, ldx, tn, acc);
        } else {
            for (int c = lane; c < cols; c += 32) {
                float wv = f.at((size_t)row, c);
#pragma unroll
                for (int tt = 0; tt < TILE; tt++)
                    if (tt < tn)
                        acc[tt] += wv * xt[(size_t)tt * ldx + c];
            }
        }
#pragma unroll
        for (int tt = 0; tt < TILE; tt++) {
            if (tt < tn) {   /* uniform over the warp */
                float z = mm_act(act, warp_sum(acc[tt]));
                if (lane == 0) {
                    float *yp = y + (size_t)(t0 + tt) * rows + row;
                    *yp = acc_out ? *yp + z : z;
                }
            }
        }
    }
}

/* D[i] = weight i of the [n / cols][cols] matrix V, as T. */
template <typename V, typename T>
__global__ void
k_dequant(V v, int cols, size_t n, T *__restrict__ d)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        store_as(d + i, v.at(i / (size_t)cols, (int)(i % (size_t)cols)));
}

/* ----------------------------------------------------------------- matmul */

/*
** Y (T, rows) = W (rows, cols) @ X (T, cols), W in format F, X and Y fp32:
** one warp per output row, TILE tokens per pass over the row (accumulators
** per lane), F's vector path where it may run, else one weight per lane.
*/
template <int TILE, typename F>
__global__ void __launch_bounds__(MM_WARPS * 32)
k_matmul(F f, int rows, int cols, const float *__restrict__ x, int T, float *__restrict__ y)
{
    int row = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5), lane = threadIdx.x & 31;

    if (row >= rows)
        return;   /* the whole warp leaves together */
    mm_row<TILE>(f, row, lane, rows, cols, x, cols, T, y, GPU_NOP, 0);
}

/* The products of one k_matmul_batch launch: job i takes blocks
 * [first[i], first[i + 1]), MM_WARPS rows each. */
struct mmb_args {
    int          n;
    unsigned     first[GPU_MMB_MAX + 1];
    gpu_mm_job   j[GPU_MMB_MAX];
};

/*
** Several products (each its own weights, format, input, output and fused
** epilogue) in one launch: the block finds its job and runs mm_row on it.
** One launch instead of one per product, an element-wise pass for the
** activation and one for the residual add: the decode of a layer is a few
** dozen small kernels otherwise, and their launches cost more than the reads.
*/
template <int TILE>
__global__ void __launch_bounds__(MM_WARPS * 32)
k_matmul_batch(const __grid_constant__ mmb_args a, int T)
{
    int jb = 0, lane = threadIdx.x & 31, row;

    while (jb + 1 < a.n && blockIdx.x >= a.first[jb + 1])
        jb++;
    const gpu_mm_job &j = a.j[jb];
    row = (int)(blockIdx.x - a.first[jb]) * MM_WARPS + (int)(threadIdx.x >> 5);
    if (row >= j.rows)
        return;
    int ldx = j.ldx > 0 ? j.ldx : j.cols, nb = (j.cols + GPU_Q8_BLOCK - 1) / GPU_Q8_BLOCK;
    switch (j.wt) {
    case GPU_W_F16:
        mm_row<TILE>(f16_view{ (const __half *)j.w, j.cols }, row, lane, j.rows, j.cols, j.x,
                     ldx, T, j.y, j.act, j.accumulate);
        break;
    case GPU_W_BF16:
        mm_row<TILE>(bf16_view{ (const uint16_t *)j.w, j.cols }, row, lane, j.rows, j.cols,
                     j.x, ldx, T, j.y, j.act, j.accumulate);
        break;
    case GPU_W_Q8:
        mm_row<TILE>(q8_view{ (const int8_t *)j.w, (const float *)j.scales, j.cols, nb }, row,
                     lane, j.rows, j.cols, j.x, ldx, T, j.y, j.act, j.accumulate);
        break;
    case GPU_W_Q4:
        mm_row<TILE>(q4_view{ (const uint8_t *)j.w, (const uint32_t *)j.scales, j.cols, nb },
                     row, lane, j.rows, j.cols, j.x, ldx, T, j.y, j.act, j.accumulate);
        break;
    default:
        mm_row<TILE>(f32_view{ (const float *)j.w, j.cols }, row, lane, j.rows, j.cols, j.x,
                     ldx, T, j.y, j.act, j.accumulate);
        break;
    }
}

/* ------------------------------------------------------------------ norms */

/* Mean *M and 1 / std *RSTD of the C values XR, over the block (sums in
 * double, two passes, as kern_layer_norm); SH has 32 slots. */
static __device__ __forceinline__ void
row_ln_stats(const float *xr, int C, float eps, double *sh, float *m, float *rstd)
{
    double s = 0, v = 0, mean, var;

    for (int i = threadIdx.x; i < C; i += blockDim.x)
        s += xr[i];
    mean = block_sum(s, sh) / (double)C;
    for (int i = threadIdx.x; i < C; i += blockDim.x) {
        double d = xr[i] - mean;
        v += d * d;
    }
    var = block_sum(v, sh) / (double)C;
    *m = (float)mean;
    *rstd = (float)(1.0 / sqrt(var + (double)eps));
}

/* One block per row of C: y = (x - mean) * rstd * w + b (kern_layer_norm). */
__global__ void __launch_bounds__(LN_THREADS)
k_layer_norm(const float *x, const float *__restrict__ w, const float *__restrict__ b,
             float *y, int C, float eps)
{
    __shared__ double sh[32];
    const float *xr = x + (size_t)blockIdx.x * C;
    float *yr = y + (size_t)blockIdx.x * C;
    float m, rstd;

    row_ln_stats(xr, C, eps, sh, &m, &rstd);
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        yr[i] = (xr[i] - m) * rstd * w[i] + b[i];
}

/* Layer norm of X's N values of head blockIdx.x of token blockIdx.y, as the
 * thread's value (0 for the padding threads j >= N). */
static __device__ __forceinline__ float
head_norm(float xv, bool on, int N, const float *w, const float *b, int c, float eps,
          double *sh)
{
    double mean, var, d;
    float rstd;

    mean = block_sum(on ? (double)xv : 0.0, sh) / (double)N;
    d = on ? (double)xv - mean : 0.0;
    var = block_sum(d * d, sh) / (double)N;
    rstd = (float)(1.0 / sqrt(var + (double)eps));
    return on ? (xv - (float)mean) * rstd * w[c] + b[c] : 0.0f;
}

/* grid (H, T), block pad32(N): y = group_norm(x) (* gate). */
__global__ void
k_group_norm(const float *x, const float *__restrict__ w, const float *__restrict__ b,
             const float *gate, float *y, int N, int C, float eps)
{
    __shared__ double sh[32];
    int j = threadIdx.x, c = blockIdx.x * N + j;
    bool on = j < N;
    size_t o = (size_t)blockIdx.y * C + c;
    float xv = on ? x[o] : 0.0f, r;

    r = head_norm(xv, on, N, w, b, c, eps, sh);
    if (on) {
        if (gate != NULL)
            r *= gate[o];
        y[o] = r;
    }
}

/* -------------------------------------------------------------- token mix */

struct mix_args {
    int          form, n;
    const float *mix[GPU_MIX_MAX];
    float       *out[GPU_MIX_MAX];
    float       *delta;
};

/* Grid (ceil(C / 128), T), one thread per channel and token: token t's
 * previous row is xn[t - 1] (prev for t = 0).  The t = 0 thread of channel c
 * is the only one that reads prev[c], and it writes the new one (row T - 1)
 * after reading, so prev updates in place without a race. */
__global__ void
k_token_mix(const float *__restrict__ xn, float *__restrict__ prev, int T, int C,
            mix_args a)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x, t = blockIdx.y;
    size_t o = (size_t)t * C + c;
    float xx, sx, d;

    if (c >= C)
        return;
    xx = xn[o];
    sx = t == 0 ? prev[c] : xn[o - C];
    d = sx - xx;
    if (a.delta != NULL)
        a.delta[o] = d;
#pragma unroll
    for (int s = 0; s < GPU_MIX_MAX; s++) {
        if (s < a.n) {
            float m = a.mix[s][c];
            if (a.form == GPU_MIX_V5)
                a.out[s][o] = xx * m + sx * (1 - m);
            else
                a.out[s][o] = xx + d * m;
        }
    }
    if (t == 0)
        prev[c] = xn[(size_t)(T - 1) * C + c];
}

/* Threads per block of k_ln_mix1 (each block LNM_THREADS channels). */
#define LNM_THREADS 256

/*
** One token (decode): the layer norm of X's row and every token-shift mix
** of it in one launch, grid ceil(C / LNM_THREADS): each block takes the
** row's mean and variance (X whole, sums in double as k_layer_norm) and
** mixes its own channels, whose per-channel loads are issued before the
** sums.  XN gets the normed row when not NULL, PREV the new shift state;
** X must not overlap XN, PREV or the outputs (other blocks still read it).
*/
__global__ void __launch_bounds__(LNM_THREADS)
k_ln_mix1(const float *__restrict__ x, const float *__restrict__ w,
          const float *__restrict__ b, float *__restrict__ xn, float *__restrict__ prev, int C,
          float eps, mix_args a)
{
    __shared__ double sh[32];
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    bool on = c < C;
    float m, rstd, xc = 0, wc = 0, bc = 0, sx = 0, mq[GPU_MIX_MAX];

    if (on) {
        xc = x[c], wc = w[c], bc = b[c], sx = prev[c];
#pragma unroll
        for (int q = 0; q < GPU_MIX_MAX; q++)
            mq[q] = q < a.n ? a.mix[q][c] : 0.0f;
    }
    row_ln_stats(x, C, eps, sh, &m, &rstd);
    if (!on)
        return;
    float xx = (xc - m) * rstd * wc + bc, d = sx - xx;
    if (xn != NULL)
        xn[c] = xx;
    if (a.delta != NULL)
        a.delta[c] = d;
#pragma unroll
    for (int q = 0; q < GPU_MIX_MAX; q++) {
        if (q < a.n) {
            if (a.form == GPU_MIX_V5)
                a.out[q][c] = xx * mq[q] + sx * (1 - mq[q]);
            else
                a.out[q][c] = xx + d * mq[q];
        }
    }
    prev[c] = xx;
}

__global__ void
k_mix_add(const float *__restrict__ xn, const float *__restrict__ delta,
          const float *__restrict__ maa, const float *__restrict__ add, float *out, size_t n,
          int C)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = xn[i] + delta[i] * (maa[i % C] + add[i]);
}

/* ----------------------------------------------------------- element-wise */

__global__ void
k_ewise(int op, size_t n, int period, const float *a, const float *b, const float *c,
        float *y)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float r;

        switch (op) {
        case GPU_OP_ADD:        r = a[i] + b[i]; break;
        case GPU_OP_MUL:        r = a[i] * b[i]; break;
        case GPU_OP_SILU:       r = a[i] * sigmoidf_(a[i]); break;
        case GPU_OP_SIGMOID:    r = sigmoidf_(a[i]); break;
        case GPU_OP_TANH:       r = tanhf(a[i]); break;
        case GPU_OP_RELU_SQ: {
            float z = a[i] > 0 ? a[i] : 0.0f;
            r = z * z;
            break;
        }
        case GPU_OP_SIGMUL_ADD: r = a[i] + sigmoidf_(b[i]) * c[i]; break;
        case GPU_OP_V6_DECAY:   r = expf(-expf(b[i % period] + a[i])); break;
        default:                r = 0; break;
        }
        y[i] = r;
    }
}

/* -------------------------------------------------------------------- WKV */

/*
** The WKV kernels take the tokens in chunks of WKV_CH: the chunk's per-token
** vectors of the head are loaded into shared memory at once (every load in
** flight together), then the chunk's tokens run with no global load on the
** sequential path (a load per token made them latency-bound: ~1 us a token).
*/
#define WKV_CH 16

/*
** v5.x / v6, grid H, block NN.  Thread j keeps column j of the head's state
** (S[i][j], i < NN) in registers; per token:
**     y_j = sum_i r_i (u_i k_i v_j + S_ij),  S_ij = k_i v_j + w_i S_ij.
** W: per head (CHAN 0: w[h]), per channel (w[h*NN+i]), per token and
** channel (W_TOK: w[t*C + h*NN + i]); U: u[h] or u[h*NN+i].
*/
template <int NN>
__global__ void __launch_bounds__(NN)
k_wkv5(int T, int C, float *__restrict__ state, const float *__restrict__ r,
       const float *__restrict__ k, const float *__restrict__ v, const float *__restrict__ w,
       const float *__restrict__ u, int w_tok, int chan, float *__restrict__ y)
{
    __shared__ float sr[WKV_CH][NN], sk[WKV_CH][NN], sw[WKV_CH][NN], sv[WKV_CH][NN], su[NN];
    int h = blockIdx.x, j = threadIdx.x;
    float *S = state + (size_t)h * NN * NN;
    float s[NN];

#pragma unroll
    for (int i = 0; i < NN; i++)
        s[i] = S[i * NN + j];
    su[j] = chan ? u[h * NN + j] : u[h];
    for (int t0 = 0; t0 < T; t0 += WKV_CH) {
        int tn = min(WKV_CH, T - t0);

        __syncthreads();   /* the previous chunk's readers are done */
        for (int tt = 0; tt < tn; tt++) {
            size_t o = (size_t)(t0 + tt) * C + (size_t)h * NN + j;
            sr[tt][j] = r[o];
            sk[tt][j] = k[o];
            sv[tt][j] = v[o];
            sw[tt][j] = w_tok ? w[o] : chan ? w[h * NN + j] : w[h];
        }
        __syncthreads();
        for (int tt = 0; tt < tn; tt++) {
            float vj = sv[tt][j], acc = 0;
#pragma unroll
            for (int i = 0; i < NN; i++) {
                float a = sk[tt][i] * vj;
                acc += sr[tt][i] * (su[i] * a + s[i]);
                s[i] = a + sw[tt][i] * s[i];
            }
            y[(size_t)(t0 + tt) * C + (size_t)h * NN + j] = acc;
        }
    }
#pragma unroll
    for (int i = 0; i < NN; i++)
        S[i * NN + j] = s[i];
}

/* v7: threads per state row, and rows per block (a head takes NN / RB
 * blocks: more of the GPU at work than one block per head).  Two rows a
 * thread (sharing the loads of the token's vectors) measured 23% slower on
 * an H200 at 256 tokens. */
#define WKV7_P 4
#define WKV7_RB(NN) ((NN) < 32 ? (NN) : 32)

/*
** One token of v7's recurrence for the state row a thread shares with its
** WKV7_P - 1 neighbours: columns j = Q + WKV7_P jj in S[jj], VI the row's
** value; the token's vectors R, W, K, KK, KKA (N values each) are read from
** shared memory.  Returns y_i (to every lane of the row's group):
**     sa = -sum_j S_ij kk_j;  S_ij = S_ij w_j + sa kka_j + v_i k_j;
**     y_i = sum_j S_ij r_j.
** k_wkv7 and k_v7_att1 both take their steps here, so they agree.
*/
template <int CPT>
static __device__ __forceinline__ float
wkv7_step(float (&s)[CPT], int q, const float *r, const float *w, const float *k,
          const float *kk, const float *kka, float vi)
{
    constexpr int P = WKV7_P;
    float sa = 0, acc = 0;

#pragma unroll
    for (int jj = 0; jj < CPT; jj++)
        sa -= s[jj] * kk[q + P * jj];
#pragma unroll
    for (int o = 1; o < P; o <<= 1)
        sa += __shfl_xor_sync(0xffffffffu, sa, o);
#pragma unroll
    for (int jj = 0; jj < CPT; jj++) {
        int j = q + P * jj;
        s[jj] = s[jj] * w[j] + sa * kka[j] + vi * k[j];
        acc += s[jj] * r[j];
    }
#pragma unroll
    for (int o = 1; o < P; o <<= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, o);
    return acc;
}

/*
** v7, grid (H, NN / RB), block RB * WKV7_P.  Row i of a head's state
** (value i: S[i][j], j < NN) is independent of the other rows; WKV7_P
** adjacent lanes share it (wkv7_step).  The tokens' vectors are staged
** WKV_CH tokens at a time.
*/
template <int NN>
__global__ void __launch_bounds__(WKV7_RB(NN) * WKV7_P)
k_wkv7(int T, int C, float *__restrict__ state, const float *__restrict__ r,
       const float *__restrict__ w, const float *__restrict__ k, const float *__restrict__ v,
       const float *__restrict__ kk, const float *__restrict__ kka, float *__restrict__ y)
{
    constexpr int P = WKV7_P, CPT = NN / WKV7_P, RB = WKV7_RB(NN);
    __shared__ float sr[WKV_CH][NN], sw[WKV_CH][NN], sk[WKV_CH][NN], skk[WKV_CH][NN],
        ska[WKV_CH][NN], sv[WKV_CH][RB], sy[WKV_CH][RB];
    int h = blockIdx.x, r0 = blockIdx.y * RB, tid = threadIdx.x, il = tid / P, q = tid % P;
    size_t hb = (size_t)h * NN;
    float *S = state + hb * NN + (size_t)(r0 + il) * NN;
    float s[CPT];

#pragma unroll
    for (int jj = 0; jj < CPT; jj++)
        s[jj] = S[q + P * jj];
    for (int t0 = 0; t0 < T; t0 += WKV_CH) {
        int tn = min(WKV_CH, T - t0);

        __syncthreads();   /* the previous chunk's readers are done */
        for (int x = tid; x < tn * NN; x += RB * P) {
            int tt = x / NN, j = x % NN;
            size_t o = (size_t)(t0 + tt) * C + hb + j;
            sr[tt][j] = r[o];
            sw[tt][j] = w[o];
            sk[tt][j] = k[o];
            skk[tt][j] = kk[o];
            ska[tt][j] = kka[o];
        }
        for (int x = tid; x < tn * RB; x += RB * P)
            sv[x / RB][x % RB] = v[(size_t)(t0 + x / RB) * C + hb + r0 + x % RB];
        __syncthreads();
        for (int tt = 0; tt < tn; tt++) {
            float acc = wkv7_step<CPT>(s, q, sr[tt], sw[tt], sk[tt], skk[tt], ska[tt], sv[tt][il]);
            if (q == 0)
                sy[tt][il] = acc;
        }
        __syncthreads();
        for (int x = tid; x < tn * RB; x += RB * P)
            y[(size_t)(t0 + x / RB) * C + hb + r0 + x % RB] = sy[x / RB][x % RB];
    }
#pragma unroll
    for (int jj = 0; jj < CPT; jj++)
        S[q + P * jj] = s[jj];
}

/* ----------------------------------------------------------------- v7 ops */

struct v7_prep_args {
    float       *k, *a, *kk, *w, *v;
    const float *vf, *vg;
    const float *a0, *k_k, *k_a, *w0, *v0;
};

/* k_v7_prep's values for channel C of token row O (ON: the thread has a
 * channel, j < N): every thread of the block calls it (the kk norm is a
 * block sum; SH has 32 slots). */
struct v7_prepped {
    float k, kk, kka, w, v;
};
static __device__ __forceinline__ v7_prepped
v7_prep_one(const v7_prep_args &p, size_t o, int c, bool on, float *sh)
{
    float a = 0, kk = 0, k = 0, nrm;
    v7_prepped e = { 0, 0, 0, 0, 0 };

    if (on) {
        k = p.k[o];
        a = sigmoidf_(p.a0[c] + p.a[o]);
        kk = k * p.k_k[c];
    }
    nrm = sqrtf(block_sum(kk * kk, sh));
    if (nrm < V7_NORM_EPS)
        nrm = V7_NORM_EPS;
    if (!on)
        return e;
    kk /= nrm;
    e.kk = kk;
    e.k = k * (1 + (a - 1) * p.k_a[c]);
    e.kka = kk * a;
    e.w = expf(-V7_DECAY_SCALE * sigmoidf_(p.w0[c] + p.w[o]));
    e.v = p.v[o];
    if (p.vf != NULL)
        e.v += (p.vf[o] - e.v) * sigmoidf_(p.v0[c] + p.vg[o]);
    return e;
}

/* grid (H, T), block pad32(N). */
__global__ void
k_v7_prep(int N, int C, v7_prep_args p)
{
    __shared__ float sh[32];
    int j = threadIdx.x, c = blockIdx.x * N + j;
    bool on = j < N;
    size_t o = (size_t)blockIdx.y * C + c;
    v7_prepped e = v7_prep_one(p, o, c, on, sh);

    if (!on)
        return;
    p.kk[o] = e.kk;
    p.k[o] = e.k;
    p.a[o] = e.kka;
    p.w[o] = e.w;
    p.v[o] = e.v;
}

/* k_v7_out's value for channel C (before the gate) from the WKV output XV:
 * GN(y) + (sum r k r_k) v over the head; every thread of the block calls it. */
static __device__ __forceinline__ float
v7_out_one(float xv, bool on, int N, int c, float r, float k, float v,
           const float *__restrict__ lw, const float *__restrict__ lb,
           const float *__restrict__ r_k, float eps, double *shd, float *shf)
{
    float gn = head_norm(xv, on, N, lw, lb, c, eps, shd);
    float bonus = block_sum(on ? r * k * r_k[c] : 0.0f, shf);

    return gn + bonus * v;
}

/* grid (H, T), block pad32(N): y = (GN(y) + (sum r k r_k) v) * g. */
__global__ void
k_v7_out(int N, int C, float *y, const float *__restrict__ r, const float *__restrict__ k,
         const float *__restrict__ v, const float *__restrict__ g,
         const float *__restrict__ lw, const float *__restrict__ lb,
         const float *__restrict__ r_k, float eps)
{
    __shared__ double shd[32];
    __shared__ float shf[32];
    int j = threadIdx.x, c = blockIdx.x * N + j;
    bool on = j < N;
    size_t o = (size_t)blockIdx.y * C + c;
    float z = v7_out_one(on ? y[o] : 0.0f, on, N, c, on ? r[o] : 0.0f, on ? k[o] : 0.0f,
                         on ? v[o] : 0.0f, lw, lb, r_k, eps, shd, shf);

    if (on)
        y[o] = z * g[o];
}

/* k_v7_att1's outputs and per-channel vectors besides the prep's. */
struct v7_att1_args {
    const float *r, *g, *lw, *lb, *r_k;
    float       *y;
    float        eps;
};

/*
** One token (decode): k_v7_prep, k_wkv7 and k_v7_out of a head in one
** block (grid H, block NN * WKV7_P: a head's state rows one per four lanes,
** its channels on the first NN threads).  The prepared vectors stay in
** shared memory (P's k, a, kk, w, v are read, not written); the state is
** updated in place and A.y written.  Bit for bit the three kernels' result:
** the same sums in the same order (the extra warps add zeros).
*/
template <int NN>
__global__ void __launch_bounds__(NN * WKV7_P)
k_v7_att1(float *__restrict__ state, v7_prep_args p, v7_att1_args a)
{
    constexpr int P = WKV7_P, CPT = NN / WKV7_P;
    __shared__ float sr[NN], sw[NN], sk[NN], skk[NN], ska[NN], sv[NN], sy[NN], shf[32];
    __shared__ double shd[32];
    int h = blockIdx.x, tid = threadIdx.x, il = tid / P, q = tid % P, c = h * NN + tid;
    bool on = tid < NN;
    float *S = state + ((size_t)h * NN + il) * NN;
    float s[CPT], acc, z;
    v7_prepped e = v7_prep_one(p, (size_t)c, c, on, shf);

    if (on) {
        sr[tid] = a.r[c], sw[tid] = e.w, sk[tid] = e.k;
        skk[tid] = e.kk, ska[tid] = e.kka, sv[tid] = e.v;
    }
#pragma unroll
    for (int jj = 0; jj < CPT; jj++)
        s[jj] = S[q + P * jj];
    __syncthreads();
    acc = wkv7_step<CPT>(s, q, sr, sw, sk, skk, ska, sv[il]);
#pragma unroll
    for (int jj = 0; jj < CPT; jj++)
        S[q + P * jj] = s[jj];
    if (q == 0)
        sy[il] = acc;
    __syncthreads();
    z = v7_out_one(on ? sy[tid] : 0.0f, on, NN, c, on ? sr[tid] : 0.0f, on ? sk[tid] : 0.0f,
                   on ? sv[tid] : 0.0f, a.lw, a.lb, a.r_k, a.eps, shd, shf);
    if (on)
        a.y[c] = z * a.g[c];
}

#endif
