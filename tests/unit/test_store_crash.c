/*
** test_store_crash.c -- the session database under process death and
** concurrency, on real files in a temp dir:
**   - a child appending turns (with 200 KB states) is SIGKILLed at varying
**     moments, mid-transaction most of the time: every turn it reported as
**     committed is there, tokens and state bit-exact; integrity_check ok;
**   - a child killed mid-reply: the partial reply is kept, marked interrupted;
**   - two processes appending to one database at once lose nothing, and two
**     creating the same new database at once both succeed, as do eight, in
**     rounds; opening a file left in rollback-journal mode while another
**     process writes it waits for the write lock instead of failing;
**   - a full disk (a 4 MB tmpfs, when mounting works here): a clear error,
**     nothing committed lost.
*/
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../storage/store.h"
#include "../harness.h"
#include "store_test.h"

#define NF 50688   /* floats in a state: the tiny 7v0 model's */

static const store_state_meta META = { 42, "7.0", 12, 64, 1, 64, STORE_PREC_FP32, 0, 0 };

static int64_t
make_session(const char *db, const char *title)
{
    store *st;
    store_session s;
    rwkv_err err;
    int64_t id = 0;

    if (store_open(db, &st, &err) != RWKV_OK) {
        printf("open: %s\n", err.msg);
        return 0;
    }
    memset(&s, 0, sizeof s);
    snprintf(s.title, sizeof s.title, "%s", title);
    if (store_session_new(st, &s, &id, &err) != RWKV_OK)
        printf("session: %s\n", err.msg);
    store_close(st);
    return id;
}

/* Milliseconds on the monotonic clock. */
static int64_t
mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The file format version bytes of database DB's header (offset 18): 1
** rollback journal, 2 WAL; -1 when unreadable. */
static int
file_version(const char *db)
{
    unsigned char h[20];
    int fd = open(db, O_RDONLY | O_CLOEXEC), n;

    if (fd < 0)
        return -1;
    n = (int)pread(fd, h, sizeof h, 0);
    close(fd);
    return n == (int)sizeof h && h[18] == h[19] ? h[18] : -1;
}

struct rec {
    int64_t id;
    int32_t i;
};

/* Child: append turns forever, reporting each committed one on FD. */
static void
child_append(const char *db, int64_t sess, int fd, int base)
{
    store *st;
    rwkv_err err;
    store_retention keep = { 1000000, 1 };
    float *v = malloc(NF * sizeof *v);
    int64_t parent = 0;

    if (v == NULL || store_open(db, &st, &err) != RWKV_OK)
        _exit(3);
    store_set_retention(st, &keep);
    for (int i = base;; i++) {
        store_turn t;
        int32_t tok[2] = { i, -i };
        char text[64];
        test_fake_state(v, NF, i);
        snprintf(text, sizeof text, "turn %d", i);
        memset(&t, 0, sizeof t);
        t.session_id = sess;
        t.parent_id = parent;
        t.role = i % 2 ? STORE_ROLE_ASSISTANT : STORE_ROLE_USER;
        t.text = text;
        t.tokens = tok;
        t.n_tokens = 2;
        if (store_turn_append(st, &t, v, NF, &META, &err) != RWKV_OK)
            _exit(4);
        struct rec r = { t.id, i };
        if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
            _exit(5);
        parent = t.id;
    }
}

/* Check that turn R exists with its tokens, text and state. */
static int
turn_intact(store *st, const struct rec *r, float *want, float *got)
{
    store_turn t;
    rwkv_err err;
    char text[64];
    int ok;

    if (store_turn_get(st, r->id, &t, &err) != RWKV_OK)
        return 0;
    snprintf(text, sizeof text, "turn %d", r->i);
    ok = t.n_tokens == 2 && t.tokens[0] == r->i && t.tokens[1] == -r->i && strcmp(t.text, text) == 0 &&
         t.has_snapshot;
    store_turn_fini(&t);
    if (!ok)
        return 0;
    test_fake_state(want, NF, r->i);
    if (store_snapshot_get(st, r->id, &META, got, NF, NULL, &err) != RWKV_OK)
        return 0;
    return memcmp(want, got, NF * sizeof *got) == 0;
}

