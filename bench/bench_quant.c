/*
** bench_quant.c -- accuracy of the quantized CPU strategies against
** "cpu fp32" on the fixture models (`make bench-quant`).
**
** For every fixture model (v4, v5.0, v5.1, v5.2, v6, v7; fp32 and bf16
** files) and each strategy (default "cpu fp32i8" and "cpu fp32i4"), a few
** prompts are fed token by token (the decode path: every position's logits
** compared) and in one call (the prefill path: the last logits compared,
** counted as one more position).  Per model and strategy it prints the
** largest absolute logit error, the RMS logit error, the mean and largest
** KL(p_fp32 || p_quant) of the softmax distributions (nats), and how often
** the arg-max token agrees -- a markdown table (docs/differences.md).
** Tokens are the prompts' bytes (+ 1 for World-vocabulary models, whose ids
** 1..256 are the single bytes).
**
** usage: bench_quant [--strategy S]... [FIXTURES_DIR]
**   default directory: $RWKV_FIXTURES, else ../shared/fixtures
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/chat/sampler.h"
#include "../core/rwkv.h"

#define MAX_STRATS 8

static const char *const bq_models[] = {
    "models/tiny-4v0-fp32.pth",    "models/tiny-4v0-bf16.pth",  "models/rand-v4-fp32.pth",
    "models/tiny-5v1-fp32.pth",    "models/tiny-5v1-bf16.pth",  "models/rand-v5.1-fp32.pth",
    "models/tiny-5v2-fp32.pth",    "models/tiny-5v2-bf16.pth",  "models/tiny-6v0-fp32.pth",
    "models/tiny-6v0-bf16.pth",    "models/tiny-7v0-fp32.pth",  "models/tiny-7v0-bf16.pth",
    "models/rand-7v0-h2-bf16.pth", "models/world-7v0-rand-bf16.pth",
};

static const char *const bq_prompts[] = {
    "The quick brown fox jumps over the lazy dog. ",
    "User: What is the capital of France?\n\nAssistant:",
    "int main(void) { return 0; }\n",
};

struct bq_stat {
    double max_abs, sum_sq, kl_sum, kl_max;
    long   n_logits, n_pos, top1_same;
};

static rwkv_model *
bq_open(const char *path, const char *strategy)
{
    rwkv_open_opts oo;
    rwkv_model *m = NULL;
    rwkv_err err;

    memset(&oo, 0, sizeof oo);
    oo.strategy = strategy;
    oo.weight_cache = -1;
    if (rwkv_model_open(path, &oo, &m, &err) != RWKV_OK) {
        fprintf(stderr, "bench_quant: %s under '%s': %s\n", path, strategy, err.msg);
        return NULL;
    }
    return m;
}

/* log-sum-exp of N logits */
static double
bq_lse(const float *l, size_t n)
{
    double mx = l[0], s = 0;

    for (size_t i = 1; i < n; i++)
        mx = l[i] > mx ? l[i] : mx;
    for (size_t i = 0; i < n; i++)
        s += exp(l[i] - mx);
    return mx + log(s);
}

/* One position: reference logits A against B. */
static void
bq_add(struct bq_stat *st, const float *a, const float *b, size_t n)
{
    double la = bq_lse(a, n), lb = bq_lse(b, n), kl = 0;

    for (size_t i = 0; i < n; i++) {
        double d = (double)b[i] - a[i], pa = exp(a[i] - la);
        st->max_abs = fabs(d) > st->max_abs ? fabs(d) : st->max_abs;
        st->sum_sq += d * d;
        kl += pa * ((a[i] - la) - (b[i] - lb));
    }
    kl = kl < 0 ? 0 : kl;   /* rounding */
    st->kl_sum += kl;
    st->kl_max = kl > st->kl_max ? kl : st->kl_max;
    st->n_logits += (long)n;
    st->n_pos++;
    st->top1_same += samp_argmax(a, n) == samp_argmax(b, n);
}

