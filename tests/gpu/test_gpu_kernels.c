/*
** test_gpu_kernels.c -- every gpu/ kernel against the plain CPU version in
** gpu_ref.h (written from core/model/model_v*.c), on the fixture-like shapes:
** heads H = 1..32 of N = 8..128 (C = 64..2048), T = 1, 2, 17 tokens (17
** crosses the matmul's 8-token tile and runs the WKV state through many
** steps), matrices up to 8192 x 2048.
**
** Bounds (relative: max |gpu - cpu| / max |cpu|):
**   norms, mixes, element-wise, v7 prep/out   1e-5  (same formulas; expf and
**                                              tree sums differ by ulps)
**   WKV (state and y after 17 tokens)         1e-4  (fp32, N-term sums per token)
**   q8 / q4 / f16 matmul, cuBLAS gemm         1e-4  (fp32 sums of up to 8192
**                                              terms against double sums)
**   f16 / bf16 conversion, Q8 / Q4 -> f16     bit-exact
** Q4 matrices come from core's quantizer (simd_q4_quantize: the bytes a
** cpu fp32i4 model holds) and the reference weights from core's
** simd_q4_dequantize_row, so GPU and CPU read the very same codes and
** block words (split from the rows by simd_q4_split, as the model upload does).
** Without a device: "skipped: no CUDA device (...)", "0 passed, 0 failed",
** exit 0.  In a build without CUDA: checks that the stub refuses.
*/
#include "../harness.h"
#include "gpu_ref.h"

#define MAX_LIVE 64
#define TOL_EW 1e-5
#define TOL_SUM 1e-4

static gpu_ctx *G;
static rwkv_err E;
static void *live[MAX_LIVE];
static int nlive;
static uint64_t seed = 0x9e3779b97f4a7c15ULL;

static void
die(const char *what)
{
    printf("FAIL %s: %s\n", what, E.msg);
    test_failed++;
    printf("%d passed, %d failed\n", test_passed, test_failed);
    exit(1);
}

/* Device copy of SRC (zeroed when NULL), freed by dfree_all. */
static void *
dput(const void *src, size_t bytes)
{
    void *d = ref_dev_put(G, src, bytes, &E);

    if (d == NULL || nlive == MAX_LIVE)
        die("device allocation");
    live[nlive++] = d;
    return d;
}

static float *
fput(const float *src, size_t n)
{
    return dput(src, n * sizeof(float));
}

static float *
fget(const float *d, size_t n)
{
    float *h = malloc(n * sizeof *h);

    if (h == NULL || gpu_download(G, h, d, n * sizeof *h, &E) != RWKV_OK)
        die("download");
    return h;
}

static void
dfree_all(void)
{
    for (int i = 0; i < nlive; i++)
        gpu_free(G, live[i]);
    nlive = 0;
}

static void
call_ok(int st, const char *what)
{
    if (st != RWKV_OK)
        die(what);
}

static const int TS[] = { 1, 2, 17 };
#define NTS 3
/* (H, N) of the per-head tests. */
static const int HN[][2] = { { 1, 64 }, { 4, 64 }, { 32, 64 }, { 1, 8 }, { 8, 8 },
                             { 2, 16 }, { 3, 32 }, { 2, 128 } };
#define NHN (sizeof HN / sizeof HN[0])

static void
test_layer_norm(void)
{
    static const int CS[] = { 64, 768, 2048 };

    for (int ci = 0; ci < 3; ci++)
        for (int ti = 0; ti < NTS; ti++) {
            int C = CS[ci], T = TS[ti];
            size_t n = (size_t)T * C;
            float *x = ref_vec(&seed, n, -2, 3), *w = ref_vec(&seed, C, 0.5f, 1.5f);
            float *b = ref_vec(&seed, C, -0.5f, 0.5f), *y = malloc(n * sizeof *y), *gy;
            float *dx = fput(x, n), *dw = fput(w, C), *db = fput(b, C);
            float *dy = (ti & 1) ? dx : fput(NULL, n);   /* in place for T = 2 */

            for (int p = 0; p < T; p++)
                kern_layer_norm(x + (size_t)p * C, w, b, y + (size_t)p * C, C, 1e-5f);
            call_ok(gpu_layer_norm(G, dx, dw, db, dy, T, C, 1e-5f, &E), "layer_norm");
            gy = fget(dy, n);
            {
                double e = ref_rel_err(gy, y, n);
                TEST_CONDF(e <= TOL_EW, "layer_norm C %d T %d: rel err %.3g", C, T, e);
            }
            free(x), free(w), free(b), free(y), free(gy);
            dfree_all();
        }
}

static void
test_group_norm(void)
{
    for (size_t hi = 0; hi < NHN; hi++)
        for (int ti = 0; ti < NTS; ti++) {
            int H = HN[hi][0], N = HN[hi][1], C = H * N, T = TS[ti], gated = ti != 1;
            size_t n = (size_t)T * C;
            float *x = ref_vec(&seed, n, -3, 2), *w = ref_vec(&seed, C, 0.5f, 1.5f);
            float *b = ref_vec(&seed, C, -0.5f, 0.5f), *g = ref_vec(&seed, n, -1, 1);
            float *y = malloc(n * sizeof *y), *gy;
            float *dx = fput(x, n), *dw = fput(w, C), *db = fput(b, C), *dg = fput(g, n);

            for (int p = 0; p < T; p++)
                for (int h = 0; h < H; h++) {
                    size_t o = (size_t)p * C + (size_t)h * N;
                    kern_layer_norm(x + o, w + h * N, b + h * N, y + o, N, 64e-5f);
                    if (gated)
                        for (int j = 0; j < N; j++)
                            y[o + j] *= g[o + j];
                }
            call_ok(gpu_group_norm(G, dx, dw, db, gated ? dg : NULL, dx, T, H, N, 64e-5f, &E),
                    "group_norm");
            gy = fget(dx, n);
            {
                double e = ref_rel_err(gy, y, n);
                TEST_CONDF(e <= TOL_EW, "group_norm H %d N %d T %d gate %d: rel err %.3g", H,
                           N, T, gated, e);
            }
            free(x), free(w), free(b), free(g), free(y), free(gy);
            dfree_all();
        }
}

