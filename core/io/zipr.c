/*
** zipr.c -- strict ZIP/ZIP64 reader for stored entries.  See zipr.h and
** docs/pth-security.md (the archive checks and why).
**
** Invariants established by zipr_open (all arithmetic is overflow-checked
** uint64_t, so a hostile field can only produce an error):
**   - the EOCD is the last signature whose comment ends exactly at EOF;
**   - the central directory lies inside [0, eocd) and holds exactly the
**     announced number of well-formed headers;
**   - every entry: method 0, not encrypted, csize == usize, a sane name, a
**     local header with the same name, data before the central directory;
**   - names are unique and the [local header, data end) ranges are disjoint.
*/
#include "zipr.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "le.h"
#include "../mem.h"

#define SIG_LOCAL   0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD    0x06054b50u
#define SIG_EOCD64  0x06064b50u
#define SIG_LOC64   0x07064b50u

#define LOCAL_HDR   30u
#define CENTRAL_HDR 46u
#define EOCD_LEN    22u
#define EOCD64_LEN  56u
#define LOC64_LEN   20u
/* The EOCD comment is at most 65535 bytes, so the EOCD starts within this
** many bytes of the end. */
#define EOCD_SCAN   (65535u + EOCD_LEN)

struct zipr {
    zipr_entry *ents;
    size_t      n;
    size_t     *by_name;   /* indices sorted by name, for zipr_find */
    char       *names;     /* all names, NUL separated */
};

/*
** CRC-32 (reflected polynomial 0xEDB88320).  Two implementations, the same
** function:
**   - table-driven, 8 bytes a step ("slice-by-8"): portable, ~1-2 GB/s;
**   - carry-less multiplication (x86-64 PCLMULQDQ, chosen at run time),
**     ~10 GB/s per core: a large tensor's bytes are checked when the model
**     loader converts them, and at table speed that cost seconds per GB.
** Folding (Intel, "Fast CRC Computation for Generic Polynomials Using
** PCLMULQDQ", 2009): the message M, read as a polynomial (first bit =
** highest power), has raw CRC M * x^32 mod P.  A 16-byte block A lying T
** bits before block B contributes A * x^T to B's position, and
** A * x^T = A_H * x^(64+T) + A_L * x^T == A_H * K1 + A_L * K2 (mod P), a
** polynomial of degree < 128: XORed into B it replaces A without changing
** the remainder.  Loaded little-endian, a block is the bit-reflection of
** its polynomial and a carry-less product of reflected operands is the
** reflected product times x, so the constants are x^(64+T-1) and x^(T-1)
** mod P, bit-reflected.  Four blocks are folded in parallel (T = 512 bits),
** then into one (T = 128); the last 16 bytes and the tail go through the
** table (leading zeros do not change a raw CRC, so the folded block stands
** for everything before it).  The constants are computed at start-up.
*/
#define ZIPR_CRC_POLY 0xedb88320u
/* Bytes below which the table is as fast (the folding needs 64 to start). */
#define ZIPR_CLMUL_MIN 256

static uint32_t crc_tab[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ZIPR_HAVE_CLMUL 1
#include <immintrin.h>

static int      crc_use_clmul;
static uint64_t crc_k512[2], crc_k128[2];   /* {K1, K2} for T = 512, 128 */

/* x^K mod P (P = 0x104C11DB7, the unreflected polynomial), as 32 bits. */
static uint32_t
crc_xpow(unsigned k)
{
    uint32_t r = 1;   /* x^0 */

    while (k-- > 0)
        r = (r << 1) ^ ((r & 0x80000000u) ? 0x04c11db7u : 0);
    return r;
}

/* Bit-reflection of a 32-bit polynomial into the high half of 64 bits
** (bit d -> bit 63 - d). */
static uint64_t
crc_rev64(uint32_t v)
{
    uint64_t r = 0;

    for (int d = 0; d < 32; d++)
        if (v & (1u << d))
            r |= (uint64_t)1 << (63 - d);
    return r;
}

__attribute__((target("pclmul,sse2"))) static inline __m128i
crc_fold(__m128i v, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(v, k, 0x00), _mm_clmulepi64_si128(v, k, 0x11));
}

