/*
** store.h -- the session database: conversations as a tree of turns, with
** the model state after each turn, so a chat can be resumed, regenerated or
** forked from any turn without re-reading the conversation.
**
** One SQLite file (default $XDG_DATA_HOME/rwkv-tui/rwkv-tui.db, mode 0600,
** WAL, foreign keys, busy timeout, auto_vacuum=INCREMENTAL, schema version in
** PRAGMA user_version with forward migrations; a newer schema is refused).
** Every write is one transaction: a crash loses at most the turn being
** written, never a completed one.
**
** Rows: models, state_files, presets, sessions, turns (a tree: parent_id),
** snapshots (one per turn at most: the state AFTER that turn's tokens were
** fed), turns_fts (FTS5 trigram index over turn text, schema v3); the
** framing of sessions and presets (schema v4: storage/framing.h).
**
** Terms.  A turn's `tokens` are exactly the ids fed to the model for that
** turn (user turn: the formatted prompt "User: ...\n\nAssistant:"; assistant
** turn: the generated ids, in order).  So the state after turn T = the
** session's initial state (zeros, or its state file) + the tokens of every
** turn on the path root..T, in order.  The "state before the reply" of an
** assistant turn is the snapshot of its parent (the user turn).
**
** Snapshot life cycle (store_snapshot.c):
**
**      store_turn_append / store_turn_finish (state given)
**   (none) -----------------------------------------> STORED
**      STORED --store_retain() (same transaction)---> dropped, unless the turn
**               is a leaf, a branch point, one of the last `keep_last` turns
**               of a branch, or its depth is a multiple of `every`
**      STORED --get with another fingerprint/digest/dims--> MISMATCH (never used:
**               the caller replays tokens from an older snapshot or the root)
**      STORED --checksum/size check fails-----------> CORRUPT (same)
**
** How a chat uses these calls (resume, save as the reply goes, regenerate,
** fork, sibling steps, state-file switch, replay) is written once, in the
** session runtime: storage/session.h.
**
** Threads: a store handle is used by one thread at a time.  Several processes
** may use one file at once (WAL + busy timeout).
*/
#ifndef RWKV_STORE_H
#define RWKV_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/chat/params.h"
#include "../core/rwkv.h"
#include "../core/status.h"

typedef struct store store;    /* opaque: store_open / store_close */

/* Schema version written to PRAGMA user_version by this build. */
#define STORE_SCHEMA_VERSION 8
/* Longest session title / preset name (bytes), longer ones are refused. */
#define STORE_TITLE_MAX 256
/* Longest path kept for a model or a state file. */
#define STORE_PATH_MAX 4096
/* How long a write waits for another process's transaction (ms). */
#define STORE_BUSY_MS 10000
/* Largest state accepted as a snapshot: 2^30 floats (4 GiB), far above a
** 14B model's state; a blob header claiming more is corrupt. */
#define STORE_MAX_STATE_FLOATS (1u << 30)

enum store_role { STORE_ROLE_SYSTEM = 0, STORE_ROLE_USER = 1, STORE_ROLE_ASSISTANT = 2 };

/* "system" / "user" / "assistant"; store_role_parse returns -1 if unknown. */
const char *store_role_name(int role);
int         store_role_parse(const char *name);

/* ---- open / close -------------------------------------------------------- */

/*
** Open (creating if absent, mode 0600) the database at PATH, or at the
** default path when PATH is NULL.  Only the default path gets its missing
** directories created; an explicit PATH in a directory that does not exist
** is refused with one line, as is a file it may not write (why, and a hint:
** store_open_ex, NODB).  An existing empty file is made 0600.  Migrates an older schema
** forward inside one transaction; refuses a newer one, a non-database and a
** corrupt file with one clear message naming PATH.  Journal: WAL; where
** SQLite cannot use WAL for the file it keeps a rollback journal, which
** loses nothing saved in a crash either: the store opens, and
** store_file_note has a line saying so; any other journal mode (an
** in-memory database, --db :memory:; no journal) would lose saved turns in
** a crash: refused with one line naming PATH and the mode (store.c,
** journal_check).  A full disk fails no open (store.c, open_standin): the
** store reads the file as it is (read-only; an empty database where there
** is none yet), every write fails as on a full disk ("disk full (nothing
** was saved)"), and the first statement after the disk has room again
** opens it for writing.  *OUT is owned by the caller: close with store_close.
*/
int  store_open(const char *path, store **out, rwkv_err *err);
/*
** How store_open_ex opens the database (store_open: all zero but NODB,
** "--no-db to save nothing": the full-screen client's words).
**
** READ_OK: the caller only reads (`sessions list`, show, export, search,
** state).  A database this process may write opens as with store_open
** (its schema migrated, an empty file made a database).  One it may not
** write -- a read-only file system, a file without write permission or
** with no write bit at all (mode 0444: refused for root too, as the
** outputs' rule does), an immutable one (chattr +i), or a folder where
** SQLite cannot make its -wal and -shm files -- is opened read-only
** (SQLITE_OPEN_READONLY) and nothing is created, changed or removed: a
** WAL database whose -wal and -shm are there (another connection has it
** open) is read through them as any reader does (taking its read mark in
** the -shm); one without a -wal is read as an immutable file (URI
** immutable=1: no -wal, -shm or lock, as SQLite's read-only WAL rule
** needs them made otherwise -- should another program start writing it
** during the read, this read may see half of a commit: a short read, a
** small risk, said here); a rollback-journal file is read with its usual
** locks.  An older schema cannot be migrated read-only: refused with one
** line.  store_is_read_only says which open it got; a write through a
** read-only store fails ("attempt to write a readonly database").
**
** NODB: this front end's way to save nothing, for the hints of the lines
** refusing a database it cannot write ("use a writable --db, or NODB");
** NULL: the front end has none (the hint says "use a writable --db").
** RO_HINT: the whole hint after a refused read-only database instead
** (NULL: the one above).  Both borrowed for the call.
*/
typedef struct store_open_opts {
    int         read_ok;
    const char *nodb;
    const char *ro_hint;
} store_open_opts;
int  store_open_ex(const char *path, const store_open_opts *o, store **out, rwkv_err *err);
/* PATH, an existing database, opened read-only to look at it (as
** store_open_ex's READ_OK opens one it may not write): nothing is made,
** migrated or changed; none there, RWKV_EINVAL. */
int  store_open_peek(const char *path, store **out, rwkv_err *err);
/* 1 when S was opened read-only (store_open_ex, read_ok). */
int  store_is_read_only(const store *s);
/*
** Whether this process may write the database at PATH (an existing file):
** 1 with the reason into WHY (CAP bytes: "a read-only file system", "mode
** 444", "no write permission on its folder /x (SQLite makes its -wal and
** -shm files there)", ...) when it may not; 0 when nothing says so.
*/
int  store_read_only_reason(const char *path, char *why, size_t cap);
void store_close(store *s);                           /* NULL is fine */
/* $XDG_DATA_HOME/rwkv-tui/rwkv-tui.db (or ~/.local/share/...) into BUF. */
int  store_default_path(char *buf, size_t cap, rwkv_err *err);
/* The path the store was opened with (borrowed, valid until store_close). */
const char *store_path(const store *s);
/*
** A replay plan's note (store_plan.note: why saved states were not used)
** in the front end's language: TR returns the translation of an English
** format string (same conversions, same order; a static string) or MSGID
** itself.  NULL (the default): English.  Error messages (rwkv_err) and the
** damaged-row notes of store_turn_read and store_export_ex stay English:
** the latter are written into export files too.
*/
void store_set_tr(store *s, const char *(*tr)(const char *msgid));

