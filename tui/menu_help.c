/*
** menu_help.c -- F1: every key.  The configurable actions (their keys from
** the config), the editing keys that are not actions, then every menu's own
** keys, read from the menu classes (menus.h), so a key added to a menu's
** table is listed here without another edit.
*/
#include "menus.h"

#include <stdio.h>
#include <string.h>

#include "sidebar.h"
#include "text.h"

/* The keys that are neither an action nor one the client keeps (those
** come from config.h's CFG_FIXED_KEYS: fixed_row). */
static const char *const fixed_keys[][2] = {
    { TR_NOOP("Search: Enter/Down/C-f"), TR_NOOP("next match; Up, S-Tab: previous; Esc closes") },
    { TR_NOOP("Search: C-p / C-n"), TR_NOOP("earlier / later searches (kept across runs)") },
    { TR_NOOP("Shift-drag"), TR_NOOP("select text with the mouse while mouse reporting is on (most "
                    "terminals; or M-m turns reporting off)") },
    { TR_NOOP("Up/Down"), TR_NOOP("move by row, as the box wraps; on the first/last row the history (kept across runs)") },
    { TR_NOOP("Prompt: Up/Down"), TR_NOOP("that prompt's history, kept across runs: M-g's prompts, the file "
                       "paths typed (F3 C-w, F2 C-e / C-o), F5 C-s's strategies") },
    { TR_NOOP("PgUp/PgDn, wheel"), TR_NOOP("scroll the transcript (in a menu the wheel moves)") },
    { TR_NOOP("Shift-Up/Down"), TR_NOOP("scroll one line") },
    { TR_NOOP("Esc (editing)"), TR_NOOP("leave edit mode: the next message continues the branch (C-u only "
                        "clears the text, to rewrite it)") },
    { TR_NOOP("Esc (pasting...)"), TR_NOOP("end a paste whose end the terminal never sent (until then a paste "
                          "is text, its Enter a new line)") },
    { TR_NOOP("-temp=X -top_p=Y"), TR_NOOP("typed in a message: that reply alone samples with them "
                      "(temperature clamped to 0.2..5), as in ChatRWKV's chat.py; taken out "
                      "of the text") },
    { TR_NOOP("Sidebar: Up/Down"), TR_NOOP("choose a parameter") },
    { TR_NOOP("Sidebar: Left/Right, -/+"), TR_NOOP("change it by one step (PgUp/PgDn: 10)") },
    { TR_NOOP("Sidebar: Enter or a digit"), TR_NOOP("type a value") },
    { TR_NOOP("Sidebar: other text"), TR_NOOP("goes to the message box, with the focus") },
    { TR_NOOP("Sidebar: click"), TR_NOOP("choose that parameter (the sidebar takes the keys)") },
    { TR_NOOP("Menus: type"), TR_NOOP("search (C-u clears it; C-f there says so); Enter acts, Esc closes") },
    { TR_NOOP("Menus: click"), TR_NOOP("select a row; a click on the selected row acts (as Enter); a click "
                      "outside the box closes it") },
    { TR_NOOP("Sessions: type"), TR_NOOP("search titles and messages (every word in one title or one message); "
                        "model:NAME keeps that model's sessions") },
    { TR_NOOP("State files: (none)"), TR_NOOP("back to no state file (the greeting)") },
};

/* The keys the client keeps (config.h), each with F1's key column (a
** format: %s is the row's key names) and description; NULL both: on the
** row of the key before. */
static const struct {
    int         key;
    const char *col, *what;
} kept_keys[] = {
#define HELP_KEPT_(e, k, a, w, hk, h) { k, hk, h },
    CFG_FIXED_KEYS(HELP_KEPT_)
#undef HELP_KEPT_
};

#define N_KEPT (sizeof kept_keys / sizeof kept_keys[0])

/* The key column of the kept keys' row that starts at I into OUT: its
** format (TR: in the interface language) with %s made the names of the
** row's keys ("C-k/C-u/C-w").  Returns the index after the row. */
static size_t
kept_row(size_t i, const char *(*tr)(const char *), char *out, size_t cap)
{
    const char *fmt = tr(kept_keys[i].col), *at = strstr(fmt, "%s");
    char names[96];
    size_t o = 0, j = i;

    names[0] = '\0';
    do {
        cfg_key_name(kept_keys[j].key, names + o, sizeof names - o);
        o = strlen(names);
        if (o + 4 < sizeof names && j + 1 < N_KEPT && kept_keys[j + 1].what == NULL)
            o += (size_t)snprintf(names + o, sizeof names - o, "/");
        j++;
    } while (j < N_KEPT && kept_keys[j].what == NULL);
    if (at == NULL)
        snprintf(out, cap, "%s", fmt);
    else
        snprintf(out, cap, "%.*s%s%s", (int)(at - fmt), fmt, names, at + 2);
    return j;
}

#define N_FIXED (sizeof fixed_keys / sizeof fixed_keys[0])

