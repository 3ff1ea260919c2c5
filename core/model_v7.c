/*
** model_v7.c -- RWKV-7 ("x070") block math, float32, the pip package's CPU
** path (see ../shared/docs/reference_notes.md "v7").
**
** Per layer: token shift and six mixes (r, w, k, v, a, g), the matrices over
** the whole pass (matrix-matrix), then the WKV recurrence token by token with
** state S[h][value i][key j]:
**     S = S * w[j] + (S (-kk)) (kk * a)^T + v k^T,   y = S r,
** group norm per head, the r*k*r_k bonus, gate, output matrix; then the FFN
** relu(k)^2 without receptance.
**
** Threads: besides the matrix products (kernels.c), a pass of several tokens
** spreads the per-token element-wise work over the pool by token ranges and
** the WKV recurrence by heads (each head's state is independent; tokens stay
** in order within a head), so every number is the same as on one thread.
*/
#include "model.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The v7 decay: w = exp(-DECAY_SCALE * sigmoid(w0 + lora)); 0.606531 = e^-0.5. */
#define V7_DECAY_SCALE 0.606531f
/* F.normalize eps. */
#define V7_NORM_EPS 1e-12f

/* out[t] = sigmoid? / tanh? chains: Y = B (act(A X)), A: [D][C], B: [C][D]. */
enum v7_act { V7_NONE, V7_TANH, V7_SIGMOID };

static void
v7_lora(rwkv_model *m, const kern_mat *a, const kern_mat *b, enum v7_act act,
        const float *x, size_t t, float *y)
{
    float *lo = m->ws.lo;
    size_t n = (size_t)a->rows * t;

    kern_matmul(&m->kc, a, x, t, lo);
    if (act == V7_TANH)
        for (size_t i = 0; i < n; i++)
            lo[i] = tanhf(lo[i]);
    else if (act == V7_SIGMOID)
        for (size_t i = 0; i < n; i++)
            lo[i] = kern_sigmoid(lo[i]);
    kern_matmul(&m->kc, b, lo, t, y);
}

/* WKV for one token and one head: S [N][N] (value, key); KKA = kk * a. */
static void
v7_wkv_head(float *restrict s, const float *restrict r, const float *restrict w,
            const float *restrict k, const float *restrict v,
            const float *restrict kk, const float *restrict kka, float *restrict y,
            size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float *row = s + i * n;
        float sa, acc, vi = v[i];
        kern_v4 sa4 = { 0 }, acc4 = { 0 };
        size_t j = 0;

        for (; j + 4 <= n; j += 4)
            sa4 -= kern_ld4(row + j) * kern_ld4(kk + j);
        sa = kern_hsum(sa4);
        for (; j < n; j++)
            sa -= row[j] * kk[j];
        for (j = 0; j + 4 <= n; j += 4) {
            kern_v4 x = kern_ld4(row + j) * kern_ld4(w + j) + sa * kern_ld4(kka + j) +
                        vi * kern_ld4(k + j);
            kern_st4(row + j, x);
            acc4 += x * kern_ld4(r + j);
        }
        acc = kern_hsum(acc4);
        for (; j < n; j++) {
            row[j] = row[j] * w[j] + sa * kka[j] + vi * k[j];
            acc += row[j] * r[j];
        }
        y[i] = acc;
    }
}

/* Tokens from which the per-token work and the WKV heads of a pass are
** spread over the pool (a single token stays on the calling thread). */
#define V7_PAR_MIN_T 4

struct v7_job {
    rwkv_model             *m;
    const struct mdl_layer *ly;
    size_t                  t;
    int                     l;
    float                  *kv;   /* the layer's WKV state [H][N][N] */
};

static void
v7_run(const struct v7_job *j, tpool_fn fn)
{
    if (j->t >= V7_PAR_MIN_T)
        tpool_run(j->m->pool, fn, (void *)j);
    else
        fn((void *)j, 0, 1);
}

