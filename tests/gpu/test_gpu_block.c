/*
** test_gpu_block.c -- two whole RWKV-7 layers (time mix + channel mix)
** composed from gpu/ calls, against the same layers on the CPU written from
** core/model/model_v7.c (mdl_v7_layers) with the plain loops of gpu_ref.h.
** Random fp32 weights (matrices scaled by 1/sqrt(in)), products through
** cuBLAS fp32 (gpu_gemm GPU_F32), so the bound is tight: relative error of
** the residual stream and of every state entry <= 1e-4 after two passes
** (T tokens, then 2 more from the carried state).  Layer 0 sets v_first,
** layer 1 mixes it in, as in the model.
**
** gpu_v7_layer() below is the call sequence a CUDA backend runs per layer;
** the integration can take it as is.
*/
#include "../harness.h"
#include "gpu_ref.h"

#define TOL 1e-4
#define LORA_D 32

/* Host / device tensors of one layer: vectors [C] first, then matrices
 * stored [out][in]. */
enum {
    LN1W, LN1B, LN2W, LN2B, XR, XW, XK, XV, XA, XG, W0, A0, V0, KKW, KAW, RKW, LNXW, LNXB,
    FMIX, NVEC,
    W1 = NVEC, W2, A1, A2, V1, V2, G1, G2, WR, WK, WV, WO, FK, FV, NT
};

struct dims { int H, N, C, D, F; };

static gpu_ctx *G;
static rwkv_err E;
static uint64_t seed = 77;

static void
ok(int st, const char *what)
{
    if (st != RWKV_OK) {
        printf("FAIL %s: %s\n", what, E.msg);
        test_failed++;
        printf("%d passed, %d failed\n", test_passed, test_failed);
        exit(1);
    }
}

/* rows, cols of tensor I (vectors: rows = 1). */
static void
tdims(const struct dims *d, int i, int *rows, int *cols)
{
    int C = d->C, D = d->D, F = d->F;

    *rows = 1, *cols = C;
    switch (i) {
    case W1: case A1: case V1: case G1: *rows = D; *cols = C; break;
    case W2: case A2: case V2: case G2: *rows = C; *cols = D; break;
    case WR: case WK: case WV: case WO: *rows = C; *cols = C; break;
    case FK:                            *rows = F; *cols = C; break;
    case FV:                            *rows = C; *cols = F; break;
    default: break;
    }
}

static void
make_layer(const struct dims *d, float **h, float **dv)
{
    for (int i = 0; i < NT; i++) {
        int rows, cols;
        float lo = -1, hi = 1;
        size_t n;

        tdims(d, i, &rows, &cols);
        n = (size_t)rows * cols;
        if (i >= NVEC) {
            hi = 1.0f / sqrtf((float)cols), lo = -hi;
        } else if (i == LN1W || i == LN2W || i == LNXW || i == KKW) {
            lo = 0.5f, hi = 1.5f;
        } else if (i == LN1B || i == LN2B || i == LNXB) {
            lo = -0.1f, hi = 0.1f;
        } else if ((i >= XR && i <= XG) || i == FMIX || i == KAW) {
            lo = 0, hi = 1;
        }
        h[i] = ref_vec(&seed, n, lo, hi);
        dv[i] = ref_dev_put(G, h[i], n * sizeof(float), &E);
        if (dv[i] == NULL)
            ok(E.code ? E.code : RWKV_ENOMEM, "upload weights");
    }
}

/* ---- CPU: model_v7.c, one layer ---- */

static void
cpu_mm(const float *w, int rows, int cols, const float *x, int t, float *y)
{
    ref_matmul(w, (size_t)rows, (size_t)cols, x, (size_t)t, y);
}

