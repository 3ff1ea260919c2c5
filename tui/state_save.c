/*
** state_save.c -- C-w in the state-files menu: save the current state as a
** state file (state_save.h).
*/
#include "state_save.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
#include <wctype.h>

#include "../core/io/fileio.h"
#include "app.h"
#include "menus.h"

/* Longest name taken from a session title. */
#define SAVE_NAME_MAX 40

int
tui_xdg_path(char *buf, size_t cap, const char *var, const char *home_dir, const char *leaf)
{
    const char *x = getenv(var), *home = getenv("HOME");
    int n;

    if (x != NULL && x[0] == '/')
        n = snprintf(buf, cap, "%s/rwkv-tui/%s", x, leaf);
    else if (home != NULL && home[0] != '\0')
        n = snprintf(buf, cap, "%s/%s/rwkv-tui/%s", home, home_dir, leaf);
    else
        return -1;
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

int
tui_state_dir(char *buf, size_t cap)
{
    return tui_xdg_path(buf, cap, "XDG_DATA_HOME", ".local/share", "states");
}

int
tui_make_dirs(const char *dir)
{
    char p[1024];
    size_t n = strlen(dir);

    if (n == 0 || n >= sizeof p)
        return errno = ENAMETOOLONG, -1;
    memcpy(p, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != '\0')
            continue;
        p[i] = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST)
            return -1;
        p[i] = dir[i];
    }
    return 0;
}

/* A file-name stem from TITLE: letters and digits of any script (a
** Chinese title stays Chinese), '-', '_' and '.' kept, runs of anything
** else -- '/', control codes, spaces, punctuation, invalid UTF-8 -- one '-';
** at most SAVE_NAME_MAX bytes, never a character cut; "" when nothing is
** left. */
static void
name_from_title(const char *title, char *out, size_t cap)
{
    size_t k = 0, len = strlen(title), n;
    mbstate_t ms;
    int dash = 0;

    memset(&ms, 0, sizeof ms);
    for (size_t i = 0; i < len && k + 1 < cap && k < SAVE_NAME_MAX; i += n) {
        const unsigned char c = (unsigned char)title[i];
        wchar_t wc;
        int keep;

        n = 1;
        if (c < 0x80) {
            keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '-' || c == '_' || (c == '.' && k > 0);
        } else {
            n = mbrtowc(&wc, title + i, len - i, &ms);
            keep = n != (size_t)-1 && n != (size_t)-2 && n > 0 && iswalnum((wint_t)wc);
            if (!keep) {
                memset(&ms, 0, sizeof ms);
                n = n == (size_t)-1 || n == (size_t)-2 || n == 0 ? 1 : n;
            } else if (k + n >= cap || k + n > SAVE_NAME_MAX) {
                break;                      /* no half a character */
            }
        }
        if (keep) {
            memcpy(out + k, title + i, n);
            k += n;
            dash = 0;
        } else if (!dash && k > 0) {
            out[k++] = '-';
            dash = 1;
        }
    }
    while (k > 0 && (out[k - 1] == '-' || out[k - 1] == '.'))
        k--;
    out[k] = '\0';
}

void
tui_state_save_ask(struct app *a)
{
    char dir[1024], stem[SAVE_NAME_MAX + 8], path[1200];
    struct stat sb;

    if (a->busy) {
        tui_notice(a, 1, "wait for the model to finish (Esc cancels it), then save the state");
        return;
    }
    name_from_title(a->session_title, stem, sizeof stem);
    if (stem[0] == '\0') {
        time_t t = time(NULL);
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(stem, sizeof stem, "state-%Y%m%d-%H%M%S", &tm);
    }
    if (tui_state_dir(dir, sizeof dir) != 0)
        snprintf(dir, sizeof dir, ".");
    snprintf(path, sizeof path, "%s/%s.pth", dir, stem);
    for (int i = 2; i < 100 && stat(path, &sb) == 0; i++)
        snprintf(path, sizeof path, "%s/%s-%d.pth", dir, stem, i);
    tui_replace_forget();
    tui_prompt_open(a, TUI_PROMPT_SAVE_STATE, "save the current state as: ", path);
}

int
tui_state_save(struct app *a, const char *path_in)
{
    char path[1200], dir[1024], k[16], tgt[4096], shown[5400];
    const char *home = getenv("HOME");
    size_t dl;
    rwkv_err err;
    int listed = 0;

    while (*path_in == ' ')
        path_in++;
    if (*path_in == '\0') {
        tui_notice(a, 1, "no file name: the state was not saved");
        return -1;
    }
    if (a->busy) {
        tui_notice(a, 1, "wait for the model to finish (Esc cancels it), then save the state");
        return -1;
    }
    if (path_in[0] == '~' && path_in[1] == '/' && home != NULL)
        snprintf(path, sizeof path, "%s%s", home, path_in + 1);
    else
        snprintf(path, sizeof path, "%s", path_in);
    if (tui_replace_ask(a, TUI_PROMPT_SAVE_STATE, path, path_in))
        return -1;
    /* the default folder is ours to create; any other must exist */
    if (tui_state_dir(dir, sizeof dir) == 0 && (dl = strlen(dir)) > 0 &&
        strncmp(path, dir, dl) == 0 && path[dl] == '/' && strchr(path + dl + 1, '/') == NULL &&
        tui_make_dirs(dir) != 0) {
        tui_notice(a, 1, "%s: cannot create the folder: %s", dir, strerror(errno));
        return -1;
    }
    /* the runtime's save: the state as shown (a kept message fed first),
    ** never over the model or the session database */
    if (a->sess == NULL) {
        tui_notice(a, 1, "no model loaded: the state was not saved");
        return -1;
    }
    tui_notice_now(a, TR_NOOP("saving the state to %s..."), path);
    if (sess_state_save(a->sess, path, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return -1;
    }
    tui_menu_open(a, TUI_MENU_STATES);
    for (size_t i = 0; i < a->menu.nvis; i++) {
        const tui_menu_item *it = &a->menu.items[a->menu.vis[i]];
        if (it->data != NULL && strcmp(it->data, path) == 0) {
            a->menu.sel = i;
            listed = 1;
            break;
        }
    }
    /* the notice outlives the menu (Esc closes it, the footer keeps the
    ** line), and a file saved outside the menu's folders is not in it: so
    ** it names the menu's key, and Enter only where the file is listed */
    cfg_key_name(a->cfg.keys[CFG_ACT_STATES], k, sizeof k);
    /* written through a link (rwkv_output_target; the link kept): the file
    ** that changed is named too */
    if (rwkv_output_target(path, tgt, sizeof tgt) == 0 && strcmp(tgt, path) != 0)
        snprintf(shown, sizeof shown, TR("%s through the link %s"), tgt, path);
    else
        snprintf(shown, sizeof shown, "%s", path);
    if (listed)
        tui_notice(a, 0, "state saved to %s (in %s, Enter starts from it; --state loads it)",
                   shown, k);
    else
        tui_notice(a, 0, "state saved to %s (not listed in %s; --state loads it)", shown, k);
    return 0;
}
