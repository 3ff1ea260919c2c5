/*
** ckpt_pth.c -- torch.save zip archives: zip layer (zipr) -> data.pkl
** (restricted pickle VM) -> tensor table.  See docs/pth-security.md.
**
** Archive rules (as PyTorch's own reader): the prefix is the text before the
** first '/' of entry 0 and every entry lives under "<prefix>/"; data.pkl
** must exist; constants.pkl means TorchScript (refused); byteorder, when
** present, must say "little".  Tensor rules: each storage key names an entry
** "<prefix>/data/<key>" whose size is exactly numel * element size; every
** reference to one key agrees on dtype and numel; the view (offset, shape,
** stride) stays inside its storage (checked by the pickle VM against the
** declared numel, which is then reconciled here with the entry size).
*/
#include <stdlib.h>
#include <string.h>

#include "ckpt_internal.h"
#include "../mem.h"
#include "pickle.h"
#include "zipr.h"

/* Longest archive prefix (a file name stem) accepted. */
#define PTH_MAX_PREFIX 1024u

struct pth {
    ckpt       *ck;
    zipr       *z;
    char        prefix[PTH_MAX_PREFIX + 2];   /* "<prefix>/" */
    size_t      prefix_len;
    struct seen { ck_dtype dtype; uint64_t numel; int used; } *seen;  /* per zip entry */
};

static const zipr_entry *
find_rec(struct pth *p, const char *rel, size_t rel_len, char *buf, size_t cap)
{
    if (p->prefix_len + rel_len + 1 > cap)
        return NULL;
    memcpy(buf, p->prefix, p->prefix_len);
    memcpy(buf + p->prefix_len, rel, rel_len);
    buf[p->prefix_len + rel_len] = 0;
    return zipr_find(p->z, buf);
}

static int
add_tensor(struct pth *p, const char *key, size_t key_len, const pkl_obj *t, rwkv_err *err)
{
    ckpt *ck = p->ck;
    const pkl_obj *st = t->u.tensor->storage;
    char rel[80], buf[PTH_MAX_PREFIX + 100];
    const zipr_entry *e;
    size_t es = ck_dtype_size(st->u.storage.dtype), ei;
    uint64_t want;
    char kc[CKPT_CLEAN_CAP];
    int rc;

    /* key is 1..64 chars of [0-9A-Za-z_] (checked by the pickle VM) */
    memcpy(rel, "data/", 5);
    memcpy(rel + 5, st->u.storage.key, st->u.storage.key_len);
    e = find_rec(p, rel, 5 + st->u.storage.key_len, buf, sizeof buf);
    if (e == NULL)
        return rwkv_errf(err, RWKV_EFORMAT,
                         "%s: tensor '%s': storage '%.*s' (%sdata/%.*s) is missing from the archive",
                         ck->path, ckpt_clean(key, key_len, kc, sizeof kc), (int)st->u.storage.key_len, st->u.storage.key,
                         p->prefix, (int)st->u.storage.key_len, st->u.storage.key);
    if (!mem_mul_ok(st->u.storage.numel, es, &want) || want != e->size)
        return rwkv_errf(err, RWKV_EFORMAT,
                         "%s: tensor '%s': storage '%.*s' declares %llu %s elements but its entry "
                         "has %llu bytes", ck->path, ckpt_clean(key, key_len, kc, sizeof kc), (int)st->u.storage.key_len,
                         st->u.storage.key, (unsigned long long)st->u.storage.numel,
                         ck_dtype_name(st->u.storage.dtype), (unsigned long long)e->size);
    ei = (size_t)(e - zipr_at(p->z, 0));
    if (p->seen[ei].used &&
        (p->seen[ei].dtype != st->u.storage.dtype || p->seen[ei].numel != st->u.storage.numel))
        return rwkv_errf(err, RWKV_EFORMAT,
                         "%s: tensor '%s': storage '%.*s' is referenced with different dtypes or sizes",
                         ck->path, ckpt_clean(key, key_len, kc, sizeof kc), (int)st->u.storage.key_len, st->u.storage.key);
    p->seen[ei].used = 1;
    p->seen[ei].dtype = st->u.storage.dtype;
    p->seen[ei].numel = st->u.storage.numel;
    /* offset + span <= numel was checked by the VM, numel * es == entry size here,
    ** so [data, data + span * es) lies inside the entry. */
    ck->cur_unit = (uint32_t)ei + 1;   /* the entry's CRC covers this tensor */
    rc = ckpt_add_tensor(ck, key, key_len, st->u.storage.dtype, t->u.tensor->ndim,
                         t->u.tensor->shape, t->u.tensor->stride,
                         ck->base + e->data_off + t->u.tensor->offset * es,
                         t->u.tensor->span * es, err);
    ck->cur_unit = 0;
    if (rc == RWKV_OK && ck->units[ei].tname == NULL)
        ck->units[ei].tname = ck->t[ck->n - 1].name;
    return rc;
}

