/*
** store_framing.c -- the framing (framing.h) of sessions and presets in the
** database: the JSON text in sessions.framing and presets.framing (schema
** v4; NULL = the defaults for a session, none for a preset).
*/
#include "framing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

/* Read column 0 of SQL (bound to ?1 = ID or NAME) as a framing: *HAS 0 when
** there is no row value (NULL); RWKV_EINVAL NOTFOUND when no row. */
static int
read_framing(store *s, sqlite3_stmt *st, const char *what, framing *out, int *has,
             rwkv_err *err)
{
    int rc = store_step_one(s, st, what, err, "no %s", what);

    *has = 0;
    if (rc == RWKV_OK && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        char *own;
        size_t len = 0;
        const char *text = store_col_str(st, 0, &len, &own);   /* NULs dropped */
        *has = 1;
        rc = text != NULL ? framing_decode(text, len, what, out, err)
                          : rwkv_errf(err, RWKV_ENOMEM, "%s: framing: out of memory", what);
        free(own);
    }
    sqlite3_finalize(st);
    return rc;
}

int
store_session_framing(store *s, int64_t sid, framing *out, rwkv_err *err)
{
    sqlite3_stmt *st;
    char what[64];
    int has, rc;

    snprintf(what, sizeof what, "session %lld", (long long)sid);
    if ((rc = store_prep(s, "SELECT framing FROM sessions WHERE id=?", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, sid);
    if ((rc = read_framing(s, st, what, out, &has, err)) == RWKV_OK && !has)
        framing_fini(out);          /* saved before v4: the defaults */
    return rc;
}

/* Run SQL binding ?1 = the framing text of F (NULL: SQL NULL), ?2 = KEY;
** a failure says "PATH: why" ("PATH: database is locked", "PATH: no WHAT"),
** the caller naming the action. */
static int
write_framing(store *s, const char *sql, const framing *f, int64_t id, const char *name,
              const char *what, rwkv_err *err)
{
    sqlite3_stmt *st;
    char *text = NULL;
    int rc;

    if (f != NULL && (text = framing_encode(f)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "framing: out of memory");
    s->plain_errors++;                 /* the caller names the action (framing.h) */
    if ((rc = store_prep(s, sql, &st, err)) != RWKV_OK) {
        s->plain_errors--;
        free(text);
        return rc;
    }
    if (text)
        sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 1);
    if (name)
        sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    else
        sqlite3_bind_int64(st, 2, id);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, what);
    s->plain_errors--;
    if (rc == RWKV_OK && sqlite3_changes(s->db) == 0)
        rc = rwkv_errf(err, RWKV_EINVAL, "%s: no %s", s->path, what);
    sqlite3_finalize(st);
    free(text);
    return rc;
}

int
store_session_set_framing(store *s, int64_t sid, const framing *f, rwkv_err *err)
{
    char what[64];

    snprintf(what, sizeof what, "session %lld", (long long)sid);
    return write_framing(s, "UPDATE sessions SET framing=?1 WHERE id=?2", f, sid, NULL, what, err);
}

int
store_preset_framing(store *s, const char *name, framing *out, int *has, rwkv_err *err)
{
    sqlite3_stmt *st;
    char what[STORE_TITLE_MAX + 16];
    int rc;

    snprintf(what, sizeof what, "preset '%s'", name);
    if ((rc = store_prep(s, "SELECT framing FROM presets WHERE name=?", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    return read_framing(s, st, what, out, has, err);
}

int
store_preset_set_framing(store *s, const char *name, const framing *f, rwkv_err *err)
{
    char what[STORE_TITLE_MAX + 40];

    snprintf(what, sizeof what, "preset '%s' (or it is built in)", name);
    return write_framing(s, "UPDATE presets SET framing=?1 WHERE name=?2 AND builtin=0", f, 0,
                         name, what, err);
}

int
store_framing_copy_tx(store *s, int64_t from, int64_t to, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    if ((rc = store_prep(s, "UPDATE sessions SET framing=(SELECT framing FROM sessions WHERE id=?1)"
                            " WHERE id=?2", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, from);
    sqlite3_bind_int64(st, 2, to);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "copying the framing");
    sqlite3_finalize(st);
    return rc;
}
