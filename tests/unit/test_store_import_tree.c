/*
** test_store_import_tree.c -- `sessions import` takes every turn tree the
** chat makes and refuses the others (storage/store_export.c,
** import_tree_check; the refusals' messages are in
** test_store_import_errors.c).
**
** The chat (storage/session_db.c) puts a session's greeting, a system turn,
** at the root; a message under nothing (no greeting, or an edited first
** message), the greeting or a reply; a reply under its message.  A file
** with those shapes -- branches from a regenerated reply and an edited
** message included -- imports and goes through export and import again
** unchanged; one turn out of place (a message under a message deep in a
** long file) refuses the whole file, nothing written.
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../storage/store.h"
#include "store_test.h"

#define HEAD "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"tree\", \"turns\": ["

/* Every shape of the chat: 1 greeting; 2 message, 3 its reply, 4 the reply
** regenerated; 5 the next message (under 4), 6 its reply; 7 the first
** message edited (a second child of the greeting), 8 its reply. */
static const char GREETED[] =
    HEAD "{\"id\": 1, \"parent\": null, \"role\": \"system\", \"text\": \"Hi, I am RWKV.\", \"tokens\": [1]},"
    " {\"id\": 2, \"parent\": 1, \"role\": \"user\", \"text\": \"q1\", \"tokens\": [2]},"
    " {\"id\": 3, \"parent\": 2, \"role\": \"assistant\", \"text\": \"a1\", \"tokens\": [3]},"
    " {\"id\": 4, \"parent\": 2, \"role\": \"assistant\", \"text\": \"a1 again\", \"tokens\": [4],"
    " \"interrupted\": true},"
    " {\"id\": 5, \"parent\": 4, \"role\": \"user\", \"text\": \"q2\", \"tokens\": [5]},"
    " {\"id\": 6, \"parent\": 5, \"role\": \"assistant\", \"text\": \"a2\", \"tokens\": [6]},"
    " {\"id\": 7, \"parent\": 1, \"role\": \"user\", \"text\": \"q1 edited\", \"tokens\": [7]},"
    " {\"id\": 8, \"parent\": 7, \"role\": \"assistant\", \"text\": \"a1'\", \"tokens\": [8]}]}";

/* A session without a greeting: messages at the root (the first one edited:
** two roots), a message left without its reply. */
static const char BARE[] =
    HEAD "{\"id\": 1, \"role\": \"user\", \"text\": \"q1\", \"tokens\": [1]},"
    " {\"id\": 2, \"parent\": 1, \"role\": \"assistant\", \"text\": \"a1\", \"tokens\": [2]},"
    " {\"id\": 3, \"role\": \"user\", \"text\": \"q1 edited\", \"tokens\": [3]},"
    " {\"id\": 4, \"parent\": 2, \"role\": \"user\", \"text\": \"q2, no reply yet\", \"tokens\": [4]}]}";

/* The roles of session SID's turns, parent's role first ("-" for a root),
** in id order: "-s s>u u>a ..." into BUF. */
static void
shape(const char *db, int64_t sid, char *buf, size_t cap)
{
    static const char r[] = "sua";
    sqlite3 *h;
    sqlite3_stmt *st;
    size_t k = 0;

    buf[0] = '\0';
    if (sqlite3_open(db, &h) != SQLITE_OK)
        return;
    if (sqlite3_prepare_v2(h, "SELECT p.role, t.role FROM turns t LEFT JOIN turns p ON p.id=t.parent_id"
                              " WHERE t.session_id=? ORDER BY t.id", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, sid);
        while (sqlite3_step(st) == SQLITE_ROW && k + 5 < cap) {
            int pr = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 0);
            int tr = sqlite3_column_int(st, 1);
            if (k)
                buf[k++] = ' ';
            buf[k++] = pr < 0 ? '-' : r[pr % 3];
            if (pr >= 0)
                buf[k++] = '>';
            buf[k++] = r[tr % 3];
        }
        sqlite3_finalize(st);
    }
    buf[k] = '\0';
    sqlite3_close(h);
}

static void
accepted(store *st, const char *db, const char *name, const char *js, const char *want)
{
    rwkv_err err;
    int64_t id = 0, id2 = 0;
    char got[256], again[256], *buf = NULL;
    size_t len = 0;

    TEST_CONDF(store_import(st, js, strlen(js), "t.json", &id, &err) == RWKV_OK && id > 0, "%s: import: %s",
               name, err.msg);
    shape(db, id, got, sizeof got);
    TEST_CONDF(strcmp(got, want) == 0, "%s: tree '%s' (want '%s')", name, got, want);
    TEST_CONDF(store_export(st, id, STORE_FMT_JSON, &buf, &len, &err) == RWKV_OK &&
                   store_import(st, buf, len, "e.json", &id2, &err) == RWKV_OK,
               "%s: export and import again: %s", name, err.msg);
    shape(db, id2, again, sizeof again);
    TEST_CONDF(strcmp(again, want) == 0, "%s: the tree after a round trip '%s'", name, again);
    free(buf);
}

/* A long file whose one bad turn comes last: refused, nothing written. */
static void
refused_late(store *st, const char *db)
{
    enum { N = 2000 };
    size_t cap = (size_t)N * 100 + 256, len;
    char *js = malloc(cap);
    int64_t sessions = q_int(db, "SELECT count(*) FROM sessions"), turns = q_int(db, "SELECT count(*) FROM turns");
    int64_t id = 0;
    rwkv_err err;

    if (js == NULL) {
        TEST_COND("memory", 0);
        return;
    }
    len = (size_t)snprintf(js, cap, "%s", HEAD);
    for (int i = 1; i <= N; i++) {   /* a chain of messages and replies */
        char parent[16];
        snprintf(parent, sizeof parent, i > 1 ? "%d" : "null", i - 1);
        len += (size_t)snprintf(js + len, cap - len, "%s{\"id\": %d, \"parent\": %s, \"role\": \"%s\","
                                " \"text\": \"t%d\"}", i > 1 ? ", " : "", i, parent,
                                i % 2 ? "user" : "assistant", i);
    }
    /* turn N (index N): a message under message N-1 */
    len += (size_t)snprintf(js + len, cap - len, ", {\"id\": %d, \"parent\": %d, \"role\": \"user\","
                            " \"text\": \"x\"}]}", N + 1, N - 1);
    TEST_CONDF(store_import(st, js, len, "long.json", &id, &err) == RWKV_EFORMAT && id == 0 &&
                   strstr(err.msg, "long.json: turn 2001: a user turn cannot be under a user turn") == err.msg,
               "a bad turn at the end of a long file: %s", err.msg);
    TEST_COND("nothing written", q_int(db, "SELECT count(*) FROM sessions") == sessions &&
                                     q_int(db, "SELECT count(*) FROM turns") == turns);
    free(js);
}

int
main(void)
{
    char db[512];
    store *st = NULL;
    rwkv_err err;

    if (test_tmpdir("rwkv-test-store-import-tree") == NULL)
        return 1;
    test_tmp_path(db, sizeof db, "t.db");
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open: %s", err.msg);
        test_tmpdir_remove();
        return TEST_REPORT();
    }
    accepted(st, db, "greeted", GREETED, "-s s>u u>a u>a a>u u>a s>u u>a");
    accepted(st, db, "no greeting", BARE, "-u u>a -u a>u");
    refused_late(st, db);
    store_close(st);
    test_tmpdir_remove();
    return TEST_REPORT();
}
