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
**
** Saved sessions (storage/store.h; only with --db, --new, --session or
** --resume -- plain `chat` touches no database).  Layout, as the store's
** integration note describes: [system turn: the greeting's ids and state]
** -> user turn (prompt ids; snapshot = the state before the reply) ->
** assistant turn (reply ids; snapshot = the state after it) -> ...  The
** user turn is written when its prompt has been fed; the reply row is begun
** (marked interrupted) when generation starts, its text saved every
** CHAT_SAVE_EVERY_S seconds, and completed when the reply ends, so a crash
** keeps every finished turn and the partial reply.  Resuming loads the
** leaf's snapshot, or the nearest one above it plus a replay of the stored
** tokens (prompts in --chunk chunks, replies one token at a time, exactly as
** they were first fed), so a resumed chat continues bit for bit.  With an
** explicit --seed, each reply's seed is the next draw of the seed's
** sequence, counted over every reply the session already holds: a resumed
** chat samples what one long process would have.
*/
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>
#include <time.h>

#include "../core/chat.h"
#include "../core/rng.h"
#include "../storage/store.h"

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

static void commands_help(FILE *f);

static void
usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " chat (--model PATH | --demo) [options]\n"
            "       " PROG " chat [--model PATH] (--session ID | --resume) [options]\n"
            "Line-mode chat on stdin/stdout, the chat demo's behaviour: each line is a\n"
            "message, framed as \"User: MSG\\n\\nAssistant:\"; the reply streams to stdout\n"
            "and ends at a blank line (\"\\n\\n\") or --max-tokens.  Works in a pipe.\n\n"
            "Chat options:\n"
            "  --stats             after each reply print prefill/decode speed on stderr\n"
            "  --greeting TEXT     text fed before the first message (default: the demo's\n"
            "                      \"User: hi ... Assistant: Hi. I am your assistant ...\")\n"
            "  --no-greeting       feed no greeting\n"
            "  --stop S            stop string (repeatable, default \"\\n\\n\"; \\n escapes)\n"
            "  --ban IDS           comma-separated token ids never to sample\n\n"
            "Saved sessions (without --db, --new, --session or --resume the chat is not\n"
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
            "  given on the command line win).  A saved state made by other weights or\n"
            "  another precision is not used: the conversation's tokens are replayed and\n"
            "  stderr says how many.  A model of another shape is refused.  Pass the\n"
            "  session's --seed again to continue its sampling sequence exactly.\n\n");
    commands_help(f);
    fputc('\n', f);
    cli_opts_help(f, 1);
}

static void
commands_help(FILE *f)
{
    fprintf(f,
            "Commands (a line starting with '/'; '//' sends a literal '/'):\n"
            "  /help               this list\n"
            "  /reset              forget the conversation (back to the greeting/state);\n"
            "                      in a saved session the next message starts a new branch\n"
            "  /regen              sample the last reply again (state restored, no prefill);\n"
            "                      in a saved session the new reply is saved beside the old\n"
            "  /set NAME VALUE     change a sampling value (see /show; next reply on)\n"
            "  /show               show the sampling values and the seed\n"
            "  /state FILE         start over from a state-tuning file (saved sessions: the\n"
            "                      next message starts a new session)\n"
            "  /history            the turns of the current branch with their ids\n"
            "  /fork TURN          continue from turn TURN of this session (ids from\n"
            "                      /history): the next message starts a new branch there;\n"
            "                      on a user turn, the branch starts before that message\n"
            "  /sessions           the saved sessions (continue one with --session ID)\n"
            "  /quit               leave (so do EOF and Ctrl-C at the prompt)\n"
            "Ctrl-C during a reply stops that reply and keeps what was generated.\n"
            "With a state file (--state or /state) no greeting is fed and the demo's\n"
            "state defaults apply unless set: top-p 0.2, presence 0.3, frequency 0.3.\n");
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
    /* saved sessions: --session ID, --resume, --new TITLE (see the top) */
    int64_t         session_id;     /* --session ID, 0 = none */
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
            char *end;
            long long id;
            if (r < 0)
                return 2;
            errno = 0;
            id = strtoll(v, &end, 10);
            if (errno || end == v || *end != '\0' || id <= 0) {
                cli_errorf("option --session: '%s' is not a session id (a positive number)", v);
                return 2;
            }
            a->session_id = id;
        } else if ((r = cli_take(argc, argv, &i, "new", &v)) != 0) {
            if (r < 0)
                return 2;
            if (v[0] == '\0' || strlen(v) >= STORE_TITLE_MAX) {
                cli_errorf("option --new: a title must have 1..%d bytes", STORE_TITLE_MAX - 1);
                return 2;
            }
            a->new_title = v;
        } else {
            cli_errorf("chat: unknown option '%s' (try '" PROG " chat --help')", argv[i]);
            return 2;
        }
    }
    if ((a->session_id != 0) + a->resume + (a->new_title != NULL) > 1) {
        cli_errorf("chat: use one of --session ID, --resume and --new TITLE");
        return 2;
    }
    /* a resumed session knows its model */
    if (!a->o.demo && a->o.model == NULL && a->session_id == 0 && !a->resume) {
        cli_errorf("chat: --model PATH (or --demo) is required");
        return 2;
    }
    return 0;
}

