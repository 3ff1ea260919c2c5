/*
** test_tui_text.c -- display width, wrapping by display width and the
** output sanitiser (tui/text.c), and the transcript's row cache/scroll.
*/
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "../../tui/text.h"
#include "../../tui/transcript.h"
#include "../../storage/store.h"

/* Wrap S to W and compare the rows against the '|'-separated EXPECT. */
static int
wrap_is(const char *s, int w, const char *expect)
{
    tui_span *sp;
    size_t n = tui_wrap(s, strlen(s), w, &sp);
    char got[1024] = "";
    size_t gl = 0;

    for (size_t i = 0; i < n; i++) {
        gl += (size_t)snprintf(got + gl, sizeof got - gl, "%s%.*s", i ? "|" : "",
                               (int)sp[i].len, s + sp[i].off);
        if (sp[i].cols > w && !(w == 1 && sp[i].cols == 2)) {
            free(sp);
            printf("     row %zu has %d cols > %d\n", i, sp[i].cols, w);
            return 0;
        }
    }
    free(sp);
    if (strcmp(got, expect) != 0) {
        printf("     wrap(\"%s\", %d) = \"%s\", want \"%s\"\n", s, w, got, expect);
        return 0;
    }
    return 1;
}

static int
san_is(const char *in, size_t n, const char *expect)
{
    tui_buf b;
    int ok;

    tui_buf_init(&b);
    tui_buf_add(&b, "", 0);
    tui_sanitize(in, n, &b);
    ok = strcmp(b.p, expect) == 0;
    if (!ok)
        printf("     sanitize -> \"%s\", want \"%s\"\n", b.p, expect);
    tui_buf_fini(&b);
    return ok;
}

static void
test_display_width(void)
{
    /* display width: ASCII 1, CJK 2, emoji 2, combining marks 0 */
    TEST_COND("ascii width", tui_str_width("abc", 3) == 3);
    TEST_COND("CJK width 2 each", tui_str_width("\xe4\xb8\xad\xe6\x96\x87", 6) == 4);
    TEST_COND("emoji width 2", tui_str_width("\xf0\x9f\x98\x80", 4) == 2);
    TEST_COND("e + combining acute = 1", tui_str_width("e\xcc\x81", 3) == 1);
    TEST_COND("fullwidth A = 2", tui_str_width("\xef\xbc\xa1", 3) == 2);
    TEST_COND("invalid byte counts 1", tui_str_width("\xff", 1) == 1);
}

static void
test_whole_characters(void)
{
    /* whole characters: base + combining marks */
    TEST_COND("char_len e+acute", tui_char_len("e\xcc\x81x", 4) == 3);
    TEST_COND("char_prev e+acute", tui_char_prev("xe\xcc\x81", 4) == 1);
    TEST_COND("char_prev CJK", tui_char_prev("a\xe4\xb8\xad", 4) == 1);
}

