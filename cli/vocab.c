/*
** vocab.c -- where the World vocabulary comes from, and picking the
** tokenizer that matches a model.
**
** Search order (first hit wins):
**   1. --vocab P            used as given
**   2. $RWKV_VOCAB          used as given
**   3. <model dir>/rwkv_vocab_v20230424.txt       if it exists
**   4. $XDG_DATA_HOME/rwkv-tui/rwkv_vocab_v20230424.txt (XDG_DATA_HOME
**      defaults to ~/.local/share)                if it exists
** An explicit path (1, 2) is not checked here so that a typo is reported
** by tok_open_world as "P: cannot open vocabulary: ..." rather than being
** silently replaced by a later candidate.
*/
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int
is_file(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Copy S into OUT; 0, or -1 (WHY says so) if it does not fit. */
static int
put(char *out, size_t cap, const char *s, char *why, size_t why_cap)
{
    if (strlen(s) >= cap) {
        snprintf(why, why_cap, "vocabulary path too long: %.60s...", s);
        return -1;
    }
    strcpy(out, s);
    return 0;
}

/* The XDG data directory for rwkv-tui into BUF; "" if $HOME is unknown too. */
static void
xdg_dir(char *buf, size_t cap)
{
    const char *x = getenv("XDG_DATA_HOME"), *h = getenv("HOME");

    int n = -1;

    if (x != NULL && x[0] == '/')
        n = snprintf(buf, cap, "%s/rwkv-tui", x);
    else if (h != NULL && *h)
        n = snprintf(buf, cap, "%s/.local/share/rwkv-tui", h);
    if (n < 0 || (size_t)n >= cap)
        buf[0] = '\0';
}

int
cli_vocab_lookup(const char *flag_value, const char *model_path, char *out, size_t cap,
                 char *why, size_t why_cap)
{
    const char *env = getenv("RWKV_VOCAB");
    char cand[4096], dir[4096];

    if (flag_value != NULL && *flag_value)
        return put(out, cap, flag_value, why, why_cap) < 0 ? 1 : 0;
    if (env != NULL && *env)
        return put(out, cap, env, why, why_cap) < 0 ? 1 : 0;
    if (model_path != NULL && *model_path) {
        const char *slash = strrchr(model_path, '/');
        int n = slash ? (int)(slash - model_path) : 1;
        /* "dir/m.pth" -> "dir/NAME", "/m" -> "/NAME", "m" -> "./NAME" */
        if (snprintf(cand, sizeof cand, "%.*s/%s", n, slash ? model_path : ".", CLI_VOCAB_NAME) <
                (int)sizeof cand &&
            is_file(cand))
            return put(out, cap, cand, why, why_cap) < 0 ? 1 : 0;
    }
    xdg_dir(dir, sizeof dir);
    if (dir[0]) {
        if (snprintf(cand, sizeof cand, "%s/%s", dir, CLI_VOCAB_NAME) < (int)sizeof cand &&
            is_file(cand))
            return put(out, cap, cand, why, why_cap) < 0 ? 1 : 0;
    }
    snprintf(why, why_cap, "no World vocabulary: looked at --vocab, $RWKV_VOCAB, %s%s/; get %s "
             "from the 'rwkv' pip package (rwkv/%s) or the ChatRWKV GitHub repo and pass "
             "--vocab P or put it in that folder",
             model_path ? "the model's folder, " : "", dir[0] ? dir : "$XDG_DATA_HOME/rwkv-tui",
             CLI_VOCAB_NAME, CLI_VOCAB_NAME);
    return 1;
}

int
cli_find_vocab(const char *flag_value, const char *model_path, char *out, size_t cap)
{
    char why[1024];

    if (cli_vocab_lookup(flag_value, model_path, out, cap, why, sizeof why) == 0)
        return 0;
    cli_errorf("%s", why);
    return 1;
}

int
cli_open_tokenizer(const struct cli_opts *o, int n_vocab, tok **out)
{
    char path[4096];
    rwkv_err err;

    *out = NULL;
    if (n_vocab == 256)
        return tok_create_bytes(out, &err) == RWKV_OK ? 0 : cli_fail(&err);
    if (cli_find_vocab(o->vocab, o->model, path, sizeof path) != 0)
        return 1;
    if (tok_open_world(path, out, &err) != RWKV_OK)
        return cli_fail(&err);
    if (n_vocab > 0 && tok_vocab_size(*out) > (size_t)n_vocab) {
        cli_errorf("%s has %zu tokens but the model has only %d outputs (wrong vocabulary?)", path,
                   tok_vocab_size(*out), n_vocab);
        tok_close(*out);
        *out = NULL;
        return 1;
    }
    return 0;
}
