/*
** store_file.c -- the database file under a running store (store.h,
** store_check_file): is the file at the store's path still the one it
** opened?
**
** What SQLite does when the file goes away under an open connection (tried
** on real files, tests/unit/test_store_file.c): nothing it reports at once.
** Deleted or renamed over (rm, mv, an editor's or cp --remove-destination's
** new file): the connection keeps the old inode open and every write
** "succeeds" into a file nobody will open again.  Truncated (: > db) or
** overwritten in place (cp other.db db): while the pages it needs are in
** its WAL, writes succeed too; once it must read a page back from the file
** they fail with "file is not a database" or read the other file's rows.
** And closing the connection checkpoints its WAL into whatever the path
** holds now (a truncated file gets this connection's pages back, half a
** database; another file gets them written over its own), while the WAL
** left beside a deleted or renamed-over file would be replayed onto the
** next file made at that path.
**
** So: the device and inode are taken at open; store_check_file compares
** them with what the path holds now, and reads the size and the header's
** magic (through SQLite's own handle: nothing here opens the file); a
** store found lost is closed without a checkpoint and its WAL and shared-
** memory files are removed, leaving the path as the user made it.
*/
#include "store_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first 16 bytes of every SQLite database file. */
static const char sqlite_magic[16] = "SQLite format 3";

void
store_file_opened(store *s)
{
    struct stat sb;

    if (stat(s->path, &sb) == 0) {
        s->dev = (uint64_t)sb.st_dev;
        s->ino = (uint64_t)sb.st_ino;
    }
}

/*
** Whether the file SQLite has open starts with the SQLite magic: 1, 0 (it
** does not, or is shorter), -1 when it cannot be read (not a verdict).
** Read through SQLite's own handle: opening and closing another descriptor
** of the file would drop the process's POSIX locks on it, SQLite's included
** (another process could then take the WAL away from under this one).
*/
static int
has_magic(store *s)
{
    sqlite3_file *f = NULL;
    char buf[sizeof sqlite_magic];
    int rc;

    if (sqlite3_file_control(s->db, "main", SQLITE_FCNTL_FILE_POINTER, &f) != SQLITE_OK ||
        f == NULL || f->pMethods == NULL)
        return -1;
    memset(buf, 0, sizeof buf);
    rc = f->pMethods->xRead(f, buf, (int)sizeof buf, 0);
    if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ)
        return -1;
    return memcmp(buf, sqlite_magic, sizeof buf) == 0;
}

/* What happened to the file, NULL when it is still the one opened.  Only
** certain findings count: a stat or read that fails for another reason
** than a missing file says nothing. */
static const char *
what_happened(store *s)
{
    struct stat sb;

    if (stat(s->path, &sb) != 0)
        return errno == ENOENT ? "deleted" : NULL;
    if (s->ino == 0)
        return NULL;
    if ((uint64_t)sb.st_dev != s->dev || (uint64_t)sb.st_ino != s->ino)
        return "replaced by another file";
    if (sb.st_size == 0)
        return "truncated";
    if (has_magic(s) == 0)
        return "overwritten (it is no longer a database)";
    return NULL;
}

int
store_check_file(store *s, rwkv_err *err)
{
    const char *what = what_happened(s);

    if (what == NULL)
        return RWKV_OK;
    s->lost = 1;
    return rwkv_errf(err, RWKV_EDB, "%s: while in use, the session database was %s", s->path,
                     what);
}

int
store_is_lost(const store *s)
{
    return s->lost;
}

/* Remove the file PATH + SUFFIX, if there. */
static void
unlink_beside(const char *path, const char *suffix)
{
    char buf[STORE_PATH_MAX + 8];

    if (snprintf(buf, sizeof buf, "%s%s", path, suffix) < (int)sizeof buf)
        unlink(buf);
}

void
store_file_close(store *s)
{
    if (s->ino == 0) {                /* not opened to the end: not ours to judge */
        sqlite3_close_v2(s->db);
        return;
    }
    if (!s->lost && what_happened(s) != NULL)
        s->lost = 1;
    if (!s->lost) {
        sqlite3_close_v2(s->db);
        return;
    }
    sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)NULL);
    sqlite3_close_v2(s->db);
    unlink_beside(s->path, "-wal");
    unlink_beside(s->path, "-shm");
}

int
store_export_target_check(store *s, const char *path, rwkv_err *err)
{
    static const char *const part[] = { "", "-wal", "-shm", "-journal" };
    struct stat t, o;
    char magic[sizeof sqlite_magic];
    FILE *f;
    size_t got;

    if (stat(path, &t) != 0 || !S_ISREG(t.st_mode))
        return RWKV_OK;             /* a new file, or fopen will say what is wrong */
    /* by device and inode only: opening a file of the open database would
    ** drop this process's locks on it (has_magic) */
    for (size_t i = 0; i < sizeof part / sizeof part[0]; i++) {
        char *p = NULL;
        size_t n = strlen(s->path) + strlen(part[i]) + 1;
        int same;
        if ((p = malloc(n)) == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
        snprintf(p, n, "%s%s", s->path, part[i]);
        same = stat(p, &o) == 0 && o.st_dev == t.st_dev && o.st_ino == t.st_ino;
        free(p);
        if (same)
            return rwkv_errf(err, RWKV_EINVAL, "%s is the session database%s%s%s: not written over",
                             path, i ? "'s " : "", part[i], i ? " file" : "");
    }
    if ((f = fopen(path, "rb")) == NULL)
        return RWKV_OK;
    got = fread(magic, 1, sizeof magic, f);
    fclose(f);
    if (got == sizeof magic && memcmp(magic, sqlite_magic, sizeof magic) == 0)
        return rwkv_errf(err, RWKV_EINVAL, "%s is an SQLite database: not written over", path);
    return RWKV_OK;
}
