/*
** model_v5.c -- RWKV-5.0 / 5.1 / 5.2 block math (float32), the pip
** package's generic class.
**
** Mixes xx*mix + sx*(1-mix); state S[h][key i][value j]:
**     y_j = sum_i r_i (u_i k_i v_j + S_ij),   S_ij = k_i v_j + w_i S_ij,
** with w, u per head (5.0, 5.1) or per key channel (5.2); group norm per
** head (eps 64e-5), then (5.1+) * silu(gate), output matrix; FFN as v4.
**
** Threads: besides the matrix products, the element-wise stages run over
** token rows and the WKV over heads on the pool (model_par.h; each head's
** state is independent, tokens stay in order within a head), so every
** number is the same for any thread count.
*/
#include "model_block.h"
#include "model_par.h"
#include "../kernels/vmath.h"


enum v5_op { V5_LN, V5_MIX, V5_GATE, V5_WKV, V5_POST, V5_RESID };

struct v5_job {
    rwkv_model             *m;
    const struct mdl_layer *ly;
    size_t                  t;
    float                  *kv;   /* the layer's WKV state [H][N][N] */
    int                     gate; /* 5.1+: silu gate */
    enum v5_op              op;
};

/* Items [i0, i1): token rows, or heads for V5_WKV. */
static void
v5_range(void *ctx, size_t i0, size_t i1)
{
    const struct v5_job *j = ctx;
    rwkv_model *m = j->m;
    const struct mdl_layer *ly = j->ly;
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, H = (size_t)m->H, N = (size_t)m->N;
    const vm_ops *o = vm_default();

    switch (j->op) {
    case V5_LN:
        mdl_ln_rows(ws->x + i0 * C, ly->ln1_w, ly->ln1_b, ws->xn + i0 * C, i1 - i0, C);
        break;
    case V5_MIX: {
        /* kx, vx, rx, gx = m[0..3] */
        const float *mix[4] = { ly->mix_k, ly->mix_v, ly->mix_r, ly->mix_g };
        for (size_t p = i0; p < i1; p++) {
            float *out[4] = { ws->m[0] + p * C, ws->m[1] + p * C, ws->m[2] + p * C,
                              ws->m[3] + p * C };
            vm_mix(o, VM_MIX_AFFINE, ws->xn + p * C, ws->sx + p * C, mix, out,
                   j->gate ? 4 : 3, C);
        }
        break;
    }
    case V5_GATE:
        vm_silu(o, ws->g + i0 * C, ws->g + i0 * C, (i1 - i0) * C);
        break;
    case V5_WKV: {
        int chan = m->ver == MDL_V52;
        for (size_t h = i0; h < i1; h++) {
            size_t hn = h * N, wo = chan ? hn : h, st = chan ? 1 : 0;
            vm_wkv5(o, j->kv + h * N * N, N, j->t, C, ws->r + hn, ws->k + hn, ws->v + hn,
                    ly->decay + wo, 0, st, ly->first + wo, st, ws->y + hn);
        }
        break;
    }
    case V5_POST:
        for (size_t p = i0; p < i1; p++) {
            float *y = ws->y + p * C;
            vm_group_norm(o, y, ly->lnx_w, ly->lnx_b, y, H, N, MDL_GN_EPS);
            if (j->gate)
                vm_mul(o, ws->g + p * C, y, C);
        }
        break;
    case V5_RESID:
        vm_add(o, ws->o + i0 * C, ws->x + i0 * C, (i1 - i0) * C);
        break;
    }
}

static void
v5_run(struct v5_job *j, enum v5_op op)
{
    j->op = op;
    if (op == V5_WKV)   /* heads; one token too when the state is big (model_par.h) */
        mdl_par_run_heads(j->m->pool, j->t, (size_t)j->m->H, (size_t)j->m->N, v5_range, j);
    else
        mdl_par_run(j->m->pool, j->t, j->t, v5_range, j);
}

void
mdl_v5_layers(rwkv_model *m, size_t t, float *state)
{
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, H = (size_t)m->H, N = (size_t)m->N;
    size_t per = mdl_layer_state_len(m);
    int gate = m->ver >= MDL_V51;
    float *kx = ws->m[0], *vx = ws->m[1], *rx = ws->m[2], *gx = ws->m[3];

    for (int l = 0; l < m->n_layer; l++) {
        const struct mdl_layer *ly = &m->layers[l];
        float *att_prev = state + (size_t)l * per;
        float *kv = att_prev + C;
        float *ffn_prev = kv + H * N * N;
        struct v5_job j = { m, ly, t, kv, gate, V5_LN };

        v5_run(&j, V5_LN);
        mdl_shift(ws->xn, att_prev, ws->sx, t, C);
        v5_run(&j, V5_MIX);
        kern_matmul(&m->kc, &ly->att_r, rx, t, ws->r);
        kern_matmul(&m->kc, &ly->att_k, kx, t, ws->k);
        kern_matmul(&m->kc, &ly->att_v, vx, t, ws->v);
        if (gate) {
            kern_matmul(&m->kc, &ly->att_g, gx, t, ws->g);
            v5_run(&j, V5_GATE);
        }
        v5_run(&j, V5_WKV);
        v5_run(&j, V5_POST);
        kern_matmul(&m->kc, &ly->att_o, ws->y, t, ws->o);
        v5_run(&j, V5_RESID);

        mdl_ffn_rkv(m, ly, t, ffn_prev, 0);
    }
}
