/*
** test_store_chat_forms.c -- the chat's own writes fail in the form the
** writes a user names use (test_store_write_forms.c): "PATH: why", the
** caller naming the action once.
**
**   - store_session_set_head, store_session_set_framing,
**     store_preset_set_framing and the turn writes (store_turn_append,
**     _begin, _reopen, _progress, _finish), another program holding the
**     write lock past the busy time: each says "PATH: database is locked"
**     (set_head said "PATH: updating session: ...", a framing "PATH:
**     session 1: ..." / "PATH: preset 'mine' (or it is built in): ...",
**     progress "PATH: saving partial reply: ...");
**   - a statement inside the write failing for another reason (a trigger
**     here, as a full disk or an I/O error would): "PATH: refused by the
**     test" (they said "saving turn", "saving reply", "saving partial
**     reply", "deleting session" (a reopen), "updating session", "session
**     1", "preset 'mine' (or it is built in)" before it); nothing changed;
**   - a framing write to no session / no such preset: "PATH: no session 999"
**     (it was "no session 999", without the file, unlike set_head);
**   - through the session runtime, on the demo model: a failed save names
**     its action once -- "saving your message: PATH: refused by the test",
**     "saving the reply: PATH: ...", "saving the branch position: PATH:
**     ...", "saving the framing: PATH: ..." -- where the store's own label
**     made it twice ("saving the reply: PATH: saving reply: ...").
** The lock is a real SQLite lock from a second connection; the refusals are
** temporary triggers on the store's own connection.
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>

#include "../../core/chat/params.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/framing.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "../../storage/store_int.h"
#include "session_test.h"
#include "store_test.h"

#define BUSY_MS 100

/* The file's state the writes below must leave alone. */
struct seen {
    int64_t turns, head, interrupted, framed, preset_framed, texts;
};

static void
look(const char *db, struct seen *v)
{
    v->turns = q_int(db, "SELECT count(*) FROM turns");
    v->head = q_int(db, "SELECT head_turn FROM sessions");
    v->interrupted = q_int(db, "SELECT count(*) FROM turns WHERE interrupted=1");
    v->framed = q_int(db, "SELECT count(*) FROM sessions WHERE framing IS NOT NULL");
    v->preset_framed = q_int(db, "SELECT count(*) FROM presets WHERE framing IS NOT NULL");
    v->texts = q_int(db, "SELECT sum(length(text)) FROM turns");
}

static int
same(const struct seen *a, const struct seen *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* The session's rows: U1, R1 (finished), U2, R2 (begun). */
struct rows {
    int64_t sid, u1, r1, u2, r2;
};

static const int32_t IDS[] = { 1, 2, 3 };

/* The eight writes on ST each fail with "DB: WHY" and change nothing. */
static void
eight_fail(store *st, const char *db, const struct rows *w, const char *why, const char *name)
{
    struct seen before, after;
    store_turn t;
    framing f;
    rwkv_err err;
    int rc;

    look(db, &before);
    framing_init(&f);
    rc = store_session_set_head(st, w->sid, w->u1, &err);
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: set_head: rc %d '%s'", name, rc,
               err.msg);
    rc = store_session_set_framing(st, w->sid, &f, &err);
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: session framing: rc %d '%s'", name,
               rc, err.msg);
    rc = store_preset_set_framing(st, "mine", &f, &err);
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: preset framing: rc %d '%s'", name,
               rc, err.msg);
    memset(&t, 0, sizeof t);
    t.session_id = w->sid;
    t.parent_id = w->r1;
    t.role = STORE_ROLE_USER;
    t.text = "another";
    t.tokens = IDS;
    t.n_tokens = 3;
    rc = store_turn_append(st, &t, NULL, 0, NULL, &err);
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: append: rc %d '%s'", name, rc,
               err.msg);
    t.parent_id = w->u2;
    t.role = STORE_ROLE_ASSISTANT;
    rc = store_turn_begin(st, &t, &err);
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: begin: rc %d '%s'", name, rc,
               err.msg);
    rc = store_turn_reopen(st, w->r2, &err);
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: reopen: rc %d '%s'", name, rc,
               err.msg);
    rc = store_turn_progress(st, w->r2, "so far", IDS, 3, &err);
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: progress: rc %d '%s'", name, rc,
               err.msg);
    t.id = w->r2;
    t.text = "the end";
    rc = store_turn_finish(st, &t, NULL, 0, NULL, &err);
    TEST_CONDF(rc == RWKV_EDB && plain_err(&err, db, why), "%s: finish: rc %d '%s'", name, rc,
               err.msg);
    look(db, &after);
    TEST_CONDF(same(&before, &after), "%s: nothing changed (%lld turns, head %lld)", name,
               (long long)after.turns, (long long)after.head);
    framing_fini(&f);
}

