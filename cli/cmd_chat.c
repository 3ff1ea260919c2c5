/*
** cmd_chat.c -- `rwkv-tui chat`: the chat demo as a line-mode REPL on
** stdin/stdout.  The chat engine and the session store are driven by the
** session runtime (storage/session.h), shared with the full-screen client;
** this file keeps the REPL: options, the input loop, the /command table,
** and how things are printed.
**
** One input line is one message.  Replies stream to stdout as
** "Assistant: <text>\n\n"; prompts ("User: "), the greeting and command
** feedback appear only when stdin is a terminal, so a pipe gets just the
** replies.  Messages about problems go to stderr and the chat goes on.
**
** Ctrl-C: during a reply, SIGINT cancels it (sess_cancel is async-signal-
** safe) and the reply stops at the next token, keeping what was generated
** -- from the moment the line asking for it (a message, /regen, /continue)
** is taken, before the reply starts too (the runtime's cancel rule,
** sess_expect_reply: then as at its first step); at the prompt, SIGINT
** (without SA_RESTART there: sigint_restart) makes the read (read_line)
** fail and the command exits 0, as EOF does; a read that fails otherwise
** (stdin closed, EIO) is one line and exit status 1.  SIGTERM and SIGHUP
** (the terminal closed) stop a reply the same way, keep it as far as it
** streamed (and a message whose reply had not started), end the chat
** cleanly, and are raised again at the end: the exit status is the
** signal's, nothing streamed is lost (it was up to a second's worth).  On
** every way out, exchanges a failed save kept out are written once more;
** any still not saved are one line on stderr, and exit status 1
** (leave_saved).  A failed write to stdout ends the chat too (out_flush).
** While --resume / --session opens the session (a replay where its states
** are not in the file), Ctrl-C cancels the open, the session as it was:
** "chat: replay cancelled", exit status 130 (SIGTERM: the same line, then
** the signal's status); so does Ctrl-C while a new chat's greeting is fed
** (before the first prompt): one line, exit status 130.
**
** On a terminal (stdin and stdout) the line is read by the line editor
** (lineedit.h: arrow keys, history, lines of any length, the terminal in
** its raw mode only while the line is read); --plain-input or TERM=dumb
** keep the terminal's own line mode, whose 4095-byte limit read_input
** then checks.  Ctrl-C at the prompt is the same SIGINT either way.
**
** Saved sessions (only with --db, --new, --session or --resume -- plain
** `chat` touches no database): what is saved when, the fork rule and the
** replay rule are the runtime's (storage/session.h).
*/
#include "cli.h"
#include "lineedit.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <poll.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>

#include "../core/chat/chat.h"
#include "../core/clock.h"
#include "../core/io/ckpt.h"
#include "../core/io/fileio.h"
#include "../core/chat/rng.h"
#include "../storage/session.h"
#include "../storage/store.h"
#include "../core/chat/freegen.h"

/* chat's way to save nothing (the hint of a database it may not write) */
#define CHAT_NODB "leave out --db, --new, --session and --resume to chat without saving"

/* The session whose reply SIGINT cancels, and "SIGINT seen at the prompt". */
static sess *volatile         sig_sess;
static volatile sig_atomic_t  sig_in_reply;   /* Ctrl-C cancels the reply */
static volatile sig_atomic_t  sig_in_prime;   /* Ctrl-C while the greeting is fed: quit */
static volatile sig_atomic_t  sig_quit;
static volatile sig_atomic_t  sig_in_gen;     /* Ctrl-C stops a +gen / +++ / ++ */
static volatile sig_atomic_t  sig_gen_cancel;
static volatile sig_atomic_t  sig_end;        /* SIGTERM or SIGHUP seen: its number */
static volatile sig_atomic_t  sig_in_open;    /* Ctrl-C cancels the resume's open (replay) */
static volatile sig_atomic_t  sig_open_int;   /* ... and was pressed: leave with 130 */

/* SIGTERM / SIGHUP: the reply (or greeting, or free generation) stops,
** kept as saved so far; the loop ends at its next turn. */
static void
on_sigend(int sig)
{
    sig_end = sig;
    sig_quit = 1;
    sig_gen_cancel = 1;
    if (sig_sess != NULL)
        sess_abandon(sig_sess);
}

static void
on_sigint(int sig)
{
    (void)sig;
    if ((sig_in_reply || sig_in_prime || sig_in_open) && sig_sess != NULL)
        sess_cancel(sig_sess);
    if (sig_in_open)
        sig_open_int = 1;
    if (sig_in_gen)
        sig_gen_cancel = 1;
    else if (!sig_in_reply)
        sig_quit = 1;
}

/*
** Ctrl-C interrupts the read at the prompt (RESTART 0: no SA_RESTART, so
** the read fails and the loop looks at the flags), but not a write (RESTART
** 1): a reply's text blocked by a stopped terminal (C-s) or a slow link goes
** out when it can, where EINTR lost it and ended the chat with "stdout:
** Interrupted system call" and exit 1.  (SIGTERM and SIGHUP never restart:
** they end the chat, a blocked write included.)
*/
static void
sigint_restart(int restart)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = restart ? SA_RESTART : 0;
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
}

static void commands_help(FILE *f);

static void
usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " chat (--model PATH | --demo) [options]\n"
            "       " PROG " chat [--model PATH] (--session ID | --resume) [options]\n"
            "Line-mode chat on stdin/stdout, the chat demo's behaviour: each line is a\n"
            "message, framed as \"User: MSG\\n\\nAssistant:\"; the reply streams to stdout\n"
            "and ends at a blank line (\"\\n\\n\") or --max-tokens.  Works in a pipe;\n"
            "stdout that cannot be written (a full disk) or stdin that cannot be read ends\n"
            "it (one line, exit status 1); a closed pipe ends it with SIGPIPE, like cat.\n\n"
            "Chat options:\n"
            "  --stats             after each reply print prefill/decode speed on stderr\n"
            "  --plain-input       on a terminal, read lines in its own line mode, without\n"
            "                      the line editor (so does TERM=dumb)\n");
    cli_frame_help(f);
    fprintf(f,
            "\nSaved sessions (without --db, --new, --session or --resume the chat is not\n"
            "saved and no database is touched):\n"
            "  --new TITLE         save this chat as a new session TITLE\n"
            "  --session ID        continue session ID (see '" PROG " sessions list') from\n"
            "                      the end of its current branch\n"
            "  --resume            continue the most recently used session\n"
            "  --db PATH           the session database (default\n"
            "                      $XDG_DATA_HOME/rwkv-tui/rwkv-tui.db); --db alone saves\n"
            "                      to a new session titled by the first message\n"
            "  Every turn is saved as it completes, with the model state, so a session\n"
            "  resumes without re-reading the conversation; a reply cut short (Ctrl-C, a\n"
            "  crash) is kept and marked interrupted.  A resumed session uses its own\n"
            "  model (--model may be left out), state file and sampling values (options\n"
            "  given on the command line win; --state only names a copy of its own state\n"
            "  file, moved since: another one is refused).  A saved state made by other\n"
            "  weights or another precision is not used: the conversation's tokens are\n"
            "  replayed and stderr says how many.  A model of another shape is refused.\n"
            "  Pass the session's --seed again to continue its sampling sequence exactly.\n"
            "  A save that fails (a full disk, a lock held by another program) is tried\n"
            "  again with the next message and once more when the chat ends; what is\n"
            "  still not saved then is one line on stderr, and the exit status is 1.\n\n");
    commands_help(f);
    fputc('\n', f);
    cli_opts_help(f, 1);
    cli_opts_help_client(f, 0);
}

/* ---- options --------------------------------------------------------------- */

struct chat_cli {
    struct cli_opts  o;
    struct cli_frame fr;            /* --greeting, --no-greeting, --think, --stop, --ban */
    int              stats;
    int              plain_input;   /* --plain-input: no line editor on a terminal */
    /* saved sessions: --session ID, --resume, --new TITLE (see the top) */
    int64_t          session_id;    /* --session ID, 0 = none */
    int              resume;
    const char      *new_title;
};

