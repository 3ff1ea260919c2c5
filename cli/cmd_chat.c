/*
** cmd_chat.c -- `rwkv-tui chat`: the chat demo as a line-mode REPL on
** stdin/stdout, driving core/chat.h.
**
** One input line is one message.  Replies stream to stdout as
** "Assistant: <text>\n\n"; prompts ("User: "), the greeting and command
** feedback appear only when stdin is a terminal, so a pipe gets just the
** replies.  Messages about problems go to stderr and the chat goes on.
**
** Ctrl-C: during a reply, SIGINT sets the chat's cancel flag (async-signal-
** safe) and the reply stops at the next token, keeping what was generated;
** at the prompt, SIGINT (installed without SA_RESTART) makes getline()
** fail and the command exits 0, as EOF does.
*/
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/chat.h"

/* The chat whose reply SIGINT cancels, and "SIGINT seen at the prompt". */
static chat *volatile         sig_chat;
static volatile sig_atomic_t  sig_in_reply;   /* Ctrl-C cancels the reply */
static volatile sig_atomic_t  sig_in_prime;   /* Ctrl-C while the greeting is fed: quit */
static volatile sig_atomic_t  sig_quit;

static void
on_sigint(int sig)
{
    (void)sig;
    if ((sig_in_reply || sig_in_prime) && sig_chat != NULL)
        chat_cancel(sig_chat);
    if (!sig_in_reply)
        sig_quit = 1;
}

static void
usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " chat (--model PATH | --demo) [options]\n"
            "Line-mode chat on stdin/stdout, the chat demo's behaviour: each line is a\n"
            "message, framed as \"User: MSG\\n\\nAssistant:\"; the reply streams to stdout\n"
            "and ends at a blank line (\"\\n\\n\") or --max-tokens.  Works in a pipe.\n\n"
            "Chat options:\n"
            "  --stats             after each reply print prefill/decode speed on stderr\n"
            "  --greeting TEXT     text fed before the first message (default: the demo's\n"
            "                      \"User: hi ... Assistant: Hi. I am your assistant ...\")\n"
            "  --no-greeting       feed no greeting\n"
            "  --stop S            stop string (repeatable, default \"\\n\\n\"; \\n escapes)\n"
            "  --ban IDS           comma-separated token ids never to sample\n"
            "  --session ID | --resume | --new TITLE   saved sessions (not available yet)\n\n"
            "Commands (a line starting with '/'; '//' sends a literal '/'):\n"
            "  /help               this list\n"
            "  /reset              forget the conversation (back to the greeting/state)\n"
            "  /regen              sample the last reply again (state restored, no prefill)\n"
            "  /set NAME VALUE     change a sampling value (see /show; next reply on)\n"
            "  /show               show the sampling values and the seed\n"
            "  /state FILE         start over from a state-tuning file\n"
            "  /quit               leave (so do EOF and Ctrl-C at the prompt)\n"
            "Ctrl-C during a reply stops that reply and keeps what was generated.\n"
            "With a state file (--state or /state) no greeting is fed and the demo's\n"
            "state defaults apply unless set: top-p 0.2, presence 0.3, frequency 0.3.\n\n");
    cli_opts_help(f, 1);
}

/* ---- options --------------------------------------------------------------- */

#define CHAT_CLI_MAX_BAN 4096   /* --ban list length: far more than anyone types */

struct chat_cli {
    struct cli_opts o;
    int             stats;
    const char     *greeting;       /* NULL = demo greeting */
    int             no_greeting;
    char           *stop[CHAT_MAX_STOP];
    size_t          n_stop;
    int32_t         ban[CHAT_CLI_MAX_BAN];
    size_t          n_ban;
    /*
    ** ---- Session persistence: room for the session store -----------------
    ** Parsed here, not acted on yet.  The store hooks in through chat.h:
    **   - after chat_create: --resume/--session ID -> chat_restore_state()
    **     with the session's latest snapshot, then chat_push_turn() per
    **     stored turn; --new TITLE -> create the session row;
    **   - in reply_done() below (the chat's done callback): store the turn
    **     (chat_turn: user, prompt_ids, reply, reply_ids, samp incl. the
    **     reply's seed, stats, stop/interrupted) with the snapshots
    **     chat_state() (after the turn) and chat_state_before_reply();
    **   - /reset and /state start a new branch/session.
    */
    const char     *session_id;
    int             resume;
    const char     *new_title;
};

