/*
** test_store_write_forms.c -- the other writes a front end names (a preset,
** a state file of the library, a model row, a saved state, the disk budget:
** storage/store.c, store_snapshot.c, store_budget.c) fail in the form rename,
** fork, delete and prune use: "PATH: why", the caller naming the action
** once; and setting a budget that committed is not reported failed.
**
**   - another program holds the write lock past the busy time: each says
**     "PATH: database is locked" (a preset said "PATH: saving preset:
**     database is locked", so the client's "saving preset 'x': ..." named
**     the action twice);
**   - a statement inside the write fails for another reason (a trigger
**     here, as a full disk or an I/O error would): "PATH: refused by the
**     test" (they said "saving preset", "saving state file", "saving model",
**     "saving snapshot", "writing the state budget" before it);
**   - nothing changed in either case;
**   - another program takes the lock between the budget's commit and the
**     vacuum that gives the dropped states' space back: the budget is set
**     and the call says so (RWKV_OK with what it dropped), not "database is
**     locked" after the busy time (store_budget_set, as a delete).
** The lock is a real SQLite lock from a second connection; the moment of
** the last case is a trace hook on the store's connection, not a timer.
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>
#include <time.h>

#include "../../core/chat/params.h"
#include "../../storage/store.h"
#include "../../storage/store_int.h"
#include "store_test.h"

#define BUSY_MS 100
#define NF      16384   /* floats in a state: 64 KB, one page */

static const store_state_meta META = { 42, "7.0", 12, 64, 1, 64, STORE_PREC_FP32, 0, 0 };

static int64_t
mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A session of N turns in ST, each with a state (64 KB), kept (retention
** off): its id; the turn ids in T. */
static int64_t
turns_with_states(store *st, int n, int64_t *t)
{
    static const int32_t ids[] = { 1, 2, 3 };
    store_retention keep = { 1000000, 1 };
    float *v = calloc(NF, sizeof *v);
    int64_t sid = new_session(st, "states"), parent = 0;

    store_set_retention(st, &keep);
    for (int i = 0; i < n && sid != 0 && v != NULL; i++) {
        for (size_t k = 0; k < NF; k++)
            v[k] = (float)(i + 1) * 0.001f * (float)(k % 97);
        t[i] = add_turn(st, sid, parent, i % 2 ? STORE_ROLE_ASSISTANT : STORE_ROLE_USER,
                        i % 2 ? "reply" : "message", ids, 3, v, NF, &META, NULL);
        parent = t[i];
    }
    free(v);
    return sid;
}

/* The five writes fail with "DB: WHY" on ST and change nothing. */
static void
five_fail(store *st, const char *db, int64_t turn, const char *why, const char *name)
{
    int64_t presets = q_int(db, "SELECT count(*) FROM presets");
    int64_t files = q_int(db, "SELECT count(*) FROM state_files");
    int64_t models = q_int(db, "SELECT count(*) FROM models");
    int64_t snaps = q_int(db, "SELECT count(*) FROM snapshots");
    rwkv_sampling samp;
    store_statefile f;
    store_model m;
    store_budget_info bi;
    float *v = calloc(NF, sizeof *v);
    int64_t id = 0;
    rwkv_err err;
    int rc;

    params_defaults(&samp);
    rc = store_preset_put(st, "mine", &samp, &id, &err);
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: preset: rc %d '%s'", name, rc,
               err.msg);
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "a state");
    snprintf(f.path, sizeof f.path, "/nowhere/a.pth");
    params_defaults(&f.defaults);
    rc = store_statefile_add(st, &f, &id, &err);
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: state file: rc %d '%s'", name, rc,
               err.msg);
    memset(&m, 0, sizeof m);
    snprintf(m.path, sizeof m.path, "/nowhere/m.pth");
    m.size = 1234;
    m.fingerprint = 42;
    rc = store_model_upsert(st, &m, &id, &err);
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: model: rc %d '%s'", name, rc,
               err.msg);
    rc = v != NULL ? store_snapshot_put(st, turn, v, NF, &META, &err) : RWKV_ENOMEM;
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: saved state: rc %d '%s'", name, rc,
               err.msg);
    rc = store_budget_set(st, 1000000, &bi, &err);
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: budget: rc %d '%s'", name, rc,
               err.msg);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM presets") == presets &&
                   q_int(db, "SELECT count(*) FROM state_files") == files &&
                   q_int(db, "SELECT count(*) FROM models") == models &&
                   q_int(db, "SELECT count(*) FROM snapshots") == snaps &&
                   q_int(db, "SELECT count(*) FROM settings") == 0,
               "%s: nothing changed", name);
    free(v);
}

