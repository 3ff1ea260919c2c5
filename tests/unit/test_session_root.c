/*
** test_session_root.c -- the start of a session's tree is what the chat
** fed (storage/session_int.h, enum sess_root; session_db.c, greeting_row):
**
**   - a session whose whole conversation was deleted (the client's F6 on
**     the "Start" row: "the session stays, empty") goes on as a new session
**     of its framing: the next message is fed after the greeting and saved
**     under a greeting turn again, so a replay from the tree rebuilds the
**     state the chat had, and the state before the reply is a new
**     session's.  Before, the message went to the root with no greeting
**     turn while the client counted the greeting as fed;
**   - a first message cancelled there takes the greeting turn it wrote
**     again with the next one (no second greeting root);
**   - a session imported with its first message at the root (no greeting
**     turn: legal) goes on without the greeting, a /reset or a fork before
**     that message too: the next message at the root, no greeting fed;
**   - a session resumed without feeding the greeting here and deleted
**     elsewhere is saved again with a greeting turn that holds no state
**     (the state after the greeting was never in memory): before, it got
**     the zero state as "the state after the greeting", which every later
**     new chat then took from the database instead of a prefill.
** Real database files in a temp dir, the demo model.
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

#define MAX_TOK 4

/* The role of the parent of message TEXT in session SID (-1: a root, -2:
** no such message). */
static int64_t
parent_role(const char *db, int64_t sid, const char *text)
{
    char sql[320];

    snprintf(sql, sizeof sql,
             "SELECT coalesce((SELECT coalesce(p.role, -1) FROM turns t LEFT JOIN turns p ON "
             "p.id=t.parent_id WHERE t.session_id=%lld AND t.role=1 AND t.text='%s'), -2)",
             (long long)sid, text);
    return q_int(db, sql);
}

/* The hash of the state before the last reply of S. */
static uint64_t
before_reply_hash(sess *s)
{
    const rwkv_state *b = chat_state_before_reply(sess_chat(s));

    return b ? test_state_hash(b) : 0;
}

/* The hash of the state before the reply to "two", as a new session gives it. */
static uint64_t
fresh_two(rwkv_model *m, const tok *t)
{
    char db[512];
    sess *s = sess_test_open_cut(m, t, db, sizeof db, "fresh.db", MAX_TOK, 200, NULL);
    uint64_t h = 0;

    if (s != NULL && say(s, "two") == 0)
        h = before_reply_hash(s);
    sess_destroy(s);
    return h;
}

/* A second connection on DB deletes turn TURN and what is below it (F6). */
static int
prune(const char *db, int64_t turn)
{
    store *st = NULL;
    store_prune p;
    rwkv_err err;
    int rc;

    if (store_open(db, &st, &err) != RWKV_OK)
        return -1;
    rc = store_turn_prune(st, turn, &p, &err);
    if (rc != RWKV_OK)
        printf("     prune: %s\n", err.msg);
    store_close(st);
    return rc == RWKV_OK ? 0 : -1;
}