/* "\n" and "\t" and "\\" escapes, in place. */
static void
unescape(char *s)
{
    char *o = s;

    for (; *s; s++) {
        if (*s == '\\' && (s[1] == 'n' || s[1] == 't' || s[1] == '\\')) {
            s++;
            *o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : '\\';
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

static int
parse_ban(struct chat_cli *a, const char *v)
{
    const char *p = v;

    while (*p) {
        char *end;
        long id;
        errno = 0;
        id = strtol(p, &end, 10);
        if (errno || end == p || id < 0 || id > 0x7fffffff || (*end != ',' && *end != '\0')) {
            cli_errorf("option --ban: '%s' is not a comma-separated list of token ids", v);
            return -1;
        }
        if (a->n_ban == CHAT_CLI_MAX_BAN) {
            cli_errorf("option --ban: more than %d ids", CHAT_CLI_MAX_BAN);
            return -1;
        }
        a->ban[a->n_ban++] = (int32_t)id;
        p = *end ? end + 1 : end;
    }
    return 0;
}

/* 0 ok, 1 --help printed, 2 usage error (printed). */
static int
parse_args(struct chat_cli *a, int argc, char **argv)
{
    for (int i = 1; i < argc;) {
        const char *v;
        int r;

        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 1;
        }
        r = cli_opts_parse(&a->o, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--stats") == 0) {
            a->stats = 1;
            i++;
        } else if (strcmp(argv[i], "--no-greeting") == 0) {
            a->no_greeting = 1;
            i++;
        } else if (strcmp(argv[i], "--resume") == 0) {
            a->resume = 1;
            i++;
        } else if ((r = cli_take(argc, argv, &i, "greeting", &v)) != 0) {
            if (r < 0)
                return 2;
            a->greeting = v;
        } else if ((r = cli_take(argc, argv, &i, "stop", &v)) != 0) {
            if (r < 0)
                return 2;
            if (a->n_stop == CHAT_MAX_STOP) {
                cli_errorf("option --stop: at most %d stop strings", CHAT_MAX_STOP);
                return 2;
            }
            a->stop[a->n_stop] = strdup(v);
            if (a->stop[a->n_stop] == NULL)
                return 2;
            unescape(a->stop[a->n_stop]);
            if (a->stop[a->n_stop][0] == '\0' || strlen(a->stop[a->n_stop]) > CHAT_MAX_STOP_LEN) {
                cli_errorf("option --stop: a stop string must have 1..%d bytes", CHAT_MAX_STOP_LEN);
                free(a->stop[a->n_stop]);
                return 2;
            }
            a->n_stop++;
        } else if ((r = cli_take(argc, argv, &i, "ban", &v)) != 0) {
            if (r < 0 || parse_ban(a, v) < 0)
                return 2;
        } else if ((r = cli_take(argc, argv, &i, "session", &v)) != 0) {
            if (r < 0)
                return 2;
            a->session_id = v;
        } else if ((r = cli_take(argc, argv, &i, "new", &v)) != 0) {
            if (r < 0)
                return 2;
            a->new_title = v;
        } else {
            cli_errorf("chat: unknown option '%s' (try '" PROG " chat --help')", argv[i]);
            return 2;
        }
    }
    if (!a->o.demo && a->o.model == NULL) {
        cli_errorf("chat: --model PATH (or --demo) is required");
        return 2;
    }
    if (a->session_id != NULL || a->resume || a->new_title != NULL) {
        /* SESSION HOOK: replace this refusal when the session store lands. */
        cli_errorf("chat: --session/--resume/--new: saved sessions are not available in this build yet");
        return 2;
    }
    return 0;
}

/* ---- output callbacks -------------------------------------------------------- */

struct repl {
    struct chat_cli *a;
    chat            *c;
    int              interactive;   /* stdin is a terminal */
    int              started;       /* the running reply printed "Assistant:" */
};

static void
reply_phase(void *ud, int phase)
{
    struct repl *r = ud;

    if (phase == CHAT_GENERATING) {
        r->started = 1;
        fputs("Assistant:", stdout);
        fflush(stdout);
    }
}

/*
** Write model text to F.  On a terminal, C0 control characters other than
** newline and tab (and DEL) are shown as U+FFFD: a model must not be able
** to send escape sequences to the user's terminal.  Pipes get the bytes.
*/
static void
write_text(FILE *f, const char *text, size_t len)
{
    if (!isatty(fileno(f))) {
        fwrite(text, 1, len, f);
    } else {
        for (size_t i = 0; i < len; i++) {
            unsigned char ch = (unsigned char)text[i];
            if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
                fputs("\xef\xbf\xbd", f);
            else
                fputc(ch, f);
        }
    }
    fflush(f);
}

static void
reply_text(void *ud, const char *text, size_t len)
{
    (void)ud;
    write_text(stdout, text, len);
}

static void
print_stats(const chat_stats *st)
{
    fprintf(stderr,
            "[stats] prefill %llu tok in %.3f s (%.1f tok/s), decode %llu tok in %.3f s "
            "(%.1f tok/s)\n",
            (unsigned long long)st->prefill_tokens, st->prefill_s, st->prefill_tps,
            (unsigned long long)st->gen_tokens, st->gen_s, st->decode_tps);
}

static void
reply_done(void *ud, const chat_turn *t)
{
    struct repl *r = ud;

    fputs("\n\n", stdout);
    fflush(stdout);
    if (t->stop == CHAT_STOP_CANCEL)
        fprintf(stderr, "(reply interrupted after %zu tokens)\n", t->n_reply);
    if (r->a->stats)
        print_stats(&t->stats);
    /* SESSION HOOK: persist T with chat_state(r->c) and chat_state_before_reply(r->c). */
}

/* Run the queued reply with SIGINT routed to cancel (r->started must have
** been cleared before the submit/regen).  0, or 1 (printed). */
static int
run_reply(struct repl *r)
{
    rwkv_err err;
    int rc;

    sig_chat = r->c;
    sig_in_reply = 1;
    rc = chat_run(r->c, &err);
    sig_in_reply = 0;
    if (rc != RWKV_OK)
        cli_fail(&err);
    else if (!r->started)
        fprintf(stderr, "(cancelled before the reply started; message dropped)\n");
    return rc != RWKV_OK;
}

/* ---- commands ------------------------------------------------------------------- */

static void
show(struct repl *r)
{
    const rwkv_sampling *s = chat_sampling(r->c);
    unsigned set = chat_sampling_set(r->c);
    int was_random;
    uint64_t seed = chat_seed(r->c, &was_random);

    for (int i = 0; params_table[i].name != NULL; i++) {
        char buf[48];
        if (i == params_find("seed")) {
            printf("  %-12s %llu%s\n", params_table[i].name, (unsigned long long)seed,
                   was_random ? " (random)" : "");
            continue;
        }
        params_format(s, i, buf, sizeof buf);
        printf("  %-12s %-10s%s\n", params_table[i].name, buf, (set & PARAMS_BIT(i)) ? " (set)" : "");
    }
    fflush(stdout);
}

static void
cmd_set(struct repl *r, char *args)
{
    char *name = strtok(args, " \t"), *value = strtok(NULL, " \t"), *extra = strtok(NULL, " \t");
    rwkv_sampling s = *chat_sampling(r->c);
    rwkv_err err;
    int i;

    if (name == NULL || value == NULL || extra != NULL) {
        cli_errorf("usage: /set NAME VALUE (names: see /show)");
        return;
    }
    i = params_find(name);
    if (i < 0) {
        cli_errorf("/set: unknown parameter '%s' (see /show)", name);
        return;
    }
    if (params_set(&s, i, value, &err) != RWKV_OK) {
        cli_errorf("/set %s", err.msg);
        return;
    }
    chat_set_sampling(r->c, &s, chat_sampling_set(r->c) | PARAMS_BIT(i));
    if (r->interactive) {
        char buf[48];
        params_format(&s, i, buf, sizeof buf);
        fprintf(stderr, "%s = %s\n", params_table[i].name, buf);
    }
}

/* 1 = quit, 0 = go on. */
static int
command(struct repl *r, char *line)
{
    char *cmd = line + 1, *args = cmd;
    rwkv_err err;

    while (*args && *args != ' ' && *args != '\t')
        args++;
    if (*args)
        *args++ = '\0';
    while (*args == ' ' || *args == '\t')
        args++;
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "?") == 0) {
        usage(stdout);
    } else if (strcmp(cmd, "quit") == 0 || strcmp(cmd, "exit") == 0 || strcmp(cmd, "q") == 0) {
        return 1;
    } else if (strcmp(cmd, "reset") == 0) {
        chat_reset(r->c);
        fprintf(stderr, "(conversation reset)\n");
    } else if (strcmp(cmd, "regen") == 0) {
        r->started = 0;     /* regen enters GENERATING at once */
        if (chat_regen(r->c, &err) != RWKV_OK)
            cli_errorf("/regen: %s", err.msg);
        else
            run_reply(r);
    } else if (strcmp(cmd, "set") == 0) {
        cmd_set(r, args);
    } else if (strcmp(cmd, "show") == 0) {
        show(r);
    } else if (strcmp(cmd, "state") == 0) {
        if (*args == '\0')
            cli_errorf("usage: /state FILE");
        else if (chat_load_state_file(r->c, args, &err) != RWKV_OK)
            cli_fail(&err);
        else
            fprintf(stderr, "(started over from %s)\n", args);
    } else {
        cli_errorf("unknown command '/%s' (try /help)", cmd);
    }
    return 0;
}

