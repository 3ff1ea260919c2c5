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
**
** The -wal and -shm files beside it (tried the same way): deleted under an
** open connection, the -wal goes on taking every commit, unlinked -- what
** it holds since the last checkpoint dies with the process (a crash, a
** kill), and a program that opens the database meanwhile makes a new empty
** -wal and reads the file without those commits.  A checkpoint still
** copies them from the open, unlinked WAL into the database.  So their
** device and inode are taken at open too, and after every commit (the WAL
** hook) and in store_check_file:
**
**      OK --a file missing, or a new empty -wal (a reader's)--> GONE
**         the open WAL is checkpointed after every commit (wal_copy);
**         store_check_file makes a fresh WAL (wal_renew: journal_mode
**         DELETE, which SQLite grants only when no other connection has the
**         file open, then WAL) -> OK; one note for the user (store_file_note)
**      OK, GONE --a non-empty -wal not SQLite's, or a new -shm beside the
**         open -wal--> FOREIGN (final): another program wrote through files
**         this connection cannot see, and its pages and this connection's
**         would be mixed: the store is lost (store_check_file), closed
**         without a checkpoint, those files left alone.
**
** What no check can undo: another program that writes between the
** deletion and the next look.  Its pages go to a -wal this connection cannot
** see, indexed in the -shm both share, and this connection's pages since
** the last checkpoint can no longer be copied safely (SQLite's "how to
** corrupt" hazard: never delete the -wal or -shm of a database in use).
** The WAL hook's autocheckpoint (every 256 frames) bounds what is at stake.
*/
#include "store_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/io/fileio.h"

/* The first 16 bytes of every SQLite database file. */
static const char sqlite_magic[16] = "SQLite format 3";

/* PATH + SUFFIX into BUF (STORE_PATH_MAX + 8 bytes): 0, -1 when too long. */
static int
path_beside(const char *path, const char *suffix, char *buf)
{
    return snprintf(buf, STORE_PATH_MAX + 8, "%s%s", path, suffix) < STORE_PATH_MAX + 8 ? 0 : -1;
}

/* The device and inode of the file PATH + SUFFIX into *DEV, *INO (0: none). */
static void
stat_beside(const char *path, const char *suffix, uint64_t *dev, uint64_t *ino)
{
    char p[STORE_PATH_MAX + 8];
    struct stat sb;

    *dev = *ino = 0;
    if (path_beside(path, suffix, p) == 0 && stat(p, &sb) == 0) {
        *dev = (uint64_t)sb.st_dev;
        *ino = (uint64_t)sb.st_ino;
    }
}

/* The -wal and -shm files at the path are SQLite's (just opened). */
static void
wal_opened(store *s)
{
    stat_beside(s->path, "-wal", &s->wal_dev, &s->wal_ino);
    stat_beside(s->path, "-shm", &s->shm_dev, &s->shm_ino);
    s->wal_state = STORE_WAL_OK;
}

void
store_file_opened(store *s)
{
    stat_beside(s->path, "", &s->dev, &s->ino);
    wal_opened(s);
}

/* What the path + SUFFIX holds against the file SQLite opened (DEV, INO). */
enum beside { BESIDE_OURS, BESIDE_GONE, BESIDE_NEW_EMPTY, BESIDE_OTHER };

static enum beside
beside(const store *s, const char *suffix, uint64_t dev, uint64_t ino)
{
    char p[STORE_PATH_MAX + 8];
    struct stat sb;

    if (ino == 0 || path_beside(s->path, suffix, p) != 0)
        return BESIDE_OURS;             /* not known: no verdict */
    if (stat(p, &sb) != 0)
        return errno == ENOENT ? BESIDE_GONE : BESIDE_OURS;
    if ((uint64_t)sb.st_dev == dev && (uint64_t)sb.st_ino == ino)
        return BESIDE_OURS;
    return sb.st_size == 0 ? BESIDE_NEW_EMPTY : BESIDE_OTHER;
}

/* Look at the files beside the database: wal_state moves as the diagram at
** the top says (FOREIGN stays), wal_what names the file, a note is due on
** the way to GONE. */
static void
wal_notice(store *s)
{
    enum beside w, m;
    int st;

    if (s->wal_state == STORE_WAL_FOREIGN)
        return;
    w = beside(s, "-wal", s->wal_dev, s->wal_ino);
    m = beside(s, "-shm", s->shm_dev, s->shm_ino);
    if (w == BESIDE_OTHER || (w == BESIDE_OURS && (m == BESIDE_OTHER || m == BESIDE_NEW_EMPTY)))
        st = STORE_WAL_FOREIGN;
    else if (w != BESIDE_OURS || m != BESIDE_OURS)
        st = STORE_WAL_GONE;
    else
        return;
    if (s->wal_state == STORE_WAL_OK) {
        s->wal_what = w != BESIDE_OURS ? "-wal" : "-shm";
        s->wal_note = st == STORE_WAL_GONE;
    }
    s->wal_state = st;
}

/* Copy the open WAL into the database (PASSIVE: never waits; a reader of
** an older snapshot may keep some frames back until the next time). */
static void
wal_copy(store *s)
{
    sqlite3_wal_checkpoint_v2(s->db, "main", SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
}

/* SQL, a PRAGMA journal_mode on S: SQLite's answer (the mode it is in
** afterwards) into MODE (16 bytes); "" when the statement failed. */
static void
journal_mode(store *s, const char *sql, char mode[16])
{
    sqlite3_stmt *st;

    mode[0] = '\0';
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return;
    if (sqlite3_step(st) == SQLITE_ROW)
        store_col_text(st, 0, mode, 16);
    sqlite3_finalize(st);
}

/* A fresh WAL at the path: out of WAL mode (SQLite checkpoints the open
** WAL and lets it go: granted only when no other connection has the file
** open, else SQLITE_BUSY at once) and back; the files it then makes are
** taken as SQLite's (wal_state OK again).  Should WAL mode not come back
** (another connection took the write lock in between: SQLITE_BUSY at once;
** the shared memory cannot be made), the file stays in rollback-journal
** mode -- every commit in the file, safe too -- and the user is told as at
** open (store_journal_fallback). */
static void
wal_renew(store *s)
{
    char mode[16];

    if (!sqlite3_get_autocommit(s->db))
        return;
    journal_mode(s, "PRAGMA journal_mode=DELETE", mode);
    if (strcmp(mode, "delete") != 0)
        return;
    journal_mode(s, "PRAGMA journal_mode=WAL", mode);
    if (strcmp(mode, "wal") == 0) {
        sqlite3_exec(s->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
    } else {
        if (mode[0] == '\0')           /* refused: the mode it kept */
            journal_mode(s, "PRAGMA journal_mode", mode);
        store_journal_fallback(s, mode[0] ? mode : "delete");
    }
    wal_opened(s);                      /* the new files (none out of WAL mode) */
}

int
store_file_wal_hook(void *ud, sqlite3 *db, const char *name, int frames)
{
    store *s = ud;

    wal_notice(s);
    if (s->wal_state == STORE_WAL_GONE ||
        (s->wal_state == STORE_WAL_OK && frames >= STORE_WAL_AUTOCHECKPOINT))
        sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    return SQLITE_OK;
}

/*
** The -wal at a quiet point (store_wal_trim, store_file_close): the WAL
** copied into the database and the file cut to nothing (TRUNCATE), without
** waiting for another connection -- while one reads an older snapshot or
** writes, SQLite copies what it can (as PASSIVE does) and leaves the file
** to the next quiet point.  Without it the -wal keeps the largest size it
** ever reached (16 MB and more: SQLite rewinds it, never shrinks it) for as
** long as the store is open, and after its close while another window has
** the database open.
** Not at the autocheckpoint (the WAL hook): in a run of commits a rewound
** WAL is written over in place, where a cut one grows again with every
** commit, each extension a change of the file's size to sync as well.
*/
void
store_wal_trim(store *s)
{
    if (s == NULL || s->db == NULL || s->lost || s->read_only || s->journal[0] != '\0' ||
        !sqlite3_get_autocommit(s->db))
        return;
    wal_notice(s);
    if (s->wal_state != STORE_WAL_OK)
        return;                         /* the hook copies it after every commit */
    s->busy_never++;                    /* busy_wait: give up at once */
    sqlite3_wal_checkpoint_v2(s->db, "main", SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    s->busy_never--;
}

void
store_journal_fallback(store *s, const char *mode)
{
    snprintf(s->journal, sizeof s->journal, "%s", mode);
    s->journal_note = 1;
}

int
store_file_note(store *s, char *buf, size_t cap)
{
    if (cap == 0)
        return 0;
    if (s->fts_note) {                  /* store_fts_mend */
        s->fts_note = 0;
        snprintf(buf, cap, store_tr(s, "%s: the search index was damaged: rebuilt from the "
                                       "messages (nothing was lost)"), s->path);
        return 1;
    }
    /* a deleted -wal first: the journal note may be what came of it */
    if (s->wal_note && s->wal_state != STORE_WAL_FOREIGN) {
        s->wal_note = 0;
        snprintf(buf, cap, store_tr(s, "%s: its %s file was deleted while in use: nothing is "
                                       "lost (what it held was copied into the database) and "
                                       "saving goes on"),
                 s->path, s->wal_what);
        return 1;
    }
    if (!s->journal_note)               /* store_journal_fallback: once */
        return 0;
    s->journal_note = 0;
    snprintf(buf, cap, store_tr(s, "%s: SQLite cannot use WAL mode for this file (journal mode "
                                   "'%s'): saving goes on with a rollback journal -- a crash "
                                   "still loses nothing saved, but a save waits while another "
                                   "window reads the database"),
             s->path, s->journal);
    return 1;
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
    const char *what;

    if (s->standin)                     /* a full disk's stand-in (store.c): no file open */
        return RWKV_OK;
    what = what_happened(s);
    if (what == NULL) {
        wal_notice(s);
        if (s->wal_state == STORE_WAL_GONE) {
            wal_copy(s);
            wal_renew(s);
        }
        if (s->wal_state != STORE_WAL_FOREIGN)
            return RWKV_OK;
        s->lost = 1;
        return rwkv_errf(err, RWKV_EDB, "%s: while in use, its %s file was deleted or replaced and "
                         "another program has written to the database since", s->path, s->wal_what);
    }
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

    if (path_beside(path, suffix, buf) == 0)
        unlink(buf);
}

void
store_file_close(store *s)
{
    /* not opened to the end: not ours to judge; opened read-only: nothing
    ** of it is ours to copy, cut or remove */
    if (s->ino == 0 || s->read_only) {
        sqlite3_close_v2(s->db);
        return;
    }
    wal_notice(s);
    if (!s->lost && (what_happened(s) != NULL || s->wal_state == STORE_WAL_FOREIGN))
        s->lost = 1;
    if (!s->lost) {
        /* SQLite's close copies the WAL and deletes it -- when no other
        ** connection has the file open; with one (another window) the
        ** -wal file would stay as large as it grew */
        store_wal_trim(s);
        sqlite3_close_v2(s->db);
        return;
    }
    sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)NULL);
    sqlite3_close_v2(s->db);
    if (s->wal_state == STORE_WAL_FOREIGN)
        return;                        /* the files beside it are another program's */
    unlink_beside(s->path, "-wal");
    unlink_beside(s->path, "-shm");
}

/* Whether the regular file P (SB: its stat) begins with the SQLite magic.
** Never called on a file of the open database: opening one and closing it
** again would drop this process's locks on it (POSIX locks are per process
** and file, not per descriptor). */
static int
is_sqlite_db(const char *p, const struct stat *sb)
{
    char magic[sizeof sqlite_magic];
    size_t got;
    FILE *f;

    if (!S_ISREG(sb->st_mode) || (f = fopen(p, "rb")) == NULL)
        return 0;
    got = fread(magic, 1, sizeof magic, f);
    fclose(f);
    return got == sizeof magic && memcmp(magic, sqlite_magic, sizeof magic) == 0;
}

/* Whether P (SB: its stat) is S's database file (device and inode). */
static int
is_store_file(const store *s, const struct stat *sb)
{
    return s != NULL && s->ino != 0 && (uint64_t)sb->st_dev == s->dev &&
           (uint64_t)sb->st_ino == s->ino;
}

int
store_output_check(store *s, const char *path, const store_input *in, size_t n_in,
                   rwkv_err *err)
{
    static const char *const part[] = { "", "-wal", "-shm", "-journal" };
    char tgt[STORE_PATH_MAX + 8];
    struct stat t, o;
    int exists;

    if (path == NULL || strcmp(path, "-") == 0)
        return RWKV_OK;               /* stdout */
    /* the file written: a symlink at PATH is written through
    ** (rwkv_output_target), so every check below is of where it leads */
    if (rwkv_output_target(path, tgt, sizeof tgt) != 0)
        return rwkv_errf(err, RWKV_EIO, "%s: cannot write: %s", path, strerror(errno));
    /* the open database's files, by device and inode only (is_sqlite_db) */
    exists = stat(tgt, &t) == 0 && S_ISREG(t.st_mode);
    for (size_t i = 0; exists && s != NULL && i < sizeof part / sizeof part[0]; i++) {
        char p[STORE_PATH_MAX + 8];
        if (path_beside(s->path, part[i], p) == 0 && stat(p, &o) == 0 &&
            o.st_dev == t.st_dev && o.st_ino == t.st_ino)
            return rwkv_errf(err, RWKV_EINVAL, "%s is the session database%s%s%s: not written over",
                             path, i ? "'s " : "", part[i], i ? " file" : "");
    }
    /* the -wal, -shm or -journal name of any database -- the default one
    ** under --no-db, another window's -- there or not: SQLite finds these
    ** files by name, and what is written there is read as its log.  The
    ** name given and the one a link there leads to */
    for (int k = 0; k < 2; k++) {
        const char *nm = k ? tgt : path;
        if (k && strcmp(tgt, path) == 0)
            break;
        for (size_t i = 1; i < sizeof part / sizeof part[0]; i++) {
            size_t pl = strlen(nm), sl = strlen(part[i]);
            char base[STORE_PATH_MAX + 8];
            if (pl <= sl || pl - sl >= sizeof base || strcmp(nm + pl - sl, part[i]) != 0)
                continue;
            memcpy(base, nm, pl - sl);
            base[pl - sl] = '\0';
            if (stat(base, &o) == 0 && (is_store_file(s, &o) || is_sqlite_db(base, &o)))
                return rwkv_errf(err, RWKV_EINVAL, "%s is the %s file of the SQLite database %s: "
                                 "not written over", path, part[i], base);
        }
    }
    /* an input of the same command (rwkv_same_file: the file written --
    ** through a link -- is IN under any name or hard link) */
    for (size_t i = 0; i < n_in; i++)
        if (in[i].path != NULL && in[i].path[0] != '\0' && rwkv_same_file(path, in[i].path))
            return rwkv_errf(err, RWKV_EINVAL, "%s is %s: not written over", path, in[i].what);
    if (exists && !is_store_file(s, &t) && is_sqlite_db(tgt, &t))
        return rwkv_errf(err, RWKV_EINVAL, "%s is an SQLite database: not written over", path);
    /* a file made read-only: the atomic writers' rename would replace it
    ** anyway (only the folder's permission counts, and root passes every
    ** check), where cp or a shell's > refuse it.  The file written: a
    ** link's target */
    if (lstat(tgt, &o) == 0 && S_ISREG(o.st_mode) &&
        ((o.st_mode & 0222) == 0 || (access(tgt, W_OK) != 0 && errno == EACCES)))
        return rwkv_errf(err, RWKV_EINVAL, "%s is read-only (mode %03o): not written over", path,
                         (unsigned)(o.st_mode & 0777));
    return RWKV_OK;
}
