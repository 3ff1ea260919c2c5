/*
** menu_log.c -- M-l: every notice and error of this run, newest first, in
** full (the footer shows one line; a long message is wrapped here); the
** last TUI_LOG_MAX of them, and a line saying how many older ones went.
*/
#include "menus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

/* Every entry starts with the "HH:MM:SS  " of notice.c's tui_log_add. */
#define LOG_STAMP_COLS 10

/* Add entry S (stamp, then the message) over as many rows of W columns as
** it needs: the message wrapped at spaces where it can, as the transcript
** is, in W - LOG_STAMP_COLS columns, the rows after the first indented by
** as much (they were W wide after the indent, so the box cut their end). */
static void
add_wrapped(tui_menu *m, const char *s, int w)
{
    size_t n = strlen(s) > LOG_STAMP_COLS ? LOG_STAMP_COLS : strlen(s);
    tui_span *sp;
    size_t k = tui_wrap(s + n, strlen(s + n), w - LOG_STAMP_COLS, &sp);

    for (size_t i = 0; i < k; i++) {
        size_t cap = sp[i].len + LOG_STAMP_COLS + 1;
        char *row = tui_xmalloc(cap);
        snprintf(row, cap, "%.*s%.*s", (int)n, i ? "                " : s, (int)sp[i].len,
                 s + n + sp[i].off);
        tui_menu_add(m, row, NULL, NULL, -1);
        free(row);
    }
    free(sp);
}

static void
fill_log(tui_menu *m, const struct app *a, tui_menu_msg *msg)
{
    /* the menu box's row width (view.c's draw_menu: at most 76 wide, a
    ** border and a margin each side) */
    int w = a->cols - 8 < 72 ? a->cols - 8 : 72;

    (void)msg;
    if (w < LOG_STAMP_COLS + 8)
        w = LOG_STAMP_COLS + 8;
    if (a->log_n == 0)
        tui_menu_add(m, TR("(no messages yet)"), NULL, NULL, -1);
    for (int k = a->log_n - 1; k >= 0; k--) {
        char *e = tui_log_entry(a, k);        /* (an error's "error: " now) */
        add_wrapped(m, e, w);
        free(e);
    }
    if (a->log_dropped > 0) {
        char line[160];
        snprintf(line, sizeof line, TR("(%ld older messages not kept: the log holds the last %d)"),
                 a->log_dropped, TUI_LOG_MAX);
        tui_menu_add(m, line, NULL, NULL, -1);
    }
}

static const tui_menu_keydef log_keys[] = {
    { TUI_MK_FKEY(KEY_PPAGE), TUI_MK_FKEY(KEY_NPAGE), "PgUp/PgDn", TR_NOOP("scroll"), NULL, NULL, 0 },
    { 0, 0, NULL, NULL, NULL, NULL, 0 }
};

const tui_menu_class tui_menu_log_class = {
    TUI_MENU_LOG, CFG_ACT_LOG, TR_NOOP("Messages"), TR_NOOP("Messages (newest first)"), fill_log, NULL, NULL,
    log_keys, 0
};
