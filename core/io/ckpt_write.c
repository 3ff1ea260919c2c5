/*
** ckpt_write.c -- a streaming torch.save-compatible checkpoint writer.  See
** ckpt_write.h for the archive layout.
**
** Zip details (APPNOTE 6.3, and what PyTorch's miniz-based writer does):
** every entry is stored (method 0), general-purpose flag bit 11 (UTF-8
** names), no data descriptor: the local header gets the real sizes at once
** (the size of a tensor is known at ckw_begin) and its CRC-32 is patched in
** with pwrite at ckw_end.  The local extra field holds the ZIP64 sizes when
** needed, then PyTorch's "FB" field padded with 'Z' so the data starts on a
** CKW_ALIGN boundary.  Central-directory ZIP64 extras hold, in order, only
** the values whose 32-bit field is 0xFFFFFFFF.
*/
#include "ckpt_write.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "le.h"
#include "zipr.h"

/* ---- CRC-32 (reflected polynomial 0xEDB88320), slicing by 8 ---- */

#define CKW_POLY 0xedb88320u

/*
** Combining CRCs: a CRC is a remainder mod P in the reflected bit order
** (bit 31 = x^0).  CRC(A B) = CRC(A) * x^(8 len(B)) + CRC(B) (mod P) for the
** pre/post-inverted CRC-32 as well, because the inversions cancel between
** the parts.  crc_mulmod multiplies two remainders; x^(2^k) mod P are made
** by squaring.
*/
static uint32_t
crc_mulmod(uint32_t a, uint32_t b)
{
    uint32_t prod = 0;

    for (uint32_t bit = 1u << 31; bit != 0; bit >>= 1) {
        if (a & bit)
            prod ^= b;
        b = (b >> 1) ^ (CKW_POLY & (0u - (b & 1u)));   /* b *= x */
    }
    return prod;
}

uint32_t
ckw_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
    uint32_t sq = 1u << 30;          /* x^1, then x^2, x^4, ... */
    uint32_t f = 1u << 31;           /* x^0: the factor x^(8 len_b) */
    uint64_t bits = len_b;

    /* x^8 first: one byte is 8 bits */
    for (int i = 0; i < 3; i++)
        sq = crc_mulmod(sq, sq);
    for (; bits != 0; bits >>= 1) {
        if (bits & 1)
            f = crc_mulmod(f, sq);
        sq = crc_mulmod(sq, sq);
    }
    return crc_mulmod(crc_a, f) ^ crc_b;
}

/* ---- the writer ---- */

#define ZIP_LOCAL_SIG 0x04034b50u
#define ZIP_CENTRAL_SIG 0x02014b50u
#define ZIP_EOCD_SIG 0x06054b50u
#define ZIP64_EOCD_SIG 0x06064b50u
#define ZIP64_LOC_SIG 0x07064b50u
#define ZIP_LOCAL_LEN 30
#define ZIP_CENTRAL_LEN 46
#define ZIP_EOCD_LEN 22
#define ZIP64_EOCD_LEN 56
#define ZIP64_LOC_LEN 20
#define ZIP_VER_PLAIN 20           /* "version needed": stored entries */
#define ZIP_VER_ZIP64 45           /* ZIP64 extensions */
#define ZIP_FLAG_UTF8 0x0800u
#define ZIP_DOS_DATE 0x0021u       /* 1980-01-01 */
#define ZIP_U32_MAX 0xffffffffu
#define ZIP_U16_MAX 0xffffu
/* Longest tensor name and prefix accepted. */
#define CKW_MAX_NAME 1024
#define CKW_MAX_PREFIX 64
/* torch pickles SETITEMS in batches of this many (CPython's _BATCHSIZE). */
#define CKW_PKL_BATCH 1000

struct ckw_entry {
    char    *name;        /* full entry name, owned */
    uint64_t local_off;   /* local header */
    uint64_t size;
    uint32_t crc;
};

struct ckw_tensor {
    char    *name;        /* owned */
    ck_dtype dtype;
    int      ndim;
    int64_t  shape[CK_MAX_DIMS];
    uint64_t numel;
};

