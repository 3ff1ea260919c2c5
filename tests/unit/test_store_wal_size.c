/*
** test_store_wal_size.c -- the size of the -wal file beside the session
** database over a long chat (storage/store_file.c, wal_trim), on real
** files in a temp dir, with another window's connection open the whole
** time (SQLite's close deletes the -wal only when it is the last one).
**
** SQLite rewinds its WAL after a checkpoint but keeps the file's size: the
** store's autocheckpoint (256 frames of 64 KB) left a long chat's -wal at
** 16 MB and more for as long as the client ran, and after it quit while
** another window had the database open.  Now the -wal is cut to nothing
** (a TRUNCATE checkpoint that never waits) at store_close and at the
** session runtime's quiet point, after a reply is saved (store_wal_trim).
**
**   - a 2,000-turn session written through the store API (200 KB states,
**     the default retention): the -wal never grows past the autocheckpoint's
**     size by more than a turn's writes; after store_close it is empty, the
**     other connection still open; gone once that one closes too; the time
**     a turn took printed;
**   - the last turn resumes (branch read, state restored from its own
**     snapshot, bit-exact) and the session forks from turn 1, the times
**     printed, not asserted;
**   - the session runtime (the demo model): the -wal is empty after every
**     reply it saved, the other connection open.
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>
#include <time.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

#define N_TURNS 2000
#define NF      50688   /* floats in a state: the tiny 7v0 model's (198 KB) */
#define MB      (1024L * 1024L)

static const store_state_meta META = { 42, "7.0", 12, 64, 1, 64, STORE_PREC_FP32, 0, 0 };

static double
mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Another window: a connection of its own, one read done, then idle. */
static sqlite3 *
other_window(const char *db)
{
    sqlite3 *h = NULL;

    if (sqlite3_open(db, &h) != SQLITE_OK ||
        sqlite3_exec(h, "SELECT count(*) FROM sessions", NULL, NULL, NULL) != SQLITE_OK) {
        printf("     other window: %s\n", h ? sqlite3_errmsg(h) : "?");
        sqlite3_close(h);
        return NULL;
    }
    return h;
}

