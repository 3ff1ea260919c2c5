/*
** test_store_wal_renew.c -- a fresh WAL that cannot be made says so, as an
** open without WAL does (storage/store_file.c, wal_renew ->
** store_journal_fallback), on real files in a temp dir.
**
** When the -wal file of an open store is deleted, store_check_file copies
** the open WAL into the database and makes a fresh one: journal_mode DELETE,
** then WAL again.  Should WAL not come back (another connection took the
** write lock in between; shared memory that cannot be made), SQLite keeps
** the rollback journal -- safe, but a save then waits while another window
** reads.  store_open says so in one note when SQLite refuses WAL at open;
** wal_renew said nothing.  Now the same note, from one place, once.
**
** The refusal: a VFS of this test wrapping "unix" whose main-database files
** lose their shared-memory method once the open WAL's is let go (the switch
** to DELETE), so SQLite finds WAL unsupported for the switch back -- as for
** a file system without shared memory.
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>
#include <unistd.h>

#include "../../storage/store.h"
#include "store_test.h"

/* ---- the VFS: "unix", its main-database files losing xShmMap when armed ---- */

static sqlite3_vfs        shim_vfs;
static const sqlite3_vfs *unix_vfs;
static const sqlite3_io_methods *unix_io;  /* the main-database files' methods */
static sqlite3_io_methods io_hooked;       /* unix_io with shim_unmap */
static sqlite3_io_methods io_noshm;        /* unix_io without xShmMap */
static int                armed;

static int
shim_unmap(sqlite3_file *f, int del)
{
    int rc = unix_io->xShmUnmap(f, del);

    if (armed) {
        armed = 0;
        f->pMethods = &io_noshm;           /* no shared memory from here on */
    }
    return rc;
}

static int
shim_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *f, int flags, int *out)
{
    int rc = unix_vfs->xOpen((sqlite3_vfs *)unix_vfs, name, f, flags, out);

    (void)vfs;
    if (rc == SQLITE_OK && (flags & SQLITE_OPEN_MAIN_DB) && f->pMethods != NULL) {
        if (unix_io == NULL) {
            unix_io = f->pMethods;
            io_hooked = *unix_io;
            io_hooked.xShmUnmap = shim_unmap;
            io_noshm = *unix_io;
            io_noshm.xShmMap = NULL;
        }
        if (f->pMethods == unix_io)
            f->pMethods = &io_hooked;
    }
    return rc;
}

static int
shim_register(void)
{
    if ((unix_vfs = sqlite3_vfs_find("unix")) == NULL)
        return -1;
    shim_vfs = *unix_vfs;
    shim_vfs.zName = "test-noshm-later";
    shim_vfs.pNext = NULL;
    shim_vfs.xOpen = shim_open;
    return sqlite3_vfs_register(&shim_vfs, 0) == SQLITE_OK ? 0 : -1;
}

/* Every pending note of ST, joined with " | " into BUF. */
static int
notes(store *st, char *buf, size_t cap)
{
    char line[1024];
    int n = 0;

    buf[0] = '\0';
    while (store_file_note(st, line, sizeof line) == 1 && n < 8) {
        size_t l = strlen(buf);
        snprintf(buf + l, cap - l, "%s%s", n ? " | " : "", line);
        n++;
    }
    return n;
}

static int
count_of(const char *hay, const char *needle)
{
    int n = 0;

    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* The -wal deleted under a store, a fresh one made: WAL = 1 when it comes
** back (the plain VFS), 0 when it does not (the shim, armed). */
static void
renew(int wal)
{
    char db[600], wal_path[700], said[4096];
    const char *name = wal ? "renewed" : "fallback";
    store *st = NULL;
    rwkv_err err;
    int64_t sid;
    int n;

    test_tmp_path(db, sizeof db, wal ? "renewed.db" : "fallback.db");
    snprintf(wal_path, sizeof wal_path, "%s-wal", db);
    if (!wal)
        sqlite3_vfs_register(&shim_vfs, 1);         /* the store's connection uses it */
    n = store_open(db, &st, &err);
    if (!wal)
        sqlite3_vfs_register(sqlite3_vfs_find("unix"), 1);
    TEST_CONDF(n == RWKV_OK, "%s: opened (%s)", name, st ? "" : err.msg);
    if (st == NULL)
        return;
    TEST_CONDF(journal_is(db, "wal") && notes(st, said, sizeof said) == 0,
               "%s: WAL, nothing to say at open", name);
    sid = new_session(st, "before");
    TEST_CONDF(sid != 0 && unlink(wal_path) == 0, "%s: a session, the -wal deleted", name);

    armed = !wal;
    TEST_CONDF(store_check_file(st, &err) == RWKV_OK, "%s: the file is fine (%s)", name,
               err.msg);
    armed = 0;
    n = notes(st, said, sizeof said);
    TEST_INFO("%s: said: %s", name, said);
    TEST_CONDF(count_of(said, "was deleted while in use") == 1, "%s: the -wal note, once: '%s'",
               name, said);
    if (wal) {
        TEST_CONDF(n == 1 && journal_is(db, "wal"), "%s: WAL again, no other note (%d)", name,
                   n);
    } else {
        TEST_CONDF(n == 2 && count_of(said, "SQLite cannot use WAL mode for this file (journal "
                                            "mode 'delete')") == 1 &&
                       strstr(said, db) != NULL &&
                       strstr(said, "a crash still loses nothing saved") != NULL,
                   "%s: the journal note of the open, naming the file and the mode, once (%d "
                   "notes)", name, n);
        TEST_COND("fallback: the file in rollback-journal mode", journal_is(db, "delete"));
        TEST_COND("fallback: said once", notes(st, said, sizeof said) == 0);
    }
    /* saving goes on, every commit in the file */
    TEST_CONDF(new_session(st, "after") != 0 &&
                   q_int(db, "SELECT count(*) FROM sessions WHERE title IN ('before','after')") ==
                       2,
               "%s: saving goes on, both sessions in the file", name);
    TEST_CONDF(store_check_file(st, &err) == RWKV_OK && notes(st, said, sizeof said) == 0,
               "%s: nothing more to say (%s)", name, said);
    store_close(st);
    TEST_CONDF(q_integrity_ok(db) &&
                   q_int(db, "SELECT count(*) FROM sessions WHERE title IN ('before','after')") ==
                       2,
               "%s: intact after close", name);
}

int
main(void)
{
    if (test_tmpdir("rwkv-test-store-wal-renew") == NULL)
        return 1;
    if (shim_register() != 0) {
        TEST_COND("test VFS registered", 0);
        return TEST_REPORT();
    }
    renew(1);
    renew(0);
    sqlite3_vfs_unregister(&shim_vfs);
    test_tmpdir_remove();
    return TEST_REPORT();
}