static void
test_clusters(void)
{
    /* grapheme clusters: width = the first code point's; 2 for emoji ZWJ
     * sequences and flags; editing steps over whole clusters */
    {
#define FAMILY "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7"  /* 18 bytes */
#define FLAG_JP "\xf0\x9f\x87\xaf\xf0\x9f\x87\xb5"                                             /* 8 bytes */
#define THUMB_MED "\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd"                                           /* 8 bytes */
#define HEART_VS16 "\xe2\x9d\xa4\xef\xb8\x8f"                                                   /* 6 bytes */
        int w;
        size_t d;
        TEST_COND("ZWJ family: one cluster", tui_cluster(FAMILY "x", 19, &w, &d) == 18);
        TEST_COND("ZWJ family: 2 columns", w == 2);
        TEST_COND("ZWJ family: curses draws the first emoji", d == 4);
        TEST_COND("ZWJ family width in text", tui_str_width("a" FAMILY "b", 20) == 4);
        TEST_COND("flag: one cluster", tui_cluster(FLAG_JP, 8, &w, &d) == 8 && w == 2);
        TEST_COND("two flags: two clusters",
                  tui_cluster(FLAG_JP FLAG_JP, 16, &w, &d) == 8 &&
                  tui_str_width(FLAG_JP FLAG_JP, 16) == 4);
        TEST_COND("three RIs: a pair and one",
                  tui_cluster(FLAG_JP "\xf0\x9f\x87\xaf", 12, &w, &d) == 8 &&
                  tui_char_prev(FLAG_JP "\xf0\x9f\x87\xaf", 12) == 8);
        TEST_COND("skin tone modifier joins", tui_cluster(THUMB_MED, 8, &w, &d) == 8 && w == 2 &&
                                              d == 4);
        TEST_COND("VS16 joins", tui_cluster(HEART_VS16 "x", 7, &w, &d) == 6 && d == 6);
        TEST_COND("e + acute one cluster", tui_cluster("e\xcc\x81", 3, &w, &d) == 3 && w == 1);
        TEST_COND("ZWJ after a letter: ordinary extend",
                  tui_cluster("a\xe2\x80\x8d\xf0\x9f\x91\xa9", 8, &w, &d) == 4 && w == 1);
        TEST_COND("newline alone", tui_cluster("\nx", 2, &w, &d) == 1);
        TEST_COND("Hangul jamo L+V+T: one cluster of 2",
                  tui_cluster("\xe1\x84\x80\xe1\x85\xa1\xe1\x86\xa8", 9, &w, &d) == 9 && w == 2);
        TEST_COND("char_len family", tui_char_len(FAMILY "b", 19) == 18);
        TEST_COND("char_prev family", tui_char_prev("a" FAMILY, 19) == 1);
        TEST_COND("char_prev flag after text", tui_char_prev("ab" FLAG_JP, 10) == 2);
        TEST_COND("char_prev across newline", tui_char_prev("a\n" FAMILY, 20) == 2 &&
                                             tui_char_prev("a\n", 2) == 1);
        TEST_COND("wrap keeps a family whole", wrap_is("abc" FAMILY "de", 4, "abc|" FAMILY "de"));
        TEST_COND("wrap keeps a flag whole", wrap_is("abc" FLAG_JP, 4, "abc|" FLAG_JP));
    }
}

static void
test_cluster_walk(void)
{
    /* random mixes of clusters: stepping back with tui_char_prev visits the
     * same boundaries as stepping forward with tui_char_len */
    {
        static const char *const piece[] = {
            "a", " ", "\n", "\xe4\xb8\xad", "\xcc\x81", "\xe2\x80\x8d", "\xef\xb8\x8f",
            "\xf0\x9f\x91\xa8", "\xf0\x9f\x87\xaf", "\xf0\x9f\x8f\xbd", "\xe1\x85\xa1",
        };
        unsigned seed = 7;
        int bad = 0;
        for (int round = 0; round < 2000 && !bad; round++) {
            char s[128];
            size_t n = 0, fw[128], nf = 0, p;
            int k = 1 + (int)(seed % 20);
            for (int j = 0; j < k; j++) {
                const char *q;
                seed = seed * 1103515245u + 12345u;
                q = piece[(seed >> 16) % (sizeof piece / sizeof piece[0])];
                memcpy(s + n, q, strlen(q));
                n += strlen(q);
            }
            for (p = 0; p < n; p += tui_char_len(s + p, n - p))
                fw[nf++] = p;
            for (p = n; p > 0 && !bad;) {
                p = tui_char_prev(s, p);
                if (nf == 0 || fw[--nf] != p)
                    bad = 1;
            }
            if (bad || nf != 0) {
                bad = 1;
                printf("     cluster walk differs for \"");
                for (size_t i = 0; i < n; i++)
                    printf("\\x%02x", (unsigned char)s[i]);
                printf("\"\n");
            }
        }
        TEST_COND("forward and backward cluster walks agree", !bad);
    }
}

