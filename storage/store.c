/*
** store.c -- open/close the session database, PRAGMAs, schema and forward
** migrations, and the small tables: models, presets, state files.
**
** Invariants:
**   - PRAGMA user_version is the schema version; 0 means "empty file".  A
**     version above STORE_SCHEMA_VERSION is refused, never touched.
**   - Migrations N-1 -> N run in one BEGIN IMMEDIATE transaction together
**     with the user_version update, so a crash leaves the old or the new
**     schema, never half of one; two processes opening an old file at once
**     migrate once (the version is re-read inside the transaction).
**   - Opening waits for another connection's locks within STORE_BUSY_MS,
**     also where SQLite answers SQLITE_BUSY without calling the busy
**     handler (setup_step: the switch to WAL mode), so processes opening or
**     creating one file at once all succeed.
**   - The journal is WAL, or where SQLite cannot use WAL for the file a
**     rollback journal (as safe in a crash: a note says so); never one
**     that loses a commit in a crash (journal_check).
**   - A new file is created 0600 before SQLite opens it (the -wal and -shm
**     files inherit that mode) and gets auto_vacuum=INCREMENTAL before its
**     first table, so deleting a session can give the space back.
**   - An open that fails leaves the file system as it found it: the file it
**     created (still empty, or holding no table -- a full disk stopped its
**     first write --, the same inode, nobody's -wal or -shm beside it) is
**     removed, an empty file's mode put back, the directories it made
**     removed while empty (made_undo).
**   - A reader's open of a database that holds nothing (no table: an
**     empty file, or one whose creation failed) that cannot be set up
**     says so ("no session saved in it yet"), not only why the write
**     failed (reader_empty).
**   - A database this process may not write (store_ro.c says what counts)
**     is refused for writing before SQLite opens it, with the front end's
**     hint; a reader (store_open_ex, read_ok) opens it read-only and
**     makes, changes and removes nothing (open_ro).
**   - A full disk fails no open: the -wal and -shm files its try made are
**     removed (strays_undo: SQLite makes its 32 KiB -shm to read a WAL
**     database, and left a 3-byte one), then a reader reads the file
**     read-only (open_ro) and a writer gets a stand-in whose writes fail
**     as a full disk's (open_standin), tried again for writing once the
**     disk has room (standin_retry).
*/
#include "store_int.h"

#include "../core/clock.h"
#include "../core/io/fileio.h"
#include "../core/text/utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/*
** Page size of a new database.  Snapshots are megabytes of overflow pages, so
** big pages cut the per-page work: measured with bench/bench_store.c on a
** 1.5B-sized state (12.98 MB), put / resume / fork-to-new-session took
** 143 / 68 / 396 ms with 4096-byte pages, 93 / 33 / 276 ms with 16384 and
** 55 / 39 / 184 ms with 65536 (SQLite's largest).  The cost is a larger
** empty file (~1 MB) and 64 KB WAL frames for small writes.
*/
#define STORE_PAGE_SIZE_STR "65536"

/* ---- schema ------------------------------------------------------------- */

/*
** Version 1: the first schema (models, sessions, the turn tree, snapshots).
** Each version's text below is history: files of every version exist and are
** taken through the steps after their own, so a shipped step never changes
** (tests/unit/test_store.c holds a hash of each); a change is a new version.
*/
static const char schema_v1[] =
    "CREATE TABLE models("
    " id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, size INTEGER NOT NULL,"
    " mtime INTEGER NOT NULL, fingerprint INTEGER NOT NULL, version TEXT NOT NULL DEFAULT '',"
    " n_layer INTEGER NOT NULL DEFAULT 0, n_embd INTEGER NOT NULL DEFAULT 0,"
    " n_head INTEGER NOT NULL DEFAULT 0, head_size INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE sessions("
    " id INTEGER PRIMARY KEY, title TEXT NOT NULL,"
    " model_id INTEGER REFERENCES models(id) ON DELETE SET NULL,"
    " strategy TEXT NOT NULL DEFAULT '', created_ms INTEGER NOT NULL,"
    " updated_ms INTEGER NOT NULL, head_turn INTEGER);"
    "CREATE TABLE turns("
    " id INTEGER PRIMARY KEY,"
    " session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
    " parent_id INTEGER REFERENCES turns(id) ON DELETE CASCADE,"
    " depth INTEGER NOT NULL, role INTEGER NOT NULL CHECK(role BETWEEN 0 AND 2),"
    " text TEXT NOT NULL, tokens BLOB, sampling TEXT,"
    " prefill_tps REAL NOT NULL DEFAULT 0, decode_tps REAL NOT NULL DEFAULT 0,"
    " time_ms INTEGER NOT NULL, interrupted INTEGER NOT NULL DEFAULT 0);"
    "CREATE INDEX turns_parent ON turns(parent_id);"
    "CREATE INDEX turns_session ON turns(session_id, id);"
    "CREATE TABLE snapshots("
    " turn_id INTEGER PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,"
    " fingerprint INTEGER NOT NULL, version TEXT NOT NULL, n_layer INTEGER NOT NULL,"
    " n_embd INTEGER NOT NULL, n_head INTEGER NOT NULL, head_size INTEGER NOT NULL,"
    " precision INTEGER NOT NULL, n_floats INTEGER NOT NULL, created_ms INTEGER NOT NULL,"
    " blob BLOB NOT NULL);";

/*
** The triggers keeping turns_fts in step with turns, then the index rebuilt
** from turns: the end of v2 and of v3, which recreate turns_fts.
*/
#define FTS_SYNC_SQL \
    "CREATE TRIGGER turns_fts_ai AFTER INSERT ON turns BEGIN" \
    " INSERT INTO turns_fts(rowid, text) VALUES (new.id, new.text); END;" \
    "CREATE TRIGGER turns_fts_ad AFTER DELETE ON turns BEGIN" \
    " INSERT INTO turns_fts(turns_fts, rowid, text) VALUES ('delete', old.id, old.text); END;" \
    "CREATE TRIGGER turns_fts_au AFTER UPDATE OF text ON turns BEGIN" \
    " INSERT INTO turns_fts(turns_fts, rowid, text) VALUES ('delete', old.id, old.text);" \
    " INSERT INTO turns_fts(rowid, text) VALUES (new.id, new.text); END;" \
    "INSERT INTO turns_fts(turns_fts) VALUES ('rebuild');"

/* Version 2: presets, state files, sessions' preset/state file, FTS5. */
static const char schema_v2[] =
    "CREATE TABLE presets("
    " id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, builtin INTEGER NOT NULL DEFAULT 0,"
    " sampling TEXT NOT NULL);"
    "CREATE TABLE state_files("
    " id INTEGER PRIMARY KEY, name TEXT NOT NULL, path TEXT NOT NULL DEFAULT '', data BLOB,"
    " size INTEGER NOT NULL DEFAULT 0, fingerprint INTEGER NOT NULL DEFAULT 0,"
    " n_layer INTEGER NOT NULL DEFAULT 0, n_embd INTEGER NOT NULL DEFAULT 0,"
    " n_head INTEGER NOT NULL DEFAULT 0, head_size INTEGER NOT NULL DEFAULT 0,"
    " sampling TEXT NOT NULL);"
    "ALTER TABLE sessions ADD COLUMN preset_id INTEGER REFERENCES presets(id) ON DELETE SET NULL;"
    "ALTER TABLE sessions ADD COLUMN state_file_id INTEGER"
    " REFERENCES state_files(id) ON DELETE SET NULL;"
    "CREATE VIRTUAL TABLE turns_fts USING fts5(text, content='turns', content_rowid='id');"
    FTS_SYNC_SQL;

/*
** Version 3: the models' vocabulary path, and search by substring.  turns_fts
** is rebuilt with the trigram tokenizer (SQLite 3.34+): unicode61 made a run
** of Han or kana characters one token, so a Chinese or Japanese word inside a
** sentence was never found; trigrams find any substring of 3+ characters in
** any script.  The index of an existing database is rebuilt from turns.
*/
static const char schema_v3[] =
    "ALTER TABLE models ADD COLUMN vocab TEXT NOT NULL DEFAULT '';"
    "DROP TRIGGER IF EXISTS turns_fts_ai;"
    "DROP TRIGGER IF EXISTS turns_fts_ad;"
    "DROP TRIGGER IF EXISTS turns_fts_au;"
    "DROP TABLE IF EXISTS turns_fts;"
    "CREATE VIRTUAL TABLE turns_fts USING fts5(text, content='turns', content_rowid='id',"
    " tokenize='trigram');"
    FTS_SYNC_SQL;

/* Version 4: the chat's framing (storage/framing.h) of sessions and
** presets, as JSON; NULL = the defaults (a session) / none (a preset). */
static const char schema_v4[] =
    "ALTER TABLE sessions ADD COLUMN framing TEXT;"
    "ALTER TABLE presets ADD COLUMN framing TEXT;";

/*
** Version 5: a model row per file content at a path (store.h): path alone
** was the key, so a model written over the same path took the old one's
** row and its sessions claimed the new file.  The table is rebuilt (a
** UNIQUE column constraint cannot be dropped) with the same ids, so the
** sessions keep their rows; migrate() turns foreign keys off around it, as
** SQLite's procedure for a table rebuild says.  Snapshots get the digest of
** the file that made them (0 = saved before: unknown).
*/
static const char schema_v5[] =
    "CREATE TABLE models_v5("
    " id INTEGER PRIMARY KEY, path TEXT NOT NULL, size INTEGER NOT NULL,"
    " mtime INTEGER NOT NULL, fingerprint INTEGER NOT NULL, digest INTEGER NOT NULL DEFAULT 0,"
    " version TEXT NOT NULL DEFAULT '',"
    " n_layer INTEGER NOT NULL DEFAULT 0, n_embd INTEGER NOT NULL DEFAULT 0,"
    " n_head INTEGER NOT NULL DEFAULT 0, head_size INTEGER NOT NULL DEFAULT 0,"
    " vocab TEXT NOT NULL DEFAULT '', UNIQUE(path, size, fingerprint, digest));"
    "INSERT INTO models_v5(id, path, size, mtime, fingerprint, version, n_layer, n_embd, n_head,"
    " head_size, vocab) SELECT id, path, size, mtime, fingerprint, version, n_layer, n_embd,"
    " n_head, head_size, vocab FROM models;"
    "DROP TABLE models;"
    "ALTER TABLE models_v5 RENAME TO models;"
    "ALTER TABLE snapshots ADD COLUMN digest INTEGER NOT NULL DEFAULT 0;";

/*
** Version 6: session and turn ids are never used twice (a script or a note
** holding "session 12" must not reach another conversation after an rm):
** id_seq holds the highest id each table ever had, kept by triggers, and
** the inserts take the next id from it (STORE_NEXT_ID in store_int.h), as
** SQLite's AUTOINCREMENT does with sqlite_sequence.  AUTOINCREMENT itself
** needs a rebuild of sessions and turns (copying every turn, its tokens and
** the whole search index) inside the opening transaction; this needs two
** rows, whatever the size of the file.  Ids freed before v6 are unknown:
** the mark starts at the highest id present.
*/
static const char schema_v6[] =
    "CREATE TABLE id_seq(name TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;"
    "INSERT INTO id_seq SELECT 'sessions', coalesce(max(id), 0) FROM sessions;"
    "INSERT INTO id_seq SELECT 'turns', coalesce(max(id), 0) FROM turns;"
    "CREATE TRIGGER sessions_seq AFTER INSERT ON sessions BEGIN"
    " UPDATE id_seq SET seq=new.id WHERE name='sessions' AND seq<new.id; END;"
    "CREATE TRIGGER turns_seq AFTER INSERT ON turns BEGIN"
    " UPDATE id_seq SET seq=new.id WHERE name='turns' AND seq<new.id; END;";

/* Version 7: settings of the database itself (store_budget.c: the saved
** states' disk budget), one row a key. */
static const char schema_v7[] =
    "CREATE TABLE settings(key TEXT PRIMARY KEY, value NOT NULL) WITHOUT ROWID;";

/*
** Version 8: identical saved states stored once (store_snapshot.c).  Every
** session's greeting turn keeps a snapshot, byte for byte the same for one
** model, framing and state file (12.98 MB each for a 1.5B model: a third
** of a 300-chat file), and a fork copied its states.  state_blobs holds a
** state's bytes once, found by their hash (the blob's own checksum field,
** store_blob.c; the bytes are compared too); a snapshot row points to it
** with blob_id and keeps an empty blob (the column is NOT NULL since v1,
** and dropping that needs a rebuild of the table).  The trigger removes a
** shared row with the last snapshot using it, whatever deletes the
** snapshot (its turn's cascade, retention, the budget, an rm).  Rows saved
** before keep their bytes inline (blob_id NULL) and stay readable: moving
** gigabytes inside the opening transaction is what v6 avoided too.  No
** REFERENCES on blob_id: the trigger keeps the link, a missing row reads
** as a damaged state (named with its turn), and a column in a foreign key
** could never be dropped again (ALTER TABLE DROP COLUMN refuses it).
*/
static const char schema_v8[] =
    "CREATE TABLE state_blobs(id INTEGER PRIMARY KEY, hash INTEGER NOT NULL, blob BLOB NOT NULL);"
    "CREATE INDEX state_blobs_hash ON state_blobs(hash);"
    "ALTER TABLE snapshots ADD COLUMN blob_id INTEGER;"
    "CREATE INDEX snapshots_blob ON snapshots(blob_id) WHERE blob_id IS NOT NULL;"
    "CREATE TRIGGER snapshots_blob_ad AFTER DELETE ON snapshots WHEN old.blob_id IS NOT NULL"
    " BEGIN DELETE FROM state_blobs WHERE id=old.blob_id"
    " AND NOT EXISTS(SELECT 1 FROM snapshots WHERE blob_id=old.blob_id); END;"
    "CREATE TRIGGER snapshots_blob_au AFTER UPDATE OF blob_id ON snapshots"
    " WHEN old.blob_id IS NOT NULL AND old.blob_id IS NOT new.blob_id"
    " BEGIN DELETE FROM state_blobs WHERE id=old.blob_id"
    " AND NOT EXISTS(SELECT 1 FROM snapshots WHERE blob_id=old.blob_id); END;";

static const char *const migrations[STORE_SCHEMA_VERSION + 1] = {
    NULL, schema_v1, schema_v2, schema_v3, schema_v4, schema_v5, schema_v6, schema_v7,
    schema_v8,
};

const char *
store_schema_step(int version)
{
    return version >= 1 && version <= STORE_SCHEMA_VERSION ? migrations[version] : NULL;
}

/* ---- small helpers shared by the storage files --------------------------- */

void *
store_grow(void *p, size_t *cap, size_t n, size_t size, size_t first)
{
    size_t nc = *cap ? *cap * 2 : first;
    void *q;

    if (n < *cap)
        return p;
    if (nc < *cap || nc > SIZE_MAX / size || (q = realloc(p, nc * size)) == NULL)
        return NULL;
    *cap = nc;
    return q;
}

int64_t
store_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The database or its -wal file is at the process's file-size limit
** (`ulimit -f`): a write there failed with EFBIG (SIGXFSZ is ignored,
** cli/main.c, so it fails instead of killing the process). */
static int
at_size_limit(const store *s)
{
    static const char *const sfx[] = { "", "-wal" };
    struct rlimit rl;
    char p[STORE_PATH_MAX + 8];
    struct stat sb;

    if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 0;
    for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
        snprintf(p, sizeof p, "%s%s", s->path, sfx[i]);
        /* a failed write stops within one page (and its WAL frame header) */
        if (stat(p, &sb) == 0 && (uint64_t)sb.st_size + 65536 + 24 >= (uint64_t)rl.rlim_cur)
            return 1;
    }
    return 0;
}

