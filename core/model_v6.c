/*
** model_v6.c -- RWKV-6.0 block math (float32), the pip package's generic
** class.
**
** Data-dependent token shift: xxx = xx + sx*maa_x, five LoRA mixes (order
** w, k, v, r, g), data-dependent decay w = exp(-exp(time_decay + LoRA(xw)))
** per channel and token, WKV as v5.2 (state S[h][key][value], bonus u =
** time_faaaa), group norm, * silu(gate), output; FFN with maa mixing.
*/
#include "model.h"

#include <math.h>
#include <string.h>

static void
v6_wkv_head(float *restrict s, const float *restrict r, const float *restrict k,
            const float *restrict v, const float *restrict w, const float *restrict u,
            float *restrict y, size_t n)
{
    for (size_t j = 0; j < n; j++)
        y[j] = 0;
    for (size_t i = 0; i < n; i++) {
        float *row = s + i * n;
        float ri = r[i], ki = k[i], ui = u[i], wi = w[i];
        for (size_t j = 0; j < n; j++) {
            float a = ki * v[j];
            y[j] += ri * (ui * a + row[j]);
            row[j] = a + wi * row[j];
        }
    }
}

void
mdl_v6_layers(rwkv_model *m, size_t t, float *state)
{
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, H = (size_t)m->H, N = (size_t)m->N;
    size_t TC = t * C, per = mdl_layer_state_len(m), dm = (size_t)m->d_mix;
    float *xxx = ws->m[0];
    /* mixed inputs w, k, v, r, g; m[0] is reused for xw after the LoRA */
    float *mx[5] = { ws->m[1], ws->m[2], ws->m[3], ws->m[4], ws->m[5] };

    for (int l = 0; l < m->n_layer; l++) {
        const struct mdl_layer *ly = &m->layers[l];
        const float *maa[5] = { ly->maa_w, ly->maa_k, ly->maa_v, ly->maa_r, ly->maa_g };
        float *att_prev = state + (size_t)l * per;
        float *kv = att_prev + C;
        float *ffn_prev = kv + H * N * N;

        mdl_ln_rows(ws->x, ly->ln1_w, ly->ln1_b, ws->xn, t, C);
        mdl_shift(ws->xn, att_prev, ws->sx, t, C);
        for (size_t i = 0; i < TC; i++) {
            ws->sx[i] -= ws->xn[i];    /* sx = sx - xx */
            xxx[i] = ws->xn[i] + ws->sx[i] * ly->maa_x[i % C];
        }
        kern_matmul(&m->kc, &ly->maa_w1, xxx, t, ws->lo);       /* [T][5*Dm] */
        for (size_t i = 0; i < t * 5 * dm; i++)
            ws->lo[i] = tanhf(ws->lo[i]);
        for (int s = 0; s < 5; s++) {
            /* m_s[t] = maa_w2[s] applied to lo[t][s*Dm .. (s+1)*Dm) */
            for (size_t p = 0; p < t; p++)
                kern_matmul(NULL, &ly->maa_w2[s], ws->lo + p * 5 * dm + (size_t)s * dm, 1,
                            ws->o + p * C);
            for (size_t i = 0; i < TC; i++)
                mx[s][i] = ws->xn[i] + ws->sx[i] * (maa[s][i % C] + ws->o[i]);
        }
        kern_matmul(&m->kc, &ly->att_r, mx[3], t, ws->r);
        kern_matmul(&m->kc, &ly->att_k, mx[1], t, ws->k);
        kern_matmul(&m->kc, &ly->att_v, mx[2], t, ws->v);
        kern_matmul(&m->kc, &ly->att_g, mx[4], t, ws->g);
        for (size_t i = 0; i < TC; i++)
            ws->g[i] = ws->g[i] * kern_sigmoid(ws->g[i]);
        /* decay */
        kern_matmul(&m->kc, &ly->decay_w1, mx[0], t, ws->lo);
        for (size_t i = 0; i < t * (size_t)m->d_decay; i++)
            ws->lo[i] = tanhf(ws->lo[i]);
        kern_matmul(&m->kc, &ly->decay_w2, ws->lo, t, ws->w);
        for (size_t i = 0; i < TC; i++)
            ws->w[i] = expf(-expf(ly->decay[i % C] + ws->w[i]));

        for (size_t p = 0; p < t; p++) {
            size_t o = p * C;
            for (size_t h = 0; h < H; h++) {
                size_t hn = h * N;
                v6_wkv_head(kv + h * N * N, ws->r + o + hn, ws->k + o + hn, ws->v + o + hn,
                            ws->w + o + hn, ly->first + hn, ws->y + o + hn, N);
            }
            kern_group_norm(ws->y + o, ly->lnx_w, ly->lnx_b, ws->y + o, H, N, MDL_GN_EPS);
        }
        for (size_t i = 0; i < TC; i++)
            ws->y[i] *= ws->g[i];
        kern_matmul(&m->kc, &ly->att_o, ws->y, t, ws->o);
        for (size_t i = 0; i < TC; i++)
            ws->x[i] += ws->o[i];

        mdl_ffn_rkv(m, ly, t, ffn_prev, 1);
    }
}
