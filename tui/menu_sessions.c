/*
** menu_sessions.c -- F2: the saved sessions, most recent first, each with
** its model, state file and id; resume, rename, delete, fork, export (as
** `rwkv-tui sessions export`: Markdown, or JSON for a .json file name) and
** import (a JSON export, as `sessions import`), the saved states' disk
** budget (as `sessions budget`).  Typing searches the titles
** and, through the store's full-text index, what was said in them; a
** "model:NAME" word keeps the sessions of the models whose file name starts
** with NAME, and C-t cycles through the models present.
**
** Each item's data is one flag byte (' ', TUI_MENU_MATCH for a full-text
** hit, TUI_MENU_HIDDEN for another model's session) then the model's file
** name.
*/
#include "menus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "../core/io/fileio.h"
#include "text.h"

#define MODEL_WORD "model:"

/* The base name of PATH (borrowed). */
static const char *
base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* A session's model and state file by their file names ("?" when a
** damaged table cannot be read: the rc, *ERR), for its row. */
struct row_refs { char model[80], state[100]; int rc; };

static void
row_refs(const struct app *a, const store_session *ss, struct row_refs *r, rwkv_err *err)
{
    char cut[80];
    store_model mo;
    store_statefile sf;
    rwkv_err e2;
    int rc, rs;

    snprintf(r->model, sizeof r->model, "-");
    r->state[0] = '\0';
    if ((rc = store_model_ref(a->st, ss->model_id, &mo, err)) != RWKV_OK)
        snprintf(r->model, sizeof r->model, "?");
    else if (mo.id != 0)
        tui_cut(r->model, sizeof r->model, base_name(mo.path), 76);
    if ((rs = store_statefile_ref(a->st, ss->state_file_id, &sf, rc ? &e2 : err)) != RWKV_OK)
        snprintf(r->state, sizeof r->state, TR("  state %s"), "?");
    else if (sf.id != 0)
        snprintf(r->state, sizeof r->state, TR("  state %s"),
                 tui_cut(cut, sizeof cut, sf.path[0] ? base_name(sf.path) : sf.name, 70));
    r->rc = rc ? rc : rs;
}

/* The widest of each field of the rows' details, so they line up (the
** view puts the titles in a column: label_col). */
struct row_cols { int turns, id, model; };

static int
digits(long long v)
{
    char b[24];
    return snprintf(b, sizeof b, "%lld", v);
}

static int
cells(const char *s)
{
    return tui_str_width(s, strlen(s));
}

/* One session's row: the title, then its turns, id, when, whether it is
** open, its model and state file, each field padded to the widest (C).
** The model's file name (often 40 characters and more) comes last but the
** state file's: at 80 columns the view cuts it, not the date, and the area
** under the list shows the selected row whole. */
static void
add_session(tui_menu *m, const struct app *a, const store_session *ss, const struct row_refs *r,
            const struct row_cols *c)
{
    char detail[600], when[48], model[200], flagged[84], open[40];
    char title[STORE_TITLE_MAX + 8];
    time_t t = (time_t)(ss->updated_ms / 1000), now = time(NULL);
    struct tm tm, tn;
    int pt = c->turns - digits(ss->n_turns), pi = c->id - digits(ss->id);
    const char *mark = TR("  (open)");

    /* this year's "12-06 21:15", an older one's "2025-12-06 ": the row has
    ** no room for the whole date and time, which `sessions show` gives */
    localtime_r(&t, &tm);
    localtime_r(&now, &tn);
    snprintf(when, sizeof when, "%*s", pi, "");   /* the id's padding (right-aligned) */
    strftime(when + strlen(when), sizeof when - strlen(when),
             tm.tm_year == tn.tm_year ? "%m-%d %H:%M" : "%Y-%m-%d ", &tm);
    /* the open one says so; another has blanks there while one is open,
    ** so the models line up */
    snprintf(open, sizeof open, "%*s", a->sid != 0 ? cells(mark) : 0, "");
    if (ss->id == a->sid)
        snprintf(open, sizeof open, "%s", mark);
    /* the model padded to the widest when a state file follows it (a row
    ** ends at its last word: blanks there were cut with a "…") */
    snprintf(model, sizeof model, "%s%*s", r->model,
             r->state[0] ? c->model - cells(r->model) : 0, "");
    snprintf(detail, sizeof detail, "%*s", pt > 0 ? pt : 0, "");
    snprintf(detail + strlen(detail), sizeof detail - strlen(detail),
             TR("%lld turns  #%lld  %s%s  %s%s"), (long long)ss->n_turns, (long long)ss->id,
             when, open, model, r->state);
    snprintf(flagged, sizeof flagged, " %s", r->model);
    /* the title as the transcript would show it (stored cleaned, but a row
    ** another program wrote may hold anything) */
    tui_label(title, sizeof title, ss->title, strlen(ss->title), STORE_TITLE_MAX - 1);
    tui_menu_add(m, title[0] ? title : TR("(untitled)"), detail, flagged, ss->id);
}

