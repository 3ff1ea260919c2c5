/*
** input.c -- the input box's editor model.  See input.h.
**
** Invariants: buf[len] == '\0'; cur <= len and on a whole-character
** boundary (never inside a UTF-8 sequence or before a combining mark that
** belongs to the previous character).
*/
#include "input.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

struct tui_undo {          /* a text before a change (input.h: undo) */
    char   *buf;           /* owned */
    size_t  len, cur;
};

static void
undo_forget(tui_input *in)
{
    for (size_t i = 0; i < in->nundo; i++)
        free(in->undo[i].buf);
    free(in->undo);
    in->undo = NULL;
    in->nundo = in->undo_bytes = 0;
    in->undo_open = 0;
}

/* Keep the text before a change (INSERTING: an insert, which the open step
** takes when it goes on where the last insert left off).  A text the newest
** step already holds is not kept twice. */
static void
undo_keep(tui_input *in, int inserting)
{
    struct tui_undo *u;

    if (inserting && in->undo_open && in->cur == in->undo_cur && in->len == in->undo_len)
        return;
    in->undo_open = 0;
    if (in->nundo > 0 && in->undo[in->nundo - 1].len == in->len &&
        memcmp(in->undo[in->nundo - 1].buf, in->buf, in->len) == 0) {
        in->undo[in->nundo - 1].cur = in->cur;
        return;
    }
    while (in->nundo > 0 && (in->nundo >= TUI_INPUT_UNDO ||
                             in->undo_bytes + in->len > TUI_INPUT_UNDO_BYTES)) {
        in->undo_bytes -= in->undo[0].len;          /* the oldest go */
        free(in->undo[0].buf);
        memmove(in->undo, in->undo + 1, (in->nundo - 1) * sizeof *in->undo);
        in->nundo--;
    }
    if (in->undo == NULL)
        in->undo = tui_xmalloc(TUI_INPUT_UNDO * sizeof *in->undo);
    u = &in->undo[in->nundo++];
    u->buf = tui_xmalloc(in->len + 1);
    memcpy(u->buf, in->buf, in->len + 1);
    u->len = in->len;
    u->cur = in->cur;
    in->undo_bytes += in->len;
}

/* After an insert: the next one at this cursor is the same step. */
static void
undo_insert_done(tui_input *in)
{
    in->undo_open = 1;
    in->undo_cur = in->cur;
    in->undo_len = in->len;
}

int
tui_input_undo(tui_input *in)
{
    in->undo_open = 0;
    while (in->nundo > 0) {
        struct tui_undo *u = &in->undo[--in->nundo];

        in->undo_bytes -= u->len;
        if (u->len != in->len || memcmp(u->buf, in->buf, u->len) != 0) {
            free(in->buf);
            in->buf = u->buf;
            in->len = u->len;
            in->cap = u->len + 1;
            in->cur = u->cur;
            in->sel = 0;
            in->kill_joins = 0;
            return 1;
        }
        free(u->buf);             /* (the text as it is: nothing to undo) */
    }
    return 0;
}

void
tui_input_undo_break(tui_input *in)
{
    in->undo_open = 0;
}

void
tui_input_init(tui_input *in)
{
    memset(in, 0, sizeof *in);
    in->cap = 64;
    in->buf = tui_xmalloc(in->cap);
    in->buf[0] = '\0';
}

void
tui_input_fini(tui_input *in)
{
    for (size_t i = 0; i < in->nhist; i++)
        free(in->hist[i]);
    free(in->hist);
    free(in->hcut);
    free(in->buf);
    free(in->draft);
    free(in->kill);
    undo_forget(in);
    memset(in, 0, sizeof *in);
}

static void
reserve(tui_input *in, size_t n)
{
    if (in->len + n + 1 > in->cap) {
        while (in->len + n + 1 > in->cap)
            in->cap *= 2;
        in->buf = tui_xrealloc(in->buf, in->cap);
    }
}

static void clear_text(tui_input *in);

