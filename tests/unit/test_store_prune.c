/*
** test_store_prune.c -- a session's whole turn tree in one read and
** deleting a branch (storage/store_prune.c), on real SQLite files in a temp
** dir: tree order and shape, a branch off the current path (head kept), the
** current branch (head to the sibling's leaf), the root (session empty),
** snapshots and search entries gone with the turns, other sessions
** untouched, a missing turn refused, a parent loop in a tampered file.
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
    store_turn t;
    rwkv_err err;
    float state[16];

    for (int i = 0; i < 16; i++)
        state[i] = (float)i;
    memset(&t, 0, sizeof t);
    t.session_id = sess;
    t.parent_id = parent;
    t.role = role;
    t.text = text;
    if (store_turn_append(st, &t, state, 16, &META, &err) != RWKV_OK) {
        printf("append failed: %s\n", err.msg);
        return 0;
    }
    return t.id;
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

int
main(void)
{
    char db[512];
    store *st = NULL;
    rwkv_err err;

    if (test_tmpdir("rwkv-prune") == NULL)
        return 1;
    test_tmp_path(db, sizeof db, "prune.db");
    TEST_COND("open", store_open(db, &st, &err) == RWKV_OK);
    if (st) {
        test_tree_and_prune(st, db);
        test_loop(st, db);
        store_close(st);
    }
    test_tmpdir_remove();
    return TEST_REPORT();
}
