/*
** gpu_bench.c -- device numbers for tests/gpu/device_check.sh (not a test):
**   - device-to-device copy bandwidth (the yardstick of the decode target),
**   - cuBLAS fp16 GEMM rate at the RWKV 1.5B shapes (C = 2048, F = 8192;
**     T = 1 and 256 tokens) -- the yardstick of the prefill target,
**   - our own kernels: fp16 / Q8 / Q4 matvec (weight GB/s), WKV v6 / v7, norms,
**     mixes (microseconds per call), and an estimate of one 1.5B v7 layer's
**     decode time from the matvec timings.
** One line per number: "bench NAME VALUE UNIT".  Every measurement runs a
** bounded number of iterations (at most BENCH_BUDGET_S seconds each), so
** the whole program finishes in well under a minute on any recent GPU.
** Usage: gpu_bench [--quick]
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../core/clock.h"
#include "gpu_ref.h"

/* Seconds of timed iterations per measurement (after one warm-up call). */
#define BENCH_BUDGET_S 0.25
/* Most iterations per measurement. */
#define BENCH_MAX_ITERS 20000
#define COPY_BYTES ((size_t)1 << 30)

static gpu_ctx *G;
static rwkv_err E;
static double budget = BENCH_BUDGET_S;

static void
die(const char *what)
{
    fprintf(stderr, "gpu_bench: %s: %s\n", what, E.msg);
    exit(1);
}

static void *
dalloc(size_t bytes)
{
    void *p = NULL;

    if (gpu_alloc(G, bytes, &p, &E) != RWKV_OK || gpu_zero(G, p, bytes, &E) != RWKV_OK)
        die("alloc");
    return p;
}

/* Device buffer of N random floats in [LO, HI). */
static float *
drand(size_t n, float lo, float hi)
{
    static uint64_t seed = 12345;
    float *h = ref_vec(&seed, n, lo, hi), *d = dalloc(n * 4);

    if (h == NULL || gpu_upload(G, d, h, n * 4, &E) != RWKV_OK || gpu_sync(G, &E) != RWKV_OK)
        die("upload");
    free(h);
    return d;
}

/* What one timed call does. */
enum job_kind { J_COPY, J_GEMM, J_MV_F16, J_MV_Q8, J_MV_Q4, J_WKV6, J_WKV7, J_LN, J_MIX7, J_PREP7,
                J_OUT7, J_ATT1, J_TOKEN, J_GRAPH };
struct job {
    enum job_kind kind;
    int rows, cols, t, h, n;
    void *a, *b, *c, *d, *e, *f, *g, *y;
};

/*
** A synthetic RWKV-7 1.5B (x070: C 2048, H 32 x N 64, F 8192, 24 layers,
** LoRA dims w 96, a 96, v 64, g 256, vocab 65536) with fp16 weights, for a
** whole decode step: every layer's call sequence as in
** tests/gpu/test_gpu_block.c (products through gpu_matmul_f16), then
** ln_out and the head.  Weights are distinct per layer (no cache reuse).
*/
#define M_L 24
#define M_C 2048
#define M_H 32
#define M_N 64
#define M_F 8192
#define M_V 65536
enum { MW_R, MW_K, MW_V, MW_O, MW_FK, MW_FV, MW_W1, MW_W2, MW_A1, MW_A2, MW_V1, MW_V2, MW_G1,
       MW_G2, MW_N };
static const int MW_DIMS[MW_N][2] = {
    { M_C, M_C }, { M_C, M_C }, { M_C, M_C }, { M_C, M_C }, { M_F, M_C }, { M_C, M_F },
    { 96, M_C }, { M_C, 96 }, { 96, M_C }, { M_C, 96 }, { 64, M_C }, { M_C, 64 },
    { 256, M_C }, { M_C, 256 } };

struct synth {
    uint16_t *w[M_L][MW_N], *head;
    float *vec;                          /* [C] shared by every vector parameter */
    float *att[M_L], *kv[M_L], *ffn[M_L];
    float *x, *xn, *m[6], *r, *k, *v, *wd, *a, *g, *kk, *y, *o, *vg, *vf, *lo, *f, *logits;
    double bytes;                        /* weight bytes read per token */
};
static struct synth S;

