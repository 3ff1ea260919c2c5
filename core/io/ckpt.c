/*
** ckpt.c -- checkpoint front end: format sniffing, the tensor table,
** metadata, dtype helpers and conversion to float32.  See ckpt.h.
**
** ckpt_open maps the file once; the format readers (ckpt_pth.c,
** ckpt_st.c) validate everything and add tensor views that point into the
** mapping (or into an aligned copy when the data is misaligned).  The
** ckpt is built completely before it is returned: on any error everything
** is freed and *out stays NULL.
**
** Default limits (ckpt_limits fields left 0), each defined with its reason:
**   max_pickle_bytes CKPT_MAX_PICKLE_BYTES (ckpt_internal.h)  64 MiB
**   max_tensors      CKPT_MAX_TENSORS      (ckpt_internal.h)  65536
**   max_entries      ZIPR_MAX_ENTRIES      (zipr.h)           1000000
**   max_memo/max_stack/max_marks PKL_MAX_* (pickle.h)         2^20 / 2^16 / 64
** plus fixed caps: PKL_MAX_OBJECTS, PKL_MAX_ARENA, CKPT_MAX_NAME,
** CKPT_ST_MAX_HEADER, and unaligned copies never exceeding the file size.
*/
#include "ckpt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ckpt_internal.h"
#include "ckpt_verify.h"
#include "../kernels/dtype.h"
#include "../mem.h"

static const struct {
    const char *name;
    size_t      size;
    int         is_float;
} dtype_info[] = {
    [CK_F32] = {"float32", 4, 1},  [CK_F16] = {"float16", 2, 1},
    [CK_BF16] = {"bfloat16", 2, 1}, [CK_F64] = {"float64", 8, 1},
    [CK_U8] = {"uint8", 1, 0},      [CK_I8] = {"int8", 1, 0},
    [CK_I16] = {"int16", 2, 0},     [CK_I32] = {"int32", 4, 0},
    [CK_I64] = {"int64", 8, 0},     [CK_BOOL] = {"bool", 1, 0},
};

const char *
ck_dtype_name(ck_dtype t)
{
    return (unsigned)t < sizeof dtype_info / sizeof dtype_info[0] ? dtype_info[t].name : "?";
}

size_t
ck_dtype_size(ck_dtype t)
{
    return (unsigned)t < sizeof dtype_info / sizeof dtype_info[0] ? dtype_info[t].size : 0;
}

void *
ckpt_own(ckpt *ck, uint64_t n)
{
    void *p;

    if (ck->nowned == ck->owned_cap) {
        size_t cap = ck->owned_cap ? ck->owned_cap * 2 : 64;
        void **no = realloc(ck->owned, cap * sizeof *no);
        if (no == NULL)
            return NULL;
        ck->owned = no;
        ck->owned_cap = cap;
    }
    p = mem_alloc(n);
    if (p != NULL)
        ck->owned[ck->nowned++] = p;
    return p;
}

static char *
own_str(ckpt *ck, const char *s, size_t n)
{
    char *p = ckpt_own(ck, (uint64_t)n + 1);

    if (p != NULL) {
        memcpy(p, s, n);
        p[n] = 0;
    }
    return p;
}

