/*
** notice.c -- the footer's notice and the message log (M-l): every notice
** and error goes through tui_notice, which shows it in the footer (a long
** error opens the dialog when drawn: view.c) and keeps it, stamped with the
** time, in the log's ring of TUI_LOG_MAX messages (the oldest let go when
** it is full, counted in log_dropped: M-l says how many); tui_log_only
** keeps one without showing it, and tui_notice_now shows one at once
** without keeping it (what a UI-thread database write is doing while it may
** wait).  The log keeps a message whole, however long; the footer's copy is
** cut to TUI_NOTICE bytes (notice_cut says so).
** While a quit takes the job it stopped (a->quitting), an error is also kept
** for stderr (quit.c): the screen may be gone before it is drawn.  UI
** thread only.
** The format is a message id (i18n.h): shown in the interface language.
*/
#include "app.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/text/utf8.h"

/* Keep MSG in the message log, stamped with the time. */
void
tui_log_add(struct app *a, int is_err, const char *msg)
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
    snprintf(e, n, "%s  %s", stamp, msg);       /* "error: " when shown */
    free(a->log[a->log_next]);
    a->log[a->log_next] = e;
    a->log_err[a->log_next] = is_err != 0;
    a->log_next = (a->log_next + 1) % TUI_LOG_MAX;
    if (a->log_n < TUI_LOG_MAX)
        a->log_n++;
    else
        a->log_dropped++;
}

char *
tui_log_entry(const struct app *a, int k)
{
    int i = (a->log_next - a->log_n + k + 2 * TUI_LOG_MAX) % TUI_LOG_MAX;
    const char *e = a->log[i], *msg = strstr(e, "  ");
    const char *pre = a->log_err[i] ? TR("error: ") : "";
    size_t n = strlen(e) + strlen(pre) + 1;
    char *out = tui_xmalloc(n);

    msg = msg ? msg + 2 : e;                     /* past the stamp */
    snprintf(out, n, "%.*s%s%s", (int)(msg - e), e, pre, msg);
    return out;
}

void
tui_log_only(struct app *a, const char *msg)
{
    tui_log_add(a, 0, msg);
}

/* MSG, the whole of the notice just set: into the log; an error said while
** a quit takes the job it stopped is also kept for stderr (quit.c), the
** screen being about to go. */
static void
keep(struct app *a, int is_err, const char *msg)
{
    tui_log_add(a, is_err, msg);
    if (is_err && a->quitting)
        tui_quit_keep(a, 1, msg);
}

/* A cut copy ends on a whole character: a sequence the cut broke goes. */
static void
cut_whole(char *s)
{
    size_t n = strlen(s), i = n;

    while (i > 0 && n - i < 4 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
        i--;
    if (i > 0 && utf8_decode((const unsigned char *)s + i - 1, n - i + 1, NULL) == 0)
        s[i - 1] = '\0';
}

/* Whether the message log's newest entry is MSG (IS_ERR: as an error). */
static int
log_newest_is(const struct app *a, int is_err, const char *msg)
{
    int i = (a->log_next + TUI_LOG_MAX - 1) % TUI_LOG_MAX;
    const char *e;

    if (a->log_n == 0)
        return 0;
    e = a->log[i] ? strstr(a->log[i], "  ") : NULL;   /* past the time stamp */
    return e != NULL && a->log_err[i] == (is_err != 0) && strcmp(e + 2, msg) == 0;
}

void
tui_notice_once(struct app *a, int is_err, const char *msg)
{
    if (!log_newest_is(a, is_err, msg)) {
        tui_notice(a, is_err, "%s", msg);
        return;
    }
    snprintf(a->notice, sizeof a->notice, "%s", msg);
    cut_whole(a->notice);
    a->notice_err = is_err;
    a->notice_cut = strlen(msg) >= sizeof a->notice;
    a->dirty = 1;
}

/* A message wholly in parentheses (the runtime's asides, which the line
** chat prints as such under the line they qualify) stands alone here: a
** notice reads as a sentence, so the outer pair goes.  Only when the first
** "(" closes at the very end: "(a) and (b)" keeps its own. */
static void
unwrap(char *s)
{
    size_t n = strlen(s), i;
    int depth = 0;

    if (n < 2 || s[0] != '(' || s[n - 1] != ')')
        return;
    for (i = 0; i < n; i++) {
        depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
        if (depth == 0)
            break;
    }
    if (i != n - 1)
        return;
    memmove(s, s + 1, n - 2);
    s[n - 2] = '\0';
}

void
tui_notice(struct app *a, int is_err, const char *fmt, ...)
{
    va_list ap, again;
    int n;
    char *whole;

    va_start(ap, fmt);
    va_copy(again, ap);
    n = vsnprintf(a->notice, sizeof a->notice, tui_tr(fmt), ap);
    va_end(ap);
    a->notice_err = is_err;
    a->notice_cut = n >= (int)sizeof a->notice;
    a->dirty = 1;
    if (!a->notice_cut) {
        va_end(again);
        unwrap(a->notice);
        keep(a, is_err, a->notice);
        return;
    }
    whole = tui_xmalloc((size_t)n + 1);       /* the log keeps it whole */
    vsnprintf(whole, (size_t)n + 1, tui_tr(fmt), again);
    va_end(again);
    unwrap(whole);
    snprintf(a->notice, sizeof a->notice, "%s", whole);
    cut_whole(a->notice);
    keep(a, is_err, whole);
    free(whole);
}

void
tui_notice_lead(struct app *a)
{
    snprintf(a->job_line, sizeof a->job_line, "%s", a->notice_cut ? "" : a->notice);
    a->job_lead = a->notice_err ? 0 : strlen(a->job_line);
}

void
tui_notice_job(struct app *a, const char *line)
{
    char was[TUI_NOTICE], *one = tui_xstrdup(line);
    size_t lead = a->job_lead;
    int ours = a->job_line[0] && !a->notice_cut && strcmp(a->notice, a->job_line) == 0, n;

    unwrap(one);
    if (ours && a->notice_err) {
        keep(a, 0, one);                  /* the job's error stays in view */
    } else if (!ours) {
        tui_notice(a, 0, "%s", one);      /* alone: the job's first line */
        tui_notice_lead(a);
        a->job_lead = 0;
    } else {
        /* after the lead, before the older lines (what follows the lead
        ** starts with "; ") */
        memcpy(was, a->notice, sizeof was);
        if (lead > 0)
            n = snprintf(a->notice, sizeof a->notice, "%.*s; %s%s", (int)lead, was, one,
                         was + lead);
        else
            n = snprintf(a->notice, sizeof a->notice, "%s; %s", one, was);
        a->notice_cut = n >= (int)sizeof a->notice;
        if (a->notice_cut)
            cut_whole(a->notice);
        a->dirty = 1;
        keep(a, 0, one);
        snprintf(a->job_line, sizeof a->job_line, "%s", a->notice_cut ? "" : a->notice);
    }
    free(one);
}

void
tui_notice_now(struct app *a, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(a->notice, sizeof a->notice, tui_tr(fmt), ap);
    va_end(ap);
    if (n >= (int)sizeof a->notice)
        cut_whole(a->notice);
    a->notice_err = 0;
    a->notice_cut = n >= (int)sizeof a->notice;
    tui_view_draw(a);
}
