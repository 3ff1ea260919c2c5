/*
** test_store_damaged_pages.c -- a table page damaged on disk reads as the
** damaged-database error, never as blank data (storage/store_row.c).
**
** A leaf page whose cell pointers are overwritten (200 bytes at offset 8 of
** the table's root page, as a bad disk write would) reads without an SQLite
** error: its cells come back as rows of id 0 with every column NULL, and the
** rows it held are not found.  `sessions list` printed three sessions
** "0  1970-01-01 00:00  0" with empty titles and succeeded, and an export
** whose models page was damaged said "no model 1".  Now:
**   - the sessions page: list, get, latest and export fail with
**     "PATH: the session database is corrupt (table sessions: a row with id 0)";
**   - the models page: model get and list and both exports fail the same way
**     ("table models: ...") instead of "no model 1" or a silent omission;
**   - a NULL in a NOT NULL column (sessions.created_ms, turns.text) names the
**     table, row and column;
**   - a row that is simply missing from a healthy table is still "no ...";
**   - the failed reads change nothing in the file.
** Real SQLite files in a temp dir; the damage is done to the file's bytes.
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../storage/store.h"
#include "store_test.h"

#define CORRUPT ": the session database is corrupt ("

/* The test's database NAME: a model and three sessions made with it, each
** with a message and its reply; the store closed (the WAL merged into the
** file).  *MODEL (OUT): the model's id.  0 on failure (checks failed). */
static int
make_db(char *db, size_t cap, const char *name, int64_t *model)
{
    store *st = NULL;
    store_model m;
    rwkv_err err;
    static const int32_t ids[] = { 1, 2, 3 };

    test_tmp_path(db, cap, name);
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open %s: %s", name, err.msg);
        return 0;
    }
    memset(&m, 0, sizeof m);
    snprintf(m.path, sizeof m.path, "/models/x.pth");
    snprintf(m.version, sizeof m.version, "7.0");
    m.fingerprint = 0xdeadbeefull;
    m.n_layer = 2;
    m.n_embd = 64;
    TEST_CONDF(store_model_upsert(st, &m, model, &err) == RWKV_OK, "model: %s", err.msg);
    for (int i = 1; i <= 3; i++) {
        store_session ss;
        int64_t sid = 0, u;
        memset(&ss, 0, sizeof ss);
        snprintf(ss.title, sizeof ss.title, "chat %d", i);
        snprintf(ss.strategy, sizeof ss.strategy, "cpu fp32");
        ss.model_id = *model;
        TEST_CONDF(store_session_new(st, &ss, &sid, &err) == RWKV_OK, "session %d: %s", i, err.msg);
        u = add_turn(st, sid, 0, STORE_ROLE_USER, "hello", ids, 3, NULL, 0, NULL, NULL);
        TEST_CONDF(u > 0 && add_turn(st, sid, u, STORE_ROLE_ASSISTANT, "hi", ids, 2, NULL, 0, NULL, NULL) > 0,
                   "turns of session %d", i);
    }
    store_close(st);
    TEST_CONDF(q_integrity_ok(db), "%s is whole before the damage", name);
    return 1;
}

/* 200 bytes of zeros at offset 8 of TABLE's root page of DB: the cell
** pointer array of a leaf page. */
static int
smash_root(const char *db, const char *table)
{
    char sql[128], zero[200];
    int64_t root, psz;
    FILE *f;
    int ok;

    snprintf(sql, sizeof sql, "SELECT rootpage FROM sqlite_master WHERE name='%s'", table);
    root = q_int(db, sql);
    psz = q_int(db, "PRAGMA page_size");
    if (root <= 0 || psz <= 0 || (f = fopen(db, "r+b")) == NULL)
        return 0;
    memset(zero, 0, sizeof zero);
    ok = fseek(f, (long)((root - 1) * psz + 8), SEEK_SET) == 0 && fwrite(zero, 1, sizeof zero, f) == sizeof zero;
    return fclose(f) == 0 && ok;
}

/* The way on every damaged-database line ends with (store_corrupt). */
#define WAY_ON "): export each session that still reads ('rwkv-tui sessions --db "

/* ERR is the damaged-database error of DB (RWKV_ECORRUPT), WHY inside the
** parentheses, the way on after them. */
static int
is_corrupt(const rwkv_err *err, const char *db, const char *why)
{
    char want[1024];

    snprintf(want, sizeof want, "%s" CORRUPT "%s" WAY_ON "%s export ID", db, why, db);
    return err->code == RWKV_ECORRUPT && strncmp(err->msg, want, strlen(want)) == 0 &&
           strstr(err->msg, "go on with --db NEW.db") != NULL;
}

