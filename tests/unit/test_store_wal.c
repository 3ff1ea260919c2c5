/*
** test_store_wal.c -- the -wal and -shm files of the session database
** deleted under an open store (storage/store_file.c) and under a running
** chat (the session runtime), on real SQLite files in a temp dir.
**
** SQLite keeps writing into a -wal deleted under it; what it holds since the
** last checkpoint dies with the process.  Checked here by killing (SIGKILL)
** a child that wrote turns after the deletion, then opening the file afresh:
** every turn must be there.  Before store_file.c looked after the WAL, none
** of them was (the file had never been checkpointed: not even its tables).
** Also: the runtime says so once, in one line, and makes a fresh -wal when
** no other connection has the file open (else every commit is checkpointed);
** a -shm deleted is mended the same way; a -wal deleted and written anew by
** another program stops the saving (as a file taken away does) and leaves
** that program's files alone; the autocheckpoint the store's WAL hook took
** over from SQLite still runs.
**
** The children are forked before they open anything (an SQLite connection
** must not cross a fork); "another program" is this binary run again
** (test_store_wal --other DB SQL).  Model: the in-memory demo model.
*/
#include "../harness.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

static const char *self;               /* argv[0]: "another program" */

/* A user turn TEXT under PARENT in session SID: its id, or 0. */
static int64_t
user_turn(store *st, int64_t sid, int64_t parent, const char *text)
{
    rwkv_err err;
    int64_t id = add_turn(st, sid, parent, STORE_ROLE_USER, text, NULL, 0, NULL, 0, NULL, &err);

    if (id == 0)
        printf("     turn '%s': %s\n", text, err.msg);
    return id;
}

/* DB + SUFFIX into BUF (700 bytes). */
static const char *
beside(char *buf, const char *db, const char *suffix)
{
    snprintf(buf, 700, "%s%s", db, suffix);
    return buf;
}

/* Whether DB + SUFFIX is there. */
static int
there(const char *db, const char *suffix)
{
    char p[700];
    return access(beside(p, db, suffix), F_OK) == 0;
}

/* Remove DB + SUFFIX: 0 when it was there. */
static int
rm_beside(const char *db, const char *suffix)
{
    char p[700];
    return unlink(beside(p, db, suffix));
}

/* The inode of DB + SUFFIX, 0 when none. */
static uint64_t
inode(const char *db, const char *suffix)
{
    char p[700];
    struct stat sb;
    return stat(beside(p, db, suffix), &sb) == 0 ? (uint64_t)sb.st_ino : 0;
}

/* Wait for child PID: 1 when it was killed by SIGKILL (as it meant to be). */
static int
killed(pid_t pid)
{
    int st = 0;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
}

/* Child: DB opened, session "mine" with 3 turns, SUFFIX ("-wal", "-shm")
** deleted, 3 more turns; then a second connection when TWO (a front end's
** browsing one: no fresh WAL while it is open) writes a title, and CHECK
** runs store_check_file; then SIGKILL without closing anything.  Exit 3 on
** a failure before. */
static void
child_writes(const char *db, const char *suffix, int check, int two)
{
    char note[600];
    store *st, *ui = NULL;
    rwkv_err err;
    int64_t sid, t = 0;

    if (store_open(db, &st, &err) != RWKV_OK || (two && store_open(db, &ui, &err) != RWKV_OK))
        _exit(3);
    sid = new_session(st, "mine");
    for (int i = 0; i < 3; i++)
        if ((t = user_turn(st, sid, t, "before")) == 0)
            _exit(3);
    if (rm_beside(db, suffix) != 0)
        _exit(3);
    for (int i = 0; i < 3; i++) {
        if ((t = user_turn(st, sid, t, "after")) == 0)
            _exit(3);
        if (check && (store_check_file(st, &err) != RWKV_OK ||
                      store_file_note(st, note, sizeof note) != (i == 0)))
            _exit(4);
    }
    if (ui != NULL && store_session_rename(ui, sid, "renamed", &err) != RWKV_OK)
        _exit(3);
    raise(SIGKILL);
}

/* A child killed after writing with SUFFIX deleted: every turn is in DB. */
static void
killed_after_delete(const char *name, const char *suffix, int check, int two)
{
    char db[600];
    pid_t pid;

    test_tmp_path(db, sizeof db, name);
    if ((pid = fork()) == 0)
        child_writes(db, suffix, check, two);
    TEST_CONDF(killed(pid), "%s: the child wrote, then was killed", name);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns WHERE text='before'") == 3 &&
                   q_int(db, "SELECT count(*) FROM turns WHERE text='after'") == 3,
               "%s: %s deleted, then a kill: every turn is in the file (%lld of 6)", name, suffix,
               (long long)q_int(db, "SELECT count(*) FROM turns"));
    if (two)
        TEST_CONDF(q_int(db, "SELECT count(*) FROM sessions WHERE title='renamed'") == 1,
                   "%s: the second connection's write too", name);
    TEST_CONDF(q_integrity_ok(db), "%s: integrity_check ok", name);
}

