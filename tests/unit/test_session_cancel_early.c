/*
** test_session_cancel_early.c -- the cancel rule (storage/session.h): a
** cancel sent after the user sent -- the reply expected (sess_expect_reply)
** but the worker not started yet -- stops that reply exactly as one sent at
** its first step does, and a cancel while nothing is expected is void.
**
** The jobs run as the full-screen client runs them (tui/worker.c): on a
** thread of their own, started where the job is queued (tui/app.c
** start_job: sess_expect_reply, then the thread).  Here the thread is held
** at a gate before its first sess_* call until the test opens it, so the
** cancel lands between queueing and the job's start every time -- the
** instant a person hits by chance.  Each script runs twice on a real
** SQLite file with the demo model: once with every cancel in that instant
** (EARLY), once at the job's first phase callback (DURING, on the worker:
** a cancel at the reply's first step); the chat and the saved rows must
** come out the same, and EARLY must have cut every reply.  No stop string:
** a reply not cut runs to max_tokens.  CANCEL_LOG=1 prints EARLY's log.
*/
#include "../harness.h"

#include <pthread.h>
#include <stdint.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

#define MAX_TOK 8

enum { JOB_SUBMIT, JOB_EDIT, JOB_REGEN, JOB_CONTINUE, JOB_PRIME };
enum { CUT_NONE, CUT_EARLY, CUT_DURING };

/* ---- a worker held at its gate ------------------------------------------------ */

typedef struct job {
    sess           *s;
    int             kind;
    const char     *msg;          /* SUBMIT, EDIT */
    int64_t         arg;          /* EDIT: the turn edited; REGEN: how many */
    pthread_t       th;
    pthread_mutex_t mu;
    pthread_cond_t  cv;
    int             go;
    int             rc, started, done;
    rwkv_err        err;
} job;

/* The job as tui/worker.c runs it, once the gate opens. */
static void *
job_main(void *arg)
{
    job *j = arg;

    pthread_mutex_lock(&j->mu);
    while (!j->go)
        pthread_cond_wait(&j->cv, &j->mu);
    pthread_mutex_unlock(&j->mu);
    j->rc = RWKV_OK;
    switch (j->kind) {
    case JOB_EDIT:
        j->rc = sess_fork(j->s, j->arg, NULL, &j->err);
        /* fall through */
    case JOB_SUBMIT:
        if (j->rc == RWKV_OK)
            j->rc = sess_submit(j->s, j->msg, strlen(j->msg), &j->err);
        if (j->rc == RWKV_OK)
            j->rc = sess_run(j->s, &j->err);
        break;
    case JOB_REGEN:
        j->rc = sess_regen_n(j->s, (int)j->arg, NULL, &j->done, &j->err);
        break;
    case JOB_CONTINUE:
        j->rc = sess_continue(j->s, &j->err);
        if (j->rc == RWKV_OK)
            j->rc = sess_run(j->s, &j->err);
        break;
    case JOB_PRIME:
        j->rc = sess_prime(j->s, NULL, &j->err);
        break;
    }
    j->started = sess_started(j->s);
    return NULL;
}

/* Queue job KIND as the client does: a reply is expected from now
** (sess_expect_reply; the greeting is no reply), then the thread starts --
** held at its gate.  0, or -1 (no thread: then nothing is expected,
** sess_expect_clear). */
static int
job_queue(job *j, sess *s, int kind, const char *msg, int64_t arg)
{
    memset(j, 0, sizeof *j);
    j->s = s;
    j->kind = kind;
    j->msg = msg;
    j->arg = arg;
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    if (kind != JOB_PRIME)
        sess_expect_reply(s);
    if (pthread_create(&j->th, NULL, job_main, j) != 0) {
        sess_expect_clear(s);
        TEST_COND("worker thread", 0);
        return -1;
    }
    return 0;
}

/* Open the gate and wait for the job's end. */
static void
job_release(job *j)
{
    pthread_mutex_lock(&j->mu);
    j->go = 1;
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&j->mu);
    pthread_join(j->th, NULL);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
}

/* Run job KIND on S, cut as CUT says (by sess_abandon when ABANDON): EARLY
** between the queueing and the job's start, DURING at its first phase
** callback.  The job's outcome in *J. */
static void
run_job(job *j, sess *s, int kind, const char *msg, int64_t arg, int cut, int abandon)
{
    sess_cut.s = s;
    sess_cut.cancel = !abandon;
    sess_cut.next = cut == CUT_DURING;
    if (job_queue(j, s, kind, msg, arg) != 0)
        return;
    if (cut == CUT_EARLY) {
        if (abandon)
            sess_abandon(s);
        else
            sess_cancel(s);
    }
    job_release(j);
    sess_cut.next = 0;
}

