/*
** freegen.c -- free generation outside the conversation (freegen.h).
**
** Two snapshots, as ChatRWKV keeps them: after the prompt (gen_0: state,
** logits) for ++, and where the last generation stopped (gen_1) for +++.
*/
#include "freegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
    int rc;

    if (n_out != NULL)
        *n_out = 0;
    if (text == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    text[0] = '\n';                     /* ChatRWKV: '\n' + prompt */
    memcpy(text + 1, prompt, len);
    rc = fgen_start_text(g, text, len + 1, sp, seed, emit, ud, cancel, n_out, err);
    free(text);
    return rc;
}

int
fgen_start_text(fgen *g, const char *text, size_t len, const rwkv_sampling *sp, uint64_t seed,
                fgen_emit emit, void *ud, volatile sig_atomic_t *cancel, size_t *n_out,
                rwkv_err *err)
{
    int32_t *ids = NULL;
    size_t nids = 0, chunk = sp->chunk > 0 ? (size_t)sp->chunk : 256;
    int rc;

    if (n_out != NULL)
        *n_out = 0;
    rc = tok_encode(g->t, text, len, &ids, &nids, err);
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

/* ---- ChatRWKV's "+" commands (freegen.h) ------------------------------------ */

static const struct {
    const char *word;       /* after the '+', lower case */
    int         cmd;
} fgen_cmds[] = {
    { "gen", FGEN_CMD_GEN }, { "i", FGEN_CMD_INSTRUCT }, { "qq", FGEN_CMD_QQ },
    { "qa", FGEN_CMD_QA }, { "reset", FGEN_CMD_RESET }, { "prompt", FGEN_CMD_PROMPT },
};

static int
is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

int
fgen_cmd_parse(const char *line, const char **arg, size_t *arg_len)
{
    size_t n = strlen(line), w = 1;
    int cmd = FGEN_CMD_NONE;

    while (is_blank(*line)) {
        line++;
        n--;
    }
    while (n > 0 && is_blank(line[n - 1]))
        n--;
    if (n == 0 || line[0] != '+')
        return FGEN_CMD_NONE;
    if (strspn(line, "+") == n && n <= 3) {
        static const int pluses[4] = { 0, FGEN_CMD_REGEN, FGEN_CMD_AGAIN, FGEN_CMD_MORE };
        cmd = pluses[n];
    } else {
        while (w < n && ((line[w] >= 'a' && line[w] <= 'z') || (line[w] >= 'A' && line[w] <= 'Z')))
            w++;
        if (w < n && !is_blank(line[w]))
            return FGEN_CMD_NONE;          /* "+1", "+gen:", "+gentle" */
        for (size_t i = 0; i < sizeof fgen_cmds / sizeof fgen_cmds[0]; i++)
            if (strlen(fgen_cmds[i].word) == w - 1 &&
                strncasecmp(line + 1, fgen_cmds[i].word, w - 1) == 0)
                cmd = fgen_cmds[i].cmd;
        if (cmd == FGEN_CMD_NONE)
            return FGEN_CMD_NONE;
    }
    if (cmd == FGEN_CMD_REGEN || cmd == FGEN_CMD_AGAIN || cmd == FGEN_CMD_MORE)
        w = n;
    while (w < n && is_blank(line[w]))
        w++;
    if (arg != NULL)
        *arg = line + w;
    if (arg_len != NULL)
        *arg_len = n - w;
    return cmd;
}

const char *
fgen_cmd_name(int cmd)
{
    switch (cmd) {
    case FGEN_CMD_GEN:      return "+gen";
    case FGEN_CMD_INSTRUCT: return "+i";
    case FGEN_CMD_QQ:       return "+qq";
    case FGEN_CMD_QA:       return "+qa";
    case FGEN_CMD_MORE:     return "+++";
    case FGEN_CMD_AGAIN:    return "++";
    case FGEN_CMD_REGEN:    return "+";
    case FGEN_CMD_RESET:    return "+reset";
    case FGEN_CMD_PROMPT:   return "+prompt";
    default:                return "";
    }
}

/* +i's text: "\r\n" then "\n\n" made "\n", each in one pass left to right
** (Python's str.replace, as ChatRWKV does it), in place; the new length. */
static size_t
instruct_text(char *s, size_t n)
{
    static const char *const pairs[2] = { "\r\n", "\n\n" };
    for (int p = 0; p < 2; p++) {
        size_t o = 0;
        for (size_t i = 0; i < n; i++) {
            if (i + 1 < n && s[i] == pairs[p][0] && s[i + 1] == pairs[p][1]) {
                s[o++] = '\n';
                i++;
            } else {
                s[o++] = s[i];
            }
        }
        n = o;
    }
    return n;
}

char *
fgen_cmd_prompt(int cmd, const char *arg, size_t arg_len, const char *user, const char *bot,
                size_t *len)
{
    static const char instruct_head[] =
        "\nBelow is an instruction that describes a task. Write a response that "
        "appropriately completes the request.\n\n# Instruction:\n";
    char *copy = malloc(arg_len + 1), *t, *out;
    const char *head = "\n", *tail = "", *mid = "";
    size_t n, cap;

    *len = 0;
    if (copy == NULL)
        return NULL;
    memcpy(copy, arg, arg_len);
    copy[arg_len] = '\0';
    t = fgen_prompt_text(copy, &n);
    if (n == 0) {
        free(copy);
        return NULL;
    }
    if (cmd == FGEN_CMD_INSTRUCT) {
        n = instruct_text(t, n);
        head = instruct_head;
        tail = "\n\n# Response:\n";
    } else if (cmd == FGEN_CMD_QQ) {
        head = "\nQ: ";
        tail = "\nA:";
    } else if (cmd == FGEN_CMD_QA) {
        head = user;
        mid = ": ";
        tail = "\n\n";
    }
    cap = strlen(head) + strlen(mid) + n + strlen(tail) + (cmd == FGEN_CMD_QA ? strlen(bot) + 1 : 0);
    if ((out = malloc(cap + 1)) != NULL) {
        snprintf(out, cap + 1, "%s%s%.*s%s%s%s", head, mid, (int)n, t, tail,
                 cmd == FGEN_CMD_QA ? bot : "", cmd == FGEN_CMD_QA ? ":" : "");
        *len = cap;
    }
    free(copy);
    return out;
}
