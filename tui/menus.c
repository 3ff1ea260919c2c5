/*
** menus.c -- the menus: help, sessions, branches, state files, presets,
** models, and the one-line prompt (rename, delete, preset name, value).
** Each menu is a tui_menu (list logic in menu.c) filled from the store or
** the file system when opened; keys inside a menu are handled here.
**
** In every list: Up/Down/PgUp/PgDn/Home/End move, typing filters (search),
** Backspace edits the filter, Enter acts, Esc closes.  Extra keys are shown
** in the menu's bottom line (tui_menu_hint).
*/
#define NCURSES_WIDECHAR 1
#include "app.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <ncursesw/curses.h>

#include "../core/fileio.h"
#include "../core/utf8.h"
#include "sidebar.h"
#include "state_save.h"
#include "text.h"

#define TUI_MENU_MAX_FILES 500   /* state files listed from a directory */

/* The editing keys that are not in the config's action table (F1 help). */
static const char *const fixed_keys[][2] = {
    { "Enter", "send the message" },
    { "Alt-Enter, C-j", "new line in the message" },
    { "Left/Right, C-b/C-f", "move by character" },
    { "Up/Down", "move by line; history on the first/last line" },
    { "Home/End, C-a/C-e", "start/end of line (empty box: top/end of transcript)" },
    { "C-k / C-u / C-w", "delete to end of line / to start / word before" },
    { "Backspace/Delete", "delete a whole character" },
    { "PgUp/PgDn, wheel", "scroll the transcript (in a menu the wheel moves)" },
    { "Shift-Up/Down", "scroll one line" },
    { "Esc, C-c", "cancel the running reply (kept, marked interrupted), the prefill "
                  "(the message goes back to the box) or a replay (nothing changes)" },
    { "Esc, C-u (editing)", "leave edit mode: the next message continues the branch" },
    { "C-d (empty box), C-q", "quit" },
    { "C-z", "suspend (the shell's fg resumes)" },
    { "Sidebar: Up/Down", "choose a parameter" },
    { "Sidebar: Left/Right, -/+", "change it by one step (PgUp/PgDn: 10)" },
    { "Sidebar: Enter or a digit", "type a value" },
    { "Menus: type", "search; Enter acts, Esc closes" },
    { "Sessions: type", "search titles and messages (words match as prefixes)" },
    { "Sessions: C-r / C-d / C-f", "rename / delete / fork as a new session" },
    { "Branches: Left/Right", "previous/next sibling of the selected turn" },
    { "Branches: Enter", "on your message: edit it (starts a branch)" },
    { "State files: C-s", "import the file into the library (the database)" },
    { "State files: C-w", "save the current state as a state file (a persona made from "
                          "the conversation; default folder $XDG_DATA_HOME/rwkv-tui/states)" },
    { "State files: (none)", "back to no state file (the greeting)" },
    { "Presets: C-s", "save the current values as a preset" },
    { "Models: Enter / C-s", "switch model / change the strategy (new session)" },
    { "Framing: Enter", "edit the greeting, a role name, the stop strings (\\n escapes, ',' "
                        "between) or bans; a new greeting or names start a new session" },
};

const char *tui_menu_hint(const struct app *a);

const char *
tui_menu_hint(const struct app *a)
{
    switch (a->menu.kind) {
    case TUI_MENU_SESSIONS:  return "Enter resume  C-r rename  C-d delete  C-f fork  Esc close";
    case TUI_MENU_BRANCHES:  return "Left/Right sibling  Enter edit/fork  Esc close";
    case TUI_MENU_STATES:    return "Enter switch  C-s import into the library  C-w save the state  Esc close";
    case TUI_MENU_PRESETS:   return "Enter load  C-s save current  Esc close";
    case TUI_MENU_MODELS:    return "Enter switch model  C-s change strategy  Esc close";
    case TUI_MENU_STATE_ASK: return "Enter choose  Esc cancel";
    case TUI_MENU_LOG:       return "PgUp/PgDn scroll  Esc close";
    case TUI_MENU_FRAMING:   return "Enter edit  Esc close";
    default:                 return "type to search  Esc close";
    }
}

