/*
** gpu_kernels.cu -- the RWKV kernels on CUDA, mirroring core/model/model_v5.c,
** model_v6.c, model_v7.c and core/kernels/kernels.c operation by operation (same
** formulas, same order of the per-element arithmetic; reductions are
** tree-shaped here, so sums differ from the CPU's sequential ones by
** rounding only).
**
** Launch shapes (every kernel runs on the context's stream):
**   WKV (v5/v6/v7)        grid H, block N: one block per head, one thread
**                         per channel of the head holding its state column
**                         (v5/v6: value j) or row (v7: value i) in registers,
**                         the T tokens run sequentially inside the block;
**                         the per-token vectors of the head go through shared
**                         memory.  N is a template parameter (8..128).
**   per-head norms        grid (H, T), block pad32(N): group norm, v7 prep
**   (v7 prep / out)       and v7 out reduce over one head of one token.
**   layer norm            grid T, block 256.
**   token mix             one thread per channel, T tokens inside (it owns
**                         prev[c], so the shift state updates in place).
**   matmul q8 / q4 / f16  one warp per output row, MM_TILE tokens (1 for decode) in
**                         registers per pass over the row (k_matmul; the weight
**                         formats q8_view, q4_view, f16_view give the loads).
**   element-wise          grid-stride loops.
** Invariants: state is float32 [H][N][N] in the CPU engine's layout; all
** sums of norms are in double (as kern_layer_norm); fp32 everywhere else.
*/
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdint.h>

#include "gpu_internal.h"

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
    __device__ __forceinline__ bool vec_ok(const float *x) const
    {
        return (cols & 3) == 0 && ((uintptr_t)q & 3) == 0 && ((uintptr_t)x & 15) == 0;
    }
    /* 4 codes per lane (one char4 load), all in one 32-block */
    template <int TILE>
    __device__ __forceinline__ void row(int r, int lane, const float *__restrict__ xt, int tn,
                                        float *acc) const
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
                    float4 xv = *(const float4 *)(xt + (size_t)tt * cols + c);
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
    __device__ __forceinline__ bool vec_ok(const float *x) const
    {
        return cols % GPU_Q4_BLOCK == 0 && (((uintptr_t)q | (uintptr_t)x) & 15) == 0;
    }
    /*
    ** Four lanes per block, eight blocks (128 bytes of codes) per warp and
    ** step: lane l takes bytes 4 (l % 4) .. + 3 of block l / 4, i.e. columns
    ** 4 (l % 4) + 0..3 (low nibbles) and 16 + 4 (l % 4) + 0..3 (high
    ** nibbles), so its x loads are two float4 and each four lanes read 64
    ** contiguous bytes of x (coalesced, as Q8's).
    */
    template <int TILE>
    __device__ __forceinline__ void row(int r, int lane, const float *__restrict__ xt, int tn,
                                        float *acc) const
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
                    const float *xp = xt + (size_t)tt * cols + c;
                    float4 lo = *(const float4 *)xp, hi = *(const float4 *)(xp + 16);
                    acc[tt] += w[0] * lo.x + w[1] * lo.y + w[2] * lo.z + w[3] * lo.w +
                               w[4] * hi.x + w[5] * hi.y + w[6] * hi.z + w[7] * hi.w;
                }
            }
        }
    }
};

/* F16: binary16 weights [rows][cols]. */
struct f16_view {
    const __half *w;
    int cols;

