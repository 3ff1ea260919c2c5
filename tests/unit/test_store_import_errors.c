/*
** test_store_import_errors.c -- every error of `sessions import`
** (storage/store_export.c, store_import) names the file first, then where
** in it, then why, and a byte offset counts in the whole file:
**
**   "i.json: turn 3: JSON bad number at byte 227"
**
** A turn is parsed on its own, and its parse errors read "turn 3: i.json:
** JSON bad number at byte 40" -- the file second, the byte counted from the
** turn's start; the document's fields are parsed with the turns array cut
** out, so an error after it gave a byte that many bytes too early.  Every
** other import error already read "i.json: turn 3: ...".
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
      "NaN", "turn 1: JSON bad number at byte %ld" },
    { "Infinity sampling value",
      HEAD T0 ", {\"id\": 2, \"parent\": 1, \"role\": \"assistant\", \"text\": \"b\","
      " \"sampling\": {\"top_p\": -Infinity}}]}",
      "Infinity", "turn 1: JSON bad number at byte %ld" },
    { "a turn's malformed JSON",
      HEAD T0 ", {\"id\": 2, \"role\": \"user\", \"text\": \"b\",}]}",
      "}]}", "turn 1: JSON expected object key at byte %ld" },
    { "a field after the turns",
      HEAD T0 "], \"created_ms\": NaN}",
      "NaN", "JSON bad number at byte %ld" },
    { "an overflowing sampling value",
      HEAD T0 ", {\"id\": 2, \"parent\": 1, \"role\": \"assistant\", \"text\": \"b\","
      " \"sampling\": {\"temperature\": 1e999}}]}",
      NULL, "turn 1: temperature: 'inf' is not a number" },
    { "a parent not before",
      HEAD "{\"id\": 1, \"parent\": 7, \"role\": \"user\", \"text\": \"a\"}]}",
      NULL, "turn 0: parent is not an earlier turn" },
    { "a bad token",
      HEAD T0 ", {\"id\": 2, \"role\": \"user\", \"text\": \"b\", \"tokens\": [1, 2.5]}]}",
      NULL, "turn 1: token 1 is not a token id" },
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
