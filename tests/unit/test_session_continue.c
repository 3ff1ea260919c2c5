/*
** test_session_continue.c -- a continuation (sess_continue, the TUI's M-r
** and the line chat's /continue) when the engine fails under it, as a GPU
** does when its device is lost.  The device here is a registered backend
** (core/model/backend.h) that computes every eval with the model's own CPU
** layers (mdl_embed / mdl_cpu_layers / mdl_cpu_head: the numbers are the
** real ones) until it is told to fail.  On the real runtime, a real SQLite
** file and the demo model:
**   - failing while generating (the logits were there: no rebuild) and
**     while rebuilding them (a resumed session);
**   - each time: one line naming the device's error, the chat idle, the
**     reply and its row as they were (text, tokens, not interrupted), no
**     rows added, the branch still ending at the reply;
**   - and the next action works: continue again, a new message.
*/
#include "../harness.h"

#include <stdint.h>
#include <sys/stat.h>

#include "../../core/chat/chat.h"
#include "../../core/model/backend.h"
#include "../../core/model/model.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

/* ---- a device that is the CPU until it fails ------------------------------ */

static int dev_left = -1;        /* evals before the device fails; -1 = never */
static int dev_failed;           /* evals refused */

static int
dev_check(const strat *s, rwkv_err *err)
{
    (void)s;
    (void)err;
    return RWKV_OK;
}

static int
dev_open(rwkv_model *m, void **out, rwkv_err *err)
{
    (void)err;
    *out = m;
    return RWKV_OK;
}

static void
dev_close(void *be)
{
    (void)be;
}

/* rwkv_eval's CPU path, or the device's error when its count is up. */
static int
dev_eval(void *be, rwkv_model *m, const int32_t *tokens, size_t n, rwkv_state *s, float *logits,
         rwkv_err *err)
{
    size_t C = (size_t)m->C;

    (void)be;
    if (dev_left == 0) {
        dev_failed++;
        return rwkv_errf(err, RWKV_EIO, "cuda: device lost (the test's device failed)");
    }
    if (dev_left > 0)
        dev_left--;
    mdl_state_release(s);
    for (size_t start = 0; start < n;) {
        size_t t = n - start < m->ws.cap_t ? n - start : m->ws.cap_t;
        for (size_t p = 0; p < t; p++)
            mdl_embed(m, tokens[start + p], m->ws.x + p * C);
        mdl_cpu_layers(m, 0, m->n_layer, t, s->data);
        start += t;
        if (start == n && logits != NULL)
            mdl_cpu_head(m, t, logits);
    }
    mdl_state_touch(s);
    return RWKV_OK;
}

static const rwkv_backend test_device = { "testdev", dev_check, dev_open, dev_close, dev_eval };

/* ---- the runtime ------------------------------------------------------------ */

static sess *
mk(rwkv_model *m, const tok *t, const char *db)
{
    sess_config sc;

    sess_test_config(&sc, m, t, db, 7, 10);
    return sess_test_create(&sc);
}

/* The reply as the chat and its row hold it. */
struct reply {
    char   text[512], row[512];
    size_t n, row_n;
    int    interrupted, row_interrupted;
    int    stop, max, row_max;     /* its ending; max_tokens it records */
    int64_t rows;
};

static void
reply_take(sess *s, int64_t r, const char *db, struct reply *o)
{
    const chat_turn *ct = chat_turn_at(sess_chat(s), chat_n_turns(sess_chat(s)) - 1);
    store_turn tu;
    rwkv_err err;

    memset(o, 0, sizeof *o);
    if (ct != NULL) {
        snprintf(o->text, sizeof o->text, "%s", ct->reply);
        o->n = ct->n_reply;
        o->interrupted = ct->interrupted;
        o->stop = ct->stop;
        o->max = ct->samp.max_tokens;
    }
    if (store_turn_get(sess_store(s), r, &tu, &err) == RWKV_OK) {
        snprintf(o->row, sizeof o->row, "%s", tu.text);
        o->row_n = tu.n_tokens;
        o->row_interrupted = tu.interrupted;
        o->row_max = tu.sampling.max_tokens;
        store_turn_fini(&tu);
    }
    o->rows = q_int(db, "SELECT count(*) FROM turns");
}

static int
reply_same(const struct reply *a, const struct reply *b)
{
    return strcmp(a->text, b->text) == 0 && a->n == b->n && a->interrupted == b->interrupted &&
           strcmp(a->row, b->row) == 0 && a->row_n == b->row_n &&
           a->row_interrupted == b->row_interrupted && a->rows == b->rows && a->stop == b->stop &&
           a->max == b->max && a->row_max == b->row_max;
}

