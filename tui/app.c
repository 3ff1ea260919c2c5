/*
** app.c -- the full-screen client: setup, the poll() loop, key dispatch.
**
** Loop (UI thread):  draw if dirty -> poll(stdin, worker pipe) -> drain the
** worker's events -> read every pending key.  SIGWINCH makes ncurses return
** KEY_RESIZE, which only re-lays out and redraws.  The worker (worker.c) is
** the only other thread; see app.h for who touches what.
*/
#define _XOPEN_SOURCE 700
#define NCURSES_WIDECHAR 1
#include "app.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include <ncursesw/curses.h>

#include "../core/clock.h"
#include "../core/env.h"
#include "../core/kernels/kernels.h"
#include "../core/text/utf8.h"
#include "clip.h"
#include "history.h"
#include "sidebar.h"
#include "text.h"
#include "yamlerr.h"

#define TUI_POLL_MS       250    /* idle poll timeout: nothing else needs ticks */
#define TUI_DB_CHECK_S    3.0    /* the database file looked at while idle, at most this often */
#define TUI_ESC_WAIT_MS   30     /* a key after ESC within this is Alt+key */
#define TUI_PASTE_WAIT_MS 1000   /* in a paste: the rest of a sequence or a character
                                    split by a slow link (SSH) */
#define TUI_PASTE_MAX     (1u << 20)
#define TUI_PASTE_QUERY_MAX 512  /* characters of a paste into a search */
#define TUI_PLAIN_PASTE_MS 10    /* text this soon after Enter: a paste without
                                    markers (plain_paste_begins).  The fastest
                                    typist's next key comes tens of ms after
                                    Enter; a terminal writes a paste at once,
                                    and a link that splits it sends the parts
                                    back to back.  Short, as Enter waits it out */
#define TUI_PLAIN_PASTE_TABS 8   /* tabs after such an Enter looked past for text
                                    (an indented line); more are text anyway */

#define K_ENTER      TUI_K_ENTER
#define K_ALT_ENTER  TUI_K_ALT_ENTER
#define K_ESC        TUI_K_ESC
#define K_PASTE_BEG  TUI_K_PASTE_BEG
#define K_PASTE_END  TUI_K_PASTE_END

/*
** SIGTERM/SIGHUP/SIGINT end the loop cleanly (the terminal is restored and
** a running reply is saved).  The flag is the one piece of state outside
** struct app: a signal handler cannot reach the app otherwise.
*/
static volatile sig_atomic_t tui_stop_signal;
/* While a model loads at startup: the real stderr (fd 2 is captured then),
** for the line that says the load was interrupted; -1 otherwise. */
static int tui_load_stderr = -1;
/* While a model loads at startup with the screen up: the keys typed
** meanwhile, read as they come (load_keys_take).  A terminal that closes
** takes the keys still queued in it along: the kernel empties a hung-up
** terminal's input before SIGHUP arrives, so typeahead_keep would find
** nothing to keep.  After the load they go back to curses (load_keys_give),
** read before anything typed later.  At most TUI_LOAD_KEYS bytes, within
** curses' ungetch queue (ncurses holds 137); the rest stays queued in the
** terminal, after these. */
#define TUI_LOAD_KEYS 128
static char tui_load_keys[TUI_LOAD_KEYS];
static size_t tui_load_nkeys;

static void
on_stop_signal(int sig)
{
    tui_stop_signal = sig;
}

static void
install_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

/* ---- worker events -------------------------------------------------------- */

static void step_sibling(struct app *a, int dir);

/* The next of the sibling steps pressed while one ran (a->sib_pending): from
** the turn now at the stepped one's place on the path (F6 open or not). */
static void
next_sibling_step(struct app *a)
{
    int dir = a->sib_pending > 0 ? 1 : -1;
    int64_t *path = NULL;
    size_t np = 0;
    rwkv_err err;

    if (a->sib_pending == 0)
        return;
    a->sib_pending -= dir;
    if (a->sib_depth == 0) {
        step_sibling(a, dir);
        return;
    }
    if (a->head > 0 && store_turn_path(a->st, a->head, &path, &np, &err) == RWKV_OK &&
        a->sib_depth <= np)
        tui_branches_step(a, path[a->sib_depth - 1], dir);
    else
        a->sib_pending = 0;
    free(path);
}

/* Whether MSG names session ID ("session ID" with no digit after it). */
static int
names_session(const char *msg, int64_t id)
{
    char name[32];
    size_t n = (size_t)snprintf(name, sizeof name, "session %lld", (long long)id);

    for (const char *p = msg; (p = strstr(p, name)) != NULL; p += n)
        if (!isdigit((unsigned char)p[n]))
            return 1;
    return 0;
}

/* A runtime job (OPEN, SIBLING, SWITCH) ended: the transcript follows the
** runtime; a failure or a cancel changed nothing (and drops the sibling steps
** still pressed). */
static void
on_session_end(struct app *a, const tui_event *e, int job)
{
    char line[STORE_TITLE_MAX + 1100];

    if (e->rc != RWKV_OK)
        a->sib_pending = 0;
    if (job == TUI_JOB_OPEN && a->open_at_start) {
        a->open_at_start = 0;
        if (e->rc != RWKV_OK && e->rc != RWKV_ECANCEL) {
            const char *why = e->err.msg[0] ? TR(e->err.msg) : rwkv_strerror(e->rc);
            /* the session named once: most of sess_open's lines name it */
            if (names_session(e->err.msg, a->launch.resume_id))
                snprintf(a->start_fail, sizeof a->start_fail, "%s", why);
            else
                snprintf(a->start_fail, sizeof a->start_fail, "session %lld: %s",
                         (long long)a->launch.resume_id, why);
            a->quit = 1;
            return;
        }
    }
    if (e->rc == RWKV_OK) {
        tui_session_rebuild(a);
        /* F6 open: the tree of the session now open (one opened while it
        ** loaded had none yet), the turn stepped to or the head selected */
        if (a->menu.kind == TUI_MENU_BRANCHES)
            tui_menu_open(a, TUI_MENU_BRANCHES);
        if (job == TUI_JOB_OPEN && !a->job_noted &&
            strcmp(a->notice, TR("your unsent draft is kept: Up brings it back")) == 0)
            /* --session at start: the draft's line is not lost under it */
            tui_notice(a, 0, "resumed '%s'; your unsent draft is kept: Up brings it back",
                       a->session_title);
        else if (job == TUI_JOB_OPEN) {
            /* with what the open said (tui_notice_job: its notes hid it) */
            snprintf(line, sizeof line, TR("resumed '%s'"), a->session_title);
            tui_notice_job(a, line);
        } else if (job == TUI_JOB_SWITCH && !(a->w.arg2 && a->job_noted)) {
            /* (a replay's own line names the state); the file's name, as
            ** the status line names it: the sampling line after it fits */
            const char *sp = strrchr(a->state_path, '/');
            snprintf(line, sizeof line, TR("new session from state %s"),
                     sp ? sp + 1 : a->state_path[0] ? a->state_path : TR("(none)"));
            tui_notice_job(a, line);
        }
    } else if (e->rc == RWKV_ECANCEL) {
        tui_session_sync(a);
        tui_notice(a, 0, "cancelled: nothing changed");
    } else {
        tui_session_sync(a);
        /* a sibling step with nowhere to go ("no previous sibling") is
        ** information, not an error: nothing failed */
        tui_notice(a, !(job == TUI_JOB_SIBLING && e->rc == RWKV_EINVAL), "%s",
                   e->err.msg[0] ? TR(e->err.msg) : rwkv_strerror(e->rc));
    }
}

/* SENT back in the input box, above what was typed since (nothing is
** lost).  1 when the box holds something now. */
static int
input_put_back(struct app *a, const char *sent)
{
    tui_buf both;
    int any;

    tui_buf_init(&both);
    tui_buf_add(&both, sent, strlen(sent));
    if (a->in.len > 0) {
        tui_buf_add(&both, "\n", 1);
        tui_buf_add(&both, a->in.buf, a->in.len);
    }
    any = both.len > 0;
    if (any)
        tui_input_set(&a->in, both.p);
    tui_buf_fini(&both);
    return any;
}

/* A message or a regeneration ended before its reply started (Esc during
** the prefill, or before a regeneration's first token; a refusal): nothing
** of it was saved, so it leaves the screen and a sent message goes back to
** the input box. */
static void
on_not_started(struct app *a, const tui_event *e, int job)
{
    char msg[RWKV_ERR_MSG + 64];

    if ((e->rc == RWKV_OK || e->rc == RWKV_ECANCEL) && job == TUI_JOB_CONTINUE)
        snprintf(msg, sizeof msg, "%s", TR("cancelled before the reply went on: it is as it was"));
    else if (e->rc == RWKV_OK || e->rc == RWKV_ECANCEL)
        snprintf(msg, sizeof msg, "%s", TR("cancelled before the reply started"));
    else
        snprintf(msg, sizeof msg, "%s", e->err.msg[0] ? TR(e->err.msg) : rwkv_strerror(e->rc));
    if (job == TUI_JOB_SUBMIT && a->reply_turn >= 1 &&
        a->tr.turns[a->reply_turn - 1].role == TUI_TURN_USER && e->rc != RWKV_EINVAL) {
        /* back in the box, above what was typed since (a message queued
        ** behind the greeting while more was typed): nothing is lost --
        ** as typed, not as shown (ends stripped, blank lines joined, a
        ** tab four spaces) */
        if (input_put_back(a, a->sent ? a->sent : a->tr.turns[a->reply_turn - 1].text.p))
            snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "%s",
                     TR(": your message is back in the input box"));
    }
    a->reply_turn = -1;
    tui_session_rebuild(a);
    tui_notice(a, e->rc != RWKV_OK && e->rc != RWKV_ECANCEL, "%s", msg);
}

/* The end of a batch of alternatives (a->alt_k of a->alt_n begun; CUT: the
** last one was cut by Esc; an Esc between two stops it with none cut). */
static void
alternatives_notice(struct app *a, int cut)
{
    char br[16], k[16], prev[16], next[16];

    cfg_key_name(a->cfg.keys[CFG_ACT_BRANCHES], br, sizeof br);
    if (cut) {
        cfg_key_name(a->cfg.keys[CFG_ACT_CONTINUE], k, sizeof k);
        tui_notice(a, 0, "alternatives stopped at %d of %d: all kept as branches (%s; %s "
                         "continues the cut one)", a->alt_k, a->alt_n, br, k);
    } else if (a->alt_k < a->alt_n) {
        tui_notice(a, 0, "alternatives stopped after %d of %d: all kept as branches (%s)",
                   a->alt_k, a->alt_n, br);
    } else {
        cfg_key_name(a->cfg.keys[CFG_ACT_PREV_SIB], prev, sizeof prev);
        cfg_key_name(a->cfg.keys[CFG_ACT_NEXT_SIB], next, sizeof next);
        tui_notice(a, 0, "%d alternatives made, each a branch: %s or %s / %s show the others",
                   a->alt_n, br, prev, next);
    }
}

/* The reply's turn in the transcript begun again with TEXT (LEN bytes),
** keeping its saved row's id; a->reply_turn must be a turn. */
static void
reply_restart(struct app *a, const char *text, size_t len)
{
    int64_t id = a->tr.turns[a->reply_turn].store_id;

    tui_tr_truncate(&a->tr, a->reply_turn);
    a->reply_turn = tui_tr_add(&a->tr, TUI_TURN_ASSISTANT, text, len);
    a->tr.turns[a->reply_turn].store_id = id;
}

/* A continuation the engine failed (a device error): the chat took back what
** it made, so the reply and its row are as they were, and the turn shows
** that text again rather than what streamed before the failure. */
static void
continue_undone(struct app *a, const chat_turn *t)
{
    if (a->reply_turn >= 0 && a->reply_turn < a->tr.nturns)
        reply_restart(a, t->reply ? t->reply : "", t->reply ? t->reply_len : 0);
}

/* A job opening a conversation runs (a session, a branch or a state file
** being opened: its replay). */
static int
opening(const struct app *a)
{
    return a->w.job == TUI_JOB_OPEN || a->w.job == TUI_JOB_SIBLING || a->w.job == TUI_JOB_SWITCH;
}

static int inline_sampling(struct app *a, const char *text, char *msg, size_t *n,
                           rwkv_sampling *v, unsigned *set);

/* A message S about to wait for the job that runs (the greeting, an open)
** checked now for chat.py's words (inline_sampling): 1 when refused (said,
** S back in the box; S freed), so a bad value is not found only when the
** message would go. */
static int
queue_refused(struct app *a, char *s)
{
    size_t n = strlen(s);
    char *m = tui_xstrdup(s);
    rwkv_sampling v;
    unsigned set;
    int bad = inline_sampling(a, s, m, &n, &v, &set) < 0;

    free(m);
    if (bad) {
        free(s);
        a->dirty = 1;
    }
    return bad;
}

/* Enter while a conversation is being opened: the message goes out once it
** is open, as one sent while the greeting is prepared does; an Esc cancels
** the open and gives the text back (open_queued_go). */
static void
open_queue(struct app *a)
{
    char *s = tui_input_take(&a->in);

    if (s == NULL || queue_refused(a, s))
        return;
    free(a->queued);
    a->queued = s;
    tui_notice(a, 0, "opening the conversation; your message goes out once it is open "
                     "(Esc cancels the open and gives it back)");
    a->dirty = 1;
}

/* The open a message waited for ended: sent when it opened (OK), else back
** in the input box, above what was typed since. */
static void
open_queued_go(struct app *a, int ok)
{
    char *q = a->queued;

    a->queued = NULL;
    if (ok && !a->quit)
        tui_send(a, q);
    else if (input_put_back(a, q))
        tui_notice(a, 0, "your message is back in the input box");
    free(q);
    a->dirty = 1;
}

static void
on_end(struct app *a, const tui_event *e)
{
    int job, started = a->w.started;
    const chat_turn *t;
    const tui_menu_item *sel = tui_menu_selected(&a->menu);
    int64_t old_head = a->head, sel_id = sel ? sel->id : old_head;

    job = tui_worker_end(&a->w);      /* no job from here: a->w.job is NONE */
    a->busy = 0;
    a->phase = CHAT_IDLE;
    if (job == TUI_JOB_PRIME) {
        if (e->rc != RWKV_OK && e->rc != RWKV_ECANCEL)
            tui_notice(a, 1, "greeting: %s", e->err.msg);
        tui_apply_sampling(a);
        tui_session_tokens(a);
        a->dirty = 1;
        if (a->queued) {
            char *q = a->queued;
            a->queued = NULL;
            tui_send(a, q);
            free(q);
        }
        return;
    }
    if (job == TUI_JOB_OPEN || job == TUI_JOB_SIBLING || job == TUI_JOB_SWITCH) {
        on_session_end(a, e, job);
        if (job == TUI_JOB_SIBLING)
            next_sibling_step(a);
        if (a->queued && !a->busy)
            open_queued_go(a, e->rc == RWKV_OK);
        return;
    }
    if (job == TUI_JOB_GEN || job == TUI_JOB_GEN_MORE) {
        if (a->reply_turn >= 0 && a->reply_turn < a->tr.nturns)
            tui_tr_finish(&a->tr, a->reply_turn, 0);
        if (e->rc != RWKV_OK && e->rc != RWKV_ECANCEL)
            tui_notice(a, 1, "%s", TR(e->err.msg));
        else if (e->rc == RWKV_ECANCEL)     /* cut in its prompt: none to continue */
            tui_notice(a, 0, "generation cancelled before it began");
        else if (a->w.gen_cancel)
            tui_notice(a, 0, "generation stopped; M-+ continues it");
        else
            tui_notice(a, 0, "free generation done (not saved); M-+ continues it");
        a->reply_turn = -1;
        a->dirty = 1;
        return;
    }
    if (!started) {
        if (job == TUI_JOB_REGEN && a->alt_n > 1 && a->alt_k > 1 && e->rc == RWKV_OK) {
            /* alternative k cut before its first token is not kept */
            a->alt_k--;
            a->reply_turn = -1;
            tui_session_rebuild(a);
            alternatives_notice(a, 0);
        } else {
            on_not_started(a, e, job);
        }
        tui_branches_follow(a, old_head, sel_id);
        return;
    }
    t = chat_n_turns(a->chat) ? chat_turn_at(a->chat, chat_n_turns(a->chat) - 1) : NULL;
    if (job == TUI_JOB_CONTINUE && e->rc != RWKV_OK && e->rc != RWKV_ECANCEL && t != NULL)
        continue_undone(a, t);
    if (a->reply_turn >= 0 && a->reply_turn < a->tr.nturns && t != NULL) {
        tui_turn *tu = &a->tr.turns[a->reply_turn];
        tui_turn_stats(tu, t->stats.gen_tokens,
                       t->stats.prefill_tokens > 0 ? t->stats.prefill_tps : 0,
                       t->stats.decode_tps, t->stop == CHAT_STOP_MAX_TOKENS);
        a->last_stats = t->stats;
        tui_tr_finish(&a->tr, a->reply_turn, t->interrupted ? TUI_TURN_INTERRUPTED : 0);
        /* the interrupted notice replaces "cancelling..."; the max-tokens one
        ** is always logged, after the job's own notes, but leaves the footer
        ** to them (a new session's number is said once; an error must stay
        ** in view): F9's stats and M-l say the reply was cut */
        if (a->alt_n > 1)
            alternatives_notice(a, t->interrupted);
        else if (t->interrupted || t->stop == CHAT_STOP_MAX_TOKENS) {
            char k[16], line[160];
            cfg_key_name(a->cfg.keys[CFG_ACT_CONTINUE], k, sizeof k);
            if (t->interrupted)
                tui_notice(a, 0, "reply interrupted: kept as far as it went (C-r regenerates, "
                                 "%s continues it)", k);
            else if (a->job_noted) {
                snprintf(line, sizeof line, TR("reply stopped at max tokens: %s continues it"), k);
                tui_log_only(a, line);
            } else {          /* after the reply's own values (-temp=), if shown */
                snprintf(line, sizeof line, TR("reply stopped at max tokens: %s continues it"), k);
                tui_notice_job(a, line);
            }
        }
    }
    tui_session_note_saved(a);        /* a note of the message follows its turn */
    if (a->job_sid != 0 && sess_id(a->sess) != a->job_sid)
        tui_session_rebuild(a);       /* saved again as another session */
    else
        tui_session_mark_reply(a);
    if (e->rc != RWKV_OK)
        tui_notice(a, 1, "%s", TR(e->err.msg));
    a->reply_turn = -1;
    a->dirty = 1;
    tui_branches_follow(a, old_head, sel_id);
}

