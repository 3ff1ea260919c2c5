/*
** test_tui_input.c -- the input editor (tui/input.c), the menu list logic
** (tui/menu.c) and the sidebar's parameter bounds (tui/sidebar.c).
*/
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "../../tui/input.h"
#include "../../tui/menu.h"
#include "../../tui/sidebar.h"

#define IS(in, s, c) (strcmp((in)->buf, (s)) == 0 && (in)->cur == (size_t)(c))

static void
type(tui_input *in, const char *s)
{
    tui_input_insert(in, s, strlen(s));
}

static void
test_input(void)
{
    tui_input in;
    char *s;
    int r, c, rows;

    tui_input_init(&in);
    type(&in, "hello");
    TEST_COND("insert", IS(&in, "hello", 5));
    tui_input_left(&in);
    tui_input_left(&in);
    type(&in, "X");
    TEST_COND("insert mid", IS(&in, "helXlo", 4));
    tui_input_home(&in);
    TEST_COND("home", in.cur == 0);
    tui_input_end(&in);
    TEST_COND("end", in.cur == 6);
    tui_input_backspace(&in);
    TEST_COND("backspace", IS(&in, "helXl", 5));
    tui_input_home(&in);
    tui_input_delete(&in);
    TEST_COND("delete", IS(&in, "elXl", 0));
    tui_input_right(&in);
    tui_input_kill_eol(&in);
    TEST_COND("ctrl-k", IS(&in, "e", 1));
    type(&in, "one two  three");
    tui_input_kill_word(&in);
    TEST_COND("ctrl-w", IS(&in, "eone two  ", 10));
    tui_input_kill_word(&in);
    TEST_COND("ctrl-w over spaces", IS(&in, "eone ", 5));
    tui_input_kill_all(&in);
    TEST_COND("ctrl-u", IS(&in, "", 0));
    TEST_COND("ctrl-y after ctrl-u: the words in a row too", tui_input_yank(&in) == 15 &&
              IS(&in, "eone two  three", 15));
    tui_input_set(&in, "l1\nl2\nl3");
    in.cur = 4;
    tui_input_kill_all(&in);
    TEST_COND("ctrl-u: every line", IS(&in, "", 0) && in.kill_len == 8);
    tui_input_yank(&in);
    TEST_COND("ctrl-y: them back", IS(&in, "l1\nl2\nl3", 8));
    tui_input_clear(&in);

    /* whole characters: CJK (3 bytes), e + combining acute, emoji (4 bytes) */
    type(&in, "a\xe4\xb8\xad" "e\xcc\x81" "\xf0\x9f\x98\x80");
    tui_input_left(&in);
    TEST_COND("left over emoji", in.cur == 7);
    tui_input_left(&in);
    TEST_COND("left over e+combining", in.cur == 4);
    tui_input_backspace(&in);
    TEST_COND("backspace CJK whole", IS(&in, "ae\xcc\x81\xf0\x9f\x98\x80", 1));
    tui_input_delete(&in);
    TEST_COND("delete e+combining whole", IS(&in, "a\xf0\x9f\x98\x80", 1));
    tui_input_clear(&in);

    /* multi-line: up/down keep the column; ctrl-k at the end joins lines */
    type(&in, "abcdef\nxy\nlonger line");
    tui_input_up(&in);
    TEST_COND("up clamps to short line end", in.cur == 9);
    tui_input_up(&in);
    TEST_COND("up keeps column 2", in.cur == 2);
    tui_input_down(&in);
    TEST_COND("down", in.cur == 9);
    tui_input_end(&in);
    tui_input_kill_eol(&in);
    TEST_COND("ctrl-k joins lines", IS(&in, "abcdef\nxylonger line", 9));
    tui_input_home(&in);
    TEST_COND("home of line 2", in.cur == 7);

    /* take + history */
    s = tui_input_take(&in);
    TEST_COND("take returns text", s && strcmp(s, "abcdef\nxylonger line") == 0);
    free(s);
    TEST_COND("take clears", IS(&in, "", 0));
    type(&in, "   \n ");
    TEST_COND("blank is not sent", tui_input_take(&in) == NULL);
    tui_input_clear(&in);
    type(&in, "second");
    free(tui_input_take(&in));
    type(&in, "draft");
    TEST_COND("up -> last history", tui_input_up(&in) && strcmp(in.buf, "second") == 0);
    TEST_COND("up -> older", tui_input_up(&in) && strncmp(in.buf, "abcdef", 6) == 0);
    TEST_COND("up within a multi-line entry", tui_input_up(&in) && in.cur == 6);
    TEST_COND("up at oldest stops", !tui_input_up(&in));
    tui_input_down(&in);            /* multi-line entry: moves within it first */
    tui_input_end(&in);
    tui_input_down(&in);
    TEST_COND("down -> newer", strcmp(in.buf, "second") == 0);
    tui_input_down(&in);
    TEST_COND("down -> draft restored", strcmp(in.buf, "draft") == 0);

    /* Up/Down by the rows the box draws: a long paragraph wraps at spaces
     * ("one two three four" at 8 columns: "one two" / "three" / "four"),
     * a long word at any character; the first row's Up is the history */
    tui_input_set(&in, "one two three four");
    TEST_COND("wrapped: up a row", tui_input_up_at(&in, 8) && in.cur == 12);      /* "thre|e" */
    TEST_COND("wrapped: up again", tui_input_up_at(&in, 8) && in.cur == 4);       /* col 4: 't' */
    {
        int cr, cc;
        tui_input_layout(&in, 8, &cr, &cc);
        TEST_CONDF(cr == 0 && cc == 4, "the cursor drawn on row 0 col 4: %d %d", cr, cc);
    }
    TEST_COND("wrapped: down keeps the column", tui_input_down_at(&in, 8) && in.cur == 12);
    TEST_COND("wrapped: down to the last row", tui_input_down_at(&in, 8) && in.cur == 18);
    tui_input_set(&in, "abcdefghijkl");   /* rows "abcde" "fghij" "kl" at 5 */
    in.cur = 11;                          /* 'l', column 1 of row 2 */
    TEST_COND("a word broken: up a row", tui_input_up_at(&in, 5) && in.cur == 6);
    in.cur = 4;
    TEST_COND("a word broken: down", tui_input_down_at(&in, 5) && in.cur == 9);
    TEST_COND("a word broken: down to a short row", tui_input_down_at(&in, 5) && in.cur == 12);
    in.cur = 9;                           /* 'j': up to column 4 of row 0 */
    tui_input_up_at(&in, 5);
    {
        int cr, cc;
        tui_input_layout(&in, 5, &cr, &cc);
        TEST_CONDF(in.cur == 4 && cr == 0, "up stays on row 0 (cur %zu, row %d)", in.cur, cr);
    }
    tui_input_set(&in, "abcdefghij");     /* "abcde" "fghij", the cursor after: */
    TEST_COND("from after a full row: up", tui_input_up_at(&in, 5) && in.cur == 5);   /* drawn below */
    TEST_COND("then up to row 0", tui_input_up_at(&in, 5) && in.cur == 0);
    in.cur = 0;
    TEST_COND("the first row's Up goes to the history",
              tui_input_up_at(&in, 5) && strcmp(in.buf, "draft") != 0 && strcmp(in.buf, "abcdefghijkl") != 0);

    /* layout: cursor row/col for a width */
    tui_input_set(&in, "abcdefgh");
    rows = tui_input_layout(&in, 5, &r, &c);
    TEST_CONDF(rows == 2 && r == 1 && c == 3, "layout rows %d r %d c %d", rows, r, c);
    tui_input_set(&in, "\xe4\xb8\x80\xe4\xba\x8c\xe4\xb8\x89");
    rows = tui_input_layout(&in, 4, &r, &c);
    TEST_CONDF(rows == 2 && r == 1 && c == 2, "CJK layout rows %d r %d c %d", rows, r, c);
    tui_input_set(&in, "abcde");
    rows = tui_input_layout(&in, 5, &r, &c);
    TEST_CONDF(r == 1 && c == 0 && rows == 2, "full row cursor rows %d r %d c %d", rows, r, c);
    tui_input_fini(&in);
}