static size_t
insert_text(tui_input *in, const char *s, size_t n)
{
    size_t cut = 0;

    if (in->sel)                 /* typed over a selection: it goes */
        clear_text(in);
    if (n > TUI_INPUT_MAX - in->len) {
        /* the box's room: the cut falls before the first character that
        ** does not fit whole (never inside its UTF-8 sequence), and the
        ** characters left out are counted for the caller's notice */
        size_t keep = TUI_INPUT_MAX - in->len;
        while (keep > 0 && ((unsigned char)s[keep] & 0xc0) == 0x80)
            keep--;
        for (size_t i = keep; i < n; i++)
            cut += ((unsigned char)s[i] & 0xc0) != 0x80;
        n = keep;
    }
    reserve(in, n);
    memmove(in->buf + in->cur + n, in->buf + in->cur, in->len - in->cur + 1);
    memcpy(in->buf + in->cur, s, n);
    in->len += n;
    in->cur += n;
    return cut;
}

size_t
tui_input_insert(tui_input *in, const char *s, size_t n)
{
    size_t cut;

    if (n == 0 && !in->sel)
        return 0;
    undo_keep(in, !in->sel);
    cut = insert_text(in, s, n);
    undo_insert_done(in);
    return cut;
}

static void
clear_text(tui_input *in)
{
    in->len = in->cur = 0;
    in->buf[0] = '\0';
    in->kill_joins = 0;          /* other text: a kill now starts afresh */
    in->sel = 0;
}

void
tui_input_clear(tui_input *in)
{
    if (in->len > 0)
        undo_keep(in, 0);
    clear_text(in);
}

void
tui_input_select_all(tui_input *in)
{
    in->cur = in->len;
    in->sel = in->len > 0;
}

size_t
tui_input_set(tui_input *in, const char *s)
{
    size_t cut;

    if (strcmp(in->buf, s) != 0)
        undo_keep(in, 0);
    clear_text(in);
    cut = insert_text(in, s, strlen(s));
    in->undo_open = 0;           /* a text put in whole: a step of its own */
    return cut;
}

static void
erase(tui_input *in, size_t from, size_t to)
{
    memmove(in->buf + from, in->buf + to, in->len - to + 1);
    in->len -= to - from;
    in->cur = from;
}

void
tui_input_left(tui_input *in)
{
    if (in->sel) {               /* a selection: to its start */
        in->sel = 0;
        in->cur = 0;
        return;
    }
    if (in->cur > 0)
        in->cur = tui_char_prev(in->buf, in->cur);
}

void
tui_input_right(tui_input *in)
{
    if (in->sel) {               /* a selection: to its end */
        in->sel = 0;
        in->cur = in->len;
        return;
    }
    in->cur += tui_char_len(in->buf + in->cur, in->len - in->cur);
}

static size_t
line_start(const tui_input *in, size_t pos)
{
    while (pos > 0 && in->buf[pos - 1] != '\n')
        pos--;
    return pos;
}

static size_t
line_end(const tui_input *in, size_t pos)
{
    while (pos < in->len && in->buf[pos] != '\n')
        pos++;
    return pos;
}

void
tui_input_home(tui_input *in)
{
    in->cur = line_start(in, in->cur);
}

void
tui_input_end(tui_input *in)
{
    in->cur = line_end(in, in->cur);
}

/* Byte offset in [P, END) of IN's text, from column 0 at P, whose column is
** closest to COL without passing it. */
static size_t
col_offset(const tui_input *in, size_t p, size_t end, int col)
{
    int c = 0;

    while (p < end) {
        size_t k = tui_char_len(in->buf + p, end - p);
        int w = tui_str_width(in->buf + p, k);
        if (c + w > col)
            break;
        c += w;
        p += k;
    }
    return p;
}

/* The same in the line starting at START. */
static size_t
at_column(const tui_input *in, size_t start, int col)
{
    return col_offset(in, start, line_end(in, start), col);
}