/*
** Raw CRC state S (already inverted) continued over B[0..N), N >= 64:
** folds every whole 16-byte block but the last into one, leaving the last
** block (plus the folded rest) in OUT16; returns the bytes consumed from B
** (a multiple of 16; OUT16 stands for all of them).
*/
__attribute__((target("pclmul,sse2"))) static size_t
crc_clmul_fold(uint32_t s, const unsigned char *b, size_t n, unsigned char out16[16])
{
    const __m128i k512 = _mm_set_epi64x((long long)crc_k512[1], (long long)crc_k512[0]);
    const __m128i k128 = _mm_set_epi64x((long long)crc_k128[1], (long long)crc_k128[0]);
    __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)b);
    __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(b + 16));
    __m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(b + 32));
    __m128i v3 = _mm_loadu_si128((const __m128i *)(const void *)(b + 48));
    size_t i = 64;

    v0 = _mm_xor_si128(v0, _mm_cvtsi32_si128((int)s));   /* the state joins the first 4 bytes */
    for (; i + 64 <= n; i += 64) {
        v0 = _mm_xor_si128(crc_fold(v0, k512), _mm_loadu_si128((const __m128i *)(const void *)(b + i)));
        v1 = _mm_xor_si128(crc_fold(v1, k512), _mm_loadu_si128((const __m128i *)(const void *)(b + i + 16)));
        v2 = _mm_xor_si128(crc_fold(v2, k512), _mm_loadu_si128((const __m128i *)(const void *)(b + i + 32)));
        v3 = _mm_xor_si128(crc_fold(v3, k512), _mm_loadu_si128((const __m128i *)(const void *)(b + i + 48)));
    }
    v1 = _mm_xor_si128(crc_fold(v0, k128), v1);
    v2 = _mm_xor_si128(crc_fold(v1, k128), v2);
    v3 = _mm_xor_si128(crc_fold(v2, k128), v3);
    for (; i + 16 <= n; i += 16)
        v3 = _mm_xor_si128(crc_fold(v3, k128), _mm_loadu_si128((const __m128i *)(const void *)(b + i)));
    _mm_storeu_si128((__m128i *)(void *)out16, v3);
    return i;
}
#endif

static void
crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (ZIPR_CRC_POLY & (0u - (c & 1u)));
        crc_tab[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xff];
#ifdef ZIPR_HAVE_CLMUL
    crc_k512[0] = crc_rev64(crc_xpow(64 + 512 - 1));
    crc_k512[1] = crc_rev64(crc_xpow(512 - 1));
    crc_k128[0] = crc_rev64(crc_xpow(64 + 128 - 1));
    crc_k128[1] = crc_rev64(crc_xpow(128 - 1));
    {
        /* RWKV_KERNELS=portable (the kernels' switch) keeps the table */
        const char *k = getenv("RWKV_KERNELS");
        __builtin_cpu_init();
        crc_use_clmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse2") &&
                        !(k != NULL && strcmp(k, "portable") == 0);
    }
#endif
}

/* The raw (inverted) state S continued over B[0..N) with the tables. */
static uint32_t
crc_table_run(uint32_t crc, const unsigned char *b, size_t n)
{
    while (n > 0 && ((uintptr_t)b & 7) != 0) {
        crc = (crc >> 8) ^ crc_tab[0][(crc ^ *b++) & 0xff];
        n--;
    }
    while (n >= 8) {
        uint32_t lo = le_get32(b) ^ crc, hi = le_get32(b + 4);
        crc = crc_tab[7][lo & 0xff] ^ crc_tab[6][(lo >> 8) & 0xff] ^
              crc_tab[5][(lo >> 16) & 0xff] ^ crc_tab[4][lo >> 24] ^
              crc_tab[3][hi & 0xff] ^ crc_tab[2][(hi >> 8) & 0xff] ^
              crc_tab[1][(hi >> 16) & 0xff] ^ crc_tab[0][hi >> 24];
        b += 8;
        n -= 8;
    }
    while (n-- > 0)
        crc = (crc >> 8) ^ crc_tab[0][(crc ^ *b++) & 0xff];
    return crc;
}

