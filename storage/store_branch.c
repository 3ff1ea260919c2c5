/*
** store_branch.c -- reads that the session runtime (storage/session_db.c) and
** the `sessions` commands need in one call: a whole branch, and how many
** replies a session holds.
*/
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

void
store_branch_free(store_turn *turns, size_t n)
{
    if (turns == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        store_turn_fini(&turns[i]);
    free(turns);
}

int
store_branch_read(store *s, int64_t head, store_turn **turns, size_t *n, rwkv_err *err)
{
    int64_t *ids = NULL;
    size_t k = 0;
    store_turn *out;
    int rc;

    *turns = NULL;
    *n = 0;
    if (head == 0)
        return RWKV_OK;
    if ((rc = store_turn_path(s, head, &ids, &k, err)) != RWKV_OK)
        return rc;
    out = calloc(k ? k : 1, sizeof *out);
    if (out == NULL) {
        free(ids);
        return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory reading a branch of %zu turns",
                         s->path, k);
    }
    for (size_t i = 0; i < k; i++) {
        if ((rc = store_turn_get(s, ids[i], &out[i], err)) != RWKV_OK) {
            store_branch_free(out, i);
            free(ids);
            return rc;
        }
    }
    free(ids);
    *turns = out;
    *n = k;
    return RWKV_OK;
}

int
store_session_reply_count(store *s, int64_t session, uint64_t *count, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    *count = 0;
    if ((rc = store_prep(s, "SELECT count(*) FROM turns WHERE session_id=? AND role=?", &st,
                         err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, session);
    sqlite3_bind_int(st, 2, STORE_ROLE_ASSISTANT);
    if (sqlite3_step(st) == SQLITE_ROW) {
        *count = (uint64_t)sqlite3_column_int64(st, 0);
        rc = RWKV_OK;
    } else {
        rc = store_dberr(s, err, "counting replies");
    }
    sqlite3_finalize(st);
    return rc;
}