/* The last error of S's connection is a full disk: SQLITE_FULL, or an I/O
** error whose system call failed with ENOSPC or EDQUOT -- making the -shm
** file a read of a WAL database needs is SQLITE_IOERR_SHMSIZE, "disk I/O
** error", never SQLITE_FULL. */
static int
disk_full(const store *s)
{
    int c = sqlite3_errcode(s->db), e = sqlite3_system_errno(s->db);

    return c == SQLITE_FULL || (c == SQLITE_IOERR && (e == ENOSPC || e == EDQUOT));
}

/* What a failed write ran into, else NULL: a full disk (the stand-in of a
** disk full at open: every write, open_standin), or the file-size limit --
** which SQLite calls a plain "disk I/O error", and whose errno it does not
** keep.  A full disk is remembered (saw_full: an open's steps go on after
** a failed one, migrate's foreign_keys, and leave the error code clear). */
static const char *
write_limit(store *s)
{
    if (disk_full(s) || (s->standin && sqlite3_errcode(s->db) == SQLITE_READONLY)) {
        s->saw_full = 1;
        return "disk full (nothing was saved)";
    }
    if (sqlite3_errcode(s->db) == SQLITE_IOERR && at_size_limit(s))
        return "the file reached the file-size limit (ulimit -f): nothing was saved";
    return NULL;
}

/* A statement that failed because its busy hook gave up the wait
** (store_set_busy_hook), else NULL. */
static const char *
gave_up(const store *s)
{
    if (s->busy_gave_up && sqlite3_errcode(s->db) == SQLITE_BUSY)
        return "database is locked (gave up waiting)";
    return NULL;
}

int
store_dberr(store *s, rwkv_err *err, const char *what)
{
    const char *lim = write_limit(s);

    if (lim == NULL)
        lim = gave_up(s);

    /* the search index's damage: derived data (store_fts.c) -- as SQLite's
    ** code for a virtual table's own, or a bare "constraint failed", no
    ** constraint of the schema's (each has its own extended code): FTS5's,
    ** a write through an index whose structure record reads as another
    ** (cut, emptied) */
    if (lim == NULL && (sqlite3_extended_errcode(s->db) == SQLITE_CORRUPT_VTAB ||
                        sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT))
        return store_fts_damaged(s, err);
    /* a page SQLite found damaged, or a file that opened as a database
    ** and no longer reads as one: the one message of a damaged file */
    if (lim == NULL && (sqlite3_errcode(s->db) == SQLITE_CORRUPT ||
                        sqlite3_errcode(s->db) == SQLITE_NOTADB)) {
        if (s->plain_errors)
            return store_corrupt(s, err, "%s", sqlite3_errmsg(s->db));
        return store_corrupt(s, err, "%s: %s", what, sqlite3_errmsg(s->db));
    }
    if (s->plain_errors)
        return rwkv_errf(err, RWKV_EDB, "%s: %s", s->path, lim ? lim : sqlite3_errmsg(s->db));
    if (lim != NULL)
        return rwkv_errf(err, RWKV_EDB, "%s: %s: %s", s->path, what, lim);
    return rwkv_errf(err, RWKV_EDB, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

static void standin_retry(store *s);

int
store_exec(store *s, const char *sql, rwkv_err *err)
{
    char *msg = NULL;

    if (s->standin)
        standin_retry(s);
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        const char *lim = write_limit(s);
        if (lim == NULL)
            lim = gave_up(s);
        rwkv_errf(err, RWKV_EDB, "%s: %s", s->path,
                  lim ? lim : msg ? msg : "sqlite error");
        sqlite3_free(msg);
        return RWKV_EDB;
    }
    return RWKV_OK;
}

int
store_exec_ids(store *s, const char *sql, const int64_t *ids, size_t n, const char *what,
               rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    if (n == 0)
        return RWKV_OK;
    if ((rc = store_prep(s, sql, &st, err)) != RWKV_OK)
        return rc;
    for (size_t i = 0; i < n && rc == RWKV_OK; i++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, ids[i]);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = store_dberr(s, err, what);
    }
    sqlite3_finalize(st);
    return rc;
}

int
store_prep(store *s, const char *sql, sqlite3_stmt **st, rwkv_err *err)
{
    if (s->standin)
        standin_retry(s);
    if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return store_dberr(s, err, "query");
    }
    return RWKV_OK;
}

int
store_step_one(store *s, sqlite3_stmt *st, const char *what, rwkv_err *err, const char *absent,
               ...)
{
    int rc = sqlite3_step(st);
    va_list ap;

    if (rc == SQLITE_ROW)
        return RWKV_OK;
    if (rc != SQLITE_DONE)
        return store_dberr(s, err, what);
    va_start(ap, absent);
    rwkv_verrf(err, RWKV_EINVAL, absent, ap);
    va_end(ap);
    return RWKV_EINVAL;
}

int
store_returning_done(store *s, sqlite3_stmt *st, const char *what, rwkv_err *err)
{
    int r;

    while ((r = sqlite3_step(st)) == SQLITE_ROW)
        ;
    return r == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, what);
}

/*
** Nesting (store_int.h): depth 1 is BEGIN IMMEDIATE .. COMMIT; each level
** inside it a savepoint "store_tx_D" (D its depth), released or rolled back
** to on its own.  A full disk or an I/O error may make SQLite roll the whole
** transaction back by itself (sqlite3_get_autocommit says so): a level
** inside it then writes nothing more -- its begin and commit fail, its
** rollback only steps out -- so no statement after that runs outside the
** transaction its caller opened, and the outermost rollback ends it.
*/
static int
tx_lost(store *s, rwkv_err *err)
{
    const char *lim = write_limit(s);

    return rwkv_errf(err, RWKV_EDB, "%s: %s", s->path,
                     lim ? lim : "the write failed and was undone (nothing was saved)");
}

static int
tx_savepoint(store *s, const char *verb, int depth, rwkv_err *err)
{
    char sql[64];

    snprintf(sql, sizeof sql, "%s store_tx_%d", verb, depth);
    return store_exec(s, sql, err);
}

int
store_read_begin(store *s, rwkv_err *err)
{
    int rc;

    if (s == NULL || s->tx_depth > 0 || s->read_tx || !sqlite3_get_autocommit(s->db))
        return RWKV_OK;
    if ((rc = store_exec(s, "BEGIN", err)) == RWKV_OK)
        s->read_tx = 1;
    return rc;
}