static void write_text(FILE *f, const char *text, size_t len);
static void abs_path(const char *path, char *out, size_t cap);

/* ---- saved sessions ------------------------------------------------------------ */

/* Seconds between saves of a running reply's partial text (crash safety). */
#define CHAT_SAVE_EVERY_S 1.0
/* Longest message excerpt in /history and the resume transcript (bytes). */
#define CHAT_EXCERPT_MAX 72
/* Exchanges of a resumed session shown on a terminal. */
#define CHAT_RESUME_SHOW 3
/* Longest session title taken from a first message (bytes). */
#define CHAT_AUTO_TITLE_MAX 60

struct repl {
    struct chat_cli *a;
    chat            *c;
    rwkv_model      *m;
    const tok       *t;
    int              interactive;   /* stdin is a terminal */
    int              started;       /* the running reply printed "Assistant:" */

    /* saved sessions; st == NULL: ephemeral chat */
    store           *st;
    store_state_meta meta;          /* the loaded model, for snapshots */
    int64_t          model_id;
    int64_t          sid;           /* 0 = not created yet (created at the first reply) */
    char             title[STORE_TITLE_MAX];
    char             state_path[STORE_PATH_MAX];  /* the chat's state file, "" = none */
    int64_t          head;          /* last saved turn of the current branch */
    int64_t          last_user;     /* user turn of the last exchange (regen's parent) */
    int              regen;         /* the running reply is a /regen */
    int64_t          reply_id;      /* the begun reply row, 0 = none */
    double           last_save;
    int              progress_failed; /* stop retrying partial saves this reply */
    /* explicit seed: the chat's per-reply seed sequence, mirrored so that a
    ** resumed session goes on with it (see the top) */
    int              seeded;
    rng              seeds, seeds_after;  /* after = one draw on, used when taken */
};

static double
mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
model_meta(const rwkv_model *m, store_state_meta *meta)
{
    store_meta_from_info(meta, rwkv_model_info(m));
}

static void
save_fail(const char *what, const rwkv_err *err)
{
    cli_errorf("saving %s: %s (the chat goes on)", what, err->msg);
}

/* The next reply's seed from the mirrored sequence (explicit seed only). */
static void
queue_seed(struct repl *r)
{
    if (!r->seeded)
        return;
    r->seeds_after = r->seeds;
    chat_set_next_seed(r->c, rng_next(&r->seeds_after));
}

/* Print TEXT on one line: at most CHAT_EXCERPT_MAX bytes (on a character
** boundary), line breaks as spaces, other control characters as U+FFFD. */
static void
print_excerpt(FILE *f, const char *text)
{
    size_t len = strlen(text);
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
        if (ch == '\n' || ch == '\t' || ch == '\r')
            fputc(' ', f);
        else if (ch < 0x20 || ch == 0x7f)
            fputs("\xef\xbf\xbd", f);
        else
            fputc(ch, f);
    }
    if (more)
        fputs(" ...", f);
}

static int64_t
statefile_row(struct repl *r)
{
    store_statefile f;
    int64_t id = 0;
    rwkv_err err;

    if (r->state_path[0] == '\0')
        return 0;
    store_statefile_from_path(&f, r->state_path);
    if (store_statefile_add(r->st, &f, &id, &err) != RWKV_OK) {
        save_fail("the state file row", &err);
        return 0;
    }
    return id;
}

/*
** Create the session row TITLE (NULL: from MSG's first line) and, when a
** greeting was fed, its system turn with the post-greeting state.  0 or -1
** (printed).
*/
static int
session_create(struct repl *r, const char *title, const char *msg)
{
    store_session s;
    rwkv_err err;
    size_t n = 0;
    const int32_t *gids = chat_greeting_ids(r->c, &n);

    memset(&s, 0, sizeof s);
    if (title != NULL) {
        snprintf(s.title, sizeof s.title, "%s", title);
    } else {
        size_t len = strcspn(msg, "\n");
        if (len > CHAT_AUTO_TITLE_MAX) {
            len = CHAT_AUTO_TITLE_MAX;
            while (len > 0 && ((unsigned char)msg[len] & 0xC0) == 0x80)
                len--;
        }
        snprintf(s.title, sizeof s.title, "%.*s", (int)len, msg);
    }
    s.model_id = r->model_id;
    s.state_file_id = statefile_row(r);
    snprintf(s.strategy, sizeof s.strategy, "%s", rwkv_model_info(r->m)->strategy);
    if (store_session_new(r->st, &s, &r->sid, &err) != RWKV_OK) {
        save_fail("the new session", &err);
        r->sid = 0;
        return -1;
    }
    snprintf(r->title, sizeof r->title, "%s", s.title);
    r->head = 0;
    r->last_user = 0;
    fprintf(stderr, "new session %lld: %s\n", (long long)r->sid, r->title);
    if (chat_greeting_fed(r->c) && n > 0) {
        store_turn t;
        const rwkv_state *start = chat_state_start(r->c);

        memset(&t, 0, sizeof t);
        t.session_id = r->sid;
        t.role = STORE_ROLE_SYSTEM;
        t.text = chat_greeting(r->c);
        t.tokens = gids;
        t.n_tokens = n;
        if (store_turn_append(r->st, &t, rwkv_state_cdata(start), rwkv_state_len(start),
                              &r->meta, &err) != RWKV_OK) {
            save_fail("the greeting", &err);
            return -1;
        }
        r->head = t.id;
    }
    return 0;
}

