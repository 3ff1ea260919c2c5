/*
** test_utf8_sanitize.c -- the terminal rule (core/text/utf8.h,
** utf8_sanitize_for_terminal), the one rule for what a terminal is shown:
** hostile input (escape sequences in 7- and 8-bit form, C0/C1 controls,
** DEL, CR, tabs, bidi and invisible format characters, invalid UTF-8), that
** a stream split anywhere gives the same text as one call, that the output
** is always well-formed UTF-8 whose only control is '\n', that the rule is
** idempotent, and the output bound.
*/
#include <stdint.h>

#include "../../core/text/utf8.h"
#include "../harness.h"

#define R UTF8_REPL

/* One-shot clean of IN (LEN bytes) into a static buffer, NUL-terminated. */
static const char *
clean(const char *in, size_t len, size_t *outlen)
{
    static char out[UTF8_SANITIZE_MAX(256) + 1];
    size_t k = utf8_sanitize_for_terminal(NULL, in, len, out);

    out[k] = '\0';
    if (outlen)
        *outlen = k;
    return out;
}

/* IN cut into pieces at the sizes of CUTS (cycled), through a handle, then
** flushed: the bytes written into OUT (room for UTF8_SANITIZE_MAX(len)). */
static size_t
clean_pieces(const unsigned char *in, size_t len, const size_t *cuts, size_t ncuts, char *out)
{
    utf8_san san;
    size_t k = 0, i = 0, c = 0;

    utf8_san_init(&san);
    while (i < len) {
        size_t m = cuts[c++ % ncuts];
        if (m > len - i)
            m = len - i;
        k += utf8_sanitize_for_terminal(&san, in + i, m, out + k);
        i += m;
    }
    k += utf8_san_flush(&san, out + k);
    return k;
}

/* Well-formed, '\n' the only control, no ESC/CSI, bidi or invisible
** format character. */
static int
terminal_safe(const char *s, size_t n)
{
    size_t i = 0;

    while (i < n) {
        uint32_t cp;
        int r = utf8_decode((const unsigned char *)s + i, n - i, &cp);
        if (r <= 0 || (cp < 0x20 && cp != '\n') || (cp >= 0x7f && cp <= 0x9f) ||
            cp == 0x61c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
            (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200b || cp == 0xfeff ||
            cp == 0x2028 || cp == 0x2029)
            return 0;
        i += (size_t)r;
    }
    return 1;
}

static void
test_cases(void)
{
    static const struct {
        const char *in;
        size_t      len;    /* 0: strlen */
        const char *want;
    } cases[] = {
        { "plain text", 0, "plain text" },
        { "lines\nand\ttabs", 0, "lines\nand    tabs" },                 /* tab: 4 spaces */
        { "\x1b[31mred\x1b[0m", 0, "red" },                               /* CSI SGR */
        { "a\x1b[2J\x1b[H\x1b[?1049hb", 0, "ab" },                         /* clear, home, alt screen */
        { "a\x1b[10;20Hb\x1b[5Ac", 0, "abc" },                              /* cursor moves */
        { "\x1b]0;title\x07ok", 0, "ok" },                                 /* OSC + BEL */
        { "\x1b]52;c;cHduZWQ=\x1b\\ok", 0, "ok" },                        /* OSC 52 clipboard, ST */
        { "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", 0, "link" },          /* hyperlink */
        { "\x1bPq#0;2;0;0;0\x1b\\x", 0, "x" },                              /* DCS (sixel) */
        { "\x1b_apc\x1b\\\x1b^pm\x07\x1bXsos\x07y", 0, "y" },                /* APC, PM, SOS */
        { "\x1b]0;t\x1b[1mhi", 0, "hi" },                                 /* ESC ends a string */
        { "\x1b(0q\x1b(B", 0, "q" },                                      /* charset: ESC ( 0 */
        { "\x1b" "7\x1b" "8\x1b" "c\x1bMz", 0, "z" },                               /* DECSC/RC, RIS, RI */
        { "a\x1b\nb", 0, "a\nb" },                                        /* ESC then a control */
        { "a\x1b[3\n1mb", 0, "a\n1mb" },                                   /* C0 ends a CSI */
        { "\xc2\x9b" "2J" "ok", 0, "ok" },                                  /* C1 CSI, U+009B */
        { "\xc2\x9d" "0;x\x07ok", 0, "ok" },                                /* C1 OSC + BEL */
        { "\xc2\x9d" "0;x\xc2\x9cok", 0, "ok" },                            /* C1 OSC + C1 ST */
        { "\xc2\x85" "a\xc2\x9c", 0, "a" },                                /* NEL, lone ST */
        { "cr\r\nlf", 0, "cr\nlf" },
        { "over\rwrite", 0, "overwrite" },                                /* CR cannot overwrite */
        { "a\x01\x07\x08\x0b\x0c\x0e\x0f\x18\x1a\x7f" "b", 0, "ab" },      /* C0, DEL */
        { "\xc2\xa0nbsp", 0, "\xc2\xa0nbsp" },                             /* U+00A0 stays */
        { "\xe4\xbd\xa0\xe5\xa5\xbd", 0, "\xe4\xbd\xa0\xe5\xa5\xbd" },        /* CJK */
        { "\xf0\x9f\x98\x80", 0, "\xf0\x9f\x98\x80" },                     /* emoji */
        { "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x92\xbb", 0,               /* ZWJ sequence */
          "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x92\xbb" },
        { "e\xcc\x81", 0, "e\xcc\x81" },                                    /* combining mark */
        { "a\xe2\x80\xae" "bc\xe2\x80\xac", 0, "abc" },                        /* RLO .. PDF */
        { "a\xe2\x81\xa6" "b\xe2\x81\xa9", 0, "ab" },                        /* LRI .. PDI */
        { "\xe2\x80\x8e\xe2\x80\x8f\xd8\x9cx", 0, "x" },                    /* LRM RLM ALM */
        { "a\xe2\x80\x8b" "b\xe2\x81\xa0" "c\xef\xbb\xbf" "d", 0, "abcd" }, /* ZWSP WJ BOM */
        { "a\xe2\x80\xa8" "b\xe2\x80\xa9" "c", 0, "a\nb\nc" },               /* LS, PS */
        { "\xff", 0, R },
        { "a\xc3\x28", 0, "a" R "(" },                                    /* bad continuation */
        { "\xc0\xaf", 0, R R },                                           /* overlong: two subparts */
        { "\xed\xa0\x80", 0, R R R },                                     /* surrogate */
        { "\xe4\xbd", 0, R },                                              /* cut at the end */
        { "\xc2", 0, R },                                                  /* a cut C1 is no C1 */
        { "\x9b" "31m", 0, R "31m" },                                      /* a raw 0x9B is no CSI */
        { "\xe4\x1b[1mx", 0, R "x" },                                      /* cut char, then ESC */
        { "nul\0byte", 8, "nulbyte" },
        { "\x1b", 0, "" },                                                 /* open at the end */
        { "\x1b[", 0, "" },
        { "", 0, "" },
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].in), n;
        const char *got = clean(cases[i].in, len, &n);
        TEST_CONDF(n == strlen(cases[i].want) && memcmp(got, cases[i].want, n) == 0,
                   "case %zu: got '%s', want '%s'", i, got, cases[i].want);
    }
}

