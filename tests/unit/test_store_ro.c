/*
** test_store_ro.c -- a database this process may not write (storage/store.h,
** store_open_ex): refused for writing with one line naming the file, why,
** and the front end's own hint (never --no-db for one that lacks it); read
** by a reader (read_ok) without a file made, changed or removed; the URI of
** an immutable open; and store_model_find, the read that spares a resume
** the model row's write.  Real SQLite files in a temp dir; mode 444 is the
** program's own rule (root too), so these run as root as well.
*/
#include "../harness.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../storage/store.h"
#include "../../storage/store_int.h"

/* PATH's size, mode and mtime (ns), and whether a -wal or -shm is beside it. */
static void
look(const char *path, char *out, size_t cap)
{
    char p[700];
    struct stat sb;
    int wal, shm;

    snprintf(p, sizeof p, "%s-wal", path);
    wal = access(p, F_OK) == 0;
    snprintf(p, sizeof p, "%s-shm", path);
    shm = access(p, F_OK) == 0;
    if (stat(path, &sb) != 0) {
        snprintf(out, cap, "gone");
        return;
    }
    snprintf(out, cap, "%lld %o %lld.%09ld wal=%d shm=%d", (long long)sb.st_size,
             (unsigned)(sb.st_mode & 07777), (long long)sb.st_mtim.tv_sec, sb.st_mtim.tv_nsec,
             wal, shm);
}

/* 1 when S ends with END. */
static int
ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), k = strlen(end);

    return n >= k && strcmp(s + n - k, end) == 0;
}

static void
test_uri(void)
{
    char buf[256];

    TEST_COND("uri: absolute, escaped",
              store_ro_uri("/a/b c?d#e%f", buf, sizeof buf) == 0 &&
              strcmp(buf, "file:///a/b%20c%3Fd%23e%25f?immutable=1") == 0);
    TEST_CONDF(store_ro_uri("x.db", buf, sizeof buf) == 0 && strcmp(buf, "file:x.db?immutable=1") == 0,
               "uri: relative: %s", buf);
    TEST_CONDF(store_ro_uri("//srv/x", buf, sizeof buf) == 0 &&
               strcmp(buf, "file:////srv/x?immutable=1") == 0, "uri: a leading //: %s", buf);
    TEST_COND("uri: too long", store_ro_uri("/a/b", buf, 12) == -1);
}

static void
test_model_find(void)
{
    char db[600];
    store *st = NULL;
    store_model m, m2;
    int64_t id = 0, got = -1;
    rwkv_err err;

    test_tmp_path(db, sizeof db, "models.db");
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open: %s", err.msg);
        return;
    }
    memset(&m, 0, sizeof m);
    snprintf(m.path, sizeof m.path, "/models/a.pth");
    m.size = 1234;
    m.mtime = 1700000000;
    m.fingerprint = 0x1234567890abcdefull;
    m.digest = 42;
    snprintf(m.version, sizeof m.version, "7.0");
    m.n_layer = 2;
    m.n_embd = 64;
    m.n_head = 1;
    m.head_size = 64;
    snprintf(m.vocab, sizeof m.vocab, "/v.txt");
    TEST_COND("find: none yet", store_model_find(st, &m, &got, &err) == RWKV_OK && got == 0);
    TEST_COND("upsert", store_model_upsert(st, &m, &id, &err) == RWKV_OK && id > 0);
    TEST_COND("find: the row", store_model_find(st, &m, &got, &err) == RWKV_OK && got == id);
    m2 = m;
    m2.vocab[0] = '\0';
    TEST_COND("find: no vocabulary given keeps the row's",
              store_model_find(st, &m2, &got, &err) == RWKV_OK && got == id);
    m2 = m;
    m2.mtime++;
    TEST_COND("find: another mtime is a write",
              store_model_find(st, &m2, &got, &err) == RWKV_OK && got == 0);
    m2 = m;
    snprintf(m2.vocab, sizeof m2.vocab, "/other.txt");
    TEST_COND("find: another vocabulary is a write",
              store_model_find(st, &m2, &got, &err) == RWKV_OK && got == 0);
    m2 = m;
    m2.digest = 43;
    TEST_COND("find: another file is not found",
              store_model_find(st, &m2, &got, &err) == RWKV_OK && got == 0);
    store_close(st);
}

static void
test_read_only(void)
{
    char db[600], before[256], after[256], why[512];
    store *st = NULL;
    store_session ss;
    store_open_opts o;
    int64_t sid = 0;
    rwkv_err err;

    test_tmp_path(db, sizeof db, "ro.db");
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open: %s", err.msg);
        return;
    }
    memset(&ss, 0, sizeof ss);
    snprintf(ss.title, sizeof ss.title, "kept");
    TEST_COND("a session", store_session_new(st, &ss, &sid, &err) == RWKV_OK && sid > 0);
    store_close(st);
    st = NULL;
    TEST_COND("writable: no reason", store_read_only_reason(db, why, sizeof why) == 0);
    chmod(db, 0444);
    TEST_CONDF(store_read_only_reason(db, why, sizeof why) == 1 &&
               strcmp(why, "mode 444: no write permission for anyone") == 0, "reason: %s", why);
    look(db, before, sizeof before);

    /* a writer: refused, the hint its own */
    TEST_COND("store_open refuses", store_open(db, &st, &err) == RWKV_EIO && st == NULL);
    TEST_CONDF(strstr(err.msg, "the session database is read-only (mode 444: no write permission "
                               "for anyone): use a writable --db, or --no-db to save nothing") != NULL,
               "store_open's line: %s", err.msg);
    memset(&o, 0, sizeof o);
    TEST_COND("no way to save nothing", store_open_ex(db, &o, &st, &err) == RWKV_EIO);
    TEST_CONDF(ends_with(err.msg, "anyone): use a writable --db"), "without nodb: %s", err.msg);
    o.ro_hint = "a hint of its own";
    TEST_COND("ro_hint", store_open_ex(db, &o, &st, &err) == RWKV_EIO &&
                         strstr(err.msg, "(mode 444: no write permission for anyone): a hint of its own") != NULL);

    /* a reader: read-only, nothing made or changed */
    memset(&o, 0, sizeof o);
    o.read_ok = 1;
    TEST_CONDF(store_open_ex(db, &o, &st, &err) == RWKV_OK && st != NULL, "read_ok: %s",
               st ? "" : err.msg);
    if (st != NULL) {
        TEST_COND("read-only", store_is_read_only(st));
        TEST_COND("reads", store_session_get(st, sid, &ss, &err) == RWKV_OK &&
                           strcmp(ss.title, "kept") == 0);
        TEST_COND("a write fails", store_session_rename(st, sid, "changed", &err) != RWKV_OK);
        look(db, after, sizeof after);
        TEST_CONDF(strcmp(before, after) == 0, "open: %s, was %s", after, before);
        store_close(st);
    }
    look(db, after, sizeof after);
    TEST_CONDF(strcmp(before, after) == 0, "closed: %s, was %s", after, before);
    /* writable again: a reader opens it as a writer */
    chmod(db, 0600);
    st = NULL;
    TEST_COND("writable: read_ok opens for writing",
              store_open_ex(db, &o, &st, &err) == RWKV_OK && !store_is_read_only(st));
    store_close(st);
}

int
main(void)
{
    if (test_tmpdir("rwkv-test-store-ro") == NULL)
        return 1;
    test_uri();
    test_model_find();
    test_read_only();
    test_tmpdir_remove();
    return TEST_REPORT();
}