static void
hist_load(tui_input *in, size_t pos)
{
    const char *s = pos == in->nhist ? (in->draft ? in->draft : "") : in->hist[pos];
    char *copy = tui_xstrdup(s);

    in->hpos = pos;
    tui_input_set(in, copy);
    free(copy);
}

/* Move the cursor DIR (-1, +1) rows of IN wrapped to WIDTH columns, keeping
** its display column; 0 when there is no such row (or WIDTH < 1). */
static int
move_row(tui_input *in, int width, int dir)
{
    tui_span *sp;
    size_t n, r = 0, t, p, end;
    int col;

    if (width < 1)
        return 0;
    n = tui_wrap(in->buf, in->len, width, &sp);
    for (size_t i = 0; i < n; i++)   /* the cursor's row, as tui_input_layout */
        if (sp[i].off <= in->cur)
            r = i;
    end = sp[r].off + sp[r].len;
    col = tui_str_width(in->buf + sp[r].off, (in->cur < end ? in->cur : end) - sp[r].off);
    if (col >= width) {   /* after a full row: drawn at the start of the next */
        r++;
        col = 0;
    }
    if ((dir < 0 && r == 0) || (dir > 0 && r + 1 >= n)) {
        free(sp);
        return 0;
    }
    t = dir < 0 ? r - 1 : r + 1;
    p = sp[t].off;
    end = sp[t].off + sp[t].len;
    /* a row broken inside a word ends where the next begins: stop on its
    ** last character, or the cursor would show on the next row */
    if (t + 1 < n && sp[t + 1].off == end && end > p)
        end = tui_char_prev(in->buf, end);
    in->cur = col_offset(in, p, end, col);
    free(sp);
    return 1;
}

int
tui_input_up_at(tui_input *in, int width)
{
    size_t ls = line_start(in, in->cur);

    if (width >= 1) {
        if (move_row(in, width, -1))
            return 1;
    } else if (ls > 0) {
        int col = tui_str_width(in->buf + ls, in->cur - ls);
        in->cur = at_column(in, line_start(in, ls - 1), col);
        return 1;
    }
    if (in->hpos == 0 || in->nhist == 0)
        return 0;
    if (in->hpos == in->nhist) {
        free(in->draft);
        in->draft = tui_xstrdup(in->buf);
    }
    hist_load(in, in->hpos - 1);
    return 1;
}

int
tui_input_down_at(tui_input *in, int width)
{
    size_t le = line_end(in, in->cur);

    if (width >= 1) {
        if (move_row(in, width, +1))
            return 1;
    } else if (le < in->len) {
        size_t ls = line_start(in, in->cur);
        int col = tui_str_width(in->buf + ls, in->cur - ls);
        in->cur = at_column(in, le + 1, col);
        return 1;
    }
    if (in->hpos >= in->nhist)
        return 0;
    hist_load(in, in->hpos + 1);
    return 1;
}

int
tui_input_up(tui_input *in)
{
    return tui_input_up_at(in, 0);
}

int
tui_input_down(tui_input *in)
{
    return tui_input_down_at(in, 0);
}

void
tui_input_backspace(tui_input *in)
{
    if (in->sel) {               /* a selection: removed whole */
        tui_input_clear(in);
        return;
    }
    if (in->cur > 0) {
        undo_keep(in, 0);
        erase(in, tui_char_prev(in->buf, in->cur), in->cur);
    }
}

void
tui_input_delete(tui_input *in)
{
    size_t k;

    if (in->sel) {
        tui_input_clear(in);
        return;
    }
    k = tui_char_len(in->buf + in->cur, in->len - in->cur);
    if (k) {
        undo_keep(in, 0);
        erase(in, in->cur, in->cur + k);
    }
}