/* Generation of a continued reply started: the chat sends its text again,
** whole (cut back to what an uncut run would have shown: a held-back "\n",
** or the text before a stop string completed across the cut), so its turn
** starts empty again. */
static void
continue_shown(struct app *a)
{
    if (a->reply_turn < 0 || a->reply_turn >= a->tr.nturns)
        return;
    reply_restart(a, "", 0);
    a->tr.turns[a->reply_turn].flags |= TUI_TURN_STREAMING;
    tui_tr_scroll_end(&a->tr);
}

/* Alternative K of a batch of N begins: the one before it (a sibling, kept
** in the tree) leaves the screen, the new one streams in its place. */
static void
next_alternative(struct app *a, int k, int n)
{
    a->alt_k = k;
    a->alt_n = n;
    if (k == 1 || a->reply_turn < 0 || a->reply_turn >= a->tr.nturns)
        return;
    tui_tr_truncate(&a->tr, a->reply_turn);
    a->reply_turn = tui_tr_add(&a->tr, TUI_TURN_ASSISTANT, "", 0);
    a->tr.turns[a->reply_turn].flags |= TUI_TURN_STREAMING;
    tui_tr_scroll_end(&a->tr);
}

/* Append the text gathered in B to the streaming turn, once. */
static void
flush_text(struct app *a, tui_buf *b)
{
    if (b->len > 0 && a->reply_turn >= 0)
        tui_tr_append(&a->tr, a->reply_turn, b->p, b->len);
    b->len = 0;
}

static void
handle_events(struct app *a)
{
    tui_event *list = tui_worker_drain(&a->w);
    tui_buf text;

    /* a run of text events is one append (one re-layout), so a fast stream
    ** never outruns the UI thread */
    tui_buf_init(&text);
    for (tui_event *e = list; e; e = e->next) {
        if (e->type == TUI_EV_TEXT || e->type == TUI_EV_STATS) {
            /* live speeds do not end a run of text */
            if (e->type == TUI_EV_TEXT) {
                tui_buf_add(&text, e->text, e->len);
            } else {
                a->last_stats = e->stats;
                a->stats_replay = e->phase;
            }
            a->dirty = 1;
            continue;
        }
        flush_text(a, &text);
        switch (e->type) {
        case TUI_EV_PHASE:
            a->phase = e->phase;
            if (e->phase == CHAT_GENERATING && a->w.job == TUI_JOB_CONTINUE)
                continue_shown(a);
            break;
        case TUI_EV_DONE:
            a->last_stats = e->stats;
            a->stats_replay = 0;
            break;
        case TUI_EV_END:
            on_end(a, e);
            break;
        case TUI_EV_ALT:
            next_alternative(a, e->phase, e->n_alt);
            break;
        case TUI_EV_SESSION:
            /* the session a reply is being saved in (worker.c,
            ** watch_session): the status line and F2's "(open)" name it
            ** from now on; the rest is read at END (tui_session_sync) */
            a->sid = e->sid;
            snprintf(a->session_title, sizeof a->session_title, "%s", e->text);
            break;
        case TUI_EV_NOTE:
            /* the greeting's notes at start go to the log: the footer's
            ** keys matter more on the first screen.  The job the note was
            ** posted in, not the one running now: a note of a runtime call
            ** made while idle (a save retried by F5, which then starts the
            ** greeting) is the user's to see */
            if (e->job == TUI_JOB_PRIME && !e->phase) {
                tui_log_only(a, e->text);
                break;
            }
            if (e->job == TUI_JOB_NONE) {
                tui_notice(a, e->phase, "%s", e->text);
            } else if (e->phase) {
                /* the job's error: its later lines do not take its place */
                tui_notice(a, 1, "%s", e->text);
                tui_notice_lead(a);
                a->job_lead = 0;
            } else {      /* with the job's other lines (tui_notice_job) */
                tui_notice_job(a, e->text);
            }
            /* a prompt open again after a failure said later, queued (F5's
            ** strategy refused by the leaving rule): its dialog says it */
            if (e->phase && a->focus == TUI_FOCUS_PROMPT && a->prompt_retry &&
                !a->prompt_error[0]) {
                snprintf(a->prompt_error, sizeof a->prompt_error, "%s", a->notice);
                a->prompt_error_cut = a->notice_cut;
            }
            if (e->job != TUI_JOB_NONE)
                a->job_noted = 1;
            break;
        default:
            break;
        }
        a->dirty = 1;
    }
    flush_text(a, &text);
    tui_buf_fini(&text);
    tui_event_free(list);
}

/* ---- actions -------------------------------------------------------------- */

/* 1 when TEXT has a blank line inside it (not at its ends): the chat's
** framing (chat_normalize, as the reference demo's re.sub(r"\n+", "\n"))
** joins it, because a blank line ends a turn in the chat format. */
static int
has_inner_blank_line(const char *text)
{
    size_t lo = 0, hi = strlen(text);
    int breaks = 0;

    while (lo < hi && strchr(" \t\r\n", text[lo]))
        lo++;
    while (hi > lo && strchr(" \t\r\n", text[hi - 1]))
        hi--;
    /* two line ends in a row; LF, CR LF and a lone CR are one each */
    for (size_t i = lo; i < hi; i++) {
        if (text[i] == '\r' && i + 1 < hi && text[i + 1] == '\n')
            continue;
        breaks = text[i] == '\n' || text[i] == '\r' ? breaks + 1 : 0;
        if (breaks == 2)
            return 1;
    }
    return 0;
}

/* Start JOB (MSG, owned by the worker from here, and ARG1 as
** tui_worker_start takes them: SUBMIT's fork point, REGEN's count)
** streaming into turn a->reply_turn; PHASE is what the status line shows
** until the worker reports. */
static void
start_job(struct app *a, int phase, int job, char *msg, int64_t arg1)
{
    a->tr.turns[a->reply_turn].flags |= TUI_TURN_STREAMING;
    tui_tr_scroll_end(&a->tr);
    tui_apply_sampling(a);   /* before busy is set: it applies only when idle */
    if (a->samp_once)        /* this reply's own (tui_send): back at its end */
        sess_reply_sampling(a->sess, &a->samp_once_v, a->samp_once_set);
    a->samp_once = 0;
    /* the cancel rule (storage/session.h): Esc from now on stops this
    ** reply, even before the worker takes it */
    sess_expect_reply(a->sess);
    a->busy = 1;
    a->job_noted = 0;
    a->job_line[0] = '\0';        /* no line of this job in the footer yet */
    a->job_lead = 0;
    a->job_sid = a->sid;
    a->phase = phase;
    a->alt_k = a->alt_n = 0;
    /* this job's counts from its first report on; until then none (the
    ** last turn's were read as this one's: the status line's live count
    ** and "generating N tok" showed them for a moment) */
    a->last_stats.prefill_tokens = a->last_stats.prefill_total = 0;
    a->last_stats.gen_tokens = 0;
    a->stats_replay = 0;
    if (tui_worker_start(&a->w, a->sess, job, msg, arg1, 0) != 0) {
        /* nothing ran and the runtime recorded nothing (the worker submits):
        ** as a reply cut before it started, the transcript is the runtime's
        ** again and a message goes back to the input box, an edit still
        ** forking at its turn */
        tui_event e;

        memset(&e, 0, sizeof e);
        e.rc = rwkv_errf(&e.err, RWKV_EIO, "could not start the generation thread");
        a->busy = 0;
        a->phase = CHAT_IDLE;
        sess_reply_sampling_end(a->sess);
        on_not_started(a, &e, job);
        if (job == TUI_JOB_SUBMIT && arg1 > 0)
            a->fork_pending = 1;
    }
}

/* Add the assistant turn the reply streams into and start JOB (start_job). */
static void
start_reply(struct app *a, int phase, int job, char *msg, int64_t arg1)
{
    a->reply_turn = tui_tr_add(&a->tr, TUI_TURN_ASSISTANT, "", 0);
    start_job(a, phase, job, msg, arg1);
}

/*
** chat.py's "-temp=X" / "-top_p=Y" in message MSG (*N bytes; the line
** chat's rule, chat_inline_sampling): taken out of it, the values for its
** reply alone in *V / *SET (the sidebar's, the others).  -1 when refused:
** a value out of range, or nothing left to send -- a notice says so and
** TEXT, as typed, is back in the input box (above what was typed since).
** Else 1 or 0 (none).
*/
static int
inline_sampling(struct app *a, const char *text, char *msg, size_t *n, rwkv_sampling *v,
                unsigned *set)
{
    rwkv_err err;
    int inl;

    *v = a->samp;
    *set = a->samp_set;
    inl = chat_inline_sampling(msg, n, v, set, &err);
    if (inl > 0 && msg[strspn(msg, " \t\r\n")] == '\0') {
        input_put_back(a, text);
        tui_notice(a, 1, "%s", TR("-temp= and -top_p= go with a message: there is no "
                                  "message, not sent"));
        return -1;
    }
    if (inl < 0) {
        input_put_back(a, text);
        tui_notice(a, 1, "%s (not sent)", err.msg);
    }
    return inl;
}

void
tui_send(struct app *a, const char *text)
{
    char *msg, *shown;
    size_t shown_len, n = strlen(text);
    int64_t fork_at = 0;
    int inl;

    if (a->busy) {
        tui_notice(a, 1, "a reply is still running (Esc cancels it)");
        return;
    }
    msg = tui_xstrdup(text);
    if ((inl = inline_sampling(a, text, msg, &n, &a->samp_once_v, &a->samp_once_set)) < 0) {
        free(msg);
        return;
    }
    a->samp_once = inl > 0;
    if (a->fork_pending) {
        /* editing an earlier message: the job forks at it first (the fork
        ** rule: a user turn continues from its parent) */
        fork_at = a->fork_turn;
        if (a->edit_draft && strcmp(a->edit_draft, text) == 0) {
            free(a->edit_draft);      /* the draft itself sent (C-_ brought it back) */
            a->edit_draft = NULL;
        }
        tui_edit_end(a, 0);           /* the box is empty: a draft comes back */
        /* the screen shows the branch up to before the edited message (and
        ** its note, which stays with it on its own branch) */
        for (int i = 0; i < a->tr.nturns; i++)
            if (a->tr.turns[i].store_id == fork_at) {
                int note = i > 0 && a->tr.turns[i - 1].role == TUI_TURN_INFO &&
                           tui_session_has_note(a, fork_at);
                tui_tr_truncate(&a->tr, i - note);
                break;
            }
    }
    free(a->sent);
    a->sent = tui_xstrdup(text);     /* put back as typed, its words too */
    /* the transcript shows the message as the model gets it (and as it is
    ** saved): blank lines joined, ends stripped; the first time a blank
    ** line goes, a notice says why */
    shown = chat_normalize(msg, n, &shown_len);
    if (shown == NULL) {
        shown = tui_xstrdup(msg);
        shown_len = n;
    }
    if (!a->blank_noted && has_inner_blank_line(msg)) {
        /* in the transcript (a footer notice would be overwritten at once
        ** by the session's own) and in the log */
        const char *note = TR("blank lines joined: in the chat format a blank line ends "
                              "a turn (ChatRWKV's rule), so paragraphs go as lines");
        a->blank_noted = 1;
        tui_session_note(a, TUI_TURN_INFO, TUI_NOTE_PENDING, note, strlen(note));
        tui_notice(a, 0, "%s", note);
    }
    tui_tr_add(&a->tr, TUI_TURN_USER, shown, shown_len);
    free(shown);
    start_reply(a, CHAT_PREFILL, TUI_JOB_SUBMIT, msg, fork_at);
    if (inl > 0) {
        char t[32], p[32];
        params_format(&a->samp_once_v, params_find("temperature"), t, sizeof t);
        params_format(&a->samp_once_v, params_find("top_p"), p, sizeof p);
        tui_notice(a, 0, "this reply: temperature %s, top_p %s", t, p);
        tui_notice_lead(a);      /* the job's notes after it, not over it */
    }
    a->dirty = 1;
}

/*
** ChatRWKV's "+" commands (fgen_cmd_parse, the line chat's rule) are keys
** here: one typed is not sent as a message; a notice names the key, and the
** text goes back to the box.  1 when TEXT was one.
*/
static int
plus_command_key(struct app *a, const char *text)
{
    int cmd = fgen_cmd_parse(text, NULL, NULL), act;
    char key[32];

    switch (cmd) {
    case FGEN_CMD_NONE:
        return 0;
    case FGEN_CMD_MORE:   act = CFG_ACT_GEN_MORE; break;
    case FGEN_CMD_REGEN:  act = CFG_ACT_REGEN; break;
    case FGEN_CMD_RESET:  act = CFG_ACT_NEW; break;
    case FGEN_CMD_PROMPT: act = -1; break;
    default:              act = CFG_ACT_GEN; break;
    }
    tui_input_set(&a->in, text);
    if (act < 0) {
        tui_notice(a, 1, "%s is ChatRWKV's, not sent: F8 sets the greeting, F3 a state file",
                   fgen_cmd_name(cmd));
        return 1;
    }
    cfg_key_name(a->cfg.keys[act], key, sizeof key);
    tui_notice(a, 1, "%s is ChatRWKV's, not sent: here %s does it (F1 lists the keys)",
               fgen_cmd_name(cmd), key);
    return 1;
}

/* The transcript's last turn when it is a reply that can be acted on (no
** reply running), else -1 after a notice (NONE: there is no reply). */
static int
last_reply(struct app *a, const char *none)
{
    int last = a->tr.nturns - 1;

    if (a->busy) {
        tui_notice(a, 1, "a reply is still running");
        return -1;
    }
    if (last < 0 || a->tr.turns[last].role != TUI_TURN_ASSISTANT || chat_n_turns(a->chat) == 0) {
        tui_notice(a, 1, "%s", TR(none));
        return -1;
    }
    return last;
}

void
tui_regen(struct app *a, int n)
{
    int last = last_reply(a, TR_NOOP("no reply to regenerate"));

    if (last < 0)
        return;
    tui_tr_truncate(&a->tr, last);
    start_reply(a, CHAT_GENERATING, TUI_JOB_REGEN, NULL, n);
}

/* M-R: how many alternatives (the prompt's accept calls tui_regen). */
static void
ask_alternatives(struct app *a)
{
    char init[8];

    if (last_reply(a, TR_NOOP("no reply to regenerate")) < 0)
        return;
    snprintf(init, sizeof init, "%d", TUI_ALTS_DEFAULT);
    tui_prompt_open(a, TUI_PROMPT_ALTS, "alternatives (1-16): ", init);
}

/* The last reply goes on (sess_continue) in its own turn of the transcript:
** the text stays until generation starts (a rebuild of the logits after a
** resume comes first; Esc then leaves it as it was), then continue_shown. */
static void
continue_reply(struct app *a)
{
    int last = last_reply(a, TR_NOOP("no reply to continue"));

    if (last < 0)
        return;
    a->reply_turn = last;
    start_job(a, CHAT_PREFILL, TUI_JOB_CONTINUE, NULL, 0);
}

static void
step_sibling(struct app *a, int dir)
{
    int last = a->tr.nturns - 1;

    if (a->busy && a->w.job == TUI_JOB_SIBLING) {   /* taken when this one ends */
        a->sib_pending += dir;
        a->sib_depth = 0;
        return;
    }
    if (a->busy) {
        tui_notice(a, 1, "a reply is still running");
        return;
    }
    while (last >= 0 && a->tr.turns[last].store_id == 0)
        last--;
    if (last < 0 && a->launch.no_db) {
        tui_notice(a, 1, "sessions are not being saved (--no-db): no branches to switch");
        return;
    }
    if (last < 0) {
        tui_notice(a, 1, "no saved turn to switch");
        return;
    }
    tui_session_job(a, TUI_JOB_SIBLING, a->tr.turns[last].store_id, dir, NULL);
}

