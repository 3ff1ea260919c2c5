/*
** opts.c -- what every subcommand shares: the common options, a command's
** own options as a table and the one option loop (cli_parse_args), the
** bounded reader of files and stdin, stdout's end, the model-text writer
** and the SIGBUS guard.
*/
#include "cli.h"

#include "../core/model/strategy.h"
#include "../core/text/utf8.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "../core/io/ckpt.h"
#include "../core/io/mapfile.h"
#include "../core/rwkv.h"
#include "../core/kernels/threadpool.h"
#include "../tui/config.h"
#include "../tui/theme.h"
#include "../tui/yamlerr.h"


/* errno of the first failed cli_stdout_flush (0: none); stdout closed. */
static int stdout_errno, stdout_closed;

int
cli_stdout_flush(void)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    if (stdout_errno == 0)
        stdout_errno = errno ? errno : EIO;
    return -1;
}

size_t
cli_write(FILE *f, const void *p, size_t n)
{
    size_t k;

    if (n == 0)
        return 0;
    errno = 0;
    k = fwrite(p, 1, n, f);
    /* the failing write(2)'s errno, before anything else can change it: a
    ** block fwrite wrote directly leaves nothing buffered, and the fflush at
    ** the end would find only the error flag ("Input/output error") */
    if (k < n && f == stdout && stdout_errno == 0)
        stdout_errno = errno ? errno : EIO;
    return k;
}

int
cli_stdout_close(int rc)
{
    int e = 0;

    if (stdout_closed)
        return rc;
    stdout_closed = 1;
    errno = 0;
    /* the first failure's errno (cli_write, cli_stdout_flush) wins: it is
    ** the one the failing write saw */
    if (fflush(stdout) != 0)
        e = stdout_errno ? stdout_errno : errno ? errno : EIO;
    else if (ferror(stdout))
        e = stdout_errno ? stdout_errno : EIO;
    if (e == 0) {
        errno = 0;
        if (fclose(stdout) != 0)
            e = errno ? errno : EIO;
    }
    if (e == 0)
        return rc;
    /* a reply cut short is worse than the first error: report it even
     * after another failure, but keep that failure's status */
    cli_errorf("stdout: %s", strerror(e));
    return rc ? rc : 1;
}

/* ---- SIGBUS in a mapped file ---- */

static void (*volatile guard_cleanup)(void);

/* Append S to the line B (capacity CAP, length *N), cutting it short if it
** does not fit (async-signal-safe: no stdio). */
static void
guard_cat(char *b, size_t cap, size_t *n, const char *s)
{
    while (*s != '\0' && *n + 1 < cap)
        b[(*n)++] = *s++;
}

/* write(2) N bytes of S to stderr (async-signal-safe). */
static void
guard_put(const char *s, size_t n)
{
    while (n > 0) {
        ssize_t k = write(STDERR_FILENO, s, n);
        if (k <= 0) {
            if (k < 0 && errno == EINTR)
                continue;
            return;
        }
        s += k;
        n -= (size_t)k;
    }
}

static void
guard_on_sigbus(int sig, siginfo_t *si, void *uctx)
{
    const char *path = NULL;
    void (*fn)(void) = guard_cleanup;

    (void)uctx;
    /* si_code > 0: raised by the kernel for a fault (not kill/raise) */
    if (si != NULL && si->si_code > 0)
        path = mapfile_guard_find(si->si_addr);
    if (path == NULL) {
        /* not ours: the default action (returning re-runs the faulting
         * access, which now takes it; a sent signal is re-raised) */
        signal(sig, SIG_DFL);
        if (si == NULL || si->si_code <= 0)
            raise(sig);
        return;
    }
    if (fn != NULL)
        fn();
    {
        /* one write, so the line is not interleaved with other output */
        char line[4352];
        size_t n = 0;
        guard_cat(line, sizeof line - 1, &n, PROG ": ");
        guard_cat(line, sizeof line - 1 - 72, &n, path);
        guard_cat(line, sizeof line - 1, &n,
                  ": the file changed size while in use (truncated or replaced in place)");
        line[n++] = '\n';
        guard_put(line, n);
    }
    _exit(1);
}