static void
cpu_v7_layer(const struct dims *d, int l, float **w, int T, float *x, float *att_prev,
             float *kv, float *ffn_prev, float *vf)
{
    int C = d->C, H = d->H, N = d->N, D = d->D, F = d->F;
    size_t TC = (size_t)T * C;
    float *xn = malloc(TC * 4), *m[6], *r = malloc(TC * 4), *k = malloc(TC * 4);
    float *v = malloc(TC * 4), *wd = malloc(TC * 4), *a = malloc(TC * 4);
    float *g = malloc(TC * 4), *kk = malloc(TC * 4), *y = malloc(TC * 4);
    float *o = malloc(TC * 4), *vg = malloc(TC * 4), *lo = malloc((size_t)T * D * 4);
    float *f = malloc((size_t)T * F * 4);
    const float *mix[6] = { w[XR], w[XW], w[XK], w[XV], w[XA], w[XG] };

    for (int i = 0; i < 6; i++)
        m[i] = malloc(TC * 4);
    for (int p = 0; p < T; p++)
        kern_layer_norm(x + (size_t)p * C, w[LN1W], w[LN1B], xn + (size_t)p * C, C, 1e-5f);
    ref_token_mix(xn, att_prev, T, C, 1, 6, mix, m, NULL);
    cpu_mm(w[WR], C, C, m[0], T, r);
    cpu_mm(w[W1], D, C, m[1], T, lo);
    for (size_t i = 0; i < (size_t)T * D; i++)
        lo[i] = tanhf(lo[i]);
    cpu_mm(w[W2], C, D, lo, T, wd);
    cpu_mm(w[WK], C, C, m[2], T, k);
    cpu_mm(w[WV], C, C, m[3], T, v);
    cpu_mm(w[A1], D, C, m[4], T, lo);
    cpu_mm(w[A2], C, D, lo, T, a);
    cpu_mm(w[G1], D, C, m[5], T, lo);
    for (size_t i = 0; i < (size_t)T * D; i++)
        lo[i] = ref_sigmoid(lo[i]);
    cpu_mm(w[G2], C, D, lo, T, g);
    if (l == 0) {
        memcpy(vf, v, TC * 4);
    } else {
        cpu_mm(w[V1], D, C, m[3], T, lo);
        cpu_mm(w[V2], C, D, lo, T, vg);
    }
    ref_v7_prep(T, H, N, k, a, kk, wd, v, l ? vf : NULL, vg, w[A0], w[KKW], w[KAW], w[W0],
                w[V0]);
    ref_wkv7(T, H, N, kv, r, wd, k, v, kk, a, y);
    ref_v7_out(T, H, N, y, r, k, v, g, w[LNXW], w[LNXB], w[RKW], 64e-5f);
    cpu_mm(w[WO], C, C, y, T, o);
    for (size_t i = 0; i < TC; i++)
        x[i] += o[i];
    for (int p = 0; p < T; p++)
        kern_layer_norm(x + (size_t)p * C, w[LN2W], w[LN2B], xn + (size_t)p * C, C, 1e-5f);
    {
        const float *fm[1] = { w[FMIX] };
        ref_token_mix(xn, ffn_prev, T, C, 1, 1, fm, m, NULL);
    }
    cpu_mm(w[FK], F, C, m[0], T, f);
    for (size_t i = 0; i < (size_t)T * F; i++)
        f[i] = f[i] > 0 ? f[i] * f[i] : 0;
    cpu_mm(w[FV], C, F, f, T, o);
    for (size_t i = 0; i < TC; i++)
        x[i] += o[i];
    for (int i = 0; i < 6; i++)
        free(m[i]);
    free(xn), free(r), free(k), free(v), free(wd), free(a), free(g), free(kk), free(y);
    free(o), free(vg), free(lo), free(f);
}

/* ---- GPU: the same layer from gpu/ calls ---- */

/* Device scratch for T tokens. */
struct gws {
    float *xn, *m[6], *r, *k, *v, *w, *a, *g, *kk, *y, *o, *vg, *lo, *f;
};

static float *
dz(size_t n)
{
    void *p = NULL;

    ok(gpu_alloc(G, n * sizeof(float), &p, &E), "alloc");
    ok(gpu_zero(G, p, n * sizeof(float), &E), "zero");
    return p;
}

static void
gws_init(struct gws *s, const struct dims *d, int T)
{
    size_t TC = (size_t)T * d->C;

    s->xn = dz(TC);
    for (int i = 0; i < 6; i++)
        s->m[i] = dz(TC);
    s->r = dz(TC), s->k = dz(TC), s->v = dz(TC), s->w = dz(TC), s->a = dz(TC);
    s->g = dz(TC), s->kk = dz(TC), s->y = dz(TC), s->o = dz(TC), s->vg = dz(TC);
    s->lo = dz((size_t)T * d->D);
    s->f = dz((size_t)T * d->F);
}

