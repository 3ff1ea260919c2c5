/*
** cmd_eval.c -- `rwkv-tui eval`: run the model on tokens and write the
** logits (little-endian float32) of the last forward call, or of every call
** with --all.  Calls are made like the reference's chat loop:
**     while tokens: out, state = forward(tokens[:N], state); tokens = tokens[N:]
** with N = --chunk (default 256), or one token per call with --rnn.
*/
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/io/ckpt.h"
#include "../core/io/fileio.h"
#include "../core/rwkv.h"
#include "../core/text/tokenizer.h"

/* Default tokens per forward call: the chat demo's CHUNK_LEN. */
#define EVAL_DEFAULT_CHUNK 256

static void
eval_help(FILE *f)
{
    fprintf(f,
            "usage: " PROG " eval (--model PATH | --demo) (--tokens 1,2,3 | --text T)\n"
            "                     --out FILE [--state S] [--rnn | --chunk N] [--all]\n"
            "                     [--state-out FILE]\n\n"
            "Run the model on the tokens like the reference's forward(tokens, state) and\n"
            "write little-endian float32 logits to FILE: those of the last forward call, or\n"
            "with --all one row per call.\n\n"
            "Options:\n"
            "  --tokens LIST       comma-separated token ids\n"
            "  --text T            text, encoded with the model's tokenizer (byte-level for\n"
            "                      vocab-256 models, else the World vocabulary, see --vocab)\n"
            "  --rnn               one token per forward call (the single-token path)\n"
            "  --chunk N           N tokens per forward call (default %d)\n"
            "  --all               write the logits of every call, not only the last\n"
            "  --out FILE          where to write the logits ('-' = stdout); a file is\n"
            "                      written whole or not at all (temporary file + rename)\n"
            "  --state-out FILE    write the final state (float32, the reference's list\n"
            "                      order; '-' = stdout)\n",
            EVAL_DEFAULT_CHUNK);
    cli_opts_help(f, 0);
    cli_opts_help_client(f, 1);
}

/* Parse "1,2,3" into *OUT (malloc'ed); -1 with a message on error. */
static int
eval_parse_tokens(const char *s, int32_t **out, size_t *n)
{
    size_t cap = 16, k = 0;
    int32_t *v = malloc(cap * sizeof *v);
    const char *p = s;

    if (v == NULL) {
        cli_errorf("out of memory");
        return -1;
    }
    for (;;) {
        const char *end;
        long long x;
        while (*p == ' ')
            p++;
        if (cli_strtoll(p, &x, &end) != 0 || x < 0 || x > INT32_MAX) {
            cli_errorf("option --tokens: '%s' is not a comma-separated list of token ids "
                       "(bad entry at position %d)", s, (int)(p - s) + 1);
            free(v);
            return -1;
        }
        if (k == cap) {
            int32_t *nv = realloc(v, 2 * cap * sizeof *v);
            if (nv == NULL) {
                free(v);
                cli_errorf("out of memory");
                return -1;
            }
            v = nv;
            cap *= 2;
        }
        v[k++] = (int32_t)x;
        p = end;
        while (*p == ' ')
            p++;
        if (*p == '\0')
            break;
        if (*p != ',') {
            cli_errorf("option --tokens: '%s' is not a comma-separated list of token ids "
                       "(unexpected '%c' at position %d)", s, *p, (int)(p - s) + 1);
            free(v);
            return -1;
        }
        p++;
    }
    *out = v;
    *n = k;
    return 0;
}

/* Write N floats to PATH ("-" = stdout, checked at the end by
** cli_stdout_close): a fresh temporary file renamed over PATH when
** complete (core/io/fileio.h), so PATH is never left half-written; a
** symlink at PATH is written through (rwkv_output_target). */
static int
eval_write(const char *path, const float *v, size_t n)
{
    rwkv_err err;

    if (strcmp(path, "-") == 0) {
        (void)cli_write(stdout, v, n * sizeof(float));
        return 0;
    }
    if (rwkv_write_file(path, v, n * sizeof(float), 0644, 0, &err) != RWKV_OK) {
        cli_fail(&err);
        return -1;
    }
    return 0;
}

