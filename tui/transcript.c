/*
** transcript.c -- turns + wrapped-row cache + scroll.  See transcript.h.
**
** Invariant: rows[] holds, in order, the rows of turns 0..nturns-1 wrapped
** for `width`; a turn's rows are contiguous, so re-wrapping the last
** (streaming) turn only replaces the tail of rows[].
*/
#include "transcript.h"

#include <stdlib.h>
#include <string.h>

#include "i18n.h"

void
tui_tr_init(tui_transcript *t)
{
    memset(t, 0, sizeof *t);
    t->width = 40;
    t->focus = -1;
}

const char *
tui_tr_shown(const tui_turn *tu)
{
    if (tu->role == TUI_TURN_ASSISTANT && tu->md.text.p)
        return tu->md.text.p;
    return tu->text.p ? tu->text.p : "";
}

const char *
tui_tr_who(int role, const char *user, const char *bot)
{
    if (role == TUI_TURN_USER)
        return user != NULL && user[0] ? user : TR("You");
    if (role == TUI_TURN_ASSISTANT)
        return bot != NULL && bot[0] ? bot : "RWKV";
    return role == TUI_TURN_ERROR ? TR("Error") : TR("Note");
}

const unsigned char *
tui_tr_styles(const tui_turn *tu)
{
    return tu->role == TUI_TURN_ASSISTANT && tu->md.text.p ? tu->md.style : NULL;
}

static void
turn_fini(tui_turn *tu)
{
    tui_buf_fini(&tu->text);
    tui_buf_fini(&tu->raw);
    tui_md_fini(&tu->md);
}

void
tui_tr_clear(tui_transcript *t)
{
    for (int i = 0; i < t->nturns; i++)
        turn_fini(&t->turns[i]);
    t->nturns = 0;
    t->nrows = 0;
    t->scroll = 0;
    t->focus = -1;
}