static void
gws_free(struct gws *s)
{
    float *all[] = { s->xn, s->r, s->k, s->v, s->w, s->a, s->g, s->kk, s->y, s->o, s->vg,
                     s->lo, s->f };

    for (int i = 0; i < 6; i++)
        gpu_free(G, s->m[i]);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        gpu_free(G, all[i]);
}

/* Y [T][rows] = W X, fp32 cuBLAS. */
static void
gmm(const float *w, int rows, int cols, const float *x, int t, float *y)
{
    ok(gpu_gemm(G, GPU_F32, w, rows, cols, x, t, y, rows, 0.0f, &E), "gemm");
}

static void
gpu_v7_layer(const struct dims *d, int l, float **w, int T, float *x, float *att_prev,
             float *kv, float *ffn_prev, float *vf, struct gws *s)
{
    int C = d->C, H = d->H, N = d->N, D = d->D, F = d->F;
    size_t TC = (size_t)T * C;
    gpu_mix mx;
    gpu_v7_prep_args p;

    /* time mix */
    ok(gpu_layer_norm(G, x, w[LN1W], w[LN1B], s->xn, T, C, 1e-5f, &E), "ln1");
    memset(&mx, 0, sizeof mx);
    mx.form = GPU_MIX_LERP, mx.n = 6;
    mx.mix[0] = w[XR], mx.mix[1] = w[XW], mx.mix[2] = w[XK];
    mx.mix[3] = w[XV], mx.mix[4] = w[XA], mx.mix[5] = w[XG];
    for (int i = 0; i < 6; i++)
        mx.out[i] = s->m[i];
    ok(gpu_token_mix(G, s->xn, att_prev, T, C, &mx, &E), "mix6");
    gmm(w[WR], C, C, s->m[0], T, s->r);
    gmm(w[W1], D, C, s->m[1], T, s->lo);
    ok(gpu_ewise(G, GPU_OP_TANH, (size_t)T * D, 0, s->lo, NULL, NULL, s->lo, &E), "tanh");
    gmm(w[W2], C, D, s->lo, T, s->w);
    gmm(w[WK], C, C, s->m[2], T, s->k);
    gmm(w[WV], C, C, s->m[3], T, s->v);
    gmm(w[A1], D, C, s->m[4], T, s->lo);
    gmm(w[A2], C, D, s->lo, T, s->a);
    gmm(w[G1], D, C, s->m[5], T, s->lo);
    ok(gpu_ewise(G, GPU_OP_SIGMOID, (size_t)T * D, 0, s->lo, NULL, NULL, s->lo, &E), "sig");
    gmm(w[G2], C, D, s->lo, T, s->g);
    if (l == 0) {
        ok(gpu_copy(G, vf, s->v, TC * sizeof(float), &E), "v_first");
    } else {
        gmm(w[V1], D, C, s->m[3], T, s->lo);
        gmm(w[V2], C, D, s->lo, T, s->vg);
    }
    p.k = s->k, p.a = s->a, p.kk = s->kk, p.w = s->w, p.v = s->v;
    p.vf = l ? vf : NULL, p.vg = l ? s->vg : NULL;
    p.a0 = w[A0], p.k_k = w[KKW], p.k_a = w[KAW], p.w0 = w[W0], p.v0 = w[V0];
    ok(gpu_v7_prep(G, T, H, N, &p, &E), "v7_prep");
    ok(gpu_wkv7(G, T, H, N, kv, s->r, s->w, s->k, s->v, s->kk, s->a, s->y, &E), "wkv7");
    ok(gpu_v7_out(G, T, H, N, s->y, s->r, s->k, s->v, s->g, w[LNXW], w[LNXB], w[RKW], 64e-5f,
                  &E), "v7_out");
    gmm(w[WO], C, C, s->y, T, s->o);
    ok(gpu_ewise(G, GPU_OP_ADD, TC, 0, x, s->o, NULL, x, &E), "residual");
    /* channel mix */
    ok(gpu_layer_norm(G, x, w[LN2W], w[LN2B], s->xn, T, C, 1e-5f, &E), "ln2");
    memset(&mx, 0, sizeof mx);
    mx.form = GPU_MIX_LERP, mx.n = 1, mx.mix[0] = w[FMIX], mx.out[0] = s->m[0];
    ok(gpu_token_mix(G, s->xn, ffn_prev, T, C, &mx, &E), "mix1");
    gmm(w[FK], F, C, s->m[0], T, s->f);
    ok(gpu_ewise(G, GPU_OP_RELU_SQ, (size_t)T * F, 0, s->f, NULL, NULL, s->f, &E), "relu2");
    gmm(w[FV], C, F, s->f, T, s->o);
    ok(gpu_ewise(G, GPU_OP_ADD, TC, 0, x, s->o, NULL, x, &E), "residual");
}