static int tr_view_rows(const struct app *a);
static void history_sent(struct app *a);

void
tui_edit_turn(struct app *a, int turn)
{
    const tui_turn *t = &a->tr.turns[turn];
    size_t row = tui_tr_row_of(&a->tr, turn, 0);

    a->fork_turn = t->store_id;
    if (!a->fork_pending && a->edit_draft == NULL && tui_input_unsent(&a->in) != NULL)
        a->edit_draft = tui_xstrdup(a->in.buf);
    a->fork_pending = 1;
    tui_input_set(&a->in, t->text.p);
    if (row != (size_t)-1)
        tui_tr_show_row(&a->tr, row > 0 ? row - 1 : row, tr_view_rows(a));  /* with its header */
    a->dirty = 1;
}

void
tui_edit_end(struct app *a, int set)
{
    char *d = a->edit_draft;

    a->fork_pending = 0;
    a->edit_draft = NULL;
    if (set)
        tui_input_set(&a->in, "");
    if (d != NULL)
        input_put_back(a, d);
    free(d);
}

/* Edit the last user message: the next send forks at its parent. */
static void
edit_last(struct app *a)
{
    if (a->busy) {   /* the message being answered is not saved yet: the one
                     ** before it would be taken, and Enter fork from there */
        tui_notice(a, 1, "a reply is still running");
        return;
    }
    for (int i = a->tr.nturns - 1; i >= 0; i--) {
        tui_turn *t = &a->tr.turns[i];
        if (t->role == TUI_TURN_USER && t->store_id != 0) {
            tui_edit_turn(a, i);
            if (a->edit_draft)
                tui_notice(a, 0, "editing an earlier message (Esc cancels); your draft comes "
                                 "back after it");
            else
                tui_notice(a, 0, "editing an earlier message: sending it starts a new branch "
                                 "(Esc cancels)");
            return;
        }
    }
    tui_notice(a, 1, "no saved message to edit");
}

/* What system() said of the editor ED run through the shell (STATUS): a
** failure names its reason -- the exit status, the signal, or what the
** shell's 127 and 126 mean (not found, not executable) -- in the footer. */
static void
editor_said(struct app *a, const char *ed, int status)
{
    int err = errno;

    if (status == -1)
        tui_notice(a, 1, "editor '%s' failed: %s", ed, strerror(err));
    else if (WIFSIGNALED(status))
        tui_notice(a, 1, "editor '%s' failed: killed by signal %d (%s)", ed, WTERMSIG(status),
                   strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        tui_notice(a, 1, "editor '%s' failed: not found (exit status 127)", ed);
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 126)
        tui_notice(a, 1, "editor '%s' failed: not executable (exit status 126)", ed);
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        tui_notice(a, 1, "editor '%s' failed: exit status %d", ed, WEXITSTATUS(status));
}

/* The one notice for text the message box could not take whole (its room,
** TUI_INPUT_MAX; a paste's TUI_PASTE_MAX is the same): CUT characters left
** out at the end of a paste, or (EDITOR) of the file the editor wrote. */
static void
cut_notice(struct app *a, int editor, size_t cut)
{
    if (cut == 0)
        return;
    if (editor)
        tui_notice(a, 1, "the editor's text was too long: its last %zu characters were dropped",
                   cut);
    else
        tui_notice(a, 1, "the paste was too long: its last %zu characters were dropped", cut);
}

/* The characters (code points) in the N bytes at S, added to *NL the
** newlines they end with (reset by any other character). */
static size_t
count_chars(const char *s, size_t n, size_t *nl)
{
    size_t c = 0;

    for (size_t i = 0; i < n; i++) {
        c += ((unsigned char)s[i] & 0xc0) != 0x80;
        *nl = s[i] == '\n' ? *nl + 1 : 0;
    }
    return c;
}

/* Bytes of the editor's text kept past the box's room, so that the newlines
** that end a file (they go) are not counted as cut. */
#define TUI_EDITOR_SLACK 4096

/* The file F the editor wrote as the message box's text: cleaned as typed
** or pasted text (no escape codes, controls or ill-formed UTF-8; each line
** end a newline, a lone CR too), its last
** newlines gone, cut to the box's room on a character boundary
** (tui_input_insert) and the cut said as a paste's is.  Past the room the
** file is read on and its characters counted, not kept. */
static void
editor_take(struct app *a, FILE *f)
{
    tui_sanitizer san;
    tui_buf text, rest;
    char chunk[4096];
    size_t n, cut = 0, nl = 0;

    tui_san_init(&san);
    san.u.line = 1;              /* CR, CR LF (and NEL) a newline, as in a paste */
    tui_buf_init(&text);
    tui_buf_init(&rest);
    tui_buf_add(&text, "", 0);
    for (;;) {
        int over = text.len > TUI_INPUT_MAX + TUI_EDITOR_SLACK;
        n = fread(chunk, 1, sizeof chunk, f);
        rest.len = 0;
        if (n > 0)
            tui_san_push(&san, chunk, n, over ? &rest : &text);
        else
            tui_san_flush(&san, over ? &rest : &text);
        cut += count_chars(rest.p, rest.len, &nl);
        if (n == 0)
            break;
    }
    cut -= nl;                   /* the file's last newlines: they go anyway */
    if (cut == 0)
        while (text.len > 0 && text.p[text.len - 1] == '\n')
            text.p[--text.len] = '\0';
    cut += tui_input_set(&a->in, text.p);
    cut_notice(a, 1, cut);
    tui_buf_fini(&text);
    tui_buf_fini(&rest);
}

/* Write the message in $VISUAL or $EDITOR (curses suspended meanwhile), in
** a temporary file in $TMPDIR (else /tmp, as for a path too long or holding
** the quote the command line puts around it). */
static void
external_editor(struct app *a)
{
    const char *ed = getenv("VISUAL"), *dir = getenv("TMPDIR");
    char path[512];
    char cmd[1600];
    int fd;
    FILE *f;

    if (ed == NULL || *ed == '\0')
        ed = getenv("EDITOR");
    if (ed == NULL || *ed == '\0')
        ed = "vi";
    if (dir == NULL || *dir == '\0' || strchr(dir, '\'') != NULL ||
        (size_t)snprintf(path, sizeof path, "%s/rwkv-tui-msg.XXXXXX", dir) >= sizeof path)
        snprintf(path, sizeof path, "/tmp/rwkv-tui-msg.XXXXXX");
    fd = mkstemp(path);
    if (fd < 0) {
        tui_notice(a, 1, "editor: cannot create a temporary file");
        return;
    }
    if (write(fd, a->in.buf, a->in.len) < 0) {
        /* the editor starts empty then */
    }
    close(fd);
    def_prog_mode();
    endwin();
    snprintf(cmd, sizeof cmd, "%.1000s '%s'", ed, path);
    editor_said(a, ed, system(cmd));
    reset_prog_mode();
    f = fopen(path, "rb");
    if (f) {
        editor_take(a, f);
        fclose(f);
    }
    unlink(path);
    clearok(curscr, TRUE);
    a->dirty = 1;
}

static void
cancel_or_close(struct app *a)
{
    if (a->busy) {
        sess_cancel(a->sess);
        a->w.gen_cancel = 1;
        a->sib_pending = 0;      /* Esc stops the sibling steps queued behind it too */
        tui_notice(a, 0, "cancelling...");
        if (a->queued && opening(a))
            /* the message waiting for the open comes back now: an open that
            ** replays nothing goes on whatever the Esc (the cancel rule,
            ** storage/session.h), and the message must not go out in it */
            open_queued_go(a, 0);
        return;
    }
    if (a->focus == TUI_FOCUS_SIDEBAR) {
        a->focus = TUI_FOCUS_INPUT;
        a->dirty = 1;
    }
}

/* ---- copy (OSC 52) and mouse reporting ----------------------------------- */

/* The reply the copy keys take: the one a jump brought into view (C-f's
** match in a reply, F6's reply, M-p/M-n's; your message stepped to: its
** reply) while it is in view and no scroll key has moved the view since;
** else the last one, or when the transcript is scrolled back the last one
** that starts above the view's bottom; -1. */
static int
copy_target(struct app *a)
{
    int h = tr_view_rows(a), turn = a->tr.nturns - 1, f = a->tr.focus;

    if (f >= 0 && f < a->tr.nturns && a->tr.turns[f].role == TUI_TURN_USER) {
        /* the reply to it: the next reply before the next message */
        while (++f < a->tr.nturns && a->tr.turns[f].role != TUI_TURN_ASSISTANT &&
               a->tr.turns[f].role != TUI_TURN_USER)
            ;
    }
    if (f >= 0 && f < a->tr.nturns && a->tr.turns[f].role == TUI_TURN_ASSISTANT &&
        tui_tr_in_view(&a->tr, f, h))
        return f;
    if (a->tr.scroll > 0 && a->tr.nrows > 0) {
        size_t bottom = tui_tr_first_row(&a->tr, h) + (size_t)h - 1;
        turn = a->tr.rows[bottom < a->tr.nrows ? bottom : a->tr.nrows - 1].turn;
    }
    while (turn >= 0 && a->tr.turns[turn].role != TUI_TURN_ASSISTANT)
        turn--;
    return turn;
}

/* Put N bytes of TEXT on the clipboard (OSC 52, clip.h); WHAT names it in
** the notice.  0, or -1 with a notice. */
static int
copy_text(struct app *a, const char *text, size_t n, const char *what)
{
    tui_buf seq;

    if (strcmp(a->cfg.clipboard, "off") == 0) {
        tui_notice(a, 1, "copying is off (clipboard: off in the config file)");
        return -1;
    }
    if (n > TUI_CLIP_MAX) {
        tui_notice(a, 1, "%s is %zu bytes: more than the %u a terminal takes at once; "
                   "select it with the mouse (M-m turns mouse reporting off)", what, n,
                   TUI_CLIP_MAX);
        return -1;
    }
    tui_buf_init(&seq);
    tui_clip_osc52(&seq, text, n, getenv("TMUX") != NULL);
    fwrite(seq.p, 1, seq.len, stdout);
    fflush(stdout);
    tui_buf_fini(&seq);
    return 0;
}

/* The text of reply T as the copy keys take it into B: the saved text (not
** the transcript's, whose tabs are spaces), its lead left out, by the copy
** rule (tui_sanitize_copy: tabs and CRs kept, escapes and controls not). */
static void
copy_source(struct app *a, int t, tui_buf *b)
{
    const tui_buf *raw = &a->tr.turns[t].raw;
    size_t skip = tui_reply_lead(raw->p, raw->len);

    tui_buf_init(b);
    tui_sanitize_copy(raw->p ? raw->p + skip : "", raw->len - skip, b);
}

/* M-c: the reply as written (its Markdown source). */
static void
copy_reply(struct app *a)
{
    int t = copy_target(a);
    tui_buf b;

    if (t < 0) {
        tui_notice(a, 1, "no reply to copy");
        return;
    }
    copy_source(a, t, &b);
    if (copy_text(a, b.p, b.len, TR("the reply")) == 0)
        tui_notice(a, 0, "copied the reply (%zu bytes) to the clipboard", b.len);
    tui_buf_fini(&b);
}

/* M-k: a fenced code block of that reply, as saved; pressed again, the next one. */
static void
copy_code(struct app *a)
{
    int t = copy_target(a);
    tui_md_block *bl = NULL;
    size_t nb, k, lines = 1;
    tui_buf src, *b = &src;

    if (t < 0) {
        tui_notice(a, 1, "no reply to copy from");
        return;
    }
    copy_source(a, t, &src);
    nb = tui_md_code_blocks(b->p, b->len, &bl);
    if (nb == 0) {
        tui_buf_fini(&src);
        /* M-c named only where it copies (clipboard: off, it does not) */
        if (strcmp(a->cfg.clipboard, "off") == 0)
            tui_notice(a, 1, "the reply has no code block (and copying is off: clipboard: off "
                             "in the config file)");
        else
            tui_notice(a, 1, "the reply has no code block (M-c copies all of it)");
        return;
    }
    k = t == a->copy_turn ? (a->copy_block + 1) % nb : 0;
    for (size_t i = 0; i < bl[k].len; i++)
        lines += b->p[bl[k].off + i] == '\n';
    if (copy_text(a, b->p + bl[k].off, bl[k].len, TR("the code block")) == 0) {
        a->copy_turn = t;
        a->copy_block = k;
        if (lines == 1)
            tui_notice(a, 0, "copied code block %zu of %zu (%zu line)%s", k + 1, nb, lines,
                       nb > 1 ? TR("; again: the next") : "");
        else
            tui_notice(a, 0, "copied code block %zu of %zu (%zu lines)%s", k + 1, nb, lines,
                       nb > 1 ? TR("; again: the next") : "");
    }
    free(bl);
    tui_buf_fini(&src);
}

/* Mouse reporting on (the wheel scrolls) or off (the terminal's own
** selection works without Shift). */
static void
set_mouse(struct app *a, int on)
{
    a->mouse_off = !on;
    mousemask(on ? BUTTON1_PRESSED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
                   | BUTTON5_PRESSED
#endif
                 : 0, NULL);
}

/* ---- stepping through the messages (M-p, M-n) ----------------------------- */

/* The previous (DIR -1) or next message's header to the top of the view
** (as near as the end allows), the copy keys then taking that reply or the
** reply to that message (copy_target).  A step goes from the message a
** step or a jump brought into view while its header is in view (near the
** end the view cannot bring it to the top: the next step goes on from it),
** else from the view's top row. */
static void
step_message(struct app *a, int dir)
{
    int h = tr_view_rows(a), f = a->tr.focus;
    size_t first = tui_tr_first_row(&a->tr, h), from = first, row, hr;

    if (f >= 0 && f < a->tr.nturns && (hr = tui_tr_header_row(&a->tr, f)) != (size_t)-1 &&
        hr >= first && hr < first + (size_t)h)
        from = hr;
    if ((row = tui_tr_msg_row(&a->tr, from, dir)) == (size_t)-1) {
        tui_notice(a, 0, "%s", dir < 0 ? TR("no earlier message") : TR("no later message"));
        return;
    }
    tui_tr_show_top(&a->tr, row, h);
    a->tr.focus = a->tr.rows[row].turn;
}

/* ---- search within the transcript (C-f) ----------------------------------- */

/* Scroll the transcript to the current match; a match in a reply makes it
** the one the copy keys take (copy_target). */
static void
search_jump(struct app *a)
{
    size_t r = tui_search_row(&a->search, &a->tr);

    a->tr.focus = -1;
    if (r == (size_t)-1)
        return;
    tui_tr_show_row(&a->tr, r, tr_view_rows(a));
    if (a->tr.turns[a->tr.rows[r].turn].role == TUI_TURN_ASSISTANT)
        a->tr.focus = a->tr.rows[r].turn;
}

/* The query changed: the current match is the last one at or above the
** bottom of the view (the newest text the user sees), and it is shown. */
static void
search_refresh(struct app *a)
{
    int h = tr_view_rows(a);
    size_t bottom = tui_tr_first_row(&a->tr, h) + (size_t)h - 1;
    int turn = a->tr.nrows == 0 ? 0
             : a->tr.rows[bottom < a->tr.nrows ? bottom : a->tr.nrows - 1].turn;

    if (tui_search_update(&a->search, &a->tr)) {
        tui_search_pick(&a->search, turn);
        search_jump(a);
    }
}

static void
search_open(struct app *a)
{
    a->search.open = 1;
    if (a->focus != TUI_FOCUS_SEARCH)
        a->prev_focus = a->focus == TUI_FOCUS_SIDEBAR ? TUI_FOCUS_SIDEBAR : TUI_FOCUS_INPUT;
    a->focus = TUI_FOCUS_SEARCH;
    free(a->search.q_done);        /* the last query again: find it anew */
    a->search.q_done = NULL;
    tui_input_select_all(&a->search.q);   /* kept, selected: typing replaces it */
    search_refresh(a);
}

static void
search_close(struct app *a)
{
    char *q = tui_input_take(&a->search.q);   /* into its history ... */

    if (q != NULL) {                             /* ... and still the query */
        tui_input_set(&a->search.q, q);
        free(q);
    }
    a->search.open = 0;
    a->focus = a->prev_focus == TUI_FOCUS_SIDEBAR ? TUI_FOCUS_SIDEBAR : TUI_FOCUS_INPUT;
}

static void input_key(struct app *a, tui_input *in, int key, int is_fkey, int oneline);
static int  scroll_key(struct app *a, int key, int is_fkey);

