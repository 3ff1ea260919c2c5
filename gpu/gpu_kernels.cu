/*
** gpu_kernels.cu -- the host side of the RWKV kernels on CUDA: argument
** checks and launches (gpu.h's gpu_* kernel calls).  The kernels themselves,
** and their launch shapes, are in gpu_kernels.cuh.
*/
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gpu_internal.h"
#include "gpu_kernels.cuh"

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
gpu_matmul_batch(gpu_ctx *g, const gpu_mm_job *jobs, int n, int t, rwkv_err *err)
{
    mmb_args a;
    unsigned blocks = 0;
    int st;

    if (n <= 0 || n > GPU_MMB_MAX || t <= 0)
        return rwkv_errf(err, RWKV_EINVAL, "cuda: matmul_batch: bad count %d or T %d", n, t);
    memset(&a, 0, sizeof a);
    a.n = n;
    for (int i = 0; i < n; i++) {
        const gpu_mm_job *j = &jobs[i];
        int quant = j->wt == GPU_W_Q8 || j->wt == GPU_W_Q4;
        if (j->rows <= 0 || j->cols <= 0 || (j->ldx != 0 && j->ldx < j->cols) ||
            j->w == NULL || j->x == NULL || j->y == NULL || (quant && j->scales == NULL) ||
            (int)j->wt < GPU_W_F32 || (int)j->wt > GPU_W_Q4)
            return rwkv_errf(err, RWKV_EINVAL, "cuda: matmul_batch: bad job %d (rows %d cols "
                             "%d ldx %d type %d)", i, j->rows, j->cols, j->ldx, (int)j->wt);
        a.j[i] = *j;
        a.first[i] = blocks;
        blocks += (unsigned)((j->rows + MM_WARPS - 1) / MM_WARPS);
    }
    a.first[n] = blocks;
    if ((st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    if (t == 1)
        k_matmul_batch<1><<<blocks, MM_WARPS * 32, 0, g->stream>>>(a, t);
    else
        k_matmul_batch<MM_TILE><<<blocks, MM_WARPS * 32, 0, g->stream>>>(a, t);
    return launched(g, "launching matmul_batch", err);
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

/* MX as the kernels' mix_args (RWKV_EINVAL, reported, when malformed). */
static int
mix_args_of(const gpu_mix *mx, int t, int c, const char *what, mix_args *a, rwkv_err *err)
{
    if (t <= 0 || t > GRID_Y_MAX || c <= 0 || mx->n < 0 || mx->n > GPU_MIX_MAX ||
        (mx->form != GPU_MIX_V5 && mx->form != GPU_MIX_LERP))
        return rwkv_errf(err, RWKV_EINVAL, "cuda: %s: bad arguments T %d C %d n %d", what, t,
                         c, mx->n);
    a->form = (int)mx->form;
    a->n = mx->n;
    for (int s = 0; s < GPU_MIX_MAX; s++) {
        a->mix[s] = s < mx->n ? mx->mix[s] : NULL;
        a->out[s] = s < mx->n ? mx->out[s] : NULL;
    }
    a->delta = mx->delta;
    return RWKV_OK;
}

int
gpu_token_mix(gpu_ctx *g, const float *xn, float *prev, int t, int c, const gpu_mix *mx,
              rwkv_err *err)
{
    mix_args a;
    int st;

    if ((st = mix_args_of(mx, t, c, "token_mix", &a, err)) != RWKV_OK ||
        (st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    k_token_mix<<<dim3((unsigned)((c + 127) / 128), (unsigned)t), 128, 0, g->stream>>>(xn, prev,
                                                                                   t, c, a);
    return launched(g, "launching token_mix", err);
}

int
gpu_ln_mix(gpu_ctx *g, const float *x, const float *w, const float *b, float *xn,
           float *prev, int t, int c, float eps, const gpu_mix *mx, rwkv_err *err)
{
    mix_args a;
    int st;

    if (t != 1) {
        if ((st = gpu_layer_norm(g, x, w, b, xn, t, c, eps, err)) != RWKV_OK)
            return st;
        return gpu_token_mix(g, xn, prev, t, c, mx, err);
    }
    if ((st = mix_args_of(mx, t, c, "ln_mix", &a, err)) != RWKV_OK ||
        (st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    k_ln_mix1<<<(unsigned)((c + LNM_THREADS - 1) / LNM_THREADS), LNM_THREADS, 0, g->stream>>>(
        x, w, b, xn, prev, c, eps, a);
    return launched(g, "launching ln_mix", err);
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
        k_wkv7<NN><<<dim3((unsigned)h, NN / WKV7_RB(NN)), WKV7_RB(NN) * WKV7_P, 0,      \
                      g->stream>>>(t, c, state, r, w, k, v, kk, kka, y);               \
        break;
        WKV_SIZES(X)
#undef X
    default:
        return rwkv_errf(err, RWKV_ENOTSUP, "cuda: wkv7: head size %d not supported "
                         "(8, 16, 32, 64, 128)", n);
    }
    return launched(g, "launching wkv7", err);
}

/* P as the kernels' v7_prep_args (RWKV_EINVAL, reported, when malformed). */
static int
prep_args_of(const gpu_v7_prep_args *p, const char *what, v7_prep_args *a, rwkv_err *err)
{
    if ((p->vf == NULL) != (p->vg == NULL))
        return rwkv_errf(err, RWKV_EINVAL, "cuda: %s: vf and vg go together", what);
    a->k = p->k, a->a = p->a, a->kk = p->kk, a->w = p->w, a->v = p->v;
    a->vf = p->vf, a->vg = p->vg;
    a->a0 = p->a0, a->k_k = p->k_k, a->k_a = p->k_a, a->w0 = p->w0, a->v0 = p->v0;
    return RWKV_OK;
}

int
gpu_v7_prep(gpu_ctx *g, int t, int h, int n, const gpu_v7_prep_args *p, rwkv_err *err)
{
    v7_prep_args a;
    int st;

    if ((st = check_heads(t, h, n, "v7_prep", err)) != RWKV_OK ||
        (st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    if ((st = prep_args_of(p, "v7_prep", &a, err)) != RWKV_OK)
        return st;
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

int
gpu_v7_att1(gpu_ctx *g, int h, int n, float *state, const gpu_v7_prep_args *p,
            const float *r, const float *gate, const float *lnx_w, const float *lnx_b,
            const float *r_k, float eps, float *y, rwkv_err *err)
{
    v7_prep_args pa;
    v7_att1_args a;
    int st;

    if ((st = check_heads(1, h, n, "v7_att1", err)) != RWKV_OK ||
        (st = prep_args_of(p, "v7_att1", &pa, err)) != RWKV_OK ||
        (st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    a.r = r, a.g = gate, a.lw = lnx_w, a.lb = lnx_b, a.r_k = r_k, a.y = y, a.eps = eps;
    switch (n) {
#define X(NN)                                                                            \
    case NN:                                                                             \
        k_v7_att1<NN><<<(unsigned)h, NN * WKV7_P, 0, g->stream>>>(state, pa, a);        \
        break;
        WKV_SIZES(X)
#undef X
    default:
        return rwkv_errf(err, RWKV_ENOTSUP, "cuda: v7_att1: head size %d not supported "
                         "(8, 16, 32, 64, 128)", n);
    }
    return launched(g, "launching v7_att1", err);
}

} /* extern "C" */
