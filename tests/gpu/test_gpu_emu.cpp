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

/*
** k_v7_att1 (one token: prep, WKV and out in one block per head) against
** the three kernels it replaces, run here too, and against gpu_ref.h's
** loops.  LATER: a layer after the first (v mixed with v_first).
*/
static void
att1(int H, int N, int later)
{
    int C = H * N;
    size_t ns = (size_t)H * N * N;
    float *k = vec(C, -1, 1), *a = vec(C, -2, 2), *w = vec(C, -2, 2), *v = vec(C, -1, 1);
    float *vf = vec(C, -1, 1), *vg = vec(C, -1, 1), *a0 = vec(C, -1, 1);
    float *k_k = vec(C, 0.5f, 1.5f), *k_a = vec(C, 0, 1), *w0 = vec(C, -2, 1);
    float *v0 = vec(C, -1, 1), *r = vec(C, -1, 1), *g = vec(C, 0, 1);
    float *lw = vec(C, 0.5f, 1.5f), *lb = vec(C, -0.5f, 0.5f), *rk = vec(C, -1, 1);
    float *s = vec(ns, -1, 1), *s3 = dup(s, ns), *sr = dup(s, ns);
    float *k3 = dup(k, C), *a3 = dup(a, C), *w3 = dup(w, C), *v3 = dup(v, C);
    float *kk3 = (float *)calloc(C, 4), *y = (float *)calloc(C, 4), *y3 = (float *)calloc(C, 4);
    float *kr = dup(k, C), *ar = dup(a, C), *wr = dup(w, C), *vr = dup(v, C);
    float *kkr = (float *)calloc(C, 4), *yr = (float *)calloc(C, 4);
    float *k0 = dup(k, C), *a0c = dup(a, C), *w0c = dup(w, C), *v0c = dup(v, C);
    v7_prep_args p = { k, a, NULL, w, v, later ? vf : NULL, later ? vg : NULL,
                       a0, k_k, k_a, w0, v0 };
    v7_prep_args p3 = { k3, a3, kk3, w3, v3, p.vf, p.vg, a0, k_k, k_a, w0, v0 };
    v7_att1_args o = { r, g, lw, lb, rk, y, 64e-5f };
    double e1, e2, e3, e4;

    switch (N) {
#define X(NN)                                                                                 \
    case NN:                                                                                  \
        emu_launch({ (unsigned)H, 1, 1 }, NN * WKV7_P, k_v7_att1<NN>, s, p, o);               \
        break;
        X(8) X(16) X(32) X(64) X(128)
#undef X
    }
    /* the three kernels */
    emu_launch({ (unsigned)H, 1, 1 }, (unsigned)((N + 31) / 32 * 32), k_v7_prep, N, C, p3);
    switch (N) {
#define X(NN)                                                                                 \
    case NN:                                                                                  \
        emu_launch({ (unsigned)H, NN / WKV7_RB(NN), 1 }, WKV7_RB(NN) * WKV7_P, k_wkv7<NN>,      \
                   1, C, s3, (const float *)r, (const float *)w3, (const float *)k3,          \
                   (const float *)v3, (const float *)kk3, (const float *)a3, y3);             \
        break;
        X(8) X(16) X(32) X(64) X(128)
#undef X
    }
    emu_launch({ (unsigned)H, 1, 1 }, (unsigned)((N + 31) / 32 * 32), k_v7_out, N, C, y3,
               (const float *)r, (const float *)k3, (const float *)v3, (const float *)g,
               (const float *)lw, (const float *)lb, (const float *)rk, 64e-5f);
    e1 = ref_rel_err(y, y3, C);
    e2 = ref_rel_err(s, s3, ns);
    /* gpu_ref.h's loops */
    ref_v7_prep(1, H, N, kr, ar, kkr, wr, vr, later ? vf : NULL, vg, a0, k_k, k_a, w0, v0);
    ref_wkv7(1, H, N, sr, r, wr, kr, vr, kkr, ar, yr);
    ref_v7_out(1, H, N, yr, r, kr, vr, g, lw, lb, rk, 64e-5f);
    e3 = ref_rel_err(y, yr, C);
    e4 = ref_rel_err(s, sr, ns);
    TEST_CONDF(e1 <= 1e-6 && e2 <= 1e-6 && e3 <= 1e-4 && e4 <= 1e-4, "v7_att1 H %d N %d later "
               "%d: rel err vs the three kernels y %.3g state %.3g, vs the loops y %.3g state "
               "%.3g", H, N, later, e1, e2, e3, e4);
    /* P's vectors are read, not written */
    TEST_CONDF(memcmp(k, k0, C * 4) == 0 && memcmp(a, a0c, C * 4) == 0 &&
               memcmp(w, w0c, C * 4) == 0 && memcmp(v, v0c, C * 4) == 0,
               "v7_att1 H %d N %d: P's vectors are read, not written", H, N);
    for (float *q : { k, a, w, v, vf, vg, a0, k_k, k_a, w0, v0, r, g, lw, lb, rk, s, s3, sr, k3,
                      a3, w3, v3, kk3, y, y3, kr, ar, wr, vr, kkr, yr, k0, a0c, w0c, v0c })
        free(q);
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
        emu_launch({ (unsigned)((C + LNM_THREADS - 1) / LNM_THREADS), 1, 1 }, LNM_THREADS,
                   k_ln_mix1, (const float *)x, (const float *)lw, (const float *)lb, xn2,
                   prev2, C, 1e-5f, a);
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
    for (int later = 0; later < 2; later++) {
        att1(2, 64, later);
        att1(3, 8, later);
        att1(1, 128, later);
        att1(2, 16, later);
        att1(1, 32, later);
    }
    batch(1);
    batch(3);
    batch(8);
    batch(11);
    return TEST_REPORT();
}
