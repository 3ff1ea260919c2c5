/*
** test_tui_history.c -- the input history file (tui/history.c): every byte
** and newline round-trips, the draft comes back last and marked, the file
** is 0600 and bounded (entries and their length), two clients' saves are
** merged, and a damaged file is refused with one line naming the line.
** Real files in a temporary $XDG_STATE_HOME.
*/
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../harness.h"
#include "../../tui/history.h"
#include "../../tui/input.h"

static char path[1024];

/* Send S from IN (as Enter does). */
static void
sent(tui_input *in, const char *s)
{
    tui_input_set(in, s);
    free(tui_input_take(in));
}

static void
write_file(const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void
test_round_trip(void)
{
    static const char *const msgs[] = {
        "plain", "two\nlines", "a back\\slash and a literal \\n", "cr\r\nlf", "\xff\xfe raw bytes",
        "中文，标点。", "\ttab  ",
    };
    size_t n = sizeof msgs / sizeof msgs[0];
    tui_input a, b;
    rwkv_err err;
    struct stat sb;
    int rc, same = 1;

    tui_input_init(&a);
    tui_input_init(&b);
    for (size_t i = 0; i < n; i++)
        sent(&a, msgs[i]);
    TEST_COND("save", tui_history_save(&a, "the draft\nline two", path, &err) == 0);
    TEST_COND("the file is 0600", stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600);
    rc = tui_history_load(&b, path, &err);
    TEST_CONDF(rc == 1, "load says a draft is there (rc %d: %s)", rc, rc < 0 ? err.msg : "");
    TEST_CONDF(b.nhist == n + 1, "%zu entries, want %zu", b.nhist, n + 1);
    for (size_t i = 0; i < n && i < b.nhist; i++)
        same &= strcmp(b.hist[i], msgs[i]) == 0;
    TEST_COND("every entry byte for byte", same);
    TEST_COND("the draft last", b.nhist == n + 1 && strcmp(b.hist[n], "the draft\nline two") == 0);
    TEST_COND("browsing starts after the last", b.hpos == b.nhist && b.nnew == 0);
    /* saved again without a draft: no longer marked */
    TEST_COND("save again", tui_history_save(&b, NULL, path, &err) == 0);
    tui_input_fini(&b);
    tui_input_init(&b);
    TEST_COND("no draft mark the second time", tui_history_load(&b, path, &err) == 0 &&
                                                b.nhist == n + 1);
    tui_input_fini(&a);
    tui_input_fini(&b);
}

static void
test_bounds(void)
{
    tui_input a, b;
    rwkv_err err;
    char msg[32], *big;
    size_t bl = 20000;

    tui_input_init(&a);
    for (int i = 0; i < TUI_INPUT_HISTORY + 5; i++) {
        snprintf(msg, sizeof msg, "message %d", i);
        sent(&a, msg);
    }
    unlink(path);
    TEST_COND("save 1005", tui_history_save(&a, NULL, path, &err) == 0);
    tui_input_init(&b);
    tui_history_load(&b, path, &err);
    TEST_CONDF(b.nhist == TUI_INPUT_HISTORY && strcmp(b.hist[0], "message 5") == 0 &&
                   strcmp(b.hist[b.nhist - 1], "message 1004") == 0,
               "the newest %d kept (%zu, first '%s')", TUI_INPUT_HISTORY, b.nhist,
               b.nhist ? b.hist[0] : "");
    tui_input_fini(&a);
    tui_input_fini(&b);

    /* one long entry of two-byte characters: cut on a character */
    big = malloc(bl + 1);
    for (size_t i = 0; i < bl; i += 2)
        memcpy(big + i, "\xc3\xa9", 2);
    big[bl] = '\0';
    tui_input_init(&a);
    sent(&a, "x");
    sent(&a, big);
    unlink(path);
    tui_history_save(&a, NULL, path, &err);
    tui_input_init(&b);
    tui_history_load(&b, path, &err);
    TEST_CONDF(b.nhist == 2 && strlen(b.hist[1]) <= TUI_HISTORY_ENTRY_MAX &&
                   strlen(b.hist[1]) % 2 == 0 && strlen(b.hist[1]) > TUI_HISTORY_ENTRY_MAX - 4,
               "a long entry cut to %u bytes on a character (%zu)", TUI_HISTORY_ENTRY_MAX,
               b.nhist == 2 ? strlen(b.hist[1]) : 0);
    /* ... and marked so (Up says it), a whole one not; saved again, the
    ** mark stays */
    TEST_COND("the cut entry marked cut", tui_input_hist_cut(&b, 1) && !tui_input_hist_cut(&b, 0));
    tui_history_save(&b, NULL, path, &err);
    tui_input_fini(&b);
    tui_input_init(&b);
    tui_history_load(&b, path, &err);
    TEST_COND("... still marked once saved again",
              b.nhist == 2 && tui_input_hist_cut(&b, 1) && !tui_input_hist_cut(&b, 0));
    tui_input_fini(&b);

    /* the same text left unsent: the draft is kept whole (it is nowhere
    ** else), and a draft over the box's limit cut to it on a character */
    memcpy(big, "ab", 2);   /* not a repeat of the entry sent */
    unlink(path);
    TEST_COND("save a long draft", tui_history_save(&a, big, path, &err) == 0);
    tui_input_init(&b);
    TEST_COND("... a draft", tui_history_load(&b, path, &err) == 1);
    TEST_CONDF(b.nhist == 3 && strcmp(b.hist[2], big) == 0,
               "a %zu-byte draft comes back whole (%zu)", bl,
               b.nhist == 3 ? strlen(b.hist[2]) : 0);
    tui_input_fini(&b);
    free(big);
    big = malloc(TUI_INPUT_MAX + 3);
    for (size_t i = 0; i < TUI_INPUT_MAX + 2; i += 2)
        memcpy(big + i, "\xc3\xa9", 2);
    big[TUI_INPUT_MAX + 2] = '\0';
    unlink(path);
    tui_history_save(&a, big, path, &err);
    tui_input_init(&b);
    tui_history_load(&b, path, &err);
    TEST_CONDF(b.nhist == 3 && strlen(b.hist[2]) <= TUI_INPUT_MAX &&
                   strlen(b.hist[2]) % 2 == 0 && strlen(b.hist[2]) > TUI_INPUT_MAX - 4,
               "a draft over the box's %u bytes cut to it on a character (%zu)", TUI_INPUT_MAX,
               b.nhist == 3 ? strlen(b.hist[2]) : 0);
    free(big);
    tui_input_fini(&a);
    tui_input_fini(&b);
}

static void
test_merge(void)
{
    tui_input a, b, c;
    rwkv_err err;

    unlink(path);
    tui_input_init(&a);
    sent(&a, "before");
    tui_history_save(&a, NULL, path, &err);
    tui_input_fini(&a);
    /* two clients start from the same file, each sends, each quits */
    tui_input_init(&a);
    tui_input_init(&b);
    tui_history_load(&a, path, &err);
    tui_history_load(&b, path, &err);
    sent(&a, "from a");
    sent(&b, "from b");
    tui_history_save(&a, NULL, path, &err);
    tui_history_save(&b, "b's draft", path, &err);
    tui_input_init(&c);
    TEST_COND("merged: both clients' messages and the last draft",
              tui_history_load(&c, path, &err) == 1 && c.nhist == 4 &&
                  strcmp(c.hist[0], "before") == 0 && strcmp(c.hist[1], "from a") == 0 &&
                  strcmp(c.hist[2], "from b") == 0 && strcmp(c.hist[3], "b's draft") == 0);
    tui_input_fini(&a);
    tui_input_fini(&b);
    tui_input_fini(&c);
}

static void
test_damage(void)
{
    tui_input a;
    rwkv_err err;

    tui_input_init(&a);
    unlink(path);
    TEST_COND("no file: an empty history", tui_history_load(&a, path, &err) == 0 && a.nhist == 0);
    write_file("rwkv-tui history 1\ns ok\nbad line\n");
    TEST_CONDF(tui_history_load(&a, path, &err) == -1 && strstr(err.msg, "history:3: damaged") &&
                   a.nhist == 0,
               "a bad line: refused, naming it ('%s')", err.msg);
    write_file("rwkv-tui history 1\ns a \\q escape\n");
    TEST_COND("an unknown escape: refused", tui_history_load(&a, path, &err) == -1);
    write_file("rwkv-tui history 1\nd draft\ns after\n");
    TEST_COND("a draft not last: refused", tui_history_load(&a, path, &err) == -1);
    write_file("something else\n");
    TEST_CONDF(tui_history_load(&a, path, &err) == -1 && strstr(err.msg, "not an rwkv-tui history"),
               "another file: refused ('%s')", err.msg);
    write_file("rwkv-tui history 1\ns no newline at the end");
    TEST_COND("a last line without its newline is fine",
              tui_history_load(&a, path, &err) == 0 && a.nhist == 1);
    tui_input_fini(&a);
}

/* What a load ended by Ctrl-C leaves unread (tui_typeahead_text): the text
** as the box would have taken it, then a draft that comes back. */
static void
test_typeahead(void)
{
    static const struct {
        const char *raw, *want;   /* want NULL: nothing kept */
    } cases[] = {
        { "queued then ctrlc\r", "queued then ctrlc" },
        { "two\rlines\r", "two\nlines" },
        { "typo\x7f\x7fos\r", "tyos" },
        { "caf\xc3\xa9\x7f\x7f" "e", "cae" },                     /* Backspace: a character */
        { "\x1b[Ahi\x1bOP\x1b[15~ there\x1b" "b", "hi there" },      /* Up, F1, F5, Alt-b */
        { "\x1b[200~pasted\ntext\x1b[201~", "pasted\ntext" },     /* bracketed paste */
        { "\x01\x02ok\x07", "ok" },                               /* other control bytes */
        { "\r\r  \r", NULL },
        { "\x1b[A\x1b[B", NULL },
        { "", NULL },
        { "bad \xff byte", "bad \xef\xbf\xbd byte" },               /* sanitised: U+FFFD */
        { "cut\x1b[1;", "cut" },                                  /* a sequence cut at the end */
    };
    tui_input in, back;
    rwkv_err err;
    char *t;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        t = tui_typeahead_text(cases[i].raw, strlen(cases[i].raw));
        TEST_CONDF(cases[i].want ? t && strcmp(t, cases[i].want) == 0 : t == NULL,
                   "typeahead %zu: '%s' (want '%s')", i, t ? t : "(none)",
                   cases[i].want ? cases[i].want : "(none)");
        free(t);
    }
    /* kept beside what the file had, as the draft the next start brings back */
    tui_input_init(&in);
    sent(&in, "an earlier message");
    TEST_COND("typeahead: the history saved", tui_history_save(&in, NULL, path, &err) == 0);
    tui_input_fini(&in);
    tui_input_init(&in);
    t = tui_typeahead_text("sent while loading\r", 19);
    TEST_COND("typeahead: kept as the draft", t && tui_history_save(&in, t, path, &err) == 0);
    free(t);
    tui_input_init(&back);
    TEST_COND("typeahead: the draft comes back", tui_history_load(&back, path, &err) == 1 &&
                                                 back.nhist >= 2 &&
                                                 strcmp(back.hist[back.nhist - 1],
                                                        "sent while loading") == 0 &&
                                                 strcmp(back.hist[back.nhist - 2],
                                                        "an earlier message") == 0);
    tui_input_fini(&back);
    tui_input_fini(&in);
}

int
main(void)
{
    char dir[] = "/tmp/rwkv-hist.XXXXXX";

    setlocale(LC_ALL, "C.UTF-8");
    if (mkdtemp(dir) == NULL)
        return 1;
    setenv("XDG_STATE_HOME", dir, 1);
    if (tui_history_path(path, sizeof path) != 0)
        return 1;
    test_round_trip();
    test_bounds();
    test_merge();
    test_damage();
    test_typeahead();
    unlink(path);
    {
        char sub[1100];
        snprintf(sub, sizeof sub, "%s/rwkv-tui", dir);
        rmdir(sub);
        rmdir(dir);
    }
    return TEST_REPORT();
}