/*
** The file under a running store (store_file.c).  SQLite does not notice a
** database file deleted, renamed over, truncated or overwritten while it is
** open: writes go on into the unlinked file, or fail with "file is not a
** database" once pages must be read back from the file, and closing the
** connection would checkpoint its WAL into whatever the path holds now.
**
** store_check_file: RWKV_OK while the file at the path is the one opened
** (same device and inode, a database header); else RWKV_EDB with one line
** naming the path and what happened (deleted, replaced by another file,
** truncated or overwritten), and the store is marked lost.  A stat() and a
** 16-byte read: cheap enough before every save.
** store_is_lost: whether a check (or the close) found it so.  A lost store
** stays usable (reads and writes go where SQLite sends them), but
** store_close then leaves the file at the path as it is: no checkpoint of
** this connection's WAL into it, and the WAL and shared-memory files beside
** it (this store's, its file gone) are removed.
*/
int  store_check_file(store *s, rwkv_err *err);
int  store_is_lost(const store *s);
/*
** The -wal and -shm files beside the database (store_file.c).  SQLite keeps
** writing into a -wal file deleted under it (rm, a cleanup tool), and what
** it holds since the last checkpoint goes with the process: a crash or kill
** loses it, and a program opening the database meanwhile does not see it.
** So after every commit (the connection's WAL hook) and in store_check_file
** the store compares the files at the path with the ones SQLite opened
** (two stat() calls).  When one was deleted, or is a new empty file (a
** reader made it), the open WAL is checkpointed into the database at once
** and after every later commit, and store_check_file makes a fresh WAL
** (journal_mode DELETE, then WAL again) as soon as no other connection has
** the file open: nothing is lost and saving goes on.  When another program
** has written through files of its own since (a non-empty -wal that is not
** SQLite's, or a new -shm beside the open -wal), the two cannot both be
** kept safely: store_check_file says so as for a lost file (RWKV_EDB, the
** store marked lost; its close leaves those files alone).
** store_file_note: the line to tell the user, once, in S's language
** (store_set_tr): 1 with it in BUF (CAP bytes), 0 when there is none.  (It
** also has the line of a store kept without WAL: at store_open, or when
** the fresh WAL could not be made -- the same line, said once; and that of
** a damaged search index a search rebuilt: store_search.)
*/
int  store_file_note(store *s, char *buf, size_t cap);
/*
** The size of the -wal file.  SQLite rewinds a WAL after a checkpoint but
** keeps its size: a long chat's -wal would stay at the autocheckpoint's 16
** MB (or more, after a large write) while the store is open, and after its
** close while another window has the database open.  So the WAL is copied
** into the database and the -wal cut to nothing (a TRUNCATE checkpoint) at
** store_close and at store_wal_trim -- the front end's quiet point (the
** session runtime: after a reply is saved).  Each is tried once without
** waiting: while another connection reads or writes, what can be copied
** is, the file stays, and the next one cuts it.  Never fails loudly;
** nothing is lost either way.
*/
void store_wal_trim(store *s);                        /* NULL is fine */
/*
** One read snapshot over several reads (a session's open: its row, its
** framing, its branch, the replay's plan), so that they agree: another
** program's writes meanwhile -- a `sessions rm` -- are not seen until
** store_read_end.  A write of S's own ends it first (store_tx_begin); in a
** transaction already, a no-op.  Nothing waits: a WAL reader takes no lock
** a writer waits for.  NULL is fine.
*/
int  store_read_begin(store *s, rwkv_err *err);
void store_read_end(store *s);
/*
** Lock waits (store.c).  A statement that meets another connection's lock
** waits for it up to STORE_BUSY_MS (store_set_busy_ms: another bound, for
** tests and tools; 0 never waits), then fails with "database is locked".
** store_busy_once(S, 1) starts a job that waits at most once: after a wait
** that ran out, every later statement gives up at once while the lock is
** still held (a free lock is taken as always), until store_busy_once is
** called again; (S, 0) ends it.  The session runtime makes each message
** such a job, so a lock held for minutes costs one message one wait, not
** one per row.  store_busy_timeouts: the waits that ran out so far.
*/
void     store_set_busy_ms(store *s, int ms);
void     store_busy_once(store *s, int on);
uint64_t store_busy_timeouts(const store *s);
/* The most one lock wait of S lasts now (ms): STORE_BUSY_MS unless
** store_set_busy_ms said another (a front end says it when a wait begins). */
int      store_busy_ms(const store *s);
/*
** A hook into S's lock waits, so that a front end can say that it waits
** (and keep its screen drawn) exactly while it does, and let the user stop
** waiting.  FN(UD, WAITED_MS) is called while a statement of S waits for
** another connection's lock: when the wait begins (WAITED_MS 0, before the
** first nap) and then before every later nap -- at most about 100 ms apart
** -- with the milliseconds waited so far; never when the lock is free, nor
** after the wait ends (taken, or out of time).  FN returns 0 to go on
** waiting (within the bound above), nonzero to give up now: the statement
** then fails as one whose wait ran out would (RWKV_EDB; the caller rolls
** back what it began), its message "PATH: ...: database is locked (gave up
** waiting)"; in a store_busy_once job the later statements then give up at
** once too, as after a wait that ran out.  A give-up is not counted in
** store_busy_timeouts.
** FN runs on the thread whose statement waits -- a connection used from two
** threads calls it on either -- inside SQLite's busy handler: it must not
** use S (nor any statement of S) in any way; it may draw, read the
** keyboard, sleep briefly.  UD is borrowed: it must stay valid until the
** hook is replaced; FN NULL removes it.  Set it while no statement of S
** runs on another thread.
*/
void     store_set_busy_hook(store *s, int (*fn)(void *ud, int waited_ms), void *ud);
/*
** The one rule for every file a command writes (an export, a saved state,
** eval --out/--state-out, bench --save): whether PATH may be written.
** A symlink at PATH is written through (rwkv_output_target, the writers'
** own rule), so what is judged is the file it leads to.
** RWKV_EINVAL with one line, "PATH is ...: not written over", when PATH is
**   - S's database file or its -wal, -shm or -journal file, told by device
**     and inode (never opened).  S may be NULL (a command with no database
**     open);
**   - the -wal, -shm or -journal name of any SQLite database, there or not
**     (the default database under --no-db, another window's), by the name
**     given or the one a link there leads to;
**   - one of the N_IN inputs IN of the same command (rwkv_same_file: the
**     file itself under any name or hard link), named by its WHAT;
**   - any other existing SQLite database;
**   - a read-only file.
** RWKV_OK for anything else: a new file, "-" (stdout), NULL; a FIFO or a
** directory is the writer's to refuse.  Inputs with a NULL or "" path are
** skipped.  IN and its strings are borrowed for the call.
*/
typedef struct store_input {
    const char *path;   /* as the command was given it or opened it */
    const char *what;   /* "the model in use", "the vocabulary (--vocab V)" */
} store_input;
int  store_output_check(store *s, const char *path, const store_input *in, size_t n_in,
                        rwkv_err *err);
/* store_output_check for an export of session ID to PATH: the command's
** inputs IN (N_IN, may be 0) and the files session ID names -- its model,
** the model's vocabulary, its state file ("the model of session 3") --
** none of which an export may write over.  A session, model or state-file
** row that cannot be read adds none (the export then says why).
** (store_export.c) */
int  store_export_output_check(store *s, int64_t id, const char *path, const store_input *in,
                               size_t n_in, rwkv_err *err);