/* ---- what a run leaves ------------------------------------------------------------- */

/* The text of the first column of the first row of SQL on DB into OUT. */
static void
q_text(const char *db, const char *sql, char *out, size_t cap)
{
    sqlite3 *h;
    sqlite3_stmt *st;

    out[0] = '\0';
    if (sqlite3_open(db, &h) != SQLITE_OK)
        return;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) != NULL)
            snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
}

/* Every saved row (parent, role, interrupted, tokens, state, text) and the
** sessions' heads, in order. */
static void
db_rows(const char *db, char *out, size_t cap)
{
    char heads[256];
    size_t k;

    q_text(db,
           "SELECT group_concat(x, ' | ') FROM (SELECT coalesce(parent_id, 0) || ',' || role || "
           "',' || interrupted || ',' || length(coalesce(tokens, x'')) || ',' || "
           "(SELECT count(*) FROM snapshots WHERE turn_id = turns.id) || ',' || text AS x "
           "FROM turns ORDER BY id)",
           out, cap);
    q_text(db, "SELECT group_concat(id || '@' || head_turn) FROM sessions", heads, sizeof heads);
    k = strlen(out);
    snprintf(out + k, cap - k, " || heads %s", heads);
}

/* The chat of S: its turns (reply tokens, interrupted, text) and its state. */
static void
chat_summary(sess *s, char *out, size_t cap)
{
    chat *c = sess_chat(s);
    size_t k;

    snprintf(out, cap, "%zu turns", chat_n_turns(c));
    for (size_t i = 0; i < chat_n_turns(c); i++) {
        const chat_turn *t = chat_turn_at(c, i);
        k = strlen(out);
        snprintf(out + k, cap - k, " | %zu,%d,%s", t->n_reply, t->interrupted,
                 t->reply ? t->reply : "");
    }
    k = strlen(out);
    snprintf(out + k, cap - k, " || state %016llx", (unsigned long long)sess_test_state_hash(s));
}

/* The log of one run: a line per step (the job's outcome, the chat, the rows). */
typedef struct runlog {
    char text[1 << 16];
} runlog;

static void
log_step(runlog *lg, const char *step, const job *j, sess *s, const char *db)
{
    char c[4096], rows[8192];
    size_t k = strlen(lg->text);

    chat_summary(s, c, sizeof c);
    db_rows(db, rows, sizeof rows);
    snprintf(lg->text + k, sizeof lg->text - k, "%s: rc %d started %d done %d\n  chat %s\n  rows %s\n",
             step, j->rc, j->started, j->done, c, rows);
}

static sess *
mk(rwkv_model *m, const tok *t, const char *db)
{
    sess_config sc;

    sess_test_config(&sc, m, t, db, 42, MAX_TOK);
    sc.chat.samp.temperature = 1.0f;
    sc.chat.no_stop = 1;
    sc.cb.phase = sess_test_cut_phase;
    return sess_test_create(&sc);
}

/* The last reply of S's chat (its text, NULL when none). */
static const char *
last_reply(sess *s)
{
    size_t n = chat_n_turns(sess_chat(s));
    return n ? chat_turn_at(sess_chat(s), n - 1)->reply : NULL;
}

/* ---- the script: every kind of reply, each cut (CUT: EARLY or DURING) ----------------- */

