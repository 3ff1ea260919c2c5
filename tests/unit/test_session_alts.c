/*
** test_session_alts.c -- N alternative replies (sess_regen_n) on real
** SQLite files in a temp dir, with the demo model: the alternatives are
** sibling replies of the message, each with its own recorded seed that
** gives its reply again; the same seed and command give the same N
** replies; a cancel keeps the finished ones and the cut one (continuable)
** and starts no more -- one cut before its first token is not kept; a
** count out of range is refused.
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

#define MSG "hello there"

/* What the callbacks saw: the alternatives begun (K of N), and a cancel of
** CUT_SESS asked for at the first text of alternative CUT_AT (0 = none). */
static int begun_k[SESS_MAX_ALTS + 1], n_begun, alt_now, cut_at;
static sess *cut_sess;
/* A cancel sent at the announcement of alternative CANCEL_AT_EACH (the
** chat is idle then: between two alternatives). */
static int cancel_at_each;

static void
on_each(void *ud, int k, int n)
{
    (void)ud;
    (void)n;
    if (n_begun <= SESS_MAX_ALTS)
        begun_k[n_begun++] = k;
    alt_now = k;
    if (k == cancel_at_each)
        sess_cancel(cut_sess);
}

static void
on_text(void *ud, const char *text, size_t len)
{
    (void)ud;
    (void)text;
    if (len > 0 && cut_at != 0 && alt_now == cut_at)
        sess_cancel(cut_sess);
}

/* A runtime on DB (NULL: not saved): seed 42, 8 tokens a reply, no stop
** string (every reply runs to max_tokens, so a cut is a cut). */
static sess *
mk(rwkv_model *m, const tok *t, const char *db)
{
    sess_config sc;

    sess_test_config(&sc, m, t, db, 42, 8);
    sc.chat.samp.temperature = 1.0f;
    sc.chat.no_stop = 1;
    sc.cb.text = on_text;
    return sess_test_create(&sc);
}

/* The reply rows under the message of S's last exchange, oldest first:
** *N of them (free with free). */
static int64_t *
replies(sess *s, size_t *n)
{
    int64_t u, r, *kids = NULL;
    rwkv_err err;

    *n = 0;
    sess_last_ids(s, &u, &r);
    if (store_turn_children(sess_store(s), sess_id(s), u, &kids, n, &err) != RWKV_OK)
        printf("     children: %s\n", err.msg);
    return kids;
}

/* A test that S's head, in the runtime and in the store, is reply row ID
** and that the chat's last reply is that row's text. */
static void
head_on(sess *s, int64_t id, const char *what)
{
    store_session ss;
    store_turn row;
    rwkv_err err;
    const chat_turn *ct;
    int64_t u, r;
    int ok = 0;

    sess_last_ids(s, &u, &r);
    if (chat_n_turns(sess_chat(s)) > 0 &&
        store_session_get(sess_store(s), sess_id(s), &ss, &err) == RWKV_OK &&
        store_turn_get(sess_store(s), id, &row, &err) == RWKV_OK) {
        ct = chat_turn_at(sess_chat(s), chat_n_turns(sess_chat(s)) - 1);
        ok = sess_head(s) == id && ss.head_turn == id && r == id && ct->n_reply > 0 &&
             strcmp(ct->reply, row.text) == 0;
        store_turn_fini(&row);
    }
    TEST_CONDF(ok, "%s (head %lld, reply %lld, turn %lld)", what, (long long)sess_head(s),
               (long long)r, (long long)id);
}

/* 1 when reply row ID of ST is the reply an unsaved chat on M/T gives to
** MSG with the row's seed. */
static int
reproduced(rwkv_model *m, const tok *t, store *st, int64_t id)
{
    store_turn row;
    rwkv_err err;
    sess *s;
    const chat_turn *ct;
    int same = 0;

    if (store_turn_get(st, id, &row, &err) != RWKV_OK)
        return 0;
    s = mk(m, t, NULL);
    if (s != NULL && say(s, MSG) == 0) {
        chat_set_next_seed(sess_chat(s), row.sampling.seed);
        if (sess_regen(s, &err) == RWKV_OK && sess_run(s, &err) == RWKV_OK) {
            ct = chat_turn_at(sess_chat(s), chat_n_turns(sess_chat(s)) - 1);
            same = ct->n_reply == row.n_tokens &&
                   memcmp(ct->reply_ids, row.tokens, row.n_tokens * sizeof(int32_t)) == 0 &&
                   ct->samp.seed == row.sampling.seed;
        }
    }
    sess_destroy(s);
    store_turn_fini(&row);
    return same;
}

/* The seeds of rows IDS[N] of ST into SEEDS; texts joined into TEXT. */
static void
seeds_texts(store *st, const int64_t *ids, size_t n, uint64_t *seeds, char *text, size_t cap)
{
    rwkv_err err;

    text[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        store_turn row;
        seeds[i] = 0;
        if (store_turn_get(st, ids[i], &row, &err) != RWKV_OK)
            continue;
        seeds[i] = row.sampling.seed;
        snprintf(text + strlen(text), cap - strlen(text), "%s|", row.text);
        store_turn_fini(&row);
    }
}

