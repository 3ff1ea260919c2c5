/*
** ckpt_st.c -- safetensors: u64 header length N, N bytes of JSON, then the
** byte buffer.  Validation follows the reference implementation (see
** docs/pth-security.md, "safetensors"): header <= CKPT_ST_MAX_HEADER and
** inside the file; each tensor's data_offsets span exactly numel * element
** size; sorted by offset, tensors tile the buffer from 0 with no gap and no
** overlap, ending exactly at end of file.
*/
#include <stdlib.h>
#include <string.h>

#include "ckpt_internal.h"
#include "json.h"
#include "../mem.h"

static const struct {
    const char *name;
    int         dtype;      /* ck_dtype, or -1: known but unsupported */
} st_dtypes[] = {
    {"F32", CK_F32},  {"F16", CK_F16}, {"BF16", CK_BF16}, {"F64", CK_F64},
    {"U8", CK_U8},    {"I8", CK_I8},   {"I16", CK_I16},   {"I32", CK_I32},
    {"I64", CK_I64},  {"BOOL", CK_BOOL},
    {"U16", -1}, {"U32", -1}, {"U64", -1}, {"C64", -1}, {"F4", -1}, {"F6_E2M3", -1},
    {"F6_E3M2", -1}, {"F8_E5M2", -1}, {"F8_E4M3", -1}, {"F8_E8M0", -1},
    {"F8_E4M3FNUZ", -1}, {"F8_E5M2FNUZ", -1},
};

struct st_item {
    size_t   key;           /* index in the header object */
    ck_dtype dtype;
    int      ndim;
    int64_t  shape[CK_MAX_DIMS];
    uint64_t begin, end;
};

static int
cmp_item(const void *a, const void *b)
{
    const struct st_item *x = *(const struct st_item *const *)a;
    const struct st_item *y = *(const struct st_item *const *)b;

    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

static int
get_u64(const json_value *v, uint64_t *out)
{
    if (v == NULL || v->type != JSON_NUMBER || !v->is_int || v->i64 < 0)
        return 0;
    *out = (uint64_t)v->i64;
    return 1;
}

static int
parse_item(ckpt *ck, const char *key, const json_value *v, struct st_item *it, rwkv_err *err)
{
    const json_value *dt = NULL, *shape = NULL, *offs = NULL;
    uint64_t numel = 1, nbytes;
    size_t i;
    char fc[CKPT_CLEAN_CAP];

    if (v->type != JSON_OBJECT)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: safetensors entry '%s' is not an object", ck->path, key);
    for (i = 0; i < v->len; i++) {
        const char *k = v->keys[i];
        if (strcmp(k, "dtype") == 0 && dt == NULL)
            dt = v->items[i];
        else if (strcmp(k, "shape") == 0 && shape == NULL)
            shape = v->items[i];
        else if (strcmp(k, "data_offsets") == 0 && offs == NULL)
            offs = v->items[i];
        else
            return rwkv_errf(err, RWKV_EFORMAT, "%s: safetensors entry '%s' has an unexpected or "
                             "duplicate field '%s'", ck->path, key, ckpt_clean(k, strlen(k), fc, sizeof fc));
    }
    if (dt == NULL || dt->type != JSON_STRING || shape == NULL || shape->type != JSON_ARRAY ||
        offs == NULL || offs->type != JSON_ARRAY || offs->len != 2)
        return rwkv_errf(err, RWKV_EFORMAT,
                         "%s: safetensors entry '%s' needs dtype (string), shape (array) and "
                         "data_offsets ([begin, end])", ck->path, key);
    for (i = 0; i < sizeof st_dtypes / sizeof st_dtypes[0]; i++)
        if (strcmp(dt->str, st_dtypes[i].name) == 0)
            break;
    if (i == sizeof st_dtypes / sizeof st_dtypes[0])
        return rwkv_errf(err, RWKV_EFORMAT, "%s: safetensors entry '%s' has unknown dtype '%s'",
                         ck->path, key, ckpt_clean(dt->str, dt->len, fc, 24));
    if (st_dtypes[i].dtype < 0)
        return rwkv_errf(err, RWKV_ENOTSUP, "%s: safetensors entry '%s': dtype %s is not supported",
                         ck->path, key, ckpt_clean(dt->str, dt->len, fc, sizeof fc));
    it->dtype = (ck_dtype)st_dtypes[i].dtype;
    if (shape->len > CK_MAX_DIMS)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: safetensors entry '%s' has more than %d dimensions",
                         ck->path, key, CK_MAX_DIMS);
    it->ndim = (int)shape->len;
    for (i = 0; i < shape->len; i++) {
        uint64_t d;
        if (!get_u64(shape->items[i], &d) || d > INT64_MAX)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: safetensors entry '%s': shape entries must be "
                             "integers >= 0", ck->path, key);
        if (!mem_mul_ok(numel, d, &numel))
            return rwkv_errf(err, RWKV_EFORMAT, "%s: safetensors entry '%s': shape overflows",
                             ck->path, key);
        it->shape[i] = (int64_t)d;
    }
    if (!get_u64(offs->items[0], &it->begin) || !get_u64(offs->items[1], &it->end) ||
        it->end < it->begin)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: safetensors entry '%s': bad data_offsets", ck->path, key);
    if (!mem_mul_ok(numel, ck_dtype_size(it->dtype), &nbytes))
        return rwkv_errf(err, RWKV_EFORMAT, "%s: safetensors entry '%s': size overflows", ck->path, key);
    if (it->end - it->begin != nbytes)
        return rwkv_errf(err, RWKV_EFORMAT,
                         "%s: safetensors entry '%s': data_offsets span %llu bytes, shape and dtype "
                         "need %llu", ck->path, key, (unsigned long long)(it->end - it->begin),
                         (unsigned long long)nbytes);
    return RWKV_OK;
}

