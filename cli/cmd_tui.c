/*
** cmd_tui.c -- `rwkv-tui [opts]`: the full-screen client (tui/app.c).
** Parses the common options plus the client's own and runs the app.
*/
#include "cli.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "../tui/app.h"

/* The terminal as it was, for the SIGBUS guard (a model file truncated
** while in use): the message must not land on a raw alternate screen. */
static struct termios tui_saved_tio;
static int            tui_have_tio;

static void
restore_terminal(void)
{
    static const char seq[] = "\033[?1049l\033[?25h\033[0m\r\n";

    if (tui_have_tio)
        tcsetattr(STDIN_FILENO, TCSANOW, &tui_saved_tio);
    if (write(STDOUT_FILENO, seq, sizeof seq - 1) < 0) {
        /* nothing more to do in a signal handler */
    }
}

static void
key_row(void *ud, const char *key, const char *what)
{
    cli_help_row(ud, 28, key, what);
}

/* The client's options; with KEYS (--help-ui) every key too. */
static void
usage_text(FILE *f, int keys)
{
    fprintf(f,
            "usage: " PROG " [options]            full-screen chat\n"
            "       " PROG " --demo               try it with a tiny random model\n"
            "\n");
    cli_opts_help(f, 1);
    fputc('\n', f);
    cli_frame_help(f);
    fprintf(f,
            "\nFull-screen client options:\n"
            "  --db PATH            session database\n"
            "                       (default $XDG_DATA_HOME/rwkv-tui/rwkv-tui.db)\n"
            "  --config PATH        config file\n"
            "                       (default $XDG_CONFIG_HOME/rwkv-tui/config.yaml)\n"
            "  --theme NAME|PATH    colour theme: default, dark, light, mono or a file\n"
            "  --resume             open the most recently used session (its own model,\n"
            "                       vocabulary and strategy unless given)\n"
            "  --session ID         open saved session ID (see '" PROG " sessions list')\n"
            "  --no-db              save nothing (no session database)\n"
            "  --max-frames N       quit after drawing N frames (tests, sanitizer runs)\n"
            "  --help-ui            this text and every key of the client\n"
            "\nConfig: $XDG_CONFIG_HOME/rwkv-tui/config.yaml, themes in\n"
            "$XDG_CONFIG_HOME/rwkv-tui/themes/; see rwkv-tui-config(5).  F1 lists every key.\n");
    if (keys) {
        fprintf(f, "\nKeys of the full-screen client (the defaults; the config's keys: section\n"
                   "rebinds the actions, the first group; F1 lists them as bound):\n");
        tui_help_keys(key_row, f);
    }
}

static void
usage(FILE *f)
{
    usage_text(f, 0);
}

int
cmd_tui(int argc, char **argv)
{
    struct cli_opts o;
    static struct cli_frame fr;   /* static: large (the --ban list) */
    tui_launch l;
    long session_id = 0;
    int rc, help_ui = 0;
    const struct cli_opt tab[] = {
        { "help-ui", CLI_OPT_FLAG, &help_ui, 0, 0 },
        { "no-db", CLI_OPT_FLAG, &l.no_db, 0, 0 },
        { "resume", CLI_OPT_FLAG, &l.resume, 0, 0 },
        /* every id a database holds, as chat --session (64-bit long) */
        { "session", CLI_OPT_INT, &session_id, 1, LONG_MAX },
        { "max-frames", CLI_OPT_INT, &l.max_frames, 1, 1000000000L },
        { NULL, CLI_OPT_FLAG, NULL, 0, 0 },
    };

    cli_opts_init(&o);
    memset(&l, 0, sizeof l);
    if ((rc = cli_parse_args(argc, argv, NULL, usage, tab, &fr, &o)) != CLI_ARGS_GO)
        return rc;
    if (help_ui) {
        usage_text(stdout, 1);
        return cli_stdout_close(0);
    }
    l.session_id = session_id;
    if (l.resume && l.session_id) {
        cli_errorf("use one of --resume and --session ID");
        return 2;
    }
    l.model = o.model;
    l.strategy = o.strategy;
    l.vocab = o.vocab;
    l.state = o.state;
    l.db = o.db;
    l.config = o.config;
    l.theme = o.theme;
    l.threads = o.threads;
    l.demo = o.demo;
    l.samp = o.samp;
    l.samp_set = o.samp_set;
    l.find_vocab = cli_vocab_lookup;
    if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &tui_saved_tio) == 0) {
        tui_have_tio = 1;
        cli_guard_mapped_files(restore_terminal);
    }
    l.frame = &fr.fr;
    rc = tui_run(&l);
    cli_frame_fini(&fr);
    return rc;
}
