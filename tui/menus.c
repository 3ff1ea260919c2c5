/*
** menus.c -- the menus' common part: the table of menu classes (one per
** menu, each in its own menu_*.c file, see menus.h), opening and closing,
** the keys every list shares, the hint line, and the one-line prompt
** (rename, delete, a preset name, a value) with its table of kinds.
**
** In every list: Up/Down/PgUp/PgDn/Home/End and the wheel move, a click
** selects (a click on the selected row acts like Enter), typing filters
** (search; the search key, C-f, says so), Backspace edits the filter, C-u
** clears it, Esc closes.  The
** other keys are the open menu's table (shown in its bottom line and in F1).
*/
#define NCURSES_WIDECHAR 1
#include "menus.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ncursesw/curses.h>

#include "../core/text/utf8.h"
#include "sidebar.h"
#include "state_save.h"
#include "text.h"

/* Every menu, in the order F1 lists their keys. */
const tui_menu_class *const tui_menu_classes[] = {
    &tui_menu_help_class, &tui_menu_sessions_class, &tui_menu_branches_class,
    &tui_menu_states_class, &tui_menu_state_ask_class, &tui_menu_presets_class,
    &tui_menu_models_class, &tui_menu_framing_class, &tui_menu_themes_class,
    &tui_menu_log_class, NULL
};

static const tui_menu_class *
class_of(int kind)
{
    for (int i = 0; tui_menu_classes[i] != NULL; i++)
        if (tui_menu_classes[i]->kind == kind)
            return tui_menu_classes[i];
    return NULL;
}

void
tui_menu_say(tui_menu_msg *msg, int is_err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg->text, sizeof msg->text, tui_tr(fmt), ap);
    va_end(ap);
    msg->set = 1;
    msg->is_err = is_err;
}

/* Fill the open menu from its class; a message of the fill goes to the footer. */
static void
fill(struct app *a, const tui_menu_class *c)
{
    tui_menu_msg msg = { 0, 0, "" };

    if (c->fill)
        c->fill(&a->menu, a, &msg);
    snprintf(a->menu.note, sizeof a->menu.note, "%s", msg.set && a->menu.n == 0 ? msg.text : "");
    if (msg.set)
        tui_notice(a, msg.is_err, "%s", msg.text);
}

void
tui_menu_open(struct app *a, int kind)
{
    const tui_menu_class *c = class_of(kind);

    if (c && c->reads_chat && tui_session_swapping(a))
        return;
    tui_menu_fini(&a->menu);
    tui_menu_init(&a->menu, c ? kind : TUI_MENU_NONE, c ? TR(c->title) : "");
    if (c == NULL)
        return;
    fill(a, c);
    if (c->select)
        c->select(&a->menu, a);
    if (a->focus != TUI_FOCUS_MENU)
        a->prev_focus = a->focus;
    a->focus = TUI_FOCUS_MENU;
    a->dirty = 1;
}

int
tui_menu_open_action(struct app *a, int act)
{
    for (int i = 0; tui_menu_classes[i] != NULL; i++) {
        if (tui_menu_classes[i]->action == act && act >= 0) {
            tui_menu_open(a, tui_menu_classes[i]->kind);
            return 1;
        }
    }
    return 0;
}

void
tui_menu_close(struct app *a)
{
    a->menu_sel_keep = 0;
    tui_menu_fini(&a->menu);
    tui_menu_init(&a->menu, TUI_MENU_NONE, "");
    a->focus = a->prev_focus == TUI_FOCUS_MENU ? TUI_FOCUS_INPUT : a->prev_focus;
    if (a->focus == TUI_FOCUS_PROMPT)
        a->focus = TUI_FOCUS_INPUT;
    a->dirty = 1;
}

static void
set_filter(struct app *a, const char *text)
{
    const tui_menu_class *c = class_of(a->menu.kind);
    tui_menu_msg msg = { 0, 0, "" };

    if (c && c->filter)
        c->filter(&a->menu, a, text, &msg);
    else
        tui_menu_set_filter(&a->menu, text);
    /* each key typed searches again: the same error once in the log */
    if (msg.set)
        tui_notice_once(a, msg.is_err, msg.text);
}

