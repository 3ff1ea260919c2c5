/*
** test_store.c -- the session database on real SQLite files in a temp dir:
** open/PRAGMAs, the shipped schema steps unchanged, migration from a v1 file, refusal of newer /
** foreign / corrupt files, the turn tree (regenerate, edit, switch, fork),
** snapshots (bit-exact round trip of a real state, mismatch and corruption
** -> replay plan), retention, export -> import, search, delete reclaims.
** Crash and concurrency tests are in test_store_crash.c.
*/
#include <sqlite3.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../core/hash.h"
#include "../../storage/store_int.h"
#include "../harness.h"
#include "store_test.h"

static const store_state_meta META = { 0x0123456789abcdefull, "7.0", 12, 64, 1, 64, STORE_PREC_FP32,
                                        0, 0 };

/* A deterministic fake state for turn I (used where any floats will do). */
static void
fake_state(float *v, size_t n, int i)
{
    uint32_t x = 2463534242u + (uint32_t)i * 7919u;
    for (size_t k = 0; k < n; k++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        v[k] = (float)((double)x / 4294967296.0 - 0.5) * (float)(i + 1);
    }
}

/* A stand-in front end's language: every msgid it is asked for, marked
** "[T] " (ring of static copies: the hook's strings must outlive the call). */
static const char *
shout_tr(const char *msgid)
{
    static char ring[8][320];
    static int next;
    char *b = ring[next++ % 8];
    snprintf(b, sizeof ring[0], "[T] %s", msgid);
    return b;
}

static int64_t
append(store *st, int64_t sess, int64_t parent, int role, const char *text, const int32_t *tok,
       size_t nt, const float *state, size_t n)
{
    return add_turn(st, sess, parent, role, text, tok, nt, state, n, state ? &META : NULL, NULL);
}