/* 0 ok, 1 --help printed, 2 usage error (printed). */
static int
parse_args(struct chat_cli *a, int argc, char **argv)
{
    int help = 0;

    for (int i = 1; i < argc;) {
        const char *v;
        int r;

        /* --help once the whole line is read: a stray word or an unknown
        ** option beside it is still a usage error (cli_parse_args) */
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            help = 1;
            i++;
            continue;
        }
        r = cli_opts_parse(&a->o, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        r = cli_frame_parse(&a->fr, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--stats") == 0) {
            a->stats = 1;
            i++;
        } else if (strcmp(argv[i], "--plain-input") == 0) {
            a->plain_input = 1;
            i++;
        } else if (strcmp(argv[i], "--resume") == 0) {
            a->resume = 1;
            i++;
        } else if ((r = cli_take(argc, argv, &i, "session", &v)) != 0) {
            if (r < 0)
                return 2;
            if (cli_int_check("session", v, 1, INT64_MAX) != 0)
                return 2;
            a->session_id = strtoll(v, NULL, 10);
        } else if ((r = cli_take(argc, argv, &i, "new", &v)) != 0) {
            if (r < 0)
                return 2;
            if (v[0] == '\0' || strlen(v) >= STORE_TITLE_MAX) {
                cli_errorf("option --new: a title must have 1..%d bytes", STORE_TITLE_MAX - 1);
                return 2;
            }
            a->new_title = v;
        } else {
            cli_bad_arg("chat", argv[i], 1);
            return 2;
        }
    }
    if (help) {
        usage(stdout);
        return 1;
    }
    if ((a->session_id != 0) + a->resume + (a->new_title != NULL) > 1) {
        cli_errorf("chat: use one of --session ID, --resume and --new TITLE");
        return 2;
    }
    if (a->o.demo && a->o.model != NULL) {
        cli_errorf("chat: --model and --demo exclude each other");
        return 2;
    }
    /* --config and --theme are the full-screen client's: checked, not used */
    if (cli_opts_check(&a->o, "chat") != CLI_ARGS_GO)
        return 2;
    /* a resumed session knows its model */
    if (!a->o.demo && a->o.model == NULL && a->session_id == 0 && !a->resume) {
        char hint[STORE_PATH_MAX + STORE_TITLE_MAX + 160];
        cli_errorf("chat: --model PATH (or --demo) is required");
        if (sess_saved_hint(a->o.db, hint, sizeof hint))   /* the sessions it may resume */
            cli_errorf("%s", hint);
        return 2;
    }
    return 0;
}

/* ---- the REPL ---------------------------------------------------------------------- */

/* Longest message excerpt in /history (bytes). */
#define CHAT_EXCERPT_MAX 72
/* Exchanges of a resumed session shown on a terminal. */
#define CHAT_RESUME_SHOW 3
/* Longest input line kept (bytes): the longest message and its line end
** ("\r\n"); a longer line is refused whole (read_line). */
#define CHAT_LINE_MAX ((size_t)CHAT_MAX_MESSAGE + 2)
/* The longest line a terminal in its line mode (canonical) hands over, its
** newline included: Linux keeps 4095 bytes of a line and drops the rest
** before a program can read it (paste marks included).  A line that long
** from a terminal was cut (read_input); 0 where the limit is not known. */
#if defined(__linux__)
#define CHAT_TTY_LINE 4096
#else
#define CHAT_TTY_LINE 0
#endif
/* How long the rest of a paste whose line the terminal cut may take to
** come (ms): it is already written, only the terminal's buffer held it. */
#define CHAT_PASTE_REST_MS 200

struct repl {
    struct chat_cli *a;
    rwkv_model      *m;            /* the model (borrowed; /save) */
    const tok       *t;            /* its tokenizer (borrowed; +gen) */
    fgen            *gen;          /* +gen / +++ / ++ (freegen.h), NULL before */
    uint64_t         n_gen;        /* free generations so far (their seeds) */
    sess            *s;
    chat            *c;            /* sess_chat(s) */
    int              interactive;  /* stdin is a terminal */
    int              paste;        /* ... and stdout: bracketed paste at the prompt */
    int              started;      /* the running reply printed "Assistant:" */
    int64_t          alt_ids[SESS_MAX_ALTS];   /* /regen N: the saved alternatives */
    int              n_alt_ids;
    int              alt_k, alt_n; /* the header the next reply prints (alt_n > 1) */
    int              out_failed;   /* a write to stdout failed: the chat ends (out_flush) */
    size_t           tty_line;     /* stdin a terminal in line mode: its line limit, else 0 */
    int              paste_lost;   /* a cut paste's end mark may still come (read_input) */
    ledit           *ed;           /* the line editor (a terminal), NULL: read_input */
};

/*
** Text that comes from a session -- titles, messages, model and vocabulary
** paths, read from a database or an imported file -- goes to a terminal by
** the display rule (cli_write_text: an escape sequence in it never reaches
** the terminal), to a pipe as it is (cli_errorf's lines are too).
*/
static void
put_text(FILE *f, const char *text)
{
    cli_write_text(f, text, strlen(text));
}

/* Print TEXT on one line: at most CHAT_EXCERPT_MAX bytes (on a character
** boundary), line breaks as spaces, other control characters as U+FFFD;
** by the display rule on a terminal (put_text). */
static void
print_excerpt(FILE *f, const char *text)
{
    char out[4 * CHAT_EXCERPT_MAX + 8];
    size_t len = strlen(text), o = 0;
    int more = 0;

    while (*text == '\n' || *text == ' ') {
        text++;
        len--;
    }
    if (len > CHAT_EXCERPT_MAX) {
        len = CHAT_EXCERPT_MAX;
        while (len > 0 && ((unsigned char)text[len] & 0xC0) == 0x80)
            len--;
        more = 1;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\n' || ch == '\t' || ch == '\r') {
            out[o++] = ' ';
        } else if (ch < 0x20 || ch == 0x7f) {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
        } else {
            out[o++] = (char)ch;
        }
    }
    if (more) {
        memcpy(out + o, " ...", 4);
        o += 4;
    }
    out[o] = '\0';
    put_text(f, out);
}

/* ---- the runtime's and the chat's callbacks ---------------------------------------- */

/*
** Flush stdout.  The first failed write (a full disk, EIO; a closed pipe
** ends the process by SIGPIPE) stops the reply or free generation at its
** next token, as Ctrl-C does (a saved session keeps it, interrupted), and
** the loop ends there: nobody reads the rest, so no more replies are made
** to be lost.  cli_stdout_close says why at the end, with exit status 1.
*/
static void
out_flush(struct repl *r)
{
    if (cli_stdout_flush() == 0 || r->out_failed)
        return;
    r->out_failed = 1;
    sess_cancel(r->s);
    sig_gen_cancel = 1;
}

static void
on_note(void *ud, int is_err, const char *msg)
{
    (void)ud;
    if (is_err) {
        cli_errorf("%s", msg);
    } else {
        put_text(stderr, msg);
        fputc('\n', stderr);
    }
}

static void
reply_phase(void *ud, int phase)
{
    struct repl *r = ud;

    if (phase == CHAT_GENERATING) {
        r->started = 1;
        if (r->alt_n > 1)
            printf("-- alternative %d/%d --\n", r->alt_k, r->alt_n);
        r->alt_n = 0;
        printf("%s:", chat_bot_name(sess_chat(r->s)));
        out_flush(r);
    }
}