/* Continue in S with the device failing after LEFT evals: the checks of
** the header, WHAT naming the case. */
static void
fail_once(sess *s, int64_t r, const char *db, int left, const char *what)
{
    struct reply before, after;
    rwkv_err err;
    int rc;

    reply_take(s, r, db, &before);
    TEST_CONDF(before.n > 0 && before.n == before.row_n && strcmp(before.text, before.row) == 0,
               "%s: the reply before (%zu tokens)", what, before.n);
    dev_left = left;
    dev_failed = 0;
    TEST_CONDF(sess_continue(s, &err) == RWKV_OK, "%s: continue starts: %s", what, err.msg);
    err.msg[0] = '\0';
    rc = sess_run(s, &err);
    dev_left = -1;
    TEST_CONDF(rc == RWKV_EIO && dev_failed == 1 && strstr(err.msg, "device lost") != NULL &&
                   strchr(err.msg, '\n') == NULL,
               "%s: the device's error, one line (%d, '%s')", what, rc, err.msg);
    TEST_CONDF(chat_phase(sess_chat(s)) == CHAT_IDLE, "%s: the chat is idle", what);
    reply_take(s, r, db, &after);
    TEST_CONDF(reply_same(&before, &after),
               "%s: the reply and its row as they were ('%s' %zu/%zu tokens, row '%s' %zu, "
               "interrupted %d/%d, stop %d/%d, max_tokens %d/%d row %d/%d, %lld/%lld rows)", what,
               after.text, before.n, after.n, after.row, after.row_n, after.interrupted,
               after.row_interrupted, before.stop, after.stop, before.max, after.max, before.row_max,
               after.row_max, (long long)before.rows, (long long)after.rows);
    TEST_CONDF(sess_head(s) == r, "%s: the branch still ends at the reply", what);
}

static void
engine_error(rwkv_model *m, const tok *t)
{
    char db[600];
    int64_t u = 0, r = 0, u2 = 0, r2 = 0;
    rwkv_err err;
    sess *s;
    struct reply rep;
    store_turn tu;

    test_tmp_path(db, sizeof db, "continue-engine.db");
    s = mk(m, t, db);
    if (s == NULL)
        return;
    TEST_COND("a reply cut at max tokens", say(s, "hello there") == 0);
    sess_last_ids(s, &u, &r);
    /* the logits after the reply are there: the continuation generates at
    ** once, and the device fails on its third token */
    fail_once(s, r, db, 2, "while generating");
    reply_take(s, r, db, &rep);
    TEST_CONDF(sess_continue(s, &err) == RWKV_OK && sess_run(s, &err) == RWKV_OK,
               "continue again, the device back: %s", err.msg);
    {
        struct reply more;
        reply_take(s, r, db, &more);
        TEST_CONDF(more.n > rep.n && strncmp(more.text, rep.text, strlen(rep.text)) == 0 &&
                       more.row_n == more.n && more.rows == rep.rows,
                   "it goes on from the reply (%zu -> %zu tokens, saved in its row)", rep.n, more.n);
    }
    sess_destroy(s);

    /* resumed: the logits are rebuilt first, and the device fails there */
    s = mk(m, t, db);
    if (s == NULL)
        return;
    TEST_CONDF(sess_open(s, 1, -1, &err) == RWKV_OK, "resumed: %s", err.msg);
    fail_once(s, r, db, 0, "while rebuilding");
    fail_once(s, r, db, 0, "again");
    TEST_COND("the next message", say(s, "and then?") == 0);
    sess_last_ids(s, &u2, &r2);
    TEST_CONDF(u2 != 0 && store_turn_get(sess_store(s), u2, &tu, &err) == RWKV_OK &&
                   tu.parent_id == r,
               "it is a child of the reply (%lld)", (long long)u2);
    if (u2 != 0)
        store_turn_fini(&tu);
    TEST_COND("its reply saved", r2 != 0 && r2 != r);
    sess_destroy(s);
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;

    if (test_tmpdir("rwkv-test-session-continue") == NULL)
        return 1;
    rwkv_backend_register(&test_device);
    if (sess_test_demo("cuda fp32", &m, &t) == 0)     /* on the test's device */
        engine_error(m, t);
    rwkv_model_close(m);
    rwkv_backend_register(NULL);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
