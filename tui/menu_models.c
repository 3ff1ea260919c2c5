/*
** menu_models.c -- F5: the model in use, the config's model, the other
** checkpoints next to the one in use, those in the folders models are kept
** in (model_dir in the config, one folder or a list, and $RWKV_TUI_MODELS,
** as $RWKV_TUI_STATES is for F3; each folder's own level, sorted by name)
** and the models the database has used that are still on disk; switch
** model, or change the strategy (both start a new session).  What the
** loader would refuse is left out: anything that is not a regular file (a
** FIFO, a device, a folder, a dangling link), a file we may not read and a
** state-tuning file (rwkv_ckpt_kind: its tensors' names, from the file's
** index); a folder that cannot be read is named in a notice.  A file whose
** kind cannot be told (damaged, not a checkpoint) is listed: left out, a
** model would vanish without a word; chosen, the load says what is wrong.
*/
#include "menus.h"
#include "../core/model/strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 when M already lists PATH, or it is the model in use. */
static int
listed(const tui_menu *m, const struct app *a, const char *path)
{
    if (strcmp(path, a->model_path) == 0)
        return 1;
    for (size_t i = 0; i < m->n; i++)
        if (m->items[i].data && strcmp(m->items[i].data, path) == 0)
            return 1;
    return 0;
}

/* The checkpoints of folder GIVEN ("~/" is $HOME's), its own level, sorted
** by name, its path as used in DIR (1024 bytes); a folder that cannot be
** read is named in MSG unless QUIET.  Returns the models it has (listed
** here or before), -1 when it could not be read. */
static long
list_folder(tui_menu *m, const struct app *a, tui_menu_msg *msg, const char *given, int id,
            int quiet, char *dir)
{
    char path[1300];
    size_t n;
    char **names;
    long found = 0;

    if ((names = tui_folder_names(given, 0, dir, 1024, &n, quiet ? NULL : msg)) == NULL)
        return -1;
    for (size_t k = 0; k < n; k++) {
        snprintf(path, sizeof path, "%s/%.255s", dir, names[k]);
        /* a state-tuning file beside the models is F3's (the loader would
        ** refuse it); one that cannot be told stays, Enter says why */
        if (rwkv_ckpt_kind(path, NULL) == RWKV_CKPT_STATE)
            continue;
        found++;
        if (!listed(m, a, path))
            tui_menu_add(m, names[k], dir, path, id);
    }
    tui_free_names(names, n);
    return found;
}

/* The models of the database's rows that are still on disk. */
static void
list_known(tui_menu *m, const struct app *a)
{
    store_model *v = NULL;
    size_t n = 0;
    rwkv_err err;

    if (a->st == NULL || store_model_list(a->st, &v, &n, &err) != RWKV_OK)
        return;
    for (size_t i = 0; i < n; i++) {
        char detail[96];
        const char *slash = strrchr(v[i].path, '/');
        if (v[i].path[0] != '/' || !tui_file_usable(v[i].path) || listed(m, a, v[i].path))
            continue;
        snprintf(detail, sizeof detail, TR("used before: v%s, %d layers x %d"), v[i].version,
                 v[i].n_layer, v[i].n_embd);
        tui_menu_add(m, slash ? slash + 1 : v[i].path, detail, v[i].path, 4);
    }
    free(v);
}

