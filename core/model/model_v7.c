/*
** model_v7.c -- RWKV-7 ("x070") block math, float32, the pip package's CPU
** path (docs/differences.md lists where rwkv-tui departs from it).
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
** the WKV recurrence by heads (model_par.h, as v4/v5/v6; each head's state
** is independent, tokens stay in order within a head), so every number is
** the same as on one thread.
*/
#include "model_block.h"
#include "model_par.h"
#include "../kernels/vmath.h"

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
        vm_tanh(vm_default(), lo, lo, n);
    else if (act == V7_SIGMOID)
        vm_sigmoid(vm_default(), lo, lo, n);
    kern_matmul(&m->kc, b, lo, t, y);
}

/*
** One token (decode): r, k, v and the first LoRA products (with their tanh /
** sigmoid) in one dispatch, the second LoRA products in a second -- the
** same numbers as the matmul path, two pool dispatches instead of twelve
** products (the small LoRAs no longer run on one thread).  FIRST: the real
** layer 0 (no v LoRA; v is copied to vf).  The LoRA hidden vectors go to
** ws->f, free until the FFN.  0 when they do not fit there (then the caller
** runs the products one by one).
*/
static int
v7_decode_products(rwkv_model *m, const struct mdl_layer *ly, int first)
{
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C;
    int dw = ly->w1.rows, da = ly->a1.rows, dg = ly->g1.rows, dv = first ? 0 : ly->v1.rows;
    float *lw = ws->f, *la = lw + dw, *lg = la + da, *lv = lg + dg;
    kern_mv p[7];
    int n = 0;

    if ((size_t)dw + (size_t)da + (size_t)dg + (size_t)dv > (size_t)m->F)
        return 0;
    p[n++] = (kern_mv){ &ly->att_r, ws->m[0], ws->r, KERN_ACT_NONE };
    p[n++] = (kern_mv){ &ly->att_k, ws->m[2], ws->k, KERN_ACT_NONE };
    p[n++] = (kern_mv){ &ly->att_v, ws->m[3], ws->v, KERN_ACT_NONE };
    p[n++] = (kern_mv){ &ly->w1, ws->m[1], lw, KERN_ACT_TANH };
    p[n++] = (kern_mv){ &ly->a1, ws->m[4], la, KERN_ACT_NONE };
    p[n++] = (kern_mv){ &ly->g1, ws->m[5], lg, KERN_ACT_SIGMOID };
    if (!first)
        p[n++] = (kern_mv){ &ly->v1, ws->m[3], lv, KERN_ACT_NONE };
    kern_matvec_multi(&m->kc, p, n);
    n = 0;
    p[n++] = (kern_mv){ &ly->w2, lw, ws->w, KERN_ACT_NONE };
    p[n++] = (kern_mv){ &ly->a2, la, ws->a, KERN_ACT_NONE };
    p[n++] = (kern_mv){ &ly->g2, lg, ws->g, KERN_ACT_NONE };
    if (!first)
        p[n++] = (kern_mv){ &ly->v2, lv, ws->o, KERN_ACT_NONE };
    kern_matvec_multi(&m->kc, p, n);
    if (first)
        memcpy(ws->vf, ws->v, C * sizeof(float));
    return 1;
}

/* The stages of a layer that run on the pool (model_par.h): over token
** rows, or over heads for V7_WKV. */
enum v7_op {
    V7_LN1, V7_LN2,   /* xn = ln1(x) / ln2(x) */
    V7_MIX6,          /* the six time-mix inputs r, w, k, v, a, g */
    V7_PRE,           /* a, kk (normalized per head), k, kk*a, w, v (layer > 0) */
    V7_WKV,           /* the recurrence, heads split over the threads */
    V7_POST,          /* group norm, the r*k*r_k bonus, gate */
    V7_MIXK,          /* the channel-mix input */
    V7_RELU2,         /* f = relu(f)^2 */
    V7_RESID          /* x += o */
};

struct v7_job {
    rwkv_model             *m;
    const struct mdl_layer *ly;
    size_t                  t;
    int                     l;    /* the real layer index (v_first at 0) */
    float                  *kv;   /* the layer's WKV state [H][N][N] */
    enum v7_op              op;
};

/* V7_PRE on token rows [p0, p1). */
static void
v7_pre_rows(const struct v7_job *j, size_t p0, size_t p1)
{
    rwkv_model *m = j->m;
    const struct mdl_layer *ly = j->ly;
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, H = (size_t)m->H, N = (size_t)m->N;
    const vm_ops *o = vm_default();

    for (size_t p = p0; p < p1; p++) {
        /* from here on a holds kk * a; the v gate goes through ws->o */
        struct vm_v7_pre pre = {
            .k = ws->k + p * C, .a = ws->a + p * C, .kk = ws->kk + p * C, .w = ws->w + p * C,
            .v = ws->v + p * C, .vg = ws->o + p * C, .vf = j->l > 0 ? ws->vf + p * C : NULL,
            .a0 = ly->a0, .k_k = ly->k_k, .k_a = ly->k_a, .w0 = ly->w0, .v0 = ly->v0,
            .h = H, .n = N, .decay = -V7_DECAY_SCALE, .norm_eps = V7_NORM_EPS,
        };
        vm_v7_pre(o, &pre);
    }
}