static void
fill_help(struct app *a)
{
    char key[32], label[160];

    for (int i = 0; i < CFG_ACT_COUNT; i++) {
        cfg_key_name(a->cfg.keys[i], key, sizeof key);
        snprintf(label, sizeof label, "%-12s %s", key, cfg_action_help(i));
        tui_menu_add(&a->menu, label, NULL, NULL, i);
    }
    for (size_t i = 0; i < sizeof fixed_keys / sizeof fixed_keys[0]; i++) {
        snprintf(label, sizeof label, "%-12s %s", fixed_keys[i][0], fixed_keys[i][1]);
        tui_menu_add(&a->menu, label, NULL, NULL, -1);
    }
}

/* The message log, newest first; a long message is wrapped over several
** rows (on character boundaries) so nothing of it is cut. */
static void
fill_log(struct app *a)
{
    int w = a->cols > 24 ? a->cols - 12 : 12;

    if (a->log_n == 0)
        tui_menu_add(&a->menu, "(no messages yet)", NULL, NULL, -1);
    for (int k = 0; k < a->log_n; k++) {
        const char *m = a->log[(a->log_next - 1 - k + TUI_LOG_MAX) % TUI_LOG_MAX];
        size_t len = strlen(m);
        int first = 1;

        while (len > 0) {
            char row[1024];
            size_t take = len;
            if (tui_str_width(m, take) > w || take >= sizeof row - 4) {
                take = 0;
                while (take < len && take < sizeof row - 8) {
                    size_t nx = take + 1;
                    while (nx < len && ((unsigned char)m[nx] & 0xC0) == 0x80)
                        nx++;
                    if (tui_str_width(m, nx) > w)
                        break;
                    take = nx;
                }
                if (take == 0)
                    take = len;
            }
            snprintf(row, sizeof row, "%s%.*s", first ? "" : "          ", (int)take, m);
            tui_menu_add(&a->menu, row, NULL, NULL, -1);
            m += take;
            len -= take;
            first = 0;
        }
    }
}

static void
fill_sessions(struct app *a)
{
    store_session *ss = NULL;
    size_t n = 0;
    rwkv_err err;

    if (a->st == NULL) {
        tui_notice(a, 1, "no session database (--no-db)");
        return;
    }
    if (store_session_list(a->st, &ss, &n, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char detail[400], when[32], model[80] = "-", state[80] = "";
        time_t t = (time_t)(ss[i].updated_ms / 1000);
        struct tm tm;
        store_model mo;
        store_statefile sf;
        localtime_r(&t, &tm);
        strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
        /* model and state file by their file names (the id is what
        ** `--session ID` and `sessions` take) */
        if (ss[i].model_id != 0 && store_model_get(a->st, ss[i].model_id, &mo, &err) == RWKV_OK) {
            const char *b = strrchr(mo.path, '/');
            snprintf(model, sizeof model, "%.79s", b ? b + 1 : mo.path);
        }
        if (ss[i].state_file_id != 0 &&
            store_statefile_get(a->st, ss[i].state_file_id, &sf, NULL, &err) == RWKV_OK) {
            const char *b = strrchr(sf.path, '/');
            snprintf(state, sizeof state, "  state %.70s",
                     sf.path[0] ? (b ? b + 1 : sf.path) : sf.name);
        }
        snprintf(detail, sizeof detail, "%lld turns  #%lld  %s%s  %s%s",
                 (long long)ss[i].n_turns, (long long)ss[i].id, model, state, when,
                 ss[i].id == a->sid ? "  (open)" : "");
        tui_menu_add(&a->menu, ss[i].title[0] ? ss[i].title : "(untitled)", detail, NULL,
                     ss[i].id);
    }
    free(ss);
}

static void
fill_branches(struct app *a)
{
    for (int i = 0; i < a->tr.nturns; i++) {
        tui_turn *t = &a->tr.turns[i];
        char label[128], detail[64] = "";
        size_t len;

        if (t->store_id == 0 || (t->role != TUI_TURN_USER && t->role != TUI_TURN_ASSISTANT))
            continue;
        len = strcspn(t->text.p, "\n");
        if (len > 80) {
            len = 80;
            while (len > 0 && ((unsigned char)t->text.p[len] & 0xC0) == 0x80)
                len--;
        }
        snprintf(label, sizeof label, "%s %.*s", t->role == TUI_TURN_USER ? "You: " : "RWKV:",
                 (int)len, t->text.p);
        if (t->sib_count > 1)
            snprintf(detail, sizeof detail, "< %d/%d >", t->sib_index, t->sib_count);
        tui_menu_add(&a->menu, label, detail[0] ? detail : NULL, NULL, t->store_id);
    }
    tui_menu_end(&a->menu);
}

static int
has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && strcmp(s + n - k, suf) == 0;
}

