/*
** opts.c -- parsing of the common options shared by every subcommand.
*/
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void
cli_errorf(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, PROG ": ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int
cli_fail(const rwkv_err *err)
{
    cli_errorf("%s", err->msg[0] ? err->msg : rwkv_strerror(err->code));
    return 1;
}

void
cli_opts_init(struct cli_opts *o)
{
    memset(o, 0, sizeof *o);
    params_defaults(&o->samp);
}

int
cli_take(int argc, char **argv, int *i, const char *name, const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(name);

    if (strncmp(a, "--", 2) != 0 || strncmp(a + 2, name, n) != 0)
        return 0;
    if (a[2 + n] == '=') {
        *val = a + 3 + n;
        (*i)++;
        return 1;
    }
    if (a[2 + n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        cli_errorf("option --%s needs a value", name);
        return -1;
    }
    *val = argv[*i + 1];
    *i += 2;
    return 1;
}

int
cli_int(const char *opt, const char *s, long min, long max, long *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max) {
        cli_errorf("option --%s: '%s' is not an integer in [%ld, %ld]", opt, s, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int
cli_opts_parse(struct cli_opts *o, int argc, char **argv, int *i)
{
    static const struct {
        const char *name;
        size_t      off;
    } strs[] = {
        { "model", offsetof(struct cli_opts, model) },
        { "strategy", offsetof(struct cli_opts, strategy) },
        { "vocab", offsetof(struct cli_opts, vocab) },
        { "state", offsetof(struct cli_opts, state) },
        { "db", offsetof(struct cli_opts, db) },
        { "config", offsetof(struct cli_opts, config) },
        { "theme", offsetof(struct cli_opts, theme) },
    };
    const char *v;
    int r;

    if (strcmp(argv[*i], "--demo") == 0) {
        o->demo = 1;
        (*i)++;
        return 1;
    }
    if (strcmp(argv[*i], "--no-weight-cache") == 0) {
        /* the same switch as the environment variable, so every model this
         * process opens (commands, TUI model switches) honours it */
        if (setenv("RWKV_WEIGHT_CACHE", "0", 1) != 0) {
            cli_errorf("option --no-weight-cache: cannot set RWKV_WEIGHT_CACHE");
            return -1;
        }
        (*i)++;
        return 1;
    }
    for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++) {
        r = cli_take(argc, argv, i, strs[k].name, &v);
        if (r != 0) {
            if (r > 0)
                *(const char **)(void *)((char *)o + strs[k].off) = v;
            return r;
        }
    }
    r = cli_take(argc, argv, i, "threads", &v);
    if (r != 0) {
        long n;
        if (r < 0 || cli_int("threads", v, 0, 1024, &n) < 0)
            return -1;
        o->threads = (int)n;
        return 1;
    }
    for (int k = 0; params_table[k].name != NULL; k++) {
        rwkv_err err;
        r = cli_take(argc, argv, i, params_table[k].cli, &v);
        if (r == 0)
            continue;
        if (r < 0)
            return -1;
        if (params_set(&o->samp, k, v, &err) != RWKV_OK) {
            cli_errorf("option --%s", err.msg);
            return -1;
        }
        o->samp_set |= PARAMS_BIT(k);
        return 1;
    }
    return 0;
}

void
cli_opts_help(FILE *f, int with_sampling)
{
    fprintf(f,
            "Model options:\n"
            "  --model PATH        checkpoint (.pth or .safetensors; '.pth' may be omitted)\n"
            "  --strategy S        the reference's strategy string (default \"cpu fp32\"):\n"
            "                      cpu fp32|bf16|fp16|fp32i8|bf16i8, mixed plans like\n"
            "                      \"cpu fp32i8 *6 -> cpu fp32\"; in a CUDA build also\n"
            "                      \"cuda fp16\", \"cuda fp16i8 *20+\", \"cuda fp16 *20 -> cpu fp32\"\n"
            "  --vocab PATH        World vocabulary (rwkv_vocab_v20230424.txt); else\n"
            "                      $RWKV_VOCAB, next to the model, or\n"
            "                      $XDG_DATA_HOME/rwkv-tui/rwkv_vocab_v20230424.txt\n"
            "  --state PATH        state-tuning file (blocks.N.att.time_state)\n"
            "  --threads N         compute threads (default: all cores)\n"
            "  --demo              use a tiny random-weight RWKV-7 model built in memory\n"
            "  --no-weight-cache   neither read nor write the cache of converted weights\n"
            "                      (<model>.<hash>.rwkvc; same as RWKV_WEIGHT_CACHE=0)\n");
    if (!with_sampling)
        return;
    fprintf(f, "Sampling options:\n");
    for (int k = 0; params_table[k].name != NULL; k++) {
        char def[32], opt[40];
        rwkv_sampling s;
        params_defaults(&s);
        params_format(&s, k, def, sizeof def);
        snprintf(opt, sizeof opt, "--%s %s", params_table[k].cli,
                 params_table[k].type == PARAMS_FLOAT ? "F" : "N");
        fprintf(f, "  %-19s %s (default %s)\n", opt, params_table[k].help,
                k == params_find("seed") ? "random" : def);
    }
}
