/*
** test_json_escape.c -- the one JSON string writer (core/io/json.c
** json_write_string: exports, the framing column, the framing object of
** `sessions list --json`) escapes what moves a terminal, as cli/'s
** cli_json_text does:
**
**   - the C1 controls U+0080..U+009F (bytes 0xC2 0x80..0x9F; 8-bit CSI and
**     OSC act on a terminal in 8-bit mode) are \u0080..\u009f -- they were
**     written raw;
**   - U+2028/U+2029 and the bidi controls and invisible format characters
**     the display rule drops (U+202E ...) are \uXXXX;
**   - for every code point U+0000..U+10FFFF (surrogates aside), the writer
**     escapes exactly the set core/text/utf8.c utf8_san_drops names, plus
**     U+2028/U+2029 and the five two-character escapes; json.c keeps its own
**     copy of that list (core/io sits below core/text), so this checks the
**     two agree;
**   - what it writes parses back to the input.
*/
#include "../harness.h"

#include <stdint.h>

#include "../../core/io/json.h"
#include "../../core/text/utf8.h"

/* CP as UTF-8 into B (4 bytes): its length. */
static size_t
enc(uint32_t cp, char *b)
{
    if (cp < 0x80) {
        b[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        b[0] = (char)(0xc0 | cp >> 6);
        b[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        b[0] = (char)(0xe0 | cp >> 12);
        b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        b[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    b[0] = (char)(0xf0 | cp >> 18);
    b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    b[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* S (LEN bytes) written, into B. */
static const char *
written(test_text *b, const char *s, size_t len)
{
    b->len = 0;
    b->buf[0] = '\0';
    json_write_string(s, len, test_text_put, b);
    return b->buf;
}

static void
c1_and_separators(void)
{
    static const char in[] = "csi \xc2\x9b" "31m osc \xc2\x9d" "0;t\xc2\x9c end \xc2\x80\xc2\x9f"
                             " ls \xe2\x80\xa8 ps \xe2\x80\xa9 rlo \xe2\x80\xae bom \xef\xbb\xbf"
                             " kept \xc2\xa0\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80";
    test_text b;
    char doc[sizeof b.buf + 2];
    json_doc *d = NULL;
    rwkv_err err;

    written(&b, in, sizeof in - 1);
    TEST_CONDF(strcmp(b.buf, "\"csi \\u009b31m osc \\u009d0;t\\u009c end \\u0080\\u009f"
                             " ls \\u2028 ps \\u2029 rlo \\u202e bom \\ufeff"
                             " kept \xc2\xa0\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\"") == 0,
               "C1, U+2028/9, bidi escaped, the rest kept: %s", b.buf);
    TEST_COND("no raw C1 byte pair", strstr(b.buf, "\xc2\x9b") == NULL &&
                                         strstr(b.buf, "\xc2\x9d") == NULL);
    snprintf(doc, sizeof doc, "[%s]", b.buf);
    TEST_COND("round trip", json_parse(doc, strlen(doc), "t", &d, &err) == RWKV_OK &&
                                json_at(json_root(d), 0)->len == sizeof in - 1 &&
                                memcmp(json_at(json_root(d), 0)->str, in, sizeof in - 1) == 0);
    json_free(d);
    /* a C1 pair cut by the end, or after a stray lead byte, is no character */
    TEST_CONDF(strcmp(written(&b, "a\xc2", 2), "\"a\xc2\"") == 0, "a cut lead byte kept: %s",
               b.buf);
    TEST_CONDF(strcmp(written(&b, "\xe2\xc2\x9b", 3), "\"\xe2\\u009b\"") == 0,
               "a C1 after a stray lead byte escaped: %s", b.buf);
}

/* Every code point: escaped exactly when the display rule drops it (or it
** is U+2028/U+2029, or has a two-character escape). */
static void
agrees_with_display_rule(void)
{
    test_text b;
    char in[4], want[16];
    uint32_t bad = 0, nbad = 0;

    for (uint32_t cp = 0; cp <= 0x10ffff; cp++) {
        size_t n;
        const char *two = cp == '"' ? "\\\"" : cp == '\\' ? "\\\\" : cp == '\n' ? "\\n"
                        : cp == '\r' ? "\\r" : cp == '\t' ? "\\t" : NULL;

        if (cp >= 0xd800 && cp <= 0xdfff)
            continue;
        n = enc(cp, in);
        written(&b, in, n);
        if (two != NULL)
            snprintf(want, sizeof want, "\"%s\"", two);
        else if (utf8_san_drops(cp) || cp == 0x2028 || cp == 0x2029)
            snprintf(want, sizeof want, "\"\\u%04x\"", (unsigned)cp);
        else
            snprintf(want, sizeof want, "\"%.*s\"", (int)n, in);
        if (strcmp(b.buf, want) != 0) {
            if (nbad++ == 0)
                bad = cp;
        }
    }
    TEST_CONDF(nbad == 0, "escaped as the display rule drops: %u code points differ, first "
                          "U+%04X", (unsigned)nbad, (unsigned)bad);
}

int
main(void)
{
    c1_and_separators();
    agrees_with_display_rule();
    return TEST_REPORT();
}
