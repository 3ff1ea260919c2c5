/*
** notice.c -- the footer's notice and the message log (M-l): every notice
** and error goes through tui_notice, which shows it in the footer (a long
** error opens the dialog when drawn: view.c) and keeps it, stamped with the
** time, in the log's ring of TUI_LOG_MAX messages; tui_log_only keeps one
** without showing it.  UI thread only.  The format is a message id
** (i18n.h): shown in the interface language.
*/
#include "app.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Keep MSG in the message log, stamped with the time. */
static void
log_add(struct app *a, int is_err, const char *msg)
{
    char stamp[16];
    time_t now = time(NULL);
    struct tm tm;
    size_t n;
    char *e;

    if (msg[0] == '\0')
        return;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
    n = strlen(stamp) + strlen(msg) + 16;
    e = tui_xmalloc(n);
    snprintf(e, n, "%s  %s%s", stamp, is_err ? TR("error: ") : "", msg);
    free(a->log[a->log_next]);
    a->log[a->log_next] = e;
    a->log_next = (a->log_next + 1) % TUI_LOG_MAX;
    if (a->log_n < TUI_LOG_MAX)
        a->log_n++;
}

void
tui_log_only(struct app *a, const char *msg)
{
    log_add(a, 0, msg);
}

void
tui_notice(struct app *a, int is_err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(a->notice, sizeof a->notice, tui_tr(fmt), ap);
    va_end(ap);
    a->notice_err = is_err;
    a->dirty = 1;
    log_add(a, is_err, a->notice);
}