static void
batch(rwkv_model *m, const tok *t)
{
    char db[600], db2[600], text[4096], text2[4096];
    uint64_t seeds[4], seeds2[4];
    int64_t *ids, *ids2;
    size_t n, n2;
    int done = 0, distinct = 1, repro = 1;
    rwkv_err err;
    sess *s, *s2;

    test_tmp_path(db, sizeof db, "alts.db");
    test_tmp_path(db2, sizeof db2, "alts2.db");
    s = mk(m, t, db);
    s2 = mk(m, t, db2);
    if (s == NULL || s2 == NULL || say(s, MSG) != 0 || say(s2, MSG) != 0) {
        TEST_COND("two sessions said hello", 0);
        goto out;
    }
    n_begun = 0;
    TEST_CONDF(sess_regen_n(s, 3, on_each, &done, &err) == RWKV_OK && done == 3,
               "three alternatives (%d): %s", done, err.msg);
    TEST_CONDF(n_begun == 3 && begun_k[0] == 1 && begun_k[1] == 2 && begun_k[2] == 3,
               "each alternative announced in order (%d)", n_begun);
    ids = replies(s, &n);
    TEST_CONDF(n == 4, "the first reply and three siblings (%zu)", n);
    if (n == 4) {
        int64_t u, r;
        sess_last_ids(s, &u, &r);
        TEST_COND("the chat goes on from the last alternative", r == ids[3] &&
                  sess_head(s) == ids[3]);
        seeds_texts(sess_store(s), ids, n, seeds, text, sizeof text);
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                distinct &= seeds[i] != seeds[j];
        TEST_COND("each reply has its own seed", distinct);
        for (size_t i = 1; i < n; i++)
            repro &= reproduced(m, t, sess_store(s), ids[i]);
        TEST_COND("each alternative is given again by its recorded seed", repro);
        /* the same seed, message and command in another session: the same */
        TEST_COND("the same batch elsewhere", sess_regen_n(s2, 3, NULL, NULL, &err) == RWKV_OK);
        ids2 = replies(s2, &n2);
        TEST_CONDF(n2 == 4, "four replies there too (%zu)", n2);
        if (n2 == 4) {
            seeds_texts(sess_store(s2), ids2, n2, seeds2, text2, sizeof text2);
            TEST_CONDF(memcmp(seeds, seeds2, sizeof seeds) == 0 && strcmp(text, text2) == 0,
                       "the same command gives the same replies:\n  %s\n  %s", text, text2);
        }
        free(ids2);
    }
    free(ids);

    /* a cancel during alternative 2 of 4: 1 finished + the cut one, no 3rd */
    n_begun = 0;
    cut_at = 2;
    cut_sess = s;
    TEST_CONDF(sess_regen_n(s, 4, on_each, &done, &err) == RWKV_OK && done == 2,
               "a cancelled batch returns what it made (%d)", done);
    cut_at = 0;
    TEST_CONDF(n_begun == 2, "no alternative after the cut one (%d begun)", n_begun);
    ids = replies(s, &n);
    TEST_CONDF(n == 6, "the finished and the cut alternative kept (%zu)", n);
    if (n == 6) {
        store_turn row;
        size_t had = 0;
        int cut = store_turn_get(sess_store(s), ids[5], &row, &err) == RWKV_OK &&
                  row.interrupted && row.n_tokens > 0;
        if (cut) {
            had = row.n_tokens;
            store_turn_fini(&row);
        }
        TEST_COND("the cut one is saved interrupted, with its tokens", cut);
        TEST_CONDF(sess_continue(s, &err) == RWKV_OK && sess_run(s, &err) == RWKV_OK,
                   "the cut alternative goes on: %s", err.msg);
        cut = store_turn_get(sess_store(s), ids[5], &row, &err) == RWKV_OK && !row.interrupted &&
              row.n_tokens == had + 8;      /* max_tokens more */
        if (cut)
            store_turn_fini(&row);
        TEST_COND("... to its end, in its row", cut);
    }
    free(ids);

    /* a cancel sent between two alternatives (at the announcement of the
    ** 2nd: the chat is idle then) still stops the batch; the 2nd, cut
    ** before its first token, has nothing in it: not kept, the chat and
    ** the session's head stay on the 1st (as the line chat's "nothing
    ** changed" says) */
    n_begun = 0;
    cancel_at_each = 2;
    TEST_CONDF(sess_regen_n(s, 3, on_each, &done, &err) == RWKV_OK && n_begun == 2 && done == 1,
               "a cancel between alternatives stops the batch (%d begun, %d made)", n_begun,
               done);
    cancel_at_each = 0;
    TEST_COND("the one cut at once did not start", !sess_started(s));
    ids = replies(s, &n);
    TEST_CONDF(n == 7, "the one before kept, the one cut at once not (%zu)", n);
    if (n == 7)
        head_on(s, ids[6], "the chat goes on from the one before");
    free(ids);
    /* the same for a single regeneration: nothing changed */
    cancel_at_each = 1;
    TEST_COND("a regeneration cut at once", sess_regen_n(s, 1, on_each, &done, &err) == RWKV_OK &&
              done == 0 && !sess_started(s));
    cancel_at_each = 0;
    ids = replies(s, &n);
    TEST_CONDF(n == 7, "... left no row (%zu)", n);
    if (n == 7)
        head_on(s, ids[6], "... and the chat on the reply it had");
    free(ids);
    TEST_COND("1..16 only", sess_regen_n(s, 0, NULL, NULL, &err) == RWKV_EINVAL &&
              sess_regen_n(s, SESS_MAX_ALTS + 1, NULL, NULL, &err) == RWKV_EINVAL &&
              strstr(err.msg, "1..16") != NULL);
    ids = replies(s, &n);
    TEST_CONDF(n == 7, "a refused count made nothing (%zu)", n);
    free(ids);
out:
    sess_destroy(s);
    sess_destroy(s2);
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;

    if (test_tmpdir("rwkv-test-session-alts") == NULL)
        return 1;
    if (sess_test_demo(NULL, &m, &t) == 0)
        batch(m, t);
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
