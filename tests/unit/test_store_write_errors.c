/*
** test_store_write_errors.c -- the writes a user asks for by name (rename,
** fork, delete a session, delete a branch: storage/store_turn.c,
** storage/store_prune.c) fail with one form of message, "PATH: why", the
** action left to the caller, which names it once ("deleting session 3:
** ..."), and a delete that is done is not reported failed.
**
**   - another program holds the write lock past the busy time: each of the
**     four says "PATH: database is locked" (rename said "PATH: updating
**     session: database is locked": with the client's own prefix the
**     action twice);
**   - a statement inside the write fails for another reason (a full disk,
**     an I/O error; a trigger here): "PATH: why" from each (they said
**     "updating session", "creating session", "deleting session",
**     "deleting a branch" before it);
**   - nothing changed in either case;
**   - another program takes the lock between the delete's commit and the
**     vacuum that gives its space back: the session (or branch) is gone,
**     and the delete says so (RWKV_OK), not "database is locked" after a
**     ten-second wait.
** The lock is a real SQLite lock from a second connection; the moment of
** the last case is a trace hook on the store's connection, not a timer.
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>

#include "../../storage/store.h"
#include "../../storage/store_int.h"
#include "store_test.h"

#define BUSY_MS 100

/* A session of four turns (user, reply, user, reply) in ST: its id; the
** turn ids in T[4]. */
static int64_t
four_turns(store *st, int64_t t[4])
{
    static const int32_t ids[] = { 1, 2, 3 };
    int64_t sid = new_session(st, "four");
    int64_t parent = 0;

    for (int i = 0; i < 4 && sid != 0; i++) {
        t[i] = add_turn(st, sid, parent, i % 2 ? STORE_ROLE_ASSISTANT : STORE_ROLE_USER,
                        i % 2 ? "reply" : "message", ids, 3, NULL, 0, NULL, NULL);
        parent = t[i];
    }
    return sid;
}

/* The four writes on session SID (turns T) of ST fail with "DB: WHY", and
** change nothing. */
static void
four_fail(store *st, const char *db, int64_t sid, const int64_t t[4], const char *why,
          const char *name)
{
    int64_t sessions = q_int(db, "SELECT count(*) FROM sessions");
    int64_t turns = q_int(db, "SELECT count(*) FROM turns");
    int64_t nid = 0;
    store_prune p;
    rwkv_err err;
    int rc;

    rc = store_session_rename(st, sid, "another title", &err);
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: rename: rc %d '%s'", name, rc,
               err.msg);
    rc = store_session_fork(st, sid, t[1], NULL, &nid, &err);
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: fork: rc %d '%s'", name, rc,
               err.msg);
    rc = store_session_delete(st, sid, &err);
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: delete: rc %d '%s'", name, rc,
               err.msg);
    rc = store_turn_prune(st, t[2], &p, &err);
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: delete a branch: rc %d '%s'", name,
               rc, err.msg);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM sessions") == sessions &&
                   q_int(db, "SELECT count(*) FROM turns") == turns &&
                   q_int(db, "SELECT count(*) FROM sessions WHERE title='four'") == 1,
               "%s: nothing changed", name);
}

static void
locked_and_refused(void)
{
    char db[512];
    store *st = NULL;
    sqlite3 *lk;
    int64_t t[4] = { 0 }, sid;
    rwkv_err err;

    if ((st = store_test_open_busy("forms.db", db, sizeof db, BUSY_MS)) == NULL)
        return;
    sid = four_turns(st, t);
    TEST_COND("a session of four turns", sid != 0 && t[3] != 0);

    if ((lk = lock_take(db)) != NULL) {
        four_fail(st, db, sid, t, "database is locked", "locked");
        lock_release(lk);
    } else {
        TEST_COND("lock taken", 0);
    }

    /* a statement inside the write refused (as a full disk or an I/O error
    ** would fail it): temporary triggers on the store's own connection */
    TEST_COND("refusing triggers",
              sqlite3_exec(st->db, REFUSE("a", "INSERT ON sessions") REFUSE("b", "UPDATE ON sessions")
                                   REFUSE("c", "UPDATE ON turns") REFUSE("d", "DELETE ON turns"),
                           NULL, NULL, NULL) == SQLITE_OK);
    four_fail(st, db, sid, t, "refused by the test", "refused");
    sqlite3_exec(st->db, "DROP TRIGGER temp.a; DROP TRIGGER temp.b; DROP TRIGGER temp.c;"
                         " DROP TRIGGER temp.d;", NULL, NULL, NULL);

    /* the same writes go through once nothing is in the way */
    TEST_CONDF(store_session_rename(st, sid, "renamed", &err) == RWKV_OK, "rename: %s", err.msg);
    store_close(st);
}

/* ---- a lock taken between a delete's commit and its vacuum ------------------------- */

static void
vacuum_locked(void)
{
    char db[512];
    store *st = NULL;
    int64_t t[4] = { 0 }, sid;
    store_prune p;
    rwkv_err err;
    int rc;

    if ((st = store_test_open_busy("vacuum.db", db, sizeof db, BUSY_MS)) == NULL)
        return;
    sid = four_turns(st, t);
    sqlite3_trace_v2(st->db, SQLITE_TRACE_STMT, vac_lock_trace, NULL);
    vac_lock.db = db;

    /* a branch: the last exchange */
    vac_lock.armed = 1;
    rc = store_turn_prune(st, t[2], &p, &err);
    TEST_CONDF(vac_lock.locked != NULL, "the lock was taken after the branch's delete (%d)", vac_lock.armed);
    TEST_CONDF(rc == RWKV_OK && p.n_turns == 2,
               "the branch deleted, the vacuum's lock wait no failure: rc %d '%s'", rc,
               rc == RWKV_OK ? "" : err.msg);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns") == 2, "two turns left (%lld)",
               (long long)q_int(db, "SELECT count(*) FROM turns"));
    if (vac_lock.locked)
        lock_release(vac_lock.locked);
    vac_lock.locked = NULL;

    /* the session */
    vac_lock.armed = 1;
    rc = store_session_delete(st, sid, &err);
    TEST_CONDF(vac_lock.locked != NULL, "the lock was taken after the session's delete (%d)",
               vac_lock.armed);
    TEST_CONDF(rc == RWKV_OK, "the session deleted, the vacuum's lock wait no failure: rc %d '%s'",
               rc, rc == RWKV_OK ? "" : err.msg);
    TEST_COND("the session is gone", q_int(db, "SELECT count(*) FROM sessions") == 0);
    if (vac_lock.locked)
        lock_release(vac_lock.locked);
    vac_lock.locked = NULL;
    sqlite3_trace_v2(st->db, 0, NULL, NULL);

    /* the pages are given back later, by `sessions vacuum` */
    TEST_CONDF(store_vacuum(st, NULL, &err) == RWKV_OK, "vacuum afterwards: %s", err.msg);
    store_close(st);
}

int
main(void)
{
    if (test_tmpdir("rwkv-test-store-write-errors") == NULL)
        return 1;
    locked_and_refused();
    vacuum_locked();
    test_tmpdir_remove();
    return TEST_REPORT();
}
