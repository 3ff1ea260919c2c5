/*
** model_block.c -- the pieces of block math the per-version files
** (model_v4/v5/v6/v7.c) share: layer norm over token rows, the token shift,
** the v4/v5/v6 FFN, and the state layout.  Calls go one way: the version
** files call these; nothing here calls back into a version file or into the
** driver (model.c).
*/
#include "model_block.h"

#include <string.h>

#include "model_par.h"
#include "../kernels/vmath.h"

int
rwkv_state_parts_of(const char *version, int n_embd, int n_head, int head_size,
                    rwkv_state_parts *out, rwkv_err *err)
{
    int v4 = version != NULL && strcmp(version, "4") == 0;
    size_t C = (size_t)n_embd, H = (size_t)n_head, N = (size_t)head_size;

    memset(out, 0, sizeof *out);
    if (version == NULL || (!v4 && strchr("567", version[0]) == NULL) || version[0] == '\0')
        return rwkv_errf(err, RWKV_EINVAL, "unknown model version '%s'", version ? version : "");
    /* each size under 2^20 keeps every product below in range */
    if (n_embd <= 0 || n_embd >= 1 << 20 ||
        (!v4 && (n_head <= 0 || n_head >= 1 << 20 || head_size <= 0 || head_size >= 1 << 20)))
        return rwkv_errf(err, RWKV_EINVAL, "impossible state sizes (%d channels, %d heads of %d)",
                         n_embd, n_head, head_size);
    out->att_shift = 0;
    out->wkv = C;
    out->wkv_len = v4 ? 2 * C : H * N * N;
    out->ffn_shift = v4 ? 4 * C : C + H * N * N;
    out->layer = out->ffn_shift + C;
    return RWKV_OK;
}

size_t
mdl_layer_state_len(const rwkv_model *m)
{
    rwkv_state_parts p;

    /* the model's own sizes always pass */
    if (rwkv_state_parts_of(m->info.version, m->C, m->H, m->N, &p, NULL) != RWKV_OK)
        return 0;
    return p.layer;
}

void
mdl_ln_rows(const float *x, const float *w, const float *b, float *xn, size_t t, size_t c)
{
    const vm_ops *o = vm_default();

    for (size_t p = 0; p < t; p++)
        vm_layer_norm(o, x + p * c, w, b, xn + p * c, c, MDL_LN_EPS);
}

void
mdl_shift(const float *xn, float *prev, float *sx, size_t t, size_t c)
{
    memcpy(sx, prev, c * sizeof(float));
    if (t > 1)
        memcpy(sx + c, xn, (t - 1) * c * sizeof(float));
    memcpy(prev, xn + (t - 1) * c, c * sizeof(float));
}

/* The v4/v5/v6 FFN, stage by stage over token rows (model_par.h). */
enum mdl_ffn_op { MDL_FFN_LN, MDL_FFN_MIX, MDL_FFN_RELU2, MDL_FFN_OUT };

struct mdl_ffn_job {
    rwkv_model             *m;
    const struct mdl_layer *ly;
    int                     maa;
    enum mdl_ffn_op         op;
};

static void
mdl_ffn_rows(void *ctx, size_t p0, size_t p1)
{
    const struct mdl_ffn_job *j = ctx;
    const struct mdl_layer *ly = j->ly;
    struct mdl_ws *ws = &j->m->ws;
    size_t C = (size_t)j->m->C, F = (size_t)j->m->F;
    const vm_ops *o = vm_default();

    switch (j->op) {
    case MDL_FFN_LN:
        mdl_ln_rows(ws->x + p0 * C, ly->ln2_w, ly->ln2_b, ws->xn + p0 * C, p1 - p0, C);
        break;
    case MDL_FFN_MIX: {
        /* kx = m[0], rx = m[1] */
        const float *mix[2] = { ly->fmix_k, ly->fmix_r };
        for (size_t p = p0; p < p1; p++) {
            float *out[2] = { ws->m[0] + p * C, ws->m[1] + p * C };
            vm_mix(o, j->maa ? VM_MIX_LERP : VM_MIX_AFFINE, ws->xn + p * C, ws->sx + p * C,
                   mix, out, 2, C);
        }
        break;
    }
    case MDL_FFN_RELU2:
        vm_relu2(o, ws->f + p0 * F, ws->f + p0 * F, (p1 - p0) * F);
        break;
    case MDL_FFN_OUT:
        vm_add_sigmoid_mul(o, ws->r + p0 * C, ws->o + p0 * C, ws->x + p0 * C, (p1 - p0) * C);
        break;
    }
}

void
mdl_ffn_rkv(rwkv_model *m, const struct mdl_layer *ly, size_t t, float *prev, int maa)
{
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C;
    struct mdl_ffn_job j = { m, ly, maa, MDL_FFN_LN };

    mdl_par_run(m->pool, t, t, mdl_ffn_rows, &j);
    mdl_shift(ws->xn, prev, ws->sx, t, C);
    j.op = MDL_FFN_MIX;
    mdl_par_run(m->pool, t, t, mdl_ffn_rows, &j);
    if (t == 1) {
        /* decode: both products (and the relu^2) in one pool dispatch */
        const kern_mv mv[2] = { { &ly->ffn_r, ws->m[1], ws->r, KERN_ACT_NONE },
                                { &ly->ffn_k, ws->m[0], ws->f, KERN_ACT_RELU2 } };
        kern_matvec_multi(&m->kc, mv, 2);
    } else {
        kern_matmul(&m->kc, &ly->ffn_r, ws->m[1], t, ws->r);
        kern_matmul(&m->kc, &ly->ffn_k, ws->m[0], t, ws->f);
        j.op = MDL_FFN_RELU2;
        mdl_par_run(m->pool, t, t, mdl_ffn_rows, &j);
    }
    kern_matmul(&m->kc, &ly->ffn_v, ws->f, t, ws->o);
    j.op = MDL_FFN_OUT;
    mdl_par_run(m->pool, t, t, mdl_ffn_rows, &j);
}
