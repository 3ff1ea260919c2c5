/*
** test_session_abandon.c -- a quit (sess_abandon) that cuts a message before
** its reply began, while the message's save fails: the message is kept
** (storage/session.h, sess_abandon), on real database files in a temp dir
** with a real SQLite lock -- another connection holds the write lock (BEGIN
** IMMEDIATE) while the message is sent, so its rows fail to save, as with a
** full disk or the file-size limit.
**
** Before, the runtime dropped such a message from memory with its prefill
** (as a cancel does): nothing was left for the quit's retry (sess_flush),
** for the front end's question about unsaved exchanges (sess_unsaved) or
** for an export (sess_export), and the words were lost -- while the note
** said they were "tried again with your next message".  Now the exchange
** stays in the chat with an empty interrupted reply, as a reply cut at its
** first token, counted as kept out: the quit's retry writes it when the
** lock is gone, and what still fails is counted.  When the save works, an
** abandoned message is as before: its rows stay saved (user turn, empty
** interrupted reply) and the chat drops it.  A chat that goes on after
** such a keep (the client's "Esc back" from its question) feeds the kept
** message first: its state is the one the saved tokens give by replay.
**
** The abandon lands at the message's first phase callback, inside
** sess_submit before its rows are written: the instant of a quit while the
** message's save waits for the lock.  The busy time is cut to 200 ms here.
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

#define BUSY_MS 200
#define MAX_TOK 6

/* 1 when message TEXT in DB has one reply, empty and marked interrupted, on
** the session's branch (the head is that reply or below it). */
static int
empty_interrupted_reply(const char *db, const char *text)
{
    char sql[512];

    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM turns u JOIN turns r ON r.parent_id=u.id WHERE u.role=1 AND "
             "u.text='%s' AND r.role=2 AND r.interrupted=1 AND r.text='' AND "
             "length(coalesce(r.tokens, x''))=0",
             text);
    return q_int(db, sql) == 1;
}

/* A runtime on a new file NAME (its path into DB): sess_test_open_cut. */
static sess *
open_sess(rwkv_model *m, const tok *t, char *db, size_t cap, const char *name)
{
    return sess_test_open_cut(m, t, db, cap, name, MAX_TOK, BUSY_MS, NULL);
}

/* MSG sent in S and abandoned at its first step (a quit while its save
** waits). */
static int
say_abandoned(sess *s, const char *msg)
{
    sess_cut.cancel = 0;
    return sess_test_say_cut(s, msg);
}

/* The last turn of S's chat: MSG with an empty, interrupted reply. */
static int
chat_kept(sess *s, const char *msg)
{
    size_t n = chat_n_turns(sess_chat(s));
    const chat_turn *ct = n ? chat_turn_at(sess_chat(s), n - 1) : NULL;

    return ct != NULL && strcmp(ct->user, msg) == 0 && ct->n_reply == 0 && ct->interrupted &&
           ct->stop == CHAT_STOP_CANCEL;
}

/*
** The bug: a saved session, the lock held, "two" sent and abandoned (the
** quit) before its reply began.  It stays, counted; the quit's retry under
** the lock counts it with why; an export has it; once the lock is gone the
** retry writes it on the branch, with its empty interrupted reply.
*/
static void
kept_for_the_quit(rwkv_model *m, const tok *t)
{
    char db[600], why[RWKV_ERR_MSG], *buf = NULL;
    sess *s = open_sess(m, t, db, sizeof db, "kept.db");
    sqlite3 *h;
    size_t len = 0;
    rwkv_err err;

    if (s == NULL)
        return;
    TEST_COND("kept: the first message saved", say(s, "one") == 0 && sess_id(s) == 1);
    if ((h = sess_test_lock(s, db)) == NULL)
        return;
    all_notes[0] = '\0';
    TEST_COND("kept: sent and abandoned under the lock", say_abandoned(s, "two") == RWKV_OK);
    TEST_CONDF(strstr(all_notes, "saving your message: ") &&
                   strstr(all_notes, "database is locked"),
               "kept: the failed save was said: '%s'", all_notes);
    TEST_CONDF(chat_n_turns(sess_chat(s)) == 2 && chat_kept(s, "two"),
               "kept: in the chat with an empty interrupted reply (%zu turns)",
               chat_n_turns(sess_chat(s)));
    TEST_COND("kept: as a reply cut at its first token (sess_started)", sess_started(s) == 1);
    TEST_CONDF(sess_unsaved(s) == 1, "kept: counted as kept out (%zu)", sess_unsaved(s));
    TEST_CONDF(sess_flush(s, why, sizeof why) == 1 && strstr(why, "database is locked"),
               "kept: the quit's retry under the lock counts it: '%s'", why);
    TEST_COND("kept: nothing of it written yet", n_msg(db, "two") == 0);
    TEST_CONDF(sess_export(s, STORE_FMT_MD, &buf, &len, &err) == RWKV_OK && buf &&
                   strstr(buf, "one") && strstr(buf, "two") &&
                   strstr(buf, "1 of its 2 exchanges not saved"),
               "kept: an export has it: %s", buf ? buf : err.msg);
    free(buf);

    lock_release(h);
    all_notes[0] = '\0';
    TEST_CONDF(sess_flush(s, why, sizeof why) == 0 && sess_unsaved(s) == 0 &&
                   strstr(all_notes, "saving works again: the earlier exchange not saved is in "
                                     "session 1 now"),
               "kept: the lock gone, the retry writes it ('%s', notes '%s')", why, all_notes);
    sess_destroy(s);
    TEST_CONDF(n_msg(db, "one") == 1 && n_msg(db, "two") == 1 &&
                   empty_interrupted_reply(db, "two"),
               "kept: the message once, its reply empty and interrupted (%lld rows)",
               (long long)n_msg(db, "two"));
    TEST_CONDF(q_int(db, "SELECT u.text='two' FROM turns r JOIN turns u ON u.id=r.parent_id "
                         "WHERE r.id=(SELECT head_turn FROM sessions)") == 1 &&
                   n_replied(db) == 2,
               "kept: at the end of the branch, each reply under its message (%lld turns)",
               (long long)q_int(db, "SELECT count(*) FROM turns"));
}

