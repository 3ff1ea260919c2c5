/*
** test_session_cancel_open.c -- the cancel rule (storage/session.h) for
** opening a session and stepping to a sibling: the full-screen client
** queues them as worker jobs (tui/worker.c: sess_expect_reply where it
** queues them), so a cancel sent before the worker begins cuts the replay as
** one sent during it does (RWKV_ECANCEL, nothing changed), a step that needs
** no replay goes through, and the job's end ends the expectation: a cancel
** after it never carries over to the next job.
**
** The calls are made in the order the client's two threads make them
** (queue, cancel, the job) on one thread: the rule is about that order
** (test_session_cancel_early.c holds a real worker at a gate).  The script
** runs twice on a conversation made the same way: once with every cancel
** sent before the job (EARLY), once from the replay's first progress
** report (DURING); the outcomes must be the same.  The message's and the
** replies' saved states are dropped, so an open or a step to a reply
** replays the message (chunks of 64) and the reply; the demo model.
** CANCEL_LOG=1 prints EARLY's log.
*/
#include "../harness.h"

#include <stdint.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

#define MAX_TOK 8

enum { CUT_NONE, CUT_EARLY, CUT_DURING };

/* DURING: sess_cancel(cut_sess) at the next progress report. */
static sess *cut_sess;
static int cut_at_progress;

static void
on_progress(void *ud, uint64_t done, uint64_t total)
{
    (void)ud;
    (void)done;
    (void)total;
    if (cut_at_progress) {
        cut_at_progress = 0;
        sess_cancel(cut_sess);
    }
}

static sess *
mk(rwkv_model *m, const tok *t, const char *db)
{
    sess_config sc;

    sess_test_config(&sc, m, t, db, 42, MAX_TOK);
    sc.chat.samp.chunk = 64;
    sc.chat.samp_set |= PARAMS_BIT(params_find("chunk"));
    sc.chat.no_stop = 1;
    sc.progress = on_progress;
    return sess_test_create(&sc);
}

/* A message longer than two chunks, answered twice (two sibling replies,
** the second the head); the saved states of both turns dropped (the
** greeting's stays).  0 or -1. */
static int
make_db(rwkv_model *m, const tok *t, const char *db, int64_t *reply1, int64_t *reply2)
{
    char msg[200];
    sess *s = mk(m, t, db);
    rwkv_err err;
    int64_t user;

    if (s == NULL)
        return -1;
    memset(msg, 0, sizeof msg);
    for (size_t i = 0; i + 1 < sizeof msg; i++)
        msg[i] = "a few plain words "[i % 18];
    if (say(s, msg) != 0)
        goto fail;
    sess_last_ids(s, &user, reply1);
    if (sess_regen(s, &err) != RWKV_OK || sess_run(s, &err) != RWKV_OK) {
        printf("     regen: %s\n", err.msg);
        goto fail;
    }
    sess_last_ids(s, &user, reply2);
    sess_destroy(s);
    return q_exec(db, "DELETE FROM snapshots WHERE turn_id IN (SELECT id FROM turns "
                      "WHERE role IN (1, 2))") == 0 && *reply1 != *reply2 ? 0 : -1;
fail:
    sess_destroy(s);
    return -1;
}

/* What S is on: its session and head, the chat's turns and state, the
** saved head. */
static void
where(sess *s, const char *db, char *out, size_t cap)
{
    chat *c = sess_chat(s);
    size_t n = chat_n_turns(c);

    snprintf(out, cap, "session %lld head %lld (saved %lld), %zu turns, last reply %s, state %016llx",
             (long long)sess_id(s), (long long)sess_head(s),
             (long long)q_int(db, "SELECT head_turn FROM sessions WHERE id = 1"), n,
             n ? chat_turn_at(c, n - 1)->reply : "-",
             (unsigned long long)sess_test_state_hash(s));
}

enum { JOB_OPEN, JOB_SIBLING };

/* The client's job KIND (ARG, DIR) on S, cut as CUT says: queued (the
** expectation), then the cancel (EARLY), then run.  Its status. */
static int
job(sess *s, int kind, int64_t arg, int dir, int cut)
{
    rwkv_err err;
    int rc;

    sess_expect_reply(s);
    if (cut == CUT_EARLY)
        sess_cancel(s);
    cut_sess = s;
    cut_at_progress = cut == CUT_DURING;
    rc = kind == JOB_OPEN ? sess_open(s, arg, -1, &err) : sess_step_sibling(s, arg, dir, &err);
    cut_at_progress = 0;
    return rc;
}