/* Generation started: save the user turn (state before the reply) unless
** this is a regen, and begin the reply row. */
static void
save_begin(struct repl *r)
{
    size_t n = chat_n_turns(r->c);
    const chat_turn *ct = n ? chat_turn_at(r->c, n - 1) : NULL;
    store_turn u, a;
    rwkv_err err;

    r->reply_id = 0;
    if (r->seeded) {
        r->seeds = r->seeds_after;   /* the queued seed was taken */
        queue_seed(r);
    }
    if (r->st == NULL || ct == NULL)
        return;
    if (r->sid == 0 && session_create(r, NULL, ct->user) != 0)
        return;
    if (!r->regen) {
        const rwkv_state *before = chat_state_before_reply(r->c);
        memset(&u, 0, sizeof u);
        u.session_id = r->sid;
        u.parent_id = r->head;
        u.role = STORE_ROLE_USER;
        u.text = ct->user;
        u.tokens = ct->prompt_ids;
        u.n_tokens = ct->n_prompt;
        if (store_turn_append(r->st, &u, before ? rwkv_state_cdata(before) : NULL,
                              before ? rwkv_state_len(before) : 0, &r->meta, &err) != RWKV_OK) {
            save_fail("your message", &err);
            r->last_user = 0;
            return;
        }
        r->last_user = r->head = u.id;
    }
    if (r->last_user == 0)
        return;
    memset(&a, 0, sizeof a);
    a.session_id = r->sid;
    a.parent_id = r->last_user;
    a.role = STORE_ROLE_ASSISTANT;
    a.text = "";
    a.has_sampling = 1;
    a.sampling = ct->samp;
    a.interrupted = 1;
    if (store_turn_begin(r->st, &a, &err) != RWKV_OK) {
        save_fail("the reply", &err);
        return;
    }
    r->reply_id = r->head = a.id;
    r->last_save = mono_s();
    r->progress_failed = 0;
}

/* Save the partial reply now and then, so a crash keeps it. */
static void
save_progress(struct repl *r)
{
    size_t n;
    const chat_turn *ct;
    rwkv_err err;
    double now;

    if (r->reply_id == 0 || r->progress_failed)
        return;
    now = mono_s();
    if (now - r->last_save < CHAT_SAVE_EVERY_S)
        return;
    r->last_save = now;
    n = chat_n_turns(r->c);
    ct = chat_turn_at(r->c, n - 1);
    if (store_turn_progress(r->st, r->reply_id, ct->reply, ct->reply_ids, ct->n_reply, &err)
        != RWKV_OK) {
        save_fail("the partial reply", &err);
        r->progress_failed = 1;
    }
}

/* The reply ended: complete its row with the state after it. */
static void
save_finish(struct repl *r, const chat_turn *t)
{
    store_turn a;
    rwkv_err err;
    const rwkv_state *after = chat_state(r->c);

    if (r->reply_id == 0)
        return;
    memset(&a, 0, sizeof a);
    a.id = r->reply_id;
    a.session_id = r->sid;
    a.parent_id = r->last_user;
    a.role = STORE_ROLE_ASSISTANT;
    a.text = t->reply ? t->reply : "";
    a.tokens = t->reply_ids;
    a.n_tokens = t->n_reply;
    a.has_sampling = 1;
    a.sampling = t->samp;
    a.prefill_tps = t->stats.prefill_tps;
    a.decode_tps = t->stats.decode_tps;
    a.interrupted = t->stop == CHAT_STOP_CANCEL || t->stop == CHAT_STOP_ERROR;
    if (store_turn_finish(r->st, &a, rwkv_state_cdata(after), rwkv_state_len(after), &r->meta,
                          &err) != RWKV_OK)
        save_fail("the reply", &err);
    r->reply_id = 0;
}

/* Feed a replay plan into S: prompts in chunks, replies one token at a
** time, as the chat fed them. */
static int
feed_plan(struct repl *r, const store_plan *p, rwkv_state *s, rwkv_err *err)
{
    const rwkv_sampling *samp = chat_sampling(r->c);
    size_t chunk = samp->chunk > 0 ? (size_t)samp->chunk : 256;

    for (size_t g = 0; g < p->n_segs; g++) {
        const store_plan_seg *seg = &p->segs[g];
        size_t step = seg->role == STORE_ROLE_ASSISTANT ? 1 : chunk;
        for (size_t i = 0; i < seg->len; i += step) {
            size_t k = seg->len - i < step ? seg->len - i : step;
            int rc = rwkv_eval(r->m, p->tokens + seg->off + i, k, s, NULL, err);
            if (rc != RWKV_OK)
                return rc;
        }
    }
    return RWKV_OK;
}