/* MX with NM random mixes [C] (host copies in MIX) into fresh device outputs
 * [n] (host references to fill in OUT), delta into DDELTA. */
static void
mix_setup(gpu_mix *mx, int lerp, int nm, int C, size_t n, float *ddelta, float **mix,
          float **out)
{
    memset(mx, 0, sizeof *mx);
    mx->form = lerp ? GPU_MIX_LERP : GPU_MIX_V5;
    mx->n = nm;
    mx->delta = ddelta;
    for (int q = 0; q < nm; q++) {
        mix[q] = ref_vec(&seed, C, 0, 1);
        out[q] = malloc(n * sizeof(float));
        mx->mix[q] = fput(mix[q], C);
        mx->out[q] = fput(NULL, n);
    }
}

/* The largest relative error of MX's NM device outputs against OUT. */
static double
mix_err(const gpu_mix *mx, float **out, int nm, size_t n)
{
    double e = 0;

    for (int q = 0; q < nm; q++) {
        float *go = fget(mx->out[q], n);
        double eq = ref_rel_err(go, out[q], n);
        e = eq > e ? eq : e;
        free(go);
    }
    return e;
}

static void
test_token_mix(void)
{
    static const int CS[] = { 64, 2048 };

    for (int ci = 0; ci < 2; ci++)
        for (int ti = 0; ti < NTS; ti++)
            for (int lerp = 0; lerp < 2; lerp++) {
                int C = CS[ci], T = TS[ti], nm = lerp ? 6 : 4;
                size_t n = (size_t)T * C;
                float *xn = ref_vec(&seed, n, -2, 2), *prev = ref_vec(&seed, C, -2, 2);
                float *mix[GPU_MIX_MAX], *out[GPU_MIX_MAX], *delta = malloc(n * 4);
                float *dxn = fput(xn, n), *dprev = fput(prev, C), *ddelta = fput(NULL, n);
                gpu_mix mx;
                double e;

                mix_setup(&mx, lerp, nm, C, n, ddelta, mix, out);
                call_ok(gpu_token_mix(G, dxn, dprev, T, C, &mx, &E), "token_mix");
                ref_token_mix(xn, prev, T, C, lerp, nm, (const float *const *)mix, out, delta);
                e = mix_err(&mx, out, nm, n);
                TEST_CONDF(e <= TOL_EW, "token_mix form %d C %d T %d: rel err %.3g", lerp, C,
                           T, e);
                {
                    float *gp = fget(dprev, C), *gd = fget(ddelta, n);
                    TEST_CONDF(memcmp(gp, prev, C * sizeof(float)) == 0,
                               "token_mix C %d T %d: prev is not the last row", C, T);
                    e = ref_rel_err(gd, delta, n);
                    TEST_CONDF(e <= TOL_EW, "token_mix delta C %d T %d: rel err %.3g", C, T, e);
                    free(gp), free(gd);
                }
                if (lerp) {   /* v6 second stage on the same data */
                    float *add = ref_vec(&seed, n, -0.5f, 0.5f), *ref = malloc(n * 4), *go;
                    float *dadd = fput(add, n);
                    for (size_t i = 0; i < n; i++)
                        ref[i] = xn[i] + delta[i] * (mix[1][i % C] + add[i]);
                    call_ok(gpu_mix_add(G, dxn, ddelta, mx.mix[1], dadd, mx.out[0], T, C, &E),
                            "mix_add");
                    go = fget(mx.out[0], n);
                    e = ref_rel_err(go, ref, n);
                    TEST_CONDF(e <= TOL_EW, "mix_add C %d T %d: rel err %.3g", C, T, e);
                    free(add), free(ref), free(go);
                }
                for (int s = 0; s < nm; s++)
                    free(mix[s]), free(out[s]);
                free(xn), free(prev), free(delta);
                dfree_all();
            }
}

static void
test_ewise(void)
{
    const size_t n = 1000;
    const int period = 100;
    float *a = ref_vec(&seed, n, -4, 4), *b = ref_vec(&seed, n, -4, 4);
    float *c = ref_vec(&seed, n, -4, 4), *y = malloc(n * 4);
    float *da = fput(a, n), *db = fput(b, n), *dc = fput(c, n), *dy = fput(NULL, n);

    for (int op = 0; op < GPU_NOP; op++) {
        float *gy;
        double e;

        for (size_t i = 0; i < n; i++) {
            switch (op) {
            case GPU_OP_ADD:        y[i] = a[i] + b[i]; break;
            case GPU_OP_MUL:        y[i] = a[i] * b[i]; break;
            case GPU_OP_SILU:       y[i] = a[i] * ref_sigmoid(a[i]); break;
            case GPU_OP_SIGMOID:    y[i] = ref_sigmoid(a[i]); break;
            case GPU_OP_TANH:       y[i] = tanhf(a[i]); break;
            case GPU_OP_RELU_SQ:    y[i] = a[i] > 0 ? a[i] * a[i] : 0; break;
            case GPU_OP_SIGMUL_ADD: y[i] = a[i] + ref_sigmoid(b[i]) * c[i]; break;
            case GPU_OP_V6_DECAY:   y[i] = expf(-expf(b[i % period] + a[i] * 0.25f)); break;
            }
        }
        if (op == GPU_OP_V6_DECAY) {   /* keep exp(a) in a sane range */
            float *a4 = malloc(n * 4);
            for (size_t i = 0; i < n; i++)
                a4[i] = a[i] * 0.25f;
            call_ok(gpu_upload(G, dy, a4, n * 4, &E), "upload");
            call_ok(gpu_ewise(G, GPU_OP_V6_DECAY, n, period, dy, db, NULL, dy, &E), "ewise");
            free(a4);
        } else {
            call_ok(gpu_ewise(G, (enum gpu_op)op, n, period, da, db, dc, dy, &E), "ewise");
        }
        gy = fget(dy, n);
        e = ref_rel_err(gy, y, n);
        TEST_CONDF(e <= TOL_EW, "ewise op %d: rel err %.3g", op, e);
        free(gy);
    }
    free(a), free(b), free(c), free(y);
    dfree_all();
}