    __device__ __forceinline__ float at(size_t r, int c) const
    {
        return __half2float(w[r * cols + c]);
    }
    /* vector loads need 16-byte aligned rows of W and X */
    __device__ __forceinline__ bool vec_ok(const float *x) const
    {
        return (cols & 7) == 0 && (((uintptr_t)w | (uintptr_t)x) & 15) == 0;
    }
    /* 8 weights per lane: one 16-byte load */
    template <int TILE>
    __device__ __forceinline__ void row(int r, int lane, const float *__restrict__ xt, int tn,
                                        float *acc) const
    {
        const __half *wr = w + (size_t)r * cols;

#pragma unroll 2
        for (int c = lane * 8; c < cols; c += 256) {
            uint4 raw = *(const uint4 *)(wr + c);
            const __half2 *h2 = (const __half2 *)&raw;
            float2 f0 = __half22float2(h2[0]), f1 = __half22float2(h2[1]);
            float2 f2 = __half22float2(h2[2]), f3 = __half22float2(h2[3]);
#pragma unroll
            for (int tt = 0; tt < TILE; tt++) {
                if (tt < tn) {
                    const float *xp = xt + (size_t)tt * cols + c;
                    float4 a = *(const float4 *)xp, b = *(const float4 *)(xp + 4);
                    acc[tt] += f0.x * a.x + f0.y * a.y + f1.x * a.z + f1.y * a.w +
                               f2.x * b.x + f2.y * b.y + f3.x * b.z + f3.y * b.w;
                }
            }
        }
    }
};

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
    bool vec;

    if (row >= rows)
        return;   /* the whole warp leaves together */
    vec = f.vec_ok(x);
    for (int t0 = 0; t0 < T; t0 += TILE) {
        int tn = min(TILE, T - t0);
        const float *xt = x + (size_t)t0 * cols;
        float acc[TILE];

#pragma unroll
        for (int tt = 0; tt < TILE; tt++)
            acc[tt] = 0;
        if (vec) {
            f.template row<TILE>(row, lane, xt, tn, acc);
        } else {
            for (int c = lane; c < cols; c += 32) {
                float wv = f.at((size_t)row, c);
#pragma unroll
                for (int tt = 0; tt < TILE; tt++)
                    if (tt < tn)
                        acc[tt] += wv * xt[(size_t)tt * cols + c];
            }
        }
#pragma unroll
        for (int tt = 0; tt < TILE; tt++) {
            if (tt < tn) {   /* uniform over the warp */
                float s = warp_sum(acc[tt]);
                if (lane == 0)
                    y[(size_t)(t0 + tt) * rows + row] = s;
            }
        }
    }
}

/* ------------------------------------------------------------------ norms */

/* One block per row of C: y = (x - mean) * rstd * w + b (kern_layer_norm). */
__global__ void __launch_bounds__(LN_THREADS)
k_layer_norm(const float *x, const float *__restrict__ w, const float *__restrict__ b,
             float *y, int C, float eps)
{
    __shared__ double sh[32];
    const float *xr = x + (size_t)blockIdx.x * C;
    float *yr = y + (size_t)blockIdx.x * C;
    double s = 0, v = 0, mean, var;
    float m, rstd;

    for (int i = threadIdx.x; i < C; i += blockDim.x)
        s += xr[i];
    mean = block_sum(s, sh) / (double)C;
    for (int i = threadIdx.x; i < C; i += blockDim.x) {
        double d = xr[i] - mean;
        v += d * d;
    }
    var = block_sum(v, sh) / (double)C;
    m = (float)mean;
    rstd = (float)(1.0 / sqrt(var + (double)eps));
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

/* One thread per channel: shifts, mixes, and updates prev[c]. */
__global__ void
k_token_mix(const float *__restrict__ xn, float *__restrict__ prev, int T, int C,
            mix_args a)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    float m[GPU_MIX_MAX], sx;

    if (c >= C)
        return;
#pragma unroll
    for (int s = 0; s < GPU_MIX_MAX; s++)
        m[s] = s < a.n ? a.mix[s][c] : 0.0f;
    sx = prev[c];
    for (int t = 0; t < T; t++) {
        size_t o = (size_t)t * C + c;
        float xx = xn[o], d = sx - xx;

        if (a.delta != NULL)
            a.delta[o] = d;
#pragma unroll
        for (int s = 0; s < GPU_MIX_MAX; s++) {
            if (s < a.n) {
                if (a.form == GPU_MIX_V5)
                    a.out[s][o] = xx * m[s] + sx * (1 - m[s]);
                else
                    a.out[s][o] = xx + d * m[s];
            }
        }
        sx = xx;
    }
    prev[c] = sx;
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
    __shared__ float sr[NN], sk[NN], sw[NN], su[NN];
    int h = blockIdx.x, j = threadIdx.x;
    float *S = state + (size_t)h * NN * NN;
    float s[NN];

#pragma unroll
    for (int i = 0; i < NN; i++)
        s[i] = S[i * NN + j];
    su[j] = chan ? u[h * NN + j] : u[h];
    for (int t = 0; t < T; t++) {
        size_t o = (size_t)t * C + (size_t)h * NN;
        float vj, acc = 0;

        __syncthreads();   /* the previous token's readers are done */
        sr[j] = r[o + j];
        sk[j] = k[o + j];
        sw[j] = w_tok ? w[o + j] : chan ? w[h * NN + j] : w[h];
        __syncthreads();
        vj = v[o + j];
#pragma unroll
        for (int i = 0; i < NN; i++) {
            float a = sk[i] * vj;
            acc += sr[i] * (su[i] * a + s[i]);
            s[i] = a + sw[i] * s[i];
        }
        y[o + j] = acc;
    }
#pragma unroll
    for (int i = 0; i < NN; i++)
        S[i * NN + j] = s[i];
}