/* A session of four turns and a preset; the eight writes under the lock,
** then under triggers refusing what each of them writes. */
static void
store_forms(void)
{
    char db[512];
    store *st = NULL;
    struct rows w;
    store_turn t;
    rwkv_sampling samp;
    sqlite3 *lk;
    framing f;
    rwkv_err err;

    if ((st = store_test_open_busy("forms.db", db, sizeof db, BUSY_MS)) == NULL)
        return;
    params_defaults(&samp);
    w.sid = new_session(st, "forms");
    w.u1 = add_turn(st, w.sid, 0, STORE_ROLE_USER, "one", IDS, 3, NULL, 0, NULL, NULL);
    w.r1 = add_turn(st, w.sid, w.u1, STORE_ROLE_ASSISTANT, "reply one", IDS, 3, NULL, 0, NULL,
                    NULL);
    w.u2 = add_turn(st, w.sid, w.r1, STORE_ROLE_USER, "two", IDS, 3, NULL, 0, NULL, NULL);
    memset(&t, 0, sizeof t);
    t.session_id = w.sid;
    t.parent_id = w.u2;
    t.role = STORE_ROLE_ASSISTANT;
    t.text = "";
    w.r2 = store_turn_begin(st, &t, &err) == RWKV_OK ? t.id : 0;
    TEST_COND("a session of four turns, the last begun, and a preset",
              w.u1 && w.r1 && w.u2 && w.r2 && store_preset_put(st, "mine", &samp, NULL, &err) == RWKV_OK);

    if ((lk = lock_take(db)) != NULL) {
        eight_fail(st, db, &w, "database is locked", "locked");
        lock_release(lk);
    } else {
        TEST_COND("lock taken", 0);
    }

    TEST_COND("refusing triggers",
              sqlite3_exec(st->db, REFUSE("a", "INSERT ON turns") REFUSE("b", "UPDATE ON turns")
                                   REFUSE("c", "UPDATE ON sessions") REFUSE("d", "UPDATE ON presets"),
                           NULL, NULL, NULL) == SQLITE_OK);
    eight_fail(st, db, &w, "refused by the test", "refused");
    sqlite3_exec(st->db, "DROP TRIGGER temp.a; DROP TRIGGER temp.b; DROP TRIGGER temp.c;"
                         " DROP TRIGGER temp.d;", NULL, NULL, NULL);

    /* no such row: the file and what is missing, as set_head says it */
    framing_init(&f);
    TEST_CONDF(store_session_set_framing(st, 999, &f, &err) == RWKV_EINVAL &&
                   plain_err(&err, db, "no session 999"),
               "framing of no session: '%s'", err.msg);
    TEST_CONDF(store_preset_set_framing(st, "nosuch", &f, &err) == RWKV_EINVAL &&
                   plain_err(&err, db, "no preset 'nosuch' (or it is built in)"),
               "framing of no preset: '%s'", err.msg);
    TEST_CONDF(store_session_set_head(st, 999, 0, &err) == RWKV_EINVAL &&
                   plain_err(&err, db, "no session 999"),
               "head of no session: '%s'", err.msg);
    TEST_CONDF(store_session_set_framing(st, w.sid, &f, &err) == RWKV_OK &&
                   store_turn_finish(st, &t, NULL, 0, NULL, &err) == RWKV_OK,
               "the writes work once nothing is in the way: %s", err.msg);
    framing_fini(&f);
    TEST_COND("intact", q_integrity_ok(db));
    store_close(st);
}