/* FNV-1a, for the checksum digest. */
static uint64_t
pth_fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;

    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

/*
** One checksummed unit per zip entry (ckpt_verify.c checks them), names
** copied (the zipr is closed after the load), and the digest of every
** entry's name, size and CRC-32 (ckpt_crc_digest).
*/
static int
pth_units(struct pth *p, rwkv_err *err)
{
    ckpt *ck = p->ck;
    size_t n = zipr_count(p->z);
    uint64_t h = 1469598103934665603ULL;

    ck->units = calloc(n ? n : 1, sizeof *ck->units);
    if (ck->units == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", ck->path);
    ck->nunits = n;
    for (size_t i = 0; i < n; i++) {
        const zipr_entry *e = zipr_at(p->z, i);
        struct ckpt_unit *u = &ck->units[i];
        char *name = ckpt_own(ck, (uint64_t)e->name_len + 1);
        uint64_t sz = e->size;
        uint32_t crc = e->crc32;

        if (name == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", ck->path);
        memcpy(name, e->name, e->name_len + 1);
        u->p = ck->base + e->data_off;
        u->size = e->size;
        u->crc = e->crc32;
        u->zname = name;
        h = pth_fnv(h, e->name, e->name_len + 1);
        h = pth_fnv(h, &sz, sizeof sz);
        h = pth_fnv(h, &crc, sizeof crc);
    }
    ck->crc_digest = h ? h : 1;
    return RWKV_OK;
}

static int
walk_dict(struct pth *p, const pkl_obj *d, rwkv_err *err)
{
    ckpt *ck = p->ck;
    size_t npairs = d->u.seq.n / 2;
    int rc;
    char kc[CKPT_CLEAN_CAP];

    /* One level of nesting ({"model": {...}}) is accepted. */
    if (npairs == 1 && d->u.seq.items[1]->type == PKL_DICT && d->u.seq.items[0]->type == PKL_STR)
        d = d->u.seq.items[1], npairs = d->u.seq.n / 2;
    for (size_t i = 0; i < npairs; i++) {
        const pkl_obj *k = d->u.seq.items[2 * i], *v = d->u.seq.items[2 * i + 1];
        const char *ks;
        size_t kl;

        if (k->type != PKL_STR)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: state dict key %zu is a %s, expected a string",
                             ck->path, i, pkl_type_name(k));
        ks = k->u.str.s;
        kl = k->u.str.len;
        switch (v->type) {
        case PKL_TENSOR:
            rc = add_tensor(p, ks, kl, v, err);
            break;
        case PKL_INT:
            rc = ckpt_add_meta(ck, ks, kl, CKM_INT, v->u.i, 0, NULL, 0, err);
            break;
        case PKL_BOOL:
            rc = ckpt_add_meta(ck, ks, kl, CKM_INT, v->u.b, 0, NULL, 0, err);
            break;
        case PKL_FLOAT:
            rc = ckpt_add_meta(ck, ks, kl, CKM_FLOAT, 0, v->u.f, NULL, 0, err);
            break;
        case PKL_STR:
            rc = ckpt_add_meta(ck, ks, kl, CKM_STR, 0, 0, v->u.str.s, v->u.str.len, err);
            break;
        case PKL_NONE:
            rc = RWKV_OK;
            break;
        default:
            rc = rwkv_errf(err, RWKV_EFORMAT,
                           "%s: value of '%s' is a %s, expected a tensor or a plain value",
                           ck->path, ckpt_clean(ks, kl, kc, sizeof kc), pkl_type_name(v));
            break;
        }
        if (rc != RWKV_OK)
            return rc;
    }
    return RWKV_OK;
}

/* Small text record: the whole entry, or NULL when absent. */
static int
small_record(struct pth *p, const char *rel, const char **text, uint64_t *len)
{
    char buf[PTH_MAX_PREFIX + 64];
    const zipr_entry *e = find_rec(p, rel, strlen(rel), buf, sizeof buf);

    if (e == NULL)
        return 0;
    *text = (const char *)p->ck->base + e->data_off;
    *len = e->size;
    return 1;
}

int
ckpt_pth_load(ckpt *ck, rwkv_err *err)
{
    struct pth p;
    const zipr_entry *e0, *pk;
    const char *slash, *txt;
    uint64_t tlen;
    pkl_doc *doc = NULL;
    pkl_limits pl;
    char buf[PTH_MAX_PREFIX + 64];
    int rc;

    memset(&p, 0, sizeof p);
    p.ck = ck;
    rc = zipr_open(ck->base, ck->size, ck->path, ck->lim.max_entries, &p.z, err);
    if (rc != RWKV_OK)
        return rc;
    if ((rc = pth_units(&p, err)) != RWKV_OK)
        goto out;
    if (zipr_count(p.z) == 0) {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: zip archive has no entries (no data.pkl)", ck->path);
        goto out;
    }
    e0 = zipr_at(p.z, 0);
    slash = strchr(e0->name, '/');
    if (slash == NULL || (size_t)(slash - e0->name) > PTH_MAX_PREFIX) {
        rc = rwkv_errf(err, RWKV_EFORMAT,
                       "%s: first zip entry '%s' is not inside a folder (not a torch.save archive)",
                       ck->path, e0->name);
        goto out;
    }
    p.prefix_len = (size_t)(slash - e0->name) + 1;
    memcpy(p.prefix, e0->name, p.prefix_len);
    p.prefix[p.prefix_len] = 0;
    for (size_t i = 0; i < zipr_count(p.z); i++) {
        const zipr_entry *e = zipr_at(p.z, i);
        if (e->name_len <= p.prefix_len || memcmp(e->name, p.prefix, p.prefix_len) != 0) {
            rc = rwkv_errf(err, RWKV_EFORMAT, "%s: zip entry '%s' is outside the archive folder '%s'",
                           ck->path, e->name, p.prefix);
            goto out;
        }
    }
    if (find_rec(&p, "constants.pkl", 13, buf, sizeof buf) != NULL) {
        rc = rwkv_errf(err, RWKV_ENOTSUP,
                       "%s: this is a TorchScript archive (torch.jit.save), not a torch.save checkpoint",
                       ck->path);
        goto out;
    }
    if (small_record(&p, "byteorder", &txt, &tlen)) {
        if (tlen == 3 && memcmp(txt, "big", 3) == 0) {
            rc = rwkv_errf(err, RWKV_ENOTSUP, "%s: big-endian checkpoint is not supported", ck->path);
            goto out;
        }
        if (tlen != 6 || memcmp(txt, "little", 6) != 0) {
            rc = rwkv_errf(err, RWKV_EFORMAT, "%s: byteorder record is neither 'little' nor 'big'",
                           ck->path);
            goto out;
        }
    }
    if (small_record(&p, "version", &txt, &tlen)) {
        uint64_t i = 0, ver = 0;
        while (i < tlen && i < 8 && txt[i] >= '0' && txt[i] <= '9')
            ver = ver * 10 + (uint64_t)(txt[i++] - '0');
        if (i == 0 || (i < tlen && !(i + 1 == tlen && txt[i] == '\n')) || ver > 9) {
            rc = rwkv_errf(err, RWKV_EFORMAT, "%s: archive version record is not a small number",
                           ck->path);
            goto out;
        }
    }
    pk = find_rec(&p, "data.pkl", 8, buf, sizeof buf);
    if (pk == NULL) {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: no %sdata.pkl in the archive (not a torch.save checkpoint)",
                       ck->path, p.prefix);
        goto out;
    }
    if (pk->size > ck->lim.max_pickle_bytes) {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: data.pkl is %llu bytes, limit is %llu", ck->path,
                       (unsigned long long)pk->size, (unsigned long long)ck->lim.max_pickle_bytes);
        goto out;
    }
    if (zipr_crc32(0, ck->base + pk->data_off, (size_t)pk->size) != pk->crc32) {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: data.pkl fails its CRC-32 check (corrupt file)", ck->path);
        goto out;
    }
    p.seen = calloc(zipr_count(p.z), sizeof *p.seen);
    if (p.seen == NULL) {
        rc = rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", ck->path);
        goto out;
    }
    pl.max_memo = ck->lim.max_memo;
    pl.max_stack = ck->lim.max_stack;
    pl.max_marks = ck->lim.max_marks;
    pl.max_objects = 0;
    rc = pkl_run(ck->base + pk->data_off, (size_t)pk->size, ck->path, &pl, &doc, err);
    if (rc != RWKV_OK)
        goto out;
    if (pkl_root(doc)->type != PKL_DICT) {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: data.pkl holds a %s, expected a dict of tensors",
                       ck->path, pkl_type_name(pkl_root(doc)));
        goto out;
    }
    rc = walk_dict(&p, pkl_root(doc), err);
out:
    pkl_free(doc);
    free(p.seen);
    zipr_close(p.z);
    return rc;
}