static void
emptied_session(rwkv_model *m, const tok *t)
{
    char db[512];
    rwkv_err err = { 0 };
    sess *s = sess_test_open_cut(m, t, db, sizeof db, "emptied.db", MAX_TOK, 200, NULL);
    uint64_t live, fresh = fresh_two(m, t);
    int64_t root;

    TEST_COND("s != NULL && say(s, \"one\") == 0", s != NULL && say(s, "one") == 0);
    if (s == NULL)
        return;
    root = q_int(db, "SELECT id FROM turns WHERE session_id=1 AND parent_id IS NULL");
    TEST_CONDF(q_int(db, "SELECT role FROM turns WHERE id=(SELECT id FROM turns WHERE "
                         "session_id=1 AND parent_id IS NULL)") == 0,
               "the session starts with its greeting turn");
    TEST_COND("prune(db, root) == 0", prune(db, root) == 0);
    TEST_CONDF(sess_open(s, 1, -1, &err) == RWKV_OK, "open the emptied session: %s", err.msg);
    TEST_CONDF(sess_head(s) == 0, "an empty session: head %lld", (long long)sess_head(s));

    /* a first message cancelled before its reply: the greeting turn it
    ** wrote stays, the next message takes it again */
    sess_cut.cancel = 1;
    sess_test_say_cut(s, "gone");
    sess_cut.cancel = 0;
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns WHERE session_id=1 AND text='gone'") == 0,
               "the cancelled message is not kept");

    TEST_COND("say(s, \"two\") == 0", say(s, "two") == 0);
    TEST_CONDF(parent_role(db, 1, "two") == 0,
               "the message after the delete is under a greeting turn (parent role %lld)",
               (long long)parent_role(db, 1, "two"));
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns WHERE session_id=1 AND parent_id IS NULL")
                   == 1, "one root, the greeting (%lld roots)",
               (long long)q_int(db, "SELECT count(*) FROM turns WHERE session_id=1 AND "
                                    "parent_id IS NULL"));
    TEST_CONDF(fresh != 0 && before_reply_hash(s) == fresh,
               "the reply was sampled from a new session's state (greeting + message)");
    live = sess_test_state_hash(s);
    sess_destroy(s);
    TEST_CONDF(sess_test_replayed(m, t, db, MAX_TOK) == live,
               "a replay of the tree gives the state the chat had");
}

/* A session imported with its first message at the root. */
static const char BARE[] =
    "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"bare\", \"turns\": ["
    "{\"id\": 1, \"parent\": null, \"role\": \"user\", \"text\": \"q\", \"tokens\": [10, 11]},"
    " {\"id\": 2, \"parent\": 1, \"role\": \"assistant\", \"text\": \"a\", \"tokens\": [12]}]}";

static void
bare_session(rwkv_model *m, const tok *t, int fork)
{
    char db[512];
    rwkv_err err = { 0 };
    sess *s = sess_test_open_cut(m, t, db, sizeof db, fork ? "bare_fork.db" : "bare_reset.db",
                                 MAX_TOK, 200, NULL);
    int64_t sid = 0, q;
    uint64_t live;

    if (s == NULL)
        return;
    TEST_CONDF(store_import(sess_store(s), BARE, sizeof BARE - 1, "bare.json", &sid, &err) ==
                   RWKV_OK, "import: %s", err.msg);
    TEST_CONDF(sess_open(s, sid, -1, &err) == RWKV_OK, "open: %s", err.msg);
    q = q_int(db, "SELECT id FROM turns WHERE role=1 AND text='q'");
    if (fork)
        TEST_CONDF(sess_fork(s, q, NULL, &err) == RWKV_OK, "fork at the first message: %s",
                   err.msg);
    else
        TEST_CONDF(sess_reset(s, &err) == RWKV_OK, "reset: %s", err.msg);
    TEST_COND("say(s, \"x\") == 0", say(s, "x") == 0);
    TEST_CONDF(parent_role(db, sid, "x") == -1,
               "%s: the message is a root, as the session's first one (parent role %lld)",
               fork ? "fork" : "reset", (long long)parent_role(db, sid, "x"));
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns WHERE role=0") == 0,
               "%s: no greeting turn in a session without one", fork ? "fork" : "reset");
    live = sess_test_state_hash(s);
    sess_destroy(s);
    TEST_CONDF(sess_test_replayed(m, t, db, MAX_TOK) == live,
               "%s: a replay of the tree gives the state the chat had", fork ? "fork" : "reset");
}

