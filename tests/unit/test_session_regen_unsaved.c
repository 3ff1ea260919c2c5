/*
** test_session_regen_unsaved.c -- a regeneration of a reply whose save
** failed (kept out: storage/session.h, a failed save), cut before its first
** token once the cause has gone, on real database files in a temp dir.
**
** The sequence (the lock case): "one" saved; another program holds the
** write lock (BEGIN IMMEDIATE) while "two" is sent and answered, so none of
** its rows are written and the exchange is kept out; the lock goes; the
** user regenerates the reply, and cancels it before its first token.  The
** regeneration's start (session_db.c, begin_rows) writes the message row
** first -- the store had not got it -- then the begun reply row, and counts
** the exchange as saved.  Cut before its first token, the runtime's rule is
** "nothing changed" (session.h): sess_drop_empty_regen took the empty reply
** row back but left the message row it had just written, and run_one, seeing
** a regeneration that had started, took the store's branch back
** (sess_load_branch) -- a branch without "two".  So the database held a
** message without any reply, the head beside it; the chat lost "two" and the
** reply it had (never saved anywhere); nothing was kept out any more for the
** quit's sess_flush.
**
** Now the rows the regeneration wrote go with it (the message row too, when
** it wrote that), the bookkeeping of what is kept out is as it was before it,
** and the chat gets back what the regeneration replaced (keep_put_back): the
** exchange is kept out as before, and sess_flush writes it -- message and
** the reply it had -- in order.
**
** The second case: the message row was saved but its reply row failed (a
** trigger on the file stands in for a full disk at that row, or another
** program taking the lock between the two rows).  Found on the way: the
** reply's start then wrote the message row a second time, under the first
** (a message under a message, the first without a reply) -- begin_rows took
** the half-saved exchange for an unsaved one; now its reply goes under the
** row that is there.  The same regeneration, cut the same way, then left
** that row without a reply and nothing kept out to write it; now the reply
** it had is still kept out, and written under it.
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
#define MAX_TOK 6

/* A trigger failing every insert of a reply row, as a full disk would. */
#define FAIL_REPLY                                                                     \
    "CREATE TRIGGER test_fail_reply BEFORE INSERT ON turns WHEN NEW.role=2 BEGIN "     \
    "SELECT RAISE(ABORT, 'disk full (test)'); END"

/* Messages in DB without any reply under them. */
static int64_t
n_bare_msgs(const char *db)
{
    return q_int(db, "SELECT count(*) FROM turns u WHERE u.role=1 AND NOT EXISTS "
                     "(SELECT 1 FROM turns r WHERE r.parent_id=u.id AND r.role=2)");
}