static void
test_menu(void)
{
    tui_menu m;
    const tui_menu_item *it;

    tui_menu_init(&m, 1, "Sessions");
    tui_menu_add(&m, "Chat about cats", "3 turns", NULL, 10);
    tui_menu_add(&m, "Rust questions", NULL, "/tmp/x", 11);
    tui_menu_add(&m, "More CATS", "1 turn", NULL, 12);
    tui_menu_add(&m, "zebra", NULL, NULL, 13);
    TEST_COND("all visible", m.nvis == 4);
    tui_menu_move(&m, 2);
    it = tui_menu_selected(&m);
    TEST_COND("move", it && it->id == 12);
    tui_menu_set_filter(&m, "cat");
    TEST_COND("filter case-insensitive", m.nvis == 2);
    it = tui_menu_selected(&m);
    TEST_COND("selection kept when it matches", it && it->id == 12);
    tui_menu_move(&m, 5);
    TEST_COND("clamped at end", m.sel == 1);
    tui_menu_move(&m, -9);
    TEST_COND("clamped at start", m.sel == 0);
    tui_menu_set_filter(&m, "turn");
    TEST_COND("filter matches detail", m.nvis == 2);
    tui_menu_set_filter(&m, "nothing");
    TEST_COND("no match -> no selection", m.nvis == 0 && tui_menu_selected(&m) == NULL);
    tui_menu_move(&m, 1);
    tui_menu_set_filter(&m, "");
    TEST_COND("back to all", m.nvis == 4);
    TEST_COND("select id", tui_menu_select_id(&m, 13) && m.sel == 3);
    tui_menu_fit(&m, 2);
    TEST_COND("fit scrolls", m.top == 2);
    tui_menu_home(&m);
    tui_menu_fit(&m, 2);
    TEST_COND("home", m.sel == 0 && m.top == 0);
    tui_menu_end(&m);
    tui_menu_fit(&m, 3);
    TEST_COND("end + fit", m.sel == 3 && m.top == 1);
    TEST_COND("data kept", strcmp(m.items[1].data, "/tmp/x") == 0);
    /* the owner's marks: a full-text hit matches any filter, a hidden item none */
    m.items[1].data[0] = TUI_MENU_MATCH;
    m.items[2].data = NULL;
    tui_menu_set_filter(&m, "zzz");
    TEST_COND("a marked hit matches any filter", m.nvis == 1 && m.vis[0] == 1);
    m.items[1].data[0] = TUI_MENU_HIDDEN;
    tui_menu_set_filter(&m, "");
    TEST_COND("a hidden item matches no filter, not even none", m.nvis == 3 &&
              m.vis[0] == 0 && m.vis[1] == 2);
    /* shown and matched text apart (a "model:" word the owner handles) */
    tui_menu_set_filter_match(&m, "model:x cat", "cat");
    TEST_COND("matched on the match text", m.nvis == 2);
    TEST_COND("the search shown whole", strcmp(m.filter, "model:x cat") == 0);
    /* clicks: the row drawn at a cell (the list at rows 5..6, columns 10..29) */
    tui_menu_set_filter(&m, "");
    m.list_y = 5, m.list_x = 10, m.list_w = 20, m.list_h = 2;
    m.top = 1;
    TEST_COND("click: first row shown", tui_menu_row_at(&m, 5, 10) == 1);
    TEST_COND("click: second row shown", tui_menu_row_at(&m, 6, 29) == 2);
    TEST_COND("click: below the list", tui_menu_row_at(&m, 7, 12) == -1);
    TEST_COND("click: right of the box", tui_menu_row_at(&m, 5, 30) == -1);
    m.top = 2;
    TEST_COND("click: past the last item", tui_menu_row_at(&m, 6, 12) == -1);
    tui_menu_fini(&m);

    /* PgDn/PgUp: the view and the selection move by a page less one row */
    tui_menu_init(&m, 1, "Help");
    for (int i = 0; i < 20; i++)
        tui_menu_add(&m, "item", NULL, NULL, i);
    tui_menu_page(&m, +1);
    TEST_COND("page before any draw: 10 rows", m.sel == 10);
    tui_menu_home(&m);
    tui_menu_fit(&m, 5);
    tui_menu_page(&m, +1);
    tui_menu_fit(&m, 5);
    TEST_COND("PgDn: 4 rows, view with it", m.sel == 4 && m.top == 4);
    tui_menu_page(&m, +1);
    tui_menu_page(&m, +1);
    tui_menu_page(&m, +1);
    tui_menu_page(&m, +1);
    tui_menu_fit(&m, 5);
    TEST_COND("PgDn at the end: clamped", m.sel == 19 && m.top == 15);
    tui_menu_page(&m, -1);
    tui_menu_fit(&m, 5);
    TEST_COND("PgUp", m.sel == 15 && m.top == 11);
    tui_menu_fini(&m);
    {
        tui_sidebar_geom g = { 3, 70, 9 };
        TEST_COND("sidebar click: first parameter", tui_sidebar_row_at(&g, 3, 75) == 0);
        TEST_COND("sidebar click: last parameter", tui_sidebar_row_at(&g, 11, 70) == 8);
        TEST_COND("sidebar click: below", tui_sidebar_row_at(&g, 12, 75) == -1);
        TEST_COND("sidebar click: left of it", tui_sidebar_row_at(&g, 4, 69) == -1);
        g.rows = 0;
        TEST_COND("sidebar click: hidden", tui_sidebar_row_at(&g, 4, 75) == -1);
    }
}

