/*
** test_lineedit.c -- the line chat's line editor (cli/lineedit.c) without a
** terminal: the keys as bytes (ledit_feed), the history, pastes, and the
** sideways view of a long line with wide characters (ledit_view).
*/
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "../../cli/lineedit.h"

/* Feed S (NUL-terminated); the result of ledit_feed. */
static int
feed(ledit *e, const char *s)
{
    return ledit_feed(e, s, strlen(s), NULL);
}

/* The text is T and the cursor at byte C. */
static int
is(const ledit *e, const char *t, size_t c)
{
    size_t len, cur;
    const char *s = ledit_text(e, &len, &cur);

    return len == strlen(t) && memcmp(s, t, len) == 0 && cur == c;
}

/* Enter, then the line taken: 1 when it is T. */
static int
sent(ledit *e, const char *t)
{
    size_t len, lost;
    char *s;
    int ok, cut;

    if (feed(e, "\r") != LEDIT_ENTER)
        return 0;
    s = ledit_take(e, &len, &lost, &cut);
    ok = s != NULL && len == strlen(t) && strcmp(s, t) == 0 && lost == 0 && !cut;
    free(s);
    return ok;
}

static void
test_keys(void)
{
    ledit *e = ledit_create();
    size_t used;

    feed(e, "helo");
    feed(e, "\033[D");                         /* Left */
    feed(e, "l");
    TEST_COND("insert in the middle", is(e, "hello", 4));
    feed(e, "\001X\005Y");                     /* C-a X C-e Y */
    TEST_COND("C-a, C-e", is(e, "XhelloY", 7));
    feed(e, "\033[H\033[3~\033[F\177");        /* Home Delete End Backspace */
    TEST_COND("Home, Delete, End, Backspace", is(e, "hello", 5));
    feed(e, "\033OH\006\004");                 /* SS3 Home, C-f, C-d */
    TEST_COND("C-f, C-d deletes under the cursor", is(e, "hllo", 1));
    feed(e, "\013");                           /* C-k */
    TEST_COND("C-k", is(e, "h", 1));
    feed(e, "ello big world\027");             /* C-w */
    TEST_COND("C-w", is(e, "hello big ", 10));
    feed(e, "\031");                           /* C-y */
    TEST_COND("C-y puts it back", is(e, "hello big world", 15));
    feed(e, "\033b");                          /* M-b */
    TEST_COND("M-b", is(e, "hello big world", 10));
    feed(e, "\033[1;5D\033[1~\033[1;5C");      /* C-Left, Home, C-Right */
    TEST_COND("C-Left, C-Right", is(e, "hello big world", 5));
    feed(e, "\025");                           /* C-u */
    TEST_COND("C-u clears the line", is(e, "", 0));
    feed(e, "\037");                           /* C-_ */
    TEST_COND("C-_ undoes it", is(e, "hello big world", 5));
    TEST_COND("Enter ends the line", sent(e, "hello big world"));
    TEST_COND("a new empty line after it", is(e, "", 0));

    /* Enter in the middle of what was read: the rest is the next line's */
    TEST_COND("Enter stops the feed", ledit_feed(e, "one\rtwo", 7, &used) == LEDIT_ENTER && used == 4);
    {
        size_t len, lost;
        int cut;
        char *s = ledit_take(e, &len, &lost, &cut);
        TEST_COND("the line before Enter", s != NULL && strcmp(s, "one") == 0);
        free(s);
    }
    TEST_COND("LF is Enter too", ledit_feed(e, "two\n", 4, &used) == LEDIT_ENTER && used == 4);
    {
        int cut;
        free(ledit_take(e, &used, &used, &cut));
    }

    /* C-d on an empty line ends the input; on text it deletes */
    TEST_COND("C-d on an empty line", ledit_feed(e, "\004x", 2, &used) == LEDIT_EOF && used == 1);
    feed(e, "ab\001\004");
    TEST_COND("C-d on text", is(e, "b", 0));
    /* control bytes that are no key change nothing */
    ledit_feed(e, "\024\000\022", 3, NULL);
    TEST_COND("other control bytes: nothing", is(e, "b", 0));
    /* an empty line is sent as it is (the chat answers it) */
    feed(e, "\025");
    TEST_COND("an empty line", sent(e, ""));
    ledit_destroy(e);
}

