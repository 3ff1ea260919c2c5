/*
** test_store_share.c -- identical saved states stored once (schema v8,
** storage/store_snapshot.c), on real SQLite files in a temp dir: the
** sessions' greeting states share one row and count once in the sizes; a
** hash hit with other bytes is no match; the row outlives every snapshot
** but the last (rm, a branch delete, a snapshot written over); a damaged or
** missing shared row is one error naming the turn; the budget drops a
** shared state only with all of its snapshots, never one that frees
** nothing, and keeps it with a head; a v7 file's inline states stay
** readable after the migration.
*/
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../storage/store.h"
#include "../harness.h"
#include "store_test.h"

#define NF 64

static const store_state_meta META = { 0x77, "7.0", 2, 16, 1, 16, STORE_PREC_FP32, 0, 0 };

/* A turn whose state is the fake state number K. */
static int64_t
turn_k(store *st, int64_t sess, int64_t parent, int role, int k)
{
    float v[NF];

    test_fake_state(v, NF, k);
    return add_turn(st, sess, parent, role, "text", NULL, 0, v, NF, &META, NULL);
}

/* The state of TURN is the fake state number K. */
static int
state_is(store *st, int64_t turn, int k)
{
    float want[NF], got[NF];
    rwkv_err err;

    test_fake_state(want, NF, k);
    return store_snapshot_get(st, turn, &META, got, NF, NULL, &err) == RWKV_OK &&
           memcmp(want, got, sizeof got) == 0;
}

static uint64_t
usage(store *st, int64_t sess)
{
    uint64_t bytes = 0;
    int64_t n;
    rwkv_err err;

    return store_snapshot_usage(st, sess, &bytes, &n, &err) == RWKV_OK ? bytes : 0;
}

/* Three sessions greeting (state 0) - user - reply: g[i], u[i], a[i]. */
static void
three(store *st, int64_t *sid, int64_t *g, int64_t *u, int64_t *a, int base)
{
    for (int i = 0; i < 3; i++) {
        sid[i] = new_session(st, "chat");
        g[i] = turn_k(st, sid[i], 0, STORE_ROLE_SYSTEM, 0);
        u[i] = turn_k(st, sid[i], g[i], STORE_ROLE_USER, base + 2 * i + 1);
        a[i] = turn_k(st, sid[i], u[i], STORE_ROLE_ASSISTANT, base + 2 * i + 2);
    }
}

static void
test_shared(store *st, const char *db)
{
    const uint64_t one = store_blob_size(NF);
    int64_t sid[3], g[3], u[3], a[3];
    store_prune pr;
    rwkv_err err;

    three(st, sid, g, u, a, 100);
    TEST_COND("greetings share one row",
              q_int(db, "SELECT count(*) FROM state_blobs") == 7 &&
                  q_int(db, "SELECT count(DISTINCT blob_id) FROM snapshots") == 7 &&
                  q_int(db, "SELECT count(*) FROM snapshots WHERE length(blob) > 0") == 0);
    TEST_CONDF(usage(st, 0) == 7 * one, "usage %llu, want %llu (7 states, 9 snapshots)",
               (unsigned long long)usage(st, 0), (unsigned long long)(7 * one));
    TEST_COND("a session's usage counts its own", usage(st, sid[1]) == 3 * one);
    TEST_COND("each reads its state", state_is(st, g[0], 0) && state_is(st, g[2], 0) &&
                                          state_is(st, u[1], 103) && state_is(st, a[2], 106));
    /* rm of two: the third's greeting still there; rm of the last frees it */
    TEST_COND("rm 1 and 2", store_session_delete(st, sid[0], &err) == RWKV_OK &&
                                store_session_delete(st, sid[1], &err) == RWKV_OK);
    TEST_COND("the last user keeps the row", state_is(st, g[2], 0) &&
                                                 q_int(db, "SELECT count(*) FROM state_blobs") == 3);
    /* a branch delete of the whole session (its root) */
    TEST_COND("prune the root", store_turn_prune(st, g[2], &pr, &err) == RWKV_OK);
    TEST_COND("nothing left", q_int(db, "SELECT count(*) FROM state_blobs") == 0 &&
                                  q_int(db, "SELECT count(*) FROM snapshots") == 0);
    /* a state written over: the old row goes unless another uses it */
    {
        int64_t s = new_session(st, "over"), t = turn_k(st, s, 0, STORE_ROLE_USER, 1);
        int64_t t2 = turn_k(st, s, t, STORE_ROLE_ASSISTANT, 1);
        float v[NF];
        test_fake_state(v, NF, 2);
        TEST_COND("same state, one row", q_int(db, "SELECT count(*) FROM state_blobs") == 1);
        TEST_COND("put over", store_snapshot_put(st, t, v, NF, &META, &err) == RWKV_OK &&
                                  state_is(st, t, 2) && state_is(st, t2, 1) &&
                                  q_int(db, "SELECT count(*) FROM state_blobs") == 2);
        TEST_COND("put over again", store_snapshot_put(st, t2, v, NF, &META, &err) == RWKV_OK &&
                                        state_is(st, t2, 2) &&
                                        q_int(db, "SELECT count(*) FROM state_blobs") == 1);
        TEST_COND("rm", store_session_delete(st, s, &err) == RWKV_OK &&
                            q_int(db, "SELECT count(*) FROM state_blobs") == 0);
    }
}

