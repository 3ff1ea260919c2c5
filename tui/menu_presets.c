/*
** menu_presets.c -- F4: named sampling sets from the database (the
** built-ins among them), sorted by name; load one, or save the current
** values as one (with the framing in use: menu_framing.c).
*/
#include "menus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
fill_presets(tui_menu *m, const struct app *a, tui_menu_msg *msg)
{
    char **names = NULL;
    size_t n = 0;
    rwkv_err err;

    if (a->st == NULL) {
        tui_menu_say(msg, 1, "no session database (--no-db): no presets to load or save");
        return;
    }
    if (store_preset_list(a->st, &names, &n, &err) != RWKV_OK) {
        tui_menu_say(msg, 1, "%s", err.msg);
        return;
    }
    qsort(names, n, sizeof *names, tui_cmp_names);   /* by name, built-ins among them */
    for (size_t i = 0; i < n; i++) {
        rwkv_sampling s;
        char detail[96];
        int rc = store_preset_get(a->st, names[i], &s, NULL, &err);
        if (rc == RWKV_OK)
            snprintf(detail, sizeof detail, "temp %g  top-p %g  max %d", (double)s.temperature,
                     (double)s.top_p, s.max_tokens);
        else if (rc == RWKV_EFORMAT)
            snprintf(detail, sizeof detail, "%s", TR("damaged (Enter says why)"));
        else
            detail[0] = '\0';
        tui_menu_add(m, names[i], detail, names[i], (int64_t)i);
    }
    free(names);
}

static void
load(struct app *a, const tui_menu_item *it, int key)
{
    rwkv_sampling p;
    rwkv_err err;
    int seed_i = params_find("seed"), rc;
    unsigned bits = 0;

    (void)key;
    if (it == NULL)
        return;
    if ((rc = store_preset_get(a->st, it->data, &p, NULL, &err)) != RWKV_OK) {
        /* which preset, and what is wrong with it: the row's own words
        ** name a value ("top-k: ...") but not whose it is */
        if (rc == RWKV_EFORMAT)
            tui_notice(a, 1, "preset '%s' is damaged, nothing loaded: %s", it->label, err.msg);
        else
            tui_notice(a, 1, "loading preset '%s': %s", it->label, err.msg);
        return;
    }
    /* every value but the seed, as the config's preset: the chat's seed
    ** (random, or the one the user set) and its sequence go on, and the
    ** sidebar keeps showing it -- not the seed the preset was saved with
    ** (0 in the built-ins), which would not be the one in use */
    for (int i = 0; params_table[i].name != NULL; i++) {
        if (i == seed_i)
            continue;
        params_copy(&a->samp, &p, i);
        bits |= PARAMS_BIT(i);
    }
    tui_sampling_edited(a, bits);
    tui_notice(a, 0, "preset '%s' loaded", it->label);
    tui_framing_preset_load(a, it->data);     /* and its framing, if it has one */
    tui_menu_close(a);
}

static void
save_ask(struct app *a, const tui_menu_item *it, int key)
{
    (void)it;
    (void)key;
    if (a->st == NULL) {   /* nowhere to keep it: say so before a name is typed */
        tui_notice(a, 1, "no session database (--no-db): no presets to load or save");
        return;
    }
    tui_replace_forget();
    tui_prompt_open(a, TUI_PROMPT_PRESET_SAVE, "save preset as: ", "");
}

static const tui_menu_keydef preset_keys[] = {
    { TUI_K_ENTER, 0, "Enter", TR_NOOP("load"), TR_NOOP("load the selected preset"), load, 1 },
    { CFG_KEY_CTRL('s'), 0, "C-s", TR_NOOP("save current"), TR_NOOP("save the current values as a preset"),
      save_ask, TUI_MK_DB },
    { 0, 0, NULL, NULL, NULL, NULL, 0 }
};

const tui_menu_class tui_menu_presets_class = {
    TUI_MENU_PRESETS, CFG_ACT_PRESETS, TR_NOOP("Presets"), TR_NOOP("Presets"), fill_presets, NULL, NULL,
    preset_keys, 1   /* Enter and C-s read the framing (menu_framing.c) */
};

/* 1 when NAME is a built-in preset: read-only, whatever is asked (the
** store's built-ins, store.h: "demo" and "state"; "user" is writable). */
static int
preset_builtin(const char *name)
{
    return strcmp(name, "demo") == 0 || strcmp(name, "state") == 0;
}

/* A preset not saved (the database's lock held by another program): the
** name typed is kept for Enter again.  A built-in's name is refused before
** anything is asked (it can never be replaced), and a name the store
** refuses (too long) after, the prompt kept open to correct it. */
static int
accept_save(struct app *a, const char *text)
{
    rwkv_sampling old;
    rwkv_err err;
    int rc;

    if (text[0] == '\0')
        return TUI_PROMPT_DONE;
    if (a->st == NULL) {
        tui_notice(a, 1, "no session database (--no-db): no presets to load or save");
        return TUI_PROMPT_DONE;
    }
    if (preset_builtin(text)) {
        tui_notice(a, 1, "'%s' is a built-in preset and cannot be changed: choose another name",
                   text);
        return TUI_PROMPT_REFUSED;
    }
    if (store_preset_get(a->st, text, &old, NULL, &err) == RWKV_OK &&
        tui_replace_ask_name(a, TUI_PROMPT_PRESET_SAVE, text, text, TR_NOOP("preset")))
        return TUI_PROMPT_DONE;       /* asked first */
    if ((rc = store_preset_put(a->st, text, &a->samp, NULL, &err)) != RWKV_OK) {
        /* a name the store refuses (EINVAL) is to be corrected, as a
        ** session's title is; a write that failed is tried again */
        tui_notice(a, 1, "saving preset '%s': %s", text, err.msg);
        return rc == RWKV_EINVAL ? TUI_PROMPT_REFUSED : TUI_PROMPT_AGAIN;
    }
    tui_notice(a, 0, "preset '%s' saved", text);
    tui_framing_preset_save(a, text);     /* the framing in use goes with it */
    return TUI_PROMPT_DONE;
}

const tui_prompt_class tui_prompt_preset_save = { TUI_PROMPT_PRESET_SAVE, 0, accept_save,
                                                   TUI_PHIST_NONE, 1 };