static void
synth_init(void)
{
    size_t big = (size_t)M_V * M_C;
    float *src = drand(big, -0.02f, 0.02f);

    memset(&S, 0, sizeof S);
    for (int l = 0; l < M_L; l++)
        for (int i = 0; i < MW_N; i++) {
            size_t n = (size_t)MW_DIMS[i][0] * MW_DIMS[i][1];
            S.w[l][i] = dalloc(n * 2);
            if (gpu_convert(G, src + (size_t)l * 4096, GPU_F16, S.w[l][i], n, &E) != RWKV_OK)
                die("convert");
            S.bytes += n * 2.0;
        }
    S.head = dalloc(big * 2);
    if (gpu_convert(G, src, GPU_F16, S.head, big, &E) != RWKV_OK)
        die("convert");
    S.bytes += big * 2.0;
    gpu_free(G, src);
    S.vec = drand(M_C, 0.1f, 0.9f);
    for (int l = 0; l < M_L; l++) {
        S.att[l] = drand(M_C, -1, 1);
        S.kv[l] = drand((size_t)M_H * M_N * M_N, -0.1f, 0.1f);
        S.ffn[l] = drand(M_C, -1, 1);
    }
    S.x = drand(M_C, -1, 1);
    S.xn = dalloc(M_C * 4);
    for (int i = 0; i < 6; i++)
        S.m[i] = dalloc(M_C * 4);
    S.r = dalloc(M_C * 4), S.k = dalloc(M_C * 4), S.v = dalloc(M_C * 4);
    S.wd = dalloc(M_C * 4), S.a = dalloc(M_C * 4), S.g = dalloc(M_C * 4);
    S.kk = dalloc(M_C * 4), S.y = dalloc(M_C * 4), S.o = dalloc(M_C * 4);
    S.vg = dalloc(M_C * 4), S.vf = dalloc(M_C * 4), S.lo = dalloc(256 * 4);
    S.f = dalloc((size_t)M_F * 4), S.logits = dalloc((size_t)M_V * 4);
}

static int
smm(const uint16_t *w, int i, const float *x, float *y)
{
    return gpu_matmul_f16(G, w, MW_DIMS[i][0], MW_DIMS[i][1], x, 1, y, &E);
}