/* Resumed (no greeting fed here), deleted elsewhere, saved again. */
static void
deleted_elsewhere(rwkv_model *m, const tok *t)
{
    char db[512];
    rwkv_err err = { 0 };
    sess *s = sess_test_open_cut(m, t, db, sizeof db, "elsewhere.db", MAX_TOK, 200, NULL);
    sess *s2 = NULL, *s3 = NULL;
    sess_config sc;
    uint64_t fed;
    int saved = 0;

    if (s == NULL)
        return;
    TEST_COND("say(s, \"one\") == 0", say(s, "one") == 0);
    TEST_COND("sess_prime(s, NULL, &err) == RWKV_OK", sess_prime(s, NULL, &err) == RWKV_OK);
    sess_destroy(s);
    sess_test_config(&sc, m, t, db, 7, MAX_TOK);
    sc.chat.no_stop = 1;
    if ((s2 = sess_test_create(&sc)) == NULL)
        return;
    TEST_CONDF(sess_open(s2, 1, -1, &err) == RWKV_OK, "open: %s", err.msg);
    {
        store *st = NULL;
        TEST_COND("deleted elsewhere", store_open(db, &st, &err) == RWKV_OK &&
                  store_session_delete(st, 1, &err) == RWKV_OK);
        store_close(st);
    }
    TEST_COND("say(s2, \"two\") == 0", say(s2, "two") == 0);
    TEST_CONDF(sess_id(s2) == 2, "saved again as session 2 (%lld)", (long long)sess_id(s2));
    TEST_CONDF(parent_role(db, 2, "one") == 0, "session 2 starts with the greeting turn");
    sess_destroy(s2);

    /* a new chat takes the greeting from the database only with the
    ** state a prefill gives */
    s = sess_test_open_cut(m, t, db, sizeof db, "ref.db", MAX_TOK, 200, NULL);
    if (s == NULL)
        return;
    TEST_COND("sess_prime(s, NULL, &err) == RWKV_OK", sess_prime(s, NULL, &err) == RWKV_OK);
    fed = test_state_hash(chat_state_start(sess_chat(s)));
    sess_destroy(s);
    test_tmp_path(db, sizeof db, "elsewhere.db");
    if ((s3 = sess_test_create(&sc)) == NULL)
        return;
    TEST_CONDF(sess_prime(s3, &saved, &err) == RWKV_OK, "prime: %s", err.msg);
    TEST_CONDF(test_state_hash(chat_state_start(sess_chat(s3))) == fed,
               "the greeting's state (taken from the database: %d) is the one a prefill gives",
               saved);
    sess_destroy(s3);
}

/*
** The conversation fed again under another start (sess_switch_state with
** replay: F3's "(none)" with a replay) is saved as a new session whose
** tree holds what the replay fed -- the messages from the start, no
** greeting turn: before, the new session got a greeting turn (with the
** greeting's state) above turns whose last state had no greeting in it,
** so a replay of its tree gave another state than the chat's.
*/
static void
switch_replay(rwkv_model *m, const tok *t)
{
    char db[512];
    rwkv_err err = { 0 };
    sess *s = sess_test_open_cut(m, t, db, sizeof db, "switch.db", MAX_TOK, 200, NULL), *s2;
    sess_config sc;
    uint64_t live, again = 0;
    int64_t sid;

    if (s == NULL)
        return;
    TEST_COND("say one", say(s, "one") == 0);
    TEST_CONDF(sess_switch_state(s, NULL, 0, 1, &err) == RWKV_OK, "switch: %s", err.msg);
    sid = sess_id(s);
    live = sess_test_state_hash(s);
    sess_destroy(s);
    TEST_CONDF(sid == 2, "the replayed conversation is session 2 (%lld)", (long long)sid);
    TEST_COND("snapshots dropped", q_exec(db, "DELETE FROM snapshots") == SQLITE_OK);
    sess_test_config(&sc, m, t, db, 7, MAX_TOK);
    sc.chat.no_stop = 1;
    if ((s2 = sess_test_create(&sc)) == NULL)
        return;
    if (sess_open(s2, sid, -1, &err) == RWKV_OK)
        again = sess_test_state_hash(s2);
    else
        printf("     sess_open: %s\n", err.msg);
    sess_destroy(s2);
    TEST_CONDF(again == live, "switch: a replay of the new session's tree gives the chat's state");
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;

    if (test_tmpdir("rwkv-test-session-root") == NULL)
        return 1;
    if (sess_test_demo(NULL, &m, &t) == 0) {
        emptied_session(m, t);
        bare_session(m, t, 0);
        bare_session(m, t, 1);
        deleted_elsewhere(m, t);
        switch_replay(m, t);
    }
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
