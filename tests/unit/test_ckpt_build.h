/*
** test_ckpt_build.h -- build checkpoint bytes in memory for the loader tests
** and the fuzz seed generator: a growable byte buffer, a zip writer (stored
** entries, optional 64-byte alignment like PyTorch's "FB" padding, optional
** ZIP64 extra fields and EOCD64/locator), a pickle emitter (opcode by
** opcode), a torch.save-shaped state-dict writer and a safetensors writer.
**
** Everything is static: include it once per test binary.  Allocation
** failure aborts (tests only).
*/
#ifndef TEST_CKPT_BUILD_H
#define TEST_CKPT_BUILD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- byte buffer ---------------------------------------------------------- */

typedef struct tb_buf {
    uint8_t *p;
    size_t   n, cap;
} tb_buf;

static inline void
tb_put(tb_buf *b, const void *src, size_t n)
{
    if (b->cap - b->n < n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->n < n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        if (b->p == NULL)
            abort();
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, src, n);
    b->n += n;
}

static inline void tb_u8(tb_buf *b, unsigned v) { uint8_t x = (uint8_t)v; tb_put(b, &x, 1); }
static inline void tb_u16(tb_buf *b, unsigned v) { tb_u8(b, v & 0xff); tb_u8(b, (v >> 8) & 0xff); }
static inline void tb_u32(tb_buf *b, uint32_t v) { tb_u16(b, v & 0xffff); tb_u16(b, v >> 16); }
static inline void tb_u64(tb_buf *b, uint64_t v) { tb_u32(b, (uint32_t)v); tb_u32(b, (uint32_t)(v >> 32)); }
static inline void tb_str(tb_buf *b, const char *s) { tb_put(b, s, strlen(s)); }
static inline void tb_free(tb_buf *b) { free(b->p); b->p = NULL; b->n = b->cap = 0; }