/* Prompt TOK [n] through REF and Q: token by token, then in one call. */
static int
bq_prompt(rwkv_model *ref, rwkv_model *q, const int32_t *tok, size_t n, float *la, float *lb,
          struct bq_stat *st)
{
    size_t V = (size_t)rwkv_model_info(ref)->n_vocab;
    rwkv_state *sa = NULL, *sb = NULL;
    rwkv_err err;
    int ok = rwkv_state_create(ref, &sa, &err) == RWKV_OK &&
             rwkv_state_create(q, &sb, &err) == RWKV_OK;

    for (size_t t = 0; ok && t < n; t++) {
        ok = rwkv_eval(ref, &tok[t], 1, sa, la, &err) == RWKV_OK &&
             rwkv_eval(q, &tok[t], 1, sb, lb, &err) == RWKV_OK;
        if (ok)
            bq_add(st, la, lb, V);
    }
    if (ok) {
        rwkv_state_reset(ref, sa);
        rwkv_state_reset(q, sb);
        ok = rwkv_eval(ref, tok, n, sa, la, &err) == RWKV_OK &&
             rwkv_eval(q, tok, n, sb, lb, &err) == RWKV_OK;
        if (ok)
            bq_add(st, la, lb, V);
    }
    if (!ok)
        fprintf(stderr, "bench_quant: eval: %s\n", err.msg);
    rwkv_state_destroy(sa);
    rwkv_state_destroy(sb);
    return ok;
}

static void
bq_model(const char *dir, const char *rel, const char *const *strats, int ns)
{
    char path[2048];
    rwkv_model *ref;
    float *la, *lb;
    size_t V;

    snprintf(path, sizeof path, "%s/%s", dir, rel);
    if ((ref = bq_open(path, "cpu fp32")) == NULL)
        return;
    V = (size_t)rwkv_model_info(ref)->n_vocab;
    la = malloc(V * sizeof *la);
    lb = malloc(V * sizeof *lb);
    for (int s = 0; s < ns && la && lb; s++) {
        struct bq_stat st;
        rwkv_model *q = bq_open(path, strats[s]);
        int ok = q != NULL;

        memset(&st, 0, sizeof st);
        for (size_t p = 0; ok && p < sizeof bq_prompts / sizeof bq_prompts[0]; p++) {
            size_t n = strlen(bq_prompts[p]);
            int32_t tok[256];
            for (size_t i = 0; i < n && i < 256; i++)
                tok[i] = (int32_t)(unsigned char)bq_prompts[p][i] + (V > 256 ? 1 : 0);
            ok = bq_prompt(ref, q, tok, n < 256 ? n : 256, la, lb, &st);
        }
        if (ok)
            printf("| %s | %s | %s | %.3g | %.3g | %.2e | %.2e | %.1f%% |\n", rel + 7,
                   rwkv_model_info(ref)->version, strats[s], st.max_abs,
                   sqrt(st.sum_sq / (double)st.n_logits), st.kl_sum / (double)st.n_pos,
                   st.kl_max, 100.0 * (double)st.top1_same / (double)st.n_pos);
        fflush(stdout);
        rwkv_model_close(q);
    }
    free(la);
    free(lb);
    rwkv_model_close(ref);
}

int
main(int argc, char **argv)
{
    const char *strats[MAX_STRATS];
    const char *dir = getenv("RWKV_FIXTURES");
    int ns = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--strategy") == 0 && i + 1 < argc && ns < MAX_STRATS)
            strats[ns++] = argv[++i];
        else if (argv[i][0] != '-')
            dir = argv[i];
        else {
            fprintf(stderr, "usage: bench_quant [--strategy S]... [FIXTURES_DIR]\n");
            return 2;
        }
    }
    if (ns == 0) {
        strats[ns++] = "cpu fp32i8";
        strats[ns++] = "cpu fp32i4";
    }
    if (dir == NULL || *dir == '\0')
        dir = "../shared/fixtures";
    printf("| model | version | strategy | max abs logit err | RMS logit err | mean KL | max KL "
           "| top-1 same |\n|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof bq_models / sizeof bq_models[0]; i++)
        bq_model(dir, bq_models[i], strats, ns);
    return 0;
}
