/*
** store_int.h -- internals shared by the storage/ files (not a public API).
*/
#ifndef RWKV_STORE_INT_H
#define RWKV_STORE_INT_H

#include <sqlite3.h>

#include "store.h"

/* The files beside the database, as store_file.c finds them (store.wal_state). */
enum store_wal {
    STORE_WAL_OK = 0,     /* the -wal and -shm at the path are the ones SQLite has open */
    STORE_WAL_GONE,       /* one was deleted, nobody wrote through another: mendable */
    STORE_WAL_FOREIGN     /* another program wrote through files this connection cannot see */
};

struct store {
    sqlite3        *db;
    char           *path;        /* owned */
    store_retention ret;
    /* the file opened (store_file.c): device and inode at open; lost once
    ** the path no longer holds it */
    uint64_t        dev, ino;
    int             lost;
    /* the -wal and -shm files SQLite opened beside it (store_file.c):
    ** device and inode (0: not known); WAL_GONE once the path no longer
    ** holds one of them while nobody else wrote (every commit is then
    ** checkpointed until a fresh WAL is made); WAL_FOREIGN when another
    ** program has written through files this connection cannot see;
    ** wal_note: a line for the user is pending (store_file_note) */
    uint64_t        wal_dev, wal_ino, shm_dev, shm_ino;
    int             wal_state;
    int             wal_note;
    const char     *wal_what;    /* "-wal" or "-shm": the file found gone */
    /* the journal mode SQLite gave instead of WAL, "" = WAL (store.c,
    ** journal_check; store_file.c, wal_renew: store_journal_fallback);
    ** journal_note: its line is pending (store_file_note) */
    char            journal[16];
    int             journal_note;
    /* lock waits (store.c, busy_wait): the most a wait lasts (ms); with
    ** busy_once, a wait that ran out makes the later ones give up at once
    ** (busy_spent) until store_busy_once is called again */
    int             busy_ms;
    int             busy_once, busy_spent;
    int64_t         busy_since;  /* ms, mono clock: start of the current wait */
    uint64_t        busy_timeouts;
    /* store_set_busy_hook: called on the waiting statement's thread before
    ** each nap of a wait; busy_gave_up: it asked to stop (set at that, cleared
    ** when the next wait begins), so the statement's SQLITE_BUSY is told as
    ** given up (store_dberr, store_exec) */
    int           (*busy_hook)(void *ud, int waited_ms);
    void           *busy_hook_ud;
    int             busy_gave_up;
    /* set while a statement must not wait at all (store_vacuum_after_delete,
    ** store_wal_trim): busy_wait gives up at once, not counted as a wait that
    ** ran out */
    int             busy_never;
    /* the last turn write that moved a session's head (store_turn.c,
    ** store_turn_head_before): the head it replaced and the other children
    ** its turn's parent had, both read inside its transaction */
    int64_t         head_before;
    int             head_siblings;
    /* set while a user-level write (rename, fork, delete, prune) runs: its
    ** database errors are "PATH: why" (store_dberr leaves out its WHAT),
    ** the caller naming the action once */
    int             plain_errors;
    /* store_tx_begin's nesting: 0 outside a transaction, 1 in BEGIN
    ** IMMEDIATE, N > 1 in its savepoint store_tx_N */
    int             tx_depth;
    /* store_read_begin's snapshot is open (a BEGIN of its own) */
    int             read_tx;
    /* opened read-only (store_open_ex, read_ok): nothing is written,
    ** checkpointed or removed, at the close either; immutable: through
    ** SQLite's immutable=1 (no -wal, no -shm, no locks) */
    int             read_only, immutable;
    /* a writer's open that a full disk failed (store.c, open_standin): S
    ** reads a stand-in -- the file read-only, or an empty schema in memory
    ** where the file holds no session yet -- whose writes fail as a full
    ** disk's; standin_retry opens the file for writing again once the disk
    ** has room (standin_tried: its last try, ms on the mono clock;
    ** standin_mkdirs: the default path, whose folders it may make) */
    int             standin, standin_mkdirs;
    int             saw_full;    /* a statement failed on a full disk (write_limit) */
    int64_t         standin_tried;
    /* store_set_tr: the notes' formats in the front end's language */
    const char   *(*tr)(const char *msgid);
    /* store_fts_mend rebuilt the search index: store_file_note says so */
    int             fts_note;
};

