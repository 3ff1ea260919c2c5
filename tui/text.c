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

void *
tui_xgrow(void *p, size_t *cap, size_t n, size_t size, size_t first)
{
    if (n < *cap)
        return p;
    *cap = *cap ? *cap * 2 : first;
    return tui_xrealloc(p, *cap * size);
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

/* 1 for the blocks of East Asian Wide and Fullwidth characters (UAX #11;
** CJK, kana, hangul, fullwidth forms, most emoji): what a terminal gives two
** columns whatever the locale says.  Blocks, not the full table: enough to
** count the columns of text a C locale cannot tell (tui_cp_width). */
static int
is_wide_block(uint32_t cp)
{
    static const uint32_t wide[][2] = {
        { 0x1100, 0x115F }, { 0x231A, 0x231B }, { 0x2329, 0x232A }, { 0x23E9, 0x23EC },
        { 0x25FD, 0x25FE }, { 0x2614, 0x2615 }, { 0x2648, 0x2653 }, { 0x26AA, 0x26AB },
        { 0x26BD, 0x26BE }, { 0x26C4, 0x26C5 }, { 0x2705, 0x2705 }, { 0x270A, 0x270B },
        { 0x274C, 0x274C }, { 0x2753, 0x2755 }, { 0x2795, 0x2797 }, { 0x2B1B, 0x2B1C },
        { 0x2E80, 0x303E }, { 0x3041, 0x33FF }, { 0x3400, 0x4DBF }, { 0x4E00, 0x9FFF },
        { 0xA000, 0xA4CF }, { 0xA960, 0xA97F }, { 0xAC00, 0xD7A3 }, { 0xF900, 0xFAFF },
        { 0xFE10, 0xFE19 }, { 0xFE30, 0xFE6F }, { 0xFF00, 0xFF60 }, { 0xFFE0, 0xFFE6 },
        { 0x16FE0, 0x18CFF }, { 0x1B000, 0x1B2FF }, { 0x1F004, 0x1F004 },
        { 0x1F0CF, 0x1F0CF }, { 0x1F18E, 0x1F18E }, { 0x1F191, 0x1F19A },
        { 0x1F200, 0x1F251 }, { 0x1F300, 0x1F320 }, { 0x1F32D, 0x1F335 },
        { 0x1F337, 0x1F37C }, { 0x1F37E, 0x1F393 }, { 0x1F3A0, 0x1F3CA },
        { 0x1F3CF, 0x1F3D3 }, { 0x1F3E0, 0x1F3F0 }, { 0x1F3F4, 0x1F3F4 },
        { 0x1F3F8, 0x1F43E }, { 0x1F440, 0x1F440 }, { 0x1F442, 0x1F4FC },
        { 0x1F4FF, 0x1F53D }, { 0x1F54B, 0x1F54E }, { 0x1F550, 0x1F567 },
        { 0x1F57A, 0x1F57A }, { 0x1F595, 0x1F596 }, { 0x1F5A4, 0x1F5A4 },
        { 0x1F5FB, 0x1F64F }, { 0x1F680, 0x1F6C5 }, { 0x1F6CC, 0x1F6CC },
        { 0x1F6D0, 0x1F6D2 }, { 0x1F6D5, 0x1F6D7 }, { 0x1F6EB, 0x1F6EC },
        { 0x1F6F4, 0x1F6FC }, { 0x1F7E0, 0x1F7EB }, { 0x1F90C, 0x1F93A },
        { 0x1F93C, 0x1F945 }, { 0x1F947, 0x1F9FF }, { 0x1FA70, 0x1FAFF },
        { 0x20000, 0x2FFFD }, { 0x30000, 0x3FFFD },
    };
    size_t lo = 0, hi = sizeof wide / sizeof wide[0];

    while (lo < hi) {                  /* binary search: the blocks are sorted */
        size_t mid = (lo + hi) / 2;
        if (cp < wide[mid][0])
            hi = mid;
        else if (cp > wide[mid][1])
            lo = mid + 1;
        else
            return 1;
    }
    return 0;
}

int
tui_cp_width(uint32_t cp)
{
    int w;

    if (cp == 0)
        return 0;
    w = wcwidth((wchar_t)cp);
    /* outside a UTF-8 locale (LANG=C) wcwidth knows ASCII alone: a wide
    ** character still takes two columns (drawn "??"), so text laid out for
    ** a terminal -- a table, aligned columns -- keeps its alignment */
    if (w < 0 && MB_CUR_MAX == 1 && is_wide_block(cp))
        return 2;
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

/* ---- grapheme clusters (UAX #29, the parts a terminal needs) -------------
**
** A cluster is what a terminal draws as one glyph:
**   base (Extend | ZWJ)*                        GB9: combining marks, variation
**                                               selectors, emoji modifiers, tags
**   ExtPict Extend* ZWJ ExtPict ...              GB11: emoji ZWJ sequences
**   RI RI                                        GB12/13: flags, in pairs
**   CR LF, and every other control alone         GB3-5
** Hangul syllable sequences need no rule here: conjoining vowels and final
** consonants have wcwidth 0 and join as Extend.  Prepend and SpacingMark
** are left out (they do not change widths the way terminals count them).
*/

static int
is_ri(uint32_t cp)
{
    return cp >= 0x1F1E6 && cp <= 0x1F1FF;
}

/* Extended_Pictographic, approximated by its blocks (emoji-data.txt): the
** symbols that emoji ZWJ sequences join. */
static int
is_pict(uint32_t cp)
{
    if (cp < 0xA9)
        return 0;
    if (cp >= 0x1F000)
        return cp <= 0x1FAFF ? !is_ri(cp) && !(cp >= 0x1F3FB && cp <= 0x1F3FF)
                             : cp >= 0x1FC00 && cp <= 0x1FFFD;
    return cp == 0xA9 || cp == 0xAE || cp == 0x203C || cp == 0x2049 || cp == 0x2122 ||
           cp == 0x2139 || (cp >= 0x2194 && cp <= 0x21AA) || (cp >= 0x231A && cp <= 0x23FF) ||
           cp == 0x24C2 || (cp >= 0x25AA && cp <= 0x25FE) || (cp >= 0x2600 && cp <= 0x27BF) ||
           (cp >= 0x2934 && cp <= 0x2935) || (cp >= 0x2B05 && cp <= 0x2B55) || cp == 0x3030 ||
           cp == 0x303D || cp == 0x3297 || cp == 0x3299;
}

/* Grapheme_Extend and friends: joins the cluster before it (GB9). */
static int
is_extend(uint32_t cp)
{
    if (cp < 0x300)
        return 0;
    if (cp == 0x200C || cp == 0x200D || (cp >= 0xFE00 && cp <= 0xFE0F) ||
        (cp >= 0x1F3FB && cp <= 0x1F3FF) || (cp >= 0xE0020 && cp <= 0xE007F) ||
        (cp >= 0xE0100 && cp <= 0xE01EF))
        return 1;
    /* zero-width format characters (ZWSP, word joiner, BOM) break: Control */
    if (cp == 0x200B || (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF ||
        (cp >= 0x200E && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E))
        return 0;
    return wcwidth((wchar_t)cp) == 0;
}

size_t
tui_cluster(const char *s, size_t n, int *width, size_t *draw)
{
    uint32_t cp, base;
    size_t i, k, drawn;
    int pict, zwj = 0, ri, drawing = 1;

    if (n == 0) {
        *width = 0;
        *draw = 0;
        return 0;
    }
    i = tui_next_cp(s, n, &base);
    *width = tui_cp_width(base);
    if (base == '\r' && i < n && s[i] == '\n')
        i++;
    if (base < 0x20 || base == 0x7F) {         /* controls stand alone */
        *draw = i;
        return i;
    }
    pict = is_pict(base);
    ri = is_ri(base);
    drawn = i;
    while (i < n) {
        k = tui_next_cp(s + i, n - i, &cp);
        if (ri) {                               /* the second half of a flag */
            ri = 0;
            if (is_ri(cp)) {
                /* curses counts each half by wcwidth: draw both when that
                 * makes the flag's 2 columns, else the first alone */
                if (tui_cp_width(base) + tui_cp_width(cp) == 2)
                    drawn = i + k;
                drawing = 0;
                *width = 2;
                i += k;
                continue;
            }
        }
        if (zwj && pict && is_pict(cp)) {       /* ZWJ sequence: one emoji */
            zwj = 0;
            *width = 2;
            i += k;
            continue;
        }
        if (!is_extend(cp))
            break;
        zwj = cp == 0x200D;
        /* curses gives a cell to anything with a width (an emoji modifier)
         * and a ZWJ could join what follows on the terminal: draw the base
         * and its zero-width marks up to the first of those */
        if (zwj || tui_cp_width(cp) != 0)
            drawing = 0;
        i += k;
        if (drawing)
            drawn = i;
    }
    *draw = drawn;
    return i;
}

int
tui_str_width(const char *s, size_t n)
{
    int w = 0, cw;
    size_t i = 0, d;

    while (i < n) {
        i += tui_cluster(s + i, n - i, &cw, &d);
        w += cw;
    }
    return w;
}

size_t
tui_char_len(const char *s, size_t n)
{
    int w;
    size_t d;

    return tui_cluster(s, n, &w, &d);
}

const char *
tui_ellipsis(void)
{
    return MB_CUR_MAX > 1 ? "\xe2\x80\xa6" : "...";
}

char *
tui_cut(char *out, size_t cap, const char *s, size_t max)
{
    const char *ell = tui_ellipsis();
    size_t n = strlen(s), el = strlen(ell), k = 0;

    if (cap == 0)
        return out;
    if (n <= max && n < cap) {
        memcpy(out, s, n + 1);
        return out;
    }
    if (cap <= el + 1) {              /* no room for even the ellipsis */
        out[0] = '\0';
        return out;
    }
    if (max > cap - el - 1)
        max = cap - el - 1;
    while (k < n) {
        size_t c = tui_char_len(s + k, n - k);
        if (k + c > max)
            break;
        k += c;
    }
    while (k > 0 && s[k - 1] == ' ')   /* "word…", not "word …" */
        k--;
    memcpy(out, s, k);
    memcpy(out + k, ell, el + 1);
    return out;
}

/* A cluster starts at every code point that can join nothing before it:
** not Extend, not a regional indicator, not a pictograph.  Stepping back
** to one of those bounds the forward segmentation tui_char_prev needs;
** TUI_CLUSTER_BACK caps it for pathological runs (a megabyte of flags). */
#define TUI_CLUSTER_BACK 4096

size_t
tui_char_prev(const char *s, size_t pos)
{
    size_t start = pos, i;
    int w;
    size_t d;

    if (pos == 0)
        return 0;
    while (start > 0 && pos - start < TUI_CLUSTER_BACK) {
        size_t p = start - 1;
        uint32_t cp;
        while (p > 0 && ((unsigned char)s[p] & 0xC0) == 0x80 && start - p < UTF8_MAX)
            p--;
        tui_next_cp(s + p, start - p, &cp);
        start = p;
        if (cp == '\n' || (!is_extend(cp) && !is_ri(cp) && !is_pict(cp)))
            break;
    }
    if (s[start] == '\n' && start + 1 < pos)
        start++;                        /* clusters never span a '\n' */
    i = start;
    for (;;) {
        size_t k = tui_cluster(s + i, pos - i, &w, &d);
        if (i + k >= pos)
            return i;
        i += k;
    }
}

/* ---- wrapping ---------------------------------------------------------- */

typedef struct spans {
    tui_span *v;
    size_t    n, cap;
} spans;

static void
spans_add(spans *sp, size_t off, size_t len, int cols)
{
    sp->v = tui_xgrow(sp->v, &sp->cap, sp->n, sizeof *sp->v, 16);
    sp->v[sp->n].off = off;
    sp->v[sp->n].len = len;
    sp->v[sp->n].cols = cols;
    sp->n++;
}

/*
** Kinsoku, the basic rule of CJK line breaking: a row does not start with
** closing punctuation (、。，）」 and the like, ASCII ones after CJK too) nor
** end with opening punctuation (（「 ...).  tui_wrap then breaks before the
** character in front instead, pulling it down with the punctuation.
*/
static const char no_start_chars[] =
    "!),.:;?]}\xc2\xa2\xc2\xb0\xc2\xbb"                 /* ¢ ° » */
    "\xe2\x80\x99\xe2\x80\x9d\xe2\x80\xa6\xe2\x80\xa5\xe2\x80\xb0" /* ’ ” … ‥ ‰ */
    "、。〃〉》」』】〕〗〙〛〞〟々ゝゞ・ーヽヾ"
    "！％），．：；？］｝～｡｣､";
static const char no_end_chars[] =
    "([{\xc2\xab\xe2\x80\x98\xe2\x80\x9c"               /* « ‘ “ */
    "〈《「『【〔〖〘〚〝（［｛｢＄￥";

/* 1 when CP is one of the UTF-8 characters in SET. */
static int
cp_in(uint32_t cp, const char *set)
{
    size_t n = strlen(set);

    for (size_t i = 0; i < n;) {
        uint32_t c;
        i += tui_next_cp(set + i, n - i, &c);
        if (c == cp)
            return 1;
    }
    return 0;
}

/* 1 when a row may end after BEFORE and the next start with AFTER. */
static int
kinsoku_ok(uint32_t before, uint32_t after)
{
    /* the common case at once: ideographs, kana and letters are neither */
    if ((before >= 0x4e00 && before <= 0x9fff) && (after >= 0x4e00 && after <= 0x9fff))
        return 1;
    return !cp_in(after, no_start_chars) && !cp_in(before, no_end_chars);
}

/* The code point at S (N > 0 bytes). */
static uint32_t
next_cp(const char *s, size_t n)
{
    uint32_t cp;

    tui_next_cp(s, n, &cp);
    return cp;
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
    uint32_t prev = 0;                         /* the character before I */

    if (width < 1)
        width = 1;
    while (i < n) {
        uint32_t cp;
        size_t d;
        int w;
        size_t k = tui_cluster(text + i, n - i, &w, &d);

        tui_next_cp(text + i, n - i, &cp);
        /* a newline, or a space where the row is full: the row ends here and
        ** the character is dropped */
        if (cp == '\n' || (cp == ' ' && cols + w > width && i > row)) {
            spans_add(&sp, row, i - row, cols);
            i += k;
            row = i;
            cols = 0;
            have_brk = 0;
            continue;
        }
        if (cols + w > width && i > row) {
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
        if (w == 2 && i > row && kinsoku_ok(prev, cp)) {   /* may break before a wide char */
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
        if (w == 2 && (i >= n || kinsoku_ok(cp, next_cp(text + i, n - i)))) {   /* and after one */
            brk_end = i;
            brk_next = i;
            brk_cols = cols;
            have_brk = 1;
        }
        prev = cp;
    }
    spans_add(&sp, row, n - row, cols);
    *out = sp.v;
    return sp.n;
}

/* ---- sanitiser: the terminal rule of core/text/utf8.h ------------------ */

/* Bytes cleaned at a time into a stack buffer, then appended. */
#define TUI_SAN_CHUNK 256

void
tui_san_init(tui_sanitizer *s)
{
    utf8_san_init(&s->u);
}

void
tui_san_push(tui_sanitizer *s, const char *in, size_t n, tui_buf *out)
{
    char buf[UTF8_SANITIZE_MAX(TUI_SAN_CHUNK)];

    for (size_t i = 0; i < n; i += TUI_SAN_CHUNK) {
        size_t m = n - i < TUI_SAN_CHUNK ? n - i : TUI_SAN_CHUNK;
        tui_buf_add(out, buf, utf8_sanitize_for_terminal(&s->u, in + i, m, buf));
    }
}

void
tui_san_flush(tui_sanitizer *s, tui_buf *out)
{
    char buf[UTF8_REPL_LEN];

    tui_buf_add(out, buf, utf8_san_flush(&s->u, buf));
}

void
tui_sanitize(const char *in, size_t n, tui_buf *out)
{
    tui_sanitizer s;

    tui_san_init(&s);
    tui_san_push(&s, in, n, out);
    tui_san_flush(&s, out);
}

void
tui_sanitize_copy(const char *in, size_t n, tui_buf *out)
{
    tui_sanitizer s;
    size_t i = 0;

    tui_san_init(&s);
    tui_buf_add(out, "", 0);
    while (i < n) {
        size_t k = i;
        while (k < n && in[k] != '\t' && in[k] != '\r')
            k++;
        tui_san_push(&s, in + i, k - i, out);
        if (k == n)
            break;
        tui_san_flush(&s, out);       /* ends a sequence, a cut character */
        tui_buf_add(out, in + k, 1);
        i = k + 1;
    }
    tui_san_flush(&s, out);
}

/* Bytes of TEXT fed to the sanitiser at a time by tui_label: it stops once
** the first line is longer than the label can show, so a label of a
** megabyte reply reads one chunk or two. */
#define TUI_LABEL_CHUNK 256

char *
tui_label(char *out, size_t cap, const char *text, size_t n, size_t max)
{
    tui_sanitizer s;
    tui_buf b;
    size_t i = 0;

    tui_san_init(&s);
    tui_buf_init(&b);
    tui_buf_add(&b, "", 0);
    while (i < n && b.len <= max && memchr(b.p, '\n', b.len) == NULL) {
        size_t k = n - i < TUI_LABEL_CHUNK ? n - i : TUI_LABEL_CHUNK;
        tui_san_push(&s, text + i, k, &b);
        i += k;
    }
    if (i == n)                   /* the end: a cut character is U+FFFD */
        tui_san_flush(&s, &b);
    b.p[strcspn(b.p, "\n")] = '\0';
    tui_cut(out, cap, b.p, max);
    tui_buf_fini(&b);
    return out;
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
