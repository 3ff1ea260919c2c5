/*
** store_test.h -- shared by the session-store tests (test_store.c,
** test_store_damage.c, test_store_crash.c): direct SQL on a database file
** through a connection of its own (foreign keys off), as a checker or a
** tamperer would have it beside the store under test, a file's size, a new
** session and a new turn.
** Include after tests/harness.h and storage/store.h.
*/
#ifndef RWKV_TEST_STORE_TEST_H
#define RWKV_TEST_STORE_TEST_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

/* SQL taking schema v8's additions (shared states) out of a current file,
** the shared states put back inline first: with user_version=7 it is a
** file of schema v7. */
#define DROP_V8                                                                          \
    "UPDATE snapshots SET blob=(SELECT b.blob FROM state_blobs b WHERE b.id=snapshots.blob_id)" \
    " WHERE blob_id IS NOT NULL; DROP TRIGGER snapshots_blob_ad; DROP TRIGGER snapshots_blob_au;" \
    " DROP INDEX snapshots_blob; ALTER TABLE snapshots DROP COLUMN blob_id; DROP TABLE state_blobs;"
/* SQL taking schema v7's addition (settings) and v8's out of a current
** file: with user_version=6 it is a file of schema v6. */
#define DROP_V7 DROP_V8 "DROP TABLE settings;"
/* The same for v6's additions (id_seq and its triggers) and v7's: with
** user_version=5 it is a file of schema v5. */
#define DROP_V6 DROP_V7 "DROP TRIGGER sessions_seq; DROP TRIGGER turns_seq; DROP TABLE id_seq;"

/* The first column of the first row of SQL on DB; -1 when there is none
** or DB cannot be opened. */
static inline int64_t
q_int(const char *db, const char *sql)
{
    sqlite3 *h;
    sqlite3_stmt *st;
    int64_t v = -1;

    if (sqlite3_open(db, &h) != SQLITE_OK)
        return -1;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return v;
}

