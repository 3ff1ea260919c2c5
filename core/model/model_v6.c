/*
** model_v6.c -- RWKV-6.0 block math (float32), the pip package's generic
** class.
**
** Data-dependent token shift: xxx = xx + sx*maa_x, five LoRA mixes (order
** w, k, v, r, g), data-dependent decay w = exp(-exp(time_decay + LoRA(xw)))
** per channel and token, WKV as v5.2 (state S[h][key][value], bonus u =
** time_faaaa), group norm, * silu(gate), output; FFN with maa mixing.
**
** Threads: besides the matrix products, the element-wise stages run over
** token rows and the WKV over heads on the pool (model_par.h), so every
** number is the same for any thread count.
*/
#include "model_block.h"
#include "model_par.h"
#include "../kernels/vmath.h"

enum v6_op {
    V6_LN,        /* xn = ln1(x) */
    V6_SHIFT,     /* sx = sx - xn; xxx = xn + sx * maa_x */
    V6_MIX,       /* mx[s] = xn + sx * (maa[s] + maa_w2[s] tanh(lo[s])), s < 5 */
    V6_GATE,      /* g = silu(g) */
    V6_TANH,      /* lo = tanh(lo), [T][Dd] */
    V6_DECAY,     /* w = exp(-exp(decay + w)) */
    V6_WKV,       /* heads */
    V6_POST,      /* y = group_norm(y) * g */
    V6_RESID      /* x += o */
};

struct v6_job {
    rwkv_model             *m;
    const struct mdl_layer *ly;
    size_t                  t;
    float                  *kv;   /* the layer's WKV state [H][N][N] */
    enum v6_op              op;
};

/* The 5 mixed inputs w, k, v, r, g; m[0] holds xxx. */
static float *
v6_mx(struct mdl_ws *ws, int s)
{
    return ws->m[1 + s];
}

/* Items [i0, i1): token rows, or heads for V6_WKV. */
static void
v6_range(void *ctx, size_t i0, size_t i1)
{
    const struct v6_job *j = ctx;
    rwkv_model *m = j->m;
    const struct mdl_layer *ly = j->ly;
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, H = (size_t)m->H, N = (size_t)m->N, dm = (size_t)m->d_mix;
    size_t dd = (size_t)m->d_decay;
    const vm_ops *o = vm_default();

    switch (j->op) {
    case V6_LN:
        mdl_ln_rows(ws->x + i0 * C, ly->ln1_w, ly->ln1_b, ws->xn + i0 * C, i1 - i0, C);
        break;
    case V6_SHIFT: {
        const float *mix[1] = { ly->maa_x };
        for (size_t p = i0; p < i1; p++) {
            const float *xn = ws->xn + p * C;
            float *sx = ws->sx + p * C, *out[1] = { ws->m[0] + p * C };
            vm_mix(o, VM_MIX_LERP, xn, sx, mix, out, 1, C);   /* xn + (sx - xn) maa_x */
            vm_sub(o, xn, sx, C);
        }
        break;
    }
    case V6_MIX: {
        /* per token, single-threaded products (the token rows are what is
         * spread): the same sums as before.  (One [T]-token matrix product
         * per mix is faster but sums in another order, which moves the
         * tiny-6v0-bf16 "cpu bf16 vs cpu fp32" logit gap of test_precision
         * from 0.0071 to 0.0121, over its 0.0088 bound.) */
        const float *maa[5] = { ly->maa_w, ly->maa_k, ly->maa_v, ly->maa_r, ly->maa_g };
        for (size_t p = i0; p < i1; p++) {
            const float *xn = ws->xn + p * C, *sx = ws->sx + p * C;
            float *lo = ws->lo + p * 5 * dm, *d = ws->o + p * C;
            vm_tanh(o, lo, lo, 5 * dm);
            for (int s = 0; s < 5; s++) {
                kern_matmul(NULL, &ly->maa_w2[s], lo + (size_t)s * dm, 1, d);
                vm_mix_add(o, xn, sx, maa[s], d, v6_mx(ws, s) + p * C, C);
            }
        }
        break;
    }
    case V6_GATE:
        vm_silu(o, ws->g + i0 * C, ws->g + i0 * C, (i1 - i0) * C);
        break;
    case V6_TANH:
        vm_tanh(o, ws->lo + i0 * dd, ws->lo + i0 * dd, (i1 - i0) * dd);
        break;
    case V6_DECAY:
        for (size_t p = i0; p < i1; p++) {
            float *w = ws->w + p * C;
            vm_add(o, ly->decay, w, C);
            vm_exp(o, w, w, C);
            vm_exp_scale(o, w, -1.0f, w, C);
        }
        break;
    case V6_WKV:
        for (size_t h = i0; h < i1; h++) {
            size_t hn = h * N;
            vm_wkv5(o, j->kv + h * N * N, N, j->t, C, ws->r + hn, ws->k + hn, ws->v + hn,
                    ws->w + hn, C, 1, ly->first + hn, 1, ws->y + hn);
        }
        break;
    case V6_POST:
        for (size_t p = i0; p < i1; p++) {
            float *y = ws->y + p * C;
            vm_group_norm(o, y, ly->lnx_w, ly->lnx_b, y, H, N, MDL_GN_EPS);
            vm_mul(o, ws->g + p * C, y, C);
        }
        break;
    case V6_RESID:
        vm_add(o, ws->o + i0 * C, ws->x + i0 * C, (i1 - i0) * C);
        break;
    }
}