/*
** Delete [FROM, TO) (FROM <= cur <= TO) into the kill text.  Right after
** another kill (the box unchanged: same length, same cursor) the text it
** took sat at the cursor, so the two join in the box's order: the part
** before the cursor, the earlier kill, the part after it.
*/
static void
kill_range(tui_input *in, size_t from, size_t to)
{
    size_t before = in->cur - from, after = to - in->cur, old = 0;
    char *k;

    if (from == to)
        return;                       /* nothing deleted: the kill text stays */
    undo_keep(in, 0);
    if (in->kill_joins && in->len == in->kill_at_len && in->cur == in->kill_at_cur)
        old = in->kill_len;
    k = tui_xmalloc(before + old + after + 1);
    memcpy(k, in->buf + from, before);
    if (old > 0)
        memcpy(k + before, in->kill, old);
    memcpy(k + before + old, in->buf + in->cur, after);
    k[before + old + after] = '\0';
    free(in->kill);
    in->kill = k;
    in->kill_len = before + old + after;
    erase(in, from, to);
    in->kill_joins = 1;
    in->kill_at_len = in->len;
    in->kill_at_cur = in->cur;
}

size_t
tui_input_yank(tui_input *in)
{
    size_t n;

    if (in->kill == NULL)
        return 0;
    undo_keep(in, 0);
    if (in->sel)
        clear_text(in);          /* over a selection: it goes */
    n = in->len;
    insert_text(in, in->kill, in->kill_len);
    return in->len - n;
}

void
tui_input_kill_eol(tui_input *in)
{
    size_t le = line_end(in, in->cur);

    if (le == in->cur && le < in->len)
        le++;                         /* at the end of a line: join the next */
    kill_range(in, in->cur, le);
}

/* The whole text, not the cursor's line: C-u clears the box to write the
** message again (a pasted page or an edited message too), wherever the
** cursor is. */
void
tui_input_kill_all(tui_input *in)
{
    kill_range(in, 0, in->len);
}

static int
is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

void
tui_input_kill_word(tui_input *in)
{
    size_t p = in->cur;

    while (p > 0 && is_space(in->buf[p - 1]))
        p--;
    while (p > 0 && !is_space(in->buf[p - 1]))
        p = tui_char_prev(in->buf, p);
    kill_range(in, p, in->cur);
}

/* The word class of the character at S (N bytes): 0 separates words
** (spaces, punctuation), else runs of one class are one word. */
enum { WC_SEP, WC_WORD, WC_HAN, WC_HIRA, WC_KATA, WC_HANGUL };

static int
word_class(const char *s, size_t n)
{
    uint32_t cp;

    tui_next_cp(s, n, &cp);
    if (cp < 0x80)
        return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') ||
               (cp >= 'A' && cp <= 'Z') || cp == '_' ? WC_WORD : WC_SEP;
    if (cp == 0xa0 || (cp >= 0xa1 && cp <= 0xbf && cp != 0xaa && cp != 0xb5 && cp != 0xba) ||
        cp == 0xd7 || cp == 0xf7 || (cp >= 0x2000 && cp <= 0x206f) ||
        (cp >= 0x3000 && cp <= 0x303f) || cp == 0x30fb || (cp >= 0xff01 && cp <= 0xff0f) ||
        (cp >= 0xff1a && cp <= 0xff20) || (cp >= 0xff3b && cp <= 0xff40) ||
        (cp >= 0xff5b && cp <= 0xff65))
        return WC_SEP;
    if ((cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) ||
        (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x20000 && cp <= 0x3ffff))
        return WC_HAN;
    if (cp >= 0x3040 && cp <= 0x309f)
        return WC_HIRA;
    if ((cp >= 0x30a0 && cp <= 0x30ff) || (cp >= 0x31f0 && cp <= 0x31ff) ||
        (cp >= 0xff66 && cp <= 0xff9f))
        return WC_KATA;
    if ((cp >= 0xac00 && cp <= 0xd7af) || (cp >= 0x1100 && cp <= 0x11ff) ||
        (cp >= 0x3130 && cp <= 0x318f))
        return WC_HANGUL;
    return WC_WORD;
}

