/*
** view.c -- drawing.  Reads the app's models (transcript rows, input
** layout, menu, sampling values) and paints them; changes nothing but the
** transcript's wrap width, its scroll position clamped to the view
** (tui_tr_fit) and the remembered view height.  Of the session
** runtime it reads only the app's copies (tui_session_sync): a redraw comes
** while a worker job may be replacing the runtime's chat and framing.
**
**   row 0          status line (model, strategy, state, session, speeds;
**                  a progress bar while a model loads or a prompt is prefilled)
**   rows 1..k      transcript | sidebar (parameters; hidden or narrow: off)
**   row k+1        separator (the input box's border)
**   rows ..        input box (1..TUI_INPUT_MAX_ROWS rows)
**   last row       footer: keys, a notice, or a prompt
**   menus          a centred box over the transcript
*/
#define _XOPEN_SOURCE 700
#define NCURSES_WIDECHAR 1
#include "app.h"
#include "menus.h"   /* TUI_RETRY_REFUSED */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ncursesw/curses.h>

#include "sidebar.h"
#include "text.h"


/*
** #rrggbb theme colours on a 256-colour terminal that says it has true
** colour (COLORTERM=truecolor or 24bit) and lets programs set colours
** (can_change_color: terminfo ccc/initc): palette slots from 255 down are
** set to them, so they are exact; curses restores the palette at exit
** (terminfo oc).  A direct-colour terminfo needs none of this.  Returns the
** slot for RGB, or -1 (then the nearest palette colour is used).
*/
static int
rgb_slot(int rgb, int *slots, int *nslots)
{
    int k;

    for (k = 0; k < *nslots; k++)
        if (slots[k] == rgb)
            return 255 - k;
    if (*nslots >= 2 * THEME_ROLE_COUNT || 255 - *nslots < 16)
        return -1;
    if (init_extended_color(255 - *nslots, (rgb >> 16 & 255) * 1000 / 255,
                            (rgb >> 8 & 255) * 1000 / 255, (rgb & 255) * 1000 / 255) != OK)
        return -1;
    slots[(*nslots)++] = rgb;
    return 255 - k;
}

/*
** Colour pairs from the theme, one per role, mapped to what the terminal has
** (theme_map_style: 8, 16, 88, 256 colours or direct RGB).  The bold/dim
** that stand in for greys on 8-colour terminals join the role's attributes.
*/
void
tui_view_init_colors(struct app *a)
{
    const char *ct = getenv("COLORTERM");
    int light, slots[2 * THEME_ROLE_COUNT], nslots = 0;
    int settable = ct && (strcmp(ct, "truecolor") == 0 || strcmp(ct, "24bit") == 0) &&
                   COLORS >= 256 && COLORS < THEME_RGB_FLAG && can_change_color();

    if (!a->has_colors) {           /* vt100, vt220: as NO_COLOR */
        theme_strip_colors(&a->th);
        return;
    }
    light = theme_is_light(&a->th);
    for (int i = 0; i < THEME_ROLE_COUNT && i + 1 < COLOR_PAIRS; i++) {
        theme_style st = a->th.role[i];
        int fg, bg;
        unsigned extra;
        /* a foreground and background the theme keeps apart that are one
        ** colour (21 and #0000ff) take no slots: mapped to the palette,
        ** theme_map_style keeps them apart */
        int one = st.fg >= 0 && st.bg >= 0 && st.fg != st.bg &&
                  theme_color_rgb(st.fg) == theme_color_rgb(st.bg);
        if (settable && !one && (st.fg & THEME_RGB_FLAG) && st.fg >= 0) {
            int k = rgb_slot(st.fg & 0xFFFFFF, slots, &nslots);
            st.fg = k >= 0 ? k : st.fg;
        }
        if (settable && !one && (st.bg & THEME_RGB_FLAG) && st.bg >= 0) {
            int k = rgb_slot(st.bg & 0xFFFFFF, slots, &nslots);
            st.bg = k >= 0 ? k : st.bg;
        }
        theme_map_style(&st, COLORS, light, &fg, &bg, &extra);
        init_extended_pair(i + 1, fg, bg);
        a->th.role[i].attrs |= extra;
    }
}

void
tui_view_set_theme(struct app *a, const theme *t, const char *name)
{
    a->th = *t;
    snprintf(a->theme_name, sizeof a->theme_name, "%s", name);
    if (getenv("NO_COLOR") && *getenv("NO_COLOR"))
        theme_strip_colors(&a->th);
    tui_view_init_colors(a);        /* (mapped to the terminal's colours) */
    clearok(curscr, TRUE);
    a->dirty = 1;
}

int
tui_role_attr(const struct app *a, int role)
{
    const theme_style *s = &a->th.role[role];
    int attr = 0;

    if (a->has_colors && role + 1 < COLOR_PAIRS)
        attr |= (int)COLOR_PAIR(role + 1);
    if (s->attrs & THEME_BOLD)
        attr |= A_BOLD;
    if (s->attrs & THEME_UNDERLINE)
        attr |= A_UNDERLINE;
    if (s->attrs & THEME_REVERSE)
        attr |= A_REVERSE;
    if (s->attrs & THEME_DIM)
        attr |= A_DIM;
#ifdef A_ITALIC
    if (s->attrs & THEME_ITALIC)
        attr |= A_ITALIC;
#endif
    return attr;
}

/* Fill row Y from X to X+W-1 with spaces in ATTR. */
static void
fill(int y, int x, int w, int attr)
{
    attrset(attr);
    for (int i = 0; i < w; i++)
        mvaddch(y, x + i, ' ');
}

/*
** A cluster curses would split (an emoji ZWJ sequence, an emoji with a skin
** tone: code points with a width of their own after the first) put in one
** cell: curses writes every code point a cell holds and advances by the
** first one's width, which is the cluster's.  setcchar() stops at the
** second spacing code point, so the rest are filled in by hand.  -1 when
** the cluster has more than a cell holds (CCHARW_MAX code points).
*/
static int
put_cell(const char *s, size_t k)
{
#if defined(NCURSES_VERSION) && defined(CCHARW_MAX)
    cchar_t cc;
    wchar_t wc[CCHARW_MAX + 1], first[2];
    size_t i = 0;
    int n = 0;

    while (i < k) {
        uint32_t cp;
        if (n == CCHARW_MAX)
            return -1;
        i += tui_next_cp(s + i, k - i, &cp);
        wc[n++] = (wchar_t)cp;
    }
    first[0] = wc[0];
    first[1] = 0;
    if (n == 0 || setcchar(&cc, first, 0, 0, NULL) != OK)
        return -1;
    for (int j = 1; j < CCHARW_MAX; j++)
        cc.chars[j] = j < n ? wc[j] : 0;
    return add_wch(&cc) == OK ? 0 : -1;
#else
    (void)s;
    (void)k;
    return -1;
#endif
}

static int
has_zwj(const char *s, size_t k)
{
    for (size_t i = 0; i + 2 < k; i++)
        if (s[i] == '\xe2' && s[i + 1] == '\x80' && s[i + 2] == '\x8d')
            return 1;
    return 0;
}

/* 1 when the K bytes at S are all ASCII. */
static int
is_ascii(const char *s, size_t k)
{
    for (size_t i = 0; i < k; i++)
        if ((unsigned char)s[i] >= 0x80)
            return 0;
    return 1;
}

/* Put N bytes of UTF-8 text at (Y, X), at most MAXW columns; returns the
** columns used.  Characters that would cross MAXW are left out.  Drawn by
** grapheme cluster (tui_cluster), so curses' idea of the columns is the
** same as the terminal's for combining marks, emoji sequences and flags.
** Outside a UTF-8 locale (LANG=C) curses cannot draw the rest of Unicode:
** a cluster that is not ASCII is a '?' per column it was counted. */
static int
put(int y, int x, const char *s, size_t n, int maxw, int attr)
{
    size_t i = 0;
    int w = 0, flags = 0, utf8 = MB_CUR_MAX > 1;

    if (maxw <= 0)
        return 0;
    attrset(attr);
    move(y, x);
    while (i < n) {
        size_t d;
        int cw;
        size_t k = tui_cluster(s + i, n - i, &cw, &d);
        if (w + cw > maxw)
            break;
        if (!utf8 && !is_ascii(s + i, k))
            addnstr("??", cw);
        else if (d < k && has_zwj(s + i, k) && put_cell(s + i, k) == 0)
            ;                           /* a ZWJ sequence in one cell */
        else if (d > 0)
            addnstr(s + i, (int)d);     /* else what keeps its width */
        if (cw == 2 && d == k && k == 8 && (unsigned char)s[i] == 0xF0 &&
            (unsigned char)s[i + 1] == 0x9F && (unsigned char)s[i + 2] == 0x87)
            flags = 1;
        w += cw;
        i += k;
    }
    /* a flag is two cells to curses and one glyph to the terminal, which
     * joins its halves only when they arrive together: repaint the row
     * whole rather than let curses send one changed half */
    if (flags)
        wredrawln(stdscr, y, 1);
    return w;
}

static int
puts_(int y, int x, const char *s, int maxw, int attr)
{
    return put(y, x, s, strlen(s), maxw, attr);
}

/* The cells tui_ellipsis() takes: "…" in a UTF-8 locale, else "...". */
#define ELLIPSIS_W (MB_CUR_MAX > 1 ? 1 : 3)

static long
rss_mib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, rss = 0;

    if (f == NULL)
        return 0;
    if (fscanf(f, "%ld %ld", &size, &rss) != 2)
        rss = 0;
    fclose(f);
    return rss * (sysconf(_SC_PAGESIZE) / 1024) / 1024;
}

void
tui_view_bar_text(char *out, size_t cap, const char *label, double frac, int bar_w,
                  const char *detail)
{
    char bar[4 * 64 + 1];

    if (bar_w > 64)
        bar_w = 64;
    tui_progress_bar(bar, sizeof bar, frac, bar_w, MB_CUR_MAX > 1);
    if (frac < 0 || !(frac == frac))
        frac = 0;
    if (frac > 1)
        frac = 1;
    snprintf(out, cap, " %s%s[%s] %3d%%%s%s ", label, label[0] ? " " : "", bar,
             (int)(frac * 100), detail && detail[0] ? " " : "", detail ? detail : "");
}