uint32_t
zipr_crc32_portable(uint32_t crc, const void *p, size_t n)
{
    pthread_once(&crc_once, crc_init);
    return ~crc_table_run(~crc, p, n);
}

uint32_t
zipr_crc32(uint32_t crc, const void *p, size_t n)
{
    const unsigned char *b = p;

    pthread_once(&crc_once, crc_init);
#ifdef ZIPR_HAVE_CLMUL
    if (crc_use_clmul && n >= ZIPR_CLMUL_MIN) {
        unsigned char last[16];
        size_t used = crc_clmul_fold(~crc, b, n, last);
        uint32_t s = crc_table_run(0, last, sizeof last);
        return ~crc_table_run(s, b + used, n - used);
    }
#endif
    return ~crc_table_run(~crc, b, n);
}

/* Is [off, off+n) inside [0, lim)? */
static int
in_range(uint64_t off, uint64_t n, uint64_t lim)
{
    uint64_t end;

    return mem_add_ok(off, n, &end) && end <= lim;
}

static const char *
name_problem(const uint8_t *s, size_t n)
{
    if (n == 0)
        return "empty name";
    if (n > ZIPR_MAX_NAME)
        return "name longer than 4096 bytes";
    if (s[0] == '/')
        return "absolute name";
    for (size_t i = 0; i < n; i++) {
        if (s[i] == 0)
            return "NUL byte in name";
        if (s[i] < 0x20 || s[i] == 0x7f)
            return "control character in name";
        if (s[i] == '\\')
            return "backslash in name";
        if (s[i] == '.' && i + 1 < n && s[i + 1] == '.' &&
            (i == 0 || s[i - 1] == '/') && (i + 2 == n || s[i + 2] == '/'))
            return "'..' in name";
    }
    return NULL;
}

static int
cmp_idx_name(const void *a, const void *b, void *ctx)
{
    const zipr_entry *e = ctx;
    return strcmp(e[*(const size_t *)a].name, e[*(const size_t *)b].name);
}

/* qsort_r is a GNU extension; a small bottom-up merge sort instead. */
static void
sort_idx(size_t *idx, size_t *tmp, size_t n, const zipr_entry *e,
         int (*cmp)(const void *, const void *, void *))
{
    size_t w, i, lo, mid, hi, a, b, k;

    for (w = 1; w < n; w *= 2) {
        for (lo = 0; lo < n; lo += 2 * w) {
            mid = lo + w < n ? lo + w : n;
            hi = lo + 2 * w < n ? lo + 2 * w : n;
            a = lo, b = mid, k = lo;
            while (a < mid && b < hi)
                tmp[k++] = cmp(&idx[b], &idx[a], (void *)e) < 0 ? idx[b++] : idx[a++];
            while (a < mid)
                tmp[k++] = idx[a++];
            while (b < hi)
                tmp[k++] = idx[b++];
        }
        for (i = 0; i < n; i++)
            idx[i] = tmp[i];
    }
}

/* [local header, data end) of one entry, for the overlap check. */
struct span { uint64_t start, end; size_t i; };