static int
cmp_names(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The checkpoint-like files (.pth, .safetensors) of DIR, sorted by name:
** *N names, owned by the caller (free_names).  NULL when DIR cannot be read. */
static char **
dir_names(const char *dir, size_t *n)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **v;

    *n = 0;
    if (d == NULL)
        return NULL;
    v = tui_xmalloc(TUI_MENU_MAX_FILES * sizeof *v);
    while ((de = readdir(d)) != NULL && *n < TUI_MENU_MAX_FILES) {
        if (de->d_name[0] == '.' ||
            !(has_suffix(de->d_name, ".pth") || has_suffix(de->d_name, ".safetensors")))
            continue;
        v[(*n)++] = tui_xstrdup(de->d_name);
    }
    closedir(d);
    qsort(v, *n, sizeof *v, cmp_names);
    return v;
}

static void
free_names(char **v, size_t n)
{
    for (size_t i = 0; v != NULL && i < n; i++)
        free(v[i]);
    free(v);
}

static void
list_dir(struct app *a, const char *dir)
{
    size_t nn;
    char **names = dir_names(dir, &nn);

    for (size_t k = 0; k < nn; k++) {
        char path[2300];
        const char *name = names[k];
        snprintf(path, sizeof path, "%.1024s/%.255s", dir, name);
        /* skip duplicates (the same folder named twice) */
        {
            int dup = 0;
            for (size_t i = 0; i < a->menu.n; i++)
                if (a->menu.items[i].data && strcmp(a->menu.items[i].data, path) == 0)
                    dup = 1;
            if (dup)
                continue;
        }
        tui_menu_add(&a->menu, name,
                     strcmp(path, a->state_path) == 0 ? "(in use)" : dir, path, 0);
    }
    free_names(names, nn);
}

/* The library: state files known to the database (imported ones carry
** their bytes; referenced ones a path).  Item id = the row, data = its
** path or "" when imported. */
static void
list_library(struct app *a)
{
    const rwkv_info *inf = rwkv_model_info(a->model);
    store_statefile *v = NULL;
    size_t n = 0;
    rwkv_err err;

    if (a->st == NULL)
        return;
    if (store_statefile_list(a->st, &v, &n, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char detail[300];
        const store_statefile *f = &v[i];
        int imported = f->path[0] == '\0';
        int in_use = imported ? a->state_lib_id == f->id
                              : a->state_lib_id == 0 && strcmp(f->path, a->state_path) == 0;
        int other = f->n_embd != 0 && (f->n_embd != inf->n_embd || f->n_layer != inf->n_layer);

        if (in_use)
            snprintf(detail, sizeof detail, "(in use) library%s", imported ? ", imported" : "");
        else if (other)
            snprintf(detail, sizeof detail, "library: for another model (%d layers x %d)",
                     f->n_layer, f->n_embd);
        else if (imported)
            snprintf(detail, sizeof detail, "library, imported, %zu KiB", (f->size + 1023) / 1024);
        else
            snprintf(detail, sizeof detail, "library: %.250s", f->path);
        tui_menu_add(&a->menu, f->name, detail, imported ? "" : f->path, f->id);
    }
    free(v);
}

static void
fill_states(struct app *a)
{
    char dir[1024];
    const char *env = getenv("RWKV_TUI_STATES");

    tui_menu_add(&a->menu, "(none)",
                 a->state_path[0] ? "no state file: the greeting" : "(in use) no state file",
                 "", TUI_STATE_NONE_ID);
    list_library(a);
    if (a->cfg.state_dir[0])
        list_dir(a, a->cfg.state_dir);
    if (tui_state_dir(dir, sizeof dir) == 0)   /* where C-w saves */
        list_dir(a, dir);
    if (env && *env)
        list_dir(a, env);
    if (a->state_path[0] && a->state_lib_id == 0) {
        const char *slash = strrchr(a->state_path, '/');
        if (slash) {
            snprintf(dir, sizeof dir, "%.*s", (int)(slash - a->state_path), a->state_path);
            list_dir(a, dir);
        } else {
            list_dir(a, ".");
        }
    }
    if (a->menu.n == 1)
        tui_notice(a, 0, "no state files: set state_dir in the config file or RWKV_TUI_STATES");
}

static void
fill_presets(struct app *a)
{
    char **names = NULL;
    size_t n = 0;
    rwkv_err err;

    if (a->st == NULL)
        return;
    if (store_preset_list(a->st, &names, &n, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return;
    }
    qsort(names, n, sizeof *names, cmp_names);   /* by name, built-ins among them */
    for (size_t i = 0; i < n; i++) {
        rwkv_sampling s;
        char detail[96];
        if (store_preset_get(a->st, names[i], &s, NULL, &err) == RWKV_OK)
            snprintf(detail, sizeof detail, "temp %g  top-p %g  max %d", (double)s.temperature,
                     (double)s.top_p, s.max_tokens);
        else
            detail[0] = '\0';
        tui_menu_add(&a->menu, names[i], detail, names[i], (int64_t)i);
    }
    free(names);
}

static void
fill_models(struct app *a)
{
    const rwkv_info *inf = rwkv_model_info(a->model);
    char label[256], detail[160];

    snprintf(label, sizeof label, "%s (in use)", a->model_label);
    snprintf(detail, sizeof detail, "v%s  %d layers  %d embd  %s", inf->version, inf->n_layer,
             inf->n_embd, inf->strategy);
    tui_menu_add(&a->menu, label, detail, NULL, 0);
    if (a->cfg.model[0] && strcmp(a->cfg.model, a->model_path) != 0)
        tui_menu_add(&a->menu, a->cfg.model, "from the config file", a->cfg.model, 1);
    /* other checkpoints next to the one in use */
    if (a->model_path[0]) {
        const char *slash = strrchr(a->model_path, '/');
        char dir[1024];
        size_t nn;
        char **names;

        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - a->model_path) : 1,
                 slash ? a->model_path : ".");
        names = dir_names(dir, &nn);       /* sorted by name */
        for (size_t k = 0; k < nn; k++) {
            char path[1300];
            snprintf(path, sizeof path, "%s/%.255s", dir, names[k]);
            if (strcmp(path, a->model_path) == 0)
                continue;
            tui_menu_add(&a->menu, names[k], dir, path, 2);
        }
        free_names(names, nn);
    }
    tui_models_from_dirs(a);    /* model_dir, $RWKV_TUI_MODELS, the database's */
}

