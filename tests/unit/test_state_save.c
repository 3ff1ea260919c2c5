/*
** test_state_save.c -- saving a live state as a state file
** (rwkv_state_save_file, core/model/state_file.c) and loading it back
** (rwkv_state_load_file).
**
** For the demo model (always) and the tiny fp32 fixture models v4, v5.2,
** v6, v7 (skipped when the fixtures are missing): the state after a chat
** (core/chat/chat.h: greeting, two messages, two replies) is saved, loaded into
** a fresh state, and
**   - the loaded state equals the live one bit for bit,
**   - the logits of the next token from both are bit-identical,
**   - the file's time_state tensors have the names and shapes of the
**     fixture state file for that model (v5/v6/v7), float32,
**   - a pip-style load (time_state only: the extras stripped) gives other
**     logits, so the extras are what makes the reload exact.
** Also: a missing directory fails with one line naming the path and leaves
** nothing behind; an existing file is replaced whole.
*/
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../core/chat/chat.h"
#include "../../core/io/ckpt.h"
#include "../../core/io/ckpt_write.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../harness.h"


/* Copy only the blocks.N.att.time_state tensors of SRC into DST (what the
** pip package reads).  0 on success. */
static int
strip_extras(const char *src, const char *dst)
{
    ckpt *ck;
    ckw *w;
    rwkv_err err;
    int rc = -1;

    if (ckpt_open(src, NULL, &ck, &err) != RWKV_OK)
        return -1;
    if (ckw_create(dst, NULL, &w, &err) != RWKV_OK) {
        ckpt_close(ck);
        return -1;
    }
    for (size_t i = 0; i < ckpt_count(ck); i++) {
        const ckpt_tensor *t = ckpt_at(ck, i);
        uint64_t n = 1;
        float *buf;
        if (strstr(t->name, ".att.time_state") == NULL)
            continue;
        for (int d = 0; d < t->ndim; d++)
            n *= (uint64_t)t->shape[d];
        buf = malloc(n * sizeof *buf);
        if (buf == NULL || ckpt_to_f32(t, buf, n, &err) != RWKV_OK ||
            ckw_tensor(w, t->name, CK_F32, t->ndim, t->shape, buf, &err) != RWKV_OK) {
            free(buf);
            ckw_abort(w);
            goto out;
        }
        free(buf);
    }
    rc = ckw_finish(w, NULL, &err) == RWKV_OK ? 0 : -1;
out:
    ckpt_close(ck);
    return rc;
}

/* The time_state names and shapes of A and B agree (same count too). */
static int
same_layout(const char *a, const char *b, char *why, size_t cap)
{
    ckpt *ca = NULL, *cb = NULL;
    rwkv_err err;
    size_t na = 0, nb = 0;
    int ok = 0;

    if (ckpt_open(a, NULL, &ca, &err) != RWKV_OK || ckpt_open(b, NULL, &cb, &err) != RWKV_OK) {
        snprintf(why, cap, "%s", err.msg);
        goto out;
    }
    for (size_t i = 0; i < ckpt_count(cb); i++)
        nb += strstr(ckpt_at(cb, i)->name, ".att.time_state") != NULL;
    for (size_t i = 0; i < ckpt_count(ca); i++) {
        const ckpt_tensor *t = ckpt_at(ca, i), *u;
        if (strstr(t->name, ".att.time_state") == NULL)
            continue;
        na++;
        u = ckpt_find(cb, t->name);
        if (u == NULL || u->ndim != t->ndim || t->dtype != CK_F32) {
            snprintf(why, cap, "%.200s: absent from the fixture, other rank or not float32", t->name);
            goto out;
        }
        for (int d = 0; d < t->ndim; d++)
            if (t->shape[d] != u->shape[d]) {
                snprintf(why, cap, "%s: dim %d is %lld, fixture %lld", t->name, d,
                         (long long)t->shape[d], (long long)u->shape[d]);
                goto out;
            }
    }
    if (na != nb || na == 0) {
        snprintf(why, cap, "%zu time_state tensors, fixture %zu", na, nb);
        goto out;
    }
    ok = 1;
out:
    ckpt_close(ca);
    ckpt_close(cb);
    return ok;
}