static int
cmp_span(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Where the central directory lies, as the end records say. */
struct zdir {
    uint64_t n_ent;     /* entries */
    uint64_t cd_ofs;    /* first byte */
    uint64_t cd_size;   /* bytes */
    uint64_t cd_end;    /* the directory ends before this (EOCD or EOCD64) */
};

/* One central-directory header as read, ZIP64 sizes applied. */
struct zcent {
    const uint8_t *c;   /* the header; its name follows at c + CENTRAL_HDR */
    uint16_t flags, method, nlen, elen, clen;
    uint32_t crc32;
    uint64_t usize, csize, lho;
    uint64_t end;       /* offset of the next header */
};

static int
zipr_nomem(const char *what, rwkv_err *err)
{
    return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory reading the zip directory", what);
}

/* 1. End of central directory: the last signature whose comment ends at EOF
** (LEN >= EOCD_LEN). */
static int
find_eocd(const uint8_t *p, uint64_t len, const char *what, uint64_t *eocd, rwkv_err *err)
{
    uint64_t scan_lo = len - EOCD_LEN > EOCD_SCAN ? len - EOCD_LEN - EOCD_SCAN : 0;

    for (uint64_t pos = len - EOCD_LEN + 1; pos-- > scan_lo;) {
        if (le_get32(p + pos) == SIG_EOCD && pos + EOCD_LEN + le_get16(p + pos + 20) == len) {
            *eocd = pos;
            return RWKV_OK;
        }
    }
    return rwkv_errf(err, RWKV_EFORMAT,
                     "%s: not a zip archive or truncated (no end-of-central-directory record)",
                     what);
}

/* 2. ZIP64: the locator before the EOCD at EOCD leads to the EOCD64 record,
** whose 64-bit fields win; the classic fields that are not saturated must
** agree with them. */
static int
read_eocd64(const uint8_t *p, uint64_t eocd, const char *what, struct zdir *d, rwkv_err *err)
{
    const uint8_t *e = p + eocd, *l = p + eocd - LOC64_LEN, *r;
    uint16_t n_tot = le_get16(e + 10);
    uint32_t size32 = le_get32(e + 12), ofs32 = le_get32(e + 16);
    uint64_t r_ofs = le_get64(l + 8);

    if (le_get32(l + 4) != 0 || le_get32(l + 16) > 1)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: multi-disk zip64 archive not supported", what);
    if (!in_range(r_ofs, EOCD64_LEN, eocd - LOC64_LEN))
        return rwkv_errf(err, RWKV_EFORMAT,
                         "%s: zip64 end record offset %llu outside the file", what,
                         (unsigned long long)r_ofs);
    r = p + r_ofs;
    if (le_get32(r) != SIG_EOCD64)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: zip64 end record has a bad signature", what);
    if (le_get32(r + 16) != 0 || le_get32(r + 20) != 0 || le_get64(r + 24) != le_get64(r + 32))
        return rwkv_errf(err, RWKV_EFORMAT, "%s: multi-disk zip64 archive not supported", what);
    if ((n_tot != 0xffffu && n_tot != le_get64(r + 32)) ||
        (size32 != 0xffffffffu && size32 != le_get64(r + 40)) ||
        (ofs32 != 0xffffffffu && ofs32 != le_get64(r + 48)))
        return rwkv_errf(err, RWKV_EFORMAT,
                         "%s: zip64 end record disagrees with the classic one", what);
    d->n_ent = le_get64(r + 32);
    d->cd_size = le_get64(r + 40);
    d->cd_ofs = le_get64(r + 48);
    d->cd_end = r_ofs;
    return RWKV_OK;
}

/* The central directory's place and entry count from the end records at
** EOCD, checked against the file and MAX_ENTRIES. */
static int
read_end_records(const uint8_t *p, uint64_t eocd, const char *what, uint64_t max_entries,
                 struct zdir *d, rwkv_err *err)
{
    const uint8_t *e = p + eocd;
    uint16_t disk = le_get16(e + 4), cd_disk = le_get16(e + 6);
    uint16_t n_disk = le_get16(e + 8), n_tot = le_get16(e + 10);
    int rc;

    d->n_ent = n_tot;
    d->cd_size = le_get32(e + 12);
    d->cd_ofs = le_get32(e + 16);
    d->cd_end = eocd;
    if (eocd >= LOC64_LEN && le_get32(p + eocd - LOC64_LEN) == SIG_LOC64) {
        rc = read_eocd64(p, eocd, what, d, err);
        if (rc != RWKV_OK)
            return rc;
    } else if (disk != 0 || cd_disk != 0 || n_disk != n_tot) {
        return rwkv_errf(err, RWKV_EFORMAT, "%s: multi-disk zip archive not supported", what);
    }
    if (!in_range(d->cd_ofs, d->cd_size, d->cd_end))
        return rwkv_errf(err, RWKV_EFORMAT,
                         "%s: central directory (offset %llu, %llu bytes) lies outside the file",
                         what, (unsigned long long)d->cd_ofs, (unsigned long long)d->cd_size);
    if (d->n_ent > max_entries)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: zip claims %llu entries, limit is %llu", what,
                         (unsigned long long)d->n_ent, (unsigned long long)max_entries);
    if (d->n_ent > d->cd_size / CENTRAL_HDR)
        return rwkv_errf(err, RWKV_EFORMAT,
                         "%s: zip claims %llu entries but the central directory holds at most %llu",
                         what, (unsigned long long)d->n_ent,
                         (unsigned long long)(d->cd_size / CENTRAL_HDR));
    return RWKV_OK;
}

