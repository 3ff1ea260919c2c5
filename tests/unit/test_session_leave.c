/*
** test_session_leave.c -- the leaving rule (storage/session.h): every way
** of leaving the conversation without quitting -- a new session, an open,
** a sibling step, a fork, a reset, a state-file switch without replay, a
** model switch, another greeting or names -- first writes what a failed
** save kept out (sess_flush's one bounded wait for a lock) and, when it
** still cannot, does not happen: RWKV_EDB, the line says how many and why,
** the conversation and the count stay as they were.  Once the lock is gone
** the same call writes them and goes on.  The refusal names the front
** end's quit key or command (sess_config.quit_key), or says "quit" alone
** without one.  sess_leave_check is the rule on its own: what a model
** switch makes before it loads the new model, so a refused one loads
** nothing (tests/tui/model_unsaved.sh: the client's F5).
**
** Before, each of these cleared the kept-out exchanges (sess_unsaved_clear)
** without a word: the message sent under the lock was in no session.
** Real database files in a temp dir; another connection holds the write
** lock (BEGIN IMMEDIATE) while a message is sent, so it is kept out, as
** with a full disk.  The busy time is cut to 200 ms; waits are counted.
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/framing.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

#define BUSY_MS 200

/* What a case's leaving step needs: the ids of the first exchange (and of
** a regenerated sibling reply), another model for the switch. */
struct leave_ctx {
    int64_t     user1, reply1, reply2;
    rwkv_model *m2;
    const tok  *t2;
};

/* A leaving step, and the check that it left (after the lock is gone). */
struct leave_case {
    const char *name;
    int         sibling;        /* set up a regenerated reply beside the first */
    int       (*step)(sess *s, struct leave_ctx *c, rwkv_err *err);
    int       (*left)(sess *s, const struct leave_ctx *c);
};

static int
step_new(sess *s, struct leave_ctx *c, rwkv_err *err)
{
    (void)c;
    return sess_new(s, err);
}

static int
step_open(sess *s, struct leave_ctx *c, rwkv_err *err)
{
    (void)c;
    return sess_open(s, 1, -1, err);
}

static int
step_sibling(sess *s, struct leave_ctx *c, rwkv_err *err)
{
    return sess_step_sibling(s, c->reply2, -1, err);
}

static int
step_fork(sess *s, struct leave_ctx *c, rwkv_err *err)
{
    return sess_fork(s, c->reply1, NULL, err);
}

static int
step_reset(sess *s, struct leave_ctx *c, rwkv_err *err)
{
    (void)c;
    return sess_reset(s, err);
}

static int
step_state(sess *s, struct leave_ctx *c, rwkv_err *err)
{
    (void)c;
    return sess_switch_state(s, NULL, 0, 0, err);
}

static int
step_model(sess *s, struct leave_ctx *c, rwkv_err *err)
{
    return sess_set_model(s, c->m2, c->t2, NULL, NULL, err);
}

/* The check alone, as the client's F5 makes it before loading a model. */
static int
step_check(sess *s, struct leave_ctx *c, rwkv_err *err)
{
    (void)c;
    return sess_leave_check(s, err);
}

static int
step_names(sess *s, struct leave_ctx *c, rwkv_err *err)
{
    framing f;
    int left = 0, rc;

    (void)c;
    framing_init(&f);
    if ((rc = framing_copy(&f, sess_framing(s), err)) == RWKV_OK &&
        (rc = framing_set_user(&f, "Carol", err)) == RWKV_OK)
        rc = sess_set_framing(s, &f, &left, err);
    framing_fini(&f);
    return rc == RWKV_OK && !left ? rwkv_errf(err, RWKV_EINVAL, "did not leave") : rc;
}

/* Left for a new session: nothing in the chat, no session yet. */
static int
left_new(sess *s, const struct leave_ctx *c)
{
    (void)c;
    return sess_id(s) == 0 && chat_n_turns(sess_chat(s)) == 0;
}

