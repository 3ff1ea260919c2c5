/*
** menu_help.c -- F1: every key.  The configurable actions (their keys from
** the config), the editing keys that are not actions, then every menu's own
** keys, read from the menu classes (menus.h), so a key added to a menu's
** table is listed here without another edit.
*/
#include "menus.h"

#include <stdio.h>
#include <string.h>

/* The editing keys that are not in the config's action table. */
static const char *const fixed_keys[][2] = {
    { "Enter", "send the message (text right after it, as in a paste without "
               "markers: a new line)" },
    { "Alt-Enter, C-j", "new line in the message" },
    { "Left/Right, C-b", "move by character (C-f searches the transcript)" },
    { "M-b / M-f", "move to the start / end of a word (CJK: a run of one script)" },
    { "M-d / M-Backspace", "delete to the end / start of a word" },
    { "Search: Enter/Down/C-f", "next match; Up, S-Tab: previous; Esc closes" },
    { "Shift-drag", "select text with the mouse while mouse reporting is on (most "
                    "terminals; or M-m turns reporting off)" },
    { "Up/Down", "move by line; history on the first/last line" },
    { "Home/End, C-a/C-e", "start/end of line (empty box: top/end of transcript)" },
    { "C-k / C-u / C-w", "delete to end of line / to start / word before" },
    { "Backspace/Delete", "delete a whole character" },
    { "PgUp/PgDn, wheel", "scroll the transcript (in a menu the wheel moves)" },
    { "Shift-Up/Down", "scroll one line" },
    { "Esc, C-c", "cancel the running reply (kept, marked interrupted), the prefill "
                  "(the message goes back to the box) or a replay (nothing changes)" },
    { "Esc (editing)", "leave edit mode: the next message continues the branch (C-u only "
                        "clears the text, to rewrite it)" },
    { "Esc (pasting...)", "end a paste whose end the terminal never sent (until then a paste "
                          "is text, its Enter a new line)" },
    { "C-d (empty box), C-q", "quit" },
    { "C-z", "suspend (the shell's fg resumes)" },
    { "Sidebar: Up/Down", "choose a parameter" },
    { "Sidebar: Left/Right, -/+", "change it by one step (PgUp/PgDn: 10)" },
    { "Sidebar: Enter or a digit", "type a value" },
    { "Sidebar: other text", "goes to the message box, with the focus" },
    { "Sidebar: click", "choose that parameter (the sidebar takes the keys)" },
    { "Menus: type", "search (C-u clears it; C-f there says so); Enter acts, Esc closes" },
    { "Menus: click", "select a row; a click on the selected row acts (as Enter); a click "
                      "outside the box closes it" },
    { "Sessions: type", "search titles and messages (every word, anywhere in them); "
                        "model:NAME keeps that model's sessions" },
    { "State files: (none)", "back to no state file (the greeting)" },
};

/*
** Every row of the help, in order: the actions with their keys from CFG,
** the fixed editing keys, then each menu's own keys.  FN gets the key
** column and the description.
*/
void
tui_help_rows(const tui_config *cfg, tui_help_row_fn fn, void *ud)
{
    char key[32];

    for (int i = 0; i < CFG_ACT_COUNT; i++) {
        cfg_key_name(cfg->keys[i], key, sizeof key);
        fn(ud, key, cfg_action_help(i));
    }
    for (size_t i = 0; i < sizeof fixed_keys / sizeof fixed_keys[0]; i++)
        fn(ud, fixed_keys[i][0], fixed_keys[i][1]);
    for (int c = 0; tui_menu_classes[c] != NULL; c++) {
        const tui_menu_class *mc = tui_menu_classes[c];
        for (const tui_menu_keydef *k = mc->keys; k && k->name; k++) {
            char name[64];
            if (k->help == NULL)
                continue;
            snprintf(name, sizeof name, "%s: %s", mc->name, k->name);
            fn(ud, name, k->help);
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
    int w = (int)strlen(key);

    (void)what;
    if (w > h->width)
        h->width = w < HELP_KEY_MAX ? w : HELP_KEY_MAX;
}

static void
help_add(void *ud, const char *key, const char *what)
{
    struct help_fill *h = ud;
    char label[256];

    snprintf(label, sizeof label, "%-*s  %s", h->width, key, what);
    /* the actions come first: their ids are the action numbers */
    tui_menu_add(h->m, label, NULL, NULL, h->n < CFG_ACT_COUNT ? h->n : -1);
    h->n++;
}

static void
fill_help(tui_menu *m, const struct app *a, tui_menu_msg *msg)
{
    struct help_fill h = { m, 0, 0 };

    (void)msg;
    tui_help_rows(&a->cfg, help_measure, &h);
    tui_help_rows(&a->cfg, help_add, &h);
}

void
tui_help_keys(tui_help_row_fn fn, void *ud)
{
    static tui_config cfg;   /* static: the config holds large tables */

    cfg_defaults(&cfg);
    tui_help_rows(&cfg, fn, ud);
}

static void
help_close(struct app *a, const tui_menu_item *it, int key)
{
    (void)it;
    (void)key;
    tui_menu_close(a);
}

static const tui_menu_keydef help_keys[] = {
    { TUI_K_ENTER, 0, "Enter", NULL, NULL, help_close },
    { 0, 0, NULL, NULL, NULL, NULL }
};

const tui_menu_class tui_menu_help_class = {
    TUI_MENU_HELP, CFG_ACT_HELP, "Help", "Help: every key", fill_help, NULL, NULL, help_keys
};