/* An input given as PATH, when it is there (one that is not is the
** loader's error to report, not this); else NULL. */
static const char *
present(const char *path)
{
    return path != NULL && access(path, F_OK) == 0 ? path : NULL;
}

/* --out and --state-out pass store_output_check (never an input -- the
** model, the --state file, the vocabulary --text reads or --vocab names,
** the --config file --, the session database or any SQLite file) and are
** not one file: 0, or -1 after one line. */
static int
eval_check_outputs(const struct cli_opts *o, const char *out, const char *state_out,
                   int text)
{
    const char *outs[2] = { out, state_out }, *names[2] = { "--out", "--state-out" };
    char buf[4096], vocab[4096], why[1024], wm[4200], ws[4200], wv[4200], wc[4200];
    const char *model = o->demo || o->model == NULL
                            ? NULL : ckpt_file_name(o->model, buf, sizeof buf);
    store_input in[4];
    struct stat st;
    rwkv_err err;

    snprintf(wm, sizeof wm, "the model (--model %s)", o->model ? o->model : "");
    snprintf(ws, sizeof ws, "the state file (--state %s)", o->state ? o->state : "");
    snprintf(wc, sizeof wc, "the config file (--config %s)", o->config ? o->config : "");
    in[0] = (store_input){ present(model), wm };
    in[1] = (store_input){ present(o->state), ws };
    in[2] = (store_input){ present(o->config), wc };
    in[3] = (store_input){ NULL, "" };
    /* the vocabulary: the one --text would read, or one named */
    if ((text || o->vocab != NULL) &&
        cli_vocab_lookup(o->vocab, o->model, vocab, sizeof vocab, why, sizeof why) == 0) {
        if (o->vocab != NULL)
            snprintf(wv, sizeof wv, "the vocabulary (--vocab %s)", o->vocab);
        else
            snprintf(wv, sizeof wv, "the vocabulary (%s)", vocab);
        in[3] = (store_input){ present(vocab), wv };
    }
    for (int k = 0; k < 2; k++)
        if (store_output_check(NULL, outs[k], in, 4, &err) != RWKV_OK) {
            cli_errorf("eval: %s %s", names[k], err.msg);
            return -1;
        }
    /* (one character device for both, /dev/null, is fine: nothing is replaced) */
    if (rwkv_same_file(state_out, out) || (state_out != NULL && strcmp(out, "-") != 0 &&
                                          strcmp(state_out, out) == 0 &&
                                          !(stat(out, &st) == 0 && S_ISCHR(st.st_mode)))) {
        cli_errorf("eval: --state-out %s is the same file as --out %s: give two files",
                   state_out, out);
        return -1;
    }
    return 0;
}

