/*
** test_store_lease.c -- the lease of a begun reply's writer (store_turn.c):
** whether a reply row marked interrupted is being written now by another
** process (store_turn_writing), on real files in a temp dir:
**   - a child process begins a reply and waits: another process finds it
**     being written, also while the child is stopped (SIGSTOP, as by
**     Ctrl-Z); killed with SIGKILL (reaped or not yet) it is not;
**   - the process's own begun reply is not "another's";
**   - finish ends the lease (cut or whole), STORE_TURN_BEGUN keeps it; a
**     lease ended by store_turn_lease(.., 0) is gone, (.., 1) takes it again;
**   - a writer on another machine: a fresh lease is alive, one older than
**     STORE_WRITER_STALE_MS is not; a damaged row is no writer;
**   - leases of replies no longer begun are swept by the next begin.
*/
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../storage/store.h"
#include "../harness.h"
#include "store_test.h"

static const int32_t IDS[3] = { 1, 2, 3 };

/* A session with a message (its id in *USER): the session id, 0 on failure. */
static int64_t
setup(store *st, int64_t *user)
{
    int64_t sid = new_session(st, "lease");

    *user = sid ? add_turn(st, sid, 0, STORE_ROLE_USER, "hi", IDS, 3, NULL, 0, NULL, NULL) : 0;
    return *user ? sid : 0;
}

/* Reply T (under USER of SID) begun on ST: its id, 0 on failure. */
static int64_t
begin(store *st, int64_t sid, int64_t user)
{
    store_turn t;
    rwkv_err err;

    memset(&t, 0, sizeof t);
    t.session_id = sid;
    t.parent_id = user;
    t.role = STORE_ROLE_ASSISTANT;
    t.text = "";
    t.interrupted = 1;
    if (store_turn_begin(st, &t, &err) != RWKV_OK) {
        printf("begin: %s\n", err.msg);
        return 0;
    }
    return t.id;
}

/* store_turn_writing of ID on ST: 0/1, or -1 on error. */
static int
writing(store *st, int64_t id)
{
    rwkv_err err;
    int w = -1;

    if (store_turn_writing(st, id, &w, &err) != RWKV_OK) {
        printf("writing: %s\n", err.msg);
        return -1;
    }
    return w;
}

/* A child that begins a reply under USER of SID in DB, writes its id to
** the pipe FD and waits to be killed. */
static pid_t
child_writer(const char *db, int64_t sid, int64_t user, int fd)
{
    pid_t pid = fork();

    if (pid == 0) {
        store *st;
        rwkv_err err;
        int64_t id = 0;

        if (store_open(db, &st, &err) == RWKV_OK)
            id = begin(st, sid, user);
        if (write(fd, &id, sizeof id) != (ssize_t)sizeof id)
            _exit(1);
        for (;;)
            pause();
    }
    return pid;
}

static void
test_processes(const char *db, store *st, int64_t sid, int64_t user)
{
    int fds[2];
    int64_t id = 0;
    pid_t pid;
    int status;

    if (pipe(fds) != 0) {
        TEST_COND("pipe", 0);
        return;
    }
    pid = child_writer(db, sid, user, fds[1]);
    TEST_COND("the child began its reply",
              pid > 0 && read(fds[0], &id, sizeof id) == (ssize_t)sizeof id && id > 0);
    close(fds[0]);
    close(fds[1]);
    if (id <= 0) {
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
        }
        return;
    }
    TEST_COND("a live writer's reply is being written", writing(st, id) == 1);
    kill(pid, SIGSTOP);
    waitpid(pid, &status, WUNTRACED);
    TEST_COND("a stopped writer (Ctrl-Z) is alive", writing(st, id) == 1);
    kill(pid, SIGKILL);
    /* not reaped yet: a zombie is dead too */
    for (int i = 0; i < 200; i++) {
        char path[64], buf[256] = "";
        FILE *f;
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        if ((f = fopen(path, "r")) == NULL)
            break;
        if (fgets(buf, sizeof buf, f) == NULL)
            buf[0] = '\0';
        fclose(f);
        if (strstr(buf, ") Z") != NULL)
            break;
        usleep(10000);
    }
    TEST_COND("a killed writer (not reaped yet) is dead", writing(st, id) == 0);
    waitpid(pid, &status, 0);
    TEST_COND("a killed writer is dead", writing(st, id) == 0);
}