static void
test_params(void)
{
    rwkv_sampling s;
    rwkv_err err;
    int t = params_find("temperature"), mt = params_find("max_tokens");
    int tp = params_find("top_p"), k = params_find("top_k");

    params_defaults(&s);
    TEST_COND("a row per table entry", tui_param_count() >= 9);
    TEST_COND("step temperature", tui_param_step(&s, t, +1) && s.temperature > 1.05f &&
                                  s.temperature < 1.15f);
    s.temperature = 4.95f;
    tui_param_step(&s, t, +1);
    tui_param_step(&s, t, +1);
    TEST_COND("temperature clamps at 5", s.temperature == 5.0f);
    s.top_p = 0.0f;
    TEST_COND("top_p at 0 cannot go down", !tui_param_step(&s, tp, -1) && s.top_p == 0.0f);
    s.top_k = 0;
    tui_param_step(&s, k, -10);
    TEST_COND("top_k stays >= 0", s.top_k == 0);
    s.max_tokens = 30;
    tui_param_step(&s, mt, -1);
    TEST_COND("max_tokens clamps at 1", s.max_tokens == 1);
    TEST_COND("typed value in bounds", tui_param_set_text(&s, mt, "7", &err) == RWKV_OK &&
                                       s.max_tokens == 7);
    TEST_COND("typed value out of bounds refused",
              tui_param_set_text(&s, mt, "0", &err) != RWKV_OK && s.max_tokens == 7);
    TEST_COND("typed garbage refused",
              tui_param_set_text(&s, t, "hot", &err) != RWKV_OK && s.temperature == 5.0f);
    TEST_COND("typed top_p 1.5 refused", tui_param_set_text(&s, tp, "1.5", &err) != RWKV_OK);
}