static void
v6_run(struct v6_job *j, enum v6_op op)
{
    j->op = op;
    if (op == V6_WKV)   /* heads; one token too when the state is big (model_par.h) */
        mdl_par_run_heads(j->m->pool, j->t, (size_t)j->m->H, (size_t)j->m->N, v6_range, j);
    else
        mdl_par_run(j->m->pool, j->t, j->t, v6_range, j);
}

void
mdl_v6_layers(rwkv_model *m, size_t t, float *state)
{
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, H = (size_t)m->H, N = (size_t)m->N;
    size_t per = mdl_layer_state_len(m);

    for (int l = 0; l < m->n_layer; l++) {
        const struct mdl_layer *ly = &m->layers[l];
        float *att_prev = state + (size_t)l * per;
        float *kv = att_prev + C;
        float *ffn_prev = kv + H * N * N;
        struct v6_job j = { m, ly, t, kv, V6_LN };

        v6_run(&j, V6_LN);
        mdl_shift(ws->xn, att_prev, ws->sx, t, C);
        v6_run(&j, V6_SHIFT);
        if (t == 1) {
            /* decode: the data-dependent mix in two pool dispatches (maa_w1
             * with its tanh, then the five maa_w2 products into r k v g w,
             * which are written only later), not five products on one
             * thread; the same numbers as V6_MIX */
            const kern_mv mv1 = { &ly->maa_w1, ws->m[0], ws->lo, KERN_ACT_TANH };
            float *d[5] = { ws->r, ws->k, ws->v, ws->g, ws->w };
            const float *maa[5] = { ly->maa_w, ly->maa_k, ly->maa_v, ly->maa_r, ly->maa_g };
            kern_mv mv[5];
            size_t dm = (size_t)m->d_mix;

            kern_matvec_multi(&m->kc, &mv1, 1);
            for (int s5 = 0; s5 < 5; s5++)
                mv[s5] = (kern_mv){ &ly->maa_w2[s5], ws->lo + (size_t)s5 * dm, d[s5],
                                    KERN_ACT_NONE };
            kern_matvec_multi(&m->kc, mv, 5);
            for (int s5 = 0; s5 < 5; s5++)
                vm_mix_add(vm_default(), ws->xn, ws->sx, maa[s5], d[s5], v6_mx(ws, s5), C);
        } else {
            kern_matmul(&m->kc, &ly->maa_w1, ws->m[0], t, ws->lo);   /* [T][5*Dm] */
            v6_run(&j, V6_MIX);
        }
        if (t == 1) {
            /* decode: r, k, v, g and the first decay product (with its
             * tanh) in one pool dispatch; the same numbers as below */
            const kern_mv mv[] = {
                { &ly->att_r, v6_mx(ws, 3), ws->r, KERN_ACT_NONE },
                { &ly->att_k, v6_mx(ws, 1), ws->k, KERN_ACT_NONE },
                { &ly->att_v, v6_mx(ws, 2), ws->v, KERN_ACT_NONE },
                { &ly->att_g, v6_mx(ws, 4), ws->g, KERN_ACT_NONE },
                { &ly->decay_w1, v6_mx(ws, 0), ws->lo, KERN_ACT_TANH },
            };
            kern_matvec_multi(&m->kc, mv, (int)(sizeof mv / sizeof mv[0]));
            v6_run(&j, V6_GATE);
        } else {
            kern_matmul(&m->kc, &ly->att_r, v6_mx(ws, 3), t, ws->r);
            kern_matmul(&m->kc, &ly->att_k, v6_mx(ws, 1), t, ws->k);
            kern_matmul(&m->kc, &ly->att_v, v6_mx(ws, 2), t, ws->v);
            kern_matmul(&m->kc, &ly->att_g, v6_mx(ws, 4), t, ws->g);
            v6_run(&j, V6_GATE);
            /* decay */
            kern_matmul(&m->kc, &ly->decay_w1, v6_mx(ws, 0), t, ws->lo);
            v6_run(&j, V6_TANH);
        }
        kern_matmul(&m->kc, &ly->decay_w2, ws->lo, t, ws->w);
        v6_run(&j, V6_DECAY);

        v6_run(&j, V6_WKV);
        v6_run(&j, V6_POST);
        kern_matmul(&m->kc, &ly->att_o, ws->y, t, ws->o);
        v6_run(&j, V6_RESID);

        mdl_ffn_rkv(m, ly, t, ffn_prev, 1);
    }
}
