/*
** main.c -- entry point: the subcommand table (house style G11) and the
** only place that turns a status into the process's exit code.
*/
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/env.h"
#include "../core/kernels/kernels.h"
#include "../gpu/gpu.h"

static const struct cmd_entry {
    const char *name;
    int       (*run)(int argc, char **argv);
    const char *summary;
    int         kernels;   /* runs a model: says what was wrong with RWKV_KERNELS */
} cmds[] = {
    { "chat", cmd_chat, "line-mode chat on stdin/stdout (the chat demo)", 1 },
    { "generate", cmd_generate, "one completion of --prompt to stdout", 1 },
    { "eval", cmd_eval, "run the model on tokens, write float32 logits", 1 },
    { "tokenize", cmd_tokenize, "text to token ids and back", 0 },
    { "info", cmd_info, "describe a checkpoint", 1 },
    { "bench", cmd_bench, "measure prefill and decode speed", 1 },
    { "sessions", cmd_sessions, "saved chats: list, show, search, export, import, fork, rm, ...", 0 },
    { NULL, NULL, NULL, 0 },
};

static void
usage(FILE *f)
{
    fprintf(f, "usage: " PROG " [options]            full-screen chat\n"
               "       " PROG " COMMAND [options]    (COMMAND --help for details)\n\n"
               "Commands:\n");
    for (const struct cmd_entry *c = cmds; c->name != NULL; c++)
        fprintf(f, "  %-10s %s\n", c->name, c->summary);
    fprintf(f, "\nRun without a command (or with options only) for the full-screen UI;\n"
               PROG " --help-ui lists its options and keys; " PROG " --version prints\n"
               "the version.\n");
}

/* The first of LC_ALL, LC_CTYPE, LANG that is set and not empty: the name
** the C library takes LC_CTYPE from (NULL: none). */
static const char *
ctype_name(void)
{
    static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };

    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && *v != '\0')
            return v;
    }
    return NULL;
}

/* 1 if the locale NAME asks for UTF-8 ("zh_CN.UTF-8", "en_US.utf8"). */
static int
says_utf8(const char *name)
{
    char low[64];
    size_t i;

    for (i = 0; name[i] != '\0' && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    low[i] = '\0';
    return strstr(low, "utf-8") != NULL || strstr(low, "utf8") != NULL;
}

/*
** A locale named with UTF-8 (LANG=zh_CN.UTF-8) that is not installed -- the
** usual case in a container -- leaves the C locale: no wide characters, so
** the client would draw CJK as '?' and fall back to English and ASCII.  The
** user asked for UTF-8: take the characters from C.UTF-8 (every glibc since
** 2.35 has it built in; Debian always had it).  Messages and numbers are not
** affected (the client's language follows LANGUAGE/LC_MESSAGES/LANG by name).
*/
static void
ctype_utf8_fallback(void)
{
    const char *name = ctype_name(), *cs = nl_langinfo(CODESET);

    if (name == NULL || (cs != NULL && strcmp(cs, "UTF-8") == 0))
        return;
    if (!says_utf8(name))
        return;
    if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
        setlocale(LC_CTYPE, "C.utf8");
}

/*
** Standard descriptors the caller left closed (`<&-`, `>&-`, a daemon's
** spawn) get a placeholder before anything opens a file: else the next
** open() takes the number, and stdin reads a file of ours -- the thread
** pool keeps /proc/stat open, and `chat <&-` took its lines as messages --
** or stdout and stderr write into one.  The placeholder is /dev/null opened
** the wrong way round (stdin write-only, stdout and stderr read-only), so
** every read or write on it still fails with EBADF, as on the closed
** descriptor: the commands report that as before.
*/
static void
hold_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        int nfd;

        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        nfd = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
        if (nfd >= 0 && nfd != fd) {   /* the lowest free number is FD: not expected */
            dup2(nfd, fd);
            close(nfd);
        }
    }
}

/* The RWKV_* settings not followed (RWKV_KERNELS, the engine's others:
** core/env.h), a line each on stderr. */
static void
env_say(void)
{
    const char *n = env_notes();

    if (*kern_env_note())
        fprintf(stderr, PROG ": %s\n", kern_env_note());
    while (*n) {
        size_t k = strcspn(n, "\n");
        fprintf(stderr, PROG ": %.*s\n", (int)k, n);
        n += k + (n[k] == '\n');
    }
}

/*
** `rwkv-tui --help` (-h, help): the commands.  With one more argument that
** names a command, that command's --help (`rwkv-tui help sessions`, as git
** and cargo take it); anything else beside it is a usage error, one line
** and exit 2 -- never a help that hides the mistake.
*/
static int
help(int argc, char **argv)
{
    static char help_opt[] = "--help";
    const struct cmd_entry *c = cmds;

    if (argc == 2) {
        usage(stdout);
        return cli_stdout_close(0);   /* `--help >/dev/full`: one line, exit 1 */
    }
    while (c->name != NULL && strcmp(argv[2], c->name) != 0)
        c++;
    if (c->name == NULL && argv[2][0] != '-')
        cli_errorf("%s: unknown command '%s' (try '" PROG " --help')", argv[1], argv[2]);
    else if (c->name == NULL || argc > 3)
        cli_errorf("%s: unexpected argument '%s' (try '" PROG " --help')", argv[1],
                   argv[c->name == NULL ? 2 : 3]);
    else {
        char *sub[] = { argv[2], help_opt, NULL };
        return c->run(2, sub);
    }
    return 2;
}

int
main(int argc, char **argv)
{
    hold_std_fds();
    gpu_backend_register();   /* cuda strategies (a no-op in a CPU-only build) */
    cli_guard_mapped_files(NULL);   /* a mapped model truncated in use: one line, exit 1 */
    /* Over the file-size limit (`ulimit -f`) a write fails with EFBIG and
    ** is reported (storage/store.c names the limit), instead of SIGXFSZ
    ** killing the process without a word in the middle of a save. */
    signal(SIGXFSZ, SIG_IGN);
    setlocale(LC_ALL, "");
    ctype_utf8_fallback();
    /* Numbers on the command line, in config files and in the database are
    ** always written with a decimal point, whatever the user's locale. */
    setlocale(LC_NUMERIC, "C");
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
                      strcmp(argv[1], "help") == 0))
        return help(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        if (argc > 2) {               /* `--version extra`: a mistake, not a version */
            cli_errorf("--version takes no argument: unexpected '%s' (try '" PROG " --help')",
                       argv[2]);
            return 2;
        }
        printf(PROG " 0.1.0\n");
        return cli_stdout_close(0);
    }
    if (argc >= 2 && argv[1][0] != '-') {
        for (const struct cmd_entry *c = cmds; c->name != NULL; c++)
            if (strcmp(argv[1], c->name) == 0) {
                if (c->kernels)               /* (the client logs them: tui/app.c) */
                    env_say();
                return c->run(argc - 1, argv + 1);
            }
        cli_errorf("unknown command '%s' (try '" PROG " --help')", argv[1]);
        return 2;
    }
    return cmd_tui(argc, argv);
}
