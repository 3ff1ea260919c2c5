/*
** test_display_label.c -- the one-line and label forms of the terminal rule
** (core/text/utf8.h utf8_san_line, utf8_san_label, utf8_san_drops):
**   - a label is taken from the first visible text: a turn opening with
**     more than 255 bytes of escape sequences, controls or blank lines is
**     still labelled by its words;
**   - a NUL is a control like any other (dropped, the rest kept), in a
**     label and in a line (a title imported with \u0000);
**   - a character cut by the end of a prefix is left out (MORE), one
**     U+FFFD at the end of the whole text;
**   - both cut before a character that does not fit, are idempotent, and
**     read a megabyte input only as far as their output needs;
**   - store_title_clean is utf8_san_line.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/text/utf8.h"
#include "../../storage/store.h"
#include "../harness.h"

#define R UTF8_REPL
/* A string literal and its length (NULs inside counted). */
#define S(lit) lit, sizeof(lit) - 1

/* utf8_san_label of IN (LEN bytes) into a static buffer of CAP <= 512 bytes. */
static const char *
label(const char *in, size_t len, int more, size_t cap)
{
    static char out[512];

    utf8_san_label(in, len, more, out, cap);
    return out;
}

static const char *
line(const char *in, size_t len, size_t cap)
{
    static char out[512];

    utf8_san_line(in, len, out, cap);
    return out;
}

