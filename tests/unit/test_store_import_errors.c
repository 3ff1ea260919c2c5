/*
** test_store_import_errors.c -- every error of `sessions import`
** (storage/store_export.c, store_import) names the file first, then where
** in it, then why, and a byte offset counts in the whole file:
**
**   "i.json: \"turns\"[3]: JSON bad number at byte 227"
**
** A turn is parsed on its own, and its parse errors read "turn 3: i.json:
** JSON bad number at byte 40" -- the file second, the byte counted from the
** turn's start; the document's fields are parsed with the turns array cut
** out, so an error after it gave a byte that many bytes too early.  Every
** other import error reads "i.json: turn 7: ...", the turn named by its
** "id" in the file (it was its position: a turn of id 105 was "turn 6");
** one that cannot be parsed, or has no integer id, by its place in the
** array, "turns"[5].
**
** Also in that form: a file that is not JSON at all ("not a rwkv-tui
** session export (a JSON export starts with '{', this file with 'H')"; it
** said "JSON bad number at byte 0"), and a turn tree the chat never makes
** (a greeting under a turn, a message under a message, a reply that is not
** under a message), which was imported whole.
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>

#include "../../storage/store.h"
#include "store_test.h"

#define HEAD "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"x\", \"turns\": ["
#define T0 "{\"id\": 1, \"role\": \"user\", \"text\": \"a\"}"

/* Bad input, the expected message: "t.json: " WANT, where a "%ld" in WANT is
** the offset in JSON of AT (NULL: none). */
static const struct {
    const char *name, *json, *at, *want;
} bad[] = {
    { "NaN sampling value",
      HEAD T0 ", {\"id\": 2, \"parent\": 1, \"role\": \"assistant\", \"text\": \"b\","
      " \"sampling\": {\"temperature\": NaN}}]}",
      "NaN", "\"turns\"[1]: JSON bad number at byte %ld" },
    { "Infinity sampling value",
      HEAD T0 ", {\"id\": 2, \"parent\": 1, \"role\": \"assistant\", \"text\": \"b\","
      " \"sampling\": {\"top_p\": -Infinity}}]}",
      "Infinity", "\"turns\"[1]: JSON bad number at byte %ld" },
    { "a turn's malformed JSON",
      HEAD T0 ", {\"id\": 2, \"role\": \"user\", \"text\": \"b\",}]}",
      "}]}", "\"turns\"[1]: JSON expected object key at byte %ld" },
    { "a field after the turns",
      HEAD T0 "], \"created_ms\": NaN}",
      "NaN", "JSON bad number at byte %ld" },
    { "an overflowing sampling value",
      HEAD T0 ", {\"id\": 2, \"parent\": 1, \"role\": \"assistant\", \"text\": \"b\","
      " \"sampling\": {\"temperature\": 1e999}}]}",
      NULL, "turn 2: temperature: 'inf' is not a number" },
    { "a parent not before",
      HEAD "{\"id\": 1, \"parent\": 7, \"role\": \"user\", \"text\": \"a\"}]}",
      NULL, "turn 1: parent is not an earlier turn" },
    { "a bad token",
      HEAD T0 ", {\"id\": 2, \"role\": \"user\", \"text\": \"b\", \"tokens\": [1, 2.5]}]}",
      NULL, "turn 2: token 1 is not a token id" },
    /* a file that is not JSON at all is named so, not "JSON bad number at
    ** byte 0" (store_import, import_sniff) */
    { "a plain text file", "Hello, this is not an export.\n",
      NULL, "not a rwkv-tui session export (a JSON export starts with '{', this file with 'H')" },
    { "a binary file", "\x89PNG\r\n",
      NULL, "not a rwkv-tui session export (a JSON export starts with '{', this file with byte 0x89)" },
    { "an empty file", "", NULL, "not a rwkv-tui session export (the file is empty)" },
    { "a blank file", " \n\n", NULL, "not a rwkv-tui session export (the file is blank)" },
    /* a tree the chat never makes (store_export.c, import_tree_check): the
    ** client showed a second "Start:" in the middle of a branch */
    { "a greeting under a greeting",
      HEAD "{\"id\": 1, \"role\": \"system\", \"text\": \"g\"},"
      " {\"id\": 2, \"parent\": 1, \"role\": \"system\", \"text\": \"g2\"}]}",
      NULL, "turn 2: a system turn cannot be under a system turn (\"parent\": 1): the greeting (system) is"
            " a first turn only" },
    { "two greetings",
      HEAD "{\"id\": 1, \"role\": \"system\", \"text\": \"g\"},"
      " {\"id\": 2, \"parent\": 1, \"role\": \"user\", \"text\": \"a\"},"
      " {\"id\": 5, \"role\": \"system\", \"text\": \"g2\"}]}",
      NULL, "turn 5: a second greeting (system) turn; the session's greeting is turn 1" },
    { "a greeting under a reply",
      HEAD T0 ", {\"id\": 2, \"parent\": 1, \"role\": \"assistant\", \"text\": \"b\"},"
      " {\"id\": 3, \"parent\": 2, \"role\": \"system\", \"text\": \"g\"}]}",
      NULL, "turn 3: a system turn cannot be under an assistant turn (\"parent\": 2): the greeting"
            " (system) is a first turn only" },
    { "a message under a message",
      HEAD T0 ", {\"id\": 7, \"parent\": 1, \"role\": \"user\", \"text\": \"b\"}]}",
      NULL, "turn 7: a user turn cannot be under a user turn (\"parent\": 1): a message goes first, or"
            " under the greeting or a reply" },
    { "a reply as a first turn",
      HEAD "{\"id\": 1, \"role\": \"assistant\", \"text\": \"b\"}]}",
      NULL, "turn 1: an assistant turn cannot be a first turn: a reply goes under its message (a user"
            " turn)" },
    { "a reply under the greeting",
      HEAD "{\"id\": 1, \"role\": \"system\", \"text\": \"g\"},"
      " {\"id\": 2, \"parent\": 1, \"role\": \"assistant\", \"text\": \"b\"}]}",
      NULL, "turn 2: an assistant turn cannot be under a system turn (\"parent\": 1): a reply goes under"
            " its message (a user turn)" },
    { "a reply under a reply",
      HEAD T0 ", {\"id\": 2, \"parent\": 1, \"role\": \"assistant\", \"text\": \"b\"},"
      " {\"id\": 3, \"parent\": 2, \"role\": \"assistant\", \"text\": \"c\"}]}",
      NULL, "turn 3: an assistant turn cannot be under an assistant turn (\"parent\": 2): a reply goes"
            " under its message (a user turn)" },
};