/* Retention of snapshots (see the life cycle above). */
typedef struct store_retention {
    int keep_last;   /* keep the last N turns of every branch (>= 1) */
    int every;       /* and every Kth turn by depth (0 = none) */
} store_retention;
/* Defaults: keep_last 6 (three exchanges), every 8.  See store_snapshot.c
** for the sizes they give. */
#define STORE_KEEP_LAST_DEFAULT 6
#define STORE_EVERY_DEFAULT     8
void store_set_retention(store *s, const store_retention *r);
/* *KEEPS: 1 when S's retention keeps the state of TURN of SESSION (a leaf,
** a branch point, ...): a state it has not then went another way (the
** budget).  0 for a turn not in SESSION. */
int  store_retention_keeps(store *s, int64_t session, int64_t turn, int *keeps, rwkv_err *err);

/* ---- models, state files, presets ---------------------------------------- */

typedef struct store_model {
    int64_t  id;                       /* OUT */
    char     path[STORE_PATH_MAX];
    uint64_t size;                     /* bytes */
    int64_t  mtime;                    /* seconds */
    uint64_t fingerprint;              /* rwkv_info.fingerprint */
    uint64_t digest;                   /* rwkv_info.file_digest, 0 = none/unknown */
    char     version[8];
    int      n_layer, n_embd, n_head, head_size;
    char     vocab[STORE_PATH_MAX];    /* World vocabulary file, "" = none/bytes */
} store_model;
/*
** A model row is one file content at one path (schema v5): path + size +
** fingerprint + digest.  Another model written over the same path gets its
** own row, so the sessions made with the old one keep naming it (mtime is
** not part of it: a touched or copied file is the same model).
** Insert the row of M, or update the mtime, version, dims and vocabulary of
** the row with M's identity; *ID (OUT) is its id.  An empty M->vocab keeps
** the vocabulary the row already has.
*/
int store_model_upsert(store *s, const store_model *m, int64_t *id, rwkv_err *err);
/*
** The id of the row that already holds M as store_model_upsert would leave
** it -- M's identity, mtime, version and dims, and its vocabulary unless
** M->vocab is empty -- into *ID, 0 when none: a read, so that a model row
** already there costs no write (and no wait for another program's lock).
*/
int store_model_find(store *s, const store_model *m, int64_t *id, rwkv_err *err);
int store_model_get(store *s, int64_t id, store_model *out, rwkv_err *err);
/* A session's model reference, for listing it: ID 0, or a row that is gone
** (ON DELETE SET NULL not applied), leaves *OUT zeroed (out->id 0) and is
** RWKV_OK; a damaged models table is the error, as store_model_get's. */
int store_model_ref(store *s, int64_t id, store_model *out, rwkv_err *err);
/* The newest model row of each path, by path.  *OUT owned by caller: free()
** (store_models.c). */
int store_model_list(store *s, store_model **out, size_t *n, rwkv_err *err);

/* ---- sampling values as text ("temperature=1 top_p=0.3 ...") -------------- */
/* Format every params_table entry of SAMP into BUF (cap >= 256 is enough). */
void store_sampling_format(const rwkv_sampling *samp, char *buf, size_t cap);
/* Parse TEXT over the defaults in *OUT (unknown names are an error). */
int  store_sampling_parse(const char *text, rwkv_sampling *out, rwkv_err *err);

/* Presets: named sampling sets.  Built-ins (read-only): "demo" (the chat
** demo's defaults) and "state" (the state-file defaults); "user" is the
** user's default, created as a copy of "demo" and writable. */
int store_preset_put(store *s, const char *name, const rwkv_sampling *samp,
                     int64_t *id, rwkv_err *err);
int store_preset_get(store *s, const char *name, rwkv_sampling *out, int64_t *id,
                     rwkv_err *err);
/* Names of all presets: *NAMES is owned by the caller, one malloc block
** (free(*names)); (*names)[i] point inside it. */
int store_preset_list(store *s, char ***names, size_t *n, rwkv_err *err);

/* State files (state-tuning .pth): referenced by path, or imported (the
** bytes kept in the database), with the shapes they fit and defaults. */
typedef struct store_statefile {
    int64_t       id;                  /* OUT */
    char          name[STORE_TITLE_MAX];
    char          path[STORE_PATH_MAX]; /* "" when only imported */
    const void   *data;                /* file bytes to import, or NULL to reference */
    size_t        size;                /* bytes (a referenced file: as it was read) */
    uint64_t      fingerprint;         /* the digest of its bytes
                                          (store_statefile_digest): its
                                          content identity; 0 = unknown (a
                                          row made before it was kept) */
    int           n_layer, n_embd, n_head, head_size;
    rwkv_sampling defaults;            /* its own sampling defaults */
} store_statefile;
/* Add F; *ID (OUT).  A referenced (not imported) row is one content at
** one path: F's path and digest already known update that row and return
** its id; other bytes at a known path (a file saved over the old name)
** get a row of their own, so the sessions made with the old bytes keep
** naming them (no schema step: the table never had UNIQUE(path)). */
int store_statefile_add(store *s, const store_statefile *f, int64_t *id, rwkv_err *err);
/* All state files (data not loaded), by name: every imported row, and one
** row a referenced path (its newest: a file, not each content it held).
** *OUT owned by caller: free(). */
int store_statefile_list(store *s, store_statefile **out, size_t *n, rwkv_err *err);
/* Fill *OUT (data = NULL); if DATA is not NULL, *DATA gets the imported
** bytes (owned by the caller: free) or NULL when only referenced. */
int store_statefile_get(store *s, int64_t id, store_statefile *out, void **data,
                        rwkv_err *err);
/* A session's state-file reference, as store_model_ref (data not loaded). */
int store_statefile_ref(store *s, int64_t id, store_statefile *out, rwkv_err *err);
/*
** A state file's content identity (store_stateid.c): the digest of the
** bytes of the file at PATH into *DIGEST (never 0), its size into *SIZE
** (may be NULL); "PATH: cannot open: why" when it cannot be read.  The
** same file anywhere -- a copy, a moved file -- has the same digest, as
** the model's digest names its content (store_model).
*/
int store_statefile_digest(const char *path, uint64_t *digest, uint64_t *size, rwkv_err *err);
/* The digest of N bytes at P (an imported row's data), as for a file. */
uint64_t store_statefile_digest_mem(const void *p, size_t n);
/* Record DIGEST (and SIZE) on row ID when the row has none (made before
** digests were kept: its first use with the file there names its content);
** a row with a digest is left as it is.  A write as store.h's writes a
** user names. */
int store_statefile_set_digest(store *s, int64_t id, uint64_t digest, uint64_t size,
                               rwkv_err *err);
/*
** Whether the state file at PATH fits model M's shape (store_stateid.c),
** read from the file's index without a model loaded: a state-tuning file
** with a blocks.N.att.time_state [n_head, head_size, head_size] for each
** of M's n_layer layers (an RWKV v4 model: a state rwkv-tui saved, with
** blocks.0.att.shift_state).  M's shape unknown (n_layer 0): any state
** file.  RWKV_OK, or an error naming PATH, the tensor and both shapes.
*/
int store_statefile_fits(const char *path, const store_model *m, rwkv_err *err);
/* Session ID starts from state-file row SF (0 = none) from now on: a write
** as store.h's writes a user names ("PATH: no session 3"). */
int store_session_set_statefile(store *s, int64_t id, int64_t sf, rwkv_err *err);
/* Session ID was made with model row MODEL from now on (the same model at
** another path: session_db.c, model_moved); a write as the one above. */
int store_session_set_model(store *s, int64_t id, int64_t model, rwkv_err *err);

