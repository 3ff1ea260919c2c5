/*
** test_store_rename_use.c -- a session's updated_ms is when it was last
** used (a turn saved, its head moved): the order of `sessions list` and the
** session `chat --resume` opens (store_session_latest).  A rename is no use:
** it keeps updated_ms, so renaming an older session does not make --resume
** open it instead of the one last chatted in (it did: the rename set
** updated_ms to now).  A turn saved in the renamed session makes it the
** latest again.  Real database files in a temp dir.
*/
#include "../harness.h"
#include "../../storage/store.h"
#include "store_test.h"

#include <time.h>

/* Sleep MS milliseconds, so that the next store_now_ms() is later. */
static void
pause_ms(long ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

static int64_t
updated_of(store *st, int64_t id)
{
    store_session ss;
    rwkv_err err;

    return store_session_get(st, id, &ss, &err) == RWKV_OK ? ss.updated_ms : -1;
}

static void
test_rename_keeps_use(store *st)
{
    int64_t a, b, latest = 0, ua;
    store_session *v = NULL;
    size_t n = 0;
    rwkv_err err;

    a = new_session(st, "older");
    pause_ms(5);
    b = new_session(st, "newer");
    TEST_COND("two sessions", a > 0 && b > a);
    TEST_COND("latest is the newer", store_session_latest(st, &latest, &err) == RWKV_OK && latest == b);
    ua = updated_of(st, a);
    pause_ms(5);
    TEST_COND("rename the older", store_session_rename(st, a, "renamed", &err) == RWKV_OK);
    TEST_CONDF(updated_of(st, a) == ua, "rename changed updated_ms: %lld -> %lld", (long long)ua,
               (long long)updated_of(st, a));
    TEST_CONDF(store_session_latest(st, &latest, &err) == RWKV_OK && latest == b,
               "--resume would open session %lld after renaming %lld (want %lld)", (long long)latest,
               (long long)a, (long long)b);
    TEST_COND("list", store_session_list(st, &v, &n, &err) == RWKV_OK && n == 2);
    if (v && n == 2) {
        TEST_CONDF(v[0].id == b && v[1].id == a, "list order %lld, %lld", (long long)v[0].id,
                   (long long)v[1].id);
        TEST_COND("the new title is there", strcmp(v[1].title, "renamed") == 0);
    }
    free(v);
    /* chatting in it is a use: it is the latest then */
    pause_ms(5);
    TEST_COND("a turn in the renamed one",
              add_turn(st, a, 0, STORE_ROLE_USER, "hi", NULL, 0, NULL, 0, NULL, NULL) > 0);
    TEST_COND("updated moved", updated_of(st, a) > ua);
    TEST_COND("latest is the one chatted in",
              store_session_latest(st, &latest, &err) == RWKV_OK && latest == a);
}

int
main(void)
{
    char db[512];
    store *st = NULL;
    rwkv_err err;

    if (test_tmpdir("rwkv-rename-use") == NULL)
        return 1;
    test_tmp_path(db, sizeof db, "r.db");
    TEST_COND("open", store_open(db, &st, &err) == RWKV_OK);
    if (st) {
        test_rename_keeps_use(st);
        store_close(st);
    }
    test_tmpdir_remove();
    return TEST_REPORT();
}
