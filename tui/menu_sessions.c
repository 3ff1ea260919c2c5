/*
** menu_sessions.c -- F2: the saved sessions, most recent first, each with
** its model, state file and id; resume, rename, delete, fork.  Typing
** searches the titles and, through the store's full-text index, what was
** said in them.
*/
#include "menus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "text.h"

/* The base name of PATH (borrowed). */
static const char *
base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static void
add_session(tui_menu *m, const struct app *a, const store_session *ss)
{
    char detail[400], when[32], model[80] = "-", state[80] = "";
    time_t t = (time_t)(ss->updated_ms / 1000);
    struct tm tm;
    store_model mo;
    store_statefile sf;
    rwkv_err err;

    localtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
    /* model and state file by their file names (the id is what
    ** `--session ID` and `sessions` take) */
    if (ss->model_id != 0 && store_model_get(a->st, ss->model_id, &mo, &err) == RWKV_OK)
        snprintf(model, sizeof model, "%.79s", base_name(mo.path));
    if (ss->state_file_id != 0 &&
        store_statefile_get(a->st, ss->state_file_id, &sf, NULL, &err) == RWKV_OK)
        snprintf(state, sizeof state, "  state %.70s", sf.path[0] ? base_name(sf.path) : sf.name);
    snprintf(detail, sizeof detail, "%lld turns  #%lld  %s%s  %s%s", (long long)ss->n_turns,
             (long long)ss->id, model, state, when, ss->id == a->sid ? "  (open)" : "");
    tui_menu_add(m, ss->title[0] ? ss->title : "(untitled)", detail, NULL, ss->id);
}

static void
fill_sessions(tui_menu *m, const struct app *a, tui_menu_msg *msg)
{
    store_session *ss = NULL;
    size_t n = 0;
    rwkv_err err;

    if (a->st == NULL) {
        tui_menu_say(msg, 1, "no session database (--no-db)");
        return;
    }
    if (store_session_list(a->st, &ss, &n, &err) != RWKV_OK) {
        tui_menu_say(msg, 1, "%s", err.msg);
        return;
    }
    for (size_t i = 0; i < n; i++)
        add_session(m, a, &ss[i]);
    free(ss);
}

static void
select_open(tui_menu *m, const struct app *a)
{
    tui_menu_select_id(m, a->sid);
}

/* Set the filter and mark the sessions whose turns contain it
** (store_search) so that they stay visible. */
static void
filter_sessions(tui_menu *m, const struct app *a, const char *f)
{
    store_hit *hits = NULL;
    size_t nh = 0;
    rwkv_err err;

    for (size_t i = 0; i < m->n; i++) {
        free(m->items[i].data);
        m->items[i].data = NULL;
    }
    if (a->st && strlen(f) >= 2 && store_search(a->st, f, 200, &hits, &nh, &err) == RWKV_OK) {
        for (size_t h = 0; h < nh; h++) {
            for (size_t i = 0; i < m->n; i++) {
                if (m->items[i].id == hits[h].session_id && m->items[i].data == NULL) {
                    char mark[2] = { TUI_MENU_MATCH, 0 };
                    m->items[i].data = tui_xstrdup(mark);
                }
            }
        }
    }
    free(hits);
    tui_menu_set_filter(m, f);
}

/* ---- keys ------------------------------------------------------------------- */

static void
resume(struct app *a, const tui_menu_item *it, int key)
{
    int64_t id;

    (void)key;
    if (it == NULL)
        return;
    id = it->id;
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
    char label[160];

    (void)key;
    if (it == NULL)
        return;
    a->prompt_target = it->id;
    snprintf(label, sizeof label, "delete '%.100s'? (y/n) ", it->label);
    tui_prompt_open(a, TUI_PROMPT_DELETE, label, "");
}

static void
fork_session(struct app *a, const tui_menu_item *it, int key)
{
    store_session s;
    int64_t nid, at = 0;
    rwkv_err err;

    (void)key;
    if (it == NULL)
        return;
    if (store_session_get(a->st, it->id, &s, &err) != RWKV_OK ||
        (s.head_turn != 0 && sess_fork_point(a->st, s.head_turn, &at, &err) != RWKV_OK) ||
        store_session_fork(a->st, it->id, at, NULL, &nid, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return;
    }
    tui_menu_close(a);
    tui_session_job(a, TUI_JOB_OPEN, nid, -1, NULL);
}

static const tui_menu_keydef session_keys[] = {
    { TUI_K_ENTER, 0, "Enter", "resume", "resume the selected session", resume },
    { CFG_KEY_CTRL('r'), 0, "C-r", "rename", "rename the selected session", rename_ask },
    { CFG_KEY_CTRL('d'), TUI_MK_FKEY(KEY_DC), "C-d", "delete",
      "delete the selected session (asks first; also Delete)", delete_ask },
    { CFG_KEY_CTRL('f'), 0, "C-f", "fork", "fork it as a new session", fork_session },
    { 0, 0, NULL, NULL, NULL, NULL }
};

const tui_menu_class tui_menu_sessions_class = {
    TUI_MENU_SESSIONS, CFG_ACT_SESSIONS, "Sessions", "Sessions", fill_sessions, select_open,
    filter_sessions, session_keys
};

/* ---- prompts ---------------------------------------------------------------- */

static void
accept_rename(struct app *a, const char *text)
{
    rwkv_err err;

    if (text[strspn(text, " \t")] == '\0') {
        /* an empty title is refused: the prompt stays open, saying so (the
        ** footer is the prompt's line, so the label tells) */
        tui_prompt_open(a, TUI_PROMPT_RENAME,
                        "a title cannot be empty (Esc keeps the old one); new title: ", "");
        return;
    }
    if (store_session_rename(a->st, a->prompt_target, text, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return;
    }
    if (a->prompt_target == a->sid)
        snprintf(a->session_title, sizeof a->session_title, "%s", text);
    tui_menu_open(a, TUI_MENU_SESSIONS);
    tui_menu_select_id(&a->menu, a->prompt_target);
}

static void
accept_delete(struct app *a, const char *text)
{
    rwkv_err err;

    (void)text;
    if (store_session_delete(a->st, a->prompt_target, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return;
    }
    if (a->prompt_target == a->sid)
        tui_session_new(a);
    tui_menu_open(a, TUI_MENU_SESSIONS);
    tui_notice(a, 0, "session deleted");
}

const tui_prompt_class tui_prompt_rename = { TUI_PROMPT_RENAME, 0, accept_rename };
const tui_prompt_class tui_prompt_delete = { TUI_PROMPT_DELETE, 1, accept_delete };