/* ---- sessions ------------------------------------------------------------ */

typedef struct store_session {
    int64_t id;                        /* OUT */
    char    title[STORE_TITLE_MAX];
    int64_t model_id;                  /* 0 = none */
    int64_t state_file_id;             /* 0 = none */
    int64_t preset_id;                 /* 0 = none */
    char    strategy[128];
    int64_t created_ms, updated_ms;    /* OUT (unix ms) */
    int64_t head_turn;                 /* OUT: current branch leaf, 0 = empty */
    int64_t n_turns;                   /* OUT: messages (user and assistant
                                          turns) in the whole tree; a greeting's
                                          system turn is not counted */
} store_session;

int store_session_new(store *s, const store_session *in, int64_t *id, rwkv_err *err);
/* RWKV_EINVAL "no session ID" when absent.  A row read back damaged (an id
** <= 0, a NULL where the schema says NOT NULL: a damaged table page) is
** RWKV_ECORRUPT "PATH: the session database is corrupt (...): WAY ON", as
** in every reader of sessions, turns, models, presets and state files. */
int store_session_get(store *s, int64_t id, store_session *out, rwkv_err *err);
/* All sessions, most recently updated first.  *OUT owned by caller: free().
** One damaged row fails the whole list (RWKV_ECORRUPT, nothing returned). */
int store_session_list(store *s, store_session **out, size_t *n, rwkv_err *err);
/* The most recently updated session (for --resume); EINVAL if none. */
int store_session_latest(store *s, int64_t *id, rwkv_err *err);
/*
** The writes a user asks for by name -- store_session_rename, _delete, _fork
** and store_turn_prune; store_preset_put, store_statefile_add,
** store_model_upsert, store_snapshot_put and store_budget_set too -- and the
** chat's own writes (store_session_set_head, the turn writes
** store_turn_append, _begin, _reopen, _progress and _finish, and
** framing.h's store_session_set_framing / store_preset_set_framing) fail
** with one form of message: the file and why,
** "PATH: database is locked" (another program held the write lock past the
** busy time), "PATH: disk full (nothing was saved)", "PATH: no session 3",
** never the action itself, on a lock wait that ran out as on any other
** failure: the caller names the action once ("deleting session 3: PATH:
** database is locked"; the line chat's `sessions` commands and the client's
** menus).  Nothing was changed then.
*/
/* RWKV_EINVAL when TITLE is blank (store_title_blank) or too long; stored
** cleaned (store_title_clean).  updated_ms is kept: a rename is no use of
** the session, so it does not become the one --resume opens. */
int store_session_rename(store *s, int64_t id, const char *title, rwkv_err *err);
/* 1 when TITLE is nothing once cleaned (store_title_clean): no title. */
int store_title_blank(const char *title);
/*
** TITLE (NULL = "") as a session title into OUT (CAP bytes, NUL-terminated):
** one line, shown as the transcript shows text -- the terminal rule
** (core/text/utf8.h utf8_sanitize_for_terminal: escape sequences and
** control characters dropped, a tab spaces, invalid UTF-8 U+FFFD), then
** each line break a space (LF, CR, CR LF, NEL, U+2028, U+2029: one each,
** utf8_san_line); cut before a character that does not fit.  Every title
** written goes through it: a new session's, a rename's, an import's.
** Titles are stored and read back so: a title is a label, not replayed
** text, and every reader (F2, the status line, `sessions list`, an export)
** gets one line that is safe to show.  The rule is idempotent, so a title
** cleaned again is unchanged.
*/
void store_title_clean(const char *title, char *out, size_t cap);
/* The title a session gets from its first message MSG (a new chat's, an
** import's without one): the first line, at most STORE_AUTO_TITLE_MAX
** bytes; a longer one is cut after a whole word (or, with no blank in its
** second half, after a whole character), and an ellipsis (U+2026) says so.
** Into OUT (CAP bytes); "" when that line is blank. */
void store_title_auto(const char *msg, char *out, size_t cap);
#define STORE_AUTO_TITLE_MAX 60
/* Switch branch / fork in place: TURN must belong to the session (0 = empty). */
int store_session_set_head(store *s, int64_t id, int64_t turn, rwkv_err *err);
/* Whether turn TURN is still a turn of session SESSION (*IN 1) or not (0:
** deleted, or another session's) -- ids are never used twice (schema v6),
** so a turn found is the one written.  RWKV_EDB on a read error. */
int store_turn_in_session(store *s, int64_t turn, int64_t session, int *in, rwkv_err *err);
/*
** A session's own sampling values (store_turn.c: one settings row a
** session, gone with it, copied by a fork): the values its new replies use,
** kept when the user changes one -- not its last reply's record, which a
** continuation sets to the reply's new total.  _put writes SAMP for session
** ID (nothing when there is no such session; the seed is kept as given, a
** reader takes its own).  store_session_sampling reads them into *OUT (its
** values stay where the row has none) with *FOUND 1; *FOUND 0 when the
** session has no row (saved before this version, imported) or a damaged one.
*/
int store_session_sampling_put(store *s, int64_t id, const rwkv_sampling *samp, rwkv_err *err);
int store_session_sampling(store *s, int64_t id, rwkv_sampling *out, int *found, rwkv_err *err);
/*
** Delete the session with its turns and snapshots, then give the space back
** (store_vacuum: when that fails -- another program took the lock after the
** delete -- the delete still succeeded; the pages are given back later).
** EINVAL when absent.  Any length
** (no cascade recursion: the parent links are cut before the rows go).
*/
int store_session_delete(store *s, int64_t id, rwkv_err *err);
/*
** A new session TITLE (NULL = "<old title> (fork)") holding copies of the
** turns root..TURN of session ID, with the snapshots of the last two of
** them and the nearest one above TURN (so its cost does not grow with the
** conversation); *NEW_ID (OUT).  The old session is unchanged.  For an
** instant fork inside the same session use store_session_set_head.
*/
int store_session_fork(store *s, int64_t id, int64_t turn, const char *title,
                       int64_t *new_id, rwkv_err *err);

/* ---- turns --------------------------------------------------------------- */

/*
** A turn.  As input (append/begin/finish) TEXT and TOKENS are borrowed from
** the caller for the call.  As output (store_turn_get) they point into
** memory owned by the struct: release with store_turn_fini.
*/
typedef struct store_turn {
    int64_t        id;             /* OUT of append/begin */
    int64_t        session_id;
    int64_t        parent_id;      /* 0 = first turn of the session */
    int            role;           /* enum store_role */
    const char    *text;           /* UTF-8, NUL-terminated; read back whole, any NUL
                                   ** byte in the row dropped (store_int.h) */
    const int32_t *tokens;         /* ids fed for this turn */
    size_t         n_tokens;
    int            has_sampling;   /* sampling + seed below are meaningful */
    rwkv_sampling  sampling;       /* values used (seed in sampling.seed) */
    double         prefill_tps;    /* tokens/s, 0 = unknown */
    double         decode_tps;
    int64_t        time_ms;        /* unix ms; 0 on input = now */
    int            interrupted;    /* reply cut short (cancel or crash) */
    int            has_snapshot;   /* OUT of get */
    int            n_children;     /* OUT of get */
    void          *own_;           /* internal */
} store_turn;