void
tui_menu_refill(struct app *a, int64_t id)
{
    const tui_menu_class *c = class_of(a->menu.kind);
    char f[TUI_MENU_FILTER];

    if (c == NULL)
        return;
    snprintf(f, sizeof f, "%s", a->menu.filter);
    tui_menu_clear(&a->menu);
    fill(a, c);
    set_filter(a, f);
    if (!tui_menu_select_id(&a->menu, id) && c->select)
        c->select(&a->menu, a);
    a->dirty = 1;
}

/* Display columns of S. */
static int
str_w(const char *s)
{
    return tui_str_width(s, strlen(s));
}

/* Columns of key K's hint in the bottom line: "NAME HINT  ". */
static int
hint_width(const tui_menu_keydef *k)
{
    return (int)strlen(k->name) + str_w(TR(k->hint)) + 3;
}

/* 1 when key K does something in the open menu now (HAS_ITEM: an item is
** selected), so its hint is worth showing. */
static int
key_live(const struct app *a, const tui_menu_keydef *k, int has_item)
{
    if ((k->item & TUI_MK_DB) && a->st == NULL)
        return 0;                     /* --no-db: it only says there is none */
    if (k->item & TUI_MK_ITEM)
        return has_item;
    if (k->item & TUI_MK_LIST)
        return a->menu.n > 0;
    return 1;
}

/* The open menu's bottom line in WIDTH columns: its keys' hints, then
** "Esc close"; the hints that do not fit give way to "F1 more" (F1 lists
** every menu's keys), and nothing is cut inside a word: what does not fit
** whole is left out. */
const char *
tui_menu_hint(const struct app *a, int width)
{
    static char buf[480];
    const char *tail = TR("Esc close"), *more = TR("F1 more  "), *search = TR("type to search  ");
    const tui_menu_class *c = class_of(a->menu.kind);
    int has_item = tui_menu_selected(&a->menu) != NULL;
    int full = 0, room = width;
    size_t n = 0;

    /* whole hints only: "Esc close" first, then (when not all fit) "F1
    ** more", then the keys in order, each that fits */
    for (const tui_menu_keydef *k = c ? c->keys : NULL; k && k->name; k++)
        if (k->hint && key_live(a, k, has_item))
            full += hint_width(k);
    if (str_w(tail) <= room)
        room -= str_w(tail);
    else
        tail = "";
    if (full > room && str_w(more) <= room)
        room -= str_w(more);
    else
        more = "";
    buf[0] = '\0';
    for (const tui_menu_keydef *k = c ? c->keys : NULL; k && k->name; k++) {
        if (!k->hint || !key_live(a, k, has_item) || hint_width(k) > room)
            continue;
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s %s  ", k->name, TR(k->hint));
        room -= hint_width(k);
    }
    /* (a list with no entries, --no-db's: nothing to search) */
    if (full == 0 && a->menu.n > 0 && str_w(search) <= room)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s", search);
    snprintf(buf + n, sizeof buf - n, "%s%s", more, tail);
    return buf;
}

static int class_key(struct app *a, int key, int is_fkey);

/* The mouse in a menu: the wheel moves the selection; a click selects a
** row, a click on the selected row acts as Enter, a click outside the box
** closes it. */
static void
menu_mouse(struct app *a)
{
    tui_menu *m = &a->menu;
    MEVENT me;
    long row;

    if (getmouse(&me) != OK)
        return;
    if (me.bstate & BUTTON4_PRESSED)
        tui_menu_move(m, -TUI_WHEEL_ROWS);
#ifdef BUTTON5_PRESSED
    else if (me.bstate & BUTTON5_PRESSED)
        tui_menu_move(m, +TUI_WHEEL_ROWS);
#endif
    else if ((me.bstate & BUTTON1_PRESSED) && (row = tui_menu_row_at(m, me.y, me.x)) >= 0) {
        if ((size_t)row == m->sel)
            class_key(a, TUI_K_ENTER, 0);
        else
            m->sel = (size_t)row;
    } else if ((me.bstate & BUTTON1_PRESSED) &&
               (me.y < m->list_y - 1 || me.y > m->list_y + m->list_h + 1 ||
                me.x < m->list_x - 1 || me.x > m->list_x + m->list_w)) {
        tui_menu_close(a);        /* a click outside the box, as Esc */
    }
}

