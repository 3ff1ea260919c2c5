/*
** test_gpu_emu.cpp -- the CUDA kernels of gpu/gpu_kernels.cuh run on the CPU
** (tests/gpu/emu_cuda.h) against gpu_ref.h's loops: WKV v5/v6/v7 (every
** head size, chunk boundaries), token mix, the one-token layer norm + mix,
** and the batched products in every weight format with their fused
** activations, residual adds and strided inputs.
**
** No GPU needed, so CI checks what the kernels compute on every change; a
** machine with a GPU runs tests/gpu/test_gpu_kernels.c (the same kernels on
** the device) through tests/gpu/device_check.sh.
*/
#include "emu_cuda.h"

#include "../../gpu/gpu_kernels.cuh"

extern "C" {
#include "../harness.h"
}

static uint64_t seed = 0x2545f4914f6cdd1dULL;

static float *
vec(size_t n, float lo, float hi)
{
    return ref_vec(&seed, n, lo, hi);
}

static float *
dup(const float *p, size_t n)
{
    float *q = (float *)malloc(n * sizeof *q);

    memcpy(q, p, n * sizeof *q);
    return q;
}

static void
wkv7(int H, int N, int T)
{
    size_t n = (size_t)T * H * N, ns = (size_t)H * N * N;
    int C = H * N;
    float *r = vec(n, -1, 1), *k = vec(n, -1, 1), *v = vec(n, -1, 1), *w = vec(n, 0.5f, 1);
    float *kk = vec(n, -1, 1), *kka = vec(n, -1, 1), *s = vec(ns, -1, 1), *s2 = dup(s, ns);
    float *y = (float *)calloc(n, 4), *y2 = (float *)calloc(n, 4);
    double e1, e2;

    for (size_t o = 0; o < n; o += (size_t)N) {   /* kk unit length per head */
        float ss = 0;
        for (int j = 0; j < N; j++)
            ss += kk[o + j] * kk[o + j];
        for (int j = 0; j < N; j++)
            kk[o + j] /= sqrtf(ss);
    }
    ref_wkv7(T, H, N, s, r, w, k, v, kk, kka, y);
    switch (N) {
#define X(NN)                                                                                 \
    case NN:                                                                                  \
        emu_launch({ (unsigned)H, NN / WKV7_RB(NN), 1 }, WKV7_RB(NN) * WKV7_P, k_wkv7<NN>, T, C, \
                   s2, (const float *)r, (const float *)w, (const float *)k, (const float *)v, \
                   (const float *)kk, (const float *)kka, y2);                                \
        break;
        X(8) X(16) X(32) X(64) X(128)
#undef X
    }
    e1 = ref_rel_err(y2, y, n);
    e2 = ref_rel_err(s2, s, ns);
    TEST_CONDF(e1 <= 1e-4 && e2 <= 1e-4, "wkv7 H %d N %d T %d: rel err y %.3g state %.3g", H, N,
               T, e1, e2);
    free(r), free(k), free(v), free(w), free(kk), free(kka), free(s), free(s2), free(y), free(y2);
}

static void
wkv5(int H, int N, int T, int w_tok, int chan)
{
    size_t n = (size_t)T * H * N, ns = (size_t)H * N * N, C = (size_t)H * N;
    float *r = vec(n, -1, 1), *k = vec(n, -1, 1), *v = vec(n, -1, 1);
    float *w = vec(w_tok ? n : C, 0.5f, 1), *u = vec(C, -1, 1), *s = vec(ns, -1, 1);
    float *s2 = dup(s, ns), *y = (float *)calloc(n, 4), *y2 = (float *)calloc(n, 4);
    double e1, e2;

    ref_wkv5(T, H, N, s, r, k, v, w, u, w_tok, chan, y);
    switch (N) {
#define X(NN)                                                                                 \
    case NN:                                                                                  \
        emu_launch({ (unsigned)H, 1, 1 }, NN, k_wkv5<NN>, T, (int)C, s2, (const float *)r,      \
                   (const float *)k, (const float *)v, (const float *)w, (const float *)u,     \
                   w_tok, chan, y2);                                                          \
        break;
        X(8) X(32) X(64)
#undef X
    }
    e1 = ref_rel_err(y2, y, n);
    e2 = ref_rel_err(s2, s, ns);
    TEST_CONDF(e1 <= 1e-4 && e2 <= 1e-4, "wkv5 H %d N %d T %d w_tok %d chan %d: rel err y %.3g "
               "state %.3g", H, N, T, w_tok, chan, e1, e2);
    free(r), free(k), free(v), free(w), free(u), free(s), free(s2), free(y), free(y2);
}