/* Plain data identifying the model a state belongs to. */
enum store_precision { STORE_PREC_FP32 = 0, STORE_PREC_BF16 = 1, STORE_PREC_FP16 = 2 };
/*
** store_state_meta.precision holds the compute precision (enum
** store_precision) in bits 0-7.  A plan that quantizes weights (`cpu
** fp32i8`, `cpu fp32i4 *20 -> cpu fp32`) adds STORE_PREC_I8 / STORE_PREC_I4
** for the kinds it uses and, in bits 10-30, a hash of which slots hold which,
** so a state is used only under the same weights; an unquantized plan adds
** nothing (every snapshot saved before quantized plans counted reads as one).
*/
#define STORE_PREC_BASE(p) ((p) & 0xff)
#define STORE_PREC_I8      0x100
#define STORE_PREC_I4      0x200
#define STORE_PREC_KINDS(p) ((p) & (STORE_PREC_I8 | STORE_PREC_I4))
typedef struct store_state_meta {
    uint64_t fingerprint;          /* rwkv_info.fingerprint */
    char     version[8];           /* rwkv_info.version */
    int      n_layer, n_embd, n_head, head_size;
    int      precision;            /* store_precision_of the strategy */
    uint64_t digest;               /* rwkv_info.file_digest; 0 = none, or a
                                      snapshot saved before schema v5 */
    int      digest_required;      /* as WANT: a snapshot of unknown digest is
                                      not used either (the session's model file
                                      changed: only states known to be made
                                      with this file are trusted) */
} store_state_meta;

/* ---- from the engine's description of a loaded model (store_info.c) ------- */
/* The precision of a strategy string for a model of N_LAYER layers ("cpu
** bf16" -> STORE_PREC_BF16; quantized weights add their kinds and plan). */
int  store_precision_of(const char *strategy, int n_layer);
/* Snapshot metadata of the model INF describes. */
void store_meta_from_info(store_state_meta *meta, const rwkv_info *inf);
/* A model row for the checkpoint at PATH (size and mtime from the file,
** none for the in-memory demo model). */
void store_model_from_info(store_model *m, const char *path, const rwkv_info *inf);
/* A referenced (not imported) state-file row for PATH, named by its base
** name, with the chat demo's state-file sampling defaults; its size and
** digest (fingerprint) read from the file (0 when it cannot be read). */
void store_statefile_from_path(store_statefile *f, const char *path);

/*
** Append a complete turn T (T->id OUT) and, if STATE is not NULL, its
** snapshot (N floats made under META), in one transaction; moves the
** session's head to it and applies the retention policy.  The parent must
** belong to the same session.
*/
int store_turn_append(store *s, store_turn *t, const float *state, size_t n,
                      const store_state_meta *meta, rwkv_err *err);
/* Start a reply: a row marked interrupted (T->id OUT), head moves to it. */
int store_turn_begin(store *s, store_turn *t, rwkv_err *err);
/* Reply ID goes on (a continued reply): marked interrupted again (begun),
** its snapshot dropped (the state after it changes), head moves to it.
** A reply with turns after it is refused (EINVAL): they were written after
** its old end. */
int store_turn_reopen(store *s, int64_t id, rwkv_err *err);
/* Save the partial reply so far (optional; a crash keeps it).  Only a turn
** still marked interrupted (begun, not finished) is changed; EINVAL else. */
int store_turn_progress(store *s, int64_t id, const char *text,
                        const int32_t *tokens, size_t n_tokens, rwkv_err *err);
/* Complete the row T->id with T's fields (+ snapshot as in append).  Its
** writer's lease ends (store_turn_writing), unless T->interrupted is
** STORE_TURN_BEGUN: the row stays begun, still written by this process. */
int store_turn_finish(store *s, const store_turn *t, const float *state, size_t n,
                      const store_state_meta *meta, rwkv_err *err);
#define STORE_TURN_BEGUN 2
/*
** The lease of a begun reply's writer (store_turn.c): store_turn_begin,
** _reopen and _progress take or refresh it for this process;
** store_turn_lease refreshes it (ON 1: a reply still running, with no new
** text to save) or ends it (ON 0: a begun row this process leaves as it
** is).  *WRITING (store_turn_writing): 1 when reply ID is being written
** by another process that is alive -- on this machine, a process with the
** writer's id and start time (stopped by Ctrl-Z or in a long prefill
** included; a kill -9 is seen at once); on another (a shared file), a
** lease refreshed less than STORE_WRITER_STALE_MS ago -- else 0 (a finished
** or cut reply, a dead writer, this process's own, a row written before
** leases).
*/
int store_turn_lease(store *s, int64_t id, int on, rwkv_err *err);
int store_turn_writing(store *s, int64_t id, int *writing, rwkv_err *err);
#define STORE_WRITER_STALE_MS 120000
/*
** The session head that the last turn write on S which committed
** (store_turn_append, _begin, _finish or _reopen) replaced, and in
** *SIBLINGS (may be NULL) how many other turns its turn's parent had then
** (roots, for a first turn).  Both are read inside that write's
** transaction, under its write lock: of two programs that write under the
** head they both left at once, the first finds that head and the second
** the first one's row -- a check made before the write could not tell them
** apart (session_db.c says "changed in another window" from this).  0 and
** 0 before any write.
*/
int64_t store_turn_head_before(const store *s, int *siblings);
/* Read turn ID into *OUT (release with store_turn_fini).  A damaged row
** (token blob of a wrong length, sampling text that does not parse) is
** RWKV_EFORMAT naming the turn. */
int  store_turn_get(store *s, int64_t id, store_turn *out, rwkv_err *err);
/* Read turn ID for display (show, export): a damaged row is read as far as
** it can be -- a bad token blob gives no tokens, bad sampling text gives
** has_sampling 0 -- and NOTE (OUT, CAP bytes, may be NULL) says what was
** dropped, "" when nothing.  A turn with text but no tokens (a damaged turn
** exported and imported) is named too: its state cannot be rebuilt, so the
** session runtime refuses to replay through it.  Never use it to rebuild a
** state. */
int  store_turn_read(store *s, int64_t id, store_turn *out, char *note, size_t cap,
                     rwkv_err *err);
void store_turn_fini(store_turn *t);                  /* NULL is fine */
/* Ids from the root down to TURN (inclusive).  *IDS owned by caller: free(). */
int store_turn_path(store *s, int64_t turn, int64_t **ids, size_t *n, rwkv_err *err);
/* The messages (user and assistant turns, as store_session.n_turns counts)
** from the root down to HEAD into *N (0 when HEAD is 0). */
int store_branch_messages(store *s, int64_t head, int64_t *n, rwkv_err *err);
/* The tokens the state after HEAD holds: every turn's from the root down
** to HEAD (the greeting's too), but HEAD's own when it is a message with no
** reply (an open goes on before it), into *N (0 when HEAD is 0) -- one
** query, the turns not read. */
int store_branch_tokens(store *s, int64_t head, uint64_t *n, rwkv_err *err);
/* Children of TURN in creation order; TURN = 0 with SESSION lists the roots. */
int store_turn_children(store *s, int64_t session, int64_t turn, int64_t **ids,
                        size_t *n, rwkv_err *err);
