/*
** state.c -- recurrent states (rwkv_state_*) and state-tuning files.
**
** A state is one float32 array in the reference's list order (rwkv.h,
** fixtures README 2.2): v4 per layer [x_prev, aa, bb, pp, ffn_x_prev],
** v5/v6/v7 per layer [x_prev, kv [H][N][N], ffn_x_prev].
*/
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "../mem.h"
#include "state_file.h"

int
rwkv_state_create(const rwkv_model *m, rwkv_state **out, rwkv_err *err)
{
    rwkv_state *s;
    uint64_t bytes;

    *out = NULL;
    s = calloc(1, sizeof *s);
    if (s == NULL || !mem_mul_ok(m->info.state_len, sizeof(float), &bytes) ||
        (s->data = mem_alloc(bytes)) == NULL) {
        free(s);
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory for a state (%zu floats)",
                         m->info.state_len);
    }
    s->len = m->info.state_len;
    s->fingerprint = m->info.fingerprint;
    s->gen = 1;   /* a backend's link starts at 0: "never uploaded" */
    rwkv_state_reset(m, s);
    *out = s;
    return RWKV_OK;
}

void
rwkv_state_destroy(rwkv_state *s)
{
    if (s == NULL)
        return;
    if (s->link != NULL)
        s->link->bound = NULL;   /* the device copy goes with the state */
    mem_free(s->data);
    free(s);
}

void
rwkv_state_reset(const rwkv_model *m, rwkv_state *s)
{
    size_t C = (size_t)m->C, per = mdl_layer_state_len(m);

    mdl_state_touch(s);   /* every entry is rewritten: no pull needed */
    memset(s->data, 0, s->len * sizeof(float));
    for (int l = 0; l < m->n_layer; l++) {
        float *base = s->data + (size_t)l * per;
        const struct mdl_layer *ly = &m->layers[l];
        if (m->ver == MDL_V4) {
            for (size_t c = 0; c < C; c++)
                base[3 * C + c] = MDL_V4_PP_INIT;
        } else if (ly->time_state != NULL) {
            memcpy(base + C, ly->time_state,
                   (size_t)m->H * (size_t)m->N * (size_t)m->N * sizeof(float));
        }
    }
}

void
rwkv_state_copy(rwkv_state *dst, const rwkv_state *src)
{
    size_t n = dst->len < src->len ? dst->len : src->len;

    if (dst == src)
        return;
    mdl_state_pull((rwkv_state *)src);
    if (n < dst->len)
        mdl_state_pull(dst);   /* the entries not overwritten must be current */
    mdl_state_touch(dst);
    memcpy(dst->data, src->data, n * sizeof(float));
}

size_t
rwkv_state_len(const rwkv_state *s)
{
    return s->len;
}

float *
rwkv_state_data(rwkv_state *s)
{
    mdl_state_pull(s);
    mdl_state_touch(s);   /* the caller may write through the pointer */
    return s->data;
}

const float *
rwkv_state_cdata(const rwkv_state *s)
{
    /* States are never defined const (rwkv_state_create allocates them), so
     * syncing the host copy through a const pointer is well-defined. */
    mdl_state_pull((rwkv_state *)s);
    return s->data;
}

/* ---- device copies (core/model/backend.h) ---- */

void
mdl_state_pull(rwkv_state *s)
{
    struct mdl_state_link *k = s->link;

    if (k == NULL || !s->host_stale)
        return;
    s->host_stale = 0;
    if (k->pull(k, &k->pull_err) != RWKV_OK)
        k->failed = 1;
}

void
mdl_state_release(rwkv_state *s)
{
    if (s->link == NULL)
        return;
    mdl_state_pull(s);
    s->link->bound = NULL;
    s->link = NULL;
}

void
mdl_state_touch(rwkv_state *s)
{
    /* Host data about to change: a device copy newer than the host would be
     * overwritten half-way, so the caller pulled first where it keeps
     * entries; from here on the host copy is the reference. */
    s->host_stale = 0;
    s->gen++;
}

/* Longest key name we build. */
#define STATE_NAME_MAX 64