/* A row whose hash is that of other bytes is no match: the bytes decide. */
static void
test_hash_hit(store *st, const char *db)
{
    int64_t s = new_session(st, "hash"), t1 = turn_k(st, s, 0, STORE_ROLE_USER, 1), t2;
    unsigned char *b = malloc(store_blob_size(NF));
    float v[NF];
    char sql[200];
    rwkv_err sid_err;

    if (b == NULL)
        return;
    test_fake_state(v, NF, 2);
    store_blob_encode(v, NF, &META, b);
    snprintf(sql, sizeof sql, "UPDATE state_blobs SET hash=%lld", (long long)store_blob_hash(b));
    TEST_COND("forge the hash", q_exec(db, sql) == SQLITE_OK);
    t2 = turn_k(st, s, t1, STORE_ROLE_ASSISTANT, 2);
    TEST_COND("other bytes, own row", q_int(db, "SELECT count(*) FROM state_blobs") == 2 &&
                                          state_is(st, t1, 1) && state_is(st, t2, 2));
    free(b);
    store_session_delete(st, s, &sid_err);
}

/* A damaged shared row: each turn using it says so, with its own id. */
static void
test_damaged(store *st, const char *db)
{
    int64_t s1 = new_session(st, "d1"), s2 = new_session(st, "d2");
    int64_t g1 = turn_k(st, s1, 0, STORE_ROLE_SYSTEM, 50), g2 = turn_k(st, s2, 0, STORE_ROLE_SYSTEM, 50);
    float v[NF];
    enum store_snap why;
    char want[64], sql[200];
    rwkv_err err;

    TEST_COND("flip a byte", q_exec(db, "UPDATE state_blobs SET blob=CAST(substr(blob,1,100) || x'ff' ||"
                                        " substr(blob,102) AS BLOB)") == SQLITE_OK);
    snprintf(want, sizeof want, "saved state of turn %lld is unusable: ", (long long)g2);
    TEST_CONDF(store_snapshot_get(st, g2, &META, v, NF, &why, &err) == RWKV_EFORMAT &&
                   why == STORE_SNAP_CORRUPT && strstr(err.msg, want) && strstr(err.msg, "checksum"),
               "damaged: %s", err.msg);
    snprintf(sql, sizeof sql, "DELETE FROM state_blobs WHERE id=(SELECT blob_id FROM snapshots"
                              " WHERE turn_id=%lld)", (long long)g1);
    TEST_COND("lose the row", q_exec(db, sql) == SQLITE_OK);
    snprintf(want, sizeof want, "saved state of turn %lld is unusable: ", (long long)g1);
    TEST_CONDF(store_snapshot_get(st, g1, &META, v, NF, &why, &err) == RWKV_EFORMAT &&
                   why == STORE_SNAP_CORRUPT && strstr(err.msg, want) &&
                   strstr(err.msg, "is missing") && strchr(err.msg, '\n') == NULL,
               "missing: %s", err.msg);
    TEST_COND("rm both", store_session_delete(st, s1, &err) == RWKV_OK &&
                             store_session_delete(st, s2, &err) == RWKV_OK &&
                             q_int(db, "SELECT count(*) FROM snapshots") == 0);
}

static int
has_snap(const char *db, int64_t turn)
{
    char sql[100];

    snprintf(sql, sizeof sql, "SELECT count(*) FROM snapshots WHERE turn_id=%lld", (long long)turn);
    return q_int(db, sql) == 1;
}

