/*
** store_vacuum.c -- giving the space of deleted rows back to the file
** system (store.h, store_vacuum).
**
** SQLite keeps the pages of deleted rows in the file as free pages, reused
** by later writes; the file never shrinks by itself.  A new database gets
** auto_vacuum=INCREMENTAL before its first table (store.c), so
** `PRAGMA incremental_vacuum` can move the free pages to the end and cut
** them off without rewriting the file; a file made before that (or by hand)
** needs one full VACUUM, which also sets the mode for the next time.  In WAL
** mode the cut reaches the file at a checkpoint: TRUNCATE also empties the
** WAL, unless another connection is reading (then the last one to close
** does it).
** After a delete (store_vacuum_after_delete) the vacuum is tried once,
** without waiting for another program's lock: the delete is done, and the
** space comes back at the next delete or `sessions vacuum` if not now.
**
** store_vacuum (`sessions vacuum`) first folds the states saved inline
** before schema v8 that have a twin into shared rows (fold: one
** transaction, so a crash or an error midway leaves every old row as it
** was and readable); the pages that frees are given back by the vacuum
** after it.  A delete's vacuum never folds: a delete must not take the
** minutes a first fold of a big old file can.
*/
#include "store_int.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The size of PATH plus that of PATH-wal (0 for a missing one). */
static uint64_t
file_bytes(const char *path)
{
    char wal[STORE_PATH_MAX + 8];
    struct stat sb;
    uint64_t n = 0;

    if (stat(path, &sb) == 0)
        n += (uint64_t)sb.st_size;
    if (snprintf(wal, sizeof wal, "%s-wal", path) < (int)sizeof wal && stat(wal, &sb) == 0)
        n += (uint64_t)sb.st_size;
    return n;
}

/* PRAGMA wal_checkpoint(TRUNCATE); *BUSY: it could not finish (a reader). */
static int
checkpoint(store *s, int *busy, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc, r;

    *busy = 0;
    if ((rc = store_prep(s, "PRAGMA wal_checkpoint(TRUNCATE)", &st, err)) != RWKV_OK)
        return rc;
    r = sqlite3_step(st);
    if (r == SQLITE_ROW)
        *busy = sqlite3_column_int(st, 0) != 0;
    else if (r == SQLITE_BUSY || r == SQLITE_LOCKED)
        *busy = 1;
    else if (r != SQLITE_DONE)
        rc = store_dberr(s, err, "checkpoint");
    sqlite3_finalize(st);
    return rc;
}

/* Fold the inline states with a twin (store_snapshot_fold_tx) in one
** transaction: *V's folded and folded_bytes. */
static int
fold(store *s, store_vacuum_info *v, rwkv_err *err)
{
    int rc;

    if ((rc = store_tx_begin(s, err)) != RWKV_OK)
        return rc;
    if ((rc = store_snapshot_fold_tx(s, &v->folded, &v->folded_bytes, err)) != RWKV_OK) {
        store_tx_rollback(s);
        v->folded = 0;
        v->folded_bytes = 0;
        return rc;
    }
    return store_tx_commit(s, err);
}

/* The search index checked (FTS5 integrity-check) and, when damaged,
** rebuilt from the messages (store_fts.c): *V's fts_rebuilt.  First: the
** fold and the vacuum write through its triggers' tables. */
static int
fts_mend(store *s, store_vacuum_info *v, rwkv_err *err)
{
    int damaged = 0, rc;

    if ((rc = store_fts_check(s, &damaged, err)) != RWKV_OK || !damaged)
        return rc;
    if ((rc = store_fts_rebuild(s, err)) == RWKV_OK)
        v->fts_rebuilt = 1;
    return rc;
}

/* One step of steps(): 16 free pages, what the WAL holds at once (1 MiB of
** 64 KiB pages) before the checkpoint after it writes them into the file,
** cuts its end and empties the WAL. */
#define VACUUM_STEP_SQL "PRAGMA incremental_vacuum(16)"

/* The free pages back in steps, for a disk too full to hold the WAL of the
** one incremental_vacuum (the pages it moves: up to as many as were freed,
** so a delete on a full disk freed nothing): the delete's WAL emptied
** first, then VACUUM_STEP_SQL's pages at a time, each step's checkpoint giving
** its pages back before the next.  Stops where a reader holds the WAL
** (*BUSY) or a step frees nothing. */
static int
steps(store *s, int *busy, rwkv_err *err)
{
    int64_t left = 0, before;
    int rc;

    if ((rc = checkpoint(s, busy, err)) != RWKV_OK || *busy ||
        (rc = store_pragma_int(s, "PRAGMA freelist_count", &left, err)) != RWKV_OK)
        return rc;
    while (left > 0) {
        before = left;
        if ((rc = store_exec(s, VACUUM_STEP_SQL, err)) != RWKV_OK ||
            (rc = checkpoint(s, busy, err)) != RWKV_OK || *busy ||
            (rc = store_pragma_int(s, "PRAGMA freelist_count", &left, err)) != RWKV_OK)
            return rc;
        if (left >= before)
            break;
    }
    return RWKV_OK;
}

/* The free pages back to the file system (store.h, store_vacuum): all of
** *V but bytes_before and the fold's fields. */
static int
vacuum_pages(store *s, store_vacuum_info *v, rwkv_err *err)
{
    int64_t av = 0;
    int rc;

    v->bytes_after = 0;
    v->full = 0;
    v->busy = 0;
    if ((rc = store_pragma_int(s, "PRAGMA freelist_count", &v->free_pages, err)) != RWKV_OK ||
        (rc = store_pragma_int(s, "PRAGMA auto_vacuum", &av, err)) != RWKV_OK)
        return rc;
    /* a shared state no snapshot uses (the trigger of v8 removes it with its
    ** last user; a file edited with foreign keys off may still hold one) */
    if ((rc = store_exec(s, "DELETE FROM state_blobs WHERE id NOT IN"
                            " (SELECT blob_id FROM snapshots WHERE blob_id IS NOT NULL)", err)) != RWKV_OK)
        return rc;
    if (av == 2) {
        int full = s->saw_full;
        s->saw_full = 0;
        rc = store_exec(s, "PRAGMA incremental_vacuum", err);
        if (rc != RWKV_OK && s->saw_full)      /* a full disk: in steps */
            rc = steps(s, &v->busy, err);
        s->saw_full |= full;
    } else {
        v->full = 1;
        rc = store_exec(s, "PRAGMA auto_vacuum=INCREMENTAL; VACUUM", err);
    }
    if (rc != RWKV_OK || (rc = checkpoint(s, &v->busy, err)) != RWKV_OK)
        return rc;
    v->bytes_after = file_bytes(s->path);
    return RWKV_OK;
}

int
store_vacuum(store *s, store_vacuum_info *out, rwkv_err *err)
{
    store_vacuum_info v;
    int rc;

    memset(&v, 0, sizeof v);
    v.bytes_before = file_bytes(s->path);
    if ((rc = fts_mend(s, &v, err)) != RWKV_OK || (rc = fold(s, &v, err)) != RWKV_OK ||
        (rc = vacuum_pages(s, &v, err)) != RWKV_OK)
        return rc;
    if (out)
        *out = v;
    return RWKV_OK;
}

void
store_vacuum_after_delete(store *s)
{
    store_vacuum_info v;
    rwkv_err e2;

    memset(&v, 0, sizeof v);
    s->busy_never++;            /* nested uses restore it in turn */
    (void)vacuum_pages(s, &v, &e2);
    s->busy_never--;
}