const char *
ckpt_clean(const char *s, size_t n, char *buf, size_t cap)
{
    size_t i, w = 0;

    if (cap < 8) {
        if (cap)
            buf[0] = 0;
        return buf;
    }
    for (i = 0; i < n && w + 1 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (w + 4 >= cap && i + 1 < n) {
            memcpy(buf + w, "...", 3);
            w += 3;
            break;
        }
        buf[w++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    buf[w] = 0;
    return buf;
}

static int
name_ok(const char *s, size_t n)
{
    return n <= CKPT_MAX_NAME && memchr(s, 0, n) == NULL;
}

int
ckpt_add_tensor(ckpt *ck, const char *name, size_t name_len, ck_dtype dt, int ndim,
                const int64_t *shape, const int64_t *stride, const uint8_t *data,
                uint64_t span_bytes, rwkv_err *err)
{
    ckpt_tensor *t;
    size_t es = ck_dtype_size(dt);
    uint64_t expect = 1;      /* row-major stride; wraps harmlessly when numel is 0 */
    char nc[CKPT_CLEAN_CAP];

    if (!name_ok(name, name_len))
        return rwkv_errf(err, RWKV_EFORMAT, "%s: tensor name longer than %u bytes or with a NUL byte",
                         ck->path, CKPT_MAX_NAME);
    if (ck->n >= ck->lim.max_tensors)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: more than %llu tensors", ck->path,
                         (unsigned long long)ck->lim.max_tensors);
    if (ndim < 0 || ndim > CK_MAX_DIMS)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: tensor '%s' has %d dimensions (max %d)",
                         ck->path, ckpt_clean(name, name_len, nc, sizeof nc), ndim, CK_MAX_DIMS);
    if (ck->n == ck->cap) {
        size_t cap = ck->cap ? ck->cap * 2 : 64;
        ckpt_tensor *nt = realloc(ck->t, cap * sizeof *nt);
        uint32_t *nu;
        if (nt == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", ck->path);
        ck->t = nt;
        if ((nu = realloc(ck->t_unit, cap * sizeof *nu)) == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", ck->path);
        ck->t_unit = nu;
        ck->cap = cap;
    }
    ck->t_unit[ck->n] = ck->cur_unit;
    t = &ck->t[ck->n];
    memset(t, 0, sizeof *t);
    t->name = own_str(ck, name, name_len);
    if (t->name == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", ck->path);
    t->dtype = dt;
    t->ndim = ndim;
    t->numel = 1;
    t->contiguous = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        t->shape[i] = shape[i];
        t->stride[i] = stride ? stride[i] : (int64_t)(expect & INT64_MAX);
        if (shape[i] != 1 && (uint64_t)t->stride[i] != expect)
            t->contiguous = 0;
        expect *= shape[i] > 0 ? (uint64_t)shape[i] : 1;
    }
    for (int i = 0; i < ndim; i++)
        t->numel *= (uint64_t)shape[i];
    t->nbytes = t->numel * es;
    if (t->numel == 0) {
        static const max_align_t empty;   /* never dereferenced: numel is 0 */
        t->contiguous = 1;
        t->data = &empty;
    } else if (((uintptr_t)data % es) != 0 && !ck->index_only) {
        /* Misaligned (foreign zip writer): copy the span, within a budget of the
        ** file size so overlapping views cannot multiply memory use (an
        ** index is not used for its data: no copy, the view stays unaligned) */
        uint8_t *copy;
        if (!mem_add_ok(ck->copied, span_bytes, &ck->copied) || ck->copied > ck->size)
            return rwkv_errf(err, RWKV_ENOMEM,
                             "%s: tensor '%s': unaligned data copies exceed the file size",
                             ck->path, ckpt_clean(t->name, name_len, nc, sizeof nc));
        copy = ckpt_own(ck, span_bytes);
        if (copy == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory copying tensor '%s'",
                             ck->path, ckpt_clean(t->name, name_len, nc, sizeof nc));
        memcpy(copy, data, (size_t)span_bytes);
        t->data = copy;
    } else {
        t->data = data;
    }
    ck->n++;
    return RWKV_OK;
}

int
ckpt_add_meta(ckpt *ck, const char *key, size_t key_len, enum ckpt_meta_type type,
              int64_t i, double f, const char *s, size_t s_len, rwkv_err *err)
{
    struct ckpt_meta *m;

    if (!name_ok(key, key_len))
        return rwkv_errf(err, RWKV_EFORMAT, "%s: metadata key longer than %u bytes or with a NUL byte",
                         ck->path, CKPT_MAX_NAME);
    if (ck->nmeta >= ck->lim.max_tensors)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: too many metadata values", ck->path);
    if (ck->nmeta == ck->meta_cap) {
        size_t cap = ck->meta_cap ? ck->meta_cap * 2 : 8;
        struct ckpt_meta *nm = realloc(ck->meta, cap * sizeof *nm);
        if (nm == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", ck->path);
        ck->meta = nm;
        ck->meta_cap = cap;
    }
    m = &ck->meta[ck->nmeta];
    memset(m, 0, sizeof *m);
    m->type = type;
    m->i = i;
    m->f = f;
    m->key = own_str(ck, key, key_len);
    if (m->key == NULL || (type == CKM_STR && (m->s = own_str(ck, s, s_len)) == NULL))
        return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", ck->path);
    ck->nmeta++;
    return RWKV_OK;
}

/* ---- name index -------------------------------------------------------- */

static int
cmp_tensor_idx(const ckpt *ck, size_t a, size_t b)
{
    return strcmp(ck->t[a].name, ck->t[b].name);
}

static int
build_index(ckpt *ck, rwkv_err *err)
{
    size_t n = ck->n, *idx, *tmp;
    char nc[CKPT_CLEAN_CAP];

    idx = malloc((n ? n : 1) * sizeof *idx);
    tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (idx == NULL || tmp == NULL) {
        free(idx);
        free(tmp);
        return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", ck->path);
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    /* bottom-up merge sort (stable, no qsort_r context needed) */
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi)
                tmp[k++] = cmp_tensor_idx(ck, idx[b], idx[a]) < 0 ? idx[b++] : idx[a++];
            while (a < mid)
                tmp[k++] = idx[a++];
            while (b < hi)
                tmp[k++] = idx[b++];
        }
        memcpy(idx, tmp, n * sizeof *idx);
    }
    free(tmp);
    ck->sorted = idx;
    for (size_t i = 1; i < n; i++)
        if (cmp_tensor_idx(ck, idx[i - 1], idx[i]) == 0)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: duplicate tensor name '%s'", ck->path,
                             ckpt_clean(ck->t[idx[i]].name, strlen(ck->t[idx[i]].name), nc, sizeof nc));
    for (size_t i = 0; i < ck->nmeta; i++) {
        const char *k = ck->meta[i].key;
        int dup = ckpt_find(ck, k) != NULL;
        for (size_t j = 0; j < i && !dup; j++)
            dup = strcmp(k, ck->meta[j].key) == 0;
        if (dup)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: duplicate key '%s'", ck->path,
                             ckpt_clean(k, strlen(k), nc, sizeof nc));
    }
    return RWKV_OK;
}