/* ---- through the session runtime ----------------------------------------------------- */

#define MAX_TOK 4

/* A runtime on a new file NAME (its path into DB) with "one" said. */
static sess *
said_one(rwkv_model *m, const tok *t, char *db, size_t cap, const char *name)
{
    sess_config sc;
    sess *s;

    test_tmp_path(db, cap, name);
    sess_test_config(&sc, m, t, db, 7, MAX_TOK);
    sc.chat.no_stop = 1;
    if ((s = sess_test_create(&sc)) == NULL)
        return NULL;
    store_set_busy_ms(sess_store(s), BUSY_MS);
    if (say(s, "one") != 0 || sess_id(s) == 0) {
        TEST_CONDF(0, "%s: the first message saved", name);
        sess_destroy(s);
        return NULL;
    }
    return s;
}

/* The notes since the last reset hold "saving WHAT: DB: refused by the
** test (the chat goes on" once, and no second label. */
static void
said_once(const char *db, const char *what, const char *name)
{
    char want[1024];

    snprintf(want, sizeof want, "saving %s: %s: refused by the test (the chat goes on", what, db);
    TEST_CONDF(strstr(all_notes, want) != NULL, "%s: '%s' in the notes: '%s'", name, want,
               all_notes);
}

static void
runtime_forms(rwkv_model *m, const tok *t)
{
    char db[600];
    sess *s;
    int left = 0;
    rwkv_err err;

    /* the message's row */
    if ((s = said_one(m, t, db, sizeof db, "msg.db")) != NULL) {
        sqlite3_exec(sess_store(s)->db, REFUSE("a", "INSERT ON turns"), NULL, NULL, NULL);
        all_notes[0] = '\0';
        say(s, "two");
        said_once(db, "your message", "message");
        sess_destroy(s);
    }
    /* the reply's row completed */
    if ((s = said_one(m, t, db, sizeof db, "reply.db")) != NULL) {
        sqlite3_exec(sess_store(s)->db, REFUSE("a", "UPDATE OF text ON turns"), NULL, NULL, NULL);
        all_notes[0] = '\0';
        say(s, "two");
        said_once(db, "the reply", "reply");
        sess_destroy(s);
    }
    /* the branch position: back to the first reply */
    if ((s = said_one(m, t, db, sizeof db, "head.db")) != NULL) {
        int64_t r1 = q_int(db, "SELECT min(id) FROM turns WHERE role=2");

        TEST_COND("head: two said", say(s, "two") == 0);
        sqlite3_exec(sess_store(s)->db, REFUSE("a", "UPDATE OF head_turn ON sessions"), NULL, NULL,
                     NULL);
        all_notes[0] = '\0';
        TEST_CONDF(sess_open(s, sess_id(s), r1, &err) == RWKV_OK, "head: opened at the first "
                   "reply: %s", err.msg);
        said_once(db, "the branch position", "head");
        sess_destroy(s);
    }
    /* the framing: a stop string more (the prompt stays: no new session) */
    if ((s = said_one(m, t, db, sizeof db, "framing.db")) != NULL) {
        framing f;

        framing_init(&f);
        sqlite3_exec(sess_store(s)->db, REFUSE("a", "UPDATE OF framing ON sessions"), NULL, NULL,
                     NULL);
        all_notes[0] = '\0';
        TEST_CONDF(framing_copy(&f, sess_framing(s), &err) == RWKV_OK &&
                       framing_add_stop(&f, "QQQ", &err) == RWKV_OK &&
                       sess_set_framing(s, &f, &left, &err) == RWKV_OK && !left,
                   "framing: set in place: %s", err.msg);
        said_once(db, "the framing", "framing");
        framing_fini(&f);
        sess_destroy(s);
    }
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;

    if (test_tmpdir("rwkv-test-store-chat-forms") == NULL)
        return 1;
    store_forms();
    if (sess_test_demo(NULL, &m, &t) == 0)
        runtime_forms(m, t);
    tok_close(t);
    rwkv_model_close(m);
    test_tmpdir_remove();
    return TEST_REPORT();
}