/* Cursor moves, backspace and delete step over whole grapheme clusters:
 * an emoji ZWJ sequence, a flag, a letter with its accent. */
static void
test_input_clusters(void)
{
#define FAM "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7"  /* 18 bytes */
#define JP "\xf0\x9f\x87\xaf\xf0\x9f\x87\xb5"                                             /* 8 bytes */
    tui_input in;
    int r, c;

    tui_input_init(&in);
    type(&in, "a" FAM JP "e\xcc\x81");
    TEST_COND("typed", in.cur == 30);
    tui_input_layout(&in, 40, &r, &c);
    TEST_COND("cursor column counts clusters (1+2+2+1)", r == 0 && c == 6);
    tui_input_left(&in);
    TEST_COND("left over e+acute", in.cur == 27);
    tui_input_left(&in);
    TEST_COND("left over the flag", in.cur == 19);
    tui_input_left(&in);
    TEST_COND("left over the family", in.cur == 1);
    tui_input_right(&in);
    TEST_COND("right over the family", in.cur == 19);
    tui_input_layout(&in, 40, &r, &c);
    TEST_COND("column after the family is 3", c == 3);
    tui_input_backspace(&in);
    TEST_COND("backspace deletes the whole family", IS(&in, "a" JP "e\xcc\x81", 1));
    tui_input_delete(&in);
    TEST_COND("delete removes the whole flag", IS(&in, "ae\xcc\x81", 1));
    tui_input_end(&in);
    tui_input_backspace(&in);
    TEST_COND("backspace removes e with its accent", IS(&in, "a", 1));
    tui_input_set(&in, "x\n" FAM);
    tui_input_end(&in);
    tui_input_up(&in);
    TEST_COND("up from after the family: column 2 -> end of 'x'", in.cur == 1);
    tui_input_down(&in);
    TEST_COND("down at column 1: before the family, never inside it", in.cur == 2);
    tui_input_fini(&in);
}

