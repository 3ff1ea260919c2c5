/*
** text.c -- buffers, display width, wrapping and the output sanitiser.
** See text.h.  No curses here: everything is unit-tested in test_tui_text.c.
**
** Wrapping invariant: the spans of a text cover it in order; bytes between
** two spans are only the '\n' or the single space a row was broken at.
*/
#define _XOPEN_SOURCE 700   /* wcwidth */
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "../core/utf8.h"

#define TUI_TAB_COLS 4   /* a tab in model output becomes this many spaces */

void *
tui_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fputs("rwkv-tui: out of memory\n", stderr);
        abort();
    }
    return p;
}

void *
tui_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (q == NULL) {
        fputs("rwkv-tui: out of memory\n", stderr);
        abort();
    }
    return q;
}

char *
tui_xstrndup(const char *s, size_t n)
{
    char *p = tui_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *
tui_xstrdup(const char *s)
{
    return tui_xstrndup(s, strlen(s));
}

void
tui_buf_init(tui_buf *b)
{
    b->p = NULL;
    b->len = b->cap = 0;
}

void
tui_buf_fini(tui_buf *b)
{
    free(b->p);
    tui_buf_init(b);
}

void
tui_buf_add(tui_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->p = tui_xrealloc(b->p, cap);
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void
tui_buf_adds(tui_buf *b, const char *s)
{
    tui_buf_add(b, s, strlen(s));
}

void
tui_buf_clear(tui_buf *b)
{
    b->len = 0;
    if (b->p)
        b->p[0] = '\0';
}

int
tui_cp_width(uint32_t cp)
{
    int w;

    if (cp == 0)
        return 0;
    w = wcwidth((wchar_t)cp);
    if (w < 0)
        return 1;
    return w > 2 ? 2 : w;
}

size_t
tui_next_cp(const char *s, size_t n, uint32_t *cp)
{
    int r = utf8_decode((const unsigned char *)s, n, cp);
    if (r > 0)
        return (size_t)r;
    *cp = 0xFFFD;
    if (r == 0)             /* cut short by the end: consume what is there */
        return n;
    return (size_t)-r;
}

int
tui_str_width(const char *s, size_t n)
{
    int w = 0;
    size_t i = 0;
    uint32_t cp;

    while (i < n) {
        i += tui_next_cp(s + i, n - i, &cp);
        w += tui_cp_width(cp);
    }
    return w;
}

size_t
tui_char_len(const char *s, size_t n)
{
    uint32_t cp;
    size_t i;

    if (n == 0)
        return 0;
    i = tui_next_cp(s, n, &cp);
    if (cp == '\n')
        return i;
    while (i < n) {
        size_t k = tui_next_cp(s + i, n - i, &cp);
        if (cp == '\n' || tui_cp_width(cp) != 0)
            break;
        i += k;
    }
    return i;
}

size_t
tui_char_prev(const char *s, size_t pos)
{
    size_t start = pos;
    uint32_t cp;

    /* Step back over code points until one with a non-zero width (the base)
     * has been passed, then check forward consistency with tui_char_len. */
    while (start > 0) {
        size_t p = start - 1;
        while (p > 0 && ((unsigned char)s[p] & 0xC0) == 0x80 && start - p < UTF8_MAX)
            p--;
        tui_next_cp(s + p, start - p, &cp);
        start = p;
        if (cp == '\n' || tui_cp_width(cp) != 0)
            break;
    }
    /* A run of zero-width marks at the very start counts as one char. */
    return start;
}

/* ---- wrapping ---------------------------------------------------------- */

typedef struct spans {
    tui_span *v;
    size_t    n, cap;
} spans;

static void
spans_add(spans *sp, size_t off, size_t len, int cols)
{
    if (sp->n == sp->cap) {
        sp->cap = sp->cap ? sp->cap * 2 : 16;
        sp->v = tui_xrealloc(sp->v, sp->cap * sizeof *sp->v);
    }
    sp->v[sp->n].off = off;
    sp->v[sp->n].len = len;
    sp->v[sp->n].cols = cols;
    sp->n++;
}

size_t
tui_wrap(const char *text, size_t n, int width, tui_span **out)
{
    spans sp = { NULL, 0, 0 };
    size_t i = 0, row = 0;
    int cols = 0;
    /* Last break opportunity in the current row: the row would end at BRK_END
     * (bytes) with BRK_COLS columns and the next row start at BRK_NEXT. */
    size_t brk_end = 0, brk_next = 0;
    int brk_cols = 0, have_brk = 0;

    if (width < 1)
        width = 1;
    while (i < n) {
        uint32_t cp;
        size_t k = tui_next_cp(text + i, n - i, &cp);
        int w;

        if (cp == '\n') {
            spans_add(&sp, row, i - row, cols);
            i += k;
            row = i;
            cols = 0;
            have_brk = 0;
            continue;
        }
        w = tui_cp_width(cp);
        if (cols + w > width && i > row) {
            if (cp == ' ') {                  /* break at this space, drop it */
                spans_add(&sp, row, i - row, cols);
                i += k;
                row = i;
                cols = 0;
                have_brk = 0;
                continue;
            }
            if (have_brk && brk_end > row) {
                spans_add(&sp, row, brk_end - row, brk_cols);
                row = brk_next;
                cols = tui_str_width(text + row, i - row);
            } else {
                spans_add(&sp, row, i - row, cols);
                row = i;
                cols = 0;
            }
            have_brk = 0;
            continue;                          /* re-examine this character */
        }
        if (w == 2 && i > row) {              /* may break before a wide char */
            brk_end = i;
            brk_next = i;
            brk_cols = cols;
            have_brk = 1;
        }
        i += k;
        if (cp == ' ') {                       /* break after a space, drop it */
            brk_end = i - k;
            brk_next = i;
            brk_cols = cols;
            have_brk = 1;
        }
        cols += w;
        if (w == 2) {                          /* and after a wide char */
            brk_end = i;
            brk_next = i;
            brk_cols = cols;
            have_brk = 1;
        }
    }
    spans_add(&sp, row, n - row, cols);
    *out = sp.v;
    return sp.n;
}

/* ---- sanitiser --------------------------------------------------------- */

enum { SAN_TEXT, SAN_ESC, SAN_CSI, SAN_STR, SAN_STR_ESC };

void
tui_san_init(tui_sanitizer *s)
{
    memset(s, 0, sizeof *s);
}

static void
san_emit_cp(uint32_t cp, const unsigned char *bytes, size_t len, tui_buf *out)
{
    if (cp >= 0x80 && cp < 0xA0)    /* C1 controls: CSI/OSC in 8-bit form */
        return;
    if (cp == 0xFFFD) {
        tui_buf_add(out, UTF8_REPL, UTF8_REPL_LEN);
        return;
    }
    tui_buf_add(out, (const char *)bytes, len);
}

/* Feed the pending UTF-8 bytes: emit every complete character. */
static void
san_drain(tui_sanitizer *s, tui_buf *out, int final)
{
    size_t i = 0;

    while (i < s->npend) {
        uint32_t cp;
        int r = utf8_decode(s->pend + i, s->npend - i, &cp);
        if (r > 0) {
            san_emit_cp(cp, s->pend + i, (size_t)r, out);
            i += (size_t)r;
        } else if (r == 0) {
            if (!final)
                break;
            tui_buf_add(out, UTF8_REPL, UTF8_REPL_LEN);
            i = s->npend;
        } else {
            tui_buf_add(out, UTF8_REPL, UTF8_REPL_LEN);
            i += (size_t)-r;
        }
    }
    memmove(s->pend, s->pend + i, s->npend - i);
    s->npend -= i;
}

void
tui_san_push(tui_sanitizer *s, const char *in, size_t n, tui_buf *out)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)in[i];

        switch (s->state) {
        case SAN_ESC:
            if (c == '[') {
                s->state = SAN_CSI;
            } else if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_') {
                s->state = SAN_STR;
            } else if (c >= 0x20 && c <= 0x2F) {
                /* intermediate byte: stay */
            } else {
                s->state = SAN_TEXT;
            }
            s->seqlen++;
            continue;
        case SAN_CSI:
            s->seqlen++;
            if ((c >= 0x40 && c <= 0x7E) || c < 0x20 || s->seqlen > TUI_SAN_MAX_SEQ)
                s->state = SAN_TEXT;
            continue;
        case SAN_STR:
            s->seqlen++;
            if (c == 0x07 || s->seqlen > TUI_SAN_MAX_SEQ)
                s->state = SAN_TEXT;
            else if (c == 0x1B)
                s->state = SAN_STR_ESC;
            continue;
        case SAN_STR_ESC:
            s->seqlen++;
            s->state = (c == '\\' || s->seqlen > TUI_SAN_MAX_SEQ) ? SAN_TEXT : SAN_STR;
            continue;
        default:
            break;
        }
        if (c < 0x80) {
            san_drain(s, out, 1);    /* an ASCII byte ends any partial char */
            if (c == 0x1B) {
                s->state = SAN_ESC;
                s->seqlen = 0;
            } else if (c == '\n') {
                tui_buf_add(out, "\n", 1);
            } else if (c == '\t') {
                tui_buf_add(out, "    ", TUI_TAB_COLS);
            } else if (c >= 0x20 && c != 0x7F) {
                tui_buf_add(out, (const char *)&c, 1);
            }
            continue;
        }
        if (s->npend == sizeof s->pend)
            san_drain(s, out, 1);
        s->pend[s->npend++] = c;
        san_drain(s, out, 0);
    }
}