/* ---- open / close ------------------------------------------------------ */

static const uint8_t legacy_magic[] = {
    0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19
};

/* (INDEX_ONLY: ckpt_open_index) */
static int
open_common(const uint8_t *buf, uint64_t len, const char *name, const ckpt_limits *lim,
            mapfile *mf, int index_only, ckpt **out, rwkv_err *err)
{
    ckpt *ck;
    int rc;

    ck = calloc(1, sizeof *ck);
    if (ck == NULL || (ck->path = strdup(name ? name : "(memory)")) == NULL) {
        free(ck);
        mapfile_close(mf);
        return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", name ? name : "(memory)");
    }
    ck->mf = mf;
    ck->index_only = index_only;
    ck->base = buf;
    ck->size = len;
    if (lim != NULL)
        ck->lim = *lim;
    if (ck->lim.max_pickle_bytes == 0)
        ck->lim.max_pickle_bytes = CKPT_MAX_PICKLE_BYTES;
    if (ck->lim.max_tensors == 0)
        ck->lim.max_tensors = CKPT_MAX_TENSORS;
    /* max_entries/max_memo/max_stack/max_marks: 0 is passed down as "default" */

    if (len >= 4 && memcmp(buf, "PK\x03\x04", 4) == 0) {
        ck->format = "pth";
        rc = ckpt_pth_load(ck, err);
    } else if (len >= 4 && memcmp(buf, "PK\x05\x06", 4) == 0) {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: empty zip archive (no data.pkl)", ck->path);
    } else if (len >= sizeof legacy_magic && memcmp(buf, legacy_magic, sizeof legacy_magic) == 0) {
        rc = rwkv_errf(err, RWKV_ENOTSUP,
                       "%s: checkpoint uses the pre-1.6 torch format; re-save it with torch.save "
                       "from torch >= 1.6", ck->path);
    } else if (len >= 263 && memcmp(buf + 257, "ustar", 5) == 0) {
        rc = rwkv_errf(err, RWKV_ENOTSUP,
                       "%s: checkpoint uses the legacy torch tar format; re-save it with torch.save "
                       "from torch >= 1.6", ck->path);
    } else if (len >= 9 && buf[8] == '{') {
        ck->format = "safetensors";
        rc = ckpt_st_load(ck, err);
    } else if (len == 0) {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: file is empty", ck->path);
    } else {
        rc = rwkv_errf(err, RWKV_EFORMAT,
                       "%s: not a checkpoint (neither a torch.save zip archive nor safetensors)",
                       ck->path);
    }
    if (rc == RWKV_OK)
        rc = build_index(ck, err);
    /* a file's small entries are checked now (ckpt_verify.h); memory
     * buffers are the caller's (the demo model, fuzzers) */
    if (rc == RWKV_OK && mf != NULL && !index_only)
        rc = ckpt_check_small(ck, CKPT_CRC_EAGER, err);
    if (rc != RWKV_OK) {
        ckpt_close(ck);
        return rc;
    }
    *out = ck;
    return RWKV_OK;
}