/* modes: 0 = v5.0/5.1 (per head), 1 = v5.2 (per channel), 2 = v6 (per token). */
static void
test_wkv5(void)
{
    for (int mode = 0; mode < 3; mode++)
        for (size_t hi = 0; hi < NHN; hi++)
            for (int ti = 0; ti < NTS; ti++) {
                int H = HN[hi][0], N = HN[hi][1], C = H * N, T = TS[ti];
                int w_tok = mode == 2, chan = mode >= 1;
                size_t n = (size_t)T * C, ns = (size_t)H * N * N;
                size_t nw = w_tok ? n : chan ? (size_t)C : (size_t)H;
                size_t nu = chan ? (size_t)C : (size_t)H;
                float *r = ref_vec(&seed, n, -1, 1), *k = ref_vec(&seed, n, -1, 1);
                float *v = ref_vec(&seed, n, -1, 1), *w = ref_vec(&seed, nw, 0.3f, 0.999f);
                float *u = ref_vec(&seed, nu, -1, 1), *s = ref_vec(&seed, ns, -1, 1);
                float *y = malloc(n * 4), *gy, *gs;
                float *ds = fput(s, ns), *dy = fput(NULL, n);
                double e1, e2;

                call_ok(gpu_wkv5(G, T, H, N, ds, fput(r, n), fput(k, n), fput(v, n),
                                 fput(w, nw), fput(u, nu), w_tok, chan, dy, &E), "wkv5");
                ref_wkv5(T, H, N, s, r, k, v, w, u, w_tok, chan, y);
                gy = fget(dy, n);
                gs = fget(ds, ns);
                e1 = ref_rel_err(gy, y, n);
                e2 = ref_rel_err(gs, s, ns);
                TEST_CONDF(e1 <= TOL_SUM && e2 <= TOL_SUM,
                           "wkv5 mode %d H %d N %d T %d: rel err y %.3g state %.3g", mode, H,
                           N, T, e1, e2);
                free(r), free(k), free(v), free(w), free(u), free(s), free(y), free(gy);
                free(gs);
                dfree_all();
            }
}

static void
test_wkv7(void)
{
    for (size_t hi = 0; hi <= NHN; hi++)
        for (int ti = 0; ti < NTS; ti++) {
            /* the extra last round: a state that is not 16-byte aligned */
            int odd = hi == NHN, H = HN[odd ? 0 : hi][0], N = HN[odd ? 0 : hi][1];
            int C = H * N, T = TS[ti];
            size_t n = (size_t)T * C, ns = (size_t)H * N * N;
            float *r = ref_vec(&seed, n, -1, 1), *k = ref_vec(&seed, n, -1, 1);
            float *v = ref_vec(&seed, n, -1, 1), *w = ref_vec(&seed, n, 0.5f, 1.0f);
            float *kk = ref_vec(&seed, n, -1, 1), *a = ref_vec(&seed, n, 0, 1);
            float *kka = malloc(n * 4), *s = ref_vec(&seed, ns, -1, 1), *y = malloc(n * 4);
            float *gy, *gs, *dsb = fput(NULL, ns + 1), *ds = dsb + odd, *dy = fput(NULL, n);
            double e1, e2;

            for (size_t o = 0; o < n; o += (size_t)N) {   /* kk unit length per head */
                float ss = 0;
                for (int j = 0; j < N; j++)
                    ss += kk[o + j] * kk[o + j];
                for (int j = 0; j < N; j++) {
                    kk[o + j] /= sqrtf(ss);
                    kka[o + j] = kk[o + j] * a[o + j];
                }
            }
            call_ok(gpu_upload(G, ds, s, ns * 4, &E), "upload");
            call_ok(gpu_wkv7(G, T, H, N, ds, fput(r, n), fput(w, n), fput(k, n), fput(v, n),
                             fput(kk, n), fput(kka, n), dy, &E), "wkv7");
            ref_wkv7(T, H, N, s, r, w, k, v, kk, kka, y);
            gy = fget(dy, n);
            gs = fget(ds, ns);
            e1 = ref_rel_err(gy, y, n);
            e2 = ref_rel_err(gs, s, ns);
            TEST_CONDF(e1 <= TOL_SUM && e2 <= TOL_SUM,
                       "wkv7 H %d N %d T %d%s: rel err y %.3g state %.3g", H, N, T,
                       odd ? " (unaligned state)" : "", e1, e2);
            free(r), free(k), free(v), free(w), free(kk), free(a), free(kka), free(s);
            free(y), free(gy), free(gs);
            dfree_all();
        }
}

