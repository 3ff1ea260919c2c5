/*
** test_store_busy.c -- another program holding the session database's write
** lock (a second SQLite connection in BEGIN IMMEDIATE) past the store's busy
** time, on real files in a temp dir: the store's lock waits (store.c,
** busy_wait) and the session runtime's saves of one message under such a
** lock.
**
** Before, one message waited the full busy timeout (10 s) once for each row
** it tried to write while the lock was held -- the user turn at submit, then
** again when the reply started (and for a new session, its row each time) --
** so the user waited 20 s and more for one message.  Now a message waits at
** most once (store_busy_once): its later rows give up at once while the lock
** is still held, are kept out as a failed save is, and are written first, in
** order, with the next message.  Counted, not timed: store_busy_timeouts
** says how many waits ran out (the busy time is cut to 200 ms here).
**
** The lock holder is a connection of this process (SQLite keeps the locks
** of two connections of one process apart as it does for two processes).
**
** The busy hook (store_set_busy_hook): a front end is told when a wait
** begins and every nap after, and can give the wait up -- the write fails
** at once with an error saying so.  And the vacuum after a delete that
** committed (store_vacuum_after_delete) does not wait for a lock at all.
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "../../storage/store_int.h"
#include "session_test.h"

#include <time.h>

#define BUSY_MS 200

/* How many times NEEDLE is in HAY. */
static int
count_of(const char *hay, const char *needle)
{
    int n = 0;

    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* The store alone: every statement waits its full time unless a job is
** begun with store_busy_once; in one, the first wait that runs out is the
** only one. */
static void
test_store(void)
{
    char db[600];
    store *st;
    rwkv_err err;
    sqlite3 *h;
    int64_t sid;

    if ((st = store_test_open_busy("store.db", db, sizeof db, BUSY_MS)) == NULL)
        return;
    sid = new_session(st, "mine");
    if ((h = lock_take(db)) == NULL) {
        TEST_COND("lock", 0);
        store_close(st);
        return;
    }
    TEST_CONDF(store_session_rename(st, sid, "a", &err) == RWKV_EDB &&
                   strstr(err.msg, "database is locked") && store_busy_timeouts(st) == 1,
               "a write waits, then fails (%s; %llu waits ran out)", err.msg,
               (unsigned long long)store_busy_timeouts(st));
    TEST_COND("without a job, the next one waits again",
              store_session_rename(st, sid, "b", &err) == RWKV_EDB && store_busy_timeouts(st) == 2);
    store_busy_once(st, 1);
    TEST_COND("in a job: the first waits", store_session_rename(st, sid, "c", &err) == RWKV_EDB &&
                                               store_busy_timeouts(st) == 3);
    TEST_CONDF(store_session_rename(st, sid, "d", &err) == RWKV_EDB &&
                   strstr(err.msg, "database is locked") &&
                   store_session_rename(st, sid, "e", &err) == RWKV_EDB &&
                   store_busy_timeouts(st) == 3,
               "the later ones give up at once (%llu waits ran out: %s)",
               (unsigned long long)store_busy_timeouts(st), err.msg);
    lock_release(h);
    TEST_CONDF(store_session_rename(st, sid, "f", &err) == RWKV_OK,
               "a free lock is taken as always (%s)", err.msg);
    if ((h = lock_take(db)) != NULL) {
        store_busy_once(st, 1);        /* the next job */
        TEST_COND("the next job waits once again",
                  store_session_rename(st, sid, "g", &err) == RWKV_EDB &&
                      store_busy_timeouts(st) == 4 &&
                      store_session_rename(st, sid, "h", &err) == RWKV_EDB &&
                      store_busy_timeouts(st) == 4);
        store_busy_once(st, 0);
        TEST_COND("ended: waits as before", store_session_rename(st, sid, "i", &err) == RWKV_EDB &&
                                                store_busy_timeouts(st) == 5);
        lock_release(h);
    }
    TEST_CONDF(q_int(db, "SELECT count(*) FROM sessions WHERE title='f'") == 1,
               "the file holds the write that got the lock");
    store_close(st);
}

/* Milliseconds on the monotonic clock. */
static int64_t
ms_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What the hook saw; it gives up once the wait reached stop_ms (0: never). */
struct hook_log {
    int calls;
    int first;           /* waited_ms of the first call */
    int last;            /* of the last */
    int max_gap;         /* the most ms between two calls, on the clock */
    int backwards;       /* a waited_ms below the one before (one wait) */
    int64_t at;          /* the clock at the last call */
    int stop_ms;
};

static int
hook(void *ud, int waited_ms)
{
    struct hook_log *h = ud;
    int64_t now = ms_now();

    if (h->calls == 0) {
        h->first = waited_ms;
    } else {
        if (now - h->at > h->max_gap)
            h->max_gap = (int)(now - h->at);
        if (waited_ms < h->last)
            h->backwards = 1;
    }
    h->calls++;
    h->last = waited_ms;
    h->at = now;
    return h->stop_ms > 0 && waited_ms >= h->stop_ms;
}

/* The hook: called when a wait begins and before every nap after (100 ms
** apart at most), never without a wait; nonzero gives the wait up at once,
** the error saying so; gone once removed. */
static void
test_hook(void)
{
    char db[600];
    store *st;
    rwkv_err err;
    sqlite3 *h;
    int64_t sid, t0, took;
    uint64_t before;
    struct hook_log log;

    test_tmp_path(db, sizeof db, "hook.db");
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open: %s", err.msg);
        return;
    }
    sid = new_session(st, "mine");
    memset(&log, 0, sizeof log);
    store_set_busy_hook(st, hook, &log);
    TEST_CONDF(store_session_rename(st, sid, "free", &err) == RWKV_OK && log.calls == 0,
               "hook: a free lock, no call (%d)", log.calls);
    if ((h = lock_take(db)) == NULL) {
        TEST_COND("lock", 0);
        store_close(st);
        return;
    }

    /* going on waiting: the wait runs out as before */
    store_set_busy_ms(st, 400);
    before = store_busy_timeouts(st);
    TEST_CONDF(store_session_rename(st, sid, "a", &err) == RWKV_EDB &&
                   strstr(err.msg, "database is locked") && !strstr(err.msg, "gave up") &&
                   store_busy_timeouts(st) - before == 1,
               "hook returning 0: the wait runs out as before (%s)", err.msg);
    TEST_CONDF(log.calls >= 4 && log.first == 0 && !log.backwards && log.last >= 250 &&
                   log.max_gap <= 150,
               "hook: from the wait's start (%d ms), every nap (%d calls, up to %d ms waited, "
               "%d ms apart at most)", log.first, log.calls, log.last, log.max_gap);

    /* giving up: at once, the error says so, not counted as run out */
    store_set_busy_ms(st, 5000);
    memset(&log, 0, sizeof log);
    log.stop_ms = 200;
    before = store_busy_timeouts(st);
    t0 = ms_now();
    TEST_CONDF(store_session_rename(st, sid, "b", &err) == RWKV_EDB &&
                   strstr(err.msg, "database is locked (gave up waiting)"),
               "hook giving up: the write fails, saying so (%s)", err.msg);
    took = ms_now() - t0;
    TEST_CONDF(took >= 190 && took < 1500 && store_busy_timeouts(st) == before,
               "hook giving up: the wait ends then (%lld ms of 5000), not counted as run out",
               (long long)took);

    /* the next write waits again (no job: store_busy_once off) */
    memset(&log, 0, sizeof log);
    log.stop_ms = 50;
    TEST_CONDF(store_session_rename(st, sid, "c", &err) == RWKV_EDB && log.calls >= 2 &&
                   log.first == 0,
               "hook: the next write's wait is told from its start (%d calls)", log.calls);

    /* in a store_busy_once job, a give-up is the job's one wait */
    store_busy_once(st, 1);
    memset(&log, 0, sizeof log);
    log.stop_ms = 50;
    TEST_CONDF(store_session_rename(st, sid, "d", &err) == RWKV_EDB && log.calls >= 2,
               "in a job: the first wait given up");
    log.calls = 0;
    t0 = ms_now();
    TEST_CONDF(store_session_rename(st, sid, "e", &err) == RWKV_EDB && log.calls == 0 &&
                   ms_now() - t0 < 100,
               "in a job: the later ones give up at once, no call (%d)", log.calls);
    store_busy_once(st, 0);

    /* removed: no call, the wait as before */
    store_set_busy_ms(st, 150);
    store_set_busy_hook(st, NULL, NULL);
    memset(&log, 0, sizeof log);
    TEST_CONDF(store_session_rename(st, sid, "f", &err) == RWKV_EDB &&
                   !strstr(err.msg, "gave up") && log.calls == 0,
               "hook removed: no call (%d): %s", log.calls, err.msg);

    /* the vacuum after a delete: tried once, no wait, no wait counted */
    store_set_busy_ms(st, 5000);
    store_set_busy_hook(st, hook, &log);
    before = store_busy_timeouts(st);
    t0 = ms_now();
    store_vacuum_after_delete(st);
    took = ms_now() - t0;
    TEST_CONDF(took < 1000 && log.calls == 0 && store_busy_timeouts(st) == before,
               "the vacuum after a delete does not wait for the lock (%lld ms, %d calls)",
               (long long)took, log.calls);
    lock_release(h);
    TEST_CONDF(store_session_rename(st, sid, "g", &err) == RWKV_OK && log.calls == 0,
               "the lock gone: the write is done, no call (%s)", err.msg);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM sessions WHERE title='g'") == 1,
               "hook: the file holds the write that got the lock");
    store_close(st);
}

