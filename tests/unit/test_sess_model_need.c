/*
** test_sess_model_need.c -- what the client's F2 asks before it opens a
** session (storage/session_db.c): sess_model_need says whether the model in
** use opens session SID or another model must be loaded first (which one,
** the demo model said by OUT->demo), and refuses at once, before any load,
** a session whose model file is gone or holds another file (its size);
** sess_need_loaded, after the load, refuses a file of the same size and
** shape that is not the one the session was made with.  The tmux test
** f2_other_model.sh drives the same end to end.  Real SQLite files in a
** temp dir; the demo model and a copy of the fixture tiny-7v0-fp32.pth.
*/
#include "../harness.h"

#include <stdint.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

#define FIXTURE "models/tiny-7v0-fp32.pth"

/* A session on DB made with model M (PATH: its file, NULL: the demo), one
** exchange said: its id, or 0. */
static int64_t
made_with(rwkv_model *m, const tok *t, const char *db, const char *path)
{
    sess_config sc;
    sess *s;
    int64_t id = 0;

    sess_test_config(&sc, m, t, db, 3, 3);
    sc.model_path = path;
    if ((s = sess_test_create(&sc)) == NULL)
        return 0;
    if (say(s, "hello") == 0)
        id = sess_id(s);
    sess_destroy(s);
    return id;
}

/* Copy the file FROM to TO: 0, or -1. */
static int
copy_file(const char *from, const char *to)
{
    size_t n;
    unsigned char *b = test_slurp(from, &n);
    FILE *f;
    int rc = -1;

    if (b != NULL && (f = fopen(to, "wb")) != NULL) {
        rc = fwrite(b, 1, n, f) == n ? 0 : -1;
        if (fclose(f) != 0)
            rc = -1;
    }
    free(b);
    return rc;
}

int
main(void)
{
    char src[1024], mpath[1024], db[1024];
    rwkv_model *demo = NULL, *tiny = NULL;
    tok *t = NULL;
    store *st = NULL;
    sess_need need;
    rwkv_err err;
    int64_t s_demo, s_tiny;

    if (!test_have_fixture(FIXTURE, 20))
        return TEST_REPORT();
    if (test_tmpdir("rwkv-test-sess-model-need") == NULL)
        return 1;
    test_fixture_path(src, sizeof src, FIXTURE);
    test_tmp_path(mpath, sizeof mpath, "a-model.pth");
    test_tmp_path(db, sizeof db, "need.db");
    TEST_COND("copy of the fixture", copy_file(src, mpath) == 0);
    if (sess_test_demo(NULL, &demo, &t) != 0 ||
        rwkv_model_open(mpath, NULL, &tiny, &err) != RWKV_OK) {
        TEST_CONDF(0, "models: %s", err.msg);
        test_tmpdir_remove();
        return TEST_REPORT();
    }
    s_demo = made_with(demo, t, db, NULL);
    s_tiny = made_with(tiny, t, db, mpath);
    TEST_CONDF(s_demo == 1 && s_tiny == 2, "sessions %lld and %lld", (long long)s_demo,
               (long long)s_tiny);
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "store_open: %s", err.msg);
        test_tmpdir_remove();
        return TEST_REPORT();
    }

    /* the model in use opens its own session */
    TEST_COND("the demo's session under the demo",
              sess_model_need(st, s_demo, rwkv_model_info(demo), &need, &err) == RWKV_OK &&
              !need.other && !need.demo);
    TEST_COND("the file's session under it",
              sess_model_need(st, s_tiny, rwkv_model_info(tiny), &need, &err) == RWKV_OK &&
              !need.other);

    /* another shape: which model to load */
    TEST_CONDF(sess_model_need(st, s_tiny, rwkv_model_info(demo), &need, &err) == RWKV_OK,
               "the file's session under the demo: %s", err.msg);
    TEST_COND("... wants another model", need.other && !need.demo);
    TEST_CONDF(strcmp(need.model.path, mpath) == 0, "... the file: '%s'", need.model.path);
    TEST_COND("... the launch takes it", strcmp(need.info.model_path, mpath) == 0);
    TEST_COND("... the file loaded is it", sess_need_loaded(&need, rwkv_model_info(tiny), &err) ==
                                               RWKV_OK);
    TEST_CONDF(sess_model_need(st, s_demo, rwkv_model_info(tiny), &need, &err) == RWKV_OK,
               "the demo's session under the file: %s", err.msg);
    TEST_COND("... wants the demo model", need.other && need.demo);
    TEST_CONDF(strcmp(need.info.model_path, SESS_DEMO_PATH) == 0, "... its path on record: '%s'",
               need.info.model_path);

    /* the file since replaced by one of the same size and shape: said after
    ** the load (its fingerprint), not before */
    {
        rwkv_model *other = NULL;
        test_fixture_path(src, sizeof src, "models/tiny-7v0-bf16.pth");
        TEST_CONDF(sess_model_need(st, s_tiny, rwkv_model_info(demo), &need, &err) == RWKV_OK,
                   "before the load: %s", err.msg);
        if (rwkv_model_open(src, NULL, &other, &err) == RWKV_OK) {
            TEST_COND("another file of the shape: refused after the load",
                      sess_need_loaded(&need, rwkv_model_info(other), &err) == RWKV_EINVAL &&
                      strstr(err.msg, "holds another model than session 2") != NULL);
            rwkv_model_close(other);
        } else {
            TEST_CONDF(0, "tiny-7v0-bf16: %s", err.msg);
        }
    }

    /* the file of another size now: said before any load */
    TEST_COND("a shorter file", truncate(mpath, 4096) == 0);
    TEST_COND("... refused before the load",
              sess_model_need(st, s_tiny, rwkv_model_info(demo), &need, &err) == RWKV_EINVAL);
    TEST_CONDF(strstr(err.msg, "holds another model than session 2") != NULL &&
               strstr(err.msg, mpath) != NULL, "... the line: %s", err.msg);

    /* gone: said before any load, with the way to resume it */
    TEST_COND("the file removed", unlink(mpath) == 0);
    TEST_COND("... refused before the load",
              sess_model_need(st, s_tiny, rwkv_model_info(demo), &need, &err) == RWKV_EINVAL);
    TEST_CONDF(strstr(err.msg, "cannot open") != NULL && strstr(err.msg, "--session 2") != NULL,
               "... the line: %s", err.msg);

    store_close(st);
    rwkv_model_close(tiny);
    rwkv_model_close(demo);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
