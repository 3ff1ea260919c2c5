/*
** model_v4.c -- RWKV-4 block math (float32), the pip package's generic class.
**
** WKV in log space with a running maximum pp per channel (fresh pp = -1e30):
**     ww = u + k; p = max(pp, ww); wkv = (e^(pp-p) aa + e^(ww-p) v) / (e^(pp-p) bb + e^(ww-p))
**     ww = w + pp; p = max(ww, k); aa = e^(ww-p) aa + e^(k-p) v; bb = e^(ww-p) bb + e^(k-p); pp = p
** with w = -exp(time_decay), u = time_first; out = (sigmoid(r) * wkv) O.
**
** Threads: besides the matrix products, the element-wise stages run over
** token rows and the WKV over blocks of channels on the pool (model_par.h;
** channels are independent, tokens stay in order), so every number is the
** same for any thread count.
*/
#include "model_block.h"
#include "model_par.h"
#include "../kernels/vmath.h"

/* Channels per WKV work item (a multiple of every vector width). */
#define V4_WKV_BLOCK 64

enum v4_op { V4_LN, V4_MIX, V4_WKV, V4_RESID };

struct v4_job {
    rwkv_model             *m;
    const struct mdl_layer *ly;
    size_t                  t;
    float                  *aa, *bb, *pp;   /* the layer's WKV state [C] each */
    enum v4_op              op;
};

/* Items [i0, i1): token rows, or channel blocks for V4_WKV. */
static void
v4_range(void *ctx, size_t i0, size_t i1)
{
    const struct v4_job *j = ctx;
    const struct mdl_layer *ly = j->ly;
    struct mdl_ws *ws = &j->m->ws;
    size_t C = (size_t)j->m->C;
    const vm_ops *o = vm_default();

    switch (j->op) {
    case V4_LN:
        mdl_ln_rows(ws->x + i0 * C, ly->ln1_w, ly->ln1_b, ws->xn + i0 * C, i1 - i0, C);
        break;
    case V4_MIX: {
        /* kx, vx, rx = m[0..2] */
        const float *mix[3] = { ly->mix_k, ly->mix_v, ly->mix_r };
        for (size_t p = i0; p < i1; p++) {
            float *out[3] = { ws->m[0] + p * C, ws->m[1] + p * C, ws->m[2] + p * C };
            vm_mix(o, VM_MIX_AFFINE, ws->xn + p * C, ws->sx + p * C, mix, out, 3, C);
        }
        break;
    }
    case V4_WKV: {
        size_t c0 = i0 * V4_WKV_BLOCK, c1 = i1 * V4_WKV_BLOCK;
        if (c1 > C)
            c1 = C;
        vm_wkv4(o, j->aa + c0, j->bb + c0, j->pp + c0, c1 - c0, j->t, C, ws->r + c0,
                ws->k + c0, ws->v + c0, ly->decay + c0, ly->first + c0, ws->y + c0);
        break;
    }
    case V4_RESID:
        vm_add(o, ws->o + i0 * C, ws->x + i0 * C, (i1 - i0) * C);
        break;
    }
}

static void
v4_run(struct v4_job *j, enum v4_op op)
{
    size_t C = (size_t)j->m->C;

    j->op = op;
    mdl_par_run(j->m->pool, j->t, op == V4_WKV ? (C + V4_WKV_BLOCK - 1) / V4_WKV_BLOCK : j->t,
                v4_range, j);
}

void
mdl_v4_layers(rwkv_model *m, size_t t, float *state)
{
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, per = mdl_layer_state_len(m);
    float *kx = ws->m[0], *vx = ws->m[1], *rx = ws->m[2];

    for (int l = 0; l < m->n_layer; l++) {
        const struct mdl_layer *ly = &m->layers[l];
        float *att_prev = state + (size_t)l * per;
        float *aa = att_prev + C, *bb = aa + C, *pp = bb + C, *ffn_prev = pp + C;
        struct v4_job j = { m, ly, t, aa, bb, pp, V4_LN };

        v4_run(&j, V4_LN);
        mdl_shift(ws->xn, att_prev, ws->sx, t, C);
        v4_run(&j, V4_MIX);
        kern_matmul(&m->kc, &ly->att_r, rx, t, ws->r);
        kern_matmul(&m->kc, &ly->att_k, kx, t, ws->k);
        kern_matmul(&m->kc, &ly->att_v, vx, t, ws->v);
        v4_run(&j, V4_WKV);
        kern_matmul(&m->kc, &ly->att_o, ws->y, t, ws->o);
        v4_run(&j, V4_RESID);

        mdl_ffn_rkv(m, ly, t, ffn_prev, 0);
    }
}
