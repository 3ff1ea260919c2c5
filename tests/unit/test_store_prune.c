/*
** test_store_prune.c -- a session's whole turn tree in one read and
** deleting a branch (storage/store_prune.c), on real SQLite files in a temp
** dir: tree order and shape, a branch off the current path (head kept), the
** current branch (head to the sibling's leaf), the root (session empty),
** snapshots and search entries gone with the turns, other sessions
** untouched, a missing turn refused, a parent loop in a tampered file.
** Giving space back (storage/store_vacuum.c): deleting a branch shrinks the
** file; store_vacuum (`sessions vacuum`) on free pages left by others, on a
** file made without incremental auto-vacuum, and with a reader holding the
** WAL.
*/
#include <sqlite3.h>
#include <stdint.h>
#include <unistd.h>

#include "../../storage/store.h"
#include "../harness.h"
#include "store_test.h"

static const store_state_meta META = { 0x42, "7.0", 2, 4, 1, 4, STORE_PREC_FP32, 0, 0 };

static int64_t
append(store *st, int64_t sess, int64_t parent, int role, const char *text)
{
    float state[16];

    for (int i = 0; i < 16; i++)
        state[i] = (float)i;
    return add_turn(st, sess, parent, role, text, NULL, 0, state, 16, &META, NULL);
}

static int64_t
head_of(store *st, int64_t sid)
{
    store_session s;
    rwkv_err err;
    return store_session_get(st, sid, &s, &err) == RWKV_OK ? s.head_turn : -1;
}

static size_t
hits(store *st, const char *text)
{
    store_hit *h = NULL;
    size_t n = 0;
    rwkv_err err;
    if (store_search(st, text, 50, &h, &n, &err) != RWKV_OK)
        n = (size_t)-1;
    free(h);
    return n;
}

/*
**   u1 "alpha" - a1 - u2 "beta"  - a2
**              \ a1b - u3 "gamma" - a3      (head: a3)
*/
static void
test_tree_and_prune(store *st, const char *db)
{
    int64_t s = new_session(st, "tree"), other = new_session(st, "other");
    int64_t u1 = append(st, s, 0, STORE_ROLE_USER, "alpha\nsecond line");
    int64_t a1 = append(st, s, u1, STORE_ROLE_ASSISTANT, "reply one");
    int64_t u2 = append(st, s, a1, STORE_ROLE_USER, "beta words");
    int64_t a2 = append(st, s, u2, STORE_ROLE_ASSISTANT, "reply two");
    int64_t a1b = append(st, s, u1, STORE_ROLE_ASSISTANT, "reply one b");
    int64_t u3 = append(st, s, a1b, STORE_ROLE_USER, "gamma words");
    int64_t a3 = append(st, s, u3, STORE_ROLE_ASSISTANT, "reply three");
    int64_t o1 = append(st, other, 0, STORE_ROLE_USER, "beta elsewhere");
    store_tree_node *tr = NULL;
    size_t n = 0;
    store_prune p;
    rwkv_err err;

    TEST_COND("head at the last turn", head_of(st, s) == a3);
    TEST_COND("tree read", store_session_tree(st, s, &tr, &n, &err) == RWKV_OK && n == 7);
    if (n == 7) {
        int64_t want[7] = { u1, a1, u2, a2, a1b, u3, a3 };
        int depth[7] = { 0, 1, 2, 3, 1, 2, 3 };
        int ok = 1;
        for (int i = 0; i < 7; i++)
            ok &= tr[i].id == want[i] && tr[i].depth == depth[i];
        TEST_COND("depth-first, children in creation order", ok);
        TEST_COND("u1 has two children", tr[0].n_children == 2 && tr[0].last);
        TEST_COND("a1 is not the last child, a1b is", !tr[1].last && tr[4].last);
        TEST_COND("parents", tr[1].parent_id == u1 && tr[4].parent_id == u1 && tr[0].parent_id == 0);
        TEST_COND("roles", tr[0].role == STORE_ROLE_USER && tr[1].role == STORE_ROLE_ASSISTANT);
        TEST_COND("text kept (newline and all)", strcmp(tr[0].text, "alpha\nsecond line") == 0);
    }
    free(tr);

    /* a branch off the current path: the head stays */
    TEST_COND("plan u2", store_turn_prune_plan(st, u2, &p, &err) == RWKV_OK && p.n_turns == 2 &&
                             !p.has_head && p.head == a3 && p.parent == a1 && p.session == s);
    TEST_COND("search finds beta twice", hits(st, "beta") == 2);
    TEST_COND("prune u2", store_turn_prune(st, u2, &p, &err) == RWKV_OK && p.n_turns == 2);
    TEST_COND("u2, a2 gone", q_int(db, "SELECT count(*) FROM turns") == 6);
    {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM snapshots WHERE turn_id IN (%lld, %lld)",
                 (long long)u2, (long long)a2);
        TEST_COND("their snapshots gone", q_int(db, sql) == 0);
    }
    TEST_COND("search entries gone, the other session's kept", hits(st, "beta") == 1);
    TEST_COND("head kept", head_of(st, s) == a3);

    /* the current branch: the head moves to the previous sibling's leaf */
    TEST_COND("plan a1b", store_turn_prune_plan(st, a1b, &p, &err) == RWKV_OK && p.n_turns == 3 &&
                              p.has_head && p.head == a1);
    TEST_COND("prune a1b", store_turn_prune(st, a1b, &p, &err) == RWKV_OK && p.head == a1);
    TEST_COND("head moved to a1", head_of(st, s) == a1);
    TEST_COND("tree now u1, a1", store_session_tree(st, s, &tr, &n, &err) == RWKV_OK && n == 2 &&
                                     tr[0].id == u1 && tr[1].id == a1 && tr[0].n_children == 1);
    free(tr);

    /* the only child: the head goes to the parent */
    TEST_COND("plan a1: parent", store_turn_prune_plan(st, a1, &p, &err) == RWKV_OK &&
                                     p.has_head && p.head == u1);

    /* the root: the session is empty, kept */
    TEST_COND("plan root", store_turn_prune_plan(st, u1, &p, &err) == RWKV_OK && p.n_turns == 2 &&
                               p.has_head && p.head == 0 && p.parent == 0);
    TEST_COND("prune root", store_turn_prune(st, u1, NULL, &err) == RWKV_OK);
    TEST_COND("session empty", head_of(st, s) == 0 &&
                                   store_session_tree(st, s, &tr, &n, &err) == RWKV_OK && n == 0);
    free(tr);
    TEST_COND("the other session untouched", head_of(st, other) == o1 &&
                                                 store_session_tree(st, other, &tr, &n, &err) == RWKV_OK && n == 1);
    free(tr);

    /* a turn that is not there */
    TEST_COND("missing turn: EINVAL", store_turn_prune(st, a3, &p, &err) == RWKV_EINVAL &&
                                          strstr(err.msg, "no turn") != NULL);
    TEST_COND("missing turn: plan EINVAL", store_turn_prune_plan(st, 999999, &p, &err) == RWKV_EINVAL);
}