static void
test_escapes(void)
{
    ledit *e = ledit_create();

    feed(e, "abc\033");
    TEST_COND("an ESC waits for more", ledit_wait_ms(e) > 0);
    feed(e, "[");
    feed(e, "D");
    TEST_COND("a sequence split between reads", is(e, "abc", 2) && ledit_wait_ms(e) < 0);
    feed(e, "\033");
    ledit_timeout(e);
    feed(e, "x");
    TEST_COND("Esc alone is dropped", is(e, "abxc", 3));
    feed(e, "\033[5~\033[99;9Z\033[Z");        /* PgUp, something unknown, back-tab */
    TEST_COND("other sequences: nothing", is(e, "abxc", 3));
    feed(e, "\033\033[C");                     /* ESC, then Right */
    TEST_COND("ESC ESC [ C: Right", is(e, "abxc", 4));
    feed(e, "\033d");
    TEST_COND("M-d at the end: nothing", is(e, "abxc", 4));
    TEST_COND("Esc, then Enter at once: Enter", feed(e, "\033\r") == LEDIT_ENTER);
    ledit_destroy(e);
}

static void
test_utf8(void)
{
    ledit *e = ledit_create();

    feed(e, "\xe4\xbd");                       /* half of 你 */
    feed(e, "\xa0\xe5\xa5\xbd");               /* its rest, 好 */
    TEST_COND("a character split between reads", is(e, "你好", 6));
    feed(e, "\177");
    TEST_COND("Backspace takes a whole wide character", is(e, "你", 3));
    feed(e, "世界");
    feed(e, "\033[D\033[D");
    TEST_COND("Left by whole characters", is(e, "你世界", 3));
    feed(e, "X");
    TEST_COND("insert between wide characters", is(e, "你X世界", 4));
    feed(e, "\033[3~");
    TEST_COND("Delete takes a whole wide character", is(e, "你X界", 4));
    feed(e, "e\xcc\x81");                      /* e + combining acute */
    feed(e, "\177");
    TEST_COND("Backspace takes a character with its mark", is(e, "你X界", 4));
    ledit_destroy(e);
}

static void
test_paste(void)
{
    ledit *e = ledit_create();

    TEST_COND("a paste's line breaks do not send it",
              feed(e, "\033[200~one\rtwo\r\nthree\033[201~") == LEDIT_MORE);
    TEST_COND("CR and LF as line breaks, marks dropped", is(e, "one\ntwo\n\nthree", 14));
    feed(e, " more");
    TEST_COND("typed after the paste", sent(e, "one\ntwo\n\nthree more"));
    feed(e, "\033[200~a\033[20");
    feed(e, "1~b");
    TEST_COND("an end mark split between reads", is(e, "ab", 2) && ledit_wait_ms(e) < 0);
    feed(e, "\025\033[200~a\033[2\033[201~b");
    TEST_COND("an ESC inside a half end mark begins it again", is(e, "ab", 2) && ledit_wait_ms(e) < 0);
    feed(e, "\025\033[200~x\033[31my\001z\ttab\033[201~");
    TEST_COND("escape sequences and control bytes in a paste dropped", is(e, "x31myz\ttab", 10));
    feed(e, "\025\033[200~/help");
    TEST_COND("a paste whose end mark never came waits", ledit_wait_ms(e) > 0);
    ledit_timeout(e);
    TEST_COND("... then it is taken as ended", sent(e, "/help"));
    ledit_destroy(e);
}

static void
test_history(void)
{
    ledit *e = ledit_create();

    feed(e, "first");
    sent(e, "first");
    feed(e, "\033[200~two\rlines\033[201~");
    sent(e, "two\nlines");
    feed(e, "draft");
    feed(e, "\033[A");
    TEST_COND("Up: the last line", is(e, "two\nlines", 9));
    feed(e, "\033[A");
    TEST_COND("Up again: the one before (not the pasted line above)", is(e, "first", 5));
    feed(e, "\033[A");
    TEST_COND("Up at the oldest: nothing", is(e, "first", 5));
    feed(e, "\016");
    TEST_COND("C-n", is(e, "two\nlines", 9));
    feed(e, "\033[B");
    TEST_COND("Down back to the draft", is(e, "draft", 5));
    feed(e, "\020!");
    TEST_COND("C-p, then edited", sent(e, "two\nlines!"));
    feed(e, "\033[A");
    TEST_COND("the edited line sent is the newest", is(e, "two\nlines!", 10));
    ledit_destroy(e);
}

