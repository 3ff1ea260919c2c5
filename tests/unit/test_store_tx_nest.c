/*
** test_store_tx_nest.c -- the store's transactions nest (store.c,
** store_tx_begin/commit/rollback), on real files in a temp dir: a write
** that makes its own transaction (store_turn_append, store_session_new's
** caller's) runs inside a caller's as a savepoint, so a new session's
** first save is one write, all or nothing (session_db.c, first_begin).
**   - begin inside begin: both levels' rows are there after the outer
**     COMMIT, and not before (another connection sees none of them);
**   - an inner rollback undoes its level only, the outer one goes on;
**   - an outer rollback undoes the inner levels that were committed: no
**     row, and no id taken (ids are never given twice: the next session
**     gets the id the undone one had);
**   - three levels, the middle one rolled back;
**   - a write with its own transaction failing inside the outer one (a
**     turn under a parent that is not there) leaves the outer one open;
**   - the whole transaction rolled back by SQLite itself (as a full disk
**     may): an inner begin fails and writes nothing on its own, the outer
**     rollback ends it, and the next transaction works;
**   - BEGIN refused (another program holds the write lock): no level is
**     counted open, the next begin once the lock is free is an outer one;
**   - kill -9 between an inner commit and the outer COMMIT: nothing of it
**     is in the file, which is whole, and the next session is number 1.
** Before, a begin inside a transaction failed ("cannot start a
** transaction within a transaction") and a new session was written in
** several commits: a failed first save left rows and took ids.
*/
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness.h"

#include "../../storage/store.h"
#include "../../storage/store_int.h"
#include "store_test.h"

static const int32_t IDS[2] = { 1, 2 };

static int64_t
count(const char *db, const char *table)
{
    char sql[96];

    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    return q_int(db, sql);
}

static void
test_commit_both(store *st, const char *db)
{
    rwkv_err err;
    int64_t a, b, t;

    TEST_CONDF(store_tx_begin(st, &err) == RWKV_OK, "outer begin (%s)", err.msg);
    a = new_session(st, "outer");
    TEST_CONDF(store_tx_begin(st, &err) == RWKV_OK, "inner begin inside it (%s)", err.msg);
    b = new_session(st, "inner");
    TEST_CONDF(store_tx_commit(st, &err) == RWKV_OK, "inner commit (%s)", err.msg);
    /* a write with its own transaction, nested as a third level */
    t = add_turn(st, b, 0, STORE_ROLE_USER, "hi", IDS, 2, NULL, 0, NULL, NULL);
    TEST_COND("a write of its own transaction inside it", a == 1 && b == 2 && t == 1);
    TEST_COND("nothing is in the file before the outer COMMIT",
              count(db, "sessions") == 0 && count(db, "turns") == 0);
    TEST_CONDF(store_tx_commit(st, &err) == RWKV_OK, "outer commit (%s)", err.msg);
    TEST_COND("all of it is in the file after it",
              count(db, "sessions") == 2 && count(db, "turns") == 1);
}

static void
test_inner_rollback(store *st, const char *db)
{
    rwkv_err err;
    int64_t a, b;

    TEST_COND("begin", store_tx_begin(st, &err) == RWKV_OK);
    a = new_session(st, "kept");
    TEST_CONDF(store_tx_begin(st, &err) == RWKV_OK, "inner begin (%s)", err.msg);
    b = new_session(st, "undone");
    store_tx_rollback(st);
    TEST_COND("the outer transaction is still open", !sqlite3_get_autocommit(st->db));
    TEST_CONDF(store_tx_commit(st, &err) == RWKV_OK, "outer commit (%s)", err.msg);
    TEST_COND("an inner rollback undoes its level only",
              a == 3 && b == 4 && q_int(db, "SELECT count(*) FROM sessions WHERE id=3") == 1 &&
                  q_int(db, "SELECT count(*) FROM sessions WHERE id=4") == 0);
}

static void
test_outer_rollback(store *st, const char *db)
{
    rwkv_err err;
    int64_t a, t, c;

    TEST_COND("begin", store_tx_begin(st, &err) == RWKV_OK);
    a = new_session(st, "first try");
    TEST_COND("inner begin", store_tx_begin(st, &err) == RWKV_OK);
    t = add_turn(st, a, 0, STORE_ROLE_SYSTEM, "greeting", IDS, 2, NULL, 0, NULL, NULL);
    TEST_CONDF(store_tx_commit(st, &err) == RWKV_OK, "inner commit (%s)", err.msg);
    store_tx_rollback(st);
    TEST_COND("the outer rollback ends the transaction", sqlite3_get_autocommit(st->db));
    TEST_COND("an outer rollback undoes the committed inner level: no row",
              t != 0 && q_int(db, "SELECT count(*) FROM sessions WHERE title='first try'") == 0 &&
                  count(db, "turns") == 1);
    c = new_session(st, "second try");
    TEST_CONDF(c == a && c == 4, "no id taken: the next session is %lld (the undone one %lld)",
               (long long)c, (long long)a);
}

static void
test_three_levels(store *st, const char *db)
{
    rwkv_err err;
    int64_t a, b, c;

    TEST_COND("begin 1", store_tx_begin(st, &err) == RWKV_OK);
    a = new_session(st, "L1");
    TEST_COND("begin 2", store_tx_begin(st, &err) == RWKV_OK);
    b = new_session(st, "L2");
    TEST_COND("begin 3", store_tx_begin(st, &err) == RWKV_OK);
    c = new_session(st, "L3");
    TEST_COND("commit 3", store_tx_commit(st, &err) == RWKV_OK);
    store_tx_rollback(st);             /* level 2, with level 3 in it */
    TEST_COND("commit 1", store_tx_commit(st, &err) == RWKV_OK);
    TEST_COND("the middle level rolled back takes the one inside it along",
              a != 0 && b != 0 && c != 0 &&
                  q_int(db, "SELECT count(*) FROM sessions WHERE title='L1'") == 1 &&
                  q_int(db, "SELECT count(*) FROM sessions WHERE title IN ('L2','L3')") == 0);
}