static void
test_v7_prep_out(void)
{
    for (size_t hi = 0; hi < NHN; hi++)
        for (int ti = 0; ti < NTS; ti++) {
            int H = HN[hi][0], N = HN[hi][1], C = H * N, T = TS[ti], later = ti != 0;
            size_t n = (size_t)T * C;
            float *k = ref_vec(&seed, n, -1, 1), *a = ref_vec(&seed, n, -2, 2);
            float *w = ref_vec(&seed, n, -2, 2), *v = ref_vec(&seed, n, -1, 1);
            float *vf = ref_vec(&seed, n, -1, 1), *vg = ref_vec(&seed, n, -1, 1);
            float *a0 = ref_vec(&seed, C, -1, 1), *k_k = ref_vec(&seed, C, 0.5f, 1.5f);
            float *k_a = ref_vec(&seed, C, 0, 1), *w0 = ref_vec(&seed, C, -2, 1);
            float *v0 = ref_vec(&seed, C, -1, 1), *kk = malloc(n * 4);
            gpu_v7_prep_args p;
            float *hk[5] = { k, a, kk, w, v };
            double e = 0;

            p.k = fput(k, n), p.a = fput(a, n), p.kk = fput(NULL, n), p.w = fput(w, n);
            p.v = fput(v, n);
            p.vf = later ? fput(vf, n) : NULL;
            p.vg = later ? fput(vg, n) : NULL;
            p.a0 = fput(a0, C), p.k_k = fput(k_k, C), p.k_a = fput(k_a, C);
            p.w0 = fput(w0, C), p.v0 = fput(v0, C);
            call_ok(gpu_v7_prep(G, T, H, N, &p, &E), "v7_prep");
            ref_v7_prep(T, H, N, k, a, kk, w, v, later ? vf : NULL, vg, a0, k_k, k_a, w0, v0);
            {
                float *dk[5] = { p.k, p.a, p.kk, p.w, p.v };
                for (int i = 0; i < 5; i++) {
                    float *g = fget(dk[i], n);
                    double ei = ref_rel_err(g, hk[i], n);
                    e = ei > e ? ei : e;
                    free(g);
                }
            }
            TEST_CONDF(e <= TOL_EW, "v7_prep H %d N %d T %d vf %d: rel err %.3g", H, N, T,
                       later, e);

            /* v7_out on the prepared k, v, with fresh y, r, g */
            {
                float *y = ref_vec(&seed, n, -2, 2), *r = ref_vec(&seed, n, -1, 1);
                float *g = ref_vec(&seed, n, 0, 1), *lw = ref_vec(&seed, C, 0.5f, 1.5f);
                float *lb = ref_vec(&seed, C, -0.5f, 0.5f), *rk = ref_vec(&seed, C, -1, 1);
                float *dy = fput(y, n), *gy;

                call_ok(gpu_v7_out(G, T, H, N, dy, fput(r, n), p.k, p.v, fput(g, n),
                                   fput(lw, C), fput(lb, C), fput(rk, C), 64e-5f, &E),
                        "v7_out");
                ref_v7_out(T, H, N, y, r, k, v, g, lw, lb, rk, 64e-5f);
                gy = fget(dy, n);
                e = ref_rel_err(gy, y, n);
                TEST_CONDF(e <= TOL_EW, "v7_out H %d N %d T %d: rel err %.3g", H, N, T, e);
                free(y), free(r), free(g), free(lw), free(lb), free(rk), free(gy);
            }
            free(k), free(a), free(w), free(v), free(vf), free(vg), free(a0), free(k_k);
            free(k_a), free(w0), free(v0), free(kk);
            dfree_all();
        }
}

/* gpu_v7_att1 (decode's prep + WKV + out in one launch) against the loops,
 * for a first layer and a later one, at every head shape. */
static void
test_v7_att1(void)
{
    for (size_t hi = 0; hi < NHN; hi++)
        for (int later = 0; later < 2; later++) {
            int H = HN[hi][0], N = HN[hi][1], C = H * N;
            size_t ns = (size_t)H * N * N;
            float *k = ref_vec(&seed, C, -1, 1), *a = ref_vec(&seed, C, -2, 2);
            float *w = ref_vec(&seed, C, -2, 2), *v = ref_vec(&seed, C, -1, 1);
            float *vf = ref_vec(&seed, C, -1, 1), *vg = ref_vec(&seed, C, -1, 1);
            float *a0 = ref_vec(&seed, C, -1, 1), *k_k = ref_vec(&seed, C, 0.5f, 1.5f);
            float *k_a = ref_vec(&seed, C, 0, 1), *w0 = ref_vec(&seed, C, -2, 1);
            float *v0 = ref_vec(&seed, C, -1, 1), *r = ref_vec(&seed, C, -1, 1);
            float *g = ref_vec(&seed, C, 0, 1), *lw = ref_vec(&seed, C, 0.5f, 1.5f);
            float *lb = ref_vec(&seed, C, -0.5f, 0.5f), *rk = ref_vec(&seed, C, -1, 1);
            float *s = ref_vec(&seed, ns, -1, 1), *kk = malloc(C * 4), *y = malloc(C * 4);
            float *ds = fput(s, ns), *dy = fput(NULL, C), *gy, *gs, *gk;
            gpu_v7_prep_args p;
            double e1, e2, e3;

            p.k = fput(k, C), p.a = fput(a, C), p.kk = NULL, p.w = fput(w, C);
            p.v = fput(v, C);
            p.vf = later ? fput(vf, C) : NULL, p.vg = later ? fput(vg, C) : NULL;
            p.a0 = fput(a0, C), p.k_k = fput(k_k, C), p.k_a = fput(k_a, C);
            p.w0 = fput(w0, C), p.v0 = fput(v0, C);
            call_ok(gpu_v7_att1(G, H, N, ds, &p, fput(r, C), fput(g, C), fput(lw, C),
                                fput(lb, C), fput(rk, C), 64e-5f, dy, &E), "v7_att1");
            gk = fget(p.k, C);   /* read, not written */
            e3 = ref_rel_err(gk, k, C);
            ref_v7_prep(1, H, N, k, a, kk, w, v, later ? vf : NULL, vg, a0, k_k, k_a, w0, v0);
            ref_wkv7(1, H, N, s, r, w, k, v, kk, a, y);
            ref_v7_out(1, H, N, y, r, k, v, g, lw, lb, rk, 64e-5f);
            gy = fget(dy, C);
            gs = fget(ds, ns);
            e1 = ref_rel_err(gy, y, C);
            e2 = ref_rel_err(gs, s, ns);
            TEST_CONDF(e1 <= TOL_SUM && e2 <= TOL_SUM && e3 == 0,
                       "v7_att1 H %d N %d later %d: rel err y %.3g state %.3g, k changed %.3g",
                       H, N, later, e1, e2, e3);
            free(k), free(a), free(w), free(v), free(vf), free(vg), free(a0), free(k_k);
            free(k_a), free(w0), free(v0), free(r), free(g), free(lw), free(lb), free(rk);
            free(s), free(kk), free(y), free(gy), free(gs), free(gk);
            dfree_all();
        }
}