/*
** The state after TURN (0 = the session's initial state: zeros or its state
** file) into S.  *REPLAYED: tokens fed; NOTE: why a snapshot was skipped
** ("" if none); *BASE: the snapshot used (0 = none).  0 or -1 (printed).
*/
static int
state_at(struct repl *r, int64_t turn, rwkv_state *s, size_t *replayed, int64_t *base,
         char *note, size_t note_cap)
{
    store_plan plan;
    rwkv_err err;
    int rc = -1;

    memset(&plan, 0, sizeof plan);
    *replayed = 0;
    *base = 0;
    note[0] = '\0';
    if (turn != 0 &&
        store_state_restore(r->st, turn, &r->meta, rwkv_state_data(s), rwkv_state_len(s), &plan,
                            &err) != RWKV_OK) {
        cli_fail(&err);
        goto out;
    }
    snprintf(note, note_cap, "%s", plan.note);
    if (plan.base_turn == 0) {
        rwkv_state_reset(r->m, s);
        if (r->state_path[0] && rwkv_state_load_file(r->m, r->state_path, s, &err) != RWKV_OK) {
            cli_fail(&err);
            goto out;
        }
    }
    if (feed_plan(r, &plan, s, &err) != RWKV_OK) {
        cli_errorf("replaying the session: %s", err.msg);
        goto out;
    }
    *replayed = plan.n_tokens;
    *base = plan.base_turn;
    rc = 0;
out:
    store_plan_fini(&plan);
    return rc;
}

/*
** Make the chat continue after turn HEAD of the current session: its turns
** (root..HEAD) become the chat's records, its state the current one.  A
** user turn without its reply as HEAD is replaced by its parent.  Prints
** one line when the state had to be replayed.  *N_SHOWN (may be NULL): the
** user/assistant turns on the branch.  0 or -1 (printed, nothing changed).
*/
static int
load_branch(struct repl *r, int64_t head, size_t *n_shown)
{
    int64_t *ids = NULL, base = 0;
    size_t n = 0, replayed = 0, shown = 0;
    store_turn *turns = NULL;
    rwkv_state *s = NULL;
    rwkv_err err;
    char note[300];
    int rc = -1, need_sep = 0;

    if (head != 0) {
        store_turn h;
        if (store_turn_get(r->st, head, &h, &err) != RWKV_OK) {
            cli_fail(&err);
            return -1;
        }
        if (h.role == STORE_ROLE_USER) {
            fprintf(stderr, "(turn %lld is a message without its reply: continuing before it)\n",
                    (long long)head);
            head = h.parent_id;
        }
        store_turn_fini(&h);
    }
    if (head != 0 && store_turn_path(r->st, head, &ids, &n, &err) != RWKV_OK) {
        cli_fail(&err);
        return -1;
    }
    turns = calloc(n ? n : 1, sizeof *turns);
    if (turns == NULL) {
        cli_errorf("out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (store_turn_get(r->st, ids[i], &turns[i], &err) != RWKV_OK) {
            cli_fail(&err);
            goto out;
        }
    }
    if (rwkv_state_create(r->m, &s, &err) != RWKV_OK) {
        cli_fail(&err);
        goto out;
    }
    if (state_at(r, head, s, &replayed, &base, note, sizeof note) != 0)
        goto out;
    if (replayed > 0 || note[0]) {
        char why[320];
        if (note[0])
            snprintf(why, sizeof why, "%s", note);
        else
            snprintf(why, sizeof why, "no saved state for turn %lld", (long long)head);
        if (base != 0)
            fprintf(stderr, "(%s: replayed %zu tokens from the state saved with turn %lld)\n",
                    why, replayed, (long long)base);
        else
            fprintf(stderr, "(%s: replayed %zu tokens from the start of the session)\n", why,
                    replayed);
    }
    chat_reset(r->c);
    r->last_user = 0;
    for (size_t i = 0; i < n; i++) {
        store_turn *t = &turns[i];
        chat_turn ct;

        if (t->role != STORE_ROLE_USER)
            continue;
        memset(&ct, 0, sizeof ct);
        ct.user = (char *)t->text;
        ct.user_len = strlen(t->text);
        ct.prompt_ids = (int32_t *)t->tokens;
        ct.n_prompt = t->n_tokens;
        ct.samp = *chat_sampling(r->c);
        shown++;
        if (i + 1 < n && turns[i + 1].role == STORE_ROLE_ASSISTANT) {
            store_turn *a = &turns[i + 1];
            ct.reply = (char *)a->text;
            ct.reply_len = strlen(a->text);
            ct.reply_ids = (int32_t *)a->tokens;
            ct.n_reply = a->n_tokens;
            if (a->has_sampling)
                ct.samp = a->sampling;
            ct.interrupted = a->interrupted;   /* chat_push_turn works out ct.stop */
            shown++;
        }
        if (chat_push_turn(r->c, &ct, &err) != RWKV_OK) {
            cli_fail(&err);
            chat_reset(r->c);
            goto out;
        }
        r->last_user = t->id;
    }
    if (n > 0 && turns[n - 1].role == STORE_ROLE_ASSISTANT && chat_n_turns(r->c) > 0)
        need_sep = chat_turn_at(r->c, chat_n_turns(r->c) - 1)->stop != CHAT_STOP_STRING;
    chat_restore_state(r->c, s, need_sep);
    /* the state before the last message, so that /regen works at once */
    if (r->last_user != 0) {
        store_turn *u = NULL;
        for (size_t i = 0; i < n; i++)
            if (turns[i].id == r->last_user)
                u = &turns[i];
        if (u != NULL && state_at(r, u->parent_id, s, &replayed, &base, note, sizeof note) == 0)
            chat_set_turn_start(r->c, s);
    }
    if (store_session_set_head(r->st, r->sid, head, &err) != RWKV_OK)
        cli_fail(&err);
    r->head = head;
    if (n_shown)
        *n_shown = shown;
    /* on a terminal, the end of the conversation */
    if (r->interactive && r->c != NULL) {
        size_t nt = chat_n_turns(r->c), from = nt > CHAT_RESUME_SHOW ? nt - CHAT_RESUME_SHOW : 0;
        if (from > 0)
            printf("(%zu earlier exchanges: /history lists them)\n\n", from);
        for (size_t i = from; i < nt; i++) {
            const chat_turn *ct = chat_turn_at(r->c, i);
            printf("User: %s\n\nAssistant:", ct->user);
            write_text(stdout, ct->reply, ct->reply_len);
            printf("%s\n\n", ct->interrupted ? " [interrupted]" : "");
        }
        fflush(stdout);
    }
    rc = 0;
out:
    rwkv_state_destroy(s);
    for (size_t i = 0; i < n; i++)
        store_turn_fini(&turns[i]);
    free(turns);
    free(ids);
    return rc;
}