/* The extra fields of CE (id u16, len u16, strictly inside elen).  The
** ZIP64 extended information (id 1) holds a u64 for each 32-bit field that
** is saturated, in the order usize, csize, local header offset. */
static int
read_extras(struct zcent *ce, const char *what, rwkv_err *err)
{
    const char *name = (const char *)(ce->c + CENTRAL_HDR);
    const uint8_t *x = ce->c + CENTRAL_HDR + ce->nlen;
    uint64_t ext_end = ce->elen;
    int nlen = ce->nlen, seen64 = 0;

    for (uint64_t k = 0; k < ext_end;) {
        uint16_t id, fl;
        if (k + 4 > ext_end)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: zip entry '%.*s': truncated extra field", what,
                             nlen, name);
        id = le_get16(x + k);
        fl = le_get16(x + k + 2);
        if (k + 4 + fl > ext_end)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: zip entry '%.*s': extra field overruns its header",
                             what, nlen, name);
        if (id == 0x0001) {
            const uint8_t *f = x + k + 4;
            uint64_t need = 0;
            if (seen64++)
                return rwkv_errf(err, RWKV_EFORMAT, "%s: zip entry '%.*s': duplicate zip64 extra field",
                                 what, nlen, name);
            need = 8u * ((ce->usize == 0xffffffffu) + (ce->csize == 0xffffffffu) +
                         (ce->lho == 0xffffffffu));
            if (fl < need)
                return rwkv_errf(err, RWKV_EFORMAT,
                                 "%s: zip entry '%.*s': zip64 extra field is missing sizes", what,
                                 nlen, name);
            if (ce->usize == 0xffffffffu)
                ce->usize = le_get64(f), f += 8;
            if (ce->csize == 0xffffffffu)
                ce->csize = le_get64(f), f += 8;
            if (ce->lho == 0xffffffffu)
                ce->lho = le_get64(f);
        }
        k += 4u + fl;
    }
    if (!seen64 && (ce->usize == 0xffffffffu || ce->csize == 0xffffffffu || ce->lho == 0xffffffffu))
        return rwkv_errf(err, RWKV_EFORMAT, "%s: zip entry '%.*s': zip64 extra field is missing", what,
                         nlen, name);
    return RWKV_OK;
}

/* The central header of entry I at POS into *CE: inside the directory D, a
** sane name, its extra fields read. */
static int
read_central(const uint8_t *p, uint64_t pos, uint64_t i, const struct zdir *d, const char *what,
             struct zcent *ce, rwkv_err *err)
{
    const uint8_t *c = p + pos;
    const char *prob;

    if (!in_range(pos, CENTRAL_HDR, d->cd_ofs + d->cd_size) || le_get32(c) != SIG_CENTRAL)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: central directory entry %llu is malformed", what,
                         (unsigned long long)i);
    ce->c = c;
    ce->flags = le_get16(c + 8);
    ce->method = le_get16(c + 10);
    ce->crc32 = le_get32(c + 16);
    ce->csize = le_get32(c + 20);
    ce->usize = le_get32(c + 24);
    ce->nlen = le_get16(c + 28);
    ce->elen = le_get16(c + 30);
    ce->clen = le_get16(c + 32);
    ce->lho = le_get32(c + 42);
    ce->end = pos + CENTRAL_HDR + (uint64_t)ce->nlen + ce->elen + ce->clen;
    if (ce->end > d->cd_ofs + d->cd_size)
        return rwkv_errf(err, RWKV_EFORMAT,
                         "%s: central directory entry %llu runs past the directory", what,
                         (unsigned long long)i);
    prob = name_problem(c + CENTRAL_HDR, ce->nlen);
    if (prob != NULL)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: zip entry %llu: %s", what, (unsigned long long)i,
                         prob);
    return read_extras(ce, what, err);
}