/* A key while the search line is open. */
static void
search_key(struct app *a, int key, int is_fkey)
{
    tui_search *s = &a->search;
    int next = (!is_fkey && (key == K_ENTER ||
                             (key == a->cfg.keys[CFG_ACT_SEARCH] && key != CFG_KEY_NONE))) ||
               (is_fkey && key == KEY_DOWN);
    int prev = is_fkey && (key == KEY_UP || key == KEY_BTAB);

    if (!is_fkey && (key == K_ESC || key == CFG_KEY_CTRL('c'))) {
        search_close(a);
        return;
    }
    if (next || prev) {
        tui_search_update(s, &a->tr);
        if (next)
            tui_search_next(s);
        else
            tui_search_prev(s);
        search_jump(a);
        return;
    }
    if (scroll_key(a, key, is_fkey))
        return;
    if (!is_fkey && (key == CFG_KEY_CTRL('p') || key == CFG_KEY_CTRL('n'))) {
        if (key == CFG_KEY_CTRL('p'))      /* earlier / later searches */
            tui_input_up(&s->q);
        else
            tui_input_down(&s->q);
    } else {
        input_key(a, &s->q, key, is_fkey, 1);
    }
    search_refresh(a);
}

static int
do_action(struct app *a, int act)
{
    switch (act) {
    case CFG_ACT_SIDEBAR:
        a->show_sidebar = !a->show_sidebar;
        if (!a->show_sidebar && a->focus == TUI_FOCUS_SIDEBAR)
            a->focus = TUI_FOCUS_INPUT;
        /* too narrow to show it either way: the toggle says so, or it
        ** would change nothing in sight (short: the footer is narrow) */
        if (a->cols < TUI_SIDEBAR_MIN_COLS && a->show_sidebar)
            tui_notice(a, 0, "sidebar on: shown from %d columns (now %d)",
                       TUI_SIDEBAR_MIN_COLS, a->cols);
        else if (a->cols < TUI_SIDEBAR_MIN_COLS)
            tui_notice(a, 0, "sidebar off (hidden below %d columns anyway)",
                       TUI_SIDEBAR_MIN_COLS);
        break;
    case CFG_ACT_PARAMS:
        if (a->focus == TUI_FOCUS_SIDEBAR) {
            a->focus = TUI_FOCUS_INPUT;
        } else if (a->cols < TUI_SIDEBAR_MIN_COLS) {
            /* a hidden sidebar never takes the keys */
            tui_notice(a, 1, "the parameter sidebar needs %d columns (this terminal has %d)",
                       TUI_SIDEBAR_MIN_COLS, a->cols);
        } else {
            a->show_sidebar = 1;
            a->focus = TUI_FOCUS_SIDEBAR;
        }
        break;
    case CFG_ACT_STATS:     a->show_stats = !a->show_stats; break;
    case CFG_ACT_QUIT:      a->quit = 1; break;
    case CFG_ACT_REGEN:     tui_regen(a, 1); break;
    case CFG_ACT_ALTS:      ask_alternatives(a); break;
    case CFG_ACT_CONTINUE:  continue_reply(a); break;
    case CFG_ACT_NEW:
        if (a->busy)
            tui_notice(a, 1, "a reply is still running");
        else
            tui_session_new(a);
        break;
    case CFG_ACT_PREV_SIB:  step_sibling(a, -1); break;
    case CFG_ACT_NEXT_SIB:  step_sibling(a, +1); break;
    case CFG_ACT_EDIT_LAST: edit_last(a); break;
    case CFG_ACT_EDITOR:    external_editor(a); break;
    case CFG_ACT_GEN:
        tui_prompt_open(a, TUI_PROMPT_GEN, "generate from (\\n = newline): ", "");
        break;
    case CFG_ACT_GEN_MORE:  tui_free_gen(a, NULL); break;
    case CFG_ACT_REDRAW:    clearok(curscr, TRUE); break;
    case CFG_ACT_SEARCH:    search_open(a); break;
    case CFG_ACT_PREV_MSG:  step_message(a, -1); break;
    case CFG_ACT_NEXT_MSG:  step_message(a, +1); break;
    case CFG_ACT_COPY:      copy_reply(a); break;
    case CFG_ACT_COPY_CODE: copy_code(a); break;
    case CFG_ACT_THINK:     tui_framing_next_think(a); break;
    case CFG_ACT_FOLD:
        tui_tr_set_fold(&a->tr, !a->tr.fold_think);
        tui_notice(a, 0, "%s", a->tr.fold_think ? TR("reasoning folded to one line per reply")
                                                : TR("reasoning shown in full"));
        break;
    case CFG_ACT_MOUSE:
        set_mouse(a, a->mouse_off);
        tui_notice(a, 0, "%s", a->mouse_off ? TR("mouse reporting off: select text with the mouse; "
                                                 "M-m turns it back on")
                                              : TR("mouse reporting on: the wheel scrolls, clicks choose "
                                                 "(Shift-drag selects text)"));
        break;
    default:
        if (!tui_menu_open_action(a, act))    /* the menus' table */
            return 0;
        break;
    }
    a->dirty = 1;
    return 1;
}

/* ---- keys ----------------------------------------------------------------- */

static int
tr_view_rows(const struct app *a)
{
    return a->tr_rows > 0 ? a->tr_rows : 1;
}

static void sidebar_key(struct app *a, int key, int is_fkey);

/* A click on a sidebar parameter selects it (the sidebar takes the keys);
** on the selected one it asks for a value, as Enter; elsewhere it gives
** the keys back to the input box. */
static void
click(struct app *a, int y, int x)
{
    int row = tui_sidebar_row_at(&a->side, y, x);

    if (row >= 0 && a->focus == TUI_FOCUS_SIDEBAR && row == a->param_sel) {
        sidebar_key(a, K_ENTER, 0);
    } else if (row >= 0) {
        a->param_sel = row;
        a->focus = TUI_FOCUS_SIDEBAR;
    } else if (a->focus == TUI_FOCUS_SIDEBAR) {
        a->focus = TUI_FOCUS_INPUT;
    }
}

static int
scroll_key(struct app *a, int key, int is_fkey)
{
    int h = tr_view_rows(a);

    if (!is_fkey)
        return 0;
    if (key == KEY_PPAGE || key == KEY_NPAGE || key == KEY_SR || key == KEY_SF)
        a->tr.focus = -1;          /* the view moved: the copy keys' usual reply */
    switch (key) {
    case KEY_PPAGE: tui_tr_scroll(&a->tr, h > 2 ? h - 2 : 1, h); return 1;
    case KEY_NPAGE: tui_tr_scroll(&a->tr, -(h > 2 ? h - 2 : 1), h); return 1;
    case KEY_SR:    tui_tr_scroll(&a->tr, 1, h); return 1;      /* shift-up */
    case KEY_SF:    tui_tr_scroll(&a->tr, -1, h); return 1;     /* shift-down */
    case KEY_MOUSE: {
        MEVENT me;
        if (getmouse(&me) == OK) {
            if (me.bstate & BUTTON4_PRESSED) {
                tui_tr_scroll(&a->tr, TUI_WHEEL_ROWS, h);
                a->tr.focus = -1;
            }
#ifdef BUTTON5_PRESSED
            else if (me.bstate & BUTTON5_PRESSED) {
                tui_tr_scroll(&a->tr, -TUI_WHEEL_ROWS, h);
                a->tr.focus = -1;
            }
#endif
            else if (me.bstate & BUTTON1_PRESSED)
                click(a, me.y, me.x);
        }
        return 1;
    }
    default:
        return 0;
    }
}

/* A range bound of parameter P as typed: integers in full (the seed's
** 18446744073709551615, not 1.84467e+19), floats as %g. */
static void
range_bound(const params_entry *p, double v, char *buf, size_t cap)
{
    if (p->type == PARAMS_U64 && v >= 18446744073709551615.0)
        snprintf(buf, cap, "%llu", (unsigned long long)UINT64_MAX);
    else if (p->type != PARAMS_FLOAT || (v == (double)(long long)v && v < 1e15 && v > -1e15))
        snprintf(buf, cap, "%.0f", v);
    else
        snprintf(buf, cap, "%g", v);
}

/* Whether KEY in the focused sidebar is typing meant for the message box:
** a printable character that is not one of the sidebar's own (a digit or
** '.' starts a value, '-' '+' '=' step it).  It goes there, with the focus,
** rather than being lost (or changing a value) after a stray Tab. */
static int
sidebar_typing(int key, int is_fkey)
{
    if (is_fkey || key < 0x20 || key == 0x7f || key >= 0x110000)   /* not a character */
        return 0;
    return key >= 0x80 || !((key >= '0' && key <= '9') || strchr(".-+=", key) != NULL);
}

static void
sidebar_key(struct app *a, int key, int is_fkey)
{
    int n = tui_param_count();
    int dir = 0;

    if (is_fkey) {
        switch (key) {
        case KEY_UP:    a->param_sel = a->param_sel > 0 ? a->param_sel - 1 : 0; return;
        case KEY_DOWN:  a->param_sel = a->param_sel < n - 1 ? a->param_sel + 1 : n - 1; return;
        case KEY_LEFT:  dir = -1; break;
        case KEY_RIGHT: dir = +1; break;
        case KEY_PPAGE: dir = +10; break;
        case KEY_NPAGE: dir = -10; break;
        default: return;
        }
    } else if (key == '-') {
        dir = -1;
    } else if (key == '+' || key == '=') {
        dir = +1;
    } else if (key == K_ENTER || (key >= '0' && key <= '9') || key == '.') {
        char init[64] = "";
        if (key != K_ENTER)
            snprintf(init, sizeof init, "%c", key);
        else
            params_format(&a->samp, a->param_sel, init, sizeof init);
        {
            char label[96], lo[32], hi[32];
            range_bound(&params_table[a->param_sel], params_table[a->param_sel].min, lo,
                        sizeof lo);
            range_bound(&params_table[a->param_sel], params_table[a->param_sel].max, hi,
                        sizeof hi);
            snprintf(label, sizeof label, "%s [%s..%s]: ", params_table[a->param_sel].cli, lo,
                     hi);
            tui_prompt_open(a, TUI_PROMPT_PARAM, label, init);
            if (key != K_ENTER)
                a->prompt.sel = 0;   /* the digit typed: more digits follow it */
        }
        return;
    } else {
        return;
    }
    if (tui_param_step(&a->samp, a->param_sel, dir))
        tui_sampling_edited(a, PARAMS_BIT(a->param_sel));
}

/* 1 when N more bytes fit in the one-line prompt: a session title and a
** preset's name hold at most STORE_TITLE_MAX - 1 bytes, so their prompts
** stop taking text there (with a notice) instead of refusing it after
** Enter. */
static int
prompt_room(struct app *a, size_t n)
{
    /* (a selection is replaced by what is typed: it takes no room) */
    if ((a->prompt_kind != TUI_PROMPT_RENAME && a->prompt_kind != TUI_PROMPT_PRESET_SAVE) ||
        (a->prompt.sel ? 0 : a->prompt.len) + n <= STORE_TITLE_MAX - 1)
        return 1;
    /* the footer is the prompt's line: the label says it */
    snprintf(a->prompt_label, sizeof a->prompt_label,
             a->prompt_kind == TUI_PROMPT_RENAME ? TR("a title holds at most %d bytes: ")
                                                 : TR("a preset name holds at most %d bytes: "),
             STORE_TITLE_MAX - 1);
    a->dirty = 1;
    return 0;
}

/* Up (DIR -1) or Down in IN: a history entry cut when the history file
** kept it (history.h) says so when it comes into the box -- Enter would
** send only that part. */
static void
input_updown(struct app *a, tui_input *in, int dir, int oneline)
{
    size_t was = in->hpos;

    if (dir < 0)
        tui_input_up_at(in, oneline ? 0 : tui_input_cols(a));
    else
        tui_input_down_at(in, oneline ? 0 : tui_input_cols(a));
    if (in->hpos != was && tui_input_hist_cut(in, in->hpos))
        tui_notice(a, 0, "this history entry is only the first %u KiB of the message (its "
                         "session keeps it whole): Enter sends the part shown",
                   TUI_HISTORY_ENTRY_MAX >> 10);
}

static void
input_edit(struct app *a, tui_input *in, int key, int is_fkey, int oneline)
{
    if (is_fkey) {
        switch (key) {
        case KEY_LEFT:  tui_input_left(in); break;
        case KEY_RIGHT: tui_input_right(in); break;
        case KEY_UP:              /* a one-line prompt: its history, if any */
        case KEY_DOWN:
            if (!oneline || in->nhist > 0)   /* the box: by its rows as drawn */
                input_updown(a, in, key == KEY_UP ? -1 : 1, oneline);
            break;
        case KEY_HOME:
            if (!oneline && in->len == 0) {
                tui_tr_scroll_top(&a->tr, tr_view_rows(a));
                a->tr.focus = -1;
            } else {
                tui_input_home(in);
            }
            break;
        case KEY_END:
            if (!oneline && in->len == 0) {
                tui_tr_scroll_end(&a->tr);
                a->tr.focus = -1;
            } else {
                tui_input_end(in);
            }
            break;
        case KEY_BACKSPACE: tui_input_backspace(in); break;
        case KEY_DC:        tui_input_delete(in); break;
        default: break;
        }
        return;
    }
    switch (key) {      /* the keys of config.h's CFG_FIXED_KEYS, and those no
                        ** config can name (DEL, M-Backspace, Alt-Enter) */
    case 127:
    case CFG_FIX_BACKSPACE:   tui_input_backspace(in); return;
    case CFG_FIX_HOME:        /* as Home and End (F1: "Home/End, C-a/C-e") */
        input_key(a, in, KEY_HOME, 1, oneline);
        return;
    case CFG_FIX_END:
        input_key(a, in, KEY_END, 1, oneline);
        return;
    case CFG_FIX_EOF_QUIT:    tui_input_delete(in); return;   /* (readline's; the empty box quits) */
    case CFG_FIX_KILL_EOL:    tui_input_kill_eol(in); return;
    case CFG_FIX_KILL_ALL:    tui_input_kill_all(in); return;
    case CFG_FIX_YANK:        /* what the last kills deleted, back */
        if (in != &a->prompt || prompt_room(a, in->kill_len))
            tui_input_yank(in);
        return;
    case CFG_FIX_KILL_WORD:   tui_input_kill_word(in); return;
    case CFG_FIX_UNDO:        tui_input_undo(in); return;
    case CFG_FIX_LEFT:        tui_input_left(in); return;
    case CFG_FIX_WORD_LEFT:   tui_input_word_left(in); return;
    case CFG_FIX_WORD_RIGHT:  tui_input_word_right(in); return;
    case CFG_FIX_KILL_NEXT:   tui_input_kill_word_next(in); return;
    case CFG_KEY_ALT(127):
    case CFG_KEY_ALT(8):      tui_input_kill_word_prev(in); return;
    case CFG_FIX_NEWLINE:
    case K_ALT_ENTER:
        if (!oneline) {
            tui_input_undo_break(in);     /* undo goes back a line at a time */
            tui_input_insert(in, "\n", 1);
        }
        return;
    default:
        break;
    }
    if (key >= 0x20 && key < 0x110000 && key != 0x7f && !(key >= 0x80 && key < 0xa0)) {
        unsigned char u[8];
        int n = utf8_encode((uint32_t)key, u);
        if (n > 0 && (in != &a->prompt || prompt_room(a, (size_t)n))) {
            if (key == ' ' && in->cur > 0 && in->buf[in->cur - 1] != ' ')
                tui_input_undo_break(in);     /* a typed word: one undo step */
            tui_input_insert(in, (const char *)u, (size_t)n);
        }
    }
}

/* A key for a line editor (the box, a prompt, the search line): a
** selection (tui_input_select_all: a prompt opened holding text) is
** replaced, removed or left by the editing calls themselves (input.h), and
** any key drops it once it has acted. */
static void
input_key(struct app *a, tui_input *in, int key, int is_fkey, int oneline)
{
    input_edit(a, in, key, is_fkey, oneline);
    in->sel = 0;
}

/*
** Ctrl-Z: suspend like every full-screen program.  raw() mode makes C-z a
** key, so the stop is ours: the terminal is given back (endwin, bracketed
** paste off), the process stops with the default SIGTSTP action, and after
** SIGCONT (the shell's fg) the modes come back and the whole screen is
** drawn again.  A running job goes on when resumed.
*/
static void
suspend(struct app *a)
{
    struct sigaction dfl, old;

    fputs("\033[?2004l", stdout);
    fflush(stdout);
    def_prog_mode();
    endwin();
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGTSTP, &dfl, &old);
    mono_stop_begin();                 /* the reply's speed leaves the stop out */
    kill(getpid(), SIGTSTP);           /* returns after SIGCONT */
    mono_stop_end();
    sigaction(SIGTSTP, &old, NULL);
    reset_prog_mode();
    fputs("\033[?2004h", stdout);
    fflush(stdout);
    clearok(curscr, TRUE);
    a->dirty = 1;
}

/* With the error dialog shown: any key closes it; Enter, Esc and C-c do
** only that (no message sent, no reply cancelled by the key meant to close
** it), other keys also act, so typing goes on.  Returns 1 when the key is
** used. */
static int
popup_key(struct app *a, int key, int is_fkey)
{
    if (!a->notice_popup || (is_fkey && key == KEY_RESIZE))
        return 0;
    a->notice[0] = '\0';
    a->notice_popup = 0;
    a->dirty = 1;
    return !is_fkey && (key == K_ENTER || key == K_ESC || key == CFG_KEY_CTRL('c'));
}