/*
** v7, grid H, block NN.  Thread i keeps row i of the head's state (value i:
** S[i][j], j < NN) in registers; per token:
**     sa = -sum_j S_ij kk_j;  S_ij = S_ij w_j + sa kka_j + v_i k_j;
**     y_i = sum_j S_ij r_j.
*/
template <int NN>
__global__ void __launch_bounds__(NN)
k_wkv7(int T, int C, float *__restrict__ state, const float *__restrict__ r,
       const float *__restrict__ w, const float *__restrict__ k, const float *__restrict__ v,
       const float *__restrict__ kk, const float *__restrict__ kka, float *__restrict__ y)
{
    __shared__ float sr[NN], sw[NN], sk[NN], skk[NN], ska[NN];
    int h = blockIdx.x, i = threadIdx.x;
    float *S = state + (size_t)h * NN * NN + (size_t)i * NN;
    float s[NN];
    bool vec = ((uintptr_t)state & 15) == 0;   /* rows are 16-byte aligned then */

    if (vec) {
#pragma unroll
        for (int j = 0; j < NN; j += 4) {
            float4 q = *(const float4 *)(S + j);
            s[j] = q.x, s[j + 1] = q.y, s[j + 2] = q.z, s[j + 3] = q.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < NN; j++)
            s[j] = S[j];
    }
    for (int t = 0; t < T; t++) {
        size_t o = (size_t)t * C + (size_t)h * NN;
        float vi, sa = 0, acc = 0;

        __syncthreads();
        sr[i] = r[o + i];
        sw[i] = w[o + i];
        sk[i] = k[o + i];
        skk[i] = kk[o + i];
        ska[i] = kka[o + i];
        __syncthreads();
        vi = v[o + i];
#pragma unroll
        for (int j = 0; j < NN; j++)
            sa -= s[j] * skk[j];
#pragma unroll
        for (int j = 0; j < NN; j++) {
            s[j] = s[j] * sw[j] + sa * ska[j] + vi * sk[j];
            acc += s[j] * sr[j];
        }
        y[o + i] = acc;
    }
    if (vec) {
#pragma unroll
        for (int j = 0; j < NN; j += 4)
            *(float4 *)(S + j) = make_float4(s[j], s[j + 1], s[j + 2], s[j + 3]);
    } else {
#pragma unroll
        for (int j = 0; j < NN; j++)
            S[j] = s[j];
    }
}

/* ----------------------------------------------------------------- v7 ops */

struct v7_prep_args {
    float       *k, *a, *kk, *w, *v;
    const float *vf, *vg;
    const float *a0, *k_k, *k_a, *w0, *v0;
};

/* grid (H, T), block pad32(N). */
__global__ void
k_v7_prep(int N, int C, v7_prep_args p)
{
    __shared__ float sh[32];
    int j = threadIdx.x, c = blockIdx.x * N + j;
    bool on = j < N;
    size_t o = (size_t)blockIdx.y * C + c;
    float a = 0, kk = 0, k = 0, nrm;

    if (on) {
        k = p.k[o];
        a = sigmoidf_(p.a0[c] + p.a[o]);
        kk = k * p.k_k[c];
    }
    nrm = sqrtf(block_sum(kk * kk, sh));
    if (nrm < V7_NORM_EPS)
        nrm = V7_NORM_EPS;
    if (!on)
        return;
    kk /= nrm;
    p.kk[o] = kk;
    p.k[o] = k * (1 + (a - 1) * p.k_a[c]);
    p.a[o] = kk * a;
    p.w[o] = expf(-V7_DECAY_SCALE * sigmoidf_(p.w0[c] + p.w[o]));
    if (p.vf != NULL) {
        float vv = p.v[o];
        p.v[o] = vv + (p.vf[o] - vv) * sigmoidf_(p.v0[c] + p.vg[o]);
    }
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
    float xv = on ? y[o] : 0.0f, gn, bonus;

    gn = head_norm(xv, on, N, lw, lb, c, eps, shd);
    bonus = block_sum(on ? r[o] * k[o] * r_k[c] : 0.0f, shf);
    if (on)
        y[o] = (gn + bonus * v[o]) * g[o];
}