/* Per token: a, kk (normalized per head), k, kk*a, w, v (layer > 0). */
static void
v7_pre_task(void *ctx, int i, int n)
{
    const struct v7_job *j = ctx;
    rwkv_model *m = j->m;
    const struct mdl_layer *ly = j->ly;
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, H = (size_t)m->H, N = (size_t)m->N;
    size_t p0 = j->t * (size_t)i / (size_t)n, p1 = j->t * (size_t)(i + 1) / (size_t)n;

    for (size_t p = p0; p < p1; p++) {
        float *k = ws->k + p * C, *a = ws->a + p * C, *kk = ws->kk + p * C;
        float *v = ws->v + p * C, *w = ws->w + p * C;
        for (size_t c = 0; c < C; c++) {
            a[c] = kern_sigmoid(ly->a0[c] + a[c]);
            kk[c] = k[c] * ly->k_k[c];
        }
        for (size_t h = 0; h < H; h++) {
            float ss = 0, nrm;
            for (size_t q = 0; q < N; q++)
                ss += kk[h * N + q] * kk[h * N + q];
            nrm = sqrtf(ss);
            if (nrm < V7_NORM_EPS)
                nrm = V7_NORM_EPS;
            for (size_t q = 0; q < N; q++)
                kk[h * N + q] /= nrm;
        }
        for (size_t c = 0; c < C; c++) {
            k[c] = k[c] * (1 + (a[c] - 1) * ly->k_a[c]);
            a[c] = kk[c] * a[c];    /* from here on a holds kk * a */
            w[c] = expf(-V7_DECAY_SCALE * kern_sigmoid(ly->w0[c] + w[c]));
        }
        if (j->l > 0) {
            const float *vf = ws->vf + p * C, *vg = ws->o + p * C;
            for (size_t c = 0; c < C; c++)
                v[c] = v[c] + (vf[c] - v[c]) * kern_sigmoid(ly->v0[c] + vg[c]);
        }
    }
}

/* WKV, sequential over tokens, heads split over the threads. */
static void
v7_wkv_task(void *ctx, int i, int n)
{
    const struct v7_job *j = ctx;
    rwkv_model *m = j->m;
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, H = (size_t)m->H, N = (size_t)m->N;
    size_t h0 = H * (size_t)i / (size_t)n, h1 = H * (size_t)(i + 1) / (size_t)n;

    for (size_t p = 0; p < j->t; p++) {
        size_t o = p * C;
        for (size_t h = h0; h < h1; h++) {
            size_t hn = h * N;
            v7_wkv_head(j->kv + h * N * N, ws->r + o + hn, ws->w + o + hn, ws->k + o + hn,
                        ws->v + o + hn, ws->kk + o + hn, ws->a + o + hn, ws->y + o + hn, N);
        }
    }
}

/* Per token: group norm, the r*k*r_k bonus, gate. */
static void
v7_post_task(void *ctx, int i, int n)
{
    const struct v7_job *j = ctx;
    rwkv_model *m = j->m;
    const struct mdl_layer *ly = j->ly;
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, H = (size_t)m->H, N = (size_t)m->N;
    size_t p0 = j->t * (size_t)i / (size_t)n, p1 = j->t * (size_t)(i + 1) / (size_t)n;

    for (size_t p = p0; p < p1; p++) {
        size_t o = p * C;
        float *y = ws->y + o;
        kern_group_norm(y, ly->lnx_w, ly->lnx_b, y, H, N, MDL_GN_EPS);
        for (size_t h = 0; h < H; h++) {
            size_t hn = h * N;
            float bonus = 0;
            for (size_t q = 0; q < N; q++)
                bonus += ws->r[o + hn + q] * ws->k[o + hn + q] * ly->r_k[hn + q];
            for (size_t q = 0; q < N; q++)
                y[hn + q] += bonus * ws->v[o + hn + q];
        }
        for (size_t c = 0; c < C; c++)
            y[c] *= ws->g[o + c];
    }
}

/* Element-wise stages over token rows [p0, p1), run on the pool. */
enum v7_rows_op { V7_LN1, V7_LN2, V7_MIX6, V7_MIXK, V7_RELU2, V7_RESID };

struct v7_rows {
    rwkv_model             *m;
    const struct mdl_layer *ly;
    size_t                  t;
    enum v7_rows_op         op;
};