/* Only stored, unencrypted entries whose two sizes agree. */
static int
check_stored(const struct zcent *ce, const char *what, rwkv_err *err)
{
    const char *name = (const char *)(ce->c + CENTRAL_HDR);
    int nlen = ce->nlen;

    if (ce->method != 0)
        return rwkv_errf(err, RWKV_ENOTSUP,
                         "%s: zip entry '%.*s' is compressed (method %u); only stored entries are supported",
                         what, nlen, name, ce->method);
    if (ce->flags & 1u)
        return rwkv_errf(err, RWKV_ENOTSUP, "%s: zip entry '%.*s' is encrypted", what, nlen, name);
    if (ce->csize != ce->usize)
        return rwkv_errf(err, RWKV_EFORMAT,
                         "%s: zip entry '%.*s': stored entry has compressed size %llu != size %llu",
                         what, nlen, name, (unsigned long long)ce->csize,
                         (unsigned long long)ce->usize);
    return RWKV_OK;
}

/* The local header of CE: same name; *DATA = where the data starts (after
** its name and extra field), the data lying before the directory at CD_OFS. */
static int
read_local(const uint8_t *p, const struct zcent *ce, uint64_t cd_ofs, const char *what,
           uint64_t *data, rwkv_err *err)
{
    const char *name = (const char *)(ce->c + CENTRAL_HDR);
    int nlen = ce->nlen;
    const uint8_t *l;

    if (!in_range(ce->lho, LOCAL_HDR, cd_ofs) || le_get32(p + ce->lho) != SIG_LOCAL)
        return rwkv_errf(err, RWKV_EFORMAT,
                         "%s: zip entry '%.*s': local header at %llu is outside the file or malformed",
                         what, nlen, name, (unsigned long long)ce->lho);
    l = p + ce->lho;
    *data = ce->lho + LOCAL_HDR + (uint64_t)le_get16(l + 26) + le_get16(l + 28);
    if (le_get16(l + 26) != ce->nlen || *data > cd_ofs ||
        memcmp(l + LOCAL_HDR, ce->c + CENTRAL_HDR, ce->nlen) != 0)
        return rwkv_errf(err, RWKV_EFORMAT,
                         "%s: zip entry '%.*s': local header does not match the central directory",
                         what, nlen, name);
    if (!in_range(*data, ce->usize, cd_ofs))
        return rwkv_errf(err, RWKV_EFORMAT,
                         "%s: zip entry '%.*s': data (offset %llu, %llu bytes) runs past the central directory",
                         what, nlen, name, (unsigned long long)*data, (unsigned long long)ce->usize);
    return RWKV_OK;
}

/* 3. Walk the central directory D into Z->ents (names still pointing into
** the buffer) and SPANS; *NAMES_LEN = the bytes the names' copies need. */
static int
walk_directory(const uint8_t *p, const struct zdir *d, const char *what, zipr *z,
               struct span *spans, uint64_t *names_len, rwkv_err *err)
{
    uint64_t pos = d->cd_ofs;

    for (uint64_t i = 0; i < d->n_ent; i++) {
        struct zcent ce = {0};
        uint64_t data = 0;
        zipr_entry *ze = &z->ents[i];
        int rc = read_central(p, pos, i, d, what, &ce, err);

        if (rc == RWKV_OK)
            rc = check_stored(&ce, what, err);
        if (rc == RWKV_OK)
            rc = read_local(p, &ce, d->cd_ofs, what, &data, err);
        if (rc != RWKV_OK)
            return rc;
        ze->crc32 = ce.crc32;
        ze->name = (const char *)(ce.c + CENTRAL_HDR); /* fixed up to the copy later */
        ze->name_len = ce.nlen;
        ze->data_off = data;
        ze->size = ce.usize;
        *names_len += (uint64_t)ce.nlen + 1;
        pos = ce.end;
        spans[i].start = ce.lho;
        spans[i].end = data + ce.usize;
        spans[i].i = (size_t)i;
    }
    return RWKV_OK;
}

/* 4. No two entries' header+data ranges may overlap. */
static int
check_overlaps(const zipr *z, struct span *spans, const char *what, rwkv_err *err)
{
    if (z->n < 2)
        return RWKV_OK;
    qsort(spans, z->n, sizeof *spans, cmp_span);
    for (size_t i = 1; i < z->n; i++) {
        if (spans[i].start < spans[i - 1].end) {
            const zipr_entry *a = &z->ents[spans[i - 1].i], *b = &z->ents[spans[i].i];
            return rwkv_errf(err, RWKV_EFORMAT, "%s: zip entries '%.*s' and '%.*s' overlap", what,
                             (int)a->name_len, a->name, (int)b->name_len, b->name);
        }
    }
    return RWKV_OK;
}

