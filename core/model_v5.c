/*
** model_v5.c -- RWKV-5.0 / 5.1 / 5.2 block math (float32), the pip
** package's generic class.
**
** Mixes xx*mix + sx*(1-mix); state S[h][key i][value j]:
**     y_j = sum_i r_i (u_i k_i v_j + S_ij),   S_ij = k_i v_j + w_i S_ij,
** with w, u per head (5.0, 5.1) or per key channel (5.2); group norm per
** head (eps 64e-5), then (5.1+) * silu(gate), output matrix; FFN as v4.
*/
#include "model.h"

#include <string.h>

/* One token, one head.  W and U are per key channel (stride 1) or one value
 * for the head (stride 0). */
static void
v5_wkv_head(float *restrict s, const float *restrict r, const float *restrict k,
            const float *restrict v, const float *restrict w, const float *restrict u,
            size_t wstride, float *restrict y, size_t n)
{
    for (size_t j = 0; j < n; j++)
        y[j] = 0;
    for (size_t i = 0; i < n; i++) {
        float *row = s + i * n;
        float ri = r[i], ki = k[i], ui = u[i * wstride], wi = w[i * wstride];
        for (size_t j = 0; j < n; j++) {
            float a = ki * v[j];
            y[j] += ri * (ui * a + row[j]);
            row[j] = a + wi * row[j];
        }
    }
}

void
mdl_v5_layers(rwkv_model *m, size_t t, float *state)
{
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, H = (size_t)m->H, N = (size_t)m->N;
    size_t TC = t * C, per = mdl_layer_state_len(m);
    int gate = m->ver >= MDL_V51, chan = m->ver == MDL_V52;
    float *kx = ws->m[0], *vx = ws->m[1], *rx = ws->m[2], *gx = ws->m[3];

    for (int l = 0; l < m->n_layer; l++) {
        const struct mdl_layer *ly = &m->layers[l];
        float *att_prev = state + (size_t)l * per;
        float *kv = att_prev + C;
        float *ffn_prev = kv + H * N * N;

        mdl_ln_rows(ws->x, ly->ln1_w, ly->ln1_b, ws->xn, t, C);
        mdl_shift(ws->xn, att_prev, ws->sx, t, C);
        for (size_t i = 0; i < TC; i++) {
            float xx = ws->xn[i], sx = ws->sx[i];
            size_t c = i % C;
            kx[i] = xx * ly->mix_k[c] + sx * (1 - ly->mix_k[c]);
            vx[i] = xx * ly->mix_v[c] + sx * (1 - ly->mix_v[c]);
            rx[i] = xx * ly->mix_r[c] + sx * (1 - ly->mix_r[c]);
            if (gate)
                gx[i] = xx * ly->mix_g[c] + sx * (1 - ly->mix_g[c]);
        }
        kern_matmul(&m->kc, &ly->att_r, rx, t, ws->r);
        kern_matmul(&m->kc, &ly->att_k, kx, t, ws->k);
        kern_matmul(&m->kc, &ly->att_v, vx, t, ws->v);
        if (gate) {
            kern_matmul(&m->kc, &ly->att_g, gx, t, ws->g);
            for (size_t i = 0; i < TC; i++)
                ws->g[i] = ws->g[i] * kern_sigmoid(ws->g[i]);
        }
        for (size_t p = 0; p < t; p++) {
            size_t o = p * C;
            for (size_t h = 0; h < H; h++) {
                size_t hn = h * N, wo = chan ? hn : h;
                v5_wkv_head(kv + h * N * N, ws->r + o + hn, ws->k + o + hn, ws->v + o + hn,
                            ly->decay + wo, ly->first + wo, chan ? 1 : 0, ws->y + o + hn, N);
            }
            kern_group_norm(ws->y + o, ly->lnx_w, ly->lnx_b, ws->y + o, H, N, MDL_GN_EPS);
        }
        if (gate)
            for (size_t i = 0; i < TC; i++)
                ws->y[i] *= ws->g[i];
        kern_matmul(&m->kc, &ly->att_o, ws->y, t, ws->o);
        for (size_t i = 0; i < TC; i++)
            ws->x[i] += ws->o[i];

        mdl_ffn_rkv(m, ly, t, ffn_prev, 0);
    }
}