/* The menu whose keys fixed row I belongs to ("Sessions: type" is the
** Sessions menu's: F1 lists it with that menu's rows), or NULL. */
static const tui_menu_class *
fixed_menu(size_t i)
{
    const char *key = fixed_keys[i][0];

    for (int c = 0; tui_menu_classes[c] != NULL; c++) {
        size_t n = strlen(tui_menu_classes[c]->name);
        if (strncmp(key, tui_menu_classes[c]->name, n) == 0 && key[n] == ':')
            return tui_menu_classes[c];
    }
    return NULL;
}

static const char *
help_en(const char *s)
{
    return s;
}

/*
** Every row of the help, in order: the actions with their keys from CFG,
** the keys the client keeps (CFG_FIXED_KEYS), the other fixed keys, then
** each menu's own keys.  FN gets the key
** column and the description, in the interface language when LOCAL (F1),
** else in English (--help-ui, the man page).
*/
void
tui_help_rows(const tui_config *cfg, int local, tui_help_row_fn fn, void *ud)
{
    const char *(*tr)(const char *) = local ? tui_tr : help_en;
    char key[128];

    for (int i = 0; i < CFG_ACT_COUNT; i++) {
        cfg_key_name(cfg->keys[i], key, sizeof key);
        fn(ud, key, tr(cfg_action_help(i)));
    }
    for (size_t i = 0; i < N_KEPT;) {
        const char *what = tr(kept_keys[i].what);
        i = kept_row(i, tr, key, sizeof key);
        fn(ud, key, what);
    }
    for (size_t i = 0; i < N_FIXED; i++)
        if (fixed_menu(i) == NULL)
            fn(ud, tr(fixed_keys[i][0]), tr(fixed_keys[i][1]));
    for (int c = 0; tui_menu_classes[c] != NULL; c++) {
        const tui_menu_class *mc = tui_menu_classes[c];
        for (size_t i = 0; i < N_FIXED; i++)      /* its rows of the list above first */
            if (fixed_menu(i) == mc)
                fn(ud, tr(fixed_keys[i][0]), tr(fixed_keys[i][1]));
        for (const tui_menu_keydef *k = mc->keys; k && k->name; k++) {
            char name[96];
            if (k->help == NULL)
                continue;
            snprintf(name, sizeof name, "%s: %s", tr(mc->name), k->name);
            fn(ud, name, tr(k->help));
        }
    }
}

/* The key column: as wide as the widest key, at most HELP_KEY_MAX (a longer
** key pushes its description along rather than cutting it). */
#define HELP_KEY_MAX 25

struct help_fill { tui_menu *m; int width; int64_t n; };

static void
help_measure(void *ud, const char *key, const char *what)
{
    struct help_fill *h = ud;
    int w = tui_str_width(key, strlen(key));

    (void)what;
    if (w > h->width)
        h->width = w < HELP_KEY_MAX ? w : HELP_KEY_MAX;
}

static void
help_add(void *ud, const char *key, const char *what)
{
    struct help_fill *h = ud;
    char label[512];
    int pad = h->width - tui_str_width(key, strlen(key));

    /* padded to the column in cells (a CJK key name is 2 a character) */
    snprintf(label, sizeof label, "%s%*s  %s", key, pad > 0 ? pad : 0, "", what);
    /* the actions come first: their ids are the action numbers */
    tui_menu_add(h->m, label, NULL, NULL, h->n < CFG_ACT_COUNT ? h->n : -1);
    h->n++;
}

static void
fill_help(tui_menu *m, const struct app *a, tui_menu_msg *msg)
{
    struct help_fill h = { m, 0, 0 };

    (void)msg;
    tui_help_rows(&a->cfg, 1, help_measure, &h);
    tui_help_rows(&a->cfg, 1, help_add, &h);
    /* then the sidebar's parameters, their help whole (the sidebar cuts
    ** what its rows cannot hold, with an ellipsis) */
    for (int i = 0; i < tui_param_count(); i++) {
        char name[96];
        snprintf(name, sizeof name, "%s: %s", TR("Parameters"), params_table[i].cli);
        help_add(&h, name, TR(params_table[i].help));
    }
}

void
tui_help_keys(tui_help_row_fn fn, void *ud)
{
    static tui_config cfg;   /* static: the config holds large tables */

    cfg_defaults(&cfg);
    tui_help_rows(&cfg, 0, fn, ud);
}

static void
help_close(struct app *a, const tui_menu_item *it, int key)
{
    (void)it;
    (void)key;
    tui_menu_close(a);
}

static const tui_menu_keydef help_keys[] = {
    { TUI_K_ENTER, 0, "Enter", NULL, NULL, help_close, 0 },
    { 0, 0, NULL, NULL, NULL, NULL, 0 }
};

const tui_menu_class tui_menu_help_class = {
    TUI_MENU_HELP, CFG_ACT_HELP, TR_NOOP("Help"), TR_NOOP("Help: every key"), fill_help, NULL, NULL, help_keys, 0
};