static void
test_kill_mid_write(void)
{
    char db[512];
    int64_t sess;
    float *want = malloc(NF * sizeof *want), *got = malloc(NF * sizeof *got);
    int lost = 0, total = 0;

    test_tmp_path(db, sizeof db, "kill.db");
    sess = make_session(db, "kill");
    TEST_COND("session", sess > 0);
    for (int round = 0; round < 6; round++) {
        int fds[2];
        pid_t pid;
        struct rec r[4096];
        size_t n = 0;
        ssize_t k;
        int status;

        if (pipe(fds) != 0)
            return;
        pid = fork();
        if (pid == 0) {
            close(fds[0]);
            child_append(db, sess, fds[1], round * 100000);
        }
        close(fds[1]);
        /* wait for a few commits, then kill at a varying moment */
        while (n < (size_t)(3 + round) && (k = read(fds[0], &r[n], sizeof r[n])) == (ssize_t)sizeof r[n])
            n++;
        struct timespec ts = { 0, (long)(round * 1700 + 300) * 1000 };
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        while (n < sizeof r / sizeof r[0] && (k = read(fds[0], &r[n], sizeof r[n])) == (ssize_t)sizeof r[n])
            n++;
        close(fds[0]);
        TEST_CONDF(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "round %d: child died of SIGKILL", round);

        store *st;
        rwkv_err err;
        TEST_COND("reopen after kill", store_open(db, &st, &err) == RWKV_OK);
        if (st == NULL)
            break;
        for (size_t i = 0; i < n; i++) {
            total++;
            if (!turn_intact(st, &r[i], want, got))
                lost++;
        }
        store_close(st);
        TEST_CONDF(q_integrity_ok(db), "round %d: integrity_check", round);
    }
    TEST_CONDF(lost == 0 && total > 0, "%d of %d committed turns lost or damaged", lost, total);
    TEST_INFO("kill mid-write: %d committed turns checked over 6 kills", total);
    free(want);
    free(got);
}

static void
test_kill_mid_reply(void)
{
    char db[512];
    int64_t sess;
    int fds[2];
    pid_t pid;
    int64_t ids[2] = { 0, 0 };

    test_tmp_path(db, sizeof db, "reply.db");
    sess = make_session(db, "reply");
    if (pipe(fds) != 0)
        return;
    pid = fork();
    if (pid == 0) {
        store *st;
        rwkv_err err;
        store_turn u, a;
        float v[64] = { 1.5f };
        const int32_t ut[] = { 1, 2, 3 }, at[] = { 7, 8 };
        close(fds[0]);
        if (store_open(db, &st, &err) != RWKV_OK)
            _exit(3);
        memset(&u, 0, sizeof u);
        u.session_id = sess;
        u.role = STORE_ROLE_USER;
        u.text = "tell me a story";
        u.tokens = ut;
        u.n_tokens = 3;
        if (store_turn_append(st, &u, v, 64, &META, &err) != RWKV_OK)
            _exit(4);
        memset(&a, 0, sizeof a);
        a.session_id = sess;
        a.parent_id = u.id;
        a.role = STORE_ROLE_ASSISTANT;
        a.text = "";
        if (store_turn_begin(st, &a, &err) != RWKV_OK ||
            store_turn_progress(st, a.id, "Once upon", at, 1, &err) != RWKV_OK ||
            store_turn_progress(st, a.id, "Once upon a time", at, 2, &err) != RWKV_OK)
            _exit(5);
        int64_t r[2] = { u.id, a.id };
        if (write(fds[1], r, sizeof r) != (ssize_t)sizeof r)
            _exit(6);
        for (;;)
            pause();   /* "generating" */
    }
    close(fds[1]);
    if (read(fds[0], ids, sizeof ids) != (ssize_t)sizeof ids)
        ids[0] = ids[1] = 0;
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(fds[0]);

    store *st;
    rwkv_err err;
    store_turn t;
    store_session s;
    float got[64];
    TEST_COND("reopen", store_open(db, &st, &err) == RWKV_OK);
    if (st == NULL)
        return;
    TEST_COND("user turn kept", store_turn_get(st, ids[0], &t, &err) == RWKV_OK &&
                                    strcmp(t.text, "tell me a story") == 0 && t.has_snapshot);
    store_turn_fini(&t);
    TEST_COND("user state kept", store_snapshot_get(st, ids[0], &META, got, 64, NULL, &err) == RWKV_OK &&
                                     got[0] == 1.5f);
    TEST_COND("partial reply kept and marked",
              store_turn_get(st, ids[1], &t, &err) == RWKV_OK && t.interrupted &&
                  strcmp(t.text, "Once upon a time") == 0 && t.n_tokens == 2 && t.tokens[1] == 8);
    store_turn_fini(&t);
    TEST_COND("head at the partial reply", store_session_get(st, sess, &s, &err) == RWKV_OK &&
                                               s.head_turn == ids[1]);
    store_close(st);
    TEST_COND("integrity", q_integrity_ok(db));
}