struct ckw {
    int               fd;                 /* rwkv_atomic_fd(af) */
    rwkv_atomic      *af;                 /* the temporary file, owned */
    char             *path;               /* owned */
    char              prefix[CKW_MAX_PREFIX + 1];
    uint64_t          z64;                /* zip64 threshold */
    uint64_t          off;                /* bytes written */
    struct ckw_entry *ents;
    size_t            n_ents, cap_ents;
    struct ckw_tensor *tens;
    size_t            n_tens, cap_tens;
    /* the tensor being written (in_tensor) */
    int               in_tensor;
    uint64_t          want, got;
    uint32_t          crc;
    int               failed;
};

static int
ckw_fail(ckw *w, rwkv_err *err, int code, const char *what, int e)
{
    w->failed = 1;
    return rwkv_errf(err, code, "%s: %s: %s", w->path, what, strerror(e));
}

static int
write_all(ckw *w, const void *p, size_t n, rwkv_err *err)
{
    const char *b = p;

    if (w->failed)
        return rwkv_errf(err, RWKV_EINVAL, "%s: writer used after an error", w->path);
    while (n > 0) {
        ssize_t k = write(w->fd, b, n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return ckw_fail(w, err, RWKV_EIO, "write failed", errno);
        }
        b += k;
        n -= (size_t)k;
        w->off += (uint64_t)k;
    }
    return RWKV_OK;
}

static int
grow(void **p, size_t *cap, size_t n, size_t elsize)
{
    void *q;
    size_t nc;

    if (n < *cap)
        return 0;
    nc = *cap ? *cap * 2 : 64;
    q = realloc(*p, nc * elsize);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

static char *
dupstr(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *s = malloc(la + lb + lc + 1);

    if (s != NULL) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb);
        memcpy(s + la + lb, c, lc + 1);
    }
    return s;
}