/* A tampered file: two turns that are each other's parent are left out of
** the tree, and a prune of one of them ends. */
static void
test_loop(store *st, const char *db)
{
    int64_t s = new_session(st, "loop");
    int64_t u = append(st, s, 0, STORE_ROLE_USER, "root");
    int64_t a = append(st, s, u, STORE_ROLE_ASSISTANT, "x");
    int64_t b = append(st, s, a, STORE_ROLE_USER, "y");
    store_tree_node *tr = NULL;
    size_t n = 0;
    store_prune p;
    rwkv_err err;
    char sql[160];
    sqlite3 *h;

    snprintf(sql, sizeof sql, "UPDATE turns SET parent_id=%lld WHERE id=%lld", (long long)b,
             (long long)a);
    TEST_COND("tamper", sqlite3_open(db, &h) == SQLITE_OK &&
                            sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(h);
    TEST_COND("loop: tree read, the loop left out",
              store_session_tree(st, s, &tr, &n, &err) == RWKV_OK && n == 1 && tr[0].id == u);
    free(tr);
    TEST_COND("loop: prune ends", store_turn_prune(st, a, &p, &err) == RWKV_OK && p.n_turns >= 1);
}

/* Deleting a branch of 20 large snapshots gives their pages back. */
static void
test_prune_reclaims(store *st, const char *db)
{
    const size_t n = 50688;               /* ~200 KB a state */
    store_retention keep = { 1000, 1 }, def = { STORE_KEEP_LAST_DEFAULT, STORE_EVERY_DEFAULT };
    float *v = calloc(n, sizeof *v);
    int64_t s = new_session(st, "big"), root, br, at;
    store_prune p;
    rwkv_err err;
    long before, after;

    if (v == NULL)
        return;
    store_set_retention(st, &keep);
    root = add_turn(st, s, 0, STORE_ROLE_USER, "root", NULL, 0, v, n, &META, NULL);
    br = at = add_turn(st, s, root, STORE_ROLE_ASSISTANT, "branch", NULL, 0, v, n, &META, NULL);
    for (int i = 0; i < 19; i++) {
        v[0] = (float)i;
        at = add_turn(st, s, at, i % 2 ? STORE_ROLE_ASSISTANT : STORE_ROLE_USER, "more", NULL, 0,
                      v, n, &META, NULL);
    }
    store_set_retention(st, &def);
    TEST_COND("big branch made", at > 0 && q_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)") == 0);
    before = file_size(db);
    TEST_COND("prune the big branch", store_turn_prune(st, br, &p, &err) == RWKV_OK &&
                                          p.n_turns == 20);
    after = file_size(db);
    TEST_CONDF(before - after > 15 * (long)(n * 4), "branch delete: the file shrank: %ld -> %ld",
               before, after);
    TEST_COND("branch delete: no free pages left", q_int(db, "PRAGMA freelist_count") == 0);
    TEST_COND("branch delete: the root kept", q_int(db, "SELECT count(*) FROM snapshots") >= 1);
    free(v);
}

/* 8 MB of free pages left in DB by another connection (a table dropped). */
static void
free_pages(const char *db)
{
    TEST_COND("free pages made", q_exec(db, "CREATE TABLE junk(b); INSERT INTO junk VALUES "
                                            "(zeroblob(8000000)); DROP TABLE junk") == 0 &&
                                     q_int(db, "PRAGMA freelist_count") > 100);
}

/* store_vacuum: incremental, full on an old file, and with a reader. */
static void
test_vacuum(const char *db)
{
    store *st = NULL;
    store_vacuum_info v;
    rwkv_err err;
    sqlite3 *h = NULL;
    sqlite3_stmt *q = NULL;

    if (store_open(db, &st, &err) != RWKV_OK)
        return;
    free_pages(db);
    TEST_CONDF(store_vacuum(st, &v, &err) == RWKV_OK && !v.full && !v.busy &&
                   v.free_pages > 100 && v.bytes_before - v.bytes_after > 7000000 &&
                   (long)v.bytes_after == file_size(db),
               "vacuum: %llu -> %llu bytes, %lld pages", (unsigned long long)v.bytes_before,
               (unsigned long long)v.bytes_after, (long long)v.free_pages);
    TEST_COND("vacuum: nothing free, intact", q_int(db, "PRAGMA freelist_count") == 0 &&
                                                  q_integrity_ok(db) &&
                                                  q_int(db, "SELECT count(*) FROM sessions") == 4);
    TEST_COND("vacuum again: nothing to do", store_vacuum(st, &v, &err) == RWKV_OK &&
                                                 v.free_pages == 0 && !v.full);
    store_close(st);

    /* a file made without incremental auto-vacuum: one full VACUUM */
    TEST_COND("no auto-vacuum", q_exec(db, "PRAGMA auto_vacuum=NONE; VACUUM") == 0 &&
                                    q_int(db, "PRAGMA auto_vacuum") == 0);
    free_pages(db);
    if (store_open(db, &st, &err) != RWKV_OK)
        return;
    TEST_COND("old file: full vacuum", store_vacuum(st, &v, &err) == RWKV_OK && v.full &&
                                           v.bytes_before - v.bytes_after > 7000000);
    TEST_COND("old file: incremental from now on", q_int(db, "PRAGMA auto_vacuum") == 2 &&
                                                       q_integrity_ok(db));

    /* a reader holds the WAL: the pages are freed, the cut waits for it */
    free_pages(db);
    TEST_COND("reader", sqlite3_open(db, &h) == SQLITE_OK &&
                            sqlite3_exec(h, "BEGIN", NULL, NULL, NULL) == SQLITE_OK &&
                            sqlite3_prepare_v2(h, "SELECT count(*) FROM turns", -1, &q, NULL) ==
                                SQLITE_OK &&
                            sqlite3_step(q) == SQLITE_ROW);
    TEST_CONDF(store_vacuum(st, &v, &err) == RWKV_OK && v.busy && !v.full,
               "with a reader: busy said (%s)", v.busy ? "busy" : err.msg);
    sqlite3_finalize(q);
    sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(h);
    TEST_COND("reader gone: the next vacuum cuts the file",
              store_vacuum(st, &v, &err) == RWKV_OK && !v.busy &&
                  v.bytes_after < 2000000 && q_int(db, "PRAGMA freelist_count") == 0);
    store_close(st);
}

int
main(void)
{
    char db[512];
    store *st;

    if (test_tmpdir("rwkv-prune") == NULL)
        return 1;
    if ((st = store_test_open("prune.db", db, sizeof db)) != NULL) {
        test_tree_and_prune(st, db);
        test_loop(st, db);
        test_prune_reclaims(st, db);
        store_close(st);
        test_vacuum(db);
    }
    test_tmpdir_remove();
    return TEST_REPORT();
}