/* Only the WAL hook looks (no store_check_file: a front end's browsing
** connection, `sessions` commands): the commits after the deletion are
** checkpointed; with store_check_file, a fresh -wal is made at once. */
static void
test_kill(void)
{
    killed_after_delete("hook.db", "-wal", 0, 0);
    killed_after_delete("checked.db", "-wal", 1, 0);
    killed_after_delete("shm.db", "-shm", 1, 0);
    killed_after_delete("two.db", "-wal", 1, 1);
}

/* The store itself: the note once, the fresh files, a clean close. */
static void
test_store(void)
{
    char db[600], note[600];
    store *st, *ui;
    rwkv_err err;
    int64_t sid, t;
    uint64_t old;

    test_tmp_path(db, sizeof db, "store.db");
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open: %s", err.msg);
        return;
    }
    sid = new_session(st, "mine");
    t = user_turn(st, sid, 0, "one");
    old = inode(db, "-wal");
    TEST_COND("the -wal and -shm are there while open", old != 0 && there(db, "-shm"));
    TEST_COND("nothing to say yet", store_check_file(st, &err) == RWKV_OK &&
                                        store_file_note(st, note, sizeof note) == 0);
    TEST_COND("rm -wal", rm_beside(db, "-wal") == 0);
    t = user_turn(st, sid, t, "two");
    TEST_CONDF(store_check_file(st, &err) == RWKV_OK && !store_is_lost(st),
               "a deleted -wal is not a lost file (%s)", err.msg);
    TEST_CONDF(store_file_note(st, note, sizeof note) == 1 && strstr(note, db) == note &&
                   strstr(note, "its -wal file was deleted while in use: nothing is lost") &&
                   strstr(note, "saving goes on") && strchr(note, '\n') == NULL,
               "one line says so: '%s'", note);
    TEST_COND("said once", store_file_note(st, note, sizeof note) == 0 &&
                               store_check_file(st, &err) == RWKV_OK &&
                               store_file_note(st, note, sizeof note) == 0);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns") == 2,
               "another connection sees both turns (%lld)",
               (long long)q_int(db, "SELECT count(*) FROM turns"));
    TEST_COND("a fresh -wal and -shm at the path", there(db, "-wal") && there(db, "-shm"));
    t = user_turn(st, sid, t, "three");
    TEST_CONDF(inode(db, "-wal") != 0 && q_int(db, "SELECT count(*) FROM turns") == 3,
               "written there (the deleted one was inode %llu, this %llu)",
               (unsigned long long)old, (unsigned long long)inode(db, "-wal"));
    TEST_COND("written there: still fine", store_check_file(st, &err) == RWKV_OK &&
                                               store_file_note(st, note, sizeof note) == 0);

    /* a second connection open: no fresh WAL until it closes */
    if (store_open(db, &ui, &err) != RWKV_OK) {
        TEST_CONDF(0, "second connection: %s", err.msg);
        store_close(st);
        return;
    }
    TEST_COND("rm -wal again", rm_beside(db, "-wal") == 0);
    t = user_turn(st, sid, t, "four");
    TEST_COND("mended with another connection open", store_check_file(st, &err) == RWKV_OK &&
                                                          store_file_note(st, note, sizeof note) == 1);
    TEST_COND("no fresh -wal while it is open", !there(db, "-wal"));
    TEST_COND("its writes go on", store_session_rename(ui, sid, "renamed", &err) == RWKV_OK &&
                                      user_turn(st, sid, t, "five") > 0);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns") == 5 &&
                   q_int(db, "SELECT count(*) FROM sessions WHERE title='renamed'") == 1,
               "a new reader sees every write (%lld turns)",
               (long long)q_int(db, "SELECT count(*) FROM turns"));
    store_close(ui);
    TEST_COND("once it closed: a fresh -wal", store_check_file(st, &err) == RWKV_OK &&
                                                  there(db, "-wal") &&
                                                  store_file_note(st, note, sizeof note) == 0);
    store_close(st);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns") == 5 && q_integrity_ok(db) &&
                   !there(db, "-wal") && !there(db, "-shm"),
               "closed: all there, no -wal or -shm left (%lld turns)",
               (long long)q_int(db, "SELECT count(*) FROM turns"));
}