int
ckw_create(const char *path, const ckw_opts *opts, ckw **out, rwkv_err *err)
{
    ckw *w;
    const char *prefix = opts && opts->prefix ? opts->prefix : CKW_PREFIX;
    size_t pl = strlen(prefix);

    *out = NULL;
    if (path == NULL || *path == '\0')
        return rwkv_errf(err, RWKV_EINVAL, "no output path given");
    if (pl == 0 || pl > CKW_MAX_PREFIX || strspn(prefix, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "abcdefghijklmnopqrstuvwxyz"
                                                         "0123456789_.-") != pl)
        return rwkv_errf(err, RWKV_EINVAL, "%s: bad archive prefix '%s'", path, prefix);
    w = calloc(1, sizeof *w);
    if (w == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    w->fd = -1;
    memcpy(w->prefix, prefix, pl + 1);
    w->z64 = opts && opts->zip64_at ? opts->zip64_at : ZIP_U32_MAX;
    w->path = dupstr(path, "", "");
    if (w->path == NULL) {
        ckw_abort(w);
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    }
    /* a fresh O_EXCL|O_NOFOLLOW temporary in PATH's directory, renamed over
     * PATH by ckw_finish (a model file the user asked for: 0644) */
    {
        int rc = rwkv_atomic_create(path, 0644, RWKV_ATOMIC_SYNC, &w->af, err);
        if (rc != RWKV_OK) {
            ckw_abort(w);
            return rc;
        }
    }
    w->fd = rwkv_atomic_fd(w->af);
    *out = w;
    return RWKV_OK;
}

/* Start entry NAME (under the prefix) of SIZE bytes: local header + padding. */
static int
entry_begin(ckw *w, const char *name, uint64_t size, rwkv_err *err)
{
    struct ckw_entry *e;
    unsigned char hdr[ZIP_LOCAL_LEN + CKW_MAX_PREFIX + 2 + CKW_MAX_NAME + 20 + 4 + CKW_ALIGN];
    size_t nl, h = 0, xl;
    int z64 = size >= w->z64;
    uint64_t start;
    size_t pad;

    if (grow((void **)&w->ents, &w->cap_ents, w->n_ents, sizeof *w->ents) < 0)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    e = &w->ents[w->n_ents];
    memset(e, 0, sizeof *e);
    if ((e->name = dupstr(w->prefix, "/", name)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    w->n_ents++;
    nl = strlen(e->name);
    e->local_off = w->off;
    e->size = size;
    /* data offset = off + header + name + [zip64 extra] + FB header + pad */
    start = w->off + ZIP_LOCAL_LEN + nl + (z64 ? 20 : 0) + 4;
    pad = (size_t)((CKW_ALIGN - start % CKW_ALIGN) % CKW_ALIGN);
    xl = (z64 ? 20 : 0) + 4 + pad;
    le_put32(hdr, ZIP_LOCAL_SIG);
    le_put16(hdr + 4, z64 ? ZIP_VER_ZIP64 : ZIP_VER_PLAIN);
    le_put16(hdr + 6, ZIP_FLAG_UTF8);
    le_put16(hdr + 8, 0);                       /* stored */
    le_put16(hdr + 10, 0);                      /* time */
    le_put16(hdr + 12, ZIP_DOS_DATE);
    le_put32(hdr + 14, 0);                      /* CRC, patched by entry_end */
    le_put32(hdr + 18, z64 ? ZIP_U32_MAX : (uint32_t)size);
    le_put32(hdr + 22, z64 ? ZIP_U32_MAX : (uint32_t)size);
    le_put16(hdr + 26, (uint32_t)nl);
    le_put16(hdr + 28, (uint32_t)xl);
    h = ZIP_LOCAL_LEN;
    memcpy(hdr + h, e->name, nl);
    h += nl;
    if (z64) {
        le_put16(hdr + h, 1);
        le_put16(hdr + h + 2, 16);
        le_put64(hdr + h + 4, size);
        le_put64(hdr + h + 12, size);
        h += 20;
    }
    hdr[h] = 'F';
    hdr[h + 1] = 'B';
    le_put16(hdr + h + 2, (uint32_t)pad);
    memset(hdr + h + 4, 'Z', pad);
    h += 4 + pad;
    return write_all(w, hdr, h, err);
}

/* Patch the last entry's CRC into its local header. */
static int
entry_end(ckw *w, uint32_t crc, rwkv_err *err)
{
    struct ckw_entry *e = &w->ents[w->n_ents - 1];
    unsigned char b[4];
    ssize_t k;

    e->crc = crc;
    le_put32(b, crc);
    k = pwrite(w->fd, b, 4, (off_t)(e->local_off + 14));
    if (k != 4)
        return ckw_fail(w, err, RWKV_EIO, "write failed", k < 0 ? errno : EIO);
    return RWKV_OK;
}

/* A whole small entry. */
static int
entry_put(ckw *w, const char *name, const void *data, size_t n, rwkv_err *err)
{
    int rc;

    if ((rc = entry_begin(w, name, n, err)) != RWKV_OK ||
        (rc = write_all(w, data, n, err)) != RWKV_OK)
        return rc;
    return entry_end(w, zipr_crc32(0, data, n), err);
}

int
ckw_begin(ckw *w, const char *name, ck_dtype dt, int ndim, const int64_t *shape, rwkv_err *err)
{
    struct ckw_tensor *t;
    uint64_t numel = 1, bytes;
    size_t nl = name ? strlen(name) : 0;
    char key[24];
    int rc;

    if (w->failed)
        return rwkv_errf(err, RWKV_EINVAL, "%s: writer used after an error", w->path);
    if (w->in_tensor)
        return rwkv_errf(err, RWKV_EINVAL, "%s: tensor '%s' begun before the last one ended",
                         w->path, name ? name : "");
    if (nl == 0 || nl > CKW_MAX_NAME)
        return rwkv_errf(err, RWKV_EINVAL, "%s: tensor name of %zu bytes (1..%d allowed)",
                         w->path, nl, CKW_MAX_NAME);
    if (dt != CK_F32 && dt != CK_BF16 && dt != CK_F16)
        return rwkv_errf(err, RWKV_EINVAL, "%s: tensor '%s': dtype %s cannot be written "
                         "(float32, bfloat16 or float16)", w->path, name, ck_dtype_name(dt));
    if (ndim < 0 || ndim > CK_MAX_DIMS)
        return rwkv_errf(err, RWKV_EINVAL, "%s: tensor '%s' has %d dimensions (0..%d allowed)",
                         w->path, name, ndim, CK_MAX_DIMS);
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0 || (uint64_t)shape[i] > (UINT64_MAX >> 4) / (numel ? numel : 1))
            return rwkv_errf(err, RWKV_EINVAL, "%s: tensor '%s' has a bad dimension %lld",
                             w->path, name, (long long)shape[i]);
        numel *= (uint64_t)shape[i];
    }
    for (size_t i = 0; i < w->n_tens; i++)
        if (strcmp(w->tens[i].name, name) == 0)
            return rwkv_errf(err, RWKV_EINVAL, "%s: tensor '%s' written twice", w->path, name);
    bytes = numel * ck_dtype_size(dt);
    if (grow((void **)&w->tens, &w->cap_tens, w->n_tens, sizeof *w->tens) < 0)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    t = &w->tens[w->n_tens];
    memset(t, 0, sizeof *t);
    if ((t->name = dupstr(name, "", "")) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    t->dtype = dt;
    t->ndim = ndim;
    for (int i = 0; i < ndim; i++)
        t->shape[i] = shape[i];
    t->numel = numel;
    snprintf(key, sizeof key, "data/%zu", w->n_tens);
    w->n_tens++;
    if ((rc = entry_begin(w, key, bytes, err)) != RWKV_OK)
        return rc;
    w->in_tensor = 1;
    w->want = bytes;
    w->got = 0;
    w->crc = 0;
    return RWKV_OK;
}

/* N more bytes fit the current tensor? */
static int
check_more(ckw *w, size_t n, rwkv_err *err)
{
    if (!w->in_tensor)
        return rwkv_errf(err, RWKV_EINVAL, "%s: data written outside a tensor", w->path);
    if (n > w->want - w->got) {
        w->failed = 1;
        return rwkv_errf(err, RWKV_EINVAL, "%s: tensor '%s' got more than its %llu bytes",
                         w->path, w->tens[w->n_tens - 1].name, (unsigned long long)w->want);
    }
    return RWKV_OK;
}

int
ckw_write_crc(ckw *w, const void *data, size_t n, uint32_t crc, rwkv_err *err)
{
    int rc;

    if ((rc = check_more(w, n, err)) != RWKV_OK)
        return rc;
    if ((rc = write_all(w, data, n, err)) != RWKV_OK)
        return rc;
    w->crc = w->got == 0 ? crc : ckw_crc32_combine(w->crc, crc, n);
    w->got += n;
    return RWKV_OK;
}

int
ckw_write(ckw *w, const void *data, size_t n, rwkv_err *err)
{
    int rc = check_more(w, n, err);

    return rc != RWKV_OK ? rc : ckw_write_crc(w, data, n, zipr_crc32(0, data, n), err);
}

int
ckw_end(ckw *w, rwkv_err *err)
{
    if (!w->in_tensor)
        return rwkv_errf(err, RWKV_EINVAL, "%s: ckw_end without a tensor", w->path);
    if (w->got != w->want) {
        w->failed = 1;
        return rwkv_errf(err, RWKV_EINVAL, "%s: tensor '%s' got %llu of its %llu bytes",
                         w->path, w->tens[w->n_tens - 1].name, (unsigned long long)w->got,
                         (unsigned long long)w->want);
    }
    w->in_tensor = 0;
    return entry_end(w, w->got ? w->crc : 0, err);
}

int
ckw_tensor(ckw *w, const char *name, ck_dtype dt, int ndim, const int64_t *shape,
           const void *data, rwkv_err *err)
{
    int rc;

    if ((rc = ckw_begin(w, name, dt, ndim, shape, err)) != RWKV_OK)
        return rc;
    if (w->want > 0 && (rc = ckw_write(w, data, (size_t)w->want, err)) != RWKV_OK)
        return rc;
    return ckw_end(w, err);
}

uint64_t
ckw_bytes(const ckw *w)
{
    return w->off;
}

/* ---- data.pkl ---- */

struct pbuf {
    unsigned char *p;
    size_t         n, cap;
    int            oom;
    uint32_t       memo;     /* next memo index */
};

static void
pb_put(struct pbuf *b, const void *s, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n > b->cap) {
        size_t nc = b->cap ? b->cap : 4096;
        unsigned char *q;
        while (nc < b->n + n)
            nc *= 2;
        if ((q = realloc(b->p, nc)) == NULL) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = nc;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void
pb_op(struct pbuf *b, unsigned char op)
{
    pb_put(b, &op, 1);
}

/* A memo opcode for slot I: OP1 with a 1-byte index below 256, else OP4
** with a 4-byte one. */
static void
pb_memo_op(struct pbuf *b, uint32_t i, unsigned char op1, unsigned char op4)
{
    unsigned char x[5];

    if (i < 256) {
        x[0] = op1;
        x[1] = (unsigned char)i;
        pb_put(b, x, 2);
    } else {
        x[0] = op4;
        le_put32(x + 1, i);
        pb_put(b, x, 5);
    }
}

/* Memoise the object on top of the stack in the next slot (BINPUT /
** LONG_BINPUT); its index. */
static uint32_t
pb_memo_put(struct pbuf *b)
{
    uint32_t i = b->memo++;

    pb_memo_op(b, i, 'q', 'r');
    return i;
}

/* Push memo slot I (BINGET / LONG_BINGET). */
static void
pb_memo_get(struct pbuf *b, uint32_t i)
{
    pb_memo_op(b, i, 'h', 'j');
}

static void
pb_str(struct pbuf *b, const char *s)
{
    unsigned char x[5];
    size_t n = strlen(s);

    x[0] = 'X';   /* BINUNICODE */
    le_put32(x + 1, (uint32_t)n);
    pb_put(b, x, 5);
    pb_put(b, s, n);
}

/* A non-negative integer the way CPython's pickler writes it. */
static void
pb_int(struct pbuf *b, uint64_t v)
{
    unsigned char x[10];

    if (v < 256) {
        x[0] = 'K';
        x[1] = (unsigned char)v;
        pb_put(b, x, 2);
    } else if (v < 65536) {
        x[0] = 'M';
        le_put16(x + 1, (uint32_t)v);
        pb_put(b, x, 3);
    } else if (v < 0x80000000u) {
        x[0] = 'J';
        le_put32(x + 1, (uint32_t)v);
        pb_put(b, x, 5);
    } else {
        /* LONG1: little-endian two's complement, shortest with a 0 sign bit */
        int n = 0;
        uint64_t t = v;
        x[0] = 0x8a;
        while (t != 0) {
            x[2 + n++] = (unsigned char)t;
            t >>= 8;
        }
        if (x[2 + n - 1] & 0x80)
            x[2 + n++] = 0;
        x[1] = (unsigned char)n;
        pb_put(b, x, (size_t)(2 + n));
    }
}

/* A tuple of N non-negative ints. */
static void
pb_int_tuple(struct pbuf *b, const int64_t *v, int n)
{
    static const unsigned char tup[4] = { ')', 0x85, 0x86, 0x87 };   /* (), TUPLE1/2/3 */

    if (n > 3)
        pb_op(b, '(');
    for (int i = 0; i < n; i++)
        pb_int(b, (uint64_t)v[i]);
    pb_op(b, n > 3 ? 't' : tup[n]);
}

static const char *
storage_type(ck_dtype dt)
{
    return dt == CK_BF16 ? "BFloat16Storage" : dt == CK_F16 ? "HalfStorage" : "FloatStorage";
}

static int
build_pickle(ckw *w, struct pbuf *b)
{
    static const char g_odict[] = "ccollections\nOrderedDict\n";
    static const char g_rebuild[] = "ctorch._utils\n_rebuild_tensor_v2\n";
    uint32_t m_odict, m_rebuild = 0, m_store[3] = { 0, 0, 0 };
    int have_rebuild = 0, have_store[3] = { 0, 0, 0 };

    pb_op(b, 0x80);   /* PROTO 2 */
    pb_op(b, 2);
    pb_put(b, g_odict, sizeof g_odict - 1);
    m_odict = pb_memo_put(b);
    pb_op(b, ')');    /* OrderedDict() */
    pb_op(b, 'R');
    pb_memo_put(b);
    for (size_t i = 0; i < w->n_tens; i++) {
        const struct ckw_tensor *t = &w->tens[i];
        int64_t stride[CK_MAX_DIMS];
        int si = t->dtype == CK_BF16 ? 1 : t->dtype == CK_F16 ? 2 : 0;
        char key[24];
        int64_t acc = 1;

        if (i % CKW_PKL_BATCH == 0)
            pb_op(b, '(');   /* MARK for SETITEMS */
        pb_str(b, t->name);
        if (have_rebuild) {
            pb_memo_get(b, m_rebuild);
        } else {
            pb_put(b, g_rebuild, sizeof g_rebuild - 1);
            m_rebuild = pb_memo_put(b);
            have_rebuild = 1;
        }
        pb_op(b, '(');       /* MARK: the rebuild args */
        pb_op(b, '(');       /* MARK: the persistent id */
        pb_str(b, "storage");
        if (have_store[si]) {
            pb_memo_get(b, m_store[si]);
        } else {
            char g[64];
            snprintf(g, sizeof g, "ctorch\n%s\n", storage_type(t->dtype));
            pb_put(b, g, strlen(g));
            m_store[si] = pb_memo_put(b);
            have_store[si] = 1;
        }
        snprintf(key, sizeof key, "%zu", i);
        pb_str(b, key);
        pb_str(b, "cpu");
        pb_int(b, t->numel);
        pb_op(b, 't');
        pb_op(b, 'Q');       /* BINPERSID */
        pb_int(b, 0);        /* storage offset */
        pb_int_tuple(b, t->shape, t->ndim);
        for (int d = t->ndim - 1; d >= 0; d--) {
            stride[d] = acc;
            acc *= t->shape[d] > 0 ? t->shape[d] : 1;
        }
        pb_int_tuple(b, stride, t->ndim);
        pb_op(b, 0x89);      /* requires_grad = False */
        pb_memo_get(b, m_odict);
        pb_op(b, ')');       /* backward hooks: OrderedDict() */
        pb_op(b, 'R');
        pb_op(b, 't');
        pb_op(b, 'R');       /* _rebuild_tensor_v2(*args) */
        if (i % CKW_PKL_BATCH == CKW_PKL_BATCH - 1 || i + 1 == w->n_tens)
            pb_op(b, 'u');   /* SETITEMS */
    }
    pb_op(b, '.');
    return b->oom ? -1 : 0;
}

/* ---- central directory and end records ---- */

static int
write_central(ckw *w, const struct ckw_entry *e, rwkv_err *err)
{
    unsigned char hdr[ZIP_CENTRAL_LEN + CKW_MAX_PREFIX + 2 + CKW_MAX_NAME + 28];
    size_t nl = strlen(e->name), h = ZIP_CENTRAL_LEN + nl, x = 0;
    int zs = e->size >= w->z64, zo = e->local_off >= w->z64;
    unsigned char ext[28];

    if (zs) {
        le_put64(ext + 4 + x, e->size);   /* uncompressed */
        x += 8;
        le_put64(ext + 4 + x, e->size);   /* compressed */
        x += 8;
    }
    if (zo) {
        le_put64(ext + 4 + x, e->local_off);
        x += 8;
    }
    le_put32(hdr, ZIP_CENTRAL_SIG);
    le_put16(hdr + 4, zs || zo ? ZIP_VER_ZIP64 : ZIP_VER_PLAIN);   /* made by */
    le_put16(hdr + 6, zs || zo ? ZIP_VER_ZIP64 : ZIP_VER_PLAIN);   /* needed */
    le_put16(hdr + 8, ZIP_FLAG_UTF8);
    le_put16(hdr + 10, 0);
    le_put16(hdr + 12, 0);
    le_put16(hdr + 14, ZIP_DOS_DATE);
    le_put32(hdr + 16, e->crc);
    le_put32(hdr + 20, zs ? ZIP_U32_MAX : (uint32_t)e->size);
    le_put32(hdr + 24, zs ? ZIP_U32_MAX : (uint32_t)e->size);
    le_put16(hdr + 28, (uint32_t)nl);
    le_put16(hdr + 30, x ? (uint32_t)(4 + x) : 0);
    le_put16(hdr + 32, 0);    /* comment */
    le_put16(hdr + 34, 0);    /* disk */
    le_put16(hdr + 36, 0);    /* internal attributes */
    le_put32(hdr + 38, 0);    /* external attributes */
    le_put32(hdr + 42, zo ? ZIP_U32_MAX : (uint32_t)e->local_off);
    memcpy(hdr + ZIP_CENTRAL_LEN, e->name, nl);
    if (x) {
        le_put16(ext, 1);
        le_put16(ext + 2, (uint32_t)x);
        memcpy(hdr + h, ext, 4 + x);
        h += 4 + x;
    }
    return write_all(w, hdr, h, err);
}

static int
write_end(ckw *w, uint64_t cd_off, uint64_t cd_size, rwkv_err *err)
{
    unsigned char b[ZIP64_EOCD_LEN + ZIP64_LOC_LEN + ZIP_EOCD_LEN];
    uint64_t n = w->n_ents, z64_off = w->off;
    int big_n = n >= ZIP_U16_MAX, big_sz = cd_size >= w->z64, big_off = cd_off >= w->z64;
    size_t h = 0;

    if (big_n || big_sz || big_off) {
        le_put32(b, ZIP64_EOCD_SIG);
        le_put64(b + 4, ZIP64_EOCD_LEN - 12);
        le_put16(b + 12, ZIP_VER_ZIP64);
        le_put16(b + 14, ZIP_VER_ZIP64);
        le_put32(b + 16, 0);
        le_put32(b + 20, 0);
        le_put64(b + 24, n);
        le_put64(b + 32, n);
        le_put64(b + 40, cd_size);
        le_put64(b + 48, cd_off);
        h = ZIP64_EOCD_LEN;
        le_put32(b + h, ZIP64_LOC_SIG);
        le_put32(b + h + 4, 0);
        le_put64(b + h + 8, z64_off);
        le_put32(b + h + 16, 1);
        h += ZIP64_LOC_LEN;
    }
    le_put32(b + h, ZIP_EOCD_SIG);
    le_put16(b + h + 4, 0);
    le_put16(b + h + 6, 0);
    le_put16(b + h + 8, big_n ? ZIP_U16_MAX : (uint32_t)n);
    le_put16(b + h + 10, big_n ? ZIP_U16_MAX : (uint32_t)n);
    le_put32(b + h + 12, big_sz ? ZIP_U32_MAX : (uint32_t)cd_size);
    le_put32(b + h + 16, big_off ? ZIP_U32_MAX : (uint32_t)cd_off);
    le_put16(b + h + 20, 0);
    h += ZIP_EOCD_LEN;
    return write_all(w, b, h, err);
}

int
ckw_finish(ckw *w, uint64_t *size, rwkv_err *err)
{
    struct pbuf pb;
    uint64_t cd_off, cd_size;
    size_t pkl;
    int rc;

    if (size)
        *size = 0;
    if (w->failed || w->in_tensor) {
        rc = rwkv_errf(err, RWKV_EINVAL, "%s: %s", w->path,
                       w->failed ? "writer used after an error" : "last tensor not ended");
        ckw_abort(w);
        return rc;
    }
    memset(&pb, 0, sizeof pb);
    if (build_pickle(w, &pb) < 0) {
        free(pb.p);
        ckw_abort(w);
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    }
    rc = entry_put(w, "data.pkl", pb.p, pb.n, err);
    free(pb.p);
    pkl = w->n_ents - 1;
    if (rc == RWKV_OK)
        rc = entry_put(w, "byteorder", "little", 6, err);
    if (rc == RWKV_OK)
        rc = entry_put(w, "version", "3\n", 2, err);
    /* central directory: data.pkl, byteorder, the storages, version */
    cd_off = w->off;
    if (rc == RWKV_OK)
        rc = write_central(w, &w->ents[pkl], err);
    if (rc == RWKV_OK)
        rc = write_central(w, &w->ents[pkl + 1], err);
    for (size_t i = 0; i < pkl && rc == RWKV_OK; i++)
        rc = write_central(w, &w->ents[i], err);
    if (rc == RWKV_OK)
        rc = write_central(w, &w->ents[pkl + 2], err);
    cd_size = w->off - cd_off;
    if (rc == RWKV_OK)
        rc = write_end(w, cd_off, cd_size, err);
    if (rc == RWKV_OK) {
        /* fsync, close, rename over PATH; frees the temporary either way */
        rc = rwkv_atomic_commit(w->af, err);
        w->af = NULL;
        w->fd = -1;
    }
    if (rc != RWKV_OK) {
        ckw_abort(w);
        return rc;
    }
    if (size)
        *size = w->off;
    ckw_abort(w);
    return RWKV_OK;
}

void
ckw_abort(ckw *w)
{
    if (w == NULL)
        return;
    rwkv_atomic_abort(w->af);   /* closes and removes the temporary */
    for (size_t i = 0; i < w->n_ents; i++)
        free(w->ents[i].name);
    for (size_t i = 0; i < w->n_tens; i++)
        free(w->tens[i].name);
    free(w->ents);
    free(w->tens);
    free(w->path);
    free(w);
}