/* Replies (assistant turns) anywhere in session SID: the seeds drawn. */
static int
count_replies(struct repl *r, int64_t sid, uint64_t *count)
{
    int64_t *todo = NULL, *kids = NULL;
    size_t n = 0, cap = 0, nk = 0;
    rwkv_err err;
    int rc = -1;

    *count = 0;
    if (store_turn_children(r->st, sid, 0, &todo, &n, &err) != RWKV_OK) {
        cli_fail(&err);
        return -1;
    }
    cap = n;
    while (n > 0) {
        int64_t id = todo[--n];
        store_turn t;
        if (store_turn_get(r->st, id, &t, &err) != RWKV_OK) {
            cli_fail(&err);
            goto out;
        }
        *count += t.role == STORE_ROLE_ASSISTANT;
        store_turn_fini(&t);
        if (store_turn_children(r->st, sid, id, &kids, &nk, &err) != RWKV_OK) {
            cli_fail(&err);
            goto out;
        }
        if (n + nk > cap) {
            size_t nc = (n + nk) * 2;
            int64_t *p = realloc(todo, nc * sizeof *p);
            if (p == NULL) {
                cli_errorf("out of memory");
                goto out;
            }
            todo = p;
            cap = nc;
        }
        if (nk)
            memcpy(todo + n, kids, nk * sizeof *kids);
        n += nk;
        free(kids);
        kids = NULL;
    }
    rc = 0;
out:
    free(kids);
    free(todo);
    return rc;
}

/* ---- output callbacks -------------------------------------------------------- */

static void
reply_phase(void *ud, int phase)
{
    struct repl *r = ud;

    if (phase == CHAT_GENERATING) {
        r->started = 1;
        save_begin(r);
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
    write_text(stdout, text, len);
    save_progress(ud);
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
    save_finish(r, t);
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
    if (r->regen && !r->started && r->st != NULL && r->sid != 0) {
        /* a /regen cancelled while its prompt was prefilled again dropped
        ** the exchange from the chat: take the saved branch back */
        load_branch(r, r->head, NULL);
    }
    r->regen = 0;
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
    if (r->st != NULL && i == params_find("seed")) {
        /* a saved session continues this seed's sequence from here */
        r->seeded = 1;
        rng_seed(&r->seeds, s.seed);
        queue_seed(r);
    }
    if (r->interactive) {
        char buf[48];
        params_format(&s, i, buf, sizeof buf);
        fprintf(stderr, "%s = %s\n", params_table[i].name, buf);
    }
}

/* The turn id in ARGS, or 0 (printed). */
static int64_t
turn_arg(const char *cmd, const char *args)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(args, &end, 10);
    while (*end == ' ' || *end == '\t')
        end++;
    if (errno || end == args || *end != '\0' || v <= 0) {
        cli_errorf("usage: /%s TURN (a turn id from /history)", cmd);
        return 0;
    }
    return v;
}

/* 0 when the chat is saved to a session, else -1 (printed). */
static int
need_session(struct repl *r, const char *cmd)
{
    if (r->st == NULL) {
        cli_errorf("/%s: this chat is not saved (start it with --new TITLE, --session ID, "
                   "--resume or --db)", cmd);
        return -1;
    }
    if (r->sid == 0) {
        cli_errorf("/%s: nothing saved yet (the session starts with the first message)", cmd);
        return -1;
    }
    return 0;
}

