/*
** wcache.c -- the cache of prepared weights.  See wcache.h for what, where
** and why.
**
** File layout (native byte order, marked; every number checked on read):
**
**   0            struct wc_header  (magic, versions, key, layout, checksums)
**   header_bytes index: n_entries struct wc_entry, then n_chunks uint64
**                checksums, one per WC_CHUNK bytes of the data region
**   data_off     data region (page-aligned start): each entry's data and
**                Q8 scales at WC_ALIGN-aligned offsets, zero padding between;
**                the file ends exactly at data_off + data_bytes
**
** Life of a handle:
**
**   wc_open ----> mapped (valid cache) --wc_get/wc_put--> wc_finish
**        \------> nothing mapped      --wc_put---------> wc_finish
**                                                           |
**   "hit": every wc_get found its entry and none missed;    |
**   otherwise, when something was converted, wc_write() writes a new file
**   from the recorded buffers: "written" (or "none" if it could not).
*/
#define _GNU_SOURCE   /* O_TMPFILE, syscall() */
#include "wcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../env.h"
#include "../io/ckpt_verify.h"
#include "../io/fileio.h"
#include "../mem.h"

#define WC_MAGIC "RWKVWC\r\n"
/* Bump when the file layout changes. */
#define WC_FORMAT_VERSION 2
/* Written as a uint32: reads back differently on a machine of the other
** byte order. */
#define WC_ENDIAN 0x01020304u
/* Alignment of every entry in the file (one cache line / AVX-512 vector);
** the mapping is page-aligned, so pointers into it are too. */
#define WC_ALIGN 64
/* Start of the data region. */
#define WC_PAGE 4096
/* Bytes per data checksum: small enough to split the verification evenly
** over threads, large enough that the table stays small (16 KiB for 2 GiB). */
#define WC_CHUNK ((uint64_t)1 << 20)
/* Longest tensor name kept (longer names are simply not cached). */
#define WC_NAME_MAX 96
/* Entries accepted: far above real models (4096 layers x ~40 matrices). */
#define WC_MAX_ENTRIES (1u << 20)
/* Largest matrix dimension accepted (model.c's bound on input). */
#define WC_MAX_DIM ((int64_t)1 << 24)
/* Auto mode writes a cache only when at least this many bytes of matrices
** were converted to Q8 or 16 bits: below it, converting takes less than
** opening a cache, and small models (like the test fixtures) leave no files
** around.  Widening to fp32 does not count: the cache would be larger than
** the checkpoint (5.5 GB for a bf16 1.5B model) to save a memory-bound copy. */
#define WC_AUTO_MIN_BYTES ((uint64_t)32 << 20)
/* Free space a written cache must leave on its file system. */
#define WC_SPACE_MARGIN ((uint64_t)256 << 20)
/* Nice value of the writer thread (Linux: per thread). */
#define WC_WRITER_NICE 10
/* Largest single write(2) on Linux. */
#define WC_IO_MAX ((size_t)1 << 30)

struct wc_header {
    char     magic[8];
    uint32_t endian, version, prep_version, q8_block;
    uint32_t header_bytes, entry_bytes, n_entries, chunk_bytes;
    uint64_t n_chunks;
    /* the key: checkpoint identity and plan */
    uint64_t ck_size;
    int64_t  ck_mtime_s, ck_mtime_ns;
    uint64_t fingerprint;
    uint64_t prep_probe;    /* wc_probe(): what the conversions produce */
    uint64_t plan_hash, n_plan;
    char     kernels[32];
    /* layout */
    uint64_t index_off, index_bytes, data_off, data_bytes;
    uint64_t index_sum;     /* wc_checksum of the index */
    /* the checkpoint's identity, checked after the rest (wc_valid) */
    uint64_t ck_ino;
    int64_t  ck_ctime_s, ck_ctime_ns;
    uint64_t crc_digest;    /* ckpt_crc_digest(): 0 = no checksums */
    uint64_t header_sum;    /* wc_checksum of every byte before this field */
};

struct wc_entry {
    char     name[WC_NAME_MAX];    /* NUL-terminated */
    uint32_t tag, dtype;           /* enum wc_tag, enum kern_dtype */
    int64_t  rows, cols;
    uint64_t data_off, data_bytes; /* absolute in the file */
    uint64_t scales_off, scales_bytes;   /* KERN_Q8 only, else 0 */
};

_Static_assert(sizeof(struct wc_header) == 216, "wc_header has no padding");
_Static_assert(sizeof(struct wc_entry) == 152, "wc_entry has no padding");

/* A buffer prepared by this load, to be written. */
struct wc_rec {
    struct wc_entry e;             /* offsets relative to the data region */
    const void     *data;
    const float    *scales;
};

enum wc_state { WC_S_NONE, WC_S_HIT, WC_S_WRITING, WC_S_WRITTEN };

struct wc_cache {
    int                    mode;
    struct wc_header       key;        /* the key fields of a valid header */
    char                   path[PATH_MAX];   /* read or to be written */
    char                   wpath[PATH_MAX];  /* where a new cache goes ("" = nowhere) */
    int                    own_dir;    /* wpath's folder is the user's (env_dir_check):
                                        * only it is made, nothing above it */
    enum wc_state          state;
    const unsigned char   *map;        /* a valid cache mapped read-only, or NULL */
    uint64_t               map_size;
    const struct wc_entry *ents;
    uint32_t               n_ents;
    unsigned char         *used;       /* [n_ents] */
    uint32_t               cursor;
    size_t                 n_hit, n_miss;
    struct wc_rec         *recs;
    size_t                 n_recs, cap_recs;
    int                    rec_failed;
    uint64_t               converted;  /* bytes of converted matrices */
    uint64_t               narrowed;   /* of those, to Q8 or 16 bits */
    pthread_t              writer;     /* the background writer, while writing */
    int                    writing;    /* writer started, not joined */
    int                    write_rc;   /* its result (read after the join) */
    const ckpt            *ck;         /* wc_key.ck (borrowed; used by wc_open,
                                        * forgotten by wc_finish) */
    int                    rekey;      /* the mapped cache was made for another
                                        * file identity: rewrite it */
    int                    read_in;    /* map is a copy in anonymous memory
                                        * (wc_read_huge), not the file's pages */
    char                   why[PATH_MAX + 96];   /* why no cache is written
                                        * (wc_room), "" = none said */
};

/* ---- checksum ---- */

#define WC_K1 0x9e3779b97f4a7c15ULL
#define WC_K2 0xbf58476d1ce4e5b9ULL
#define WC_K3 0x94d049bb133111ebULL

static inline uint64_t
wc_rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static inline uint64_t
wc_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * WC_K2;
    z = (z ^ (z >> 27)) * WC_K3;
    return z ^ (z >> 31);
}

/* One lane step: a bijection of A for a fixed word W and of W for a fixed
** A, so a change confined to one word can never cancel out. */
static inline uint64_t
wc_step(uint64_t a, uint64_t w)
{
    return wc_rotl(a ^ (w * WC_K1), 29) * WC_K2;
}

