/*
** gpu_bench.c -- device numbers for tests/gpu/device_check.sh (not a test):
**   - device-to-device copy bandwidth (the yardstick of the decode target),
**   - cuBLAS fp16 GEMM rate at the RWKV 1.5B shapes (C = 2048, F = 8192;
**     T = 1 and 256 tokens) -- the yardstick of the prefill target,
**   - our own kernels: fp16 / Q8 matvec (weight GB/s), WKV v6 / v7, norms,
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

static double
now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* What one timed call does. */
enum job_kind { J_COPY, J_GEMM, J_MV_F16, J_MV_Q8, J_WKV6, J_WKV7, J_LN, J_MIX7, J_PREP7,
                J_OUT7 };
struct job {
    enum job_kind kind;
    int rows, cols, t, h, n;
    void *a, *b, *c, *d, *e, *f, *g, *y;
};

static int
run_job(const struct job *j)
{
    switch (j->kind) {
    case J_COPY:
        return gpu_copy(G, j->y, j->a, COPY_BYTES, &E);
    case J_GEMM:
        return gpu_gemm(G, GPU_F16, j->a, j->rows, j->cols, j->b, j->t, j->y, j->rows, 0.0f,
                        &E);
    case J_MV_F16:
        return gpu_matmul_f16(G, j->a, j->rows, j->cols, j->b, j->t, j->y, &E);
    case J_MV_Q8:
        return gpu_matmul_q8(G, j->a, j->c, j->rows, j->cols, j->b, j->t, j->y, &E);
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
        t0 = now();
        for (int i = 0; i < iters; i++)
            if (run_job(j) != RWKV_OK)
                die("run");
        if (gpu_sync(G, &E) != RWKV_OK)
            die("sync");
        dt = now() - t0;
        if (dt >= budget || iters >= BENCH_MAX_ITERS)
            break;
        iters = dt < budget / 8 ? iters * 8 : iters * 2;
        if (iters > BENCH_MAX_ITERS)
            iters = BENCH_MAX_ITERS;
    }
    return dt / iters;
}

int
main(int argc, char **argv)
{
    static const int SH[3][2] = { { 2048, 2048 }, { 8192, 2048 }, { 2048, 8192 } };
    gpu_device_info info;
    struct job j;
    double s, layer_f16 = 0, layer_q8 = 0, layer_bytes_f16 = 0, layer_bytes_q8 = 0;
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
    printf("bench d2d_copy %.1f GB/s (bytes copied per second; read+write %.1f GB/s)\n",
           COPY_BYTES / s / 1e9, 2 * COPY_BYTES / s / 1e9);
    gpu_free(G, j.a);
    gpu_free(G, j.y);

    /* matrix products at the 1.5B shapes */
    for (int si = 0; si < 3; si++) {
        int R = SH[si][0], K = SH[si][1];
        size_t nw = (size_t)R * K;
        float *x = drand((size_t)256 * K, -1, 1);
        void *xh = dalloc((size_t)256 * K * 2), *wh = dalloc(nw * 2), *wq = dalloc(nw);
        float *wf = drand(nw, -1, 1), *sc = drand(nw / 32, 0.001f, 0.01f);
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
        for (int ti = 0; ti < 2; ti++) {
            int T = ti ? 8 : 1;
            memset(&j, 0, sizeof j);
            j.kind = J_MV_F16, j.rows = R, j.cols = K, j.t = T, j.a = wh, j.b = x, j.y = y;
            s = time_job(&j);
            printf("bench matmul_f16_%dx%d_T%d %.1f GB/s (%.1f us)\n", R, K, T,
                   nw * 2.0 / s / 1e9, s * 1e6);
            if (T == 1) {
                layer_f16 += s * (si == 0 ? 4 : 1);
                layer_bytes_f16 += nw * 2.0 * (si == 0 ? 4 : 1);
            }
            j.kind = J_MV_Q8, j.a = wq, j.c = sc;
            s = time_job(&j);
            printf("bench matmul_q8_%dx%d_T%d %.1f GB/s (%.1f us)\n", R, K, T,
                   nw * 1.125 / s / 1e9, s * 1e6);
            if (T == 1) {
                layer_q8 += s * (si == 0 ? 4 : 1);
                layer_bytes_q8 += nw * 1.125 * (si == 0 ? 4 : 1);
            }
        }
        gpu_free(G, x), gpu_free(G, xh), gpu_free(G, wh), gpu_free(G, wq), gpu_free(G, sc);
        gpu_free(G, y);
    }
    /* r, k, v, o (4 x 2048^2) + ffn key + value; the small LoRAs are extra */
    printf("bench layer_1.5b_matvec_f16 %.1f us (%.1f GB/s over %.1f MB)\n", layer_f16 * 1e6,
           layer_bytes_f16 / layer_f16 / 1e9, layer_bytes_f16 / 1e6);
    printf("bench layer_1.5b_matvec_q8 %.1f us (%.1f GB/s over %.1f MB)\n", layer_q8 * 1e6,
           layer_bytes_q8 / layer_q8 / 1e9, layer_bytes_q8 / 1e6);

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
        gpu_free(G, st), gpu_free(G, r), gpu_free(G, k), gpu_free(G, v), gpu_free(G, w);
        gpu_free(G, kk), gpu_free(G, kka), gpu_free(G, y), gpu_free(G, vec);
    }
    gpu_ctx_destroy(G);
    printf("bench done\n");
    return 0;
}