static void
cmd_history(struct repl *r)
{
    int64_t *ids = NULL;
    size_t n = 0;
    rwkv_err err;

    if (need_session(r, "history") != 0)
        return;
    if (r->head == 0) {
        printf("session %lld: %s -- no turns yet\n", (long long)r->sid, r->title);
        fflush(stdout);
        return;
    }
    if (store_turn_path(r->st, r->head, &ids, &n, &err) != RWKV_OK) {
        cli_fail(&err);
        return;
    }
    printf("session %lld: %s\n", (long long)r->sid, r->title);
    for (size_t i = 0; i < n; i++) {
        store_turn t;
        if (store_turn_get(r->st, ids[i], &t, &err) != RWKV_OK) {
            cli_fail(&err);
            break;
        }
        printf("  #%-6lld %-9s ", (long long)t.id, store_role_name(t.role));
        if (t.role == STORE_ROLE_SYSTEM)
            printf("(greeting, %zu tokens)", t.n_tokens);
        else
            print_excerpt(stdout, t.text);
        if (t.interrupted)
            printf(" [interrupted]");
        if (t.n_children > 1)
            printf(" [%d branches]", t.n_children);
        putchar('\n');
        store_turn_fini(&t);
    }
    fflush(stdout);
    free(ids);
}

static void
cmd_fork(struct repl *r, const char *args)
{
    int64_t turn = turn_arg("fork", args);
    store_turn t;
    rwkv_err err;
    int64_t at;

    if (turn == 0 || need_session(r, "fork") != 0)
        return;
    if (store_turn_get(r->st, turn, &t, &err) != RWKV_OK) {
        cli_errorf("/fork: %s", err.msg);
        return;
    }
    if (t.session_id != r->sid) {
        cli_errorf("/fork: turn %lld is not in session %lld (see /history)", (long long)turn,
                   (long long)r->sid);
        store_turn_fini(&t);
        return;
    }
    at = t.role == STORE_ROLE_USER ? t.parent_id : turn;
    store_turn_fini(&t);
    if (load_branch(r, at, NULL) != 0)
        return;
    if (at != turn)
        fprintf(stderr, "(branched before message %lld: the next message starts a new branch)\n",
                (long long)turn);
    else
        fprintf(stderr, "(branched at turn %lld: the next message starts a new branch)\n",
                (long long)turn);
}

static void
cmd_sessions_list(struct repl *r)
{
    store_session *ss = NULL;
    size_t n = 0;
    rwkv_err err;

    if (r->st == NULL) {
        cli_errorf("/sessions: this chat is not saved (start it with --new TITLE, --session ID, "
                   "--resume or --db)");
        return;
    }
    if (store_session_list(r->st, &ss, &n, &err) != RWKV_OK) {
        cli_fail(&err);
        return;
    }
    if (n == 0)
        printf("no saved sessions\n");
    for (size_t i = 0; i < n; i++)
        printf("%c %5lld  %4lld turns  %s\n", ss[i].id == r->sid ? '*' : ' ', (long long)ss[i].id,
               (long long)ss[i].n_turns, ss[i].title);
    fflush(stdout);
    free(ss);
}

/* /reset in a saved session: back to the root (the greeting), so that the
** next message starts a new branch. */
static void
session_reset(struct repl *r)
{
    int64_t *ids = NULL, root = 0;
    size_t n = 0;
    rwkv_err err;

    if (r->head != 0) {
        store_turn t;
        if (store_turn_path(r->st, r->head, &ids, &n, &err) != RWKV_OK) {
            cli_fail(&err);
            return;
        }
        if (n > 0 && store_turn_get(r->st, ids[0], &t, &err) == RWKV_OK) {
            if (t.role == STORE_ROLE_SYSTEM)
                root = t.id;
            store_turn_fini(&t);
        }
        free(ids);
    }
    if (load_branch(r, root, NULL) == 0)
        fprintf(stderr, "(conversation reset: the next message starts a new branch of session %lld)\n",
                (long long)r->sid);
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
        commands_help(stdout);
        fflush(stdout);
    } else if (strcmp(cmd, "quit") == 0 || strcmp(cmd, "exit") == 0 || strcmp(cmd, "q") == 0) {
        return 1;
    } else if (strcmp(cmd, "reset") == 0) {
        if (r->st != NULL && r->sid != 0) {
            session_reset(r);
        } else {
            chat_reset(r->c);
            fprintf(stderr, "(conversation reset)\n");
        }
    } else if (strcmp(cmd, "regen") == 0) {
        r->started = 0;     /* regen enters GENERATING at once */
        r->regen = 1;
        if (chat_regen(r->c, &err) != RWKV_OK) {
            r->regen = 0;
            cli_errorf("/regen: %s", err.msg);
        } else {
            run_reply(r);
        }
    } else if (strcmp(cmd, "set") == 0) {
        cmd_set(r, args);
    } else if (strcmp(cmd, "show") == 0) {
        show(r);
    } else if (strcmp(cmd, "history") == 0) {
        cmd_history(r);
    } else if (strcmp(cmd, "fork") == 0) {
        cmd_fork(r, args);
    } else if (strcmp(cmd, "sessions") == 0) {
        cmd_sessions_list(r);
    } else if (strcmp(cmd, "state") == 0) {
        if (*args == '\0') {
            cli_errorf("usage: /state FILE");
        } else if (chat_load_state_file(r->c, args, &err) != RWKV_OK) {
            cli_fail(&err);
        } else if (r->st != NULL) {
            abs_path(args, r->state_path, sizeof r->state_path);
            r->sid = 0;
            r->head = 0;
            r->last_user = 0;
            fprintf(stderr, "(started over from %s; the next message starts a new session)\n",
                    args);
        } else {
            fprintf(stderr, "(started over from %s)\n", args);
        }
    } else {
        cli_errorf("unknown command '/%s' (try /help)", cmd);
    }
    return 0;
}