/*
** Four independent lanes over 32-byte blocks (instruction-level parallelism:
** several GB/s per core), the tail word by word in lane 0 (zero-padded; the
** length is mixed in), lanes folded through a bijective mixer.
*/
uint64_t
wc_checksum(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t a0 = WC_K1, a1 = WC_K2, a2 = WC_K3, a3 = WC_K1 ^ WC_K3, h;
    size_t i = 0;

    for (; i + 32 <= n; i += 32) {
        uint64_t w[4];
        memcpy(w, b + i, sizeof w);
        a0 = wc_step(a0, w[0]);
        a1 = wc_step(a1, w[1]);
        a2 = wc_step(a2, w[2]);
        a3 = wc_step(a3, w[3]);
    }
    for (; i < n; i += 8) {
        uint64_t w = 0;
        memcpy(&w, b + i, n - i < 8 ? n - i : 8);
        a0 = wc_step(a0, w);
    }
    h = wc_mix((uint64_t)n ^ WC_K3);
    h = wc_mix(h ^ a0);
    h = wc_mix(h ^ a1);
    h = wc_mix(h ^ a2);
    return wc_mix(h ^ a3);
}

/* ---- helpers ---- */

static uint64_t
wc_align(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

/* Bytes of an entry's data and scales for its dtype and shape (0: invalid). */
static int
wc_sizes(uint32_t dt, int64_t rows, int64_t cols, uint64_t *data, uint64_t *scales)
{
    if (rows <= 0 || cols <= 0 || rows > WC_MAX_DIM || cols > WC_MAX_DIM)
        return 0;
    if (dt != KERN_F32 && dt != KERN_BF16 && dt != KERN_F16 && dt != KERN_Q8 && dt != KERN_Q4)
        return 0;
    /* rows, cols < 2^24: no overflow below */
    *data = kern_data_bytes((enum kern_dtype)dt, rows, cols);
    *scales = kern_scale_bytes((enum kern_dtype)dt, rows, cols);
    return 1;
}

/* Is DIR a directory we may write into?  Its mode bits count as well as
** access(2), so a directory marked read-only stays clean even for root. */
static int
wc_dir_writable(const char *dir)
{
    struct stat st;

    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0222) != 0 &&
           access(dir, W_OK | X_OK) == 0;
}

/* mkdir -p DIR (mode 0700 for what it creates).  0 when DIR exists after. */
static int
wc_mkdirs(const char *dir)
{
    char buf[PATH_MAX];
    size_t n = strlen(dir);

    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        buf[i] = '\0';
        if (mkdir(buf, 0700) != 0 && errno != EEXIST)
            return -1;
        buf[i] = i < n ? '/' : '\0';
    }
    return wc_dir_writable(dir) ? 0 : -1;
}