/* MSGID (a note's format or a word for it) through the store's tr hook;
** MSGID itself without one (English). */
const char *store_tr(const store *s, const char *msgid)
#if defined(__GNUC__)
    __attribute__((format_arg(2)))
#endif
    ;

/*
** The WAL is checkpointed once it holds this many frames (16 MB of 64 KB
** pages), as PRAGMA wal_autocheckpoint=256 did: the store's own WAL hook
** (store_file_wal_hook) takes the place of SQLite's, so it does it.
*/
#define STORE_WAL_AUTOCHECKPOINT 256

/* Application id in the database header: 'RWKV'. */
#define STORE_APP_ID 0x52574B56

/*
** The id a new row of TABLE ("sessions" or "turns") must take, as an SQL
** expression: one above the highest id the table ever had (schema v6's
** id_seq), so an id freed by a delete is never given to another row.  Every
** INSERT into those tables names its id with it.
*/
#define STORE_NEXT_ID(table) \
    "(SELECT max(seq, coalesce((SELECT max(id) FROM " table "), 0)) + 1" \
    " FROM id_seq WHERE name='" table "')"

/*
** The SQL that takes a file of schema VERSION-1 to VERSION (1: an empty file
** to the first schema), static text; NULL outside 1..STORE_SCHEMA_VERSION.
*/
const char *store_schema_step(int version);
/*
** The array P (owned by the caller; NULL when empty) of *CAP elements of SIZE
** bytes, N of them in use, with room for one more: doubled when full (FIRST
** elements the first time), *CAP updated.  Returns the array, perhaps moved;
** NULL when out of memory, P then unchanged and still the caller's.
*/
void *store_grow(void *p, size_t *cap, size_t n, size_t size, size_t first);
/* Unix time in milliseconds. */
int64_t store_now_ms(void);
/* The URI that opens PATH read-only as an immutable file ("file:PATH?
** immutable=1", PATH escaped) into BUF (CAP bytes): 0, -1 when too long.
** (store_ro.c) */
int store_ro_uri(const char *path, char *buf, size_t cap);
/* Fill ERR from the connection's last error: "PATH: WHAT: sqlite message"
** ("PATH: sqlite message" while S->plain_errors is set). */
int store_dberr(store *s, rwkv_err *err, const char *what);
/* S->plain_errors back down, RC passed through (STORE_PLAIN). */
static inline int
store_plain_end(store *s, int rc)
{
    s->plain_errors--;
    return rc;
}
/* CALL, an int expression, with S's errors in the plain form "PATH: why":
** for the store's public writes whose callers name the action (store.h). */
#define STORE_PLAIN(s, call) ((s)->plain_errors++, store_plain_end((s), (call)))
/* Run SQL without results; RWKV_EDB with a message on failure. */
int store_exec(store *s, const char *sql, rwkv_err *err);
/* Run SQL, a statement of one parameter, once for each of the N ids IDS,
** in order (inside the caller's transaction); a failure is RWKV_EDB "PATH:
** WHAT: ...", the rest not run. */
int store_exec_ids(store *s, const char *sql, const int64_t *ids, size_t n, const char *what,
                   rwkv_err *err);