/* One message sent while the lock is held: one wait, one line; the next
** message (the lock gone) writes it first. */
static void
one_message(rwkv_model *m, const tok *t, const char *name, int first)
{
    char db[600];
    sess_config sc;
    sess *s;
    sqlite3 *h;
    uint64_t before;

    test_tmp_path(db, sizeof db, name);
    sess_test_config(&sc, m, t, db, 3, 6);
    if ((s = sess_test_create(&sc)) == NULL)
        return;
    store_set_busy_ms(sess_store(s), BUSY_MS);
    if (!first)
        TEST_CONDF(say(s, "one") == 0 && sess_id(s) == 1, "%s: the first message saved", name);
    if ((h = lock_take(db)) == NULL) {
        TEST_COND("lock", 0);
        sess_destroy(s);
        return;
    }
    all_notes[0] = '\0';
    before = store_busy_timeouts(sess_store(s));
    TEST_CONDF(say(s, "two") == 0 && chat_turn_at(sess_chat(s), chat_n_turns(sess_chat(s)) - 1)->n_reply > 0,
               "%s: the message is answered", name);
    TEST_CONDF(store_busy_timeouts(sess_store(s)) - before == 1,
               "%s: one message, one wait (%llu ran out)", name,
               (unsigned long long)(store_busy_timeouts(sess_store(s)) - before));
    /* (a new session's row: "saving the new session: ... (the chat goes on)") */
    TEST_CONDF(count_of(all_notes, "saving ") == 1 && count_of(all_notes, "database is locked") == 1 &&
                   strstr(all_notes, first ? "the chat goes on" : "tried again with your next message"),
               "%s: one line says so: '%s'", name, all_notes);
    lock_release(h);
    all_notes[0] = '\0';
    TEST_CONDF(say(s, "three") == 0 &&
                   strstr(all_notes, first ? "new session 1: two" : "saving works again"),
               "%s: the next message saves it: '%s'", name, all_notes);
    sess_destroy(s);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns WHERE role=1") == (first ? 2 : 3) &&
                   q_int(db, "SELECT count(*) FROM turns WHERE role=2") == (first ? 2 : 3) &&
                   q_int(db, "SELECT count(*) FROM sessions") == 1 &&
                   q_int(db, "SELECT count(*) FROM turns a, turns b WHERE a.role=1 AND b.role=1"
                             " AND a.text='two' AND b.text='three' AND a.depth < b.depth") == 1,
               "%s: every message in the file, one session (%lld turns)", name,
               (long long)q_int(db, "SELECT count(*) FROM turns"));
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns u JOIN turns a ON a.parent_id=u.id"
                         " WHERE u.role=1 AND a.role=2 AND a.interrupted=0") == (first ? 2 : 3),
               "%s: each reply under its message, complete", name);
}