static void
long_session(void)
{
    char db[600], wal[700];
    store *st = NULL;
    sqlite3 *other;
    float *v = malloc(NF * sizeof *v), *back = malloc(NF * sizeof *back);
    int64_t sid, parent = 0, first = 0, nid = 0;
    long max_wal = 0, size;
    double t0, t_write, t_close;
    rwkv_err err;
    int ok = 1;

    test_tmp_path(db, sizeof db, "long.db");
    snprintf(wal, sizeof wal, "%s-wal", db);
    if (v == NULL || back == NULL || store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open: %s", v && back ? err.msg : "out of memory");
        free(v);
        free(back);
        return;
    }
    sid = new_session(st, "long");
    other = other_window(db);
    TEST_COND("another window's connection", other != NULL);

    t0 = mono_ms();
    for (int i = 0; i < N_TURNS && ok; i++) {
        int32_t ids[4] = { i, i + 1, i + 2, i + 3 };
        char text[64];
        snprintf(text, sizeof text, "turn %d: a line of the chat", i);
        test_fake_state(v, NF, i);
        parent = add_turn(st, sid, parent, i % 2 ? STORE_ROLE_ASSISTANT : STORE_ROLE_USER, text,
                          ids, 4, v, NF, &META, NULL);
        ok = parent != 0;
        if (i == 0)
            first = parent;
        size = file_size(wal);
        if (size > max_wal)
            max_wal = size;
    }
    t_write = mono_ms() - t0;
    TEST_CONDF(ok, "%d turns written", N_TURNS);
    TEST_INFO("%d turns (%d KB states) written in %.0f ms (%.2f ms a turn); the -wal at most "
              "%.1f MB, %.1f MB at the end; the file %.1f MB", N_TURNS, NF * 4 / 1024,
              t_write, t_write / N_TURNS, (double)max_wal / MB, (double)file_size(wal) / MB,
              (double)file_size(db) / MB);
    TEST_CONDF(max_wal <= 256 * (65536 + 24) + 16 * MB,
               "the -wal stays near the autocheckpoint's size (%.1f MB)", (double)max_wal / MB);

    /* resume the last turn: its branch, its state */
    {
        store_session ss;
        store_turn *turns = NULL;
        store_plan plan;
        size_t n = 0;
        double t_read, t_state;

        memset(&plan, 0, sizeof plan);
        t0 = mono_ms();
        ok = store_session_get(st, sid, &ss, &err) == RWKV_OK && ss.head_turn == parent &&
             store_branch_read(st, ss.head_turn, &turns, &n, &err) == RWKV_OK && n == N_TURNS;
        t_read = mono_ms() - t0;
        TEST_CONDF(ok, "resume: the branch of %d turns read (%zu: %s)", N_TURNS, n,
                   ok ? "" : err.msg);
        store_branch_free(turns, n);
        t0 = mono_ms();
        ok = store_state_restore(st, parent, &META, back, NF, &plan, &err) == RWKV_OK;
        t_state = mono_ms() - t0;
        test_fake_state(v, NF, N_TURNS - 1);
        TEST_CONDF(ok && plan.base_turn == parent && plan.n_tokens == 0 &&
                       memcmp(v, back, NF * sizeof *v) == 0,
                   "resume: the last turn's own state, bit-exact (%s)", ok ? "" : err.msg);
        store_plan_fini(&plan);
        TEST_INFO("resume of turn %d: branch read %.1f ms, state restored %.1f ms", N_TURNS,
                  t_read, t_state);
    }
    /* fork from turn 1 */
    t0 = mono_ms();
    ok = store_session_fork(st, sid, first, NULL, &nid, &err) == RWKV_OK;
    TEST_INFO("fork from turn 1: %.1f ms", mono_ms() - t0);
    TEST_CONDF(ok && q_int(db, "SELECT count(*) FROM turns WHERE session_id IN "
                               "(SELECT max(id) FROM sessions)") == 1,
               "fork from turn 1: a session of one turn (%s)", ok ? "" : err.msg);

    t0 = mono_ms();
    store_close(st);
    t_close = mono_ms() - t0;
    size = file_size(wal);
    TEST_INFO("close: %.1f ms; the -wal after it %ld bytes (another window open)", t_close, size);
    TEST_CONDF(size >= 0 && size <= 65536 + 24 + 32,
               "after close, another window open: the -wal is cut (%ld bytes)", size);
    sqlite3_close(other);
    TEST_CONDF(file_size(wal) < 0, "the last connection closed: no -wal (%ld bytes)",
               file_size(wal));
    TEST_COND("intact", q_integrity_ok(db));
    free(v);
    free(back);
}

/* The session runtime: the -wal is cut after each reply it saved. */
static void
runtime(rwkv_model *m, const tok *t)
{
    char db[600], wal[700];
    sess_config sc;
    sess *s;
    sqlite3 *other = NULL;
    long sizes[6];
    int ok = 1;

    test_tmp_path(db, sizeof db, "runtime.db");
    snprintf(wal, sizeof wal, "%s-wal", db);
    sess_test_config(&sc, m, t, db, 7, 8);
    if ((s = sess_test_create(&sc)) == NULL)
        return;
    for (int i = 0; i < 6 && ok; i++) {
        char msg[32];
        snprintf(msg, sizeof msg, "message %d", i);
        ok = say(s, msg) == 0;
        if (i == 0)
            other = other_window(db);  /* the file is made by the first save */
        sizes[i] = file_size(wal);
    }
    TEST_CONDF(ok && other != NULL, "six exchanges, another window open");
    TEST_INFO("the -wal after each reply: %ld %ld %ld %ld %ld %ld bytes", sizes[0], sizes[1],
              sizes[2], sizes[3], sizes[4], sizes[5]);
    for (int i = 1; i < 6 && ok; i++)
        TEST_CONDF(sizes[i] == 0, "after reply %d the -wal is empty (%ld bytes)", i + 1,
                   sizes[i]);
    sess_destroy(s);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns WHERE role=2") == 6,
               "six replies in the file (%lld)",
               (long long)q_int(db, "SELECT count(*) FROM turns WHERE role=2"));
    sqlite3_close(other);
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;

    if (test_tmpdir("rwkv-test-store-wal-size") == NULL)
        return 1;
    long_session();
    if (sess_test_demo(NULL, &m, &t) == 0)
        runtime(m, t);
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