/* 1 when the reply under message TEXT in DB is the text REPLY (one such). */
static int
reply_is(const char *db, const char *text, const char *reply)
{
    sqlite3 *h;
    sqlite3_stmt *st;
    int ok = 0;

    if (sqlite3_open(db, &h) != SQLITE_OK)
        return 0;
    if (sqlite3_prepare_v2(h, "SELECT r.text FROM turns u JOIN turns r ON r.parent_id=u.id "
                              "WHERE u.role=1 AND u.text=?1 AND r.role=2", -1, &st,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
        ok = sqlite3_step(st) == SQLITE_ROW &&
             strcmp((const char *)sqlite3_column_text(st, 0), reply) == 0 &&
             sqlite3_step(st) == SQLITE_DONE;
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return ok;
}

/* The last turn of S's chat is MSG with the reply REPLY. */
static int
chat_last_is(sess *s, const char *msg, const char *reply)
{
    size_t n = chat_n_turns(sess_chat(s));
    const chat_turn *ct = n ? chat_turn_at(sess_chat(s), n - 1) : NULL;

    return ct != NULL && strcmp(ct->user, msg) == 0 && strcmp(ct->reply, reply) == 0;
}

/* A regeneration of S's last reply cancelled before its first token (the
** cancel sent after the user asked for it, before it started). */
static int
regen_cut(sess *s)
{
    rwkv_err err = { 0 };
    int rc;

    sess_expect_reply(s);
    sess_cancel(s);
    rc = sess_regen(s, &err);
    if (rc == RWKV_OK)
        rc = sess_run(s, &err);
    if (rc != RWKV_OK)
        printf("     regen: %s\n", err.msg);
    return rc;
}

/* CASE 0: the lock held while "two" went (no row of it saved); 1: its reply
** row failed (its message row saved). */
static void
cut(rwkv_model *m, const tok *t, int kase)
{
    static const char *names[] = { "lock", "reply row" };
    const char *nm = names[kase];
    char db[600], name[32], why[RWKV_ERR_MSG], reply[512];
    sess_config sc;
    sess *s;
    sqlite3 *h = NULL;
    size_t n;

    snprintf(name, sizeof name, "regen-unsaved-%d.db", kase);
    test_tmp_path(db, sizeof db, name);
    sess_test_config(&sc, m, t, db, 7, MAX_TOK);
    sc.chat.no_stop = 1;              /* every reply runs to MAX_TOK */
    if ((s = sess_test_create(&sc)) == NULL)
        return;
    store_set_busy_ms(sess_store(s), BUSY_MS);
    TEST_CONDF(say(s, "one") == 0 && sess_id(s) == 1, "%s: the first exchange saved", nm);
    if (kase == 0 && (h = sess_test_lock(s, db)) == NULL)
        return;
    if (kase == 1 && q_exec(db, FAIL_REPLY) != SQLITE_OK) {
        TEST_COND("the failing trigger", 0);
        sess_destroy(s);
        return;
    }
    TEST_CONDF(say(s, "two") == 0 && sess_started(s), "%s: \"two\" answered", nm);
    n = chat_n_turns(sess_chat(s));
    snprintf(reply, sizeof reply, "%s", n ? chat_turn_at(sess_chat(s), n - 1)->reply : "");
    TEST_CONDF(n == 2 && sess_unsaved(s) == 1 && n_msg(db, "two") == kase,
               "%s: kept out (%zu turns, %zu out, %lld rows)", nm, n, sess_unsaved(s),
               (long long)n_msg(db, "two"));
    if (kase == 0)
        lock_release(h);
    else
        q_exec(db, "DROP TRIGGER test_fail_reply");

    TEST_CONDF(regen_cut(s) == RWKV_OK && !sess_started(s),
               "%s: a regeneration cut before its first token (started %d)", nm,
               sess_started(s));
    TEST_CONDF(chat_n_turns(sess_chat(s)) == 2 && chat_last_is(s, "two", reply),
               "%s: the chat as it was: \"two\" with the reply it had (%zu turns)", nm,
               chat_n_turns(sess_chat(s)));
    TEST_CONDF(n_bare_msgs(db) == (kase == 1 ? 1 : 0) && n_msg(db, "two") == kase,
               "%s: the store as it was: %lld message(s) without a reply, %lld of \"two\"", nm,
               (long long)n_bare_msgs(db), (long long)n_msg(db, "two"));
    TEST_CONDF(sess_unsaved(s) == 1, "%s: still kept out, for the next save (%zu)", nm,
               sess_unsaved(s));
    TEST_CONDF(sess_flush(s, why, sizeof why) == 0 && sess_unsaved(s) == 0,
               "%s: the quit's retry writes it ('%s')", nm, why);
    sess_destroy(s);
    TEST_CONDF(n_bare_msgs(db) == 0 && n_msg(db, "two") == 1 && reply_is(db, "two", reply),
               "%s: every message with its reply, \"two\" once with the reply it had "
               "(%lld bare, %lld rows)", nm, (long long)n_bare_msgs(db),
               (long long)n_msg(db, "two"));
    TEST_CONDF(q_int(db, "SELECT u.text='two' FROM turns r JOIN turns u ON u.id=r.parent_id "
                         "WHERE r.id=(SELECT head_turn FROM sessions)") == 1,
               "%s: the head on its reply", nm);
    TEST_CONDF(q_integrity_ok(db), "%s: the file is sound", nm);
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;

    if (test_tmpdir("rwkv-test-session-regen-unsaved") == NULL)
        return 1;
    if (sess_test_demo(NULL, &m, &t) == 0) {
        cut(m, t, 0);
        cut(m, t, 1);
    }
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