/* Follow the newest child from TURN down to a leaf. */
int store_branch_leaf(store *s, int64_t turn, int64_t *leaf, rwkv_err *err);
/* The turns root..HEAD in order (none when HEAD is 0), read in one call
** (store_branch.c).  *TURNS owned by caller: store_branch_free. */
int  store_branch_read(store *s, int64_t head, store_turn **turns, size_t *n, rwkv_err *err);
void store_branch_free(store_turn *turns, size_t n);              /* NULL is fine */
/* Replies (assistant turns) anywhere in SESSION, in one query. */
int  store_session_reply_count(store *s, int64_t session, uint64_t *count, rwkv_err *err);

/* ---- the whole tree, deleting a branch (store_prune.c) ------------------- */

/* One turn of a session's tree, for drawing it. */
typedef struct store_tree_node {
    int64_t id, parent_id;         /* parent 0 = a root */
    int     depth;                 /* in the tree as read: 0 = a root */
    int     role;                  /* enum store_role */
    int     n_children;
    int     last;                  /* the last (newest) child of its parent */
    /* The start of the text as the terminal rule shows it, from its first
    ** visible character (core/text/utf8.h utf8_san_label: escape
    ** sequences, controls -- a NUL too -- and blank lines before it left
    ** out; at most the text's first 8 KiB read): at most 255 bytes, cut on
    ** a character boundary, NUL-terminated.  Clean (tui_label's cleaning
    ** changes nothing); its first line is the label. */
    char    text[256];
} store_tree_node;
/*
** Every turn of SESSION in tree order (depth first, children in creation
** order), so a turn's descendants follow it.  Bounded on a tampered file:
** a turn whose parent is not in the session counts as a root, and turns on
** a parent loop are left out.  *OUT owned by the caller: free().
*/
int store_session_tree(store *s, int64_t session, store_tree_node **out, size_t *n,
                       rwkv_err *err);

/* What deleting a branch does (store_turn_prune_plan). */
typedef struct store_prune {
    int64_t session;
    int64_t parent;                /* TURN's parent, 0 = TURN is a root */
    size_t  n_turns;               /* TURN and every turn below it */
    int     has_head;              /* the session's head is among them */
    int64_t head;                  /* the session's head afterwards (0 = empty) */
} store_prune;
/* Plan the deletion of TURN and every turn below it, changing nothing.
** The head, when it goes, moves to the newest leaf of TURN's previous
** sibling (else its next one), else to TURN's parent.  EINVAL when there is
** no turn TURN. */
int store_turn_prune_plan(store *s, int64_t turn, store_prune *out, rwkv_err *err);
/* Delete TURN with every turn below it, their snapshots and search entries,
** and move the head as planned, in one transaction; *OUT (may be NULL) the
** plan carried out.  Then the space is given back (store_vacuum; as for
** store_session_delete, its failure is not the delete's).  Errors in the
** form of store_session_rename's. */
int store_turn_prune(store *s, int64_t turn, store_prune *out, rwkv_err *err);

/* ---- giving space back (store_vacuum.c) ----------------------------------- */

/* What store_vacuum did. */
typedef struct store_vacuum_info {
    uint64_t bytes_before, bytes_after;  /* the file with its -wal */
    int64_t  free_pages;                 /* free pages there were */
    int      full;       /* a full VACUUM: the file had no incremental
                            auto-vacuum (made so from now on) */
    int      busy;       /* another connection kept the WAL from being cut
                            back: the file shrinks when the last one closes */
    int64_t  folded;     /* states saved inline before schema v8 now stored
                            once with their twins (store_vacuum's fold) */
    uint64_t folded_bytes;  /* the bytes that gave back */
    int      fts_rebuilt;   /* the search index was damaged: rebuilt */
} store_vacuum_info;
/*
** Give the free pages back to the file system: an incremental vacuum (a
** file made without auto_vacuum=INCREMENTAL gets it and one full VACUUM),
** then a checkpoint that truncates the WAL.  Deleting a session or a branch
** gives its pages back the same way (without the fold below); `sessions
** vacuum` calls this, for the pages other deletes left (the snapshots that
** retention drops are reused by new ones, not given back).
** First, in one transaction of its own, it folds the states saved inline
** before schema v8 that have a twin (the same bytes in state_blobs or in
** another inline row: an old greeting state and its first new copy) into
** one shared row each (store_snapshot.c); an inline state with no twin
** stays where it is.  A crash or an error there leaves every row as it was.
** Before that it checks the search index (FTS5 'integrity-check') and
** rebuilds it from the messages when damaged (store_fts.c; fts_rebuilt).
** *OUT may be NULL.
*/
int store_vacuum(store *s, store_vacuum_info *out, rwkv_err *err);

/* ---- snapshots and replay ------------------------------------------------ */

enum store_snap { STORE_SNAP_OK, STORE_SNAP_ABSENT, STORE_SNAP_MISMATCH, STORE_SNAP_CORRUPT };

/* Store (replace) the snapshot of TURN: N floats made under META; in the
** same transaction the database's budget is applied as at any save (TURN's
** session's head spared), so the state just stored may be one it drops. */
int store_snapshot_put(store *s, int64_t turn, const float *state, size_t n,
                       const store_state_meta *meta, rwkv_err *err);
/*
** Load the snapshot of TURN into OUT (N floats).  Returns RWKV_OK only when
** OUT was filled from a blob whose checksum, length, fingerprint, version,
** dims and precision all match WANT.  Otherwise *ST (OUT, may be NULL) says
** why and ERR has one line: ABSENT -> RWKV_EINVAL, MISMATCH -> RWKV_ESHAPE,
** CORRUPT -> RWKV_EFORMAT; RWKV_EDB for a database failure (RWKV_ECORRUPT: a
** damaged page).  For all but those two the state must be rebuilt by replay
** (store_state_restore does it).
*/
int store_snapshot_get(store *s, int64_t turn, const store_state_meta *want,
                       float *out, size_t n, enum store_snap *st, rwkv_err *err);
/* The metadata of TURN's snapshot, whatever model made it, and its length
** in floats (*N), for store_snapshot_get with META as WANT.  RWKV_EINVAL
** when TURN has none, RWKV_EFORMAT for an unusable blob. */
int store_snapshot_meta(store *s, int64_t turn, store_state_meta *meta, size_t *n,
                        rwkv_err *err);
/* "fp32", "bf16", "fp16" ("?" for another value), with "with int8
** weights", "with 4-bit weights" or "with int8 and 4-bit weights". */
const char *store_precision_name(int precision);
/* The newest greeting turn (a session's first turn, a system one) whose
** tokens are IDS (N of them) and that has a snapshot made by a model of
** WANT's fingerprint, in a session run with STRATEGY: *TURN, 0 when none
** (store_snapshot_get then checks the rest of WANT). */
int store_greeting_find(store *s, const int32_t *ids, size_t n, const char *strategy,
                        const store_state_meta *want, int64_t *turn, rwkv_err *err);
/* Bytes taken by the snapshots of SESSION (0 = all) and their count; a
** session's figure counts the states it shares with others in full
** (store_session_usage splits them). */
int store_snapshot_usage(store *s, int64_t session, uint64_t *bytes, int64_t *count,
                         rwkv_err *err);
/* What one session's saved states take, each stored copy once.  OWN is
** what no other session uses (what deleting the session frees); SHARED
** what other sessions use too (their greeting's state, a fork's copies),
** so the sessions' OWN figures plus each shared copy once add up to the
** database's total (store_snapshot_usage with 0). */
typedef struct store_usage {
    int64_t  states;       /* the session's snapshots */
    uint64_t bytes;        /* OWN + SHARED */
    uint64_t own, shared;
    int64_t  sharing;      /* other sessions using the SHARED copies (0: none) */
} store_usage;
int store_session_usage(store *s, int64_t session, store_usage *out, rwkv_err *err);