/* The end of the word at or after POS (separators skipped first). */
static size_t
word_end(const tui_input *in, size_t pos)
{
    int cls;

    while (pos < in->len && word_class(in->buf + pos, in->len - pos) == WC_SEP)
        pos += tui_char_len(in->buf + pos, in->len - pos);
    if (pos == in->len)
        return pos;
    cls = word_class(in->buf + pos, in->len - pos);
    while (pos < in->len && word_class(in->buf + pos, in->len - pos) == cls)
        pos += tui_char_len(in->buf + pos, in->len - pos);
    return pos;
}

/* The start of the word before POS (separators before it skipped first). */
static size_t
word_start(const tui_input *in, size_t pos)
{
    int cls;
    size_t p;

    while (pos > 0) {
        p = tui_char_prev(in->buf, pos);
        if (word_class(in->buf + p, in->len - p) != WC_SEP)
            break;
        pos = p;
    }
    if (pos == 0)
        return 0;
    p = tui_char_prev(in->buf, pos);
    cls = word_class(in->buf + p, in->len - p);
    while (pos > 0) {
        p = tui_char_prev(in->buf, pos);
        if (word_class(in->buf + p, in->len - p) != cls)
            break;
        pos = p;
    }
    return pos;
}

void
tui_input_word_left(tui_input *in)
{
    in->cur = word_start(in, in->cur);
}

void
tui_input_word_right(tui_input *in)
{
    in->cur = word_end(in, in->cur);
}

void
tui_input_kill_word_next(tui_input *in)
{
    kill_range(in, in->cur, word_end(in, in->cur));
}

void
tui_input_kill_word_prev(tui_input *in)
{
    kill_range(in, word_start(in, in->cur), in->cur);
}

static int
is_blank(const char *s)
{
    while (*s && is_space(*s))
        s++;
    return *s == '\0';
}

/* S (a message cut when CUT) onto the history unless blank or a repeat of
** the last entry; 1 if added. */
static int
hist_add(tui_input *in, const char *s, int cut)
{
    if (is_blank(s) || (in->nhist > 0 && strcmp(in->hist[in->nhist - 1], s) == 0))
        return 0;
    if (in->nhist == TUI_INPUT_HISTORY) {
        free(in->hist[0]);
        memmove(in->hist, in->hist + 1, (in->nhist - 1) * sizeof *in->hist);
        memmove(in->hcut, in->hcut + 1, in->nhist - 1);
        in->nhist--;
    }
    in->hist = tui_xrealloc(in->hist, (in->nhist + 1) * sizeof *in->hist);
    in->hcut = tui_xrealloc(in->hcut, in->nhist + 1);
    in->hcut[in->nhist] = cut != 0;
    in->hist[in->nhist++] = tui_xstrdup(s);
    in->hpos = in->nhist;
    return 1;
}

void
tui_input_remember_cut(tui_input *in, const char *s, int cut)
{
    hist_add(in, s, cut);
    if (in->nnew > in->nhist)
        in->nnew = in->nhist;
}

void
tui_input_remember(tui_input *in, const char *s)
{
    tui_input_remember_cut(in, s, 0);
}

int
tui_input_hist_cut(const tui_input *in, size_t i)
{
    return i < in->nhist && in->hcut[i];
}

void
tui_input_history_from(tui_input *in, const tui_input *src)
{
    for (size_t i = 0; i < in->nhist; i++)
        free(in->hist[i]);
    in->nhist = in->nnew = 0;
    for (size_t i = 0; i < src->nhist; i++)
        hist_add(in, src->hist[i], src->hcut[i]);
    in->hpos = in->nhist;
    free(in->draft);
    in->draft = NULL;
}

const char *
tui_input_unsent(const tui_input *in)
{
    const char *s = in->buf;

    if (in->hpos < in->nhist && strcmp(in->buf, in->hist[in->hpos]) == 0)
        s = in->draft ? in->draft : "";
    return is_blank(s) ? NULL : s;
}