/* V7_WKV on heads [h0, h1), sequential over the tokens. */
static void
v7_wkv_heads(const struct v7_job *j, size_t h0, size_t h1)
{
    rwkv_model *m = j->m;
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, N = (size_t)m->N;

    /* head by head over all tokens: a head's state stays in L1 */
    for (size_t h = h0; h < h1; h++) {
        size_t hn = h * N;
        vm_wkv7(vm_default(), j->kv + h * N * N, N, j->t, C, ws->r + hn, ws->w + hn,
                ws->k + hn, ws->v + hn, ws->kk + hn, ws->a + hn, ws->y + hn);
    }
}

/* V7_POST on token rows [p0, p1). */
static void
v7_post_rows(const struct v7_job *j, size_t p0, size_t p1)
{
    rwkv_model *m = j->m;
    const struct mdl_layer *ly = j->ly;
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, H = (size_t)m->H, N = (size_t)m->N;

    for (size_t p = p0; p < p1; p++) {
        size_t o = p * C;
        vm_v7_post(vm_default(), ws->y + o, ws->r + o, ws->k + o, ws->v + o, ws->g + o, ly->r_k,
                   ly->lnx_w, ly->lnx_b, H, N, MDL_GN_EPS);
    }
}

/* Items [i0, i1) of the job's stage: token rows, or heads for V7_WKV. */
static void
v7_range(void *ctx, size_t i0, size_t i1)
{
    const struct v7_job *j = ctx;
    const struct mdl_layer *ly = j->ly;
    struct mdl_ws *ws = &j->m->ws;
    size_t C = (size_t)j->m->C, F = (size_t)j->m->F;
    const vm_ops *o = vm_default();

    switch (j->op) {
    case V7_LN1:
    case V7_LN2:
        mdl_ln_rows(ws->x + i0 * C, j->op == V7_LN1 ? ly->ln1_w : ly->ln2_w,
                    j->op == V7_LN1 ? ly->ln1_b : ly->ln2_b, ws->xn + i0 * C, i1 - i0, C);
        break;
    case V7_MIX6: {
        const float *mix[6] = { ly->x_r, ly->x_w, ly->x_k, ly->x_v, ly->x_a, ly->x_g };
        for (size_t p = i0; p < i1; p++) {
            float *out[6];
            for (int q = 0; q < 6; q++)
                out[q] = ws->m[q] + p * C;
            vm_mix(o, VM_MIX_LERP, ws->xn + p * C, ws->sx + p * C, mix, out, 6, C);
        }
        break;
    }
    case V7_PRE:
        v7_pre_rows(j, i0, i1);
        break;
    case V7_WKV:
        v7_wkv_heads(j, i0, i1);
        break;
    case V7_POST:
        v7_post_rows(j, i0, i1);
        break;
    case V7_MIXK: {
        const float *mix[1] = { ly->fmix_k };
        for (size_t p = i0; p < i1; p++) {
            float *out[1] = { ws->m[2] + p * C };
            vm_mix(o, VM_MIX_LERP, ws->xn + p * C, ws->sx + p * C, mix, out, 1, C);
        }
        break;
    }
    case V7_RELU2:
        vm_relu2(o, ws->f + i0 * F, ws->f + i0 * F, (i1 - i0) * F);
        break;
    case V7_RESID:
        vm_add(o, ws->o + i0 * C, ws->x + i0 * C, (i1 - i0) * C);
        break;
    }
}

static void
v7_run(struct v7_job *j, enum v7_op op)
{
    j->op = op;
    if (op == V7_WKV)   /* heads; one token too when the state is big (model_par.h) */
        mdl_par_run_heads(j->m->pool, j->t, (size_t)j->m->H, (size_t)j->m->N, v7_range, j);
    else
        mdl_par_run(j->m->pool, j->t, j->t, v7_range, j);
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
        struct v7_job j = { m, ly, t, l + m->layer_base, kv, V7_LN1 };

        /* --- time mix --- */
        v7_run(&j, V7_LN1);
        mdl_shift(ws->xn, att_prev, ws->sx, t, C);
        v7_run(&j, V7_MIX6);
        if (t == 1 && v7_decode_products(m, ly, j.l == 0)) {
            /* one token: the products batched into two dispatches */
        } else {
            kern_matmul(&m->kc, &ly->att_r, xr, t, ws->r);
            v7_lora(m, &ly->w1, &ly->w2, V7_TANH, xw, t, ws->w);
            kern_matmul(&m->kc, &ly->att_k, xk, t, ws->k);
            kern_matmul(&m->kc, &ly->att_v, xv, t, ws->v);
            v7_lora(m, &ly->a1, &ly->a2, V7_NONE, xa, t, ws->a);
            v7_lora(m, &ly->g1, &ly->g2, V7_SIGMOID, xg, t, ws->g);
            if (j.l == 0)   /* the real layer 0 (mixed plans run ranges) */
                memcpy(ws->vf, ws->v, TC * sizeof(float));
            else
                v7_lora(m, &ly->v1, &ly->v2, V7_NONE, xv, t, ws->o);
        }
        v7_run(&j, V7_PRE);
        v7_run(&j, V7_WKV);
        v7_run(&j, V7_POST);
        kern_matmul(&m->kc, &ly->att_o, ws->y, t, ws->o);
        v7_run(&j, V7_RESID);

        /* --- channel mix --- */
        v7_run(&j, V7_LN2);
        mdl_shift(ws->xn, ffn_prev, ws->sx, t, C);
        v7_run(&j, V7_MIXK);
        kern_matmul(&m->kc, &ly->ffn_k, xk, t, ws->f);
        v7_run(&j, V7_RELU2);
        kern_matmul(&m->kc, &ly->ffn_v, ws->f, t, ws->o);
        v7_run(&j, V7_RESID);
    }
}