/* The lock taken while the reply runs (at its first text): the reply's end
** waits once; the message after it catches up. */
struct midlock {
    const char *db;
    sqlite3    *h;
    int         armed;       /* take it at the next text */
};

static void
take_at_text(void *ud, const char *text, size_t len)
{
    struct midlock *ml = ud;

    (void)text;
    (void)len;
    if (ml->armed) {
        ml->armed = 0;
        ml->h = lock_take(ml->db);
    }
}

static void
mid_reply(rwkv_model *m, const tok *t)
{
    char db[600];
    struct midlock ml = { db, NULL, 0 };
    sess_config sc;
    sess *s;
    uint64_t before;

    test_tmp_path(db, sizeof db, "mid.db");
    sess_test_config(&sc, m, t, db, 3, 6);
    sc.cb.text = take_at_text;
    sc.cb.ud = &ml;
    if ((s = sess_test_create(&sc)) == NULL)
        return;
    store_set_busy_ms(sess_store(s), BUSY_MS);
    TEST_COND("mid: the first message saved", say(s, "one") == 0 && sess_id(s) == 1);
    ml.armed = 1;
    before = store_busy_timeouts(sess_store(s));
    all_notes[0] = '\0';
    TEST_COND("mid: answered", say(s, "two") == 0 && ml.h != NULL);
    TEST_CONDF(store_busy_timeouts(sess_store(s)) - before == 1 && count_of(all_notes, "saving ") == 1,
               "mid: one wait, one line (%llu ran out): '%s'",
               (unsigned long long)(store_busy_timeouts(sess_store(s)) - before), all_notes);
    if (ml.h != NULL)
        lock_release(ml.h);
    TEST_CONDF(say(s, "three") == 0, "mid: the next message");
    sess_destroy(s);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns u JOIN turns a ON a.parent_id=u.id"
                         " WHERE u.role=1 AND a.role=2 AND a.interrupted=0") == 3,
               "mid: every reply complete in the file (%lld turns)",
               (long long)q_int(db, "SELECT count(*) FROM turns"));
}

static void
test_chat(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;

    if (sess_test_demo(NULL, &m, &t) == 0) {
        one_message(m, t, "next.db", 0);
        one_message(m, t, "first.db", 1);
        mid_reply(m, t);
    }
    rwkv_model_close(m);
    tok_close(t);
}

int
main(void)
{
    if (test_tmpdir("rwkv-test-store-busy") == NULL)
        return 1;
    test_store();
    test_hook();
    test_chat();
    test_tmpdir_remove();
    return TEST_REPORT();
}