#define PER_PROC 150

static void
test_two_writers(void)
{
    char db[512];
    int64_t sess;
    pid_t pids[2];
    int ok = 1;

    test_tmp_path(db, sizeof db, "two.db");
    sess = make_session(db, "two");
    for (int p = 0; p < 2; p++) {
        pids[p] = fork();
        if (pids[p] == 0) {
            store *st;
            rwkv_err err;
            float v[1000];
            int64_t parent = 0;
            if (store_open(db, &st, &err) != RWKV_OK)
                _exit(3);
            for (int i = 0; i < PER_PROC; i++) {
                store_turn t;
                char text[64];
                snprintf(text, sizeof text, "writer %d turn %d", p, i);
                test_fake_state(v, 1000, p * 1000 + i);
                memset(&t, 0, sizeof t);
                t.session_id = sess;
                t.parent_id = parent;
                t.role = STORE_ROLE_USER;
                t.text = text;
                if (store_turn_append(st, &t, v, 1000, &META, &err) != RWKV_OK) {
                    fprintf(stderr, "writer %d: %s\n", p, err.msg);
                    _exit(4);
                }
                parent = t.id;
            }
            store_close(st);
            _exit(0);
        }
    }
    for (int p = 0; p < 2; p++) {
        int status;
        waitpid(pids[p], &status, 0);
        TEST_CONDF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d exit status %d", p, status);
    }
    store *st;
    rwkv_err err;
    store_session s;
    TEST_COND("reopen", store_open(db, &st, &err) == RWKV_OK);
    if (st == NULL)
        return;
    TEST_CONDF(store_session_get(st, sess, &s, &err) == RWKV_OK && s.n_turns == 2 * PER_PROC,
               "turns: %lld, want %d", (long long)s.n_turns, 2 * PER_PROC);
    /* each writer's chain is whole and in order */
    int64_t *roots;
    size_t nr;
    TEST_COND("two roots", store_turn_children(st, sess, 0, &roots, &nr, &err) == RWKV_OK && nr == 2);
    for (size_t r = 0; r < nr; r++) {
        int64_t leaf, *path;
        size_t n;
        store_turn t;
        int writer = -1;
        if (store_branch_leaf(st, roots[r], &leaf, &err) != RWKV_OK ||
            store_turn_path(st, leaf, &path, &n, &err) != RWKV_OK) {
            ok = 0;
            continue;
        }
        ok &= n == PER_PROC;
        for (size_t i = 0; i < n && ok; i++) {
            char want[64];
            if (store_turn_get(st, path[i], &t, &err) != RWKV_OK) {
                ok = 0;
                break;
            }
            if (i == 0)
                writer = t.text[7] - '0';
            snprintf(want, sizeof want, "writer %d turn %zu", writer, i);
            ok &= strcmp(t.text, want) == 0;
            store_turn_fini(&t);
        }
        free(path);
    }
    free(roots);
    TEST_COND("both chains whole", ok);
    store_close(st);
    TEST_COND("integrity", q_integrity_ok(db));
}