/* The same for a damaged page: WHY with the SQLite of this writing (the
** page's cells read as a row of id 0), or SQLite's own "malformed" where a
** version finds the page damaged itself (store_dberr says it the same way). */
static int
is_damaged_page(const rwkv_err *err, const char *db, const char *why)
{
    char pre[1024];

    snprintf(pre, sizeof pre, "%s" CORRUPT, db);
    return is_corrupt(err, db, why) || (err->code == RWKV_ECORRUPT && strncmp(err->msg, pre, strlen(pre)) == 0 &&
                                        strstr(err->msg, "malformed") != NULL);
}

static void
test_sessions_page(void)
{
    char db[512];
    store *st = NULL;
    rwkv_err err;
    store_session *v = NULL, one;
    size_t n = 99, before_n = 0, after_n = 0;
    int64_t model = 0, latest = 0;
    unsigned char *before, *after;
    char *buf = NULL;
    size_t len = 0;
    const char *why = "table sessions: a row with id 0";

    if (!make_db(db, sizeof db, "sessions-page.db", &model))
        return;
    TEST_COND("damage the sessions page", smash_root(db, "sessions"));
    before = test_slurp(db, &before_n);
    TEST_CONDF(store_open(db, &st, &err) == RWKV_OK, "open still works: %s", err.msg);
    if (st == NULL) {
        free(before);
        return;
    }
    memset(&err, 0, sizeof err);
    TEST_CONDF(store_session_list(st, &v, &n, &err) == RWKV_ECORRUPT && v == NULL && n == 0 &&
                   is_damaged_page(&err, db, why),
               "list: '%s' (%zu rows)", err.msg, n);
    free(v);
    memset(&err, 0, sizeof err);
    TEST_CONDF(store_session_get(st, 2, &one, &err) == RWKV_ECORRUPT && is_damaged_page(&err, db, why),
               "get 2 (lost in the page): '%s'", err.msg);
    memset(&err, 0, sizeof err);
    TEST_CONDF(store_session_latest(st, &latest, &err) == RWKV_ECORRUPT && is_damaged_page(&err, db, why),
               "latest: '%s'", err.msg);
    memset(&err, 0, sizeof err);
    TEST_CONDF(store_export(st, 2, STORE_FMT_JSON, &buf, &len, &err) == RWKV_ECORRUPT && buf == NULL &&
                   is_damaged_page(&err, db, why),
               "export: '%s'", err.msg);
    free(buf);
    store_close(st);
    after = test_slurp(db, &after_n);
    TEST_COND("the failed reads changed nothing in the file",
              before && after && before_n == after_n && memcmp(before, after, before_n) == 0);
    free(before);
    free(after);
}

static void
test_models_page(void)
{
    char db[512];
    store *st = NULL;
    rwkv_err err;
    store_session *v = NULL;
    store_model m, *mv = NULL;
    size_t n = 0;
    int64_t model = 0;
    char *buf = NULL;
    size_t len = 0;
    const char *why = "table models: a row with id 0";

    if (!make_db(db, sizeof db, "models-page.db", &model))
        return;
    TEST_COND("damage the models page", smash_root(db, "models"));
    TEST_CONDF(store_open(db, &st, &err) == RWKV_OK, "open: %s", err.msg);
    if (st == NULL)
        return;
    TEST_CONDF(store_session_list(st, &v, &n, &err) == RWKV_OK && n == 3 && v[0].model_id == model,
               "the sessions page is whole: %s", err.msg);
    free(v);
    memset(&err, 0, sizeof err);
    TEST_CONDF(store_model_get(st, model, &m, &err) == RWKV_ECORRUPT && is_damaged_page(&err, db, why),
               "model get: '%s' (was \"no model %lld\")", err.msg, (long long)model);
    memset(&err, 0, sizeof err);
    TEST_CONDF(store_model_list(st, &mv, &n, &err) == RWKV_ECORRUPT && mv == NULL && is_damaged_page(&err, db, why),
               "model list: '%s'", err.msg);
    free(mv);
    memset(&err, 0, sizeof err);
    TEST_CONDF(store_export(st, 2, STORE_FMT_JSON, &buf, &len, &err) == RWKV_ECORRUPT && buf == NULL &&
                   is_damaged_page(&err, db, why),
               "export json: '%s'", err.msg);
    free(buf);
    buf = NULL;
    memset(&err, 0, sizeof err);
    TEST_CONDF(store_export(st, 2, STORE_FMT_MD, &buf, &len, &err) == RWKV_ECORRUPT && buf == NULL &&
                   is_damaged_page(&err, db, why),
               "export md (the model line was left out in silence): '%s'", err.msg);
    free(buf);
    store_close(st);
}