/* (rows, cols) of the product tests: fixture sizes, an odd one (scalar
 * paths, partial Q8 / Q4 block), and the 1.5B model's attention / FFN shapes. */
static const int MM[][2] = { { 64, 64 }, { 96, 100 }, { 256, 768 }, { 2048, 2048 },
                             { 8192, 2048 }, { 2048, 8192 } };
#define NMM (sizeof MM / sizeof MM[0])

/* DY [T][R] from the device against the double-sum product of the
 * weights DEQ [R][K] with X [T][K]. */
static void
check_product(const char *what, const float *dy, const float *deq, int R, int K,
              const float *x, int T)
{
    size_t ny = (size_t)T * R;
    float *y = malloc(ny * 4), *gy;
    double e;

    ref_matmul(deq, R, K, x, T, y);
    gy = fget(dy, ny);
    e = ref_rel_err(gy, y, ny);
    TEST_CONDF(e <= TOL_SUM, "%s %dx%d T %d: rel err %.3g", what, R, K, T, e);
    free(y), free(gy);
}

/* DH (device f16 [N]) must be DEQ rounded to nearest even, bit for bit. */
static void
check_dequant_f16(const char *what, const void *dh, const float *deq, int R, int K)
{
    size_t n = (size_t)R * K, bad = 0;
    uint16_t *gh = malloc(n * 2);

    call_ok(gpu_download(G, gh, dh, n * 2, &E), "download");
    for (size_t i = 0; i < n; i++) {
        if (gh[i] != ref_f32_to_f16(deq[i]) && bad++ == 0)   /* the first, for the log */
            printf("%s %dx%d: weight %zu = %a: device f16 0x%04x, expected 0x%04x\n", what, R,
                   K, i, (double)deq[i], gh[i], ref_f32_to_f16(deq[i]));
    }
    TEST_CONDF(bad == 0, "%s %dx%d: %zu of %zu differ", what, R, K, bad, n);
    free(gh);
}

/* Q4 from core's own quantizer (the bytes a cpu fp32i4 model holds) and
 * core's dequantizer for the reference weights. */
static void
test_matmul_q4(int R, int K, const float *w, const float *dx, const float *x, int T, float *dy,
               int with_dequant)
{
    size_t nw = (size_t)R * K, nb = (size_t)simd_q4_nblocks(K);
    uint8_t *q = malloc((size_t)R * nb * 16);
    uint32_t *dm = malloc((size_t)R * nb * 4);
    float *deq = malloc(nw * 4);
    void *dq, *ddm;

    ref_q4_quantize(w, R, K, q, dm, deq);
    dq = dput(q, (size_t)R * nb * 16);
    ddm = dput(dm, (size_t)R * nb * 4);
    call_ok(gpu_matmul_q4(G, dq, ddm, R, K, dx, T, dy, &E), "matmul_q4");
    check_product("matmul_q4", dy, deq, R, K, x, T);
    if (with_dequant) {
        void *dh = dput(NULL, nw * 2);
        call_ok(gpu_dequant_q4(G, dq, ddm, R, K, GPU_F16, dh, &E), "dequant_q4");
        check_dequant_f16("dequant_q4", dh, deq, R, K);
    }
    free(q), free(dm), free(deq);
}

static void
test_matmul(void)
{
    for (size_t mi = 0; mi < NMM; mi++)
        for (int ti = 0; ti < NTS; ti++) {
            int R = MM[mi][0], K = MM[mi][1], T = TS[ti];
            size_t nw = (size_t)R * K, nb = (size_t)(K + 31) / 32;
            float *w = ref_vec(&seed, nw, -1, 1), *x = ref_vec(&seed, (size_t)T * K, -1, 1);
            float *deq = malloc(nw * 4), *sc = malloc((size_t)R * nb * 4);
            int8_t *q = malloc(nw);
            uint16_t *h = malloc(nw * 2);
            float *dx = fput(x, (size_t)T * K), *dy = fput(NULL, (size_t)T * R), *dsc;
            void *dq;

            if (T == 17 && nw > 4u << 20)   /* keep the CPU reference quick */
                T = 9;
            /* Q8 */
            ref_q8_quantize(w, R, K, q, sc, deq);
            dq = dput(q, nw);
            dsc = fput(sc, (size_t)R * nb);
            call_ok(gpu_matmul_q8(G, dq, dsc, R, K, dx, T, dy, &E), "matmul_q8");
            check_product("matmul_q8", dy, deq, R, K, x, T);
            /* dequantized to f16 (bit-exact: one fp32 product, then RNE) */
            if (ti == 0) {
                void *dh = dput(NULL, nw * 2);
                call_ok(gpu_dequant_q8(G, dq, dsc, R, K, GPU_F16, dh, &E), "dequant_q8");
                check_dequant_f16("dequant_q8", dh, deq, R, K);
            }
            test_matmul_q4(R, K, w, dx, x, T, dy, ti == 0);
            /* F16 (deq reused for the rounded weights) */
            for (size_t i = 0; i < nw; i++) {
                h[i] = ref_f32_to_f16(w[i]);
                deq[i] = ref_f16_to_f32(h[i]);
            }
            call_ok(gpu_matmul_f16(G, dput(h, nw * 2), R, K, dx, T, dy, &E), "matmul_f16");
            check_product("matmul_f16", dy, deq, R, K, x, T);
            free(w), free(x), free(deq), free(sc), free(q), free(h);
            dfree_all();
        }
}

