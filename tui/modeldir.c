/*
** modeldir.c -- F5's checkpoints from the folders models are kept in:
** model_dir in the config (one folder or a list) and $RWKV_TUI_MODELS (one
** folder, as $RWKV_TUI_STATES is for F3), and the models the session
** database knows.  A folder is read on its own level only (not
** recursively); its .pth and .safetensors files are listed sorted by name.
** What the loader would refuse is left out: anything that is not a regular
** file (a FIFO, a device, a folder, a dangling link: core/fileio.h) and a
** file we may not read.  A folder that cannot be read is named in a notice.
*/
#include "app.h"
#include "text.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MODELDIR_MAX_FILES 512   /* per folder */

/* 1 when PATH is a regular file we may read. */
static int
usable(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* 1 when the menu already lists PATH (or it is the model in use). */
static int
listed(const struct app *a, const char *path)
{
    if (strcmp(path, a->model_path) == 0)
        return 1;
    for (size_t i = 0; i < a->menu.n; i++)
        if (a->menu.items[i].data && strcmp(a->menu.items[i].data, path) == 0)
            return 1;
    return 0;
}

static int
is_checkpoint(const char *name)
{
    size_t n = strlen(name);

    return name[0] != '.' && ((n > 4 && strcmp(name + n - 4, ".pth") == 0) ||
                              (n > 12 && strcmp(name + n - 12, ".safetensors") == 0));
}

static int
cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* DIR with a leading "~/" made $HOME's, into OUT. */
static void
expand(const char *dir, char *out, size_t cap)
{
    const char *home = getenv("HOME");

    if (dir[0] == '~' && (dir[1] == '/' || dir[1] == '\0') && home && *home)
        snprintf(out, cap, "%s%s", home, dir + 1);
    else
        snprintf(out, cap, "%s", dir);
}

static void
list_folder(struct app *a, const char *given)
{
    char dir[CFG_PATH + 256], path[CFG_PATH + 512];
    char *names[MODELDIR_MAX_FILES];
    size_t n = 0;
    struct dirent *de;
    DIR *d;

    expand(given, dir, sizeof dir);
    if ((d = opendir(dir)) == NULL) {
        tui_notice(a, 1, "model folder %s: %s", dir, strerror(errno));
        return;
    }
    while ((de = readdir(d)) != NULL && n < MODELDIR_MAX_FILES)
        if (is_checkpoint(de->d_name))
            names[n++] = tui_xstrdup(de->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (usable(path) && !listed(a, path))
            tui_menu_add(&a->menu, names[i], dir, path, 3);
        free(names[i]);
    }
}

/* The models of the database's rows that are still on disk. */
static void
list_known(struct app *a)
{
    store_model *v = NULL;
    size_t n = 0;
    rwkv_err err;

    if (a->st == NULL || store_model_list(a->st, &v, &n, &err) != RWKV_OK)
        return;
    for (size_t i = 0; i < n; i++) {
        char detail[96];
        const char *slash = strrchr(v[i].path, '/');
        if (v[i].path[0] != '/' || !usable(v[i].path) || listed(a, v[i].path))
            continue;
        snprintf(detail, sizeof detail, "used before: v%s, %d layers x %d", v[i].version,
                 v[i].n_layer, v[i].n_embd);
        tui_menu_add(&a->menu, slash ? slash + 1 : v[i].path, detail, v[i].path, 4);
    }
    free(v);
}

void
tui_models_from_dirs(struct app *a)
{
    const char *env = getenv("RWKV_TUI_MODELS");

    for (int i = 0; i < a->cfg.n_model_dir; i++)
        list_folder(a, a->cfg.model_dir[i]);
    if (env && *env)
        list_folder(a, env);
    list_known(a);
}