/* One decode step of the synthetic model (stops at the first error). */
static int
synth_token(void)
{
    const float *v = S.vec;
    int st = RWKV_OK;

#define TRY(call) do { if ((st = (call)) != RWKV_OK) return st; } while (0)
    for (int l = 0; l < M_L; l++) {
        uint16_t **w = S.w[l];
        gpu_mix mx;
        gpu_v7_prep_args p;

        TRY(gpu_layer_norm(G, S.x, v, v, S.xn, 1, M_C, 1e-5f, &E));
        memset(&mx, 0, sizeof mx);
        mx.form = GPU_MIX_LERP, mx.n = 6;
        for (int i = 0; i < 6; i++)
            mx.mix[i] = v, mx.out[i] = S.m[i];
        TRY(gpu_token_mix(G, S.xn, S.att[l], 1, M_C, &mx, &E));
        TRY(smm(w[MW_R], MW_R, S.m[0], S.r));
        TRY(smm(w[MW_W1], MW_W1, S.m[1], S.lo));
        TRY(gpu_ewise(G, GPU_OP_TANH, 96, 0, S.lo, NULL, NULL, S.lo, &E));
        TRY(smm(w[MW_W2], MW_W2, S.lo, S.wd));
        TRY(smm(w[MW_K], MW_K, S.m[2], S.k));
        TRY(smm(w[MW_V], MW_V, S.m[3], S.v));
        TRY(smm(w[MW_A1], MW_A1, S.m[4], S.lo));
        TRY(smm(w[MW_A2], MW_A2, S.lo, S.a));
        TRY(smm(w[MW_G1], MW_G1, S.m[5], S.lo));
        TRY(gpu_ewise(G, GPU_OP_SIGMOID, 256, 0, S.lo, NULL, NULL, S.lo, &E));
        TRY(smm(w[MW_G2], MW_G2, S.lo, S.g));
        if (l == 0) {
            TRY(gpu_copy(G, S.vf, S.v, M_C * 4, &E));
        } else {
            TRY(smm(w[MW_V1], MW_V1, S.m[3], S.lo));
            TRY(smm(w[MW_V2], MW_V2, S.lo, S.vg));
        }
        p.k = S.k, p.a = S.a, p.kk = S.kk, p.w = S.wd, p.v = S.v;
        p.vf = l ? S.vf : NULL, p.vg = l ? S.vg : NULL;
        p.a0 = p.k_k = p.k_a = p.w0 = p.v0 = v;
        TRY(gpu_v7_prep(G, 1, M_H, M_N, &p, &E));
        TRY(gpu_wkv7(G, 1, M_H, M_N, S.kv[l], S.r, S.wd, S.k, S.v, S.kk, S.a, S.y, &E));
        TRY(gpu_v7_out(G, 1, M_H, M_N, S.y, S.r, S.k, S.v, S.g, v, v, v, 64e-5f, &E));
        TRY(smm(w[MW_O], MW_O, S.y, S.o));
        TRY(gpu_ewise(G, GPU_OP_ADD, M_C, 0, S.x, S.o, NULL, S.x, &E));
        TRY(gpu_layer_norm(G, S.x, v, v, S.xn, 1, M_C, 1e-5f, &E));
        memset(&mx, 0, sizeof mx);
        mx.form = GPU_MIX_LERP, mx.n = 1, mx.mix[0] = v, mx.out[0] = S.m[0];
        TRY(gpu_token_mix(G, S.xn, S.ffn[l], 1, M_C, &mx, &E));
        TRY(smm(w[MW_FK], MW_FK, S.m[0], S.f));
        TRY(gpu_ewise(G, GPU_OP_RELU_SQ, M_F, 0, S.f, NULL, NULL, S.f, &E));
        TRY(smm(w[MW_FV], MW_FV, S.f, S.o));
        TRY(gpu_ewise(G, GPU_OP_ADD, M_C, 0, S.x, S.o, NULL, S.x, &E));
        /* keep the residual bounded over many timed steps */
        TRY(gpu_layer_norm(G, S.x, v, v, S.x, 1, M_C, 1e-5f, &E));
    }
    TRY(gpu_layer_norm(G, S.x, v, v, S.xn, 1, M_C, 1e-5f, &E));
    TRY(gpu_matmul_f16(G, S.head, M_V, M_C, S.xn, 1, S.logits, &E));
#undef TRY
    return st;
}

static gpu_graph *synth_graph;