/* ---------------------------------------------------------- host wrappers */

/* Check the launch just made. */
static int
launched(gpu_ctx *g, const char *what, rwkv_err *err)
{
    cudaError_t rc = cudaGetLastError();

    return rc == cudaSuccess ? RWKV_OK : gpu_cuda_fail(err, rc, g->dev, what);
}

static unsigned
ew_blocks(size_t n)
{
    size_t b = (n + EW_THREADS - 1) / EW_THREADS;

    return (unsigned)(b < 1 ? 1 : b > EW_MAX_BLOCKS ? EW_MAX_BLOCKS : b);
}

/* Launch k_dequant of V (a ROWS x COLS matrix) into DST as DT. */
template <typename V>
static int
dequant_launch(gpu_ctx *g, V v, int rows, int cols, enum gpu_dtype dt, void *dst,
               const char *what, rwkv_err *err)
{
    size_t n = (size_t)rows * (size_t)cols;
    int st;

    if (rows <= 0 || cols <= 0)
        return rwkv_errf(err, RWKV_EINVAL, "cuda: %s: bad shape %d x %d", what, rows, cols);
    if ((st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    if (dt == GPU_F16)
        k_dequant<<<ew_blocks(n), EW_THREADS, 0, g->stream>>>(v, cols, n, (__half *)dst);
    else if (dt == GPU_BF16)
        k_dequant<<<ew_blocks(n), EW_THREADS, 0, g->stream>>>(v, cols, n, (__nv_bfloat16 *)dst);
    else
        k_dequant<<<ew_blocks(n), EW_THREADS, 0, g->stream>>>(v, cols, n, (float *)dst);
    return launched(g, what, err);
}

/* Launch k_matmul for F: one accumulator per lane for one token (decode:
 * more loads in flight), MM_TILE tokens per pass otherwise. */
template <typename F>
static int
mm_launch(gpu_ctx *g, F f, int rows, int cols, const float *x, int t, float *y,
          const char *what, rwkv_err *err)
{
    unsigned blocks = (unsigned)((rows + MM_WARPS - 1) / MM_WARPS);
    int st;

    if (rows <= 0 || cols <= 0 || t <= 0)
        return rwkv_errf(err, RWKV_EINVAL, "cuda: %s: bad shape rows %d cols %d T %d", what,
                         rows, cols, t);
    if ((st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    if (t == 1)
        k_matmul<1><<<blocks, MM_WARPS * 32, 0, g->stream>>>(f, rows, cols, x, t, y);
    else
        k_matmul<MM_TILE><<<blocks, MM_WARPS * 32, 0, g->stream>>>(f, rows, cols, x, t, y);
    return launched(g, what, err);
}

extern "C" {

/* Threads of a per-head block: N rounded up to a whole warp. */
static unsigned
pad32(int n)
{
    return (unsigned)((n + 31) / 32 * 32);
}

static int
check_heads(int t, int h, int n, const char *what, rwkv_err *err)
{
    if (t <= 0 || t > GRID_Y_MAX || h <= 0 || n <= 0 || n > GPU_MAX_HEAD)
        return rwkv_errf(err, RWKV_EINVAL, "cuda: %s: bad shape T %d H %d N %d (N <= %d, "
                         "T <= %d)", what, t, h, n, GPU_MAX_HEAD, GRID_Y_MAX);
    return RWKV_OK;
}

int
gpu_convert(gpu_ctx *g, const float *src, enum gpu_dtype dt, void *dst, size_t n,
            rwkv_err *err)
{
    int st;

    if ((st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    if (n == 0)
        return RWKV_OK;
    if (dt == GPU_F16)
        k_to_f16<<<ew_blocks(n), EW_THREADS, 0, g->stream>>>(src, (__half *)dst, n);
    else if (dt == GPU_BF16)
        k_to_bf16<<<ew_blocks(n), EW_THREADS, 0, g->stream>>>(src, (__nv_bfloat16 *)dst, n);
    else
        return gpu_copy(g, dst, src, n * sizeof(float), err);
    return launched(g, "launching convert", err);
}

int
gpu_dequant_q8(gpu_ctx *g, const int8_t *q, const float *scales, int rows, int cols,
               enum gpu_dtype dt, void *dst, rwkv_err *err)
{
    q8_view v = { q, scales, cols, (cols + GPU_Q8_BLOCK - 1) / GPU_Q8_BLOCK };

    return dequant_launch(g, v, rows, cols, dt, dst, "dequant_q8", err);
}

int
gpu_dequant_q4(gpu_ctx *g, const uint8_t *q, const uint32_t *dm, int rows, int cols,
               enum gpu_dtype dt, void *dst, rwkv_err *err)
{
    q4_view v = { q, dm, cols, (cols + GPU_Q4_BLOCK - 1) / GPU_Q4_BLOCK };

    return dequant_launch(g, v, rows, cols, dt, dst, "dequant_q4", err);
}

int
gpu_matmul_q8(gpu_ctx *g, const int8_t *q, const float *scales, int rows, int cols,
              const float *x, int t, float *y, rwkv_err *err)
{
    q8_view v = { q, scales, cols, (cols + GPU_Q8_BLOCK - 1) / GPU_Q8_BLOCK };

    return mm_launch(g, v, rows, cols, x, t, y, "matmul_q8", err);
}

int
gpu_matmul_q4(gpu_ctx *g, const uint8_t *q, const uint32_t *dm, int rows, int cols,
              const float *x, int t, float *y, rwkv_err *err)
{
    q4_view v = { q, dm, cols, (cols + GPU_Q4_BLOCK - 1) / GPU_Q4_BLOCK };

    return mm_launch(g, v, rows, cols, x, t, y, "matmul_q4", err);
}

int
gpu_matmul_f16(gpu_ctx *g, const uint16_t *w, int rows, int cols, const float *x, int t,
               float *y, rwkv_err *err)
{
    f16_view v = { (const __half *)w, cols };

    return mm_launch(g, v, rows, cols, x, t, y, "matmul_f16", err);
}

int
gpu_layer_norm(gpu_ctx *g, const float *x, const float *w, const float *b, float *y, int t,
               int c, float eps, rwkv_err *err)
{
    int st;

    if (t <= 0 || c <= 0)
        return rwkv_errf(err, RWKV_EINVAL, "cuda: layer_norm: bad shape T %d C %d", t, c);
    if ((st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    k_layer_norm<<<(unsigned)t, LN_THREADS, 0, g->stream>>>(x, w, b, y, c, eps);
    return launched(g, "launching layer_norm", err);
}

int
gpu_group_norm(gpu_ctx *g, const float *x, const float *w, const float *b, const float *gate,
               float *y, int t, int h, int n, float eps, rwkv_err *err)
{
    int st;

    if ((st = check_heads(t, h, n, "group_norm", err)) != RWKV_OK ||
        (st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    k_group_norm<<<dim3((unsigned)h, (unsigned)t), pad32(n), 0, g->stream>>>(x, w, b, gate, y,
                                                                            n, h * n, eps);
    return launched(g, "launching group_norm", err);
}

int
gpu_token_mix(gpu_ctx *g, const float *xn, float *prev, int t, int c, const gpu_mix *mx,
              rwkv_err *err)
{
    mix_args a;
    int st;

    if (t <= 0 || c <= 0 || mx->n < 0 || mx->n > GPU_MIX_MAX ||
        (mx->form != GPU_MIX_V5 && mx->form != GPU_MIX_LERP))
        return rwkv_errf(err, RWKV_EINVAL, "cuda: token_mix: bad arguments T %d C %d n %d",
                         t, c, mx->n);
    if ((st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    a.form = (int)mx->form;
    a.n = mx->n;
    for (int s = 0; s < GPU_MIX_MAX; s++) {
        a.mix[s] = s < mx->n ? mx->mix[s] : NULL;
        a.out[s] = s < mx->n ? mx->out[s] : NULL;
    }
    a.delta = mx->delta;
    k_token_mix<<<(unsigned)((c + 127) / 128), 128, 0, g->stream>>>(xn, prev, t, c, a);
    return launched(g, "launching token_mix", err);
}

int
gpu_mix_add(gpu_ctx *g, const float *xn, const float *delta, const float *maa,
            const float *add, float *out, int t, int c, rwkv_err *err)
{
    size_t n = (size_t)t * (size_t)c;
    int st;

    if (t <= 0 || c <= 0)
        return rwkv_errf(err, RWKV_EINVAL, "cuda: mix_add: bad shape T %d C %d", t, c);
    if ((st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    k_mix_add<<<ew_blocks(n), EW_THREADS, 0, g->stream>>>(xn, delta, maa, add, out, n, c);
    return launched(g, "launching mix_add", err);
}

int
gpu_ewise(gpu_ctx *g, enum gpu_op op, size_t n, int period, const float *a, const float *b,
          const float *c, float *y, rwkv_err *err)
{
    int st;

    if ((int)op < 0 || op >= GPU_NOP || (op == GPU_OP_V6_DECAY && period <= 0))
        return rwkv_errf(err, RWKV_EINVAL, "cuda: ewise: bad op %d or period %d", (int)op,
                         period);
    if ((st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    if (n == 0)
        return RWKV_OK;
    k_ewise<<<ew_blocks(n), EW_THREADS, 0, g->stream>>>((int)op, n, period, a, b, c, y);
    return launched(g, "launching ewise", err);
}

/* The head sizes the WKV kernels are compiled for. */
#define WKV_SIZES(X) X(8) X(16) X(32) X(64) X(128)

int
gpu_wkv5(gpu_ctx *g, int t, int h, int n, float *state, const float *r, const float *k,
         const float *v, const float *w, const float *u, int w_tok, int chan, float *y,
         rwkv_err *err)
{
    int st, c = h * n;

    if ((st = check_heads(t, h, n, "wkv5", err)) != RWKV_OK)
        return st;
    if (w_tok && !chan)
        return rwkv_errf(err, RWKV_EINVAL, "cuda: wkv5: a per-token decay is per channel");
    if ((st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    switch (n) {
#define X(NN)                                                                          \
    case NN:                                                                           \
        k_wkv5<NN><<<(unsigned)h, NN, 0, g->stream>>>(t, c, state, r, k, v, w, u,     \
                                                      w_tok, chan, y);                 \
        break;
        WKV_SIZES(X)
#undef X
    default:
        return rwkv_errf(err, RWKV_ENOTSUP, "cuda: wkv5: head size %d not supported "
                         "(8, 16, 32, 64, 128)", n);
    }
    return launched(g, "launching wkv5", err);
}

int
gpu_wkv7(gpu_ctx *g, int t, int h, int n, float *state, const float *r, const float *w,
         const float *k, const float *v, const float *kk, const float *kka, float *y,
         rwkv_err *err)
{
    int st, c = h * n;

    if ((st = check_heads(t, h, n, "wkv7", err)) != RWKV_OK ||
        (st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    switch (n) {
#define X(NN)                                                                          \
    case NN:                                                                           \
        k_wkv7<NN><<<(unsigned)h, NN, 0, g->stream>>>(t, c, state, r, w, k, v, kk,     \
                                                      kka, y);                         \
        break;
        WKV_SIZES(X)
#undef X
    default:
        return rwkv_errf(err, RWKV_ENOTSUP, "cuda: wkv7: head size %d not supported "
                         "(8, 16, 32, 64, 128)", n);
    }
    return launched(g, "launching wkv7", err);
}

int
gpu_v7_prep(gpu_ctx *g, int t, int h, int n, const gpu_v7_prep_args *p, rwkv_err *err)
{
    v7_prep_args a;
    int st;

    if ((st = check_heads(t, h, n, "v7_prep", err)) != RWKV_OK ||
        (st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    if ((p->vf == NULL) != (p->vg == NULL))
        return rwkv_errf(err, RWKV_EINVAL, "cuda: v7_prep: vf and vg go together");
    a.k = p->k, a.a = p->a, a.kk = p->kk, a.w = p->w, a.v = p->v;
    a.vf = p->vf, a.vg = p->vg;
    a.a0 = p->a0, a.k_k = p->k_k, a.k_a = p->k_a, a.w0 = p->w0, a.v0 = p->v0;
    k_v7_prep<<<dim3((unsigned)h, (unsigned)t), pad32(n), 0, g->stream>>>(n, h * n, a);
    return launched(g, "launching v7_prep", err);
}

int
gpu_v7_out(gpu_ctx *g, int t, int h, int n, float *y, const float *r, const float *k,
           const float *v, const float *gate, const float *lnx_w, const float *lnx_b,
           const float *r_k, float eps, rwkv_err *err)
{
    int st;

    if ((st = check_heads(t, h, n, "v7_out", err)) != RWKV_OK ||
        (st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    k_v7_out<<<dim3((unsigned)h, (unsigned)t), pad32(n), 0, g->stream>>>(
        n, h * n, y, r, k, v, gate, lnx_w, lnx_b, r_k, eps);
    return launched(g, "launching v7_out", err);
}

} /* extern "C" */