char *
tui_input_take(tui_input *in)
{
    char *s;

    if (is_blank(in->buf))
        return NULL;
    s = tui_xstrdup(in->buf);
    if (hist_add(in, s, 0) && in->nnew < in->nhist)
        in->nnew++;
    in->hpos = in->nhist;
    free(in->draft);
    in->draft = NULL;
    clear_text(in);
    undo_forget(in);             /* sent: its changes are not the next one's */
    return s;
}

int
tui_input_layout(const tui_input *in, int width, int *cur_row, int *cur_col)
{
    tui_span *sp;
    size_t n = tui_wrap(in->buf, in->len, width, &sp);
    size_t r = 0;

    /* The cursor's row: the last span starting at or before it. */
    for (size_t i = 0; i < n; i++)
        if (sp[i].off <= in->cur)
            r = i;
    *cur_row = (int)r;
    {
        size_t end = sp[r].off + sp[r].len;
        size_t upto = in->cur < end ? in->cur : end;
        *cur_col = tui_str_width(in->buf + sp[r].off, upto - sp[r].off);
    }
    if (*cur_col >= width && width > 0) {
        /* cursor after a full row: show it at the start of the next one */
        *cur_row = (int)r + 1;
        *cur_col = 0;
        free(sp);
        return (int)n + 1 > *cur_row + 1 ? (int)n : *cur_row + 1;
    }
    free(sp);
    return (int)n;
}

/* ---- escape sequences (input.h) ------------------------------------------- */

void
tui_esc_start(tui_esc *e, int typed)
{
    memset(e, 0, sizeof *e);
    e->typed = typed;
}

/* The end of a CSI or SS3 at final byte B: bare (no parameter or
** intermediate byte), a typed one must be in BARE. */
static int
esc_final(tui_esc *e, int b, const char *bare)
{
    if (!e->typed || e->params || e->inter)
        return TUI_ESC_DONE;
    if (strchr(bare, b) == NULL)
        return TUI_ESC_NONE;     /* Alt-[ (Alt-O) and a key */
    if (e->kind == '[' && b == 'M') {
        e->kind = 'X';           /* X10 mouse: button, column, row follow */
        return TUI_ESC_MORE;
    }
    return TUI_ESC_DONE;
}

int
tui_esc_feed(tui_esc *e, int b)
{
    size_t i = e->n++;

    if (i == 0) {
        e->kind = b;
        if (b == '[' || b == 'O' || b == ']' || b == 'P' || b == '_' || b == '^')
            return TUI_ESC_MORE;
        return TUI_ESC_NONE;
    }
    switch (e->kind) {
    case 'X':                    /* any three bytes (a coordinate may pass 0x7f) */
        return i == 4 ? TUI_ESC_DONE : TUI_ESC_MORE;
    case 'L':
        return b >= 'A' && b <= 'E' ? TUI_ESC_DONE : TUI_ESC_NONE;
    case '[':
    case 'O':
        if (e->kind == '[' && i == 1 && b == '[') {
            e->kind = 'L';
            return TUI_ESC_MORE;
        }
        if (b >= 0x30 && b <= 0x3f && !e->inter) {
            e->params = 1;
            return TUI_ESC_MORE;
        }
        if (b >= 0x20 && b <= 0x2f && e->kind == '[') {
            e->inter = 1;
            return TUI_ESC_MORE;
        }
        if (b >= 0x40 && b <= 0x7e)
            return esc_final(e, b, e->kind == '[' ? TUI_ESC_BARE_CSI : TUI_ESC_BARE_SS3);
        return TUI_ESC_NONE;
    default:                     /* a string: OSC, DCS, APC, PM */
        if (e->esc)
            return b == '\\' ? TUI_ESC_DONE : TUI_ESC_NONE;
        if (b == 27) {
            e->esc = 1;
            return TUI_ESC_MORE;
        }
        return b == 7 ? TUI_ESC_DONE : TUI_ESC_MORE;
    }
}
