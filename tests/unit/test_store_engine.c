/*
** test_store_engine.c -- the session store with the real engine: continuing
** a resumed session (exact snapshot) or a forked one (state rebuilt by
** replaying the plan's tokens from the root) gives exactly the logits that
** continuing the original in-memory state gives.  Uses the in-memory demo
** model and, when the fixtures are present, the tiny 7v0 fp32 model.
*/
#include <stdint.h>
#include <unistd.h>

#include "../../core/rwkv.h"
#include "../../storage/store.h"
#include "../harness.h"

/* How the chat engine feeds a turn: a prompt in chunks of CHUNK tokens, a
** reply one token at a time.  Replays must do the same to be bit-exact. */
#define CHUNK 16

static int
feed(rwkv_model *m, rwkv_state *s, int role, const int32_t *t, size_t n, rwkv_err *err)
{
    if (role == STORE_ROLE_ASSISTANT) {
        for (size_t i = 0; i < n; i++)
            if (rwkv_eval(m, t + i, 1, s, NULL, err) != RWKV_OK)
                return -1;
        return 0;
    }
    for (size_t i = 0; i < n; i += CHUNK)
        if (rwkv_eval(m, t + i, n - i < CHUNK ? n - i : CHUNK, s, NULL, err) != RWKV_OK)
            return -1;
    return 0;
}

static void
meta_of(const rwkv_info *in, store_state_meta *m)
{
    memset(m, 0, sizeof *m);
    m->fingerprint = in->fingerprint;
    snprintf(m->version, sizeof m->version, "%s", in->version);
    m->n_layer = in->n_layer;
    m->n_embd = in->n_embd;
    m->n_head = in->n_head;
    m->head_size = in->head_size;
    m->precision = STORE_PREC_FP32;
}