static void
test_own_and_finish(store *st, int64_t sid, int64_t user)
{
    int64_t id = begin(st, sid, user);
    store_turn t;
    rwkv_err err;
    char sql[160];

    TEST_COND("own reply: not another's", id > 0 && writing(st, id) == 0);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM settings WHERE key='reply_writer/%lld'",
             (long long)id);
    TEST_COND("begin takes the lease", q_int(store_path(st), sql) == 1);
    memset(&t, 0, sizeof t);
    t.id = id;
    t.session_id = sid;
    t.parent_id = user;
    t.role = STORE_ROLE_ASSISTANT;
    t.text = "so far";
    t.interrupted = STORE_TURN_BEGUN;
    TEST_COND("finish, still begun", store_turn_finish(st, &t, NULL, 0, NULL, &err) == RWKV_OK);
    TEST_COND("STORE_TURN_BEGUN keeps the lease and the row begun",
              q_int(store_path(st), sql) == 1 &&
                  store_turn_progress(st, id, "more", IDS, 2, &err) == RWKV_OK);
    TEST_COND("lease ended", store_turn_lease(st, id, 0, &err) == RWKV_OK &&
                                 q_int(store_path(st), sql) == 0);
    TEST_COND("lease taken again", store_turn_lease(st, id, 1, &err) == RWKV_OK &&
                                       q_int(store_path(st), sql) == 1);
    t.interrupted = 1;                 /* cut: ended */
    TEST_COND("finish, cut", store_turn_finish(st, &t, NULL, 0, NULL, &err) == RWKV_OK);
    TEST_COND("a cut reply's lease ends", q_int(store_path(st), sql) == 0);
    /* a cut row is still marked interrupted: its lease may be taken again
    ** (a continuation does); a whole one's may not */
    TEST_COND("a cut row's lease taken again", store_turn_lease(st, id, 1, &err) == RWKV_OK &&
                                                   q_int(store_path(st), sql) == 1);
    t.interrupted = 0;
    TEST_COND("finish, whole", store_turn_finish(st, &t, NULL, 0, NULL, &err) == RWKV_OK &&
                                   q_int(store_path(st), sql) == 0);
    TEST_COND("no lease for a whole row", store_turn_lease(st, id, 1, &err) == RWKV_OK &&
                                              q_int(store_path(st), sql) == 0);
}

/* Reply ID's lease written as a writer on another machine, LEASE_MS. */
static int
other_machine(const char *db, int64_t id, const char *value)
{
    char sql[320];

    snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO settings(key, value) VALUES "
             "('reply_writer/%lld', '%s')", (long long)id, value);
    return q_exec(db, sql) == SQLITE_OK;
}

static void
test_other_machine(store *st, int64_t sid, int64_t user)
{
    const char *db = store_path(st);
    int64_t id = begin(st, sid, user), now;
    struct timespec ts;
    char v[200];

    clock_gettime(CLOCK_REALTIME, &ts);
    now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    snprintf(v, sizeof v, "elsewhere/1 4242 99 %lld", (long long)(now - 1000));
    TEST_COND("another machine, a fresh lease: alive",
              id > 0 && other_machine(db, id, v) && writing(st, id) == 1);
    snprintf(v, sizeof v, "elsewhere/1 4242 99 %lld",
             (long long)(now - STORE_WRITER_STALE_MS - 1000));
    TEST_COND("another machine, a stale lease: dead", other_machine(db, id, v) && writing(st, id) == 0);
    TEST_COND("a damaged lease is no writer", other_machine(db, id, "x") && writing(st, id) == 0);
    /* the next begin sweeps leases of rows no longer begun */
    snprintf(v, sizeof v, "elsewhere/1 4242 99 %lld", (long long)now);
    TEST_COND("a lease of a row gone", other_machine(db, 999999, v));
    TEST_COND("swept by the next begin",
              begin(st, sid, user) > 0 &&
                  q_int(db, "SELECT count(*) FROM settings WHERE key='reply_writer/999999'") == 0);
}

int
main(void)
{
    const char *dir = test_tmpdir("lease");
    char db[600];
    store *st = NULL;
    rwkv_err err;
    int64_t sid, user = 0;

    if (dir == NULL)
        return 1;
    snprintf(db, sizeof db, "%s/s.db", dir);
    TEST_COND("open", store_open(db, &st, &err) == RWKV_OK);
    if (st == NULL)
        return TEST_REPORT();
    sid = setup(st, &user);
    TEST_COND("setup", sid > 0);
    if (sid > 0) {
        test_processes(db, st, sid, user);
        test_own_and_finish(st, sid, user);
        test_other_machine(st, sid, user);
    }
    store_close(st);
    test_tmpdir_remove();
    return TEST_REPORT();
}
