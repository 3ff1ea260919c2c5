/*
** store_snapshot.c -- state snapshots, the retention policy and the replay
** plan that rebuilds any turn's state from the nearest usable snapshot.
**
** A snapshot of turn T is the state after T's tokens were fed (blob format:
** store_blob.c).  Its metadata is kept twice: in columns (so a plan can be
** made without reading megabytes) and in the blob header (the authority,
** covered by the checksum).  A snapshot is used only when fingerprint,
** version, dims, precision and length all match the loaded model.
**
** Retention (store_retain, run in the transaction that adds a turn): keep
** the snapshot of a turn that is
**     a leaf                     (resume is instant)
**     a branch point             (switching branch is instant)
**     within the last keep_last turns above some leaf (regenerate, edit and
**                                 fork near the end of a branch are instant)
**     at a depth that is a multiple of `every`  (bounds any rebuild to at
**                                 most every-1 turns of tokens)
** and drop the others; then, when the database has a disk budget for its
** states, drop more by its order (store_budget.c).  Sizes with the defaults (keep_last 6, every 8), for
** a 1.5B RWKV-7 (24 layers, C 2048, 32 heads of 64: 3,244,032 floats =
** 12.98 MB a snapshot, stored raw -- see store_blob.c for why raw): a
** 100-exchange (200-turn) linear conversation keeps 25 (depth 0, 8, ...,
** 192) + 6 (194..199) = 31 snapshots = 0.40 GB (test_store.c checks it);
** every turn would be 2.6 GB.  Rebuilding a dropped state replays at most 7
** turns of tokens.  Reading one back takes 20-50 ms (bench/bench_store.c)
** whatever the conversation's length.
**
** Identical states are stored once (schema v8): the bytes go to
** state_blobs, keyed by the blob's checksum field (a 64-bit hash of header
** and floats) with the bytes compared on a hit, and the snapshot row points
** there (blob_id; its own blob column empty).  Every session's greeting is
** such a state -- the same bytes for one model, framing and state file --
** and so are a fork's copied states.  A trigger (store.c, v8) removes the
** shared row with its last snapshot.  Rows saved before v8 keep their bytes
** inline (blob_id NULL); both kinds are read alike (SNAP_SELECT).  Such a
** row is folded into a shared one by `sessions vacuum` (store_vacuum:
** store_snapshot_fold_tx) once it has a twin -- not at open (moving
** gigabytes there is what v8 avoided) and not at a save (finding an inline
** twin means reading every inline candidate's megabytes).
**
** Sizes (store_session_usage): a session's OWN bytes are those no other
** session uses, its SHARED ones the copies others use too; every session's
** OWN plus each shared copy once is the file's total, which is what
** `sessions budget`, the F2 title and the C-b prompt show.
*/
#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- put / get ---------------------------------------------------------- */

static int
check_state(const float *state, size_t n, const store_state_meta *meta, rwkv_err *err)
{
    if (state == NULL || meta == NULL)
        return rwkv_errf(err, RWKV_EINVAL, "snapshot: no state or no metadata");
    if (n == 0 || n > STORE_MAX_STATE_FLOATS)
        return rwkv_errf(err, RWKV_EINVAL, "snapshot: %zu floats is not a state size (1..%u)", n,
                         STORE_MAX_STATE_FLOATS);
    return RWKV_OK;
}