static void
test_inner_fails(store *st, const char *db)
{
    rwkv_err err;
    int64_t a, t, n0 = count(db, "turns");

    TEST_COND("begin", store_tx_begin(st, &err) == RWKV_OK);
    a = new_session(st, "inner fails");
    /* under a parent not there: turn_append rolls its own level back */
    t = add_turn(st, a, 999999, STORE_ROLE_USER, "orphan", IDS, 2, NULL, 0, NULL, &err);
    TEST_COND("the inner write fails", t == 0);
    TEST_COND("the outer transaction is still open", !sqlite3_get_autocommit(st->db));
    t = add_turn(st, a, 0, STORE_ROLE_USER, "good", IDS, 2, NULL, 0, NULL, NULL);
    TEST_CONDF(store_tx_commit(st, &err) == RWKV_OK, "outer commit (%s)", err.msg);
    TEST_COND("the outer transaction's rows are in, the failed one's are not",
              t != 0 && count(db, "turns") == n0 + 1 &&
                  q_int(db, "SELECT count(*) FROM turns WHERE text='orphan'") == 0);
}

static void
test_lost(store *st, const char *db)
{
    rwkv_err err;
    int64_t a, t, n0 = count(db, "sessions");

    TEST_COND("begin", store_tx_begin(st, &err) == RWKV_OK);
    a = new_session(st, "lost");
    /* what SQLite does by itself on a full disk or an I/O error */
    sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    err.msg[0] = '\0';
    TEST_CONDF(store_tx_begin(st, &err) == RWKV_EDB && err.msg[0] != '\0',
               "an inner begin fails once the transaction is gone (%s)", err.msg);
    t = add_turn(st, a, 0, STORE_ROLE_USER, "alone", IDS, 2, NULL, 0, NULL, &err);
    TEST_COND("a write of its own transaction writes nothing on its own",
              t == 0 && q_int(db, "SELECT count(*) FROM turns WHERE text='alone'") == 0);
    store_tx_rollback(st);
    TEST_COND("nothing of it is in the file", count(db, "sessions") == n0);
    TEST_COND("the next transaction is an outer one", store_tx_begin(st, &err) == RWKV_OK &&
                                                          store_tx_commit(st, &err) == RWKV_OK);
    a = new_session(st, "after");
    TEST_COND("and a plain write commits", a != 0 && count(db, "sessions") == n0 + 1);
}

static void
test_busy(store *st, const char *db)
{
    rwkv_err err;
    sqlite3 *h = lock_take(db);

    if (h == NULL) {
        TEST_COND("lock", 0);
        return;
    }
    TEST_COND("BEGIN refused under another's lock", store_tx_begin(st, &err) == RWKV_EDB);
    lock_release(h);
    TEST_CONDF(store_tx_begin(st, &err) == RWKV_OK, "the next begin works (%s)", err.msg);
    new_session(st, "after the lock");
    TEST_CONDF(store_tx_commit(st, &err) == RWKV_OK, "and commits as an outer one (%s)", err.msg);
    TEST_COND("its row is in the file",
              q_int(db, "SELECT count(*) FROM sessions WHERE title='after the lock'") == 1);
}

/* A child begins, writes a session and a nested turn, commits the inner
** level and is killed before the outer COMMIT. */
static void
test_kill9(void)
{
    char db[600];
    store *st;
    pid_t pid;
    int status = 0;
    int64_t c;

    test_tmp_path(db, sizeof db, "kill.db");
    if ((st = store_test_open_busy("kill.db", db, sizeof db, 2000)) == NULL)
        return;
    store_close(st);
    fflush(stdout);
    if ((pid = fork()) == 0) {
        rwkv_err err;
        int64_t a;
        if (store_open(db, &st, &err) != RWKV_OK || store_tx_begin(st, &err) != RWKV_OK)
            _exit(2);
        a = new_session(st, "killed");
        if (store_tx_begin(st, &err) != RWKV_OK ||
            add_turn(st, a, 0, STORE_ROLE_SYSTEM, "g", IDS, 2, NULL, 0, NULL, NULL) == 0 ||
            store_tx_commit(st, &err) != RWKV_OK)
            _exit(3);
        raise(SIGKILL);
        _exit(4);
    }
    waitpid(pid, &status, 0);
    TEST_CONDF(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child killed (status %d)",
               status);
    TEST_COND("nothing of the killed write is in the file",
              count(db, "sessions") == 0 && count(db, "turns") == 0);
    TEST_COND("the file is whole", q_integrity_ok(db));
    if ((st = store_test_open_busy("kill.db", db, sizeof db, 2000)) == NULL)
        return;
    c = new_session(st, "next");
    TEST_CONDF(c == 1, "the next session is number 1 (%lld)", (long long)c);
    store_close(st);
}

int
main(void)
{
    char db[600];
    store *st;

    if (test_tmpdir("rwkv-tx-nest") == NULL)
        return 1;
    if ((st = store_test_open_busy("nest.db", db, sizeof db, 200)) != NULL) {
        test_commit_both(st, db);
        test_inner_rollback(st, db);
        test_outer_rollback(st, db);
        test_three_levels(st, db);
        test_inner_fails(st, db);
        test_lost(st, db);
        test_busy(st, db);
        store_close(st);
    }
    test_kill9();
    test_tmpdir_remove();
    return TEST_REPORT();
}