void
tui_tr_fini(tui_transcript *t)
{
    tui_tr_clear(t);
    free(t->turns);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

static void
row_add(tui_transcript *t, int turn, int kind, size_t off, size_t len)
{
    t->rows = tui_xgrow(t->rows, &t->rcap, t->nrows, sizeof *t->rows, 64);
    t->rows[t->nrows].turn = turn;
    t->rows[t->nrows].kind = kind;
    t->rows[t->nrows].off = off;
    t->rows[t->nrows].len = len;
    t->rows[t->nrows].indent = 0;
    t->rows[t->nrows].code = 0;
    t->rows[t->nrows].think = 0;
    t->nrows++;
}

/* Rows for N bytes at OFF of TEXT wrapped to W columns, each INDENT
** columns in (the first FIRST_INDENT), CODE rows or not. */
static void
rows_wrapped(tui_transcript *t, int turn, const char *text, size_t off, size_t n, int w,
             int first_indent, int indent, int code)
{
    tui_span *sp;
    size_t k = tui_wrap(text + off, n, w < 1 ? 1 : w, &sp);

    for (size_t r = 0; r < k; r++) {
        row_add(t, turn, TUI_ROW_TEXT, off + sp[r].off, sp[r].len);
        t->rows[t->nrows - 1].indent = r ? indent : first_indent;
        t->rows[t->nrows - 1].code = code;
    }
    free(sp);
}

/* The rows of the reasoning lines of turn I's rendering from line K on,
** wrapped to W columns, or one FOLD row for them all.  Returns the line
** after them. */
static size_t
layout_think(tui_transcript *t, int i, size_t k, int w)
{
    const tui_md *m = &t->turns[i].md;
    size_t e = k;

    while (e < m->nlines && m->lines[e].kind == TUI_MD_THINK)
        e++;
    if (t->fold_think) {
        const tui_md_line_info *last = &m->lines[e - 1];
        row_add(t, i, TUI_ROW_FOLD, m->lines[k].off, last->off + last->len - m->lines[k].off);
        t->rows[t->nrows - 1].think = (int)(e - k);
        return e;
    }
    for (size_t j = k; j < e; j++) {
        size_t from = t->nrows;
        rows_wrapped(t, i, m->text.p, m->lines[j].off, m->lines[j].len, w, 0, 0, 0);
        for (size_t r = from; r < t->nrows; r++)
            t->rows[r].think = 1;
    }
    return e;
}

/* The rows of a reply: its Markdown rendered, then wrapped line by line. */
static void
layout_md(tui_transcript *t, int i, size_t skip, int w)
{
    tui_turn *tu = &t->turns[i];
    tui_md *m = &tu->md;
    int prose = w < TUI_TR_MAX_TEXT ? w : TUI_TR_MAX_TEXT;

    tui_md_render(m, tu->text.p ? tu->text.p + skip : "", tu->text.len - skip, MB_CUR_MAX > 1);
    for (size_t k = 0; k < m->nlines; k++) {
        const tui_md_line_info *l = &m->lines[k];
        if (l->kind == TUI_MD_THINK) {
            k = layout_think(t, i, k, prose) - 1;
        } else if (l->kind == TUI_MD_CODELINE) {
            rows_wrapped(t, i, m->text.p, l->off, l->len, w - TUI_TR_CODE_INSET,
                         TUI_TR_CODE_INSET, TUI_TR_CODE_INSET, 1);
        } else if (l->kind == TUI_MD_ITEM && l->hang > 0 && l->hang < prose / 2) {
            /* the first row holds the bullet; the rest hang under its text */
            tui_span *sp;
            size_t rest;
            tui_wrap(m->text.p + l->off, l->len, prose, &sp);
            row_add(t, i, TUI_ROW_TEXT, l->off, sp[0].len);
            rest = sp[0].len;
            free(sp);
            while (rest < l->len && m->text.p[l->off + rest] == ' ')
                rest++;
            if (rest < l->len)
                rows_wrapped(t, i, m->text.p, l->off + rest, l->len - rest, prose - l->hang,
                             l->hang, l->hang, 0);
        } else {
            rows_wrapped(t, i, m->text.p, l->off, l->len, prose, 0, 0, 0);
        }
    }
}

/* Append the rows of turn I at the end of rows[]. */
static void
layout_turn(tui_transcript *t, int i)
{
    tui_turn *tu = &t->turns[i];
    tui_span *sp;
    int w = t->width - TUI_TR_INDENT;
    size_t n, skip = 0;

    t->gen++;
    row_add(t, i, TUI_ROW_HEADER, 0, 0);
    if (tu->role == TUI_TURN_ASSISTANT)
        skip = tui_reply_lead(tu->text.p, tu->text.len);
    if (tu->role == TUI_TURN_ASSISTANT) {
        layout_md(t, i, skip, w < 1 ? 1 : w);
        row_add(t, i, TUI_ROW_BLANK, 0, 0);
        return;
    }
    n = tui_wrap(tu->text.p ? tu->text.p + skip : "", tu->text.len - skip, w < 1 ? 1 : w, &sp);
    for (size_t k = 0; k < n; k++)
        row_add(t, i, TUI_ROW_TEXT, sp[k].off + skip, sp[k].len);
    free(sp);
    row_add(t, i, TUI_ROW_BLANK, 0, 0);
}

/* Re-wrap only the last turn (the one being streamed). */
static void
relayout_last(tui_transcript *t)
{
    int last = t->nturns - 1;
    size_t before = t->nrows;

    while (t->nrows > 0 && t->rows[t->nrows - 1].turn == last)
        t->nrows--;
    before -= t->nrows;
    {
        size_t start = t->nrows;
        layout_turn(t, last);
        if (t->scroll > 0 && t->nrows - start > before)
            t->scroll += t->nrows - start - before;  /* keep a scrolled-back view still */
    }
}

int
tui_tr_add(tui_transcript *t, int role, const char *text, size_t n)
{
    tui_turn *tu;

    t->turns = tui_xgrow(t->turns, &t->cap, (size_t)t->nturns, sizeof *t->turns, 16);
    tu = &t->turns[t->nturns++];
    memset(tu, 0, sizeof *tu);
    tu->role = role;
    tui_md_init(&tu->md);
    tui_buf_init(&tu->text);
    tui_buf_add(&tu->text, "", 0);
    tui_buf_init(&tu->raw);
    tui_buf_add(&tu->raw, text, n);
    tui_san_init(&tu->san);
    tui_san_push(&tu->san, text, n, &tu->text);
    tui_san_flush(&tu->san, &tu->text);
    {
        size_t start = t->nrows;
        layout_turn(t, t->nturns - 1);
        if (t->scroll > 0)
            t->scroll += t->nrows - start;   /* keep a scrolled-back view still */
    }
    return t->nturns - 1;
}

void
tui_tr_append(tui_transcript *t, int i, const char *text, size_t n)
{
    tui_turn *tu;

    if (i < 0 || i >= t->nturns)
        return;
    tu = &t->turns[i];
    tui_buf_add(&tu->raw, text, n);
    tui_san_push(&tu->san, text, n, &tu->text);
    if (i == t->nturns - 1)
        relayout_last(t);
    else
        tui_tr_layout(t, t->width);
}

void
tui_tr_finish(tui_transcript *t, int i, unsigned set_flags)
{
    if (i < 0 || i >= t->nturns)
        return;
    tui_san_flush(&t->turns[i].san, &t->turns[i].text);
    t->turns[i].flags &= ~TUI_TURN_STREAMING;
    t->turns[i].flags |= set_flags;
    tui_tr_layout(t, t->width);
}

void
tui_tr_truncate(tui_transcript *t, int i)
{
    if (i < 0)
        i = 0;
    if (t->focus >= i)
        t->focus = -1;
    while (t->nturns > i)
        turn_fini(&t->turns[--t->nturns]);
    tui_tr_layout(t, t->width);
}

static size_t max_scroll(const tui_transcript *t, int h);

/* A place in the text: what a row shows, kept across a re-wrap (its
** index is not: rows split or join at another width, reasoning folds). */
typedef struct tr_anchor {
    int    turn, kind;
    size_t off;        /* TEXT and FOLD rows: a byte of tui_tr_shown(turn) */
} tr_anchor;

/* The top row of a scrolled-back view H rows high into *AN; 0 when the
** view follows the end (nothing to keep). */
static int
anchor_take(const tui_transcript *t, int h, tr_anchor *an)
{
    const tui_row *r;

    if (t->scroll == 0 || t->nrows == 0 || h < 1)
        return 0;
    r = &t->rows[tui_tr_first_row(t, h)];
    an->turn = r->turn;
    an->kind = r->kind;
    an->off = r->off;
    return 1;
}

/* Scroll a view H rows high so that the row showing AN is its top row
** (as near as the end allows); the count is left as it was when AN's turn
** is gone (clamped at the draw). */
static void
anchor_put(tui_transcript *t, const tr_anchor *an, int h)
{
    size_t row = (size_t)-1;

    if (an->turn >= t->nturns)
        return;
    if (an->kind == TUI_ROW_TEXT || an->kind == TUI_ROW_FOLD) {
        row = tui_tr_row_of(t, an->turn, an->off);
    } else {
        for (size_t r = 0; r < t->nrows && row == (size_t)-1; r++)
            if (t->rows[r].turn == an->turn && t->rows[r].kind == an->kind)
                row = r;
    }
    if (row != (size_t)-1)
        tui_tr_show_top(t, row, h);
}

static void
layout_all(tui_transcript *t, int width)
{
    t->width = width < 1 ? 1 : width;
    t->nrows = 0;
    for (int i = 0; i < t->nturns; i++)
        layout_turn(t, i);
}

void
tui_tr_layout(tui_transcript *t, int width)
{
    tr_anchor an;
    int keep = anchor_take(t, t->view_h, &an);

    layout_all(t, width);
    if (keep)
        anchor_put(t, &an, t->view_h);
}

void
tui_tr_set_fold(tui_transcript *t, int fold)
{
    t->fold_think = fold != 0;
    tui_tr_layout(t, t->width);
}

static size_t
max_scroll(const tui_transcript *t, int h)
{
    if (h < 1)
        h = 1;
    return t->nrows > (size_t)h ? t->nrows - (size_t)h : 0;
}

/* The one rule for a stored scroll position: no more rows below the view
** than a view H rows high can have.  Rows re-wrapped wider, a taller view
** or turns dropped can leave more counted than there are; kept, the count
** would be shown ("N more below") though the view is drawn clamped. */
static void
clamp_scroll(tui_transcript *t, int h)
{
    size_t m = max_scroll(t, h);

    if (t->scroll > m)
        t->scroll = m;
}

void
tui_tr_fit(tui_transcript *t, int width, int h)
{
    if (width != t->width) {
        /* the top row of the view as last drawn stays the top row of the
        ** view drawn now (a resize changes both) */
        tr_anchor an;
        int keep = anchor_take(t, t->view_h > 0 ? t->view_h : h, &an);
        layout_all(t, width);
        if (keep)
            anchor_put(t, &an, h);
    }
    clamp_scroll(t, h);
    t->view_h = h;
}

void
tui_tr_scroll(tui_transcript *t, long delta, int h)
{
    clamp_scroll(t, h);                 /* from the view as it is drawn */
    if (delta < 0) {
        size_t d = (size_t)-delta;
        t->scroll = d > t->scroll ? 0 : t->scroll - d;
    } else {
        t->scroll += (size_t)delta;
        clamp_scroll(t, h);
    }
}

void
tui_tr_scroll_top(tui_transcript *t, int h)
{
    t->scroll = max_scroll(t, h);
}

void
tui_tr_scroll_end(tui_transcript *t)
{
    t->scroll = 0;
}

size_t
tui_tr_first_row(const tui_transcript *t, int h)
{
    size_t m = max_scroll(t, h);
    size_t s = t->scroll > m ? m : t->scroll;

    return m - s;
}

size_t
tui_tr_row_of(const tui_transcript *t, int turn, size_t off)
{
    size_t last = (size_t)-1;

    for (size_t r = 0; r < t->nrows; r++) {
        const tui_row *row = &t->rows[r];
        if (row->turn != turn || (row->kind != TUI_ROW_TEXT && row->kind != TUI_ROW_FOLD))
            continue;
        if (row->off > off || off < row->off + row->len)
            return r;            /* holds OFF, or follows the space dropped there */
        last = r;
    }
    return last;
}

void
tui_tr_show_row(tui_transcript *t, size_t row, int h)
{
    size_t first = tui_tr_first_row(t, h), m = max_scroll(t, h), want;

    if (h < 1)
        h = 1;
    if (row >= t->nrows || (row >= first && row < first + (size_t)h))
        return;
    /* the first row to show, with ROW in the middle */
    want = row > (size_t)h / 2 ? row - (size_t)h / 2 : 0;
    if (want > m)
        want = m;
    t->scroll = m - want;
}

void
tui_tr_show_top(tui_transcript *t, size_t row, int h)
{
    size_t m = max_scroll(t, h);

    t->scroll = row < m ? m - row : 0;
}

size_t
tui_tr_header_row(const tui_transcript *t, int turn)
{
    for (size_t r = 0; r < t->nrows; r++)
        if (t->rows[r].turn == turn && t->rows[r].kind == TUI_ROW_HEADER)
            return r;
    return (size_t)-1;
}

size_t
tui_tr_msg_row(const tui_transcript *t, size_t row, int dir)
{
    size_t r = row > t->nrows ? t->nrows : row;

    while (dir < 0 ? r-- > 0 : ++r < t->nrows) {
        const tui_row *x = &t->rows[r];
        int role = t->turns[x->turn].role;
        if (x->kind == TUI_ROW_HEADER && (role == TUI_TURN_USER || role == TUI_TURN_ASSISTANT))
            return r;
    }
    return (size_t)-1;
}

int
tui_tr_in_view(const tui_transcript *t, int turn, int h)
{
    size_t first = tui_tr_first_row(t, h);

    for (size_t r = first; r < t->nrows && r < first + (size_t)(h < 1 ? 1 : h); r++)
        if (t->rows[r].turn == turn)
            return 1;
    return 0;
}
