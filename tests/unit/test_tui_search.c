/*
** test_tui_search.c -- search within the transcript (tui/search.c): the
** case-insensitive UTF-8 matcher, the matches over a transcript's turns,
** next/previous with wrap, and the row a match is on (tui_tr_row_of).
*/
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "../../tui/search.h"
#include "../../tui/transcript.h"
#include "../../storage/store.h"
#include "../../core/text/utf8.h"

static size_t
find(const char *hay, const char *needle, size_t from, size_t *len)
{
    return tui_find_ci(hay, strlen(hay), needle, strlen(needle), from, len);
}

static void
test_find(void)
{
    size_t len = 0, p;

    p = find("Hello World", "WORLD", 0, &len);
    TEST_COND("ASCII case-insensitive", p == 6 && len == 5);
    TEST_COND("not found", find("Hello", "xyz", 0, &len) == (size_t)-1);
    TEST_COND("empty needle finds nothing", find("Hello", "", 0, &len) == (size_t)-1);
    TEST_COND("from skips earlier matches", find("ab ab", "AB", 1, &len) == 3);
    /* É (C3 89) and é (C3 A9): towlower in a UTF-8 locale */
    p = find("une \xc3\x89" "cole", "\xc3\xa9" "COLE", 0, &len);
    TEST_COND("non-ASCII case pair", p == 4 && len == 6);
    /* CJK inside a sentence: 我们去东京 -> 东京 at byte 9 */
    p = find("\xe6\x88\x91\xe4\xbb\xac\xe5\x8e\xbb\xe4\xb8\x9c\xe4\xba\xac",
             "\xe4\xb8\x9c\xe4\xba\xac", 0, &len);
    TEST_COND("CJK substring", p == 9 && len == 6);
    /* a needle that is the tail bytes of a character never matches inside it:
    ** "\xb8\x9c" alone is ill-formed (U+FFFD) and 东 is one code point */
    TEST_COND("no match inside a UTF-8 sequence",
              find("\xe4\xb8\x9c", "\xb8\x9c", 0, &len) == (size_t)-1);
    TEST_COND("needle longer than the text", find("ab", "abc", 0, &len) == (size_t)-1);
}

/* One case folding: C-f folds as the sessions search (store_casefold_cp,
** F2 and `sessions search`): a character and its fold match each other
** exactly when the store folds them alike.  towlower folded U+0130 (İ) to
** 'i' while the store keeps it, so C-f found "İstanbul" by "istanbul" and
** the sessions search did not. */
static void
test_one_fold(void)
{
    static const uint32_t cps[] = { 0xc9, 0x130, 0x212a, 0x3a3, 0x1e9e, 0x410, 0x10400 };
    size_t len = 0;
    int same = 1;

    for (size_t i = 0; i < sizeof cps / sizeof cps[0]; i++) {
        unsigned char c[8], lo[8];
        int n = utf8_encode(cps[i], c), m = utf8_encode(store_casefold_cp(cps[i]), lo);
        c[n] = '\0';
        lo[m] = '\0';
        if ((find((const char *)c, (const char *)lo, 0, &len) == 0) != 1)
            same = 0;
    }
    TEST_COND("a character matches its store fold", same);
    TEST_COND("\"istanbul\" finds \"\xc4\xb0stanbul\" as the store folds \xc4\xb0",
              (find("\xc4\xb0stanbul", "istanbul", 0, &len) == 0) ==
                  (store_casefold_cp(0x130) == 'i'));
    TEST_COND("... and \"\xc4\xb0stanbul\" finds itself", find("\xc4\xb0stanbul", "\xc4\xb0STANBUL", 0, &len) == 0);
}

static void
test_transcript(void)
{
    tui_transcript t;
    tui_search s;
    size_t r;

    tui_tr_init(&t);
    tui_search_init(&s);
    tui_tr_add(&t, TUI_TURN_USER, "apple pie and APPLE juice", 25);
    tui_tr_add(&t, TUI_TURN_ASSISTANT, " no fruit here", 14);
    tui_tr_add(&t, TUI_TURN_USER, "one more apple", 14);
    tui_tr_layout(&t, 12);
    tui_input_set(&s.q, "apple");
    TEST_COND("query change reported", tui_search_update(&s, &t) == 1);
    TEST_COND("three matches", s.n == 3);
    TEST_COND("no change: nothing recomputed", tui_search_update(&s, &t) == 0);
    tui_search_pick(&s, 1);
    TEST_COND("pick: last match in a turn <= 1", s.cur == 1 && s.m[1].off == 14);
    tui_search_pick(&s, 2);
    TEST_COND("pick: the newest", s.cur == 2);
    tui_search_next(&s);
    TEST_COND("next wraps", s.cur == 0);
    tui_search_prev(&s);
    TEST_COND("prev wraps", s.cur == 2);
    /* width 12 - indent 2 = 10: "apple pie", "and APPLE", "juice" */
    s.cur = 1;
    r = tui_search_row(&s, &t);
    TEST_CONDF(r == 2 && t.rows[r].turn == 0, "second match on row 2 (got %zu)", r);
    TEST_COND("first_in: by turn and offset", tui_search_first_in(&s, 0, 6) == 1 &&
                                                  tui_search_first_in(&s, 1, 0) == 2 &&
                                                  tui_search_first_in(&s, 3, 0) == 3);
    /* a reply streaming in is searched again without a query change */
    tui_tr_append(&t, 1, " but an apple", 13);
    TEST_COND("transcript change: no pick asked", tui_search_update(&s, &t) == 0);
    TEST_COND("the new match found", s.n == 4 && s.m[2].turn == 1);
    /* scrolling a 2-row view to the first match */
    tui_tr_scroll_end(&t);
    tui_tr_show_row(&t, 1, 2);
    TEST_COND("show_row: row 1 in view", tui_tr_first_row(&t, 2) <= 1 &&
                                             tui_tr_first_row(&t, 2) + 2 > 1);
    tui_search_fini(&s);
    tui_tr_fini(&t);
}

int
main(void)
{
    if (setlocale(LC_ALL, "C.UTF-8") == NULL)
        setlocale(LC_ALL, "en_US.UTF-8");
    test_find();
    test_one_fold();
    test_transcript();
    return TEST_REPORT();
}