/* Session 1 opened again: both exchanges, read back from the file. */
static int
left_open(sess *s, const struct leave_ctx *c)
{
    (void)c;
    return sess_id(s) == 1 && chat_n_turns(sess_chat(s)) == 2;
}

/* On the first reply, the branch of its regenerated sibling left. */
static int
left_reply1(sess *s, const struct leave_ctx *c)
{
    return sess_id(s) == 1 && sess_head(s) == c->reply1 && chat_n_turns(sess_chat(s)) == 1;
}

/* Nothing left: the check alone, the conversation goes on (saved now). */
static int
left_stays(sess *s, const struct leave_ctx *c)
{
    (void)c;
    return sess_id(s) == 1 && chat_n_turns(sess_chat(s)) == 2;
}

/* Back at the start of session 1. */
static int
left_reset(sess *s, const struct leave_ctx *c)
{
    (void)c;
    return sess_id(s) == 1 && chat_n_turns(sess_chat(s)) == 0;
}

static const struct leave_case cases[] = {
    { "new session", 0, step_new, left_new },
    { "open", 0, step_open, left_open },
    { "sibling step", 1, step_sibling, left_reply1 },
    { "fork", 0, step_fork, left_reply1 },
    { "reset", 0, step_reset, left_reset },
    { "state switch", 0, step_state, left_new },
    { "model switch", 0, step_model, left_new },
    { "leave check", 0, step_check, left_stays },
    { "other names", 0, step_names, left_new },
};

/* A runtime on DB (a new file NAME in the temp dir) with the busy time cut;
** QUIT: how its front end quits (NULL: not named). */
static sess *
open_sess(rwkv_model *m, const tok *t, char *db, size_t cap, const char *name, const char *quit)
{
    sess_config sc;
    sess *s;

    test_tmp_path(db, cap, name);
    sess_test_config(&sc, m, t, db, 3, 6);
    sc.quit_key = quit;
    if ((s = sess_test_create(&sc)) != NULL)
        store_set_busy_ms(sess_store(s), BUSY_MS);
    return s;
}