void
store_read_end(store *s)
{
    if (s == NULL || !s->read_tx)
        return;
    s->read_tx = 0;
    /* (COMMIT: a best-effort write of S's own made meanwhile is kept) */
    if (!sqlite3_get_autocommit(s->db) &&
        sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK &&
        !sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

int
store_tx_begin(store *s, rwkv_err *err)
{
    int rc;

    store_read_end(s);                 /* a write of its own ends the snapshot */
    if (s->tx_depth == 0)
        rc = store_exec(s, "BEGIN IMMEDIATE", err);
    else if (sqlite3_get_autocommit(s->db))
        rc = tx_lost(s, err);          /* the outer one was rolled back */
    else
        rc = tx_savepoint(s, "SAVEPOINT", s->tx_depth + 1, err);
    if (rc == RWKV_OK)
        s->tx_depth++;
    return rc;
}

int
store_tx_commit(store *s, rwkv_err *err)
{
    int rc;

    if (s->tx_depth <= 1) {
        rc = store_exec(s, "COMMIT", err);
        if (rc != RWKV_OK)
            store_tx_rollback(s);
        s->tx_depth = 0;
        return rc;
    }
    if (sqlite3_get_autocommit(s->db)) {
        s->tx_depth--;
        return tx_lost(s, err);
    }
    if ((rc = tx_savepoint(s, "RELEASE", s->tx_depth, err)) != RWKV_OK) {
        store_tx_rollback(s);
        return rc;
    }
    s->tx_depth--;
    return RWKV_OK;
}

void
store_tx_rollback(store *s)
{
    if (s->tx_depth > 1) {
        if (!sqlite3_get_autocommit(s->db)) {
            char sql[96];
            snprintf(sql, sizeof sql, "ROLLBACK TO store_tx_%d; RELEASE store_tx_%d",
                     s->tx_depth, s->tx_depth);
            sqlite3_exec(s->db, sql, NULL, NULL, NULL);
        }
        s->tx_depth--;
        return;
    }
    s->tx_depth = 0;
    if (!sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

int
store_tx_depth(const store *s)
{
    return s->tx_depth;
}

size_t
store_nul_drop(char *dst, const void *src, size_t n)
{
    const char *p = src;
    size_t k = 0;

    for (size_t i = 0; i < n; i++)
        if (p[i] != '\0')
            dst[k++] = p[i];
    dst[k] = '\0';
    return k;
}

const char *
store_col_str(sqlite3_stmt *st, int i, size_t *len, char **own)
{
    /* text first, then its length (the order sqlite3_column_bytes asks for) */
    const char *t = (const char *)sqlite3_column_text(st, i);
    size_t n = t ? (size_t)sqlite3_column_bytes(st, i) : 0;
    char *c;

    *own = NULL;
    if (t == NULL || memchr(t, '\0', n) == NULL) {
        *len = n;
        return t ? t : "";
    }
    if ((c = malloc(n + 1)) == NULL)
        return NULL;
    *len = store_nul_drop(c, t, n);
    return *own = c;
}

void
store_col_text(sqlite3_stmt *st, int i, char *buf, size_t cap)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    size_t n = t ? (size_t)sqlite3_column_bytes(st, i) : 0, k = 0;

    if (cap == 0)
        return;
    for (size_t j = 0; j < n && k + 1 < cap; j++)
        if (t[j] != '\0')
            buf[k++] = (char)t[j];
    buf[k] = '\0';
}

void
store_col_title(sqlite3_stmt *st, int i, char *out, size_t cap)
{
    char *own;
    size_t n = 0;
    const char *t = store_col_str(st, i, &n, &own);

    if (t == NULL) {                  /* out of memory: the rule drops a NUL too */
        t = (const char *)sqlite3_column_text(st, i);
        n = t ? (size_t)sqlite3_column_bytes(st, i) : 0;
    }
    store_title_clean_n(t, n, out, cap);
    free(own);
}

const char *
store_role_name(int role)
{
    static const char *const names[] = { "system", "user", "assistant" };
    return role >= 0 && role <= 2 ? names[role] : "?";
}

int
store_role_parse(const char *name)
{
    for (int r = 0; r <= 2; r++)
        if (strcmp(name, store_role_name(r)) == 0)
            return r;
    return -1;
}

/* ---- paths -------------------------------------------------------------- */

int
store_default_path(char *buf, size_t cap, rwkv_err *err)
{
    const char *x = getenv("XDG_DATA_HOME");
    const char *h = getenv("HOME");
    int n;

    if (x && x[0] == '/')
        n = snprintf(buf, cap, "%s/rwkv-tui/rwkv-tui.db", x);
    else if (h && h[0])
        n = snprintf(buf, cap, "%s/.local/share/rwkv-tui/rwkv-tui.db", h);
    else
        return rwkv_errf(err, RWKV_EINVAL,
                         "cannot place the session database: neither $XDG_DATA_HOME nor $HOME is set (use --db)");
    if (n < 0 || (size_t)n >= cap)
        return rwkv_errf(err, RWKV_EINVAL, "session database path is too long");
    return RWKV_OK;
}

/*
** What store_open made on its way to opening PATH, so that an open that
** fails leaves the file system as it found it (made_undo): the file and the
** directories it created, the mode it changed.
*/
struct made {
    size_t   dir_len;       /* the shallowest directory created: PATH's first
                            ** DIR_LEN bytes (0: none); the ones below it
                            ** were all created too */
    int      file;          /* the file was created (O_EXCL) ... */
    int      chmoded;       /* ... or an empty one made private: its mode was */
    int      no_tables;     /* the failed open left the file it created
                            ** without a table (made_no_tables) */
    int      wal, shm;      /* a -wal, a -shm was beside it before the open */
    mode_t   mode;
    uint64_t dev, ino;      /* the file's, either way */
};

/* mkdir -p of the directories above PATH (mode 0700); the first one
** created into MADE. */
static int
make_parents(const char *path, struct made *made, rwkv_err *err)
{
    char buf[STORE_PATH_MAX];
    size_t n = strlen(path);

    if (n >= sizeof buf)
        return rwkv_errf(err, RWKV_EINVAL, "%.64s...: path too long", path);
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0700) == 0) {
            if (made->dir_len == 0)
                made->dir_len = (size_t)(p - buf);
        } else if (errno != EEXIST) {
            return rwkv_errf(err, RWKV_EIO, "%s: cannot create directory: %s", buf, strerror(errno));
        }
        *p = '/';
    }
    return RWKV_OK;
}

/*
** An explicit --db PATH gets no directories made for it: a typo must not
** silently create a tree somewhere.  Only the default path's directories are
** created (make_parents).  "" and "/" parents are the cwd and the root.
*/
static int
check_parent(const char *path, rwkv_err *err)
{
    char buf[STORE_PATH_MAX];
    const char *slash = strrchr(path, '/');
    struct stat sb;
    size_t n;

    if (slash == NULL || slash == path)
        return RWKV_OK;
    n = (size_t)(slash - path);
    if (n >= sizeof buf)
        return rwkv_errf(err, RWKV_EINVAL, "%.64s...: path too long", path);
    memcpy(buf, path, n);
    buf[n] = '\0';
    if (stat(buf, &sb) != 0)
        return rwkv_errf(err, RWKV_EIO, "%s: cannot create the session database: directory %s: %s",
                         path, buf, strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return rwkv_errf(err, RWKV_EIO, "%s: cannot create the session database: %s is not a directory",
                         path, buf);
    return RWKV_OK;
}

/* Create PATH 0600 if it does not exist yet.  An existing empty regular
** file (made by `touch` or a umask-022 shell redirection) is not a database
** yet: it is made 0600 before SQLite writes anything into it.  What was
** done goes into MADE. */
static int
create_private(const char *path, struct made *made, rwkv_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    struct stat sb;

    if (fd < 0) {
        if (errno != EEXIST)
            return rwkv_errf(err, RWKV_EIO, "%s: cannot create: %s", path, strerror(errno));
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0 &&
            (sb.st_mode & 077) != 0) {
            if (chmod(path, 0600) != 0)
                return rwkv_errf(err, RWKV_EIO, "%s: cannot make it private (mode 0600): %s",
                                 path, strerror(errno));
            made->chmoded = 1;
            made->mode = sb.st_mode & 07777;
            made->dev = (uint64_t)sb.st_dev;
            made->ino = (uint64_t)sb.st_ino;
        }
        return RWKV_OK;
    }
    if (fstat(fd, &sb) == 0) {
        made->file = 1;
        made->dev = (uint64_t)sb.st_dev;
        made->ino = (uint64_t)sb.st_ino;
    }
    close(fd);
    return RWKV_OK;
}

/* 1 when PATH + SUFFIX exists (as anything). */
static int
exists_beside(const char *path, const char *suffix)
{
    char p[STORE_PATH_MAX + 16];
    struct stat sb;

    return snprintf(p, sizeof p, "%s%s", path, suffix) < (int)sizeof p && lstat(p, &sb) == 0;
}

/*
** The open of PATH failed (its connection closed): undo what MADE says this
** call did, where the file is still as it left it -- the same inode, empty,
** and no -wal, -shm or -journal beside it (another connection of the file
** would have made one: its file is not ours to take back).  Then the
** directories it made, deepest first, each only while empty (rmdir).
*/
static void
made_undo(const char *path, const struct made *made)
{
    struct stat sb;
    char buf[STORE_PATH_MAX];
    size_t n = strlen(path);

    if ((made->file || made->chmoded) && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
        (sb.st_size == 0 || (made->file && made->no_tables)) &&
        (uint64_t)sb.st_dev == made->dev && (uint64_t)sb.st_ino == made->ino &&
        !exists_beside(path, "-wal") && !exists_beside(path, "-shm") &&
        !exists_beside(path, "-journal")) {
        if (made->file)
            (void)unlink(path);
        else
            (void)chmod(path, made->mode);
    }
    if (made->dir_len == 0 || n >= sizeof buf)
        return;
    memcpy(buf, path, n + 1);
    for (char *p = buf + n; p > buf + made->dir_len;) {
        while (p > buf && *--p != '/')
            ;
        if (p < buf + made->dir_len)
            break;
        *p = '\0';                    /* buf is a directory made here */
        if (rmdir(buf) != 0)
            break;
    }
}

/*
** A full disk failed the open of PATH (its connection closed): the -wal
** and -shm that were not there before it (MADE) are SQLite's from this
** try -- a -shm it could not grow, an empty -wal, or the frames of a
** creation that never committed (a file made here, holding no table) --
** and are removed.  A -wal with frames beside a file of sessions is left.
*/
static void
strays_undo(const char *path, const struct made *made)
{
    char p[STORE_PATH_MAX + 16];
    struct stat sb;

    if (!made->wal && snprintf(p, sizeof p, "%s-wal", path) < (int)sizeof p &&
        lstat(p, &sb) == 0 && S_ISREG(sb.st_mode) &&
        (sb.st_size == 0 || (made->file && made->no_tables)))
        (void)unlink(p);
    if (!made->shm && !exists_beside(path, "-wal") &&
        snprintf(p, sizeof p, "%s-shm", path) < (int)sizeof p && lstat(p, &sb) == 0 &&
        S_ISREG(sb.st_mode))
        (void)unlink(p);
}

