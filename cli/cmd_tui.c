/*
** cmd_tui.c -- `rwkv-tui [opts]`: the full-screen client (tui/app.c).
** Parses the common options plus the client's own and runs the app.
*/
#include "cli.h"

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
usage(FILE *f)
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
            "  --db PATH            session database (default $XDG_DATA_HOME/rwkv-tui/rwkv-tui.db)\n"
            "  --config PATH        config file (default $XDG_CONFIG_HOME/rwkv-tui/config.yaml)\n"
            "  --theme NAME|PATH    colour theme: default, dark, light, mono or a file\n"
            "  --resume             open the most recently used session (its own model,\n"
            "                       vocabulary and strategy unless given)\n"
            "  --session ID         open saved session ID (see '" PROG " sessions list')\n"
            "  --no-db              save nothing (no session database)\n"
            "  --max-frames N       quit after drawing N frames (tests, sanitizer runs)\n"
            "  --help-ui            this text\n"
            "\nConfig: $XDG_CONFIG_HOME/rwkv-tui/config.yaml, themes in\n"
            "$XDG_CONFIG_HOME/rwkv-tui/themes/; see rwkv-tui-config(5).  F1 lists every key.\n");
}

int
cmd_tui(int argc, char **argv)
{
    struct cli_opts o;
    static struct cli_frame fr;   /* static: large (the --ban list) */
    tui_launch l;
    int rc;

    cli_opts_init(&o);
    memset(&l, 0, sizeof l);
    for (int i = 1; i < argc;) {
        const char *val;
        int r;

        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 ||
            strcmp(argv[i], "--help-ui") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--no-db") == 0) {
            l.no_db = 1;
            i++;
            continue;
        }
        if (strcmp(argv[i], "--resume") == 0) {
            l.resume = 1;
            i++;
            continue;
        }
        r = cli_take(argc, argv, &i, "session", &val);
        if (r < 0)
            return 2;
        if (r > 0) {
            long id;
            if (cli_int("--session", val, 1, 0x7fffffffL, &id) != 0)
                return 2;
            l.session_id = id;
            continue;
        }
        r = cli_take(argc, argv, &i, "max-frames", &val);
        if (r < 0)
            return 2;
        if (r > 0) {
            if (cli_int("--max-frames", val, 1, 1000000000L, &l.max_frames) != 0)
                return 2;
            continue;
        }
        r = cli_frame_parse(&fr, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        r = cli_opts_parse(&o, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r == 0) {
            cli_errorf("unknown option '%s' (see " PROG " --help)", argv[i]);
            return 2;
        }
    }
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
    l.find_vocab = cli_find_vocab;
    if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &tui_saved_tio) == 0) {
        tui_have_tio = 1;
        cli_guard_mapped_files(restore_terminal);
    }
    l.frame = &fr.fr;
    rc = tui_run(&l);
    cli_frame_fini(&fr);
    return rc;
}