/* PATH made absolute (so a session resumes from any directory), trying
** PATH.pth as the model loader does; PATH itself when neither exists. */
static void
abs_path(const char *path, char *out, size_t cap)
{
    char buf[STORE_PATH_MAX + 8], *rp;

    rp = realpath(path, NULL);
    if (rp == NULL) {
        snprintf(buf, sizeof buf, "%s.pth", path);
        rp = realpath(buf, NULL);
    }
    snprintf(out, cap, "%s", rp != NULL ? rp : path);
    free(rp);
}

/* ---- session setup ----------------------------------------------------------------- */

/*
** Open the database; for --session/--resume find the session (*SESS) and,
** when no --model was given, its model's path (into MODEL_PATH; "" = use
** --demo).  0, or 1 (printed).
*/
static int
open_store(struct repl *r, store_session *sess, char *model_path, size_t cap)
{
    struct chat_cli *a = r->a;
    int resuming = a->session_id != 0 || a->resume;
    char defpath[STORE_PATH_MAX];
    const char *path = a->o.db;
    rwkv_err err;
    int64_t sid = a->session_id;
    struct stat sb;

    if (path == NULL) {
        if (store_default_path(defpath, sizeof defpath, &err) != RWKV_OK)
            return cli_fail(&err);
        path = defpath;
    }
    if (resuming && stat(path, &sb) != 0) {
        if (a->resume)
            cli_errorf("chat: --resume: no saved sessions (%s does not exist)", path);
        else
            cli_errorf("chat: --session %lld: no saved sessions (%s does not exist)",
                       (long long)sid, path);
        return 1;
    }
    if (store_open(path, &r->st, &err) != RWKV_OK)
        return cli_fail(&err);
    if (!resuming)
        return 0;
    if (a->resume && store_session_latest(r->st, &sid, &err) != RWKV_OK) {
        cli_errorf("chat: --resume: no saved sessions in %s", path);
        return 1;
    }
    if (store_session_get(r->st, sid, sess, &err) != RWKV_OK)
        return cli_fail(&err);
    if (a->o.model == NULL && !a->o.demo) {
        store_model sm;
        if (sess->model_id == 0 || store_model_get(r->st, sess->model_id, &sm, &err) != RWKV_OK) {
            cli_errorf("chat: session %lld has no model on record: give --model PATH",
                       (long long)sid);
            return 1;
        }
        snprintf(model_path, cap, "%s", strcmp(sm.path, "(demo)") == 0 ? "" : sm.path);
    }
    return 0;
}