static void
script(rwkv_model *m, const tok *t, const char *db, int cut, runlog *lg)
{
    sess *s = mk(m, t, db);
    char before[4096], after[4096], rows_before[8192], rows_after[8192];
    int64_t user1, reply1;
    job j;
    int early = cut == CUT_EARLY;

    if (s == NULL)
        return;
    lg->text[0] = '\0';
    /* the first exchange, uncut */
    run_job(&j, s, JOB_SUBMIT, "hello there", 0, CUT_NONE, 0);
    TEST_CONDF(j.rc == RWKV_OK && j.started && chat_n_turns(sess_chat(s)) == 1 &&
               chat_turn_at(sess_chat(s), 0)->n_reply == MAX_TOK,
               "the first exchange (%d: %s)", j.rc, j.err.msg);
    sess_last_ids(s, &user1, &reply1);
    log_step(lg, "first", &j, s, db);

    /* a message */
    chat_summary(s, before, sizeof before);
    db_rows(db, rows_before, sizeof rows_before);
    run_job(&j, s, JOB_SUBMIT, "a second message", 0, cut, 0);
    log_step(lg, "message", &j, s, db);
    if (early) {
        chat_summary(s, after, sizeof after);
        db_rows(db, rows_after, sizeof rows_after);
        TEST_CONDF(j.rc == RWKV_OK && !j.started, "a message cut before its job started did not "
                   "start (rc %d, started %d)", j.rc, j.started);
        TEST_CONDF(strcmp(before, after) == 0, "... the chat as it was:\n  %s\n  %s", before,
                   after);
        TEST_CONDF(strcmp(rows_before, rows_after) == 0, "... nothing of it saved:\n  %s\n  %s",
                   rows_before, rows_after);
    }

    /* a continuation (the logits after the reply are there: it goes
    ** straight to generation, so the cut reply is marked interrupted, as
    ** after a cancel at its first token) */
    snprintf(before, sizeof before, "%s", last_reply(s) ? last_reply(s) : "");
    run_job(&j, s, JOB_CONTINUE, NULL, 0, cut, 0);
    log_step(lg, "continue", &j, s, db);
    if (early)
        TEST_CONDF(j.rc == RWKV_OK && chat_turn_at(sess_chat(s), 0)->n_reply == MAX_TOK &&
                   strcmp(last_reply(s), before) == 0,
                   "a continuation cut before its job started added nothing (rc %d, %zu tokens)",
                   j.rc, chat_turn_at(sess_chat(s), 0)->n_reply);

    /* a regeneration */
    snprintf(before, sizeof before, "%s", last_reply(s) ? last_reply(s) : "");
    db_rows(db, rows_before, sizeof rows_before);
    run_job(&j, s, JOB_REGEN, NULL, 1, cut, 0);
    log_step(lg, "regen", &j, s, db);
    if (early) {
        db_rows(db, rows_after, sizeof rows_after);
        TEST_CONDF(j.rc == RWKV_OK && j.done == 0 && !j.started,
                   "a regeneration cut before its job started made nothing (done %d)", j.done);
        TEST_COND("... the reply it had", last_reply(s) && strcmp(before, last_reply(s)) == 0);
        TEST_CONDF(strcmp(rows_before, rows_after) == 0, "... no row:\n  %s\n  %s", rows_before,
                   rows_after);
    }

    /* a batch of three */
    run_job(&j, s, JOB_REGEN, NULL, 3, cut, 0);
    log_step(lg, "batch", &j, s, db);
    if (early)
        TEST_CONDF(j.rc == RWKV_OK && j.done == 0,
                   "a batch cut before its job started made none (done %d)", j.done);

    /* an edited message: the job forks first (at the first message: from
    ** the greeting's turn), then sends */
    run_job(&j, s, JOB_EDIT, "an edited message", user1, cut, 0);
    log_step(lg, "edit", &j, s, db);
    if (early)
        TEST_CONDF(j.rc == RWKV_OK && !j.started && chat_n_turns(sess_chat(s)) == 0,
                   "an edited message cut before its job started was not sent (rc %d %s, "
                   "started %d, %zu turns)", j.rc, j.err.msg, j.started,
                   chat_n_turns(sess_chat(s)));

    /* sess_abandon (a quit, a hang-up): the message stays, as after a crash */
    run_job(&j, s, JOB_SUBMIT, "a message left behind", 0, cut, 1);
    log_step(lg, "abandon", &j, s, db);
    if (early) {
        char n[64];
        q_text(db, "SELECT count(*) FROM turns WHERE text = 'a message left behind'", n,
               sizeof n);
        TEST_CONDF(!j.started && strcmp(n, "1") == 0,
                   "a message abandoned before its job started is kept (%s rows, started %d)",
                   n, j.started);
    }
    sess_destroy(s);
}

/* ---- what a cancel does not do -------------------------------------------------------- */

static int
full_reply(const job *j, sess *s)
{
    size_t n = chat_n_turns(sess_chat(s));

    return j->rc == RWKV_OK && j->started && n > 0 &&
           chat_turn_at(sess_chat(s), n - 1)->n_reply == MAX_TOK &&
           !chat_turn_at(sess_chat(s), n - 1)->interrupted;
}