/* Two processes create (and migrate) the same new database at once. */
static void
test_two_create(void)
{
    char db[512];
    int go[2];
    pid_t pids[2];

    test_tmp_path(db, sizeof db, "sub/rwkv-tui/rwkv-tui.db");
    {
        char x[512];
        test_tmp_path(x, sizeof x, "sub");
        setenv("XDG_DATA_HOME", x, 1);
    }
    if (pipe(go) != 0)
        return;
    for (int p = 0; p < 2; p++) {
        pids[p] = fork();
        if (pids[p] == 0) {
            store *st;
            rwkv_err err;
            store_session s;
            int64_t sid, parent = 0;
            char c;
            close(go[1]);
            if (read(go[0], &c, 1) != 0)   /* released when the parent closes */
                _exit(2);
            /* the default path: both make its directories at once */
            if (store_open(NULL, &st, &err) != RWKV_OK) {
                fprintf(stderr, "creator %d: %s\n", p, err.msg);
                _exit(3);
            }
            memset(&s, 0, sizeof s);
            snprintf(s.title, sizeof s.title, "creator %d", p);
            if (store_session_new(st, &s, &sid, &err) != RWKV_OK)
                _exit(4);
            for (int i = 0; i < 20; i++) {
                store_turn t;
                memset(&t, 0, sizeof t);
                t.session_id = sid;
                t.parent_id = parent;
                t.role = STORE_ROLE_USER;
                t.text = "hello";
                if (store_turn_append(st, &t, NULL, 0, NULL, &err) != RWKV_OK)
                    _exit(5);
                parent = t.id;
            }
            store_close(st);
            _exit(0);
        }
    }
    close(go[0]);
    close(go[1]);
    for (int p = 0; p < 2; p++) {
        int status;
        waitpid(pids[p], &status, 0);
        TEST_CONDF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "creator %d exit status %d", p, status);
    }
    store *st;
    rwkv_err err;
    store_session *v = NULL;
    size_t n = 0;
    TEST_COND("reopen created", store_open(db, &st, &err) == RWKV_OK);
    if (st) {
        TEST_COND("two sessions of 20 turns", store_session_list(st, &v, &n, &err) == RWKV_OK && n == 2 &&
                                                  v[0].n_turns == 20 && v[1].n_turns == 20);
        free(v);
        store_close(st);
    }
    TEST_COND("integrity", q_integrity_ok(db));
}

/*
** CREATORS processes open (create) the same new database at once, ROUNDS
** times, each round at a fresh default path.  They all switch the new file
** to WAL mode at about the same moment, and the switch is a read, then a
** write that SQLite refuses at once (SQLITE_BUSY, no busy handler) while
** another connection holds the write lock: before store.c's setup_step a
** creator then failed with "database is locked" -- in about one round in a
** hundred on a 2-core machine, so these few rounds seldom caught it;
** test_rollback_locked is the deterministic case of it.
*/
#define CREATORS 8
#define ROUNDS   6