/* The per-user cache directory into BUF, or -1. */
static int
wc_xdg_dir(char *buf, size_t cap)
{
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;

    if (x != NULL && x[0] == '/')
        n = snprintf(buf, cap, "%s/rwkv-tui/weights", x);
    else if (home != NULL && home[0] != '\0')
        n = snprintf(buf, cap, "%s/.cache/rwkv-tui/weights", home);
    else
        return -1;
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* "DIR/<base>.<path hash>.<plan hash>.rwkvc" for the model at PATH. */
static int
wc_name_in(char *buf, size_t cap, const char *dir, const char *path, uint32_t plan_hash)
{
    char *rp = realpath(path, NULL);
    const char *id = rp ? rp : path, *base = strrchr(path, '/');
    uint32_t ph = (uint32_t)wc_checksum(id, strlen(id));
    int n;

    base = base ? base + 1 : path;
    n = snprintf(buf, cap, "%s/%s.%08x.%08x.rwkvc", dir, base, ph, plan_hash);
    free(rp);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* ---- the preparation probe ---- */

/* Probe matrix: rows x cols (cols not a multiple of the Q8 block, so the
** tail path runs too). */
#define WC_PROBE_ROWS 8
#define WC_PROBE_COLS 100

/*
** Run the conversions model.c prepares weights with (bf16/f16 widening,
** narrowing to bf16/f16, kern_q8_quantize) on a fixed pseudo-random matrix
** and hash what they produce: if anyone changes a rounding or the
** quantization scheme, the probe changes and every older cache is stale
** without anyone remembering to bump WC_PREP_VERSION.  Microseconds.
*/
static uint64_t
wc_probe(const simd_kernels *k)
{
    enum { N = WC_PROBE_ROWS * WC_PROBE_COLS };
    float src[N], back[N], scales[WC_PROBE_ROWS * ((WC_PROBE_COLS + SIMD_Q8_BLOCK - 1) / SIMD_Q8_BLOCK)];
    uint16_t h16[N], b16[N];
    int8_t q[N];
    uint64_t z = WC_K1, sum;

    if (k == NULL)
        k = kern_default_kernels();
    for (int i = 0; i < N; i++) {
        /* values over many magnitudes, some exact zeros and ties */
        z = wc_mix(z + WC_K1);
        src[i] = (i % 17 == 0) ? 0.0f
               : (float)((double)(int64_t)(z >> 11) / (double)((uint64_t)1 << 52)) *
                 (float)(1u << (z % 12)) / 64.0f;
    }
    simd_f32_to_bf16(k, src, b16, N);
    simd_f32_to_f16(k, src, h16, N);
    kern_q8_quantize(src, WC_PROBE_COLS, 0, WC_PROBE_ROWS, q, scales);
    sum = wc_checksum(b16, sizeof b16) ^ wc_rotl(wc_checksum(h16, sizeof h16), 13) ^
          wc_rotl(wc_checksum(q, sizeof q), 26) ^ wc_rotl(wc_checksum(scales, sizeof scales), 39);
    simd_bf16_to_f32(k, b16, back, N);
    sum = wc_mix(sum ^ wc_checksum(back, sizeof back));
    simd_f16_to_f32(k, h16, back, N);
    return wc_mix(sum ^ wc_checksum(back, sizeof back));
}

/*
** The probe's part for Q4 (simd_q4_quantize on the same kind of matrix),
** joined to the key only by plans with Q4 slots: a change of the 4-bit
** scheme makes every i4 cache stale and leaves the others valid.  Its rows
** hold a whole group of 8 blocks and a shorter last one (WC_PROBE_Q4_COLS),
** so a change of either group's layout changes it too.
*/
#define WC_PROBE_Q4_COLS 300

static uint64_t
wc_probe_q4(void)
{
    enum { N = WC_PROBE_ROWS * WC_PROBE_Q4_COLS,
           NB = (WC_PROBE_Q4_COLS + SIMD_Q4_BLOCK - 1) / SIMD_Q4_BLOCK };
    float src[N];
    uint8_t q[WC_PROBE_ROWS * NB * SIMD_Q4_BLOCK_BYTES];
    uint64_t z = WC_K1 ^ 4;

    for (int i = 0; i < N; i++) {
        z = wc_mix(z + WC_K1);
        src[i] = (i % 13 == 0) ? 0.0f
               : (float)((double)(int64_t)(z >> 11) / (double)((uint64_t)1 << 52)) *
                 (float)(1u << (z % 12)) / 64.0f;
    }
    simd_q4_quantize(src, WC_PROBE_Q4_COLS, 0, WC_PROBE_ROWS, q);
    return wc_mix(wc_checksum(q, sizeof q));
}

/* Whether PLAN (wc_key: a slot's dtype, 0x80 set when its LoRA factors
** are bf16) has a Q4 slot.  (Until 2026-12-06 the plan was searched for the
** bare KERN_Q4 byte, which a v7 layer's flagged byte never is: the 4-bit
** probe joined no 1.5B plan's key.) */
int
wc_plan_has_q4(const uint8_t *plan, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((plan[i] & 0x7f) == KERN_Q4)
            return 1;
    return 0;
}

/* ---- reading ---- */

struct wc_verify {
    const unsigned char *data;
    const uint64_t      *sums;
    uint64_t             n_chunks, bytes;
    int                  bad;
};

static void
wc_verify_chunks(void *ctx, int i, int n)
{
    struct wc_verify *v = ctx;
    uint64_t c0 = v->n_chunks * (uint64_t)i / (uint64_t)n;
    uint64_t c1 = v->n_chunks * (uint64_t)(i + 1) / (uint64_t)n;

    for (uint64_t c = c0; c < c1 && !__atomic_load_n(&v->bad, __ATOMIC_RELAXED); c++) {
        uint64_t off = c * WC_CHUNK, len = v->bytes - off < WC_CHUNK ? v->bytes - off : WC_CHUNK;
        if (wc_checksum(v->data + off, (size_t)len) != v->sums[c])
            __atomic_store_n(&v->bad, 1, __ATOMIC_RELAXED);
    }
}

/*
** Is the mapped file M a complete, uncorrupted cache for C->key?  0: no;
** 1: yes; 2: yes, but made for another file identity (inode/ctime) and
** vouched for by the checkpoint's CRC-32s (ckpt_verify), so to be rewritten
** with this identity.
*/
static int
wc_valid(const wc_cache *c, const unsigned char *base, uint64_t size, tpool *pool)
{
    int ident = 1;
    uint64_t want_index, x;
    struct wc_header h;
    const struct wc_entry *ents;
    struct wc_verify v;

    if (size < sizeof h)
        return 0;
    memcpy(&h, base, sizeof h);
    if (memcmp(h.magic, WC_MAGIC, sizeof h.magic) != 0 || h.endian != WC_ENDIAN ||
        h.version != WC_FORMAT_VERSION || h.header_bytes != sizeof h ||
        h.entry_bytes != sizeof(struct wc_entry) || h.chunk_bytes != WC_CHUNK ||
        h.header_sum != wc_checksum(&h, offsetof(struct wc_header, header_sum)))
        return 0;
    /* the key */
    if (h.prep_version != c->key.prep_version || h.q8_block != c->key.q8_block ||
        h.ck_size != c->key.ck_size || h.ck_mtime_s != c->key.ck_mtime_s ||
        h.ck_mtime_ns != c->key.ck_mtime_ns || h.fingerprint != c->key.fingerprint ||
        h.prep_probe != c->key.prep_probe || h.crc_digest != c->key.crc_digest ||
        h.plan_hash != c->key.plan_hash || h.n_plan != c->key.n_plan ||
        memcmp(h.kernels, c->key.kernels, sizeof h.kernels) != 0)
        return 0;
    /* the layout, against the file size */
    if (h.n_entries == 0 || h.n_entries > WC_MAX_ENTRIES || h.index_off != sizeof h ||
        h.n_chunks != (h.data_bytes + WC_CHUNK - 1) / WC_CHUNK || h.data_bytes == 0 ||
        h.data_bytes % WC_ALIGN != 0)
        return 0;
    want_index = (uint64_t)h.n_entries * sizeof(struct wc_entry) + h.n_chunks * sizeof(uint64_t);
    if (h.index_bytes != want_index || h.data_off != wc_align(h.index_off + want_index, WC_PAGE) ||
        !mem_add_ok(h.data_off, h.data_bytes, &x) || x != size)
        return 0;
    if (h.index_sum != wc_checksum(base + h.index_off, (size_t)h.index_bytes))
        return 0;
    /* every entry inside the data region, aligned, of its shape's size */
    ents = (const struct wc_entry *)(const void *)(base + h.index_off);
    for (uint32_t i = 0; i < h.n_entries; i++) {
        const struct wc_entry *e = &ents[i];
        uint64_t db, sb, end;
        if (memchr(e->name, '\0', sizeof e->name) == NULL || e->name[0] == '\0' ||
            e->tag < WC_MAT || e->tag > WC_EMB ||
            !wc_sizes(e->dtype, e->rows, e->cols, &db, &sb) ||
            e->data_bytes != db || e->scales_bytes != sb)
            return 0;
        if (e->data_off < h.data_off || e->data_off % WC_ALIGN != 0 ||
            !mem_add_ok(e->data_off, db, &end) || end > size)
            return 0;
        if (sb != 0 && (e->scales_off < h.data_off || e->scales_off % WC_ALIGN != 0 ||
                        !mem_add_ok(e->scales_off, sb, &end) || end > size))
            return 0;
    }
    /* the data itself */
    memset(&v, 0, sizeof v);
    v.data = base + h.data_off;
    v.sums = (const uint64_t *)(const void *)(base + h.index_off +
                                              (uint64_t)h.n_entries * sizeof(struct wc_entry));
    v.n_chunks = h.n_chunks;
    v.bytes = h.data_bytes;
    tpool_run(pool, wc_verify_chunks, &v);
    if (v.bad)
        return 0;
    /* The file's identity (last: the checkpoint is larger than its cache).
     * Inode and ctime cannot be set back by a user.  When they differ,
     * size, mtime and the sampled fingerprint prove nothing about the bytes
     * the fingerprint does not sample: only the checkpoint's own CRC-32s,
     * checked in full, can vouch for them. */
    if (h.ck_ino != c->key.ck_ino || h.ck_ctime_s != c->key.ck_ctime_s ||
        h.ck_ctime_ns != c->key.ck_ctime_ns) {
        if (c->ck == NULL || c->key.crc_digest == 0 || ckpt_verify(c->ck, pool, NULL) != RWKV_OK)
            return 0;
        ident = 2;
    }
    return ident;
}

/* ---- the cache read into huge pages ---- */

/*
** A valid cache is read into anonymous memory advised MADV_HUGEPAGE, as a
** first launch holds it: touched first (a huge page per fault), then read,
** both split over the thread pool -- when the file is at most half the memory
** available and RWKV_WEIGHT_CACHE_LOAD is not "map" (mem_want_copy).  Else it
** is mapped (MAP_PRIVATE): shared with every other program on the model
** through the page cache, but in 4 KiB pages (a file mapping gets no huge
** pages without the kernel's READ_ONLY_THP_FOR_FS), which on the Zen 5 VM
** cost decode and two threads' prefill (mem.h; the history: bench/README.md).
** The copy is not shared between two programs on one model.  Any failure
** maps the file as before.
*/
#define WC_HUGE ((size_t)MEM_HUGE_PAGE)

/* Read the cache (1, the default), or map it (0): RWKV_WEIGHT_CACHE_LOAD (above). */
static int
wc_want_copy(uint64_t size)
{
    return mem_want_copy("RWKV_WEIGHT_CACHE_LOAD", size);
}

struct wc_fill {
    int           fd;
    unsigned char *dst;
    uint64_t      size;
    int           bad;
};

/* Job I of N of wc_fill: its share of the file, in whole huge pages. */
static void
wc_fill_part(void *ctx, int i, int n)
{
    struct wc_fill *f = ctx;
    uint64_t off, end;

    mem_huge_part(f->size, i, n, &off, &end);
    if (off >= end)
        return;
    mem_touch(f->dst + off, end - off);
    if (rwkv_pread_full(f->fd, f->dst + off, end - off, off, &f->bad) != 0)
        __atomic_store_n(&f->bad, 1, __ATOMIC_RELAXED);
}

/* FD's SIZE bytes in read-only anonymous memory, in huge pages where the
** kernel gives them (unmapped with munmap(p, size), as the mapping is);
** NULL: not read. */
static void *
wc_read_huge(int fd, uint64_t size, tpool *pool)
{
    size_t len = (size_t)((size + WC_HUGE - 1) / WC_HUGE * WC_HUGE), lead;
    size_t used = (size_t)((size + WC_PAGE - 1) / WC_PAGE * WC_PAGE);
    unsigned char *raw, *p;
    struct wc_fill f;

    if (size > SIZE_MAX - 2 * WC_HUGE)
        return NULL;
    raw = mmap(NULL, len + WC_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    /* aligned to a huge page, the slack around it given back */
    lead = (size_t)(-(uintptr_t)raw & (WC_HUGE - 1));
    p = raw + lead;
    if (lead > 0)
        munmap(raw, lead);
    if (WC_HUGE - lead > 0)
        munmap(p + len, WC_HUGE - lead);
    mem_advise_huge(p, len);
    f.fd = fd;
    f.dst = p;
    f.size = size;
    f.bad = 0;
    tpool_run(pool, wc_fill_part, &f);
    if (f.bad || mprotect(p, len, PROT_READ) != 0) {
        munmap(p, len);
        return NULL;
    }
    if (len > used)
        munmap(p + used, len - used);  /* past the file's last page */
    return p;
}

/* Map PATH (or read it: wc_want_copy) and keep it if it is a valid cache. */
static int
wc_try(wc_cache *c, const char *path, tpool *pool)
{
    struct wc_header h;
    struct stat st;
    void *p = NULL;
    int fd, valid;

    /* O_NONBLOCK: a FIFO planted in the cache's place must not block the
     * open; anything but a regular file is then refused */
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof h ||
        (uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
        close(fd);
        return 0;
    }
    if (wc_want_copy((uint64_t)st.st_size))
        p = wc_read_huge(fd, (uint64_t)st.st_size, pool);
    c->read_in = p != NULL;
    if (p == NULL)
        p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return 0;
    if ((valid = wc_valid(c, p, (uint64_t)st.st_size, pool)) == 0) {
        munmap(p, (size_t)st.st_size);
        return 0;
    }
    c->rekey = valid == 2;
    memcpy(&h, p, sizeof h);
    c->used = calloc(h.n_entries, 1);
    if (c->used == NULL) {
        munmap(p, (size_t)st.st_size);
        return 0;
    }
    c->map = p;
    c->map_size = (uint64_t)st.st_size;
    c->ents = (const struct wc_entry *)(const void *)(c->map + h.index_off);
    c->n_ents = h.n_entries;
    snprintf(c->path, sizeof c->path, "%s", path);
    return 1;
}

/* "0"/"off"/"no"/"false" -> WC_OFF, "1"/"on"/"yes"/"true" -> WC_ON, else auto
** (env.h's words). */
static int
wc_env_mode(void)
{
    int w = env_word("RWKV_WEIGHT_CACHE", env_cache_words);   /* (another word: env_notes) */

    return w >= 0 && w < 4 ? WC_OFF : w >= 4 && w < 8 ? WC_ON : WC_AUTO;
}

int
wc_open(const wc_key *key, int mode, const char *dir, tpool *pool, wc_cache **out,
        rwkv_err *err)
{
    wc_cache *c;
    struct stat st;
    uint64_t ph;
    char mdir[PATH_MAX], xdg[PATH_MAX], cand[PATH_MAX];

    *out = NULL;
    if (mode == WC_AUTO)
        mode = wc_env_mode();
    if (mode == WC_OFF || key->model_path == NULL || stat(key->model_path, &st) != 0)
        return RWKV_OK;
    if ((c = calloc(1, sizeof *c)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    c->mode = mode;
    memcpy(c->key.magic, WC_MAGIC, sizeof c->key.magic);
    c->key.endian = WC_ENDIAN;
    c->key.version = WC_FORMAT_VERSION;
    c->key.prep_version = WC_PREP_VERSION;
    c->key.q8_block = SIMD_Q8_BLOCK;
    c->key.header_bytes = sizeof(struct wc_header);
    c->key.entry_bytes = sizeof(struct wc_entry);
    c->key.chunk_bytes = WC_CHUNK;
    c->key.ck_size = (uint64_t)st.st_size;
    c->key.ck_mtime_s = (int64_t)st.st_mtim.tv_sec;
    c->key.ck_mtime_ns = (int64_t)st.st_mtim.tv_nsec;
    c->key.fingerprint = key->fingerprint;
    c->key.ck_ino = (uint64_t)st.st_ino;
    c->key.ck_ctime_s = (int64_t)st.st_ctim.tv_sec;
    c->key.ck_ctime_ns = (int64_t)st.st_ctim.tv_nsec;
    c->key.crc_digest = ckpt_crc_digest(key->ck);
    c->ck = key->ck;
    c->key.prep_probe = wc_probe(key->k);
    if (wc_plan_has_q4(key->plan, key->n_plan))
        c->key.prep_probe ^= wc_probe_q4();
    c->key.plan_hash = wc_checksum(key->plan, key->n_plan);
    c->key.n_plan = key->n_plan;
    snprintf(c->key.kernels, sizeof c->key.kernels, "%s", key->kernels ? key->kernels : "");
    /* the file name's plan hash: everything that makes the bytes differ */
    {
        uint64_t parts[5] = { c->key.plan_hash, c->key.n_plan, WC_FORMAT_VERSION,
                              WC_PREP_VERSION, SIMD_Q8_BLOCK };
        ph = wc_checksum(parts, sizeof parts) ^ wc_checksum(c->key.kernels, strlen(c->key.kernels));
    }

    if (dir == NULL || *dir == '\0')
        dir = getenv("RWKV_WEIGHT_CACHE_DIR");
    if (dir != NULL && *dir != '\0') {
        char why[512];
        if (env_dir_check(dir, why, sizeof why) != 0) {
            /* a typo makes no folders: no cache (said once by env_notes) */
            free(c);
            return RWKV_OK;
        }
        c->own_dir = 1;
        if (wc_name_in(cand, sizeof cand, dir, key->model_path, (uint32_t)ph) == 0) {
            (void)wc_try(c, cand, pool);
            snprintf(c->wpath, sizeof c->wpath, "%s", cand);   /* made when written */
        }
        *out = c;
        return RWKV_OK;
    }
    /* next to the model */
    rwkv_path_dir(key->model_path, mdir, sizeof mdir);
    if (snprintf(cand, sizeof cand, "%s.%08x.rwkvc", key->model_path, (uint32_t)ph) <
        (int)sizeof cand) {
        if (wc_try(c, cand, pool) || wc_dir_writable(mdir)) {
            snprintf(c->wpath, sizeof c->wpath, "%s", cand);
            *out = c;
            return RWKV_OK;
        }
    }
    /* the per-user cache directory */
    if (wc_xdg_dir(xdg, sizeof xdg) == 0 &&
        wc_name_in(cand, sizeof cand, xdg, key->model_path, (uint32_t)ph) == 0) {
        (void)wc_try(c, cand, pool);
        snprintf(c->wpath, sizeof c->wpath, "%s", cand);   /* made when written */
    }
    *out = c;
    return RWKV_OK;
}

/* Record entry E (relative offsets filled by wc_write) with its buffers. */
static void
wc_record(wc_cache *c, const struct wc_entry *e, const void *data, const float *scales)
{
    if (c->rec_failed)
        return;
    if (c->n_recs == c->cap_recs) {
        size_t cap = c->cap_recs ? 2 * c->cap_recs : 256;
        struct wc_rec *r = realloc(c->recs, cap * sizeof *r);
        if (r == NULL) {
            c->rec_failed = 1;
            return;
        }
        c->recs = r;
        c->cap_recs = cap;
    }
    c->recs[c->n_recs].e = *e;
    c->recs[c->n_recs].data = data;
    c->recs[c->n_recs].scales = scales;
    c->n_recs++;
}

static int
wc_fill(struct wc_entry *e, const char *name, enum wc_tag tag, enum kern_dtype dt,
        int64_t rows, int64_t cols)
{
    size_t n = strlen(name);

    if (n == 0 || n >= sizeof e->name)
        return 0;
    memset(e, 0, sizeof *e);
    memcpy(e->name, name, n);
    e->tag = (uint32_t)tag;
    e->dtype = (uint32_t)dt;
    e->rows = rows;
    e->cols = cols;
    return wc_sizes(e->dtype, rows, cols, &e->data_bytes, &e->scales_bytes);
}

int
wc_get(wc_cache *c, const char *name, enum wc_tag tag, enum kern_dtype dt, int64_t rows,
       int64_t cols, const void **data, const float **scales)
{
    struct wc_entry want;
    const char *base;

    if (c == NULL || c->map == NULL || c->n_miss > 0)
        return 0;   /* after a miss the cache is stale: it gets rewritten */
    if (!wc_fill(&want, name, tag, dt, rows, cols)) {
        c->n_miss++;
        return 0;
    }
    base = (const char *)c->map;
    /* entries come in the order they were recorded: start at the cursor (a
     * valid cache hits at once; one full scan at most, then a miss stops
     * all lookups) */
    for (uint32_t k = 0; k < c->n_ents; k++) {
        uint32_t i = (c->cursor + k) % c->n_ents;
        const struct wc_entry *e = &c->ents[i];
        if (c->used[i] || e->tag != want.tag || e->dtype != want.dtype || e->rows != rows ||
            e->cols != cols || strcmp(e->name, want.name) != 0)
            continue;
        c->used[i] = 1;
        c->cursor = i + 1 < c->n_ents ? i + 1 : 0;
        c->n_hit++;
        if (tag == WC_MAT) {   /* a conversion, done by an earlier load */
            c->converted += e->data_bytes + e->scales_bytes;
            if (dt != KERN_F32)
                c->narrowed += e->data_bytes + e->scales_bytes;
        }
        *data = base + e->data_off;
        if (scales != NULL)
            *scales = e->scales_bytes ? (const float *)(const void *)(base + e->scales_off) : NULL;
        /* kept in the record in case a rewrite is needed */
        wc_record(c, &want, *data, e->scales_bytes ? (const float *)(const void *)(base + e->scales_off)
                                                   : NULL);
        return 1;
    }
    c->n_miss++;
    return 0;
}

void
wc_put(wc_cache *c, const char *name, enum wc_tag tag, enum kern_dtype dt, int64_t rows,
       int64_t cols, const void *data, const float *scales, int converted)
{
    struct wc_entry e;

    if (c == NULL)
        return;
    if (!wc_fill(&e, name, tag, dt, rows, cols) || data == NULL ||
        (dt == KERN_Q8 && scales == NULL)) {
        c->rec_failed = 1;   /* a cache without it would miss on every load */
        return;
    }
    if (converted) {
        c->converted += e.data_bytes + e.scales_bytes;
        if (dt != KERN_F32)
            c->narrowed += e.data_bytes + e.scales_bytes;
    }
    wc_record(c, &e, data, scales);
}

/* ---- writing ---- */

static int
wc_pwrite_all(int fd, const void *p, uint64_t n, uint64_t off)
{
    const char *b = p;

    while (n > 0) {
        size_t k = n < WC_IO_MAX ? (size_t)n : WC_IO_MAX;
        ssize_t w = pwrite(fd, b, k, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (uint64_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

/* The data region streamed through one chunk-sized buffer: each full chunk
** is checksummed and written, so the data is read once and never re-read. */
struct wc_stream {
    int            fd;
    unsigned char *buf;       /* [WC_CHUNK] */
    uint64_t       fill;      /* bytes in buf */
    uint64_t       pos;       /* region bytes already written */
    uint64_t       base;      /* file offset of the region */
    uint64_t      *sums;
    uint64_t       n_sums;
};

static int
wc_stream_flush(struct wc_stream *st)
{
    if (st->fill == 0)
        return 0;
    st->sums[st->n_sums++] = wc_checksum(st->buf, (size_t)st->fill);
    if (wc_pwrite_all(st->fd, st->buf, st->fill, st->base + st->pos) != 0)
        return -1;
    st->pos += st->fill;
    st->fill = 0;
    return 0;
}

/* Append N bytes of P (NULL: zeros) to the region. */
static int
wc_stream_put(struct wc_stream *st, const void *p, uint64_t n)
{
    const unsigned char *b = p;

    while (n > 0) {
        uint64_t k = WC_CHUNK - st->fill < n ? WC_CHUNK - st->fill : n;
        if (b != NULL) {
            memcpy(st->buf + st->fill, b, (size_t)k);
            b += k;
        } else {
            memset(st->buf + st->fill, 0, (size_t)k);
        }
        st->fill += k;
        n -= k;
        if (st->fill == WC_CHUNK && wc_stream_flush(st) != 0)
            return -1;
    }
    return 0;
}

/* An unnamed file in DIR (O_TMPFILE: nothing is left behind if the process
** dies mid-write), else a named temporary (mkstemp) in TMP.  *NAMED says
** which. */
static int
wc_tmpfile(const char *dir, char *tmp, int *named)
{
    int fd;

#ifdef O_TMPFILE
    fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (fd >= 0) {
        *named = 0;
        return fd;
    }
#else
    (void)dir;
#endif
    *named = 1;
    fd = mkstemp(tmp);
    if (fd >= 0)
        (void)fchmod(fd, 0644);
    return fd;
}

/*
** Write the recorded entries to C->wpath: into a temporary file, then
** rename(2) over the final name.  Runs on the writer thread; reads only the
** recorded buffers, which the model keeps unchanged until wc_close.
*/
/* The layout of C's records (their data offsets, relative to the data
** region) and the sizes of header H; returns the file's size. */
static uint64_t
wc_layout(wc_cache *c, struct wc_header *h)
{
    uint64_t rel = 0;

    for (size_t i = 0; i < c->n_recs; i++) {
        struct wc_entry *e = &c->recs[i].e;
        e->data_off = rel;
        rel = wc_align(rel + e->data_bytes, WC_ALIGN);
        if (e->scales_bytes) {
            e->scales_off = rel;
            rel = wc_align(rel + e->scales_bytes, WC_ALIGN);
        }
    }
    h->n_entries = (uint32_t)c->n_recs;
    h->data_bytes = rel;
    h->n_chunks = (rel + WC_CHUNK - 1) / WC_CHUNK;
    h->index_off = sizeof *h;
    h->index_bytes = (uint64_t)h->n_entries * sizeof(struct wc_entry) +
                     h->n_chunks * sizeof(uint64_t);
    h->data_off = wc_align(h->index_off + h->index_bytes, WC_PAGE);
    return h->data_off + h->data_bytes;
}

static int
wc_write(wc_cache *c)
{
    struct wc_header h = c->key;
    struct wc_entry *ents = NULL;
    struct wc_stream st;
    uint64_t total;
    char tmp[PATH_MAX], dir[PATH_MAX];
    struct statvfs vfs;
    int fd, named = 0, ok = 0;

    total = wc_layout(c, &h);

    /* the directory, created only now that there is something to put in it */
    rwkv_path_dir(c->wpath, dir, sizeof dir);
    if (c->own_dir ? (mkdir(dir, 0700) != 0 && errno != EEXIST) || !wc_dir_writable(dir)
                   : wc_mkdirs(dir) != 0)
        return -1;
    if (snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", c->wpath) >= (int)sizeof tmp)
        return -1;
    memset(&st, 0, sizeof st);
    ents = malloc((size_t)h.index_bytes);
    st.buf = malloc((size_t)WC_CHUNK);
    if (ents == NULL || st.buf == NULL) {
        free(ents);
        free(st.buf);
        return -1;
    }
    st.sums = (uint64_t *)(void *)((char *)ents + (size_t)h.n_entries * sizeof *ents);
    st.base = h.data_off;
    fd = wc_tmpfile(dir, tmp, &named);
    if (fd < 0)
        goto out;
    st.fd = fd;
    if (fstatvfs(fd, &vfs) == 0 &&
        (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize < total + WC_SPACE_MARGIN)
        goto out;
    for (size_t i = 0; i < c->n_recs; i++) {
        const struct wc_rec *r = &c->recs[i];
        uint64_t at = st.pos + st.fill;
        ents[i] = r->e;
        ents[i].data_off += h.data_off;
        if (wc_stream_put(&st, NULL, r->e.data_off - at) != 0 ||
            wc_stream_put(&st, r->data, r->e.data_bytes) != 0)
            goto out;
        if (r->e.scales_bytes) {
            at = st.pos + st.fill;
            ents[i].scales_off += h.data_off;
            if (wc_stream_put(&st, NULL, r->e.scales_off - at) != 0 ||
                wc_stream_put(&st, r->scales, r->e.scales_bytes) != 0)
                goto out;
        }
    }
    if (wc_stream_put(&st, NULL, h.data_bytes - (st.pos + st.fill)) != 0 ||
        wc_stream_flush(&st) != 0 || st.n_sums != h.n_chunks)
        goto out;
    h.index_sum = wc_checksum(ents, (size_t)h.index_bytes);
    h.header_sum = wc_checksum(&h, offsetof(struct wc_header, header_sum));
    if (wc_pwrite_all(fd, ents, h.index_bytes, h.index_off) != 0 ||
        wc_pwrite_all(fd, &h, sizeof h, 0) != 0)
        goto out;
    if (!named) {
        /* give the unnamed file a unique temporary name, then rename it */
        char proc[64];
        unsigned k;
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        for (k = 0; k < 100; k++) {
            if (snprintf(tmp, sizeof tmp, "%s.tmp-%ld-%u", c->wpath, (long)getpid(), k) >=
                (int)sizeof tmp)
                goto out;
            if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
                break;
            if (errno != EEXIST)
                goto out;
        }
        if (k == 100)
            goto out;
        named = 1;
    }
    ok = close(fd) == 0;
    fd = -1;
    if (ok && rename(tmp, c->wpath) != 0)
        ok = 0;
out:
    if (fd >= 0)
        close(fd);
    if (!ok && named)
        unlink(tmp);
    free(ents);
    free(st.buf);
    return ok ? 0 : -1;
}

static void *
wc_writer(void *arg)
{
    wc_cache *c = arg;

#ifdef __linux__
    /* below the compute threads: a cache is a convenience, the first
     * session's tokens are not */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), WC_WRITER_NICE);
#endif
    c->write_rc = wc_write(c);
    return NULL;
}

/*
** Why C's cache cannot be written at C->wpath, into C->why ("" when it can,
** as far as can be told before trying): the nearest folder on the way that
** exists may not be written (the writer makes the missing ones under it),
** or its disk lacks the file's size and WC_SPACE_MARGIN -- said up front, so
** that nothing claims a cache is being written that never will be.
*/
static void
wc_room(wc_cache *c)
{
    struct wc_header h = c->key;
    uint64_t size = wc_layout(c, &h), have;
    char dir[PATH_MAX], up[PATH_MAX];
    struct stat st;
    struct statvfs vfs;

    c->why[0] = '\0';
    /* a folder in the file's place: rename(2) never replaces it */
    if (lstat(c->wpath, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(c->why, sizeof c->why, "a folder has that name");
        return;
    }
    rwkv_path_dir(c->wpath, dir, sizeof dir);
    while (stat(dir, &st) != 0) {
        if (errno != ENOENT)
            return;                    /* unknown: the writer tries */
        rwkv_path_dir(dir, up, sizeof up);
        if (strcmp(up, dir) == 0)
            return;
        memcpy(dir, up, sizeof dir);
    }
    if (!wc_dir_writable(dir))
        snprintf(c->why, sizeof c->why, "the folder %s cannot be written to", dir);
    else if (statvfs(dir, &vfs) == 0 &&
             (have = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize) < size + WC_SPACE_MARGIN)
        snprintf(c->why, sizeof c->why, "no room: it takes %llu MiB and %llu MiB are kept free; "
                 "%llu MiB free in %s", (unsigned long long)((size + (1 << 20) - 1) >> 20),
                 (unsigned long long)(WC_SPACE_MARGIN >> 20),
                 (unsigned long long)(have >> 20), dir);
}

static int
wc_whole_hit(const wc_cache *c)
{
    return c->map != NULL && c->n_miss == 0 && c->n_hit > 0;
}

void
wc_finish(wc_cache *c)
{
    if (c == NULL)
        return;
    c->ck = NULL;   /* borrowed for wc_open only */
    if (wc_whole_hit(c) && !c->rekey) {
        c->state = WC_S_HIT;
    } else if (!c->rec_failed && c->wpath[0] != '\0' && c->converted > 0 &&
               (c->mode == WC_ON || c->narrowed >= WC_AUTO_MIN_BYTES) &&
               (wc_room(c), c->why[0] == '\0')) {
        /* the records stay until the writer is done (wc_close joins it) */
        if (pthread_create(&c->writer, NULL, wc_writer, c) == 0) {
            c->writing = 1;
            c->state = WC_S_WRITING;
            snprintf(c->path, sizeof c->path, "%s", c->wpath);
            return;
        }
        if (wc_write(c) == 0) {
            c->state = WC_S_WRITTEN;
            snprintf(c->path, sizeof c->path, "%s", c->wpath);
        }
    }
    if (c->state == WC_S_NONE && c->why[0] != '\0')
        snprintf(c->path, sizeof c->path, "%s", c->wpath);   /* where it was not written */
    else if (c->state == WC_S_NONE)
        c->path[0] = '\0';
    free(c->recs);
    c->recs = NULL;
    c->n_recs = c->cap_recs = 0;
}

const char *
wc_why(const wc_cache *c)
{
    return c != NULL && c->state == WC_S_NONE ? c->why : "";
}

const char *
wc_status(const wc_cache *c)
{
    if (c == NULL)
        return "off";
    switch (c->state) {
    case WC_S_HIT: return "hit";
    case WC_S_WRITING: return "writing";
    case WC_S_WRITTEN: return "written";
    default: return "none";
    }
}

int
wc_read_in(const wc_cache *c)
{
    return c != NULL && c->state == WC_S_HIT && c->read_in;
}

const char *
wc_path(const wc_cache *c)
{
    return c ? c->path : "";
}

int
wc_wait(wc_cache *c)
{
    if (c == NULL)
        return 0;
    if (c->writing) {
        pthread_join(c->writer, NULL);
        c->writing = 0;
        c->state = c->write_rc == 0 ? WC_S_WRITTEN : WC_S_NONE;
        if (c->state == WC_S_NONE)
            c->path[0] = '\0';
        free(c->recs);
        c->recs = NULL;
        c->n_recs = c->cap_recs = 0;
    }
    return c->state == WC_S_WRITTEN || c->state == WC_S_HIT;
}

void
wc_close(wc_cache *c)
{
    if (c == NULL)
        return;
    (void)wc_wait(c);
    if (c->map != NULL)
        munmap((void *)(uintptr_t)c->map, (size_t)c->map_size);
    free(c->used);
    free(c->recs);
    free(c);
}

/* ---- the other files of the cache folders (`info`) ---- */

#define WC_SUFFIX ".rwkvc"

/* PATH's header into *H when PATH is a regular file (a link is not
** followed) that starts with the cache's magic: 1 (*BYTES its size, *ST
** its stat); else 0: not a file this program wrote. */
static int
wc_read_header(const char *path, struct wc_header *h, uint64_t *bytes, struct stat *st)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC), ok;

    memset(st, 0, sizeof *st);
    if (fd < 0)
        return 0;
    ok = fstat(fd, st) == 0 && S_ISREG(st->st_mode) && st->st_size >= (off_t)sizeof *h &&
         pread(fd, h, sizeof *h, 0) == (ssize_t)sizeof *h &&
         memcmp(h->magic, WC_MAGIC, sizeof h->magic) == 0;
    close(fd);
    *bytes = ok ? (uint64_t)st->st_size : 0;
    return ok;
}

/* The length of NAME's first N bytes without a last ".xxxxxxxx" (8
** lower-case hex digits, as the names are made); 0 when they do not end so. */
static size_t
wc_hex_stem(const char *name, size_t n)
{
    if (n < 10 || name[n - 9] != '.')
        return 0;
    for (size_t i = n - 8; i < n; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return 0;
    return n - 9;
}

/* Whether the checkpoint at MPATH is the one header H was made for (its
** size and modification time: the rest of the key, a load checks). */
static int
wc_same_model(const struct wc_header *h, const char *mpath)
{
    struct stat st;

    return stat(mpath, &st) == 0 && S_ISREG(st.st_mode) && h->ck_size == (uint64_t)st.st_size &&
           h->ck_mtime_s == (int64_t)st.st_mtim.tv_sec &&
           h->ck_mtime_ns == (int64_t)st.st_mtim.tv_nsec;
}

/* Whether the files at A and B are one (device and inode). */
static int
wc_same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    return a != NULL && b != NULL && stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* F (header H) for the model at MPATH: current or stale; MODEL: the one
** loaded (its other strategies are said so). */
static void
wc_for_model(wc_file *f, const struct wc_header *h, const char *mpath, const char *model)
{
    char kn[sizeof h->kernels + 1];

    memcpy(kn, h->kernels, sizeof h->kernels);
    kn[sizeof h->kernels] = '\0';
    f->stale = !wc_same_model(h, mpath);
    if (f->stale)
        snprintf(f->what, sizeof f->what, "stale: made for %s before it changed", mpath);
    else
        snprintf(f->what, sizeof f->what, "for %s%s (kernels %s)", mpath,
                 wc_same_file(mpath, model) ? ", another strategy or kernel set" : "",
                 kn[0] ? kn : "-");
}

/*
** In a cache folder, "<base>.<path hash>.<plan>.rwkvc" (BASE the first S2
** bytes of NAME): the model is found when its real path is MODEL's, or a
** file of MODEL's folder (the hash of where it is, or was): 1 with F
** filled (stale when that file is gone or changed); 0 when the name does
** not say where it is.
*/
static int
wc_for_named(wc_file *f, const struct wc_header *h, const char *name, size_t s2,
             const char *model)
{
    char *rp, cand[WC_FILE_PATH], mdir[PATH_MAX], hx[9];
    struct stat st;
    int found = 0;

    if (model == NULL)
        return 0;
    /* the model itself (named as given, hashed by its real path) */
    if ((rp = realpath(model, NULL)) != NULL) {
        const char *base = strrchr(model, '/');
        base = base ? base + 1 : model;
        snprintf(hx, sizeof hx, "%08x", (uint32_t)wc_checksum(rp, strlen(rp)));
        if (strlen(base) == s2 && memcmp(base, name, s2) == 0 &&
            memcmp(name + s2 + 1, hx, 8) == 0) {
            wc_for_model(f, h, rp, model);
            found = 1;
        }
        free(rp);
        if (found)
            return 1;
    }
    /* a file of its folder, there or gone */
    rwkv_path_dir(model, mdir, sizeof mdir);
    if ((rp = realpath(mdir, NULL)) == NULL)
        return 0;
    if (snprintf(cand, sizeof cand, "%s/%.*s", strcmp(rp, "/") == 0 ? "" : rp, (int)s2, name) <
        (int)sizeof cand) {
        snprintf(hx, sizeof hx, "%08x", (uint32_t)wc_checksum(cand, strlen(cand)));
        found = memcmp(name + s2 + 1, hx, 8) == 0;
    }
    free(rp);
    if (!found)
        return 0;
    if (stat(cand, &st) == 0) {
        wc_for_model(f, h, cand, model);
    } else {
        f->stale = 1;
        snprintf(f->what, sizeof f->what, "stale: its model %s is gone", cand);
    }
    return 1;
}

/*
** What F is (header H; NAME in DIR): a file of another format version or
** a damaged header is stale; else its model, told by its name --
** "<model>.<plan>.rwkvc" next to the model, "<base>.<path hash>.<plan>
** .rwkvc" in a cache folder (wc_for_named) --, stale when that file is
** gone or changed since.
*/
static void
wc_classify(wc_file *f, const struct wc_header *h, const char *dir, const char *name,
            const char *model)
{
    size_t n = strlen(name) - strlen(WC_SUFFIX), s1 = wc_hex_stem(name, n), s2;
    char mpath[WC_FILE_PATH];
    struct stat st;

    f->stale = 1;
    if (h->endian != WC_ENDIAN || h->version != WC_FORMAT_VERSION ||
        h->header_bytes != sizeof *h ||
        h->header_sum != wc_checksum(h, offsetof(struct wc_header, header_sum))) {
        snprintf(f->what, sizeof f->what, "stale: damaged, or written by another version of "
                 "rwkv-tui (this one cannot use it)");
        return;
    }
    if (h->prep_version != WC_PREP_VERSION) {
        snprintf(f->what, sizeof f->what, "stale: written by another version of rwkv-tui "
                 "(this one cannot use it)");
        return;
    }
    f->stale = 0;
    if (s1 == 0) {
        snprintf(f->what, sizeof f->what, "for a model its name does not tell");
        return;
    }
    /* next to its model: "<model>.<plan>" */
    if (snprintf(mpath, sizeof mpath, "%s/%.*s", dir, (int)s1, name) < (int)sizeof mpath &&
        stat(mpath, &st) == 0 && S_ISREG(st.st_mode)) {
        wc_for_model(f, h, mpath, model);
        return;
    }
    if ((s2 = wc_hex_stem(name, s1)) == 0) {
        f->stale = 1;
        snprintf(f->what, sizeof f->what, "stale: its model %s is gone", mpath);
        return;
    }
    if (!wc_for_named(f, h, name, s2, model))
        snprintf(f->what, sizeof f->what, "for a model named %.*s elsewhere", (int)s2, name);
}

static int
wc_file_cmp(const void *a, const void *b)
{
    return strcmp(((const wc_file *)a)->path, ((const wc_file *)b)->path);
}

size_t
wc_scan(const char *dir, const char *model, const char *skip, wc_file **out)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct stat sk, st;
    int have_skip = skip != NULL && *skip != '\0' && stat(skip, &sk) == 0;
    size_t n = 0, cap = 0;
    wc_file *v = NULL;

    *out = NULL;
    if (d == NULL)
        return 0;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name), sl = strlen(WC_SUFFIX);
        struct wc_header h;
        wc_file *f;
        if (len <= sl || strcmp(e->d_name + len - sl, WC_SUFFIX) != 0)
            continue;
        if (n == cap) {
            wc_file *x = realloc(v, (cap = cap ? 2 * cap : 8) * sizeof *v);
            if (x == NULL)
                break;
            v = x;
        }
        f = &v[n];
        if (snprintf(f->path, sizeof f->path, "%s/%s", dir, e->d_name) >= (int)sizeof f->path ||
            (skip != NULL && strcmp(f->path, skip) == 0) ||
            !wc_read_header(f->path, &h, &f->bytes, &st) ||
            (have_skip && st.st_dev == sk.st_dev && st.st_ino == sk.st_ino))
            continue;
        wc_classify(f, &h, dir, e->d_name, model);
        n++;
    }
    closedir(d);
    if (n == 0) {
        free(v);
        return 0;
    }
    qsort(v, n, sizeof *v, wc_file_cmp);
    *out = v;
    return n;
}

int
wc_remove(const char *path)
{
    struct wc_header h;
    struct stat st;
    uint64_t bytes;

    if (!wc_read_header(path, &h, &bytes, &st)) {
        errno = EINVAL;
        return -1;
    }
    return unlink(path);
}

/* Add DIR to DIRS (*N of MAX) when it is a folder not there yet. */
static void
wc_dir_add(char dirs[][WC_FILE_PATH], int *n, int max, const char *dir)
{
    char *rp = realpath(dir, NULL);
    struct stat st;

    if (rp != NULL && *n < max && stat(rp, &st) == 0 && S_ISDIR(st.st_mode) &&
        strlen(rp) < WC_FILE_PATH) {
        int k;
        for (k = 0; k < *n && strcmp(dirs[k], rp) != 0; k++)
            ;
        if (k == *n)
            snprintf(dirs[(*n)++], WC_FILE_PATH, "%s", rp);
    }
    free(rp);
}

int
wc_dirs(const char *model_path, char dirs[][WC_FILE_PATH], int max)
{
    const char *env = getenv("RWKV_WEIGHT_CACHE_DIR");
    char buf[PATH_MAX];
    int n = 0;

    if (env != NULL && *env != '\0')
        wc_dir_add(dirs, &n, max, env);
    if (model_path != NULL) {
        rwkv_path_dir(model_path, buf, sizeof buf);
        wc_dir_add(dirs, &n, max, buf);
    }
    if (wc_xdg_dir(buf, sizeof buf) == 0)
        wc_dir_add(dirs, &n, max, buf);
    return n;
}
