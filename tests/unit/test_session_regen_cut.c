/*
** test_session_regen_cut.c -- a regeneration that makes nothing (cancelled
** before its first token, or while its prompt is fed again) changes nothing
** in a runtime without a database, as in one with (test_session_alts.c):
** the chat keeps the reply it had -- its text, its tokens, the state after
** it -- and the next regeneration, continuation or message goes on from it.
** The demo model, no stop string (every reply runs to max_tokens).
*/
#include "../harness.h"

#include <stdint.h>

#include "../../core/chat/chat.h"
#include "../../core/model/model_gen.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

#define MAX_TOK 8

static sess *cut_sess;
/* A cancel sent at the announcement of alternative CANCEL_AT_EACH of
** sess_regen_n (the chat is idle then: the reply is cut before its first
** token), or at the next prefill (CANCEL_IN_PREFILL: the prompt fed again). */
static int cancel_at_each, cancel_in_prefill;
/* The tokens of the last reply that ended with some (the done callback). */
static int32_t done_ids[MAX_TOK];
static size_t n_done_ids;

static void
on_each(void *ud, int k, int n)
{
    (void)ud;
    (void)n;
    if (k == cancel_at_each)
        sess_cancel(cut_sess);
}

static void
on_phase(void *ud, int phase)
{
    (void)ud;
    if (phase == CHAT_PREFILL && cancel_in_prefill) {
        cancel_in_prefill = 0;
        sess_cancel(cut_sess);
    }
}

static void
on_done(void *ud, const chat_turn *t)
{
    (void)ud;
    if (t->n_reply > 0 && t->n_reply <= MAX_TOK) {
        memcpy(done_ids, t->reply_ids, t->n_reply * sizeof(int32_t));
        n_done_ids = t->n_reply;
    }
}

/* The chat's last turn: its reply is IDS[N] with text TEXT (NULL: any). */
static int
last_reply_is(sess *s, const int32_t *ids, size_t n, const char *text)
{
    size_t k = chat_n_turns(sess_chat(s));
    const chat_turn *t = k ? chat_turn_at(sess_chat(s), k - 1) : NULL;

    return t != NULL && t->n_reply == n && memcmp(t->reply_ids, ids, n * sizeof(int32_t)) == 0 &&
           (text == NULL || strcmp(t->reply, text) == 0);
}

static int
same_state(const rwkv_state *a, const rwkv_state *b)
{
    return rwkv_state_len(a) == rwkv_state_len(b) &&
           memcmp(rwkv_state_cdata(a), rwkv_state_cdata(b), rwkv_state_len(a) * sizeof(float)) == 0;
}

static void
cut(rwkv_model *m, const tok *t)
{
    sess_config sc;
    sess *s;
    rwkv_state *after = NULL;
    rwkv_err err;
    int32_t ids[MAX_TOK], alt1[MAX_TOK];
    char text[256];
    size_t n = 0;
    int done = -1;
    const chat_turn *ct;

    sess_test_config(&sc, m, t, NULL, 42, MAX_TOK);
    sc.chat.samp.temperature = 1.0f;
    sc.chat.no_stop = 1;
    sc.cb.phase = on_phase;
    sc.cb.done = on_done;
    if ((s = sess_test_create(&sc)) == NULL || say(s, "hello there") != 0 ||
        rwkv_state_create(m, &after, &err) != RWKV_OK) {
        TEST_COND("set up", 0);
        goto out;
    }
    cut_sess = s;
    TEST_COND("not saved", sess_store(s) == NULL);
    ct = chat_turn_at(sess_chat(s), 0);
    n = ct->n_reply;
    memcpy(ids, ct->reply_ids, n * sizeof(int32_t));
    snprintf(text, sizeof text, "%s", ct->reply);
    rwkv_state_copy(after, chat_state(sess_chat(s)));

    /* cut before its first token: the reply it had, and the state after it */
    cancel_at_each = 1;
    TEST_COND("a regeneration cut at once", sess_regen_n(s, 1, on_each, &done, &err) == RWKV_OK &&
              done == 0 && !sess_started(s));
    cancel_at_each = 0;
    TEST_CONDF(chat_n_turns(sess_chat(s)) == 1 && last_reply_is(s, ids, n, text),
               "... left the reply it had (%zu turns)", chat_n_turns(sess_chat(s)));
    TEST_COND("... and the state after it", same_state(chat_state(sess_chat(s)), after));

    /* the next one feeds the prompt again (the state right after it was not
    ** kept); cut while it does: the same */
    cancel_in_prefill = 1;
    TEST_COND("a regeneration cut while its prompt is fed again",
              sess_regen_n(s, 1, NULL, &done, &err) == RWKV_OK && done == 0 &&
              !sess_started(s) && cancel_in_prefill == 0);
    cancel_in_prefill = 0;
    TEST_CONDF(chat_n_turns(sess_chat(s)) == 1 && last_reply_is(s, ids, n, text),
               "... left the reply it had (%zu turns)", chat_n_turns(sess_chat(s)));
    TEST_COND("... and the state after it", same_state(chat_state(sess_chat(s)), after));

    /* three alternatives, the second cut at once: the chat on the first */
    n_done_ids = 0;
    cancel_at_each = 2;
    TEST_CONDF(sess_regen_n(s, 3, on_each, &done, &err) == RWKV_OK && done == 1,
               "a batch stopped at its second (%d made)", done);
    cancel_at_each = 0;
    memcpy(alt1, done_ids, n_done_ids * sizeof(int32_t));
    TEST_COND("... the chat on the first alternative",
              n_done_ids == MAX_TOK && chat_n_turns(sess_chat(s)) == 1 &&
              last_reply_is(s, alt1, n_done_ids, NULL));

    /* a continuation after a cut one goes on from the reply it had */
    cancel_at_each = 1;
    TEST_COND("cut at once again", sess_regen_n(s, 1, on_each, &done, &err) == RWKV_OK &&
              done == 0);
    cancel_at_each = 0;
    TEST_CONDF(sess_continue(s, &err) == RWKV_OK && sess_run(s, &err) == RWKV_OK,
               "continued: %s", err.msg);
    ct = chat_turn_at(sess_chat(s), chat_n_turns(sess_chat(s)) - 1);
    TEST_CONDF(ct->n_reply == 2 * MAX_TOK && memcmp(ct->reply_ids, alt1, sizeof alt1) == 0,
               "... the first alternative, %d more tokens (%zu)", MAX_TOK, ct->n_reply);

    /* and the chat goes on: a regeneration and a message */
    TEST_COND("a regeneration runs", sess_regen_n(s, 1, NULL, &done, &err) == RWKV_OK &&
              done == 1 && sess_started(s));
    TEST_COND("a message follows", say(s, "and then") == 0 && chat_n_turns(sess_chat(s)) == 2);
out:
    rwkv_state_destroy(after);
    sess_destroy(s);
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;

    if (sess_test_demo(NULL, &m, &t) == 0)
        cut(m, t);
    rwkv_model_close(m);
    tok_close(t);
    return TEST_REPORT();
}