static void
test_budget(store *st, const char *db)
{
    const uint64_t one = store_blob_size(NF);
    int64_t sid[3], g[3], u[3], a[3], s4, g4;
    store_budget_info bi;
    rwkv_err err;

    three(st, sid, g, u, a, 200);
    /* (the order is by the sessions' updated times: made distinct) */
    q_exec(db, "UPDATE sessions SET updated_ms=1000*id");
    /* one state over: the oldest session's chain states go first, its
    ** greeting among them -- but dropping that frees nothing (two other
    ** sessions keep it), so its user turn's state goes instead, alone */
    TEST_COND("budget: all but one state", store_budget_set(st, 6 * one, &bi, &err) == RWKV_OK);
    TEST_CONDF(bi.dropped == 1 && bi.dropped_bytes == one && bi.before == 7 * one &&
                   bi.after == 6 * one && usage(st, 0) == 6 * one,
               "dropped %lld (%llu bytes), %llu -> %llu, usage %llu", (long long)bi.dropped,
               (unsigned long long)bi.dropped_bytes, (unsigned long long)bi.before,
               (unsigned long long)bi.after, (unsigned long long)usage(st, 0));
    TEST_COND("the greeting kept, the user turn's dropped", has_snap(db, g[0]) && !has_snap(db, u[0]));
    TEST_COND("off", store_budget_set(st, 0, &bi, &err) == RWKV_OK);
    /* a session at its greeting: its head shares the greeting's row, which
    ** is then never dropped -- the others' greeting snapshots neither (it
    ** would free nothing); all the rest goes, and the loop ends */
    TEST_COND("budget row", q_exec(db, "INSERT OR REPLACE INTO settings VALUES('state_budget', 100)") ==
                                SQLITE_OK);
    s4 = new_session(st, "fourth");
    g4 = turn_k(st, s4, 0, STORE_ROLE_SYSTEM, 0);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM snapshots") == 4 && has_snap(db, g4) &&
                   has_snap(db, g[0]) && has_snap(db, g[1]) && has_snap(db, g[2]) &&
                   q_int(db, "SELECT count(*) FROM state_blobs") == 1,
               "%lld snapshots, %lld rows", (long long)q_int(db, "SELECT count(*) FROM snapshots"),
               (long long)q_int(db, "SELECT count(*) FROM state_blobs"));
    /* set with no session of its own: the whole group goes at once */
    TEST_COND("budget 100 B", store_budget_set(st, 100, &bi, &err) == RWKV_OK && bi.dropped == 4 &&
                                  bi.dropped_bytes == one && bi.after == 0 && bi.states == 0);
    TEST_COND("no rows left", q_int(db, "SELECT count(*) FROM state_blobs") == 0 &&
                                  q_int(db, "SELECT count(*) FROM snapshots") == 0);
    TEST_COND("off again", store_budget_set(st, 0, &bi, &err) == RWKV_OK);
    for (int i = 0; i < 3; i++)
        store_session_delete(st, sid[i], &err);
    store_session_delete(st, s4, &err);
}

/* A file of schema v7 (its snapshots inline) migrates; they stay readable,
** new ones go to the shared rows, the sizes count both kinds. */
static void
test_v7(void)
{
    const uint64_t one = store_blob_size(NF);
    char db[512];
    store *st = NULL;
    int64_t s, t1, t2, t3;
    rwkv_err err;

    test_tmp_path(db, sizeof db, "v7.db");
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_COND("open", 0);
        return;
    }
    s = new_session(st, "old");
    t1 = turn_k(st, s, 0, STORE_ROLE_SYSTEM, 0);
    t2 = turn_k(st, s, t1, STORE_ROLE_USER, 1);
    store_close(st);
    TEST_COND("made a v7 file", q_exec(db, DROP_V8 "PRAGMA user_version=7") == SQLITE_OK &&
                                    q_int(db, "SELECT count(*) FROM snapshots WHERE length(blob) > 0") == 2);
    TEST_COND("v7 open migrates", store_open(db, &st, &err) == RWKV_OK &&
                                      q_int(db, "PRAGMA user_version") == STORE_SCHEMA_VERSION);
    if (st == NULL)
        return;
    TEST_COND("inline states kept and read", state_is(st, t1, 0) && state_is(st, t2, 1) &&
                                                 q_int(db, "SELECT count(*) FROM state_blobs") == 0);
    t3 = turn_k(st, s, t2, STORE_ROLE_ASSISTANT, 2);
    TEST_COND("a new one shared", state_is(st, t3, 2) &&
                                      q_int(db, "SELECT count(*) FROM state_blobs") == 1);
    TEST_COND("sizes count both kinds", usage(st, 0) == 3 * one && usage(st, s) == 3 * one);
    TEST_COND("rm", store_session_delete(st, s, &err) == RWKV_OK &&
                        q_int(db, "SELECT count(*) FROM state_blobs") == 0);
    store_close(st);
}

int
main(void)
{
    char db[512];
    store *st;

    if (test_tmpdir("rwkv-share") == NULL)
        return 1;
    if ((st = store_test_open("share.db", db, sizeof db)) != NULL) {
        test_shared(st, db);
        test_hash_hit(st, db);
        test_damaged(st, db);
        test_budget(st, db);
        store_close(st);
    }
    test_v7();
    test_tmpdir_remove();
    return TEST_REPORT();
}