/*
** The first message of a new chat: not even the session row was written.
** Kept; the retry once the lock is gone makes the session -- its greeting,
** the message and the empty interrupted reply.
*/
static void
kept_new_chat(rwkv_model *m, const tok *t)
{
    char db[600], why[RWKV_ERR_MSG];
    sess *s = open_sess(m, t, db, sizeof db, "new.db");
    sqlite3 *h = sess_test_lock(s, db);

    if (h == NULL)
        return;
    TEST_COND("new: sent and abandoned under the lock", say_abandoned(s, "first") == RWKV_OK);
    TEST_CONDF(sess_id(s) == 0 && chat_kept(s, "first") && sess_unsaved(s) == 1,
               "new: kept, counted (%zu)", sess_unsaved(s));
    TEST_CONDF(sess_flush(s, why, sizeof why) == 1, "new: still locked: counted ('%s')", why);
    lock_release(h);
    TEST_CONDF(sess_flush(s, why, sizeof why) == 0 && sess_id(s) == 1,
               "new: written as session %lld ('%s')", (long long)sess_id(s), why);
    sess_destroy(s);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM sessions") == 1 &&
                   q_int(db, "SELECT count(*) FROM turns WHERE role=0") == 1 &&
                   n_msg(db, "first") == 1 && empty_interrupted_reply(db, "first"),
               "new: greeting, message, empty interrupted reply (%lld turns)",
               (long long)q_int(db, "SELECT count(*) FROM turns"));
}

/*
** When the save works nothing changes: the abandoned message's rows stay
** (its user turn and an empty interrupted reply, written when it was sent),
** the chat drops it, nothing is kept out.
*/
static void
saved_as_before(rwkv_model *m, const tok *t)
{
    char db[600];
    sess *s = open_sess(m, t, db, sizeof db, "saved.db");

    if (s == NULL)
        return;
    TEST_COND("saved: the first message", say(s, "one") == 0);
    TEST_COND("saved: sent and abandoned", say_abandoned(s, "two") == RWKV_OK);
    TEST_CONDF(sess_started(s) == 0 && chat_n_turns(sess_chat(s)) == 1 && sess_unsaved(s) == 0,
               "saved: as before, the chat dropped it, nothing kept out (started %d, %zu turns, "
               "%zu out)", sess_started(s), chat_n_turns(sess_chat(s)), sess_unsaved(s));
    sess_destroy(s);
    TEST_CONDF(n_msg(db, "two") == 1 && empty_interrupted_reply(db, "two"),
               "saved: its rows stay (%lld)", (long long)n_msg(db, "two"));
}

/*
** The greeting still to be fed when the first message went out (no prime):
** no save is tried before it is fed, so even with the save working the
** message was dropped by an abandon in that prefill.  Now kept too, and the
** retry writes the session -- greeting first (without a state: a replay
** feeds it) -- without a "saving works again": nothing failed.
*/
static void
kept_before_greeting(rwkv_model *m, const tok *t)
{
    char db[600], why[RWKV_ERR_MSG];
    sess *s = open_sess(m, t, db, sizeof db, "greet.db");

    if (s == NULL)
        return;
    TEST_COND("greet: sent and abandoned", say_abandoned(s, "early") == RWKV_OK);
    TEST_CONDF(!chat_greeting_fed(sess_chat(s)) && chat_kept(s, "early") && sess_unsaved(s) == 1,
               "greet: kept, the greeting not fed, counted (%zu)", sess_unsaved(s));
    all_notes[0] = '\0';
    TEST_CONDF(sess_flush(s, why, sizeof why) == 0 && sess_id(s) == 1 &&
                   strstr(all_notes, "saving works again") == NULL,
               "greet: written as session %lld, no success said ('%s', notes '%s')",
               (long long)sess_id(s), why, all_notes);
    sess_destroy(s);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns WHERE role=0 AND parent_id IS NULL") == 1 &&
                   q_int(db, "SELECT count(*) FROM turns u JOIN turns g ON g.id=u.parent_id "
                             "WHERE u.role=1 AND g.role=0") == 1 &&
                   empty_interrupted_reply(db, "early"),
               "greet: greeting, message under it, empty interrupted reply (%lld turns)",
               (long long)q_int(db, "SELECT count(*) FROM turns"));
}