/* k_token_mix (FUSED 0, on layer-normed rows) or k_ln_mix1 (FUSED 1, T 1). */
static void
mix(int C, int T, int lerp, int fused)
{
    int nm = lerp ? 6 : 3;
    size_t n = (size_t)T * C;
    float *x = vec(n, -2, 3), *lw = vec(C, 0.5f, 1.5f), *lb = vec(C, -0.5f, 0.5f);
    float *xn = (float *)malloc(n * 4), *xn2 = (float *)malloc(n * 4), *prev = vec(C, -2, 2);
    float *prev2 = dup(prev, C), *delta = (float *)malloc(n * 4), *delta2 = (float *)malloc(n * 4);
    float *mx[GPU_MIX_MAX], *out[GPU_MIX_MAX], *out2[GPU_MIX_MAX];
    mix_args a;
    double e = 0;

    memset(&a, 0, sizeof a);
    a.form = lerp ? GPU_MIX_LERP : GPU_MIX_V5;
    a.n = nm;
    a.delta = delta2;
    for (int q = 0; q < nm; q++) {
        mx[q] = vec(C, 0, 1);
        out[q] = (float *)malloc(n * 4);
        out2[q] = (float *)malloc(n * 4);
        a.mix[q] = mx[q], a.out[q] = out2[q];
    }
    for (int p = 0; p < T; p++)
        kern_layer_norm(x + (size_t)p * C, lw, lb, xn + (size_t)p * C, C, 1e-5f);
    if (fused) {
        emu_launch({ 1, 1, 1 }, 1024, k_ln_mix1, (const float *)x, (const float *)lw,
                   (const float *)lb, xn2, prev2, C, 1e-5f, a);
    } else {
        memcpy(xn2, xn, n * 4);
        emu_launch({ (unsigned)((C + 127) / 128), (unsigned)T, 1 }, 128, k_token_mix,
                   (const float *)xn2, prev2, T, C, a);
    }
    ref_token_mix(xn, prev, T, C, lerp, nm, (const float *const *)mx, out, delta);
    for (int q = 0; q < nm; q++)
        e = std::max(e, ref_rel_err(out2[q], out[q], n));
    e = std::max(e, ref_rel_err(delta2, delta, n));
    e = std::max(e, ref_rel_err(prev2, prev, C));
    e = std::max(e, ref_rel_err(xn2, xn, n));
    TEST_CONDF(e <= 1e-5, "%s C %d T %d form %d: rel err %.3g", fused ? "ln_mix1" : "token_mix",
               C, T, lerp, e);
    for (int q = 0; q < nm; q++)
        free(mx[q]), free(out[q]), free(out2[q]);
    free(x), free(lw), free(lb), free(xn), free(xn2), free(prev), free(prev2), free(delta);
    free(delta2);
}

/* k_matmul_batch: every weight format, activations, adds, a strided input,
 * rows off the vector paths, T 1 (decode) and past the 8-token pass. */