static int
run_job(const struct job *j)
{
    switch (j->kind) {
    case J_TOKEN:
        return synth_token();
    case J_GRAPH:
        return gpu_graph_launch(G, synth_graph, &E);
    case J_COPY:
        return gpu_copy(G, j->y, j->a, COPY_BYTES, &E);
    case J_GEMM:
        return gpu_gemm(G, GPU_F16, j->a, j->rows, j->cols, j->b, j->t, j->y, j->rows, 0.0f,
                        &E);
    case J_MV_F16:
        return gpu_matmul_f16(G, j->a, j->rows, j->cols, j->b, j->t, j->y, &E);
    case J_MV_Q8:
        return gpu_matmul_q8(G, j->a, j->c, j->rows, j->cols, j->b, j->t, j->y, &E);
    case J_MV_Q4:
        return gpu_matmul_q4(G, j->a, j->c, j->rows, j->cols, j->b, j->t, j->y, &E);
    case J_WKV6:
        return gpu_wkv5(G, j->t, j->h, j->n, j->a, j->b, j->c, j->d, j->e, j->f, 1, 1, j->y,
                        &E);
    case J_WKV7:
        return gpu_wkv7(G, j->t, j->h, j->n, j->a, j->b, j->e, j->c, j->d, j->f, j->g, j->y,
                        &E);
    case J_LN:
        return gpu_layer_norm(G, j->a, j->b, j->c, j->y, j->t, j->h * j->n, 1e-5f, &E);
    case J_MIX7: {
        gpu_mix mx;
        memset(&mx, 0, sizeof mx);
        mx.form = GPU_MIX_LERP;
        mx.n = 6;
        for (int s = 0; s < 6; s++) {
            mx.mix[s] = j->c;
            mx.out[s] = (float *)j->y + (size_t)s * j->t * j->h * j->n;
        }
        return gpu_token_mix(G, j->a, j->b, j->t, j->h * j->n, &mx, &E);
    }
    case J_PREP7: {
        gpu_v7_prep_args p;
        p.k = j->a, p.a = j->b, p.kk = j->y, p.w = j->c, p.v = j->d;
        p.vf = j->e, p.vg = j->f;
        p.a0 = p.k_k = p.k_a = p.w0 = p.v0 = j->g;
        return gpu_v7_prep(G, j->t, j->h, j->n, &p, &E);
    }
    case J_OUT7:
        return gpu_v7_out(G, j->t, j->h, j->n, j->y, j->a, j->b, j->c, j->d, j->e, j->f, j->g,
                          64e-5f, &E);
    case J_ATT1: {   /* prep's vectors as J_PREP7's, the WKV's state in A, Y the output */
        gpu_v7_prep_args p;
        p.k = j->b, p.a = j->c, p.kk = NULL, p.w = j->d, p.v = j->e;
        p.vf = j->f, p.vg = j->f;
        p.a0 = p.k_k = p.k_a = p.w0 = p.v0 = j->g;
        return gpu_v7_att1(G, j->h, j->n, j->a, &p, j->f, j->g, j->g, j->g, j->g, 64e-5f, j->y,
                           &E);
    }
    }
    return RWKV_EINVAL;
}

/* Seconds per call of J (warm-up, then doubling batches within the budget). */
static double
time_job(const struct job *j)
{
    double t0, dt = 0;
    int iters = 1;

    if (run_job(j) != RWKV_OK || gpu_sync(G, &E) != RWKV_OK)
        die("warm-up");
    for (;;) {
        t0 = mono_now_s();
        for (int i = 0; i < iters; i++)
            if (run_job(j) != RWKV_OK)
                die("run");
        if (gpu_sync(G, &E) != RWKV_OK)
            die("sync");
        dt = mono_now_s() - t0;
        if (dt >= budget || iters >= BENCH_MAX_ITERS)
            break;
        iters = dt < budget / 8 ? iters * 8 : iters * 2;
        if (iters > BENCH_MAX_ITERS)
            iters = BENCH_MAX_ITERS;
    }
    return dt / iters;
}