void
tui_menu_open(struct app *a, int kind)
{
    static const char *const titles[] = {
        "", "Help: every key", "Sessions", "Branches of this conversation", "State files",
        "Presets", "Models", "Switch state file", "Messages (newest first)",
        "Framing of this session"
    };

    tui_menu_fini(&a->menu);
    tui_menu_init(&a->menu, kind, titles[kind]);
    switch (kind) {
    case TUI_MENU_HELP:     fill_help(a); break;
    case TUI_MENU_SESSIONS: fill_sessions(a); tui_menu_select_id(&a->menu, a->sid); break;
    case TUI_MENU_BRANCHES: fill_branches(a); break;
    case TUI_MENU_STATES:   fill_states(a); break;
    case TUI_MENU_PRESETS:  fill_presets(a); break;
    case TUI_MENU_MODELS:   fill_models(a); break;
    case TUI_MENU_LOG:      fill_log(a); break;
    case TUI_MENU_FRAMING:  tui_framing_fill(a); break;
    default: break;
    }
    if (a->focus != TUI_FOCUS_MENU)
        a->prev_focus = a->focus;
    a->focus = TUI_FOCUS_MENU;
    a->dirty = 1;
}

void
tui_menu_close(struct app *a)
{
    tui_menu_fini(&a->menu);
    tui_menu_init(&a->menu, TUI_MENU_NONE, "");
    a->focus = a->prev_focus == TUI_FOCUS_MENU ? TUI_FOCUS_INPUT : a->prev_focus;
    if (a->focus == TUI_FOCUS_PROMPT)
        a->focus = TUI_FOCUS_INPUT;
    a->dirty = 1;
}

void
tui_prompt_open(struct app *a, int kind, const char *label, const char *init)
{
    a->prompt_kind = kind;
    snprintf(a->prompt_label, sizeof a->prompt_label, "%.120s", label);
    tui_input_set(&a->prompt, init ? init : "");
    if (a->focus != TUI_FOCUS_PROMPT)
        a->prev_focus = a->focus;
    a->focus = TUI_FOCUS_PROMPT;
    a->dirty = 1;
}

