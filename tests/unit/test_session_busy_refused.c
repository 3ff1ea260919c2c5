/*
** test_session_busy_refused.c -- a reply whose start fails leaves no
** wait-once mode behind (storage/session.c, reply_busy_once /
** reply_busy_end), on real database files in a temp dir with a real SQLite
** lock (another connection in BEGIN IMMEDIATE).
**
** A message, a regeneration and a continuation each put the runtime's store
** connection in wait-once mode (store_busy_once: after one lock wait that
** runs out, every later statement gives up at once) before their first row,
** and the end of sess_run took it off.  When the start failed -- a message
** refused (empty), nothing to regenerate or continue, a kept message's feed
** cancelled -- no sess_run came, and the mode stayed on until the next reply
** ran: meanwhile the other work on that connection (a rename, an export, the
** model row) waited once, and every write after that gave up at once while
** another program held the lock, instead of each waiting its full time.
** Counted, not timed: store_busy_timeouts says how many waits ran out (the
** busy time is cut to 200 ms here), so two renames under the lock are two
** full waits.
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

#define BUSY_MS 200
#define MAX_TOK 4

/* sess_cancel of sess_cut.s at the next progress report of a feed
** (CANCEL_FEED); the abandon is session_test.h's cut hook. */
static int cancel_feed;

static void
on_progress(void *ud, uint64_t done, uint64_t total)
{
    (void)ud;
    (void)done;
    (void)total;
    if (cancel_feed) {
        cancel_feed = 0;
        sess_cancel(sess_cut.s);
    }
}

/* Two writes on S's connection (renames of session SID) while DB's lock is
** held: 1 when each waited its full time (two waits ran out). */
static int
two_full_waits(sess *s, const char *db, int64_t sid, const char *what)
{
    store *st = sess_store(s);
    uint64_t before = store_busy_timeouts(st);
    sqlite3 *h = lock_take(db);
    rwkv_err err = { 0 };
    int a, b;

    if (h == NULL)
        return 0;
    a = store_session_rename(st, sid, "renamed", &err) == RWKV_EDB;
    b = store_session_rename(st, sid, "renamed again", &err) == RWKV_EDB;
    lock_release(h);
    if (!(a && b && store_busy_timeouts(st) - before == 2)) {
        printf("     %s: %d of 2 writes waited their full time\n", what,
               (int)(store_busy_timeouts(st) - before));
        return 0;
    }
    return 1;
}

/* A runtime on a new file NAME (its path into DB): sess_test_open_cut, the
** feed's cancel on its progress. */
static sess *
open_sess(rwkv_model *m, const tok *t, char *db, size_t cap, const char *name)
{
    return sess_test_open_cut(m, t, db, cap, name, MAX_TOK, BUSY_MS, on_progress);
}

/* The starts refused by the chat: nothing to regenerate or continue yet, a
** batch of one, an empty message. */
static void
refused(rwkv_model *m, const tok *t)
{
    char db[600];
    sess *s = open_sess(m, t, db, sizeof db, "refused.db");
    int64_t sid;
    rwkv_err err = { 0 };
    int done = -1;

    if (s == NULL)
        return;
    sid = new_session(sess_store(s), "other work");   /* what the renames write */
    TEST_COND("control: nothing started, full waits", two_full_waits(s, db, sid, "control"));

    sess_expect_reply(s);
    TEST_CONDF(sess_regen(s, &err) == RWKV_EINVAL, "regen refused: %s", err.msg);
    TEST_COND("after a refused regeneration: full waits", two_full_waits(s, db, sid, "regen"));

    TEST_CONDF(sess_regen_n(s, 1, NULL, &done, &err) == RWKV_EINVAL && done == 0,
               "a batch refused: %s", err.msg);
    TEST_COND("after a refused batch: full waits", two_full_waits(s, db, sid, "batch"));

    sess_expect_reply(s);
    TEST_CONDF(sess_continue(s, &err) == RWKV_EINVAL, "continue refused: %s", err.msg);
    TEST_COND("after a refused continuation: full waits", two_full_waits(s, db, sid, "continue"));

    TEST_COND("a message answered", say(s, "one") == 0);
    TEST_COND("after a reply: full waits", two_full_waits(s, db, sid, "reply"));

    sess_expect_reply(s);
    TEST_CONDF(sess_submit(s, "  ", 2, &err) == RWKV_EINVAL && strstr(err.msg, "say something"),
               "an empty message refused: %s", err.msg);
    TEST_COND("after a refused message: full waits", two_full_waits(s, db, sid, "message"));
    sess_destroy(s);
}

/*
** A message kept by sess_abandon before the greeting was fed (nothing of
** it fed), then the chat goes on (the client's "Esc back") and the next
** message's start feeds the greeting and the kept message first: cancelled
** there, the message is refused (RWKV_ECANCEL).
*/
static void
feed_cancelled(rwkv_model *m, const tok *t)
{
    char db[600];
    sess *s = open_sess(m, t, db, sizeof db, "feed.db");
    int64_t sid;
    rwkv_err err = { 0 };
    int rc;

    if (s == NULL)
        return;
    sid = new_session(sess_store(s), "other work");
    sess_cut.cancel = 0;
    rc = sess_test_say_cut(s, "first");
    TEST_CONDF(rc == RWKV_OK && sess_unsaved(s) == 1 && !chat_greeting_fed(sess_chat(s)),
               "kept before the greeting (rc %d, %zu out)", rc, sess_unsaved(s));
    cancel_feed = 1;
    sess_expect_reply(s);
    rc = sess_submit(s, "second", 6, &err);
    cancel_feed = 0;
    TEST_CONDF(rc == RWKV_ECANCEL, "the next message refused, its feed cancelled (rc %d: %s)", rc,
               rc != RWKV_OK ? err.msg : "");
    TEST_COND("after a cancelled feed: full waits", two_full_waits(s, db, sid, "feed"));
    sess_destroy(s);
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;

    if (test_tmpdir("rwkv-test-session-busy-refused") == NULL)
        return 1;
    if (sess_test_demo(NULL, &m, &t) == 0) {
        refused(m, t);
        feed_cancelled(m, t);
    }
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