/*
** Products at the 1.5B shapes: cuBLAS fp16 GEMM (T = 1, 256) and our fp16 /
** Q8 / Q4 kernels (T = 1, 8) in weight GB/s, then per weight format one
** layer's decode matvecs (r, k, v, o: 4 x 2048^2, ffn key and value; the
** small LoRAs are extra).  Q4 codes and block words are zeros (d = m = 0):
** the speed does not depend on the values.
*/
static void
bench_products(void)
{
    static const int SH[3][2] = { { 2048, 2048 }, { 8192, 2048 }, { 2048, 8192 } };
    static const char *const MV_NAME[3] = { "f16", "q8", "q4" };
    static const enum job_kind MV_KIND[3] = { J_MV_F16, J_MV_Q8, J_MV_Q4 };
    static const double MV_BYTES[3] = { 2.0, 1.125, 0.625 };   /* per weight */
    double layer[3] = { 0 }, layer_bytes[3] = { 0 }, s;
    struct job j;

    for (int si = 0; si < 3; si++) {
        int R = SH[si][0], K = SH[si][1];
        size_t nw = (size_t)R * K;
        float *x = drand((size_t)256 * K, -1, 1);
        void *xh = dalloc((size_t)256 * K * 2), *wh = dalloc(nw * 2), *wq = dalloc(nw);
        float *wf = drand(nw, -1, 1), *sc = drand(nw / 32, 0.001f, 0.01f);
        void *dm = dalloc(nw / 32 * 4);
        float *y = dalloc((size_t)256 * R * 4);

        if (gpu_convert(G, x, GPU_F16, xh, (size_t)256 * K, &E) != RWKV_OK ||
            gpu_convert(G, wf, GPU_F16, wh, nw, &E) != RWKV_OK)
            die("convert");
        gpu_free(G, wf);
        for (int ti = 0; ti < 2; ti++) {
            int T = ti ? 256 : 1;
            memset(&j, 0, sizeof j);
            j.kind = J_GEMM, j.rows = R, j.cols = K, j.t = T, j.a = wh, j.b = xh, j.y = y;
            s = time_job(&j);
            printf("bench cublas_f16_gemm_%dx%d_T%d %.2f TFLOP/s (%.1f us, weights %.1f GB/s)\n",
                   R, K, T, 2.0 * nw * T / s / 1e12, s * 1e6, nw * 2.0 / s / 1e9);
        }
        for (int ti = 0; ti < 2; ti++)
            for (int f = 0; f < 3; f++) {
                int T = ti ? 8 : 1;
                memset(&j, 0, sizeof j);
                j.kind = MV_KIND[f], j.rows = R, j.cols = K, j.t = T, j.b = x, j.y = y;
                j.a = f == 0 ? wh : wq;   /* Q4 codes: the first half of Q8's */
                j.c = f == 1 ? (void *)sc : dm;
                s = time_job(&j);
                printf("bench matmul_%s_%dx%d_T%d %.1f GB/s (%.1f us)\n", MV_NAME[f], R, K, T,
                       nw * MV_BYTES[f] / s / 1e9, s * 1e6);
                if (T == 1) {
                    layer[f] += s * (si == 0 ? 4 : 1);
                    layer_bytes[f] += nw * MV_BYTES[f] * (si == 0 ? 4 : 1);
                }
            }
        gpu_free(G, x), gpu_free(G, xh), gpu_free(G, wh), gpu_free(G, wq), gpu_free(G, sc);
        gpu_free(G, dm), gpu_free(G, y);
    }
    for (int f = 0; f < 3; f++)
        printf("bench layer_1.5b_matvec_%s %.1f us (%.1f GB/s over %.1f MB)\n", MV_NAME[f],
               layer[f] * 1e6, layer_bytes[f] / layer[f] / 1e9, layer_bytes[f] / 1e6);
}