/* ---- lock waits --------------------------------------------------------- */

/* Milliseconds on the monotonic clock. */
static int64_t
now_ms(void)
{
    return mono_now_ns() / 1000000;
}

/* Sleep step N (0 the first) of a lock wait, LEFT ms at most (LEFT > 0). */
static void
busy_nap(int n, int64_t left)
{
    static const int step_ms[] = { 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100 };
    struct timespec ts;
    int ms = n < (int)(sizeof step_ms / sizeof step_ms[0]) ? step_ms[n] : 100;

    if (ms > left)
        ms = (int)left;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (long)(ms % 1000) * 1000000;
    nanosleep(&ts, NULL);
}

/*
** The busy handler of every store connection: SQLite calls it while another
** connection holds a lock this one needs (N: the calls so far for this
** lock, 0 the first).  It sleeps in steps, as SQLite's own busy timeout
** does, for at most busy_ms in all; then the statement fails with "database
** is locked".  In busy_once mode (store_busy_once: one message of the
** session runtime) a wait that ran out makes every later one give up at
** once, so that the rows of one message do not wait again, each in turn,
** for a lock held far longer.  A busy hook (store_set_busy_hook) is called
** before each nap and may end the wait at once (busy_gave_up: the error
** says so); a give-up in busy_once mode counts as a wait that ran out.
*/
static int
busy_wait(void *ud, int n)
{
    store *s = ud;
    int64_t now = now_ms(), left;

    if (n == 0)
        s->busy_gave_up = 0;
    if (s->busy_never || (s->busy_once && s->busy_spent))
        return 0;
    if (n == 0)
        s->busy_since = now;
    left = s->busy_since + s->busy_ms - now;
    if (left <= 0) {
        s->busy_timeouts++;
        s->busy_spent = s->busy_once;
        return 0;
    }
    /* the front end's hook (store_set_busy_hook): before every nap, so
    ** that a give-up is heard within one (100 ms at most) */
    if (s->busy_hook != NULL && s->busy_hook(s->busy_hook_ud, (int)(now - s->busy_since)) != 0) {
        s->busy_gave_up = 1;
        s->busy_spent = s->busy_once;
        return 0;
    }
    busy_nap(n, left);
    return 1;
}

void
store_set_busy_hook(store *s, int (*fn)(void *ud, int waited_ms), void *ud)
{
    s->busy_hook = fn;
    s->busy_hook_ud = fn != NULL ? ud : NULL;
}

void
store_set_busy_ms(store *s, int ms)
{
    s->busy_ms = ms < 0 ? 0 : ms;
}

void
store_busy_once(store *s, int on)
{
    s->busy_once = on != 0;
    s->busy_spent = 0;
}

uint64_t
store_busy_timeouts(const store *s)
{
    return s->busy_timeouts;
}

int
store_busy_ms(const store *s)
{
    return s->busy_ms;
}

/* ---- open --------------------------------------------------------------- */

int
store_pragma_int(store *s, const char *sql, int64_t *out, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc = store_prep(s, sql, &st, err);

    if (rc != RWKV_OK)
        return rc;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *out = sqlite3_column_int64(st, 0);
        rc = RWKV_OK;
    } else if (rc == SQLITE_DONE) {
        *out = 0;
        rc = RWKV_OK;
    } else {
        rc = store_dberr(s, err, "read");
    }
    sqlite3_finalize(st);
    return rc;
}

/*
** Step ST, a statement of store_open's setup, to its first row or its end:
** its SQLite code.  Where waiting could deadlock, SQLite answers SQLITE_BUSY
** at once, without calling the busy handler: PRAGMA journal_mode=WAL on a
** file still in rollback-journal mode reads the header (a read lock), then
** wants the write lock to put WAL mode into it (sqlite3BtreeSetVersion), and
** gives up at once when another connection holds that lock -- which may be
** waiting for this one's read lock to go.  Clients creating a new database
** together switch it at about the same moment, and one that read the header
** while another was switching it failed ("database is locked"); so did
** opening a file left in rollback mode (store_file.c, wal_renew) while
** another process wrote to it.  The failed statement has let go of its
** locks (autocommit), so it is stepped again after a nap, within
** busy_wait's bound: s->busy_ms (STORE_BUSY_MS at open) in all, the
** handler's waits inside the later tries included.  A later try finds the
** file in WAL mode (the other connection's switch) or takes the lock itself.
*/
static int
setup_step(store *s, sqlite3_stmt *st)
{
    int64_t until = now_ms() + s->busy_ms, left;
    int busy_ms = s->busy_ms, rc;

    for (int n = 0; (rc = sqlite3_step(st)) == SQLITE_BUSY; n++) {
        if ((left = until - now_ms()) <= 0)
            break;
        sqlite3_reset(st);
        busy_nap(n, left);
        left = until - now_ms();
        s->busy_ms = left > 0 ? (int)left : 0;
    }
    s->busy_ms = busy_ms;
    return rc;
}

/*
** SQLite's answer MODE to PRAGMA journal_mode=WAL.  Where WAL cannot be
** used -- a VFS without the shared memory its index needs (some network
** and lock-less file systems), a build without WAL -- SQLite keeps the
** rollback journal it had ("delete"; "truncate" or "persist" where so
** built).  With synchronous=FULL a commit is in the file when it returns
** then too, and a crash mid-write is rolled back from the journal: nothing
** saved is lost, so the store goes on, and one note (store_file_note) says
** what changes -- a save waits while another connection reads, and a
** reader while a save commits.  Any other answer keeps nothing through a
** crash -- "memory": the database is not a file at all (--db :memory:);
** "off": no journal, a crash mid-write corrupts the file -- so the open
** fails with one line naming the file and the mode.
*/
static int
journal_check(store *s, const char *mode, const store_open_opts *o, rwkv_err *err)
{
    static const char *const rollback[] = { "delete", "truncate", "persist" };

    if (strcmp(mode, "wal") == 0)
        return RWKV_OK;
    for (size_t i = 0; i < sizeof rollback / sizeof rollback[0]; i++) {
        if (strcmp(mode, rollback[i]) == 0) {
            store_journal_fallback(s, mode);
            return RWKV_OK;
        }
    }
    return rwkv_errf(err, RWKV_EDB, "%s: SQLite keeps this database in journal mode '%s', not "
                     "WAL: a crash would lose what is saved (use another --db%s%s)", s->path,
                     mode[0] ? mode : "?", o->nodb ? ", or " : "", o->nodb ? o->nodb : "");
}

/* What is said when SQLite found a database read-only and
** store_read_only_reason had not (a file system that refuses writes
** without saying so at mount). */
#define RO_WHY_ANY "no write permission on it or its folder, or a read-only file system"

/* A database (or its folder, where the journal goes) we may not write:
** WHY (NULL: RO_WHY_ANY), then O's hint. */
static int
readonly_error(const char *path, const char *why, const store_open_opts *o, rwkv_err *err)
{
    if (o->ro_hint != NULL)
        return rwkv_errf(err, RWKV_EIO, "%s: the session database is read-only (%s): %s", path,
                         why ? why : RO_WHY_ANY, o->ro_hint);
    return rwkv_errf(err, RWKV_EIO, "%s: the session database is read-only (%s): use a writable "
                     "--db%s%s", path, why ? why : RO_WHY_ANY, o->nodb ? ", or " : "",
                     o->nodb ? o->nodb : "");
}

static int
open_fail(store *s, const store_open_opts *o, rwkv_err *err)
{
    int c = sqlite3_errcode(s->db);

    if (c == SQLITE_NOTADB)
        return rwkv_errf(err, RWKV_EDB, "%s: not a rwkv-tui session database (not an SQLite file)", s->path);
    if (c == SQLITE_CORRUPT)
        return store_corrupt(s, err, "%s", sqlite3_errmsg(s->db));
    if (c == SQLITE_READONLY && s->read_only)
        return rwkv_errf(err, RWKV_EDB, "%s: cannot read the session database read-only: %s",
                         s->path, sqlite3_errmsg(s->db));
    if (c == SQLITE_READONLY)
        return readonly_error(s->path, NULL, o, err);
    if (c == SQLITE_CANTOPEN || c == SQLITE_PERM)
        return rwkv_errf(err, RWKV_EDB, "%s: cannot open the session database: %s", s->path,
                         sqlite3_errmsg(s->db));
    return store_dberr(s, err, "open");
}

/* The migration transaction of migrate(); *UV (OUT) the version found. */
static int
migrate_tx(store *s, int64_t *uvp, rwkv_err *err)
{
    int64_t uv, tables, app;
    int rc;

    *uvp = 0;
    if ((rc = store_tx_begin(s, err)) != RWKV_OK)
        return rc;
    if ((rc = store_pragma_int(s, "PRAGMA user_version", &uv, err)) != RWKV_OK)
        goto fail;
    *uvp = uv;
    if (uv >= STORE_SCHEMA_VERSION) {   /* another process did it meanwhile */
        store_tx_rollback(s);
        return RWKV_OK;
    }
    if (uv == 0) {
        if ((rc = store_pragma_int(s, "PRAGMA application_id", &app, err)) != RWKV_OK ||
            (rc = store_pragma_int(s, "SELECT count(*) FROM sqlite_master", &tables, err)) != RWKV_OK)
            goto fail;
        if (tables > 0 && app != STORE_APP_ID) {
            rc = rwkv_errf(err, RWKV_EDB, "%s: an SQLite database of another program, not a rwkv-tui session database", s->path);
            goto fail;
        }
    }
    for (int64_t v = uv + 1; v <= STORE_SCHEMA_VERSION; v++) {
        char sql[64];
        if ((rc = store_exec(s, migrations[v], err)) != RWKV_OK)
            goto fail;
        snprintf(sql, sizeof sql, "PRAGMA user_version=%d", (int)v);
        if ((rc = store_exec(s, sql, err)) != RWKV_OK)
            goto fail;
    }
    {
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA application_id=%d", STORE_APP_ID);
        if ((rc = store_exec(s, sql, err)) != RWKV_OK)
            goto fail;
    }
    /* Built-in presets (the chat demo's defaults and the state-file ones). */
    {
        rwkv_sampling demo, stdef;
        params_defaults(&demo);
        stdef = demo;
        params_apply_state_defaults(&stdef, 0);
        struct { const char *name; const rwkv_sampling *v; int builtin; } pre[] = {
            { "demo", &demo, 1 }, { "state", &stdef, 1 }, { "user", &demo, 0 },
        };
        for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
            sqlite3_stmt *st;
            char txt[512];
            store_sampling_format(pre[i].v, txt, sizeof txt);
            if ((rc = store_prep(s, "INSERT OR IGNORE INTO presets(name, builtin, sampling) VALUES (?,?,?)",
                                 &st, err)) != RWKV_OK)
                goto fail;
            sqlite3_bind_text(st, 1, pre[i].name, -1, SQLITE_STATIC);
            sqlite3_bind_int(st, 2, pre[i].builtin);
            sqlite3_bind_text(st, 3, txt, -1, SQLITE_TRANSIENT);
            rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "presets");
            sqlite3_finalize(st);
            if (rc != RWKV_OK)
                goto fail;
        }
    }
    return store_tx_commit(s, err);