static void
test_wrapping(void)
{
    /* wrapping */
    TEST_COND("short line", wrap_is("hello", 10, "hello"));
    TEST_COND("word wrap drops the space", wrap_is("hello world foo", 11, "hello world|foo"));
    TEST_COND("word wrap at 8", wrap_is("hello world foo", 8, "hello|world|foo"));
    TEST_COND("long word hard break", wrap_is("abcdefghij", 4, "abcd|efgh|ij"));
    TEST_COND("newlines", wrap_is("a\n\nb", 5, "a||b"));
    TEST_COND("empty text is one row", wrap_is("", 5, ""));
    /* 10 CJK chars (20 cols) at width 7: 3 per row (6 cols), the 4th would be 8 */
    TEST_COND("CJK wraps at the right column",
              wrap_is("\xe4\xb8\x80\xe4\xba\x8c\xe4\xb8\x89\xe5\x9b\x9b\xe4\xba\x94"
                      "\xe5\x85\xad\xe4\xb8\x83\xe5\x85\xab\xe4\xb9\x9d\xe5\x8d\x81", 7,
                      "\xe4\xb8\x80\xe4\xba\x8c\xe4\xb8\x89|\xe5\x9b\x9b\xe4\xba\x94"
                      "\xe5\x85\xad|\xe4\xb8\x83\xe5\x85\xab\xe4\xb9\x9d|\xe5\x8d\x81"));
    TEST_COND("CJK at even width 6",
              wrap_is("\xe4\xb8\x80\xe4\xba\x8c\xe4\xb8\x89\xe5\x9b\x9b", 6,
                      "\xe4\xb8\x80\xe4\xba\x8c\xe4\xb8\x89|\xe5\x9b\x9b"));
    /* mixed: "ab " then CJK may break before a wide char */
    TEST_COND("mixed latin + CJK",
              wrap_is("ab \xe4\xb8\x80\xe4\xba\x8c\xe4\xb8\x89", 6,
                      "ab \xe4\xb8\x80|\xe4\xba\x8c\xe4\xb8\x89"));
    TEST_COND("combining mark stays with its base",
              wrap_is("abce\xcc\x81" "f", 4, "abce\xcc\x81|f"));
    TEST_COND("emoji wraps as 2 cols",
              wrap_is("a\xf0\x9f\x98\x80\xf0\x9f\x98\x80", 4,
                      "a\xf0\x9f\x98\x80|\xf0\x9f\x98\x80"));
    TEST_COND("wide char in width 1", wrap_is("\xe4\xb8\x80x", 1, "\xe4\xb8\x80|x"));
}

/* Kinsoku: no row starts with closing punctuation or ends with opening
** punctuation; the character before is pulled down instead. */
static void
test_kinsoku(void)
{
    TEST_COND("、 does not start a row: 三 comes down with it",
              wrap_is("一二三、四", 6, "一二|三、四"));
    TEST_COND("。 likewise", wrap_is("一二三。", 6, "一二|三。"));
    TEST_COND("，） likewise", wrap_is("一二三，四五六）七", 6, "一二|三，四|五六）|七"));
    TEST_COND("」 likewise", wrap_is("「一二」", 6, "「一|二」"));
    TEST_COND("「 does not end a row", wrap_is("一二「三」", 6, "一二|「三」"));
    TEST_COND("（ likewise", wrap_is("一二（三）", 6, "一二|（三）"));
    TEST_COND("ASCII comma after CJK", wrap_is("一二,三", 4, "一|二,|三"));
    TEST_COND("the demo note: 、 stays on its line",
              wrap_is("它展示界面、会话和分支", 10, "它展示界|面、会话和|分支"));
    TEST_COND("only punctuation: broken anywhere (widths kept)",
              wrap_is("、、、、、", 4, "、、|、、|、"));
    TEST_COND("fits: nothing moves", wrap_is("一二、", 6, "一二、"));
    TEST_COND("no break possible but the rule: kept at width",
              wrap_is("一、二、三、", 4, "一、|二、|三、"));
}