/* Readline word motion: ASCII words, punctuation, CJK runs by script. */
static void
test_input_words(void)
{
    tui_input in;
    /* "日本語のテキスト、ok" : 日本語 (9 bytes) の (3) テキスト (12) 、 (3) ok */
    const char *ja = "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae"
                     "\xe3\x83\x86\xe3\x82\xad\xe3\x82\xb9\xe3\x83\x88"
                     "\xe3\x80\x81ok";

    tui_input_init(&in);
    tui_input_set(&in, "foo.bar  baz");
    tui_input_word_left(&in);
    TEST_COND("M-b from the end: start of baz", in.cur == 9);
    tui_input_word_left(&in);
    TEST_COND("M-b over spaces: start of bar", in.cur == 4);
    tui_input_word_left(&in);
    TEST_COND("M-b over '.': start of foo", in.cur == 0);
    tui_input_word_left(&in);
    TEST_COND("M-b at the start stays", in.cur == 0);
    tui_input_word_right(&in);
    TEST_COND("M-f: end of foo", in.cur == 3);
    tui_input_word_right(&in);
    TEST_COND("M-f over '.': end of bar", in.cur == 7);
    tui_input_kill_word_next(&in);
    TEST_COND("M-d: deletes '  baz'", IS(&in, "foo.bar", 7));
    tui_input_kill_word_prev(&in);
    TEST_COND("M-Backspace: deletes bar, keeps '.'", IS(&in, "foo.", 4));
    tui_input_kill_word_prev(&in);
    TEST_COND("M-Backspace over '.': deletes foo.", IS(&in, "", 0));

    tui_input_set(&in, ja);
    tui_input_home(&in);
    tui_input_word_right(&in);
    TEST_COND("M-f: Han run", in.cur == 9);
    tui_input_word_right(&in);
    TEST_COND("M-f: hiragana run", in.cur == 12);
    tui_input_word_right(&in);
    TEST_COND("M-f: katakana run", in.cur == 24);
    tui_input_word_right(&in);
    TEST_COND("M-f: over the ideographic comma to the end of ok", in.cur == in.len);
    tui_input_word_left(&in);
    TEST_COND("M-b: start of ok", in.cur == 27);
    tui_input_word_left(&in);
    TEST_COND("M-b over the comma: start of the katakana", in.cur == 12);
    tui_input_kill_word_prev(&in);
    TEST_COND("M-Backspace: deletes the hiragana only", in.cur == 9 && in.len == 9 + 12 + 3 + 2);
    tui_input_set(&in, "\xe4\xbd\xa0\xe5\xa5\xbdworld");   /* 你好world */
    tui_input_home(&in);
    tui_input_kill_word_next(&in);
    TEST_COND("M-d: Han and Latin are two words", IS(&in, "world", 0));
    /* an emoji sequence is one whole character: never split */
    tui_input_set(&in, "a \xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd b");
    tui_input_word_left(&in);
    tui_input_word_left(&in);
    TEST_COND("M-b: the emoji with its modifier is a word", in.cur == 2);
    tui_input_fini(&in);
}