/* gpu_ln_mix (one launch for one token, the two calls otherwise) against
 * kern_layer_norm and the token-mix reference: xn, every mix, delta, prev. */
static void
test_ln_mix(void)
{
    static const int CS[] = { 64, 2048, 2560 }, LT[] = { 1, 3 };

    for (int ci = 0; ci < 3; ci++)
        for (int ti = 0; ti < 2; ti++)
            for (int lerp = 0; lerp < 2; lerp++) {
                int C = CS[ci], T = LT[ti], nm = lerp ? 6 : 2;
                size_t n = (size_t)T * C;
                float *x = ref_vec(&seed, n, -2, 3), *w = ref_vec(&seed, C, 0.5f, 1.5f);
                float *b = ref_vec(&seed, C, -0.5f, 0.5f), *prev = ref_vec(&seed, C, -2, 2);
                float *xn = malloc(n * 4), *delta = malloc(n * 4);
                float *mix[GPU_MIX_MAX], *out[GPU_MIX_MAX];
                float *dxn = fput(NULL, n), *dprev = fput(prev, C), *ddelta = fput(NULL, n);
                gpu_mix mx;
                double e;

                mix_setup(&mx, lerp, nm, C, n, ddelta, mix, out);
                call_ok(gpu_ln_mix(G, fput(x, n), fput(w, C), fput(b, C), dxn, dprev, T, C, 1e-5f,
                                   &mx, &E), "ln_mix");
                for (int p = 0; p < T; p++)
                    kern_layer_norm(x + (size_t)p * C, w, b, xn + (size_t)p * C, C, 1e-5f);
                ref_token_mix(xn, prev, T, C, lerp, nm, (const float *const *)mix, out, delta);
                e = mix_err(&mx, out, nm, n);
                {
                    float *gx = fget(dxn, n), *gp = fget(dprev, C), *gd = fget(ddelta, n);
                    double ex = ref_rel_err(gx, xn, n), ep = ref_rel_err(gp, prev, C);
                    double ed = ref_rel_err(gd, delta, n);
                    TEST_CONDF(e <= TOL_EW && ex <= TOL_EW && ep <= TOL_EW && ed <= TOL_EW,
                               "ln_mix form %d C %d T %d: rel err mixes %.3g xn %.3g prev %.3g "
                               "delta %.3g", lerp, C, T, e, ex, ep, ed);
                    free(gx), free(gp), free(gd);
                }
                for (int q = 0; q < nm; q++)
                    free(mix[q]), free(out[q]);
                free(x), free(w), free(b), free(prev), free(xn), free(delta);
                dfree_all();
            }
}

/*
** gpu_matmul_batch: one launch of products in every weight format, each
** with its activation, some added to Y, one with a strided input (ldx), a
** row length off the vector paths; T from 1 (decode) past the 8-token pass.
*/
static void
test_matmul_batch(void)
{
    static const struct {
        enum gpu_wtype wt;
        int rows, cols, ldx;
        enum gpu_op act;
        int acc;
    } J[] = {
        { GPU_W_F32, 64, 100, 0, GPU_OP_TANH, 0 },
        { GPU_W_F16, 256, 768, 0, GPU_NOP, 1 },
        { GPU_W_BF16, 96, 128, 0, GPU_OP_SIGMOID, 0 },
        { GPU_W_Q8, 2048, 2048, 0, GPU_OP_RELU_SQ, 0 },
        { GPU_W_Q4, 128, 256, 0, GPU_OP_SILU, 1 },
        { GPU_W_F32, 200, 256, 320, GPU_NOP, 1 },
        { GPU_W_F16, 33, 98, 0, GPU_OP_TANH, 0 },
    };
    enum { NJ = sizeof J / sizeof J[0] };
    static const int TB[] = { 1, 3, 8, 19 };

    for (size_t ti = 0; ti < sizeof TB / sizeof TB[0]; ti++) {
        int T = TB[ti];
        gpu_mm_job jobs[NJ];
        float *want[NJ];

        memset(jobs, 0, sizeof jobs);
        for (int i = 0; i < NJ; i++) {
            int R = J[i].rows, K = J[i].cols, ldx = J[i].ldx ? J[i].ldx : K;
            size_t nw = (size_t)R * K, db, sb;
            float *w = ref_vec(&seed, nw, -1, 1), *x = ref_vec(&seed, (size_t)T * ldx, -1, 1);
            float *y0 = ref_vec(&seed, (size_t)T * R, -1, 1), *deq = malloc(nw * 4);
            void *data, *scales;

            ref_mm_weights(J[i].wt, w, R, K, &data, &db, &scales, &sb, deq);
            jobs[i].wt = J[i].wt;
            jobs[i].w = dput(data, db);
            jobs[i].scales = scales ? dput(scales, sb) : NULL;
            jobs[i].rows = R, jobs[i].cols = K, jobs[i].ldx = J[i].ldx;
            jobs[i].x = fput(x, (size_t)T * ldx);
            jobs[i].y = fput(y0, (size_t)T * R);
            jobs[i].act = J[i].act, jobs[i].accumulate = J[i].acc;
            want[i] = malloc((size_t)T * R * 4);
            ref_mm_job(deq, R, K, x, ldx, T, J[i].act, J[i].acc, y0, want[i]);
            free(w), free(x), free(y0), free(deq), free(data), free(scales);
        }
        call_ok(gpu_matmul_batch(G, jobs, NJ, T, &E), "matmul_batch");
        for (int i = 0; i < NJ; i++) {
            size_t ny = (size_t)T * J[i].rows;
            float *gy = fget(jobs[i].y, ny);
            double e = ref_rel_err(gy, want[i], ny);
            TEST_CONDF(e <= TOL_SUM, "matmul_batch job %d (type %d, %dx%d, act %d, acc %d) "
                       "T %d: rel err %.3g", i, (int)J[i].wt, J[i].rows, J[i].cols,
                       (int)J[i].act, J[i].acc, T, e);
            free(gy), free(want[i]);
        }
        dfree_all();
    }
    /* bad jobs are refused, nothing launched */
    {
        gpu_mm_job j;
        memset(&j, 0, sizeof j);
        j.rows = 4, j.cols = 4;
        TEST_CONDF(gpu_matmul_batch(G, &j, 1, 1, &E) == RWKV_EINVAL,
                   "matmul_batch took a job without weights");
        TEST_CONDF(gpu_matmul_batch(G, &j, GPU_MMB_MAX + 1, 1, &E) == RWKV_EINVAL,
                   "matmul_batch took %d jobs", GPU_MMB_MAX + 1);
    }
}