void
tui_prompt_accept(struct app *a)
{
    rwkv_err err;
    int kind = a->prompt_kind;

    a->prompt_kind = TUI_PROMPT_NONE;
    a->focus = a->prev_focus;
    switch (kind) {
    case TUI_PROMPT_SAVE_STATE:
        tui_state_save(a, a->prompt.buf);
        break;
    case TUI_PROMPT_RENAME:
        if (a->prompt.buf[strspn(a->prompt.buf, " \t")] == '\0') {
            /* an empty title is refused: the prompt stays open, saying so
            ** (the footer is the prompt's line, so the label tells) */
            a->prompt_kind = kind;
            a->focus = TUI_FOCUS_PROMPT;
            snprintf(a->prompt_label, sizeof a->prompt_label,
                     "a title cannot be empty (Esc keeps the old one); new title: ");
        } else if (store_session_rename(a->st, a->prompt_target, a->prompt.buf, &err) != RWKV_OK) {
            tui_notice(a, 1, "%s", err.msg);
        } else {
            if (a->prompt_target == a->sid)
                snprintf(a->session_title, sizeof a->session_title, "%s", a->prompt.buf);
            tui_menu_open(a, TUI_MENU_SESSIONS);
            tui_menu_select_id(&a->menu, a->prompt_target);
        }
        break;
    case TUI_PROMPT_DELETE:
        if (store_session_delete(a->st, a->prompt_target, &err) != RWKV_OK) {
            tui_notice(a, 1, "%s", err.msg);
        } else {
            if (a->prompt_target == a->sid)
                tui_session_new(a);
            tui_menu_open(a, TUI_MENU_SESSIONS);
            tui_notice(a, 0, "session deleted");
        }
        break;
    case TUI_PROMPT_PRESET_SAVE:
        if (a->prompt.len == 0)
            break;
        if (store_preset_put(a->st, a->prompt.buf, &a->samp, NULL, &err) != RWKV_OK) {
            tui_notice(a, 1, "%s", err.msg);
        } else {
            tui_notice(a, 0, "preset '%s' saved", a->prompt.buf);
            tui_framing_preset_save(a, a->prompt.buf);
        }
        break;
    case TUI_PROMPT_STRATEGY:
        if (a->prompt.len > 0)
            tui_switch_model(a, NULL, a->prompt.buf);
        break;
    case TUI_PROMPT_GEN:
        if (a->prompt.len > 0)
            tui_free_gen(a, a->prompt.buf);
        break;
    case TUI_PROMPT_FRAMING:
        tui_framing_accept(a, a->prompt.buf);
        break;
    case TUI_PROMPT_PARAM:
        if (tui_param_set_text(&a->samp, a->param_sel, a->prompt.buf, &err) != RWKV_OK) {
            tui_notice(a, 1, "%s", err.msg);
        } else {
            a->samp_set |= PARAMS_BIT(a->param_sel);
            tui_apply_sampling(a);
        }
        break;
    default:
        break;
    }
    a->dirty = 1;
}

static void
act_sessions(struct app *a, int key, int is_fkey, const tui_menu_item *it)
{
    rwkv_err err;

    if (it == NULL)
        return;
    if (!is_fkey && key == CFG_KEY_CTRL('r')) {
        store_session cur;
        a->prompt_target = it->id;
        /* the current title, never the "(untitled)" placeholder */
        tui_prompt_open(a, TUI_PROMPT_RENAME, "new title: ",
                        store_session_get(a->st, it->id, &cur, &err) == RWKV_OK ? cur.title : "");
    } else if ((!is_fkey && key == CFG_KEY_CTRL('d')) || (is_fkey && key == KEY_DC)) {
        char label[160];
        a->prompt_target = it->id;
        snprintf(label, sizeof label, "delete '%.100s'? (y/n) ", it->label);
        tui_prompt_open(a, TUI_PROMPT_DELETE, label, "");
    } else if (!is_fkey && key == CFG_KEY_CTRL('f')) {
        store_session s;
        int64_t nid, at = 0;
        if (store_session_get(a->st, it->id, &s, &err) != RWKV_OK ||
            (s.head_turn != 0 && sess_fork_point(a->st, s.head_turn, &at, &err) != RWKV_OK) ||
            store_session_fork(a->st, it->id, at, NULL, &nid, &err) != RWKV_OK) {
            tui_notice(a, 1, "%s", err.msg);
            return;
        }
        tui_menu_close(a);
        tui_session_job(a, TUI_JOB_OPEN, nid, -1, NULL);
    } else if (!is_fkey && key == TUI_K_ENTER) {
        int64_t id = it->id;
        tui_menu_close(a);
        tui_session_job(a, TUI_JOB_OPEN, id, -1, NULL);
    }
}

