/*
** test_store_fold.c -- states saved inline before schema v8, folded by
** store_vacuum (`sessions vacuum`) into the shared rows of state_blobs
** (storage/store_snapshot.c, store_snapshot_fold_tx), and one session's
** share of the sizes (store_session_usage), on real SQLite files in a temp
** dir:
**   - a v7 file's greeting states, twins of each other and of the first new
**     session's, end up as one row; a state with no twin stays inline (not
**     rewritten); every state reads back bit-exact; the bytes given back are
**     reported and the total drops by them; a second vacuum folds nothing;
**   - a damaged inline twin is left as it was;
**   - a process killed (SIGKILL) in the middle of the fold, after a row was
**     moved in its transaction: every old row as it was, readable, the file
**     intact; the next vacuum folds them all;
**   - a fold that fails midway (a trigger refusing the second move) rolls
**     back: nothing moved, the error said;
**   - usage: a state several sessions share is split out as SHARED (with
**     the number of other sessions), the rest is OWN, and the sessions' OWN
**     plus each shared copy once is the file's total.
*/
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../storage/store_int.h"
#include "../harness.h"
#include "store_test.h"

#define NF 4096   /* 16 kB states: a few pages each */

static const store_state_meta META = { 0x91, "7.0", 2, 16, 1, 16, STORE_PREC_FP32, 0, 0 };

static int64_t
turn_k(store *st, int64_t sess, int64_t parent, int role, int k)
{
    float v[NF];

    test_fake_state(v, NF, k);
    return add_turn(st, sess, parent, role, "text", NULL, 0, v, NF, &META, NULL);
}

static int
state_is(store *st, int64_t turn, int k)
{
    static float want[NF], got[NF];
    rwkv_err err;

    test_fake_state(want, NF, k);
    return store_snapshot_get(st, turn, &META, got, NF, NULL, &err) == RWKV_OK &&
           memcmp(want, got, sizeof got) == 0;
}

static uint64_t
total(store *st)
{
    uint64_t bytes = 0;
    int64_t n;
    rwkv_err err;

    return store_snapshot_usage(st, 0, &bytes, &n, &err) == RWKV_OK ? bytes : 0;
}

/* K sessions greeting (state 0) - user (state 10+i), in a file of schema
** v7 at DB (every state inline): the sessions into SID, turns into G, U. */
static int
make_v7(const char *db, int k, int64_t *sid, int64_t *g, int64_t *u)
{
    store *st = NULL;
    rwkv_err err;

    if (store_open(db, &st, &err) != RWKV_OK)
        return 0;
    for (int i = 0; i < k; i++) {
        sid[i] = new_session(st, "old");
        g[i] = turn_k(st, sid[i], 0, STORE_ROLE_SYSTEM, 0);
        u[i] = turn_k(st, sid[i], g[i], STORE_ROLE_USER, 10 + i);
    }
    store_close(st);
    return q_exec(db, DROP_V8 "PRAGMA user_version=7") == SQLITE_OK &&
           q_int(db, "SELECT count(*) FROM snapshots WHERE length(blob) > 0") == 2 * k;
}

#define INLINE "SELECT count(*) FROM snapshots WHERE blob_id IS NULL AND length(blob) > 0"
#define ROWS   "SELECT count(*) FROM state_blobs"

static void
test_fold(void)
{
    const uint64_t one = store_blob_size(NF);
    int64_t sid[4], g[4], u[4], s5, g5, u5;
    char db[512];
    store *st = NULL;
    store_vacuum_info v;
    rwkv_err err;

    test_tmp_path(db, sizeof db, "fold.db");
    TEST_COND("a v7 file, 4 sessions", make_v7(db, 4, sid, g, u));
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open: %s", err.msg);
        return;
    }
    /* the first new session after the upgrade: its greeting is a new row */
    s5 = new_session(st, "new");
    g5 = turn_k(st, s5, 0, STORE_ROLE_SYSTEM, 0);
    u5 = turn_k(st, s5, g5, STORE_ROLE_USER, 99);
    TEST_COND("before: 8 inline, 2 rows", q_int(db, INLINE) == 8 && q_int(db, ROWS) == 2);
    TEST_COND("before: 5 greeting copies counted", total(st) == 10 * one);
    TEST_CONDF(store_vacuum(st, &v, &err) == RWKV_OK, "vacuum: %s", err.msg);
    TEST_CONDF(v.folded == 4 && v.folded_bytes == 4 * one, "folded %lld, %llu bytes (want 4, %llu)",
               (long long)v.folded, (unsigned long long)v.folded_bytes,
               (unsigned long long)(4 * one));
    TEST_CONDF(q_int(db, INLINE) == 4 && q_int(db, ROWS) == 2 &&
                   q_int(db, "SELECT count(DISTINCT blob_id) FROM snapshots n JOIN turns t"
                             " ON t.id=n.turn_id WHERE t.depth=0") == 1,
               "after: %lld inline, %lld rows", (long long)q_int(db, INLINE), (long long)q_int(db, ROWS));
    TEST_COND("the user turns' states (no twin) stay inline",
              q_int(db, "SELECT count(*) FROM snapshots n JOIN turns t ON t.id=n.turn_id"
                        " WHERE t.depth=1 AND n.blob_id IS NULL AND length(n.blob)>0") == 4);
    TEST_COND("total: the greeting once", total(st) == 6 * one);
    {
        int all = state_is(st, g5, 0) && state_is(st, u5, 99);
        for (int i = 0; i < 4; i++)
            all = all && state_is(st, g[i], 0) && state_is(st, u[i], 10 + i);
        TEST_COND("every state reads back bit-exact", all);
    }
    TEST_COND("intact", q_integrity_ok(db));
    TEST_COND("again: nothing to fold", store_vacuum(st, &v, &err) == RWKV_OK && v.folded == 0 &&
                                            v.folded_bytes == 0);
    /* the shared greeting goes with its last user only */
    for (int i = 0; i < 4; i++)
        store_session_delete(st, sid[i], &err);
    TEST_COND("rm the old ones: the new greeting kept", state_is(st, g5, 0) && q_int(db, ROWS) == 2);
    TEST_COND("rm the last: no row left", store_session_delete(st, s5, &err) == RWKV_OK &&
                                              q_int(db, ROWS) == 0);
    store_close(st);
}