int
cmd_eval(int argc, char **argv)
{
    struct cli_opts o;
    const char *tokens_s = NULL, *text = NULL, *out = NULL, *state_out = NULL, *chunk_s = NULL;
    int rnn = 0, all = 0, rc = 1;
    long chunk = EVAL_DEFAULT_CHUNK;
    rwkv_open_opts oo;
    rwkv_model *m = NULL;
    rwkv_state *s = NULL;
    rwkv_err err;
    int32_t *ids = NULL;
    size_t n = 0, V, ncalls, row = 0;
    float *logits = NULL;
    tok *tk = NULL;
    const struct cli_opt tab[] = {
        { "rnn", CLI_OPT_FLAG, &rnn, 0, 0 },
        { "all", CLI_OPT_FLAG, &all, 0, 0 },
        { "tokens", CLI_OPT_STR, &tokens_s, 0, 0 },
        { "text", CLI_OPT_STR, &text, 0, 0 },
        { "out", CLI_OPT_PATH, &out, 0, 0 },
        { "state-out", CLI_OPT_PATH, &state_out, 0, 0 },
        { NULL, CLI_OPT_FLAG, NULL, 0, 0 },
    };

    cli_opts_init(&o);
    o.samp_ok = PARAMS_BIT(params_find("chunk"));   /* it samples nothing */
    if ((rc = cli_parse_args(argc, argv, "eval", eval_help, tab, NULL, &o)) != CLI_ARGS_GO)
        return rc;
    rc = 1;
    /* --chunk is a common option (params table: the chat's CHUNK_LEN) */
    if (o.samp_set & PARAMS_BIT(params_find("chunk"))) {
        chunk = o.samp.chunk;
        chunk_s = "set";
    }
    if (rnn && chunk_s != NULL) {
        cli_errorf("eval: --rnn and --chunk exclude each other");
        return 2;
    }
    if (rnn)
        chunk = 1;
    if ((tokens_s == NULL) == (text == NULL)) {
        cli_errorf("eval: give exactly one of --tokens and --text");
        return 2;
    }
    if (text != NULL && *text == '\0') {
        cli_errorf("eval: --text is empty");   /* a usage error, as generate's --prompt "" */
        return 2;
    }
    if (out == NULL) {
        cli_errorf("eval: --out FILE is required");
        return 2;
    }
    if (!o.demo && o.model == NULL) {
        cli_errorf("eval: --model PATH (or --demo) is required");
        return 2;
    }
    if (eval_check_outputs(&o, out, state_out, text != NULL) != 0)
        return 2;
    if (tokens_s != NULL && eval_parse_tokens(tokens_s, &ids, &n) < 0)
        return 2;

    memset(&oo, 0, sizeof oo);
    oo.strategy = o.strategy;
    oo.n_threads = o.threads;
    if ((o.demo ? rwkv_model_open_demo(RWKV_DEMO_SEED, &oo, &m, &err)
                : rwkv_model_open(o.model, &oo, &m, &err)) != RWKV_OK) {
        cli_fail(&err);
        goto done;
    }
    cli_strategy_note(rwkv_model_info(m));
    V = (size_t)rwkv_model_info(m)->n_vocab;
    if (text != NULL) {
        if (cli_open_tokenizer(&o, (int)V, &tk) != 0)
            goto done;
        if (tok_encode(tk, text, strlen(text), &ids, &n, &err) != RWKV_OK) {
            cli_fail(&err);
            goto done;
        }
    }
    if (n == 0) {
        cli_errorf("eval: no tokens to evaluate");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if ((size_t)ids[i] >= V) {
            cli_errorf("eval: token id %ld (position %zu) is out of range: the model's "
                       "vocabulary has %zu entries", (long)ids[i], i + 1, V);
            goto done;
        }
    if (rwkv_state_create(m, &s, &err) != RWKV_OK) {
        cli_fail(&err);
        goto done;
    }
    if (o.state != NULL && rwkv_state_load_file(m, o.state, s, &err) != RWKV_OK) {
        cli_fail(&err);
        goto done;
    }
    ncalls = (n + (size_t)chunk - 1) / (size_t)chunk;
    logits = malloc((all ? ncalls : 1) * V * sizeof(float));
    if (logits == NULL) {
        cli_errorf("out of memory");
        goto done;
    }
    for (size_t pos = 0; pos < n; pos += (size_t)chunk) {
        size_t k = n - pos < (size_t)chunk ? n - pos : (size_t)chunk;
        if (rwkv_eval(m, ids + pos, k, s, logits + row * V, &err) != RWKV_OK) {
            cli_fail(&err);
            goto done;
        }
        if (all)
            row++;
    }
    if (eval_write(out, logits, (all ? ncalls : 1) * V) < 0)
        goto done;
    if (state_out != NULL && eval_write(state_out, rwkv_state_cdata(s), rwkv_state_len(s)) < 0)
        goto done;
    rc = 0;
done:
    free(logits);
    free(ids);
    tok_close(tk);
    rwkv_state_destroy(s);
    rwkv_model_close(m);
    return cli_stdout_close(rc);
}