/* The title says what the saved states take, and the budget when one is set
** (`sessions budget`): the disk a long chat with a big model fills. */
static void
title_usage(tui_menu *m, const struct app *a)
{
    uint64_t bytes, budget;
    int64_t count;
    char used[32], cap[32];
    rwkv_err err;

    if (store_snapshot_usage(a->st, 0, &bytes, &count, &err) != RWKV_OK ||
        store_budget_get(a->st, &budget, &err) != RWKV_OK)
        return;
    store_size_str(bytes, used, sizeof used);
    if (budget == 0)
        snprintf(m->title, sizeof m->title, TR("%s  (saved states: %s)"), TR("Sessions"), used);
    else
        snprintf(m->title, sizeof m->title, TR("%s  (saved states: %s of %s)"), TR("Sessions"),
                 used, store_size_str(budget, cap, sizeof cap));
}

static void
fill_sessions(tui_menu *m, const struct app *a, tui_menu_msg *msg)
{
    store_session *ss = NULL;
    struct row_refs *r;
    struct row_cols c = { 0, 0, 0 };
    size_t n = 0;
    rwkv_err err, bad;
    int rc = RWKV_OK;

    if (a->st == NULL) {
        tui_menu_say(msg, 1, "no session database (--no-db)");
        return;
    }
    /* the runtime found its file deleted or replaced (and said so): the
    ** rows this handle still reads are the old file's, none can be opened */
    if ((a->sess != NULL && sess_store(a->sess) == NULL) || store_is_lost(a->st)) {
        tui_menu_say(msg, 1, "%s: the session database was deleted or replaced while in use: "
                             "nothing to open (this chat goes on without saving; F10 offers "
                             "to export it)", store_path(a->st));
        return;
    }
    if (store_session_list(a->st, &ss, &n, &err) != RWKV_OK) {
        tui_menu_say(msg, 1, "%s", err.msg);
        return;
    }
    if ((r = calloc(n ? n : 1, sizeof *r)) == NULL) {
        free(ss);
        tui_menu_say(msg, 1, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        row_refs(a, &ss[i], &r[i], rc ? &err : &bad);
        if (r[i].rc != RWKV_OK)
            rc = 1;   /* the first error is said */
        c.turns = digits(ss[i].n_turns) > c.turns ? digits(ss[i].n_turns) : c.turns;
        c.id = digits(ss[i].id) > c.id ? digits(ss[i].id) : c.id;
        c.model = cells(r[i].model) > c.model ? cells(r[i].model) : c.model;
    }
    for (size_t i = 0; i < n; i++)
        add_session(m, a, &ss[i], &r[i], &c);
    m->label_col = 1;
    free(r);
    free(ss);
    title_usage(m, a);
    if (rc)
        tui_menu_say(msg, 1, "%s", bad.msg);
}

static void
select_open(tui_menu *m, const struct app *a)
{
    tui_menu_select_id(m, a->sid);
}

/* Split the search F into the NAME of a "model:NAME" word ("" when none)
** and the REST (the other words). */
static void
split_model(const char *f, char *name, size_t ncap, char *rest, size_t rcap)
{
    const char *p = f, *v, *after;
    size_t vl, bl;

    while (*p && !((p == f || p[-1] == ' ') && strncasecmp(p, MODEL_WORD, 6) == 0))
        p++;
    name[0] = '\0';
    if (*p == '\0') {
        snprintf(rest, rcap, "%s", f);
        return;
    }
    v = p + 6;
    vl = strcspn(v, " ");
    snprintf(name, ncap, "%.*s", (int)vl, v);
    for (after = v + vl; *after == ' '; after++)
        ;
    for (bl = (size_t)(p - f); bl > 0 && f[bl - 1] == ' '; bl--)
        ;
    snprintf(rest, rcap, "%.*s%s%s", (int)bl, f, bl && *after ? " " : "", after);
}

/* Set the search F: every session whose title or turns contain its text
** (store_search_sessions: not the first N hits, which a few long chats
** filled, hiding the rest) stays visible, those of another model than a
** "model:NAME" word go.  A search the database fails (a damaged index on
** a read-only file) is said, not shown as no match; an index the search
** rebuilt from the messages is said once (store_file_note). */
static void
filter_sessions(tui_menu *m, const struct app *a, const char *f, tui_menu_msg *msg)
{
    int64_t *ids = NULL;
    size_t nh = 0;
    rwkv_err err;
    char name[TUI_MENU_FILTER], rest[TUI_MENU_FILTER];

    split_model(f, name, sizeof name, rest, sizeof rest);
    /* from the first character, as `sessions search`: a one-character
    ** word is a scan of the turns as a two-character one is (the index
    ** needs three), measured fast on a 300-session database */
    if (a->st && !store_search_blank(rest)) {
        char note[512];
        if (store_search_sessions(a->st, rest, &ids, &nh, &err) != RWKV_OK) {
            tui_menu_say(msg, 1, "search: %s", err.msg);
            nh = 0;
        } else if (store_file_note(a->st, note, sizeof note)) {
            tui_menu_say(msg, 0, "%s", note);   /* a damaged index rebuilt */
        }
    }
    for (size_t i = 0; i < m->n; i++) {
        char *d = m->items[i].data;
        if (d == NULL)
            continue;
        d[0] = ' ';
        for (size_t h = 0; h < nh; h++)
            if (ids[h] == m->items[i].id)
                d[0] = TUI_MENU_MATCH;
        if (name[0] && strncasecmp(d + 1, name, strlen(name)) != 0)
            d[0] = TUI_MENU_HIDDEN;
    }
    free(ids);
    tui_menu_set_filter_match(m, f, rest);
}

/* ---- keys ------------------------------------------------------------------- */

/* Enter: open the session; one made with a model of another shape
** (sess_model_need: the rule the open itself refuses by) asks first to
** load that model, as a launch with --session would take it -- its file
** gone or changed is said in one line, nothing changing. */
static void
resume(struct app *a, const tui_menu_item *it, int key)
{
    sess_need need;
    rwkv_err err;
    char label[sizeof a->prompt_label], what[sizeof a->prompt_label];
    int64_t id;

    (void)key;
    if (it == NULL)
        return;
    id = it->id;
    if (a->st != NULL && !a->busy) {
        if (sess_model_need(a->st, id, rwkv_model_info(a->model), &need, &err) != RWKV_OK) {
            tui_notice(a, 1, "%s", err.msg);
            return;
        }
        if (need.other) {
            a->prompt_target = id;
            if (need.demo)
                snprintf(what, sizeof what, "%s", TR("the demo model"));
            else
                snprintf(what, sizeof what, TR("%s (RWKV-%s, %d layers)"), need.model.path,
                         need.model.version, need.model.n_layer);
            snprintf(label, sizeof label,
                     TR("session %lld was made with %s: load it and open the session? (y/n) "),
                     (long long)id, what);
            tui_prompt_open(a, TUI_PROMPT_OTHER_MODEL, label, "");
            return;
        }
    }
    tui_menu_close(a);
    tui_session_job(a, TUI_JOB_OPEN, id, -1, NULL);
}

static void
rename_ask(struct app *a, const tui_menu_item *it, int key)
{
    store_session cur;
    rwkv_err err;

    (void)key;
    if (it == NULL)
        return;
    a->prompt_target = it->id;
    /* the current title, never the "(untitled)" placeholder */
    tui_prompt_open(a, TUI_PROMPT_RENAME, "new title: ",
                    store_session_get(a->st, it->id, &cur, &err) == RWKV_OK ? cur.title : "");
}

static void
delete_ask(struct app *a, const tui_menu_item *it, int key)
{
    char label[256], title[112];

    (void)key;
    if (it == NULL)
        return;
    if (a->busy && it->id == a->sid) {
        /* the reply being written belongs to it (F6's delete waits too) */
        tui_notice(a, 1, "wait for the model to finish (Esc cancels it)");
        return;
    }
    a->prompt_target = it->id;
    snprintf(label, sizeof label, TR("delete '%s'? (y/n) "),
             tui_cut(title, sizeof title, it->label, 100));
    tui_prompt_open(a, TUI_PROMPT_DELETE, label, "");
}

/* C-y: a copy of the session up to its head, by the fork rule
** (sess_fork_point): a reply another window is still writing moves the
** fork point before its message, said as `sessions fork` says it
** (sess_fork_live_why) -- the session opened then is not what was asked. */
static void
fork_session(struct app *a, const tui_menu_item *it, int key)
{
    store_session s;
    int64_t sid, nid, at = 0, live = 0;
    rwkv_err err;
    char why[RWKV_ERR_MSG];

    (void)key;
    if (it == NULL)
        return;
    sid = it->id;                      /* IT goes with the menu */
    tui_notice_now(a, TR_NOOP("forking session %lld..."), (long long)it->id);
    if (store_session_get(a->st, it->id, &s, &err) != RWKV_OK ||
        (s.head_turn != 0 &&
         sess_fork_point_ex(a->st, it->id, s.head_turn, &at, &live, &err) != RWKV_OK) ||
        store_session_fork(a->st, it->id, at, NULL, &nid, &err) != RWKV_OK) {
        tui_notice(a, 1, "forking session %lld: %s", (long long)it->id, err.msg);
        return;
    }
    tui_session_notes_fork(a, at, nid);    /* the copy's turns are new rows */
    tui_menu_close(a);
    if (live != 0) {
        sess_fork_live_why(a->st, live, why, sizeof why);
        tui_notice(a, 0, "forked session %lld at turn %lld as session %lld (%s)",
                   (long long)sid, (long long)at, (long long)nid, why);
    }
    if (tui_session_job(a, TUI_JOB_OPEN, nid, -1, NULL) == 0 && live != 0)
        a->job_noted = 1;      /* that line stays, not "resumed '...'" over it */
}

/* C-t: the next model present ("model:NAME" in the search), after the
** last one all models again. */
static void
next_model(struct app *a, const tui_menu_item *it, int key)
{
    tui_menu *m = &a->menu;
    char name[TUI_MENU_FILTER], rest[TUI_MENU_FILTER], f[3 * TUI_MENU_FILTER];
    const char *next = NULL;
    tui_menu_msg msg = { 0, 0, "" };

    (void)it;
    (void)key;
    split_model(m->filter, name, sizeof name, rest, sizeof rest);
    /* the smallest model name after NAME (by name) */
    for (size_t i = 0; i < m->n; i++) {
        const char *mo = m->items[i].data ? m->items[i].data + 1 : NULL;
        if (mo && (name[0] == '\0' || strcasecmp(mo, name) > 0) &&
            (next == NULL || strcasecmp(mo, next) < 0))
            next = mo;
    }
    if (next)
        snprintf(f, sizeof f, MODEL_WORD "%.100s%s%s", next, rest[0] ? " " : "", rest);
    else
        snprintf(f, sizeof f, "%s", rest);
    filter_sessions(m, a, f, &msg);
    if (msg.set)   /* the search failed: that is the news */
        tui_notice(a, msg.is_err, "%s", msg.text);
    else
        tui_notice(a, 0, next ? "sessions of %s (C-t: the next model)" : "%sall models",
                   next ? next : "");
}

/* C-e: export the selected session to a file (the name asked). */
static void
export_ask(struct app *a, const tui_menu_item *it, int key)
{
    char init[64];

    (void)key;
    if (it == NULL)
        return;
    a->prompt_target = it->id;
    tui_replace_forget();
    snprintf(init, sizeof init, "rwkv-session-%lld.md", (long long)it->id);
    tui_prompt_open(a, TUI_PROMPT_EXPORT, "export to (.md Markdown, .json JSON): ", init);
}

static void
import_ask(struct app *a, const tui_menu_item *it, int key)
{
    (void)it;
    (void)key;
    if (a->st == NULL) {
        tui_notice(a, 1, "no session database (--no-db): nothing to import into");
        return;
    }
    tui_prompt_open(a, TUI_PROMPT_IMPORT, "import the session file (a JSON export): ", "");
}

/* C-b: the disk budget of every session's saved states (`sessions budget`),
** asked with what the states take now. */
static void
budget_ask(struct app *a, const tui_menu_item *it, int key)
{
    char label[160], used[32], cap[32];
    uint64_t bytes = 0, budget = 0;
    int64_t count = 0;
    rwkv_err err;

    (void)it;
    (void)key;
    if (a->st == NULL) {
        tui_notice(a, 1, "no session database (--no-db): no saved states to budget");
        return;
    }
    if (a->busy) {   /* the reply being written saves a state */
        tui_notice(a, 1, "wait for the model to finish (Esc cancels it)");
        return;
    }
    if (store_snapshot_usage(a->st, 0, &bytes, &count, &err) != RWKV_OK ||
        store_budget_get(a->st, &budget, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return;
    }
    store_size_str(bytes, used, sizeof used);
    if (budget == 0)
        snprintf(label, sizeof label, TR("saved states: %s, no budget; budget (500MB, 2GB, off): "),
                 used);
    else
        snprintf(label, sizeof label, TR("saved states: %s of %s; budget (500MB, 2GB, off): "),
                 used, store_size_str(budget, cap, sizeof cap));
    tui_prompt_open(a, TUI_PROMPT_BUDGET, label, "");
}

static const tui_menu_keydef session_keys[] = {
    { TUI_K_ENTER, 0, "Enter", TR_NOOP("resume"), TR_NOOP("resume the selected session"), resume, 1 },
    { CFG_KEY_CTRL('r'), 0, "C-r", TR_NOOP("rename"), TR_NOOP("rename the selected session"), rename_ask, 1 },
    { CFG_KEY_CTRL('d'), TUI_MK_FKEY(KEY_DC), "C-d", TR_NOOP("delete"),
      TR_NOOP("delete the selected session (asks first; also Delete)"), delete_ask, 1 },
    /* C-y ("yank a copy"): C-f searches everywhere, in this list too */
    { CFG_KEY_CTRL('y'), 0, "C-y", TR_NOOP("fork"), TR_NOOP("fork it as a new session (a copy to go on from)"),
      fork_session, 1 },
    { CFG_KEY_CTRL('e'), 0, "C-e", TR_NOOP("export"),
      TR_NOOP("export it to a file: Markdown (the branch), or JSON (the whole tree) for a .json name"),
      export_ask, 1 },
    { CFG_KEY_CTRL('o'), 0, "C-o", TR_NOOP("import"),
      TR_NOOP("import a session file (a JSON export) as a new session"), import_ask, TUI_MK_DB },
    { CFG_KEY_CTRL('b'), 0, "C-b", TR_NOOP("budget"),
      TR_NOOP("a disk budget for every session's saved states (older states give way "
              "first; their tokens rebuild them)"), budget_ask, TUI_MK_LIST },
    { CFG_KEY_CTRL('t'), 0, "C-t", TR_NOOP("model"),
      TR_NOOP("show only the sessions of the next model present (then all again)"), next_model,
      TUI_MK_LIST },
    { 0, 0, NULL, NULL, NULL, NULL, 0 }
};

const tui_menu_class tui_menu_sessions_class = {
    TUI_MENU_SESSIONS, CFG_ACT_SESSIONS, TR_NOOP("Sessions"), TR_NOOP("Sessions"), fill_sessions, select_open,
    filter_sessions, session_keys, 0
};

/* ---- prompts ---------------------------------------------------------------- */

static int
accept_rename(struct app *a, const char *text)
{
    rwkv_err err;
    int rc;

    if (text[strspn(text, " \t")] == '\0') {
        /* refused as every value prompt's: open again, the reason above */
        tui_notice(a, 1, "a title cannot be empty: type one (Esc keeps the old one)");
        return TUI_PROMPT_REFUSED;
    }
    if (a->busy && (a->prompt_target == a->sid ||
                    (a->w.job == TUI_JOB_OPEN && a->prompt_target == a->open_sid))) {
        /* the runtime goes on with its title (sess_rename): not while it
        ** runs a job in that session; Enter again once it is done */
        tui_notice(a, 1, "wait for the model to finish (Esc cancels it)");
        return TUI_PROMPT_AGAIN;
    }
    /* the session open through the runtime, so its title follows
    ** everywhere (the status line, F3's file name); another through the
    ** UI's connection, as while a job runs the runtime's is the worker's */
    rc = a->prompt_target == a->sid ? sess_rename(a->sess, a->prompt_target, text, &err)
             : store_session_rename(a->st, a->prompt_target, text, &err);
    if (rc != RWKV_OK) {
        /* a title the store refuses (EINVAL) is to be corrected; a write
        ** that failed (the lock of another program, a full disk) keeps the
        ** title typed for Enter again */
        tui_notice(a, 1, "renaming session %lld: %s", (long long)a->prompt_target, err.msg);
        return rc == RWKV_EINVAL ? TUI_PROMPT_REFUSED : TUI_PROMPT_AGAIN;
    }
    a->notice[0] = '\0';                  /* said: the menu shows the new title */
    if (a->prompt_target == a->sid)
        snprintf(a->session_title, sizeof a->session_title, "%s", sess_title(a->sess));
    tui_menu_open(a, TUI_MENU_SESSIONS);
    tui_menu_select_id(&a->menu, a->prompt_target);
    return TUI_PROMPT_DONE;
}

/* (a y/n question: nothing typed to keep) */
static int
accept_delete(struct app *a, const char *text)
{
    rwkv_err err;

    (void)text;
    tui_notice_now(a, TR_NOOP("deleting session %lld..."), (long long)a->prompt_target);
    if (store_session_delete(a->st, a->prompt_target, &err) != RWKV_OK) {
        tui_notice(a, 1, "deleting session %lld: %s", (long long)a->prompt_target, err.msg);
        return TUI_PROMPT_DONE;
    }
    if (a->prompt_target == a->sid)
        tui_session_new(a);
    tui_menu_open(a, TUI_MENU_SESSIONS);
    tui_notice(a, 0, "session deleted");
    return TUI_PROMPT_DONE;
}

/* y to F2's question of a session of another model (resume): what the
** session needs is asked again (its file may have gone meanwhile), then
** that model is loaded as F5 loads one and the session opened on it. */
static int
accept_other_model(struct app *a, const char *text)
{
    sess_need need;
    rwkv_err err;

    (void)text;
    if (a->st == NULL)
        return TUI_PROMPT_DONE;
    if (sess_model_need(a->st, a->prompt_target, rwkv_model_info(a->model), &need, &err)
        != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return TUI_PROMPT_DONE;
    }
    if (!need.other)                  /* the model in use opens it now */
        tui_session_job(a, TUI_JOB_OPEN, a->prompt_target, -1, NULL);
    else
        tui_switch_session_model(a, &need);
    return TUI_PROMPT_DONE;
}

const tui_prompt_class tui_prompt_rename = { TUI_PROMPT_RENAME, 0, accept_rename,
                                             TUI_PHIST_NONE, 0 };
const tui_prompt_class tui_prompt_delete = { TUI_PROMPT_DELETE, 1, accept_delete,
                                             TUI_PHIST_NONE, 0 };
/* (its action is in the chat: the menu goes first) */
const tui_prompt_class tui_prompt_other_model = { TUI_PROMPT_OTHER_MODEL, 1, accept_other_model,
                                                  TUI_PHIST_NONE, 1 };

int
tui_write_file(const char *path, const char *buf, size_t len, int mode, int flags,
               rwkv_err *err)
{
    return rwkv_write_file(path, buf, len, (unsigned)mode, flags, err) == RWKV_OK ? 0 : -1;
}

/* Enter in the export prompt: write the session as `sessions export` does.
** A path refused or not written is kept for Enter again. */
static int
accept_export(struct app *a, const char *text)
{
    char path[1200], note[RWKV_ERR_MSG], tgt[4096], shown[5400], *buf = NULL;
    size_t len = 0;
    int json;
    rwkv_err err;

    if (tui_expand_path(text, path, sizeof path) != 0) {
        tui_notice(a, 1, "no file name: nothing exported");
        return TUI_PROMPT_DONE;
    }
    /* the files the exported session names (its model, vocabulary, state
    ** file) as `sessions export --out` refuses them; then the client's own */
    if (store_export_output_check(a->st, a->prompt_target, path, NULL, 0, &err) != RWKV_OK) {
        tui_replace_forget();
        tui_notice(a, 1, "%s", err.msg);
        return TUI_PROMPT_AGAIN;
    }
    if (tui_replace_ask(a, TUI_PROMPT_EXPORT, path, text))
        return TUI_PROMPT_AGAIN;      /* asked (a prompt is open), or refused */
    json = store_format_for_name(path) == STORE_FMT_JSON;
    if (store_export_ex(a->st, a->prompt_target, json ? STORE_FMT_JSON : STORE_FMT_MD, &buf,
                        &len, note, sizeof note, &err) != RWKV_OK ||
        tui_write_file(path, buf, len, 0644, 0, &err) != 0) {
        tui_notice(a, 1, "%s", err.msg);
        free(buf);
        return TUI_PROMPT_AGAIN;
    }
    free(buf);
    /* written through a link (rwkv_output_target; the link kept): the file
    ** that changed is named too */
    if (rwkv_output_target(path, tgt, sizeof tgt) == 0 && strcmp(tgt, path) != 0)
        snprintf(shown, sizeof shown, TR("%s through the link %s"), tgt, path);
    else
        snprintf(shown, sizeof shown, "%s", path);
    if (note[0])
        tui_notice(a, 1, "exported to %s; damaged rows in part: %s", shown, note);
    else
        tui_notice(a, 0, "session %lld exported to %s (%s)", (long long)a->prompt_target, shown,
                   json ? "JSON" : "Markdown");
    return TUI_PROMPT_DONE;
}

/* The World vocabulary an import's turns are checked with (store_import_ex,
** as `sessions import` does): the one the session names when it is here,
** else the client's own; none: the way on, in one line. */
struct import_vocab {
    const char *mine;                  /* the client's World vocabulary, "" = none */
    tok        *t;                     /* opened here, closed after the import */
};

static int
import_world(void *ud, const char *model_path, const char *vocab_path, const struct tok **t,
             rwkv_err *err)
{
    struct import_vocab *iv = ud;
    const char *path = vocab_path[0] == '/' && access(vocab_path, R_OK) == 0 ? vocab_path
                                                                               : iv->mine;

    (void)model_path;
    if (path[0] == '\0')
        return rwkv_errf(err, RWKV_EIO, "its turns are checked with its model's World vocabulary, "
                         "and none is loaded here: `rwkv-tui sessions import FILE --vocab PATH` "
                         "imports it");
    if (iv->t == NULL && tok_open_world(path, &iv->t, err) != RWKV_OK)
        return err->code;
    *t = iv->t;
    return RWKV_OK;
}

/* A file that cannot be read or imported: its path is kept for Enter again
** (a typo is mended, not typed anew). */
static int
accept_import(struct app *a, const char *text)
{
    char path[1200], note[RWKV_ERR_MSG + 200], *buf = NULL;
    size_t len = 0;
    int64_t id;
    rwkv_err err;
    store_import_info in;
    struct import_vocab iv = { a->vocab_path, NULL };
    store_import_vocab v = { import_world, &iv };
    int rc;

    if (tui_expand_path(text, path, sizeof path) != 0)
        return TUI_PROMPT_DONE;
    tui_notice(a, 0, "importing %s...", path);
    tui_view_draw(a);           /* said before the wait: a large file takes seconds */
    rc = tui_session_read_file(path, TUI_SESSION_IMPORT_MAX, &buf, &len, &err) != 0 ||
         store_import_states(a->st, buf, len, path, &v, 0, &in, &id, &err) != RWKV_OK;
    tok_close(iv.t);
    free(buf);
    if (rc) {
        tui_notice(a, 1, "%s", err.msg);
        return TUI_PROMPT_AGAIN;
    }
    /* what its first open replays, as `sessions import` says it */
    store_import_note(&in, path, id, 0, note, sizeof note);
    if (note[0])
        tui_notice(a, 0, "imported %s as session %lld (Enter resumes it); %s", path,
                   (long long)id, note);
    else
        tui_notice(a, 0, "imported %s as session %lld (Enter resumes it)", path, (long long)id);
    if (a->menu.kind == TUI_MENU_SESSIONS)
        tui_menu_refill(a, id);
    return TUI_PROMPT_DONE;
}

/* Enter in the budget prompt: set it and apply it at once, as `sessions
** budget` does, said in the same words.  A size refused is said and the
** prompt kept open holding it to correct (as every value prompt's); a
** write that failed keeps it for Enter again. */
static int
accept_budget(struct app *a, const char *text)
{
    char line[256];
    store_budget_info bi;
    uint64_t bytes;
    rwkv_err err;
    int rc;

    if (text[0] == '\0') {
        tui_notice(a, 0, "budget unchanged");
        return TUI_PROMPT_DONE;
    }
    if ((rc = store_budget_parse(a->st, text, &bytes, &err)) != RWKV_OK) {
        /* (a size it does not take; else the states' sizes unread) */
        tui_notice(a, 1, "%s", err.msg);
        return rc == RWKV_EINVAL ? TUI_PROMPT_REFUSED : TUI_PROMPT_AGAIN;
    }
    tui_notice(a, 0, "applying the budget...");
    tui_view_draw(a);           /* said before the wait: dropping and vacuuming take a while */
    if (store_budget_set(a->st, bytes, &bi, &err) != RWKV_OK) {
        tui_notice(a, 1, "setting the budget: %s", err.msg);
        return TUI_PROMPT_AGAIN;
    }
    tui_notice(a, 0, "%s", store_budget_say(a->st, &bi, line, sizeof line));
    if (a->menu.kind == TUI_MENU_SESSIONS) {   /* the title shows the new sizes */
        const tui_menu_item *sel = tui_menu_selected(&a->menu);
        tui_menu_refill(a, sel ? sel->id : 0);
    }
    return TUI_PROMPT_DONE;
}

const tui_prompt_class tui_prompt_budget = { TUI_PROMPT_BUDGET, 0, accept_budget,
                                             TUI_PHIST_NONE, 0 };
const tui_prompt_class tui_prompt_export = { TUI_PROMPT_EXPORT, 0, accept_export,
                                             TUI_PHIST_FILES, 0 };
const tui_prompt_class tui_prompt_import = { TUI_PROMPT_IMPORT, 0, accept_import,
                                             TUI_PHIST_FILES, 0 };