/*
** A disk budget for the saved states of the whole database (store_budget.c):
** over it, states are dropped -- other sessions' first, the least recently
** updated first, chain states before a session's last ones; never the head
** of the session being written -- and rebuilt by replay when needed.
*/
typedef struct store_budget_info {
    uint64_t budget;                /* bytes, 0 = none */
    uint64_t before, after;         /* bytes of saved states */
    int64_t  states;                /* saved states after */
    int64_t  dropped;               /* states dropped */
    uint64_t dropped_bytes;
} store_budget_info;
/* BYTES for a person into BUF: "340 kB", "12.9 MB", "2.35 GB", "2 GB",
** "1 TB" (powers of 1000, as `sessions` prints sizes; no trailing zeros, and
** a size that rounds to 1000 of a unit in the next).  Returns BUF.  Every
** size shown goes through it. */
const char *store_size_str(uint64_t bytes, char *buf, size_t cap);
/* TEXT as bytes: "off"/"none" (0), or a number (digits, one point at most)
** with a unit, one space before it allowed as sizes are printed (500MB,
** "500 MB", 2GB, 1.5GiB; K/M/G/T are powers of 1000, KiB/MiB/... of 1024);
** -1 if neither. */
int store_size_parse(const char *text, uint64_t *out);
/* TEXT as a budget (store_size_parse, and 0 only as "off"/"none"; a size
** under the smallest saved state -- with none saved, under 64 kB -- is
** refused: it would drop them all, and 1GB or megabytes were likely meant),
** or RWKV_EINVAL with the line to show (in S's language, store_set_tr). */
int store_budget_parse(store *s, const char *text, uint64_t *bytes, rwkv_err *err);
/* What setting a budget did, as one line ("budget 500 MB: dropped 12 saved
** states (...)", "1 saved state" for one) in S's language: both front ends
** say it.  Returns BUF. */
const char *store_budget_say(const store *s, const store_budget_info *bi, char *buf,
                             size_t cap);
/* The budget in bytes (*BYTES 0: none). */
int store_budget_get(store *s, uint64_t *bytes, rwkv_err *err);
/* Set the budget (0: none), apply it at once in one transaction and give
** the space dropped back to the file system (store_vacuum, tried once
** without waiting for a lock: when another program holds it the budget is
** still set -- RWKV_OK -- and the pages are given back later).  Errors are
** "PATH: why" (the caller names the action, as for the writes below). */
int store_budget_set(store *s, uint64_t bytes, store_budget_info *info, rwkv_err *err);

/* One turn's share of a replay. */
typedef struct store_plan_seg {
    int64_t turn_id;
    int     role;
    size_t  off, len;             /* into plan.tokens */
} store_plan_seg;

/* How to rebuild the state after a turn. */
typedef struct store_plan {
    int64_t         target;       /* the turn asked for */
    int64_t         base_turn;    /* snapshot to start from; 0 = the session's
                                     initial state (zeros or its state file) */
    int32_t        *tokens;       /* all ids to feed after the base, in order */
    size_t          n_tokens;     /* = the cost of the rebuild in tokens */
    store_plan_seg *segs;
    size_t          n_segs;
    char            note[256];    /* why a nearer snapshot was not used, or "" */
} store_plan;
void store_plan_fini(store_plan *p);                  /* NULL is fine */

/*
** Plan the rebuild of the state after TURN for a model described by WANT,
** without reading the state blobs (uses the metadata columns): for the UI's
** "resuming here costs N tokens".  *PLAN owned by caller: store_plan_fini.
*/
int store_replay_plan(store *s, int64_t turn, const store_state_meta *want,
                      store_plan *plan, rwkv_err *err);
/*
** Load the nearest usable snapshot at or above TURN into OUT (N floats) and
** fill *PLAN with the tokens to feed after it.  Mismatched or corrupt
** snapshots are skipped (and named in plan->note).  plan->base_turn == 0:
** OUT is untouched; start from the session's initial state.
*/
int store_state_restore(store *s, int64_t turn, const store_state_meta *want,
                        float *out, size_t n, store_plan *plan, rwkv_err *err);

/* ---- search, export, import ---------------------------------------------- */

typedef struct store_hit {
    int64_t session_id, turn_id;   /* turn_id 0: the session's title matched */
    int     role;                  /* -1 for a title hit */
    char    title[STORE_TITLE_MAX];
    char    snippet[256];          /* one line, [ ] around the matches, cleaned */
} store_hit;
/*
** The search's one case folding (store_casefold.c): CP folded as the body
** index (the FTS5 trigram tokenizer) folds it, so that store_search, the
** title and snippet matches and the full-screen client's C-f (tui/search.c)
** find the same text.  Thread-safe; its table is built once, on first use.
*/
uint32_t store_casefold_cp(uint32_t cp);
/*
** Substring search of TEXT in session titles and the messages (user and
** assistant turns; not the greeting, which is framing).  TEXT is split
** at blanks into words ("a quoted phrase" is one word, "" none); every word must
** appear as a substring, in any script, case ignored (store_casefold.c: the FTS5
** index's own folding, for titles and snippets too).  Words of 3+
** characters use the FTS5 trigram index; shorter ones are matched by a
** scan of the turns (slower on a big database).  Quotes and FTS5
** operators in TEXT are plain text.  At most MAX hits: titles first (most
** recently updated first), then turns, newest first.  *HITS owned by
** caller: free().  RWKV_EINVAL for an empty TEXT.  A damaged index is
** rebuilt from the messages where the file may be written, and the search
** run again (store_file_note then has a line saying so); read-only, the
** error says the index is damaged, not the database (store_fts.c).
*/
int store_search(store *s, const char *text, size_t max, store_hit **hits,
                 size_t *n, rwkv_err *err);
/* Every session store_search would find TEXT in (its title, or a turn),
** however many hits each has: the ids into *IDS (caller frees), most
** recently updated first.  RWKV_EINVAL for an empty TEXT. */
int store_search_sessions(store *s, const char *text, int64_t **ids, size_t *n, rwkv_err *err);
/* 1 when TEXT holds no word to search for (store_search's RWKV_EINVAL). */
int store_search_blank(const char *text);

enum store_format { STORE_FMT_MD, STORE_FMT_JSON };
/* The format of an export to a file named PATH when none is asked for:
** JSON for a ".json" name (any case), else Markdown -- the one rule of
** `sessions export --out` and the full-screen client's F2 C-e. */
enum store_format store_format_for_name(const char *path);
/*
** Export session ID: Markdown of the current branch, or JSON of the whole
** tree (format "rwkv-tui-session" v1; snapshots are not exported: an
** imported session rebuilds its states by replay -- store_export_states
** carries them).  *BUF (OUT) is owned by
** the caller: free(); *LEN its length (NUL-terminated too).
*/
int store_export(store *s, int64_t id, enum store_format fmt, char **buf, size_t *len,
                 rwkv_err *err);
/* Like store_export, reading damaged rows as far as they can be read
** (store_turn_read): the readable part is exported, each damaged turn is
** marked in the output, and NOTE (OUT, NOTE_CAP bytes, may be NULL) lists
** them ("turn N: why; ..."), "" when none.  Still RWKV_OK then. */
int store_export_ex(store *s, int64_t id, enum store_format fmt, char **buf, size_t *len,
                    char *note, size_t note_cap, rwkv_err *err);