int
main(void)
{
    char db[512];
    store *st = NULL;
    rwkv_err err;
    int64_t sessions, turns;

    if (test_tmpdir("rwkv-test-store-import-errors") == NULL)
        return 1;
    test_tmp_path(db, sizeof db, "i.db");
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open: %s", err.msg);
        test_tmpdir_remove();
        return TEST_REPORT();
    }
    sessions = q_int(db, "SELECT count(*) FROM sessions");
    turns = q_int(db, "SELECT count(*) FROM turns");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[512], tail[256];
        const char *at = bad[i].at ? strstr(bad[i].json, bad[i].at) : NULL;
        int64_t id = 0;
        int rc;

        /* the format is one of the fixed strings above */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
        snprintf(tail, sizeof tail, bad[i].want, at ? (long)(at - bad[i].json) : 0L);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
        snprintf(want, sizeof want, "t.json: %s", tail);
        rc = store_import(st, bad[i].json, strlen(bad[i].json), "t.json", &id, &err);
        TEST_CONDF(rc == RWKV_EFORMAT && id == 0 && strcmp(err.msg, want) == 0,
                   "%s: rc %d '%s' (want '%s')", bad[i].name, rc, err.msg, want);
    }
    TEST_COND("nothing written", q_int(db, "SELECT count(*) FROM sessions") == sessions &&
                                     q_int(db, "SELECT count(*) FROM turns") == turns);
    store_close(st);
    test_tmpdir_remove();
    return TEST_REPORT();
}
