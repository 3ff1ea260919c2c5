/*
** model_v4.c -- RWKV-4 block math (float32), the pip package's generic class.
**
** WKV in log space with a running maximum pp per channel (fresh pp = -1e30):
**     ww = u + k; p = max(pp, ww); wkv = (e^(pp-p) aa + e^(ww-p) v) / (e^(pp-p) bb + e^(ww-p))
**     ww = w + pp; p = max(ww, k); aa = e^(ww-p) aa + e^(k-p) v; bb = e^(ww-p) bb + e^(k-p); pp = p
** with w = -exp(time_decay), u = time_first; out = (sigmoid(r) * wkv) O.
*/
#include "model.h"

#include <math.h>

void
mdl_v4_layers(rwkv_model *m, size_t t, float *state)
{
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, TC = t * C, per = mdl_layer_state_len(m);
    float *kx = ws->m[0], *vx = ws->m[1], *rx = ws->m[2];

    for (int l = 0; l < m->n_layer; l++) {
        const struct mdl_layer *ly = &m->layers[l];
        float *att_prev = state + (size_t)l * per;
        float *aa = att_prev + C, *bb = aa + C, *pp = bb + C, *ffn_prev = pp + C;

        mdl_ln_rows(ws->x, ly->ln1_w, ly->ln1_b, ws->xn, t, C);
        mdl_shift(ws->xn, att_prev, ws->sx, t, C);
        for (size_t i = 0; i < TC; i++) {
            float xx = ws->xn[i], sx = ws->sx[i];
            size_t c = i % C;
            kx[i] = xx * ly->mix_k[c] + sx * (1 - ly->mix_k[c]);
            vx[i] = xx * ly->mix_v[c] + sx * (1 - ly->mix_v[c]);
            rx[i] = xx * ly->mix_r[c] + sx * (1 - ly->mix_r[c]);
        }
        kern_matmul(&m->kc, &ly->att_r, rx, t, ws->r);
        kern_matmul(&m->kc, &ly->att_k, kx, t, ws->k);
        kern_matmul(&m->kc, &ly->att_v, vx, t, ws->v);
        for (size_t p = 0; p < t; p++) {
            const float *k = ws->k + p * C, *v = ws->v + p * C, *r = ws->r + p * C;
            float *y = ws->y + p * C;
            for (size_t c = 0; c < C; c++) {
                float ww = ly->first[c] + k[c];
                float q = pp[c] > ww ? pp[c] : ww;
                float e1 = expf(pp[c] - q), e2 = expf(ww - q);
                float wkv = (e1 * aa[c] + e2 * v[c]) / (e1 * bb[c] + e2);
                ww = ly->decay[c] + pp[c];
                q = ww > k[c] ? ww : k[c];
                e1 = expf(ww - q);
                e2 = expf(k[c] - q);
                aa[c] = e1 * aa[c] + e2 * v[c];
                bb[c] = e1 * bb[c] + e2;
                pp[c] = q;
                y[c] = kern_sigmoid(r[c]) * wkv;
            }
        }
        kern_matmul(&m->kc, &ly->att_o, ws->y, t, ws->o);
        for (size_t i = 0; i < TC; i++)
            ws->x[i] += ws->o[i];

        mdl_ffn_rkv(m, ly, t, ffn_prev, 0);
    }
}
