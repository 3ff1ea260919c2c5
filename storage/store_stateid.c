/*
** store_stateid.c -- a state file's content identity (store.h): the digest
** of its bytes, kept on its state_files row, so that a session whose file
** moved can be continued with a copy of it (session.c, sess_resume_state)
** and an exported session names the file by content as well as by path.
*/
#include "store_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/hash.h"
#include "../core/io/fileio.h"

/* FNV-1a over the bytes, finalised; never 0 (0 is "unknown" on a row). */
static uint64_t
digest_end(uint64_t h)
{
    h = hash_mix64(h);
    return h != 0 ? h : 1;
}

uint64_t
store_statefile_digest_mem(const void *p, size_t n)
{
    return digest_end(hash_fnv1a(HASH_FNV_OFFSET, p, n));
}

int
store_statefile_digest(const char *path, uint64_t *digest, uint64_t *size, rwkv_err *err)
{
    unsigned char buf[1 << 16];
    uint64_t h = HASH_FNV_OFFSET, n = 0;
    size_t got;
    FILE *fp;
    int rc;

    *digest = 0;
    if (size)
        *size = 0;
    if ((rc = rwkv_fopen_regular(path, &fp, err)) != RWKV_OK)
        return rc;
    while ((got = fread(buf, 1, sizeof buf, fp)) > 0) {
        h = hash_fnv1a(h, buf, got);
        n += got;
    }
    if (ferror(fp)) {
        rc = rwkv_errf(err, RWKV_EIO, "%s: cannot read: %s", path, strerror(errno));
        fclose(fp);
        return rc;
    }
    fclose(fp);
    *digest = digest_end(h);
    if (size)
        *size = n;
    return RWKV_OK;
}

int
store_session_set_statefile(store *s, int64_t id, int64_t sf, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    s->plain_errors++;
    if ((rc = store_prep(s, "UPDATE sessions SET state_file_id=? WHERE id=?", &st, err)) == RWKV_OK) {
        if (sf > 0)
            sqlite3_bind_int64(st, 1, sf);
        else
            sqlite3_bind_null(st, 1);
        sqlite3_bind_int64(st, 2, id);
        rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "saving the state file");
        sqlite3_finalize(st);
        if (rc == RWKV_OK && sqlite3_changes(s->db) == 0)
            rc = rwkv_errf(err, RWKV_EINVAL, "%s: no session %lld", s->path, (long long)id);
    }
    return store_plain_end(s, rc);
}

int
store_session_set_model(store *s, int64_t id, int64_t model, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    s->plain_errors++;
    if ((rc = store_prep(s, "UPDATE sessions SET model_id=? WHERE id=?", &st, err)) == RWKV_OK) {
        sqlite3_bind_int64(st, 1, model);
        sqlite3_bind_int64(st, 2, id);
        rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "saving the model");
        sqlite3_finalize(st);
        if (rc == RWKV_OK && sqlite3_changes(s->db) == 0)
            rc = rwkv_errf(err, RWKV_EINVAL, "%s: no session %lld", s->path, (long long)id);
    }
    return store_plain_end(s, rc);
}

int
store_statefile_set_digest(store *s, int64_t id, uint64_t digest, uint64_t size, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    s->plain_errors++;
    /* only a row without one: a digest on record is the content the
    ** sessions were made with, never overwritten by what a path holds now */
    if ((rc = store_prep(s, "UPDATE state_files SET fingerprint=?1, size=?2 WHERE id=?3"
                            " AND fingerprint=0 AND data IS NULL", &st, err)) == RWKV_OK) {
        sqlite3_bind_int64(st, 1, (int64_t)digest);
        sqlite3_bind_int64(st, 2, (int64_t)size);
        sqlite3_bind_int64(st, 3, id);
        rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "saving the digest");
        sqlite3_finalize(st);
    }
    return store_plain_end(s, rc);
}

int
store_statefile_fits(const char *path, const store_model *m, rwkv_err *err)
{
    return rwkv_state_file_fits(path, m->version, m->n_layer, m->n_head, m->head_size, err);
}