static void
reply_text(void *ud, const char *text, size_t len)
{
    cli_write_text(stdout, text, len);
    out_flush(ud);
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

/* The reply's generation has ended (its save follows, slow when it fails
** or waits for a lock): a Ctrl-C from here on has no reply to stop, so it
** is one at the prompt -- the chat ends once the save is done, where a
** cancel would find nothing and the key would be lost.  (Between two
** alternatives of /regen N, alt_begin makes it the next one's cancel.) */
static void
reply_done(void *ud, const chat_turn *t)
{
    struct repl *r = ud;

    sig_in_reply = 0;

    fputs("\n\n", stdout);
    out_flush(r);
    if (t->stop == CHAT_STOP_CANCEL && !r->out_failed)
        fprintf(stderr, "(reply interrupted after %zu tokens)\n", t->n_reply);
    if (r->a->stats)
        print_stats(&t->stats);
}

/* From here Ctrl-C cancels the reply, not the chat; one that landed just
** before, seen as one at the prompt (sig_quit), is that cancel. */
static void
int_cancels(struct repl *r)
{
    sig_in_reply = 1;
    if (sig_quit && !sig_end) {
        sig_quit = 0;
        if (sig_end)            /* a SIGTERM / SIGHUP just now: still leave */
            sig_quit = 1;
        sess_cancel(r->s);
    }
}

/*
** The line just taken asks for a reply: from here Ctrl-C cancels it (the
** runtime's cancel rule, sess_expect_reply, keeps a cancel that lands
** before the reply starts), not the chat.
*/
static void
expect_reply(struct repl *r)
{
    sig_sess = r->s;
    sess_expect_reply(r->s);
    int_cancels(r);
}

/* Run the queued reply with SIGINT routed to cancel; NOT_STARTED is said
** when it was cancelled before generating.  0, or 1 (printed). */
static int
run_reply_as(struct repl *r, const char *not_started)
{
    rwkv_err err;
    int rc;

    sig_sess = r->s;
    sig_in_reply = 1;
    rc = sess_run(r->s, &err);
    sig_in_reply = 0;
    if (rc != RWKV_OK)
        cli_fail(&err);
    else if (!r->started && !sess_started(r->s) && !sig_end)
        fprintf(stderr, "%s\n", not_started);   /* (a SIGTERM / SIGHUP: sess_abandon kept it) */
    return rc != RWKV_OK;
}

static int
run_reply(struct repl *r)
{
    return run_reply_as(r, "(cancelled before the reply started; message dropped)");
}

/* On a terminal, the end of the conversation (after a resume). */
static void
show_tail(struct repl *r)
{
    size_t nt = chat_n_turns(r->c), from = nt > CHAT_RESUME_SHOW ? nt - CHAT_RESUME_SHOW : 0;

    if (!r->interactive)
        return;
    if (from > 0)
        printf("(%zu earlier exchanges: /history lists them)\n\n", from);
    for (size_t i = from; i < nt; i++) {
        const chat_turn *ct = chat_turn_at(r->c, i);
        printf("%s: ", chat_user_name(r->c));
        put_text(stdout, ct->user);
        printf("\n\n%s:", chat_bot_name(r->c));
        cli_write_text(stdout, ct->reply ? ct->reply : "", ct->reply_len);
        printf("%s\n\n", ct->interrupted ? " [interrupted]" : "");
    }
    cli_stdout_flush();
}

/* ---- commands ------------------------------------------------------------------- */

/* 0 when the chat has a session database, else -1 (printed for /CMD). */
static int
need_store(struct repl *r, const char *cmd)
{
    if (sess_store(r->s) == NULL) {
        cli_errorf("/%s: this chat is not saved (start it with --new TITLE, --session ID, "
                   "--resume or --db)", cmd);
        return -1;
    }
    return 0;
}

/* 0 when the chat is saved to a session, else -1 (printed). */
static int
need_session(struct repl *r, const char *cmd)
{
    if (need_store(r, cmd) != 0)
        return -1;
    if (sess_id(r->s) == 0) {
        cli_errorf("/%s: nothing saved yet (the session starts with the first message)", cmd);
        return -1;
    }
    return 0;
}

static int
cmd_help(struct repl *r, char *args)
{
    (void)r;
    (void)args;
    commands_help(stdout);
    cli_stdout_flush();
    return 0;
}

static int
cmd_quit(struct repl *r, char *args)
{
    (void)r;
    (void)args;
    return 1;
}

static int
cmd_reset(struct repl *r, char *args)
{
    rwkv_err err;
    int saved = sess_store(r->s) != NULL && sess_id(r->s) != 0;

    (void)args;
    if (sess_reset(r->s, &err) != RWKV_OK)
        cli_fail(&err);
    else if (saved && sess_id(r->s) != 0)
        fprintf(stderr, "(conversation reset: the next message starts a new branch of session %lld)\n",
                (long long)sess_id(r->s));
    else if (!saved)
        fprintf(stderr, "(conversation reset)\n");
    /* (saved and now no session: deleted elsewhere, as sess_reset said) */
    return 0;
}

/* The saved row of the alternative just finished (0 = not saved). */
static void
alt_take_id(struct repl *r)
{
    int64_t user, reply;

    sess_last_ids(r->s, &user, &reply);
    if (reply != 0 && r->n_alt_ids < SESS_MAX_ALTS &&
        (r->n_alt_ids == 0 || r->alt_ids[r->n_alt_ids - 1] != reply))
        r->alt_ids[r->n_alt_ids++] = reply;
}

/* sess_regen_n's callback: alternative K of N begins (its header, when
** N > 1, goes before its "Assistant:": not at all when it is refused). */
static void
alt_begin(void *ud, int k, int n)
{
    struct repl *r = ud;

    if (k > 1)
        alt_take_id(r);
    /* a Ctrl-C since the last alternative's end (reply_done) stops the
    ** batch here, as one during that alternative would have; so does a
    ** failed write of its end (out_flush) */
    int_cancels(r);
    if (r->out_failed)
        sess_cancel(r->s);
    r->started = 0;     /* a regeneration enters GENERATING at once */
    r->alt_k = k;
    r->alt_n = n;
}

/* After /regen N (N > 1): how many were made, and their turns. */
static void
alt_summary(struct repl *r, int n, int done)
{
    alt_take_id(r);
    if (done < n)
        fprintf(stderr, "(alternatives stopped: %d of %d made)\n", done, n);
    if (sess_store(r->s) == NULL) {
        fprintf(stderr, "(this chat is not saved: it goes on from the last alternative, the "
                        "others were only printed)\n");
        return;
    }
    if (r->n_alt_ids == 0)
        return;
    fprintf(stderr, "(saved beside the first reply as turns");
    for (int i = 0; i < r->n_alt_ids; i++)
        fprintf(stderr, " #%lld", (long long)r->alt_ids[i]);
    fprintf(stderr, "; the chat goes on from the last: /fork TURN goes on from another)\n");
}

/* /regen [N]: N alternative replies (sess_regen_n), 1 when not given. */
static int
cmd_regen(struct repl *r, char *args)
{
    rwkv_err err;
    const char *end = args;
    long long n = 1;
    int done = 0, rc;

    if (*args != '\0') {
        int bad = cli_strtoll(args, &n, &end) != 0;
        while (*end == ' ' || *end == '\t')
            end++;
        if (bad || *end != '\0' || n < 1 || n > SESS_MAX_ALTS) {
            cli_errorf("usage: /regen [N] (N alternatives, 1..%d; got '%s')", SESS_MAX_ALTS,
                       args);
            return 0;
        }
    }
    r->n_alt_ids = 0;
    expect_reply(r);
    rc = sess_regen_n(r->s, (int)n, alt_begin, &done, &err);
    sig_in_reply = 0;
    r->alt_n = 0;
    if (rc != RWKV_OK && !(rc == RWKV_ECANCEL && done == 0))
        cli_errorf("/regen: %s", err.msg);
    else if (!sess_started(r->s) && done == 0)
        fprintf(stderr, "(cancelled before the reply started; nothing changed)\n");
    else if (!sess_started(r->s))
        fprintf(stderr, "(alternative %d cancelled before its first token: not kept)\n",
                done + 1);
    if (n > 1 && done > 0)
        alt_summary(r, (int)n, done);
    return 0;
}

/* /continue: the last reply goes on (sess_continue).  It is printed again
** whole: an uncut run would have held back text at its end (a "\n" before
** the "\n\n" stop string), which goes back into play, so the new block is
** the reply exactly as uncut -- the one printed before stays as it was. */
static int
cmd_continue(struct repl *r, char *args)
{
    rwkv_err err;

    (void)args;
    r->started = 0;
    expect_reply(r);
    if (sess_continue(r->s, &err) != RWKV_OK) {
        sig_in_reply = 0;
        if (err.code == RWKV_ECANCEL)  /* in the replay of the state it starts from */
            fprintf(stderr, "(cancelled before the reply went on: it is as it was)\n");
        else
            cli_errorf("/continue: %s", err.msg);
    } else
        run_reply_as(r, "(cancelled before the reply went on: it is as it was)");
    return 0;
}

static int
cmd_show(struct repl *r, char *args)
{
    const rwkv_sampling *s = chat_sampling(r->c);
    unsigned set = chat_sampling_set(r->c);
    int was_random;
    uint64_t seed = chat_seed(r->c, &was_random);

    (void)args;
    for (int i = 0; params_table[i].name != NULL; i++) {
        char buf[48];
        if (i == params_find("seed")) {
            printf("  %-12s %llu%s\n", params_table[i].name, (unsigned long long)seed,
                   was_random ? " (random)" : "");
            continue;
        }
        params_format(s, i, buf, sizeof buf);
        /* the value padded only when a note follows it: no trailing blanks */
        if (set & PARAMS_BIT(i))
            printf("  %-12s %-10s (set)\n", params_table[i].name, buf);
        else
            printf("  %-12s %s\n", params_table[i].name, buf);
    }
    cli_stdout_flush();
    return 0;
}

static int
cmd_set(struct repl *r, char *args)
{
    char *name = strtok(args, " \t"), *value = strtok(NULL, " \t"), *extra = strtok(NULL, " \t");
    rwkv_sampling s = *chat_sampling(r->c);
    rwkv_err err;
    int i;

    if (name == NULL || value == NULL || extra != NULL) {
        cli_errorf("usage: /set NAME VALUE (names: see /show)");
        return 0;
    }
    i = params_find(name);
    if (i < 0) {
        cli_errorf("/set: unknown parameter '%s' (see /show)", name);
        return 0;
    }
    if (params_set(&s, i, value, &err) != RWKV_OK) {
        cli_errorf("/set %s", err.msg);
        return 0;
    }
    sess_set_sampling(r->s, &s, chat_sampling_set(r->c) | PARAMS_BIT(i));
    if (r->interactive) {
        char buf[48];
        params_format(&s, i, buf, sizeof buf);
        fprintf(stderr, "%s = %s\n", params_table[i].name, buf);
    }
    return 0;
}

static int
cmd_history(struct repl *r, char *args)
{
    store_turn *turns = NULL;
    size_t n = 0;
    rwkv_err err;

    (void)args;
    if (need_session(r, "history") != 0)
        return 0;
    if (sess_head(r->s) == 0) {
        printf("session %lld: ", (long long)sess_id(r->s));
        put_text(stdout, sess_title(r->s));
        printf(" -- no turns yet\n");
        cli_stdout_flush();
        return 0;
    }
    if (store_branch_read(sess_store(r->s), sess_head(r->s), &turns, &n, &err) != RWKV_OK) {
        store_session ss;
        rwkv_err e2;
        /* deleted elsewhere: no ids to show; the next message saves it anew */
        if (store_session_get(sess_store(r->s), sess_id(r->s), &ss, &e2) != RWKV_OK &&
            e2.code == RWKV_EINVAL)
            cli_errorf("/history: session %lld was deleted elsewhere: this conversation is saved "
                       "again, as a new session, with the next message", (long long)sess_id(r->s));
        else
            cli_fail(&err);
        return 0;
    }
    printf("session %lld: ", (long long)sess_id(r->s));
    put_text(stdout, sess_title(r->s));
    putchar('\n');
    for (size_t i = 0; i < n; i++) {
        const store_turn *t = &turns[i];
        printf("  #%-6lld %-9s ", (long long)t->id, store_role_name(t->role));
        if (t->role == STORE_ROLE_SYSTEM)
            printf("(greeting, %zu tokens)", t->n_tokens);
        else
            print_excerpt(stdout, t->text);
        if (t->interrupted)
            printf(" [interrupted]");
        if (t->n_children > 1)
            printf(" [%d branches]", t->n_children);
        putchar('\n');
    }
    cli_stdout_flush();
    store_branch_free(turns, n);
    return 0;
}

static int
cmd_fork(struct repl *r, char *args)
{
    const char *end = args;
    long long turn = 0;
    int64_t at, at0 = 0, live = 0;
    char why[RWKV_ERR_MSG];
    rwkv_err err;
    int bad = cli_strtoll(args, &turn, &end) != 0;

    while (*end == ' ' || *end == '\t')
        end++;
    if (bad || *end != '\0' || turn <= 0) {
        cli_errorf("usage: /fork TURN (a turn id from /history)");
        return 0;
    }
    if (need_session(r, "fork") != 0)
        return 0;
    /* a reply still being written at or above TURN moves the fork point
    ** (sess_fork_point): asked first, only to say so */
    if (sess_fork_point_ex(sess_store(r->s), sess_id(r->s), turn, &at0, &live, &err) != RWKV_OK)
        live = 0;
    if (sess_fork(r->s, turn, &at, &err) != RWKV_OK) {
        cli_errorf("/fork: %s", err.msg);
        return 0;
    }
    if (live != 0 && at == at0) {
        sess_fork_live_why(sess_store(r->s), live, why, sizeof why);
        fprintf(stderr, "(%s; the next message starts a new branch)\n", why);
    } else if (at != turn)
        fprintf(stderr, "(branched before message %lld: the next message starts a new branch)\n",
                turn);
    else
        fprintf(stderr, "(branched at turn %lld: the next message starts a new branch)\n", turn);
    return 0;
}

static int
cmd_sessions_list(struct repl *r, char *args)
{
    store_session *ss = NULL;
    size_t n = 0;
    rwkv_err err;

    (void)args;
    if (need_store(r, "sessions") != 0)
        return 0;
    if (store_session_list(sess_store(r->s), &ss, &n, &err) != RWKV_OK) {
        cli_fail(&err);
        return 0;
    }
    if (n == 0)
        printf("no saved sessions\n");
    for (size_t i = 0; i < n; i++) {
        printf("%c %5lld  %4lld turns  ", ss[i].id == sess_id(r->s) ? '*' : ' ',
               (long long)ss[i].id, (long long)ss[i].n_turns);
        put_text(stdout, ss[i].title);
        putchar('\n');
    }
    cli_stdout_flush();
    free(ss);
    return 0;
}

static int
cmd_state(struct repl *r, char *args)
{
    char pth[4096];
    rwkv_err err;

    /* "NAME" for NAME.pth, as --state takes it (the demo's STATE_NAME) */
    if (*args != '\0')
        args = (char *)ckpt_state_file_name(args, pth, sizeof pth);
    if (*args == '\0') {
        cli_errorf("usage: /state FILE");
    } else if (sess_switch_state(r->s, args, 0, 0, &err) != RWKV_OK) {
        cli_fail(&err);
    } else if (sess_store(r->s) != NULL) {
        fprintf(stderr, "(started over from %s; the next message starts a new session)\n", args);
    } else {
        fprintf(stderr, "(started over from %s)\n", args);
    }
    return 0;
}

/* /save FILE: the current state as a state file (a persona made from the
** conversation; loads with --state / /state, and in the pip package). */
static int
cmd_save(struct repl *r, char *args)
{
    char tgt[4096];
    rwkv_err err;

    if (*args == '\0') {
        cli_errorf("usage: /save FILE");
    } else if (sess_state_save(r->s, args, &err) != RWKV_OK) {
        cli_errorf("/save: %s", err.msg);   /* never over the model or the database */
    } else if (rwkv_output_target(args, tgt, sizeof tgt) == 0 && strcmp(tgt, args) != 0) {
        /* written through a link (the link kept): the file that changed */
        fprintf(stderr, "(state saved to %s through the link %s: load it with --state %s)\n",
                tgt, args, args);
    } else {
        fprintf(stderr, "(state saved to %s: load it with --state %s)\n", args, args);
    }
    return 0;
}

/* /framing: the framing in use (the session's), one line a field. */
static int
cmd_framing(struct repl *r, char *args)
{
    const framing *f = sess_framing(r->s);
    char *g = framing_greeting_fed(f);     /* as fed: its blank line shown */
    char buf[CHAT_MAX_STOP * (2 * CHAT_MAX_STOP_LEN + 1) + 1], *esc;
    size_t cap;

    (void)args;
    cap = g ? 2 * strlen(g) + 1 : 1;
    esc = malloc(cap);
    if (g == NULL || esc == NULL) {
        free(g);
        free(esc);
        cli_errorf("/framing: out of memory");
        return 0;
    }
    framing_escape(g, esc, cap, 0);
    /* the greeting the chat feeds: none from a state file (the rule is the
    ** runtime's, F8 shows the same) */
    if (!sess_greeting_used(r->s))
        printf("greeting  %s\n", SESS_GREETING_UNUSED);
    else
        printf("greeting  %s%s\n", f->greeting ? "" : "(the demo's) ", esc[0] ? esc : "(none)");
    printf("user      %s\nbot       %s\n", framing_user(f), framing_bot(f));
    printf("think     %s\n", chat_think_name(framing_think(f)));
    framing_stops_text(f, buf, sizeof buf);
    printf("stop      %s\n", f->n_stop ? buf : "\\n\\n (the demo's)");
    framing_ban_text(f, buf, sizeof buf);
    printf("ban       %s\n", f->n_ban ? buf : "(none)");
    free(g);
    free(esc);
    return 0;
}

/* /think [MODE]: the think mode in use, or another from the next message on
** (the conversation is kept, as with other stop strings). */
static int
cmd_think(struct repl *r, char *args)
{
    framing f;
    rwkv_err err;
    int left = 0;

    if (*args == '\0') {
        printf("think     %s\n", chat_think_name(framing_think(sess_framing(r->s))));
        return 0;
    }
    framing_init(&f);
    if (framing_copy(&f, sess_framing(r->s), &err) != RWKV_OK ||
        framing_set_think(&f, args, &err) != RWKV_OK ||
        sess_set_framing(r->s, &f, &left, &err) != RWKV_OK)
        cli_errorf("/think: %s", strncmp(err.msg, "think: ", 7) == 0 ? err.msg + 7 : err.msg);
    else if (r->interactive)
        fprintf(stderr, "think = %s (from the next message on)\n",
                chat_think_name(framing_think(&f)));
    framing_fini(&f);
    return 0;
}

/* The /commands: one table for dispatch and /help. */
static const struct chat_command {
    const char *name, *alias, *args, *help;
    int       (*fn)(struct repl *r, char *args);
} chat_commands[] = {
    { "help", "?", "", "this list", cmd_help },
    { "reset", NULL, "", "forget the conversation (back to the greeting/state); in a saved "
      "session the next message starts a new branch", cmd_reset },
    { "regen", NULL, "[N]", "sample the last reply again (state restored, no prefill; the first after a "
      "resume feeds the message again, unless the resume's replay just fed it), or N "
      "alternatives (up to 16) one after another, each with its own seed; in a saved session "
      "each new reply is saved beside the old; the chat goes on from the last", cmd_regen },
    { "continue", NULL, "", "let the last reply go on where it stopped (max-tokens, Ctrl-C, a "
      "crash), at most max-tokens more, as if never cut; printed again whole; saved in its "
      "place", cmd_continue },
    { "set", NULL, "NAME VALUE", "change a sampling value (see /show; next reply on)", cmd_set },
    { "show", NULL, "", "show the sampling values and the seed", cmd_show },
    { "framing", NULL, "", "show the framing in use: greeting, role names, think mode, stop "
      "strings, bans (a saved session keeps its own)", cmd_framing },
    { "think", NULL, "[MODE]", "show the think mode, or use MODE (off, on, short, long, skip) "
      "from the next message on; the conversation is kept", cmd_think },
    { "state", NULL, "FILE", "start over from a state-tuning file (saved sessions: the next "
      "message starts a new session)", cmd_state },
    { "save", NULL, "FILE", "save the current state as a state file (.pth, the pip package's "
      "layout; --state FILE starts from it)", cmd_save },
    { "history", NULL, "", "the turns of the current branch with their ids", cmd_history },
    { "fork", NULL, "TURN", "continue from turn TURN of this session (ids from /history): the "
      "next message starts a new branch there; on a user turn, the branch "
      "starts before that message (the message is written again)", cmd_fork },
    { "sessions", NULL, "", "the saved sessions (continue one with --session ID)",
      cmd_sessions_list },
    { "quit", "exit", "", "leave (so do EOF and Ctrl-C at the prompt)", cmd_quit },
    { NULL, NULL, NULL, NULL, NULL },
};

static void
commands_help(FILE *f)
{
    fprintf(f, "Commands (a line starting with '/'; '//' sends a literal '/'):\n");
    for (const struct chat_command *c = chat_commands; c->name != NULL; c++) {
        char left[32];
        snprintf(left, sizeof left, "/%s%s%s", c->name, c->args[0] ? " " : "", c->args);
        cli_help_row(f, 21, left, c->help);
    }
    fprintf(f, "ChatRWKV's commands (a '+' and the name, any case): free generation, outside\n"
               "the conversation and not saved; \\n in TEXT is a newline; max-tokens tokens:\n");
    cli_help_row(f, 21, "+gen TEXT", "complete \"\\n\" + TEXT from a fresh state (or the state "
                 "file)");
    cli_help_row(f, 21, "+i TEXT", "the same from ChatRWKV's instruction prompt (\"Below is an "
                 "instruction ... # Instruction: TEXT ... # Response:\")");
    cli_help_row(f, 21, "+qq TEXT", "the same from \"\\nQ: TEXT\\nA:\"");
    cli_help_row(f, 21, "+qa TEXT", "a question outside the conversation: \"User: TEXT\\n\\n"
                 "Assistant:\" right after the greeting (or state file), not stopped at a blank "
                 "line");
    cli_help_row(f, 21, "+++", "continue that generation where it stopped");
    cli_help_row(f, 21, "++", "generate it again from its prompt (a new draw)");
    cli_help_row(f, 21, "+", "another reply to the last message: /regen");
    cli_help_row(f, 21, "+reset", "forget the conversation: /reset");
    cli_help_row(f, 21, "+prompt FILE", "not supported (--greeting TEXT, /state FILE)");
    cli_help_row(f, 21, "-temp=X -top_p=Y", "typed in a message or + command: that reply alone "
                 "samples with them (temperature clamped to 0.2..5), as in ChatRWKV's chat.py; "
                 "taken out of the text");
    fprintf(f,
            "Ctrl-C during a reply stops that reply and keeps what was generated;\n"
            "SIGTERM or SIGHUP (a closed terminal) does too, then ends the chat.\n"
            "With a state file (--state or /state) no greeting is fed and the demo's\n"
            "state defaults apply unless set: top-p 0.2, presence 0.3, frequency 0.3.\n");
}

/* 1 = quit, 0 = go on. */
static int
command(struct repl *r, char *line)
{
    char *cmd = line + 1, *args = cmd;
    size_t n;

    while (*args && *args != ' ' && *args != '\t')
        args++;
    if (*args)
        *args++ = '\0';
    /* blanks around the arguments are not part of them: "/save x.pth " saves
    ** x.pth, not "x.pth " (a name that ends in a blank cannot be given) */
    while (*args == ' ' || *args == '\t')
        args++;
    n = strlen(args);
    while (n > 0 && (args[n - 1] == ' ' || args[n - 1] == '\t'))
        args[--n] = '\0';
    for (const struct chat_command *c = chat_commands; c->name != NULL; c++) {
        if (strcmp(cmd, c->name) != 0 && (c->alias == NULL || strcmp(cmd, c->alias) != 0) &&
            (c->fn != cmd_quit || strcmp(cmd, "q") != 0))
            continue;
        /* a word after a command without arguments is a mistake: nothing done */
        if (c->args[0] == '\0' && *args != '\0') {
            cli_errorf("/%s takes no argument", cmd);
            return 0;
        }
        return c->fn(r, args);
    }
    cli_errorf("unknown command '/%s' (try /help)", cmd);
    return 0;
}

/* ---- main ------------------------------------------------------------------------- */

/* The chat config from the options (borrowing from A). */
static void
chat_config_from(const struct chat_cli *a, chat_config *cfg)
{
    chat_config_init(cfg);
    cfg->samp = a->o.samp;
    cfg->samp_set = a->o.samp_set;
    cfg->state_path = a->o.state;
    cli_frame_apply(&a->fr, cfg);
}

static void
gen_text(void *ud, const char *text, size_t len)
{
    cli_write_text(stdout, text, len);
    out_flush(ud);
}

/* A new free generation's start (freegen.h): zeros or the state file in
** use, as +gen's; +qa's is the greeting's state (ChatRWKV's chat_init). */
static int
gen_create(struct repl *r, int cmd, rwkv_err *err)
{
    chat *c = sess_chat(r->s);
    const rwkv_state *st0;
    rwkv_state *st = NULL;
    int rc;

    fgen_destroy(r->gen);
    r->gen = NULL;
    if ((rc = sess_gen_start(r->s, &st0, err)) != RWKV_OK)
        return rc;
    if (cmd != FGEN_CMD_QA)
        return fgen_create(r->m, r->t, st0, &r->gen, err);
    if ((rc = rwkv_state_create(r->m, &st, err)) == RWKV_OK &&
        (rc = chat_state_greeted(c, st, err)) == RWKV_OK)
        rc = fgen_create(r->m, r->t, st, &r->gen, err);
    rwkv_state_destroy(st);
    return rc;
}

/*
** ChatRWKV's free generation (freegen.h), outside the conversation: CMD
** (fgen_cmd_parse) with ARG (N bytes): +gen / +i / +qq / +qa TEXT ("\n" in
** TEXT is a newline) from their prompts, +++ continues, ++ again.
*/
static void
free_gen(struct repl *r, int cmd, const char *arg, size_t n)
{
    chat *c = sess_chat(r->s);
    const rwkv_sampling *sp = chat_sampling(c);
    uint64_t seed = rng_mix(chat_seed(c, NULL) ^ rng_mix(++r->n_gen));
    size_t made = 0, len = 0;
    rwkv_err err;
    int rc;

    if (cmd != FGEN_CMD_MORE && cmd != FGEN_CMD_AGAIN) {
        char *text = fgen_cmd_prompt(cmd, arg, n, chat_user_name(c), chat_bot_name(c), &len);
        if (text == NULL) {       /* (blanks around ARG are gone: n > 0 is text) */
            if (n == 0)
                cli_errorf("usage: %s TEXT (not sent)", fgen_cmd_name(cmd));
            else
                cli_errorf("%s: out of memory", fgen_cmd_name(cmd));
            return;
        }
        sig_gen_cancel = 0;
        sig_in_gen = 1;
        rc = gen_create(r, cmd, &err);
        if (rc == RWKV_OK)
            rc = fgen_start_text(r->gen, text, len, sp, seed, gen_text, r, &sig_gen_cancel,
                                 &made, &err);
        free(text);
    } else if (r->gen == NULL) {
        rc = rwkv_errf(&err, RWKV_EINVAL, "%s: nothing to %s: start with +gen TEXT",
                       fgen_cmd_name(cmd), cmd == FGEN_CMD_MORE ? "continue" : "generate again");
    } else {
        sig_gen_cancel = 0;
        sig_in_gen = 1;
        rc = cmd == FGEN_CMD_MORE
                 ? fgen_more(r->gen, sp, gen_text, r, &sig_gen_cancel, &made, &err)
                 : fgen_again(r->gen, sp, seed, gen_text, r, &sig_gen_cancel, &made, &err);
    }
    sig_in_gen = 0;
    if (made > 0 || rc == RWKV_OK)
        fputs("\n\n", stdout);
    out_flush(r);
    if (r->out_failed) {
        /* stopped for stdout: said at the end */
    } else if (rc == RWKV_ECANCEL) {
        /* cut while its prompt was fed: nothing made, nothing to go on from
        ** (the full-screen client's words) */
        fgen_destroy(r->gen);
        r->gen = NULL;
        fprintf(stderr, "(generation cancelled before it began)\n");
    } else if (rc != RWKV_OK)
        cli_errorf("%s", err.msg);
    else if (sig_gen_cancel)
        fprintf(stderr, "(generation stopped after %zu tokens; +++ continues it)\n", made);
    sig_gen_cancel = 0;
}

/*
** ChatRWKV's "+" commands (fgen_cmd_parse, the one rule of both front
** ends): the free generations, "+" (/regen), "+reset" (/reset); "+prompt"
** is said not to be supported.  None goes to the model as a message.
** Returns 1 when LINE was one of them.
*/
static int
plus_command(struct repl *r, const char *line)
{
    char none[1] = "";
    const char *arg;
    size_t n;
    int cmd = fgen_cmd_parse(line, &arg, &n);

    switch (cmd) {
    case FGEN_CMD_NONE:
        return 0;
    case FGEN_CMD_RESET:
        if (n > 0)
            cli_errorf("+reset takes no argument (not sent)");
        else
            cmd_reset(r, none);
        return 1;
    case FGEN_CMD_REGEN:
        cmd_regen(r, none);
        return 1;
    case FGEN_CMD_PROMPT:
        cli_errorf("+prompt (a ChatRWKV prompt file) is not supported here, not sent: use "
                   "--greeting TEXT, --user NAME and --bot NAME, or /state FILE");
        return 1;
    default:
        free_gen(r, cmd, arg, n);
        return 1;
    }
}

/*
** One line of F into *BUF (grown as needed, *CAP its size; NUL-terminated),
** like getline(), but at most CHAT_LINE_MAX bytes of it are kept: the rest
** is read past to its newline and counted in *MORE (a line longer than any
** message is refused whole, and `chat < /dev/zero` does not take all the
** memory).  Its length, or -1 at EOF with nothing read, on a read error
** (errno set; EINTR at the prompt), when out of memory (ENOMEM) or once
** sig_quit is set.
*/
static ssize_t
read_line(FILE *f, char **buf, size_t *cap, size_t *more)
{
    size_t n = 0;
    int c = EOF;

    *more = 0;
    flockfile(f);
    /* sig_quit: Ctrl-C, SIGTERM or SIGHUP end a line that never ends (a
    ** read that does not block is not interrupted) */
    while (!sig_quit && (c = getc_unlocked(f)) != EOF) {
        if (n >= CHAT_LINE_MAX) {
            (*more)++;
        } else {
            if (n + 2 > *cap) {
                size_t nc = *cap < 256 ? 256 : 2 * *cap;
                char *nb;
                if (nc > CHAT_LINE_MAX + 1)
                    nc = CHAT_LINE_MAX + 1;
                if ((nb = realloc(*buf, nc)) == NULL) {
                    funlockfile(f);
                    errno = ENOMEM;
                    return -1;
                }
                *buf = nb;
                *cap = nc;
            }
            (*buf)[n++] = (char)c;
        }
        if (c == '\n')
            break;
    }
    funlockfile(f);
    if (sig_quit || (c == EOF && ferror(f)) || (n == 0 && *more == 0))
        return -1;
    (*buf)[n] = '\0';
    return (ssize_t)n;
}

/*
** A paste is one message, as in the chat demo (prompt_toolkit keeps a
** paste's line breaks in the one message its re.sub then folds): while the
** chat reads a terminal and writes to one, the terminal is asked for
** bracketed paste (ESC [ ? 2004 h), so a paste comes as ESC [ 200 ~ TEXT
** ESC [ 201 ~, and the lines between the marks, with the line the end mark
** is on, are read as one message (read_input) -- pasted at the prompt or
** typed ahead while a reply streams.  The tty echoes the marks (its
** canonical mode reads the line): ECHOCTL is cleared meanwhile, so they go
** out as sequences the terminal ignores rather than as "^[[200~".  Both
** are set once around the loop (a write after each read would block on a
** terminal stopped with C-s, where Ctrl-C then left the chat instead of
** cancelling the reply the line asked for) and put back on the way out.
*/
#define PASTE_ON  "\033[?2004h"
#define PASTE_OFF "\033[?2004l"
#define PASTE_BEGIN "\033[200~"
#define PASTE_END   "\033[201~"

static struct termios paste_tty;       /* the terminal's modes before the chat */
static int            paste_tty_saved;

static void
paste_mode(struct repl *r, int on)
{
    if (!r->paste)
        return;
    if (on) {
#ifdef ECHOCTL
        struct termios t;
        if (tcgetattr(STDIN_FILENO, &t) == 0) {
            paste_tty = t;
            paste_tty_saved = 1;
            t.c_lflag &= ~(tcflag_t)ECHOCTL;
            (void)tcsetattr(STDIN_FILENO, TCSANOW, &t);
        }
#endif
        fputs(PASTE_ON, stdout);
    } else {
        fputs(PASTE_OFF, stdout);
        if (paste_tty_saved)
            (void)tcsetattr(STDIN_FILENO, TCSANOW, &paste_tty);
        paste_tty_saved = 0;
    }
    cli_stdout_flush();
}

/* Is a paste open at the end of LINE[0..N): a begin mark after the last
** end mark? */
static int
paste_open(const char *line, size_t n)
{
    const char *b = NULL, *e = NULL;

    for (size_t i = 0; i + 6 <= n; i++) {
        if (line[i] != '\033')
            continue;
        if (memcmp(line + i, PASTE_BEGIN, 6) == 0)
            b = line + i;
        else if (memcmp(line + i, PASTE_END, 6) == 0)
            e = line + i;
    }
    return b != NULL && (e == NULL || e < b);
}

/* Does LINE[0..N) hold MARK (6 bytes)? */
static int
has_mark(const char *line, size_t n, const char *mark)
{
    for (size_t i = 0; i + 6 <= n; i++)
        if (line[i] == '\033' && memcmp(line + i, mark, 6) == 0)
            return 1;
    return 0;
}

/* Drop the paste marks from LINE[0..N); its new length. */
static size_t
paste_unmark(char *line, size_t n)
{
    size_t o = 0;

    for (size_t i = 0; i < n;) {
        if (n - i >= 6 && (memcmp(line + i, PASTE_BEGIN, 6) == 0 ||
                           memcmp(line + i, PASTE_END, 6) == 0)) {
            i += 6;
            continue;
        }
        line[o++] = line[i++];
    }
    line[o] = '\0';
    return o;
}

/* Did the terminal cut LINE[0..N) (read_line's, its newline kept): is it
** as long as the terminal's line mode keeps (r->tty_line)? */
static int
tty_cut(const struct repl *r, const char *line, ssize_t n)
{
    return r->tty_line > 0 && n >= (ssize_t)r->tty_line && line[n - 1] == '\n';
}

/* Does LINE[0..N) end a paste it did not begin: an end mark before any
** begin mark?  (The rest of a paste refused as cut: read_input.) */
static int
paste_rest(const char *line, size_t n)
{
    for (size_t i = 0; i + 6 <= n; i++) {
        if (line[i] != '\033')
            continue;
        if (memcmp(line + i, PASTE_BEGIN, 6) == 0)
            return 0;
        if (memcmp(line + i, PASTE_END, 6) == 0)
            return 1;
    }
    return 0;
}

/* Is there input on stdin within MS milliseconds? */
static int
input_within(int ms)
{
    struct pollfd pf = { .fd = STDIN_FILENO, .events = POLLIN, .revents = 0 };

    return poll(&pf, 1, ms) > 0 && (pf.revents & POLLIN);
}

/*
** read_line, and where the line opens a paste (r->paste), the lines up to
** the one its end mark is on, joined with their line breaks; the marks are
** dropped.  *MULTI: 1 when the text holds a pasted line break (a message,
** never a command).  A paste longer than a message is counted in *MORE,
** as a long line is.  EOF inside a paste ends it.
**
** *CUT: 1 when the terminal cut a line of it (tty_cut: what was typed or
** pasted past its line limit never reached us), to be refused, never sent
** cut short.  A paste's end mark is lost with the cut part when the cut
** line was its last: the paste is then taken as ended unless more of it
** is there at once, and a next line that holds only its end mark (its
** last line, Enter pressed after it) is that paste's rest: *CUT 2.
*/
static ssize_t
read_input(struct repl *r, char **buf, size_t *cap, size_t *more, int *multi, int *cut)
{
    ssize_t n = read_line(stdin, buf, cap, more);
    char *next = NULL;
    size_t ncap = 0, nmore;
    int lost = r->paste_lost;

    *multi = 0;
    *cut = 0;
    r->paste_lost = 0;
    if (n < 0)
        return n;
    if (lost && paste_rest(*buf, (size_t)n)) {
        *cut = 2;
        return n;
    }
    *cut = tty_cut(r, *buf, n);
    if (!r->paste)
        return n;
    for (int open = paste_open(*buf, (size_t)n); open;) {
        ssize_t m;
        size_t keep;
        if (*cut && !input_within(CHAT_PASTE_REST_MS)) {
            r->paste_lost = 1;      /* its end mark may have gone with the cut */
            break;
        }
        if ((m = read_line(stdin, &next, &ncap, &nmore)) < 0)
            break;
        *multi = 1;
        *more += nmore;
        keep = (size_t)m;
        if (tty_cut(r, next, m))
            *cut = 1;
        if (*more > 0 || (size_t)n + keep > CHAT_LINE_MAX) {
            /* too long: refused whole (counted), the rest of the paste
            ** read past, never sent line by line */
            *more += keep;
            open = !has_mark(next, keep, PASTE_END);
            continue;
        }
        if ((size_t)n + keep + 1 > *cap) {
            char *nb = realloc(*buf, (size_t)n + keep + 1);
            if (nb == NULL) {
                free(next);
                errno = ENOMEM;
                return -1;
            }
            *buf = nb;
            *cap = (size_t)n + keep + 1;
        }
        memcpy(*buf + n, next, keep);
        n += (ssize_t)keep;
        (*buf)[n] = '\0';
        open = paste_open(*buf, (size_t)n);
    }
    free(next);
    return (ssize_t)paste_unmark(*buf, (size_t)n);
}

/*
** The line editor's line (r->ed), as read_input's: into *BUF (*CAP its
** size), *MULTI when it holds a pasted line break, *CUT 3 when it did not
** fit the editor, 4 when the terminal's line mode cut what of it was typed
** ahead while a reply streamed (both refused).  -1 at EOF (errno 0), Ctrl-C or SIGTERM
** (sig_quit) and when the terminal failed (errno).
*/
static ssize_t
edit_input(struct repl *r, char **buf, size_t *cap, size_t *more, int *multi, int *cut)
{
    char prompt[CHAT_MAX_NAME + 8];
    size_t len, lost;
    char *s;
    int rc, tty_cut;

    *more = 0;
    *multi = 0;
    *cut = 0;
    snprintf(prompt, sizeof prompt, "%s: ", chat_user_name(sess_chat(r->s)));
    rc = ledit_read(r->ed, prompt, &sig_quit);
    if (rc != LEDIT_ENTER) {
        if (rc == LEDIT_EOF)
            errno = 0;
        return -1;
    }
    if ((s = ledit_take(r->ed, &len, &lost, &tty_cut)) == NULL) {
        errno = ENOMEM;
        return -1;
    }
    free(*buf);
    *buf = s;
    *cap = len + 1;
    *multi = memchr(s, '\n', len) != NULL;
    *cut = lost > 0 ? 3 : tty_cut ? 4 : 0;
    return (ssize_t)len;
}

/* The line editor where stdin and stdout are a terminal that can show it
** (TERM set, not "dumb") and --plain-input was not given; its history is
** the full-screen client's file (none, or damaged: an empty one). */
static void
editor_open(struct repl *r)
{
    const char *term = getenv("TERM");

    if (!r->paste || r->a->plain_input || term == NULL || term[0] == '\0' ||
        strcmp(term, "dumb") == 0 || (r->ed = ledit_create()) == NULL)
        return;
    (void)ledit_history_load(r->ed);
    r->tty_line = 0;            /* no line mode: no line limit */
}

/* Send MSG (LEN bytes) as a message and run its reply. */
static void
send_message(struct repl *r, const char *msg, size_t len)
{
    rwkv_err err;

    r->started = 0;
    expect_reply(r);
    if (sess_submit(r->s, msg, len, &err) != RWKV_OK) {
        sig_in_reply = 0;
        if (err.code == RWKV_EINVAL && strstr(err.msg, "say something"))
            fprintf(stderr, "!!! Error: please say something !!!\n");
        else
            cli_fail(&err);
        return;
    }
    run_reply(r);   /* a failed reply is printed; the chat goes on */
}

/*
** One line read (LINE, N bytes; MULTI: a paste of lines, a message as it
** is): a /command, a + command or a message, with chat.py's "-temp=" and
** "-top_p=" taken out of it for its reply alone (chat_inline_sampling): the
** values before are back afterwards.  1 when the chat is to end.
*/
static int
take_line(struct repl *r, char *line, size_t n, int multi)
{
    rwkv_sampling s1 = *chat_sampling(sess_chat(r->s));
    unsigned set1 = chat_sampling_set(sess_chat(r->s));
    rwkv_err err;
    int inl;

    if (!multi && line[0] == '/' && line[1] != '/') {
        int quit = command(r, line);
        /* its answer now, not at the next reply: a program that reads
        ** the chat through a pipe waits for it */
        out_flush(r);
        return quit || r->out_failed;
    }
    if ((inl = chat_inline_sampling(line, &n, &s1, &set1, &err)) < 0) {
        cli_errorf("%s (not sent)", err.msg);
        return 0;
    }
    if (inl > 0) {
        sess_reply_sampling(r->s, &s1, set1);
        if (r->interactive)
            fprintf(stderr, "(this reply: temperature %g, top_p %g)\n", (double)s1.temperature,
                    (double)s1.top_p);
        while (!multi && (*line == ' ' || *line == '\t')) {   /* as chat.py strips */
            line++;
            n--;
        }
    }
    if (multi)
        send_message(r, line, n);
    else if (!plus_command(r, line))
        send_message(r, line[0] == '/' ? line + 1 : line, n - (line[0] == '/'));
    sess_reply_sampling_end(r->s);    /* (a reply's end did it; not a free generation's) */
    return 0;
}

/* The loop: one line, one message or command.  0, or 1 when stdin could
** not be read (printed: a read error is not the end of the input). */
static int
repl_loop(struct repl *r)
{
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;

    for (;;) {
        ssize_t n;
        size_t more;
        int e, multi = 0, cut = 0;

        if (r->out_failed)       /* nobody reads the replies (out_flush) */
            break;
        if (r->interactive && r->ed == NULL) {
            printf("%s: ", chat_user_name(sess_chat(r->s)));
            cli_stdout_flush();
        }
        errno = 0;
        sigint_restart(0);
        n = sig_quit ? -1
            : r->ed != NULL ? edit_input(r, &line, &cap, &more, &multi, &cut)
                            : read_input(r, &line, &cap, &more, &multi, &cut);
        e = errno;
        sigint_restart(1);
        if (n < 0 || sig_quit) {
            if (r->interactive)
                fputc('\n', stdout);
            /* EOF and Ctrl-C at the prompt end the chat well; a failed read
            ** (stdin closed, EIO, no memory) is said, and the status is 1 */
            if (n < 0 && !sig_quit && e != 0 && e != EINTR &&
                (ferror(stdin) || e == ENOMEM || r->ed != NULL)) {
                cli_errorf("stdin: cannot read: %s", strerror(e));
                rc = 1;
            }
            break;
        }
        if (more > 0) {
            cli_errorf("this line is longer than %u MiB (%zu bytes): not sent",
                       (unsigned)(CHAT_MAX_MESSAGE >> 20), (size_t)n + more);
            continue;
        }
        if (cut == 3) {
            cli_errorf("this line is longer than the line editor holds (%u MiB): not sent; pipe "
                       "long text in (chat < FILE)", (unsigned)(LEDIT_TEXT_MAX >> 20));
            continue;
        }
        if (cut == 4) {
            cli_errorf("the terminal cut this %s, typed while the reply ran, at %d bytes (the "
                       "longest line it keeps then): not sent", multi ? "paste" : "line",
                       LEDIT_TTY_LINE);
            continue;
        }
        if (cut == 2) {
            cli_errorf("the rest of the paste refused above (and what was typed after it): "
                       "not sent");
            continue;
        }
        if (cut) {
            cli_errorf("the terminal cut this %s at %zu bytes (the longest line it keeps): not "
                       "sent; give long text line breaks, or pipe it in (chat < FILE)",
                       multi ? "paste" : "line", r->tty_line - 1);
            continue;
        }
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (memchr(line, '\0', (size_t)n) != NULL) {
            cli_errorf("this line holds a NUL byte (at byte %zu): not sent",
                       (size_t)((char *)memchr(line, '\0', (size_t)n) - line) + 1);
            continue;
        }
        if (take_line(r, line, (size_t)n, multi))
            break;
    }
    free(line);
    return rc;
}

/*
** On the way out (/quit, EOF, Ctrl-C at the prompt, SIGTERM, SIGHUP): the
** exchanges a failed save kept out are written once more (sess_flush: as
** the next message would, one bounded wait for a lock) -- a line says so
** when it worked; what still fails is one line on stderr naming how many
** and why, and exit status 1 (a signal's own status wins: the caller
** raises it).  The database file deleted (replaced, truncated) since the
** last save: every exchange is then kept out, as a save would have found
** (sess_db_check).  Nothing kept out: nothing done, as before.  RC: the
** status so far.
*/
static int
leave_saved(struct repl *r, int rc)
{
    char why[RWKV_ERR_MSG], where[160];
    size_t left;

    sess_db_check(r->s, 1);            /* a file gone since the last save: said too */
    if (sess_unsaved(r->s) == 0)
        return rc;
    if ((left = sess_flush(r->s, why, sizeof why)) == 0)
        return rc;
    sess_unsaved_where(r->s, left, where, sizeof where);
    cli_errorf("leaving with %zu exchange%s not saved (%s): %s", left, left == 1 ? "" : "s", why,
               where);
    return 1;
}

/*
** --session ID / --resume: find the session (*INFO) and, when no --model or
** --vocab was given, take the session's (A's options then point into INFO).
** 0, or 1 (printed).
*/
static int
resume_target(struct chat_cli *a, sess_info *info)
{
    rwkv_err err;

    if (sess_lookup_ex(a->o.db, a->session_id, CHAT_NODB, info, &err) != RWKV_OK) {
        if (a->session_id != 0 && strstr(err.msg, ": no session ") != NULL)
            cli_errorf("chat: %s ('" PROG " sessions %s%s%slist' lists the saved ones)", err.msg,
                       a->o.db ? "--db " : "", a->o.db ? a->o.db : "", a->o.db ? " " : "");
        else
            cli_errorf("chat: %s", err.msg);
        return 1;
    }
    sess_info_launch(info, &a->o.model, &a->o.demo, &a->o.strategy, &a->o.vocab);
    /* its state file, checked (and a copy of it recorded) before a model loads */
    if (sess_resume_state(a->o.db, info, &a->o.state, CHAT_NODB, &err) != RWKV_OK) {
        cli_errorf("chat: %s", err.msg);
        return 1;
    }
    if (err.msg[0])
        fprintf(stderr, "(%s)\n", err.msg);    /* a state file taken unchecked */
    if (a->o.model == NULL && !a->o.demo) {
        cli_errorf("chat: session %lld has no model on record: give --model PATH",
                   (long long)info->id);
        return 1;
    }
    return 0;
}

/* The model and its tokenizer; VOCAB (CAP) gets the World vocabulary used
** ("" = byte-level); INFO: the session resumed (NULL: none).  0, or 1
** (printed). */
static int
open_engine(struct chat_cli *a, const sess_info *info, rwkv_model **m, tok **t, char *vocab,
            size_t cap)
{
    rwkv_open_opts oo = { 0 };
    rwkv_err err;

    oo.strategy = a->o.strategy;
    oo.n_threads = a->o.threads;
    if ((a->o.demo ? rwkv_model_open_demo(RWKV_DEMO_SEED, &oo, m, &err)
                   : rwkv_model_open(a->o.model, &oo, m, &err)) != RWKV_OK) {
        sess_info_load_hint(info, a->o.model, a->o.strategy, &err);
        return cli_fail(&err);
    }
    cli_strategy_note(rwkv_model_info(*m));
    if (rwkv_model_info(*m)->n_vocab != 256) {
        struct stat sb;
        /* the session's vocabulary, moved or deleted since: say where the
        ** path came from and which option gives another (as for its model) */
        if (info != NULL && a->o.vocab == info->vocab_path && stat(a->o.vocab, &sb) != 0) {
            cli_errorf("%s: cannot open vocabulary: %s (the vocabulary session %lld was saved "
                       "with: --vocab PATH resumes it with a copy of it elsewhere)",
                       a->o.vocab, strerror(errno), (long long)info->id);
            return 1;
        }
        if (cli_find_vocab(a->o.vocab, a->o.model, vocab, cap) != 0)
            return 1;
        a->o.vocab = vocab;
    }
    return cli_open_tokenizer(&a->o, rwkv_model_info(*m)->n_vocab, t) != 0;
}

/*
** Open session SID for --resume / --session: 0, or the exit status after
** one line.  Ctrl-C during the open (a replay of tens of minutes, for a
** long session without its states) cancels it, changing nothing, and the
** chat leaves with status 130; so it does after one the open ended without
** seeing (a replay over, none to do): it asked to stop.
*/
static int
open_resumed(struct repl *r, int64_t sid)
{
    rwkv_err err, e2;
    sess_info gone;

    sig_in_open = 1;
    if (sig_quit && !sig_end)          /* one since the handler was set */
        sig_open_int = 1;
    if (!sig_open_int && sess_open(r->s, sid, -1, &err) != RWKV_OK) {
        sig_in_open = 0;
        /* there when looked up, before the model loaded: deleted since */
        if (err.code != RWKV_ECANCEL &&
            sess_lookup_ex(r->a->o.db, sid, CHAT_NODB, &gone, &e2) != RWKV_OK &&
            strstr(e2.msg, ": no session ") != NULL)
            cli_errorf("chat: session %lld was deleted (elsewhere) while the model loaded: "
                       "nothing to resume", (long long)sid);
        else
            cli_errorf("chat: %s", err.msg);
        return sig_open_int && err.code == RWKV_ECANCEL ? 130 : 1;
    }
    sig_in_open = 0;
    if (sig_open_int && !sig_end) {
        cli_errorf("chat: interrupted while session %lld opened: nothing changed",
                   (long long)sid);
        return 130;
    }
    return 0;
}

/* A new chat's greeting, fed up front so the first reply's stats are its
** own: -1, or the exit status after it failed or was interrupted -- Ctrl-C
** while it was fed (or before) ends the chat as at a resume's open, one
** line and 130 (SIGTERM, SIGHUP: 0 here, the signal's status at the end). */
static int
prime_new(struct repl *r)
{
    rwkv_err err;
    int rc;

    sig_in_prime = 1;
    rc = sess_prime(r->s, NULL, &err);
    sig_in_prime = 0;
    if (rc != RWKV_OK && err.code != RWKV_ECANCEL)
        return cli_fail(&err);
    if (rc == RWKV_OK && !sig_quit)
        return -1;
    if (sig_end)
        return 0;
    cli_errorf("chat: interrupted while the greeting was fed: nothing was saved");
    return 130;
}

int
cmd_chat(int argc, char **argv)
{
    struct chat_cli *a = calloc(1, sizeof *a);
    rwkv_model *m = NULL;
    tok *t = NULL;
    struct repl r;
    rwkv_err err;
    struct sigaction sa, old_sa, old_term, old_hup;
    int rc = 0, was_random, resuming, saving;
    sess_info info;
    sess_config sc;
    char vocab[STORE_PATH_MAX] = "", dbpath[STORE_PATH_MAX];

    if (a == NULL)
        return 1;
    memset(&r, 0, sizeof r);
    memset(&info, 0, sizeof info);
    cli_opts_init(&a->o);
    rc = parse_args(a, argc, argv);
    if (rc != 0) {
        rc = rc == 1 ? 0 : 2;
        goto out;
    }
    r.a = a;
    r.interactive = isatty(STDIN_FILENO);
    r.paste = r.interactive && isatty(STDOUT_FILENO);
    {
        struct termios tm;
        if (r.interactive && tcgetattr(STDIN_FILENO, &tm) == 0 && (tm.c_lflag & ICANON))
            r.tty_line = CHAT_TTY_LINE;
    }
    editor_open(&r);
    resuming = a->session_id != 0 || a->resume;
    saving = resuming || a->new_title != NULL || a->o.db != NULL;
    if (resuming && resume_target(a, &info) != 0) {
        rc = 1;
        goto out;
    }
    if (open_engine(a, resuming ? &info : NULL, &m, &t, vocab, sizeof vocab) != 0) {
        rc = 1;
        goto out;
    }
    memset(&sc, 0, sizeof sc);
    if (saving) {
        if (a->o.db == NULL && store_default_path(dbpath, sizeof dbpath, &err) != RWKV_OK) {
            rc = cli_fail(&err);
            goto out;
        }
        sc.db_path = a->o.db ? a->o.db : dbpath;
    }
    sc.model = m;                      /* sess_create copies what it keeps */
    sc.tok = t;
    sc.model_path = a->o.demo ? NULL : a->o.model;
    sc.vocab_path = vocab[0] ? vocab : NULL;
    chat_config_from(a, &sc.chat);
    if (resuming) {                    /* the session's own state file is loaded */
        sc.chat.state_path = NULL;
        sc.expect_state = a->o.state;
    }
    sc.cb = (chat_callbacks){ .text = reply_text, .phase = reply_phase, .done = reply_done,
                              .ud = &r };
    sc.note = on_note;
    sc.quit_key = "/quit";             /* the leaving rule's refusal names it */
    sc.nodb_hint = CHAT_NODB;          /* a database it may not write: how to go on */
    if (sess_create(&sc, &r.s, &err) != RWKV_OK) {
        rc = cli_fail(&err);
        goto out;
    }
    r.c = sess_chat(r.s);
    r.m = m;
    r.t = t;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;   /* but not at the prompt: sigint_restart */
    sigaction(SIGINT, &sa, &old_sa);
    sa.sa_flags = 0;            /* SIGTERM, SIGHUP: no SA_RESTART, ever */
    sa.sa_handler = on_sigend;
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    mono_catch_stops();         /* Ctrl-Z's minutes are in no reply's speed */
    sig_sess = r.s;

    if (resuming && (rc = open_resumed(&r, info.id)) != 0)
        goto out_sig;
    r.c = sess_chat(r.s);
    chat_seed(r.c, &was_random);
    if (was_random)
        fprintf(stderr, "(random seed %llu; --seed %llu repeats this chat)\n",
                (unsigned long long)chat_seed(r.c, NULL), (unsigned long long)chat_seed(r.c, NULL));
    if (resuming) {
        size_t shown = 0;
        for (size_t i = 0; i < chat_n_turns(r.c); i++)
            shown += 1 + (chat_turn_at(r.c, i)->reply != NULL);
        fprintf(stderr, "resumed session %lld: ", (long long)sess_id(r.s));
        put_text(stderr, sess_title(r.s));
        /* counted as the TURNS column counts (the whole tree), the branch
        ** apart when it holds fewer, in `sessions show`'s words */
        if ((int64_t)shown == info.n_turns)
            fprintf(stderr, " (%zu turns)\n", shown);
        else
            fprintf(stderr, " (%lld turns in the tree, %zu on this branch)\n",
                    (long long)info.n_turns, shown);
        show_tail(&r);
        if (r.interactive)
            fprintf(stderr, "(/help lists the commands; Ctrl-C stops a reply; /quit or Ctrl-D leaves)\n");
    } else {
        if ((rc = prime_new(&r)) >= 0)
            goto out_sig;
        rc = 0;
        /* a failed save was said (a note): the chat goes on, the session is
        ** made with the first message that saves */
        if (a->new_title != NULL && sess_begin(r.s, a->new_title, &err) != RWKV_OK &&
            err.code != RWKV_EDB && err.code != RWKV_ECORRUPT) {
            rc = cli_fail(&err);
            goto out_sig;
        }
        if (r.interactive) {
            fputs(chat_greeting(r.c), stdout);
            fprintf(stderr, "(/help lists the commands; Ctrl-C stops a reply; /quit or Ctrl-D leaves)\n");
        }
    }
    paste_mode(&r, 1);
    rc = repl_loop(&r);
    paste_mode(&r, 0);
    rc = leave_saved(&r, rc);
out_sig:
    sigaction(SIGINT, &old_sa, NULL);
    sig_sess = NULL;
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
out:
    fgen_destroy(r.gen);
    ledit_destroy(r.ed);
    sess_destroy(r.s);
    tok_close(t);
    rwkv_model_close(m);
    cli_frame_fini(&a->fr);
    free(a);
    rc = cli_stdout_close(rc);
    if (sig_end != 0) {            /* everything saved and closed: end as the signal asked */
        signal(sig_end, SIG_DFL);
        raise(sig_end);
    }
    return rc;
}
