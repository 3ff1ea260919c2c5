/*
** test_display_text.c -- one display rule for text, on a real SQLite file:
**   - an imported title comes out exactly as the client makes a title from
**     the same text (store_title_clean: the terminal rule on one line), not
**     through the file rule first (store_text_clean, which left a U+FFFD
**     and the tail of an escape sequence: "a\x1b[31mb" read "a\uFFFD[31mb"
**     where the client shows "ab"); a NUL in it is a control like any other;
**     the length limit is the client's, on the text as given;
**   - a search snippet is the text as the terminal rule shows it (escape
**     sequences gone whole, a tab four spaces), for a turn saved as a chat
**     saves it (the exact text, escape codes included).
** Only the public store API (storage/store.h) is used, so this file builds
** against older code too.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../storage/store.h"
#include "../harness.h"
#include "store_test.h"

/* TEXT as the body of a JSON string: '"', '\\' and every byte below 0x20
** escaped (so "\u0000" carries a NUL); LEN bytes. */
static void
json_body(char *out, size_t cap, const char *text, size_t len)
{
    size_t k = 0;

    for (size_t i = 0; i < len && k + 8 < cap; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\')
            k += (size_t)snprintf(out + k, cap - k, "\\%c", c);
        else if (c < 0x20)
            k += (size_t)snprintf(out + k, cap - k, "\\u%04x", c);
        else
            out[k++] = (char)c;
    }
    out[k] = '\0';
}

/* Import a one-turn session titled TITLE (LEN bytes) into ST: its id, or 0
** (the error in *ERR). */
static int64_t
import_titled(store *st, const char *title, size_t len, rwkv_err *err)
{
    char body[2048], doc[4096];
    int64_t id = 0;

    json_body(body, sizeof body, title, len);
    snprintf(doc, sizeof doc,
             "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"%s\","
             " \"created_ms\": 1700000000000, \"strategy\": \"cpu fp32\", \"model\": null,"
             " \"turns\": [{\"id\": 1, \"parent\": null, \"role\": \"user\", \"text\": \"hi\","
             " \"tokens\": [1]}]}", body);
    if (store_import(st, doc, strlen(doc), "t.json", &id, err) != RWKV_OK)
        return 0;
    return id;
}

/* The title of session ID in ST into OUT (STORE_TITLE_MAX bytes); "" and
** 0 when it cannot be read. */
static int
title_of(store *st, int64_t id, char *out)
{
    store_session ss;
    rwkv_err err;

    out[0] = '\0';
    if (id <= 0 || store_session_get(st, id, &ss, &err) != RWKV_OK)
        return 0;
    memcpy(out, ss.title, STORE_TITLE_MAX);
    return 1;
}

int
main(void)
{
    char path[512], got[STORE_TITLE_MAX], want[STORE_TITLE_MAX];
    store *st = NULL;
    rwkv_err err;

    if (test_tmpdir("rwkv-display") == NULL)
        return 1;
    test_tmp_path(path, sizeof path, "d.db");
    if (store_open(path, &st, &err) != RWKV_OK) {
        TEST_COND("open", 0);
        return TEST_REPORT();
    }

    /* --- an imported title is the client's title of the same text ------------ */
    {
        static const char *const titles[] = {
            "a\x1b[31mb",                              /* CSI: gone whole */
            "x\x1b]0;pwned\x07y",                      /* OSC to BEL */
            "8bit \xc2\x9b" "31mcsi",                  /* C1 CSI, as UTF-8 */
            "cr\rhere",                                /* CR: a line break, a space */
            "tab\there\nand a line",                   /* one space each */
            "bidi \xe2\x80\xae" "evil",                /* RLO dropped */
            "del\x7f and bel\x07",
            "plain title, \xe5\xbe\x88\xe5\xa4\x9a",   /* unchanged */
        };
        for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++) {
            int64_t id = import_titled(st, titles[i], strlen(titles[i]), &err);
            store_title_clean(titles[i], want, sizeof want);
            TEST_CONDF(title_of(st, id, got) && strcmp(got, want) == 0,
                       "imported title %zu is the client's: '%s' (the client: '%s')", i, got, want);
        }
    }
    {
        int64_t id = import_titled(st, "a\x1b[31mb", 7, &err);
        TEST_CONDF(title_of(st, id, got) && strcmp(got, "ab") == 0, "import: 'a ESC[31m b' is 'ab': '%s'", got);
    }
    {
        /* a NUL is a control like any other: dropped, the rest kept */
        static const char nul[] = "nul\0\x1b]0;pwned\x07 end";
        int64_t id = import_titled(st, nul, sizeof nul - 1, &err);
        TEST_CONDF(title_of(st, id, got) && strcmp(got, "nul end") == 0,
                   "import: a NUL and an OSC in a title: '%s'", got);
    }
    {
        /* the limit is the client's (store_session_new, rename): on the text
        ** as given, 255 bytes; 60 SGR sequences and a word are 244 bytes,
        ** a title of one word */
        char t[400];
        size_t k = 0;
        int64_t id;
        for (int i = 0; i < 60; i++) {
            memcpy(t + k, "\x1b[1m", 4);
            k += 4;
        }
        memcpy(t + k, "Word", 4);
        k += 4;
        id = import_titled(st, t, k, &err);
        TEST_CONDF(title_of(st, id, got) && strcmp(got, "Word") == 0,
                   "import: 244 bytes of escapes and a word: '%s' (%s)", got, id ? "" : err.msg);
        memset(t, 'x', 255);
        TEST_COND("import: a 255-byte title is taken", import_titled(st, t, 255, &err) > 0);
        memset(t, 'x', 256);
        TEST_COND("import: a 256-byte title is refused", import_titled(st, t, 256, &err) == 0 &&
                                                               strstr(err.msg, "at most 255 bytes") != NULL);
    }

    /* --- a search snippet is the text as the terminal shows it --------------- */
    {
        int64_t sid = new_session(st, "Snippets");
        int32_t ids[1] = { 1 };
        store_hit *h = NULL;
        size_t n = 0;
        int64_t tid = add_turn(st, sid, 0, STORE_ROLE_ASSISTANT,
                               "plain \x1b[31mred\x1b[0m pangolin \x07" "bell\ttab", ids, 1, NULL, 0,
                               NULL, NULL);
        TEST_COND("a turn with escape codes saved as a chat saves it", tid > 0);
        TEST_COND("search", store_search(st, "pangolin", 10, &h, &n, &err) == RWKV_OK && n == 1);
        if (n == 1) {
            TEST_CONDF(strcmp(h[0].snippet, "plain red [pangolin] bell    tab") == 0,
                       "snippet by the display rule: '%s'", h[0].snippet);
            TEST_COND("snippet: no U+FFFD for a control", strstr(h[0].snippet, "\xef\xbf\xbd") == NULL);
        }
        free(h);
    }

    store_close(st);
    return TEST_REPORT();
}