static inline void
tb_set32(tb_buf *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->p[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

static inline void
tb_set16(tb_buf *b, size_t at, unsigned v)
{
    b->p[at] = (uint8_t)v;
    b->p[at + 1] = (uint8_t)(v >> 8);
}

static inline void
tb_set64(tb_buf *b, size_t at, uint64_t v)
{
    tb_set32(b, at, (uint32_t)v);
    tb_set32(b, at + 4, (uint32_t)(v >> 32));
}

/* ---- zip writer ------------------------------------------------------------ */

static inline uint32_t
tb_crc32(const void *p, size_t n)
{
    const uint8_t *s = p;
    uint32_t c = 0xffffffffu;

    for (size_t i = 0; i < n; i++) {
        c ^= s[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return ~c;
}

typedef struct tb_entry {
    const char *name;
    const void *data;
    size_t      len;
    unsigned    method;     /* 0 stored; anything else is just written in the headers */
} tb_entry;

typedef struct tb_zipopt {
    int align;        /* pad local extra so data is aligned to this (0 = none) */
    int misalign;     /* then add this many extra bytes (misaligned data) */
    int zip64;        /* write EOCD64 record + locator (as miniz always does) */
    int zip64_fields; /* mark usize/csize/offset as 0xFFFFFFFF + 0x0001 extra */
} tb_zipopt;

#define TB_MAX_ENT 64
typedef struct tb_zipinfo {
    size_t lho[TB_MAX_ENT], data[TB_MAX_ENT], central[TB_MAX_ENT];
    size_t cd_ofs, cd_size, eocd64, loc64, eocd;
} tb_zipinfo;

static inline void
tb_zip(tb_buf *out, const tb_entry *e, size_t n, const tb_zipopt *opt, tb_zipinfo *info)
{
    static const tb_zipopt none;
    tb_zipinfo scratch;
    size_t base = out->n;

    if (opt == NULL)
        opt = &none;
    if (info == NULL)
        info = &scratch;
    memset(info, 0, sizeof *info);
    for (size_t i = 0; i < n && i < TB_MAX_ENT; i++) {
        size_t nl = strlen(e[i].name), start, pad = 0;
        info->lho[i] = out->n - base;
        tb_u32(out, 0x04034b50u);
        tb_u16(out, 20);
        tb_u16(out, 0x0808);
        tb_u16(out, e[i].method);
        tb_u16(out, 0);
        tb_u16(out, 0);
        tb_u32(out, 0);                   /* crc, sizes: zero like miniz */
        tb_u32(out, 0);
        tb_u32(out, 0);
        tb_u16(out, (unsigned)nl);
        start = out->n - base + 2 + nl + 4;
        if (opt->align > 0)
            pad = (size_t)((opt->align - (int)(start % (size_t)opt->align)) % opt->align);
        pad += (size_t)opt->misalign;
        tb_u16(out, (unsigned)(4 + pad));
        tb_str(out, e[i].name);
        tb_u16(out, 0x4246);              /* "FB" */
        tb_u16(out, (unsigned)pad);
        for (size_t k = 0; k < pad; k++)
            tb_u8(out, 'Z');
        info->data[i] = out->n - base;
        tb_put(out, e[i].data, e[i].len);
    }
    info->cd_ofs = out->n - base;
    for (size_t i = 0; i < n && i < TB_MAX_ENT; i++) {
        size_t nl = strlen(e[i].name);
        int z64 = opt->zip64_fields;
        info->central[i] = out->n - base;
        tb_u32(out, 0x02014b50u);
        tb_u16(out, 45);
        tb_u16(out, 45);
        tb_u16(out, 0x0808);
        tb_u16(out, e[i].method);
        tb_u16(out, 0);
        tb_u16(out, 0);
        tb_u32(out, tb_crc32(e[i].data, e[i].len));
        tb_u32(out, z64 ? 0xffffffffu : (uint32_t)e[i].len);
        tb_u32(out, z64 ? 0xffffffffu : (uint32_t)e[i].len);
        tb_u16(out, (unsigned)nl);
        tb_u16(out, z64 ? 28 : 0);
        tb_u16(out, 0);
        tb_u16(out, 0);
        tb_u16(out, 0);
        tb_u32(out, 0);
        tb_u32(out, z64 ? 0xffffffffu : (uint32_t)info->lho[i]);
        tb_str(out, e[i].name);
        if (z64) {
            tb_u16(out, 0x0001);
            tb_u16(out, 24);
            tb_u64(out, e[i].len);
            tb_u64(out, e[i].len);
            tb_u64(out, info->lho[i]);
        }
    }
    info->cd_size = out->n - base - info->cd_ofs;
    if (opt->zip64) {
        info->eocd64 = out->n - base;
        tb_u32(out, 0x06064b50u);
        tb_u64(out, 44);
        tb_u16(out, 45);
        tb_u16(out, 45);
        tb_u32(out, 0);
        tb_u32(out, 0);
        tb_u64(out, n);
        tb_u64(out, n);
        tb_u64(out, info->cd_size);
        tb_u64(out, info->cd_ofs);
        info->loc64 = out->n - base;
        tb_u32(out, 0x07064b50u);
        tb_u32(out, 0);
        tb_u64(out, info->eocd64);
        tb_u32(out, 1);
    }
    info->eocd = out->n - base;
    tb_u32(out, 0x06054b50u);
    tb_u16(out, 0);
    tb_u16(out, 0);
    tb_u16(out, opt->zip64 ? 0xffffu : (unsigned)n);
    tb_u16(out, opt->zip64 ? 0xffffu : (unsigned)n);
    tb_u32(out, opt->zip64 ? 0xffffffffu : (uint32_t)info->cd_size);
    tb_u32(out, opt->zip64 ? 0xffffffffu : (uint32_t)info->cd_ofs);
    tb_u16(out, 0);
}

/* ---- pickle emitter ----------------------------------------------------------- */

static inline void tb_op(tb_buf *b, unsigned op) { tb_u8(b, op); }
static inline void tb_proto(tb_buf *b) { tb_u8(b, 0x80); tb_u8(b, 2); }

static inline void
tb_unicode(tb_buf *b, const char *s)
{
    tb_u8(b, 'X');
    tb_u32(b, (uint32_t)strlen(s));
    tb_str(b, s);
}

/* The pickler's smallest integer encoding. */
static inline void
tb_int(tb_buf *b, int64_t v)
{
    if (v >= 0 && v <= 0xff) {
        tb_u8(b, 'K');
        tb_u8(b, (unsigned)v);
    } else if (v >= 0 && v <= 0xffff) {
        tb_u8(b, 'M');
        tb_u16(b, (unsigned)v);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        tb_u8(b, 'J');
        tb_u32(b, (uint32_t)(int32_t)v);
    } else {
        tb_u8(b, 0x8a);
        tb_u8(b, 8);
        tb_u64(b, (uint64_t)v);
    }
}

static inline void
tb_global(tb_buf *b, const char *mod, const char *name)
{
    tb_u8(b, 'c');
    tb_str(b, mod);
    tb_u8(b, '\n');
    tb_str(b, name);
    tb_u8(b, '\n');
}

static inline void
tb_float(tb_buf *b, double d)
{
    uint64_t u;

    memcpy(&u, &d, 8);
    tb_u8(b, 'G');
    for (int i = 7; i >= 0; i--)
        tb_u8(b, (unsigned)(u >> (8 * i)) & 0xff);
}

/* A tuple of N ints, as the pickler writes shapes/strides. */
static inline void
tb_int_tuple(tb_buf *b, const int64_t *v, int n)
{
    if (n == 0) {
        tb_op(b, ')');
        return;
    }
    if (n > 3)
        tb_op(b, '(');
    for (int i = 0; i < n; i++)
        tb_int(b, v[i]);
    tb_op(b, n == 1 ? 0x85 : n == 2 ? 0x86 : n == 3 ? 0x87 : 't');
}

/* The persistent id ("storage", torch.STORAGE_CLASS, KEY, DEVICE, NUMEL) of a
** tensor's storage, and BINPERSID. */
static inline void
tb_pid(tb_buf *b, const char *storage_class, const char *key, const char *device, int64_t numel)
{
    tb_op(b, '(');
    tb_unicode(b, "storage");
    tb_global(b, "torch", storage_class);
    tb_unicode(b, key);
    tb_unicode(b, device);
    tb_int(b, numel);
    tb_op(b, 't');
    tb_op(b, 'Q');
}

/* _rebuild_tensor_v2(pid(storage_class, key, numel), offset, shape, stride, False, OrderedDict()) */
static inline void
tb_tensor(tb_buf *b, const char *storage_class, const char *key, int64_t numel,
          int64_t offset, const int64_t *shape, const int64_t *stride, int ndim)
{
    tb_global(b, "torch._utils", "_rebuild_tensor_v2");
    tb_op(b, '(');
    tb_pid(b, storage_class, key, "cpu", numel);
    tb_int(b, offset);
    tb_int_tuple(b, shape, ndim);
    tb_int_tuple(b, stride, ndim);
    tb_op(b, 0x89);
    tb_global(b, "collections", "OrderedDict");
    tb_op(b, ')');
    tb_op(b, 'R');
    tb_op(b, 't');
    tb_op(b, 'R');
}

/* ---- torch.save-shaped archive -------------------------------------------------- */

typedef struct tb_tensor_spec {
    const char *name;
    const char *storage_class;  /* "FloatStorage", ... */
    int         elsize;
    const void *data;           /* numel * elsize bytes */
    int64_t     numel;          /* storage elements */
    int64_t     offset;
    int         ndim;
    int64_t     shape[8], stride[8];
} tb_tensor_spec;

/* The pickle for a plain dict of these tensors (each its own storage "0".."n-1"). */
static inline void
tb_state_pickle(tb_buf *pk, const tb_tensor_spec *t, size_t n, int ordered)
{
    tb_proto(pk);
    if (ordered) {
        tb_global(pk, "collections", "OrderedDict");
        tb_op(pk, ')');
        tb_op(pk, 'R');
    } else {
        tb_op(pk, '}');
    }
    tb_op(pk, '(');
    for (size_t i = 0; i < n; i++) {
        char key[24];
        snprintf(key, sizeof key, "%zu", i);
        tb_unicode(pk, t[i].name);
        tb_tensor(pk, t[i].storage_class, key, t[i].numel, t[i].offset, t[i].shape,
                  t[i].stride, t[i].ndim);
    }
    tb_op(pk, 'u');
    if (ordered) {           /* BUILD {'_metadata': OrderedDict()} */
        tb_op(pk, '}');
        tb_unicode(pk, "_metadata");
        tb_global(pk, "collections", "OrderedDict");
        tb_op(pk, ')');
        tb_op(pk, 'R');
        tb_op(pk, 's');
        tb_op(pk, 'b');
    }
    tb_op(pk, '.');
}

/* A whole torch.save file from PICKLE plus the tensors' storages (zip64 + 64-aligned). */
static inline void
tb_torch_zip(tb_buf *out, const char *prefix, const tb_buf *pickle, const tb_tensor_spec *t,
             size_t n, const tb_zipopt *opt, tb_zipinfo *info)
{
    static char names[TB_MAX_ENT][128];
    tb_entry e[TB_MAX_ENT];
    size_t k = 0;
    tb_zipopt def = {64, 0, 1, 0};

    snprintf(names[k], sizeof names[k], "%s/data.pkl", prefix);
    e[k].name = names[k], e[k].data = pickle->p, e[k].len = pickle->n, e[k].method = 0, k++;
    for (size_t i = 0; i < n && k < TB_MAX_ENT - 1; i++) {
        snprintf(names[k], sizeof names[k], "%s/data/%zu", prefix, i);
        e[k].name = names[k], e[k].data = t[i].data;
        e[k].len = (size_t)(t[i].numel * t[i].elsize), e[k].method = 0, k++;
    }
    snprintf(names[k], sizeof names[k], "%s/version", prefix);
    e[k].name = names[k], e[k].data = "3\n", e[k].len = 2, e[k].method = 0, k++;
    tb_zip(out, e, k, opt ? opt : &def, info);
}

/* ---- safetensors ------------------------------------------------------------------- */

/* HEADER is the JSON text; it is padded with spaces to a multiple of 8. */
static inline void
tb_safetensors(tb_buf *out, const char *header, const void *data, size_t len)
{
    size_t hl = strlen(header), pad = (8 - hl % 8) % 8;

    tb_u64(out, hl + pad);
    tb_str(out, header);
    for (size_t i = 0; i < pad; i++)
        tb_u8(out, ' ');
    tb_put(out, data, len);
}

#endif
