/*
** main.c -- entry point: the subcommand table (house style G11) and the
** only place that turns a status into the process's exit code.
*/
#include "cli.h"

#include <locale.h>
#include <signal.h>
#include <string.h>

#include "../gpu/gpu.h"

static const struct cmd_entry {
    const char *name;
    int       (*run)(int argc, char **argv);
    const char *summary;
} cmds[] = {
    { "chat", cmd_chat, "line-mode chat on stdin/stdout (the chat demo)" },
    { "generate", cmd_generate, "one completion of --prompt to stdout" },
    { "eval", cmd_eval, "run the model on tokens, write float32 logits" },
    { "tokenize", cmd_tokenize, "text to token ids and back" },
    { "info", cmd_info, "describe a checkpoint" },
    { "bench", cmd_bench, "measure prefill and decode speed" },
    { "sessions", cmd_sessions, "list, show, export, import, fork, remove, vacuum saved chats" },
    { NULL, NULL, NULL },
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
               PROG " --help-ui lists its options and keys.\n");
}

int
main(int argc, char **argv)
{
    gpu_backend_register();   /* cuda strategies (a no-op in a CPU-only build) */
    cli_guard_mapped_files(NULL);   /* a mapped model truncated in use: one line, exit 1 */
    /* Over the file-size limit (`ulimit -f`) a write fails with EFBIG and
    ** is reported (storage/store.c names the limit), instead of SIGXFSZ
    ** killing the process without a word in the middle of a save. */
    signal(SIGXFSZ, SIG_IGN);
    setlocale(LC_ALL, "");
    /* Numbers on the command line, in config files and in the database are
    ** always written with a decimal point, whatever the user's locale. */
    setlocale(LC_NUMERIC, "C");
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
                      strcmp(argv[1], "help") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf(PROG " 0.1.0\n");
        return 0;
    }
    if (argc >= 2 && argv[1][0] != '-') {
        for (const struct cmd_entry *c = cmds; c->name != NULL; c++)
            if (strcmp(argv[1], c->name) == 0)
                return c->run(argc - 1, argv + 1);
        cli_errorf("unknown command '%s' (try '" PROG " --help')", argv[1]);
        return 2;
    }
    return cmd_tui(argc, argv);
}
