/*
** ckpt_verify.c -- checking the CRC-32s a .pth carries.  See ckpt_verify.h.
**
** The units (one per zip entry) are made by ckpt_pth.c; each has a state,
** UNCHECKED -> GOOD or BAD, set once by the first check (atomically: the
** result is the same whoever computes it, so a race costs a second pass,
** never a wrong answer).  A large unit is split into one part per pool
** chunk; each part's CRC is computed independently and the parts are
** combined in order (ckw_crc32_combine: CRC(A B) from CRC(A), CRC(B) and
** |B|), so checking runs at the pool's combined speed.
*/
#include "ckpt_verify.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ckpt_internal.h"
#include "ckpt_write.h"
#include "zipr.h"

/* Below this a unit is checked on the calling thread (a pool job costs a
** few microseconds; 1 MiB of CRC about 300). */
#define CKPT_CRC_PAR_MIN ((uint64_t)4 << 20)
/* Most parts a unit is split into (the pool's chunk count is far lower). */
#define CKPT_CRC_MAX_PARTS 256

uint64_t
ckpt_crc_digest(const ckpt *ck)
{
    return ck != NULL ? ck->crc_digest : 0;
}

struct crc_job {
    const uint8_t *p;
    uint64_t       size;
    uint32_t       crc[CKPT_CRC_MAX_PARTS];
    uint64_t       len[CKPT_CRC_MAX_PARTS];
    int            n;   /* parts used */
};

static void
crc_part(void *ctx, int i, int n)
{
    struct crc_job *j = ctx;
    uint64_t a = j->size * (uint64_t)i / (uint64_t)n, b = j->size * (uint64_t)(i + 1) / (uint64_t)n;

    if (i >= CKPT_CRC_MAX_PARTS)
        return;   /* n is capped below: never */
    j->crc[i] = zipr_crc32(0, j->p + a, (size_t)(b - a));
    j->len[i] = b - a;
    if (i == 0)
        j->n = n;
}

/* CRC-32 of P[0..N), on POOL's threads when it is large. */
static uint32_t
crc_of(const uint8_t *p, uint64_t n, tpool *pool)
{
    struct crc_job *j;
    uint32_t crc;

    if (pool == NULL || tpool_size(pool) < 2 || n < CKPT_CRC_PAR_MIN ||
        (j = calloc(1, sizeof *j)) == NULL)
        return zipr_crc32(0, p, (size_t)n);
    j->p = p;
    j->size = n;
    tpool_run(pool, crc_part, j);
    if (j->n < 1 || j->n > CKPT_CRC_MAX_PARTS) {
        /* a pool that cut the job otherwise: do it here */
        crc = zipr_crc32(0, p, (size_t)n);
    } else {
        crc = j->crc[0];
        for (int i = 1; i < j->n; i++)
            crc = ckw_crc32_combine(crc, j->crc[i], j->len[i]);
    }
    free(j);
    return crc;
}

/* Check unit U, whose bytes are at P (u->p, or a copy of them). */
static int
unit_check_at(const ckpt *ck, struct ckpt_unit *u, const uint8_t *p, tpool *pool, rwkv_err *err)
{
    int st = __atomic_load_n(&u->state, __ATOMIC_ACQUIRE);
    char nc[CKPT_CLEAN_CAP];
    const char *what;

    if (st == CKPT_U_UNCHECKED) {
        uint32_t got = crc_of(p, u->size, pool);
        u->got = got;
        st = got == u->crc ? CKPT_U_GOOD : CKPT_U_BAD;
        __atomic_store_n(&u->state, st, __ATOMIC_RELEASE);
    }
    if (st == CKPT_U_GOOD)
        return RWKV_OK;
    what = u->tname ? u->tname : u->zname;
    return rwkv_errf(err, RWKV_EFORMAT,
                     "%s: %s: checksum mismatch (CRC-32 %08x, expected %08x): the file is damaged",
                     ck->path, ckpt_clean(what, strlen(what), nc, sizeof nc), (unsigned)u->got,
                     (unsigned)u->crc);
}

static int
unit_check(const ckpt *ck, struct ckpt_unit *u, tpool *pool, rwkv_err *err)
{
    return unit_check_at(ck, u, u->p, pool, err);
}

int
ckpt_check_small(const ckpt *ck, uint64_t max, rwkv_err *err)
{
    int rc;

    for (size_t i = 0; i < ck->nunits; i++)
        if (ck->units[i].size <= max && (rc = unit_check(ck, &ck->units[i], NULL, err)) != RWKV_OK)
            return rc;
    return RWKV_OK;
}

/* The unit that stores T, or NULL (none: no checksums, not CK's tensor). */
static struct ckpt_unit *
tensor_unit(const ckpt *ck, const ckpt_tensor *t)
{
    uint32_t u;

    if (ck == NULL || ck->nunits == 0 || t < ck->t || t >= ck->t + ck->n)
        return NULL;
    u = ck->t_unit[(size_t)(t - ck->t)];
    return u == 0 || u > ck->nunits ? NULL : &ck->units[u - 1];
}

int
ckpt_check_tensor(const ckpt *ck, const ckpt_tensor *t, tpool *pool, rwkv_err *err)
{
    struct ckpt_unit *u = tensor_unit(ck, t);

    return u == NULL ? RWKV_OK : unit_check(ck, u, pool, err);
}

int
ckpt_check_copy(const ckpt *ck, const ckpt_tensor *t, const void *copy, uint64_t n, tpool *pool,
                rwkv_err *err)
{
    struct ckpt_unit *u = tensor_unit(ck, t);

    if (u == NULL)
        return RWKV_OK;
    if (copy != NULL && u->p == (const uint8_t *)t->data && u->size == n)
        return unit_check_at(ck, u, copy, pool, err);
    return unit_check(ck, u, pool, err);
}

int
ckpt_verify(const ckpt *ck, tpool *pool, rwkv_err *err)
{
    int rc;

    if (ck == NULL)
        return RWKV_OK;
    for (size_t i = 0; i < ck->nunits; i++)
        if ((rc = unit_check(ck, &ck->units[i], pool, err)) != RWKV_OK)
            return rc;
    return RWKV_OK;
}

int
ckpt_verify_file(const char *path, int n_threads, uint64_t *n_checked, rwkv_err *err)
{
    ckpt *ck = NULL;
    tpool *pool = NULL;
    char *alt = NULL;
    int rc;

    if (n_checked != NULL)
        *n_checked = 0;
    if ((alt = malloc(strlen(path) + 5)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    path = ckpt_file_name(path, alt, strlen(path) + 5);
    rc = ckpt_open(path, NULL, &ck, err);
    if (rc == RWKV_OK)
        rc = tpool_create(n_threads, &pool, err);
    if (rc == RWKV_OK)
        rc = ckpt_verify(ck, pool, err);
    if (rc == RWKV_OK && n_checked != NULL)
        *n_checked = ck->nunits;
    tpool_destroy(pool);
    ckpt_close(ck);
    free(alt);
    return rc;
}