/* A key for an open menu or the search line; 1 when used. */
static int
overlay_key(struct app *a, int key, int is_fkey)
{
    if (a->focus == TUI_FOCUS_SEARCH && is_fkey && key >= KEY_F(1) && key <= KEY_F(12))
        search_close(a);          /* a function key acts; the search line closes */
    if (a->focus == TUI_FOCUS_MENU && is_fkey && (key == KEY_PPAGE || key == KEY_NPAGE))
        tui_menu_page(&a->menu, key == KEY_PPAGE ? -1 : +1);   /* a page, not 10 rows */
    else if (a->focus == TUI_FOCUS_MENU)
        tui_menu_key(a, key, is_fkey);
    else if (a->focus == TUI_FOCUS_SEARCH)
        search_key(a, key, is_fkey);
    else
        return 0;
    a->dirty = 1;
    return 1;
}

/* The configured action of KEY (a curses key when IS_FKEY: F1-F12 only), or -1. */
static int
key_action(const struct app *a, int key, int is_fkey)
{
    return cfg_action_for_key(&a->cfg, is_fkey ? (key >= KEY_F(1) && key <= KEY_F(12)
                                                      ? CFG_KEY_F(key - KEY_F(0)) : -1)
                                                 : key);
}

/* Whether KEY still acts while the terminal is too small to show anything
** (tui_too_small): quitting, a redraw, suspending, and stopping a running
** reply (which keeps it).  Any other key would act on a box, menu or
** question out of sight -- a 'y' answered a hidden "delete?" question, an
** Enter sent the box's text. */
static int
too_small_key(const struct app *a, int key, int is_fkey)
{
    int act = key_action(a, key, is_fkey);

    return act == CFG_ACT_QUIT || act == CFG_ACT_REDRAW ||
           (!is_fkey && (key == CFG_KEY_CTRL('q') || key == CFG_KEY_CTRL('z') ||
                         ((key == CFG_KEY_CTRL('c') || key == K_ESC) && a->busy)));
}

static void
key_dispatch(struct app *a, int key, int is_fkey)
{
    int act;

    if (!(is_fkey && key == KEY_RESIZE) && tui_too_small(a) && !too_small_key(a, key, is_fkey))
        return;
    if (popup_key(a, key, is_fkey))
        return;
    if (is_fkey && key == KEY_RESIZE) {
        /* no key the user pressed: the footer's notice stays (as the
        ** error dialog does) */
        if (a->focus == TUI_FOCUS_SIDEBAR && COLS < TUI_SIDEBAR_MIN_COLS)
            a->focus = TUI_FOCUS_INPUT;      /* the sidebar went out of sight */
        a->dirty = 1;
        return;
    }
    a->notice[0] = '\0';
    if (!is_fkey && key == CFG_FIX_SUSPEND) {
        suspend(a);
        return;
    }
    /* Ctrl-C and Esc cancel a running reply wherever the focus is. */
    if (!is_fkey && (key == CFG_FIX_CANCEL || key == K_ESC) && a->busy &&
        a->focus != TUI_FOCUS_PROMPT && a->focus != TUI_FOCUS_MENU &&
        a->focus != TUI_FOCUS_SEARCH) {
        cancel_or_close(a);
        return;
    }
    if (tui_quit_key(a, key, is_fkey))      /* the quit question (quit.c) */
        return;
    if (a->focus == TUI_FOCUS_PROMPT) {
        if (!is_fkey && key == K_ENTER) {
            tui_prompt_accept(a);
        } else if (!is_fkey && (key == K_ESC || key == CFG_KEY_CTRL('c'))) {
            tui_prompt_cancel(a);
        } else if (tui_prompt_yesno(a->prompt_kind)) {
            if (!is_fkey && (key == 'y' || key == 'Y'))
                tui_prompt_accept(a);
            else if (!is_fkey && (key == 'n' || key == 'N'))
                tui_prompt_cancel(a);
        } else {
            input_key(a, &a->prompt, key, is_fkey, 1);
        }
        a->dirty = 1;
        return;
    }
    if (overlay_key(a, key, is_fkey))
        return;
    /* bound actions */
    act = key_action(a, key, is_fkey);
    if (act >= 0 && do_action(a, act))
        return;
    if (!is_fkey && key == CFG_FIX_QUIT) {
        a->quit = 1;
        return;
    }
    if (!is_fkey && key == K_ESC && a->fork_pending && a->focus == TUI_FOCUS_INPUT) {
        /* leave edit mode: the next message continues the branch again */
        int had = a->edit_draft != NULL;
        tui_edit_end(a, 1);
        tui_notice(a, 0, had ? "edit cancelled: your draft is back" : "edit cancelled");
        a->dirty = 1;
        return;
    }
    if (!is_fkey && (key == K_ESC || key == CFG_KEY_CTRL('c'))) {
        if (a->focus == TUI_FOCUS_SIDEBAR)
            cancel_or_close(a);
        else if (key == CFG_KEY_CTRL('c'))
            tui_notice(a, 0, "nothing to cancel; F10 or C-q quits");
        a->dirty = 1;
        return;
    }
    /* (PgUp/PgDn in the focused sidebar step its value by 10, F1 says:
    ** not the transcript's page) */
    if (!(a->focus == TUI_FOCUS_SIDEBAR && is_fkey && (key == KEY_PPAGE || key == KEY_NPAGE)) &&
        scroll_key(a, key, is_fkey)) {
        a->dirty = 1;
        return;
    }
    if (a->focus == TUI_FOCUS_SIDEBAR && sidebar_typing(key, is_fkey))
        a->focus = TUI_FOCUS_INPUT;   /* and the key is typed there, below */
    if (a->focus == TUI_FOCUS_SIDEBAR) {
        sidebar_key(a, key, is_fkey);
        a->dirty = 1;
        return;
    }
    if (!is_fkey && key == K_ENTER) {
        char *s;
        if (a->busy && opening(a)) {
            open_queue(a);
            return;
        }
        if (a->busy && a->w.job != TUI_JOB_PRIME) {
            tui_notice(a, 1, "a reply is still running (Esc cancels it); your text is kept");
            return;
        }
        s = tui_input_take(&a->in);
        if (s)
            history_sent(a);
        if (s && plus_command_key(a, s)) {
            free(s);
            a->dirty = 1;
            return;
        }
        if (s && a->busy) {
            if (queue_refused(a, s))
                return;
            /* still preparing the greeting: send when it is done (an Esc
            ** from now on stops that reply: sess_expect_reply) */
            sess_expect_reply(a->sess);
            free(a->queued);
            a->queued = s;
            tui_notice(a, 0, "preparing the model; your message goes out next");
        } else if (s) {
            tui_send(a, s);
            free(s);
        }
        a->dirty = 1;
        return;
    }
    if (!is_fkey && key == CFG_FIX_EOF_QUIT && a->in.len == 0) {
        a->quit = 1;
        return;
    }
    input_key(a, &a->in, key, is_fkey, 0);
    a->dirty = 1;
}

/* ---- reading keys: ESC prefixes, pastes with and without markers ---------- */

static void lock_over(struct app *a);

static int
read_byte(int wait_ms, int *is_fkey)
{
    int c;

    timeout(wait_ms);
    c = getch();
    timeout(0);
    if (c == ERR)
        return -1;
    *is_fkey = c >= KEY_MIN;
    return c;
}

/* One key: a function key (*IS_FKEY set) or a character.  UTF-8 is decoded
** here, not by get_wch, which answers ERR to an ill-formed byte and drops
** the bytes after it (the rest of a paste): an ill-formed sequence is one
** U+FFFD and the byte that ended it is read again. */
static int
read_raw_wait(int wait_ms, int cont_ms, int *is_fkey)
{
    unsigned char b[UTF8_MAX];
    size_t n = 0;
    uint32_t cp;
    int c = read_byte(wait_ms, is_fkey);

    if (c < 0x80 || *is_fkey)
        return c;
    b[n++] = (unsigned char)c;
    for (;;) {
        int f = 0, r = utf8_decode(b, n, &cp);
        if (r > 0)
            return (int)cp;
        if (r < 0) {
            if ((size_t)-r < n)
                ungetch(b[n - 1]);
            return 0xFFFD;
        }
        c = read_byte(cont_ms, &f);
        if (c < 0)
            return 0xFFFD;      /* cut short */
        if (f) {
            ungetch(c);
            return 0xFFFD;
        }
        b[n++] = (unsigned char)c;
    }
}

/* A key, the bytes of a character at most TUI_ESC_WAIT_MS apart. */
static int
read_raw(int wait_ms, int *is_fkey)
{
    return read_raw_wait(wait_ms, TUI_ESC_WAIT_MS, is_fkey);
}

/*
** Escape sequences the terminfo did not name, which must never become
** text.  A terminal answers queries and reports events with them (an OSC
** colour reply "ESC ] 11;rgb:0/0/0 ESC \", an X10 mouse report "ESC [ M"
** and three bytes), and a terminal type that is not the terminal's own
** leaves keys unknown: tmux sends F1-F4 as "ESC O P".."ESC O S" whatever
** TERM says, the Linux console as "ESC [ [ A".."ESC [ [ E".  The keys of
** those forms are understood; any other sequence is read whole and
** dropped.  A sequence's bytes come together, so a byte after ESC within
** TUI_ESC_WAIT_MS may start one; ESC and a key typed later is Alt-key.
** What is a sequence is tui_esc_feed's (input.h): bytes that make none --
** a script's M-[ x, at once -- are Alt-[ and the keys after it.
*/
static const struct { const char *seq; int key; } esc_keys[] = {
    { "OP", KEY_F(1) }, { "OQ", KEY_F(2) }, { "OR", KEY_F(3) }, { "OS", KEY_F(4) },
    { "[[A", KEY_F(1) }, { "[[B", KEY_F(2) }, { "[[C", KEY_F(3) }, { "[[D", KEY_F(4) },
    { "[[E", KEY_F(5) },
    { "OA", KEY_UP }, { "OB", KEY_DOWN }, { "OC", KEY_RIGHT }, { "OD", KEY_LEFT },
    { "OH", KEY_HOME }, { "OF", KEY_END },
    { "[A", KEY_UP }, { "[B", KEY_DOWN }, { "[C", KEY_RIGHT }, { "[D", KEY_LEFT },
    { "[H", KEY_HOME }, { "[F", KEY_END },
    { "[1;2A", KEY_SR }, { "[1;2B", KEY_SF },   /* xterm's Shift-Up/Down (tmux and GNU
                                                   screen send them under TERM=screen,
                                                   whose terminfo has no kri/kind) */
    /* the VT220 forms (tmux sends Home/End as them whatever TERM says: an
    ** xterm TERM inside tmux names ESC O H instead; a modern terminal under
    ** TERM=vt100 sends F5-F12, Delete and PgUp/PgDn so), rxvt's Home/End */
    { "[1~", KEY_HOME }, { "[7~", KEY_HOME }, { "[4~", KEY_END }, { "[8~", KEY_END },
    { "[2~", KEY_IC }, { "[3~", KEY_DC }, { "[5~", KEY_PPAGE }, { "[6~", KEY_NPAGE },
    { "[11~", KEY_F(1) }, { "[12~", KEY_F(2) }, { "[13~", KEY_F(3) }, { "[14~", KEY_F(4) },
    { "[15~", KEY_F(5) }, { "[17~", KEY_F(6) }, { "[18~", KEY_F(7) }, { "[19~", KEY_F(8) },
    { "[20~", KEY_F(9) }, { "[21~", KEY_F(10) }, { "[23~", KEY_F(11) }, { "[24~", KEY_F(12) },
    { "[Z", KEY_BTAB },
    /* Ctrl- and Alt-Left/Right: readline's word motion (M-b, M-f) */
    { "[1;5D", CFG_FIX_WORD_LEFT }, { "[1;3D", CFG_FIX_WORD_LEFT },
    { "[1;5C", CFG_FIX_WORD_RIGHT }, { "[1;3C", CFG_FIX_WORD_RIGHT },
};

/*
** The same keys where the terminfo names them (xterm's kLFT5, kRIT3 ...):
** curses then returns a code of its own for them, found here once the
** screen is set up (key_defined).  And a VT220 terminfo calls the keys at
** Home and End Find and Select: they are Home and End.
*/
static int word_key_code[4];

static void
word_keys_init(void)
{
    static const char *const seq[4] = { "\033[1;5D", "\033[1;3D", "\033[1;5C", "\033[1;3C" };

    for (int i = 0; i < 4; i++) {
        int c = key_defined(seq[i]);
        word_key_code[i] = c > 0 ? c : -1;
    }
}

/* A function key K as the client takes it (*IS_FKEY cleared for a word
** motion, which is the M-b / M-f character key). */
static int
fkey_alias(int k, int *is_fkey)
{
    if (k == KEY_FIND)
        return KEY_HOME;
    if (k == KEY_SELECT)
        return KEY_END;
    for (int i = 0; i < 4; i++)
        if (k == word_key_code[i]) {
            *is_fkey = 0;
            return i < 2 ? CFG_FIX_WORD_LEFT : CFG_FIX_WORD_RIGHT;
        }
    return k;
}

/* The key sequence SEQ (after ESC) stands for, or -1. */
static int
esc_key(const char *seq)
{
    for (size_t i = 0; i < sizeof esc_keys / sizeof esc_keys[0]; i++)
        if (strcmp(esc_keys[i].seq, seq) == 0)
            return esc_keys[i].key;
    return -1;
}

/*
** After an ESC and the byte K2 that came with it (each byte after within
** WAIT_MS of the last): the sequence they start, read whole with
** tui_esc_feed (TYPED: its grammar for keys, else a paste's) into SEQ (K2
** first, NUL-terminated, TUI_ESC_MAX bytes at most).  Returns its length;
** 0 when the bytes make none (a pause, a function key or a byte no
** sequence holds came first): the bytes after K2 are put back, read again
** as keys; -1 for one longer than TUI_ESC_MAX, read to its end and
** dropped (put back, it would overflow curses' queue).
*/
static int
esc_read(int k2, int wait_ms, int typed, char *seq)
{
    tui_esc e;
    size_t n = 0;
    int r, f = 0, k = k2, prev = 0;

    tui_esc_start(&e, typed);
    for (;;) {
        if (n < TUI_ESC_MAX)
            seq[n] = (char)k;
        n++;
        r = tui_esc_feed(&e, k);
        if (r == TUI_ESC_DONE)
            break;
        if (r == TUI_ESC_NONE) {
            if (n > TUI_ESC_MAX) {       /* a long one's end: the byte read again */
                ungetch(k);
                if (prev == 27 && e.kind != '[' && e.kind != 'O')
                    ungetch(27);         /* a string's ESC that was no ST */
                return -1;
            }
            goto none;                   /* K read again too */
        }
        prev = k;
        k = read_byte(wait_ms, &f);
        if (k < 0 || f) {
            if (n > TUI_ESC_MAX) {
                if (k >= 0)
                    ungetch(k);
                return -1;
            }
            if (k >= 0)
                ungetch(k);              /* a key of its own, after the bytes */
            goto none;
        }
    }
    if (n > TUI_ESC_MAX)
        return -1;
    seq[n] = '\0';
    return (int)n;
none:
    while (n > 1)
        ungetch((unsigned char)seq[--n]);
    return 0;
}

/* After ESC and the character K2 that came with it: a sequence that is a
** key (*IS_FKEY set), K_PASTE_BEG/END, -1 for one dropped, or 0 when K2
** starts none (the caller's Alt-K2; the keys after it are read again). */
static int
esc_sequence(int k2, int *is_fkey)
{
    char seq[TUI_ESC_MAX + 1];
    int n, key;

    if (k2 >= 0x80 || (n = esc_read(k2, TUI_ESC_WAIT_MS, 1, seq)) == 0)
        return 0;
    if (n < 0)
        return -1;
    if (strcmp(seq, "[200~") == 0)
        return K_PASTE_BEG;
    if (strcmp(seq, "[201~") == 0)
        return K_PASTE_END;
    if ((key = esc_key(seq)) < 0)
        return -1;                       /* a report, a mouse event, a key unknown */
    *is_fkey = key != CFG_FIX_WORD_LEFT && key != CFG_FIX_WORD_RIGHT;
    return key;
}