static void
v7_rows_task(void *ctx, int i, int n)
{
    const struct v7_rows *j = ctx;
    const struct mdl_layer *ly = j->ly;
    struct mdl_ws *ws = &j->m->ws;
    size_t C = (size_t)j->m->C, F = (size_t)j->m->F;
    size_t p0 = j->t * (size_t)i / (size_t)n, p1 = j->t * (size_t)(i + 1) / (size_t)n;

    switch (j->op) {
    case V7_LN1:
    case V7_LN2:
        mdl_ln_rows(ws->x + p0 * C, j->op == V7_LN1 ? ly->ln1_w : ly->ln2_w,
                    j->op == V7_LN1 ? ly->ln1_b : ly->ln2_b, ws->xn + p0 * C, p1 - p0, C);
        break;
    case V7_MIX6: {
        float *restrict o0 = ws->m[0], *restrict o1 = ws->m[1], *restrict o2 = ws->m[2];
        float *restrict o3 = ws->m[3], *restrict o4 = ws->m[4], *restrict o5 = ws->m[5];
        const float *restrict mr = ly->x_r, *restrict mw = ly->x_w, *restrict mk = ly->x_k;
        const float *restrict mv = ly->x_v, *restrict ma = ly->x_a, *restrict mg = ly->x_g;
        for (size_t p = p0; p < p1; p++) {
            const float *restrict xx = ws->xn + p * C, *restrict sx = ws->sx + p * C;
            size_t b = p * C;
            for (size_t c = 0; c < C; c++) {
                float x = xx[c], d = sx[c] - x;
                o0[b + c] = x + d * mr[c];
                o1[b + c] = x + d * mw[c];
                o2[b + c] = x + d * mk[c];
                o3[b + c] = x + d * mv[c];
                o4[b + c] = x + d * ma[c];
                o5[b + c] = x + d * mg[c];
            }
        }
        break;
    }
    case V7_MIXK: {
        float *restrict o2 = ws->m[2];
        const float *restrict xn = ws->xn, *restrict sx = ws->sx, *restrict mk = ly->fmix_k;
        for (size_t p = p0; p < p1; p++)
            for (size_t c = 0; c < C; c++) {
                size_t e = p * C + c;
                o2[e] = xn[e] + (sx[e] - xn[e]) * mk[c];
            }
        break;
    }
    case V7_RELU2: {
        /* relu(v) = (v + |v|) / 2 exactly (every step is exact), in
         * 4-float vectors; the tail as before */
        typedef uint32_t v7_u4 __attribute__((vector_size(16)));
        const v7_u4 absmask = { 0x7fffffffu, 0x7fffffffu, 0x7fffffffu, 0x7fffffffu };
        float *restrict f = ws->f;
        size_t e = p0 * F, end = p1 * F;
        for (; e + 4 <= end; e += 4) {
            kern_v4 v = kern_ld4(f + e), a;
            v7_u4 u;
            memcpy(&u, &v, sizeof u);
            u &= absmask;
            memcpy(&a, &u, sizeof a);
            v = (v + a) * 0.5f;
            kern_st4(f + e, v * v);
        }
        for (; e < end; e++) {
            float z = f[e] > 0 ? f[e] : 0;
            f[e] = z * z;
        }
        break;
    }
    case V7_RESID: {
        float *restrict x = ws->x;
        const float *restrict o = ws->o;
        for (size_t e = p0 * C; e < p1 * C; e++)
            x[e] += o[e];
        break;
    }
    }
}

static void
v7_rows(rwkv_model *m, const struct mdl_layer *ly, size_t t, enum v7_rows_op op)
{
    struct v7_rows j = { m, ly, t, op };

    if (t >= V7_PAR_MIN_T)
        tpool_run(m->pool, v7_rows_task, &j);
    else
        v7_rows_task(&j, 0, 1);
}

void
mdl_v7_layers(rwkv_model *m, size_t t, float *state)
{
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, H = (size_t)m->H, N = (size_t)m->N;
    size_t TC = t * C, per = mdl_layer_state_len(m);
    float *xr = ws->m[0], *xw = ws->m[1], *xk = ws->m[2], *xv = ws->m[3];
    float *xa = ws->m[4], *xg = ws->m[5];

    for (int l = 0; l < m->n_layer; l++) {
        const struct mdl_layer *ly = &m->layers[l];
        float *att_prev = state + (size_t)l * per;
        float *kv = att_prev + C;
        float *ffn_prev = kv + H * N * N;

        /* --- time mix --- */
        v7_rows(m, ly, t, V7_LN1);
        mdl_shift(ws->xn, att_prev, ws->sx, t, C);
        v7_rows(m, ly, t, V7_MIX6);
        kern_matmul(&m->kc, &ly->att_r, xr, t, ws->r);
        v7_lora(m, &ly->w1, &ly->w2, V7_TANH, xw, t, ws->w);
        kern_matmul(&m->kc, &ly->att_k, xk, t, ws->k);
        kern_matmul(&m->kc, &ly->att_v, xv, t, ws->v);
        v7_lora(m, &ly->a1, &ly->a2, V7_NONE, xa, t, ws->a);
        v7_lora(m, &ly->g1, &ly->g2, V7_SIGMOID, xg, t, ws->g);
        if (l == 0)
            memcpy(ws->vf, ws->v, TC * sizeof(float));
        else
            v7_lora(m, &ly->v1, &ly->v2, V7_NONE, xv, t, ws->o);

        {
            struct v7_job job = { m, ly, t, l, kv };
            v7_run(&job, v7_pre_task);
            v7_run(&job, v7_wkv_task);
            v7_run(&job, v7_post_task);
        }
        kern_matmul(&m->kc, &ly->att_o, ws->y, t, ws->o);
        v7_rows(m, ly, t, V7_RESID);

        /* --- channel mix --- */
        v7_rows(m, ly, t, V7_LN2);
        mdl_shift(ws->xn, ffn_prev, ws->sx, t, C);
        v7_rows(m, ly, t, V7_MIXK);
        kern_matmul(&m->kc, &ly->ffn_k, xk, t, ws->f);
        v7_rows(m, ly, t, V7_RELU2);
        kern_matmul(&m->kc, &ly->ffn_v, ws->f, t, ws->o);
        v7_rows(m, ly, t, V7_RESID);
    }
}