static void
test_many_create(void)
{
    char x[512];
    int n_bad = 0;

    for (int r = 0; r < ROUNDS; r++) {
        char db[600];
        int go[2];
        pid_t pids[CREATORS];

        snprintf(db, sizeof db, "many%d", r);
        test_tmp_path(x, sizeof x, db);
        setenv("XDG_DATA_HOME", x, 1);
        snprintf(db, sizeof db, "%s/rwkv-tui/rwkv-tui.db", x);
        if (pipe(go) != 0)
            return;
        for (int p = 0; p < CREATORS; p++) {
            pids[p] = fork();
            if (pids[p] == 0) {
                store *st;
                rwkv_err err;
                store_session s;
                int64_t sid;
                char c;
                close(go[1]);
                if (read(go[0], &c, 1) != 0)
                    _exit(2);
                if (store_open(NULL, &st, &err) != RWKV_OK) {
                    printf("     round %d creator %d: %s\n", r, p, err.msg);
                    fflush(stdout);
                    _exit(3);
                }
                memset(&s, 0, sizeof s);
                snprintf(s.title, sizeof s.title, "creator %d", p);
                if (store_session_new(st, &s, &sid, &err) != RWKV_OK) {
                    printf("     round %d creator %d: session: %s\n", r, p, err.msg);
                    fflush(stdout);
                    _exit(4);
                }
                store_close(st);
                _exit(0);
            }
        }
        fflush(stdout);
        close(go[0]);
        close(go[1]);
        for (int p = 0; p < CREATORS; p++) {
            int status = -1;
            if (pids[p] > 0)
                waitpid(pids[p], &status, 0);
            n_bad += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
        }
        TEST_CONDF(q_int(db, "SELECT count(*) FROM sessions") == CREATORS,
                   "round %d: %lld sessions, want %d", r,
                   (long long)q_int(db, "SELECT count(*) FROM sessions"), CREATORS);
    }
    TEST_CONDF(n_bad == 0, "%d of %d creators failed", n_bad, CREATORS * ROUNDS);
}

/*
** A database in rollback-journal mode (store_file.c leaves one so when WAL
** mode does not come back) while another process writes it.  store_open
** reads the header, then switches the file to WAL, which needs the write
** lock; SQLite answers SQLITE_BUSY at once there, without the busy handler
** (waiting while holding a read lock could deadlock).  Before setup_step
** the open failed at once ("database is locked"); now it waits for the
** lock, as every other statement does, and takes the file to WAL mode.
*/
#define HOLD_MS 300

static void
test_rollback_locked(void)
{
    char db[512];
    store *st;
    rwkv_err err;
    int ready[2];
    pid_t pid;
    int64_t t0, ms;
    int rc, status = -1;

    test_tmp_path(db, sizeof db, "rollback.db");
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "create: %s", err.msg);
        return;
    }
    store_close(st);
    TEST_COND("to rollback mode", q_exec(db, "PRAGMA journal_mode=DELETE") == SQLITE_OK);
    if (pipe(ready) != 0)
        return;
    pid = fork();
    if (pid == 0) {
        sqlite3 *h;
        struct timespec ts = { 0, HOLD_MS * 1000000L };
        close(ready[0]);
        if (sqlite3_open(db, &h) != SQLITE_OK ||
            sqlite3_busy_timeout(h, 5000) != SQLITE_OK ||
            sqlite3_exec(h, "BEGIN IMMEDIATE; INSERT INTO settings VALUES ('holder', 1)", NULL,
                         NULL, NULL) != SQLITE_OK ||
            write(ready[1], "x", 1) != 1)
            _exit(2);
        nanosleep(&ts, NULL);
        _exit(sqlite3_exec(h, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : 3);
    }
    close(ready[1]);
    {
        char c;
        if (pid < 0 || read(ready[0], &c, 1) != 1) {
            TEST_COND("lock holder ready", 0);
            close(ready[0]);
            if (pid > 0)
                waitpid(pid, &status, 0);
            return;
        }
    }
    close(ready[0]);
    t0 = mono_ms();
    rc = store_open(db, &st, &err);
    ms = mono_ms() - t0;
    TEST_CONDF(rc == RWKV_OK, "open while another process writes: %s",
               rc == RWKV_OK ? "" : err.msg);
    TEST_CONDF(rc != RWKV_OK || ms >= HOLD_MS / 2, "opened after %lld ms, the lock was held %d ms",
               (long long)ms, HOLD_MS);
    store_close(st);
    waitpid(pid, &status, 0);
    TEST_CONDF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "lock holder exit status %d", status);
    TEST_COND("the holder's row is there",
              q_int(db, "SELECT value FROM settings WHERE key='holder'") == 1);
    TEST_COND("back in WAL mode", file_version(db) == 2);
    TEST_COND("integrity", q_integrity_ok(db));
}