/* Read one logical key after the first raw one (K, FKEY).  Returns the key
** (our codes for Enter/Alt/Esc/paste) and sets *IS_FKEY. */
static int
cook_key(int k, int *is_fkey)
{
    if (*is_fkey) {
        if (k == KEY_ENTER)
            return *is_fkey = 0, K_ENTER;
        return fkey_alias(k, is_fkey);
    }
    if (k == '\r')
        return K_ENTER;
    if (k == 27) {
        int f2 = 0;
        int k2 = read_raw(TUI_ESC_WAIT_MS, &f2);
        if (k2 < 0)
            return K_ESC;
        if (f2 && k2 == KEY_BACKSPACE)
            return CFG_KEY_ALT(127);     /* M-Backspace */
        if (f2 && k2 == KEY_RESIZE) {
            ungetch(KEY_RESIZE);         /* Esc, then a resize: both, in order */
            return K_ESC;
        }
        if (f2) {
            *is_fkey = 1;        /* ESC then a function key: treat as the key */
            return k2;
        }
        if (k2 == '\r' || k2 == '\n')
            return K_ALT_ENTER;
        k = esc_sequence(k2, is_fkey);   /* one the terminfo did not know */
        if (k != 0)
            return k;
        if (k2 == 27) {
            ungetch(27);         /* Esc Esc x: Esc, then Esc x (Alt-x) */
            return K_ESC;
        }
        return CFG_KEY_ALT(k2);
    }
    return k;
}

/*
** Bracketed paste as a mode: from ESC[200~ everything is text, newlines
** included, until ESC[201~ -- however long the paste takes to arrive (a
** slow link delivers it in parts, seconds apart), so no part of it acts as
** a key and Enter never sends half a message.  The screen and the worker
** go on between the parts.  A lone Esc ends a paste whose end never comes.
*/
static void
paste_end(struct app *a)
{
    a->pasting = 0;
    tui_input_undo_break(&a->in);     /* what is typed next: a step of its own */
    tui_input_undo_break(&a->prompt);
    cut_notice(a, 0, a->paste_cut);
    a->paste_cut = 0;            /* a part after a pause says its own */
    a->dirty = 1;
}

/*
** After an ESC inside a paste (the bytes of its sequence WAIT_MS apart at
** most), read by esc_read as typed keys are, by a paste's grammar: pasted
** text keeps its text and loses its control sequences, as a terminal shows
** it.  A whole sequence (a CSI: an arrow or F-key the terminfo did not
** know, a colour, a nested start marker; an SS3; a string up to its BEL or
** ST) is dropped.  An ESC that starts none is dropped alone, a control as
** any other in a paste, and what follows it is text, read next: ESC x
** pastes "x", ESC [ and a cut sequence "[" and the rest.  A function key or
** a second ESC right after it is put back: the next key, dropped in turn.
** Returns 1 for ESC[201~ (a bracketed paste's end), -1 when nothing
** followed (a lone Esc), else 0.
*/
static int
paste_sequence(int wait_ms)
{
    char seq[TUI_ESC_MAX + 1];
    int f = 0, k = read_byte(wait_ms, &f), n;

    if (k < 0)
        return -1;
    if (f || k >= 0x80 || (n = esc_read(k, wait_ms, 0, seq)) == 0) {
        ungetch(k);
        return 0;
    }
    return n > 0 && strcmp(seq, "[201~") == 0;
}

/* ESC inside a bracketed paste: 1 when it ends the paste (its end marker,
** its parts up to TUI_PASTE_WAIT_MS apart), 2 for a lone Esc (which ends a
** paste whose end never comes), 0 when it was dropped with its sequence. */
static int
paste_escape(struct app *a)
{
    int r = paste_sequence(TUI_PASTE_WAIT_MS);

    if (r < 0) {
        tui_notice(a, 0, "paste ended by Esc (the terminal did not end it)");
        return 2;
    }
    return r;
}

/* 1 when the one-line prompt open takes "\n" escapes for newlines (M-g's
** prompt, as +gen; F8's greeting and stop strings). */
static int
prompt_escapes(const struct app *a)
{
    return a->prompt_kind == TUI_PROMPT_GEN || tui_framing_field_escapes(a);
}

/* Pasted text T (N bytes: one character, or an escape) into IN, or counted
** as cut when there is no room. */
static void
paste_text(struct app *a, tui_input *in, const char *t, size_t n)
{
    if (in == &a->prompt && !prompt_room(a, n))
        return;
    if (a->paste_got < TUI_PASTE_MAX && in->len + n <= TUI_INPUT_MAX) {
        tui_input_insert(in, t, n);
        a->paste_got += n;
    } else {
        a->paste_cut++;          /* whole characters only, said at the end */
    }
}

/* One key K (a function key when F; ESC is the caller's) inside a paste:
** text goes in; a control (C0, DEL, C1) or a function key is dropped, never
** acted on -- a pasted F10 must not quit. */
static void
paste_key(struct app *a, int k, int f)
{
    tui_input *in = a->focus == TUI_FOCUS_PROMPT ? &a->prompt : &a->in;
    unsigned char u[8];
    int n;

    if (f) {
        if (k == KEY_RESIZE)
            key_dispatch(a, k, f);       /* a resize still lays out again */
        return;
    }
    if (a->focus == TUI_FOCUS_PROMPT && tui_prompt_yesno(a->prompt_kind))
        return;                  /* a question takes keys (y/n, r/e/q), not text:
                                    a paste is no answer, nor text after it */
    a->dirty = 1;
    /* CR, LF and CR LF (text copied from Windows) are each one newline */
    if (k == '\n' && a->paste_cr) {
        a->paste_cr = 0;
        return;
    }
    a->paste_cr = k == '\r';
    if (k == '\r')
        k = '\n';
    if (k == '\t')
        k = ' ';
    if ((k < 0x20 && k != '\n') || k == 0x7f || (k >= 0x80 && k < 0xa0))
        return;                  /* controls (C0, DEL, C1), as input_key drops them */
    if (a->focus == TUI_FOCUS_MENU || a->focus == TUI_FOCUS_SEARCH) {
        /* the menu's search or the search line: typed there, one line
        ** (it went to the hidden message box) */
        if (a->paste_got++ < TUI_PASTE_QUERY_MAX)
            overlay_key(a, k == '\n' ? ' ' : k, 0);
        else
            a->paste_cut++;
        return;
    }
    if (in == &a->prompt && k == '\n') {
        /* one line: a newline is written "\n" where the prompt takes that,
        ** else a space between two lines (none at the ends: a pasted
        ** path's last newline goes) */
        if (prompt_escapes(a))
            paste_text(a, in, "\\n", 2);
        else
            a->paste_nl = in->len > 0;
        return;
    }
    if (in == &a->prompt && a->paste_nl) {
        a->paste_nl = 0;
        paste_text(a, in, " ", 1);
    }
    n = utf8_encode((uint32_t)k, u);
    if (n > 0)
        paste_text(a, in, (const char *)u, (size_t)n);
}

/* 1 while a paste without markers paused less than TUI_PASTE_WAIT_MS ago. */
static int
paste_tail_on(const struct app *a)
{
    return a->paste_tail > 0 && mono_now_s() - a->paste_tail < TUI_PASTE_WAIT_MS / 1000.0;
}

/* 1 where Enter may be a pasted newline or search text: not in the sidebar,
** a yes/no question or the error dialog, where it always acts. */
static int
plain_paste_here(const struct app *a)
{
    return !a->notice_popup && a->focus != TUI_FOCUS_SIDEBAR &&
           !(a->focus == TUI_FOCUS_PROMPT && tui_prompt_yesno(a->prompt_kind));
}

/* A paste (with markers or without) starts: nothing taken or dropped yet. */
static void
paste_start(struct app *a)
{
    a->paste_got = a->paste_cut = 0;
    a->paste_cr = a->paste_nl = 0;
    tui_input_undo_break(&a->in);     /* the paste: one undo step of its own */
    tui_input_undo_break(&a->prompt);
}

/*
** Pastes without markers.  A terminal without bracketed paste (GNU screen,
** the Linux console, some serial and SSH clients) sends a paste as keys,
** each newline a CR: Enter.  Nobody presses Enter and another key within
** TUI_PLAIN_PASTE_MS; a terminal writing a paste does.  So an Enter that
** text follows that soon is a newline of a paste, and what follows is
** pasted text, through paste_key as in a bracketed paste, until a pause
** that long: no line of it is sent on its own, and its last newline stays
** in the box too (as a bracketed paste's would), so the message goes when
** you press Enter.  An Enter with nothing after it acts at once; so does
** one followed by a control or function key or Esc (a script's "text Enter
** C-f"): only text makes a paste.  Tabs right after the Enter are text
** only when text comes after them (an indented line), else keys (Tab
** moves to the sidebar).  An LF right after the Enter is part of it (CR
** LF: a terminal in newline mode; text copied from Windows, whose CR LF
** paste_key takes as one newline).  Where Enter is no newline or search
** text (the sidebar, a yes/no question, the error dialog) it always acts.
**
** After reading Enter: 1 when a paste begins (its newline and first keys
** are in), else 0 with the keys read meanwhile put back.
*/
static int
plain_paste_begins(struct app *a)
{
    int f = 0, k, tabs = 0;

    if (!plain_paste_here(a))
        return 0;
    k = read_raw_wait(TUI_PLAIN_PASTE_MS, TUI_ESC_WAIT_MS, &f);
    if (k == '\n' && !f)   /* CR LF: one Enter (a terminal in newline mode) */
        k = read_raw_wait(TUI_PLAIN_PASTE_MS, TUI_ESC_WAIT_MS, &f);
    while (k == '\t' && !f && tabs < TUI_PLAIN_PASTE_TABS) {
        tabs++;
        k = read_raw_wait(TUI_PLAIN_PASTE_MS, TUI_ESC_WAIT_MS, &f);
    }
    if (k >= 0 && !f && (k == '\t' || k == '\r' || k == '\n' || (k >= 0x20 && k != 0x7f))) {
        if (!paste_tail_on(a))
            paste_start(a);      /* else the paste that paused goes on */
        paste_key(a, '\r', 0);
        while (tabs-- > 0)
            paste_key(a, '\t', 0);
        paste_key(a, k, 0);
        return 1;
    }
    if (k >= 0)
        ungetch(k);              /* a key: a control (one byte), Esc or a KEY_ code */
    while (tabs-- > 0)
        ungetch('\t');          /* in front of it: read first */
    return 0;
}

/* One key of a paste without markers (raw: K, a function key when F). */
static void
plain_key(struct app *a, int k, int f)
{
    if (!f && k == 27)
        paste_sequence(TUI_ESC_WAIT_MS);  /* dropped with its sequence, a lone
                                             one too: it came within the paste */
    else
        paste_key(a, k, f);
}

/* One cooked key K (cook_key's codes) of a paste without markers. */
static void
plain_cooked_key(struct app *a, int k, int f)
{
    if (!f && (k == K_ENTER || k == K_ALT_ENTER))
        paste_key(a, '\r', 0);
    else if (f || (k >= 0 && k < CFG_KEY_ALT(0)))
        paste_key(a, k, f);              /* text in; a function key dropped */
    else if (k >= CFG_KEY_ALT(0) && k < CFG_KEY_ALT_END)
        paste_key(a, k - CFG_KEY_ALT(0), 0);  /* ESC x: the ESC dropped, the x
                                                 text (paste_sequence) */
    /* a lone Esc: dropped */
}

/*
** A bracketed paste just ended at its end marker.  Keys already there with
** the marker (the same write: nobody types, nor does a script's next
** command arrive, in no time) are more of the pasted text -- text that held
** an ESC[201~ of its own, ending the paste early -- so it goes on as a paste
** without markers: whatever keys it holds are text or dropped.  The one
** exception is an Enter with nothing after it, which acts (a paste, then
** Enter to send it).  1 when the paste goes on (the keys read are in).
*/
static int
paste_after_end(struct app *a)
{
    int f = 0, f2 = 0, k = read_raw_wait(0, TUI_ESC_WAIT_MS, &f), k2;

    if (k < 0)
        return 0;
    if (k == '\r' && !f) {
        k2 = read_raw_wait(0, TUI_ESC_WAIT_MS, &f2);
        if (k2 == '\n' && !f2)          /* CR LF: one Enter */
            k2 = read_raw_wait(0, TUI_ESC_WAIT_MS, &f2);
        if (k2 < 0) {
            ungetch('\r');
            return 0;
        }
        paste_key(a, '\r', 0);
        plain_key(a, k2, f2);
        return 1;
    }
    plain_key(a, k, f);
    return 1;
}

/*
** A key K (cooked) while a paste without markers paused less than
** TUI_PASTE_WAIT_MS ago: when another key comes with it (within
** TUI_PLAIN_PASTE_MS) it is the paste's next part -- a slow link (SSH)
** delivers a paste in parts tens or hundreds of ms apart, and a part may
** begin with a newline or an escape sequence -- so the paste goes on with
** both keys.  A key alone is typed: it acts (the Enter that sends, Esc),
** and a person's keys are never that close (key repeat is about 30 a
** second at most).  A mouse event or a resize always acts, and so does
** every key where Enter does (plain_paste_here).  1 when the paste went on.
*/
static int
paste_resumes(struct app *a, int k, int f)
{
    int f2 = 0, k2;

    if (!paste_tail_on(a) || !plain_paste_here(a) || (f && (k == KEY_MOUSE || k == KEY_RESIZE)))
        return 0;
    k2 = read_raw_wait(TUI_PLAIN_PASTE_MS, TUI_ESC_WAIT_MS, &f2);
    if (k2 < 0)
        return 0;
    plain_cooked_key(a, k, f);
    plain_key(a, k2, f2);
    return 1;
}

static void
read_keys(struct app *a)
{
    int plain = 0;               /* in a paste without markers */

    for (;;) {
        int f = 0, k;

        if (plain) {
            /* every key until a pause is the paste's: text, or dropped */
            k = read_raw_wait(TUI_PLAIN_PASTE_MS, TUI_ESC_WAIT_MS, &f);
            if (k >= 0) {
                plain_key(a, k, f);
                continue;
            }
            plain = 0;
            paste_end(a);
            a->paste_tail = mono_now_s();
            continue;
        }
        k = read_raw_wait(0, a->pasting ? TUI_PASTE_WAIT_MS : TUI_ESC_WAIT_MS, &f);
        if (k < 0)
            break;
        if (a->pasting) {
            int end = !f && k == 27 ? paste_escape(a) : 0;
            if (end > 0)
                paste_end(a);
            if (end == 1)
                plain = paste_after_end(a);
            else if (!f && k == 27)
                continue;
            else
                paste_key(a, k, f);
            continue;
        }
        k = cook_key(k, &f);
        if (k < 0)
            continue;
        if (!f && k == K_PASTE_BEG) {
            a->pasting = 1;
            a->paste_tail = 0;
            paste_start(a);
            a->dirty = 1;
            continue;
        }
        if (!f && k == K_PASTE_END)
            continue;
        if ((!f && k == K_ENTER && plain_paste_begins(a)) || paste_resumes(a, k, f)) {
            plain = 1;
            continue;
        }
        a->paste_tail = 0;
        key_dispatch(a, k, f);
        lock_over(a);            /* the keys typed during a lock wait: next */
        if (a->quit)
            break;
    }
}

/* ---- lock waits of the UI thread's writes --------------------------------- */

/*
** The store's busy hook (store_set_busy_hook) on both connections -- the
** client's own (a->st) and the runtime's (sess_store), which the UI thread
** uses too between jobs (C-n, F8, F5's model row, a quit's flush).  On the
** worker thread it does nothing: those waits are the runtime's (one a
** message, store_busy_once), and curses is the UI thread's -- until a quit
** stops the job (job_stop): then the job's wait gives up at once, its rows
** are kept out as any failed save's, and the quit's flush makes the one
** wait, said on the screen with its seconds, Esc giving it up (before, F10
** showed nothing for the job's 10 s, then waited 10 s more).
**
** On the UI thread it runs inside a key's (or an event's) action, in the
** middle of a write; it touches nothing of the app but the footer's notice
** and the fields below, and draws (the view only reads the app).  A wait
** that lasts TUI_LOCK_SHOW_MS is said in the footer, the seconds counted
** from the first; Esc gives it up (the write fails, its caller says so as
** it says any failed write: a prompt opens again holding its text), and
** the key's later waits give up at once (lock_over ends that).  Other keys
** typed meanwhile are held (TUI_LOCK_KEYS at most; after that they wait in
** the terminal, as before, and Esc is not seen) and given back in order
** once the action is over.  Polled before every nap of the wait (100 ms
** apart at most), so Esc is heard within about that.
*/
#define TUI_LOCK_SHOW_MS 100     /* a shorter wait is not said: another
                                    client's commit takes milliseconds, and
                                    a line flashing up for it says nothing */

/* Hold key C for lock_over. */
static void
lock_hold(struct app *a, int c)
{
    if (a->lock_nkeys < TUI_LOCK_KEYS)
        a->lock_keys[a->lock_nkeys++] = c;
}

/* The keys typed since the last look: 1 at a lone Esc (the keys before it
** held, one after it -- an Esc or Alt sequence's start -- held too). */
static int
lock_esc(struct app *a)
{
    int c, c2, esc = 0;

    while (!esc && a->lock_nkeys + 2 <= TUI_LOCK_KEYS) {
        timeout(0);
        c = getch();
        if (c == ERR)
            break;
        if (c != 27) {
            lock_hold(a, c);
            continue;
        }
        timeout(TUI_ESC_WAIT_MS);
        c2 = getch();
        if (c2 == ERR) {
            esc = 1;                     /* a lone Esc */
        } else if (c2 == 27) {
            esc = 1;                     /* Esc, then Esc or Esc x: held */
            lock_hold(a, c2);
        } else {
            lock_hold(a, c);             /* Alt-x and the like */
            lock_hold(a, c2);
        }
    }
    timeout(0);
    return esc;
}

