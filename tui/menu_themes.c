/*
** menu_themes.c -- M-T: the colour themes, to switch while the client runs:
** the shipped ones (built into the binary) and the user's themes folder
** ($XDG_CONFIG_HOME/rwkv-tui/themes/NAME.yaml, where a file overrides a
** shipped theme of its name: theme_load's order).  Enter uses the selected
** one for this run (the config's `theme:` keeps one) and the menu stays
** open, to try the next.  A theme that does not load changes nothing: one
** line names its first problem (the log, M-l, has every one).
*/
#include "menus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

#define THEMES_NAME_MAX  64    /* theme_load's longest name (longer: by path) */

/* 1 when NAME is a shipped theme's. */
static int
is_builtin(const char *name)
{
    for (const struct theme_builtin *b = theme_builtin; b->name != NULL; b++)
        if (strcmp(b->name, name) == 0)
            return 1;
    return 0;
}

/* One item: LABEL, its DETAIL ("(in use)" after it when it is the theme in
** use), and what theme_load takes for it (DATA: a name, or a path). */
static void
add(tui_menu *m, const struct app *a, const char *label, const char *detail, const char *data)
{
    char d[512];

    if (strcmp(data, a->theme_name) == 0)
        snprintf(d, sizeof d, TR("%s (in use)"), detail);
    else
        snprintf(d, sizeof d, "%s", detail);
    tui_menu_add(m, label, d, data, (int64_t)m->n);
}

/* The user's themes: each by its name (by its path when theme_load could
** not find it by name); one of a shipped theme's name stands in its row. */
static void
fill_themes(tui_menu *m, const struct app *a, tui_menu_msg *msg)
{
    static const char *const yaml[] = {".yaml", NULL};
    char dir[4096], why[THEME_MSG];
    char **mine = NULL;
    size_t n = 0, i;
    theme t;

    (void)msg;
    m->label_col = 1;                  /* the details in a column */
    theme_user_dir(dir, sizeof dir);
    if (dir[0])
        mine = tui_dir_names_ext(dir, yaml, 1, &n);
    for (const struct theme_builtin *b = theme_builtin; b->name != NULL; b++) {
        for (i = 0; i < n && strcmp(mine[i], b->name) != 0; i++)
            ;
        add(m, a, b->name, i < n ? TR("your themes folder, over the built-in one")
                                 : TR("built in"), b->name);
    }
    for (i = 0; i < n; i++) {
        char path[4400];
        int by_path = strlen(mine[i]) > THEMES_NAME_MAX || tui_has_suffix(mine[i], ".yaml");
        snprintf(path, sizeof path, "%.4096s/%.255s.yaml", dir, mine[i]);
        if (is_builtin(mine[i]) && !by_path) {
            if (theme_load_file(path, &t, why, sizeof why) != 0)   /* its row, above */
                for (size_t k = 0; k < m->n; k++)
                    if (strcmp(m->items[k].label, mine[i]) == 0) {
                        free(m->items[k].detail);
                        m->items[k].detail = tui_xstrdup(TR("damaged (Enter says why)"));
                    }
            continue;
        }
        add(m, a, mine[i],
            theme_load_file(path, &t, why, sizeof why) == 0 ? TR("your themes folder")
                                                            : TR("damaged (Enter says why)"),
            by_path ? path : mine[i]);
    }
    tui_free_names(mine, n);
}

/* The selection starts on the theme in use. */
static void
select_in_use(tui_menu *m, const struct app *a)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->items[i].data != NULL && strcmp(m->items[i].data, a->theme_name) == 0 &&
            tui_menu_select_id(m, m->items[i].id))
            return;
}

/* Enter: the selected theme from now on, or, when it does not load, one
** line why (every problem in the log) and the theme in use stays. */
static void
use(struct app *a, const tui_menu_item *it, int key)
{
    char why[THEME_MSG], log_key[16], dir[4096];
    const char *first = why;
    size_t dl, lines = 0;
    theme t;

    (void)key;
    if (it == NULL)
        return;
    if (theme_load(it->data, &t, why, sizeof why) != 0) {
        for (const char *p = why; *p; p++)
            lines += *p == '\n' && p[1] != '\0';
        if (lines > 0)
            tui_log_add(a, 1, why);            /* every problem, in the log */
        why[strcspn(why, "\n")] = '\0';
        /* the folder the menu lists is known: the file by its name */
        theme_user_dir(dir, sizeof dir);
        dl = strlen(dir);
        if (dl > 0 && strncmp(why, dir, dl) == 0 && why[dl] == '/')
            first = why + dl + 1;
        cfg_key_name(a->cfg.keys[CFG_ACT_LOG], log_key, sizeof log_key);
        if (lines > 0)
            tui_notice(a, 1, "theme '%s' not used (%zu problems: %s lists them): %s", it->label,
                       lines + 1, log_key, first);
        else
            tui_notice(a, 1, "theme '%s' not used: %s", it->label, first);
        return;
    }
    tui_view_set_theme(a, &t, it->data);
    tui_notice(a, 0, "theme '%s' in use for this run (theme: %s in the config file keeps it)",
               it->label, it->data);
    tui_menu_refill(a, it->id);
}

static const tui_menu_keydef theme_keys[] = {
    { TUI_K_ENTER, 0, "Enter", TR_NOOP("use"),
      TR_NOOP("use the selected theme for this run (the menu stays: try another)"), use, 1 },
    { 0, 0, NULL, NULL, NULL, NULL, 0 }
};

const tui_menu_class tui_menu_themes_class = {
    TUI_MENU_THEMES, CFG_ACT_THEMES, TR_NOOP("Themes"), TR_NOOP("Colour themes"), fill_themes,
    select_in_use, NULL, theme_keys, 0
};
