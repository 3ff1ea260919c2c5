/*
** menu_models.c -- F5: the model in use, the config's model and the other
** checkpoints next to the one in use; switch model, or change the strategy
** (both start a new session).
*/
#include "menus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
fill_models(tui_menu *m, const struct app *a, tui_menu_msg *msg)
{
    const rwkv_info *inf = rwkv_model_info(a->model);
    char label[256], detail[160];

    (void)msg;
    snprintf(label, sizeof label, "%s (in use)", a->model_label);
    snprintf(detail, sizeof detail, "v%s  %d layers  %d embd  %s", inf->version, inf->n_layer,
             inf->n_embd, inf->strategy);
    tui_menu_add(m, label, detail, NULL, 0);
    if (a->cfg.model[0] && strcmp(a->cfg.model, a->model_path) != 0)
        tui_menu_add(m, a->cfg.model, "from the config file", a->cfg.model, 1);
    /* other checkpoints next to the one in use */
    if (a->model_path[0]) {
        const char *slash = strrchr(a->model_path, '/');
        char dir[1024];
        size_t nn;
        char **names;

        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - a->model_path) : 1,
                 slash ? a->model_path : ".");
        names = tui_dir_names(dir, &nn);       /* sorted by name */
        for (size_t k = 0; k < nn; k++) {
            char path[1300];
            snprintf(path, sizeof path, "%s/%.255s", dir, names[k]);
            if (strcmp(path, a->model_path) == 0)
                continue;
            tui_menu_add(m, names[k], dir, path, 2);
        }
        tui_free_names(names, nn);
    }
}

static void
switch_model(struct app *a, const tui_menu_item *it, int key)
{
    char path[1300] = "";

    (void)key;
    if (it == NULL)
        return;
    if (it->data)
        snprintf(path, sizeof path, "%s", it->data);
    tui_menu_close(a);
    if (path[0])
        tui_switch_model(a, path, NULL);
}

static void
strategy_ask(struct app *a, const tui_menu_item *it, int key)
{
    (void)it;
    (void)key;
    tui_menu_close(a);
    tui_prompt_open(a, TUI_PROMPT_STRATEGY, "strategy: ", rwkv_model_info(a->model)->strategy);
}

static const tui_menu_keydef model_keys[] = {
    { TUI_K_ENTER, 0, "Enter", "switch model", "switch to the selected model (new session)",
      switch_model },
    { CFG_KEY_CTRL('s'), 0, "C-s", "change strategy", "change the strategy (new session)",
      strategy_ask },
    { 0, 0, NULL, NULL, NULL, NULL }
};

const tui_menu_class tui_menu_models_class = {
    TUI_MENU_MODELS, CFG_ACT_MODELS, "Models", "Models", fill_models, NULL, NULL, model_keys
};

static void
accept_strategy(struct app *a, const char *text)
{
    if (text[0])
        tui_switch_model(a, NULL, text);
}

const tui_prompt_class tui_prompt_strategy = { TUI_PROMPT_STRATEGY, 0, accept_strategy };