static int
lock_hook(void *ud, int waited_ms)
{
    struct app *a = ud;
    char line[TUI_NOTICE];
    int secs = waited_ms / 1000;

    if (!pthread_equal(pthread_self(), a->ui_thread)) {
        /* a job's own wait (a reply's saves, an open's writes): said once
        ** it lasts, as a note (the footer is the UI thread's); the screen
        ** said nothing for the 10 s */
        if (waited_ms < TUI_LOCK_SHOW_MS) {
            atomic_store(&a->lock_said, 0);
        } else if (!atomic_exchange(&a->lock_said, 1)) {
            snprintf(line, sizeof line, TR("waiting up to %d s for the lock another program "
                                           "holds on %s"), STORE_BUSY_MS / 1000,
                     store_path(a->st));
            tui_worker_note(&a->w, 0, line);
        }
        return atomic_load(&a->job_stop);    /* a quit stopped the job */
    }
    if (a->screen == NULL)
        return 0;
    if (a->lock_gave_up || lock_esc(a)) {
        a->lock_gave_up = 1;
        return 1;
    }
    if (waited_ms < TUI_LOCK_SHOW_MS || (a->lock_line[0] && secs == a->lock_secs &&
                                         strcmp(a->notice, a->lock_line) == 0))
        return 0;
    if (secs == 0)
        snprintf(line, sizeof line,
                 TR("waiting for the lock another program holds on %s (Esc gives up)..."),
                 store_path(a->st));
    else
        snprintf(line, sizeof line,
                 TR("waiting for the lock another program holds on %s (Esc gives up)... %d s"),
                 store_path(a->st), secs);
    if (a->lock_line[0] == '\0' || strcmp(a->notice, a->lock_line) != 0) {
        memcpy(a->lock_prev, a->notice, sizeof a->lock_prev);   /* the line it covers */
        a->lock_prev_err = a->notice_err;
        a->lock_prev_cut = a->notice_cut;
    }
    snprintf(a->notice, sizeof a->notice, "%s", line);
    snprintf(a->lock_line, sizeof a->lock_line, "%s", a->notice);
    a->notice_err = 0;
    a->notice_cut = 0;
    a->lock_secs = secs;
    tui_view_draw(a);
    return 0;
}

/*
** After a key's or an event's action (and at every loop turn): a wait it
** made is over.  The waiting line goes -- the notice it covered back,
** unless the action said something of its own -- a give-up ends, and the
** keys held are given back to curses, read next in the order typed
** (ungetch pushes in front: the last first).
*/
static void
lock_over(struct app *a)
{
    if (a->lock_line[0]) {
        if (strcmp(a->notice, a->lock_line) == 0) {
            memcpy(a->notice, a->lock_prev, sizeof a->notice);
            a->notice_err = a->lock_prev_err;
            a->notice_cut = a->lock_prev_cut;
        }
        a->lock_line[0] = '\0';
        a->dirty = 1;
    }
    a->lock_gave_up = 0;
    while (a->lock_nkeys > 0)
        ungetch(a->lock_keys[--a->lock_nkeys]);
}

/* The hook on both connections, from the UI thread, while no job runs
** (ON 0: off, before the screen goes). */
static void
lock_hook_set(struct app *a, int on)
{
    store *rs = a->sess ? sess_store(a->sess) : NULL;

    if (a->st == NULL || on == a->lock_hooked)
        return;
    a->ui_thread = pthread_self();
    store_set_busy_hook(a->st, on ? lock_hook : NULL, a);
    if (rs != NULL)
        store_set_busy_hook(rs, on ? lock_hook : NULL, a);
    a->lock_hooked = on;
}

/* ---- setup ---------------------------------------------------------------- */

static void screen_end(struct app *a);

/* Read the keys typed so far during the startup load (tui_load_keys). */
static void
load_keys_take(void)
{
    struct pollfd p = { .fd = 0, .events = POLLIN };

    while (tui_load_nkeys < TUI_LOAD_KEYS && poll(&p, 1, 0) == 1 && (p.revents & POLLIN)) {
        ssize_t r = read(0, tui_load_keys + tui_load_nkeys, TUI_LOAD_KEYS - tui_load_nkeys);
        if (r <= 0)
            break;
        tui_load_nkeys += (size_t)r;
    }
}

/* The keys load_keys_take read, back to curses in the order typed
** (ungetch pushes in front: the last first).  curses takes what ungetch
** gives as keys already decoded, so an escape sequence it knows (an arrow
** key: key_defined) goes back as its key, the other bytes as they are, for
** the key reader to take as it takes them typed (esc_sequence).  A
** sequence is measured whole first (tui_esc_feed): the start of a longer
** one is no key -- under TERM=screen ESC [ M is kmous, the start of an X10
** mouse report, whose three bytes were left as text. */
static void
load_keys_give(void)
{
    int codes[TUI_LOAD_KEYS];
    size_t n = 0;

    for (size_t i = 0; i < tui_load_nkeys;) {
        int code = (unsigned char)tui_load_keys[i];
        size_t len = 1;
        if (code == 27) {
            char seq[TUI_ESC_MAX + 2];
            tui_esc e;
            size_t j = i + 1;
            int r = TUI_ESC_MORE, c;
            tui_esc_start(&e, 1);
            while (r == TUI_ESC_MORE && j < tui_load_nkeys && j - i <= TUI_ESC_MAX)
                r = tui_esc_feed(&e, (unsigned char)tui_load_keys[j++]);
            if (r == TUI_ESC_DONE) {
                memcpy(seq, tui_load_keys + i, j - i);
                seq[j - i] = '\0';
                if ((c = key_defined(seq)) > 0) {
                    code = c;
                    len = j - i;
                }
            } else {
                /* none by that grammar, or cut off: the shortest bound
                ** sequence (a terminfo key of another form), not a mouse
                ** report's start; -1: the start of a longer one */
                for (size_t k = 2; k <= TUI_ESC_MAX && i + k <= tui_load_nkeys; k++) {
                    memcpy(seq, tui_load_keys + i, k);
                    seq[k] = '\0';
                    if ((c = key_defined(seq)) > 0 && c != KEY_MOUSE) {
                        code = c;
                        len = k;
                    }
                    if (c != -1)
                        break;
                }
            }
        }
        codes[n++] = code;
        i += len;
    }
    tui_load_nkeys = 0;
    while (n > 0)
        ungetch(codes[--n]);
}