/* An escape sequence never open for good: past UTF8_SAN_MAX_SEQ bytes the
** rest is text, so an unterminated OSC or CSI cannot eat a whole reply. */
static void
test_long_sequences(void)
{
    static char in[UTF8_SAN_MAX_SEQ + 100], out[UTF8_SANITIZE_MAX(sizeof in)];
    size_t n;

    memset(in, 'z', sizeof in);
    in[0] = 0x1b;
    in[1] = ']';
    n = utf8_sanitize_for_terminal(NULL, in, sizeof in, out);
    TEST_CONDF(n > 0 && n < 100, "unterminated OSC: %zu bytes shown", n);
    memset(in, ';', sizeof in);
    in[0] = 0x1b;
    in[1] = '[';
    in[sizeof in - 1] = 'x';
    n = utf8_sanitize_for_terminal(NULL, in, sizeof in, out);
    TEST_CONDF(n > 0 && n < 100 && out[n - 1] == 'x', "endless CSI: %zu bytes shown", n);
}

/* Clean text cleaned again is unchanged (titles are stored clean and
** cleaned again on display). */
static void
test_idempotent(void)
{
    static const char *const ins[] = {
        "a\x1b[31mb\tc\r\nd\xff\xe2\x80\xae" "e\xe2\x80\xa8" "f\xc2\x9b" "1mg",
        "\xe4\xbd\xa0\x01\xf0\x9f\x98\x80\x7f\xed\xa0\x80",
    };
    int same = 1;

    for (size_t t = 0; t < sizeof ins / sizeof ins[0]; t++) {
        char once[UTF8_SANITIZE_MAX(64)], twice[UTF8_SANITIZE_MAX(UTF8_SANITIZE_MAX(64))];
        size_t n1 = utf8_sanitize_for_terminal(NULL, ins[t], strlen(ins[t]), once);
        size_t n2 = utf8_sanitize_for_terminal(NULL, once, n1, twice);
        same &= n1 == n2 && memcmp(once, twice, n1) == 0;
    }
    TEST_COND("cleaning clean text changes nothing", same);
}