/* The id of the shared row holding BLOB (BYTES), added if none holds it
** yet, into *ID; *FOUND (may be NULL) 1 when one held it.  The hash only
** finds candidates: the bytes decide. */
static int
shared_blob(store *s, const unsigned char *blob, size_t bytes, int64_t *id, int *found,
            rwkv_err *err)
{
    const sqlite3_int64 h = (sqlite3_int64)store_blob_hash(blob);
    sqlite3_stmt *st;
    int rc, r;

    if ((rc = store_prep(s, "SELECT id FROM state_blobs WHERE hash=? AND blob=? LIMIT 1", &st,
                         err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, h);
    sqlite3_bind_blob64(st, 2, blob, bytes, SQLITE_STATIC);
    r = sqlite3_step(st);
    if (r == SQLITE_ROW)
        *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (found)
        *found = r == SQLITE_ROW;
    if (r == SQLITE_ROW)
        return RWKV_OK;
    if (r != SQLITE_DONE)
        return store_dberr(s, err, "looking up a saved state");
    if ((rc = store_prep(s, "INSERT INTO state_blobs(hash, blob) VALUES (?,?)", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, h);
    sqlite3_bind_blob64(st, 2, blob, bytes, SQLITE_STATIC);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "saving snapshot");
    *id = sqlite3_last_insert_rowid(s->db);
    sqlite3_finalize(st);
    return rc;
}

int
store_snapshot_put_tx(store *s, int64_t turn, const float *state, size_t n,
                      const store_state_meta *meta, rwkv_err *err)
{
    sqlite3_stmt *st;
    unsigned char *blob;
    size_t bytes;
    int64_t blob_id = 0;
    int rc;

    if ((rc = check_state(state, n, meta, err)) != RWKV_OK)
        return rc;
    bytes = store_blob_size(n);
    if ((blob = malloc(bytes)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "snapshot: out of memory for %zu bytes", bytes);
    store_blob_encode(state, n, meta, blob);
    /* the old row goes by a DELETE, not INSERT OR REPLACE: a REPLACE fires
    ** no delete trigger, and the trigger frees its shared row if unused */
    if ((rc = store_exec_ids(s, "DELETE FROM snapshots WHERE turn_id=?", &turn, 1, "saving snapshot",
                             err)) != RWKV_OK ||
        (rc = shared_blob(s, blob, bytes, &blob_id, NULL, err)) != RWKV_OK) {
        free(blob);
        return rc;
    }
    free(blob);
    if ((rc = store_prep(s, "INSERT INTO snapshots(turn_id, fingerprint, version, n_layer, n_embd,"
                            " n_head, head_size, precision, n_floats, created_ms, blob, digest, blob_id)"
                            " VALUES (?,?,?,?,?,?,?,?,?,?,x'',?,?)", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, turn);
    sqlite3_bind_int64(st, 2, (int64_t)meta->fingerprint);
    sqlite3_bind_text(st, 3, meta->version, (int)strnlen(meta->version, sizeof meta->version),
                      SQLITE_STATIC);
    sqlite3_bind_int(st, 4, meta->n_layer);
    sqlite3_bind_int(st, 5, meta->n_embd);
    sqlite3_bind_int(st, 6, meta->n_head);
    sqlite3_bind_int(st, 7, meta->head_size);
    sqlite3_bind_int(st, 8, meta->precision);
    sqlite3_bind_int64(st, 9, (int64_t)n);
    sqlite3_bind_int64(st, 10, store_now_ms());
    sqlite3_bind_int64(st, 11, (int64_t)meta->digest);
    sqlite3_bind_int64(st, 12, blob_id);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "saving snapshot");
    sqlite3_finalize(st);
    return rc;
}

/* The session of TURN into *SID (0: no such turn). */
static int
turn_session(store *s, int64_t turn, int64_t *sid, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc, r;

    *sid = 0;
    if ((rc = store_prep(s, "SELECT session_id FROM turns WHERE id=?", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, turn);
    r = sqlite3_step(st);
    if (r == SQLITE_ROW)
        *sid = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return r == SQLITE_ROW || r == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "saving snapshot");
}

/* The state saved, then the database's budget as at any save (store_retain:
** TURN's session's head spared) -- a state a replay rebuilt and kept
** (session_db.c, keep_replayed) may not leave the file over it. */
static int
snapshot_put(store *s, int64_t turn, const float *state, size_t n,
             const store_state_meta *meta, rwkv_err *err)
{
    store_budget_info bi;
    int64_t sid = 0;
    int rc;

    if ((rc = store_tx_begin(s, err)) != RWKV_OK)
        return rc;
    if ((rc = store_snapshot_put_tx(s, turn, state, n, meta, err)) != RWKV_OK ||
        (rc = turn_session(s, turn, &sid, err)) != RWKV_OK ||
        (rc = store_budget_apply(s, sid, &bi, err)) != RWKV_OK) {
        store_tx_rollback(s);
        return rc;
    }
    return store_tx_commit(s, err);
}

int
store_snapshot_put(store *s, int64_t turn, const float *state, size_t n,
                   const store_state_meta *meta, rwkv_err *err)
{
    /* the caller names the action (store.h) */
    return STORE_PLAIN(s, snapshot_put(s, turn, state, n, meta, err));
}

const char *
store_precision_name(int p)
{
    static const char *const name[3][4] = {
        { "fp32", "fp32 with int8 weights", "fp32 with 4-bit weights",
          "fp32 with int8 and 4-bit weights" },
        { "bf16", "bf16 with int8 weights", "bf16 with 4-bit weights",
          "bf16 with int8 and 4-bit weights" },
        { "fp16", "fp16 with int8 weights", "fp16 with 4-bit weights",
          "fp16 with int8 and 4-bit weights" },
    };
    const int b = STORE_PREC_BASE(p);

    return b >= 0 && b < 3 ? name[b][STORE_PREC_KINDS(p) >> 8] : "?";
}

/* 1 if HAVE (N_HAVE floats) may be used for WANT (N_WANT floats, 0 = any);
** else 0 with the difference in WHY, worded through LANG's tr hook (a note;
** NULL: English, for an error message). */
static int
meta_match(const store_state_meta *have, size_t n_have, const store_state_meta *want,
           size_t n_want, const store *lang, char *why, size_t cap)
{
    if (have->fingerprint != want->fingerprint)
        snprintf(why, cap, store_tr(lang, "made with another model (fingerprint %016llx, loaded %016llx)"),
                 (unsigned long long)have->fingerprint, (unsigned long long)want->fingerprint);
    else if (have->digest != want->digest && (have->digest != 0 || want->digest_required))
        snprintf(why, cap,
                 store_tr(lang, "made with another model file (checksum digest %016llx, loaded %016llx)"),
                 (unsigned long long)have->digest, (unsigned long long)want->digest);
    else if (strncmp(have->version, want->version, sizeof have->version) != 0 ||
             have->n_layer != want->n_layer || have->n_embd != want->n_embd ||
             have->n_head != want->n_head || have->head_size != want->head_size)
        snprintf(why, cap,
                 store_tr(lang, "made for v%.8s %dx%d (%d heads of %d), loaded v%.8s %dx%d (%d heads of %d)"),
                 have->version, have->n_layer, have->n_embd, have->n_head, have->head_size,
                 want->version, want->n_layer, want->n_embd, want->n_head, want->head_size);
    else if (have->precision != want->precision && STORE_PREC_BASE(have->precision) ==
                                                       STORE_PREC_BASE(want->precision) &&
             STORE_PREC_KINDS(have->precision) == STORE_PREC_KINDS(want->precision))
        snprintf(why, cap, store_tr(lang, "made with %s on other layers than the strategy's"),
                 store_precision_name(have->precision));
    else if (have->precision != want->precision)
        snprintf(why, cap, store_tr(lang, "made with %s, the strategy computes in %s"),
                 store_precision_name(have->precision), store_precision_name(want->precision));
    else if (n_want != 0 && n_have != n_want)
        snprintf(why, cap, store_tr(lang, "holds %zu floats, the model's state has %zu"), n_have, n_want);
    else
        return 1;
    return 0;
}

/* A snapshot's bytes (inline before v8, else its shared row: NULL if that
** is missing), digest and shared row id, by turn_id. */
#define SNAP_SELECT                                                                   \
    "SELECT CASE WHEN n.blob_id IS NULL THEN n.blob ELSE b.blob END, n.digest, n.blob_id" \
    " FROM snapshots n LEFT JOIN state_blobs b ON b.id=n.blob_id WHERE n.turn_id=?"

/* Why column 0 of a SNAP_SELECT row (of SQLite type TYPE, read before the
** bytes were) is no state: its shared row missing, or cut or damaged (E2's
** message: store_blob_decode says what, with the sizes). */
static const char *
snap_why(sqlite3_stmt *st, int type, const rwkv_err *e2, char *buf, size_t cap)
{
    long long row = sqlite3_column_int64(st, 2);
    const char *as = type == SQLITE_BLOB ? "" : " (stored as text, not a blob)";

    if (sqlite3_column_type(st, 2) == SQLITE_NULL)
        snprintf(buf, cap, "%.200s%s", type == SQLITE_NULL ? "no state bytes" : e2->msg, as);
    else if (type == SQLITE_NULL)
        snprintf(buf, cap, "its shared state (row %lld of state_blobs) is missing", row);
    else
        snprintf(buf, cap, "its shared state (row %lld of state_blobs) is damaged: %.160s%s", row,
                 e2->msg, as);
    return buf;
}

int
store_snapshot_get(store *s, int64_t turn, const store_state_meta *want, float *out, size_t n,
                   enum store_snap *stp, rwkv_err *err)
{
    enum store_snap dummy;
    enum store_snap *so = stp ? stp : &dummy;
    sqlite3_stmt *st;
    store_state_meta have;
    size_t nf;
    char why[200];
    int rc;

    *so = STORE_SNAP_ABSENT;
    if ((rc = store_prep(s, SNAP_SELECT, &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, turn);
    if ((rc = store_step_one(s, st, "reading snapshot", err, "turn %lld has no saved state",
                             (long long)turn)) != RWKV_OK)
        goto out;
    {
        /* a value of another type is read as its bytes: text cut from a
        ** blob says what is wrong with them, not that the row is missing */
        int type = sqlite3_column_type(st, 0);
        const unsigned char *b = sqlite3_column_blob(st, 0);
        size_t len = (size_t)sqlite3_column_bytes(st, 0);
        rwkv_err e2;
        char wb[RWKV_ERR_MSG / 2];
        e2.msg[0] = '\0';
        if (type == SQLITE_NULL || store_blob_decode(b, len, &have, &nf, NULL, 0, &e2) != RWKV_OK) {
            *so = STORE_SNAP_CORRUPT;
            rc = rwkv_errf(err, RWKV_EFORMAT, "saved state of turn %lld is unusable: %s", (long long)turn,
                           snap_why(st, type, &e2, wb, sizeof wb));
            goto out;
        }
        have.digest = (uint64_t)sqlite3_column_int64(st, 1);   /* not in the blob (v5) */
        if (!meta_match(&have, nf, want, n, NULL, why, sizeof why)) {
            *so = STORE_SNAP_MISMATCH;
            rc = rwkv_errf(err, RWKV_ESHAPE, "saved state of turn %lld was %s", (long long)turn, why);
            goto out;
        }
        if ((rc = store_blob_decode(b, len, &have, &nf, out, n, &e2)) != RWKV_OK) {
            *so = STORE_SNAP_CORRUPT;
            rc = rwkv_errf(err, rc, "saved state of turn %lld: %s", (long long)turn, e2.msg);
            goto out;
        }
        *so = STORE_SNAP_OK;
        rc = RWKV_OK;
    }
out:
    sqlite3_finalize(st);
    return rc;
}

int
store_snapshot_meta(store *s, int64_t turn, store_state_meta *meta, size_t *n, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    if ((rc = store_prep(s, SNAP_SELECT, &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, turn);
    if ((rc = store_step_one(s, st, "reading snapshot", err, "turn %lld has no saved state",
                             (long long)turn)) == RWKV_OK) {
        rwkv_err e2;
        char wb[RWKV_ERR_MSG / 2];
        int type = sqlite3_column_type(st, 0);   /* before the bytes are read */
        e2.msg[0] = '\0';
        if (type == SQLITE_NULL ||
            store_blob_decode(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0),
                              meta, n, NULL, 0, &e2) != RWKV_OK)
            rc = rwkv_errf(err, RWKV_EFORMAT, "saved state of turn %lld is unusable: %s",
                           (long long)turn, snap_why(st, type, &e2, wb, sizeof wb));
        else
            meta->digest = (uint64_t)sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return rc;
}

int
store_greeting_find(store *s, const int32_t *ids, size_t n, const char *strategy,
                    const store_state_meta *want, int64_t *turn, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    *turn = 0;
    if (n == 0 || n > (size_t)INT32_MAX / 4)
        return RWKV_OK;
    /* token blobs are little-endian int32 (store_turn.c) */
    if ((rc = store_prep(s, "SELECT t.id FROM turns t JOIN sessions e ON e.id=t.session_id"
                            " JOIN snapshots n ON n.turn_id=t.id"
                            " WHERE t.parent_id IS NULL AND t.role=? AND t.tokens=?"
                            " AND e.strategy=? AND n.fingerprint=? ORDER BY t.id DESC LIMIT 1",
                         &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int(st, 1, STORE_ROLE_SYSTEM);
    sqlite3_bind_blob64(st, 2, ids, (sqlite3_uint64)n * 4, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, strategy, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, (int64_t)want->fingerprint);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *turn = sqlite3_column_int64(st, 0);
        rc = RWKV_OK;
    } else {
        rc = rc == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "looking up a saved greeting");
    }
    sqlite3_finalize(st);
    return rc;
}

int
store_snapshot_usage(store *s, int64_t session, uint64_t *bytes, int64_t *count, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    /* a shared state counts once: in the whole file, and in a session
    ** whose turns use it more than once (a shared row's snapshots keep an
    ** empty inline blob) */
    if (session > 0)
        rc = store_prep(s, "SELECT coalesce(sum(length(n.blob)),0) + (SELECT coalesce(sum(length(b.blob)),0)"
                           " FROM state_blobs b WHERE b.id IN (SELECT m.blob_id FROM snapshots m"
                           " JOIN turns u ON u.id=m.turn_id WHERE u.session_id=?1)), count(*)"
                           " FROM snapshots n JOIN turns t ON t.id=n.turn_id WHERE t.session_id=?1",
                        &st, err);
    else
        rc = store_prep(s, "SELECT coalesce(sum(length(blob)),0) + (SELECT coalesce(sum(length(blob)),0)"
                           " FROM state_blobs), count(*) FROM snapshots", &st, err);
    if (rc != RWKV_OK)
        return rc;
    if (session > 0)
        sqlite3_bind_int64(st, 1, session);
    if (sqlite3_step(st) == SQLITE_ROW) {
        *bytes = (uint64_t)sqlite3_column_int64(st, 0);
        *count = sqlite3_column_int64(st, 1);
        rc = RWKV_OK;
    } else {
        rc = store_dberr(s, err, "reading snapshots");
    }
    sqlite3_finalize(st);
    return rc;
}

/*
** One session's share (store.h).  R: the shared rows its snapshots use; O:
** those rows with each other session using them.  A row in O is SHARED,
** one only the session uses is OWN, with its inline bytes (saved before
** v8; a shared row's snapshots keep an empty inline blob).
*/
#define USAGE_SQL                                                                          \
    "WITH r(id) AS (SELECT DISTINCT m.blob_id FROM snapshots m JOIN turns u ON u.id=m.turn_id" \
    "   WHERE u.session_id=?1 AND m.blob_id IS NOT NULL),"                                  \
    " o(id, sid) AS (SELECT DISTINCT m.blob_id, u.session_id FROM snapshots m"               \
    "   JOIN turns u ON u.id=m.turn_id WHERE m.blob_id IS NOT NULL"                          \
    "   AND m.blob_id IN (SELECT id FROM r) AND u.session_id<>?1)"                           \
    " SELECT (SELECT count(*) FROM snapshots n JOIN turns t ON t.id=n.turn_id"               \
    "   WHERE t.session_id=?1),"                                                            \
    " (SELECT coalesce(sum(length(n.blob)),0) FROM snapshots n JOIN turns t ON t.id=n.turn_id" \
    "   WHERE t.session_id=?1) + (SELECT coalesce(sum(length(b.blob)),0) FROM state_blobs b" \
    "   WHERE b.id IN (SELECT id FROM r) AND b.id NOT IN (SELECT id FROM o)),"               \
    " (SELECT coalesce(sum(length(b.blob)),0) FROM state_blobs b"                            \
    "   WHERE b.id IN (SELECT id FROM o)),"                                                  \
    " (SELECT count(DISTINCT sid) FROM o)"

int
store_session_usage(store *s, int64_t session, store_usage *out, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    memset(out, 0, sizeof *out);
    if ((rc = store_prep(s, USAGE_SQL, &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, session);
    if (sqlite3_step(st) == SQLITE_ROW) {
        out->states = sqlite3_column_int64(st, 0);
        out->own = (uint64_t)sqlite3_column_int64(st, 1);
        out->shared = (uint64_t)sqlite3_column_int64(st, 2);
        out->sharing = sqlite3_column_int64(st, 3);
        out->bytes = out->own + out->shared;
        rc = RWKV_OK;
    } else {
        rc = store_dberr(s, err, "reading snapshots");
    }
    sqlite3_finalize(st);
    return rc;
}

/* ---- folding the states saved inline before v8 ---------------------------- */

struct fold_row {
    sqlite3_int64 hash;     /* the blob's checksum field (store_blob_hash) */
    int64_t       turn;
};

static int
fold_cmp(const void *a, const void *b)
{
    const struct fold_row *x = a, *y = b;

    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return x->turn < y->turn ? -1 : x->turn > y->turn;
}

/*
** The hash of TURN's inline blob into *H, from its 64-byte header alone
** (an incremental blob read: the megabytes after it are not read).  *OK 0
** for a row that cannot be read that way (a damaged page): it stays as it
** is.  RWKV_EDB for a failure of the file (I/O, memory).
*/
static int
inline_hash(store *s, int64_t turn, sqlite3_int64 *h, int *ok, rwkv_err *err)
{
    unsigned char hdr[STORE_BLOB_HEADER];
    sqlite3_blob *bh = NULL;
    int r;

    *ok = 0;
    r = sqlite3_blob_open(s->db, "main", "snapshots", "blob", turn, 0, &bh);
    if (r == SQLITE_OK)
        r = sqlite3_blob_read(bh, hdr, (int)sizeof hdr, 0);
    sqlite3_blob_close(bh);
    if (r == SQLITE_OK) {
        *h = (sqlite3_int64)store_blob_hash(hdr);
        *ok = 1;
        return RWKV_OK;
    }
    if ((r & 0xff) == SQLITE_ERROR || (r & 0xff) == SQLITE_CORRUPT)
        return RWKV_OK;
    return store_dberr(s, err, "reading a saved state");
}

/*
** Fold TURN's inline state into a shared row (added when none holds its
** bytes): *SAVED grows by its bytes when one did, *FOLDED by one.  A state
** that does not decode (damaged) is left as it is, as is a row no longer
** inline.
*/
static int
fold_one(store *s, int64_t turn, int64_t *folded, uint64_t *saved, rwkv_err *err)
{
    sqlite3_stmt *st;
    store_state_meta m;
    size_t nf, len;
    int64_t id = 0;
    int found = 0, rc, r;
    rwkv_err e2;

    if ((rc = store_prep(s, "SELECT blob FROM snapshots WHERE turn_id=? AND blob_id IS NULL", &st,
                         err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, turn);
    if ((r = sqlite3_step(st)) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return r == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "reading a saved state");
    }
    len = (size_t)sqlite3_column_bytes(st, 0);
    if (sqlite3_column_type(st, 0) != SQLITE_BLOB ||
        store_blob_decode(sqlite3_column_blob(st, 0), len, &m, &nf, NULL, 0, &e2) != RWKV_OK) {
        sqlite3_finalize(st);
        return RWKV_OK;
    }
    /* (the bytes are the statement's until it is finalized) */
    rc = shared_blob(s, sqlite3_column_blob(st, 0), len, &id, &found, err);
    sqlite3_finalize(st);
    if (rc != RWKV_OK)
        return rc;
    if ((rc = store_prep(s, "UPDATE snapshots SET blob=x'', blob_id=?1 WHERE turn_id=?2", &st,
                         err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, turn);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "storing a saved state once");
    sqlite3_finalize(st);
    if (rc == RWKV_OK) {
        (*folded)++;
        if (found)
            *saved += len;
    }
    return rc;
}

int
store_snapshot_fold_tx(store *s, int64_t *folded, uint64_t *saved, rwkv_err *err)
{
    sqlite3_stmt *st = NULL, *q = NULL;
    struct fold_row *v = NULL;
    size_t n = 0, cap = 0;
    int rc, r;

    *folded = 0;
    *saved = 0;
    /* the inline rows, by their headers (typeof and length read no
    ** overflow pages) */
    if ((rc = store_prep(s, "SELECT turn_id FROM snapshots WHERE blob_id IS NULL"
                            " AND typeof(blob)='blob' AND length(blob)>=64 ORDER BY turn_id",
                         &st, err)) != RWKV_OK)
        return rc;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        struct fold_row *nv;
        int ok = 0;
        sqlite3_int64 h = 0;
        const int64_t turn = sqlite3_column_int64(st, 0);

        if ((rc = inline_hash(s, turn, &h, &ok, err)) != RWKV_OK)
            goto out;
        if (!ok)
            continue;
        if ((nv = store_grow(v, &cap, n, sizeof *v, 64)) == NULL) {
            rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory");
            goto out;
        }
        v = nv;
        v[n].hash = h;
        v[n].turn = turn;
        n++;
    }
    if (r != SQLITE_DONE) {
        rc = store_dberr(s, err, "reading saved states");
        goto out;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (n == 0)
        goto out;
    qsort(v, n, sizeof *v, fold_cmp);
    if ((rc = store_prep(s, "SELECT 1 FROM state_blobs WHERE hash=? LIMIT 1", &q, err)) != RWKV_OK)
        goto out;
    /* a twin: another inline row of the hash, or a shared row of it (the
    ** bytes decide in shared_blob; a row with no twin stays: moving it
    ** would rewrite its megabytes to give back nothing) */
    for (size_t i = 0; i < n && rc == RWKV_OK; i++) {
        int twin = (i > 0 && v[i - 1].hash == v[i].hash) || (i + 1 < n && v[i + 1].hash == v[i].hash);
        if (!twin) {
            sqlite3_reset(q);
            sqlite3_bind_int64(q, 1, v[i].hash);
            r = sqlite3_step(q);
            if (r != SQLITE_ROW && r != SQLITE_DONE) {
                rc = store_dberr(s, err, "reading saved states");
                break;
            }
            twin = r == SQLITE_ROW;
            sqlite3_reset(q);
        }
        if (twin)
            rc = fold_one(s, v[i].turn, folded, saved, err);
    }
out:
    sqlite3_finalize(q);
    sqlite3_finalize(st);
    free(v);
    return rc;
}

/* ---- retention ---------------------------------------------------------- */

struct rnode {
    int64_t id, parent;
    int     depth, has_snap, n_child, keep;
    size_t  pidx;      /* index of the parent, or SIZE_MAX */
};

static size_t
find_node(const struct rnode *v, size_t n, int64_t id)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].id == id ? lo : SIZE_MAX;
}

int
store_snapshot_drop_tx(store *s, const int64_t *turns, size_t n, const char *what,
                       rwkv_err *err)
{
    return store_exec_ids(s, "DELETE FROM snapshots WHERE turn_id=?", turns, n, what, err);
}

/* The turns of SESSION into *V (*N, by id; owned by caller: free), each
** marked keep by the retention rule (store.h): a leaf, a branch point, one of
** the last keep_last turns of a branch, or a depth a multiple of every. */
static int
retain_marks(store *s, int64_t session, struct rnode **out, size_t *out_n, rwkv_err *err)
{
    sqlite3_stmt *st;
    struct rnode *v = NULL;
    size_t n = 0, cap = 0;
    int rc;

    *out = NULL;
    *out_n = 0;
    if ((rc = store_prep(s, "SELECT t.id, coalesce(t.parent_id, 0), t.depth,"
                            " EXISTS(SELECT 1 FROM snapshots n WHERE n.turn_id=t.id)"
                            " FROM turns t WHERE t.session_id=? ORDER BY t.id", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, session);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct rnode *t = store_grow(v, &cap, n, sizeof *v, 64);
        if (t == NULL) {
            sqlite3_finalize(st);
            free(v);
            return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
        }
        v = t;
        memset(&v[n], 0, sizeof v[n]);
        v[n].id = sqlite3_column_int64(st, 0);
        v[n].parent = sqlite3_column_int64(st, 1);
        v[n].depth = sqlite3_column_int(st, 2);
        v[n].has_snap = sqlite3_column_int(st, 3);
        n++;
    }
    if (rc != SQLITE_DONE) {
        rc = store_dberr(s, err, "reading turns");
        sqlite3_finalize(st);
        free(v);
        return rc;
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < n; i++) {
        v[i].pidx = v[i].parent ? find_node(v, n, v[i].parent) : SIZE_MAX;
        if (v[i].pidx != SIZE_MAX)
            v[v[i].pidx].n_child++;
    }
    for (size_t i = 0; i < n; i++) {
        if (v[i].n_child != 1 || (s->ret.every > 0 && v[i].depth % s->ret.every == 0))
            v[i].keep = 1;
        if (v[i].n_child == 0) {               /* a leaf: mark its last turns */
            size_t j = i;
            for (int k = 0; k < s->ret.keep_last && j != SIZE_MAX; k++, j = v[j].pidx)
                v[j].keep = 1;
        }
    }
    *out = v;
    *out_n = n;
    return RWKV_OK;
}

int
store_retain(store *s, int64_t session, rwkv_err *err)
{
    struct rnode *v = NULL;
    int64_t *drop = NULL;
    size_t n = 0, n_drop = 0;
    int rc;

    if ((rc = retain_marks(s, session, &v, &n, err)) != RWKV_OK)
        return rc;
    if ((drop = malloc((n ? n : 1) * sizeof *drop)) == NULL) {
        rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (v[i].has_snap && !v[i].keep)
            drop[n_drop++] = v[i].id;
    if ((rc = store_snapshot_drop_tx(s, drop, n_drop, "pruning snapshots", err)) == RWKV_OK) {
        store_budget_info bi;
        rc = store_budget_apply(s, session, &bi, err);
    }
out:
    free(drop);
    free(v);
    return rc;
}

int
store_retention_keeps(store *s, int64_t session, int64_t turn, int *keeps, rwkv_err *err)
{
    struct rnode *v = NULL;
    size_t n = 0, i;
    int rc;

    *keeps = 0;
    if ((rc = retain_marks(s, session, &v, &n, err)) != RWKV_OK)
        return rc;
    if ((i = find_node(v, n, turn)) != SIZE_MAX)
        *keeps = v[i].keep;
    free(v);
    return RWKV_OK;
}

/* ---- replay plans ------------------------------------------------------- */

void
store_plan_fini(store_plan *p)
{
    if (p == NULL)
        return;
    free(p->tokens);
    free(p->segs);
    p->tokens = NULL;
    p->segs = NULL;
    p->n_tokens = p->n_segs = 0;
}

struct pnode {
    int64_t          id;
    int              role, has_snap;
    store_state_meta m;
    size_t           n_floats;
    size_t           tok_off, tok_len;
};

/* Load the turns root..TURN with their tokens (into *TOK) and snapshot
** metadata.  Arrays owned by the caller. */
static int
load_path(store *s, int64_t turn, struct pnode **pv, size_t *pn, int32_t **tok, size_t *ntok,
          rwkv_err *err)
{
    sqlite3_stmt *st;
    struct pnode *v = NULL;
    int32_t *t = NULL;
    size_t n = 0, cap = 0, nt = 0, tcap = 0;
    int rc;

    /* Bounded on a tampered file (STORE_PATH_CTE); the root is checked below. */
    if ((rc = store_prep(s, STORE_PATH_CTE
                            " SELECT t.id, t.role, t.tokens, s.turn_id IS NOT NULL, s.fingerprint, s.version,"
                            " s.n_layer, s.n_embd, s.n_head, s.head_size, s.precision, s.n_floats, s.digest"
                            " FROM p JOIN turns t ON t.id=p.id LEFT JOIN snapshots s ON s.turn_id=p.id"
                            " ORDER BY p.depth", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, turn);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        size_t nb = (size_t)sqlite3_column_bytes(st, 2), k = nb / 4;
        struct pnode *nv = store_grow(v, &cap, n, sizeof *v, 64);
        if (nv == NULL)
            goto oom;
        v = nv;
        if (nt + k > tcap) {
            size_t nc = (nt + k) * 2 + 256;
            int32_t *x = realloc(t, nc * sizeof *t);
            if (x == NULL)
                goto oom;
            t = x;
            tcap = nc;
        }
        memset(&v[n], 0, sizeof v[n]);
        v[n].id = sqlite3_column_int64(st, 0);
        v[n].role = sqlite3_column_int(st, 1);
        if (k)
            memcpy(t + nt, sqlite3_column_blob(st, 2), k * 4);
        v[n].tok_off = nt;
        v[n].tok_len = k;
        nt += k;
        v[n].has_snap = sqlite3_column_int(st, 3);
        if (v[n].has_snap) {
            v[n].m.fingerprint = (uint64_t)sqlite3_column_int64(st, 4);
            store_col_text(st, 5, v[n].m.version, sizeof v[n].m.version);
            v[n].m.n_layer = sqlite3_column_int(st, 6);
            v[n].m.n_embd = sqlite3_column_int(st, 7);
            v[n].m.n_head = sqlite3_column_int(st, 8);
            v[n].m.head_size = sqlite3_column_int(st, 9);
            v[n].m.precision = sqlite3_column_int(st, 10);
            v[n].n_floats = (size_t)sqlite3_column_int64(st, 11);
            v[n].m.digest = (uint64_t)sqlite3_column_int64(st, 12);
        }
        n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(v);
        free(t);
        return store_dberr(s, err, "reading turns");
    }
    if (n == 0) {
        free(v);
        free(t);
        return rwkv_errf(err, RWKV_EINVAL, "%s: no turn %lld", s->path, (long long)turn);
    }
    if ((rc = store_path_check(s, v[0].id, err)) != RWKV_OK) {
        free(v);
        free(t);
        return rc;
    }
    *pv = v;
    *pn = n;
    *tok = t;
    *ntok = nt;
    return RWKV_OK;
oom:
    sqlite3_finalize(st);
    free(v);
    free(t);
    return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
}

/* Fill PLAN with the tokens of V[from..n). */
static int
fill_plan(store_plan *plan, const struct pnode *v, size_t n, size_t from, const int32_t *tok,
          rwkv_err *err)
{
    size_t total = 0, k = 0;

    for (size_t i = from; i < n; i++)
        total += v[i].tok_len;
    plan->tokens = malloc((total ? total : 1) * sizeof *plan->tokens);
    plan->segs = malloc((n - from ? n - from : 1) * sizeof *plan->segs);
    if (plan->tokens == NULL || plan->segs == NULL) {
        store_plan_fini(plan);
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    }
    for (size_t i = from; i < n; i++) {
        store_plan_seg *g = &plan->segs[plan->n_segs++];
        g->turn_id = v[i].id;
        g->role = v[i].role;
        g->off = k;
        g->len = v[i].tok_len;
        if (v[i].tok_len)
            memcpy(plan->tokens + k, tok + v[i].tok_off, v[i].tok_len * sizeof *tok);
        k += v[i].tok_len;
    }
    plan->n_tokens = total;
    return RWKV_OK;
}

/* Shared body of store_replay_plan (OUT == NULL) and store_state_restore. */
static int
plan_build(store *s, int64_t turn, const store_state_meta *want, float *out, size_t n_out,
           store_plan *plan, rwkv_err *err)
{
    struct pnode *v = NULL;
    int32_t *tok = NULL;
    size_t n = 0, ntok = 0, from = 0;
    int skipped = 0, rc;

    memset(plan, 0, sizeof *plan);
    plan->target = turn;
    if ((rc = load_path(s, turn, &v, &n, &tok, &ntok, err)) != RWKV_OK)
        return rc;
    for (size_t i = n; i-- > 0;) {
        char why[200];
        rwkv_err e2;
        if (!v[i].has_snap)
            continue;
        if (!meta_match(&v[i].m, v[i].n_floats, want, out ? n_out : 0, s, why, sizeof why)) {
            if (skipped++ == 0)
                snprintf(plan->note, sizeof plan->note, store_tr(s, "saved state of turn %lld not used: %s"),
                         (long long)v[i].id, why);
            continue;
        }
        if (out != NULL) {
            rc = store_snapshot_get(s, v[i].id, want, out, n_out, NULL, &e2);
            if (rc == RWKV_EDB || rc == RWKV_ECORRUPT) {
                if (err)
                    *err = e2;
                goto done;
            }
            if (rc != RWKV_OK) {
                if (skipped++ == 0)
                    snprintf(plan->note, sizeof plan->note, "%.200s", e2.msg);
                continue;
            }
        }
        plan->base_turn = v[i].id;
        from = i + 1;
        break;
    }
    if (skipped > 1) {
        size_t l = strlen(plan->note);
        snprintf(plan->note + l, sizeof plan->note - l, store_tr(s, " (and %d more)"), skipped - 1);
    }
    rc = fill_plan(plan, v, n, from, tok, err);
done:
    free(v);
    free(tok);
    return rc;
}

int
store_replay_plan(store *s, int64_t turn, const store_state_meta *want, store_plan *plan,
                  rwkv_err *err)
{
    return plan_build(s, turn, want, NULL, 0, plan, err);
}

int
store_state_restore(store *s, int64_t turn, const store_state_meta *want, float *out, size_t n,
                    store_plan *plan, rwkv_err *err)
{
    if (out == NULL || n == 0)
        return rwkv_errf(err, RWKV_EINVAL, "restore: no state buffer");
    return plan_build(s, turn, want, out, n, plan, err);
}
