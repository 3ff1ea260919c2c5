/*
** store_turn.c -- sessions and the turn tree.
**
** Invariants:
**   - turns.parent_id is NULL (a first turn) or a turn of the same session;
**     turns.depth = parent's depth + 1 (0 for a first turn).  Forking and
**     regenerating only ever add children: no turn is rewritten except a
**     reply between store_turn_begin and store_turn_finish.
**   - sessions.head_turn is NULL or a turn of that session: the leaf of the
**     branch the user is on.
**   - Every multi-statement write is one BEGIN IMMEDIATE transaction.
**   - Every walk of the tree is bounded even on a tampered file: going up,
**     each step must reach a strictly smaller depth in the same session;
**     going down, a strictly larger one.  A walk that cannot reach a root
**     (a parent_id pointing into its own subtree) stops and reports "turn N:
**     parent loop in the database" (RWKV_EFORMAT) instead of spinning.
**   - Every row read is checked against the schema first (store_row_check,
**     store_row.c): an id <= 0 or a NULL in a NOT NULL column is a damaged
**     page, the damaged-database error -- never a blank session or turn.
**   - A session is deleted without recursion: SQLite stops a cascade at 1000
**     levels of trigger recursion, and turns.parent_id ON DELETE CASCADE
**     recursed once per turn, so the parent links are cut first.
*/
#include "store_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/text/utf8.h"

/* Snapshots of the last turns copied by store_session_fork (see there):
** the end, its message and the turn before that message -- the state an
** open takes for a regeneration (session_db.c, sess_load_branch); without
** it every fork's first open replayed the whole path for it. */
#define STORE_FORK_SNAPSHOTS 3

/* ---- sessions ----------------------------------------------------------- */

static void
bind_id_or_null(sqlite3_stmt *st, int i, int64_t id)
{
    if (id > 0)
        sqlite3_bind_int64(st, i, id);
    else
        sqlite3_bind_null(st, i);
}

/* One line by the terminal rule (utf8_san_line: a tab and a line break one
** space each); it reads a title of any length (a tampered file) in pieces
** and stops at CAP.  The one place a title is made one line. */
void
store_title_clean_n(const char *title, size_t n, char *out, size_t cap)
{
    utf8_san_line(title, title ? n : 0, out, cap);
}

void
store_title_clean(const char *title, char *out, size_t cap)
{
    store_title_clean_n(title, title ? strlen(title) : 0, out, cap);
}

void
store_title_auto(const char *msg, char *out, size_t cap)
{
    size_t len = strcspn(msg, "\n"), cut;

    while (len > 0 && isspace((unsigned char)msg[len - 1]))
        len--;
    if (len <= STORE_AUTO_TITLE_MAX) {
        snprintf(out, cap, "%.*s", (int)len, msg);
        return;
    }
    cut = STORE_AUTO_TITLE_MAX;
    while (cut > STORE_AUTO_TITLE_MAX / 2 && msg[cut] != ' ')
        cut--;
    if (msg[cut] != ' ') {           /* one long word: a character boundary */
        cut = STORE_AUTO_TITLE_MAX;
        while (cut > 0 && ((unsigned char)msg[cut] & 0xC0) == 0x80)
            cut--;
    }
    while (cut > 0 && isspace((unsigned char)msg[cut - 1]))
        cut--;
    snprintf(out, cap, "%.*s\xe2\x80\xa6", (int)cut, msg);
}

/* TITLE checked and cleaned into OUT (STORE_TITLE_MAX bytes): at most
** STORE_TITLE_MAX - 1 bytes as given; when RENAME, not blank (a new session
** may be untitled until its first message names it). */
static int
check_title(const char *title, int rename, char *out, rwkv_err *err)
{
    if (title == NULL || strlen(title) >= STORE_TITLE_MAX)
        return rwkv_errf(err, RWKV_EINVAL, "session title must be at most %d bytes",
                         STORE_TITLE_MAX - 1);
    store_title_clean(title, out, STORE_TITLE_MAX);
    if (rename && out[strspn(out, " ")] == '\0')
        return rwkv_errf(err, RWKV_EINVAL, "a session title cannot be empty");
    return RWKV_OK;
}

int
store_title_blank(const char *title)
{
    char out[STORE_TITLE_MAX];
    rwkv_err err;

    return title != NULL && strlen(title) < STORE_TITLE_MAX && check_title(title, 1, out, &err) != RWKV_OK;
}