void
cli_guard_mapped_files(void (*cleanup)(void))
{
    struct sigaction sa;

    guard_cleanup = cleanup;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = guard_on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

void
cli_errorf(const char *fmt, ...)
{
    char buf[8 * RWKV_ERR_MSG];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fputs(PROG ": ", stderr);
    /* a path or a title in it may hold anything: by the display rule on a
    ** terminal (cli_write_text) */
    cli_write_text(stderr, buf, n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
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
    o->samp_ok = ~0u;
    o->files_ok = 1;
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
cli_strtoll(const char *s, long long *out, const char **end)
{
    char *e;
    long long v;

    /* strtoll would skip leading blanks (" 1" read as 1 while "1x" is
    ** refused): a number starts with its sign or first digit */
    if (!(*s >= '0' && *s <= '9') && !((*s == '-' || *s == '+') && s[1] >= '0' && s[1] <= '9'))
        return -1;
    errno = 0;
    v = strtoll(s, &e, 10);
    if (errno != 0)
        return -1;
    *out = v;
    *end = e;
    return 0;
}

int
cli_parse_ll(const char *s, long long min, long long max, long long *out)
{
    const char *end;
    long long v;

    if (cli_strtoll(s, &v, &end) != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int
cli_int_check(const char *opt, const char *s, long long min, unsigned long long max)
{
    /* the rule of every integer, the sampling values' too (params.h) */
    if (params_int_check(s, strlen(s), min, max, NULL, NULL) == PARAMS_INT_OK)
        return 0;
    cli_errorf("option --%s: '%s' is not an integer in [%lld, %llu]", opt, s, min, max);
    return -1;
}

int
cli_int(const char *opt, const char *s, long min, long max, long *out)
{
    /* min >= 0 in every table (cli_int_check's unsigned MAX) */
    if (max < 0 || cli_int_check(opt, s, min, (unsigned long long)max) != 0)
        return -1;
    *out = strtol(s, NULL, 10);
    return 0;
}

int
cli_path_arg(const char *what, const char *v)
{
    /* "" names no file: open("") fails with a bare ENOENT (": cannot
    ** open"), a search would skip it, SQLite would open a private temporary
    ** database -- none of them what was asked */
    if (v[0] != '\0')
        return 0;
    cli_errorf("%s: empty path", what);
    return -1;
}

/* cli_path_arg for the option --NAME. */
static int
path_opt(const char *name, const char *v)
{
    char what[64];

    snprintf(what, sizeof what, "--%s", name);
    return cli_path_arg(what, v);
}

int
cli_take_opt(const struct cli_opt *tab, int argc, char **argv, int *i)
{
    for (; tab->name != NULL; tab++) {
        const char *v;
        long n;
        int r;

        if (tab->kind == CLI_OPT_FLAG) {
            if (strncmp(argv[*i], "--", 2) != 0 || strcmp(argv[*i] + 2, tab->name) != 0)
                continue;
            *(int *)tab->dst = 1;
            (*i)++;
            return 1;
        }
        r = cli_take(argc, argv, i, tab->name, &v);
        if (r == 0)
            continue;
        if (r < 0)
            return -1;
        if (tab->kind == CLI_OPT_PATH && path_opt(tab->name, v) < 0)
            return -1;
        if (tab->kind == CLI_OPT_STR || tab->kind == CLI_OPT_PATH) {
            *(const char **)tab->dst = v;
            return 1;
        }
        if (cli_int(tab->name, v, tab->min, tab->max, &n) < 0)
            return -1;
        *(long *)tab->dst = n;
        return 1;
    }
    return 0;
}

/* The kind of checkpoint at PATH (rwkv_ckpt_kind), for a regular file only:
** a pipe or a device read here would be read again, empty, by its loader. */
static int
file_kind(const char *path)
{
    struct stat sb;

    if (path == NULL || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return RWKV_CKPT_UNKNOWN;
    return rwkv_ckpt_kind(path, NULL);
}

void
cli_bad_arg(const char *cmd, const char *arg, int files)
{
    const char *pre = cmd ? cmd : "", *sep = cmd ? ": " : "";
    const char *hint = NULL;
    struct stat sb;

    if (arg[0] == '-') {
        if (cmd != NULL)
            cli_errorf("%s: unknown option '%s' (see '" PROG " %s --help')", cmd, arg, cmd);
        else
            cli_errorf("unknown option '%s' (see " PROG " --help-ui)", arg);
        return;
    }
    /* a file named without its option: which one it belongs to, never a
    ** guess that runs (a positional path taken as the model would make
    ** `info a.pth b.pth` or a stray word after --prompt mean something) */
    if (files && file_kind(arg) == RWKV_CKPT_STATE)
        hint = "give a state file with --state PATH";
    else if (files && (stat(arg, &sb) == 0 || strchr(arg, '/') != NULL ||
                       strchr(arg, '.') != NULL))
        hint = "give the model with --model PATH";
    if (hint != NULL)
        cli_errorf("%s%sunexpected argument '%s': %s", pre, sep, arg, hint);
    else if (cmd != NULL)
        cli_errorf("%s: unexpected argument '%s' (see '" PROG " %s --help')", cmd, arg, cmd);
    else
        cli_errorf("unexpected argument '%s' (see " PROG " --help-ui)", arg);
}

int
cli_parse_args(int argc, char **argv, const char *cmd, void (*usage)(FILE *),
               const struct cli_opt *tab, struct cli_frame *fr, struct cli_opts *o)
{
    int help = 0;

    for (int i = 1; i < argc;) {
        int r = 0;

        /* --help anywhere, but after the whole line is read: an unknown
        ** option or a stray word beside it is still the usage error it is
        ** without it (`generate --help extra` is a mistake, not a help) */
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            help = 1;
            i++;
            continue;
        }
        if (tab != NULL)
            r = cli_take_opt(tab, argc, argv, &i);
        if (r == 0 && fr != NULL)
            r = cli_frame_parse(fr, argc, argv, &i);
        if (r == 0 && o != NULL)
            r = cli_opts_parse(o, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        cli_bad_arg(cmd, argv[i], o != NULL);
        return 2;
    }
    if (help) {
        usage(stdout);
        return cli_stdout_close(0);
    }
    /* two models asked for: the demo must not silently win (a script's
     * numbers would come from random weights) */
    if (cmd != NULL && o != NULL && o->demo && o->model != NULL) {
        cli_errorf("%s: --model and --demo exclude each other", cmd);
        return 2;
    }
    /* the commands parsed here (generate, eval, info, bench): chat and the
    ** full-screen client check their own options */
    if (cmd != NULL && o != NULL)
        return cli_opts_check(o, cmd);
    if (o != NULL && cli_file_kinds(o, NULL) != 0)
        return 2;
    return CLI_ARGS_GO;
}

int
cli_file_kinds(const struct cli_opts *o, const char *cmd)
{
    const char *pre = cmd ? cmd : "", *sep = cmd ? ": " : "";
    int k;

    /* the loaders' own lines would say "missing tensor
    ** 'blocks.0.att.time_state'" or "expected a token id": name the file's
    ** kind and the option it belongs to, as a state file given as --model
    ** is told */
    if (o->state != NULL && file_kind(o->state) == RWKV_CKPT_MODEL) {
        cli_errorf("%s%s--state %s: a model, not a state file: give it as --model (--state "
                   "takes a state-tuning file, blocks.N.att.time_state)", pre, sep, o->state);
        return -1;
    }
    if (o->vocab != NULL && (k = file_kind(o->vocab)) != RWKV_CKPT_UNKNOWN) {
        cli_errorf("%s%s--vocab %s: a %s, not a vocabulary file (" CLI_VOCAB_NAME "): give it "
                   "as %s", pre, sep, o->vocab, k == RWKV_CKPT_MODEL ? "model" : "state file",
                   k == RWKV_CKPT_MODEL ? "--model" : "--state");
        return -1;
    }
    return 0;
}

int
cli_opts_check(const struct cli_opts *o, const char *cmd)
{
    char msg[THEME_MSG];

    if (cli_file_kinds(o, cmd) != 0)
        return 2;

    if (o->config != NULL) {
        /* cfg_load's own reader (tui/yamlerr.h): a file that is not
        ** there or cannot be read (which the client, too, refuses before
        ** it starts), is not a regular file or is too large; the settings
        ** themselves are the client's (rwkv-tui-config(5)) */
        size_t len;
        char *text;
        if ((text = tui_read_file(o->config, CFG_MAX_BYTES, &len, msg, sizeof msg)) == NULL) {
            cli_errorf("%s: --config %s", cmd, msg);
            return 2;
        }
        free(text);
    }
    if (o->theme != NULL) {
        /* the client's loader, names included; where the client falls back
        ** to the default theme there is nothing here to fall back for */
        theme th;
        if (theme_load(o->theme, &th, msg, sizeof msg) != 0) {
            cli_errorf("%s: --theme: %s", cmd, msg);   /* msg names the theme or its file */
            return 2;
        }
    }
    return CLI_ARGS_GO;
}

int
cli_opts_parse(struct cli_opts *o, int argc, char **argv, int *i)
{
    static const struct {
        const char *name;
        size_t      off;
        int         path;   /* a file (--theme: a name or a file): not "" */
    } strs[] = {
        { "model", offsetof(struct cli_opts, model), 1 },
        { "strategy", offsetof(struct cli_opts, strategy), 0 },
        { "vocab", offsetof(struct cli_opts, vocab), 1 },
        { "state", offsetof(struct cli_opts, state), 1 },
        { "db", offsetof(struct cli_opts, db), 1 },
        { "config", offsetof(struct cli_opts, config), 1 },
        { "theme", offsetof(struct cli_opts, theme), 1 },
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
        if (!o->files_ok && (strs[k].off == offsetof(struct cli_opts, state) ||
                             strs[k].off == offsetof(struct cli_opts, vocab)))
            continue;                /* not this command's: unknown */
        r = cli_take(argc, argv, i, strs[k].name, &v);
        if (r != 0) {
            if (r > 0 && strs[k].path && path_opt(strs[k].name, v) < 0)
                return -1;
            if (r > 0 && strs[k].off == offsetof(struct cli_opts, strategy)) {
                strat st;      /* its grammar: a usage error, before any load */
                rwkv_err err;
                if (strat_parse(v, &st, &err) != RWKV_OK) {
                    cli_errorf("--strategy: %s", err.msg);
                    return -1;
                }
            }
            if (r > 0 && strs[k].off == offsetof(struct cli_opts, state)) {
                /* "NAME" for NAME.pth, as the chat demo's STATE_NAME (one
                ** --state a process: the buffer is its) */
                static char state_pth[4096];
                v = ckpt_state_file_name(v, state_pth, sizeof state_pth);
            }
            if (r > 0)
                *(const char **)(void *)((char *)o + strs[k].off) = v;
            return r;
        }
    }
    r = cli_take(argc, argv, i, "threads", &v);
    if (r != 0) {
        long n, cpus = sysconf(_SC_NPROCESSORS_ONLN);
        if (r < 0 || cli_int("threads", v, 0, TPOOL_MAX_THREADS, &n) < 0)
            return -1;
        /* allowed (a benchmark may want it), but not silently: threads
        ** beyond the CPUs take turns on them */
        if (cpus > 0 && n > cpus)
            cli_errorf("--threads %ld: more than the %ld CPU%s online (allowed; usually slower)",
                       n, cpus, cpus == 1 ? "" : "s");
        o->threads = (int)n;
        return 1;
    }
    for (int k = 0; params_table[k].name != NULL; k++) {
        rwkv_err err;
        if (!(o->samp_ok & PARAMS_BIT(k)))
            continue;                /* a value this command does not use */
        r = cli_take(argc, argv, i, params_table[k].cli, &v);
        if (r == 0)
            continue;
        if (r < 0)
            return -1;
        /* the integer values said as every integer option's (params_set
        ** refuses the same texts, in its own words) */
        if (params_table[k].type != PARAMS_FLOAT &&
            cli_int_check(params_table[k].cli, v, (long long)params_table[k].min,
                          params_table[k].type == PARAMS_U64 ? UINT64_MAX
                          : (unsigned long long)params_table[k].max) != 0)
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
cli_opts_help(FILE *f, int what)
{
    fprintf(f,
            "Model options:\n"
            "  --model PATH        checkpoint (.pth or .safetensors; '.pth' may be omitted)\n"
            "  --strategy S        the reference's strategy string (default \"cpu fp32\"):\n"
            "                      cpu fp32|bf16|fp16, fp32i8|bf16i8|fp16i8 (int8),\n"
            "                      fp32i4|bf16i4|fp16i4 (4-bit), mixed plans like\n"
            "                      \"cpu fp32i8 *6 -> cpu fp32\"\n"
            "                      or \"cpu fp32i4 *20 -> cpu fp32i8\"; in a CUDA build also\n"
            "                      \"cuda fp16\", \"cuda fp16i8 *20+\", \"cuda fp16i4\" (4-bit),\n"
            "                      \"cuda fp16 *20 -> cpu fp32\"\n");
    if (!(what & CLI_HELP_NO_FILES))
        fprintf(f,
            "  --vocab PATH        World vocabulary (rwkv_vocab_v20230424.txt); else\n"
            "                      $RWKV_VOCAB, next to the model, or\n"
            "                      $XDG_DATA_HOME/rwkv-tui/rwkv_vocab_v20230424.txt\n"
            "  --state PATH        state-tuning file (blocks.N.att.time_state)\n");
    fprintf(f,
            "  --threads N         compute threads, 1 to 256 (default, or 0: every CPU\n"
            "                      online; more than the CPUs runs, with a warning)\n"
            "  --demo              use a tiny random-weight RWKV-7 model built in memory\n"
            "  --no-weight-cache   neither read nor write the cache of converted weights\n"
            "                      (<model>.<hash>.rwkvc; same as RWKV_WEIGHT_CACHE=0)\n");
    if (!(what & CLI_HELP_SAMPLING))
        return;
    fprintf(f, "Sampling options:\n");
    for (int k = 0; params_table[k].name != NULL; k++) {
        char def[32], opt[40], text[256];
        rwkv_sampling s;
        params_defaults(&s);
        params_format(&s, k, def, sizeof def);
        snprintf(opt, sizeof opt, "--%s %s", params_table[k].cli,
                 params_table[k].type == PARAMS_FLOAT ? "F" : "N");
        snprintf(text, sizeof text, "%s (default %s)", params_table[k].help,
                 k == params_find("seed") ? "random" : def);
        cli_help_row(f, 22, opt, text);
    }
}

void
cli_opts_help_client(FILE *f, int with_db)
{
    fprintf(f,
            "The full-screen client's options, checked here but not used (a file that is\n"
            "missing, unreadable or not a regular file, or a theme that does not load, is\n"
            "an error):\n"
            "  --config PATH       config file (rwkv-tui-config(5))\n"
            "  --theme NAME|PATH   colour theme\n");
    if (with_db)
        fprintf(f, "  --db PATH           session database (not opened: this command keeps no\n"
                   "                      sessions)\n");
}

void
cli_help_row(FILE *f, int col, const char *name, const char *text)
{
    const int width = 79 - col;

    if ((int)strlen(name) > col - 3)
        fprintf(f, "  %s\n%*s", name, col, "");
    else
        fprintf(f, "  %-*s ", col - 3, name);
    while ((int)strlen(text) > width) {
        int cut = width;
        while (cut > 0 && text[cut] != ' ')
            cut--;
        if (cut == 0)
            cut = width;
        fprintf(f, "%.*s\n%*s", cut, text, col, "");
        text += cut;
        while (*text == ' ')
            text++;
    }
    fprintf(f, "%s\n", text);
}

void
cli_write_text(FILE *f, const char *text, size_t len)
{
    char buf[UTF8_SANITIZE_MAX(256)];
    utf8_san san;

    if (!isatty(fileno(f))) {
        cli_write(f, text, len);
        return;
    }
    utf8_san_init(&san);
    for (size_t i = 0; i < len; i += 256) {
        size_t m = len - i < 256 ? len - i : 256;
        cli_write(f, buf, utf8_sanitize_for_terminal(&san, text + i, m, buf));
    }
    cli_write(f, buf, utf8_san_flush(&san, buf));
}

int
cli_read_stream(FILE *f, const char *name, size_t max, const char *what, char **buf,
                size_t *len)
{
    char *b = NULL, *nb;
    size_t n = 0, cap = 0, got;

    do {
        if (n == cap) {
            if (cap >= max) {
                cli_errorf("%s: larger than %zu bytes%s%s%s", name, max,
                           what ? " (too long for " : "", what ? what : "", what ? ")" : "");
                free(b);
                return 1;
            }
            cap = cap ? cap * 2 : 65536;
            if ((nb = realloc(b, cap + 1)) == NULL) {
                cli_errorf("%s: out of memory", name);
                free(b);
                return 1;
            }
            b = nb;
        }
        got = fread(b + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    if (ferror(f)) {
        cli_errorf("%s: cannot read: %s", name, strerror(errno));
        free(b);
        return 1;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

int
cli_read_input(const char *path, size_t max, const char *what, char **buf, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    int rc;

    if (f == NULL) {
        cli_errorf("%s: cannot open: %s", path, strerror(errno));
        return 1;
    }
    rc = cli_read_stream(f, f == stdin ? "stdin" : path, max, what, buf, len);
    if (f != stdin)
        fclose(f);
    return rc;
}

void
cli_json_str(FILE *f, const char *text)
{
    cli_json_text(f, text, strlen(text));
}

void
cli_json_text(FILE *f, const char *text, size_t len)
{
    const unsigned char *u = (const unsigned char *)text;
    size_t i = 0, run = 0;          /* RUN bytes before I go out as they are */

    fputc('"', f);
    while (i < len) {
        uint32_t cp = 0;
        int r = utf8_decode(u + i, len - i, &cp);
        const char *esc;
        char e[16];

        if (r > 0 && cp >= 0x20 && cp != '"' && cp != '\\' && cp != 0x2028 && cp != 0x2029 &&
            !utf8_san_drops(cp)) {
            run += (size_t)r;
            i += (size_t)r;
            continue;
        }
        cli_write(f, u + i - run, run);
        run = 0;
        if (r <= 0) {               /* ill-formed (or cut by the end): one U+FFFD */
            esc = UTF8_REPL;
            i += r < 0 ? (size_t)-r : len - i;
        } else {
            esc = cp == '"' ? "\\\"" : cp == '\\' ? "\\\\" : cp == '\n' ? "\\n"
                : cp == '\r' ? "\\r" : cp == '\t' ? "\\t" : NULL;
            if (esc == NULL) {
                snprintf(e, sizeof e, "\\u%04x", (unsigned)cp);
                esc = e;
            }
            i += (size_t)r;
        }
        cli_write(f, esc, strlen(esc));
    }
    cli_write(f, u + i - run, run);
    fputc('"', f);
}

void
cli_strategy_note(const rwkv_info *in)
{
    strat s;
    rwkv_err err;
    char split[512];

    if (strat_parse(in->strategy, &s, &err) == RWKV_OK && s.n_stages > 1 &&
        strat_split(&s, in->n_layer, split, sizeof split) > 0)
        cli_errorf("strategy '%s' gives a stage no layers of this model (%d layers and the "
                   "head): %s", in->strategy, in->n_layer, split);
}