static void
act_branches(struct app *a, int key, int is_fkey, const tui_menu_item *it)
{
    if (it == NULL)
        return;
    if (is_fkey && (key == KEY_LEFT || key == KEY_RIGHT)) {
        size_t sel = a->menu.sel;
        /* the menu stays; it is filled again when the switch is done */
        a->menu_sel_keep = sel;
        tui_session_job(a, TUI_JOB_SIBLING, it->id, key == KEY_LEFT ? -1 : +1, NULL);
        return;
    }
    if (!is_fkey && key == TUI_K_ENTER) {
        for (int i = 0; i < a->tr.nturns; i++) {
            tui_turn *t = &a->tr.turns[i];
            if (t->store_id != it->id)
                continue;
            if (t->role == TUI_TURN_USER) {
                a->fork_turn = t->store_id;
                a->fork_pending = 1;
                tui_input_set(&a->in, t->text.p);
                tui_menu_close(a);
                tui_notice(a, 0, "edit and send: the message starts a new branch there");
            } else {
                tui_menu_close(a);
            }
            return;
        }
    }
}

/* Switch to the state chosen in the menu (a path, or a library row). */
static void
switch_pending(struct app *a, int replay)
{
    int64_t id = a->pending_lib_id;

    a->pending_lib_id = 0;
    if (id > 0)
        tui_session_job(a, TUI_JOB_SWITCH, id, replay, NULL);
    else                      /* a path, or "" = none (the greeting) */
        tui_session_job(a, TUI_JOB_SWITCH, 0, replay, a->pending_state[0] ? a->pending_state
                                                                          : NULL);
}

/* The library row holding the same bytes as the file PATH (imported
** before), else 0: a second import is refused, so a file is listed once. */
static int64_t
library_copy_of(struct app *a, const char *path, char *name, size_t cap)
{
    store_statefile *v = NULL;
    size_t n = 0;
    rwkv_err err;
    int64_t found = 0;
    struct stat sb;
    FILE *fp = NULL;
    char *mine = NULL;

    if (a->st == NULL || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) ||
        store_statefile_list(a->st, &v, &n, &err) != RWKV_OK)
        return 0;
    for (size_t i = 0; i < n && found == 0; i++) {
        store_statefile f;
        void *data = NULL;
        if (v[i].path[0] != '\0' || v[i].size != (size_t)sb.st_size)
            continue;
        if (mine == NULL) {
            if (rwkv_fopen_regular(path, &fp, &err) != RWKV_OK)
                break;
            mine = tui_xmalloc((size_t)sb.st_size + 1);
            if (fread(mine, 1, (size_t)sb.st_size, fp) != (size_t)sb.st_size) {
                fclose(fp);
                break;
            }
            fclose(fp);
        }
        if (store_statefile_get(a->st, v[i].id, &f, &data, &err) == RWKV_OK && data != NULL &&
            memcmp(data, mine, (size_t)sb.st_size) == 0) {
            found = v[i].id;
            snprintf(name, cap, "%s", v[i].name);
        }
        free(data);
    }
    free(mine);
    free(v);
    return found;
}

/* C-s in the state menu: import the selected file into the library. */
static void
import_state(struct app *a, const tui_menu_item *it)
{
    char path[1024];
    int64_t id;

    if (it == NULL || it->data == NULL)
        return;
    if (it->id == TUI_STATE_NONE_ID)
        return;
    if (it->data[0] == '\0') {
        tui_notice(a, 0, "%s is already in the library", it->label);
        return;
    }
    snprintf(path, sizeof path, "%s", it->data);    /* IT dies with the refill */
    {
        char name[STORE_TITLE_MAX];
        int64_t have = library_copy_of(a, path, name, sizeof name);
        if (have != 0) {
            tui_menu_select_id(&a->menu, have);
            tui_notice(a, 0, "%s is already in the library (as '%s')", path, name);
            return;
        }
    }
    if (tui_session_import_state(a, path, &id) != 0)
        return;
    tui_menu_clear(&a->menu);
    fill_states(a);
    tui_menu_set_filter(&a->menu, "");
    tui_menu_select_id(&a->menu, id);
}

