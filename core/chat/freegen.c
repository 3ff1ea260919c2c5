/*
** freegen.c -- free generation outside the conversation (freegen.h).
**
** Two snapshots, as ChatRWKV keeps them: after the prompt (gen_0: state,
** logits) for ++, and where the last generation stopped (gen_1) for +++.
*/
#include "freegen.h"

#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "sampler.h"

struct fgen {
    rwkv_model *m;
    const tok  *t;
    size_t      nv;
    rwkv_state *start, *cur, *after_prompt;
    float      *logits, *logits_prompt, *work;
    samp       *sp;
    rng         r;
    int         have_prompt;   /* after_prompt valid (a +gen ran) */
    tok_stream  ts;
};

int
fgen_create(rwkv_model *m, const tok *t, const rwkv_state *start, fgen **out, rwkv_err *err)
{
    fgen *g = calloc(1, sizeof *g);
    int rc;

    *out = NULL;
    if (g == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    g->m = m;
    g->t = t;
    g->nv = (size_t)rwkv_model_info(m)->n_vocab;
    if ((rc = rwkv_state_create(m, &g->start, err)) != RWKV_OK ||
        (rc = rwkv_state_create(m, &g->cur, err)) != RWKV_OK ||
        (rc = rwkv_state_create(m, &g->after_prompt, err)) != RWKV_OK ||
        (rc = samp_create(g->nv, &g->sp, err)) != RWKV_OK)
        goto fail;
    g->logits = malloc(g->nv * sizeof(float));
    g->logits_prompt = malloc(g->nv * sizeof(float));
    g->work = malloc(g->nv * sizeof(float));
    if (g->logits == NULL || g->logits_prompt == NULL || g->work == NULL) {
        rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory");
        goto fail;
    }
    if (start != NULL)
        rwkv_state_copy(g->start, start);
    *out = g;
    return RWKV_OK;
fail:
    fgen_destroy(g);
    return rc;
}

void
fgen_destroy(fgen *g)
{
    if (g == NULL)
        return;
    rwkv_state_destroy(g->start);
    rwkv_state_destroy(g->cur);
    rwkv_state_destroy(g->after_prompt);
    samp_destroy(g->sp);
    free(g->logits);
    free(g->logits_prompt);
    free(g->work);
    free(g);
}

/* Sample from g->logits, feed, repeat: up to sp->max_tokens tokens. */
static int
fgen_run(fgen *g, const rwkv_sampling *sp, fgen_emit emit, void *ud,
         volatile sig_atomic_t *cancel, size_t *n_out, rwkv_err *err)
{
    char text[256];
    size_t n = 0;
    int rc = RWKV_OK;
    double pres = samp_f2d(sp->presence), freq = samp_f2d(sp->frequency);
    double temp = samp_f2d(sp->temperature), top_p = samp_f2d(sp->top_p);
    double decay = samp_f2d(sp->decay);

    while (n < (size_t)(sp->max_tokens > 0 ? sp->max_tokens : 1)) {
        int32_t id;
        long k;

        if (cancel != NULL && *cancel)
            break;
        memcpy(g->work, g->logits, g->nv * sizeof(float));
        samp_apply_penalties(g->sp, g->work, pres, freq);
        id = samp_sample(g->sp, g->work, temp, top_p, sp->top_k, &g->r);
        if (id < 0) {
            rc = rwkv_errf(err, RWKV_EINVAL, "no token can be sampled (all logits -inf/NaN)");
            break;
        }
        rc = rwkv_eval(g->m, &id, 1, g->cur, g->logits, err);
        if (rc != RWKV_OK)
            break;
        samp_update_penalties(g->sp, id, decay);
        n++;
        k = tok_stream_push(&g->ts, g->t, id, text, sizeof text);
        if (k > 0)
            emit(ud, text, (size_t)k);
    }
    /* an incomplete character at the end waits for +++ (a new +gen or ++
    ** drops it), so a continued generation reads as one */
    if (n_out != NULL)
        *n_out = n;
    return rc;
}

char *
fgen_prompt_text(char *s, size_t *len)
{
    size_t n = 0;

    for (const char *q = s; *q; q++) {
        if (q[0] == '\\' && q[1] == 'n') {
            s[n++] = '\n';
            q++;
        } else {
            s[n++] = *q;
        }
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    s[n] = '\0';
    *len = n - strspn(s, " \t");
    return s + strspn(s, " \t");
}

int
fgen_start(fgen *g, const char *prompt, size_t len, const rwkv_sampling *sp, uint64_t seed,
           fgen_emit emit, void *ud, volatile sig_atomic_t *cancel, size_t *n_out,
           rwkv_err *err)
{
    char *text = malloc(len + 2);
    int32_t *ids = NULL;
    size_t nids = 0, chunk = sp->chunk > 0 ? (size_t)sp->chunk : 256;
    int rc;

    if (n_out != NULL)
        *n_out = 0;
    if (text == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    text[0] = '\n';                     /* ChatRWKV: '\n' + prompt */
    memcpy(text + 1, prompt, len);
    rc = tok_encode(g->t, text, len + 1, &ids, &nids, err);
    free(text);
    if (rc != RWKV_OK)
        return rc;
    rwkv_state_copy(g->cur, g->start);
    g->have_prompt = 0;
    for (size_t i = 0; rc == RWKV_OK && i < nids; i += chunk) {
        size_t n = nids - i < chunk ? nids - i : chunk;
        if (cancel != NULL && *cancel) {
            free(ids);
            return rwkv_errf(err, RWKV_ECANCEL, "cancelled while the prompt was fed");
        }
        rc = rwkv_eval(g->m, ids + i, n, g->cur, g->logits, err);
    }
    free(ids);
    if (rc != RWKV_OK)
        return rc;
    rwkv_state_copy(g->after_prompt, g->cur);
    memcpy(g->logits_prompt, g->logits, g->nv * sizeof(float));
    g->have_prompt = 1;
    tok_stream_init(&g->ts);
    rng_seed(&g->r, seed);
    samp_reset_penalties(g->sp);
    return fgen_run(g, sp, emit, ud, cancel, n_out, err);
}

int
fgen_more(fgen *g, const rwkv_sampling *sp, fgen_emit emit, void *ud,
          volatile sig_atomic_t *cancel, size_t *n_out, rwkv_err *err)
{
    if (n_out != NULL)
        *n_out = 0;
    if (!g->have_prompt)
        return rwkv_errf(err, RWKV_EINVAL, "nothing to continue: start with +gen TEXT");
    return fgen_run(g, sp, emit, ud, cancel, n_out, err);
}

int
fgen_again(fgen *g, const rwkv_sampling *sp, uint64_t seed, fgen_emit emit, void *ud,
           volatile sig_atomic_t *cancel, size_t *n_out, rwkv_err *err)
{
    if (n_out != NULL)
        *n_out = 0;
    if (!g->have_prompt)
        return rwkv_errf(err, RWKV_EINVAL, "nothing to generate again: start with +gen TEXT");
    rwkv_state_copy(g->cur, g->after_prompt);
    memcpy(g->logits, g->logits_prompt, g->nv * sizeof(float));
    tok_stream_init(&g->ts);
    rng_seed(&g->r, seed);
    samp_reset_penalties(g->sp);
    return fgen_run(g, sp, emit, ud, cancel, n_out, err);
}