/* A prompt's history (tui_input_history_from): a copy, none of it new,
** Up/Down through it on one line, the source unchanged. */
static void
test_input_history_from(void)
{
    tui_input src, p;
    const tui_input none = { 0 };

    tui_input_init(&src);
    tui_input_init(&p);
    tui_input_set(&src, "one");
    free(tui_input_take(&src));
    tui_input_set(&src, "two");
    free(tui_input_take(&src));
    tui_input_set(&p, "old");
    free(tui_input_take(&p));
    tui_input_set(&p, "");
    tui_input_history_from(&p, &src);
    TEST_COND("history copied, nothing new", p.nhist == 2 && p.nnew == 0 && p.hpos == 2 &&
                  strcmp(p.hist[0], "one") == 0 && src.nhist == 2);
    tui_input_up(&p);
    TEST_COND("Up: the newest", IS(&p, "two", 3));
    tui_input_up(&p);
    TEST_COND("Up again: the one before", IS(&p, "one", 3));
    tui_input_down(&p);
    tui_input_down(&p);
    TEST_COND("Down twice: the empty line", IS(&p, "", 0));
    tui_input_history_from(&p, &none);
    TEST_COND("no history: emptied", p.nhist == 0 && p.hpos == 0 && p.draft == NULL);
    TEST_COND("Up without one: nothing moves", tui_input_up(&p) == 0 && IS(&p, "", 0));
    tui_input_fini(&p);
    tui_input_fini(&src);
}

/* Text past the box's room (TUI_INPUT_MAX) is left out from the first
** character that does not fit whole: the box stays well-formed UTF-8 (a
** 1.2 MB file of 你 from the editor left a lone 0xef at its end), and the
** characters left out are counted for the notice. */
static void
test_input_cut(void)
{
    size_t n = 400000, cut;
    char *big = malloc(n * 3 + 1);
    tui_input in;

    for (size_t i = 0; i < n; i++)
        memcpy(big + 3 * i, "\xe4\xbd\xa0", 3);          /* 你 */
    big[n * 3] = '\0';
    tui_input_init(&in);
    cut = tui_input_set(&in, big);
    TEST_COND("cut on a character boundary", in.len == TUI_INPUT_MAX / 3 * 3 &&
                                             in.len % 3 == 0 && in.cur == in.len);
    TEST_COND("the box ends with a whole 你",
              in.len >= 3 && memcmp(in.buf + in.len - 3, "\xe4\xbd\xa0", 3) == 0);
    TEST_COND("the characters left out counted", cut == n - TUI_INPUT_MAX / 3);
    /* a 4-byte character across the end, after ASCII already there */
    tui_input_clear(&in);
    memset(big, 'a', TUI_INPUT_MAX - 2);
    big[TUI_INPUT_MAX - 2] = '\0';
    tui_input_set(&in, big);
    cut = tui_input_insert(&in, "\xf0\x9f\x98\x80" "b", 5);    /* 😀 b */
    TEST_COND("a character that does not fit whole is left out", in.len == TUI_INPUT_MAX - 2 &&
                                                                   cut == 2);
    TEST_COND("what fits goes in whole", tui_input_set(&in, "x") == 0 && in.len == 1);
    tui_input_fini(&in);
    free(big);
}

int
main(void)
{
    if (setlocale(LC_ALL, "C.UTF-8") == NULL)
        setlocale(LC_ALL, "en_US.UTF-8");
    test_input();
    test_input_clusters();
    test_input_words();
    test_input_history_from();
    test_input_cut();
    test_menu();
    test_params();
    return TEST_REPORT();
}
