/*
** store_fts.c -- the search index of the messages (turns_fts: FTS5, the
** trigram tokenizer, content='turns') is derived data.  The triggers of
** schema v3 keep it in step with turns, and FTS5's 'rebuild' makes it
** again from them, losing nothing.
**
** A damaged index (its shadow tables edited by hand, a bad page in them)
** fails every statement that reads it -- a search, a turn written or
** deleted (their triggers) -- with SQLITE_CORRUPT_VTAB, SQLite's code for
** a virtual table's own damage.  turns_fts is the schema's only virtual
** table, so the code names it.  That is not a damaged database, and the
** way on is not store_corrupt's (export every session, import it into a
** new file) but a rebuild:
**   - store_dberr says so (store_fts_damaged): the index, not the file,
**     and how it is rebuilt;
**   - a search that fails so mends it where the file may be written
**     (store_fts_mend: FTS5's 'integrity-check' confirms it, 'rebuild'
**     remakes it in one transaction) and runs again; store_file_note says
**     it once;
**   - store_vacuum (`sessions vacuum`) checks it each time and rebuilds
**     it when damaged (store_fts_check, store_fts_rebuild).
** A rebuild that fails as damaged (bad pages under the index, unreadable
** messages) is a damaged file: store_corrupt's line, its way on.
** A file opened read-only cannot be mended: the search says the index is
** damaged and what rebuilds it.
*/
#include "store_int.h"

/* FTS5's check of the index against itself and, rank 1, against turns. */
#define FTS_CHECK_SQL "INSERT INTO turns_fts(turns_fts, rank) VALUES('integrity-check', 1)"

int
store_fts_damaged(store *s, rwkv_err *err)
{
    if (s->read_only)
        return rwkv_errf(err, RWKV_ECORRUPT,
                         "%s: the search index is damaged (not the sessions: it is made from "
                         "their messages), and this file is read-only here: 'rwkv-tui sessions "
                         "--db %s vacuum' rebuilds it where the file may be written", s->path,
                         s->path);
    return rwkv_errf(err, RWKV_ECORRUPT,
                     "%s: the search index is damaged (not the sessions: it is made from their "
                     "messages): 'rwkv-tui sessions --db %s vacuum' rebuilds it", s->path,
                     s->path);
}

int
store_fts_check(store *s, int *damaged, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc, r;

    *damaged = 0;
    /* an index whose structure does not read fails already here ("vtable
    ** constructor failed"): damaged too */
    if (sqlite3_prepare_v2(s->db, FTS_CHECK_SQL, -1, &st, NULL) != SQLITE_OK) {
        if ((sqlite3_errcode(s->db) & 0xff) == SQLITE_CORRUPT) {
            *damaged = 1;
            return RWKV_OK;
        }
        return store_dberr(s, err, "checking the search index");
    }
    rc = RWKV_OK;
    r = sqlite3_step(st);
    if ((r & 0xff) == SQLITE_CORRUPT)
        *damaged = 1;
    else if (r != SQLITE_DONE)
        rc = store_dberr(s, err, "checking the search index");
    sqlite3_finalize(st);
    return rc;
}

/*
** FTS5's 'rebuild' starts from the index's own structure record: one that
** does not read (garbled, cut) fails it ("vtable constructor failed"), and
** the index could never be rebuilt -- said as a damaged file.  The index
** being derived data, its two tables are emptied to a blank index's (made
** by a temporary FTS5 table of this SQLite, so the records are its own)
** and 'rebuild' runs again.  In the caller's transaction.
*/
#define FTS_RESET_SQL \
    "DELETE FROM main.turns_fts_data; DELETE FROM main.turns_fts_idx;" \
    "DROP TABLE IF EXISTS temp.rwkv_fts_blank;" \
    "CREATE VIRTUAL TABLE temp.rwkv_fts_blank USING fts5(x);" \
    "INSERT INTO main.turns_fts_data(id, block) SELECT id, block FROM temp.rwkv_fts_blank_data;" \
    "DROP TABLE temp.rwkv_fts_blank;" \
    "INSERT INTO turns_fts(turns_fts) VALUES('rebuild')"

int
store_fts_rebuild(store *s, rwkv_err *err)
{
    int rc;

    if ((rc = store_tx_begin(s, err)) != RWKV_OK)
        return rc;
    if (sqlite3_exec(s->db, "INSERT INTO turns_fts(turns_fts) VALUES('rebuild')", NULL, NULL,
                     NULL) != SQLITE_OK &&
        ((sqlite3_errcode(s->db) & 0xff) != SQLITE_CORRUPT ||
         sqlite3_exec(s->db, FTS_RESET_SQL, NULL, NULL, NULL) != SQLITE_OK)) {
        /* what a rebuild cannot mend -- damaged pages under the index, or
        ** the messages themselves unreadable -- is a damaged file */
        if ((sqlite3_errcode(s->db) & 0xff) == SQLITE_CORRUPT)
            rc = store_corrupt(s, err, "rebuilding the search index: %s", sqlite3_errmsg(s->db));
        else
            rc = store_dberr(s, err, "rebuilding the search index");
        store_tx_rollback(s);
        return rc;
    }
    return store_tx_commit(s, err);
}

int
store_fts_mend(store *s, rwkv_err *err)
{
    rwkv_err e2;
    int damaged = 0;

    /* not the index (a damaged page of turns, a full disk): ERR as it is */
    if (err->code != RWKV_ECORRUPT || s->tx_depth > 0)
        return err->code;
    if (s->read_only)
        return store_fts_damaged(s, err);
    if (store_fts_check(s, &damaged, &e2) != RWKV_OK || !damaged)
        return err->code;
    if (store_fts_rebuild(s, &e2) != RWKV_OK) {
        /* a damaged file (store_fts_rebuild): the damaged-database line;
        ** else (a full disk) the index's, vacuum the next try */
        if (e2.code == RWKV_ECORRUPT)
            *err = e2;
        else
            store_fts_damaged(s, err);
        return err->code;
    }
    s->fts_note = 1;
    return RWKV_OK;
}