/* Keys every list shares; 1 if used. */
static int
nav_key(struct app *a, int key, int is_fkey)
{
    tui_menu *m = &a->menu;

    if (!is_fkey)
        return 0;
    switch (key) {
    case KEY_UP:    tui_menu_move(m, -1); return 1;
    case KEY_DOWN:  tui_menu_move(m, +1); return 1;
    case KEY_PPAGE: tui_menu_move(m, -10); return 1;
    case KEY_NPAGE: tui_menu_move(m, +10); return 1;
    case KEY_HOME:  tui_menu_home(m); return 1;
    case KEY_END:   tui_menu_end(m); return 1;
    case KEY_MOUSE: menu_mouse(a); return 1;
    default:
        return 0;
    }
}

/* F1..F12 in a menu: quit, or another menu's key switches menus (its own
** key closes it).  1 if used. */
static int
menu_fkey(struct app *a, int key)
{
    int act;

    if (key < KEY_F(1) || key > KEY_F(12))
        return 0;
    act = cfg_action_for_key(&a->cfg, CFG_KEY_F(key - KEY_F(0)));
    if (act == CFG_ACT_QUIT) {
        a->quit = 1;
    } else if (act >= 0) {
        const tui_menu_class *c = class_of(a->menu.kind);
        if (c && c->action == act && act == CFG_ACT_HELP)
            tui_menu_close(a);
        else
            tui_menu_open_action(a, act);
    }
    return 1;
}

/* The open menu's own key; 1 if used. */
static int
class_key(struct app *a, int key, int is_fkey)
{
    const tui_menu_class *c = class_of(a->menu.kind);
    int code = is_fkey ? TUI_MK_FKEY(key) : key;

    for (const tui_menu_keydef *k = c ? c->keys : NULL; k && k->name; k++) {
        if (k->act && (k->key == code || (k->key2 != 0 && k->key2 == code))) {
            k->act(a, tui_menu_selected(&a->menu), code);
            return 1;
        }
    }
    return 0;
}

/* Typing searches; Backspace edits the search, C-u clears it (as in the
** message box). */
static void
filter_key(struct app *a, int key, int is_fkey)
{
    char f[TUI_MENU_FILTER];

    if (!is_fkey && key == CFG_KEY_CTRL('u')) {
        set_filter(a, "");
        return;
    }
    snprintf(f, sizeof f, "%s", a->menu.filter);
    if ((is_fkey && key == KEY_BACKSPACE) || (!is_fkey && (key == 127 || key == 8))) {
        size_t n = strlen(f);
        if (n > 0) {
            n = tui_char_prev(f, n);
            f[n] = '\0';
            set_filter(a, f);
        }
        return;
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
}

/* The search action's key (C-f) in a list: it searches there as everywhere,
** and typing already does, so it says so (and does nothing else).  1 if used. */
static int
search_key(struct app *a, int key, int is_fkey)
{
    char name[32];

    if (is_fkey || key == CFG_KEY_NONE || key != a->cfg.keys[CFG_ACT_SEARCH] ||
        (key >= 0x20 && key < 0x110000))
        return 0;               /* a search key that is a character: typed */
    cfg_key_name(key, name, sizeof name);
    tui_notice(a, 0, "%s: type to search this list (C-u clears the search)", name);
    return 1;
}

int
tui_menu_key(struct app *a, int key, int is_fkey)
{
    if (!is_fkey && (key == TUI_K_ESC || key == CFG_KEY_CTRL('c'))) {
        tui_menu_close(a);
        return 1;
    }
    if (nav_key(a, key, is_fkey) || (is_fkey && menu_fkey(a, key)) ||
        class_key(a, key, is_fkey) || search_key(a, key, is_fkey))
        return 1;
    if (a->focus == TUI_FOCUS_MENU && !(!is_fkey && key == TUI_K_ENTER))
        filter_key(a, key, is_fkey);
    return 1;
}

/* ---- file names (the state-files and models menus) ------------------------------ */

#define TUI_MENU_MAX_FILES 500   /* checkpoint-like files listed from a directory */

int
tui_has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && strcmp(s + n - k, suf) == 0;
}

int
tui_cmp_names(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

int
tui_file_usable(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, R_OK) == 0;
}