#define TUI_STATUS_LEFT_MIN 24   /* columns of model/state kept beside a bar */
#define TUI_STATUS_TITLE_MAX 24  /* columns of the session title in the status line */
#define TUI_STATUS_TITLE_MIN 12  /* ... when it gives way to the speeds */
#define TUI_STATUS_DEMO_IDLE 8   /* columns the demo label leaves when idle (a
                                    token count), else it is the short one */

/* Seconds as "7s", "3m05s", "2h10m". */
static void
fmt_eta(char *out, size_t cap, double s)
{
    long t = (long)(s + 0.5);

    if (t < 60)
        snprintf(out, cap, "%lds", t);
    else if (t < 3600)
        snprintf(out, cap, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(out, cap, "%ldh%02ldm", t / 3600, t / 60 % 60);
}

/* The widest the status line's changing numbers are taken to get (a count
** of a million tokens, a speed of 100000 tok/s, a process of 1000000 MiB,
** 99 hours left): while a job runs, what the line drops at a width is
** decided from these, not from this frame's digits, so its fields stay put
** while a reply streams. */
#define ST_WORST_TOK 999999ULL
#define ST_WORST_TPS 99999.9
#define ST_WORST_MIB 999999L
#define ST_WORST_ETA (99.0 * 3600 + 59 * 60)

static unsigned long long
st_tok(int worst, unsigned long long n)
{
    return worst && n < ST_WORST_TOK ? ST_WORST_TOK : n;
}

/* V, or at WORST the widest speed: TOP (a prefill, shown without a
** decimal, is taken to get ten times as fast as a decode) */
static double
st_tps(int worst, double v, double top)
{
    return worst && v < top ? top : v;
}

/* The fields of the status line's speeds: what runs, the prefill and the
** decode speed, the process size. */
struct st_fields {
    char busy[96], pf[64], dc[64], mib[32];
};

/* What a prefill does: a session job (resume, sibling, state switch) feeds
** a stored conversation again, "replaying"; else a prompt, "prefilling". */
static const char *
feeding(const struct app *a)
{
    return a->busy && a->w.job >= TUI_JOB_OPEN ? TR("replaying") : TR("prefilling");
}

/* The fields now, or (WORST) at their widest; a decode speed is counted
** as there while a reply is generated, before its first report. */
static void
status_fields(const struct app *a, int worst, struct st_fields *f)
{
    const chat_stats *ls = &a->last_stats;
    const char *what = feeding(a);
    long mib = rss_mib();

    f->busy[0] = f->pf[0] = f->dc[0] = '\0';
    if (a->busy && a->w.job >= TUI_JOB_OPEN && ls->prefill_total == 0)
        ;   /* a session job before its first replay report: none may come */
    else if (a->busy && a->phase == CHAT_PREFILL)
        snprintf(f->busy, sizeof f->busy, "%s %llu tok... ", what,
                 st_tok(worst, ls->prefill_tokens));
    else if (a->busy && a->alt_n > 1)
        snprintf(f->busy, sizeof f->busy, TR("alternative %d/%d: generating %llu tok... "),
                 worst ? a->alt_n : a->alt_k, a->alt_n, st_tok(worst, ls->gen_tokens));
    else if (a->busy)
        snprintf(f->busy, sizeof f->busy, TR("generating %llu tok... "),
                 st_tok(worst, ls->gen_tokens));
    /* speeds of the last turn, each with its unit; none before there is one
    ** (no "decode 0.0 tok/s" before anything was generated) */
    if (ls->prefill_tps > 0 && ls->prefill_tokens > 0)
        snprintf(f->pf, sizeof f->pf, TR("prefill %.0f tok/s"),
                 st_tps(worst, ls->prefill_tps, ST_WORST_TPS * 10));
    if ((ls->decode_tps > 0 && ls->gen_tokens > 0) ||
        (worst && a->busy && a->phase != CHAT_PREFILL))
        snprintf(f->dc, sizeof f->dc, TR("decode %.1f tok/s"),
                 st_tps(worst, ls->decode_tps, ST_WORST_TPS));
    snprintf(f->mib, sizeof f->mib, "%ld MiB", worst && mib < ST_WORST_MIB ? ST_WORST_MIB : mib);
}

/* S with spaces after it up to W columns. */
static void
pad_to(char *s, size_t cap, int w)
{
    size_t n = strlen(s);

    for (int sw = tui_str_width(s, n); sw < w && n + 1 < cap; sw++)
        s[n++] = ' ';
    s[n] = '\0';
}

/* S with spaces before it up to W columns: a number before its unit (the
** last field, "N MiB") keeps the unit's column as the digits grow. */
static void
pad_front(char *s, size_t cap, int w)
{
    size_t n = strlen(s);
    int k = w - tui_str_width(s, n);

    if (k <= 0 || n + (size_t)k + 1 > cap)
        return;
    memmove(s + k, s, n + 1);
    memset(s, ' ', (size_t)k);
}

/* The right part of the status line in three sizes (FULL, MID, SHRT), with
** its numbers now or (WORST) at their widest.  While a job runs each field
** keeps the room of its widest, so that none moves as the digits change. */
static void
status_right(struct app *a, int worst, char *full, char *mid, char *shrt, size_t cap)
{
    const chat_stats *ls = &a->last_stats;
    const char *what = feeding(a);
    struct st_fields f;

    if (a->loading) {
        double fr = a->load_frac;
        tui_view_bar_text(full, cap, TR("loading"), fr, 20, a->load_what);
        tui_view_bar_text(mid, cap, TR("loading"), fr, 12, "");
        tui_view_bar_text(shrt, cap, "", fr, 6, "");
        return;
    }
    if (a->busy && a->phase == CHAT_PREFILL && ls->prefill_total > 0) {
        /* a long prompt (or the greeting) is being fed: a bar with the count
        ** and, once the rate is known, the time left */
        double fr = (double)ls->prefill_tokens / (double)ls->prefill_total;
        double tps = st_tps(worst, ls->prefill_tps, ST_WORST_TPS * 10);
        unsigned long long done = worst ? ls->prefill_total : ls->prefill_tokens;
        char det[160], eta[32] = "";
        if (worst || (ls->prefill_tps > 0 && ls->prefill_tokens < ls->prefill_total)) {
            char t[24];
            fmt_eta(t, sizeof t, worst ? ST_WORST_ETA
                                       : (double)(ls->prefill_total - ls->prefill_tokens) /
                                             ls->prefill_tps);
            snprintf(eta, sizeof eta, TR("  %s left"), t);
        }
        snprintf(det, sizeof det, "%llu/%llu tok  %.0f tok/s%s", done,
                 (unsigned long long)ls->prefill_total, tps, eta);
        tui_view_bar_text(full, cap, what, fr, 20, det);
        snprintf(det, sizeof det, "%llu/%llu tok", done, (unsigned long long)ls->prefill_total);
        tui_view_bar_text(mid, cap, what, fr, 12, det);
        tui_view_bar_text(shrt, cap, what, fr, 8, "");
        return;
    }
    status_fields(a, worst, &f);
    if (!worst && a->busy) {
        struct st_fields w;
        status_fields(a, 1, &w);
        pad_to(f.busy, sizeof f.busy, tui_str_width(w.busy, strlen(w.busy)));
        pad_to(f.pf, sizeof f.pf, tui_str_width(w.pf, strlen(w.pf)));
        pad_to(f.dc, sizeof f.dc, tui_str_width(w.dc, strlen(w.dc)));
        pad_front(f.mib, sizeof f.mib, tui_str_width(w.mib, strlen(w.mib)));
    }
    snprintf(full, cap, " %s%s%s%s%s%s ", f.busy, f.pf, f.pf[0] ? "  " : "", f.dc,
             f.dc[0] ? "  " : "", f.mib);
    snprintf(mid, cap, " %s%s%s%s ", f.busy, f.pf, f.pf[0] && f.dc[0] ? "  " : "", f.dc);
    snprintf(shrt, cap, " %s%s ", f.busy, f.dc[0] ? f.dc : f.pf);
}

/*
** The running job on a line too narrow for the right part's short form:
** its count alone (" generating 12 tok... ") into CNT and at its widest
** into WCNT, its name alone (" generating...", a prefill bar's percentage)
** into NAME -- so that a job running is in sight at any width.  "" each
** when no job shows there (idle; a load, whose short bar fits; a replay
** before its first report).  CAP bytes each.
*/
static void
status_narrow(const struct app *a, char *cnt, char *wcnt, char *name, size_t cap)
{
    const chat_stats *ls = &a->last_stats;
    struct st_fields f;

    cnt[0] = wcnt[0] = name[0] = '\0';
    if (!a->busy || a->loading)
        return;
    if (a->phase == CHAT_PREFILL && ls->prefill_total > 0) {
        /* (99% at most: the prefill is over at 100%) */
        int pct = (int)(100.0 * (double)ls->prefill_tokens / (double)ls->prefill_total);
        snprintf(name, cap, " %s %d%%", feeding(a), pct > 99 ? 99 : pct);
        return;
    }
    status_fields(a, 0, &f);
    if (f.busy[0] == '\0')
        return;
    snprintf(cnt, cap, " %s", f.busy);
    status_fields(a, 1, &f);
    snprintf(wcnt, cap, " %s", f.busy);
    if (a->phase == CHAT_PREFILL)
        snprintf(name, cap, " %s...", feeding(a));
    else
        snprintf(name, cap, " %s", TR("generating..."));
}

/* "think: on | " into BUF for the status line when the session's think
** mode is not off, else "".  Returns BUF.  The UI thread's copy of the mode
** (tui_session_sync): a job may be replacing the runtime's framing. */
static const char *
think_label(const struct app *a, char *buf, size_t cap)
{
    int mode = a->fr_think;

    buf[0] = '\0';
    if (mode != CHAT_THINK_OFF)
        snprintf(buf, cap, TR("think: %s | "), chat_think_name(mode));
    return buf;
}

/* The session title for the status line, in at most MAXW columns (whole
** characters, then the ellipsis) into OUT.  Returns its width. */
static int
status_title(const struct app *a, int maxw, char *out, size_t cap)
{
    const char *t = tui_session_status_title(a);
    int ew = tui_str_width(tui_ellipsis(), strlen(tui_ellipsis()));
    tui_span *sp;

    if (tui_str_width(t, strlen(t)) <= maxw || maxw <= ew) {
        snprintf(out, cap, "%s", t);
    } else {
        tui_wrap(t, strlen(t), maxw - ew, &sp);
        snprintf(out, cap, "%.*s%s", (int)sp[0].len, t, tui_ellipsis());
        free(sp);
    }
    return tui_str_width(out, strlen(out));
}

/*
** The parts of the status line's left part (" model | strategy | think: on |
** state: NAME | session: TITLE | N tok").  Short of room, they give way one
** at a time, in this order (status_left_fit):
**
**   1. the model label beside the DEMO label, and "state: none" (what the
**      screen says elsewhere, and nothing)
**   2. the model label          3. the strategy         4. the think mode
**   5. the word "session:"
**   6. the title cut to the room (TUI_STATUS_TITLE_MIN columns at least)
**   7. the state name (a cut title takes the room it leaves)
**   8. the title cut to the room left (a character and the ellipsis at
**      least), then gone
**
** The token count stays: it alone is cut (once, with the one ellipsis) on a
** line too narrow even for it.
*/
enum {
    SP_MODEL = 1, SP_STRATEGY = 2, SP_THINK = 4, SP_STATE = 8, SP_WORD = 16, SP_TITLE = 32,
    SP_ALL = 63,
    SP_TITLE_MIN = 64            /* not a part: step 6, the title cut */
};

/* The status line's left part with PARTS (SP_*), the session title in at
** most TITLE_W columns, tokens, their count now or at WORST its widest)
** into LEFT.  Returns the title's width. */
static int
status_left(const struct app *a, int parts, int title_w, int worst, char *left, size_t cap)
{
    char title[STORE_TITLE_MAX], think[32], cut[208];
    const char *sp = a->state_path[0] ? strrchr(a->state_path, '/') : NULL;
    int tw = status_title(a, title_w, title, sizeof title);
    unsigned long long ntok = st_tok(worst, tui_session_tokens_now(a));
    size_t o;

    if (!a->model) {
        snprintf(left, cap, " %s", a->load_name);
        return tw;
    }
    sp = sp ? sp + 1 : (a->state_path[0] ? a->state_path : NULL);
    snprintf(left, cap, " %s%s%s%s%s",
             parts & SP_MODEL ? a->model_label : "", parts & SP_MODEL ? " | " : "",
             parts & SP_STRATEGY ? rwkv_model_info(a->model)->strategy : "",
             parts & SP_STRATEGY ? " | " : "",
             parts & SP_THINK ? think_label(a, think, sizeof think) : "");
    o = strlen(left);
    if (parts & SP_STATE)
        o += (size_t)snprintf(left + o, cap - o, TR("state: %s | "),
                              sp ? tui_cut(cut, sizeof cut, sp, 200) : TR("none"));
    if ((parts & SP_TITLE) && o < cap)
        o += (size_t)snprintf(left + o, cap - o, parts & SP_WORD ? TR("session: %s | ") : "%s | ",
                              title);
    if (o < cap)
        snprintf(left + o, cap - o, TR("%llu tok"), ntok);
    return tw;
}

/* 1 when the left part with PARTS and the title in TITLE_W columns fits
** ROOM (the token count at its widest while a job runs: WORST), its width
** over ROOM in *OVER and the title's width in *TW. */
static int
status_left_fits(const struct app *a, int parts, int title_w, int room, int worst, int *over,
                 int *tw)
{
    char left[1600];

    *tw = status_left(a, parts, title_w, worst, left, sizeof left);
    *over = tui_str_width(left, strlen(left)) - room;
    return *over <= 0;
}

/* The left part that fits ROOM columns into LEFT: the most parts that fit,
** given way in the order above; chosen with the token count at its widest
** while a job runs (WORST), shown with the count now. */
static void
status_left_fit(const struct app *a, int room, int worst, char *left, size_t cap)
{
    const char *sp = a->state_path[0] ? a->state_path : NULL;
    const int drop[] = { a->launch.demo ? SP_MODEL : 0, sp ? 0 : SP_STATE, SP_MODEL,
                         SP_STRATEGY, SP_THINK, SP_WORD, SP_TITLE_MIN, SP_STATE };
    int parts = SP_ALL, title_w = TUI_STATUS_TITLE_MAX, over, tw, ew = ELLIPSIS_W;
    size_t i;

    if (!a->model || a->loading) {
        status_left(a, parts, title_w, 0, left, cap);
        return;
    }
    for (i = 0; !status_left_fits(a, parts, title_w, room, worst, &over, &tw); i++) {
        if (i == sizeof drop / sizeof drop[0]) {
            /* the title to the room left (a character and the ellipsis
            ** at least), else gone: the token count stays */
            if (tw - over > ew)
                title_w = tw - over;
            else
                parts &= ~SP_TITLE;
            break;
        }
        if (drop[i] == SP_TITLE_MIN)      /* to the room, not below the least */
            title_w = tw - over > TUI_STATUS_TITLE_MIN ? tw - over : TUI_STATUS_TITLE_MIN;
        else
            parts &= ~drop[i];
    }
    if (over < 0 && title_w < TUI_STATUS_TITLE_MAX)
        /* a cut title takes the room a part that went leaves */
        title_w = tw - over < TUI_STATUS_TITLE_MAX ? tw - over : TUI_STATUS_TITLE_MAX;
    status_left(a, parts, title_w, 0, left, cap);
}

static int puts_cut(int y, int x, const char *s, int maxw, int attr);

static void
draw_status(struct app *a)
{
    int st = tui_role_attr(a, THEME_ROLE_STATUS);
    char left[1600], full[400], mid[400], shrt[400], wfull[400], wmid[400], wshrt[400];
    char cnt[160], wcnt[160], name[160];
    int x = 0, room, lw, rw;
    char *right;

    fill(0, 0, a->cols, st);
    status_narrow(a, cnt, wcnt, name, sizeof cnt);
    if (a->launch.demo) {
        /* the short label where the whole one leaves no room for a running
        ** job's name (idle: a token count) */
        const char *lab = TR(" DEMO MODEL (random weights) ");
        int need = name[0] ? tui_str_width(name, strlen(name)) : TUI_STATUS_DEMO_IDLE;
        if (a->cols - tui_str_width(lab, strlen(lab)) < need)
            lab = TR(" DEMO");        /* (what follows starts with a blank) */
        x += puts_(0, 0, lab, a->cols, tui_role_attr(a, THEME_ROLE_STATUS_DEMO));
    }
    /* while a job runs, what gives way is chosen from the numbers at their
    ** widest (idle, they do not change) */
    status_left(a, SP_ALL, TUI_STATUS_TITLE_MAX, a->busy, left, sizeof left);
    status_right(a, a->busy, wfull, wmid, wshrt, sizeof wfull);
    status_right(a, 0, full, mid, shrt, sizeof full);
    room = a->cols - x;
    lw = tui_str_width(left, strlen(left));
    if (a->loading || (a->busy && a->phase == CHAT_PREFILL && a->last_stats.prefill_total)) {
        /* a bar: its details matter more than the full left part, which
        ** keeps at least TUI_STATUS_LEFT_MIN columns */
        int keep = lw < TUI_STATUS_LEFT_MIN ? lw : TUI_STATUS_LEFT_MIN;
        lw = keep;
    }
    if (lw + tui_str_width(wfull, strlen(wfull)) <= room)
        right = full, rw = tui_str_width(wfull, strlen(wfull));
    else if (lw + tui_str_width(wmid, strlen(wmid)) <= room)
        right = mid, rw = tui_str_width(wmid, strlen(wmid));
    else
        right = shrt, rw = tui_str_width(wshrt, strlen(wshrt));
    if (a->busy) {
        /* a running job: the right part starts where its widest would */
        pad_to(right, sizeof full, rw);
        rw = tui_str_width(right, strlen(right));
    }
    if (rw + 16 <= room) {
        /* too long beside the speeds: the labels give way first, then
        ** the title (its head and an ellipsis); the token count stays */
        int sw = tui_str_width(right, strlen(right));
        status_left_fit(a, room - rw, a->busy, left, sizeof left);
        puts_cut(0, x, left, room - rw, st);
        put(0, a->cols - sw, right, strlen(right), sw, st);
    } else if (a->loading || a->busy) {
        /* narrow (80 columns beside the demo label): the bar or
        ** "generating" matters more than the labels; narrower still, its
        ** count alone, then its name alone (status_narrow) */
        if (name[0] && tui_str_width(wshrt, strlen(wshrt)) > room)
            right = cnt[0] && tui_str_width(wcnt, strlen(wcnt)) <= room ? cnt : name;
        put(0, x, right, strlen(right), room, st);
    } else {
        status_left_fit(a, room, a->busy, left, sizeof left);
        puts_cut(0, x, left, room, st);
    }
}

void
tui_view_draw_loading(struct app *a)
{
    char line[400];
    int y, w;

    if (a->model) {                 /* a switch: the usual view, bar in the status */
        tui_view_draw(a);
        return;
    }
    getmaxyx(stdscr, a->rows, a->cols);
    erase();
    if (a->cols < 8 || a->rows < 3) {
        refresh();
        return;
    }
    draw_status(a);
    y = a->rows / 2 - 1;
    snprintf(line, sizeof line, TR("Loading %s"), a->load_name);
    w = tui_str_width(line, strlen(line));
    put(y, w < a->cols ? (a->cols - w) / 2 : 0, line, strlen(line), a->cols, A_BOLD);
    {
        int bw = a->cols - 12 > 40 ? 40 : a->cols - 12;
        if (bw < 4)
            bw = 4;
        tui_view_bar_text(line, sizeof line, "", a->load_frac, bw, "");
        w = tui_str_width(line, strlen(line));
        put(y + 1, w < a->cols ? (a->cols - w) / 2 : 0, line, strlen(line), a->cols,
            tui_role_attr(a, THEME_ROLE_STATUS));
    }
    if (a->load_what[0]) {
        w = tui_str_width(a->load_what, strlen(a->load_what));
        put(y + 2, w < a->cols ? (a->cols - w) / 2 : 0, a->load_what, strlen(a->load_what),
            a->cols, tui_role_attr(a, THEME_ROLE_INFO));
    }
    curs_set(0);
    refresh();
}

/* The attributes of Markdown style ST (TUI_MD_*) in a reply of role BASE. */
static int
md_attr(const struct app *a, unsigned st, int base)
{
    int role = st & TUI_MD_COMMENT ? THEME_ROLE_CODE_COMMENT
             : st & TUI_MD_STRING ? THEME_ROLE_CODE_STRING
             : st & TUI_MD_KEYWORD ? THEME_ROLE_CODE_KEYWORD
             : st & (TUI_MD_BLOCK | TUI_MD_CODE) ? THEME_ROLE_CODE
             : st & TUI_MD_HEADING ? THEME_ROLE_HEADING : base;
    int attr = tui_role_attr(a, role);

    if (st & TUI_MD_STRONG)
        attr |= A_BOLD;
    if (st & TUI_MD_EM)
#ifdef A_ITALIC
        attr |= A_ITALIC;
#else
        attr |= A_UNDERLINE;
#endif
    return attr;
}

/* put() for rendered Markdown: runs of one style (ST, a byte per byte of
** S) each in its attributes. */
static int
put_md(const struct app *a, int y, int x, const char *s, const unsigned char *st, size_t n,
       int maxw, int base)
{
    size_t i = 0;
    int w = 0;

    while (i < n && w < maxw) {
        size_t j = i;
        int cw;
        while (j < n && st[j] == st[i])
            j++;
        cw = put(y, x + w, s + i, j - i, maxw - w, md_attr(a, st[i], base));
        if (cw < tui_str_width(s + i, j - i))
            return w + cw;                      /* cut at the edge */
        w += cw;
        i = j;
    }
    return w;
}

/* The search's matches on text row ROW (drawn at Y from column X0, at
** most W columns): reversed over the row's text, the current one also bold
** and underlined in the "interrupted" colour. */
static void
draw_matches(struct app *a, const tui_row *row, int y, int x0, int w, int text_role)
{
    const tui_search *s = &a->search;
    const char *txt = tui_tr_shown(&a->tr.turns[row->turn]);
    size_t end = row->off + row->len;

    for (size_t i = tui_search_first_in(s, row->turn, row->off);
         i < s->n && s->m[i].turn == row->turn && s->m[i].off < end; i++) {
        size_t from = s->m[i].off > row->off ? s->m[i].off : row->off;
        size_t to = s->m[i].off + s->m[i].len < end ? s->m[i].off + s->m[i].len : end;
        int x = x0 + tui_str_width(txt + row->off, from - row->off);
        int attr = i == s->cur ? tui_role_attr(a, THEME_ROLE_INTERRUPTED) | A_REVERSE |
                                     A_BOLD | A_UNDERLINE
                               : tui_role_attr(a, text_role) | A_REVERSE;
        if (x < w)
            put(y, x, txt + from, to - from, w - x, attr);
    }
}

/* A folded reasoning block (ROW) at Y: one line saying how long it is. */
static void
draw_fold(struct app *a, const tui_row *row, int y, int w)
{
    char line[64];

    snprintf(line, sizeof line,
             row->think == 1 ? TR("%s thought (%d line)") : TR("%s thought (%d lines)"),
             MB_CUR_MAX > 1 ? "\xe2\x96\xb8" : ">", row->think);
    puts_(y, TUI_TR_INDENT, line, w - TUI_TR_INDENT, tui_role_attr(a, THEME_ROLE_THINK));
}

/* S in at most MAXW cells at (Y, X), its end an ellipsis when it is cut.
** Returns the cells written. */
static int
puts_cut(int y, int x, const char *s, int maxw, int attr)
{
    int ew = ELLIPSIS_W, w;

    if (maxw <= ew || tui_str_width(s, strlen(s)) <= maxw)
        return puts_(y, x, s, maxw, attr);
    w = puts_(y, x, s, maxw - ew, attr);
    return w + puts_(y, x + w, tui_ellipsis(), ew, attr);
}

/* A list separator at S (N bytes left): ',' or the full-width '，' of the
** Chinese messages; its length in bytes, or 0. */
static size_t
list_sep(const char *s, size_t n)
{
    if (s[0] == ',')
        return 1;
    return n >= 3 && memcmp(s, "\xef\xbc\x8c", 3) == 0 ? 3 : 0;
}

/*
** A list ("40 tok, prefill 900 tok/s, decode 27.5 tok/s") in at most MAXW
** cells at (Y, X), as puts_cut, but a cut falls after a whole item when one
** fits ("40 tok, prefill 900 tok/s…"), else after a whole word, else not
** at all: a number cut short reads as another number ("decode 2…" for
** 27.5), and a label cut short says nothing ("(pr…)").  Returns the cells
** written (0: nothing drawn).
*/
static int
puts_cut_list(int y, int x, const char *s, int maxw, int attr)
{
    size_t n = strlen(s), i = 0, item = 0, word = 0, end;
    int w = 0, ew = ELLIPSIS_W;

    if (tui_str_width(s, n) <= maxw)
        return puts_cut(y, x, s, maxw, attr);
    if (maxw <= ew)
        return 0;
    /* I: the bytes that fit beside the ellipsis; ITEM, WORD: the last cut
    ** before a separator or a space in them (0: none) */
    for (;;) {
        int cw;
        size_t d, k = i < n ? tui_cluster(s + i, n - i, &cw, &d) : 0;
        if (i > 0 && list_sep(s + i, n - i))
            item = i;
        if (i > 0 && (s[i] == ' ' || list_sep(s + i, n - i)))
            word = i;
        if (k == 0 || w + cw > maxw - ew)
            break;
        w += cw;
        i += k;
    }
    end = item ? item : word;
    for (;;) {                          /* "a, b" cut after "a, ": "a…" */
        if (end > 0 && (s[end - 1] == ' ' || s[end - 1] == ','))
            end--;
        else if (end >= 3 && list_sep(s + end - 3, 3) == 3)
            end -= 3;
        else
            break;
    }
    if (end == 0)
        return 0;
    w = put(y, x, s, end, maxw - ew, attr);
    return w + puts_(y, x + w, tui_ellipsis(), ew, attr);
}

/*
** A reply's stats (F9: "40 tok, prefill 900 tok/s, decode 27.5 tok/s") past
** their first item when it is COUNT, the header's own count at the right
** ("40 tok"): the same number twice took the room of the speeds, which the
** header shows nowhere else.  A count that differs is another number, and
** is kept; so is the count when the right-hand one had no room.
*/
static const char *
stats_after_count(const char *stats, const char *count)
{
    size_t n = strlen(count), k;

    if (strncmp(stats, count, n) != 0 || (k = list_sep(stats + n, strlen(stats + n))) == 0)
        return stats;
    for (n += k; stats[n] == ' '; n++)
        ;
    return stats + n;
}

/* 1 when the turn whose blank row is R has a row of text before it (an
** empty reply has only empty rows, if any, between its header and it). */
static int
rows_have_text(const tui_transcript *tr, size_t r)
{
    int turn = tr->rows[r].turn;

    while (r-- > 0 && tr->rows[r].turn == turn && tr->rows[r].kind != TUI_ROW_HEADER)
        if (tr->rows[r].len > 0)
            return 1;
    return 0;
}

static void
draw_transcript(struct app *a, int top, int h, int w)
{
    size_t first = tui_tr_first_row(&a->tr, h);
    int y = top;

    if (a->search.open)
        tui_search_update(&a->search, &a->tr);   /* a reply may have grown */

    for (size_t r = first; r < a->tr.nrows && y < top + h; r++, y++) {
        const tui_row *row = &a->tr.rows[r];
        const tui_turn *t = &a->tr.turns[row->turn];
        int text_role = t->role == TUI_TURN_USER ? THEME_ROLE_USER
                      : t->role == TUI_TURN_ASSISTANT ? THEME_ROLE_ASSISTANT
                      : t->role == TUI_TURN_ERROR ? THEME_ROLE_ERROR : THEME_ROLE_INFO;

        if (row->kind == TUI_ROW_HEADER) {
            /* the role names: the UI thread's copies (tui_session_sync), as
            ** the transcript is: a job may be replacing the runtime's
            ** framing while this draws */
            const char *label = tui_tr_who(t->role, a->fr_user, a->fr_bot);
            int hrole = t->role == TUI_TURN_USER ? THEME_ROLE_USER_HEADER
                      : t->role == TUI_TURN_ASSISTANT ? THEME_ROLE_ASSISTANT_HEADER
                      : text_role;
            int x = puts_(y, 0, label, w, tui_role_attr(a, hrole));
            char extra[160];
            if (t->sib_count > 1) {
                snprintf(extra, sizeof extra, "  < %d/%d >", t->sib_index, t->sib_count);
                x += puts_cut(y, x, extra, w - x, tui_role_attr(a, THEME_ROLE_STATS));
            }
            if (t->flags & TUI_TURN_INTERRUPTED)
                x += puts_(y, x, TR("  [interrupted]"), w - x, tui_role_attr(a, THEME_ROLE_INTERRUPTED));
            if (t->flags & TUI_TURN_STREAMING)
                x += puts_(y, x, "  ...", w - x, tui_role_attr(a, THEME_ROLE_STATS));
            /* the tokens the turn holds in the context, at the right: short
            ** and always there, so its room is kept before the stats (F9,
            ** long) take what is left */
            int cw = 0, room;
            if (t->ntok > 0 && !(t->flags & TUI_TURN_STREAMING)) {
                snprintf(extra, sizeof extra, "%zu tok", t->ntok);
                cw = (int)strlen(extra);
                if (x + 2 + cw <= w - 1)
                    puts_(y, w - 1 - cw, extra, cw, tui_role_attr(a, THEME_ROLE_STATS));
                else
                    cw = 0;
            }
            room = cw ? w - 1 - cw - 2 - x : w - x;
            const char *stats = cw ? stats_after_count(t->stats, extra) : t->stats;
            if (a->show_stats && stats[0] && room > 4 + ELLIPSIS_W) {
                int sa = tui_role_attr(a, THEME_ROLE_STATS);
                int sw = puts_cut_list(y, x + 3, stats, room - 4, sa);
                if (sw > 0) {           /* none: no "()" either */
                    puts_(y, x, "  (", 3, sa);
                    puts_(y, x + 3 + sw, ")", 1, sa);
                }
            }
        } else if (row->kind == TUI_ROW_BLANK && (t->flags & TUI_TURN_INTERRUPTED) &&
                   rows_have_text(&a->tr, r)) {
            /* where its text was cut (a reply cut before any text: its
            ** header's mark alone) */
            puts_(y, TUI_TR_INDENT, TR("[interrupted]"), w - TUI_TR_INDENT,
                  tui_role_attr(a, THEME_ROLE_INTERRUPTED));
        } else if (row->kind == TUI_ROW_FOLD) {
            draw_fold(a, row, y, w);
        } else if (row->kind == TUI_ROW_TEXT) {
            const unsigned char *st = row->think ? NULL : tui_tr_styles(t);
            int x0 = TUI_TR_INDENT + row->indent;
            if (row->think)
                text_role = THEME_ROLE_THINK;
            if (st == NULL)
                put(y, x0, tui_tr_shown(t) + row->off, row->len, w - x0,
                    tui_role_attr(a, text_role));
            else
                put_md(a, y, x0, tui_tr_shown(t) + row->off, st + row->off, row->len, w - x0,
                       text_role);
            if (a->search.open && a->search.n > 0)
                draw_matches(a, row, y, x0, w, text_role);
        }
    }
}

/* A parameter's value VAL (ASCII, as params_format writes it) in at most
** ROOM columns: a longer one (a 64-bit seed beside its label) keeps its
** head and tail around an ellipsis, so it reads as cut.  Returns its width. */
static int
fit_value(char *val, size_t cap, int room)
{
    const char *ell = tui_ellipsis();
    size_t el = strlen(ell), len = strlen(val), head, tail;
    int ew = ELLIPSIS_W;

    if ((int)len <= room)
        return (int)len;
    if (room <= ew)
        room = ew + 2;              /* a sliver: the ends still show */
    head = (size_t)(room - ew + 1) / 2;
    tail = (size_t)(room - ew) - head;
    if (head + el + tail >= cap)
        return (int)len;
    memmove(val + head + el, val + len - tail, tail + 1);
    memcpy(val + head, ell, el);
    return room;
}

/* Below the keys of a focused sidebar, from row Y (before END): the
** selected parameter's whole value when its row had to cut it.  Returns the
** row after. */
static int
sidebar_whole_value(struct app *a, int y, int end, int x0, int w, int attr)
{
    char val[48];

    params_format(&a->samp, a->param_sel, val, sizeof val);
    if ((int)strlen(val) <= w - 3 - (int)strlen(params_table[a->param_sel].cli) || y >= end)
        return y;
    puts_(y, x0 + 1, val, w - 2, attr);
    return y + 1;
}

static void
draw_sidebar(struct app *a, int top, int h, int x0)
{
    int w = a->cols - x0;
    int border = tui_role_attr(a, THEME_ROLE_BORDER);
    int n = tui_param_count();

    for (int y = top; y < top + h; y++) {
        attrset(border);
        mvaddch(y, x0 - 1, ACS_VLINE);
        fill(y, x0, w, tui_role_attr(a, THEME_ROLE_SIDEBAR));
    }
    puts_(top, x0 + 1, TR("Parameters"), w - 1, tui_role_attr(a, THEME_ROLE_SIDEBAR_TITLE));
    a->side.top = top + 1;            /* for clicks (tui_sidebar_row_at) */
    a->side.x = x0;
    a->side.rows = n < h - 1 ? n : h - 1;
    for (int i = 0; i < n && top + 1 + i < top + h; i++) {
        char val[48];
        int y = top + 1 + i;
        int sel = a->focus == TUI_FOCUS_SIDEBAR && i == a->param_sel;
        int vw;

        params_format(&a->samp, i, val, sizeof val);
        if (sel)
            fill(y, x0, w, tui_role_attr(a, THEME_ROLE_SIDEBAR_SELECTED));
        /* the label whole, a blank, the value (cut in the middle: the
        ** selected row's whole value shows below, and Enter types it) */
        vw = fit_value(val, sizeof val, w - 3 - (int)strlen(params_table[i].cli));
        puts_(y, x0 + 1, params_table[i].cli, w - 3 - vw,
              sel ? tui_role_attr(a, THEME_ROLE_SIDEBAR_SELECTED)
                  : tui_role_attr(a, THEME_ROLE_SIDEBAR_LABEL));
        if (vw < w - 2)
            puts_(y, x0 + w - 1 - vw, val, vw,
                  sel ? tui_role_attr(a, THEME_ROLE_SIDEBAR_SELECTED)
                      : tui_role_attr(a, THEME_ROLE_SIDEBAR_VALUE));
    }
    if (n + 2 < h) {
        static const char *const focused[] = { TR_NOOP("<- ->  change"),
                                               TR_NOOP("Enter  type a value"),
                                               TR_NOOP("Tab    back to input") };
        int la = tui_role_attr(a, THEME_ROLE_SIDEBAR_LABEL);
        int y = top + n + 2;
        if (a->focus != TUI_FOCUS_SIDEBAR) {
            puts_(y, x0 + 1, TR("Tab: edit values"), w - 2, la);
        } else {
            for (int i = 0; i < 3 && y < top + h; i++, y++)
                puts_(y, x0 + 1, TR(focused[i]), w - 2, la);
            y = sidebar_whole_value(a, y + 1, top + h, x0, w, la);
            /* the selected parameter's help, wrapped */
            {
                const char *help = TR(params_table[a->param_sel].help);  /* core's */
                tui_span *sp;
                size_t k = tui_wrap(help, strlen(help), w - 2, &sp);
                for (size_t i = 0; i < k && y < top + h; i++, y++) {
                    /* the last row, with more to come: it ends with an
                    ** ellipsis (F1 lists the parameters' help whole) */
                    int cut = y == top + h - 1 && i + 1 < k;
                    int cw = put(y, x0 + 1, help + sp[i].off, sp[i].len,
                                 cut ? w - 2 - ELLIPSIS_W : w - 2, la);
                    if (cut)
                        puts_(y, x0 + 1 + cw, tui_ellipsis(), ELLIPSIS_W, la);
                }
                free(sp);
            }
        }
    }
}

static void
draw_input(struct app *a, int top, int h, int *cy, int *cx)
{
    int w = tui_input_cols(a);
    tui_span *sp;
    size_t n;
    int cr, cc, first = 0;
    int attr = tui_role_attr(a, THEME_ROLE_INPUT);

    for (int y = top; y < top + h; y++)
        fill(y, 0, a->cols, attr);
    puts_(top, 0, a->fork_pending ? "*" : ">", 1, tui_role_attr(a, THEME_ROLE_USER_HEADER));
    if (a->in.len == 0) {
        puts_(top, 2, TR("Type a message. Enter sends, Alt-Enter new line, F1 help"), w,
              tui_role_attr(a, THEME_ROLE_STATS));
        *cy = top;
        *cx = 2;
        return;
    }
    tui_input_layout(&a->in, w, &cr, &cc);
    n = tui_wrap(a->in.buf, a->in.len, w, &sp);
    if (cr >= h)
        first = cr - h + 1;
    for (int r = 0; r < h && (size_t)(first + r) < n; r++)
        put(top + r, 2, a->in.buf + sp[first + r].off, sp[first + r].len, w, attr);
    /* rows out of sight (a long paste): marked beside the prompt sign, so
    ** the rows shown do not read as the whole text */
    if (first > 0)
        puts_(top, 1, MB_CUR_MAX > 1 ? "\xe2\x86\x91" : "^", 1,
              tui_role_attr(a, THEME_ROLE_USER_HEADER));
    if ((size_t)first + (size_t)h < n && h > 1)
        puts_(top + h - 1, 1, MB_CUR_MAX > 1 ? "\xe2\x86\x93" : "v", 1,
              tui_role_attr(a, THEME_ROLE_USER_HEADER));
    free(sp);
    *cy = top + cr - first;
    *cx = 2 + (cc < w ? cc : w - 1);
}

/* One-line input IN at (Y, X) in ROOM columns, whole characters at its
** start skipped so that the cursor stays in sight (a long query or path:
** its end shows).  Returns the cursor's screen column. */
static int
put_line_input(int y, int x, const tui_input *in, int room, int attr)
{
    size_t off = 0;
    int cr, cc, skip = 0, skipped = 0;

    tui_input_layout(in, 100000, &cr, &cc);
    if (cc > room - 1)
        skip = cc - (room - 1);
    while (off < in->len && skipped < skip) {
        size_t k = tui_char_len(in->buf + off, in->len - off);
        skipped += tui_str_width(in->buf + off, k);
        off += k;
    }
    /* a selected text (input.h: a prompt opened holding it) in reverse */
    put(y, x, in->buf + off, in->len - off, room, in->sel ? attr | (int)A_REVERSE : attr);
    return x + cc - skipped;
}

/* The prompt's label, cut (with an ellipsis) to leave the typed text a
** third of the line; a question (nothing typed) has the whole line, and a
** y/n one keeps its "(y/n)" in sight.  Returns the column after it. */
static int
put_prompt_label(struct app *a, int y, int attr)
{
    const char *l = a->prompt_label, *ell = tui_ellipsis();
    int yesno = tui_prompt_yesno(a->prompt_kind);
    const char *tail = yesno ? strstr(l, "(y/n)") : NULL;
    int max = yesno ? a->cols - 1 : a->cols - 1 - a->cols / 3;
    int x;

    if (tui_str_width(l, strlen(l)) <= max)
        return puts_(y, 0, l, a->cols - 1, attr);
    if (tail == NULL)
        tail = "";
    x = puts_(y, 0, l, max - tui_str_width(ell, strlen(ell)) - tui_str_width(tail, strlen(tail)),
              attr);
    x += puts_(y, x, ell, max - x, attr);
    if (*tail) {
        x += puts_(y, x, " ", max - x, attr);
        x += puts_(y, x, tail, max - x, attr);
    }
    return x;
}

/*
** The footer's form of a message TEXT (CUT: only its start): the session
** database's folder left out wherever its path is named ("…/sessions.db"),
** so a message about the database is as wide in a deep folder as in a short
** one -- the footer shows this form of the notice, and whether an error
** needs the dialog is decided on it; the dialog and the log (M-l) have the
** message whole.  A prompt's error (prompt_error) is shown in this form
** too.  OUT has CAP bytes (TUI_NOTICE: the form is never longer than the
** message).  Returns 1 when the form is not the whole message (a folder
** left out, or the message cut).
*/
static int
text_form(const struct app *a, const char *text, int cut, char *out, size_t cap)
{
    const char *path = a->st ? store_path(a->st) : NULL;
    const char *name = path ? strrchr(path, '/') : NULL, *s = text, *hit;
    const char *ell = tui_ellipsis();
    size_t o = 0, pl = path ? strlen(path) : 0, el = strlen(ell), nl = name ? strlen(name) : 0;
    int part = cut;

    if (cap == 0)
        return part;
    /* (a path without a folder, or one as short as its form: kept) */
    if (name == NULL || el + nl >= pl) {
        snprintf(out, cap, "%s", text);
        return part;
    }
    while ((hit = strstr(s, path)) != NULL && o + (size_t)(hit - s) + el + nl < cap) {
        memcpy(out + o, s, (size_t)(hit - s));
        o += (size_t)(hit - s);
        memcpy(out + o, ell, el);
        memcpy(out + o + el, name, nl);
        o += el + nl;
        s = hit + pl;
        part = 1;
    }
    snprintf(out + o, cap - o, "%s", s);
    return part;
}

static int
notice_form(const struct app *a, char *out, size_t cap)
{
    return text_form(a, a->notice, a->notice_cut, out, cap);
}

/* The footer while searching: "search: QUERY" then "n/m" (or "no match")
** and, where there is room, the keys. */
static void
draw_search_line(struct app *a, int y, int *cy, int *cx)
{
    const tui_search *s = &a->search;
    int fa = tui_role_attr(a, THEME_ROLE_FOOTER);
    char count[64];
    const char *keys = TR("  Enter/Down next  Up prev  Esc close");
    int lw, cw, kw = tui_str_width(keys, strlen(keys)), room, qx;

    if (s->q.len == 0)
        count[0] = '\0';
    else if (s->n == 0)
        snprintf(count, sizeof count, "%s", TR("  no match"));
    else
        snprintf(count, sizeof count, "  %zu/%zu", s->cur + 1, s->n);
    cw = tui_str_width(count, strlen(count));
    lw = puts_(y, 0, TR("search: "), a->cols - 1, tui_role_attr(a, THEME_ROLE_FOOTER_KEY));
    room = a->cols - lw - 1 - cw - (a->cols >= 60 ? kw : 0);
    if (room < 4)
        room = 4;
    qx = put_line_input(y, lw, &s->q, room, fa);
    if (cw && lw + room < a->cols)
        puts_(y, lw + room, count, a->cols - (lw + room),
              s->n ? tui_role_attr(a, THEME_ROLE_STATS) : tui_role_attr(a, THEME_ROLE_ERROR));
    if (a->cols >= 60)
        puts_(y, lw + room + cw, keys, a->cols - (lw + room + cw), tui_role_attr(a, THEME_ROLE_STATS));
    *cy = y;
    *cx = qx < a->cols - 1 ? qx : a->cols - 1;
}

static void
draw_footer(struct app *a, int y, int *cy, int *cx)
{
    int fa = tui_role_attr(a, THEME_ROLE_FOOTER);
    int ka = tui_role_attr(a, THEME_ROLE_FOOTER_KEY);
    int x = 0;
    static const int shown[] = { CFG_ACT_HELP, CFG_ACT_SESSIONS, CFG_ACT_STATES,
                                 CFG_ACT_PRESETS, CFG_ACT_BRANCHES, CFG_ACT_SIDEBAR,
                                 CFG_ACT_PARAMS, CFG_ACT_REGEN, CFG_ACT_QUIT };
    static const char *const names[] = { TR_NOOP("help"), TR_NOOP("sessions"),
                                         TR_NOOP("states"), TR_NOOP("presets"),
                                         TR_NOOP("branches"), TR_NOOP("sidebar"),
                                         TR_NOOP("params"), TR_NOOP("regen"), TR_NOOP("quit") };

    fill(y, 0, a->cols, fa);
    if (a->focus == TUI_FOCUS_PROMPT) {
        int lw = put_prompt_label(a, y, ka);
        int px = put_line_input(y, lw, &a->prompt, a->cols - lw - 1, fa);
        *cy = y;
        *cx = px < a->cols - 1 ? px : a->cols - 1;
        return;
    }
    if (a->focus == TUI_FOCUS_SEARCH) {
        draw_search_line(a, y, cy, cx);
        return;
    }
    if (a->pasting) {
        /* a paste arriving in parts: its text goes in until it ends */
        puts_(y, 0, TR("pasting... (Esc ends the paste)"), a->cols,
              tui_role_attr(a, THEME_ROLE_INFO));
        return;
    }
    if (a->notice[0]) {
        int na = a->notice_err ? tui_role_attr(a, THEME_ROLE_ERROR)
                               : tui_role_attr(a, THEME_ROLE_INFO);
        char form[TUI_NOTICE], more[48], key[16];
        int part = notice_form(a, form, sizeof form), mw;

        cfg_key_name(a->cfg.keys[CFG_ACT_LOG], key, sizeof key);
        if (tui_str_width(form, strlen(form)) > a->cols) {
            /* cut: the footer says where the whole message is */
            snprintf(more, sizeof more, TR("%s (%s: log)"), tui_ellipsis(), key);
            mw = tui_str_width(more, strlen(more));
            x = puts_(y, 0, form, a->cols - mw > 0 ? a->cols - mw : 0, na);
            puts_(y, x, more, a->cols - x, ka);
        } else {
            x = puts_(y, 0, form, a->cols, na);
            /* a folder left out: so is where the whole is, when it fits */
            snprintf(more, sizeof more, TR("%s (%s: log)"), "", key);
            if (part && x + tui_str_width(more, strlen(more)) <= a->cols)
                puts_(y, x, more, a->cols - x, ka);
        }
        return;
    }
    /* the hints that fit, by importance (help and quit first), shown in
    ** their usual order; at 80 columns the least needed ones go */
    {
        enum { NSHOWN = sizeof shown / sizeof shown[0] };
        static const int rank[NSHOWN] = { 0, 2, 3, 6, 7, 8, 5, 4, 1 };  /* 0 = most */
        char key[NSHOWN][16];
        int use[NSHOWN] = { 0 }, width = 0;
        if (a->mouse_off) {
            /* the terminal selects text now: say so, and how to go back */
            char off[48], mk[16];
            cfg_key_name(a->cfg.keys[CFG_ACT_MOUSE], mk, sizeof mk);
            snprintf(off, sizeof off, TR("mouse off (%s)"), mk);
            x = puts_(y, 0, off, a->cols, tui_role_attr(a, THEME_ROLE_INTERRUPTED)) + 2;
            width = x;
        }
        for (int r = 0; r < NSHOWN; r++)
            for (int i = 0; i < NSHOWN; i++) {
                int iw;
                if (rank[i] != r || a->cfg.keys[shown[i]] == CFG_KEY_NONE)
                    continue;                   /* (no key: its default was taken) */
                cfg_key_name(a->cfg.keys[shown[i]], key[i], sizeof key[i]);
                iw = tui_str_width(key[i], strlen(key[i])) + 1 +
                     tui_str_width(TR(names[i]), strlen(TR(names[i])));
                if (width + (width ? 2 : 0) + iw <= a->cols) {
                    use[i] = 1;
                    width += (width ? 2 : 0) + iw;
                }
            }
        for (int i = 0; i < NSHOWN; i++) {
            if (!use[i])
                continue;
            x += puts_(y, x, key[i], tui_str_width(key[i], strlen(key[i])), ka);
            x += puts_(y, x + 1, TR(names[i]), a->cols - x - 1, fa) + 1;
            x += 2;
        }
    }
}

/* A popup's box: rows Y0..Y0+BH-1, columns X0..X0+W-1 filled in ATTR, and
** the whole box cleared with a border column and a blank one on each side,
** so no transcript or sidebar text shows beside it. */
static void
draw_box(struct app *a, int x0, int y0, int w, int bh, int attr)
{
    for (int y = y0; y < y0 + bh; y++) {
        int l = x0 - 2 > 0 ? x0 - 2 : 0, r = x0 + w + 2 < a->cols ? x0 + w + 2 : a->cols;
        fill(y, l, r - l, attr);
        attrset(tui_role_attr(a, THEME_ROLE_BORDER));
        if (x0 - 1 >= 0)
            mvaddch(y, x0 - 1, ACS_VLINE);
        if (x0 + w < a->cols)
            mvaddch(y, x0 + w, ACS_VLINE);
    }
}

/* What a dialog over the transcript is for (draw_error_box). */
enum { BOX_NOTICE, BOX_RETRY, BOX_REFUSED, BOX_QUIT, BOX_QUIT_ASK };

/*
** An error TEXT (CUT: only its start) wrapped in a dialog over the
** transcript (rows TOP..TOP+H-1): the title, the text, and what the keys do
** -- BOX_RETRY: under a prompt opened again after it failed (Enter tries
** again, Esc gives up: the footer is the prompt's); BOX_REFUSED: under a
** value prompt kept open after it refused the text (edit it, Enter tries
** it, Esc gives up); BOX_QUIT: what was said
** while quitting, under the unsaved-exchange question (its keys are the
** footer's); BOX_QUIT_ASK: that question alone, whole (the footer cut it);
** BOX_NOTICE: any key closes it -- and where every message is
** kept.  When even the dialog cannot hold it all, its last row says so and
** the log (M-l) has it whole.
*/
static void
draw_error_box(struct app *a, int top, int h, const char *text, int cut, int kind)
{
    int w = a->cols - 4 < 76 ? a->cols - 4 : 76, body = tui_role_attr(a, THEME_ROLE_MENU);
    int bh, x0, y0, rows;
    char hint[160], key[16];
    const char *more;
    tui_span *sp;
    size_t n;

    if (w < 10)
        w = a->cols;
    n = tui_wrap(text, strlen(text), w - 4 > 1 ? w - 4 : 1, &sp);
    bh = (int)n + 3 > h ? h : (int)n + 3;
    x0 = (a->cols - w) / 2;
    y0 = top + (h - bh) / 2;
    rows = bh - 2 > 0 ? bh - 2 : 0;
    draw_box(a, x0, y0, w, bh, body);
    puts_(y0, x0 + 1, kind == BOX_QUIT ? TR(" Said while quitting ") :
                      kind == BOX_QUIT_ASK ? TR(" Not saved ") : TR(" Error "), w - 2,
          tui_role_attr(a, THEME_ROLE_MENU_TITLE));
    for (int i = 0; i < rows && (size_t)i < n; i++)
        put(y0 + 1 + i, x0 + 2, text + sp[i].off, sp[i].len, w - 4,
            tui_role_attr(a, THEME_ROLE_ERROR));
    cfg_key_name(a->cfg.keys[CFG_ACT_LOG], key, sizeof key);
    more = (size_t)rows < n || cut ? TR("(more in the log)") : "";
    if (kind == BOX_QUIT || kind == BOX_QUIT_ASK)
        snprintf(hint, sizeof hint, "%s", more);
    else if (kind == BOX_RETRY)
        snprintf(hint, sizeof hint, TR("%s Enter tries again  Esc gives up"), more);
    else if (kind == BOX_REFUSED)
        snprintf(hint, sizeof hint, TR("%s correct it, then Enter  Esc gives up"), more);
    else
        snprintf(hint, sizeof hint, TR("%s any key closes  %s: all messages"), more, key);
    if (bh >= 2)
        puts_(y0 + bh - 1, x0 + 1, hint[0] == ' ' ? hint + 1 : hint, w - 2,
              tui_role_attr(a, THEME_ROLE_MENU_DETAIL));
    free(sp);
}

/*
** The unsaved-exchange question (quit.c) or its export prompt open: what was
** said while quitting (a->quit_said: the errors of the job the quit stopped
** -- a save that failed meanwhile --, the runtime's notes at each try) and a
** notice made since it opened, in a dialog above it.  The footer is the
** question's and it takes every key, so the log is out of reach until Esc:
** without this they were seen nowhere before the choice.  Nothing said:
** nothing drawn.
*/
static void
draw_quit_said(struct app *a, int top, int h)
{
    static const char pre[] = PROG_NAME_TUI ": ";
    const char *s = a->quit_said.len > 0 ? a->quit_said.p : "";
    tui_buf b;
    char *form;
    int part, said;

    tui_buf_init(&b);
    while (*s) {                        /* its lines, without stderr's prefix */
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        if (strncmp(s, pre, sizeof pre - 1) == 0 && n >= sizeof pre - 1) {
            s += sizeof pre - 1;
            n -= sizeof pre - 1;
        }
        if (n > 0) {
            if (b.len > 0)
                tui_buf_adds(&b, "\n");
            tui_buf_add(&b, s, n);
        }
        s += n + (nl != NULL);
    }
    if (a->notice[0]) {
        if (b.len > 0)
            tui_buf_adds(&b, "\n");
        tui_buf_adds(&b, a->notice);
    }
    said = b.len > 0;
    if (a->prompt_kind == TUI_PROMPT_UNSAVED &&
        tui_str_width(a->prompt_label, strlen(a->prompt_label)) > a->cols - 1) {
        /* the question cut in the footer (its reason, on a narrow one its
        ** keys): whole here, last */
        if (b.len > 0)
            tui_buf_adds(&b, "\n");
        tui_buf_adds(&b, a->prompt_label);
    }
    if (b.len > 0) {
        form = tui_xmalloc(b.len + 1);
        part = text_form(a, b.p, a->notice[0] && a->notice_cut, form, b.len + 1);
        draw_error_box(a, top, h, form, part, said ? BOX_QUIT : BOX_QUIT_ASK);
        free(form);
    }
    tui_buf_fini(&b);
}

/* An error too long for the footer: the dialog, closed by the next key. */
static void
draw_notice_popup(struct app *a, int top, int h)
{
    draw_error_box(a, top, h, a->notice, a->notice_cut, BOX_NOTICE);
    a->notice_popup = 1;
}

/* The "more above" / "more below" marks of a list cut to LIST_H rows in a
** box W wide: MK[0] for its first row, MK[1] for its last ("" = none; one
** row: both in MK[0]). */
static void
menu_marks(const tui_menu *m, int w, int list_h, char mk[2][128])
{
    size_t above = m->top;
    size_t below = m->nvis > m->top + (size_t)list_h ? m->nvis - m->top - (size_t)list_h : 0;
    int utf8 = MB_CUR_MAX > 1, wide = w >= 40;
    const char *up = utf8 ? "\xe2\x86\x91" : "^", *down = utf8 ? "\xe2\x86\x93" : "v";

    mk[0][0] = mk[1][0] = '\0';
    if (above)
        snprintf(mk[0], 64, wide ? TR(" %s %zu more above ") : " %s%zu ", up, above);
    if (below)
        snprintf(mk[1], 64, wide ? TR(" %s %zu more below ") : " %s%zu ", down, below);
    if (list_h == 1 && above && below) {
        size_t n = strlen(mk[0]);
        snprintf(mk[0] + n, 128 - n, "%s", mk[1] + 1);
        mk[1][0] = '\0';
    }
}

/* Columns the mark on list row ROW takes (its text gives way to it). */
static int
menu_mark_w(char mk[2][128], int row, int list_h)
{
    const char *s = row == 0 ? mk[0] : row == list_h - 1 ? mk[1] : "";

    if (row == 0 && row == list_h - 1 && mk[1][0])
        s = mk[1];
    return tui_str_width(s, strlen(s));
}

/* The marks at the right end of the first and last list rows (Y0). */
static void
draw_menu_marks(struct app *a, char mk[2][128], int x0, int w, int y0, int list_h)
{
    int attr = tui_role_attr(a, THEME_ROLE_MENU_TITLE);

    for (int k = 0; k < 2; k++) {
        int mw = tui_str_width(mk[k], strlen(mk[k]));
        if (mw == 0)
            continue;
        puts_(k == 0 ? y0 : y0 + list_h - 1, x0 + w - mw > x0 ? x0 + w - mw : x0, mk[k], w,
              attr);
    }
}

/* A menu box is TUI_MENU_W columns (an 80-column terminal less margins),
** wider where an item needs it and the terminal has room, up to
** TUI_MENU_MAX_W.  When its rows still cut an item, the selected one is
** shown whole under the list (wrapped, at most TUI_MENU_WHOLE_ROWS lines):
** the help's descriptions, a long session title or path. */
#define TUI_MENU_W 76
#define TUI_MENU_MAX_W 120
#define TUI_MENU_WHOLE_ROWS 3

/* Rows under the list for the selected item whole, in a list TEXT_W cells
** wide: a rule and as many as the widest item needs (0 when every one
** fits, or the items are cuts already: no_whole), so the box keeps its
** size while the selection moves. */
static int
menu_whole_rows(const tui_menu *m, int text_w)
{
    int n;

    if (m->no_whole || text_w < 1 || m->widest <= text_w)
        return 0;
    n = (m->widest + text_w - 1) / text_w;
    return 1 + (n > TUI_MENU_WHOLE_ROWS ? TUI_MENU_WHOLE_ROWS : n);
}

/* IT whole in ROWS rows from (Y, X), TEXT_W cells wide (its row cut it);
** the last row ends in an ellipsis when even that is not enough.  Lines
** after the first hang under what follows the first two blanks (the help's
** description beside its key) when that is in the left half. */
static void
draw_menu_whole(struct app *a, const tui_menu_item *it, int y, int x, int text_w, int rows)
{
    int attr = tui_role_attr(a, THEME_ROLE_MENU_DETAIL), hang = 0;
    size_t ll = strlen(it->label), dl = it->detail ? strlen(it->detail) : 0, n;
    const char *gap, *rest;
    char *full;
    tui_span *sp;

    if (rows <= 0)
        return;
    full = tui_xmalloc(ll + dl + 3);
    memcpy(full, it->label, ll + 1);
    if (it->detail) {
        memcpy(full + ll, "  ", 2);
        memcpy(full + ll + 2, it->detail, dl + 1);
    }
    if ((gap = strstr(full, "  ")) != NULL) {
        gap += strspn(gap, " ");
        hang = tui_str_width(full, (size_t)(gap - full));
        if (hang > text_w / 2)
            hang = 0;
    }
    /* the first line at the full width, the rest hanging */
    n = tui_wrap(full, strlen(full), text_w, &sp);
    if (n > 0)
        put(y, x, full + sp[0].off, sp[0].len, text_w, attr);
    rest = n > 1 ? full + sp[1].off : NULL;
    free(sp);
    if (rest != NULL) {
        n = tui_wrap(rest, strlen(rest), text_w - hang, &sp);
        for (int i = 1; i < rows && (size_t)i <= n; i++) {
            if (i == rows - 1 && (size_t)i < n)
                puts_cut(y + i, x + hang, rest + sp[i - 1].off, text_w - hang, attr);
            else
                put(y + i, x + hang, rest + sp[i - 1].off, sp[i - 1].len, text_w - hang, attr);
        }
        free(sp);
    }
    free(full);
}

/* The cells of M's label column in a list TEXT_W cells wide (label_col):
** the widest label when the rows fit, else what the widest detail leaves,
** at least a third of the list; 0 when the labels are no column. */
static int
menu_label_col(const tui_menu *m, int text_w)
{
    int lw = 0, dw = 0, col;

    if (!m->label_col)
        return 0;
    for (size_t i = 0; i < m->n; i++) {
        const tui_menu_item *it = &m->items[i];
        int l = tui_str_width(it->label, strlen(it->label));
        int d = it->detail ? tui_str_width(it->detail, strlen(it->detail)) : 0;
        lw = l > lw ? l : lw;
        dw = d > dw ? d : dw;
    }
    col = text_w - 2 - dw;
    if (col < text_w / 3)
        col = text_w / 3;
    return lw < col ? lw : col;
}

/* The menu's search field " search: QUERY " in at most ROOM cells, into
** LINE (CAP bytes): a query too long for the title row shows its end, cut
** at the front with an ellipsis ("search: …the end"), by cells (a wide
** character is two), as the input box keeps what is typed last in sight.
** Returns its cells; 0 when there is no room even for that. */
static int
menu_filter_text(const char *q, int room, char *line, size_t cap)
{
    char cut[TUI_MENU_FILTER + 8];
    size_t n = strlen(q), off = 0;
    int frame, w = tui_str_width(q, n);

    snprintf(line, cap, TR(" search: %s "), "");
    frame = tui_str_width(line, strlen(line));
    if (frame + w > room) {
        int keep = room - frame - ELLIPSIS_W;   /* cells of the query's end */
        if (keep < 1)
            return 0;
        while (off < n && w > keep) {
            int cw;
            size_t d, k = tui_cluster(q + off, n - off, &cw, &d);
            w -= cw;
            off += k;
        }
        snprintf(cut, sizeof cut, "%s%s", tui_ellipsis(), q + off);
        q = cut;
    }
    snprintf(line, cap, TR(" search: %s "), q);
    return tui_str_width(line, strlen(line));
}

static void
draw_menu(struct app *a, int top, int h)
{
    tui_menu *m = &a->menu;
    int w = m->widest + 4 > TUI_MENU_W ? m->widest + 4 : TUI_MENU_W;
    int bh, x0, y0, list_h, whole, lcol;
    int body = tui_role_attr(a, THEME_ROLE_MENU);
    char line[TUI_MENU_FILTER + 64], mk[2][128];

    if (w > TUI_MENU_MAX_W)
        w = TUI_MENU_MAX_W;
    if (w > a->cols - 4)
        w = a->cols - 4;
    if (w < 10)
        w = a->cols;
    whole = menu_whole_rows(m, w - 4);
    lcol = menu_label_col(m, w - 4);
    bh = (int)m->nvis + 4 + whole;
    if (bh > h)
        bh = h;
    if (bh < 4)
        bh = h < 4 ? h : 4;
    x0 = (a->cols - w) / 2;
    y0 = top + (h - bh) / 2;
    if (bh - 3 - whole < 1)           /* the list comes first */
        whole = bh - 4 > 1 ? bh - 4 : 0;
    list_h = bh - 3 - whole;
    if (list_h < 1)
        list_h = 1;
    draw_box(a, x0, y0, w, bh, body);
    snprintf(line, sizeof line, " %s ", m->title);
    puts_(y0, x0 + 1, line, w - 2, tui_role_attr(a, THEME_ROLE_MENU_TITLE));
    if (m->filter[0]) {
        int fw = menu_filter_text(m->filter, w - 3, line, sizeof line);
        if (fw > 0)
            puts_(y0, x0 + w - 1 - fw, line, fw, tui_role_attr(a, THEME_ROLE_MENU_DETAIL));
    }
    tui_menu_fit(m, list_h);
    m->list_y = y0 + 1;               /* for clicks (tui_menu_row_at) */
    m->list_x = x0;
    m->list_w = w;
    m->list_h = list_h;
    menu_marks(m, w, list_h, mk);
    for (int i = 0; i < list_h && m->top + (size_t)i < m->nvis; i++) {
        const tui_menu_item *it = &m->items[m->vis[m->top + (size_t)i]];
        int y = y0 + 1 + i;
        int sel = m->top + (size_t)i == m->sel;
        int attr = sel ? tui_role_attr(a, THEME_ROLE_MENU_SELECTED) : body;
        int mw = menu_mark_w(mk, i, list_h);
        int tw = mw ? w - 2 - mw : w - 4;  /* a row with a mark ends before it */
        int lw;

        if (sel)
            fill(y, x0, w, attr);
        lw = puts_cut(y, x0 + 2, it->label, lcol && lcol < tw ? lcol : tw, attr);
        if (lcol && lcol < tw)
            lw = lcol;                /* the details in a column */
        if (it->detail && lw + 4 < tw)
            puts_cut(y, x0 + 2 + lw + 2, it->detail, tw - lw - 2,
                     sel ? attr : tui_role_attr(a, THEME_ROLE_MENU_DETAIL));
        if (sel && whole > 0 && tui_menu_item_width(it) > w - 4) {
            attrset(tui_role_attr(a, THEME_ROLE_BORDER));
            mvhline(y0 + 1 + list_h, x0, ACS_HLINE, w);
            draw_menu_whole(a, it, y0 + 2 + list_h, x0 + 2, w - 4, whole - 1);
        }
    }
    draw_menu_marks(a, mk, x0, w, y0 + 1, list_h);
    /* an empty list says why when its fill did (--no-db: nothing saved) */
    if (m->nvis == 0 && bh > 2)
        puts_(y0 + 1, x0 + 2, m->n ? TR("(no match)") : m->note[0] ? m->note : TR("(empty)"),
              w - 4, tui_role_attr(a, THEME_ROLE_MENU_DETAIL));
    if (bh >= 3)
        puts_(y0 + bh - 1, x0 + 1, tui_menu_hint(a, w - 2), w - 2,
              tui_role_attr(a, THEME_ROLE_MENU_DETAIL));
}

void
tui_view_draw(struct app *a)
{
    int input_rows, input_h, sep, tr_top = 1, tr_h, tr_w, cy = 0, cx = 0, cr, cc;
    int side = 0;

    getmaxyx(stdscr, a->rows, a->cols);
    erase();
    if (tui_too_small(a)) {
        char msg[128];
        tui_span *sp;
        size_t k;
        snprintf(msg, sizeof msg, TR("terminal too small (%dx%d, need %dx%d)"), a->cols, a->rows,
                 TUI_MIN_COLS, TUI_MIN_ROWS);
        k = tui_wrap(msg, strlen(msg), a->cols > 0 ? a->cols : 1, &sp);
        for (size_t i = 0; i < k && (int)i < a->rows; i++)
            put((int)i, 0, msg + sp[i].off, sp[i].len, a->cols, A_BOLD);
        free(sp);
        curs_set(0);
        refresh();
        return;
    }
    input_rows = tui_input_layout(&a->in, tui_input_cols(a), &cr, &cc);
    input_h = input_rows < 1 ? 1 : input_rows;
    if (input_h > TUI_INPUT_MAX_ROWS)
        input_h = TUI_INPUT_MAX_ROWS;
    if (input_h > (a->rows - 4) / 2)
        input_h = (a->rows - 4) / 2 > 0 ? (a->rows - 4) / 2 : 1;
    sep = a->rows - 2 - input_h;
    tr_h = sep - tr_top;
    if (a->show_sidebar && a->cols >= TUI_SIDEBAR_MIN_COLS)
        side = TUI_SIDEBAR_COLS;
    tr_w = a->cols - (side ? side + 1 : 0);
    a->side.rows = 0;                 /* no sidebar drawn: no clicks on it */
    /* the scroll position clamped to this view, so the "more below" count
    ** is what the drawn view has below it (a resize or F7 changes both) */
    /* the text wrapped one column short of the sidebar's border: text
    ** against it read as one with it ("imaginationiben|") */
    tui_tr_fit(&a->tr, side ? tr_w - 1 : tr_w, tr_h);
    a->tr_rows = tr_h;

    draw_status(a);
    draw_transcript(a, tr_top, tr_h, tr_w);
    if (side)
        draw_sidebar(a, tr_top, tr_h, a->cols - side);
    {
        int b = tui_role_attr(a, THEME_ROLE_INPUT_BORDER);
        attrset(b);
        for (int x = 0; x < a->cols; x++)
            mvaddch(sep, x, ACS_HLINE);
        if (a->tr.scroll > 0) {
            char more[48];
            snprintf(more, sizeof more, TR(" %zu more below (End) "), a->tr.scroll);
            puts_(sep, 2, more, a->cols - 4, b);
        }
    }
    draw_input(a, sep + 1, input_h, &cy, &cx);
    draw_footer(a, a->rows - 1, &cy, &cx);
    if (a->focus == TUI_FOCUS_MENU && a->menu.kind != TUI_MENU_NONE)
        draw_menu(a, tr_top, tr_h + 1);
    a->notice_popup = 0;
    if (a->notice[0] && a->notice_err && a->focus != TUI_FOCUS_PROMPT) {
        char form[TUI_NOTICE];
        notice_form(a, form, sizeof form);
        if (tui_str_width(form, strlen(form)) > a->cols)
            draw_notice_popup(a, tr_top, tr_h + 1);
    }
    /* a prompt open again after it failed or refused the text: its error
    ** stays in sight until Enter or Esc, whatever is typed (the footer is
    ** the prompt's), in the footer's form (the prompt takes the keys: the
    ** log is out of reach) */
    if (a->focus == TUI_FOCUS_PROMPT && a->prompt_retry && a->prompt_error[0]) {
        char form[TUI_NOTICE];
        int part = text_form(a, a->prompt_error, a->prompt_error_cut, form, sizeof form);
        draw_error_box(a, tr_top, tr_h + 1, form, part,
                       a->prompt_retry == TUI_RETRY_REFUSED ? BOX_REFUSED : BOX_RETRY);
    } else if (a->focus == TUI_FOCUS_PROMPT && (a->prompt_kind == TUI_PROMPT_UNSAVED ||
                                                a->prompt_kind == TUI_PROMPT_UNSAVED_EXPORT)) {
        draw_quit_said(a, tr_top, tr_h + 1);
    }
    attrset(A_NORMAL);
    if (a->focus == TUI_FOCUS_INPUT || a->focus == TUI_FOCUS_PROMPT ||
        a->focus == TUI_FOCUS_SEARCH) {
        curs_set(1);
        move(cy, cx);
    } else {
        curs_set(0);
    }
    refresh();
}