/* A load ended by Ctrl-C, SIGTERM or SIGHUP: what was typed meanwhile -- a
** message and its Enter, never read as keys yet -- becomes the history's
** draft, so the next start's first Up brings it back (as a draft left at
** quit is); not with `history: off` or --no-db, which keep nothing.  The
** keys load_keys_take read first (all there is when the terminal closed),
** then those still queued, read while the terminal still sends keys one by
** one (before screen_end).  1 when kept. */
static int
typeahead_keep(struct app *a)
{
    char path[1024], *raw, *text;
    size_t n = tui_load_nkeys;
    struct pollfd p = { .fd = 0, .events = POLLIN };
    tui_input none;
    rwkv_err err;
    int kept = 0;

    tui_load_nkeys = 0;
    if ((n == 0 && !isatty(0)) || strcmp(a->cfg.history, "off") == 0 || a->launch.no_db ||
        tui_history_path(path, sizeof path) != 0)
        return 0;
    raw = tui_xmalloc(TUI_INPUT_MAX);
    memcpy(raw, tui_load_keys, n);
    /* (a hung-up terminal is no terminal: isatty fails with EIO) */
    while (isatty(0) && n < TUI_INPUT_MAX && poll(&p, 1, 0) == 1 && (p.revents & POLLIN)) {
        ssize_t r = read(0, raw + n, TUI_INPUT_MAX - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    text = tui_typeahead_text(raw, n);
    if (text != NULL) {
        tui_input_init(&none);
        kept = tui_history_save(&none, text, path, &err) == 0;
        tui_input_fini(&none);
    }
    free(text);
    free(raw);
    return kept;
}

/* The line a load ended by a signal leaves on stderr (KEPT: typeahead_keep's). */
static void
say_interrupted(const char *name, int nl, int kept)
{
    fprintf(stderr, "%s" PROG_NAME_TUI ": interrupted while loading %s%s\n", nl ? "\n" : "", name,
            kept ? "; what you typed is kept: Up brings it back next time" : "");
    fflush(stderr);
}

/* rwkv_open_opts.progress: with the screen up, the bar is drawn (at most
** once per percent or change of step); else a line on a terminal stderr. */
static void
progress_cb(void *ud, double frac, const char *what)
{
    struct app *a = ud;
    int pct = (int)(frac * 100.0);

    if (tui_stop_signal != 0 && a->sess == NULL) {
        /* Ctrl-C (SIGINT) or SIGTERM/SIGHUP while the startup load runs:
        ** the loader cannot be stopped half-way, so leave now, saying so
        ** (no session exists before the model: what was typed ahead is
        ** kept in the history) */
        int kept = typeahead_keep(a);
        screen_end(a);
        if (tui_load_stderr >= 0)
            dup2(tui_load_stderr, 2);
        say_interrupted(a->load_name[0] ? a->load_name : "the model",
                        a->screen == NULL && isatty(2), kept);
        _exit(130);
    }
    if (a->screen == NULL) {
        fprintf(stderr, "\r" "loading %s %3.0f%%", what ? what : "", frac * 100.0);
        return;
    }
    if (a->sess == NULL)
        load_keys_take();
    if (pct == a->load_pct && strcmp(a->load_what, what ? what : "") == 0)
        return;
    a->load_pct = pct;
    a->load_frac = frac;
    snprintf(a->load_what, sizeof a->load_what, "%s", what ? what : "");
    tui_view_draw_loading(a);
}

/* The session runtime (it owns the chat), saving through its own
** connection to the database the UI has open.  0, or 1 (printed). */
static int
open_session(struct app *a)
{
    sess_config sc;
    rwkv_err err;
    framing fr, none;
    char quit[16], keep[SESS_KEEP_WAY_MAX];
    int rc;

    framing_init(&fr);
    framing_init(&none);
    if (tui_framing_launch(a, &fr) != 0)
        return 1;
    memset(&sc, 0, sizeof sc);
    sc.db_path = a->st ? store_path(a->st) : NULL;
    sc.model = a->model;
    sc.tok = a->tok;
    sc.model_path = a->model_path[0] ? a->model_path : NULL;
    sc.vocab_path = a->vocab_path[0] ? a->vocab_path : NULL;
    chat_config_init(&sc.chat);
    sc.chat.samp = a->samp;
    sc.chat.samp_set = a->samp_set;
    sc.config_set = a->samp_config;     /* the config's preset does not override a
                                           resumed session's values (session.h) */
    sc.chat.state_path = a->launch.state;
    framing_to_config(&fr, &sc.chat);
    sc.launch_frame = a->launch.frame ? a->launch.frame : &none;   /* the config's
                                           framing does not override a resumed
                                           session's own either */
    sc.cb = tui_worker_callbacks_proto;
    sc.cb.ud = &a->w;
    sc.note = tui_worker_note;
    sc.tr = tui_tr;             /* the notes in the interface's language */
    cfg_key_name(a->cfg.keys[CFG_ACT_QUIT], quit, sizeof quit);
    sc.quit_key = quit;         /* the leaving rule's refusal names it, as the footer does */
    /* its database lost in use: the quit's question exports the chat (quit.c) */
    snprintf(keep, sizeof keep, TR("quit with %s and export it (e)"), quit);
    sc.keep_way = keep;
    sc.progress = tui_worker_progress;
    rc = sess_create(&sc, &a->sess, &err);
    framing_fini(&fr);
    if (rc != RWKV_OK) {
        fprintf(stderr, PROG_NAME_TUI ": %s\n", err.msg);
        return 1;
    }
    tui_session_sync(a);
    return 0;
}

static int
open_store(struct app *a)
{
    rwkv_err err;
    const char *db = a->launch.db ? a->launch.db : (a->cfg.db[0] ? a->cfg.db : NULL);

    if (a->launch.no_db)
        return 0;
    if (store_open(db, &a->st, &err) != RWKV_OK) {
        fprintf(stderr, PROG_NAME_TUI ": %s\n", err.msg);
        return 1;
    }
    /* its refusals (F2 C-b's budget...) in the interface's language, as
    ** the runtime's connection's (sess_config.tr) */
    store_set_tr(a->st, tui_tr);
    if (a->cfg.preset[0]) {
        /* the config's default preset, under the values given on the command line */
        rwkv_sampling p;
        if (store_preset_get(a->st, a->cfg.preset, &p, NULL, &err) != RWKV_OK) {
            char line[RWKV_ERR_MSG + 160], name[112];
            snprintf(line, sizeof line, "preset '%s' from the config: %s",
                     tui_cut(name, sizeof name, a->cfg.preset, 100), err.msg);
            tui_session_note(a, TUI_TURN_ERROR, TUI_NOTE_RUN, line, strlen(line));
        } else {
            for (int i = 0; params_table[i].name != NULL; i++) {
                if (!(a->samp_set & PARAMS_BIT(i)) && params_table[i].type != PARAMS_U64) {
                    params_copy(&a->samp, &p, i);
                    a->samp_set |= PARAMS_BIT(i);
                    a->samp_config |= PARAMS_BIT(i);
                }
            }
        }
    }
    return 0;
}

static void
app_fini(struct app *a)
{
    if (a->busy && a->sess)
        sess_abandon(a->sess);
    tui_worker_fini(&a->w);
    sess_destroy(a->sess);
    tok_close(a->tok);
    rwkv_model_close(a->model);
    store_close(a->st);
    tui_tr_fini(&a->tr);
    tui_input_fini(&a->in);
    tui_input_fini(&a->prompt);
    for (int i = 0; i < TUI_PHIST_N; i++)
        tui_input_fini(&a->phist[i]);
    tui_search_fini(&a->search);
    tui_menu_fini(&a->menu);
    tui_menu_fini(&a->ask);
    free(a->queued);
    free(a->sent);
    free(a->edit_draft);
    tui_buf_fini(&a->quit_said);
    for (int i = 0; i < TUI_LOG_MAX; i++)
        free(a->log[i]);
    tui_session_notes_fini(a);
}

/* While no job runs, at most every TUI_DB_CHECK_S seconds of run time:
** the database file looked at as a save and the leaving rule look at it
** (sess_db_check: a stat and a 16-byte read), so a file deleted or
** replaced under a client left idle is said then, once, in the save's own
** line -- not only at the next send, leave or quit.  Never while a reply
** streams: the worker drives the sess then. */
static void
idle_db_check(struct app *a)
{
    double now;

    if (a->busy || a->quit || a->sess == NULL || sess_db_lost(a->sess))
        return;
    now = mono_run_s();
    if (a->db_checked > 0 && now - a->db_checked < TUI_DB_CHECK_S)
        return;
    a->db_checked = now;
    if (sess_db_check(a->sess, 0))
        tui_session_sync(a);       /* saved nowhere now: as after a failed save */
}

static void
main_loop(struct app *a)
{
again:
    while (!a->quit) {
        struct pollfd pf[2];
        int r;

        tui_quit_back(a);          /* back in the chat: a quit's lines are the log's */
        lock_over(a);              /* (a wait of an event's action, a quit's flush) */
        if (a->dirty) {
            tui_view_draw(a);
            a->dirty = 0;
            a->frames++;
            if (a->launch.max_frames > 0 && a->frames >= a->launch.max_frames)
                break;
        }
        pf[0].fd = 0;
        pf[0].events = POLLIN;
        pf[1].fd = a->w.pipe_r;
        pf[1].events = POLLIN;
        r = poll(pf, 2, TUI_POLL_MS);
        if (tui_stop_signal)
            break;
        if (r < 0 && errno != EINTR)
            break;
        if (r > 0 && (pf[0].revents & (POLLHUP | POLLERR | POLLNVAL)) &&
            !(pf[0].revents & POLLIN))
            break;                 /* the terminal went away */
        if (r > 0 && (pf[1].revents & POLLIN)) {
            handle_events(a);
            lock_over(a);          /* keys typed during its wait: before newer ones */
        }
        read_keys(a);              /* also picks up KEY_RESIZE after SIGWINCH */
        idle_db_check(a);
        if (a->busy)
            a->dirty = 1;          /* status line shows live progress */
        if (a->launch.max_frames > 0)
            a->dirty = 1;          /* a bounded run counts loop turns, so it
                                      ends even when nothing else happens */
    }
    /* quit while a job runs: the job is stopped, keeping what it made (a
    ** message still in its prefill too), and its last events are taken as
    ** any others are -- the reply's text, its end, the runtime's notes (a
    ** save that failed meanwhile) -- an error among them also kept for
    ** stderr, the screen being about to go (a->quitting: notice.c).  The
    ** end of one job may start the next (a message sent while the greeting
    ** was made ready): stopped the same way, before the flush below uses
    ** the sess on this thread. */
    a->quitting = 1;
    atomic_store(&a->job_stop, 1);     /* its lock waits give up: the flush waits */
    while (a->busy && a->w.running) {
        sess_abandon(a->sess);
        tui_worker_join(&a->w);
        handle_events(a);
    }
    atomic_store(&a->job_stop, 0);
    a->quitting = 0;
    /* what a failed save kept out: tried once more; when some still fails
    ** and the user quit with a key, asked (quit.c) -- the loop goes on */
    if (tui_quit_flush(a, a->quit && !tui_stop_signal, a->quit || tui_stop_signal)) {
        a->quit = 0;
        goto again;
    }
}

/* The input whose entries are prompt history K (history.h): the search
** line's own query box, or the store the prompts copy from. */
static tui_input *
phist_of(struct app *a, int k)
{
    return k == TUI_PHIST_SEARCH ? &a->search.q : &a->phist[k];
}

/* The input history from its file (history.h), unless `history: off`; a
** draft left at the last quit is said once. */
static void
history_open(struct app *a)
{
    char path[1024], line[RWKV_ERR_MSG + 128];
    rwkv_err err;
    int rc;

    if (strcmp(a->cfg.history, "off") == 0 || tui_history_path(path, sizeof path) != 0)
        return;
    rc = tui_history_load(&a->in, path, &err);
    if (rc < 0) {
        snprintf(line, sizeof line, TR("input history not loaded, the file is replaced at quit: %s"),
                 err.msg);
        tui_log_only(a, line);
    } else if (rc == 1) {
        tui_notice(a, 0, "your unsent draft is kept: Up brings it back");
    }
    for (int k = TUI_PHIST_NONE + 1; k < TUI_PHIST_N; k++) {
        if (tui_history_prompt_path(k, path, sizeof path) != 0 ||
            tui_history_load(phist_of(a, k), path, &err) >= 0)
            continue;
        snprintf(line, sizeof line, TR("prompt history not loaded, the file is replaced when the prompt "
                                       "is used: %s"), err.msg);
        tui_log_only(a, line);
    }
}

/* A message sent: the history file has it at once (as at quit, with the
** entries another client saved meanwhile), so a crash or kill -9 later in
** the run loses none of what was sent; a failure is left to the quit's
** save, which says it. */
static void
history_sent(struct app *a)
{
    char path[1024];
    rwkv_err err;

    if (a->in.nnew == 0 || strcmp(a->cfg.history, "off") == 0 || a->launch.no_db ||
        tui_history_path(path, sizeof path) != 0)
        return;
    if (tui_history_save(&a->in, NULL, path, &err) == 0)
        a->in.nnew = 0;          /* in the file: the quit adds them no more */
}

/* At quit: the history and the unsent draft to the file, and the history
** of each prompt used in this run to its own (not with `history: off` or
** --no-db, which saves nothing); a failure is one line on stderr, the
** screen gone. */
static void
history_close(struct app *a)
{
    char path[1024];
    rwkv_err err;

    if (strcmp(a->cfg.history, "off") == 0 || a->launch.no_db ||
        tui_history_path(path, sizeof path) != 0)
        return;
    if (a->edit_draft)
        tui_edit_end(a, 0);      /* an edit's text and the draft it set aside */
    if (tui_history_save(&a->in, tui_input_unsent(&a->in), path, &err) != 0)
        fprintf(stderr, PROG_NAME_TUI ": the input history was not saved: %s\n", err.msg);
    for (int k = TUI_PHIST_NONE + 1; k < TUI_PHIST_N; k++)
        if (phist_of(a, k)->nnew > 0 && tui_history_prompt_path(k, path, sizeof path) == 0 &&
            tui_history_save(phist_of(a, k), NULL, path, &err) != 0)
            fprintf(stderr, PROG_NAME_TUI ": a prompt's history was not saved: %s\n", err.msg);
}

/* newterm and the terminal modes (cbreak: Ctrl-C still works while the
** model loads; raw() comes after).  0, or 1 with a line on stderr. */
static int
screen_start(struct app *a)
{
    /* newterm, not initscr, after asking setupterm: a terminal type
     * curses cannot use is one clear line instead of curses' own exit */
    SCREEN *scr = tui_term_usable(1) ? newterm(NULL, stdout, stdin) : NULL;

    if (scr == NULL) {
        const char *term = getenv("TERM");
        fprintf(stderr, PROG_NAME_TUI ": cannot use terminal type '%s'; for line mode use 'rwkv-tui chat'\n",
                term ? term : "(unset)");
        return 1;
    }
    a->screen = scr;
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    word_keys_init();
    set_escdelay(TUI_ESC_WAIT_MS);
    set_mouse(a, 1);
    mouseinterval(0);
    a->has_colors = has_colors();
    if (a->has_colors) {
        start_color();
        use_default_colors();
    }
    tui_view_init_colors(a);
    fputs("\033[?2004h", stdout);     /* bracketed paste on */
    fflush(stdout);
    return 0;
}

static void
screen_end(struct app *a)
{
    if (a->screen == NULL)
        return;
    fputs("\033[?2004l", stdout);
    fflush(stdout);
    endwin();
    delscreen(a->screen);
    a->screen = NULL;
}

/*
** --resume / --session ID: find the session before anything loads, and take
** its model (and vocabulary, and strategy) when none was given.  0, or 1
** with one line on stderr: no session to open (an empty or missing
** database, an id not in it) is a runtime failure, as for `chat --resume`
** and `sessions show ID`; the options themselves were checked first
** (launch_usage).
*/
static int
resume_lookup(struct app *a)
{
    tui_launch *l = &a->launch;
    const char *db = l->db ? l->db : (a->cfg.db[0] ? a->cfg.db : NULL);
    rwkv_err err;

    if (sess_lookup(db, l->session_id, &a->resume, &err) != RWKV_OK) {
        fprintf(stderr, PROG_NAME_TUI ": %s\n", err.msg);
        return 1;
    }
    l->resume_id = a->resume.id;
    sess_info_launch(&a->resume, &l->model, &l->demo, &l->strategy, &l->vocab);
    return 0;
}

/* A theme that did not load: the note load_config made of it (index into
** a->notes, -1: none) and its problem alone. */
struct start_theme {
    int  note;
    char why[THEME_MSG + 16];   /* "--theme: " and its problem */
};

/* Config and theme: a named config (--config) that cannot be read -- not
** there, not readable, not a regular file (a FIFO, a folder, a device),
** too large -- is a usage error: one line, 2, as every subcommand says it
** (cli_opts_check, the same reader).  Problems in the settings of a config
** file (a named one too), or in a theme file, and a default config.yaml
** that cannot be read, are shown in the transcript and the valid settings
** (or the default theme) are used.  0 or 2. */
static int
load_config(struct app *a, struct start_theme *bad)
{
    const tui_launch *launch = &a->launch;
    char msg[THEME_MSG];
    const char *theme_name;

    if (launch->config) {
        size_t len;
        char *text = tui_read_file(launch->config, CFG_MAX_BYTES, &len, msg, sizeof msg);
        if (text == NULL) {
            fprintf(stderr, PROG_NAME_TUI ": --config %s\n", msg);
            return 2;
        }
        free(text);
    }
    if (cfg_load(launch->config, &a->cfg, msg, sizeof msg) != 0)
        tui_session_note(a, TUI_TURN_ERROR, TUI_NOTE_RUN, msg, strlen(msg));
    if (a->cfg.notes[0])
        tui_session_note(a, TUI_TURN_INFO, TUI_NOTE_RUN, a->cfg.notes, strlen(a->cfg.notes));
    /* the config names the language: what follows is said in it */
    tui_lang_set(tui_lang_pick(a->cfg.language, MB_CUR_MAX > 1));
    theme_name = launch->theme ? launch->theme : (a->cfg.theme[0] ? a->cfg.theme : "default");
    snprintf(a->theme_name, sizeof a->theme_name, "%s", theme_name);
    if (theme_load(theme_name, &a->th, msg, sizeof msg) != 0) {
        char line[THEME_MSG + 64];
        snprintf(a->theme_name, sizeof a->theme_name, "default");
        snprintf(line, sizeof line, TR("%s; using the default theme"), msg);
        bad->note = a->n_notes;        /* (its index: tui_session_note appends) */
        /* (which setting, as the line commands' "--theme: ..." says it) */
        snprintf(bad->why, sizeof bad->why, "%s: %s", launch->theme ? "--theme" : "theme", msg);
        tui_session_note(a, TUI_TURN_ERROR, TUI_NOTE_RUN, line, strlen(line));
    }
    if (getenv("NO_COLOR") && *getenv("NO_COLOR"))
        theme_strip_colors(&a->th);
    if (*kern_env_note())   /* (the line commands print them: cli/main.c) */
        tui_session_note(a, TUI_TURN_ERROR, TUI_NOTE_RUN, kern_env_note(),
                         strlen(kern_env_note()));
    for (const char *n = env_notes(); *n;) {
        size_t k = strcspn(n, "\n");
        tui_session_note(a, TUI_TURN_ERROR, TUI_NOTE_RUN, n, k);
        n += k + (n[k] == '\n');
    }
    return 0;
}

/* A start that failed: the config's problems and the like on stderr (the
** transcript they were meant for never comes); a theme's as its problem
** alone -- no default theme is used for anything. */
static void
say_start_notes(const struct app *a, const struct start_theme *bad)
{
    for (int i = 0; i < a->n_notes; i++)
        if (a->notes[i].role == TUI_TURN_ERROR && a->notes[i].turn == TUI_NOTE_RUN)
            fprintf(stderr, PROG_NAME_TUI ": %s\n", i == bad->note ? bad->why : a->notes[i].text);
}

/* What the loader, the store and the session printed on stderr while the
** screen was up (CAP, closed here): on stderr after a failure (RC != 0),
** else in the transcript, the model's part (up to MODEL_END) as its note
** (F5 replaces it), the rest as the run's. */
static void
show_captured(struct app *a, tui_capture *cap, long model_end, int rc)
{
    tui_buf b;

    tui_buf_init(&b);
    if (rc != 0) {
        tui_capture_text(cap, 0, -1, &b);
        if (b.len > 0)
            fprintf(stderr, "%s\n", b.p);
    } else {
        tui_capture_text(cap, 0, model_end, &b);
        if (b.len > 0)
            tui_session_note(a, TUI_TURN_INFO, TUI_NOTE_MODEL, b.p, b.len);
        tui_capture_text(cap, model_end, -1, &b);
        if (b.len > 0)
            tui_session_note(a, TUI_TURN_INFO, TUI_NOTE_RUN, b.p, b.len);
    }
    tui_buf_fini(&b);
    tui_capture_close(cap);
}

/*
** Options that contradict each other are a usage error (2, one line),
** found before any file is read -- a config, a theme, the database -- as
** cmd_tui finds --resume with --session: the command line alone decides.
** (No session to resume is a runtime failure instead: resume_lookup.)
*/
static int
launch_usage(const tui_launch *l)
{
    if (l->no_db && (l->resume || l->session_id)) {
        fprintf(stderr, PROG_NAME_TUI ": --%s needs the session database (not --no-db)\n",
                l->resume ? "resume" : "session");
        return 2;
    }
    if (l->no_db && l->db) {     /* a database named and none wanted: which one? */
        fprintf(stderr, PROG_NAME_TUI ": --db names the session database (not with --no-db, "
                        "which saves nothing)\n");
        return 2;
    }
    return 0;
}

/* A fresh app for LAUNCH: its fields as nothing has happened yet. */
static void
app_init(struct app *a, const tui_launch *launch)
{
    memset(a, 0, sizeof *a);
    a->copy_turn = -1;
    a->launch = *launch;
    a->samp = launch->samp;
    a->samp_set = launch->samp_set;
    a->reply_turn = -1;
    a->show_sidebar = 1;
    a->fork_turn = 0;
    tui_tr_init(&a->tr);
    tui_input_init(&a->in);
    tui_input_init(&a->prompt);
    for (int i = 0; i < TUI_PHIST_N; i++)
        tui_input_init(&a->phist[i]);
    tui_search_init(&a->search);
    tui_buf_init(&a->quit_said);
    tui_menu_init(&a->menu, TUI_MENU_NONE, "");
    tui_menu_init(&a->ask, TUI_MENU_NONE, "");
}

int
tui_run(const tui_launch *launch)
{
    struct app *a = tui_xmalloc(sizeof *a);
    int rc, tty;
    struct termios tio;
    tui_capture cap = { NULL, -1 };
    long model_end;
    struct start_theme bad_theme = { -1, "" };

    if ((rc = launch_usage(launch)) != 0) {
        free(a);
        return rc;
    }
    app_init(a, launch);
    if (tui_worker_init(&a->w) != 0) {
        fprintf(stderr, PROG_NAME_TUI ": cannot create a pipe\n");
        free(a);
        return 1;
    }
    if ((rc = load_config(a, &bad_theme)) != 0) {
        app_fini(a);
        free(a);
        return rc;
    }
    if ((launch->resume || launch->session_id) && (rc = resume_lookup(a)) != 0) {
        app_fini(a);
        free(a);
        return rc;
    }

    tty = isatty(0) && isatty(1);
    /* before the screen and the load: Ctrl-C while the model loads ends with
    ** one clear line (progress_cb) instead of curses' silent exit 1 */
    install_signals();
    /* (no model at all: the usage line, without a screen flashing up first) */
    if (tty && (a->launch.demo || a->launch.model || a->cfg.model[0])) {
        /* the screen comes up first, so the model loads with a progress bar;
        ** what the loader or the store print on stderr meanwhile is kept
        ** and shown after the screen is gone (failure) or in the transcript */
        if (screen_start(a) != 0) {
            app_fini(a);
            free(a);
            return 1;
        }
        tui_capture_begin(&cap);
        tui_load_stderr = cap.saved;
        /* the keys typed during the load stay queued through a Ctrl-C
        ** (the terminal drops them at SIGINT otherwise): typeahead_keep
        ** reads them.  raw() after the load sets the modes anew */
        if (tcgetattr(0, &tio) == 0) {
            tio.c_lflag |= NOFLSH;
            tcsetattr(0, TCSANOW, &tio);
        }
    }
    a->load_progress = progress_cb;
    rc = tui_model_open(a);
    model_end = tui_capture_mark(&cap);
    if (rc == 0)
        rc = open_store(a);
    if (rc == 0)
        rc = open_session(a);
    a->loading = 0;
    tui_load_stderr = -1;
    if (rc == 0 && tui_stop_signal != 0) {
        /* the signal came after the last progress call */
        int kept = typeahead_keep(a);
        rc = 130;
        if (a->screen)
            screen_end(a);
        tui_capture_end(&cap);
        say_interrupted("the model", 0, kept);
    }
    tui_capture_end(&cap);
    if (rc != 0 && a->screen)
        screen_end(a);
    if (rc != 0)
        say_start_notes(a, &bad_theme);
    show_captured(a, &cap, model_end, rc);
    if (rc != 0) {
        app_fini(a);
        free(a);
        return rc;
    }
    if (!tty) {
        fprintf(stderr, PROG_NAME_TUI ": the full-screen client needs a terminal "
                        "(use 'rwkv-tui chat' for line mode)\n");
        app_fini(a);
        free(a);
        return 2;
    }
    if (a->screen == NULL && screen_start(a) != 0) {
        app_fini(a);
        free(a);
        return 1;
    }
    if (a->launch.demo) {
        const char *demo_note =
            TR("Demo model: random weights, so the replies are noise. It shows the interface, "
               "sessions and branches; give --model for a real one. F1 lists every key.");
        tui_session_note(a, TUI_TURN_INFO, TUI_NOTE_DEMO, demo_note, strlen(demo_note));
    }
    install_signals();
    raw();
    a->dirty = 1;
    lock_hook_set(a, 1);           /* before the first job: the worker reads it */

    if (a->launch.resume_id != 0) {
        /* --resume / --session ID: the saved session, replayed off the UI
        ** thread when its states cannot be used */
        a->open_at_start = 1;
        tui_session_job(a, TUI_JOB_OPEN, a->launch.resume_id, -1, NULL);
    } else {
        tui_session_prime(a);
    }
    history_open(a);
    load_keys_give();              /* what was typed during the load: read first */
    main_loop(a);

    lock_hook_set(a, 0);           /* (no job runs: main_loop joined it) */
    screen_end(a);
    history_close(a);
    rc = tui_quit_report(a);       /* exchanges saved at the end, or not */
    if (a->start_fail[0]) {
        fprintf(stderr, PROG_NAME_TUI ": %s\n", a->start_fail);
        rc = 1;
    }
    app_fini(a);
    free(a);
    if (tui_stop_signal != 0) {
        /* everything saved and closed, the terminal restored: end by the
        ** signal, as the line chat does, so that whoever sent it (a
        ** supervisor, a script, the shell) tells it from a quit */
        fflush(NULL);
        signal(tui_stop_signal, SIG_DFL);
        raise(tui_stop_signal);
    }
    return rc;
}