static void
fill_models(tui_menu *m, const struct app *a, tui_menu_msg *msg)
{
    const rwkv_info *inf = rwkv_model_info(a->model);
    const char *env = getenv("RWKV_TUI_MODELS");
    char label[256], detail[160], dirs[CFG_MAX_LIST + 1][1024];
    const char *named[CFG_MAX_LIST + 1];
    long found[CFG_MAX_LIST + 1];
    int nd = 0;

    snprintf(label, sizeof label, TR("%s (in use)"), a->model_label);
    snprintf(detail, sizeof detail, TR("v%s  %d layers  %d embd  %s"), inf->version, inf->n_layer,
             inf->n_embd, inf->strategy);
    tui_menu_add(m, label, detail, NULL, 0);
    if (a->cfg.model[0] && strcmp(a->cfg.model, a->model_path) != 0)
        tui_menu_add(m, a->cfg.model, TR("from the config file"), a->cfg.model, 1);
    /* other checkpoints next to the one in use */
    if (a->model_path[0]) {
        const char *slash = strrchr(a->model_path, '/');
        char dir[1024];

        char used[1024];

        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - a->model_path) : 1,
                 slash ? a->model_path : ".");
        list_folder(m, a, msg, dir, 2, 1, used);
    }
    /* the config's model_dir folders, $RWKV_TUI_MODELS, the database's;
    ** named folders without a model are named, as F3 names its own */
    for (int i = 0; i < a->cfg.n_model_dir && nd < CFG_MAX_LIST; i++, nd++)
        found[nd] = list_folder(m, a, msg, a->cfg.model_dir[i], 3, 0, dirs[nd]);
    if (env && *env) {
        found[nd] = list_folder(m, a, msg, env, 3, 0, dirs[nd]);
        nd++;
    }
    for (int i = 0; i < nd; i++)
        named[i] = found[i] < 0 ? "" : dirs[i];
    tui_folder_none(msg, 0, named, found, nd);
    list_known(m, a);
}

static void
switch_model(struct app *a, const tui_menu_item *it, int key)
{
    char path[1300] = "";

    (void)key;
    if (it == NULL)
        return;
    if (it->data == NULL) {
        /* the model in use: nothing to switch to; said, the menu stays
        ** (it closed without a word, as if a switch had begun) */
        tui_notice(a, 0, "%s is the model in use (C-s changes its strategy)", a->model_label);
        return;
    }
    snprintf(path, sizeof path, "%s", it->data);
    tui_menu_close(a);
    tui_switch_model(a, path, NULL);
}

static void
strategy_ask(struct app *a, const tui_menu_item *it, int key)
{
    (void)it;
    (void)key;
    tui_prompt_open(a, TUI_PROMPT_STRATEGY, "strategy: ", rwkv_model_info(a->model)->strategy);
}

static const tui_menu_keydef model_keys[] = {
    { TUI_K_ENTER, 0, "Enter", TR_NOOP("switch model"), TR_NOOP("switch to the selected model (new session)"),
      switch_model, 1 },
    { CFG_KEY_CTRL('s'), 0, "C-s", TR_NOOP("change strategy"), TR_NOOP("change the strategy (new session)"),
      strategy_ask, 0 },
    { 0, 0, NULL, NULL, NULL, NULL, 0 }
};

const tui_menu_class tui_menu_models_class = {
    TUI_MENU_MODELS, CFG_ACT_MODELS, TR_NOOP("Models"), TR_NOOP("Models"), fill_models, NULL, NULL, model_keys, 0
};

/* A strategy that does not parse is refused at once, and so is one the
** load refuses (a cuda stage with no GPU, a build without CUDA, memory):
** the load runs here, on the UI thread, before the prompt's Enter returns,
** so every refusal keeps the prompt open holding the text, the reason in a
** dialog above it -- closed, the text typed next went to the message box
** and was sent.  A switch that could not begin (a reply running, exchanges
** a failed save kept out) opens it again too, for Enter to try again. */
static int
accept_strategy(struct app *a, const char *text)
{
    strat st;
    rwkv_err err;

    if (text[0] == '\0')
        return TUI_PROMPT_DONE;
    if (strat_parse(text, &st, &err) != RWKV_OK) {
        tui_notice(a, 1, "strategy not changed: %s", err.msg);
        return TUI_PROMPT_REFUSED;
    }
    switch (tui_switch_model(a, NULL, text)) {
    case 0:
        return TUI_PROMPT_DONE;
    case TUI_SWITCH_LOAD:
        return TUI_PROMPT_REFUSED;
    default:
        return TUI_PROMPT_AGAIN;
    }
}

const tui_prompt_class tui_prompt_strategy = { TUI_PROMPT_STRATEGY, 0, accept_strategy,
                                                TUI_PHIST_STRATEGY, 1 };