static void
batch(int T)
{
    static const struct {
        enum gpu_wtype wt;
        int rows, cols, ldx;
        enum gpu_op act;
        int acc;
    } J[] = {
        { GPU_W_F32, 20, 100, 0, GPU_OP_TANH, 0 },   { GPU_W_Q8, 24, 256, 0, GPU_NOP, 1 },
        { GPU_W_BF16, 17, 128, 0, GPU_OP_SIGMOID, 0 }, { GPU_W_Q4, 16, 256, 0, GPU_OP_SILU, 1 },
        { GPU_W_F32, 9, 64, 96, GPU_NOP, 1 },        { GPU_W_F16, 12, 98, 0, GPU_OP_RELU_SQ, 0 },
        { GPU_W_F16, 10, 512, 0, GPU_NOP, 0 },       { GPU_W_Q8, 3, 40, 0, GPU_NOP, 0 },
    };
    enum { NJ = sizeof J / sizeof J[0] };
    static_assert(NJ <= GPU_MMB_MAX, "one launch");
    mmb_args a;
    float *want[NJ];
    void *keep[NJ][3];
    unsigned blocks = 0;

    memset(&a, 0, sizeof a);
    a.n = NJ;
    for (int i = 0; i < NJ; i++) {
        int R = J[i].rows, K = J[i].cols, ldx = J[i].ldx ? J[i].ldx : K;
        size_t nw = (size_t)R * K, ny = (size_t)T * R, db, sb;
        float *w = vec(nw, -1, 1), *x = vec((size_t)T * ldx, -1, 1), *y0 = vec(ny, -1, 1);
        float *deq = (float *)malloc(nw * 4);
        gpu_mm_job *j = &a.j[i];

        ref_mm_weights(J[i].wt, w, R, K, &keep[i][0], &db, &keep[i][1], &sb, deq);
        j->wt = J[i].wt, j->w = keep[i][0], j->scales = keep[i][1];
        j->rows = R, j->cols = K, j->ldx = J[i].ldx;
        j->x = x, j->y = dup(y0, ny), j->act = J[i].act, j->accumulate = J[i].acc;
        keep[i][2] = x;
        a.first[i] = blocks;
        blocks += (unsigned)((R + MM_WARPS - 1) / MM_WARPS);
        want[i] = (float *)malloc(ny * 4);
        ref_mm_job(deq, R, K, x, ldx, T, J[i].act, J[i].acc, y0, want[i]);
        free(w), free(y0), free(deq);
    }
    a.first[NJ] = blocks;
    if (T == 1)
        emu_launch({ blocks, 1, 1 }, MM_WARPS * 32, k_matmul_batch<1>, a, T);
    else
        emu_launch({ blocks, 1, 1 }, MM_WARPS * 32, k_matmul_batch<MM_TILE>, a, T);
    for (int i = 0; i < NJ; i++) {
        double e = ref_rel_err(a.j[i].y, want[i], (size_t)T * J[i].rows);
        TEST_CONDF(e <= 1e-4, "matmul_batch job %d (type %d %dx%d act %d acc %d) T %d: rel err "
                   "%.3g", i, (int)J[i].wt, J[i].rows, J[i].cols, (int)J[i].act, J[i].acc, T, e);
        free(a.j[i].y), free(want[i]);
        for (int q = 0; q < 3; q++)
            free(keep[i][q]);
    }
}

int
main(void)
{
    static const int TW[] = { 1, 2, 16, 17, 40 };

    for (int ti = 0; ti < 5; ti++) {
        int T = TW[ti];
        wkv7(2, 64, T);
        wkv7(3, 8, T);
        wkv7(1, 128, T);
        wkv7(2, 16, T);
        wkv7(1, 32, T);
        wkv5(2, 64, T, 0, 0);
        wkv5(2, 64, T, 0, 1);
        wkv5(2, 32, T, 1, 1);
        wkv5(1, 8, T, 1, 1);
    }
    for (int lerp = 0; lerp < 2; lerp++) {
        for (int T = 1; T <= 3; T += 2) {
            mix(2048, T, lerp, 0);
            mix(100, T, lerp, 0);
        }
        mix(2048, 1, lerp, 1);
        mix(2560, 1, lerp, 1);
        mix(64, 1, lerp, 1);
    }
    batch(1);
    batch(3);
    batch(8);
    batch(11);
    return TEST_REPORT();
}