/* Two inline twins with no shared row yet: one new row for both.  A
** damaged twin stays as it was. */
static void
test_twins(void)
{
    const uint64_t one = store_blob_size(NF);
    int64_t sid[3], g[3], u[3];
    char db[512];
    store *st = NULL;
    store_vacuum_info v;
    rwkv_err err;
    char sql[200];

    test_tmp_path(db, sizeof db, "twins.db");
    TEST_COND("a v7 file, 3 sessions", make_v7(db, 3, sid, g, u));
    snprintf(sql, sizeof sql, "UPDATE snapshots SET blob=CAST(substr(blob,1,999) || x'00' ||"
                              " substr(blob,1001) AS BLOB) WHERE turn_id=%lld", (long long)g[2]);
    TEST_COND("damage the third greeting", q_exec(db, sql) == SQLITE_OK);
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open: %s", err.msg);
        return;
    }
    TEST_CONDF(store_vacuum(st, &v, &err) == RWKV_OK && v.folded == 2 && v.folded_bytes == one,
               "folded %lld (%llu bytes): %s", (long long)v.folded,
               (unsigned long long)v.folded_bytes, err.msg);
    TEST_COND("one row for both", q_int(db, ROWS) == 1 && state_is(st, g[0], 0) && state_is(st, g[1], 0));
    snprintf(sql, sizeof sql, "SELECT blob_id IS NULL AND length(blob)=%llu FROM snapshots"
                              " WHERE turn_id=%lld", (unsigned long long)one, (long long)g[2]);
    TEST_COND("the damaged one left inline, still damaged", q_int(db, sql) == 1 && !state_is(st, g[2], 0));
    store_close(st);
}

/* The store of DB, its connection made to SIGKILL its own process when the
** second state is about to be moved (a trace on "UPDATE snapshots SET
** blob=x''"): in a child. */
static int kill_at;

static int
kill_trace(unsigned type, void *ud, void *p, void *x)
{
    const char *sql = x;

    (void)ud;
    (void)p;
    if (type == SQLITE_TRACE_STMT && sql && strstr(sql, "UPDATE snapshots SET blob=x''") &&
        --kill_at == 0)
        kill(getpid(), SIGKILL);
    return 0;
}