/* After the row of an INSERT ... RETURNING: run ST to its end, where an
** autocommit statement commits -- a full disk fails there, and a statement
** finalized after its row alone reported the row saved when it was not
** (a session then failed its FOREIGN KEY on a model row that was never
** there).  RWKV_OK, or RWKV_EDB "PATH: WHAT: ...". */
int store_returning_done(store *s, sqlite3_stmt *st, const char *what, rwkv_err *err);
/* Prepare SQL into *ST; RWKV_EDB on failure. */
int store_prep(store *s, const char *sql, sqlite3_stmt **st, rwkv_err *err);
/*
** Step ST, a query for at most one row.  RWKV_OK with ST on that row (read
** it, then finalize ST as always); else ERR is filled: RWKV_EINVAL with the
** printf-style message ABSENT when there is no row, RWKV_EDB "PATH: WHAT:
** ..." (store_dberr) when the step failed.  ST is left for the caller.
*/
int store_step_one(store *s, sqlite3_stmt *st, const char *what, rwkv_err *err, const char *absent,
                   ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/*
** Damaged rows (store_row.c).  A table page whose cells were overwritten
** reads without an error, as rows of id 0 full of NULLs, and a row it held
** is not found; so each row reader describes its row and checks it.
**
** store_rowspec: TABLE, its name for the message; NOTNULL, STORE_COL(i) of
** each column of the reader's SELECT that the schema declares NOT NULL
** (column 0 is always the row's id); ALL (static text, NULL: none), the
** reader's columns from every row of the table, scanned when a keyed read
** finds no row -- for the small tables only, never turns.
*/
#define STORE_COL(i) (1u << (i))
typedef struct store_rowspec {
    const char *table;
    const char *all;
    uint32_t    notnull;
} store_rowspec;
/* RWKV_ECORRUPT "PATH: the session database is corrupt (WHY): WAY ON": the
** one message of a damaged file (SQLite's SQLITE_CORRUPT or SQLITE_NOTADB on
** a file that opened as a database, a damaged row), its way on (what still
** reads, exported into a new file) in it.  ERR may be NULL. */
int store_corrupt(store *s, rwkv_err *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* ST's current row against RS: an id > 0 in column 0, no NULL in a NOTNULL
** column.  RWKV_OK, or store_corrupt naming the table, row and column.
** Call it before reading the row (a read may convert a column's type). */
int store_row_check(store *s, sqlite3_stmt *st, const store_rowspec *rs, rwkv_err *err);
/*
** store_step_one for a keyed read of one row of RS's table: the row found
** is checked (store_row_check); when there is none, RS->all is scanned
** first, so a row lost in a damaged page is the damaged-database error and
** only a row truly missing is RWKV_EINVAL with the message ABSENT.
*/
int store_step_row(store *s, sqlite3_stmt *st, const store_rowspec *rs, const char *what,
                   rwkv_err *err, const char *absent, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
/*
** A write transaction, nestable: outside one, BEGIN IMMEDIATE / COMMIT /
** ROLLBACK; inside one (a write that makes its own transaction called from
** a caller's, as the first save of a new session is: session_db.c), the
** savepoint of its level: SAVEPOINT / RELEASE / ROLLBACK TO, so the inner
** work is undone on its own and made durable only by the outermost COMMIT.
** Each begin that succeeded is ended by one commit or one rollback; a
** commit that fails has rolled its level back (rollback never fails
** loudly).  Once SQLite rolled the whole transaction back by itself (a full
** disk, an I/O error), an inner begin or commit fails: nothing runs outside
** the transaction its caller opened.
*/
int  store_tx_begin(store *s, rwkv_err *err);
int  store_tx_commit(store *s, rwkv_err *err);
void store_tx_rollback(store *s);
/* How many store_tx_begin levels are open (0: none). */
int  store_tx_depth(const store *s);
/* The first column of the first row of SQL (0 when there is no row). */
int store_pragma_int(store *s, const char *sql, int64_t *out, rwkv_err *err);
/*
** Text read back from the file: a column is read by its length
** (sqlite3_column_bytes), never as a C string, and every NUL byte in it is
** dropped, the rest kept -- the one rule for a NUL in a row another program
** wrote (a text with '\0' in it, a blob).  The chat never writes one: its
** stream leaves the byte out of a reply's text (README "No NUL in a reply's
** text"), and store_text_clean drops it on import.  Cutting at the NUL, as
** reading a C string does, lost the rest of a turn in `sessions show`, an
** export and a resumed transcript.
**
** store_nul_drop: the N bytes at SRC without their NULs into DST (room for
** N + 1 bytes), NUL-terminated; returns the length written.
*/
size_t store_nul_drop(char *dst, const void *src, size_t n);
/* Column I of ST's row by that rule, *LEN its length (a NULL column: "").
** Borrowed from ST (valid until it steps or is finalized) when the column
** holds no NUL; else a copy, also in *OWN, which the caller frees (*OWN is
** NULL otherwise).  NULL when out of memory. */
const char *store_col_str(sqlite3_stmt *st, int i, size_t *len, char **own);
/* At most CAP-1 bytes of column I by that rule into BUF (NUL-terminated). */
void store_col_text(sqlite3_stmt *st, int i, char *buf, size_t cap);
/* The search index (store_fts.c).  store_fts_damaged: ERR is the line of
** a damaged index (RWKV_ECORRUPT), the way on for a writable or read-only
** file; store_fts_check: *DAMAGED from FTS5's integrity-check (a writable
** file); store_fts_rebuild: the index made again from turns, in one
** transaction; store_fts_mend, after a statement reading the index failed
** with ERR: RWKV_OK when the index was the damage and is rebuilt (run the
** statement again), else ERR's code, ERR the line to give (the index's,
** where it was that). */
int store_fts_damaged(store *s, rwkv_err *err);
int store_fts_check(store *s, int *damaged, rwkv_err *err);
int store_fts_rebuild(store *s, rwkv_err *err);
int store_fts_mend(store *s, rwkv_err *err);
/* store_title_clean of TITLE's N bytes (a NUL in them a control like any
** other, dropped): what an imported title and a title read back take. */
void store_title_clean_n(const char *title, size_t n, char *out, size_t cap);
/* Column I as a session title (store_title_clean) by that rule into OUT. */
void store_col_title(sqlite3_stmt *st, int i, char *out, size_t cap);
/* Shortest "%g" text of V that reads back as the same float. */
void store_fmt_float(double v, char *buf, size_t cap);
/* params_set of a stored or imported value TEXT (store.c): the same rule,
** but for the one value this program itself once wrote out of range. */
int  store_sampling_set(rwkv_sampling *out, int i, const char *text, rwkv_err *err);
/* Apply the retention policy to SESSION (inside a transaction). */
int store_retain(store *s, int64_t session, rwkv_err *err);
/* The budget applied in the open transaction, SESSION's head spared (0:
** none is); INFO filled (zeros when no budget is set). */
int store_budget_apply(store *s, int64_t session, store_budget_info *info, rwkv_err *err);
/* Drop the saved states of the N turns TURNS, in order (inside a
** transaction; a turn without one is no error): the one way states go --
** retention, the budget, a deleted branch.  WHAT names the work in an error. */
int store_snapshot_drop_tx(store *s, const int64_t *turns, size_t n, const char *what,
                           rwkv_err *err);
/* Insert/replace a snapshot (inside a transaction). */
int store_snapshot_put_tx(store *s, int64_t turn, const float *state, size_t n,
                          const store_state_meta *meta, rwkv_err *err);
/* Fold the states saved inline (before v8) that have a twin into shared
** rows, inside the caller's transaction (store_snapshot.c): *FOLDED of them,
** *SAVED bytes given back. */
int store_snapshot_fold_tx(store *s, int64_t *folded, uint64_t *saved, rwkv_err *err);

/*
** The turns root..?1, bounded on a tampered file: each step up must reach a
** strictly smaller depth in the same session, so a parent loop ends the walk.
** Columns id, parent, depth; the row of smallest depth must have no parent,
** which store_path_check verifies.  Append the SELECT.
*/
#define STORE_PATH_CTE \
    "WITH RECURSIVE p(id, parent, depth, sess) AS (" \
    " SELECT id, parent_id, depth, session_id FROM turns WHERE id=?1" \
    " UNION ALL SELECT t.id, t.parent_id, t.depth, t.session_id FROM turns t JOIN p" \
    " ON t.id=p.parent AND t.depth < p.depth AND t.session_id=p.sess)"
/* TOP is the first turn of a walk up: RWKV_OK if it really is a root, else
** RWKV_EFORMAT "turn N: parent loop in the database" (or its parent is
** missing). */
int store_path_check(store *s, int64_t top, rwkv_err *err);

/* Insert a session row / a turn row inside the caller's transaction (the
** turn's parent is checked; T->id OUT; the head is not moved). */
int store_session_insert_tx(store *s, const store_session *in, int64_t *id, rwkv_err *err);
int store_turn_insert_tx(store *s, store_turn *t, rwkv_err *err);

/* A growing text buffer (store_export.c): OOM is sticky, P stays
** NUL-terminated; free(b.p) when done. */
struct sbuf {
    char  *p;
    size_t n, cap;
    int    oom;
};
void sb_put(struct sbuf *b, const char *s, size_t n);
void sb_puts(struct sbuf *b, const char *s);
/* The export's end: RC (RWKV_ENOMEM when B ran out of memory) and B's text
** into *BUF / *LEN (owned by the caller), or B freed. */
int  sb_take(struct sbuf *b, int rc, char **buf, size_t *len, rwkv_err *err);
void sb_printf(struct sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* S as a JSON string literal (UTF-8 passed through, controls escaped). */
void sb_json_str(struct sbuf *b, const char *s);
/* S well-formed (store_text_utf8: controls kept, escaped) as a JSON string
** literal. */
void sb_json_clean(struct sbuf *b, const char *s);
/* The JSON export's writers (store_export.c's format comment), for a saved
** session and for the chat in memory (session_export.c): the opening up to
** "model" (M NULL: null), and one turn ("damaged" when DAMAGED is not
** empty; FIRST: no comma before it). */
void sb_json_session(struct sbuf *b, const char *title, int64_t created_ms,
                     const char *strategy, const store_model *m);
void sb_json_turn(struct sbuf *b, const store_turn *t, int first, const char *damaged);
/* T->interrupted of a reply another process is still writing, for
** sb_json_turn alone ("interrupted": true, "being_written": true). */
#define STORE_TURN_LIVE 3
/* ",\n  \"state_file\": ..." of the JSON export: F's name, path, size and
** digest (fingerprint), or null for F NULL (store_export.c). */
void sb_json_statefile(struct sbuf *b, const store_statefile *f);
/* A sampling object of the JSON export (a turn's, the session's): every
** params_table value, the seed as a decimal string; V NULL: null. */
void sb_json_sampling(struct sbuf *b, const rwkv_sampling *v);
/* S cleaned (store_text_clean) as Markdown text that stays text: what a
** Markdown export writes for a message (session_export.c too). */
void sb_md(struct sbuf *b, const char *s);
/* store_file.c: remember the file just opened (at the end of store_open);
** close S's connection, leaving a lost file's path alone (store_close). */
void store_file_opened(store *s);
void store_file_close(store *s);
/* SQLite keeps S's file in MODE, a rollback journal, where WAL was asked
** for -- at open (store.c, journal_check) or when a fresh WAL was to be
** made (store_file.c, wal_renew): remembered, and one note pending
** (store_file_note says it once, whichever of the two it was). */
void store_journal_fallback(store *s, const char *mode);
/* The WAL hook of S's connection (store_open): after every commit, the
** files beside the database are looked at (store_file.c) and the WAL is
** checkpointed when they are not SQLite's, or past STORE_WAL_AUTOCHECKPOINT
** frames (the hook replaces SQLite's own autocheckpoint). */
int  store_file_wal_hook(void *ud, sqlite3 *db, const char *name, int frames);
/* Copy the framing of session FROM to session TO (store_framing.c; inside
** the caller's transaction). */
int  store_framing_copy_tx(store *s, int64_t from, int64_t to, rwkv_err *err);
/* store_vacuum.c: the vacuum after a delete that committed (store_session_delete,
** store_turn_prune; the states store_budget_set dropped): store_vacuum tried
** once, without waiting for another connection's lock -- its failure is
** harmless (the pages stay free, reused by later writes, given back by the
** next delete or `sessions vacuum`), so the delete that is done never waits
** the busy time for it.  Its error is dropped. */
void store_vacuum_after_delete(store *s);

/* store_casefold.c: the search's one case folding (store_casefold_cp,
** store.h).  store_casefold_str: the N bytes at S folded (ill-formed bytes
** kept), a new NUL-terminated string owned by caller (free), *OUT_LEN its
** length; NULL out of memory.  store_casefold_register: SQL rwkv_fold(X) on
** S's connection. */
char    *store_casefold_str(const char *s, size_t n, size_t *out_len);
int      store_casefold_register(store *s, rwkv_err *err);

#endif