/*
** Case C: "one" saved (with a regenerated reply beside it when asked), "two"
** sent under the lock and kept out.  Still under the lock the step is
** refused after one wait, and nothing changed; the lock gone, the same step
** writes "two" and leaves.
*/
static void
leave_one(rwkv_model *m, const tok *t, struct leave_ctx *ctx, const struct leave_case *c, int k)
{
    char db[600], file[32];
    sess *s;
    sqlite3 *h;
    rwkv_err err;
    uint64_t waits, hash;
    int64_t sid, head, rows;
    size_t turns;
    int rc;

    snprintf(file, sizeof file, "leave%d.db", k);
    if ((s = open_sess(m, t, db, sizeof db, file, "/quit")) == NULL)
        return;
    TEST_CONDF(say(s, "one") == 0 && sess_id(s) == 1, "%s: the first message saved", c->name);
    sess_last_ids(s, &ctx->user1, &ctx->reply1);
    ctx->reply2 = 0;
    if (c->sibling) {
        int64_t u;
        TEST_CONDF(sess_regen(s, &err) == RWKV_OK && sess_run(s, &err) == RWKV_OK,
                   "%s: regenerated (%s)", c->name, err.msg);
        sess_last_ids(s, &u, &ctx->reply2);
        TEST_CONDF(ctx->reply2 != 0 && ctx->reply2 != ctx->reply1, "%s: a sibling reply",
                   c->name);
    }
    if ((h = sess_test_lock(s, db)) == NULL)
        return;
    TEST_CONDF(say(s, "two") == 0 && sess_unsaved(s) == 1, "%s: kept out under the lock (%zu)",
               c->name, sess_unsaved(s));
    turns = chat_n_turns(sess_chat(s));
    sid = sess_id(s);
    head = sess_head(s);
    hash = sess_test_state_hash(s);
    rows = q_int(db, "SELECT count(*) FROM turns");
    waits = store_busy_timeouts(sess_store(s));

    err.msg[0] = '\0';
    rc = c->step(s, ctx, &err);
    TEST_CONDF(rc == RWKV_EDB &&
                   strstr(err.msg, "1 exchange is not saved, so this chat stays: try again, or "
                                   "quit with /quit (") == err.msg &&
                   strstr(err.msg, db) && strstr(err.msg, "database is locked"),
               "%s: refused under the lock (%d: '%s')", c->name, rc, err.msg);
    TEST_CONDF(store_busy_timeouts(sess_store(s)) - waits == 1, "%s: one bounded wait (%llu)",
               c->name, (unsigned long long)(store_busy_timeouts(sess_store(s)) - waits));
    TEST_CONDF(chat_n_turns(sess_chat(s)) == turns && sess_id(s) == sid &&
                   sess_head(s) == head && sess_test_state_hash(s) == hash &&
                   strcmp(chat_turn_at(sess_chat(s), turns - 1)->user, "two") == 0,
               "%s: the conversation as it was (%zu turns, session %lld, head %lld)", c->name,
               chat_n_turns(sess_chat(s)), (long long)sess_id(s), (long long)sess_head(s));
    TEST_CONDF(sess_unsaved(s) == 1 && q_int(db, "SELECT count(*) FROM turns") == rows &&
                   n_msg(db, "two") == 0,
               "%s: still kept out, nothing written (%zu)", c->name, sess_unsaved(s));

    lock_release(h);
    all_notes[0] = '\0';
    rc = c->step(s, ctx, &err);
    TEST_CONDF(rc == RWKV_OK, "%s: the lock gone, it goes on (%s)", c->name, err.msg);
    TEST_CONDF(n_msg(db, "two") == 1 && n_msg(db, "one") == 1 && sess_unsaved(s) == 0 &&
                   strstr(all_notes, "saving works again: the earlier exchange not saved is in "
                                     "session 1 now"),
               "%s: the kept-out exchange written first (%lld; notes '%s')", c->name,
               (long long)n_msg(db, "two"), all_notes);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns u JOIN turns r ON r.parent_id=u.id WHERE "
                         "u.text='two' AND u.role=1 AND r.role=2") == 1,
               "%s: its reply under it", c->name);
    TEST_CONDF(rc == RWKV_OK && c->left(s, ctx), "%s: left as asked (%zu turns, session %lld)",
               c->name, chat_n_turns(sess_chat(s)), (long long)sess_id(s));
    sess_destroy(s);
}

/*
** The first message of a new chat under the lock: not even the session row
** was written, so all of the conversation is kept out.  A reset or a new
** session is refused (no quit key given: "quit" alone; a second message
** kept out: counted); the lock gone, the reset writes both as session 1.
*/
static void
leave_unsaved_session(rwkv_model *m, const tok *t)
{
    char db[600];
    sess *s = open_sess(m, t, db, sizeof db, "first.db", NULL);
    sqlite3 *h = sess_test_lock(s, db);
    rwkv_err err;

    if (h == NULL)
        return;
    TEST_COND("first: answered under the lock",
              say(s, "first") == 0 && sess_id(s) == 0 && sess_unsaved(s) == 1);
    TEST_CONDF(sess_reset(s, &err) == RWKV_EDB &&
                   strstr(err.msg, "1 exchange is not saved, so this chat stays: try again, or "
                                   "quit (") == err.msg,
               "first: reset refused ('%s')", err.msg);
    TEST_CONDF(sess_new(s, &err) == RWKV_EDB && chat_n_turns(sess_chat(s)) == 1 &&
                   sess_unsaved(s) == 1,
               "first: new session refused, the message kept ('%s')", err.msg);
    TEST_COND("first: a second message kept out",
              say(s, "second") == 0 && sess_id(s) == 0 && sess_unsaved(s) == 2);
    TEST_CONDF(sess_leave_check(s, &err) == RWKV_EDB &&
                   strstr(err.msg, "2 exchanges are not saved, so this chat stays: try again, "
                                   "or quit (") == err.msg &&
                   strstr(err.msg, "database is locked"),
               "first: two counted ('%s')", err.msg);
    lock_release(h);
    TEST_CONDF(sess_reset(s, &err) == RWKV_OK && sess_unsaved(s) == 0 &&
                   chat_n_turns(sess_chat(s)) == 0 && sess_id(s) == 1,
               "first: the lock gone, written and reset (%s)", err.msg);
    TEST_COND("first: in session 1", n_msg(db, "first") == 1 && n_msg(db, "second") == 1 &&
                                     q_int(db, "SELECT count(*) FROM sessions") == 1);
    sess_destroy(s);
}