/* Import a JSON export (TEXT, LEN bytes; WHAT names it in messages) as a new
** session, *ID (OUT).  Malformed input changes nothing: a file that is not
** JSON, or whose turn tree is not one the chat makes (a greeting under a
** turn, a message under a message, a reply not under a message), is
** RWKV_EFORMAT with one line naming the turn.  A turn's text is made
** well-formed UTF-8 (store_text_utf8; its controls are kept, as the chat
** keeps them).  The file's model is linked: a models row with the
** same path and fingerprint, else the same fingerprint, else a new row when
** the path is unknown here (none when the path names another model).
** Linear in the number of turns; memory is the file plus one turn's tree.
** Its turns' tokens are not checked against their text: store_import_ex. */
int store_import(store *s, const char *text, size_t len, const char *what, int64_t *id,
                 rwkv_err *err);
/*
** store_import_ex / store_import_check_ex check every turn's tokens against
** its text as the chat wrote them (a message framed "{user}: TEXT\n\n{bot}:",
** a reply as it streamed, up to a stop string), so that a file cannot show
** one text and feed the model (a resume replays the tokens) another: a
** mismatch is RWKV_EFORMAT with one line naming the turn and where they
** differ.  The vocabulary: the World one when the file's model names one
** ("vocab") or a token id is over 255 -- WORLD(UD, MODEL_PATH, VOCAB_PATH,
** &T, ERR) gives it (T borrowed until the call returns; the file's model
** path and the vocabulary it names, "" when none) or fails with a line
** saying how to give one -- else the byte-level one.  V NULL: not checked
** (store_import).
*/
struct tok;
typedef struct store_import_vocab {
    int  (*world)(void *ud, const char *model_path, const char *vocab_path,
                  const struct tok **t, rwkv_err *err);
    void  *ud;
} store_import_vocab;
int store_import_ex(store *s, const char *text, size_t len, const char *what,
                    const store_import_vocab *v, int64_t *id, rwkv_err *err);
int store_import_check_ex(const char *text, size_t len, const char *what,
                          const store_import_vocab *v, rwkv_err *err);

/*
** Saved states in a JSON export (`sessions export ID --states`, `sessions
** import FILE --states`): the end of each branch and the two turns above
** it carry their snapshots as "state" (store_export.c's format comment).  STATES 0: byte for byte the
** export of store_export_ex.
*/
int store_export_states(store *s, int64_t id, enum store_format fmt, int states, char **buf,
                        size_t *len, char *note, size_t note_cap, rwkv_err *err);
/* Largest export file an import reads (`sessions import`); an export with
** states stays under it (store_export_states_cap). */
#define STORE_IMPORT_MAX_BYTES ((uint64_t)1 << 30)
/* store_export_states with the states cut to keep the export under MAX
** bytes (0: no limit): the head's and the two turns above it first, then
** the newest; *LEFT (may be NULL) how many were left out -- their turns'
** tokens rebuild them.  store_export_states caps at STORE_IMPORT_MAX_BYTES. */
int store_export_states_cap(store *s, int64_t id, enum store_format fmt, int states, uint64_t max,
                            char **buf, size_t *len, int64_t *left, char *note, size_t note_cap,
                            rwkv_err *err);
/* What store_import_states did with the states a file carries. */
#define STORE_IMPORT_NOTE_LINES 20   /* refused states named one a line */
typedef struct store_import_info {
    int64_t carried;       /* turns of the file that carry a "state" */
    int64_t taken;         /* of them, verified and stored */
    int64_t refused;       /* of them, not stored: each named in NOTE */
    int64_t replay_turns;  /* the first open's replay: turns above the head's */
    int64_t replay_tokens; /*   nearest state and their tokens (0: none) */
    int64_t text_only;     /* turns of the head's branch with text and no tokens
                            * (a damaged row's export, a file made without
                            * them): no replay goes past the first, */
    int64_t text_only_first;   /* its id here */
    /* one line a refused state, "WHAT: turn N: saved state not taken: why",
    ** '\n' between; past STORE_IMPORT_NOTE_LINES a last "WHAT: and K more
    ** saved states not taken"; "" when none */
    char    note[STORE_IMPORT_NOTE_LINES * 400];
} store_import_info;
/*
** store_import_ex, and with TAKE the states the file carries: each is
** stored (through the snapshot path: shared blobs, retention, budget) only
** when its base64, length, checksum and model (the file's: fingerprint,
** version, shape) are right; one that is not is left out and named in
** INFO->note, one line each -- the import goes on (its turns' tokens rebuild it), so a
** bad state loses nothing.  INFO (OUT, may be NULL).
*/
int store_import_states(store *s, const char *text, size_t len, const char *what,
                        const store_import_vocab *v, int take, store_import_info *info,
                        int64_t *id, rwkv_err *err);
/*
** What an import of WHAT as session ID (TAKE: with --states) says after
** it, from IN: each state left out and why (a line each), or the states it did not
** take, or none carried -- with what the first open then replays; "" when
** the first open replays nothing.  `sessions import` and F2's C-o say it.
*/
void store_import_note(const store_import_info *in, const char *what, int64_t id, int take,
                       char *buf, size_t cap);
/* Every check of store_import on TEXT with no database at all: RWKV_OK when
** store_import would take it (short of a database error), else its
** message.  So `sessions import` refuses a bad file before it creates a
** database (only saving -- or an import that saves -- makes one). */
int store_import_check(const char *text, size_t len, const char *what, rwkv_err *err);

/*
** TEXT (LEN bytes) made safe to show: invalid UTF-8 and every control
** character other than \n and \t (C0, DEL, C1) become U+FFFD, so no
** escape sequence reaches a terminal and the result is valid UTF-8; a NUL
** is dropped (the rule for a NUL in text everywhere: store_int.h).
** Returns a NUL-terminated copy owned by the caller (free), *OUT_LEN (may
** be NULL) its length; NULL when out of memory.
*/
char *store_text_clean(const char *text, size_t len, size_t *out_len);
/* The same for text that stays text, where a control character is kept
** (JSON escapes it: \u00XX, \r): only ill-formed UTF-8 becomes U+FFFD and a
** NUL is dropped.  The JSON export and import use it, so a round trip
** keeps what the chat saved (a model's \r or 0x01, a user's \r). */
char *store_text_utf8(const char *text, size_t len, size_t *out_len);

/* ---- blob codec (store_blob.c; also the fuzz target) --------------------- */

/* Fixed header before the floats of a snapshot blob. */
#define STORE_BLOB_HEADER 64
/* Size of the blob for N floats (0 on overflow). */
size_t store_blob_size(size_t n);
/* Encode N floats + META into BLOB (store_blob_size(n) bytes). */
void store_blob_encode(const float *state, size_t n, const store_state_meta *meta,
                       unsigned char *blob);
/*
** Check a blob of LEN bytes: header, length and checksum; fill *META and *N
** (OUT).  If OUT is not NULL (CAP floats) the floats are copied there.
** RWKV_EFORMAT with one line on any problem.
*/
int store_blob_decode(const unsigned char *blob, size_t len, store_state_meta *meta,
                      size_t *n, float *out, size_t cap, rwkv_err *err);
/* The content hash of an encoded blob (its checksum field: the header and
** the floats), the key of a shared state (schema v8, store_snapshot.c). */
uint64_t store_blob_hash(const unsigned char *blob);

#endif