static void
test_full_disk(void)
{
    char mnt[512], cmd[700], db[600];

    test_tmp_path(mnt, sizeof mnt, "tmpfs");
    mkdir(mnt, 0700);
    snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=4m tmpfs '%s' 2>/dev/null", mnt);
    if (geteuid() != 0 || system(cmd) != 0) {
        TEST_INFO("full-disk test skipped: cannot mount a small tmpfs here");
        return;
    }
    snprintf(db, sizeof db, "%s/full.db", mnt);
    {
        store *st;
        rwkv_err err;
        store_retention keep = { 1000000, 1 };
        float *v = malloc(NF * sizeof *v);
        int64_t sess = 0, parent = 0, last = 0;
        int n_ok = 0, rc = RWKV_OK;
        store_session s;
        memset(&s, 0, sizeof s);
        snprintf(s.title, sizeof s.title, "full");
        TEST_COND("open on tmpfs", store_open(db, &st, &err) == RWKV_OK &&
                                       store_session_new(st, &s, &sess, &err) == RWKV_OK);
        store_set_retention(st, &keep);
        for (int i = 0; i < 100; i++) {
            store_turn t;
            test_fake_state(v, NF, i);
            memset(&t, 0, sizeof t);
            t.session_id = sess;
            t.parent_id = parent;
            t.role = STORE_ROLE_USER;
            t.text = "fill";
            rc = store_turn_append(st, &t, v, NF, &META, &err);
            if (rc != RWKV_OK)
                break;
            n_ok++;
            parent = last = t.id;
        }
        TEST_CONDF(n_ok >= 2, "only %d turns fit before the disk was full", n_ok);
        TEST_CONDF(rc == RWKV_EDB && strstr(err.msg, "disk full") && strchr(err.msg, '\n') == NULL,
                   "full disk: rc %d '%s' after %d turns", rc, err.msg, n_ok);
        store_close(st);
        TEST_COND("reopen full", store_open(db, &st, &err) == RWKV_OK);
        if (st) {
            TEST_CONDF(store_session_get(st, sess, &s, &err) == RWKV_OK && s.n_turns == n_ok &&
                           s.head_turn == last,
                       "after full disk: %lld turns, want %d", (long long)s.n_turns, n_ok);
            float *g = malloc(NF * sizeof *g);
            test_fake_state(v, NF, n_ok - 1);
            TEST_COND("last state intact", store_snapshot_get(st, last, &META, g, NF, NULL, &err) == RWKV_OK &&
                                               memcmp(g, v, NF * 4) == 0);
            free(g);
            store_close(st);
        }
        TEST_COND("integrity after full disk", q_integrity_ok(db));
        TEST_INFO("full disk: %d turns fit in 4 MB before the clean refusal", n_ok);
        free(v);
    }
    snprintf(cmd, sizeof cmd, "umount '%s'", mnt);
    if (system(cmd) != 0)
        printf("could not unmount %s\n", mnt);
}

int
main(void)
{
    if (test_tmpdir("rwkv-crash") == NULL)
        return 1;
    fflush(stdout);
    test_kill_mid_write();
    test_kill_mid_reply();
    test_two_writers();
    test_two_create();
    test_many_create();
    test_rollback_locked();
    test_full_disk();
    test_tmpdir_remove();
    return TEST_REPORT();
}