int
main(int argc, char **argv)
{
    gpu_device_info info;
    struct job j;
    double s, copy_bw = 0;
    int n = 0;

    if (argc > 1 && strcmp(argv[1], "--quick") == 0)
        budget = BENCH_BUDGET_S / 5;
    if (gpu_device_count(&n, &E) != RWKV_OK || n == 0) {
        printf("skipped: %s\n", E.msg[0] ? E.msg : "no CUDA device");
        return 0;
    }
    if (gpu_device_query(0, &info, &E) != RWKV_OK || gpu_ctx_create(0, &G, &E) != RWKV_OK)
        die("device 0");
    printf("device 0: %s, sm_%d%d, %d SMs, %.1f GiB (%.1f free)\n", info.name, info.cc_major,
           info.cc_minor, info.sm_count, (double)info.total_bytes / (1u << 30),
           (double)info.free_bytes / (1u << 30));

    /* copy bandwidth */
    memset(&j, 0, sizeof j);
    j.kind = J_COPY;
    j.a = dalloc(COPY_BYTES);
    j.y = dalloc(COPY_BYTES);
    s = time_job(&j);
    copy_bw = 2 * COPY_BYTES / s;
    printf("bench d2d_copy %.1f GB/s (bytes copied per second; read+write %.1f GB/s)\n",
           COPY_BYTES / s / 1e9, 2 * COPY_BYTES / s / 1e9);
    gpu_free(G, j.a);
    gpu_free(G, j.y);

    bench_products();

    /* WKV and the per-token kernels, H = 32, N = 64 (C = 2048) */
    for (int ti = 0; ti < 2; ti++) {
        int T = ti ? 256 : 1, H = 32, N = 64, C = H * N;
        size_t nt = (size_t)T * C;
        float *st = drand((size_t)H * N * N, -0.1f, 0.1f), *r = drand(nt, -1, 1);
        float *k = drand(nt, -0.2f, 0.2f), *v = drand(nt, -1, 1), *w = drand(nt, 0.5f, 1);
        float *kk = drand(nt, -0.1f, 0.1f), *kka = drand(nt, -0.05f, 0.05f);
        float *y = dalloc(nt * 6 * 4), *vec = drand(C, 0, 1);

        memset(&j, 0, sizeof j);
        j.t = T, j.h = H, j.n = N;
        j.kind = J_WKV6, j.a = st, j.b = r, j.c = k, j.d = v, j.e = w, j.f = vec, j.y = y;
        s = time_job(&j);
        printf("bench wkv6_H32_N64_T%d %.1f us (%.2f us/token)\n", T, s * 1e6, s * 1e6 / T);
        j.kind = J_WKV7, j.f = kk, j.g = kka;
        s = time_job(&j);
        printf("bench wkv7_H32_N64_T%d %.1f us (%.2f us/token)\n", T, s * 1e6, s * 1e6 / T);
        j.kind = J_LN, j.a = r, j.b = vec, j.c = vec;
        s = time_job(&j);
        printf("bench layer_norm_C2048_T%d %.1f us\n", T, s * 1e6);
        j.kind = J_MIX7, j.a = r, j.b = vec, j.c = vec;
        s = time_job(&j);
        printf("bench token_mix6_C2048_T%d %.1f us\n", T, s * 1e6);
        j.kind = J_PREP7, j.a = k, j.b = kk, j.c = w, j.d = v, j.e = kka, j.f = r, j.g = vec;
        s = time_job(&j);
        printf("bench v7_prep_C2048_T%d %.1f us\n", T, s * 1e6);
        j.kind = J_OUT7, j.a = r, j.b = k, j.c = v, j.d = w, j.e = vec, j.f = vec, j.g = vec;
        s = time_job(&j);
        printf("bench v7_out_C2048_T%d %.1f us\n", T, s * 1e6);
        if (T == 1) {   /* the three above (wkv7 included) in one launch */
            j.kind = J_ATT1, j.a = st, j.b = k, j.c = kk, j.d = w, j.e = v, j.f = r, j.g = vec;
            s = time_job(&j);
            printf("bench v7_att1_C2048_T1 %.1f us (prep + wkv7 + out in one launch)\n",
                   s * 1e6);
        }
        gpu_free(G, st), gpu_free(G, r), gpu_free(G, k), gpu_free(G, v), gpu_free(G, w);
        gpu_free(G, kk), gpu_free(G, kka), gpu_free(G, y), gpu_free(G, vec);
    }

    /* whole decode steps of the synthetic 1.5B, plain and as one CUDA graph */
    synth_init();
    memset(&j, 0, sizeof j);
    j.kind = J_TOKEN;
    s = time_job(&j);
    printf("bench decode_1.5b_f16_launches %.1f tok/s (%.3f ms/token, weights %.2f GB/token, "
           "%.1f GB/s = %.0f%% of copy read+write)\n", 1 / s, s * 1e3, S.bytes / 1e9,
           S.bytes / s / 1e9, 100 * S.bytes / s / copy_bw);
    if (gpu_capture_begin(G, &E) != RWKV_OK)
        die("capture");
    if (synth_token() != RWKV_OK) {
        gpu_capture_end(G, &synth_graph, NULL);
        die("capturing a token");
    }
    if (gpu_capture_end(G, &synth_graph, &E) != RWKV_OK)
        die("capture end");
    j.kind = J_GRAPH;
    s = time_job(&j);
    printf("bench decode_1.5b_f16_graph %.1f tok/s (%.3f ms/token, %.1f GB/s = %.0f%% of copy "
           "read+write)\n", 1 / s, s * 1e3, S.bytes / s / 1e9, 100 * S.bytes / s / copy_bw);
    gpu_graph_destroy(synth_graph);

    gpu_ctx_destroy(G);
    printf("bench done\n");
    return 0;
}