/* gpu_convert (bit-exact) and cuBLAS gemm in f16 and bf16. */
static void
test_gemm(void)
{
    for (int dt = GPU_F16; dt <= GPU_BF16; dt++)
        for (size_t mi = 0; mi < NMM; mi++)
            for (int ti = 0; ti < NTS; ti++) {
                int R = MM[mi][0], K = MM[mi][1], T = TS[ti], ldy = R + (ti == 1 ? 3 : 0);
                size_t nw = (size_t)R * K, nx;
                float *w, *x, *wr, *xr, *y, *gy;
                uint16_t *wh, *xh, *gxh;
                void *dw, *dxh;
                float *dx, *dy;
                double e;
                size_t bad = 0;

                if (T == 17 && nw > 4u << 20)
                    T = 9;
                nx = (size_t)T * K;
                w = ref_vec(&seed, nw, -1, 1), x = ref_vec(&seed, nx, -1, 1);
                wr = malloc(nw * 4), xr = malloc(nx * 4), y = calloc((size_t)T * ldy, 4);
                wh = malloc(nw * 2), xh = malloc(nx * 2), gxh = malloc(nx * 2);
                for (size_t i = 0; i < nw; i++) {
                    wh[i] = dt == GPU_F16 ? ref_f32_to_f16(w[i]) : ref_f32_to_bf16(w[i]);
                    wr[i] = dt == GPU_F16 ? ref_f16_to_f32(wh[i]) : ref_bf16_to_f32(wh[i]);
                }
                for (size_t i = 0; i < nx; i++) {
                    xh[i] = dt == GPU_F16 ? ref_f32_to_f16(x[i]) : ref_f32_to_bf16(x[i]);
                    xr[i] = dt == GPU_F16 ? ref_f16_to_f32(xh[i]) : ref_bf16_to_f32(xh[i]);
                }
                dw = dput(wh, nw * 2);
                dx = fput(x, nx);
                dxh = dput(NULL, nx * 2);
                call_ok(gpu_convert(G, dx, (enum gpu_dtype)dt, dxh, nx, &E), "convert");
                call_ok(gpu_download(G, gxh, dxh, nx * 2, &E), "download");
                for (size_t i = 0; i < nx; i++)
                    bad += gxh[i] != xh[i];
                TEST_CONDF(bad == 0, "convert %s: %zu of %zu values differ",
                           dt == GPU_F16 ? "f16" : "bf16", bad, nx);
                dy = fput(NULL, (size_t)T * ldy);
                call_ok(gpu_gemm(G, (enum gpu_dtype)dt, dw, R, K, dxh, T, dy, ldy, 0.0f, &E),
                        "gemm");
                for (int p = 0; p < T; p++)
                    ref_matmul(wr, R, K, xr + (size_t)p * K, 1, y + (size_t)p * ldy);
                gy = fget(dy, (size_t)T * ldy);
                e = ref_rel_err(gy, y, (size_t)T * ldy);
                TEST_CONDF(e <= TOL_SUM, "gemm %s %dx%d T %d ldy %d: rel err %.3g",
                           dt == GPU_F16 ? "f16" : "bf16", R, K, T, ldy, e);
                free(w), free(x), free(wr), free(xr), free(y), free(gy), free(wh), free(xh);
                free(gxh);
                dfree_all();
            }
}