static void
test_sanitiser(void)
{
    /* sanitiser */
    TEST_COND("plain text kept", san_is("hi there", 8, "hi there"));
    TEST_COND("CSI colour dropped", san_is("a\x1b[31mred\x1b[0m b", 15, "ared b"));
    TEST_COND("OSC title dropped (BEL)", san_is("x\x1b]0;pwned\x07y", 12, "xy"));
    TEST_COND("OSC dropped (ST)", san_is("x\x1b]8;;http://a\x1b\\y", 18, "xy"));
    TEST_COND("C0 dropped, newline kept", san_is("a\x01\x08\rb\nc\x7f", 8, "ab\nc"));
    TEST_COND("tab expanded", san_is("a\tb", 3, "a    b"));
    TEST_COND("C1 CSI (U+009B) dropped whole", san_is("a\xc2\x9b" "31mb", 7, "ab"));
    TEST_COND("bidi override dropped", san_is("a\xe2\x80\xae" "bc", 6, "abc"));
    TEST_COND("ESC then newline: the newline stays", san_is("a\x1b\nb", 4, "a\nb"));
    TEST_COND("invalid UTF-8 -> U+FFFD", san_is("a\xffz", 3, "a\xef\xbf\xbdz"));
    TEST_COND("CJK kept", san_is("\xe4\xb8\xad", 3, "\xe4\xb8\xad"));
    {
        /* a sequence and a character split across chunks */
        tui_sanitizer s;
        tui_buf b;
        tui_buf_init(&b);
        tui_buf_add(&b, "", 0);
        tui_san_init(&s);
        tui_san_push(&s, "a\x1b[3", 4, &b);
        tui_san_push(&s, "1mb\xe4\xb8", 5, &b);
        TEST_COND("split: partial char waits", strcmp(b.p, "ab") == 0);
        tui_san_push(&s, "\xad" "c", 2, &b);
        tui_san_flush(&s, &b);
        TEST_CONDF(strcmp(b.p, "ab\xe4\xb8\xad" "c") == 0, "split -> '%s'", b.p);
        tui_buf_fini(&b);
    }
    {
        /* an unterminated OSC gives up after TUI_SAN_MAX_SEQ bytes */
        char big[TUI_SAN_MAX_SEQ + 64];
        tui_buf b;
        memset(big, 'z', sizeof big);
        big[0] = 0x1b;
        big[1] = ']';
        tui_buf_init(&b);
        tui_buf_add(&b, "", 0);
        tui_sanitize(big, sizeof big, &b);
        TEST_COND("unterminated OSC does not eat everything", b.len > 0 && b.len < 64);
        tui_buf_fini(&b);
    }
}

/*
** One rule wherever text is shown: a turn's label (F6), a session title
** (stored by store_title_clean, shown by tui_label in F2) and the
** transcript (the sanitiser) show the same hostile text the same way.
*/
static void
test_one_rule(void)
{
    static const char *const ins[] = {
        "a\x01" "b\x1b[31mred\x1b[0m\x7f",
        "x\x1b]0;pwned\x07y\xc2\x9b" "2Jz\xff!",
        "\xe2\x80\xae" "evil\xe2\x80\xac\r ok\x08",
        "tab\there\x1b]8;;http://a\x1b\\link",
    };
    int label_ok = 1, title_ok = 1;

    for (size_t i = 0; i < sizeof ins / sizeof ins[0]; i++) {
        char label[256], title[STORE_TITLE_MAX], shown[256], one[256];
        tui_buf b, bt;

        tui_buf_init(&b);
        tui_buf_add(&b, "", 0);
        tui_sanitize(ins[i], strlen(ins[i]), &b);
        tui_label(label, sizeof label, ins[i], strlen(ins[i]), 200);
        store_title_clean(ins[i], title, sizeof title);
        tui_label(shown, sizeof shown, title, strlen(title), 200);
        if (strcmp(label, b.p) != 0) {
            label_ok = 0;
            printf("     label '%s', transcript '%s'\n", label, b.p);
        }
        /* a title is one line: a tab in it is one space (the transcript's
        ** four), and so is a CR (a line break; the transcript drops it) */
        snprintf(one, sizeof one, "%s", ins[i]);
        for (char *p = one; *p; p++)
            *p = *p == '\t' || *p == '\r' ? ' ' : *p;
        tui_buf_init(&bt);
        tui_buf_add(&bt, "", 0);
        tui_sanitize(one, strlen(one), &bt);
        if (strcmp(shown, bt.p) != 0 || strcmp(title, bt.p) != 0) {
            title_ok = 0;
            printf("     title '%s' shown '%s', transcript '%s'\n", title, shown, bt.p);
        }
        tui_buf_fini(&bt);
        tui_buf_fini(&b);
    }
    TEST_COND("a label shows text as the transcript does", label_ok);
    TEST_COND("a title is stored and shown as the transcript shows it", title_ok);
    {
        char title[STORE_TITLE_MAX];
        store_title_clean("one\r\ntwo\nthree\tfour", title, sizeof title);
        TEST_CONDF(strcmp(title, "one two three four") == 0,
                   "title: line breaks and a tab spaces ('%s')", title);
    }
}

