/*
** quit.c -- leaving the full-screen client with exchanges a failed save
** kept out (a full disk, the file-size limit, another program holding the
** database's write lock: README, "A save that fails loses nothing").  The
** runtime writes them on the way out, once, as the next message would
** (sess_flush: one bounded wait for a lock); this file asks what to do with
** what still fails, in the footer as the client's other questions do:
**
**   2 exchanges are not saved: r retry, e export, q quit anyway, Esc back
**   (database is locked)
**
** r tries again (and quits when it works), e writes the conversation with
** them to a file (JSON that `sessions import` takes back, or Markdown, as
** F2's C-e writes a session) and quits, q quits without them, Esc (C-c)
** goes back to the chat, where the next message or the next quit tries
** again.  The database file lost in use (deleted, replaced, truncated --
** looked at on the way out, so one deleted since the last save is found
** too: sess_db_check) leaves nothing to retry: every exchange is only in
** memory, and the question offers e, q and Esc:
**
**   2 exchanges are only in memory: e export, q quit
**   anyway, Esc back (while in use, the session database was deleted)
**  A signal or a closed terminal has no one to ask: one try, then
** the line on stderr.  After the screen: what was said while quitting
** (the errors of a reply the quit stopped, the runtime's lines at each
** try: "saving works again"), that line (how many and why), and the exit
** status.  While the question (or its export prompt) is open, what was
** said so far is shown in a dialog above it (view.c, draw_quit_said: the
** question takes every key, the log is out of reach); back in the chat,
** it is the message log's alone.
** Nothing kept out: nothing of this runs, a quit is what it always was.
*/
#include "app.h"
#include "menus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/io/fileio.h"

void
tui_quit_keep(struct app *a, int is_err, const char *msg)
{
    if (is_err)
        tui_buf_adds(&a->quit_said, PROG_NAME_TUI ": ");
    tui_buf_adds(&a->quit_said, msg);
    tui_buf_adds(&a->quit_said, "\n");
}

void
tui_quit_back(struct app *a)
{
    if (a->quit_said.len > 0 && !(a->focus == TUI_FOCUS_PROMPT &&
                                  (a->prompt_kind == TUI_PROMPT_UNSAVED ||
                                   a->prompt_kind == TUI_PROMPT_UNSAVED_EXPORT)))
        tui_buf_clear(&a->quit_said);
}

/* The runtime's notes of a try (posted to the worker's queue: the worker is
** idle, so they are the only events): into the message log, and kept for
** stderr when the client ends now (its question hides the footer). */
static void
take_notes(struct app *a)
{
    tui_event *list = tui_worker_drain(&a->w);

    for (tui_event *e = list; e; e = e->next) {
        if (e->type != TUI_EV_NOTE)
            continue;
        tui_log_add(a, e->phase, e->text);
        tui_quit_keep(a, e->phase, e->text);
    }
    tui_event_free(list);
}

void
tui_unsaved_saving(struct app *a)
{
    size_t n = a->sess ? sess_unsaved(a->sess) : 0;

    if (n == 0 || a->screen == NULL)
        return;
    if (n == 1)
        tui_notice(a, 0, "saving the exchange not saved yet...");
    else
        tui_notice(a, 0, "saving the %zu exchanges not saved yet...", n);
    tui_view_draw(a);
}

/* One try of the runtime's (sess_flush), "saving ..." on the screen first
** when DRAW: it may wait for a lock (10 s at most). */
static void
try_save(struct app *a, int draw)
{
    if (draw)
        tui_unsaved_saving(a);
    a->unsaved = sess_flush(a->sess, a->unsaved_why, sizeof a->unsaved_why);
    take_notes(a);
    a->notice[0] = '\0';
    a->dirty = 1;
}

/* The failure without the database's path in front (the question is one
** line; the path is the one the status line names). */
static const char *
short_why(const struct app *a)
{
    /* (the client's own handle when the runtime's file was lost) */
    const store *st = sess_store(a->sess) ? sess_store(a->sess) : a->st;
    const char *p = st ? store_path(st) : NULL;
    size_t l = p ? strlen(p) : 0;

    if (l > 0 && strncmp(a->unsaved_why, p, l) == 0 && strncmp(a->unsaved_why + l, ": ", 2) == 0)
        return a->unsaved_why + l + 2;
    return a->unsaved_why;
}

static void
ask_open(struct app *a)
{
    char label[sizeof a->prompt_label];

    /* the keys before the reason: a narrow line cuts the reason's end.
    ** The database lost in use: no retry can save them, so none offered */
    if (sess_db_lost(a->sess) && a->unsaved == 1)
        snprintf(label, sizeof label,
                 TR("1 exchange is only in memory: e export, q quit "
                    "anyway, Esc back (%s) "), short_why(a));
    else if (sess_db_lost(a->sess))
        snprintf(label, sizeof label,
                 TR("%zu exchanges are only in memory: e export, q quit "
                    "anyway, Esc back (%s) "), a->unsaved, short_why(a));
    else if (a->unsaved == 1)
        snprintf(label, sizeof label,
                 TR("1 exchange is not saved: r retry, e export, q quit anyway, Esc back (%s) "),
                 short_why(a));
    else
        snprintf(label, sizeof label,
                 TR("%zu exchanges are not saved: r retry, e export, q quit anyway, "
                    "Esc back (%s) "), a->unsaved, short_why(a));
    tui_prompt_open(a, TUI_PROMPT_UNSAVED, label, "");
}

/* Back to the chat: the question (or its export prompt) goes. */
static void
ask_close(struct app *a)
{
    a->prompt_kind = TUI_PROMPT_NONE;
    a->prompt_retry = 0;
    a->focus = a->prev_focus;
}