static void
locked_and_refused(void)
{
    char db[512];
    store *st = NULL;
    sqlite3 *lk;
    int64_t t[2] = { 0 };
    rwkv_err err;

    if ((st = store_test_open_busy("forms.db", db, sizeof db, BUSY_MS)) == NULL)
        return;
    TEST_COND("a session of two turns", turns_with_states(st, 2, t) != 0 && t[1] != 0);

    if ((lk = lock_take(db)) != NULL) {
        five_fail(st, db, t[1], "database is locked", "locked");
        lock_release(lk);
    } else {
        TEST_COND("lock taken", 0);
    }

    TEST_COND("refusing triggers",
              sqlite3_exec(st->db, REFUSE("a", "INSERT ON presets") REFUSE("b", "INSERT ON state_files")
                                   REFUSE("c", "INSERT ON models") REFUSE("d", "INSERT ON snapshots")
                                   REFUSE("e", "INSERT ON settings"),
                           NULL, NULL, NULL) == SQLITE_OK);
    five_fail(st, db, t[1], "refused by the test", "refused");
    sqlite3_exec(st->db, "DROP TRIGGER temp.a; DROP TRIGGER temp.b; DROP TRIGGER temp.c;"
                         " DROP TRIGGER temp.d; DROP TRIGGER temp.e;", NULL, NULL, NULL);

    /* a built-in preset is no database error: said as before */
    {
        rwkv_sampling samp;
        params_defaults(&samp);
        TEST_CONDF(store_preset_put(st, "demo", &samp, NULL, &err) == RWKV_EINVAL &&
                       strcmp(err.msg, "preset 'demo' is built in and cannot be changed") == 0,
                   "built-in preset: '%s'", err.msg);
        TEST_CONDF(store_preset_put(st, "mine", &samp, NULL, &err) == RWKV_OK,
                   "preset saved once nothing is in the way: %s", err.msg);
    }
    store_close(st);
}

/* ---- a lock taken between the budget's commit and its vacuum ---------------------- */

static void
budget_vacuum_locked(void)
{
    char db[512];
    store *st = NULL;
    int64_t t[8] = { 0 }, t0, ms;
    store_budget_info bi;
    store_vacuum_info v;
    rwkv_err err;
    int rc;

    test_tmp_path(db, sizeof db, "budget.db");
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open: %s", err.msg);
        return;
    }
    store_set_busy_ms(st, 2000);         /* a wait is counted (store_busy_timeouts) */
    TEST_COND("a session of eight turns with states", turns_with_states(st, 8, t) != 0 &&
                                                           t[7] != 0);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM snapshots") == 8, "eight states (%lld)",
               (long long)q_int(db, "SELECT count(*) FROM snapshots"));
    sqlite3_trace_v2(st->db, SQLITE_TRACE_STMT, vac_lock_trace, NULL);
    vac_lock.db = db;
    vac_lock.armed = 1;
    memset(&bi, 0, sizeof bi);
    t0 = mono_ms();
    rc = store_budget_set(st, 200000, &bi, &err);    /* room for three 64 KB states */
    ms = mono_ms() - t0;
    TEST_CONDF(vac_lock.locked != NULL, "the lock was taken after the budget's commit (%d)",
               vac_lock.armed);
    TEST_CONDF(rc == RWKV_OK && bi.budget == 200000 && bi.dropped == 5 && bi.states == 3,
               "the budget set, the vacuum's lock no failure: rc %d '%s' (dropped %lld, %lld "
               "left)", rc, rc == RWKV_OK ? "" : err.msg, (long long)bi.dropped,
               (long long)bi.states);
    TEST_CONDF(store_busy_timeouts(st) == 0, "no wait for the lock ran out (%llu; %lld ms, "
               "busy time 2000 ms)", (unsigned long long)store_busy_timeouts(st),
               (long long)ms);
    TEST_CONDF(q_int(db, "SELECT value FROM settings WHERE key='state_budget'") == 200000 &&
                   q_int(db, "SELECT count(*) FROM snapshots") == 3,
               "the budget is in the file, three states kept (%lld)",
               (long long)q_int(db, "SELECT count(*) FROM snapshots"));
    if (vac_lock.locked)
        lock_release(vac_lock.locked);
    vac_lock.locked = NULL;
    sqlite3_trace_v2(st->db, 0, NULL, NULL);

    /* the pages are given back later, by `sessions vacuum` */
    TEST_CONDF(store_vacuum(st, &v, &err) == RWKV_OK && v.free_pages > 0 &&
                   v.bytes_after < v.bytes_before,
               "the space comes back at the next vacuum (%lld free pages, %llu -> %llu bytes)",
               (long long)v.free_pages, (unsigned long long)v.bytes_before,
               (unsigned long long)v.bytes_after);
    TEST_COND("intact", q_integrity_ok(db));
    store_close(st);
}

int
main(void)
{
    if (test_tmpdir("rwkv-test-store-write-forms") == NULL)
        return 1;
    locked_and_refused();
    budget_vacuum_locked();
    test_tmpdir_remove();
    return TEST_REPORT();
}