static void
test_open(void)
{
    char p[512], x[512];
    store *st = NULL;
    rwkv_err err;
    struct stat sb;

    /* An explicit path in a missing directory is refused (nothing made);
    ** only the default path gets its directories. */
    test_tmp_path(p, sizeof p, "a/b/c.db");
    TEST_COND("explicit path: missing dir refused", store_open(p, &st, &err) != RWKV_OK && st == NULL &&
                                                       strstr(err.msg, "a/b: No such file") != NULL);
    TEST_COND("explicit path: no dir made", access(test_tmp_path(x, sizeof x, "a"), F_OK) != 0);
    TEST_COND("mkdir", mkdir(test_tmp_path(x, sizeof x, "a"), 0700) == 0 && mkdir(test_tmp_path(x, sizeof x, "a/b"), 0700) == 0);
    TEST_COND("open creates the file", store_open(p, &st, &err) == RWKV_OK);
    TEST_COND("mode 0600", stat(p, &sb) == 0 && (sb.st_mode & 0777) == 0600);
    store_close(st);
    TEST_COND("journal WAL", q_int(p, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode='wal'") == 1);
    TEST_COND("user_version", q_int(p, "PRAGMA user_version") == STORE_SCHEMA_VERSION);
    TEST_COND("auto_vacuum incremental", q_int(p, "PRAGMA auto_vacuum") == 2);
    TEST_COND("application_id", q_int(p, "PRAGMA application_id") == 0x52574B56);
    TEST_COND("fts5 table", q_int(p, "SELECT count(*) FROM sqlite_master WHERE name='turns_fts'") == 1);
    TEST_COND("reopen", store_open(p, &st, &err) == RWKV_OK);
    store_close(st);

    /* Default path from $XDG_DATA_HOME. */
    setenv("XDG_DATA_HOME", test_tmp_path(x, sizeof x, "xdg"), 1);
    TEST_COND("default path", store_open(NULL, &st, &err) == RWKV_OK);
    store_close(st);
    strncat(x, "/rwkv-tui/rwkv-tui.db", sizeof x - strlen(x) - 1);
    TEST_COND("default path file", access(x, F_OK) == 0);

    /* Presets. */
    TEST_COND("open", store_open(p, &st, &err) == RWKV_OK);
    {
        rwkv_sampling s, d;
        char **names;
        size_t n;
        params_defaults(&d);
        TEST_COND("preset demo", store_preset_get(st, "demo", &s, NULL, &err) == RWKV_OK &&
                                     s.temperature == d.temperature && s.top_p == d.top_p &&
                                     s.decay == d.decay);
        /* the chat demo's state-file defaults: top_p 0.2, presence 0.3, frequency 0.3 */
        TEST_COND("preset state", store_preset_get(st, "state", &s, NULL, &err) == RWKV_OK &&
                                      s.top_p == 0.2f && s.presence == 0.3f && s.frequency == 0.3f);
        s.temperature = 0.7f;
        s.seed = 18446744073709551615ull;
        TEST_COND("user preset writable", store_preset_put(st, "user", &s, NULL, &err) == RWKV_OK);
        TEST_COND("builtin read-only", store_preset_put(st, "demo", &s, NULL, &err) == RWKV_EINVAL);
        TEST_COND("user preset read back", store_preset_get(st, "user", &d, NULL, &err) == RWKV_OK &&
                                               d.temperature == 0.7f && d.seed == s.seed);
        TEST_COND("preset list", store_preset_list(st, &names, &n, &err) == RWKV_OK && n == 3);
        free(names);
    }
    /* Models and state files. */
    {
        store_model m, g;
        store_statefile f, fg;
        int64_t id1, id2, fid;
        void *data;
        memset(&m, 0, sizeof m);
        snprintf(m.path, sizeof m.path, "/models/x.pth");
        m.size = 123;
        m.fingerprint = 0xfedcba9876543210ull;
        snprintf(m.version, sizeof m.version, "7.0");
        TEST_COND("model insert", store_model_upsert(st, &m, &id1, &err) == RWKV_OK);
        m.mtime = 99;
        TEST_COND("model update", store_model_upsert(st, &m, &id2, &err) == RWKV_OK && id1 == id2);
        TEST_COND("model get", store_model_get(st, id1, &g, &err) == RWKV_OK && g.mtime == 99 &&
                                   g.fingerprint == m.fingerprint);
        /* another file at the same path: its own row, the old one kept */
        m.size = 456;
        TEST_COND("model replaced", store_model_upsert(st, &m, &id2, &err) == RWKV_OK && id2 != id1);
        TEST_COND("old row kept", store_model_get(st, id1, &g, &err) == RWKV_OK && g.size == 123);
        m.size = 123;
        m.digest = 0x77;
        TEST_COND("a row of unknown digest takes it",
                  store_model_upsert(st, &m, &id2, &err) == RWKV_OK && id2 == id1 &&
                      store_model_get(st, id1, &g, &err) == RWKV_OK && g.digest == 0x77);
        m.digest = 0x78;
        TEST_COND("another digest: another row",
                  store_model_upsert(st, &m, &id2, &err) == RWKV_OK && id2 != id1);
        memset(&f, 0, sizeof f);
        snprintf(f.name, sizeof f.name, "A");
        f.data = "abc\0def";
        f.size = 7;
        f.n_layer = 12;
        params_defaults(&f.defaults);
        params_apply_state_defaults(&f.defaults, 0);
        TEST_COND("statefile add", store_statefile_add(st, &f, &fid, &err) == RWKV_OK);
        TEST_COND("statefile get", store_statefile_get(st, fid, &fg, &data, &err) == RWKV_OK &&
                                       data && memcmp(data, "abc\0def", 7) == 0 && fg.n_layer == 12 &&
                                       fg.defaults.top_p == 0.2f);
        free(data);
        {
            store_statefile r, *list;
            int64_t r1, r2;
            size_t nl;
            memset(&r, 0, sizeof r);
            snprintf(r.name, sizeof r.name, "B");
            snprintf(r.path, sizeof r.path, "/states/b.pth");
            params_defaults(&r.defaults);
            TEST_COND("referenced twice: one row", store_statefile_add(st, &r, &r1, &err) == RWKV_OK &&
                                                       store_statefile_add(st, &r, &r2, &err) == RWKV_OK && r1 == r2);
            TEST_COND("statefile list", store_statefile_list(st, &list, &nl, &err) == RWKV_OK && nl == 2 &&
                                            strcmp(list[0].name, "A") == 0 && strcmp(list[1].path, "/states/b.pth") == 0);
            free(list);
        }
    }
    store_close(st);
}

/* ---- bad files ----------------------------------------------------------- */

static void
expect_open_fail(const char *descr, const char *path, const char *needle)
{
    store *st = NULL;
    rwkv_err err;
    int rc = store_open(path, &st, &err);

    TEST_CONDF(rc != RWKV_OK && st == NULL && strstr(err.msg, needle) != NULL &&
                   strchr(err.msg, '\n') == NULL && strstr(err.msg, path) != NULL,
               "%s: rc %d msg '%s' (want '%s')", descr, rc, rc ? err.msg : "", needle);
    store_close(st);
}

static void
test_bad_files(void)
{
    char p[512];
    FILE *f;

    test_tmp_path(p, sizeof p, "text.db");
    f = fopen(p, "w");
    fputs("this is not a database, just some text that is long enough to be a header\n", f);
    fclose(f);
    expect_open_fail("text file", p, "not a rwkv-tui session database");

    test_tmp_path(p, sizeof p, "newer.db");
    {
        store *st;
        rwkv_err err;
        TEST_COND("create", store_open(p, &st, &err) == RWKV_OK);
        store_close(st);
        TEST_COND("bump version", q_exec(p, "PRAGMA user_version=99") == SQLITE_OK);
        expect_open_fail("newer schema", p, "newer than this rwkv-tui");
        TEST_COND("newer file untouched", q_int(p, "PRAGMA user_version") == 99);
    }

    test_tmp_path(p, sizeof p, "other.db");
    TEST_COND("other app db", q_exec(p, "CREATE TABLE t(x); INSERT INTO t VALUES(1)") == SQLITE_OK);
    expect_open_fail("foreign database", p, "another program");
    TEST_COND("foreign database untouched",
              q_int(p, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode='delete'") == 1 &&
                  q_int(p, "PRAGMA user_version") == 0 && q_int(p, "SELECT count(*) FROM sqlite_master") == 1);

    test_tmp_path(p, sizeof p, "dir.db");
    mkdir(p, 0700);
    expect_open_fail("directory", p, "directory");

    /* A database whose pages were overwritten: a clear error or a working
    ** store, never a crash. */
    test_tmp_path(p, sizeof p, "corrupt.db");
    {
        store *st;
        rwkv_err err;
        float v[1000];
        fake_state(v, 1000, 1);
        TEST_COND("create", store_open(p, &st, &err) == RWKV_OK);
        int64_t s = new_session(st, "x");
        for (int i = 0; i < 5; i++)
            append(st, s, 0, STORE_ROLE_USER, "hello", NULL, 0, v, 1000);
        store_close(st);
        f = fopen(p, "r+b");
        fseek(f, 4096, SEEK_SET);
        for (int i = 0; i < 4096 * 4; i++)
            fputc(0xA5, f);
        /* and the header's page size */
        fseek(f, 16, SEEK_SET);
        fputc(0x03, f);
        fputc(0x07, f);
        fclose(f);
        rwkv_err e2;
        int rc = store_open(p, &st, &e2);
        TEST_CONDF(rc != RWKV_OK && strstr(e2.msg, p) && strchr(e2.msg, '\n') == NULL,
                   "corrupt db: rc %d '%s'", rc, rc ? e2.msg : "");
        store_close(st);
    }
}

/* ---- migration ----------------------------------------------------------- */

/*
** FNV-1a of each schema step (store_schema_step) as shipped.  Files of every
** version exist and migrate through the steps after their own, so a step's
** text must never change: a change to the schema is a new version (and a new
** line here).
*/
static const uint64_t shipped_step_fnv[STORE_SCHEMA_VERSION + 1] = {
    0,
    0x078317383cdf3551ull, 0xd9a2faf21733bf8full, 0xea6137829f9a0505ull,
    0x0eba3f189308349eull, 0x9e73b71d57667291ull, 0xcb98bb6592261946ull,
    0xb1b75fec39a25bcdull, 0x8d0b6f09f7b1a6d1ull,
};

static void
test_shipped_steps(void)
{
    for (int v = 1; v <= STORE_SCHEMA_VERSION; v++) {
        const char *sql = store_schema_step(v);
        uint64_t h = sql ? hash_fnv1a(HASH_FNV_OFFSET, sql, strlen(sql)) : 0;
        TEST_CONDF(h == shipped_step_fnv[v],
                   "schema step v%d hashes to %016llx, shipped %016llx: a shipped step is"
                   " never edited, add a version", v, (unsigned long long)h,
                   (unsigned long long)shipped_step_fnv[v]);
    }
    TEST_COND("no step 0 or past the last",
              store_schema_step(0) == NULL && store_schema_step(STORE_SCHEMA_VERSION + 1) == NULL);
}

/* A file of schema v1 (its step as shipped, test_shipped_steps) with
** session 7 of turns 10 and 11. */
static int
make_v1(const char *p)
{
    return q_exec(p, "PRAGMA application_id=1381452630;") == SQLITE_OK &&
           q_exec(p, store_schema_step(1)) == SQLITE_OK &&
           q_exec(p, "INSERT INTO sessions VALUES (7, 'old chat', NULL, 'cpu fp32', 1000, 2000, 11);"
                     "INSERT INTO turns VALUES (10, 7, NULL, 0, 1, 'an ancient walrus question',"
                     " x'01000000', NULL, 0, 0, 1000, 0);"
                     "INSERT INTO turns VALUES (11, 7, 10, 1, 2, 'the walrus answers',"
                     " x'0200000003000000', NULL, 0, 0, 1001, 0);"
                     "PRAGMA user_version=1;") == SQLITE_OK;
}

static void
test_migration(void)
{
    char p[512];
    store *st = NULL;
    rwkv_err err;

    test_tmp_path(p, sizeof p, "v1.db");
    TEST_COND("v1 file", make_v1(p));
    TEST_COND("open migrates", store_open(p, &st, &err) == RWKV_OK);
    if (st == NULL) {
        printf("  %s\n", err.msg);
        return;
    }
    TEST_COND("version now current", q_int(p, "PRAGMA user_version") == STORE_SCHEMA_VERSION);
    {
        store_session s;
        store_turn t;
        store_hit *h;
        size_t n;
        rwkv_sampling samp;
        TEST_COND("old session kept", store_session_get(st, 7, &s, &err) == RWKV_OK &&
                                          strcmp(s.title, "old chat") == 0 && s.head_turn == 11 &&
                                          s.n_turns == 2);
        TEST_COND("old turn kept", store_turn_get(st, 11, &t, &err) == RWKV_OK && t.n_tokens == 2 &&
                                       t.tokens[1] == 3 && t.parent_id == 10);
        store_turn_fini(&t);
        TEST_COND("old text searchable", store_search(st, "walrus", 10, &h, &n, &err) == RWKV_OK && n == 2);
        free(h);
        TEST_COND("presets added", store_preset_get(st, "demo", &samp, NULL, &err) == RWKV_OK);
        TEST_COND("append after migration",
                  append(st, 7, 11, STORE_ROLE_USER, "more walrus", NULL, 0, NULL, 0) == 12);
        /* the ids of the file's rows are never given again (schema v6) */
        TEST_COND("rm the only session", store_session_delete(st, 7, &err) == RWKV_OK);
        int64_t sid = new_session(st, "after rm");
        TEST_CONDF(sid == 8, "next session id %lld, want 8", (long long)sid);
        int64_t tid = append(st, sid, 0, STORE_ROLE_USER, "first", NULL, 0, NULL, 0);
        TEST_CONDF(tid == 13, "next turn id %lld, want 13", (long long)tid);
    }
    store_close(st);
    TEST_COND("integrity", q_int(p, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check='ok'") == 1);
}

/*
** A file of schema v5 (a current file less what v6 added) with sessions 1-3,
** turns 1-6: the migration keeps every row and id, and from then on an id
** freed by an rm (of the newest session) or a branch delete (of the newest
** turns) is never given to a new row.
*/
static void
test_ids_never_reused(void)
{
    char p[512];
    store *st = NULL;
    rwkv_err err;
    store_prune pr;
    int64_t sid[3], tid[6], id;

    test_tmp_path(p, sizeof p, "v5.db");
    if (store_open(p, &st, &err) != RWKV_OK) {
        TEST_COND("open", 0);
        return;
    }
    for (int i = 0; i < 3; i++) {
        sid[i] = new_session(st, "chat");
        tid[2 * i] = append(st, sid[i], 0, STORE_ROLE_USER, "a question", NULL, 0, NULL, 0);
        tid[2 * i + 1] = append(st, sid[i], tid[2 * i], STORE_ROLE_ASSISTANT, "an answer", NULL, 0,
                                NULL, 0);
    }
    store_close(st);
    TEST_COND("made a v5 file", q_exec(p, DROP_V6 "PRAGMA user_version=5") == SQLITE_OK);
    TEST_COND("v5 open migrates", store_open(p, &st, &err) == RWKV_OK &&
                                      q_int(p, "PRAGMA user_version") == STORE_SCHEMA_VERSION);
    if (st == NULL)
        return;
    TEST_COND("rows and ids kept", q_int(p, "SELECT count(*) FROM sessions") == 3 &&
                                       q_int(p, "SELECT max(id) FROM sessions") == sid[2] &&
                                       q_int(p, "SELECT count(*) FROM turns") == 6 &&
                                       q_int(p, "SELECT sum(id) FROM turns") ==
                                           tid[0] + tid[1] + tid[2] + tid[3] + tid[4] + tid[5]);
    TEST_COND("rm newest", store_session_delete(st, sid[2], &err) == RWKV_OK);
    id = new_session(st, "new");
    TEST_CONDF(id == sid[2] + 1, "session after rm of the newest: %lld, want %lld", (long long)id,
               (long long)sid[2] + 1);
    /* the freed turn ids too (a /fork TURN must not reach another turn) */
    id = append(st, id, 0, STORE_ROLE_USER, "q", NULL, 0, NULL, 0);
    TEST_CONDF(id == tid[5] + 1, "turn after rm: %lld, want %lld", (long long)id, (long long)tid[5] + 1);
    TEST_COND("delete the newest branch", store_turn_prune(st, id, &pr, &err) == RWKV_OK);
    int64_t again = append(st, sid[1], tid[3], STORE_ROLE_USER, "q", NULL, 0, NULL, 0);
    TEST_CONDF(again == id + 1, "turn after a branch delete: %lld, want %lld", (long long)again,
               (long long)id + 1);
    /* a fork copies turns: new ids above every old one */
    TEST_COND("fork", store_session_fork(st, sid[0], tid[1], NULL, &id, &err) == RWKV_OK &&
                          q_int(p, "SELECT min(id) FROM turns WHERE session_id=(SELECT max(id) FROM sessions)") ==
                              again + 1);
    store_close(st);
    TEST_COND("integrity", q_integrity_ok(p));
}

/* ---- tree ---------------------------------------------------------------- */

static int
ids_eq(const int64_t *v, size_t n, const int64_t *want, size_t nw)
{
    if (n != nw)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] != want[i])
            return 0;
    return 1;
}

static void
test_tree(store *st)
{
    rwkv_err err;
    int64_t s = new_session(st, "tree"), *ids;
    size_t n;
    const int32_t t1[] = { 1, 2, 3 }, t2[] = { 4, 5 }, t3[] = { 6 }, t4[] = { 7, 8, 9, 10 };
    int64_t u1 = append(st, s, 0, STORE_ROLE_USER, "hi", t1, 3, NULL, 0);
    int64_t a1 = append(st, s, u1, STORE_ROLE_ASSISTANT, "hello", t2, 2, NULL, 0);
    int64_t u2 = append(st, s, a1, STORE_ROLE_USER, "q2", t3, 1, NULL, 0);
    int64_t a2 = append(st, s, u2, STORE_ROLE_ASSISTANT, "r2", t4, 4, NULL, 0);
    store_session ss;
    store_turn t;

    TEST_COND("ids", u1 > 0 && a1 > u1 && u2 > a1 && a2 > u2);
    TEST_COND("head follows", store_session_get(st, s, &ss, &err) == RWKV_OK && ss.head_turn == a2 &&
                                  ss.n_turns == 4);
    /* regenerate: a sibling reply of a2 */
    int64_t a2b = append(st, s, u2, STORE_ROLE_ASSISTANT, "r2 again", t4, 2, NULL, 0);
    /* edit u2: a sibling user turn under a1 */
    int64_t u2b = append(st, s, a1, STORE_ROLE_USER, "q2 edited", t3, 1, NULL, 0);
    TEST_COND("children of u2", store_turn_children(st, s, u2, &ids, &n, &err) == RWKV_OK &&
                                    ids_eq(ids, n, (int64_t[]){ a2, a2b }, 2));
    free(ids);
    TEST_COND("children of a1", store_turn_children(st, s, a1, &ids, &n, &err) == RWKV_OK &&
                                    ids_eq(ids, n, (int64_t[]){ u2, u2b }, 2));
    free(ids);
    TEST_COND("roots", store_turn_children(st, s, 0, &ids, &n, &err) == RWKV_OK && ids_eq(ids, n, &u1, 1));
    free(ids);
    TEST_COND("path", store_turn_path(st, a2b, &ids, &n, &err) == RWKV_OK &&
                          ids_eq(ids, n, (int64_t[]){ u1, a1, u2, a2b }, 4));
    free(ids);
    TEST_COND("turn get", store_turn_get(st, a1, &t, &err) == RWKV_OK && strcmp(t.text, "hello") == 0 &&
                              t.n_tokens == 2 && t.tokens[0] == 4 && t.tokens[1] == 5 && t.n_children == 2 &&
                              t.role == STORE_ROLE_ASSISTANT && !t.interrupted);
    store_turn_fini(&t);
    int64_t leaf;
    TEST_COND("branch leaf", store_branch_leaf(st, u2, &leaf, &err) == RWKV_OK && leaf == a2b);
    TEST_COND("switch branch", store_session_set_head(st, s, a2, &err) == RWKV_OK &&
                                   store_session_get(st, s, &ss, &err) == RWKV_OK && ss.head_turn == a2);
    int64_t other = new_session(st, "other");
    TEST_COND("head must be in session", store_session_set_head(st, other, a2, &err) == RWKV_EINVAL);
    {
        store_turn b;
        memset(&b, 0, sizeof b);
        b.session_id = other;
        b.parent_id = a2;
        b.role = STORE_ROLE_USER;
        TEST_COND("parent must be in session", store_turn_append(st, &b, NULL, 0, NULL, &err) == RWKV_EINVAL &&
                                                   strstr(err.msg, "not in session"));
    }
    {
        store_turn b;
        memset(&b, 0, sizeof b);
        b.session_id = s;
        b.role = 7;
        TEST_COND("bad role refused", store_turn_append(st, &b, NULL, 0, NULL, &err) == RWKV_EINVAL);
    }
    TEST_COND("no session", store_session_get(st, 999999, &ss, &err) == RWKV_EINVAL &&
                                strstr(err.msg, "no session 999999"));
    TEST_COND("rename", store_session_rename(st, s, "renamed", &err) == RWKV_OK &&
                            store_session_get(st, s, &ss, &err) == RWKV_OK && strcmp(ss.title, "renamed") == 0);
    {
        char big[STORE_TITLE_MAX + 10];
        memset(big, 'x', sizeof big - 1);
        big[sizeof big - 1] = 0;
        TEST_COND("long title refused", store_session_rename(st, s, big, &err) == RWKV_EINVAL);
    }
    /* a reply in progress, then finished */
    {
        store_turn r;
        const int32_t part[] = { 11 }, full[] = { 11, 12, 13 };
        memset(&r, 0, sizeof r);
        r.session_id = s;
        r.parent_id = u2b;
        r.role = STORE_ROLE_ASSISTANT;
        r.text = "";
        TEST_COND("begin", store_turn_begin(st, &r, &err) == RWKV_OK && r.id > 0);
        TEST_COND("progress", store_turn_progress(st, r.id, "par", part, 1, &err) == RWKV_OK);
        TEST_COND("in progress marked", store_turn_get(st, r.id, &t, &err) == RWKV_OK && t.interrupted &&
                                            strcmp(t.text, "par") == 0 && t.n_tokens == 1);
        store_turn_fini(&t);
        r.text = "partial done";
        r.tokens = full;
        r.n_tokens = 3;
        r.has_sampling = 1;
        params_defaults(&r.sampling);
        r.sampling.seed = 42;
        r.sampling.temperature = 0.25f;
        r.decode_tps = 12.5;
        TEST_COND("finish", store_turn_finish(st, &r, NULL, 0, NULL, &err) == RWKV_OK);
        TEST_COND("no progress after finish", store_turn_progress(st, r.id, "late", part, 1, &err) == RWKV_EINVAL);
        TEST_COND("finished", store_turn_get(st, r.id, &t, &err) == RWKV_OK && !t.interrupted &&
                                  t.n_tokens == 3 && t.has_sampling && t.sampling.seed == 42 &&
                                  t.sampling.temperature == 0.25f && t.decode_tps == 12.5);
        store_turn_fini(&t);
    }
    /* fork into a new session */
    {
        int64_t ns;
        store_session f;
        TEST_COND("fork", store_session_fork(st, s, u2, NULL, &ns, &err) == RWKV_OK && ns != s);
        TEST_COND("fork title", store_session_get(st, ns, &f, &err) == RWKV_OK &&
                                    strcmp(f.title, "renamed (fork)") == 0 && f.n_turns == 3);
        TEST_COND("fork path", store_turn_path(st, f.head_turn, &ids, &n, &err) == RWKV_OK && n == 3);
        if (n == 3) {
            store_turn a, b;
            store_turn_get(st, ids[2], &a, &err);
            store_turn_get(st, u2, &b, &err);
            TEST_COND("fork copy", strcmp(a.text, b.text) == 0 && a.n_tokens == b.n_tokens &&
                                       a.session_id == ns);
            store_turn_fini(&a);
            store_turn_fini(&b);
        }
        free(ids);
        TEST_COND("old unchanged", store_session_get(st, s, &f, &err) == RWKV_OK && f.n_turns == 7);
        TEST_COND("fork of foreign turn refused", store_session_fork(st, other, u2, NULL, &ns, &err) == RWKV_EINVAL);
    }
}

/* ---- snapshots ------------------------------------------------------------ */

/* Quantized weights are other weights: a plan's kinds and layers are in the
** snapshot's precision (store_precision_of), and a state made under one is
** refused under another (turn A2 holds an fp32 one, N floats). */
static void
test_precision_plans(store *st, int64_t a2, float *back, size_t n)
{
    store_state_meta m;
    rwkv_err err;
    enum store_snap why;
    const int i8 = store_precision_of("cpu fp32i8", 12);
    const int i4a = store_precision_of("cpu fp32i4 *3 -> cpu fp32", 12);
    const int i4b = store_precision_of("cpu fp32i4 *4 -> cpu fp32", 12);
    const int i4c = store_precision_of("cpu fp32i4 *3 -> cpu fp32", 12);

    TEST_COND("fp32 plan", store_precision_of("cpu fp32", 12) == STORE_PREC_FP32 &&
                               store_precision_of("cpu fp32 *3 -> cpu fp32", 12) == STORE_PREC_FP32 &&
                               store_precision_of("cpu bf16", 12) == STORE_PREC_BF16);
    TEST_CONDF(STORE_PREC_BASE(i8) == STORE_PREC_FP32 && STORE_PREC_KINDS(i8) == STORE_PREC_I8 &&
                   strcmp(store_precision_name(i8), "fp32 with int8 weights") == 0,
               "int8 plan: %#x %s", i8, store_precision_name(i8));
    TEST_CONDF(i4a != i4b && i4a == i4c && STORE_PREC_KINDS(i4a) == STORE_PREC_I4 && i4a > 0 && i4b > 0,
               "4-bit plans: %#x %#x %#x", i4a, i4b, i4c);
    TEST_COND("mixed kinds named",
              strcmp(store_precision_name(store_precision_of("cpu bf16i8 *2 -> cpu bf16i4", 12)),
                     "bf16 with int8 and 4-bit weights") == 0);
    m = META;
    m.precision = i8;
    TEST_COND("int8 weights mismatch",
              store_snapshot_get(st, a2, &m, back, n, &why, &err) == RWKV_ESHAPE &&
                  strstr(err.msg, "made with fp32, the strategy computes in fp32 with int8 weights"));
}

/* Overwrite the saved bytes of TURN's state (its shared row, schema v8)
** with the SQL expression EXPR of blob. */
static int
damage_state(const char *db, int64_t turn, const char *expr)
{
    char sql[320];

    snprintf(sql, sizeof sql, "UPDATE state_blobs SET blob=%s"
             " WHERE id=(SELECT blob_id FROM snapshots WHERE turn_id=%lld)", expr, (long long)turn);
    return q_exec(db, sql);
}

static void
test_snapshots(store *st, const char *dbpath)
{
    char fx[512];
    size_t n = 0;
    float *real = test_read_f32(test_fixture_path(fx, sizeof fx, "tiny/7v0/fp32w-cpufp32-L-rnn-state.bin"), &n);
    rwkv_err err;
    enum store_snap why;

    if (real == NULL || n != 50688) {
        TEST_INFO("fixture %s missing: using a synthetic state", fx);
        free(real);
        n = 50688;
        real = malloc(n * sizeof *real);
        fake_state(real, n, 3);
    }
    /* a few special values must survive bit-exactly too */
    {
        uint32_t qnan = 0x7fc01234u, neg0 = 0x80000000u, den = 0x00000001u;
        memcpy(&real[1], &qnan, 4);
        memcpy(&real[2], &neg0, 4);
        memcpy(&real[3], &den, 4);
    }
    float *back = malloc(n * sizeof *back), *older = malloc(n * sizeof *older);
    int64_t s = new_session(st, "snap");
    const int32_t ta[] = { 10, 11, 12 }, tb[] = { 20, 21 }, tc[] = { 30 }, td[] = { 40, 41, 42, 43 };
    fake_state(older, n, 9);
    int64_t u1 = append(st, s, 0, STORE_ROLE_USER, "u1", ta, 3, older, n);
    int64_t a1 = append(st, s, u1, STORE_ROLE_ASSISTANT, "a1", tb, 2, NULL, 0);
    int64_t u2 = append(st, s, a1, STORE_ROLE_USER, "u2", tc, 1, NULL, 0);
    int64_t a2 = append(st, s, u2, STORE_ROLE_ASSISTANT, "a2", td, 4, real, n);

    memset(back, 0, n * sizeof *back);
    TEST_COND("get ok", store_snapshot_get(st, a2, &META, back, n, &why, &err) == RWKV_OK && why == STORE_SNAP_OK);
    TEST_COND("bit-exact round trip", memcmp(back, real, n * sizeof *back) == 0);
    TEST_COND("absent", store_snapshot_get(st, a1, &META, back, n, &why, &err) == RWKV_EINVAL &&
                            why == STORE_SNAP_ABSENT);
    {
        store_state_meta m = META;
        m.fingerprint ^= 1;
        TEST_COND("fingerprint mismatch", store_snapshot_get(st, a2, &m, back, n, &why, &err) == RWKV_ESHAPE &&
                                              why == STORE_SNAP_MISMATCH && strstr(err.msg, "another model"));
        m = META;
        m.n_layer = 24;
        TEST_COND("dims mismatch", store_snapshot_get(st, a2, &m, back, n, &why, &err) == RWKV_ESHAPE);
        m = META;
        m.precision = STORE_PREC_BF16;
        TEST_COND("precision mismatch", store_snapshot_get(st, a2, &m, back, n, &why, &err) == RWKV_ESHAPE);
        test_precision_plans(st, a2, back, n);
        TEST_COND("length mismatch", store_snapshot_get(st, a2, &META, back, n - 1, &why, &err) == RWKV_ESHAPE);
        /* the model file's checksum digest (schema v5): a snapshot of another
        ** file with the same fingerprint is not used; one of unknown digest
        ** (saved before v5) only when the caller does not require it */
        m = META;
        m.digest = 0x51;
        TEST_COND("unknown digest used", store_snapshot_get(st, a2, &m, back, n, &why, &err) == RWKV_OK);
        m.digest_required = 1;
        TEST_COND("unknown digest refused when required",
                  store_snapshot_get(st, a2, &m, back, n, &why, &err) == RWKV_ESHAPE &&
                      strstr(err.msg, "another model file") != NULL);
        m.digest_required = 0;
        TEST_COND("put with a digest", store_snapshot_put(st, a2, real, n, &m, &err) == RWKV_OK);
        TEST_COND("same digest used", store_snapshot_get(st, a2, &m, back, n, &why, &err) == RWKV_OK);
        m.digest = 0x52;
        TEST_COND("another digest refused",
                  store_snapshot_get(st, a2, &m, back, n, &why, &err) == RWKV_ESHAPE &&
                      why == STORE_SNAP_MISMATCH);
        TEST_COND("put back", store_snapshot_put(st, a2, real, n, &META, &err) == RWKV_OK);

        /* replay plans */
        store_plan p;
        TEST_COND("plan exact", store_replay_plan(st, a2, &META, &p, &err) == RWKV_OK && p.base_turn == a2 &&
                                    p.n_tokens == 0 && p.n_segs == 0);
        store_plan_fini(&p);
        TEST_COND("plan from u1", store_replay_plan(st, u2, &META, &p, &err) == RWKV_OK && p.base_turn == u1 &&
                                      p.n_tokens == 3 && p.n_segs == 2 && p.tokens[0] == 20 &&
                                      p.tokens[1] == 21 && p.tokens[2] == 30 && p.segs[1].turn_id == u2 &&
                                      p.segs[1].off == 2 && p.segs[0].role == STORE_ROLE_ASSISTANT);
        store_plan_fini(&p);
        m = META;
        m.fingerprint = 77;
        TEST_COND("plan, other model: from the root",
                  store_replay_plan(st, a2, &m, &p, &err) == RWKV_OK && p.base_turn == 0 && p.n_tokens == 10 &&
                      p.n_segs == 4 && p.tokens[0] == 10 && p.tokens[9] == 43 &&
                      strstr(p.note, "another model") != NULL);
        store_plan_fini(&p);
        /* the note's words through the front end's tr hook, then English again */
        store_set_tr(st, shout_tr);
        TEST_COND("plan note through store_set_tr",
                  store_replay_plan(st, a2, &m, &p, &err) == RWKV_OK &&
                      strncmp(p.note, "[T] saved state of turn", 23) == 0 &&
                      strstr(p.note, ": [T] made with another model") != NULL &&
                      strstr(p.note, "[T]  (and 1 more)") != NULL);
        store_plan_fini(&p);
        store_set_tr(st, NULL);
        TEST_COND("plan note without a hook: English",
                  store_replay_plan(st, a2, &m, &p, &err) == RWKV_OK && strstr(p.note, "[T]") == NULL);
        store_plan_fini(&p);
    }
    /* restore: exact, then with the nearest blob truncated / flipped */
    {
        store_plan p;
        memset(back, 0, n * sizeof *back);
        TEST_COND("restore exact", store_state_restore(st, a2, &META, back, n, &p, &err) == RWKV_OK &&
                                       p.base_turn == a2 && p.n_tokens == 0 &&
                                       memcmp(back, real, n * sizeof *back) == 0);
        store_plan_fini(&p);
        TEST_COND("truncate blob", damage_state(dbpath, a2, "substr(blob, 1, 1000)") == SQLITE_OK);
        TEST_COND("truncated -> corrupt", store_snapshot_get(st, a2, &META, back, n, &why, &err) == RWKV_EFORMAT &&
                                              why == STORE_SNAP_CORRUPT && strstr(err.msg, "truncated") == NULL &&
                                              strstr(err.msg, "unusable"));
        TEST_COND("restore falls back", store_state_restore(st, a2, &META, back, n, &p, &err) == RWKV_OK &&
                                            p.base_turn == u1 && p.n_tokens == 7 && p.tokens[6] == 43 &&
                                            memcmp(back, older, n * sizeof *back) == 0 && p.note[0] != 0);
        store_plan_fini(&p);
        /* a byte flipped in the middle of the older one: no snapshot left */
        TEST_COND("flip byte", damage_state(dbpath, u1, "CAST(substr(blob,1,500) || x'ff' ||"
                                                        " substr(blob,502) AS BLOB)") == SQLITE_OK);
        TEST_COND("flipped -> corrupt", store_snapshot_get(st, u1, &META, back, n, &why, &err) == RWKV_EFORMAT &&
                                            strstr(err.msg, "checksum"));
        TEST_COND("restore from root", store_state_restore(st, a2, &META, back, n, &p, &err) == RWKV_OK &&
                                           p.base_turn == 0 && p.n_tokens == 10 && strstr(p.note, "(and 1 more)"));
        store_plan_fini(&p);
    }
    /* blob codec directly */
    {
        size_t bs = store_blob_size(n), got;
        unsigned char *b = malloc(bs);
        store_state_meta m;
        store_blob_encode(real, n, &META, b);
        TEST_COND("decode", store_blob_decode(b, bs, &m, &got, back, n, &err) == RWKV_OK && got == n &&
                                m.fingerprint == META.fingerprint && strcmp(m.version, "7.0") == 0 &&
                                m.n_layer == 12 && memcmp(back, real, n * 4) == 0);
        TEST_COND("short", store_blob_decode(b, 10, &m, &got, NULL, 0, &err) == RWKV_EFORMAT &&
                               strstr(err.msg, "truncated"));
        TEST_COND("cut", store_blob_decode(b, bs - 4, &m, &got, NULL, 0, &err) == RWKV_EFORMAT);
        b[20] ^= 0xff;   /* n_floats */
        TEST_COND("bad count", store_blob_decode(b, bs, &m, &got, NULL, 0, &err) == RWKV_EFORMAT);
        b[20] ^= 0xff;
        b[30] ^= 1;      /* fingerprint: covered by the checksum */
        TEST_COND("header checksum", store_blob_decode(b, bs, &m, &got, NULL, 0, &err) == RWKV_EFORMAT);
        free(b);
    }
    free(real);
    free(back);
    free(older);
}

/* ---- retention ------------------------------------------------------------ */

static int
has_snap(store *st, int64_t id)
{
    store_turn t;
    rwkv_err err;
    int r = 0;
    if (store_turn_get(st, id, &t, &err) == RWKV_OK)
        r = t.has_snapshot;
    store_turn_fini(&t);
    return r;
}

static void
test_retention(store *st)
{
    store_retention r = { 2, 4 }, def = { STORE_KEEP_LAST_DEFAULT, STORE_EVERY_DEFAULT };
    int64_t s = new_session(st, "retention"), ids[10], c[4], parent = 0;
    float v[64];
    char got[64];
    int ok = 1;

    store_set_retention(st, &r);
    for (int i = 0; i < 10; i++) {
        fake_state(v, 64, i);
        ids[i] = parent = append(st, s, parent, i % 2 ? STORE_ROLE_ASSISTANT : STORE_ROLE_USER, "t", NULL, 0, v, 64);
    }
    /* depths 0..9, keep_last 2, every 4: {0, 4, 8, 9} */
    for (int i = 0; i < 10; i++) {
        int want = i == 0 || i == 4 || i == 8 || i == 9;
        got[i] = has_snap(st, ids[i]) ? '1' : '0';
        ok &= (got[i] == '1') == want;
    }
    got[10] = 0;
    TEST_CONDF(ok, "linear retention: %s (want 1000100011)", got);
    /* a branch at depth 8 grown to depth 12: keep 0 4 8(branch) 9(old leaf) 11 12 */
    parent = ids[8];
    for (int i = 0; i < 4; i++) {
        fake_state(v, 64, 100 + i);
        c[i] = parent = append(st, s, parent, STORE_ROLE_USER, "c", NULL, 0, v, 64);
    }
    snprintf(got, sizeof got, "%d%d%d%d%d%d %d%d%d%d", has_snap(st, ids[0]), has_snap(st, ids[4]),
             has_snap(st, ids[8]), has_snap(st, ids[9]), has_snap(st, ids[3]), has_snap(st, ids[7]),
             has_snap(st, c[0]), has_snap(st, c[1]), has_snap(st, c[2]), has_snap(st, c[3]));
    TEST_CONDF(strcmp(got, "111100 0011") == 0, "branch retention: %s (want 111100 0011)", got);

    /* fork to a new session copies the last three turns' snapshots (those
    ** that have one) and the nearest one, not the whole history's */
    {
        rwkv_err err;
        int64_t f1, f2;
        uint64_t bytes;
        int64_t cnt;
        store_session fs;
        store_plan p;
        float w[64], back[64];
        TEST_COND("fork at leaf", store_session_fork(st, s, ids[9], "f1", &f1, &err) == RWKV_OK &&
                                      store_snapshot_usage(st, f1, &bytes, &cnt, &err) == RWKV_OK && cnt == 2);
        TEST_COND("fork at 7", store_session_fork(st, s, ids[7], "f2", &f2, &err) == RWKV_OK &&
                                   store_snapshot_usage(st, f2, &bytes, &cnt, &err) == RWKV_OK && cnt == 1);
        fake_state(w, 64, 4);
        TEST_COND("fork resumes from the copied snapshot",
                  store_session_get(st, f2, &fs, &err) == RWKV_OK &&
                      store_state_restore(st, fs.head_turn, &META, back, 64, &p, &err) == RWKV_OK &&
                      p.base_turn != 0 && p.base_turn != ids[4] && p.n_segs == 3 &&
                      memcmp(back, w, sizeof w) == 0);
        store_plan_fini(&p);
    }
    store_set_retention(st, &def);

    /* the defaults on a 200-turn (100-exchange) conversation: snapshots
    ** kept x the size of a 1.5B RWKV-7 state (24 x (2*2048 + 32*64*64)
    ** floats) must stay well under 1 GB */
    {
        int64_t s2 = new_session(st, "defaults");
        uint64_t bytes;
        int64_t cnt;
        rwkv_err err;
        parent = 0;
        for (int i = 0; i < 200; i++) {
            fake_state(v, 64, i);
            parent = append(st, s2, parent, i % 2 ? STORE_ROLE_ASSISTANT : STORE_ROLE_USER, "t", NULL, 0, v, 64);
        }
        store_snapshot_usage(st, s2, &bytes, &cnt, &err);
        double gb = (double)cnt * (double)store_blob_size(24u * (2 * 2048 + 32 * 64 * 64)) / 1e9;
        TEST_CONDF(cnt == 25 + 6 && gb < 0.5, "200 turns keep %lld snapshots = %.2f GB for a 1.5B model",
                   (long long)cnt, gb);
        TEST_INFO("default retention, 200 turns: %lld snapshots, %.2f GB at 1.5B (every turn: %.2f GB)",
                  (long long)cnt, gb, 200 * (double)store_blob_size(24u * (2 * 2048 + 32 * 64 * 64)) / 1e9);
    }
}

/* ---- export / import ------------------------------------------------------ */

/* Compare the turn rows (not ids) of two sessions. */
static int
same_turns(const char *db, int64_t a, int64_t b)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM (SELECT role, text, tokens, sampling, interrupted, depth, time_ms,"
             " prefill_tps, decode_tps, row_number() OVER (ORDER BY id) AS k FROM turns WHERE session_id=%lld"
             " EXCEPT SELECT role, text, tokens, sampling, interrupted, depth, time_ms, prefill_tps, decode_tps,"
             " row_number() OVER (ORDER BY id) FROM turns WHERE session_id=%lld)",
             (long long)a, (long long)b);
    return q_int(db, sql) == 0;
}

static void
test_export_import(store *st, const char *db)
{
    rwkv_err err;
    int64_t s = new_session(st, "Export \"me\" \\ \t ünïcødé 😺"), imp = 0;
    const int32_t t1[] = { 0, 65535, 2147483647 }, t2[] = { 5 };
    int64_t u = append(st, s, 0, STORE_ROLE_USER, "line1\nline2 \"quoted\" \\ tab\t", t1, 3, NULL, 0);
    store_turn a;
    char *json = NULL, *json2 = NULL, *md = NULL;
    size_t len, len2;
    store_session s1, s2;

    memset(&a, 0, sizeof a);
    a.session_id = s;
    a.parent_id = u;
    a.role = STORE_ROLE_ASSISTANT;
    a.text = "reply 中文";
    a.tokens = t2;
    a.n_tokens = 1;
    a.has_sampling = 1;
    params_defaults(&a.sampling);
    a.sampling.top_p = 0.15f;
    a.sampling.seed = 18446744073709551615ull;
    a.prefill_tps = 1234.5;
    a.decode_tps = 33.25;
    a.interrupted = 1;
    TEST_COND("append a", store_turn_append(st, &a, NULL, 0, NULL, &err) == RWKV_OK);
    append(st, s, u, STORE_ROLE_ASSISTANT, "sibling", NULL, 0, NULL, 0);
    store_session_set_head(st, s, a.id, &err);

    TEST_COND("export json", store_export(st, s, STORE_FMT_JSON, &json, &len, &err) == RWKV_OK && len > 0);
    TEST_COND("export md", store_export(st, s, STORE_FMT_MD, &md, &len2, &err) == RWKV_OK &&
                               strstr(md, "## User") && strstr(md, "reply 中文") && strstr(md, "interrupted") &&
                               strstr(md, "sibling") == NULL);
    TEST_COND("import", store_import(st, json, len, "t.json", &imp, &err) == RWKV_OK && imp > 0 && imp != s);
    if (imp <= 0)
        printf("  import: %s\n", err.msg);
    TEST_COND("same turns", same_turns(db, s, imp));
    TEST_COND("same title", store_session_get(st, s, &s1, &err) == RWKV_OK &&
                                store_session_get(st, imp, &s2, &err) == RWKV_OK &&
                                strcmp(s1.title, s2.title) == 0 && s1.created_ms == s2.created_ms &&
                                s2.n_turns == 3);
    {
        store_turn h;
        TEST_COND("head kept", store_turn_get(st, s2.head_turn, &h, &err) == RWKV_OK &&
                                   strcmp(h.text, "reply 中文") == 0 && h.sampling.seed == a.sampling.seed &&
                                   h.sampling.top_p == 0.15f);
        store_turn_fini(&h);
    }
    TEST_COND("re-export", store_export(st, imp, STORE_FMT_JSON, &json2, &len2, &err) == RWKV_OK);
    /* the two exports differ only in turn ids */
    {
        const char *p = strstr(json, "\"turns\""), *q = strstr(json2, "\"turns\"");
        size_t nturn_a = 0, nturn_b = 0;
        for (const char *x = p; (x = strstr(x, "\"role\"")); x++)
            nturn_a++;
        for (const char *x = q; (x = strstr(x, "\"role\"")); x++)
            nturn_b++;
        TEST_COND("re-export same turns", nturn_a == 3 && nturn_b == 3);
    }

    /* malformed imports: one message, nothing written */
    static const struct { const char *json, *needle; } bad[] = {
        { "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"x\", \"turns\": [", "t.json" },
        { "[1,2,3]", "not a rwkv-tui session export" },
        { "{\"format\": \"rwkv-tui-session\", \"version\": 2, \"title\": \"x\", \"turns\": []}", "version" },
        { "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": 5, \"turns\": []}", "title" },
        { "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"x\", \"turns\": {}}", "turns" },
        { "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"x\", \"turns\": ["
          "{\"id\": 1, \"parent\": null, \"role\": \"user\", \"text\": \"a\"},"
          "{\"id\": 2, \"parent\": 9, \"role\": \"user\", \"text\": \"b\"}]}", "parent" },
        { "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"x\", \"turns\": ["
          "{\"id\": 1, \"role\": \"robot\", \"text\": \"a\"}]}", "role" },
        { "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"x\", \"turns\": ["
          "{\"id\": 1, \"role\": \"user\", \"text\": \"a\", \"tokens\": [1, -2]}]}", "token" },
        { "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"x\", \"turns\": ["
          "{\"id\": 1, \"role\": \"user\", \"text\": \"a\", \"sampling\": {\"temperature\": 99}}]}", "temperature" },
        { "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"x\", \"turns\": ["
          "{\"id\": 2, \"role\": \"user\", \"text\": \"a\"}, {\"id\": 1, \"role\": \"user\", \"text\": \"a\"}]}",
          "increase" },
        { "", "t.json" },
    };
    int64_t before = q_int(db, "SELECT count(*) FROM sessions"), tb = q_int(db, "SELECT count(*) FROM turns");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t id = 0;
        int rc = store_import(st, bad[i].json, strlen(bad[i].json), "t.json", &id, &err);
        TEST_CONDF(rc == RWKV_EFORMAT && id == 0 && strstr(err.msg, bad[i].needle) &&
                       strchr(err.msg, '\n') == NULL,
                   "bad import %zu: rc %d '%s'", i, rc, err.msg);
    }
    TEST_COND("nothing written", q_int(db, "SELECT count(*) FROM sessions") == before &&
                                     q_int(db, "SELECT count(*) FROM turns") == tb);
    free(json);
    free(json2);
    free(md);
}

/* ---- search --------------------------------------------------------------- */

static void
test_search(store *st)
{
    rwkv_err err;
    store_hit *h;
    size_t n;
    int64_t s = new_session(st, "zoo");
    int64_t u = append(st, s, 0, STORE_ROLE_USER, "Where do the pangolins sleep?", NULL, 0, NULL, 0);
    append(st, s, u, STORE_ROLE_ASSISTANT, "Pangolins sleep in burrows.", NULL, 0, NULL, 0);

    TEST_COND("search 2 hits", store_search(st, "pangolins", 10, &h, &n, &err) == RWKV_OK && n == 2 &&
                                   h[0].session_id == s && strstr(h[0].snippet, "[") != NULL &&
                                   strcmp(h[0].title, "zoo") == 0);
    free(h);
    TEST_COND("search words", store_search(st, "burrows pangolins", 10, &h, &n, &err) == RWKV_OK && n == 1 &&
                                  h[0].role == STORE_ROLE_ASSISTANT);
    free(h);
    TEST_COND("no hit", store_search(st, "zebra", 10, &h, &n, &err) == RWKV_OK && n == 0);
    free(h);
    TEST_COND("syntax chars are text", store_search(st, "\"AND ( * NEAR OR", 10, &h, &n, &err) == RWKV_OK);
    free(h);
    TEST_COND("empty refused", store_search(st, "   ", 10, &h, &n, &err) == RWKV_EINVAL);
    TEST_COND("limit", store_search(st, "pangolins", 1, &h, &n, &err) == RWKV_OK && n == 1);
    free(h);
}

/* ---- delete --------------------------------------------------------------- */

static void
test_delete(store *st, const char *db)
{
    store_retention keep = { 1000, 1 }, def = { STORE_KEEP_LAST_DEFAULT, STORE_EVERY_DEFAULT };
    rwkv_err err;
    size_t n = 50688;
    float *v = malloc(n * sizeof *v);
    int64_t s = new_session(st, "big"), parent = 0;
    uint64_t bytes;
    int64_t cnt;
    store_hit *h;
    size_t nh;

    store_set_retention(st, &keep);
    for (int i = 0; i < 30; i++) {
        fake_state(v, n, i);
        parent = append(st, s, parent, STORE_ROLE_USER, "aardvark text", NULL, 0, v, n);
    }
    store_set_retention(st, &def);
    TEST_COND("usage", store_snapshot_usage(st, s, &bytes, &cnt, &err) == RWKV_OK && cnt == 30 &&
                           bytes == 30 * store_blob_size(n));
    q_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    long before = file_size(db);
    TEST_COND("delete", store_session_delete(st, s, &err) == RWKV_OK);
    long after = file_size(db);
    TEST_CONDF(before - after > 25 * (long)(n * 4), "file shrank: %ld -> %ld", before, after);
    TEST_COND("freelist empty", q_int(db, "PRAGMA freelist_count") == 0);
    TEST_COND("turns gone", q_int(db, "SELECT count(*) FROM turns WHERE session_id NOT IN (SELECT id FROM sessions)") == 0);
    TEST_COND("snapshots gone", q_int(db, "SELECT count(*) FROM snapshots WHERE turn_id NOT IN (SELECT id FROM turns)") == 0);
    TEST_COND("search forgets", store_search(st, "aardvark", 10, &h, &nh, &err) == RWKV_OK && nh == 0);
    free(h);
    TEST_COND("delete twice", store_session_delete(st, s, &err) == RWKV_EINVAL);
    free(v);
}

int
main(void)
{
    char db[512];
    store *st = NULL;
    rwkv_err err;

    if (test_tmpdir("rwkv-store") == NULL)
        return 1;
    test_open();
    test_bad_files();
    test_shipped_steps();
    test_migration();
    test_ids_never_reused();
    test_tmp_path(db, sizeof db, "main.db");
    TEST_COND("open main", store_open(db, &st, &err) == RWKV_OK);
    if (st) {
        test_tree(st);
        test_snapshots(st, db);
        test_retention(st);
        test_export_import(st, db);
        test_search(st);
        test_delete(st, db);
        store_close(st);
        TEST_COND("integrity", q_int(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check='ok'") == 1);
    }
    test_tmpdir_remove();
    return TEST_REPORT();
}
