/*
** store_models.c -- the list of the models rows (the full-screen client's
** F5 shows the checkpoints used before).  See store.h.
*/
#include "store_int.h"

#include <stdlib.h>

int
store_model_list(store *s, store_model **out, size_t *n, rwkv_err *err)
{
    sqlite3_stmt *st;
    store_model *v = NULL;
    size_t cap = 0;
    int rc;

    *out = NULL;
    *n = 0;
    if ((rc = store_prep(s, "SELECT max(id) FROM models GROUP BY path ORDER BY path", &st, err)) != RWKV_OK)
        return rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_model *x = store_grow(v, &cap, *n, sizeof *v, 8);
        if (x == NULL) {
            rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory");
            goto fail;
        }
        v = x;
        if ((rc = store_model_get(s, sqlite3_column_int64(st, 0), &v[*n], err)) != RWKV_OK)
            goto fail;
        (*n)++;
    }
    if (rc != SQLITE_DONE) {
        rc = store_dberr(s, err, "listing models");
        goto fail;
    }
    sqlite3_finalize(st);
    *out = v;
    return RWKV_OK;
fail:
    sqlite3_finalize(st);
    free(v);
    *n = 0;
    return rc;
}