int
ckpt_st_load(ckpt *ck, rwkv_err *err)
{
    const uint8_t *b = ck->base;
    uint64_t hlen = 0, data_start, data_len, pos;
    json_doc *doc = NULL;
    const json_value *root;
    struct st_item *items = NULL, **order = NULL;
    size_t n = 0;
    int rc;
    char kc[CKPT_CLEAN_CAP];

    for (int i = 7; i >= 0; i--)
        hlen = (hlen << 8) | b[i];
    if (hlen > CKPT_ST_MAX_HEADER)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: safetensors header is %llu bytes, limit is %u",
                         ck->path, (unsigned long long)hlen, CKPT_ST_MAX_HEADER);
    if (hlen > ck->size - 8)
        return rwkv_errf(err, RWKV_EFORMAT,
                         "%s: safetensors header length %llu runs past the end of the file (%llu bytes)",
                         ck->path, (unsigned long long)hlen, (unsigned long long)ck->size);
    data_start = 8 + hlen;
    data_len = ck->size - data_start;
    rc = json_parse((const char *)b + 8, (size_t)hlen, ck->path, &doc, err);
    if (rc != RWKV_OK)
        return rc;
    root = json_root(doc);
    if (root->type != JSON_OBJECT) {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: safetensors header is not a JSON object", ck->path);
        goto out;
    }
    items = calloc(root->len ? root->len : 1, sizeof *items);
    order = calloc(root->len ? root->len : 1, sizeof *order);
    if (items == NULL || order == NULL) {
        rc = rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", ck->path);
        goto out;
    }
    for (size_t i = 0; i < root->len; i++) {
        const char *key = root->keys[i];
        const json_value *v = root->items[i];
        if (strcmp(key, "__metadata__") == 0) {
            if (v->type != JSON_OBJECT) {
                rc = rwkv_errf(err, RWKV_EFORMAT, "%s: safetensors __metadata__ is not an object",
                               ck->path);
                goto out;
            }
            for (size_t j = 0; j < v->len; j++) {
                if (v->items[j]->type != JSON_STRING) {
                    rc = rwkv_errf(err, RWKV_EFORMAT,
                                   "%s: safetensors __metadata__ value '%s' is not a string",
                                   ck->path, ckpt_clean(v->keys[j], strlen(v->keys[j]), kc, sizeof kc));
                    goto out;
                }
                rc = ckpt_add_meta(ck, v->keys[j], strlen(v->keys[j]), CKM_STR, 0, 0,
                                   v->items[j]->str, v->items[j]->len, err);
                if (rc != RWKV_OK)
                    goto out;
            }
            continue;
        }
        rc = parse_item(ck, ckpt_clean(key, strlen(key), kc, sizeof kc), v, &items[n], err);
        if (rc != RWKV_OK)
            goto out;
        items[n].key = i;
        order[n] = &items[n];
        n++;
    }
    /* The buffer must be tiled exactly: no holes, no overlap, nothing after. */
    qsort(order, n, sizeof *order, cmp_item);
    pos = 0;
    for (size_t i = 0; i < n; i++) {
        if (order[i]->begin != pos) {
            rc = rwkv_errf(err, RWKV_EFORMAT,
                           "%s: safetensors entry '%s' starts at %llu, expected %llu (offsets "
                           "overlap or leave a hole)", ck->path,
                           ckpt_clean(root->keys[order[i]->key], strlen(root->keys[order[i]->key]), kc, sizeof kc),
                           (unsigned long long)order[i]->begin, (unsigned long long)pos);
            goto out;
        }
        pos = order[i]->end;
    }
    if (pos != data_len) {
        rc = rwkv_errf(err, RWKV_EFORMAT,
                       "%s: safetensors tensors cover %llu bytes but the data section has %llu",
                       ck->path, (unsigned long long)pos, (unsigned long long)data_len);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const struct st_item *it = &items[i];
        const char *key = root->keys[it->key];
        rc = ckpt_add_tensor(ck, key, strlen(key), it->dtype, it->ndim, it->shape, NULL,
                             b + data_start + it->begin, it->end - it->begin, err);
        if (rc != RWKV_OK)
            goto out;
    }
    rc = RWKV_OK;
out:
    free(items);
    free(order);
    json_free(doc);
    return rc;
}