/*
** The model row, and for a resumed session the checks against its model and
** state file; sampling values from the session's last reply into CFG.
** 0, or 1 (printed).
*/
static int
check_session(struct repl *r, const store_session *sess, chat_config *cfg)
{
    struct chat_cli *a = r->a;
    const rwkv_info *inf = rwkv_model_info(r->m);
    const char *path = a->o.demo ? "(demo)" : a->o.model;
    store_model m;
    rwkv_err err;
    char full[STORE_PATH_MAX];

    if (a->o.demo)
        snprintf(full, sizeof full, "%s", path);
    else
        abs_path(path, full, sizeof full);
    store_model_from_info(&m, full, inf);
    if (store_model_upsert(r->st, &m, &r->model_id, &err) != RWKV_OK)
        return cli_fail(&err);
    if (a->o.state)
        abs_path(a->o.state, r->state_path, sizeof r->state_path);
    if (sess == NULL)
        return 0;

    /* the session's model: other weights of the same shape are replayed
    ** (the store never uses their snapshots: load_branch says so in its
    ** one line); another shape is refused */
    if (sess->model_id != 0 && sess->model_id != r->model_id) {
        store_model sm;
        if (store_model_get(r->st, sess->model_id, &sm, &err) != RWKV_OK)
            return cli_fail(&err);
        if (sm.fingerprint != m.fingerprint &&
            (strcmp(sm.version, m.version) != 0 || sm.n_layer != m.n_layer ||
             sm.n_embd != m.n_embd || sm.n_head != m.n_head || sm.head_size != m.head_size)) {
            cli_errorf("chat: session %lld was made with %s (RWKV-%s, %d layers, %d embd), "
                       "not this model (RWKV-%s, %d layers, %d embd): use that model or --new",
                       (long long)sess->id, sm.path, sm.version, sm.n_layer, sm.n_embd,
                       m.version, m.n_layer, m.n_embd);
            return 1;
        }
    }
    /* its state file */
    if (sess->state_file_id != 0) {
        store_statefile f;
        if (store_statefile_get(r->st, sess->state_file_id, &f, NULL, &err) != RWKV_OK)
            return cli_fail(&err);
        if (f.path[0] == '\0') {
            cli_errorf("chat: session %lld starts from the imported state file '%s', which is not "
                       "on disk", (long long)sess->id, f.name);
            return 1;
        }
        if (a->o.state != NULL && strcmp(r->state_path, f.path) != 0) {
            cli_errorf("chat: session %lld starts from the state file %s: leave out --state (or "
                       "start a --new session)", (long long)sess->id, f.path);
            return 1;
        }
        snprintf(r->state_path, sizeof r->state_path, "%s", f.path);
        cfg->state_path = r->state_path;
    } else if (a->o.state != NULL) {
        cli_errorf("chat: session %lld has no state file: leave out --state (or start a --new "
                   "session)", (long long)sess->id);
        return 1;
    }
    /* the sampling values of its last reply; the command line's win */
    if (sess->head_turn != 0) {
        int64_t *ids = NULL;
        size_t n = 0;
        if (store_turn_path(r->st, sess->head_turn, &ids, &n, &err) != RWKV_OK)
            return cli_fail(&err);
        for (size_t i = n; i-- > 0;) {
            store_turn t;
            int found = 0;
            if (store_turn_get(r->st, ids[i], &t, &err) != RWKV_OK) {
                free(ids);
                return cli_fail(&err);
            }
            if (t.role == STORE_ROLE_ASSISTANT && t.has_sampling) {
                int seed_i = params_find("seed");
                rwkv_sampling s = t.sampling;
                for (int k = 0; params_table[k].name != NULL; k++) {
                    const params_entry *e = &params_table[k];
                    if (k == seed_i)
                        continue;
                    if (a->o.samp_set & PARAMS_BIT(k))   /* the value the user set */
                        memcpy((char *)&s + e->offset, (const char *)&a->o.samp + e->offset,
                               e->type == PARAMS_U64 ? sizeof(uint64_t)
                               : e->type == PARAMS_INT ? sizeof(int) : sizeof(float));
                    cfg->samp_set |= PARAMS_BIT(k);
                }
                s.seed = a->o.samp.seed;
                cfg->samp = s;
                found = 1;
            }
            store_turn_fini(&t);
            if (found)
                break;
        }
        free(ids);
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
    int rc = 0, was_random, resuming, saving;
    store_session sess;
    char model_path[STORE_PATH_MAX] = "";

    if (a == NULL)
        return 1;
    memset(&r, 0, sizeof r);
    memset(&sess, 0, sizeof sess);
    cli_opts_init(&a->o);
    rc = parse_args(a, argc, argv);
    if (rc != 0) {
        rc = rc == 1 ? 0 : 2;
        goto out;
    }
    r.a = a;
    r.interactive = isatty(STDIN_FILENO);
    resuming = a->session_id != 0 || a->resume;
    saving = resuming || a->new_title != NULL || a->o.db != NULL;
    if (saving && (rc = open_store(&r, &sess, model_path, sizeof model_path)) != 0)
        goto out;
    if (resuming && a->o.model == NULL && !a->o.demo) {
        if (model_path[0])
            a->o.model = model_path;
        else
            a->o.demo = 1;
    }
    oo.strategy = a->o.strategy;
    oo.n_threads = a->o.threads;
    if ((a->o.demo ? rwkv_model_open_demo(0, &oo, &m, &err)
                   : rwkv_model_open(a->o.model, &oo, &m, &err)) != RWKV_OK) {
        rc = cli_fail(&err);
        goto out;
    }
    r.m = m;
    model_meta(m, &r.meta);
    if (cli_open_tokenizer(&a->o, rwkv_model_info(m)->n_vocab, &t) != 0) {
        rc = 1;
        goto out;
    }
    r.t = t;
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
    if (saving && (rc = check_session(&r, resuming ? &sess : NULL, &cfg)) != 0)
        goto out;
    {
        chat_callbacks cb = { .text = reply_text, .phase = reply_phase, .done = reply_done, .ud = &r };
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
    else if (saving) {
        /* explicit seed: mirror the reply seeds, skipping those the session used */
        uint64_t used = 0;
        r.seeded = 1;
        rng_seed(&r.seeds, chat_seed(c, NULL));
        if (resuming && count_replies(&r, sess.id, &used) != 0) {
            rc = 1;
            goto out;
        }
        for (uint64_t i = 0; i < used; i++)
            rng_next(&r.seeds);
        queue_seed(&r);
    }

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;   /* no SA_RESTART: Ctrl-C at the prompt interrupts getline */
    sigaction(SIGINT, &sa, &old_sa);

    if (resuming) {
        size_t shown = 0;
        r.sid = sess.id;
        snprintf(r.title, sizeof r.title, "%s", sess.title);
        if (load_branch(&r, sess.head_turn, &shown) != 0) {
            rc = 1;
            goto out_sig;
        }
        fprintf(stderr, "resumed session %lld: %s (%zu turns)\n", (long long)r.sid, r.title, shown);
        if (r.interactive)
            fprintf(stderr, "(/help lists the commands; Ctrl-C stops a reply; /quit or Ctrl-D leaves)\n");
        goto loop;
    }

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
    if (a->new_title != NULL && session_create(&r, a->new_title, NULL) != 0) {
        rc = 1;
        goto out_sig;
    }
    if (r.interactive) {
        fputs(chat_greeting(c), stdout);
        fprintf(stderr, "(/help lists the commands; Ctrl-C stops a reply; /quit or Ctrl-D leaves)\n");
    }

loop:
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
    store_close(r.st);
    for (size_t i = 0; i < a->n_stop; i++)
        free(a->stop[i]);
    free(a);
    fflush(stdout);
    return rc;
}