const char *
ckpt_file_name(const char *path, char *buf, size_t cap)
{
    struct stat st;
    size_t n = strlen(path);

    if (stat(path, &st) == 0 || (n >= 4 && strcmp(path + n - 4, ".pth") == 0))
        return path;
    if ((size_t)snprintf(buf, cap, "%s.pth", path) >= cap)
        return NULL;
    return buf;
}

const char *
ckpt_state_file_name(const char *path, char *buf, size_t cap)
{
    struct stat st;
    size_t n = strlen(path);

    if (n == 0 || stat(path, &st) == 0 || (n >= 4 && strcmp(path + n - 4, ".pth") == 0) ||
        (size_t)snprintf(buf, cap, "%s.pth", path) >= cap || stat(buf, &st) != 0)
        return path;
    return buf;
}

static int
open_file(const char *path, const ckpt_limits *lim, int index_only, ckpt **out, rwkv_err *err)
{
    rwkv_err scratch;
    mapfile *mf;
    int rc;

    *out = NULL;
    if (err == NULL)
        err = &scratch;
    rc = mapfile_open(path, &mf, err);
    if (rc != RWKV_OK)
        return rc;
    return open_common(mapfile_data(mf), mapfile_size(mf), path, lim, mf, index_only, out, err);
}

int
ckpt_open(const char *path, const ckpt_limits *lim, ckpt **out, rwkv_err *err)
{
    return open_file(path, lim, 0, out, err);
}

int
ckpt_open_index(const char *path, const ckpt_limits *lim, ckpt **out, rwkv_err *err)
{
    return open_file(path, lim, 1, out, err);
}

int
ckpt_open_mem(const void *buf, size_t len, const char *name, const ckpt_limits *lim,
              ckpt **out, rwkv_err *err)
{
    rwkv_err scratch;
    static const uint8_t nothing[1];

    *out = NULL;
    if (err == NULL)
        err = &scratch;
    return open_common(buf ? buf : nothing, buf ? len : 0, name, lim, NULL, 0, out, err);
}

void
ckpt_close(ckpt *ck)
{
    if (ck == NULL)
        return;
    for (size_t i = 0; i < ck->nowned; i++)
        mem_free(ck->owned[i]);
    free(ck->owned);
    free(ck->t);
    free(ck->t_unit);
    free(ck->units);
    free(ck->meta);
    free(ck->sorted);
    free(ck->path);
    mapfile_close(ck->mf);
    free(ck);
}

void
ckpt_release(const ckpt *ck, const void *p, uint64_t n)
{
    if (ck != NULL && ck->mf != NULL)
        mapfile_release(ck->mf, p, n);
}

int
ckpt_copied(const ckpt *ck, const void *p)
{
    uintptr_t a = (uintptr_t)p, base;

    if (ck == NULL || ck->mf == NULL || ck->size == 0)
        return 0;
    base = (uintptr_t)ck->base;
    return a < base || a - base >= ck->size;
}

int
ckpt_read(const ckpt *ck, const void *p, uint64_t n, void *dst)
{
    if (ck != NULL && ck->mf != NULL && !ckpt_copied(ck, p))
        return mapfile_read(ck->mf, p, n, dst);
    memcpy(dst, p, (size_t)n);   /* ckpt_open_mem, or a realigned copy */
    return 0;
}

/* ---- accessors --------------------------------------------------------- */

size_t
ckpt_count(const ckpt *ck)
{
    return ck->n;
}

const ckpt_tensor *
ckpt_at(const ckpt *ck, size_t i)
{
    return i < ck->n ? &ck->t[i] : NULL;
}