/*
** A state-file switch WITH replay keeps the conversation (it is saved as
** the new session): not refused under the lock, and what cannot be written
** now -- all of it, the new session's row failing -- is kept out for the
** next message or the quit, nothing dropped.
*/
static void
replay_keeps(rwkv_model *m, const tok *t)
{
    char db[600], why[RWKV_ERR_MSG];
    sess *s = open_sess(m, t, db, sizeof db, "replay.db", "/quit");
    sqlite3 *h;
    rwkv_err err;

    if (s == NULL)
        return;
    TEST_COND("replay: the first message saved", say(s, "one") == 0 && sess_id(s) == 1);
    if ((h = sess_test_lock(s, db)) == NULL)
        return;
    TEST_COND("replay: kept out", say(s, "two") == 0 && sess_unsaved(s) == 1);
    TEST_CONDF(sess_switch_state(s, NULL, 0, 1, &err) == RWKV_OK &&
                   chat_n_turns(sess_chat(s)) == 2 && sess_unsaved(s) == 2,
               "replay: switched, the whole conversation kept for the new session (%zu: %s)",
               sess_unsaved(s), err.msg);
    lock_release(h);
    TEST_CONDF(sess_flush(s, why, sizeof why) == 0 && sess_id(s) == 2 &&
                   q_int(db, "SELECT count(*) FROM turns WHERE session_id=2 AND role=1") == 2,
               "replay: written as session %lld (%s)", (long long)sess_id(s), why);
    sess_destroy(s);
}

/* A quit key name that would not fit is refused, not cut: a cut name
** would tell the user a wrong key. */
static void
quit_key_limit(rwkv_model *m, const tok *t)
{
    char db[600], name[SESS_QUIT_KEY_MAX + 1];
    sess_config sc;
    sess *s = NULL;
    rwkv_err err;

    test_tmp_path(db, sizeof db, "key.db");
    sess_test_config(&sc, m, t, db, 3, 6);
    memset(name, 'k', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    sc.quit_key = name;
    TEST_CONDF(sess_create(&sc, &s, &err) == RWKV_EINVAL && s == NULL &&
                   strstr(err.msg, "quit key"),
               "quit key: %d bytes refused ('%s')", SESS_QUIT_KEY_MAX, err.msg);
    sess_destroy(s);
    name[SESS_QUIT_KEY_MAX - 1] = '\0';
    TEST_CONDF(sess_create(&sc, &s, &err) == RWKV_OK, "quit key: %d bytes taken (%s)",
               SESS_QUIT_KEY_MAX - 1, err.msg);
    sess_destroy(s);
}

int
main(void)
{
    rwkv_model *m = NULL, *m2 = NULL;
    tok *t = NULL, *t2 = NULL;
    struct leave_ctx ctx;

    if (test_tmpdir("rwkv-test-session-leave") == NULL)
        return 1;
    memset(&ctx, 0, sizeof ctx);
    if (sess_test_demo(NULL, &m, &t) == 0 && sess_test_demo(NULL, &m2, &t2) == 0) {
        ctx.m2 = m2;
        ctx.t2 = t2;
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
            leave_one(m, t, &ctx, &cases[k], (int)k);
        leave_unsaved_session(m, t);
        quit_key_limit(m, t);
        replay_keeps(m, t);
    }
    rwkv_model_close(m);
    rwkv_model_close(m2);
    tok_close(t);
    tok_close(t2);
    test_tmpdir_remove();
    return TEST_REPORT();
}