/*
** A regeneration of the kept message (its prompt fed again from the state
** before it) cancelled in that prefill, the lock still held: the message
** and its empty reply come back as they were, still kept out -- not the
** store's branch, which has not got it.
*/
static void
regen_cut_keeps(rwkv_model *m, const tok *t)
{
    char db[600], why[RWKV_ERR_MSG];
    sess *s = open_sess(m, t, db, sizeof db, "regencut.db");
    sqlite3 *h;
    rwkv_err err;
    int rc;

    if (s == NULL)
        return;
    TEST_COND("regen cut: the first message saved", say(s, "one") == 0);
    if ((h = sess_test_lock(s, db)) == NULL)
        return;
    TEST_COND("regen cut: kept under the lock", say_abandoned(s, "two") == RWKV_OK &&
              chat_kept(s, "two"));
    sess_cut.next = 1;
    sess_cut.cancel = 1;
    sess_expect_reply(s);
    rc = sess_regen(s, &err);
    if (rc == RWKV_OK)
        rc = sess_run(s, &err);
    sess_cut.next = 0;
    TEST_CONDF(rc == RWKV_OK && !sess_started(s) && chat_n_turns(sess_chat(s)) == 2 &&
                   chat_kept(s, "two") && sess_unsaved(s) == 1,
               "regen cut: the kept message as it was, still kept out (rc %d, %zu turns, %zu "
               "out)", rc, chat_n_turns(sess_chat(s)), sess_unsaved(s));
    lock_release(h);
    TEST_CONDF(sess_flush(s, why, sizeof why) == 0 && n_msg(db, "two") == 1 &&
                   empty_interrupted_reply(db, "two"),
               "regen cut: then written ('%s')", why);
    sess_destroy(s);
}

/*
** The chat goes on after a keep (the client's Esc back from its question):
** KIND 0 a next message, 1 a continuation, 2 a regeneration of the kept
** one.  The kept message's prompt is fed first (or by the continuation's or
** regeneration's own prefill), so the state is the one the saved tokens
** give: a replay from the start of the session lands on the same numbers.
*/
static void
goes_on(rwkv_model *m, const tok *t, int kind, int first)
{
    static const char *names[] = { "next", "continue", "regen" };
    char db[600], name[32], why[RWKV_ERR_MSG];
    sess *s;
    sqlite3 *h;
    rwkv_err err;
    uint64_t live, replay;
    int rc;

    snprintf(name, sizeof name, "on-%s%s.db", names[kind], first ? "-first" : "");
    if ((s = open_sess(m, t, db, sizeof db, name)) == NULL)
        return;
    /* FIRST: "two" is the first message, the greeting still to be fed */
    TEST_COND("on: the first message saved", first || say(s, "one") == 0);
    if ((h = sess_test_lock(s, db)) == NULL)
        return;
    TEST_COND("on: kept under the lock", say_abandoned(s, "two") == RWKV_OK && chat_kept(s, "two"));
    TEST_COND("on: the greeting fed or not", chat_greeting_fed(sess_chat(s)) == !first);
    lock_release(h);
    if (kind == 0) {
        rc = say(s, "three");
    } else {
        sess_expect_reply(s);
        rc = kind == 1 ? sess_continue(s, &err) : sess_regen(s, &err);
        if (rc == RWKV_OK)
            rc = sess_run(s, &err);
        else
            printf("     %s: %s\n", names[kind], err.msg);
    }
    TEST_CONDF(rc == RWKV_OK && sess_started(s) &&
                   chat_turn_at(sess_chat(s), chat_n_turns(sess_chat(s)) - 1)->n_reply == MAX_TOK,
               "on (%s): the reply ran", names[kind]);
    TEST_CONDF(sess_flush(s, why, sizeof why) == 0 && sess_unsaved(s) == 0,
               "on (%s): everything saved ('%s')", names[kind], why);
    TEST_CONDF(n_msg(db, "two") == 1 && (kind != 0 || n_msg(db, "three") == 1),
               "on (%s): each message once", names[kind]);
    live = sess_test_state_hash(s);
    sess_destroy(s);
    replay = sess_test_replayed(m, t, db, MAX_TOK);
    TEST_CONDF(replay != 0 && live == replay,
               "on (%s): the state is the one its saved tokens give (%016llx, replayed %016llx)",
               names[kind], (unsigned long long)live, (unsigned long long)replay);
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;

    if (test_tmpdir("rwkv-test-session-abandon") == NULL)
        return 1;
    if (sess_test_demo(NULL, &m, &t) == 0) {
        kept_for_the_quit(m, t);
        kept_new_chat(m, t);
        saved_as_before(m, t);
        kept_before_greeting(m, t);
        regen_cut_keeps(m, t);
        for (int k = 0; k < 3; k++) {
            goes_on(m, t, k, 0);
            goes_on(m, t, k, 1);
        }
    }
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
