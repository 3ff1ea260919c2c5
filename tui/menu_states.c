/*
** menu_states.c -- F3: state files.  "(none)", the library (the database's
** state_files rows: imported bytes or referenced paths), then the files of
** the config's state_dir, the default save folder, $RWKV_TUI_STATES and the
** folder of the file in use, without the models among them (rwkv_ckpt_kind:
** the tensors' names, from the file's index).  Enter switches (asking, when there is a
** conversation, whether to start a new session or replay it: the "Switch
** state file" menu); C-s imports a file into the library; C-w saves the
** current state as a state file (state_save.c).
*/
#include "menus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/io/fileio.h"
#include "state_save.h"
#include "text.h"

/* The state files of folder GIVEN, its path as used in DIR (CAP bytes); one
** that cannot be read is named in MSG (tui_folder_names, F5's rule) unless
** MSG is NULL.  Returns the state files it has (listed here or before), -1
** when it could not be read. */
static long
list_dir(tui_menu *m, const struct app *a, const char *given, char *dir, size_t cap,
         tui_menu_msg *msg)
{
    size_t nn;
    long found = 0;
    char **names = tui_folder_names(given, 1, dir, cap, &nn, msg);

    if (names == NULL)
        return -1;
    for (size_t k = 0; k < nn; k++) {
        char path[2300];
        const char *name = names[k];
        int dup = 0;
        snprintf(path, sizeof path, "%.1024s/%.255s", dir, name);
        int in_use = strcmp(path, a->state_path) == 0;
        /* skip duplicates (the same folder named twice) */
        for (size_t i = 0; i < m->n && !dup; i++)
            dup = m->items[i].data && strcmp(m->items[i].data, path) == 0;
        /* and models (a state folder beside them, RWKV_TUI_STATES at the
        ** models): F5's; a file whose kind cannot be told stays, Enter
        ** says why */
        if (!in_use && rwkv_ckpt_kind(path, NULL) == RWKV_CKPT_MODEL)
            continue;
        found++;
        if (!dup)
            tui_menu_add(m, name, in_use ? TR("(in use)") : dir, path, 0);
    }
    tui_free_names(names, nn);
    return found;
}

/* The library: state files known to the database (imported ones carry
** their bytes; referenced ones a path).  Item id = the row, data = its
** path or "" when imported. */
static void
list_library(tui_menu *m, const struct app *a, tui_menu_msg *msg)
{
    const rwkv_info *inf = rwkv_model_info(a->model);
    store_statefile *v = NULL;
    size_t n = 0;
    rwkv_err err;

    if (a->st == NULL)
        return;
    if (store_statefile_list(a->st, &v, &n, &err) != RWKV_OK) {
        tui_menu_say(msg, 1, "%s", err.msg);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char detail[300], cut[256];
        const store_statefile *f = &v[i];
        int imported = f->path[0] == '\0';
        int in_use = imported ? a->state_lib_id == f->id
                              : a->state_lib_id == 0 && strcmp(f->path, a->state_path) == 0;
        int other = f->n_embd != 0 && (f->n_embd != inf->n_embd || f->n_layer != inf->n_layer);

        if (in_use)
            snprintf(detail, sizeof detail, TR("(in use) library%s"), imported ? TR(", imported") : "");
        else if (other)
            snprintf(detail, sizeof detail, TR("library: for another model (%d layers x %d)"),
                     f->n_layer, f->n_embd);
        else if (imported)
            snprintf(detail, sizeof detail, TR("library, imported, %zu KiB"), (f->size + 1023) / 1024);
        else
            snprintf(detail, sizeof detail, TR("library: %s"), tui_cut(cut, sizeof cut, f->path, 250));
        tui_menu_add(m, f->name, detail, imported ? "" : f->path, f->id);
    }
    free(v);
}