static void
test_kill(void)
{
    int64_t sid[4], g[4], u[4];
    char db[512];
    store *st = NULL;
    store_vacuum_info v;
    rwkv_err err;
    pid_t pid;
    int status = 0;

    test_tmp_path(db, sizeof db, "kill.db");
    TEST_COND("a v7 file, 4 sessions", make_v7(db, 4, sid, g, u));
    if (store_open(db, &st, &err) != RWKV_OK)   /* migrated to v8 here */
        return;
    store_close(st);
    pid = fork();
    if (pid == 0) {
        if (store_open(db, &st, &err) != RWKV_OK)
            _exit(3);
        kill_at = 2;
        sqlite3_trace_v2(st->db, SQLITE_TRACE_STMT, kill_trace, NULL);
        store_vacuum(st, &v, &err);
        _exit(4);   /* not reached: killed */
    }
    TEST_COND("killed in the fold", pid > 0 && waitpid(pid, &status, 0) == pid &&
                                        WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    TEST_COND("every old row as it was", q_int(db, INLINE) == 8 && q_int(db, ROWS) == 0);
    TEST_COND("intact after the kill", q_integrity_ok(db));
    if (store_open(db, &st, &err) != RWKV_OK)
        return;
    {
        int all = 1;
        for (int i = 0; i < 4; i++)
            all = all && state_is(st, g[i], 0) && state_is(st, u[i], 10 + i);
        TEST_COND("every state readable after the kill", all);
    }
    TEST_COND("the next vacuum folds them", store_vacuum(st, &v, &err) == RWKV_OK && v.folded == 4 &&
                                                q_int(db, ROWS) == 1 && q_int(db, INLINE) == 4);
    store_close(st);
}

/* A fold refused midway: rolled back, nothing moved, the error said. */
static void
test_refused(void)
{
    int64_t sid[3], g[3], u[3];
    char db[512];
    store *st = NULL;
    store_vacuum_info v;
    rwkv_err err;

    test_tmp_path(db, sizeof db, "refused.db");
    TEST_COND("a v7 file, 3 sessions", make_v7(db, 3, sid, g, u));
    if (store_open(db, &st, &err) != RWKV_OK)
        return;
    TEST_COND("refuse the second move",
              q_exec(db, "CREATE TRIGGER refuse BEFORE UPDATE OF blob_id ON snapshots"
                         " WHEN (SELECT count(*) FROM snapshots WHERE blob_id IS NOT NULL) >= 1"
                         " BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;") == SQLITE_OK);
    TEST_CONDF(store_vacuum(st, &v, &err) == RWKV_EDB && strstr(err.msg, "refused by the test"),
               "vacuum: %s", err.msg);
    TEST_COND("nothing moved", q_int(db, INLINE) == 6 && q_int(db, ROWS) == 0 &&
                                   state_is(st, g[0], 0) && state_is(st, g[1], 0));
    q_exec(db, "DROP TRIGGER refuse");
    TEST_COND("then it folds", store_vacuum(st, &v, &err) == RWKV_OK && v.folded == 3);
    store_close(st);
}

/* One session's share: three sessions share a greeting, one is forked. */
static void
test_usage(void)
{
    const uint64_t one = store_blob_size(NF);
    int64_t sid[3], g[3], u[3], fk = 0;
    char db[512];
    store *st = NULL;
    store_usage us[4];
    rwkv_err err;
    uint64_t sum = 0, shared_once = 0;

    test_tmp_path(db, sizeof db, "usage.db");
    if (store_open(db, &st, &err) != RWKV_OK)
        return;
    for (int i = 0; i < 3; i++) {
        sid[i] = new_session(st, "u");
        g[i] = turn_k(st, sid[i], 0, STORE_ROLE_SYSTEM, 0);
        u[i] = turn_k(st, sid[i], g[i], STORE_ROLE_USER, 20 + i);
        turn_k(st, sid[i], u[i], STORE_ROLE_ASSISTANT, 30 + i);
    }
    TEST_COND("usage of session 2", store_session_usage(st, sid[1], &us[0], &err) == RWKV_OK);
    TEST_CONDF(us[0].states == 3 && us[0].own == 2 * one && us[0].shared == one &&
                   us[0].sharing == 2 && us[0].bytes == 3 * one,
               "states %lld own %llu shared %llu with %lld", (long long)us[0].states,
               (unsigned long long)us[0].own, (unsigned long long)us[0].shared,
               (long long)us[0].sharing);
    /* a fork of session 3 at its user turn: the copies are shared with it */
    TEST_COND("fork", store_session_fork(st, sid[2], u[2], "f", &fk, &err) == RWKV_OK);
    TEST_COND("usage of the fork", store_session_usage(st, fk, &us[3], &err) == RWKV_OK);
    TEST_CONDF(us[3].own == 0 && us[3].shared == 2 * one && us[3].sharing == 3,
               "fork: own %llu shared %llu with %lld", (unsigned long long)us[3].own,
               (unsigned long long)us[3].shared, (long long)us[3].sharing);
    for (int i = 0; i < 3; i++)
        store_session_usage(st, sid[i], &us[i], &err);
    TEST_CONDF(us[2].own == one && us[2].shared == 2 * one && us[2].sharing == 3,
               "forked session: own %llu shared %llu with %lld", (unsigned long long)us[2].own,
               (unsigned long long)us[2].shared, (long long)us[2].sharing);
    for (int i = 0; i < 4; i++)
        sum += us[i].own;
    shared_once = (uint64_t)q_int(db, "SELECT coalesce(sum(length(blob)),0) FROM state_blobs WHERE id IN"
                                      " (SELECT blob_id FROM snapshots n JOIN turns t ON t.id=n.turn_id"
                                      " GROUP BY blob_id HAVING count(DISTINCT t.session_id) > 1)");
    TEST_CONDF(sum + shared_once == total(st) && total(st) == 7 * one,
               "own %llu + shared once %llu, total %llu", (unsigned long long)sum,
               (unsigned long long)shared_once, (unsigned long long)total(st));
    /* deleting a session frees its OWN bytes */
    {
        const uint64_t before = total(st), own = us[0].own;
        TEST_COND("rm frees its own", store_session_delete(st, sid[0], &err) == RWKV_OK &&
                                          total(st) == before - own);
    }
    TEST_COND("no session: nothing", store_session_usage(st, 999, &us[0], &err) == RWKV_OK &&
                                         us[0].states == 0 && us[0].bytes == 0 && us[0].sharing == 0);
    store_close(st);
}

int
main(void)
{
    if (test_tmpdir("rwkv-fold") == NULL)
        return 1;
    test_fold();
    test_twins();
    test_kill();
    test_refused();
    test_usage();
    test_tmpdir_remove();
    return TEST_REPORT();
}