int
main(void)
{
    char big[1200];
    size_t k = 0;

    /* --- the first visible text ---------------------------------------------- */
    for (int i = 0; i < 80; i++) {               /* 80 x 4 = 320 bytes of SGR */
        memcpy(big + k, "\x1b[1m", 4);
        k += 4;
    }
    memcpy(big + k, "Hello there", 11);
    k += 11;
    TEST_CONDF(strcmp(label(big, k, 0, 256), "Hello there") == 0,
               "320 bytes of escape sequences, then text: '%s'", label(big, k, 0, 256));
    TEST_COND("a prefix (MORE) of it too", strcmp(label(big, k, 1, 256), "Hello there") == 0);
    TEST_COND("controls and blank lines first",
              strcmp(label(S("\x07\r\n  \n\x1b]0;t\x07\n Hi\nsecond"), 0, 256), " Hi\nsecond") == 0);
    TEST_COND("blank lines only: empty", strcmp(label(S("\n \n\t\n"), 0, 256), "") == 0);
    TEST_COND("a plain reply is as it was", strcmp(label(S(" In burrows.\nSome"), 0, 256),
                                                   " In burrows.\nSome") == 0);
    TEST_COND("a tab is four spaces, as the transcript shows it",
              strcmp(label(S("a\tb"), 0, 256), "a    b") == 0);

    /* --- NUL ------------------------------------------------------------------ */
    TEST_COND("label: a NUL is dropped, the rest kept", strcmp(label(S("a\0b"), 0, 256), "ab") == 0);
    TEST_COND("label: a NUL first", strcmp(label(S("\0\0word"), 0, 256), "word") == 0);
    TEST_COND("label: a NUL ends a CSI as any C0 does",
              strcmp(label(S("\x1b[3\0" "1mx"), 0, 256), "1mx") == 0 &&
              strcmp(label(S("\x1b[3\x01" "1mx"), 0, 256), "1mx") == 0);
    TEST_COND("line: a NUL is dropped", strcmp(line(S("nul\0\x1b]0;pwned\x07 end"), 256), "nul end") == 0);

    /* --- cut ends ------------------------------------------------------------- */
    TEST_COND("a character cut by a prefix's end is left out",
              strcmp(label(S("ab\xe4\xb8"), 1, 256), "ab") == 0);
    TEST_COND("at the text's end it is one U+FFFD",
              strcmp(label(S("ab\xe4\xb8"), 0, 256), "ab" R) == 0);
    TEST_COND("ill-formed UTF-8 is one U+FFFD", strcmp(label(S("a\xff" "b"), 0, 256), "a" R "b") == 0);
    TEST_COND("label cut before a character that does not fit",
              strcmp(label(S("ab\xe4\xb8\xad"), 0, 5), "ab") == 0 &&
              strcmp(label(S("ab\xe4\xb8\xad"), 0, 6), "ab\xe4\xb8\xad") == 0);
    TEST_COND("line cut before a character that does not fit",
              strcmp(line(S("ab\xe4\xb8\xad"), 5), "ab") == 0);
    TEST_COND("cap 1: empty", strcmp(label(S("abc"), 0, 1), "") == 0 && strcmp(line(S("abc"), 1), "") == 0);

    /* --- one line --------------------------------------------------------------- */
    TEST_COND("line: a tab one space, line breaks spaces, CR dropped",
              strcmp(line(S("one\r\ntwo\tthree\xe2\x80\xa8" "four"), 256), "one two three four") == 0);
    TEST_COND("line: escape sequences whole, bidi dropped",
              strcmp(line(S("a\x1b[31mb\xe2\x80\xae" "c\xc2\x9b" "1md"), 256), "abcd") == 0);

    /* --- idempotent ------------------------------------------------------------ */
    {
        static const char *const in[] = { "x\x1b[2J\ty\n\nz\xff", "\n\n  a\tb\x07",
                                          "\xe5\xbe\x88\xe5\xa4\x9a\x1b]8;;u\x1b\\link" };
        for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
            char a[256], b[256];
            utf8_san_label(in[i], strlen(in[i]), 0, a, sizeof a);
            utf8_san_label(a, strlen(a), 0, b, sizeof b);
            TEST_CONDF(strcmp(a, b) == 0, "label %zu idempotent: '%s' then '%s'", i, a, b);
            utf8_san_line(in[i], strlen(in[i]), a, sizeof a);
            utf8_san_line(a, strlen(a), b, sizeof b);
            TEST_CONDF(strcmp(a, b) == 0, "line %zu idempotent: '%s' then '%s'", i, a, b);
        }
    }

    /* --- bounded: a megabyte reads as far as the output needs ------------------- */
    {
        size_t n = 1u << 20;
        char *m = malloc(n), out[64];
        if (m != NULL) {
            memset(m, 'w', n);
            memcpy(m + n - 4, "\x1b[1m", 4);
            TEST_COND("a megabyte: a full label", utf8_san_label(m, n, 1, out, sizeof out) == 63);
            TEST_COND("a megabyte: a full line", utf8_san_line(m, n, out, sizeof out) == 63);
            free(m);
        }
    }

    /* --- what the rule drops ---------------------------------------------------- */
    TEST_COND("drops: ESC, NUL, CR, DEL, C1 CSI, RLO, ZWSP, BOM",
              utf8_san_drops(0x1b) && utf8_san_drops(0) && utf8_san_drops('\r') && utf8_san_drops(0x7f) &&
              utf8_san_drops(0x9b) && utf8_san_drops(0x202e) && utf8_san_drops(0x200b) &&
              utf8_san_drops(0xfeff));
    TEST_COND("keeps: \\n, \\t (spaces), letters, ZWJ, NBSP, U+FFFD",
              !utf8_san_drops('\n') && !utf8_san_drops('\t') && !utf8_san_drops('a') &&
              !utf8_san_drops(0x200d) && !utf8_san_drops(0xa0) && !utf8_san_drops(0xfffd));

    /* --- every line break is one space in a line (a lone CR glued words) ------- */
    {
        static const char *const in[] = { "a\nb", "a\rb", "a\r\nb", "a\xc2\x85" "b",
                                          "a\xe2\x80\xa8" "b", "a\xe2\x80\xa9" "b", "a\tb" };
        char lng[600], a[STORE_TITLE_MAX], b[400];
        for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
            store_title_clean(in[i], a, sizeof a);
            TEST_CONDF(strcmp(a, "a b") == 0, "line break %zu: 'a b', not '%s'", i, a);
        }
        utf8_san_line("a\r\rb\n\nc", 7, a, sizeof a);
        TEST_CONDF(strcmp(a, "a  b  c") == 0, "two breaks, two spaces: '%s'", a);
        /* a CR LF across the rule's pieces (UTF8_SAN_CHUNK, 256) is one break */
        memset(lng, 'w', sizeof lng);
        memcpy(lng + 255, "\r\n", 2);
        utf8_san_line(lng, 300, b, sizeof b);
        TEST_CONDF(strlen(b) == 299 && b[255] == ' ' && b[256] == 'w',
                   "CR LF cut by a piece: one space (%zu bytes)", strlen(b));
    }

    /* --- store_title_clean is the line rule ------------------------------------- */
    {
        static const char *const in[] = { "a\x1b[31mb", "tab\there\nline", "x\x1b]0;t\x07y\xe2\x80\xaez",
                                          "" };
        for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
            char a[STORE_TITLE_MAX], b[STORE_TITLE_MAX];
            store_title_clean(in[i], a, sizeof a);
            utf8_san_line(in[i], strlen(in[i]), b, sizeof b);
            TEST_CONDF(strcmp(a, b) == 0, "title %zu: '%s' vs '%s'", i, a, b);
        }
    }
    return TEST_REPORT();
}