char **
tui_dir_names_ext(const char *dir, const char *const *ext, int strip, size_t *n)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **v;

    *n = 0;
    if (d == NULL)
        return NULL;
    v = tui_xmalloc(TUI_MENU_MAX_FILES * sizeof *v);
    while ((de = readdir(d)) != NULL && *n < TUI_MENU_MAX_FILES) {
        char path[4400];
        size_t len = strlen(de->d_name), el = 0;
        for (const char *const *e = ext; *e != NULL && el == 0; e++)
            if (len > strlen(*e) && tui_has_suffix(de->d_name, *e))
                el = strlen(*e);
        if (de->d_name[0] == '.' || el == 0)
            continue;
        snprintf(path, sizeof path, "%.4096s/%.255s", dir, de->d_name);
        if (!tui_file_usable(path))    /* a folder, a FIFO, a dangling link, unreadable */
            continue;
        v[*n] = tui_xstrdup(de->d_name);
        if (strip)
            v[*n][len - el] = '\0';
        (*n)++;
    }
    closedir(d);
    qsort(v, *n, sizeof *v, tui_cmp_names);
    return v;
}

char **
tui_dir_names(const char *dir, size_t *n)
{
    static const char *const ckpt[] = {".pth", ".safetensors", NULL};

    return tui_dir_names_ext(dir, ckpt, 0, n);
}

char **
tui_folder_names(const char *given, int states, char *dir, size_t cap, size_t *n,
                 tui_menu_msg *msg)
{
    char **v;

    *n = 0;
    if (tui_expand_path(given, dir, cap) != 0)
        return NULL;
    if ((v = tui_dir_names(dir, n)) == NULL && msg != NULL) {
        const char *why = strerror(errno);
        if (states)
            tui_menu_say(msg, 1, "state folder %s: %s", dir, why);
        else
            tui_menu_say(msg, 1, "model folder %s: %s", dir, why);
    }
    return v;
}

int
tui_folder_none(tui_menu_msg *msg, int states, const char *const *dirs, const long *found, int n)
{
    char some[1200] = "";
    const char *last = NULL;

    if (msg->set)
        return 0;
    for (int i = 0; i < n; i++)
        if (found[i] > 0)
            return 0;
    for (int i = 0; i < n; i++) {
        int seen = found[i] != 0 || dirs[i][0] == '\0';
        for (int j = 0; j < i && !seen; j++)
            seen = found[j] == 0 && strcmp(dirs[j], dirs[i]) == 0;
        if (seen)
            continue;
        if (last != NULL)      /* "A, B" before the last one's "or C" */
            snprintf(some + strlen(some), sizeof some - strlen(some), "%s%s",
                     some[0] ? ", " : "", last);
        last = dirs[i];
    }
    if (last == NULL)
        return 0;
    if (states && some[0])
        tui_menu_say(msg, 0, "no state files (.pth, .safetensors) in %s or %s", some, last);
    else if (states)
        tui_menu_say(msg, 0, "no state files (.pth, .safetensors) in %s", last);
    else if (some[0])
        tui_menu_say(msg, 0, "no models (.pth, .safetensors) in %s or %s", some, last);
    else
        tui_menu_say(msg, 0, "no models (.pth, .safetensors) in %s", last);
    return 1;
}

void
tui_free_names(char **v, size_t n)
{
    for (size_t i = 0; v != NULL && i < n; i++)
        free(v[i]);
    free(v);
}

int
tui_expand_path(const char *in, char *out, size_t cap)
{
    const char *home = getenv("HOME");

    while (*in == ' ' || *in == '\t')
        in++;
    if (*in == '\0')
        return -1;
    if (in[0] == '~' && in[1] == '/' && home != NULL)
        snprintf(out, cap, "%s%s", home, in + 1);
    else
        snprintf(out, cap, "%s", in);
    return 0;
}

/* The name (a path, a preset) the user was told exists: Enter on it again
** replaces it (one prompt at a time, so one name is enough).  It stays
** confirmed while that prompt is tried again (a replace whose write failed
** opens it again holding the name: Enter retries, it does not ask anew);
** each prompt that writes forgets it when it opens, and another name typed
** is asked about. */
static char replace_ok[1200];

void
tui_replace_forget(void)
{
    replace_ok[0] = '\0';
}

int
tui_replace_ask_name(struct app *a, int kind, const char *name, const char *text,
                     const char *what)
{
    char label[192];

    if (strcmp(name, replace_ok) == 0)
        return 0;
    snprintf(replace_ok, sizeof replace_ok, "%s", name);
    snprintf(label, sizeof label, TR("%s exists: Enter replaces it, Esc keeps it: "), TR(what));
    tui_prompt_open(a, kind, label, text);
    a->prompt.sel = 0;            /* the name typed, asked about: kept as typed */
    return 1;
}

