/*
** state_file.c -- saving a recurrent state as a state file
** (rwkv_state_save_file) and reading back the extra tensors of ours that
** make the reloaded state exact (state_file.h has the names).
**
** The file is what the pip package loads as a state file (the fixtures'
** layout: blocks.N.att.time_state [H,N,N] = kv.transpose(1,2), one per
** layer, in layer order), written as float32 so nothing is rounded, through
** the project's own .pth writer (core/io/ckpt_write.h: a temporary file renamed
** over PATH once complete, fsync'ed).
*/
#include "state_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/ckpt_write.h"

#define SF_NAME_MAX 64

/* Extra tensors of one layer: name suffix and offset in the layer's state
** (in units of C). */
struct sf_extra {
    const char *name;
    size_t      at_c;    /* offset / C; SIZE_MAX = after the kv block */
};

static const struct sf_extra sf_v4[] = {
    { "att.shift_state", 0 }, { "att.aa_state", 1 }, { "att.bb_state", 2 },
    { "att.pp_state", 3 },    { "ffn.shift_state", 4 },
};
static const struct sf_extra sf_v5[] = {
    { "att.shift_state", 0 }, { "ffn.shift_state", SIZE_MAX },
};

static const struct sf_extra *
sf_extras(const rwkv_model *m, size_t *n)
{
    if (m->ver == MDL_V4) {
        *n = sizeof sf_v4 / sizeof sf_v4[0];
        return sf_v4;
    }
    *n = sizeof sf_v5 / sizeof sf_v5[0];
    return sf_v5;
}

static size_t
sf_offset(const rwkv_model *m, const struct sf_extra *e)
{
    size_t C = (size_t)m->C;

    if (e->at_c == SIZE_MAX)
        return C + (size_t)m->H * (size_t)m->N * (size_t)m->N;
    return e->at_c * C;
}

int
rwkv_state_save_file(const rwkv_model *m, const rwkv_state *s, const char *path,
                     rwkv_err *err)
{
    size_t H = (size_t)m->H, N = (size_t)m->N, C = (size_t)m->C;
    size_t per = mdl_layer_state_len(m), hnn = H * N * N, n_ex;
    const struct sf_extra *ex = sf_extras(m, &n_ex);
    const float *data;
    float *ts = NULL;
    ckw *w = NULL;
    int rc;

    if (s->len != m->info.state_len || s->fingerprint != m->info.fingerprint)
        return rwkv_errf(err, RWKV_EINVAL, "%s: the state does not belong to this model", path);
    data = rwkv_state_cdata(s);
    for (size_t k = 0; k < s->len; k++)
        if (!isfinite(data[k]) && !(m->ver == MDL_V4 && data[k] == -INFINITY))
            return rwkv_errf(err, RWKV_EINVAL, "%s: the state holds %s (element %zu): "
                             "not saved", path, isnan(data[k]) ? "NaN" : "Inf", k);
    if (m->ver != MDL_V4 && (ts = malloc(hnn * sizeof *ts)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    rc = ckw_create(path, NULL, &w, err);
    if (rc != RWKV_OK)
        goto done;
    /* the pip layout first: every layer's time_state, in layer order */
    for (int l = 0; m->ver != MDL_V4 && l < m->n_layer; l++) {
        const float *kv = data + (size_t)l * per + C;
        int64_t sh[3] = { (int64_t)H, (int64_t)N, (int64_t)N };
        char name[SF_NAME_MAX];

        /* time_state = kv.transpose(1, 2) (state.c loads the inverse) */
        for (size_t h = 0; h < H; h++)
            for (size_t a = 0; a < N; a++)
                for (size_t b = 0; b < N; b++)
                    ts[h * N * N + b * N + a] = kv[h * N * N + a * N + b];
        snprintf(name, sizeof name, "blocks.%d.att.time_state", l);
        rc = ckw_tensor(w, name, CK_F32, 3, sh, ts, err);
        if (rc != RWKV_OK)
            goto done;
    }
    /* then ours */
    for (int l = 0; l < m->n_layer; l++)
        for (size_t e = 0; e < n_ex; e++) {
            int64_t sh[1] = { (int64_t)C };
            char name[SF_NAME_MAX];

            snprintf(name, sizeof name, "blocks.%d.%s", l, ex[e].name);
            rc = ckw_tensor(w, name, CK_F32, 1, sh,
                            data + (size_t)l * per + sf_offset(m, &ex[e]), err);
            if (rc != RWKV_OK)
                goto done;
        }
    rc = ckw_finish(w, NULL, err);
    w = NULL;
done:
    ckw_abort(w);
    free(ts);
    return rc;
}

int
state_file_read_extras(const rwkv_model *m, const ckpt *ck, const char *path, float *tmp,
                       int *have, rwkv_err *err)
{
    size_t C = (size_t)m->C, per = mdl_layer_state_len(m), n_ex;
    const struct sf_extra *ex = sf_extras(m, &n_ex);
    int got = 0;

    for (int l = 0; l < m->n_layer; l++) {
        const ckpt_tensor *t[8];
        size_t found = 0;

        for (size_t e = 0; e < n_ex; e++) {
            char name[SF_NAME_MAX];
            snprintf(name, sizeof name, "blocks.%d.%s", l, ex[e].name);
            t[e] = ckpt_find(ck, name);
            if (t[e] == NULL)
                continue;
            found++;
            if (t[e]->ndim != 1 || (size_t)t[e]->shape[0] != C)
                return rwkv_errf(err, RWKV_ESHAPE, "%s: tensor '%s' should have shape [%zu]",
                                 path, name, C);
        }
        if (found == 0 && m->ver != MDL_V4)
            continue;
        if (found != n_ex) {
            for (size_t e = 0; e < n_ex; e++)
                if (t[e] == NULL)
                    return rwkv_errf(err, RWKV_ESHAPE, "%s: missing tensor 'blocks.%d.%s'%s",
                                     path, l, ex[e].name, m->ver == MDL_V4 ?
                                     " (an RWKV v4 state file is one rwkv-tui saved)" : "");
        }
        for (size_t e = 0; e < n_ex; e++) {
            float *dst = tmp + (size_t)l * per + sf_offset(m, &ex[e]);
            int rc = ckpt_to_f32(t[e], dst, C, err);
            if (rc != RWKV_OK)
                return rc;
            for (size_t k = 0; k < C; k++)
                if (isnan(dst[k]) || (isinf(dst[k]) && !(m->ver == MDL_V4 && dst[k] < 0)))
                    return rwkv_errf(err, RWKV_EFORMAT,
                                     "%s: tensor 'blocks.%d.%s' holds %s at element %zu "
                                     "(a damaged state file)", path, l, ex[e].name,
                                     isnan(dst[k]) ? "NaN" : "Inf", k);
        }
        got++;
    }
    if (have != NULL)
        *have = got;
    return RWKV_OK;
}