static void
test_transcript_rows(void)
{
    /* transcript rows and scrolling */
    {
        tui_transcript t;
        int a;
        tui_tr_init(&t);
        tui_tr_layout(&t, 12);          /* text width 10 */
        tui_tr_add(&t, TUI_TURN_USER, "hello", 5);
        TEST_COND("turn = header + 1 row + blank", t.nrows == 3);
        a = tui_tr_add(&t, TUI_TURN_ASSISTANT, "", 0);
        tui_tr_append(&t, a, "0123456789abcde", 15);  /* 2 rows */
        TEST_CONDF(t.nrows == 3 + 4, "rows %zu", t.nrows);
        TEST_COND("first row with h=3", tui_tr_first_row(&t, 3) == 4);
        tui_tr_scroll(&t, 2, 3);
        TEST_COND("scroll back 2", tui_tr_first_row(&t, 3) == 2);
        tui_tr_append(&t, a, "fghijklmno", 10);        /* one more row */
        TEST_COND("scrolled-back view stays put", tui_tr_first_row(&t, 3) == 2);
        tui_tr_scroll(&t, 100, 3);
        TEST_COND("scroll clamps at top", tui_tr_first_row(&t, 3) == 0);
        tui_tr_scroll(&t, -1000, 3);
        TEST_COND("scroll clamps at bottom", t.scroll == 0);
        tui_tr_append(&t, a, "\x1b[2J", 4);
        TEST_COND("escape never reaches turn text", strchr(t.turns[a].text.p, 0x1b) == NULL);
        tui_tr_layout(&t, 7);           /* text width 5: "hello" 1 row; 25 chars 5 rows */
        TEST_CONDF(t.nrows == 3 + 7, "relayout rows %zu", t.nrows);
        tui_tr_truncate(&t, 1);
        TEST_COND("truncate", t.nturns == 1 && t.nrows == 3);
        tui_tr_fini(&t);
    }
    {
        /* a reply's leading space (after "Assistant:") is not drawn */
        tui_transcript t;
        int a, u;
        tui_tr_init(&t);
        tui_tr_layout(&t, 12);          /* text width 10 */
        u = tui_tr_add(&t, TUI_TURN_USER, " indented", 9);
        a = tui_tr_add(&t, TUI_TURN_ASSISTANT, " Hi there, friend", 17);
        TEST_COND("reply keeps its text", t.turns[a].text.len == 17);
        TEST_CONDF(t.rows[1].kind == TUI_ROW_TEXT && t.rows[1].turn == u && t.rows[1].off == 0,
                   "user text drawn as typed (off %zu)", t.rows[1].off);
        /* a reply's rows index its rendered Markdown (tui_tr_shown) */
        TEST_CONDF(t.rows[4].kind == TUI_ROW_TEXT && t.rows[4].turn == a &&
                       tui_tr_shown(&t.turns[a])[t.rows[4].off] == 'H',
                   "reply row starts after the space (off %zu)", t.rows[4].off);
        TEST_CONDF(t.rows[5].kind == TUI_ROW_TEXT && t.rows[5].off + t.rows[5].len == 16 &&
                       strcmp(tui_tr_shown(&t.turns[a]), "Hi there, friend") == 0,
                   "second reply row ends at the text's end (%zu+%zu)", t.rows[5].off, t.rows[5].len);
        tui_tr_fini(&t);
    }
}

