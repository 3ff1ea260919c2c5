/*
** test_session_open_alloc.c -- an open makes the states a replay takes on
** its way (the one before the last message, the one after it with its
** logits: sess_load_branch, replay_mid) only where the replay passes them.
** A resume of a branch whose states are saved replays nothing and makes
** none of them: one state (the branch's, restored), no n_vocab floats of
** logits; it made three states and the logits on every open before.
** Three opens of the same two exchanges (demo model, a real SQLite file):
**   - every state saved: 1 state, no logits, nothing replayed;
**   - the last reply's state gone: its tokens replayed from the message's
**     saved state, the message not fed -- 1 state, no logits;
**   - no state saved (a crash in the prefill leaves the message without
**     one): the whole branch replayed, the message fed -- the state before
**     it, the one after it with its logits too (3 states, one n_vocab
**     buffer), and a regeneration then starts there: no prefill.
** Counted by the linker: this test is linked with --wrap=rwkv_state_create
** and --wrap=malloc (Makefile), so the calls of the libraries come here.
*/
#include "../harness.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

int   __real_rwkv_state_create(const rwkv_model *m, rwkv_state **out, rwkv_err *err);
int   __wrap_rwkv_state_create(const rwkv_model *m, rwkv_state **out, rwkv_err *err);
void *__real_malloc(size_t n);
void *__wrap_malloc(size_t n);

static int      counting;          /* inside the open counted */
static unsigned n_states;          /* states made while counting */
static unsigned n_logits;          /* buffers of n_vocab floats malloc'd while counting */
static size_t   logits_bytes;      /* n_vocab * sizeof(float), 0 before the model */
static uint64_t prog_total;        /* the open's replay total */
static int      phases[8];         /* phase reports, by enum chat_phase */

int
__wrap_rwkv_state_create(const rwkv_model *m, rwkv_state **out, rwkv_err *err)
{
    if (counting)
        n_states++;
    return __real_rwkv_state_create(m, out, err);
}

void *
__wrap_malloc(size_t n)
{
    if (counting && logits_bytes != 0 && n == logits_bytes)
        n_logits++;
    return __real_malloc(n);
}

static void
on_progress(void *ud, uint64_t done, uint64_t total)
{
    (void)ud;
    (void)done;
    if (total > prog_total)
        prog_total = total;
}

static void
on_phase(void *ud, int ph)
{
    (void)ud;
    if (ph >= 0 && ph < 8)
        phases[ph]++;
}

static sess *
mk(rwkv_model *m, const tok *t, const char *db)
{
    sess_config sc;

    sess_test_config(&sc, m, t, db, 7, 8);
    sc.chat.no_stop = 1;
    sc.progress = on_progress;
    sc.cb.phase = on_phase;
    return sess_test_create(&sc);
}

/* Two exchanges saved in DB (session 1), every state saved. */
static int
two_exchanges(rwkv_model *m, const tok *t, const char *db)
{
    sess *s = mk(m, t, db);
    int rc;

    if (s == NULL)
        return -1;
    rc = say(s, "hello there") || say(s, "and a second message, a little longer");
    sess_destroy(s);
    return rc ? -1 : 0;
}

/* What an open of session 1 of DB made. */
struct opened {
    unsigned states, logits;
    uint64_t replayed;
    int      ok, regen_prefills;
};

/* Open session 1 of DB in a new runtime, counting; then (REGEN) regenerate
** its last reply. */
static void
open_counted(rwkv_model *m, const tok *t, const char *db, int regen, struct opened *o)
{
    rwkv_err err = { 0 };
    sess *s;
    int rc;

    memset(o, 0, sizeof *o);
    if ((s = mk(m, t, db)) == NULL)
        return;
    prog_total = 0;
    n_states = n_logits = 0;
    counting = 1;
    rc = sess_open(s, 1, -1, &err);
    counting = 0;
    o->states = n_states;
    o->logits = n_logits;
    o->replayed = prog_total;
    o->ok = rc == RWKV_OK;
    if (!o->ok)
        printf("     open %s: %s\n", db, err.msg);
    if (o->ok && regen) {
        memset(phases, 0, sizeof phases);
        if (sess_regen(s, &err) != RWKV_OK || sess_run(s, &err) != RWKV_OK) {
            printf("     regen: %s\n", err.msg);
            o->ok = 0;
        }
        o->regen_prefills = phases[CHAT_PREFILL];
    }
    sess_destroy(s);
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;
    char saved[600], cut[600], none[600];
    struct opened o;

    if (test_tmpdir("rwkv-test-session-open-alloc") == NULL)
        return 1;
    test_tmp_path(saved, sizeof saved, "saved.db");
    test_tmp_path(cut, sizeof cut, "cut.db");
    test_tmp_path(none, sizeof none, "none.db");
    if (sess_test_demo(NULL, &m, &t) != 0)
        return TEST_REPORT();
    logits_bytes = (size_t)rwkv_model_info(m)->n_vocab * sizeof(float);
    TEST_CONDF(two_exchanges(m, t, saved) == 0 && two_exchanges(m, t, cut) == 0 &&
                   two_exchanges(m, t, none) == 0,
               "three files of two exchanges");
    TEST_CONDF(q_exec(cut, "DELETE FROM snapshots WHERE turn_id = (SELECT max(id) FROM turns)") ==
                       SQLITE_OK &&
                   q_exec(none, "DELETE FROM snapshots") == SQLITE_OK,
               "the last reply's state dropped from one, every state from another");

    open_counted(m, t, saved, 0, &o);
    TEST_CONDF(o.ok && o.replayed == 0, "every state saved: the open replays nothing (%llu)",
               (unsigned long long)o.replayed);
    TEST_CONDF(o.states == 1 && o.logits == 0,
               "every state saved: one state made (%u), no logits (%u buffers of %zu bytes)",
               o.states, o.logits, logits_bytes);

    open_counted(m, t, cut, 0, &o);
    TEST_CONDF(o.ok && o.replayed > 0, "the last reply's state gone: it is replayed (%llu)",
               (unsigned long long)o.replayed);
    TEST_CONDF(o.states == 1 && o.logits == 0,
               "the last reply's state gone, the message's kept: one state made (%u), no "
               "logits (%u)", o.states, o.logits);

    open_counted(m, t, none, 1, &o);
    TEST_CONDF(o.ok && o.replayed > 0, "no state saved: the branch is replayed (%llu)",
               (unsigned long long)o.replayed);
    TEST_CONDF(o.states == 3 && o.logits == 1,
               "no state saved: the states before and after the message made, its logits "
               "(%u states, %u logits)", o.states, o.logits);
    TEST_CONDF(o.ok && o.regen_prefills == 0,
               "no state saved: the regeneration starts from the replay's state after the "
               "message (%d prefills)", o.regen_prefills);

    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