int
tui_replace_ask(struct app *a, int kind, const char *path, const char *text)
{
    struct stat st;
    rwkv_err err;

    /* the rule of every output (store_output_check): never the database,
    ** any SQLite file, or the model, vocabulary or state file in use --
    ** with no database open too (--no-db) -- nor the client's config and
    ** theme files.  The menus' connection first: its files are told by
    ** inode, never opened (an open would drop this process's locks on them) */
    const store_input in[] = {
        { a->cfg.path, "the config file in use" },
        { a->th.path, "the theme file in use" },
    };

    if (store_output_check(a->st, path, in, sizeof in / sizeof in[0], &err) != RWKV_OK ||
        (a->sess != NULL && sess_output_check(a->sess, path, &err) != RWKV_OK)) {
        tui_replace_forget();
        tui_notice(a, 1, "%s", err.msg);
        return 1;
    }
    /* a link is written through (rwkv_output_target): asked when the file
    ** it leads to is there */
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        tui_replace_forget();
        return 0;               /* new, or refused by the create (a FIFO...) */
    }
    return tui_replace_ask_name(a, kind, path, text, TR_NOOP("file"));
}

/* ---- the one-line prompt ------------------------------------------------------ */

/* (a value refused is said; the prompt stays open holding it) */
static int
accept_param(struct app *a, const char *text)
{
    rwkv_err err;

    if (tui_param_set_text(&a->samp, a->param_sel, text, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return TUI_PROMPT_REFUSED;
    }
    tui_sampling_edited(a, PARAMS_BIT(a->param_sel));
    return TUI_PROMPT_DONE;
}

static int
accept_gen(struct app *a, const char *text)
{
    if (text[0])
        tui_free_gen(a, text);
    return TUI_PROMPT_DONE;
}

/* A state not saved (a job running, a folder or file that cannot be
** written, the database's name): the path typed is kept for Enter again. */
static int
accept_save_state(struct app *a, const char *text)
{
    return tui_state_save(a, text) == 0 ? TUI_PROMPT_DONE : TUI_PROMPT_AGAIN;
}

/* M-R's count: a whole number 1..SESS_MAX_ALTS written as every integer is
** (params_int_check: digits alone -- no "+2", "2.", "1e1"; blanks around
** it allowed, as in the sidebar's prompt, params_set), else one line saying
** so and the prompt kept open (closed, the number typed next would be sent
** as a message). */
static int
accept_alts(struct app *a, const char *text)
{
    size_t b = strspn(text, " \t"), len = strlen(text);
    unsigned long long n;

    while (len > b && (text[len - 1] == ' ' || text[len - 1] == '\t'))
        len--;
    if (params_int_check(text + b, len - b, 1, SESS_MAX_ALTS, &n, NULL) != PARAMS_INT_OK) {
        tui_notice(a, 1, "alternatives: '%s' is not a number from 1 to %d", text, SESS_MAX_ALTS);
        return TUI_PROMPT_REFUSED;
    }
    tui_regen(a, (int)n);
    return TUI_PROMPT_DONE;
}

static const tui_prompt_class prompt_param = { TUI_PROMPT_PARAM, 0, accept_param,
                                               TUI_PHIST_NONE, 0 };
static const tui_prompt_class prompt_alts = { TUI_PROMPT_ALTS, 0, accept_alts, TUI_PHIST_NONE, 0 };
static const tui_prompt_class prompt_gen = { TUI_PROMPT_GEN, 0, accept_gen, TUI_PHIST_GEN, 0 };
static const tui_prompt_class prompt_save_state = { TUI_PROMPT_SAVE_STATE, 0,
                                                     accept_save_state, TUI_PHIST_FILES, 1 };

static const tui_prompt_class *const prompt_classes[] = {
    &tui_prompt_rename, &tui_prompt_delete, &tui_prompt_preset_save, &tui_prompt_strategy,
    &tui_prompt_prune, &tui_prompt_export, &tui_prompt_import, &tui_prompt_framing,
    &tui_prompt_budget, &tui_prompt_other_model, &prompt_param, &prompt_gen, &prompt_save_state, &prompt_alts,
    &tui_prompt_unsaved, &tui_prompt_unsaved_export, NULL
};

static const tui_prompt_class *
prompt_of(int kind)
{
    for (int i = 0; prompt_classes[i] != NULL; i++)
        if (prompt_classes[i]->kind == kind)
            return prompt_classes[i];
    return NULL;
}

int
tui_prompt_yesno(int kind)
{
    const tui_prompt_class *p = prompt_of(kind);
    return p != NULL && p->yesno;
}

void
tui_prompt_open(struct app *a, int kind, const char *label, const char *init)
{
    const tui_prompt_class *p = prompt_of(kind);
    static const tui_input none;

    a->prompt_kind = kind;
    a->prompt_retry = 0;
    a->prompt_menu = TUI_MENU_NONE;   /* a menu under it is the one it came from */
    snprintf(a->prompt_label, sizeof a->prompt_label, "%s", tui_tr(label));
    tui_input_set(&a->prompt, init ? init : "");
    tui_input_select_all(&a->prompt);   /* a value offered: typing replaces it */
    tui_input_history_from(&a->prompt, p != NULL && p->hist != TUI_PHIST_NONE ? &a->phist[p->hist] : &none);
    if (a->focus != TUI_FOCUS_PROMPT)
        a->prev_focus = a->focus;
    a->focus = TUI_FOCUS_PROMPT;
    a->dirty = 1;
}

void
tui_prompt_cancel(struct app *a)
{
    int menu = a->prompt_menu;

    a->prompt_kind = TUI_PROMPT_NONE;
    a->prompt_retry = 0;          /* given up: the log has the error */
    a->prompt_menu = TUI_MENU_NONE;
    a->focus = a->prev_focus;     /* a menu still open under it: back there */
    if (a->focus == TUI_FOCUS_MENU && a->menu.kind == TUI_MENU_NONE)
        a->focus = TUI_FOCUS_INPUT;
    if (menu != TUI_MENU_NONE && a->menu.kind == TUI_MENU_NONE)
        tui_menu_open(a, menu);   /* closed by the Enter before: again */
    a->dirty = 1;
}

/* The prompt KIND (its LABEL as shown) open again holding TEXT after its
** accept failed or refused the text (WHY: TUI_RETRY_*), the error it said
** kept for the dialog above it. */
static void
prompt_again(struct app *a, int kind, const char *label, const char *text, int why)
{
    tui_prompt_open(a, kind, "", text);
    a->prompt.sel = 0;            /* the text typed, to correct: kept as typed */
    snprintf(a->prompt_label, sizeof a->prompt_label, "%s", label);
    a->prompt_retry = why;
    snprintf(a->prompt_error, sizeof a->prompt_error, "%s", a->notice_err ? a->notice : "");
    a->prompt_error_cut = a->notice_err && a->notice_cut;
}

void
tui_prompt_accept(struct app *a)
{
    const tui_prompt_class *p = prompt_of(a->prompt_kind);
    char *text = tui_xstrdup(a->prompt.buf);   /* the accept may open another prompt */
    char *label = tui_xstrdup(a->prompt_label);
    int kind = a->prompt_kind, rc;
    /* the menu it came from (under it), left before the action runs */
    int menu = a->prompt_menu != TUI_MENU_NONE ? a->prompt_menu
               : a->prev_focus == TUI_FOCUS_MENU ? a->menu.kind : TUI_MENU_NONE;

    a->prompt_kind = TUI_PROMPT_NONE;
    a->prompt_retry = 0;
    a->prompt_menu = TUI_MENU_NONE;
    a->focus = a->prev_focus;
    if (p != NULL && p->leaves_menu && a->menu.kind != TUI_MENU_NONE)
        tui_menu_close(a);
    if (p != NULL && p->hist != TUI_PHIST_NONE) {     /* kept for Up, and saved at quit */
        tui_input_set(&a->phist[p->hist], text);
        free(tui_input_take(&a->phist[p->hist]));
    }
    rc = p != NULL ? p->accept(a, text) : TUI_PROMPT_DONE;
    if (rc == TUI_PROMPT_AGAIN && a->prompt_kind == TUI_PROMPT_NONE &&
        text[strspn(text, " ")] != '\0')
        prompt_again(a, kind, label, text, TUI_RETRY_FAILED);
    else if (rc == TUI_PROMPT_REFUSED && a->prompt_kind == TUI_PROMPT_NONE)
        prompt_again(a, kind, label, text, TUI_RETRY_REFUSED);
    /* open again (asking first, or after a failure): Esc still goes back
    ** to the menu it came from */
    if (a->prompt_kind != TUI_PROMPT_NONE && a->menu.kind == TUI_MENU_NONE)
        a->prompt_menu = menu;
    free(label);
    free(text);
    a->dirty = 1;
}