/* Run SQL on DB (waiting up to 5 s for a lock): SQLITE_OK (0), else the
** SQLite code with the error printed, or -1 when DB cannot be opened. */
static inline int
q_exec(const char *db, const char *sql)
{
    sqlite3 *h;
    char *msg = NULL;
    int rc;

    if (sqlite3_open(db, &h) != SQLITE_OK)
        return -1;
    sqlite3_busy_timeout(h, 5000);
    rc = sqlite3_exec(h, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        printf("  sql error: %s (%s)\n", msg ? msg : "?", sql);
    sqlite3_free(msg);
    sqlite3_close(h);
    return rc;
}

/* PRAGMA integrity_check on DB says "ok". */
static inline int
q_integrity_ok(const char *db)
{
    return q_int(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check='ok'") == 1;
}

/* Rows of message TEXT (a user turn) in DB. */
static inline int64_t
n_msg(const char *db, const char *text)
{
    char sql[256];

    snprintf(sql, sizeof sql, "SELECT count(*) FROM turns WHERE role=1 AND text='%s'", text);
    return q_int(db, sql);
}

/* Messages in DB with a reply right under them (one count per pair). */
static inline int64_t
n_replied(const char *db)
{
    return q_int(db, "SELECT count(*) FROM turns u JOIN turns r ON r.parent_id=u.id "
                     "WHERE u.role=1 AND r.role=2");
}

/* The size of file P in bytes, -1 when there is none. */
static inline long
file_size(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 ? (long)sb.st_size : -1;
}

/* A new session titled TITLE (strategy "cpu fp32") in ST: its id, or 0
** with the error printed. */
static inline int64_t
new_session(store *st, const char *title)
{
    store_session s;
    int64_t id = 0;
    rwkv_err err;

    memset(&s, 0, sizeof s);
    snprintf(s.title, sizeof s.title, "%s", title);
    snprintf(s.strategy, sizeof s.strategy, "cpu fp32");
    if (store_session_new(st, &s, &id, &err) != RWKV_OK)
        printf("session_new: %s\n", err.msg);
    return id;
}

/* A turn of ROLE with TEXT and the ids IDS[NT] under PARENT (0 = a root)
** in session SID, with the state STATE[N] tagged META (NULL = none): its
** id, or 0 with the error in *ERR (ERR NULL: printed). */
static inline int64_t
add_turn(store *st, int64_t sid, int64_t parent, int role, const char *text, const int32_t *ids,
         size_t nt, const float *state, size_t n, const store_state_meta *meta, rwkv_err *err)
{
    store_turn t;
    rwkv_err e;

    memset(&t, 0, sizeof t);
    t.session_id = sid;
    t.parent_id = parent;
    t.role = role;
    t.text = text;
    t.tokens = ids;
    t.n_tokens = nt;
    if (store_turn_append(st, &t, state, n, meta, err ? err : &e) != RWKV_OK) {
        if (err == NULL)
            printf("append failed: %s\n", e.msg);
        return 0;
    }
    return t.id;
}

/* A connection to DB holding its write lock (BEGIN IMMEDIATE), or NULL. */
static inline sqlite3 *
lock_take(const char *db)
{
    sqlite3 *h = NULL;

    if (sqlite3_open(db, &h) != SQLITE_OK ||
        sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        printf("     cannot take the lock of %s: %s\n", db, h ? sqlite3_errmsg(h) : "?");
        sqlite3_close(h);
        return NULL;
    }
    return h;
}

static inline void
lock_release(sqlite3 *h)
{
    sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(h);
}

/* N deterministic floats for turn I into V (a state where any will do). */
static inline void
test_fake_state(float *v, size_t n, int i)
{
    uint32_t x = 88172645u + (uint32_t)i * 2654435761u;

    for (size_t k = 0; k < n; k++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        v[k] = (float)x * 1e-9f;
    }
}

/* The journal mode of DB, as a new connection of this process sees it, is
** MODE. */
static inline int
journal_is(const char *db, const char *mode)
{
    char sql[128];

    snprintf(sql, sizeof sql, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode='%s'",
             mode);
    return q_int(db, sql) == 1;
}

/*
** A lock taken between a change's commit and the vacuum after it: once
** armed (vac_lock.db the file, vac_lock.armed 1), the first "PRAGMA
** freelist_count" (store_vacuum's first statement) on a connection traced
** by vac_lock_trace (sqlite3_trace_v2, SQLITE_TRACE_STMT) makes another
** connection take the write lock first (lock_take, into vac_lock.locked:
** lock_release it).
*/
static struct {
    const char *db;
    int         armed;
    sqlite3    *locked;
} vac_lock;

static inline int
vac_lock_trace(unsigned type, void *ud, void *p, void *x)
{
    const char *sql = x;

    (void)ud;
    (void)p;
    if (type == SQLITE_TRACE_STMT && vac_lock.armed && sql != NULL &&
        strstr(sql, "freelist_count") != NULL) {
        vac_lock.armed = 0;
        vac_lock.locked = lock_take(vac_lock.db);
    }
    return 0;
}

/* SQL for a temporary trigger NAME that refuses every WHAT ("INSERT ON
** turns") with the message "refused by the test". */
#define REFUSE(name, what) \
    "CREATE TEMP TRIGGER " name " BEFORE " what " BEGIN" \
    " SELECT RAISE(ABORT, 'refused by the test'); END;"

/* ERR's message is exactly "PATH: WHY" (the store's plain form). */
static inline int
plain_err(const rwkv_err *err, const char *path, const char *why)
{
    char want[1024];

    snprintf(want, sizeof want, "%s: %s", path, why);
    return strcmp(err->msg, want) == 0;
}

/* A new store file NAME in the test's folder (its path into DB, CAP
** bytes), opened under the check "open": the store, or NULL. */
static inline store *
store_test_open(const char *name, char *db, size_t cap)
{
    store *st = NULL;
    rwkv_err err;

    test_tmp_path(db, cap, name);
    TEST_COND("open", store_open(db, &st, &err) == RWKV_OK);
    return st;
}

/* A new store file NAME in the test's folder (its path into DB, CAP
** bytes), whose waits for another connection's lock last BUSY_MS: the
** store, or NULL after a failed check. */
static inline store *
store_test_open_busy(const char *name, char *db, size_t cap, int busy_ms)
{
    store *st = NULL;
    rwkv_err err;

    test_tmp_path(db, cap, name);
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open: %s", err.msg);
        return NULL;
    }
    store_set_busy_ms(st, busy_ms);
    return st;
}

#endif