static void
test_long(void)
{
    ledit *e = ledit_create();
    size_t n = 6000, len, lost;
    char *big = malloc(n + 1), *s;
    int cut;

    memset(big, 'a', n);
    big[n] = '\0';
    feed(e, big);
    feed(e, "\r");
    s = ledit_take(e, &len, &lost, &cut);
    TEST_COND("6000 bytes in one line", s != NULL && len == n && lost == 0 && !cut);
    free(s);
    free(big);
    n = LEDIT_TEXT_MAX + 10;
    big = malloc(n);
    memset(big, 'b', n);
    ledit_feed(e, big, n, NULL);
    ledit_feed(e, "\r", 1, NULL);
    s = ledit_take(e, &len, &lost, &cut);
    TEST_COND("over the editor's room: counted", s != NULL && len == LEDIT_TEXT_MAX && lost == 10);
    free(s);
    free(big);
    if (LEDIT_TTY_LINE > 0) {
        /* typed ahead in the line mode (a reply streaming): LF ends its
        ** lines, and one of LEDIT_TTY_LINE bytes was cut there */
        big = malloc(LEDIT_TTY_LINE + 2);
        memset(big, 'c', LEDIT_TTY_LINE);
        memcpy(big + LEDIT_TTY_LINE, "\n", 2);
        TEST_COND("a cut line typed ahead: Enter", feed(e, big) == LEDIT_ENTER);
        s = ledit_take(e, &len, &lost, &cut);
        TEST_COND("... said cut", s != NULL && cut && len == LEDIT_TTY_LINE);
        free(s);
        big[LEDIT_TTY_LINE - 1] = '\n';          /* one byte shorter: whole */
        big[LEDIT_TTY_LINE] = '\0';
        feed(e, big);
        s = ledit_take(e, &len, &lost, &cut);
        TEST_COND("a line under the limit: not cut", s != NULL && !cut);
        free(s);
        memset(big, 'c', LEDIT_TTY_LINE);            /* typed in raw mode: CR, no limit */
        memcpy(big + LEDIT_TTY_LINE, "\r", 2);
        feed(e, big);
        s = ledit_take(e, &len, &lost, &cut);
        TEST_COND("the same length ended by CR (raw mode): not cut", s != NULL && !cut);
        free(s);
        free(big);
    }
    ledit_destroy(e);
}

static void
test_view(void)
{
    const char *a = "abcdefghijklmnopqrst";   /* 20 columns */
    const char *w = "你好世界";                  /* 8 columns */
    size_t first = 0, end;
    int col;

    end = ledit_view(a, 20, 5, 40, &first, &col);
    TEST_COND("it fits: all of it", first == 0 && end == 20 && col == 5);
    end = ledit_view(a, 20, 20, 10, &first, &col);
    TEST_COND("cursor at the end: the tail shown", first == 11 && end == 20 && col == 9);
    end = ledit_view(a, 20, 15, 10, &first, &col);
    TEST_COND("a move inside the view keeps it", first == 11 && col == 4);
    end = ledit_view(a, 20, 3, 10, &first, &col);
    TEST_COND("a move off the left: the view follows", first == 3 && col == 0 && end == 12);
    first = 0;
    end = ledit_view(w, 12, 12, 5, &first, &col);
    TEST_COND("wide: the cursor's column at most COLS - 1", first == 6 && col == 4 && end == 12);
    first = 0;
    end = ledit_view(w, 12, 0, 6, &first, &col);
    TEST_COND("wide: never cut in two at the right", first == 0 && end == 6 && col == 0);
    first = 0;
    end = ledit_view(w, 12, 9, 6, &first, &col);
    TEST_COND("wide: cursor before the last", first == 3 && col == 4 && end == 9);
    first = 4;                                 /* inside 好 (an edit moved the text) */
    end = ledit_view(w, 12, 12, 40, &first, &col);
    TEST_COND("a first byte inside a character: its start", first == 3 && col == 6);
    first = 0;
    end = ledit_view("a\nb", 3, 3, 40, &first, &col);
    TEST_COND("a line break: one column", col == 3 && end == 3);
}

int
main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    test_keys();
    test_escapes();
    test_utf8();
    test_paste();
    test_history();
    test_long();
    test_view();
    return TEST_REPORT();
}