fail:
    store_tx_rollback(s);
    return rc;
}

static int
migrate(store *s, rwkv_err *err)
{
    int64_t uv;
    int rc;

    /* off outside the transaction (it cannot change inside one): a table
    ** rebuild (v5) must not fire ON DELETE actions.  The rebuild keeps every
    ** id, so no reference is left dangling. */
    if ((rc = store_exec(s, "PRAGMA foreign_keys=OFF", err)) != RWKV_OK)
        return rc;
    rc = migrate_tx(s, &uv, err);
    if (store_exec(s, "PRAGMA foreign_keys=ON", rc == RWKV_OK ? err : NULL) != RWKV_OK &&
        rc == RWKV_OK)
        rc = RWKV_EDB;
    if (rc != RWKV_OK && err && err->msg[0] && uv > 0 && strstr(err->msg, "migrat") == NULL) {
        char tmp[RWKV_ERR_MSG];
        snprintf(tmp, sizeof tmp, "%s", err->msg);
        rwkv_errf(err, rc, "migrating schema v%d: %s", (int)uv, tmp);
    }
    return rc;
}

/*
** The first reads of S, either open: a non-database or corrupt file told
** apart (the first read), a newer schema and another program's database
** refused; the schema version into *UV, the number of tables into *TABLES.
*/
static int
first_reads(store *s, const store_open_opts *o, int64_t *uv, int64_t *tables, rwkv_err *err)
{
    int rc;

    if (sqlite3_exec(s->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK)
        return open_fail(s, o, err);
    if ((rc = store_pragma_int(s, "PRAGMA user_version", uv, err)) != RWKV_OK)
        return rc;
    if (*uv > STORE_SCHEMA_VERSION)
        return rwkv_errf(err, RWKV_EDB,
                         "%s: session database schema v%d is newer than this rwkv-tui understands (v%d): upgrade rwkv-tui or use another --db",
                         s->path, (int)*uv, STORE_SCHEMA_VERSION);
    if ((rc = store_pragma_int(s, "SELECT count(*) FROM sqlite_master", tables, err)) != RWKV_OK)
        return rc;
    if (*uv == 0 && *tables > 0) {     /* refuse before changing anything */
        int64_t app;
        if ((rc = store_pragma_int(s, "PRAGMA application_id", &app, err)) != RWKV_OK)
            return rc;
        if (app != STORE_APP_ID)
            return rwkv_errf(err, RWKV_EDB, "%s: an SQLite database of another program, not a rwkv-tui session database", s->path);
    }
    return RWKV_OK;
}

/* S's connection on the file it names (SQLite's flags FLAGS: a path, or a
** URI with SQLITE_OPEN_URI), with the store's busy handler. */
static int
db_connect(store *s, const char *name, int flags, const store_open_opts *o, rwkv_err *err)
{
    if (sqlite3_open_v2(name, &s->db, flags, NULL) != SQLITE_OK)
        return s->db ? open_fail(s, o, err)
                     : rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", s->path);
    sqlite3_extended_result_codes(s->db, 0);
    s->busy_ms = STORE_BUSY_MS;
    sqlite3_busy_handler(s->db, busy_wait, s);
    return RWKV_OK;
}

/* The rest of a writable open, S connected: schema checks, WAL mode, the
** connection's settings, migrations. */
static int
open_rw(store *s, const store_open_opts *o, rwkv_err *err)
{
    int64_t uv, tables;
    int rc;

    if ((rc = first_reads(s, o, &uv, &tables, err)) != RWKV_OK)
        return rc;
    if (uv == 0 && tables == 0 &&
        (rc = store_exec(s, "PRAGMA page_size=" STORE_PAGE_SIZE_STR "; PRAGMA auto_vacuum=INCREMENTAL",
                         err)) != RWKV_OK)
        return rc;
    {
        sqlite3_stmt *st;
        char mode[16];
        if ((rc = store_prep(s, "PRAGMA journal_mode=WAL", &st, err)) != RWKV_OK)
            return rc;
        if (setup_step(s, st) != SQLITE_ROW) {
            rc = open_fail(s, o, err);
            sqlite3_finalize(st);
            return rc;
        }
        store_col_text(st, 0, mode, sizeof mode);
        sqlite3_finalize(st);
        if ((rc = journal_check(s, mode, o, err)) != RWKV_OK)
            return rc;
    }
    /* FULL: a turn reported saved survives a power cut too, not only a
    ** crash.  The WAL is checkpointed every 256 pages (16 MB: the hook,
    ** STORE_WAL_AUTOCHECKPOINT), cut back to 32 MB at a rewind, and cut
    ** to nothing at the quiet points (store_wal_trim, store_close), so
    ** snapshot traffic does not leave a large -wal file.
    ** secure_delete=FAST: a SQLite built with SQLITE_SECURE_DELETE (Debian's
    ** and Ubuntu's are) zeroes every freed page through the WAL, so deleting
    ** a session, a branch or a pruned state wrote as many bytes as it freed
    ** -- twice -- and on a full disk `sessions rm` could not free space at
    ** all.  FAST still clears deleted cells on the pages it writes anyway;
    ** the freed state pages are cut off the file by the vacuum after a
    ** delete (store_vacuum.c). */
    if ((rc = store_exec(s, "PRAGMA foreign_keys=ON; PRAGMA synchronous=FULL;"
                            " PRAGMA secure_delete=FAST;"
                            " PRAGMA journal_size_limit=33554432", err)) != RWKV_OK)
        return rc;
    sqlite3_wal_hook(s->db, store_file_wal_hook, s);
    if (uv < STORE_SCHEMA_VERSION && (rc = migrate(s, err)) != RWKV_OK)
        return rc;
    return RWKV_OK;
}

/* ---- read-only open ------------------------------------------------------ */

/* The first bytes (at most 100) of the file S's connection has open into
** HDR, through SQLite's own handle (never a descriptor of our own: closing
** it would drop this process's locks, store_file.c): how many, -1 when it
** cannot be read. */
static int
read_header(store *s, unsigned char hdr[100])
{
    sqlite3_file *f = NULL;
    sqlite3_int64 size = 0;
    int rc;

    memset(hdr, 0, 100);
    if (sqlite3_file_control(s->db, "main", SQLITE_FCNTL_FILE_POINTER, &f) != SQLITE_OK ||
        f == NULL || f->pMethods == NULL || f->pMethods->xFileSize(f, &size) != SQLITE_OK)
        return -1;
    if (size <= 0)
        return 0;
    rc = f->pMethods->xRead(f, hdr, 100, 0);
    if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ)
        return -1;
    return size < 100 ? (int)size : 100;
}

/* The size of the file PATH + SUFFIX, -1 when there is none. */
static int64_t
size_beside(const char *path, const char *suffix)
{
    char p[STORE_PATH_MAX + 16];
    struct stat sb;

    if (snprintf(p, sizeof p, "%s%s", path, suffix) >= (int)sizeof p || stat(p, &sb) != 0)
        return -1;
    return (int64_t)sb.st_size;
}

/* S's connection again, on its file as an immutable one (store.h). */
static int
connect_immutable(store *s, const store_open_opts *o, rwkv_err *err)
{
    char uri[3 * STORE_PATH_MAX + 32];

    sqlite3_close_v2(s->db);
    s->db = NULL;
    if (store_ro_uri(s->path, uri, sizeof uri) != 0)
        return rwkv_errf(err, RWKV_EINVAL, "%.64s...: path too long", s->path);
    s->immutable = 1;
    return db_connect(s, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, o, err);
}

/*
** Open S read-only (store.h, store_open_ex: READ_OK), WHY being why it may
** not be written: plainly where that makes and changes no file -- a
** rollback-journal file, or a WAL file whose -wal and -shm are there --
** else as an immutable file; a WAL database whose -wal holds pages but
** has no -shm cannot be read so, and is refused.
*/
static int
open_ro(store *s, const char *why, const store_open_opts *o, rwkv_err *err)
{
    unsigned char hdr[100];
    int64_t uv, tables, wal = -1;
    int rc, n;

    s->read_only = 1;
    if ((rc = db_connect(s, s->path, SQLITE_OPEN_READONLY, o, err)) != RWKV_OK)
        return rc;
    if ((n = read_header(s, hdr)) == 0)
        return rwkv_errf(err, RWKV_EDB, "%s: an empty file, no session saved in it yet (and it is "
                         "read-only: %s)", s->path, why);
    /* bytes 18 and 19 (write and read version) are 2 in WAL mode */
    if (n >= 20 && (hdr[18] == 2 || hdr[19] == 2) &&
        ((wal = size_beside(s->path, "-wal")) < 0 || size_beside(s->path, "-shm") < 0)) {
        if (wal > 0)
            return rwkv_errf(err, RWKV_EDB, "%s: its -wal file holds saves not yet in the "
                             "database and its -shm file is missing, so it cannot be read "
                             "read-only (%s): open it once where it can be written", s->path, why);
        if ((rc = connect_immutable(s, o, err)) != RWKV_OK)
            return rc;
    }
    rc = first_reads(s, o, &uv, &tables, err);
    /* the -shm there but not readable, and nothing in the -wal: immutable */
    if (rc != RWKV_OK && !s->immutable && wal == 0 &&
        (sqlite3_errcode(s->db) == SQLITE_CANTOPEN || sqlite3_errcode(s->db) == SQLITE_READONLY) &&
        (rc = connect_immutable(s, o, err)) == RWKV_OK)
        rc = first_reads(s, o, &uv, &tables, err);
    if (rc != RWKV_OK)
        return rc;
    if (uv == 0 && tables == 0)
        return rwkv_errf(err, RWKV_EDB, "%s: no session saved in it yet (an empty database, and "
                         "read-only: %s)", s->path, why);
    if (uv < STORE_SCHEMA_VERSION)
        return rwkv_errf(err, RWKV_EDB, "%s: session database schema v%d, older than this "
                         "rwkv-tui's (v%d), and read-only (%s): it cannot be upgraded here; open "
                         "it once where it can be written", s->path, (int)uv, STORE_SCHEMA_VERSION,
                         why);
    return RWKV_OK;
}

/* ---- open ---------------------------------------------------------------- */