/* Another program writes after the -wal was deleted: it made a -wal of its
** own, which this connection cannot see.  The store stops (lost), says
** which file, and leaves that program's files alone. */
static void
test_foreign(void)
{
    char db[600];
    store *st;
    rwkv_err err;
    int64_t sid;
    pid_t pid;
    int status = -1;

    test_tmp_path(db, sizeof db, "foreign.db");
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open: %s", err.msg);
        return;
    }
    sid = new_session(st, "mine");
    TEST_COND("a turn", user_turn(st, sid, 0, "one") > 0);
    TEST_COND("checkpoint", q_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)") == 0);
    TEST_COND("rm -wal", rm_beside(db, "-wal") == 0);
    if ((pid = fork()) == 0) {
        execl(self, self, "--other", db, "UPDATE sessions SET title='theirs'", (char *)NULL);
        _exit(5);
    }
    TEST_COND("another program wrote", pid > 0 && waitpid(pid, &status, 0) == pid &&
                                           WIFEXITED(status) && WEXITSTATUS(status) == 0);
    TEST_COND("its -wal is at the path", there(db, "-wal"));
    TEST_CONDF(store_check_file(st, &err) == RWKV_EDB && store_is_lost(st) &&
                   strstr(err.msg, db) == err.msg &&
                   strstr(err.msg, "its -wal file was deleted or replaced and another program has "
                                   "written to the database since") &&
                   strchr(err.msg, '\n') == NULL,
               "said as a lost file: '%s'", err.msg);
    store_close(st);
    TEST_COND("its -wal is left where it is", there(db, "-wal"));
}

/* The autocheckpoint the WAL hook took over: past 256 frames (64 KB pages)
** the WAL is copied into the file, so the main file grows as turns come. */
static void
test_autocheckpoint(void)
{
    static float state[20000];
    static const store_state_meta meta = { 7, "7.0", 2, 64, 1, 64, STORE_PREC_FP32, 0, 0 };
    store_retention keep = { 1000, 1 };
    char db[600];
    store *st;
    rwkv_err err;
    int64_t sid, t = 1;
    long before;

    test_tmp_path(db, sizeof db, "auto.db");
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open: %s", err.msg);
        return;
    }
    store_set_retention(st, &keep);
    sid = new_session(st, "big");
    before = file_size(db);
    /* 80 KB a state, 2 pages, every one kept: 150 turns are 300+ frames
    ** (each state its own: identical ones are stored once) */
    for (int i = 0; i < 150 && t > 0 && (state[0] = (float)i, 1); i++)
        t = add_turn(st, sid, i ? t : 0, STORE_ROLE_USER, "x", NULL, 0, state, 20000, &meta, &err);
    TEST_CONDF(t > 0 && file_size(db) > before + 8 * 1024 * 1024,
               "checkpointed on the way: %ld -> %ld bytes (%s)", before, file_size(db),
               t > 0 ? "" : err.msg);
    store_close(st);
}

/* The runtime: one line, once, through the note callback; the chat and its
** saving go on; a child killed after it keeps every message. */
static void
test_chat(void)
{
    char db[600], notes[700];
    pid_t pid;
    FILE *f;
    size_t n;

    test_tmp_path(db, sizeof db, "chat.db");
    test_tmp_path(notes, sizeof notes, "chat.notes");
    if ((pid = fork()) == 0) {
        rwkv_model *m = NULL;
        tok *t = NULL;
        sess_config sc;
        sess *s;
        if (sess_test_demo(NULL, &m, &t) != 0)
            _exit(3);
        sess_test_config(&sc, m, t, db, 3, 6);
        if ((s = sess_test_create(&sc)) == NULL || say(s, "hello") != 0 ||
            rm_beside(db, "-wal") != 0)
            _exit(3);
        all_notes[0] = '\0';
        if (say(s, "again") != 0 || say(s, "third") != 0)
            _exit(3);
        if ((f = fopen(notes, "w")) == NULL)
            _exit(3);
        fputs(all_notes, f);
        fclose(f);
        raise(SIGKILL);
    }
    TEST_COND("the chat ran, then was killed", killed(pid));
    {
        size_t len = 0;
        char *txt = (char *)test_slurp(notes, &len);
        if (txt != NULL)
            txt[len] = '\0';           /* test_slurp leaves a spare byte */
        const char *want = "its -wal file was deleted while in use: nothing is lost";
        n = 0;
        for (const char *p = txt; p != NULL && (p = strstr(p, want)) != NULL; p++)
            n++;
        TEST_CONDF(n == 1 && txt != NULL && strstr(txt, db) == txt, "one line, once: '%s'",
                   txt != NULL ? txt : "(none)");
        free(txt);
    }
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns WHERE role=1") == 3 &&
                   q_int(db, "SELECT count(*) FROM turns WHERE role=2 AND interrupted=0") == 3 &&
                   q_integrity_ok(db),
               "every message and reply is in the file (%lld turns)",
               (long long)q_int(db, "SELECT count(*) FROM turns"));
}

int
main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--other") == 0)
        return q_exec(argv[2], argv[3]) == 0 ? 0 : 1;
    self = argv[0];
    if (test_tmpdir("rwkv-test-store-wal") == NULL)
        return 1;
    test_kill();
    test_store();
    test_foreign();
    test_autocheckpoint();
    test_chat();
    test_tmpdir_remove();
    return TEST_REPORT();
}
