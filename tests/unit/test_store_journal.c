/*
** test_store_journal.c -- the journal mode SQLite gives the session database
** (store.c, store_open / journal_check), on real files in a temp dir.
**
** store_open asks for WAL (PRAGMA journal_mode=WAL) but took any answer.
** SQLite answers with the mode it is in afterwards: "wal", or, where WAL
** cannot be used, the one it kept -- "delete" (a rollback journal) on a VFS
** without the shared memory WAL's index needs (some network and lock-less
** file systems; here SQLite's own "unix-none" VFS made the default), or
** "memory" for a database that is not a file at all (--db :memory:, which
** SQLite takes as "in memory").  The in-memory one was opened as if all
** were well: every turn "saved" went with the process -- a crash, or just
** quitting, lost the lot, with no word.
**
** Now: "wal" as before; a rollback journal goes on (with synchronous=FULL a
** commit is in the file when it returns, and a crash mid-write is rolled
** back: the promise holds), and one note, once, says WAL is not in use --
** store_file_note, which the session runtime says at its first save; any
** other mode is refused with one line naming the file and the mode.
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>
#include <unistd.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

/* A file: WAL, and nothing to say. */
static void
wal(void)
{
    char db[600], note[512] = "";
    store *st = NULL;
    rwkv_err err = { 0 };

    test_tmp_path(db, sizeof db, "wal.db");
    TEST_CONDF(store_open(db, &st, &err) == RWKV_OK, "wal: opened (%s)",
               st ? "" : err.msg);
    if (st == NULL)
        return;
    TEST_COND("wal: in WAL mode", journal_is(db, "wal"));
    TEST_COND("wal: no note", store_file_note(st, note, sizeof note) == 0);
    store_close(st);
}

/* --db :memory: (relative to the working directory: the temp dir). */
static void
memory(void)
{
    store *st = NULL;
    rwkv_err err = { 0 };
    int rc;

    rc = store_open(":memory:", &st, &err);
    TEST_CONDF(rc == RWKV_EDB && st == NULL, "memory: refused (rc %d)", rc);
    TEST_CONDF(rc != RWKV_OK && strncmp(err.msg, ":memory:: ", 10) == 0 &&
                   strstr(err.msg, "journal mode 'memory'") && strstr(err.msg, "--no-db") &&
                   strchr(err.msg, '\n') == NULL,
               "memory: one line naming the file and the mode: %s", rc != RWKV_OK ? err.msg : "");
    TEST_CONDF(access(":memory:", F_OK) != 0, "memory: no file named ':memory:' left behind");
    store_close(st);
}

/* The default VFS without shared memory: a rollback journal. */
static void
rollback(rwkv_model *m, const tok *t)
{
    char db[600], note[512] = "";
    store *st = NULL;
    sess_config sc;
    sess *s;
    rwkv_err err = { 0 };
    int64_t sid;

    test_tmp_path(db, sizeof db, "rollback.db");
    TEST_CONDF(store_open(db, &st, &err) == RWKV_OK, "rollback: opened (%s)", st ? "" : err.msg);
    if (st == NULL)
        return;
    TEST_COND("rollback: in a rollback journal", journal_is(db, "delete"));
    TEST_CONDF(store_file_note(st, note, sizeof note) == 1 && strstr(note, db) == note &&
                   strstr(note, "journal mode 'delete'") &&
                   strstr(note, "a crash still loses nothing saved"),
               "rollback: a note naming the file and the mode: '%s'", note);
    TEST_COND("rollback: said once", store_file_note(st, note, sizeof note) == 0);
    sid = new_session(st, "kept");
    store_close(st);
    TEST_CONDF(sid != 0 && q_int(db, "SELECT count(*) FROM sessions WHERE title='kept'") == 1,
               "rollback: a write is in the file");

    /* the session runtime says it at its first save, once */
    test_tmp_path(db, sizeof db, "rollback-sess.db");
    sess_test_config(&sc, m, t, db, 7, 4);
    if ((s = sess_test_create(&sc)) == NULL)
        return;
    all_notes[0] = '\0';
    TEST_COND("rollback: two messages", say(s, "one") == 0 && say(s, "two") == 0);
    TEST_CONDF(strstr(all_notes, "cannot use WAL mode") != NULL &&
                   strstr(strstr(all_notes, "cannot use WAL mode") + 1, "cannot use WAL mode") ==
                       NULL,
               "rollback: the runtime says it once: '%s'", all_notes);
    sess_destroy(s);
    TEST_COND("rollback: the exchanges are in the file",
              q_int(db, "SELECT count(*) FROM turns WHERE role=2") == 2);
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;
    sqlite3_vfs *none;

    if (test_tmpdir("rwkv-test-store-journal") == NULL || chdir(test_tmp_dir()) != 0)
        return 1;
    wal();
    memory();
    if ((none = sqlite3_vfs_find("unix-none")) == NULL) {
        TEST_SKIP(9, "SQLite has no unix-none VFS here");
    } else if (sess_test_demo(NULL, &m, &t) == 0) {
        sqlite3_vfs_register(none, 1);     /* the default from here on */
        rollback(m, t);
        sqlite3_vfs_register(sqlite3_vfs_find("unix"), 1);
    }
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
