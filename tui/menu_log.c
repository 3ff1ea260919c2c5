/*
** menu_log.c -- M-l: every notice and error of this run, newest first, in
** full (the footer shows one line; a long message is wrapped here).
*/
#include "menus.h"

#include <stdio.h>
#include <string.h>

#include "text.h"

/* Add message M over as many rows of W columns as it needs (cut on
** character boundaries), the rows after the first indented. */
static void
add_wrapped(tui_menu *m, const char *s, int w)
{
    size_t len = strlen(s);
    int first = 1;

    while (len > 0) {
        char row[1024];
        size_t take = len;
        if (tui_str_width(s, take) > w || take >= sizeof row - 4) {
            take = 0;
            while (take < len && take < sizeof row - 8) {
                size_t nx = take + 1;
                while (nx < len && ((unsigned char)s[nx] & 0xC0) == 0x80)
                    nx++;
                if (tui_str_width(s, nx) > w)
                    break;
                take = nx;
            }
            if (take == 0)
                take = len;
        }
        snprintf(row, sizeof row, "%s%.*s", first ? "" : "          ", (int)take, s);
        tui_menu_add(m, row, NULL, NULL, -1);
        s += take;
        len -= take;
        first = 0;
    }
}

static void
fill_log(tui_menu *m, const struct app *a, tui_menu_msg *msg)
{
    int w = a->cols > 24 ? a->cols - 12 : 12;

    (void)msg;
    if (a->log_n == 0)
        tui_menu_add(m, "(no messages yet)", NULL, NULL, -1);
    for (int k = 0; k < a->log_n; k++)
        add_wrapped(m, a->log[(a->log_next - 1 - k + TUI_LOG_MAX) % TUI_LOG_MAX], w);
}

static const tui_menu_keydef log_keys[] = {
    { TUI_MK_FKEY(KEY_PPAGE), TUI_MK_FKEY(KEY_NPAGE), "PgUp/PgDn", "scroll", NULL, NULL },
    { 0, 0, NULL, NULL, NULL, NULL }
};

const tui_menu_class tui_menu_log_class = {
    TUI_MENU_LOG, CFG_ACT_LOG, "Messages", "Messages (newest first)", fill_log, NULL, NULL,
    log_keys
};