static void
run(rwkv_model *m, rwkv_model *other, const char *name)
{
    char db[512], file[128];
    const rwkv_info *in = rwkv_model_info(m);
    store_state_meta meta;
    store *st;
    rwkv_err err;
    rwkv_state *s = NULL, *r = NULL;
    size_t n;
    /* four turns: prompt, reply, prompt (longer than a chunk), reply */
    static const int32_t T[4][40] = {
        { 85, 115, 101, 114, 58, 32, 104, 105, 10, 10, 65, 115 },
        { 72, 101, 108, 108, 111, 33, 10, 10 },
        { 85, 115, 101, 114, 58, 32, 119, 104, 97, 116, 32, 105, 115, 32, 97, 110, 32, 82, 78, 78,
          63, 10, 10, 65, 115, 115, 105, 115, 116, 97, 110, 116, 58 },
        { 32, 65, 32, 110, 101, 116 },
    };
    static const size_t TN[4] = { 12, 8, 33, 6 };
    static const int32_t X[5] = { 32, 116, 104, 97, 116 };
    int64_t ids[4], sess = 0, parent = 0;
    float *saved[4], *lmem, *lst;
    store_retention ret = { 1, 0 };   /* keep only the leaf's snapshot */

    snprintf(file, sizeof file, "%s.db", name);
    test_tmp_path(db, sizeof db, file);
    meta_of(in, &meta);
    TEST_COND("open", store_open(db, &st, &err) == RWKV_OK);
    TEST_COND("states", rwkv_state_create(m, &s, &err) == RWKV_OK && rwkv_state_create(m, &r, &err) == RWKV_OK);
    if (st == NULL || s == NULL || r == NULL)
        return;
    store_set_retention(st, &ret);
    n = rwkv_state_len(s);
    lmem = malloc(in->n_vocab * sizeof *lmem);
    lst = malloc(in->n_vocab * sizeof *lst);
    {
        store_session ss;
        memset(&ss, 0, sizeof ss);
        snprintf(ss.title, sizeof ss.title, "%s", name);
        store_session_new(st, &ss, &sess, &err);
    }
    for (int i = 0; i < 4; i++) {
        store_turn t;
        int role = i % 2 ? STORE_ROLE_ASSISTANT : STORE_ROLE_USER;
        feed(m, s, role, T[i], TN[i], &err);
        saved[i] = malloc(n * sizeof(float));
        memcpy(saved[i], rwkv_state_cdata(s), n * sizeof(float));
        memset(&t, 0, sizeof t);
        t.session_id = sess;
        t.parent_id = parent;
        t.role = role;
        t.text = "x";
        t.tokens = T[i];
        t.n_tokens = TN[i];
        TEST_COND("append", store_turn_append(st, &t, rwkv_state_cdata(s), n, &meta, &err) == RWKV_OK);
        ids[i] = parent = t.id;
    }
    store_close(st);
    TEST_COND("reopen", store_open(db, &st, &err) == RWKV_OK);
    if (st == NULL)
        return;

    /* resume: the leaf's snapshot, then continue */
    {
        store_plan p;
        rwkv_state_reset(m, r);
        TEST_COND("restore leaf", store_state_restore(st, ids[3], &meta, rwkv_state_data(r), n, &p, &err) == RWKV_OK &&
                                      p.base_turn == ids[3] && p.n_tokens == 0);
        store_plan_fini(&p);
        memcpy(rwkv_state_data(s), saved[3], n * sizeof(float));
        rwkv_eval(m, X, 5, s, lmem, &err);
        rwkv_eval(m, X, 5, r, lst, &err);
        TEST_CONDF(memcmp(lmem, lst, in->n_vocab * sizeof *lst) == 0,
                   "%s: resumed logits differ (max %g)", name, test_max_abs_diff(lmem, lst, in->n_vocab));
    }
    /* fork at every earlier turn: no snapshot left there, rebuilt by replay */
    for (int k = 0; k < 3; k++) {
        store_plan p;
        rwkv_state_reset(m, r);
        TEST_COND("restore by replay", store_state_restore(st, ids[k], &meta, rwkv_state_data(r), n, &p, &err) == RWKV_OK);
        TEST_CONDF(p.base_turn == 0 && p.n_segs == (size_t)k + 1, "%s: turn %d plan base %lld segs %zu", name, k,
                   (long long)p.base_turn, p.n_segs);
        for (size_t g = 0; g < p.n_segs; g++)
            feed(m, r, p.segs[g].role, p.tokens + p.segs[g].off, p.segs[g].len, &err);
        store_plan_fini(&p);
        TEST_CONDF(memcmp(rwkv_state_cdata(r), saved[k], n * sizeof(float)) == 0, "%s: replayed state %d differs", name, k);
        memcpy(rwkv_state_data(s), saved[k], n * sizeof(float));
        rwkv_eval(m, X, 5, s, lmem, &err);
        rwkv_eval(m, X, 5, r, lst, &err);
        TEST_CONDF(memcmp(lmem, lst, in->n_vocab * sizeof *lst) == 0, "%s: forked logits at %d differ", name, k);
    }
    /* another model: the snapshot is never used */
    if (other) {
        store_state_meta om;
        store_plan p;
        meta_of(rwkv_model_info(other), &om);
        TEST_COND("other model: replay from the root",
                  store_replay_plan(st, ids[3], &om, &p, &err) == RWKV_OK && p.base_turn == 0 &&
                      p.n_tokens == 12 + 8 + 33 + 6 && strstr(p.note, "another model") != NULL);
        store_plan_fini(&p);
    }
    for (int i = 0; i < 4; i++)
        free(saved[i]);
    free(lmem);
    free(lst);
    rwkv_state_destroy(s);
    rwkv_state_destroy(r);
    store_close(st);
}

int
main(void)
{
    rwkv_model *m = NULL, *m2 = NULL;
    rwkv_err err;
    rwkv_open_opts o = { 0 };
    char fx[512];

    o.n_threads = 1;
    if (test_tmpdir("rwkv-engine") == NULL)
        return 1;
    TEST_COND("demo model", rwkv_model_open_demo(1, &o, &m, &err) == RWKV_OK);
    TEST_COND("demo model 2", rwkv_model_open_demo(2, &o, &m2, &err) == RWKV_OK);
    if (m && m2) {
        TEST_COND("fingerprints differ", rwkv_model_info(m)->fingerprint != rwkv_model_info(m2)->fingerprint);
        run(m, m2, "demo");
    }
    rwkv_model_close(m);
    m = NULL;
    test_fixture_path(fx, sizeof fx, "models/tiny-7v0-fp32.pth");
    if (test_have_fixture("models/tiny-7v0-fp32.pth", 22)) {   /* run() makes 22 checks */
        if (rwkv_model_open(fx, &o, &m, &err) == RWKV_OK) {
            run(m, m2, "tiny7");
            rwkv_model_close(m);
        } else {
            TEST_CONDF(0, "open %s: %s", fx, err.msg);
        }
    }
    rwkv_model_close(m2);
    test_tmpdir_remove();
    return TEST_REPORT();
}