static void
void_cancels(rwkv_model *m, const tok *t)
{
    char db[600], n[64];
    sess *s;
    job j;
    rwkv_err err;

    test_tmp_path(db, sizeof db, "void.db");
    if ((s = mk(m, t, db)) == NULL)
        return;
    /* while idle, before anything was sent */
    sess_cancel(s);
    run_job(&j, s, JOB_SUBMIT, "first", 0, CUT_NONE, 0);
    TEST_CONDF(full_reply(&j, s), "a cancel while idle is void (rc %d, started %d)", j.rc,
               j.started);
    /* after a reply ended (the client's Esc before it saw the end) */
    sess_cancel(s);
    run_job(&j, s, JOB_REGEN, NULL, 1, CUT_NONE, 0);
    TEST_CONDF(full_reply(&j, s) && j.done == 1,
               "a cancel after the end does not carry over to a regeneration (done %d)", j.done);
    sess_cancel(s);
    run_job(&j, s, JOB_CONTINUE, NULL, 0, CUT_NONE, 0);
    TEST_CONDF(j.rc == RWKV_OK && j.started &&
               chat_turn_at(sess_chat(s), chat_n_turns(sess_chat(s)) - 1)->n_reply == 2 * MAX_TOK,
               "... nor to a continuation (rc %d %s)", j.rc, j.err.msg);
    /* a message cut in the instant, then the next one: not cut */
    run_job(&j, s, JOB_SUBMIT, "cut", 0, CUT_EARLY, 0);
    TEST_COND("a message cut before its job started", j.rc == RWKV_OK && !j.started);
    run_job(&j, s, JOB_SUBMIT, "the next", 0, CUT_NONE, 0);
    TEST_CONDF(full_reply(&j, s), "the next message runs whole (rc %d, started %d)", j.rc,
               j.started);
    /* a refused start ends the expectation: a cancel after it is void */
    sess_expect_reply(s);
    TEST_COND("an empty message is refused",
              sess_submit(s, "  ", 2, &err) == RWKV_EINVAL && chat_phase(sess_chat(s)) == CHAT_IDLE);
    sess_cancel(s);
    run_job(&j, s, JOB_SUBMIT, "after a refusal", 0, CUT_NONE, 0);
    TEST_CONDF(full_reply(&j, s), "a cancel after a refused start is void (started %d)",
               j.started);
    /* so does a job the client could not start (no thread: tui/worker.c
    ** calls sess_expect_clear), and a cancel after it -- Esc of the next
    ** job, a free generation the runtime does not expect -- is void: the
    ** message after that runs whole (it was cut at its first step) */
    sess_expect_reply(s);               /* Enter: the reply is expected ... */
    sess_expect_clear(s);               /* ... but its thread did not start */
    sess_cancel(s);                     /* Esc of another job */
    run_job(&j, s, JOB_SUBMIT, "after a job not started", 0, CUT_NONE, 0);
    TEST_CONDF(full_reply(&j, s), "a cancel after a job that never started is void "
               "(started %d)", j.started);
    /* the calls made directly (no sess_expect_reply) keep the same rule */
    sess_cancel(s);
    TEST_COND("sess_submit alone voids a cancel sent while idle",
              say(s, "said directly") == 0 && sess_started(s) &&
              chat_turn_at(sess_chat(s), chat_n_turns(sess_chat(s)) - 1)->n_reply == MAX_TOK);
    sess_destroy(s);

    /* a message queued behind the greeting (the client sends it when its
    ** PRIME job ends), cancelled before it went out: not sent */
    test_tmp_path(db, sizeof db, "greeting.db");
    if ((s = mk(m, t, db)) == NULL)
        return;
    {
        job p;
        if (job_queue(&p, s, JOB_PRIME, NULL, 0) != 0)
            return;
        sess_expect_reply(s);           /* Enter while the greeting is fed */
        sess_cancel(s);                 /* Esc */
        job_release(&p);
        run_job(&j, s, JOB_SUBMIT, "queued", 0, CUT_NONE, 0);   /* PRIME ended: sent */
    }
    q_text(db, "SELECT count(*) FROM turns WHERE text = 'queued'", n, sizeof n);
    TEST_CONDF(j.rc == RWKV_OK && !j.started && chat_n_turns(sess_chat(s)) == 0 &&
               (n[0] == '\0' || strcmp(n, "0") == 0),
               "a message queued behind the greeting and cancelled is not sent (started %d, "
               "%zu turns, %s rows)", j.started, chat_n_turns(sess_chat(s)), n);
    run_job(&j, s, JOB_SUBMIT, "then this", 0, CUT_NONE, 0);
    TEST_CONDF(full_reply(&j, s), "... and the next message runs whole (started %d)", j.started);
    sess_destroy(s);
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;
    static runlog early, during;
    char db1[600], db2[600];

    if (test_tmpdir("rwkv-test-cancel-early") == NULL)
        return 1;
    if (sess_test_demo(NULL, &m, &t) == 0) {
        test_tmp_path(db1, sizeof db1, "early.db");
        test_tmp_path(db2, sizeof db2, "during.db");
        script(m, t, db1, CUT_EARLY, &early);
        script(m, t, db2, CUT_DURING, &during);
        TEST_CONDF(strcmp(early.text, during.text) == 0,
                   "a cancel before the job started == one at its first step:\n"
                   "--- before the start:\n%s--- at the first step:\n%s", early.text,
                   during.text);
        if (getenv("CANCEL_LOG"))
            fputs(early.text, stdout);
        void_cancels(m, t);
    }
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
