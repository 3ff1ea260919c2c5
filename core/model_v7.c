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
*/
#include "model.h"

#include <math.h>
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

void
mdl_v7_layers(rwkv_model *m, size_t t, float *state)
{
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, H = (size_t)m->H, N = (size_t)m->N, F = (size_t)m->F;
    size_t TC = t * C, per = mdl_layer_state_len(m);
    float *xr = ws->m[0], *xw = ws->m[1], *xk = ws->m[2], *xv = ws->m[3];
    float *xa = ws->m[4], *xg = ws->m[5];

    for (int l = 0; l < m->n_layer; l++) {
        const struct mdl_layer *ly = &m->layers[l];
        float *att_prev = state + (size_t)l * per;
        float *kv = att_prev + C;
        float *ffn_prev = kv + H * N * N;

        /* --- time mix --- */
        mdl_ln_rows(ws->x, ly->ln1_w, ly->ln1_b, ws->xn, t, C);
        mdl_shift(ws->xn, att_prev, ws->sx, t, C);
        for (size_t p = 0; p < t; p++) {
            const float *xx = ws->xn + p * C;
            float *sx = ws->sx + p * C;
            for (size_t c = 0; c < C; c++) {
                float d = sx[c] - xx[c];
                xr[p * C + c] = xx[c] + d * ly->x_r[c];
                xw[p * C + c] = xx[c] + d * ly->x_w[c];
                xk[p * C + c] = xx[c] + d * ly->x_k[c];
                xv[p * C + c] = xx[c] + d * ly->x_v[c];
                xa[p * C + c] = xx[c] + d * ly->x_a[c];
                xg[p * C + c] = xx[c] + d * ly->x_g[c];
            }
        }
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

        for (size_t p = 0; p < t; p++) {
            float *k = ws->k + p * C, *a = ws->a + p * C, *kk = ws->kk + p * C;
            float *v = ws->v + p * C, *w = ws->w + p * C;
            for (size_t c = 0; c < C; c++) {
                a[c] = kern_sigmoid(ly->a0[c] + a[c]);
                kk[c] = k[c] * ly->k_k[c];
            }
            for (size_t h = 0; h < H; h++) {
                float ss = 0, nrm;
                for (size_t j = 0; j < N; j++)
                    ss += kk[h * N + j] * kk[h * N + j];
                nrm = sqrtf(ss);
                if (nrm < V7_NORM_EPS)
                    nrm = V7_NORM_EPS;
                for (size_t j = 0; j < N; j++)
                    kk[h * N + j] /= nrm;
            }
            for (size_t c = 0; c < C; c++) {
                k[c] = k[c] * (1 + (a[c] - 1) * ly->k_a[c]);
                a[c] = kk[c] * a[c];    /* from here on a holds kk * a */
                w[c] = expf(-V7_DECAY_SCALE * kern_sigmoid(ly->w0[c] + w[c]));
            }
            if (l > 0) {
                const float *vf = ws->vf + p * C, *vg = ws->o + p * C;
                for (size_t c = 0; c < C; c++)
                    v[c] = v[c] + (vf[c] - v[c]) * kern_sigmoid(ly->v0[c] + vg[c]);
            }
        }

        /* WKV, sequential over tokens. */
        for (size_t p = 0; p < t; p++) {
            size_t o = p * C;
            for (size_t h = 0; h < H; h++) {
                size_t hn = h * N;
                v7_wkv_head(kv + h * N * N, ws->r + o + hn, ws->w + o + hn, ws->k + o + hn,
                            ws->v + o + hn, ws->kk + o + hn, ws->a + o + hn,
                            ws->y + o + hn, N);
            }
        }

        for (size_t p = 0; p < t; p++) {
            size_t o = p * C;
            float *y = ws->y + o;
            kern_group_norm(y, ly->lnx_w, ly->lnx_b, y, H, N, MDL_GN_EPS);
            for (size_t h = 0; h < H; h++) {
                size_t hn = h * N;
                float bonus = 0;
                for (size_t j = 0; j < N; j++)
                    bonus += ws->r[o + hn + j] * ws->k[o + hn + j] * ly->r_k[hn + j];
                for (size_t j = 0; j < N; j++)
                    y[hn + j] += bonus * ws->v[o + hn + j];
            }
            for (size_t c = 0; c < C; c++)
                y[c] *= ws->g[o + c];
        }
        kern_matmul(&m->kc, &ly->att_o, ws->y, t, ws->o);
        for (size_t i = 0; i < TC; i++)
            ws->x[i] += ws->o[i];

        /* --- channel mix --- */
        mdl_ln_rows(ws->x, ly->ln2_w, ly->ln2_b, ws->xn, t, C);
        mdl_shift(ws->xn, ffn_prev, ws->sx, t, C);
        for (size_t i = 0; i < TC; i++)
            xk[i] = ws->xn[i] + (ws->sx[i] - ws->xn[i]) * ly->fmix_k[i % C];
        kern_matmul(&m->kc, &ly->ffn_k, xk, t, ws->f);
        for (size_t i = 0; i < t * F; i++) {
            float z = ws->f[i] > 0 ? ws->f[i] : 0;
            ws->f[i] = z * z;
        }
        kern_matmul(&m->kc, &ly->ffn_v, ws->f, t, ws->o);
        for (size_t i = 0; i < TC; i++)
            ws->x[i] += ws->o[i];
    }
}