/* Every split of each string into two pieces, and into 1-byte pieces, gives
** the one-shot result. */
static void
test_splits(void)
{
    static const char *const ins[] = {
        "\xe4\xbd\xa0\xe5\xa5\xbd\x1b[1m\xf0\x9f\x98\x80!",
        "a\x1b]0;\xe4\xbd\xa0\x1b\\b\xc2\x9d" "x\xc2\x9c" "c\xc2\x9b" "2Jd\x1b(Be",
        "t\tab\r\n\xe2\x80\xae" "x\xe2\x80\xa8" "y\x1b]8;;u\x07z",
        "\xf0\x9f\x98",                 /* a cut emoji at the very end */
        "\xe4\xbd\xff\xc2\x9b\xc2\xa0x",
        "\xf0\x9f\x41\xe4\x80\xc2",
        "ok\n\xed\xa0\x80\xf4\x90\x80\x80 end",
    };
    int same = 1;

    for (size_t t = 0; t < sizeof ins / sizeof ins[0]; t++) {
        size_t len = strlen(ins[t]), want_n, n;
        char want[UTF8_SANITIZE_MAX(64)], got[UTF8_SANITIZE_MAX(64)];
        static const size_t ones[] = { 1 };

        const char *once = clean(ins[t], len, &want_n);

        memcpy(want, once, want_n);
        n = clean_pieces((const unsigned char *)ins[t], len, ones, 1, got);
        TEST_CONDF(n == want_n && memcmp(got, want, n) == 0, "string %zu in 1-byte pieces", t);
        for (size_t cut = 0; cut <= len; cut++) {
            size_t cuts[2] = { cut ? cut : len, len };
            n = clean_pieces((const unsigned char *)ins[t], len, cuts, 2, got);
            if (n != want_n || memcmp(got, want, n) != 0) {
                same = 0;
                printf("     string %zu cut at %zu differs\n", t, cut);
            }
        }
    }
    TEST_COND("every two-piece split gives the one-shot text", same);
}

/* Random bytes (biased towards UTF-8 lead and continuation bytes), random
** pieces: same text as one call, well-formed, no controls, within the bound. */
static void
test_random(void)
{
    static unsigned char in[4096];
    static char a[UTF8_SANITIZE_MAX(4096)], b[UTF8_SANITIZE_MAX(4096)];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    int same = 1, safe = 1, bound = 1;

    for (int round = 0; round < 200; round++) {
        size_t len = 1 + (size_t)(round * 37) % sizeof in, cuts[7], na, nb;
        for (size_t i = 0; i < len; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            switch (x % 4) {
            case 0: in[i] = (unsigned char)(x >> 8); break;                  /* any byte */
            case 1: in[i] = (unsigned char)(0x80 | ((x >> 8) & 0x3f)); break; /* continuation */
            case 2: in[i] = (unsigned char)(0xc2 + (x >> 8) % 0x33); break;  /* a lead byte */
            default: in[i] = (unsigned char)((x >> 8) % 0x80); break;        /* ASCII, ESC */
            }
        }
        for (size_t c = 0; c < 7; c++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            cuts[c] = 1 + x % 9;
        }
        na = utf8_sanitize_for_terminal(NULL, in, len, a);
        nb = clean_pieces(in, len, cuts, 7, b);
        same &= na == nb && memcmp(a, b, na) == 0;
        safe &= terminal_safe(a, na);
        bound &= na <= UTF8_SANITIZE_MAX(len);
    }
    TEST_COND("random input in random pieces: same text as one call", same);
    TEST_COND("random input: well-formed, '\\n' the only control", safe);
    TEST_COND("random input: within UTF8_SANITIZE_MAX", bound);
}

static void
test_handle(void)
{
    utf8_san san;
    char out[UTF8_SANITIZE_MAX(8)];
    size_t n;

    utf8_san_init(&san);
    /* a character spread over three calls comes out whole, once */
    n = utf8_sanitize_for_terminal(&san, "\xf0", 1, out);
    TEST_COND("first byte of 4: nothing yet", n == 0 && san.npend == 1);
    n = utf8_sanitize_for_terminal(&san, "\x9f\x98", 2, out);
    TEST_COND("three of 4: nothing yet", n == 0 && san.npend == 3);
    n = utf8_sanitize_for_terminal(&san, "", 0, out);
    TEST_COND("an empty piece keeps the pending bytes", n == 0 && san.npend == 3);
    n = utf8_sanitize_for_terminal(&san, "\x80z", 2, out);
    TEST_COND("the last byte completes it", n == 5 && memcmp(out, "\xf0\x9f\x98\x80z", 5) == 0 &&
              san.npend == 0);
    TEST_COND("flush with nothing pending writes nothing", utf8_san_flush(&san, out) == 0);
    n = utf8_sanitize_for_terminal(&san, "ab\xe4", 3, out);
    TEST_COND("a cut character waits", n == 2 && san.npend == 1);
    TEST_COND("flush: it becomes U+FFFD", utf8_san_flush(&san, out) == UTF8_REPL_LEN &&
              memcmp(out, R, UTF8_REPL_LEN) == 0 && san.npend == 0);
    n = utf8_sanitize_for_terminal(&san, "\xe4", 1, out);
    n = utf8_sanitize_for_terminal(&san, "A", 1, out);
    TEST_COND("a cut character followed by ASCII: U+FFFD, then the ASCII",
              n == 4 && memcmp(out, R "A", 4) == 0 && san.npend == 0);
}

int
main(void)
{
    test_cases();
    test_long_sequences();
    test_idempotent();
    test_splits();
    test_random();
    test_handle();
    return TEST_REPORT();
}