/* ---- main ------------------------------------------------------------------------- */

int
cmd_chat(int argc, char **argv)
{
    struct chat_cli *a = calloc(1, sizeof *a);
    rwkv_model *m = NULL;
    tok *t = NULL;
    chat *c = NULL;
    chat_config cfg;
    struct repl r;
    rwkv_open_opts oo = { 0 };
    rwkv_err err;
    struct sigaction sa, old_sa;
    char *line = NULL;
    size_t cap = 0;
    int rc = 0, was_random;

    if (a == NULL)
        return 1;
    cli_opts_init(&a->o);
    rc = parse_args(a, argc, argv);
    if (rc != 0) {
        rc = rc == 1 ? 0 : 2;
        goto out;
    }
    oo.strategy = a->o.strategy;
    oo.n_threads = a->o.threads;
    if ((a->o.demo ? rwkv_model_open_demo(0, &oo, &m, &err)
                   : rwkv_model_open(a->o.model, &oo, &m, &err)) != RWKV_OK) {
        rc = cli_fail(&err);
        goto out;
    }
    if (cli_open_tokenizer(&a->o, rwkv_model_info(m)->n_vocab, &t) != 0) {
        rc = 1;
        goto out;
    }
    chat_config_init(&cfg);
    cfg.samp = a->o.samp;
    cfg.samp_set = a->o.samp_set;
    cfg.greeting = a->no_greeting ? "" : a->greeting;
    cfg.state_path = a->o.state;
    for (size_t i = 0; i < a->n_stop; i++)
        cfg.stop[i] = a->stop[i];
    cfg.n_stop = a->n_stop;
    cfg.banned = a->ban;
    cfg.n_banned = a->n_ban;
    r.a = a;
    r.interactive = isatty(STDIN_FILENO);
    {
        chat_callbacks cb = { reply_text, reply_phase, reply_done, &r };
        if (chat_create(m, t, &cfg, &cb, &c, &err) != RWKV_OK) {
            rc = cli_fail(&err);
            goto out;
        }
    }
    r.c = c;
    chat_seed(c, &was_random);
    if (was_random)
        fprintf(stderr, "(random seed %llu; --seed %llu repeats this chat)\n",
                (unsigned long long)chat_seed(c, NULL), (unsigned long long)chat_seed(c, NULL));

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;   /* no SA_RESTART: Ctrl-C at the prompt interrupts getline */
    sigaction(SIGINT, &sa, &old_sa);

    /* the greeting, fed up front so the first reply's stats are its own */
    sig_chat = c;
    sig_in_prime = 1;
    if (chat_prime(c, &err) != RWKV_OK) {
        sig_in_prime = 0;
        if (err.code != RWKV_ECANCEL)
            rc = cli_fail(&err);
        goto out_sig;
    }
    sig_in_prime = 0;
    if (sig_quit)
        goto out_sig;
    if (r.interactive) {
        fputs(chat_greeting(c), stdout);
        fprintf(stderr, "(/help lists the commands; Ctrl-C stops a reply; /quit or Ctrl-D leaves)\n");
    }

    for (;;) {
        ssize_t n;
        if (r.interactive) {
            fputs("User: ", stdout);
            fflush(stdout);
        }
        errno = 0;
        n = sig_quit ? -1 : getline(&line, &cap, stdin);
        if (n < 0 || sig_quit) {
            if (r.interactive)
                fputc('\n', stdout);
            break;
        }
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (line[0] == '/' && line[1] != '/') {
            if (command(&r, line))
                break;
            continue;
        }
        {
            const char *msg = line[0] == '/' ? line + 1 : line;
            size_t len = (size_t)n - (size_t)(msg - line);
            r.started = 0;
            if (chat_submit(c, msg, len, &err) != RWKV_OK) {
                if (err.code == RWKV_EINVAL && strstr(err.msg, "say something"))
                    fprintf(stderr, "!!! Error: please say something !!!\n");
                else
                    cli_fail(&err);
                continue;
            }
        }
        if (run_reply(&r) != 0)
            continue;   /* the message was dropped; the chat goes on */
    }
out_sig:
    sigaction(SIGINT, &old_sa, NULL);
    sig_chat = NULL;
out:
    free(line);
    chat_destroy(c);
    tok_close(t);
    rwkv_model_close(m);
    for (size_t i = 0; i < a->n_stop; i++)
        free(a->stop[i]);
    free(a);
    fflush(stdout);
    return rc;
}