static void
act_states(struct app *a, const tui_menu_item *it)
{
    char label[160], name[256];
    long cost;

    if (it == NULL || it->data == NULL)
        return;
    if (a->busy) {
        tui_notice(a, 1, "wait for the model to finish (Esc cancels it)");
        return;
    }
    snprintf(a->pending_state, sizeof a->pending_state, "%s", it->data);
    a->pending_lib_id = it->id == TUI_STATE_NONE_ID ? 0
                        : it->data[0] == '\0' ? it->id : 0;   /* imported: by row */
    if (chat_n_turns(a->chat) == 0) {
        tui_menu_close(a);
        switch_pending(a, 0);
        return;
    }
    cost = (long)sess_replay_cost(a->sess);
    snprintf(name, sizeof name, "%s", it->label);   /* IT dies with the menu */
    tui_menu_fini(&a->menu);
    tui_menu_init(&a->menu, TUI_MENU_STATE_ASK, "Switch state file");
    tui_menu_add(&a->menu, "New session from this state", name, NULL, 1);
    snprintf(label, sizeof label, "Replay this conversation under it (cost: %ld tokens)", cost);
    tui_menu_add(&a->menu, label, NULL, NULL, 2);
    tui_menu_add(&a->menu, "Cancel", NULL, NULL, 0);
}