int
tui_quit_flush(struct app *a, int ask, int draw)
{
    if (a->sess == NULL || a->quit_anyway)
        return 0;
    /* the database deleted (replaced, truncated) since the last save:
    ** what it held of this chat is only in memory now -- asked as any
    ** exchange kept out; a chat with none gets the runtime's one line */
    if (!sess_db_lost(a->sess) && sess_db_check(a->sess, 1))
        take_notes(a);
    if (sess_unsaved(a->sess) == 0)
        return 0;
    try_save(a, draw);
    if (a->unsaved == 0 || !ask)
        return 0;
    ask_open(a);
    return 1;
}

/* e: the file to write them to. */
static void
export_ask(struct app *a)
{
    char init[64];

    if (sess_id(a->sess) != 0)
        snprintf(init, sizeof init, "rwkv-session-%lld.json", (long long)sess_id(a->sess));
    else
        snprintf(init, sizeof init, "rwkv-chat.json");
    tui_replace_forget();
    tui_prompt_open(a, TUI_PROMPT_UNSAVED_EXPORT,
                    "export this chat to (.json: sessions import takes it back; .md Markdown): ",
                    init);
}

int
tui_quit_key(struct app *a, int key, int is_fkey)
{
    if (a->focus != TUI_FOCUS_PROMPT)
        return 0;
    if (a->prompt_kind == TUI_PROMPT_UNSAVED_EXPORT) {
        if (is_fkey || (key != TUI_K_ESC && key != CFG_KEY_CTRL('c')))
            return 0;             /* the path is typed as in any prompt */
        ask_open(a);              /* Esc: back to the question */
        return 1;
    }
    if (a->prompt_kind != TUI_PROMPT_UNSAVED)
        return 0;
    a->dirty = 1;
    if (is_fkey)
        return 1;                 /* F10 again is no answer: q is */
    switch (key) {
    case 'r':
    case 'R':
    case TUI_K_ENTER:
        if (sess_db_lost(a->sess))
            break;                /* not offered: no retry saves to a file gone */
        ask_close(a);
        try_save(a, 1);
        if (a->unsaved == 0)
            a->quit = 1;
        else
            ask_open(a);
        break;
    case 'e':
    case 'E':
        export_ask(a);
        break;
    case 'q':
    case 'Q':
        a->quit_anyway = 1;
        a->quit = 1;
        break;
    case TUI_K_ESC:
    case CFG_KEY_CTRL('c'):
        ask_close(a);
        tui_notice(a, 0, "not quit: what is not saved is tried again with your next message, "
                         "or when you quit");
        break;
    default:
        break;
    }
    return 1;
}

/* Enter in the export prompt: the conversation from memory (sess_export),
** then quit; a failure says why and keeps the path for Enter again (Esc:
** back to the question). */
static int
accept_export(struct app *a, const char *text)
{
    char path[sizeof a->quit_export], *buf = NULL;
    size_t len = 0;
    rwkv_err err;

    if (tui_expand_path(text, path, sizeof path) != 0) {
        ask_open(a);
        return TUI_PROMPT_DONE;
    }
    if (tui_replace_ask(a, TUI_PROMPT_UNSAVED_EXPORT, path, text))
        return TUI_PROMPT_AGAIN;      /* asked (a prompt is open), or refused */
    if (sess_export(a->sess, store_format_for_name(path), &buf, &len, &err) != RWKV_OK ||
        /* synced, 0600 as the database: it may be the only copy */
        tui_write_file(path, buf, len, 0600, RWKV_ATOMIC_SYNC, &err) != 0) {
        free(buf);
        tui_notice(a, 1, "not exported, not quit: %s", err.msg);
        return TUI_PROMPT_AGAIN;
    }
    free(buf);
    snprintf(a->quit_export, sizeof a->quit_export, "%s", path);
    a->quit_anyway = 1;
    a->quit = 1;
    return TUI_PROMPT_DONE;
}

/* Enter on the question itself is taken by tui_quit_key (r); this is never
** called, but a class needs its accept. */
static int
accept_unsaved(struct app *a, const char *text)
{
    (void)text;
    ask_open(a);
    return TUI_PROMPT_DONE;
}

const tui_prompt_class tui_prompt_unsaved = { TUI_PROMPT_UNSAVED, 1, accept_unsaved,
                                              TUI_PHIST_NONE, 0 };
const tui_prompt_class tui_prompt_unsaved_export = { TUI_PROMPT_UNSAVED_EXPORT, 0,
                                                     accept_export, TUI_PHIST_FILES, 0 };

int
tui_quit_report(struct app *a)
{
    size_t n = a->sess ? sess_unsaved(a->sess) : 0;
    char where[160];

    if (a->quit_said.len > 0)
        fputs(a->quit_said.p, stderr);
    if (n == 0)
        return 0;
    if (a->quit_export[0]) {
        fprintf(stderr, PROG_NAME_TUI ": %zu exchange%s not saved (%s): this chat is exported "
                        "to %s%s\n", n, n == 1 ? "" : "s", a->unsaved_why, a->quit_export,
                store_format_for_name(a->quit_export) == STORE_FMT_JSON
                    ? " ('" PROG_NAME_TUI " sessions import' takes it back)" : "");
        return 0;
    }
    sess_unsaved_where(a->sess, n, where, sizeof where);
    fprintf(stderr, PROG_NAME_TUI ": leaving with %zu exchange%s not saved (%s): %s\n", n,
            n == 1 ? "" : "s", a->unsaved_why, where);
    return 1;
}