/* Insert a session row (no transaction of its own). */
static int
session_insert(store *s, const store_session *in, const char *title, int64_t *id, rwkv_err *err)
{
    sqlite3_stmt *st;
    int64_t now = store_now_ms();
    int rc;

    if ((rc = store_prep(s, "INSERT INTO sessions(id, title, model_id, strategy, created_ms, updated_ms,"
                            " preset_id, state_file_id) VALUES (" STORE_NEXT_ID("sessions") ","
                            " ?,?,?,?,?,?,?)", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_text(st, 1, title, -1, SQLITE_STATIC);
    bind_id_or_null(st, 2, in->model_id);
    sqlite3_bind_text(st, 3, in->strategy, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, in->created_ms > 0 ? in->created_ms : now);
    /* when it was last chatted in: now for a new chat's; an import's is its
    ** creation (or IN's own), not the moment of the import */
    sqlite3_bind_int64(st, 5, in->updated_ms > 0   ? in->updated_ms
                              : in->created_ms > 0 ? in->created_ms
                                                   : now);
    bind_id_or_null(st, 6, in->preset_id);
    bind_id_or_null(st, 7, in->state_file_id);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "creating session");
    sqlite3_finalize(st);
    if (rc == RWKV_OK)
        *id = sqlite3_last_insert_rowid(s->db);
    return rc;
}

int
store_session_new(store *s, const store_session *in, int64_t *id, rwkv_err *err)
{
    char t[STORE_TITLE_MAX];
    int rc = check_title(in->title, 0, t, err);
    return rc != RWKV_OK ? rc : session_insert(s, in, t, id, err);
}

/* A session row: the columns session_row reads, and what the schema
** promises of them (store_row_check); SESSION_COLS adds the turn count. */
#define SESSION_ROW_COLS \
    "s.id, s.title, s.model_id, s.state_file_id, s.preset_id, s.strategy, s.created_ms," \
    " s.updated_ms, s.head_turn"
#define SESSION_COLS \
    SESSION_ROW_COLS ", (SELECT count(*) FROM turns t WHERE t.session_id=s.id AND t.role<>0)"

static const store_rowspec session_spec = {
    "sessions", "SELECT " SESSION_ROW_COLS " FROM sessions s",
    STORE_COL(1) | STORE_COL(5) | STORE_COL(6) | STORE_COL(7)   /* title, strategy, created, updated */
};

/* ST's row (SESSION_COLS) into O, checked first: a damaged row is an error. */
static int
session_row(store *s, sqlite3_stmt *st, store_session *o, rwkv_err *err)
{
    int rc;

    memset(o, 0, sizeof *o);
    if ((rc = store_row_check(s, st, &session_spec, err)) != RWKV_OK)
        return rc;
    o->id = sqlite3_column_int64(st, 0);
    /* one line, safe to show, whatever the file holds (store_title_clean) */
    store_col_title(st, 1, o->title, sizeof o->title);
    o->model_id = sqlite3_column_int64(st, 2);
    o->state_file_id = sqlite3_column_int64(st, 3);
    o->preset_id = sqlite3_column_int64(st, 4);
    store_col_text(st, 5, o->strategy, sizeof o->strategy);
    o->created_ms = sqlite3_column_int64(st, 6);
    o->updated_ms = sqlite3_column_int64(st, 7);
    o->head_turn = sqlite3_column_int64(st, 8);
    o->n_turns = sqlite3_column_int64(st, 9);
    return RWKV_OK;
}

int
store_session_get(store *s, int64_t id, store_session *out, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    if ((rc = store_prep(s, "SELECT " SESSION_COLS " FROM sessions s WHERE s.id=?", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    rc = store_step_row(s, st, &session_spec, "reading session", err, "%s: no session %lld", s->path,
                        (long long)id);
    if (rc == RWKV_OK)
        rc = session_row(s, st, out, err);
    sqlite3_finalize(st);
    return rc;
}

int
store_session_list(store *s, store_session **out, size_t *n, rwkv_err *err)
{
    sqlite3_stmt *st;
    store_session *v = NULL;
    size_t cnt = 0, cap = 0;
    int rc;

    *out = NULL;
    *n = 0;
    if ((rc = store_prep(s, "SELECT " SESSION_COLS " FROM sessions s ORDER BY s.updated_ms DESC, s.id DESC",
                         &st, err)) != RWKV_OK)
        return rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_session *t = store_grow(v, &cap, cnt, sizeof *v, 16);
        if (t == NULL) {
            free(v);
            sqlite3_finalize(st);
            return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
        }
        v = t;
        if ((rc = session_row(s, st, &v[cnt++], err)) != RWKV_OK) {
            free(v);
            sqlite3_finalize(st);
            return rc;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(v);
        return store_dberr(s, err, "listing sessions");
    }
    *out = v;
    *n = cnt;
    return RWKV_OK;
}

int
store_session_latest(store *s, int64_t *id, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    if ((rc = store_prep(s, "SELECT " SESSION_ROW_COLS " FROM sessions s"
                            " ORDER BY s.updated_ms DESC, s.id DESC LIMIT 1", &st, err)) != RWKV_OK)
        return rc;
    rc = store_step_one(s, st, "reading sessions", err, "%s: no saved sessions yet", s->path);
    if (rc == RWKV_OK)
        rc = store_row_check(s, st, &session_spec, err);
    if (rc == RWKV_OK)
        *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc;
}

/* Run a one-row UPDATE/DELETE of session ID; EINVAL if no such session. */
static int
session_change(store *s, const char *sql, int64_t id, const char *text, int64_t v,
               rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    if ((rc = store_prep(s, sql, &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    if (text)
        sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
    else if (sqlite3_bind_parameter_count(st) >= 2)
        bind_id_or_null(st, 2, v);
    if (sqlite3_bind_parameter_count(st) >= 3)
        sqlite3_bind_int64(st, 3, store_now_ms());
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "updating session");
    sqlite3_finalize(st);
    if (rc == RWKV_OK && sqlite3_changes(s->db) == 0)
        rc = rwkv_errf(err, RWKV_EINVAL, "%s: no session %lld", s->path, (long long)id);
    return rc;
}

int
store_session_rename(store *s, int64_t id, const char *title, rwkv_err *err)
{
    char t[STORE_TITLE_MAX];
    int rc = check_title(title, 1, t, err);
    if (rc != RWKV_OK)
        return rc;
    /* the caller names the action (store.h).  updated_ms stays: it is when
    ** the session was last chatted in, the order of `sessions list` and
    ** the session --resume opens; a new title is not a use of it */
    return STORE_PLAIN(s, session_change(s, "UPDATE sessions SET title=?2 WHERE id=?1",
                                         id, t, 0, err));
}

/* 1 if TURN is a turn of SESSION, 0 if not, -1 on a database error. */
static int
turn_in_session(store *s, int64_t turn, int64_t session, int *depth, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    if (store_prep(s, "SELECT depth FROM turns WHERE id=? AND session_id=?", &st, err) != RWKV_OK)
        return -1;
    sqlite3_bind_int64(st, 1, turn);
    sqlite3_bind_int64(st, 2, session);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        if (depth)
            *depth = sqlite3_column_int(st, 0);
        rc = 1;
    } else if (rc == SQLITE_DONE) {
        rc = 0;
    } else {
        store_dberr(s, err, "reading turn");
        rc = -1;
    }
    sqlite3_finalize(st);
    return rc;
}

int
store_turn_in_session(store *s, int64_t turn, int64_t session, int *in, rwkv_err *err)
{
    /* the caller names the action (store.h) */
    int r = STORE_PLAIN(s, turn_in_session(s, turn, session, NULL, err));

    if (r < 0)
        return RWKV_EDB;
    *in = r;
    return RWKV_OK;
}

static int session_set_head(store *s, int64_t id, int64_t turn, rwkv_err *err);

int
store_session_set_head(store *s, int64_t id, int64_t turn, rwkv_err *err)
{
    /* the caller names the action (store.h) */
    return STORE_PLAIN(s, session_set_head(s, id, turn, err));
}

static int
session_set_head(store *s, int64_t id, int64_t turn, rwkv_err *err)
{
    if (turn > 0) {
        int r = turn_in_session(s, turn, id, NULL, err);
        if (r < 0)
            return RWKV_EDB;
        if (r == 0)
            return rwkv_errf(err, RWKV_EINVAL, "%s: turn %lld is not in session %lld", s->path,
                             (long long)turn, (long long)id);
    }
    /* updated_ms stays, as for a rename: opening a session, switching
    ** branch or forking in place is no chatting in it (the turn writes move
    ** it: set_head below) -- or opening an older session would make it the
    ** one --resume opens and the first of `sessions list` */
    return session_change(s, "UPDATE sessions SET head_turn=?2 WHERE id=?1", id, NULL, turn, err);
}

/* Run SQL with one id parameter (any number of rows). */
static int
exec_id(store *s, const char *sql, int64_t id, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    if ((rc = store_prep(s, sql, &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "deleting session");
    sqlite3_finalize(st);
    return rc;
}

/* The space of deleted rows given back after a delete that committed: a
** vacuum that fails (another program took the lock meanwhile) leaves them
** free pages, reused by later writes and given back by the next delete or
** `sessions vacuum` -- no failure of the delete, which is done. */
static void
vacuum_after_delete(store *s)
{
    store_vacuum_after_delete(s);     /* tried once: no wait for a lock */
}

/* ---- a session's own sampling values --------------------------------------
**
** The values a session's new replies use, as the user last set them (or
** last ran a reply with): one row of the settings table (schema v7) per
** session, key "session_sampling/ID", the text store_sampling_format makes.
** Not the last reply's record: a continued reply records its new total as
** its max_tokens (so its values regenerate it whole), and a value changed
** with no reply after it has no reply to record it.  A row, not a column:
** no schema step, so a file written here still opens in the versions
** before, which leave the row alone.  Sessions without one (saved before,
** imported) are read by their last reply's record (session_db.c).
*/
#define SAMPLING_KEY(id) "('session_sampling/' || " id ")"

int
store_session_sampling_put(store *s, int64_t id, const rwkv_sampling *samp, rwkv_err *err)
{
    char txt[512];
    sqlite3_stmt *st;
    int rc;

    store_sampling_format(samp, txt, sizeof txt);
    s->plain_errors++;                 /* the caller names the action (store.h) */
    if ((rc = store_prep(s, "INSERT OR REPLACE INTO settings(key, value) SELECT "
                            SAMPLING_KEY("?1") ", ?2 WHERE EXISTS (SELECT 1 FROM sessions"
                            " WHERE id=?1)", &st, err)) == RWKV_OK) {
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, txt, -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "saving the sampling");
        sqlite3_finalize(st);
    }
    return store_plain_end(s, rc);
}

int
store_session_sampling(store *s, int64_t id, rwkv_sampling *out, int *found, rwkv_err *err)
{
    sqlite3_stmt *st;
    rwkv_sampling v = *out;
    rwkv_err e2;
    int rc;

    *found = 0;
    if ((rc = store_prep(s, "SELECT value FROM settings WHERE key=" SAMPLING_KEY("?"), &st,
                         err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *txt = (const char *)sqlite3_column_text(st, 0);
        /* a damaged row is none: the last reply's values are read instead */
        if (txt != NULL && store_sampling_parse(txt, &v, &e2) == RWKV_OK) {
            *out = v;
            *found = 1;
        }
        rc = RWKV_OK;
    } else {
        rc = rc == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "reading the sampling");
    }
    sqlite3_finalize(st);
    return rc;
}

/* Session FROM's sampling row (if any) copied to session TO (a fork). */
static int
sampling_copy_tx(store *s, int64_t from, int64_t to, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    if ((rc = store_prep(s, "INSERT OR REPLACE INTO settings(key, value) SELECT " SAMPLING_KEY("?2")
                            ", value FROM settings WHERE key=" SAMPLING_KEY("?1"), &st, err)) !=
        RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, from);
    sqlite3_bind_int64(st, 2, to);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "copying the sampling");
    sqlite3_finalize(st);
    return rc;
}

static int session_delete(store *s, int64_t id, rwkv_err *err);

int
store_session_delete(store *s, int64_t id, rwkv_err *err)
{
    int rc;

    rc = STORE_PLAIN(s, session_delete(s, id, err));   /* the caller names the action (store.h) */
    /* the search index (its triggers) was the damage: rebuilt (store_fts_mend;
    ** store_file_note says so), once more */
    if (rc == RWKV_ECORRUPT && store_fts_mend(s, err) == RWKV_OK)
        rc = STORE_PLAIN(s, session_delete(s, id, err));
    if (rc == RWKV_OK)
        vacuum_after_delete(s);        /* the pages of the deleted snapshots */
    return rc;
}

static int
session_delete(store *s, int64_t id, rwkv_err *err)
{
    int rc;

    if ((rc = store_tx_begin(s, err)) != RWKV_OK)
        return rc;
    /* Snapshots first, then cut the parent links so that deleting the turns
    ** cascades one level only (see the invariants), then the rows. */
    if ((rc = exec_id(s, "DELETE FROM snapshots WHERE turn_id IN"
                         " (SELECT id FROM turns WHERE session_id=?)", id, err)) != RWKV_OK ||
        (rc = exec_id(s, "UPDATE turns SET parent_id=NULL WHERE session_id=? AND parent_id IS NOT NULL",
                      id, err)) != RWKV_OK ||
        (rc = exec_id(s, "DELETE FROM turns WHERE session_id=?", id, err)) != RWKV_OK ||
        (rc = exec_id(s, "DELETE FROM settings WHERE key=" SAMPLING_KEY("?"), id, err)) != RWKV_OK ||
        (rc = session_change(s, "DELETE FROM sessions WHERE id=?1", id, NULL, 0, err)) != RWKV_OK) {
        store_tx_rollback(s);
        return rc;
    }
    return store_tx_commit(s, err);
}

/* ---- turns -------------------------------------------------------------- */

static int
check_turn(store *s, const store_turn *t, int *depth, rwkv_err *err)
{
    int r;

    if (t->role < STORE_ROLE_SYSTEM || t->role > STORE_ROLE_ASSISTANT)
        return rwkv_errf(err, RWKV_EINVAL, "turn role %d is not system/user/assistant", t->role);
    if (t->n_tokens > 0 && t->tokens == NULL)
        return rwkv_errf(err, RWKV_EINVAL, "turn has %zu tokens but no token array", t->n_tokens);
    if (t->n_tokens > (size_t)INT32_MAX / 4)
        return rwkv_errf(err, RWKV_EINVAL, "turn has too many tokens (%zu)", t->n_tokens);
    *depth = 0;
    if (t->parent_id > 0) {
        r = turn_in_session(s, t->parent_id, t->session_id, depth, err);
        if (r < 0)
            return RWKV_EDB;
        if (r == 0)
            return rwkv_errf(err, RWKV_EINVAL, "%s: parent turn %lld is not in session %lld",
                             s->path, (long long)t->parent_id, (long long)t->session_id);
        (*depth)++;
    } else {
        /* Not store_session_get: it counts the session's turns, which made
        ** an import quadratic in its number of root turns. */
        sqlite3_stmt *st;
        int rc = store_prep(s, "SELECT 1 FROM sessions WHERE id=?", &st, err);
        if (rc != RWKV_OK)
            return rc;
        sqlite3_bind_int64(st, 1, t->session_id);
        rc = store_step_one(s, st, "reading session", err, "%s: no session %lld", s->path,
                            (long long)t->session_id);
        sqlite3_finalize(st);
        return rc;
    }
    return RWKV_OK;
}

static void
bind_tokens(sqlite3_stmt *st, int i, const int32_t *tok, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#error "token blobs are stored little-endian: add a byte swap here"
#endif
    if (n == 0)
        sqlite3_bind_zeroblob(st, i, 0);
    else
        sqlite3_bind_blob64(st, i, tok, (sqlite3_uint64)n * 4, SQLITE_STATIC);
}

static void
bind_sampling(sqlite3_stmt *st, int i, const store_turn *t)
{
    char txt[512];

    if (!t->has_sampling) {
        sqlite3_bind_null(st, i);
        return;
    }
    store_sampling_format(&t->sampling, txt, sizeof txt);
    sqlite3_bind_text(st, i, txt, -1, SQLITE_TRANSIENT);
}

static int
set_head(store *s, int64_t session, int64_t turn, rwkv_err *err)
{
    return session_change(s, "UPDATE sessions SET head_turn=?2, updated_ms=?3 WHERE id=?1",
                          session, NULL, turn, err);
}

/*
** Inside a turn write's transaction, before the head moves to TURN (already
** written): the session's head and the number of other children of TURN's
** parent (roots for a first turn), as they are now, in *W -- handed to
** store_turn_head_before only when the write commits (head_done).  Read
** under the write lock, so two programs writing under one head at once
** never both find the head they left: the second finds the first's row.
*/
struct head_seen {
    int64_t head;
    int     siblings;
};

static int
head_read(store *s, int64_t session, int64_t turn, struct head_seen *w, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    /* the siblings through turns_parent: "+session_id" keeps SQLite from
    ** scanning the whole session through turns_session instead (each turn's
    ** write read every turn of its session before: 20,000 VM steps at turn
    ** 2,000) */
    if ((rc = store_prep(s, "SELECT (SELECT head_turn FROM sessions WHERE id=?1),"
                            " (SELECT count(*) FROM turns WHERE +session_id=?1 AND id<>?2 AND"
                            " parent_id IS (SELECT parent_id FROM turns WHERE id=?2))",
                         &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, session);
    sqlite3_bind_int64(st, 2, turn);
    rc = store_step_one(s, st, "reading session", err, "%s: no session %lld", s->path,
                        (long long)session);
    if (rc == RWKV_OK) {
        w->head = sqlite3_column_int64(st, 0);
        w->siblings = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The write that read W committed (RC): W is what store_turn_head_before says. */
static int
head_done(store *s, const struct head_seen *w, int rc)
{
    if (rc == RWKV_OK) {
        s->head_before = w->head;
        s->head_siblings = w->siblings;
    }
    return rc;
}

int64_t
store_turn_head_before(const store *s, int *siblings)
{
    if (siblings != NULL)
        *siblings = s->head_siblings;
    return s->head_before;
}

/* ---- the lease of a begun reply's writer ------------------------------------
**
** A reply row marked interrupted is either being written now (its writer
** saves it as it streams) or was cut (a cancel; or its writer died: kill -9,
** a crash, a power cut).  A window that opens the session must tell the two
** apart: a reply still running is not the end of its branch yet -- turns
** written under it would hang under a shorter text than the one it ends
** with.  So its writer holds a lease: one settings row per begun reply, key
** "reply_writer/ID", value "MACHINE PID START MS" -- the machine (its boot
** id and pid namespace on Linux, else its host name), the writer's process
** id and start time (a pid used again is not it), and the wall-clock time
** of its last refresh.  Begin, reopen and every progress save take or
** refresh it, the session refreshes it at least every second of a run, its
** prefill included (store_turn_lease); finish ends it.  A row, not a
** column: no schema step, so a file written here still opens in the
** versions before, which leave the row alone (and take every begun reply
** as cut, as they always did).
*/
#define WRITER_KEY(id) "('reply_writer/' || " id ")"

typedef struct writer {
    char               machine[96];
    long long          pid;
    unsigned long long start;          /* clock ticks after boot, 0 = unknown */
    long long          lease_ms;       /* unix ms of the last refresh */
} writer;

/* Fields 3 (the state letter) and 22 (the start time) of /proc/PID/stat;
** -1 when it cannot be read (no such process, no /proc). */
static int
proc_stat(long long pid, char *state, unsigned long long *start)
{
    char path[64], buf[1024], *p, *save = NULL;
    size_t n;
    FILE *f;
    int field = 3;

    snprintf(path, sizeof path, "/proc/%lld/stat", pid);
    if ((f = fopen(path, "r")) == NULL)
        return -1;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* the name (field 2) may hold blanks and parentheses: the fields after
    ** it start after its last ')' */
    if ((p = strrchr(buf, ')')) == NULL)
        return -1;
    for (char *t = strtok_r(p + 1, " ", &save); t != NULL; t = strtok_r(NULL, " ", &save)) {
        if (field == 3)
            *state = t[0];
        if (field++ == 22) {
            *start = strtoull(t, NULL, 10);
            return 0;
        }
    }
    return -1;
}

/* This machine as a writer row names it (no blanks): the boot id, and the
** pid namespace -- two containers on one machine share the boot id, not
** their pids; a host name where there is no /proc. */
static void
this_machine(char *out, size_t cap)
{
    char boot[64] = "", ns[64] = "";
    const char *d;
    ssize_t n;
    FILE *f;

    if ((f = fopen("/proc/sys/kernel/random/boot_id", "r")) != NULL) {
        if (fgets(boot, sizeof boot, f) == NULL)
            boot[0] = '\0';
        fclose(f);
        boot[strcspn(boot, "\n")] = '\0';
    }
    n = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
    ns[n > 0 ? n : 0] = '\0';
    if (boot[0] != '\0') {
        d = strchr(ns, '[');
        snprintf(out, cap, "%s/%.*s", boot, d ? (int)strcspn(d + 1, "]") : 1, d ? d + 1 : "0");
    } else {
        if (gethostname(out, cap) != 0)
            out[0] = '\0';
        out[cap - 1] = '\0';
        if (out[0] == '\0')
            snprintf(out, cap, "unknown");
    }
    for (char *c = out; *c != '\0'; c++)
        if ((unsigned char)*c <= ' ' || *c == 0x7f)
            *c = '_';
}

/* This process as a writer, its lease now. */
static void
writer_self(writer *w)
{
    char state;

    this_machine(w->machine, sizeof w->machine);
    w->pid = (long long)getpid();
    if (proc_stat(w->pid, &state, &w->start) != 0)
        w->start = 0;
    w->lease_ms = store_now_ms();
}

/*
** Whether writer W (read from its row) is alive now, this process excepted.
** On this machine the process itself says it: a stopped one (Ctrl-Z) or one
** in a long prefill is alive however old its lease, a killed one is dead at
** once (a zombie not yet reaped too).  On another machine (a file shared
** over the network) only the lease can: fresh for STORE_WRITER_STALE_MS, a
** clock there ahead of this one's counted as fresh.
*/
static int
writer_alive(const writer *w)
{
    writer me;
    unsigned long long start = 0;
    char state = '?';

    writer_self(&me);
    if (strcmp(me.machine, w->machine) != 0)
        return me.lease_ms - w->lease_ms < STORE_WRITER_STALE_MS;
    if (w->pid <= 0 || w->pid > INT_MAX || w->pid == me.pid)
        return 0;
    if (kill((pid_t)w->pid, 0) != 0 && errno != EPERM)
        return 0;
    if (proc_stat(w->pid, &state, &start) != 0)
        return 1;                      /* no /proc to read: the pid is all there is */
    if (state == 'Z' || state == 'X')
        return 0;
    return w->start == 0 || start == w->start;
}

/* This process takes (or refreshes) the lease of reply ID, if it is begun. */
static int
lease_take(store *s, int64_t id, rwkv_err *err)
{
    writer w;
    char v[192];
    sqlite3_stmt *st;
    int rc;

    writer_self(&w);
    snprintf(v, sizeof v, "%s %lld %llu %lld", w.machine, w.pid, w.start, w.lease_ms);
    if ((rc = store_prep(s, "INSERT OR REPLACE INTO settings(key, value) SELECT " WRITER_KEY("?1")
                            ", ?2 WHERE EXISTS (SELECT 1 FROM turns WHERE id=?1 AND interrupted<>0)",
                         &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, v, -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "saving the reply's writer");
    sqlite3_finalize(st);
    return rc;
}

/* The leases of replies no longer begun (finished by a version without
** leases, deleted) go: taken with a new lease, so they never pile up. */
static int
lease_sweep(store *s, rwkv_err *err)
{
    return store_exec(s, "DELETE FROM settings WHERE key GLOB 'reply_writer/*' AND NOT EXISTS"
                         " (SELECT 1 FROM turns WHERE id=CAST(substr(key, 14) AS INTEGER)"
                         " AND interrupted<>0)", err);
}

int
store_turn_lease(store *s, int64_t id, int on, rwkv_err *err)
{
    /* the caller names the action (store.h) */
    return STORE_PLAIN(s, on ? lease_take(s, id, err)
                             : exec_id(s, "DELETE FROM settings WHERE key=" WRITER_KEY("?"), id,
                                       err));
}

int
store_turn_writing(store *s, int64_t id, int *writing, rwkv_err *err)
{
    sqlite3_stmt *st;
    writer w;
    int rc;

    *writing = 0;
    if ((rc = store_prep(s, "SELECT value FROM settings WHERE key=" WRITER_KEY("?1") " AND EXISTS"
                            " (SELECT 1 FROM turns WHERE id=?1 AND interrupted<>0)", &st, err)) !=
        RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(st, 0);
        /* a damaged row is no writer: the reply is taken as cut, as before */
        if (v != NULL && sscanf(v, "%95s %lld %llu %lld", w.machine, &w.pid, &w.start,
                                &w.lease_ms) == 4)
            *writing = writer_alive(&w);
        rc = RWKV_OK;
    } else {
        rc = rc == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "reading the reply's writer");
    }
    sqlite3_finalize(st);
    return rc;
}

/* Insert T (no transaction of its own); T->id OUT. */
static int
turn_insert(store *s, store_turn *t, int depth, int interrupted, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    if ((rc = store_prep(s, "INSERT INTO turns(id, session_id, parent_id, depth, role, text, tokens, sampling,"
                            " prefill_tps, decode_tps, time_ms, interrupted) VALUES ("
                            STORE_NEXT_ID("turns") ", ?,?,?,?,?,?,?,?,?,?,?)",
                         &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, t->session_id);
    bind_id_or_null(st, 2, t->parent_id);
    sqlite3_bind_int(st, 3, depth);
    sqlite3_bind_int(st, 4, t->role);
    sqlite3_bind_text(st, 5, t->text ? t->text : "", -1, SQLITE_STATIC);
    bind_tokens(st, 6, t->tokens, t->n_tokens);
    bind_sampling(st, 7, t);
    sqlite3_bind_double(st, 8, t->prefill_tps);
    sqlite3_bind_double(st, 9, t->decode_tps);
    sqlite3_bind_int64(st, 10, t->time_ms > 0 ? t->time_ms : store_now_ms());
    sqlite3_bind_int(st, 11, interrupted);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "saving turn");
    sqlite3_finalize(st);
    if (rc == RWKV_OK)
        t->id = sqlite3_last_insert_rowid(s->db);
    return rc;
}

static int turn_append(store *s, store_turn *t, const float *state, size_t n,
                       const store_state_meta *meta, rwkv_err *err);

int
store_turn_append(store *s, store_turn *t, const float *state, size_t n,
                  const store_state_meta *meta, rwkv_err *err)
{
    /* the caller names the action (store.h) */
    return STORE_PLAIN(s, turn_append(s, t, state, n, meta, err));
}

static int
turn_append(store *s, store_turn *t, const float *state, size_t n,
            const store_state_meta *meta, rwkv_err *err)
{
    struct head_seen w;
    int depth, rc;

    if (state && meta == NULL)
        return rwkv_errf(err, RWKV_EINVAL, "snapshot without model metadata");
    if ((rc = store_tx_begin(s, err)) != RWKV_OK)
        return rc;
    if ((rc = check_turn(s, t, &depth, err)) != RWKV_OK ||
        (rc = turn_insert(s, t, depth, t->interrupted, err)) != RWKV_OK ||
        (state && (rc = store_snapshot_put_tx(s, t->id, state, n, meta, err)) != RWKV_OK) ||
        (rc = head_read(s, t->session_id, t->id, &w, err)) != RWKV_OK ||
        (rc = set_head(s, t->session_id, t->id, err)) != RWKV_OK ||
        (rc = store_retain(s, t->session_id, err)) != RWKV_OK) {
        store_tx_rollback(s);
        t->id = 0;
        return rc;
    }
    rc = head_done(s, &w, store_tx_commit(s, err));
    if (rc != RWKV_OK)
        t->id = 0;
    return rc;
}

static int turn_begin(store *s, store_turn *t, rwkv_err *err);

int
store_turn_begin(store *s, store_turn *t, rwkv_err *err)
{
    /* the caller names the action (store.h) */
    return STORE_PLAIN(s, turn_begin(s, t, err));
}

static int
turn_begin(store *s, store_turn *t, rwkv_err *err)
{
    struct head_seen w;
    int depth, rc;

    if ((rc = store_tx_begin(s, err)) != RWKV_OK)
        return rc;
    if ((rc = check_turn(s, t, &depth, err)) != RWKV_OK ||
        (rc = turn_insert(s, t, depth, 1, err)) != RWKV_OK ||
        (rc = lease_sweep(s, err)) != RWKV_OK || (rc = lease_take(s, t->id, err)) != RWKV_OK ||
        (rc = head_read(s, t->session_id, t->id, &w, err)) != RWKV_OK ||
        (rc = set_head(s, t->session_id, t->id, err)) != RWKV_OK) {
        store_tx_rollback(s);
        t->id = 0;
        return rc;
    }
    return head_done(s, &w, store_tx_commit(s, err));
}

static int turn_reopen(store *s, int64_t id, rwkv_err *err);

int
store_turn_reopen(store *s, int64_t id, rwkv_err *err)
{
    /* the caller names the action (store.h) */
    return STORE_PLAIN(s, turn_reopen(s, id, err));
}

static int
turn_reopen(store *s, int64_t id, rwkv_err *err)
{
    struct head_seen w;
    store_turn t;
    int64_t sid;
    int rc;

    if ((rc = store_turn_get(s, id, &t, err)) != RWKV_OK)
        return rc;
    sid = t.session_id;
    if (t.role != STORE_ROLE_ASSISTANT)
        rc = rwkv_errf(err, RWKV_EINVAL, "%s: turn %lld is not a reply", s->path, (long long)id);
    else if (t.n_children > 0)
        rc = rwkv_errf(err, RWKV_EINVAL, "%s: reply %lld has turns after it", s->path,
                       (long long)id);
    store_turn_fini(&t);
    if (rc != RWKV_OK || (rc = store_tx_begin(s, err)) != RWKV_OK)
        return rc;
    /* its snapshot is the state after the old end: gone, the replay rule
    ** rebuilds the state from the one above until the reply is finished */
    if ((rc = exec_id(s, "DELETE FROM snapshots WHERE turn_id=?", id, err)) != RWKV_OK ||
        (rc = exec_id(s, "UPDATE turns SET interrupted=1 WHERE id=?", id, err)) != RWKV_OK ||
        (rc = lease_sweep(s, err)) != RWKV_OK || (rc = lease_take(s, id, err)) != RWKV_OK ||
        (rc = head_read(s, sid, id, &w, err)) != RWKV_OK ||
        (rc = set_head(s, sid, id, err)) != RWKV_OK) {
        store_tx_rollback(s);
        return rc;
    }
    return head_done(s, &w, store_tx_commit(s, err));
}

static int turn_progress(store *s, int64_t id, const char *text, const int32_t *tokens,
                         size_t n_tokens, rwkv_err *err);

int
store_turn_progress(store *s, int64_t id, const char *text, const int32_t *tokens,
                    size_t n_tokens, rwkv_err *err)
{
    /* the caller names the action (store.h) */
    return STORE_PLAIN(s, turn_progress(s, id, text, tokens, n_tokens, err));
}

static int
turn_progress(store *s, int64_t id, const char *text, const int32_t *tokens,
              size_t n_tokens, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    if ((rc = store_tx_begin(s, err)) != RWKV_OK)
        return rc;
    if ((rc = store_prep(s, "UPDATE turns SET text=?, tokens=? WHERE id=? AND interrupted=1", &st, err)) != RWKV_OK)
        goto out;
    sqlite3_bind_text(st, 1, text ? text : "", -1, SQLITE_STATIC);
    bind_tokens(st, 2, tokens, n_tokens);
    sqlite3_bind_int64(st, 3, id);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "saving partial reply");
    sqlite3_finalize(st);
    if (rc == RWKV_OK && sqlite3_changes(s->db) == 0)
        rc = rwkv_errf(err, RWKV_EINVAL, "%s: no reply in progress with turn id %lld", s->path, (long long)id);
    if (rc == RWKV_OK && (rc = lease_take(s, id, err)) == RWKV_OK)   /* the writer is alive */
        return store_tx_commit(s, err);
out:
    store_tx_rollback(s);
    return rc;
}

static int turn_finish(store *s, const store_turn *t, const float *state, size_t n,
                       const store_state_meta *meta, rwkv_err *err);

int
store_turn_finish(store *s, const store_turn *t, const float *state, size_t n,
                  const store_state_meta *meta, rwkv_err *err)
{
    /* the caller names the action (store.h) */
    return STORE_PLAIN(s, turn_finish(s, t, state, n, meta, err));
}

static int
turn_finish(store *s, const store_turn *t, const float *state, size_t n,
            const store_state_meta *meta, rwkv_err *err)
{
    struct head_seen w;
    sqlite3_stmt *st;
    int rc;

    if (state && meta == NULL)
        return rwkv_errf(err, RWKV_EINVAL, "snapshot without model metadata");
    if ((rc = store_tx_begin(s, err)) != RWKV_OK)
        return rc;
    if ((rc = store_prep(s, "UPDATE turns SET text=?, tokens=?, sampling=?, prefill_tps=?, decode_tps=?,"
                            " time_ms=?, interrupted=? WHERE id=? AND session_id=?", &st, err)) != RWKV_OK)
        goto fail;
    sqlite3_bind_text(st, 1, t->text ? t->text : "", -1, SQLITE_STATIC);
    bind_tokens(st, 2, t->tokens, t->n_tokens);
    bind_sampling(st, 3, t);
    sqlite3_bind_double(st, 4, t->prefill_tps);
    sqlite3_bind_double(st, 5, t->decode_tps);
    sqlite3_bind_int64(st, 6, t->time_ms > 0 ? t->time_ms : store_now_ms());
    sqlite3_bind_int(st, 7, t->interrupted != 0);
    sqlite3_bind_int64(st, 8, t->id);
    sqlite3_bind_int64(st, 9, t->session_id);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "saving reply");
    sqlite3_finalize(st);
    if (rc == RWKV_OK && sqlite3_changes(s->db) == 0)
        rc = rwkv_errf(err, RWKV_EINVAL, "%s: no turn %lld in session %lld", s->path,
                       (long long)t->id, (long long)t->session_id);
    if (rc == RWKV_OK)                 /* its writer's lease: held on, or ended */
        rc = t->interrupted == STORE_TURN_BEGUN
                 ? lease_take(s, t->id, err)
                 : exec_id(s, "DELETE FROM settings WHERE key=" WRITER_KEY("?"), t->id, err);
    if (rc != RWKV_OK ||
        (state && (rc = store_snapshot_put_tx(s, t->id, state, n, meta, err)) != RWKV_OK) ||
        (rc = head_read(s, t->session_id, t->id, &w, err)) != RWKV_OK ||
        (rc = set_head(s, t->session_id, t->id, err)) != RWKV_OK ||
        (rc = store_retain(s, t->session_id, err)) != RWKV_OK)
        goto fail;
    return head_done(s, &w, store_tx_commit(s, err));
fail:
    store_tx_rollback(s);
    return rc;
}

/* A turn row as turn_read reads it: all but parent, tokens and sampling are
** NOT NULL in the schema (store_row_check); no scan for a missing turn (the
** table is the big one). */
static const store_rowspec turn_spec = {
    "turns", NULL,
    STORE_COL(1) | STORE_COL(3) | STORE_COL(4) | STORE_COL(7) | STORE_COL(8) | STORE_COL(9) |
        STORE_COL(10) | STORE_COL(11)
};

/* Body of store_turn_get (NOTE == NULL: strict) and store_turn_read. */
static int
turn_read(store *s, int64_t id, store_turn *out, char *note, size_t cap, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    memset(out, 0, sizeof *out);
    if (note && cap)
        note[0] = '\0';
    if ((rc = store_prep(s, "SELECT id, session_id, parent_id, role, text, tokens, sampling,"
                            " prefill_tps, decode_tps, time_ms, interrupted, depth,"
                            " EXISTS(SELECT 1 FROM snapshots WHERE turn_id=turns.id),"
                            " (SELECT count(*) FROM turns c WHERE c.parent_id=turns.id)"
                            " FROM turns WHERE id=?", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    if ((rc = store_step_row(s, st, &turn_spec, "reading turn", err, "%s: no turn %lld", s->path,
                             (long long)id)) != RWKV_OK)
        goto out;
    {
        /* by its length, NULs dropped (store_nul_drop): a NUL another
        ** program wrote cut the rest of the turn at it */
        const void *tt = sqlite3_column_text(st, 4);
        size_t tl = tt ? (size_t)sqlite3_column_bytes(st, 4) : 0;
        const void *tb = sqlite3_column_blob(st, 5);
        size_t nb = (size_t)sqlite3_column_bytes(st, 5);
        size_t toff = (tl + 1 + 3) & ~(size_t)3;
        char *blk;
        if (nb % 4 != 0 && note) {
            snprintf(note, cap, "token blob of %zu bytes is not int32s (tokens dropped)", nb);
            nb = 0;
        } else if (nb % 4 != 0) {
            rc = rwkv_errf(err, RWKV_EFORMAT, "%s: turn %lld: token blob of %zu bytes is not int32s",
                           s->path, (long long)id, nb);
            goto out;
        }
        blk = malloc(toff + nb + 4);
        if (blk == NULL) {
            rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory");
            goto out;
        }
        store_nul_drop(blk, tt, tl);
        if (nb)
            memcpy(blk + toff, tb, nb);
        out->own_ = blk;
        out->text = blk;
        out->tokens = (const int32_t *)(void *)(blk + toff);
        out->n_tokens = nb / 4;
    }
    out->id = id;
    out->session_id = sqlite3_column_int64(st, 1);
    out->parent_id = sqlite3_column_int64(st, 2);
    out->role = sqlite3_column_int(st, 3);
    params_defaults(&out->sampling);
    if (sqlite3_column_type(st, 6) == SQLITE_TEXT) {
        rwkv_err e2;
        out->has_sampling = 1;
        if (store_sampling_parse((const char *)sqlite3_column_text(st, 6), &out->sampling, &e2)
            != RWKV_OK) {
            if (note) {
                size_t l = strlen(note);
                snprintf(note + l, cap - l, "%s%s (sampling dropped)", l ? "; " : "", e2.msg);
                out->has_sampling = 0;
                params_defaults(&out->sampling);
            } else {
                rc = rwkv_errf(err, RWKV_EFORMAT, "%s: turn %lld: %s", s->path, (long long)id, e2.msg);
                store_turn_fini(out);
                goto out;
            }
        }
    }
    out->prefill_tps = sqlite3_column_double(st, 7);
    out->decode_tps = sqlite3_column_double(st, 8);
    out->time_ms = sqlite3_column_int64(st, 9);
    out->interrupted = sqlite3_column_int(st, 10);
    out->has_snapshot = sqlite3_column_int(st, 12);
    out->n_children = sqlite3_column_int(st, 13);
    rc = RWKV_OK;
out:
    sqlite3_finalize(st);
    return rc;
}

int
store_turn_get(store *s, int64_t id, store_turn *out, rwkv_err *err)
{
    return turn_read(s, id, out, NULL, 0, err);
}

int
store_turn_read(store *s, int64_t id, store_turn *out, char *note, size_t cap, rwkv_err *err)
{
    char dummy[8];
    int rc;

    if (note == NULL || cap == 0) {
        note = dummy;
        cap = sizeof dummy;
    }
    rc = turn_read(s, id, out, note, cap, err);
    /* text without the tokens it was fed as: a damaged row exported and
    ** imported (the export kept the text only), never a row we write */
    if (rc == RWKV_OK && note[0] == '\0' && out->text[0] != '\0' && out->n_tokens == 0)
        snprintf(note, cap, "its tokens are missing (imported from an export of a damaged row)");
    return rc;
}

void
store_turn_fini(store_turn *t)
{
    if (t == NULL)
        return;
    free(t->own_);
    t->own_ = NULL;
    t->text = NULL;
    t->tokens = NULL;
    t->n_tokens = 0;
}

/* Collect column 0 of every row of ST into a malloc'ed array. */
static int
collect_ids(store *s, sqlite3_stmt *st, int64_t **ids, size_t *n, rwkv_err *err)
{
    int64_t *v = NULL;
    size_t cnt = 0, cap = 0;
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *t = store_grow(v, &cap, cnt, sizeof *v, 32);
        if (t == NULL) {
            free(v);
            return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
        }
        v = t;
        v[cnt++] = sqlite3_column_int64(st, 0);
    }
    if (rc != SQLITE_DONE) {
        free(v);
        return store_dberr(s, err, "reading turns");
    }
    *ids = v;
    *n = cnt;
    return RWKV_OK;
}

int
store_path_check(store *s, int64_t top, rwkv_err *err)
{
    sqlite3_stmt *st;
    int64_t parent = 0;
    int rc, exists = 0;

    if ((rc = store_prep(s, "SELECT t.parent_id, EXISTS(SELECT 1 FROM turns p WHERE p.id=t.parent_id)"
                            " FROM turns t WHERE t.id=?", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, top);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        parent = sqlite3_column_int64(st, 0);
        exists = sqlite3_column_int(st, 1);
        rc = RWKV_OK;
    } else {
        rc = rc == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "reading turns");
    }
    sqlite3_finalize(st);
    if (rc != RWKV_OK || parent == 0)
        return rc;
    if (!exists)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: turn %lld: its parent turn %lld is missing from the database",
                         s->path, (long long)top, (long long)parent);
    return rwkv_errf(err, RWKV_EFORMAT, "%s: turn %lld: parent loop in the database", s->path,
                     (long long)top);
}

int
store_turn_path(store *s, int64_t turn, int64_t **ids, size_t *n, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    *ids = NULL;
    *n = 0;
    if ((rc = store_prep(s, STORE_PATH_CTE " SELECT id FROM p ORDER BY depth", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, turn);
    rc = collect_ids(s, st, ids, n, err);
    sqlite3_finalize(st);
    if (rc == RWKV_OK && *n == 0)
        rc = rwkv_errf(err, RWKV_EINVAL, "%s: no turn %lld", s->path, (long long)turn);
    if (rc == RWKV_OK)
        rc = store_path_check(s, (*ids)[0], err);
    if (rc != RWKV_OK) {
        free(*ids);
        *ids = NULL;
        *n = 0;
    }
    return rc;
}

int
store_branch_messages(store *s, int64_t head, int64_t *n, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    *n = 0;
    if (head <= 0)
        return RWKV_OK;
    if ((rc = store_prep(s, STORE_PATH_CTE " SELECT count(*) FROM p JOIN turns t ON t.id=p.id"
                            " WHERE t.role<>0", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, head);
    if (sqlite3_step(st) == SQLITE_ROW)
        *n = sqlite3_column_int64(st, 0);
    else
        rc = store_dberr(s, err, "counting the turns of a branch");
    sqlite3_finalize(st);
    return rc;
}

int
store_branch_tokens(store *s, int64_t head, uint64_t *n, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    *n = 0;
    if (head <= 0)
        return RWKV_OK;
    /* (per row as store_turn_get counts them: its blob's bytes / 4) */
    if ((rc = store_prep(s, STORE_PATH_CTE " SELECT coalesce(sum(length(t.tokens) / 4), 0)"
                            " FROM p JOIN turns t ON t.id=p.id"
                            " WHERE NOT (t.id=?1 AND t.role=1)", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, head);
    if (sqlite3_step(st) == SQLITE_ROW)
        *n = (uint64_t)sqlite3_column_int64(st, 0);
    else
        rc = store_dberr(s, err, "counting the tokens of a branch");
    sqlite3_finalize(st);
    return rc;
}

int
store_turn_children(store *s, int64_t session, int64_t turn, int64_t **ids, size_t *n,
                    rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    *ids = NULL;
    *n = 0;
    if (turn > 0)
        rc = store_prep(s, "SELECT id FROM turns WHERE parent_id=? ORDER BY id", &st, err);
    else
        rc = store_prep(s, "SELECT id FROM turns WHERE session_id=? AND parent_id IS NULL ORDER BY id",
                        &st, err);
    if (rc != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, turn > 0 ? turn : session);
    rc = collect_ids(s, st, ids, n, err);
    sqlite3_finalize(st);
    return rc;
}

int
store_branch_leaf(store *s, int64_t turn, int64_t *leaf, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    int64_t depth = INT64_MIN;

    /* Depth must grow at every step (see the invariants): bounded. */
    if ((rc = store_prep(s, "SELECT id, depth, (SELECT depth FROM turns WHERE id=?1) FROM turns"
                            " WHERE parent_id=?1 ORDER BY id DESC LIMIT 1", &st, err)) != RWKV_OK)
        return rc;
    *leaf = turn;
    for (;;) {
        int r;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, *leaf);
        r = sqlite3_step(st);
        if (r == SQLITE_DONE) {
            rc = RWKV_OK;
            break;
        }
        if (r != SQLITE_ROW) {
            rc = store_dberr(s, err, "reading turns");
            break;
        }
        if (depth == INT64_MIN)
            depth = sqlite3_column_int64(st, 2);
        if (sqlite3_column_int64(st, 1) <= depth) {
            rc = rwkv_errf(err, RWKV_EFORMAT, "%s: turn %lld: parent loop in the database", s->path,
                           (long long)sqlite3_column_int64(st, 0));
            break;
        }
        *leaf = sqlite3_column_int64(st, 0);
        depth = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return rc;
}

int
store_session_insert_tx(store *s, const store_session *in, int64_t *id, rwkv_err *err)
{
    char t[STORE_TITLE_MAX];
    int rc = check_title(in->title, 0, t, err);
    return rc != RWKV_OK ? rc : session_insert(s, in, t, id, err);
}

int
store_turn_insert_tx(store *s, store_turn *t, rwkv_err *err)
{
    int depth, rc;

    if ((rc = check_turn(s, t, &depth, err)) != RWKV_OK)
        return rc;
    return turn_insert(s, t, depth, t->interrupted, err);
}

/* ---- fork into a new session ------------------------------------------- */

static int session_fork(store *s, int64_t id, int64_t turn, const char *title,
                        int64_t *new_id, rwkv_err *err);

int
store_session_fork(store *s, int64_t id, int64_t turn, const char *title, int64_t *new_id,
                   rwkv_err *err)
{
    /* the caller names the action (store.h) */
    return STORE_PLAIN(s, session_fork(s, id, turn, title, new_id, err));
}

static int
session_fork(store *s, int64_t id, int64_t turn, const char *title, int64_t *new_id,
             rwkv_err *err)
{
    store_session old;
    char t2[STORE_TITLE_MAX];
    int64_t *path = NULL, parent = 0;
    size_t n = 0, nearest = SIZE_MAX;
    sqlite3_stmt *cp = NULL, *snap = NULL;
    int rc, r;

    if (title != NULL && (rc = check_title(title, 1, t2, err)) != RWKV_OK)
        return rc;
    /* the write lock first, then the reads: another process deleting the
    ** session or a branch of the path while this one waited for the lock
    ** left a fork of the turns still there -- a hole in its tree -- or
    ** "turn 2 is not in session 2" (nothing copied) */
    if ((rc = store_tx_begin(s, err)) != RWKV_OK)
        return rc;
    if ((rc = store_session_get(s, id, &old, err)) != RWKV_OK)
        goto fail;
    r = turn_in_session(s, turn, id, NULL, err);
    if (r <= 0) {
        rc = r < 0 ? RWKV_EDB : rwkv_errf(err, RWKV_EINVAL, "%s: turn %lld is not in session %lld",
                                           s->path, (long long)turn, (long long)id);
        goto fail;
    }
    if (title == NULL)      /* "<old> (fork)", cut to fit */
        snprintf(t2, sizeof t2, "%.*s (fork)", (int)(sizeof t2 - 8), old.title);
    title = t2;
    if ((rc = store_turn_path(s, turn, &path, &n, err)) != RWKV_OK)
        goto fail;
    old.created_ms = 0;
    /* a fork is no chatting in it: listed right below the session it came
    ** from, which --resume still opens */
    old.updated_ms = old.updated_ms > 1 ? old.updated_ms - 1 : 1;
    if ((rc = session_insert(s, &old, title, new_id, err)) != RWKV_OK ||
        (rc = store_framing_copy_tx(s, id, *new_id, err)) != RWKV_OK ||
        (rc = sampling_copy_tx(s, id, *new_id, err)) != RWKV_OK)
        goto fail;
    if ((rc = store_prep(s, "INSERT INTO turns(id, session_id, parent_id, depth, role, text, tokens, sampling,"
                            " prefill_tps, decode_tps, time_ms, interrupted) SELECT "
                            STORE_NEXT_ID("turns") ", ?, ?, depth, role, text,"
                            " tokens, sampling, prefill_tps, decode_tps, time_ms, interrupted FROM turns"
                            " WHERE id=?", &cp, err)) != RWKV_OK ||
        /* a shared state (v8) is shared by the copy too: no bytes copied */
        (rc = store_prep(s, "INSERT INTO snapshots(turn_id, fingerprint, version, n_layer, n_embd, n_head,"
                            " head_size, precision, n_floats, created_ms, blob, digest, blob_id)"
                            " SELECT ?, fingerprint, version, n_layer, n_embd, n_head,"
                            " head_size, precision, n_floats, created_ms, blob, digest, blob_id"
                            " FROM snapshots WHERE turn_id=?",
                         &snap, err)) != RWKV_OK)
        goto fail;
    /* Copy the snapshots of the last STORE_FORK_SNAPSHOTS turns of the path
    ** and the nearest one above the fork point: resuming the fork and
    ** regenerating its last reply are then as fast as in the original, and
    ** the copy costs at most 3 blobs whatever the length of the
    ** conversation (a blob of a 1.5B state copies in ~0.2 s with fsync).
    ** Older states of the fork are rebuilt by replay. */
    {
        sqlite3_stmt *has;
        if ((rc = store_prep(s, "SELECT 1 FROM snapshots WHERE turn_id=?", &has, err)) != RWKV_OK)
            goto fail;
        for (size_t i = n; i-- > 0;) {
            sqlite3_reset(has);
            sqlite3_bind_int64(has, 1, path[i]);
            if (sqlite3_step(has) == SQLITE_ROW) {
                nearest = i;
                break;
            }
        }
        sqlite3_finalize(has);
    }
    for (size_t i = 0; i < n; i++) {
        int64_t nid;
        sqlite3_reset(cp);
        sqlite3_bind_int64(cp, 1, *new_id);
        bind_id_or_null(cp, 2, parent);
        sqlite3_bind_int64(cp, 3, path[i]);
        if (sqlite3_step(cp) != SQLITE_DONE) {
            rc = store_dberr(s, err, "copying turns");
            goto fail;
        }
        nid = sqlite3_last_insert_rowid(s->db);
        parent = nid;
        if (i != nearest && i + STORE_FORK_SNAPSHOTS < n)
            continue;
        sqlite3_reset(snap);
        sqlite3_bind_int64(snap, 1, nid);
        sqlite3_bind_int64(snap, 2, path[i]);
        if (sqlite3_step(snap) != SQLITE_DONE) {
            rc = store_dberr(s, err, "copying snapshots");
            goto fail;
        }
    }
    if ((rc = session_set_head(s, *new_id, parent, err)) != RWKV_OK ||   /* updated_ms kept */
        (rc = store_retain(s, *new_id, err)) != RWKV_OK)
        goto fail;
    sqlite3_finalize(cp);
    sqlite3_finalize(snap);
    cp = snap = NULL;
    rc = store_tx_commit(s, err);
    goto out;
fail:
    sqlite3_finalize(cp);
    sqlite3_finalize(snap);
    store_tx_rollback(s);
out:
    free(path);
    return rc;
}