static void
act_presets(struct app *a, int key, int is_fkey, const tui_menu_item *it)
{
    rwkv_err err;

    if (!is_fkey && key == CFG_KEY_CTRL('s')) {
        tui_menu_close(a);
        tui_prompt_open(a, TUI_PROMPT_PRESET_SAVE, "save preset as: ", "");
        return;
    }
    if (it == NULL || is_fkey || key != TUI_K_ENTER)
        return;
    if (store_preset_get(a->st, it->data, &a->samp, NULL, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return;
    }
    for (int i = 0; params_table[i].name != NULL; i++)
        a->samp_set |= PARAMS_BIT(i);
    if (params_find("seed") >= 0)
        a->samp_set &= ~PARAMS_BIT(params_find("seed"));
    tui_apply_sampling(a);
    tui_notice(a, 0, "preset '%s' loaded", it->label);
    tui_framing_preset_load(a, it->data);
    tui_menu_close(a);
}

/* Set the filter; in the sessions menu also mark sessions whose turns
** contain it (store_search) so that they stay visible. */
static void
set_filter(struct app *a, const char *f)
{
    tui_menu *m = &a->menu;

    if (m->kind == TUI_MENU_SESSIONS && a->st) {
        store_hit *hits = NULL;
        size_t nh = 0;
        rwkv_err err;

        for (size_t i = 0; i < m->n; i++) {
            free(m->items[i].data);
            m->items[i].data = NULL;
        }
        if (strlen(f) >= 2 && store_search(a->st, f, 200, &hits, &nh, &err) == RWKV_OK) {
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
    }
    tui_menu_set_filter(m, f);
}

int
tui_menu_key(struct app *a, int key, int is_fkey)
{
    tui_menu *m = &a->menu;
    const tui_menu_item *it = tui_menu_selected(m);
    char f[TUI_MENU_FILTER];
    int enter = !is_fkey && key == TUI_K_ENTER;

    if (!is_fkey && (key == TUI_K_ESC || key == CFG_KEY_CTRL('c'))) {
        tui_menu_close(a);
        return 1;
    }
    if (is_fkey) {
        switch (key) {
        case KEY_UP:    tui_menu_move(m, -1); return 1;
        case KEY_DOWN:  tui_menu_move(m, +1); return 1;
        case KEY_PPAGE: tui_menu_move(m, -10); return 1;
        case KEY_NPAGE: tui_menu_move(m, +10); return 1;
        case KEY_HOME:  tui_menu_home(m); return 1;
        case KEY_END:   tui_menu_end(m); return 1;
        case KEY_MOUSE: {               /* the wheel moves the selection */
            MEVENT me;
            if (getmouse(&me) == OK) {
                if (me.bstate & BUTTON4_PRESSED)
                    tui_menu_move(m, -TUI_WHEEL_ROWS);
#ifdef BUTTON5_PRESSED
                else if (me.bstate & BUTTON5_PRESSED)
                    tui_menu_move(m, +TUI_WHEEL_ROWS);
#endif
            }
            return 1;
        }
        case KEY_BACKSPACE: break;
        default:
            if (key >= KEY_F(1) && key <= KEY_F(12)) {
                int act = cfg_action_for_key(&a->cfg, CFG_KEY_F(key - KEY_F(0)));
                if (act == CFG_ACT_QUIT) {
                    a->quit = 1;
                    return 1;
                }
                /* another menu's key switches menus; its own key closes */
                if (act == CFG_ACT_HELP && m->kind == TUI_MENU_HELP)
                    tui_menu_close(a);
                else if (act == CFG_ACT_HELP)
                    tui_menu_open(a, TUI_MENU_HELP);
                else if (act == CFG_ACT_SESSIONS)
                    tui_menu_open(a, TUI_MENU_SESSIONS);
                else if (act == CFG_ACT_STATES)
                    tui_menu_open(a, TUI_MENU_STATES);
                else if (act == CFG_ACT_PRESETS)
                    tui_menu_open(a, TUI_MENU_PRESETS);
                else if (act == CFG_ACT_MODELS)
                    tui_menu_open(a, TUI_MENU_MODELS);
                else if (act == CFG_ACT_BRANCHES)
                    tui_menu_open(a, TUI_MENU_BRANCHES);
                else if (act == CFG_ACT_FRAMING)
                    tui_menu_open(a, TUI_MENU_FRAMING);
                return 1;
            }
            break;
        }
    }
    switch (m->kind) {
    case TUI_MENU_SESSIONS: act_sessions(a, key, is_fkey, it); break;
    case TUI_MENU_BRANCHES: act_branches(a, key, is_fkey, it); break;
    case TUI_MENU_STATES:
        if (!is_fkey && key == CFG_KEY_CTRL('s'))
            import_state(a, it);
        else if (!is_fkey && key == CFG_KEY_CTRL('w'))
            tui_state_save_ask(a);
        else if (enter)
            act_states(a, it);
        break;
    case TUI_MENU_STATE_ASK:
        if (enter && it) {
            int64_t choice = it->id;
            tui_menu_close(a);
            if (choice == 1 || choice == 2)
                switch_pending(a, choice == 2);
            else
                a->pending_lib_id = 0;
        }
        break;
    case TUI_MENU_PRESETS: act_presets(a, key, is_fkey, it); break;
    case TUI_MENU_FRAMING:
        if (enter)
            tui_framing_pick(a, it);
        break;
    case TUI_MENU_MODELS:
        if (!is_fkey && key == CFG_KEY_CTRL('s')) {
            tui_menu_close(a);
            tui_prompt_open(a, TUI_PROMPT_STRATEGY, "strategy: ",
                            rwkv_model_info(a->model)->strategy);
        } else if (enter && it) {
            char path[1300] = "";
            if (it->data)
                snprintf(path, sizeof path, "%s", it->data);
            tui_menu_close(a);
            if (path[0])
                tui_switch_model(a, path, NULL);
        }
        break;
    case TUI_MENU_HELP:
        if (enter) {
            int act = (int)(it ? it->id : -1);
            tui_menu_close(a);
            (void)act;
        }
        break;
    default:
        break;
    }
    if (a->focus != TUI_FOCUS_MENU || enter)
        return 1;
    /* typing searches (sessions: titles and, through the store's full-text
     * index, what was said in them) */
    snprintf(f, sizeof f, "%s", m->filter);
    if ((is_fkey && key == KEY_BACKSPACE) || (!is_fkey && (key == 127 || key == 8))) {
        size_t n = strlen(f);
        if (n > 0) {
            n = tui_char_prev(f, n);
            f[n] = '\0';
            set_filter(a, f);
        }
        return 1;
    }
    if (!is_fkey && key >= 0x20 && key < 0x110000 && key != 0x7f) {
        unsigned char u[8];
        int n = utf8_encode((uint32_t)key, u);
        size_t fl = strlen(f);
        if (n > 0 && fl + (size_t)n + 1 < sizeof f) {
            memcpy(f + fl, u, (size_t)n);
            f[fl + (size_t)n] = '\0';
            set_filter(a, f);
        }
    }
    return 1;
}