/* tui_tr_fit: before each draw, the rows re-wrapped for a new width and the
** scroll position clamped to the rows the drawn view can have below it (a
** taller view, a wider one, turns dropped) -- so "N more below" is never
** more than the view hides. */
static void
test_transcript_fit(void)
{
    tui_transcript t;
    size_t rows12;

    tui_tr_init(&t);
    tui_tr_fit(&t, 12, 3);              /* an empty transcript: laid out, nothing to scroll */
    TEST_COND("fit: empty", t.width == 12 && t.nrows == 0 && t.scroll == 0);
    for (int i = 0; i < 4; i++)
        tui_tr_add(&t, i % 2 ? TUI_TURN_ASSISTANT : TUI_TURN_USER, "0123456789abcdefghij", 20);
    rows12 = t.nrows;                   /* each turn: header, 2 rows, blank */
    TEST_CONDF(rows12 == 16, "fit: rows at width 12: %zu", rows12);
    tui_tr_scroll(&t, 1000, 3);
    TEST_CONDF(t.scroll == rows12 - 3, "fit: scrolled to the top of a 3-row view: %zu", t.scroll);
    tui_tr_fit(&t, 12, 3);              /* same view: nothing moves */
    TEST_CONDF(t.width == 12 && t.nrows == rows12 && t.scroll == rows12 - 3,
               "fit: same view, same rows and scroll (%zu, %zu)", t.nrows, t.scroll);
    tui_tr_fit(&t, 12, 10);             /* taller: fewer rows can be below */
    TEST_CONDF(t.scroll == rows12 - 10 && tui_tr_first_row(&t, 10) == 0,
               "fit: a taller view clamps the scroll: %zu", t.scroll);
    tui_tr_fit(&t, 24, 10);             /* wider: one row a turn's text, re-wrapped */
    TEST_CONDF(t.width == 24 && t.nrows == 12, "fit: re-wrapped for 24 columns: %zu rows", t.nrows);
    TEST_CONDF(t.scroll == 2 && tui_tr_first_row(&t, 10) == 0,
               "fit: the scroll clamped to the new rows: %zu", t.scroll);
    tui_tr_fit(&t, 24, 40);             /* the whole transcript fits: nothing below */
    TEST_COND("fit: all in view, none below", t.scroll == 0 && tui_tr_first_row(&t, 40) == 0);
    tui_tr_scroll(&t, 1000, 4);
    tui_tr_truncate(&t, 1);             /* turns dropped under a scrolled view */
    tui_tr_fit(&t, 24, 4);
    TEST_CONDF(t.nrows == 3 && t.scroll == 0, "fit: after a truncate (%zu rows, %zu below)",
               t.nrows, t.scroll);
    tui_tr_fini(&t);
}

/* A view scrolled back keeps its text when the rows are re-wrapped (a
** resize, F7, M-z): its top row shows the same place after tui_tr_fit at
** another width.  The scroll was kept as a count of rows below the view,
** and a re-wrap changes how many rows that count is: at half the width a
** view on turn 10 of 40 landed on turn 25. */
static int
top_is(const tui_transcript *t, int h, int turn, int kind)
{
    const tui_row *r = &t->rows[tui_tr_first_row(t, h)];

    return r->turn == turn && r->kind == kind;
}