/* The state after a two-exchange chat on M into LIVE. */
static int
converse(rwkv_model *m, rwkv_state *live, rwkv_err *err)
{
    static const char *msgs[] = { "Hi!", "Tell me about the sea." };
    chat_callbacks cb;
    chat_config cfg;
    chat *ch = NULL;
    tok *bt = NULL;
    int rc;

    memset(&cb, 0, sizeof cb);
    chat_config_init(&cfg);
    cfg.samp.max_tokens = 12;
    cfg.samp.seed = 7;
    cfg.samp_set = ~0u;
    rc = tok_create_bytes(&bt, err);
    if (rc == RWKV_OK)
        rc = chat_create(m, bt, &cfg, &cb, &ch, err);
    for (size_t i = 0; rc == RWKV_OK && i < 2; i++) {
        rc = chat_submit(ch, msgs[i], strlen(msgs[i]), err);
        if (rc == RWKV_OK)
            rc = chat_run(ch, err);
    }
    if (rc == RWKV_OK && chat_n_turns(ch) != 2)
        rc = rwkv_errf(err, RWKV_EINVAL, "%zu turns, want 2", chat_n_turns(ch));
    if (rc == RWKV_OK)
        rwkv_state_copy(live, chat_state(ch));
    chat_destroy(ch);
    tok_close(bt);
    return rc;
}

static void
check_model(rwkv_model *m, const char *tag, const char *fixture_state)
{
    const rwkv_info *in = rwkv_model_info(m);
    rwkv_state *live = NULL, *back = NULL, *pip = NULL;
    float *l1 = NULL, *l2 = NULL, *l3 = NULL;
    char path[512], bare[512], why[1024], name[128];
    rwkv_err err;
    int32_t next = 46;
    int rc;

    snprintf(name, sizeof name, "%s.pth", tag);
    test_tmp_path(path, sizeof path, name);
    snprintf(name, sizeof name, "%s-pip.pth", tag);
    test_tmp_path(bare, sizeof bare, name);
    if (rwkv_state_create(m, &live, &err) != RWKV_OK || rwkv_state_create(m, &back, &err) ||
        rwkv_state_create(m, &pip, &err) != RWKV_OK) {
        TEST_CONDF(0, "%s: states: %s", tag, err.msg);
        goto out;
    }
    l1 = malloc((size_t)in->n_vocab * sizeof *l1);
    l2 = malloc((size_t)in->n_vocab * sizeof *l2);
    l3 = malloc((size_t)in->n_vocab * sizeof *l3);
    /* a conversation (core/chat/chat.h: greeting, two messages, two replies) */
    rc = converse(m, live, &err);
    TEST_CONDF(rc == RWKV_OK, "%s: conversation: %s", tag, err.msg);
    rc = rwkv_state_save_file(m, live, path, &err);
    TEST_CONDF(rc == RWKV_OK, "%s: save: %s", tag, err.msg);
    if (rc != RWKV_OK)
        goto out;
    rc = rwkv_state_load_file(m, path, back, &err);
    TEST_CONDF(rc == RWKV_OK, "%s: load: %s", tag, err.msg);
    if (rc != RWKV_OK)
        goto out;
    TEST_CONDF(memcmp(rwkv_state_cdata(live), rwkv_state_cdata(back),
                      rwkv_state_len(live) * sizeof(float)) == 0,
               "%s: the reloaded state differs from the live one", tag);
    rc = rwkv_eval(m, &next, 1, live, l1, &err);
    if (rc == RWKV_OK)
        rc = rwkv_eval(m, &next, 1, back, l2, &err);
    TEST_CONDF(rc == RWKV_OK, "%s: eval after: %s", tag, err.msg);
    TEST_CONDF(memcmp(l1, l2, (size_t)in->n_vocab * sizeof *l1) == 0,
               "%s: logits from the reloaded state are not bit-identical (%g vs %g)", tag,
               (double)l1[0], (double)l2[0]);
    if (in->version[0] != '4') {
        /* the pip package's view: time_state only */
        TEST_CONDF(strip_extras(path, bare) == 0, "%s: strip", tag);
        rc = rwkv_state_load_file(m, bare, pip, &err);
        TEST_CONDF(rc == RWKV_OK, "%s: time_state-only load: %s", tag, err.msg);
        if (rc == RWKV_OK && rwkv_eval(m, &next, 1, pip, l3, &err) == RWKV_OK)
            TEST_CONDF(memcmp(l1, l3, (size_t)in->n_vocab * sizeof *l1) != 0,
                       "%s: time_state alone already gives the same logits: the test "
                       "cannot see the token shifts", tag);
    }
    if (fixture_state != NULL) {
        char fx[1024];
        test_fixture_path(fx, sizeof fx, fixture_state);
        TEST_CONDF(same_layout(path, fx, why, sizeof why), "%s: layout: %s", tag, why);
    }
out:
    free(l1);
    free(l2);
    free(l3);
    rwkv_state_destroy(live);
    rwkv_state_destroy(back);
    rwkv_state_destroy(pip);
}

