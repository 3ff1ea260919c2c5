/*
** store_row.c -- rows read back checked against what the schema promises,
** so that a damaged table is the damaged-database error, not blank data.
**
** SQLite checks a page's cells only in PRAGMA quick_check / integrity_check
** (a read of the whole file: too slow for every list).  A table page whose
** cell pointers were overwritten still reads without an error: its cells
** come back as rows of rowid 0 with every column NULL, or as garbage, and a
** row the table held is simply not found.  `sessions list` printed three
** sessions "0  1970-01-01 00:00  0" with empty titles and exited 0, and an
** export whose models page was damaged said "no model 1".
**
** So every reader of a row says what its row must look like (a
** store_rowspec: the table, the columns the schema declares NOT NULL) and
** reads it through store_row_check, and a keyed read that finds no row
** (store_step_row) looks at the table's other rows before it says "no such
** row": a row of a healthy table never has an id <= 0 (ids come from
** STORE_NEXT_ID or SQLite's rowid, both from 1) nor NULL in a NOT NULL
** column, so either is damage, reported as the open reports SQLITE_CORRUPT
** (store_corrupt, the one line of a damaged file, RWKV_ECORRUPT):
**
**     PATH: the session database is corrupt (WHAT AND WHERE): WAY ON
**
** WAY ON: no retry mends a damaged file, so the line says what still can be
** done -- what still reads, copied into a new file.  store_corrupt is the
** only place that wording lives.
**
** Cost: a few sqlite3_column_type calls a row; the scan for a missing row
** only on that error path, and only for the small tables whose spec names
** one (not turns).
*/
#include "store_int.h"

#include <stdarg.h>
#include <stdio.h>

int
store_corrupt(store *s, rwkv_err *err, const char *fmt, ...)
{
    char why[RWKV_ERR_MSG];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    /* the way on: what still reads, copied into a new file.  (sqlite3's
    ** .recover is named second: some builds of the sqlite3 tool lack what
    ** it needs and fail it with "SQL logic error".)  One format, so a long
    ** path is shortened, not the way on cut (rwkv_errf). */
    return rwkv_errf(err, RWKV_ECORRUPT,
                     "%s: the session database is corrupt (%s): export each session that still "
                     "reads ('rwkv-tui sessions --db %s export ID --format json --out F', then "
                     "'sessions --db NEW.db import F'), or copy out what reads with sqlite3's "
                     ".recover, and go on with --db NEW.db", s->path, why, s->path);
}

int
store_row_check(store *s, sqlite3_stmt *st, const store_rowspec *rs, rwkv_err *err)
{
    int64_t id;
    int n = sqlite3_column_count(st);

    /* the type first: reading a column may convert it */
    if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || (id = sqlite3_column_int64(st, 0)) <= 0)
        return store_corrupt(s, err, "table %s: a row with id %lld", rs->table,
                             (long long)sqlite3_column_int64(st, 0));
    for (int i = 1; i < n && i < 32; i++) {
        if ((rs->notnull & STORE_COL(i)) && sqlite3_column_type(st, i) == SQLITE_NULL) {
            const char *name = sqlite3_column_name(st, i);
            return store_corrupt(s, err, "table %s, row %lld: %s is NULL", rs->table, (long long)id,
                                 name ? name : "a column");
        }
    }
    return RWKV_OK;
}

/* RWKV_OK when every row of RS's table reads whole (its spec's ALL query,
** each row checked), else the damaged-database error of the first bad one. */
static int
table_check(store *s, const store_rowspec *rs, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc, r;

    if (rs->all == NULL)
        return RWKV_OK;
    if ((rc = store_prep(s, rs->all, &st, err)) != RWKV_OK)
        return rc;
    while ((r = sqlite3_step(st)) == SQLITE_ROW)
        if ((rc = store_row_check(s, st, rs, err)) != RWKV_OK)
            break;
    if (rc == RWKV_OK && r != SQLITE_DONE)
        rc = store_dberr(s, err, "reading table");
    sqlite3_finalize(st);
    return rc;
}

int
store_step_row(store *s, sqlite3_stmt *st, const store_rowspec *rs, const char *what,
               rwkv_err *err, const char *absent, ...)
{
    int rc = sqlite3_step(st);
    va_list ap;

    if (rc == SQLITE_ROW)
        return store_row_check(s, st, rs, err);
    if (rc != SQLITE_DONE)
        return store_dberr(s, err, what);
    /* no row: missing, or lost in a damaged page that reads as other rows */
    if ((rc = table_check(s, rs, err)) != RWKV_OK)
        return rc;
    va_start(ap, absent);
    rwkv_verrf(err, RWKV_EINVAL, absent, ap);
    va_end(ap);
    return RWKV_EINVAL;
}