/* A NULL where the schema says NOT NULL: the constraint is taken off the
** table's text for one connection (as another program's schema might), the
** NULL written, the text put back. */
static int
null_in(const char *db, const char *table, const char *decl, const char *bare, const char *update)
{
    char sql[512];

    snprintf(sql, sizeof sql, "PRAGMA writable_schema=ON;"
                              " UPDATE sqlite_master SET sql=replace(sql, '%s', '%s') WHERE name='%s';",
             decl, bare, table);
    if (q_exec(db, sql) != 0 || q_exec(db, update) != 0)
        return 0;
    snprintf(sql, sizeof sql, "PRAGMA writable_schema=ON;"
                              " UPDATE sqlite_master SET sql=replace(sql, '%s', '%s') WHERE name='%s';",
             bare, decl, table);
    return q_exec(db, sql) == 0;
}

static void
test_null_columns(void)
{
    char db[512];
    store *st = NULL;
    rwkv_err err;
    store_session *v = NULL, one;
    store_turn t;
    size_t n = 0;
    int64_t model = 0, turn;

    if (!make_db(db, sizeof db, "nulls.db", &model))
        return;
    turn = q_int(db, "SELECT min(id) FROM turns WHERE session_id=3");
    TEST_COND("a NULL created time in session 2",
              null_in(db, "sessions", "created_ms INTEGER NOT NULL,", "created_ms INTEGER,",
                      "UPDATE sessions SET created_ms=NULL WHERE id=2"));
    {
        char sql[128];
        snprintf(sql, sizeof sql, "UPDATE turns SET text=NULL WHERE id=%lld", (long long)turn);
        TEST_COND("a NULL text in a turn of session 3",
                  null_in(db, "turns", "text TEXT NOT NULL,", "text TEXT,", sql));
    }
    TEST_CONDF(store_open(db, &st, &err) == RWKV_OK, "open: %s", err.msg);
    if (st == NULL)
        return;
    memset(&err, 0, sizeof err);
    TEST_CONDF(store_session_list(st, &v, &n, &err) == RWKV_ECORRUPT && v == NULL &&
                   is_corrupt(&err, db, "table sessions, row 2: created_ms is NULL"),
               "list: '%s'", err.msg);
    free(v);
    memset(&err, 0, sizeof err);
    TEST_CONDF(store_session_get(st, 2, &one, &err) == RWKV_ECORRUPT &&
                   is_corrupt(&err, db, "table sessions, row 2: created_ms is NULL"),
               "get 2: '%s'", err.msg);
    TEST_CONDF(store_session_get(st, 1, &one, &err) == RWKV_OK && strcmp(one.title, "chat 1") == 0,
               "get 1, a whole row: %s", err.msg);
    {
        char why[128];
        snprintf(why, sizeof why, "table turns, row %lld: text is NULL", (long long)turn);
        memset(&err, 0, sizeof err);
        TEST_CONDF(store_turn_get(st, turn, &t, &err) == RWKV_ECORRUPT && is_corrupt(&err, db, why),
                   "turn get: '%s'", err.msg);
    }
    store_close(st);
}

/* A healthy file: a missing row is still "no such row", not damage. */
static void
test_missing_rows(void)
{
    char db[512];
    store *st = NULL;
    rwkv_err err;
    store_session one;
    store_model m;
    int64_t model = 0;
    char want[600];

    if (!make_db(db, sizeof db, "whole.db", &model))
        return;
    TEST_CONDF(store_open(db, &st, &err) == RWKV_OK, "open: %s", err.msg);
    if (st == NULL)
        return;
    snprintf(want, sizeof want, "%s: no session 99", db);
    TEST_CONDF(store_session_get(st, 99, &one, &err) == RWKV_EINVAL && strcmp(err.msg, want) == 0,
               "no session: '%s'", err.msg);
    snprintf(want, sizeof want, "%s: no model 99", db);
    TEST_CONDF(store_model_get(st, 99, &m, &err) == RWKV_EINVAL && strcmp(err.msg, want) == 0,
               "no model: '%s'", err.msg);
    TEST_CONDF(store_model_get(st, model, &m, &err) == RWKV_OK && strcmp(m.path, "/models/x.pth") == 0,
               "the model: %s", err.msg);
    store_close(st);
}

int
main(void)
{
    if (test_tmpdir("rwkv-test-store-damaged-pages") == NULL)
        return 1;
    test_sessions_page();
    test_models_page();
    test_null_columns();
    test_missing_rows();
    test_tmpdir_remove();
    return TEST_REPORT();
}