/* f32 -> f16 / bf16 over every magnitude: subnormal halves, overflow, ties. */
static void
test_convert(void)
{
    const size_t n = 1 << 16;
    float *x = malloc(n * 4), *dx;
    uint16_t *got = malloc(n * 2);
    void *dh;

    for (size_t i = 0; i < n; i++)
        x[i] = ref_rand(&seed, -1, 1) * ldexpf(1.0f, (int)(i % 50) - 32);
    x[0] = 65519.0f, x[1] = 65520.0f, x[2] = -1e-8f, x[3] = 0x1.002p0f, x[4] = 0x1.006p0f;
    x[5] = 0x1p-25f, x[6] = 0x1.8p-25f, x[7] = 0x1p-24f, x[8] = 0x1.0101p0f;
    dx = fput(x, n);
    dh = dput(NULL, n * 2);
    for (int dt = GPU_F16; dt <= GPU_BF16; dt++) {
        size_t bad = 0, first = 0;
        call_ok(gpu_convert(G, dx, (enum gpu_dtype)dt, dh, n, &E), "convert");
        call_ok(gpu_download(G, got, dh, n * 2, &E), "download");
        for (size_t i = 0; i < n; i++) {
            uint16_t want = dt == GPU_F16 ? ref_f32_to_f16(x[i]) : ref_f32_to_bf16(x[i]);
            if (got[i] != want && bad++ == 0)
                first = i;
        }
        TEST_CONDF(bad == 0, "convert %s: %zu of %zu differ (first %a: got %04x)",
                   dt == GPU_F16 ? "f16" : "bf16", bad, n, (double)x[first],
                   (unsigned)got[first]);
    }
    free(x), free(got);
    dfree_all();
}

/* A captured graph (element-wise + cuBLAS) replayed 3 times. */
static void
test_graph(void)
{
    const int R = 96, K = 64;
    float *w = ref_vec(&seed, (size_t)R * K, -1, 1), *x = ref_vec(&seed, K, -1, 1);
    float *acc = ref_vec(&seed, R, -1, 1), *y = malloc(R * 4), *got;
    float *dw = fput(w, (size_t)R * K), *dx = fput(x, K), *dacc = fput(acc, R);
    float *dy = fput(NULL, R);
    gpu_graph *gr = NULL;
    double e;

    call_ok(gpu_sync(G, &E), "sync");   /* the uploads are done before capturing */
    call_ok(gpu_capture_begin(G, &E), "capture_begin");
    if (gpu_gemm(G, GPU_F32, dw, R, K, dx, 1, dy, R, 0.0f, &E) != RWKV_OK ||
        gpu_ewise(G, GPU_OP_ADD, R, 0, dacc, dy, NULL, dacc, &E) != RWKV_OK) {
        gpu_capture_end(G, &gr, NULL);
        die("capturing");
    }
    call_ok(gpu_capture_end(G, &gr, &E), "capture_end");
    for (int i = 0; i < 3; i++)
        call_ok(gpu_graph_launch(G, gr, &E), "graph_launch");
    ref_matmul(w, R, K, x, 1, y);
    for (int r = 0; r < R; r++)
        for (int i = 0; i < 3; i++)
            acc[r] += y[r];
    got = fget(dacc, R);
    e = ref_rel_err(got, acc, R);
    TEST_CONDF(e <= TOL_SUM, "graph of gemm + add replayed 3 times: rel err %.3g", e);
    gpu_graph_destroy(gr);
    free(w), free(x), free(acc), free(y), free(got);
    dfree_all();
}

static void
test_errors(void)
{
    rwkv_err e = { 0, "" };
    void *p = NULL;
    int st;

    st = gpu_wkv5(G, 1, 1, 48, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL, &e);
    TEST_CONDF(st == RWKV_ENOTSUP && strstr(e.msg, "head size 48"),
               "wkv5 N 48: status %d '%s'", st, e.msg);
    st = gpu_layer_norm(G, NULL, NULL, NULL, NULL, 0, 64, 1e-5f, &e);
    TEST_CONDF(st == RWKV_EINVAL, "layer_norm T 0: status %d '%s'", st, e.msg);
    st = gpu_alloc(G, (size_t)1 << 52, &p, &e);
    TEST_CONDF(st == RWKV_ENOMEM && p == NULL && strstr(e.msg, "out of memory allocating") &&
               strstr(e.msg, "on device 0"), "alloc 4 PB: status %d '%s'", st, e.msg);
    st = gpu_sync(G, &e);
    TEST_CONDF(st == RWKV_OK, "sync after all tests: %s", e.msg);
}

/* A build without CUDA: the stub says so. */
static int
test_stub(void)
{
    rwkv_err e = { 0, "" };
    gpu_ctx *g = (gpu_ctx *)&e;
    int n = 1, st;

    st = gpu_device_count(&n, &e);
    TEST_CONDF(st == RWKV_ENOTSUP && n == 0 && strstr(e.msg, "built without CUDA"),
               "stub device_count: %d '%s'", st, e.msg);
    st = gpu_ctx_create(0, &g, &e);
    TEST_CONDF(st == RWKV_ENOTSUP && g == NULL, "stub ctx_create: %d", st);
    gpu_ctx_destroy(NULL);
    printf("skipped: built without CUDA (stub checked)\n");
    return TEST_REPORT();
}

int
main(void)
{
    gpu_device_info info;
    int n = 0;

    if (!gpu_compiled())
        return test_stub();
    if (gpu_device_count(&n, &E) != RWKV_OK || n == 0) {
        printf("skipped: %s\n", E.msg[0] ? E.msg : "no CUDA device");
        printf("0 passed, 0 failed\n");
        return 0;
    }
    call_ok(gpu_device_query(0, &info, &E), "device_query");
    printf("     device 0: %s, sm_%d%d, %d SMs, %.1f GiB\n", info.name, info.cc_major,
           info.cc_minor, info.sm_count, (double)info.total_bytes / (1u << 30));
    call_ok(gpu_ctx_create(0, &G, &E), "ctx_create");
    test_layer_norm();
    test_group_norm();
    test_token_mix();
    test_ln_mix();
    test_ewise();
    test_wkv5();
    test_wkv7();
    test_v7_prep_out();
    test_v7_att1();
    test_matmul();
    test_matmul_batch();
    test_convert();
    test_gemm();
    test_graph();
    test_errors();
    gpu_ctx_destroy(G);
    return TEST_REPORT();
}