static double
cmp(const float *dev, const float *host, size_t n)
{
    float *h = malloc(n * sizeof *h);
    double e;

    ok(gpu_download(G, h, dev, n * sizeof *h, &E), "download");
    e = ref_rel_err(h, host, n);
    free(h);
    return e;
}

static void
test_config(int H, int N, int T)
{
    struct dims d = { H, N, H * N, LORA_D, 4 * H * N };
    size_t C = (size_t)d.C, ns = (size_t)H * N * N, TCmax = (size_t)T * C;
    float *hw[2][NT], *dw[2][NT];
    float *x, *hs[2][3], *ds[2][3], *dx, *dvf, *hvf;
    struct gws s;
    size_t sn[3] = { C, ns, C };
    static const int PASSES = 2;

    for (int l = 0; l < 2; l++) {
        make_layer(&d, hw[l], dw[l]);
        for (int i = 0; i < 3; i++) {
            hs[l][i] = ref_vec(&seed, sn[i], -0.5f, 0.5f);
            ds[l][i] = ref_dev_put(G, hs[l][i], sn[i] * 4, &E);
            if (ds[l][i] == NULL)
                ok(RWKV_ENOMEM, "upload state");
        }
    }
    gws_init(&s, &d, T);
    dx = dz(TCmax);
    dvf = dz(TCmax);
    hvf = malloc(TCmax * 4);
    for (int pass = 0; pass < PASSES; pass++) {
        int t = pass == 0 ? T : (T < 2 ? T : 2);
        double ex, es = 0;

        x = ref_vec(&seed, (size_t)t * C, -1, 1);
        ok(gpu_upload(G, dx, x, (size_t)t * C * 4, &E), "upload x");
        for (int l = 0; l < 2; l++) {
            cpu_v7_layer(&d, l, hw[l], t, x, hs[l][0], hs[l][1], hs[l][2], hvf);
            gpu_v7_layer(&d, l, dw[l], t, dx, ds[l][0], ds[l][1], ds[l][2], dvf, &s);
        }
        ex = cmp(dx, x, (size_t)t * C);
        for (int l = 0; l < 2; l++)
            for (int i = 0; i < 3; i++) {
                double e = cmp(ds[l][i], hs[l][i], sn[i]);
                es = e > es ? e : es;
            }
        TEST_CONDF(ex <= TOL && es <= TOL,
                   "v7 block H %d N %d T %d pass %d: rel err x %.3g states %.3g", H, N, t, pass,
                   ex, es);
        free(x);
    }
    for (int l = 0; l < 2; l++) {
        for (int i = 0; i < NT; i++)
            free(hw[l][i]), gpu_free(G, dw[l][i]);
        for (int i = 0; i < 3; i++)
            free(hs[l][i]), gpu_free(G, ds[l][i]);
    }
    gws_free(&s);
    gpu_free(G, dx), gpu_free(G, dvf);
    free(hvf);
}

int
main(void)
{
    static const int HN[][2] = { { 8, 8 }, { 2, 64 }, { 32, 64 } };
    static const int TS[] = { 1, 2, 17 };
    int n = 0;

    if (!gpu_compiled()) {
        printf("skipped: built without CUDA\n");
        printf("0 passed, 0 failed\n");
        return 0;
    }
    if (gpu_device_count(&n, &E) != RWKV_OK || n == 0) {
        printf("skipped: %s\n", E.msg[0] ? E.msg : "no CUDA device");
        printf("0 passed, 0 failed\n");
        return 0;
    }
    ok(gpu_ctx_create(0, &G, &E), "ctx_create");
    for (size_t i = 0; i < sizeof HN / sizeof HN[0]; i++)
        for (size_t j = 0; j < sizeof TS / sizeof TS[0]; j++)
            test_config(HN[i][0], HN[i][1], TS[j]);
    ok(gpu_sync(G, &E), "sync");
    gpu_ctx_destroy(G);
    return TEST_REPORT();
}