/* 5. NUL-terminated copies of the names; sorted index; duplicates. */
static int
index_names(zipr *z, uint64_t names_len, const char *what, rwkv_err *err)
{
    size_t *tmp;
    char *w;
    int rc = RWKV_OK;

    z->names = malloc(names_len ? (size_t)names_len : 1);
    z->by_name = malloc((z->n ? z->n : 1) * sizeof *z->by_name);
    tmp = malloc((z->n ? z->n : 1) * sizeof *tmp);
    if (z->names == NULL || z->by_name == NULL || tmp == NULL) {
        free(tmp);
        return zipr_nomem(what, err);
    }
    w = z->names;
    for (size_t i = 0; i < z->n; i++) {
        memcpy(w, z->ents[i].name, z->ents[i].name_len);
        w[z->ents[i].name_len] = 0;
        z->ents[i].name = w;
        w += z->ents[i].name_len + 1;
        z->by_name[i] = i;
    }
    sort_idx(z->by_name, tmp, z->n, z->ents, cmp_idx_name);
    free(tmp);
    for (size_t i = 1; i < z->n && rc == RWKV_OK; i++) {
        if (strcmp(z->ents[z->by_name[i]].name, z->ents[z->by_name[i - 1]].name) == 0)
            rc = rwkv_errf(err, RWKV_EFORMAT, "%s: duplicate zip entry '%s'", what,
                           z->ents[z->by_name[i]].name);
    }
    return rc;
}

int
zipr_open(const void *buf, uint64_t len, const char *what, uint64_t max_entries,
          zipr **out, rwkv_err *err)
{
    const uint8_t *p = buf;
    uint64_t eocd = 0, names_len = 0;
    struct zdir d = {0};
    rwkv_err scratch;
    zipr *z;
    struct span *spans;
    int rc;

    *out = NULL;
    if (err == NULL)
        err = &scratch;
    if (max_entries == 0)
        max_entries = ZIPR_MAX_ENTRIES;
    if (len < EOCD_LEN)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: not a zip archive (%llu bytes, too short)",
                         what, (unsigned long long)len);
    rc = find_eocd(p, len, what, &eocd, err);
    if (rc == RWKV_OK)
        rc = read_end_records(p, eocd, what, max_entries, &d, err);
    if (rc != RWKV_OK)
        return rc;

    z = calloc(1, sizeof *z);
    spans = calloc(d.n_ent ? (size_t)d.n_ent : 1, sizeof *spans);
    if (z != NULL)
        z->ents = calloc(d.n_ent ? (size_t)d.n_ent : 1, sizeof *z->ents);
    if (z == NULL || z->ents == NULL || spans == NULL)
        rc = zipr_nomem(what, err);
    if (rc == RWKV_OK)
        rc = walk_directory(p, &d, what, z, spans, &names_len, err);
    if (rc == RWKV_OK) {
        z->n = (size_t)d.n_ent;
        rc = check_overlaps(z, spans, what, err);
    }
    if (rc == RWKV_OK)
        rc = index_names(z, names_len, what, err);
    free(spans);
    if (rc != RWKV_OK) {
        zipr_close(z);
        return rc;
    }
    *out = z;
    return RWKV_OK;
}

void
zipr_close(zipr *z)
{
    if (z == NULL)
        return;
    free(z->ents);
    free(z->by_name);
    free(z->names);
    free(z);
}

size_t
zipr_count(const zipr *z)
{
    return z->n;
}

const zipr_entry *
zipr_at(const zipr *z, size_t i)
{
    return i < z->n ? &z->ents[i] : NULL;
}

const zipr_entry *
zipr_find(const zipr *z, const char *name)
{
    size_t lo = 0, hi = z->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(name, z->ents[z->by_name[mid]].name);
        if (c == 0)
            return &z->ents[z->by_name[mid]];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}