static void
check_fixture(const char *model_rel, const char *tag, const char *state_rel)
{
    char path[1024];
    rwkv_model *m = NULL;
    rwkv_err err;

    if (!test_have_fixture(model_rel, 5) ||
        (state_rel != NULL && !test_have_fixture(state_rel, 5)))
        return;
    if (rwkv_model_open(test_fixture_path(path, sizeof path, model_rel), NULL, &m, &err) !=
        RWKV_OK) {
        TEST_CONDF(0, "%s: %s", model_rel, err.msg);
        return;
    }
    check_model(m, tag, state_rel);
    rwkv_model_close(m);
}

int
main(void)
{
    rwkv_model *m = NULL;
    rwkv_state *s = NULL;
    rwkv_err err;
    char path[512];
    struct stat st;
    FILE *f;

    if (test_tmpdir("rwkv-stsave") == NULL)
        return 1;
    TEST_COND("demo model", rwkv_model_open_demo(0, NULL, &m, &err) == RWKV_OK);
    if (m != NULL) {
        check_model(m, "demo", NULL);
        /* a missing directory: one line naming the path, nothing written */
        TEST_COND("state", rwkv_state_create(m, &s, &err) == RWKV_OK);
        test_tmp_path(path, sizeof path, "no/such/dir/x.pth");
        TEST_COND("missing dir refused", rwkv_state_save_file(m, s, path, &err) != RWKV_OK);
        TEST_CONDF(strstr(err.msg, "no/such/dir") != NULL, "message names the path: %s",
                   err.msg);
        /* an existing file is replaced whole */
        test_tmp_path(path, sizeof path, "old.pth");
        f = fopen(path, "w");
        if (f != NULL) {
            fputs("not a state file", f);
            fclose(f);
        }
        TEST_COND("overwrite", rwkv_state_save_file(m, s, path, &err) == RWKV_OK);
        TEST_COND("overwritten loads", rwkv_state_load_file(m, path, s, &err) == RWKV_OK);
        TEST_COND("overwritten size", stat(path, &st) == 0 && st.st_size > 1000);
        rwkv_state_destroy(s);
        rwkv_model_close(m);
    }
    check_fixture("models/tiny-4v0-fp32.pth", "v4", NULL);
    check_fixture("models/tiny-5v2-fp32.pth", "v5.2", "states/state-5v2-A.pth");
    check_fixture("models/tiny-6v0-fp32.pth", "v6", "states/state-6v0-A.pth");
    check_fixture("models/tiny-7v0-fp32.pth", "v7", "states/state-7v0-A.pth");
    test_tmpdir_remove();
    return TEST_REPORT();
}