static void
test_transcript_anchor(void)
{
    tui_transcript t;
    char text[128];
    size_t first, d, top;

    tui_tr_init(&t);
    tui_tr_fit(&t, 42, 6);                  /* text width 40 */
    for (int i = 0; i < 40; i++) {
        snprintf(text, sizeof text, "turn%02d aaaa bbbb cccc dddd eeee ffff gggg hhhh", i);
        tui_tr_add(&t, i % 2 ? TUI_TURN_ASSISTANT : TUI_TURN_USER, text, strlen(text));
    }
    /* to turn 10's header at the top of a 6-row view */
    for (first = 0; first < t.nrows; first++)
        if (t.rows[first].turn == 10 && t.rows[first].kind == TUI_ROW_HEADER)
            break;
    tui_tr_scroll(&t, (long)(t.nrows - 6 - first), 6);
    TEST_COND("anchor: turn 10's header at the top", top_is(&t, 6, 10, TUI_ROW_HEADER));
    tui_tr_fit(&t, 22, 6);                  /* narrower: more rows each */
    TEST_CONDF(top_is(&t, 6, 10, TUI_ROW_HEADER),
               "anchor: narrower, turn 10 still at the top (turn %d there)",
               t.rows[tui_tr_first_row(&t, 6)].turn);
    tui_tr_fit(&t, 42, 10);                 /* back, and taller */
    TEST_CONDF(top_is(&t, 10, 10, TUI_ROW_HEADER),
               "anchor: wider and taller, turn 10 at the top (turn %d there)",
               t.rows[tui_tr_first_row(&t, 10)].turn);
    /* a text row in the middle of turn 21 */
    tui_tr_fit(&t, 12, 10);                 /* text width 10: a word a row */
    d = (size_t)(strstr(tui_tr_shown(&t.turns[21]), "dddd") - tui_tr_shown(&t.turns[21]));
    for (first = 0; first < t.nrows; first++)
        if (t.rows[first].turn == 21 && t.rows[first].kind == TUI_ROW_TEXT &&
            t.rows[first].off <= d && d < t.rows[first].off + t.rows[first].len)
            break;
    TEST_COND("anchor: the row of 'dddd' in turn 21", first < t.nrows);
    tui_tr_scroll(&t, -1000, 10);
    tui_tr_scroll(&t, (long)(t.nrows - 10 - first), 10);
    tui_tr_fit(&t, 42, 10);                 /* the row that holds it, at the top */
    top = tui_tr_first_row(&t, 10);
    TEST_COND("anchor: wider, turn 21's text row holding 'dddd' at the top",
              top_is(&t, 10, 21, TUI_ROW_TEXT) && t.rows[top].off <= d &&
              d < t.rows[top].off + t.rows[top].len);
    /* tui_tr_layout (F7's, M-z's re-wrap) keeps it too */
    tui_tr_layout(&t, 30);
    TEST_COND("anchor: tui_tr_layout keeps turn 21 at the top",
              top_is(&t, 10, 21, TUI_ROW_TEXT));
    /* following the end: still the end */
    tui_tr_scroll_end(&t);
    tui_tr_fit(&t, 16, 10);
    TEST_COND("anchor: a view at the end stays there", t.scroll == 0);
    tui_tr_fini(&t);
}

/* tui_cut: the one rule for a shortened text (whole characters, "…") */
static void
test_cut(void)
{
    char out[64], tiny[5];
    /* 40 CJK characters, 120 bytes */
    const char *title = "一二三四五六七八九十一二三四五六七八九十"
                        "一二三四五六七八九十一二三四五六七八九十";

    TEST_COND("short text as it is", strcmp(tui_cut(out, sizeof out, "abc", 10), "abc") == 0);
    TEST_COND("exactly MAX: not cut", strcmp(tui_cut(out, sizeof out, "abcd", 4), "abcd") == 0);
    TEST_COND("ASCII cut with an ellipsis",
              strcmp(tui_cut(out, sizeof out, "abcdef", 4), "abcd\xe2\x80\xa6") == 0);
    TEST_CONDF(strcmp(tui_cut(out, sizeof out, title, 10), "一二三\xe2\x80\xa6") == 0,
               "CJK: 10 bytes -> 3 whole characters and the ellipsis (got '%s')", out);
    TEST_COND("the output's size bounds it too",
              strcmp(tui_cut(out, 16, title, 100), "一二三四\xe2\x80\xa6") == 0);
    TEST_COND("e + acute kept whole",
              strcmp(tui_cut(out, sizeof out, "ae\xcc\x81z", 2), "a\xe2\x80\xa6") == 0);
    TEST_COND("no space before the ellipsis",
              strcmp(tui_cut(out, sizeof out, "word word", 5), "word\xe2\x80\xa6") == 0);
    TEST_COND("no room for the ellipsis: empty", tui_cut(tiny, 3, "abcdef", 2)[0] == '\0');
    setlocale(LC_ALL, "C");
    TEST_COND("without UTF-8: \"...\"", strcmp(tui_cut(out, sizeof out, "abcdef", 3), "abc...") == 0);
    if (setlocale(LC_ALL, "C.UTF-8") == NULL)
        setlocale(LC_ALL, "en_US.UTF-8");
}