/* One step of the script: its status and where S is, into LOG. */
static void
log_step(char *log, size_t cap, const char *step, int rc, sess *s, const char *db)
{
    char w[1024];
    size_t k = strlen(log);

    where(s, db, w, sizeof w);
    snprintf(log + k, cap - k, "%s: rc %d, %s\n", step, rc, w);
}

static void
script(rwkv_model *m, const tok *t, const char *db, int cut, char *log, size_t cap)
{
    int64_t reply1, reply2;
    char before[1024], after[1024];
    sess *s;
    int rc;

    log[0] = '\0';
    if (make_db(m, t, db, &reply1, &reply2) != 0 || (s = mk(m, t, db)) == NULL) {
        TEST_COND("the conversation made", 0);
        return;
    }
    /* opening it (it replays): cut, nothing changed */
    where(s, db, before, sizeof before);
    rc = job(s, JOB_OPEN, 1, 0, cut);
    where(s, db, after, sizeof after);
    log_step(log, cap, "open, cut", rc, s, db);
    TEST_CONDF(rc == RWKV_ECANCEL && strcmp(before, after) == 0,
               "an open cut %s: cancelled (rc %d), nothing changed:\n  %s\n  %s",
               cut == CUT_EARLY ? "before it began" : "in its replay", rc, before, after);
    /* again, not cut: the cancel is spent */
    rc = job(s, JOB_OPEN, 1, 0, CUT_NONE);
    log_step(log, cap, "open", rc, s, db);
    TEST_CONDF(rc == RWKV_OK && sess_id(s) == 1 && sess_head(s) == reply2,
               "the next open is not cut (rc %d, head %lld)", rc, (long long)sess_head(s));
    /* (the open kept the message's rebuilt state -- the fork point of the
    ** two replies: dropped again, so that the step replays it too) */
    q_exec(db, "DELETE FROM snapshots WHERE turn_id IN (SELECT id FROM turns WHERE role = 1)");
    /* a step to the first reply (it replays): cut, nothing changed */
    where(s, db, before, sizeof before);
    rc = job(s, JOB_SIBLING, reply2, -1, cut);
    where(s, db, after, sizeof after);
    log_step(log, cap, "step back, cut", rc, s, db);
    TEST_CONDF(rc == RWKV_ECANCEL && strcmp(before, after) == 0,
               "a sibling step cut: cancelled (rc %d), nothing changed:\n  %s\n  %s", rc,
               before, after);
    rc = job(s, JOB_SIBLING, reply2, -1, CUT_NONE);
    log_step(log, cap, "step back", rc, s, db);
    TEST_CONDF(rc == RWKV_OK && sess_head(s) == reply1,
               "the next step is not cut (rc %d, head %lld)", rc, (long long)sess_head(s));
    /* a step to the second reply, whose state the open kept: no replay, so
    ** the cancel cuts nothing */
    rc = job(s, JOB_SIBLING, reply1, 1, cut);
    log_step(log, cap, "step on, nothing to replay", rc, s, db);
    TEST_CONDF(rc == RWKV_OK && sess_head(s) == reply2,
               "a step that replays nothing goes through (rc %d, head %lld)", rc,
               (long long)sess_head(s));
    /* ... and its cancel ended with it: the next message runs whole */
    sess_expect_reply(s);
    TEST_COND("the next message runs whole",
              say(s, "next") == 0 && sess_started(s) &&
              chat_turn_at(sess_chat(s), chat_n_turns(sess_chat(s)) - 1)->n_reply == MAX_TOK &&
              !chat_turn_at(sess_chat(s), chat_n_turns(sess_chat(s)) - 1)->interrupted);
    log_step(log, cap, "next message", RWKV_OK, s, db);
    sess_destroy(s);
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;
    static char early[1 << 14], during[1 << 14];
    char db1[600], db2[600];

    if (test_tmpdir("rwkv-test-cancel-open") == NULL)
        return 1;
    if (sess_test_demo(NULL, &m, &t) == 0) {
        test_tmp_path(db1, sizeof db1, "early.db");
        test_tmp_path(db2, sizeof db2, "during.db");
        script(m, t, db1, CUT_EARLY, early, sizeof early);
        script(m, t, db2, CUT_DURING, during, sizeof during);
        TEST_CONDF(strcmp(early, during) == 0,
                   "a cancel before the job began == one in its replay:\n"
                   "--- before:\n%s--- during:\n%s", early, during);
        if (getenv("CANCEL_LOG"))
            fputs(early, stdout);
    }
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