static void
fill_states(tui_menu *m, const struct app *a, tui_menu_msg *msg)
{
    char dir[1024], used[1024], cfg_dir[1024] = "", env_dir[1024] = "";
    const char *env = getenv("RWKV_TUI_STATES");
    long in_cfg = 0, in_env = 0;

    tui_menu_add(m, TR("(none)"),
                 a->state_path[0] ? TR("no state file: the greeting") : TR("(in use) no state file"),
                 "", TUI_STATE_NONE_ID);
    list_library(m, a, msg);
    /* the folders the user named say what is wrong with them; the others
    ** (C-w's, which may not be made yet, and the file's) are looked in quietly */
    if (a->cfg.state_dir[0])
        in_cfg = list_dir(m, a, a->cfg.state_dir, cfg_dir, sizeof cfg_dir, msg);
    if (tui_state_dir(dir, sizeof dir) == 0)   /* where C-w saves */
        list_dir(m, a, dir, used, sizeof used, NULL);
    if (env && *env)
        in_env = list_dir(m, a, env, env_dir, sizeof env_dir, msg);
    if (a->state_path[0] && a->state_lib_id == 0) {
        const char *slash = strrchr(a->state_path, '/');
        if (slash) {
            snprintf(dir, sizeof dir, "%.*s", (int)(slash - a->state_path), a->state_path);
            list_dir(m, a, dir, used, sizeof used, NULL);
        } else {
            list_dir(m, a, ".", used, sizeof used, NULL);
        }
    }
    if (m->n > 1 || msg->set)
        return;
    /* nothing at all: where it was looked for (F5's rule), or where to set
    ** a folder */
    {
        const char *dirs[2] = { cfg_dir, env_dir };
        long found[2] = { in_cfg, in_env };
        if (!tui_folder_none(msg, 1, dirs, found, 2))
            tui_menu_say(msg, 0, "no state files: set state_dir in the config file or "
                                 "RWKV_TUI_STATES");
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

/* C-s: import the selected file into the library. */
static void
import_state(struct app *a, const tui_menu_item *it, int key)
{
    char path[1024], name[STORE_TITLE_MAX];
    int64_t id, have;

    (void)key;
    if (it == NULL || it->data == NULL)
        return;
    if (it->id == TUI_STATE_NONE_ID) {
        tui_notice(a, 0, "%s", TR("(none) is no file: C-s imports the selected state file "
                                  "into the library"));
        return;
    }
    if (it->data[0] == '\0') {
        tui_notice(a, 0, "%s is already in the library", it->label);
        return;
    }
    snprintf(path, sizeof path, "%s", it->data);    /* IT dies with the refill */
    have = library_copy_of(a, path, name, sizeof name);
    if (have != 0) {
        tui_menu_select_id(&a->menu, have);
        tui_notice(a, 0, "%s is already in the library (as '%s')", path, name);
        return;
    }
    if (tui_session_import_state(a, path, &id) != 0)
        return;
    tui_menu_set_filter(&a->menu, "");
    tui_menu_refill(a, id);
}

static void
save_ask(struct app *a, const tui_menu_item *it, int key)
{
    (void)it;
    (void)key;
    tui_state_save_ask(a);
}

/* 1 when the state chosen (IT: a file, or a library row) cannot be this
** model's start, said in an error notice: a file whose shapes are another
** model's (or no state file at all), from its index alone
** (rwkv_state_file_fits, the checks the load makes, with its words), an
** imported row recorded for another shape.  Checked before the question,
** so "new session or replay?" is never asked about a state that will be
** refused; what only the load can tell (a damaged tensor) is still said
** by the switch. */
static int
refused(struct app *a, const tui_menu_item *it)
{
    const rwkv_info *inf = rwkv_model_info(a->model);
    store_statefile f;
    rwkv_err err;

    if (it->id == TUI_STATE_NONE_ID)
        return 0;
    if (it->data[0] != '\0') {
        if (rwkv_state_file_fits(it->data, inf->version, inf->n_layer, inf->n_head,
                                 inf->head_size, &err) == RWKV_OK)
            return 0;
        tui_notice(a, 1, "%s", err.msg);
        return 1;
    }
    if (a->st == NULL || store_statefile_get(a->st, it->id, &f, NULL, &err) != RWKV_OK)
        return 0;                     /* (the switch says what is wrong) */
    if (f.n_embd == 0 || (f.n_layer == inf->n_layer && f.n_embd == inf->n_embd &&
                          f.n_head == inf->n_head && f.head_size == inf->head_size))
        return 0;
    tui_notice(a, 1, "%s: a state for another model (%d layers x %d), the model has %d x %d",
               f.name, f.n_layer, f.n_embd, inf->n_layer, inf->n_embd);
    return 1;
}

/* 1 when IT is the state in use (the "(in use)" of fill_states). */
static int
is_in_use(const struct app *a, const tui_menu_item *it)
{
    if (it->id == TUI_STATE_NONE_ID)
        return a->state_path[0] == '\0';
    if (it->data[0] == '\0')                     /* imported: by row */
        return a->state_lib_id == it->id;
    return a->state_lib_id == 0 && strcmp(it->data, a->state_path) == 0;
}

/* Enter: switch at once when there is no conversation, else ask how; a
** state that does not fit the model is refused first (the menu stays), and
** the state in use is said to be so (nothing to switch to, as F5 says of
** the model in use). */
static void
choose(struct app *a, const tui_menu_item *it, int key)
{
    char label[256], name[256];
    long cost;

    (void)key;
    if (it == NULL || it->data == NULL)
        return;
    if (is_in_use(a, it)) {
        if (it->id == TUI_STATE_NONE_ID)
            tui_notice(a, 0, "no state file is in use already: nothing to switch to");
        else
            tui_notice(a, 0, "%s is the state file in use: nothing to switch to", it->label);
        return;
    }
    if (a->busy) {
        tui_notice(a, 1, "wait for the model to finish (Esc cancels it)");
        return;
    }
    if (refused(a, it))
        return;
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
    tui_menu_init(&a->menu, TUI_MENU_STATE_ASK, tui_menu_state_ask_class.title);
    tui_menu_add(&a->menu, TR("New session from this state"), name, NULL, 1);
    snprintf(label, sizeof label, TR("Replay this conversation under it (cost: %ld tokens)"), cost);
    tui_menu_add(&a->menu, label, NULL, NULL, 2);
    tui_menu_add(&a->menu, TR("Cancel"), NULL, NULL, 0);
}

static const tui_menu_keydef state_keys[] = {
    { TUI_K_ENTER, 0, "Enter", TR_NOOP("switch"), TR_NOOP("start from the selected state file (asks: new session or replay)"), choose, 1 },
    { CFG_KEY_CTRL('s'), 0, "C-s", TR_NOOP("import into the library"),
      TR_NOOP("import the file into the library (the database)"), import_state,
      TUI_MK_ITEM | TUI_MK_DB },
    { CFG_KEY_CTRL('w'), 0, "C-w", TR_NOOP("save the state"),
      TR_NOOP("save the current state as a state file (a persona made from the conversation; "
      "default folder $XDG_DATA_HOME/rwkv-tui/states)"), save_ask, 0 },
    { 0, 0, NULL, NULL, NULL, NULL, 0 }
};

const tui_menu_class tui_menu_states_class = {
    TUI_MENU_STATES, CFG_ACT_STATES, TR_NOOP("State files"), TR_NOOP("State files"), fill_states, NULL, NULL,
    state_keys, 0
};

/* ---- the question after Enter: new session, replay, or cancel ---------------- */

static void
answer(struct app *a, const tui_menu_item *it, int key)
{
    int64_t choice;

    (void)key;
    if (it == NULL)
        return;
    choice = it->id;
    tui_menu_close(a);
    if (choice == 1 || choice == 2)
        switch_pending(a, choice == 2);
    else
        a->pending_lib_id = 0;
}

static const tui_menu_keydef ask_keys[] = {
    { TUI_K_ENTER, 0, "Enter", TR_NOOP("choose"), NULL, answer, 0 },
    { 0, 0, NULL, NULL, NULL, NULL, 0 }
};

const tui_menu_class tui_menu_state_ask_class = {
    TUI_MENU_STATE_ASK, -1, TR_NOOP("Switch state file"), TR_NOOP("Switch state file"), NULL, NULL, NULL, ask_keys, 0
};