/* The copy rule (M-c, M-k): the saved text's tabs and CRs kept, what the
** terminal rule drops dropped (a paste would hand it to a terminal). */
static void
test_copy_rule(void)
{
    static const struct { const char *in, *want, *what; } c[] = {
        { "all:\n\tcc x.c\r\n", "all:\n\tcc x.c\r\n", "tab and CRLF kept" },
        { "a\x1b[31mred\x1b[0m b", "ared b", "CSI dropped" },
        { "x\x1b]52;c;ZXZpbA==\x07y", "xy", "OSC 52 dropped" },
        { "x\x1b[3\t1mz", "x\t1mz", "a tab ends the sequence it cuts" },
        { "a\x07\x08\x7f\xe2\x80\xae" "b", "ab", "BEL, BS, DEL, RLO dropped" },
        { "\xe4\xb8\tz\xff", "\xef\xbf\xbd\tz\xef\xbf\xbd", "cut and bad bytes U+FFFD" },
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        tui_buf b;
        tui_buf_init(&b);
        tui_sanitize_copy(c[i].in, strlen(c[i].in), &b);
        TEST_CONDF(b.len == strlen(c[i].want) && memcmp(b.p, c[i].want, b.len) == 0,
                   "copy rule: %s", c[i].what);
        tui_buf_fini(&b);
    }
}

/* M-p / M-n's rule (tui_tr_msg_row): the header of the message before or
** after a row; notes are not messages */
static void
test_transcript_messages(void)
{
    tui_transcript t;
    size_t none = (size_t)-1;

    tui_tr_init(&t);
    tui_tr_layout(&t, 12);                               /* text width 10 */
    tui_tr_add(&t, TUI_TURN_INFO, "a note", 6);          /* rows 0-2 */
    tui_tr_add(&t, TUI_TURN_USER, "hello", 5);           /* rows 3-5 */
    tui_tr_add(&t, TUI_TURN_ASSISTANT, "0123456789abcde", 15); /* rows 6-9 */
    tui_tr_add(&t, TUI_TURN_ERROR, "oops", 4);           /* rows 10-12 */
    tui_tr_add(&t, TUI_TURN_USER, "again", 5);           /* rows 13-15 */
    TEST_CONDF(t.nrows == 16, "rows %zu", t.nrows);
    TEST_COND("next from the note: your message", tui_tr_msg_row(&t, 0, 1) == 3);
    TEST_COND("next from a header: the reply's", tui_tr_msg_row(&t, 3, 1) == 6);
    TEST_COND("next from inside the reply: past the error note", tui_tr_msg_row(&t, 7, 1) == 13);
    TEST_COND("none after the last message", tui_tr_msg_row(&t, 13, 1) == none);
    TEST_COND("previous from inside the reply: its header", tui_tr_msg_row(&t, 8, -1) == 6);
    TEST_COND("previous from a header: the one before", tui_tr_msg_row(&t, 6, -1) == 3);
    TEST_COND("previous from the last: past the error note", tui_tr_msg_row(&t, 13, -1) == 6);
    TEST_COND("none before the first message (the note is none)", tui_tr_msg_row(&t, 3, -1) == none);
    TEST_COND("past the end: the last message before", tui_tr_msg_row(&t, 99, -1) == 13);
    tui_tr_fini(&t);
    tui_tr_init(&t);
    TEST_COND("an empty transcript has none", tui_tr_msg_row(&t, 0, 1) == none &&
                                              tui_tr_msg_row(&t, 0, -1) == none);
    tui_tr_fini(&t);
}

int
main(void)
{
    if (setlocale(LC_ALL, "C.UTF-8") == NULL)
        setlocale(LC_ALL, "en_US.UTF-8");
    test_display_width();
    test_whole_characters();
    test_clusters();
    test_cluster_walk();
    test_wrapping();
    test_kinsoku();
    test_sanitiser();
    test_one_rule();
    test_transcript_rows();
    test_transcript_fit();
    test_transcript_anchor();
    test_transcript_messages();
    test_cut();
    test_copy_rule();
    return TEST_REPORT();
}