/*
** The shape checks of state file CK (PATH, for messages) against a model
** of VERSION with N_LAYER layers of N_HEAD heads of HEAD_SIZE: its layers
** and each layer's time_state [H,N,N] (v4: only a whole state rwkv-tui
** saved, state_file.h).  N_LAYER 0: the shape unknown, only whether it is
** a state file for a model of VERSION.
*/
static int
state_file_check(const ckpt *ck, const char *path, const char *version, int n_layer, int n_head,
                 int head_size, rwkv_err *err)
{
    const int v4 = strcmp(version, "4") == 0;
    long maxl = -1;

    if (v4 && ckpt_find(ck, "blocks.0.att.shift_state") == NULL)
        return rwkv_errf(err, RWKV_ENOTSUP, "%s: state files need an RWKV v5/v6/v7 model "
                         "(this is RWKV %s)", path, version);
    if (!v4 && ckpt_find(ck, "blocks.0.att.time_state") == NULL)
        return rwkv_errf(err, RWKV_ESHAPE, "%s: not a state file (no tensor "
                         "'blocks.0.att.time_state')", path);
    if (n_layer <= 0)
        return RWKV_OK;
    for (size_t i = 0; i < ckpt_count(ck); i++) {
        long l;
        if (sscanf(ckpt_at(ck, i)->name, "blocks.%ld.", &l) == 1 && l > maxl)
            maxl = l;
    }
    if (maxl + 1 != n_layer)
        return rwkv_errf(err, RWKV_ESHAPE, "%s: state file has %ld layers, the model has %d",
                         path, maxl + 1, n_layer);
    for (int l = 0; !v4 && l < n_layer; l++) {
        char name[STATE_NAME_MAX], sh[96];
        const ckpt_tensor *t;
        size_t k = 0;

        snprintf(name, sizeof name, "blocks.%d.att.time_state", l);
        if ((t = ckpt_find(ck, name)) == NULL)
            return rwkv_errf(err, RWKV_ESHAPE, "%s: missing tensor '%s'", path, name);
        if (t->ndim == 3 && t->shape[0] == n_head && t->shape[1] == head_size &&
            t->shape[2] == head_size)
            continue;
        k += (size_t)snprintf(sh, sizeof sh, "[");
        for (int d = 0; d < t->ndim && k < sizeof sh; d++)
            k += (size_t)snprintf(sh + k, sizeof sh - k, "%s%lld", d ? "," : "",
                                  (long long)t->shape[d]);
        if (k < sizeof sh)
            snprintf(sh + k, sizeof sh - k, "]");
        return rwkv_errf(err, RWKV_ESHAPE,
                         "%s: tensor '%s' has shape %s, expected [%d,%d,%d] for this model "
                         "(a state file for another model?)", path, name, sh, n_head, head_size,
                         head_size);
    }
    return RWKV_OK;
}

int
rwkv_state_file_fits(const char *path, const char *version, int n_layer, int n_head,
                     int head_size, rwkv_err *err)
{
    ckpt *ck = NULL;
    int rc;

    if ((rc = ckpt_open_index(path, NULL, &ck, err)) != RWKV_OK)
        return rc;
    rc = state_file_check(ck, path, version, n_layer, n_head, head_size, err);
    ckpt_close(ck);
    return rc;
}

int
rwkv_state_load_file(const rwkv_model *m, const char *path, rwkv_state *s, rwkv_err *err)
{
    ckpt *ck = NULL;
    size_t H = (size_t)m->H, N = (size_t)m->N, C = (size_t)m->C;
    size_t per = mdl_layer_state_len(m), hnn = H * N * N;
    float *tmp = NULL, *ts = NULL;
    int rc;

    if (s->len != m->info.state_len)
        return rwkv_errf(err, RWKV_EINVAL, "%s: the state does not belong to this model", path);
    rc = ckpt_open(path, NULL, &ck, err);
    if (rc != RWKV_OK)
        return rc;
    rc = state_file_check(ck, path, m->info.version, m->n_layer, m->H, m->N, err);
    if (rc != RWKV_OK)
        goto done;
    tmp = malloc(s->len * sizeof(float));
    ts = malloc((hnn + 1) * sizeof(float));   /* v4: hnn may be 0 */
    if (tmp == NULL || ts == NULL) {
        rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory");
        goto done;
    }
    memset(tmp, 0, s->len * sizeof(float));
    for (int l = 0; m->ver != MDL_V4 && l < m->n_layer; l++) {
        char name[STATE_NAME_MAX];
        const ckpt_tensor *t;
        float *kv = tmp + (size_t)l * per + C;

        snprintf(name, sizeof name, "blocks.%d.att.time_state", l);
        t = ckpt_find(ck, name);        /* there, of its shape: state_file_check */
        rc = ckpt_to_f32(t, ts, hnn, err);
        if (rc != RWKV_OK)
            goto done;
        /* a NaN or Inf would poison every later token without a word */
        for (size_t k = 0; k < hnn; k++)
            if (!isfinite(ts[k])) {
                rc = rwkv_errf(err, RWKV_EFORMAT,
                               "%s: tensor '%s' holds %s at element %zu (a damaged state file)",
                               path, name, isnan(ts[k]) ? "NaN" : "Inf", k);
                goto done;
            }
        /* kv = time_state.transpose(1, 2) */
        for (size_t h = 0; h < H; h++)
            for (size_t a = 0; a < N; a++)
                for (size_t b = 0; b < N; b++)
                    kv[h * N * N + a * N + b] = ts[h * N * N + b * N + a];
    }
    /* the token shifts (v4: aa/bb/pp) of a state rwkv-tui saved */
    rc = state_file_read_extras(m, ck, path, tmp, NULL, err);
    if (rc != RWKV_OK)
        goto done;
    mdl_state_touch(s);
    memcpy(s->data, tmp, s->len * sizeof(float));
    rc = RWKV_OK;
done:
    free(tmp);
    free(ts);
    ckpt_close(ck);
    return rc;
}