/*
** A failed open's file S, on its connection still open: 1 when it holds
** no table and no schema version -- a database this open began (its
** first page, written as a full disk stopped the rest) and nothing else,
** which made_undo may remove although it is no longer empty.  Asked of
** SQLite; where it cannot answer (a full disk may leave it no room for
** the -shm file a read of a WAL database needs), read from the file's
** first page through SQLite's own handle (read_header's way): its header's
** user_version 0, the schema's page (a table leaf, 0x0D) without a cell,
** and no -wal beside it that could hold more.  0 when neither can tell:
** the file stays.
*/
static int
made_no_tables(store *s)
{
    sqlite3_stmt *st = NULL;
    sqlite3_file *f = NULL;
    sqlite3_int64 size = 0;
    unsigned char p[108];
    int n = -1;

    if (s == NULL || s->db == NULL)
        return 0;
    if (sqlite3_prepare_v2(s->db, "SELECT (SELECT count(*) FROM sqlite_master)"
                                  " + (SELECT user_version FROM pragma_user_version)",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (n >= 0)
        return n == 0;
    if (sqlite3_file_control(s->db, "main", SQLITE_FCNTL_FILE_POINTER, &f) != SQLITE_OK ||
        f == NULL || f->pMethods == NULL || f->pMethods->xFileSize(f, &size) != SQLITE_OK ||
        size < (sqlite3_int64)sizeof p || size_beside(s->path, "-wal") > 0 ||
        f->pMethods->xRead(f, p, sizeof p, 0) != SQLITE_OK)
        return 0;
    return memcmp(p, "SQLite format 3", 16) == 0 &&
           (p[60] | p[61] | p[62] | p[63]) == 0 &&    /* user_version */
           p[100] == 0x0D && (p[103] | p[104]) == 0;  /* sqlite_master: no cell */
}

/*
** A reader's open (O->read_ok) of S failed in open_rw, which sets up a
** database that holds nothing (its schema: a write): when S holds no
** table -- an empty file, or one whose creation a full disk stopped -- ERR
** says that first, then why it could not be set up.  A listing of such a
** file read "disk full (nothing was saved)" as if something had been lost.
** 1 when ERR says so.
*/
static int
reader_empty(store *s, const store_open_opts *o, rwkv_err *err)
{
    char why[RWKV_ERR_MSG];
    const char *m = err->msg;
    size_t pl = strlen(s->path);

    if (!o->read_ok || !made_no_tables(s) || err->code == RWKV_ENOMEM)
        return 0;
    if (strncmp(m, s->path, pl) == 0 && m[pl] == ':' && m[pl + 1] == ' ')
        m += pl + 2;
    if (strncmp(m, "open: ", 6) == 0)
        m += 6;
    snprintf(why, sizeof why, "%s", m);
    rwkv_errf(err, RWKV_EDB, "%s: no session saved in it yet (an empty database, which could "
              "not be set up here: %s)", s->path, why);
    return 1;
}

/* A new store of PATH (not connected), or NULL when out of memory. */
static store *
store_new(const char *path)
{
    store *s = calloc(1, sizeof *s);

    if (s == NULL || (s->path = strdup(path)) == NULL) {
        free(s);
        return NULL;
    }
    s->ret.keep_last = STORE_KEEP_LAST_DEFAULT;
    s->ret.every = STORE_EVERY_DEFAULT;
    return s;
}

/* PATH opened read-only (open_ro) into *OUT. */
static int
open_read_only(const char *path, const char *why, const store_open_opts *o, store **out,
               rwkv_err *err)
{
    store *s = store_new(path);
    int rc;

    if (s == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", path);
    if ((rc = open_ro(s, why ? why : RO_WHY_ANY, o, err)) != RWKV_OK) {
        store_close(s);
        return rc;
    }
    store_file_opened(s);
    *out = s;
    return RWKV_OK;
}

int
store_open_peek(const char *path, store **out, rwkv_err *err)
{
    const store_open_opts o = { 1, NULL, NULL };
    struct stat sb;

    *out = NULL;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return rwkv_errf(err, RWKV_EINVAL, "%s: no session database there", path);
    return open_read_only(path, "only looked at", &o, out, err);
}

/* Why a file on a full disk is read read-only (open_ro's WHY). */
#define STORE_FULL_WHY "the disk is full"
/* Room a write needs before standin_retry tries one: the 32 KiB -shm and a
** 64 KiB page's WAL frame. */
#define STORE_ROOM_MIN (128 * 1024)
/* The least time between two tries of standin_retry (ms). */
#define STORE_RETRY_MS 500

/*
** The stand-in of a writer's open a full disk failed (store_open_ex): the
** file read-only (open_ro: an immutable read where its -wal and -shm are
** not there, so nothing is made beside it) or, where the file holds no
** session yet (none, empty, its creation stopped and removed), an empty
** schema in memory that may not be written (query_only).  Its writes fail
** as a full disk's (write_limit): the chat goes on, its saves failed
** saves, said as such.  MKDIRS: the default path (standin_retry).
*/
static int
open_standin(const char *path, int mkdirs, const store_open_opts *o, store **out, rwkv_err *err)
{
    store *s = store_new(path);
    struct stat sb;
    int rc;

    if (s == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", path);
    rc = RWKV_EDB;                     /* no file to read: the schema in memory */
    if (stat(path, &sb) == 0 && sb.st_size > 0 &&
        (rc = open_ro(s, STORE_FULL_WHY, o, err)) != RWKV_OK && !made_no_tables(s)) {
        store_close(s);
        return rc;
    }
    if (rc != RWKV_OK) {
        sqlite3_close_v2(s->db);
        s->db = NULL;
        s->immutable = 0;
        if ((rc = db_connect(s, ":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, o,
                             err)) != RWKV_OK ||
            (rc = migrate(s, err)) != RWKV_OK ||
            (rc = store_exec(s, "PRAGMA query_only=1", err)) != RWKV_OK) {
            store_close(s);
            return rc;
        }
    }
    s->read_only = 1;
    s->standin = 1;
    s->standin_mkdirs = mkdirs;
    *out = s;
    return RWKV_OK;
}

/* Room for a write on the file system of PATH (STORE_ROOM_MIN), or no
** verdict (statvfs failed). */
static int
has_room(const char *path)
{
    char dir[STORE_PATH_MAX];
    struct statvfs v;
    uint64_t free_b;

    rwkv_path_dir(path, dir, sizeof dir);
    if (statvfs(dir, &v) != 0)
        return 1;
    free_b = (uint64_t)(geteuid() == 0 ? v.f_bfree : v.f_bavail) * v.f_frsize;
    return free_b >= STORE_ROOM_MIN;
}

/* A statement of S's connection is running (stepped, not yet reset).  One
** only prepared is no sign (FTS5 keeps its own for the connection's life). */
static int
stmt_running(store *s)
{
    for (sqlite3_stmt *st = sqlite3_next_stmt(s->db, NULL); st != NULL;
         st = sqlite3_next_stmt(s->db, st))
        if (sqlite3_stmt_busy(st))
            return 1;
    return 0;
}

/*
** A stand-in store (open_standin) opened for writing again, in place: at
** most every STORE_RETRY_MS, when the disk has room, and only between
** statements (no transaction, no statement running; the stand-in's
** connection is closed with sqlite3_close_v2, so a statement still
** prepared on it stays valid until finalized).  The writable open is store_open_ex's; while
** it fails the stand-in stays, and what the try made is removed as at the
** open (strays_undo, made_undo).
*/
static void
standin_retry(store *s)
{
    const store_open_opts o = { 0, NULL, NULL };
    sqlite3 *keep = s->db;
    int busy_ms = s->busy_ms, full;
    struct made made;
    rwkv_err e;
    int64_t now = now_ms();

    if (s->tx_depth > 0 || s->read_tx || stmt_running(s) ||
        now - s->standin_tried < STORE_RETRY_MS ||
        !has_room(s->path))
        return;
    s->standin_tried = now;
    memset(&made, 0, sizeof made);
    made.wal = exists_beside(s->path, "-wal");
    made.shm = exists_beside(s->path, "-shm");
    s->standin = s->saw_full = 0;      /* its errors are the file's now */
    s->db = NULL;
    if ((s->standin_mkdirs ? make_parents(s->path, &made, &e) : check_parent(s->path, &e)) ==
            RWKV_OK &&
        create_private(s->path, &made, &e) == RWKV_OK &&
        db_connect(s, s->path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &o, &e) == RWKV_OK &&
        sqlite3_db_readonly(s->db, "main") == 0 && open_rw(s, &o, &e) == RWKV_OK) {
        sqlite3_close_v2(keep);
        s->read_only = s->immutable = 0;
        s->busy_ms = busy_ms;
        store_file_opened(s);
        return;
    }
    full = s->saw_full || (s->db != NULL && disk_full(s));
    made.no_tables = made.file && made_no_tables(s);
    sqlite3_close_v2(s->db);
    if (full)
        strays_undo(s->path, &made);
    made_undo(s->path, &made);
    s->db = keep;
    s->busy_ms = busy_ms;
    s->journal[0] = '\0';
    s->journal_note = 0;
    s->standin = 1;
}

int
store_open(const char *path, store **out, rwkv_err *err)
{
    const store_open_opts o = { 0, "--no-db to save nothing", NULL };

    return store_open_ex(path, &o, out, err);
}

int
store_open_ex(const char *path, const store_open_opts *o, store **out, rwkv_err *err)
{
    char defpath[STORE_PATH_MAX], why[STORE_PATH_MAX + 160];
    store *s;
    int rc, is_default, full = 0, empty = 0;
    struct stat sb;
    struct made made;

    *out = NULL;
    memset(&made, 0, sizeof made);
    if (path == NULL) {
        if ((rc = store_default_path(defpath, sizeof defpath, err)) != RWKV_OK)
            return rc;
        path = defpath;
        is_default = 1;
    } else {
        /* A caller may pass the default path it resolved itself. */
        is_default = store_default_path(defpath, sizeof defpath, NULL) == RWKV_OK &&
                     strcmp(path, defpath) == 0;
    }
    if (path[0] == '\0')
        return rwkv_errf(err, RWKV_EINVAL, "--db: empty path");
    /* SQLite's name for a database in memory: nothing of it outlives the
    ** program (journal_check would refuse it, after the file was made) */
    if (strcmp(path, ":memory:") == 0)
        return rwkv_errf(err, RWKV_EDB, "%s: SQLite keeps this database in journal mode "
                         "'memory', not a file: nothing saved would outlive the program (use a "
                         "file, e.g. ./:memory:%s%s)", path, o->nodb ? ", or " : "",
                         o->nodb ? o->nodb : "");
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return rwkv_errf(err, RWKV_EINVAL, "%s: is a directory, not a session database", path);
    /* a FIFO or a device would block SQLite's first read forever */
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return rwkv_errf(err, RWKV_EINVAL, "%s: not a regular file, not a session database", path);
    /* a file this process may not write: said before SQLite opens it (it
    ** would open it read-only without a word, or fail to make its -wal
    ** and -shm files later); read-only for a reader (store.h) */
    if (stat(path, &sb) == 0 && store_read_only_reason(path, why, sizeof why))
        return o->read_ok ? open_read_only(path, why, o, out, err)
                          : readonly_error(path, why, o, err);
    made.wal = exists_beside(path, "-wal");
    made.shm = exists_beside(path, "-shm");
    if ((rc = is_default ? make_parents(path, &made, err) : check_parent(path, err)) != RWKV_OK ||
        (rc = create_private(path, &made, err)) != RWKV_OK) {
        made_undo(path, &made);
        return rc;
    }
    if ((s = store_new(path)) == NULL) {
        made_undo(path, &made);
        return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", path);
    }
    if ((rc = db_connect(s, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, o, err)) != RWKV_OK)
        goto fail;
    /* SQLite opens a file it may not write read-only without a word; the
    ** store writes at open (WAL mode, migrations), so say why here -- or,
    ** for a reader, open it read-only after all */
    if (sqlite3_db_readonly(s->db, "main") == 1) {
        if (o->read_ok && !made.file && !made.chmoded) {
            store_close(s);
            return open_read_only(path, NULL, o, out, err);
        }
        rc = readonly_error(path, NULL, o, err);
        goto fail;
    }
    if ((rc = open_rw(s, o, err)) != RWKV_OK) {
        full = s->saw_full || disk_full(s);   /* before reader_empty's reads */
        empty = reader_empty(s, o, err);
        goto fail;
    }
    store_file_opened(s);
    *out = s;
    return RWKV_OK;
fail:
    full = full || (s->db != NULL && disk_full(s));
    made.no_tables = made.file && made_no_tables(s);
    store_close(s);
    if (full)
        strays_undo(path, &made);
    made_undo(path, &made);    /* path: defpath or the caller's, not s->path (freed) */
    if (!full)
        return rc;
    /* a full disk (its line for a reader of an empty file: reader_empty) */
    if (!o->read_ok)
        return open_standin(path, is_default, o, out, err);
    if (!empty && !made.no_tables && stat(path, &sb) == 0 && sb.st_size > 0)
        return open_read_only(path, STORE_FULL_WHY, o, out, err);
    return rc;
}

int
store_is_read_only(const store *s)
{
    return s != NULL && s->read_only;
}

void
store_close(store *s)
{
    if (s == NULL)
        return;
    store_file_close(s);
    free(s->path);
    free(s);
}

const char *
store_path(const store *s)
{
    return s->path;
}

void
store_set_tr(store *s, const char *(*tr)(const char *msgid))
{
    s->tr = tr;
}

const char *
store_tr(const store *s, const char *msgid)
{
    return s != NULL && s->tr != NULL ? s->tr(msgid) : msgid;
}

void
store_set_retention(store *s, const store_retention *r)
{
    s->ret = *r;
    if (s->ret.keep_last < 1)
        s->ret.keep_last = 1;
    if (s->ret.every < 0)
        s->ret.every = 0;
}

/* ---- sampling text ------------------------------------------------------ */

void
store_fmt_float(double v, char *buf, size_t cap)
{
    float f = (float)v;

    for (int prec = 6; prec <= 9; prec++) {
        snprintf(buf, cap, "%.*g", prec, (double)f);
        if (strtof(buf, NULL) == f)
            return;
    }
}

void
store_sampling_format(const rwkv_sampling *samp, char *buf, size_t cap)
{
    size_t used = 0;

    if (cap == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; params_table[i].name != NULL; i++) {
        char v[64];
        int n;
        if (params_table[i].type == PARAMS_FLOAT)
            store_fmt_float(params_get(samp, i), v, sizeof v);   /* exact for float */
        else
            params_format(samp, i, v, sizeof v);
        n = snprintf(buf + used, cap - used, "%s%s=%s", used ? " " : "", params_table[i].name, v);
        if (n < 0 || (size_t)n >= cap - used)
            return;
        used += (size_t)n;
    }
}

/*
** A /continue before this version recorded the reply's earlier tokens plus
** max_tokens as its max_tokens, unheld (up to INT_MAX): past the limit
** (params_table) a turn saved by the chat itself read back as damaged, and
** its session could no longer be resumed, shown or exported.  Such a
** value is read as the limit.  That is the same reply again: the value is
** the cap the reply ran under, and no reply reaches the limit (a million
** tokens) -- the chat now records no more (chat_continue).  Every other
** value out of range is damage, as before.
*/
int
store_sampling_set(rwkv_sampling *out, int i, const char *text, rwkv_err *err)
{
    const params_entry *e = &params_table[i];
    int rc = params_set(out, i, text, err);
    char *end;
    long long v;

    if (rc == RWKV_OK || strcmp(e->name, "max_tokens") != 0 || !(*text >= '0' && *text <= '9'))
        return rc;
    errno = 0;
    v = strtoll(text, &end, 10);
    if (errno != 0 || *end != '\0' || v <= (long long)e->max || v > INT_MAX)
        return rc;
    out->max_tokens = (int)e->max;
    return RWKV_OK;
}

/* store_sampling_parse without the message cleaning. */
static int
sampling_parse(const char *text, rwkv_sampling *out, rwkv_err *err)
{
    const char *p = text;

    while (*p) {
        char name[64], val[64];
        size_t nl = 0, vl = 0;
        int i;
        while (*p == ' ')
            p++;
        if (*p == '\0')
            break;
        while (*p && *p != '=' && *p != ' ' && nl + 1 < sizeof name)
            name[nl++] = *p++;
        name[nl] = '\0';
        if (*p != '=')
            return rwkv_errf(err, RWKV_EFORMAT, "sampling values '%.80s': expected name=value", text);
        p++;
        while (*p && *p != ' ' && vl + 1 < sizeof val)
            val[vl++] = *p++;
        val[vl] = '\0';
        if ((i = params_find(name)) < 0)
            return rwkv_errf(err, RWKV_EFORMAT, "sampling values: unknown parameter '%s'", name);
        if (store_sampling_set(out, i, val, err) != RWKV_OK)
            return RWKV_EFORMAT;
    }
    return RWKV_OK;
}

int
store_sampling_parse(const char *text, rwkv_sampling *out, rwkv_err *err)
{
    int rc = sampling_parse(text, out, err);

    /* the text comes from the database (maybe tampered): what of it the
    ** message quotes must not bring line breaks or escape codes along */
    if (rc != RWKV_OK)
        for (char *c = err->msg; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
    return rc;
}

/* ---- models ------------------------------------------------------------- */

/* M's columns as ?1..?11 in the models table's order (path, size, mtime,
** fingerprint, version, n_layer, n_embd, n_head, head_size, vocab,
** digest): the one binding of the row's insert and its lookup. */
static void
model_bind(sqlite3_stmt *st, const store_model *m)
{
    sqlite3_bind_text(st, 1, m->path, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (int64_t)m->size);
    sqlite3_bind_int64(st, 3, m->mtime);
    sqlite3_bind_int64(st, 4, (int64_t)m->fingerprint);
    sqlite3_bind_text(st, 5, m->version, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 6, m->n_layer);
    sqlite3_bind_int(st, 7, m->n_embd);
    sqlite3_bind_int(st, 8, m->n_head);
    sqlite3_bind_int(st, 9, m->head_size);
    sqlite3_bind_text(st, 10, m->vocab, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 11, (int64_t)m->digest);
}

static int
model_upsert(store *s, const store_model *m, int64_t *id, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc = RWKV_OK;

    /* a row made before schema v5 (digest unknown) of this path, size and
    ** fingerprint is this file's: it gets the digest */
    if (m->digest != 0 &&
        (rc = store_prep(s, "UPDATE OR IGNORE models SET digest=?4 WHERE path=?1 AND size=?2"
                            " AND fingerprint=?3 AND digest=0", &st, err)) == RWKV_OK) {
        sqlite3_bind_text(st, 1, m->path, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, (int64_t)m->size);
        sqlite3_bind_int64(st, 3, (int64_t)m->fingerprint);
        sqlite3_bind_int64(st, 4, (int64_t)m->digest);
        rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "saving model");
        sqlite3_finalize(st);
    }
    if (rc != RWKV_OK)
        return rc;
    if ((rc = store_prep(s,
                         "INSERT INTO models(path, size, mtime, fingerprint, version, n_layer, n_embd, n_head, head_size,"
                         " vocab, digest) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
                         " ON CONFLICT(path, size, fingerprint, digest) DO UPDATE SET"
                         " mtime=excluded.mtime, version=excluded.version,"
                         " n_layer=excluded.n_layer, n_embd=excluded.n_embd, n_head=excluded.n_head,"
                         " head_size=excluded.head_size,"
                         " vocab=CASE WHEN excluded.vocab='' THEN models.vocab ELSE excluded.vocab END"
                         " RETURNING id",
                         &st, err)) != RWKV_OK)
        return rc;
    model_bind(st, m);
    if (sqlite3_step(st) == SQLITE_ROW) {
        const int64_t got = sqlite3_column_int64(st, 0);
        if ((rc = store_returning_done(s, st, "saving model", err)) == RWKV_OK)
            *id = got;                 /* only a row that is there */
    } else {
        rc = store_dberr(s, err, "saving model");
    }
    sqlite3_finalize(st);
    return rc;
}

int
store_model_find(store *s, const store_model *m, int64_t *id, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    *id = 0;
    if ((rc = store_prep(s, "SELECT id FROM models WHERE path=?1 AND size=?2 AND mtime=?3"
                            " AND fingerprint=?4 AND version=?5 AND n_layer=?6 AND n_embd=?7"
                            " AND n_head=?8 AND head_size=?9 AND (?10='' OR vocab=?10)"
                            " AND digest=?11", &st, err)) != RWKV_OK)
        return rc;
    model_bind(st, m);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(st, 0);
    rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "reading models");
    sqlite3_finalize(st);
    return rc;
}

int
store_model_upsert(store *s, const store_model *m, int64_t *id, rwkv_err *err)
{
    /* the caller names the action (store.h) */
    return STORE_PLAIN(s, model_upsert(s, m, id, err));
}

/* A models row as store_model_get reads it: every column is NOT NULL. */
#define MODEL_COLS \
    "id, path, size, mtime, fingerprint, version, n_layer, n_embd, n_head, head_size, vocab, digest"
static const store_rowspec model_spec = {
    "models", "SELECT " MODEL_COLS " FROM models",
    STORE_COL(1) | STORE_COL(2) | STORE_COL(3) | STORE_COL(4) | STORE_COL(5) | STORE_COL(6) |
        STORE_COL(7) | STORE_COL(8) | STORE_COL(9) | STORE_COL(10) | STORE_COL(11)
};

int
store_model_get(store *s, int64_t id, store_model *out, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    memset(out, 0, sizeof *out);
    if ((rc = store_prep(s, "SELECT " MODEL_COLS " FROM models WHERE id=?", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    rc = store_step_row(s, st, &model_spec, "reading model", err, "%s: no model %lld", s->path,
                        (long long)id);
    if (rc == RWKV_OK) {
        out->id = id;
        store_col_text(st, 1, out->path, sizeof out->path);
        out->size = (uint64_t)sqlite3_column_int64(st, 2);
        out->mtime = sqlite3_column_int64(st, 3);
        out->fingerprint = (uint64_t)sqlite3_column_int64(st, 4);
        store_col_text(st, 5, out->version, sizeof out->version);
        out->n_layer = sqlite3_column_int(st, 6);
        out->n_embd = sqlite3_column_int(st, 7);
        out->n_head = sqlite3_column_int(st, 8);
        out->head_size = sqlite3_column_int(st, 9);
        store_col_text(st, 10, out->vocab, sizeof out->vocab);
        out->digest = (uint64_t)sqlite3_column_int64(st, 11);
    }
    sqlite3_finalize(st);
    return rc;
}

int
store_model_ref(store *s, int64_t id, store_model *out, rwkv_err *err)
{
    int rc;

    memset(out, 0, sizeof *out);
    if (id == 0)
        return RWKV_OK;
    rc = store_model_get(s, id, out, err);
    return rc == RWKV_EINVAL && out->id == 0 ? RWKV_OK : rc;   /* no such row, no damage */
}

/* ---- presets ------------------------------------------------------------ */

static int
preset_put(store *s, const char *name, const rwkv_sampling *samp, int64_t *id, rwkv_err *err)
{
    sqlite3_stmt *st;
    char txt[512];
    int rc;

    if (name == NULL || name[0] == '\0' || strlen(name) >= STORE_TITLE_MAX)
        return rwkv_errf(err, RWKV_EINVAL, "preset name must be 1..%d bytes", STORE_TITLE_MAX - 1);
    store_sampling_format(samp, txt, sizeof txt);
    if ((rc = store_prep(s, "INSERT INTO presets(name, builtin, sampling) VALUES (?,0,?)"
                            " ON CONFLICT(name) DO UPDATE SET sampling=excluded.sampling WHERE builtin=0"
                            " RETURNING id", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, txt, -1, SQLITE_STATIC);
    /* no row: the upsert's WHERE refused a built-in preset */
    rc = store_step_one(s, st, "saving preset", err,
                        "preset '%s' is built in and cannot be changed", name);
    if (rc == RWKV_OK) {
        const int64_t got = sqlite3_column_int64(st, 0);
        if ((rc = store_returning_done(s, st, "saving preset", err)) == RWKV_OK && id)
            *id = got;
    }
    sqlite3_finalize(st);
    return rc;
}

int
store_preset_put(store *s, const char *name, const rwkv_sampling *samp, int64_t *id,
                 rwkv_err *err)
{
    /* the caller names the action (store.h) */
    return STORE_PLAIN(s, preset_put(s, name, samp, id, err));
}

/* A presets row as store_preset_get reads it (store_preset_list: id, name). */
static const store_rowspec preset_spec = {
    "presets", "SELECT id, sampling FROM presets", STORE_COL(1)
};
static const store_rowspec preset_name_spec = {
    "presets", NULL, STORE_COL(1)
};

int
store_preset_get(store *s, const char *name, rwkv_sampling *out, int64_t *id, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    if ((rc = store_prep(s, "SELECT id, sampling FROM presets WHERE name=?", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    rc = store_step_row(s, st, &preset_spec, "reading preset", err, "no preset '%s'", name);
    if (rc == RWKV_OK) {
        if (id)
            *id = sqlite3_column_int64(st, 0);
        params_defaults(out);
        rc = store_sampling_parse((const char *)sqlite3_column_text(st, 1), out, err);
    }
    sqlite3_finalize(st);
    return rc;
}

int
store_preset_list(store *s, char ***names, size_t *n, rwkv_err *err)
{
    sqlite3_stmt *st;
    size_t count = 0, bytes = 0, cap = 0;
    char *text = NULL;
    int rc;

    *names = NULL;
    *n = 0;
    if ((rc = store_prep(s, "SELECT id, name FROM presets ORDER BY builtin DESC, name", &st, err)) != RWKV_OK)
        return rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *nm;
        size_t l;
        int bad = store_row_check(s, st, &preset_name_spec, err);
        if (bad != RWKV_OK) {
            free(text);
            sqlite3_finalize(st);
            return bad;
        }
        nm = sqlite3_column_text(st, 1);
        l = (nm ? (size_t)sqlite3_column_bytes(st, 1) : 0) + 1;
        if (bytes + l > cap) {
            size_t nc = (cap + l) * 2;
            char *t = realloc(text, nc);
            if (t == NULL) {
                free(text);
                sqlite3_finalize(st);
                return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
            }
            text = t;
            cap = nc;
        }
        /* NULs dropped (store_nul_drop): one inside a name split it in two */
        bytes += store_nul_drop(text + bytes, nm, l - 1) + 1;
        count++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(text);
        return store_dberr(s, err, "listing presets");
    }
    /* One block: the pointer array, then the strings. */
    char **blk = malloc(count * sizeof(char *) + bytes + 1);
    if (blk == NULL) {
        free(text);
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    }
    char *strs = (char *)(blk + count);
    if (bytes)
        memcpy(strs, text, bytes);
    for (size_t i = 0, off = 0; i < count; i++) {
        blk[i] = strs + off;
        off += strlen(strs + off) + 1;
    }
    free(text);
    *names = blk;
    *n = count;
    return RWKV_OK;
}

/* ---- state files -------------------------------------------------------- */

static int
statefile_add(store *s, const store_statefile *f, int64_t *id, rwkv_err *err)
{
    sqlite3_stmt *st;
    char txt[512];
    int64_t old = 0;
    int rc;

    store_sampling_format(&f->defaults, txt, sizeof txt);
    /* A row is one content at one path: the same bytes referenced at a
    ** path already known are the same row; other bytes at that path (a
    ** state re-trained and saved over the old name) get their own, so the
    ** sessions made with the old bytes keep naming them. */
    if (f->data == NULL && f->path[0] != '\0') {
        if ((rc = store_prep(s, "SELECT id FROM state_files WHERE path=?1 AND data IS NULL"
                                " AND fingerprint=?2 ORDER BY id LIMIT 1", &st, err)) != RWKV_OK)
            return rc;
        sqlite3_bind_text(st, 1, f->path, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, (int64_t)f->fingerprint);
        if (sqlite3_step(st) == SQLITE_ROW)
            old = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    if (old > 0)
        rc = store_prep(s, "UPDATE state_files SET name=?1, path=?2, data=?3, size=?4, fingerprint=?5,"
                           " n_layer=?6, n_embd=?7, n_head=?8, head_size=?9, sampling=?10 WHERE id=?11", &st, err);
    else
        rc = store_prep(s, "INSERT INTO state_files(name, path, data, size, fingerprint, n_layer, n_embd,"
                           " n_head, head_size, sampling) VALUES (?,?,?,?,?,?,?,?,?,?)", &st, err);
    if (rc != RWKV_OK)
        return rc;
    if (old > 0)
        sqlite3_bind_int64(st, 11, old);
    sqlite3_bind_text(st, 1, f->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, f->path, -1, SQLITE_STATIC);
    if (f->data)
        sqlite3_bind_blob64(st, 3, f->data, f->size, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 3);
    sqlite3_bind_int64(st, 4, (int64_t)f->size);
    sqlite3_bind_int64(st, 5, (int64_t)f->fingerprint);
    sqlite3_bind_int(st, 6, f->n_layer);
    sqlite3_bind_int(st, 7, f->n_embd);
    sqlite3_bind_int(st, 8, f->n_head);
    sqlite3_bind_int(st, 9, f->head_size);
    sqlite3_bind_text(st, 10, txt, -1, SQLITE_STATIC);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "saving state file");
    sqlite3_finalize(st);
    if (rc == RWKV_OK && id)
        *id = old > 0 ? old : sqlite3_last_insert_rowid(s->db);
    return rc;
}

int
store_statefile_add(store *s, const store_statefile *f, int64_t *id, rwkv_err *err)
{
    /* the caller names the action (store.h) */
    return STORE_PLAIN(s, statefile_add(s, f, id, err));
}

int
store_statefile_list(store *s, store_statefile **out, size_t *n, rwkv_err *err)
{
    sqlite3_stmt *st;
    store_statefile *v = NULL;
    size_t cnt = 0, cap = 0;
    int rc;

    *out = NULL;
    *n = 0;
    /* a file, not its rows: a path rewritten with other bytes has a row
    ** per content (statefile_add), listed once by its newest row */
    if ((rc = store_prep(s, "SELECT id FROM state_files f WHERE data IS NOT NULL OR path=''"
                            " OR NOT EXISTS (SELECT 1 FROM state_files g WHERE g.path=f.path"
                            " AND g.data IS NULL AND g.id>f.id) ORDER BY name, id", &st, err))
        != RWKV_OK)
        return rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_statefile *t = store_grow(v, &cap, cnt, sizeof *v, 8);
        if (t == NULL) {
            rc = SQLITE_NOMEM;
            break;
        }
        v = t;
        if (store_statefile_get(s, sqlite3_column_int64(st, 0), &v[cnt], NULL, err) != RWKV_OK) {
            sqlite3_finalize(st);
            free(v);
            return err ? err->code : RWKV_EDB;
        }
        cnt++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(v);
        return rc == SQLITE_NOMEM ? rwkv_errf(err, RWKV_ENOMEM, "out of memory")
                                  : store_dberr(s, err, "listing state files");
    }
    *out = v;
    *n = cnt;
    return RWKV_OK;
}

/* A state_files row as store_statefile_get reads it, DATA in column 3 (the
** blob, or NULL where it is not wanted); all but data are NOT NULL. */
#define STATEFILE_COLS(data) \
    "id, name, path, " #data ", size, fingerprint, n_layer, n_embd, n_head, head_size, sampling"
static const store_rowspec statefile_spec = {
    "state_files", "SELECT " STATEFILE_COLS(NULL) " FROM state_files",
    STORE_COL(1) | STORE_COL(2) | STORE_COL(4) | STORE_COL(5) | STORE_COL(6) | STORE_COL(7) |
        STORE_COL(8) | STORE_COL(9) | STORE_COL(10)
};

int
store_statefile_get(store *s, int64_t id, store_statefile *out, void **data, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    memset(out, 0, sizeof *out);
    if (data)
        *data = NULL;
    if ((rc = store_prep(s, "SELECT " STATEFILE_COLS(data) " FROM state_files WHERE id=?", &st, err))
        != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    rc = store_step_row(s, st, &statefile_spec, "reading state file", err, "%s: no state file %lld",
                        s->path, (long long)id);
    if (rc == RWKV_OK) {
        out->id = id;
        store_col_text(st, 1, out->name, sizeof out->name);
        store_col_text(st, 2, out->path, sizeof out->path);
        out->size = (size_t)sqlite3_column_int64(st, 4);
        out->fingerprint = (uint64_t)sqlite3_column_int64(st, 5);
        out->n_layer = sqlite3_column_int(st, 6);
        out->n_embd = sqlite3_column_int(st, 7);
        out->n_head = sqlite3_column_int(st, 8);
        out->head_size = sqlite3_column_int(st, 9);
        params_defaults(&out->defaults);
        rc = store_sampling_parse((const char *)sqlite3_column_text(st, 10), &out->defaults, err);
        if (rc == RWKV_OK && data && sqlite3_column_type(st, 3) == SQLITE_BLOB) {
            size_t n = (size_t)sqlite3_column_bytes(st, 3);
            void *p = malloc(n ? n : 1);
            if (p == NULL)
                rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory");
            else {
                memcpy(p, sqlite3_column_blob(st, 3), n);
                *data = p;
            }
        }
    }
    sqlite3_finalize(st);
    return rc;
}

int
store_statefile_ref(store *s, int64_t id, store_statefile *out, rwkv_err *err)
{
    int rc;

    memset(out, 0, sizeof *out);
    if (id == 0)
        return RWKV_OK;
    rc = store_statefile_get(s, id, out, NULL, err);
    return rc == RWKV_EINVAL && out->id == 0 ? RWKV_OK : rc;   /* no such row, no damage */
}