void
tui_san_flush(tui_sanitizer *s, tui_buf *out)
{
    san_drain(s, out, 1);
    s->state = SAN_TEXT;
}

void
tui_sanitize(const char *in, size_t n, tui_buf *out)
{
    tui_sanitizer s;

    tui_san_init(&s);
    tui_san_push(&s, in, n, out);
    tui_san_flush(&s, out);
}

size_t
tui_progress_bar(char *out, size_t cap, double frac, int width, int utf8)
{
    /* U+2588 full block, then U+2589..U+258F: 7/8 .. 1/8 */
    static const char *const eighth[8] = {
        "", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d",
        "\xe2\x96\x8c", "\xe2\x96\x8b", "\xe2\x96\x8a", "\xe2\x96\x89",
    };
    long units, full, part;
    size_t o = 0;

    if (cap == 0)
        return 0;
    out[0] = '\0';
    if (width < 1)
        return 0;
    if (!(frac > 0))                     /* NaN too */
        frac = 0;
    if (frac > 1)
        frac = 1;
    units = (long)(frac * width * 8 + 0.5);
    if (!utf8)
        units = units / 8 * 8;           /* ASCII: whole cells only */
    full = units / 8;
    part = units % 8;
    for (long i = 0; i < width; i++) {
        const char *c = i < full ? (utf8 ? "\xe2\x96\x88" : "#")
                      : i == full && part ? eighth[part]
                      : utf8 ? "\xe2\x96\x91" : "-";
        size_t k = strlen(c);
        if (o + k + 1 > cap)
            break;
        memcpy(out + o, c, k);
        o += k;
    }
    out[o] = '\0';
    return o;
}