const ckpt_tensor *
ckpt_find(const ckpt *ck, const char *name)
{
    size_t lo = 0, hi = ck->n;

    if (ck->sorted == NULL || name == NULL)
        return NULL;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(name, ck->t[ck->sorted[mid]].name);
        if (c == 0)
            return &ck->t[ck->sorted[mid]];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

const char *
ckpt_path(const ckpt *ck)
{
    return ck->path;
}

const char *
ckpt_format(const ckpt *ck)
{
    return ck->format;
}

uint64_t
ckpt_file_size(const ckpt *ck)
{
    return ck->size;
}

static const struct ckpt_meta *
meta_find(const ckpt *ck, const char *key)
{
    for (size_t i = 0; i < ck->nmeta; i++)
        if (strcmp(ck->meta[i].key, key) == 0)
            return &ck->meta[i];
    return NULL;
}

int
ckpt_meta_str(const ckpt *ck, const char *key, const char **out)
{
    const struct ckpt_meta *m = meta_find(ck, key);

    if (m == NULL || m->type != CKM_STR)
        return RWKV_EINVAL;
    *out = m->s;
    return RWKV_OK;
}

int
ckpt_meta_int(const ckpt *ck, const char *key, int64_t *out)
{
    const struct ckpt_meta *m = meta_find(ck, key);

    if (m == NULL || m->type != CKM_INT)
        return RWKV_EINVAL;
    *out = m->i;
    return RWKV_OK;
}

int
ckpt_meta_float(const ckpt *ck, const char *key, double *out)
{
    const struct ckpt_meta *m = meta_find(ck, key);

    if (m == NULL || m->type != CKM_FLOAT)
        return RWKV_EINVAL;
    *out = m->f;
    return RWKV_OK;
}

/* ---- conversion -------------------------------------------------------- */

/* Convert N elements starting at SRC with element stride STEP (elements). */
static void
convert_run(ck_dtype dt, const uint8_t *src, int64_t step, float *dst, uint64_t n)
{
    size_t es = ck_dtype_size(dt);

    if (step == 1 && dt == CK_F32) {
        memcpy(dst, src, (size_t)n * 4);
        return;
    }
    if (step == 1 && dt == CK_BF16) {
        dtype_bf16_to_f32_n(src, dst, (size_t)n);
        return;
    }
    if (step == 1 && dt == CK_F16) {
        dtype_f16_to_f32_n(src, dst, (size_t)n);
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *p = src + (size_t)(i * (uint64_t)step) * es;
        switch (dt) {
        case CK_F32: memcpy(&dst[i], p, 4); break;
        case CK_BF16: { uint16_t h; memcpy(&h, p, 2); dst[i] = dtype_bf16_to_f32(h); break; }
        case CK_F16: { uint16_t h; memcpy(&h, p, 2); dst[i] = dtype_f16_to_f32(h); break; }
        case CK_F64: { double d; memcpy(&d, p, 8); dst[i] = (float)d; break; }
        default: dst[i] = 0; break;
        }
    }
}

int
ckpt_to_f32(const ckpt_tensor *t, float *dst, uint64_t n, rwkv_err *err)
{
    int64_t idx[CK_MAX_DIMS] = {0};
    const uint8_t *base = t->data;
    size_t es = ck_dtype_size(t->dtype);
    uint64_t inner, done = 0;
    int nd = t->ndim;
    char nc[CKPT_CLEAN_CAP];

    if (t->dtype >= CK_U8 || !dtype_info[t->dtype].is_float)
        return rwkv_errf(err, RWKV_ESHAPE, "tensor '%s' has dtype %s, expected a float type",
                         ckpt_clean(t->name, strlen(t->name), nc, sizeof nc), ck_dtype_name(t->dtype));
    if (n != t->numel)
        return rwkv_errf(err, RWKV_ESHAPE, "tensor '%s' has %llu elements, caller expected %llu",
                         ckpt_clean(t->name, strlen(t->name), nc, sizeof nc), (unsigned long long)t->numel, (unsigned long long)n);
    if (n == 0)
        return RWKV_OK;
    if (t->contiguous || nd == 0) {
        convert_run(t->dtype, base, 1, dst, n);
        return RWKV_OK;
    }
    /* Strided gather: the innermost dimension as a run, the rest odometer-style. */
    inner = (uint64_t)t->shape[nd - 1];
    while (done < n) {
        int64_t off = 0;
        for (int i = 0; i < nd - 1; i++)
            off += idx[i] * t->stride[i];
        convert_run(t->dtype, base + (size_t)off * es, t->stride[nd - 1], dst + done, inner);
        done += inner;
        for (int i = nd - 2; i >= 0; i--) {
            if (++idx[i] < t->shape[i])
                break;
            idx[i] = 0;
        }
    }
    return RWKV_OK;
}
