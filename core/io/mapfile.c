/*
** mapfile.c -- read-only mmap of a file, and the guard table of mapped
** ranges that the SIGBUS handler consults.  See mapfile.h.
**
** Guard table invariant: a slot is claimed with a CAS on `used`, then its
** path and length are stored and only then its base (release); a reader
** (the signal handler) loads the base first (acquire), so it never sees a
** base without its length and path.  Removal clears the base first.
*/
#include "mapfile.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

struct mapfile {
    void    *data;      /* mapping, or &empty for a 0-byte file */
    uint64_t size;
    int      mapped;
    int      fd;        /* the mapped file, kept for mapfile_read; -1 if none */
    char    *path;      /* owned; named by the guard table */
};

static const unsigned char empty_file[1];

/* ---- guard table ---- */

static struct mapfile_guard {
    atomic_int          used;
    _Atomic(uintptr_t)  base;    /* 0 = empty */
    _Atomic(uintptr_t)  len;
    _Atomic(const char *) path;
} guards[MAPFILE_GUARD_SLOTS];

int
mapfile_guard_add(const void *base, uint64_t len, const char *path)
{
    if (base == NULL || len == 0)
        return -1;
    for (int i = 0; i < MAPFILE_GUARD_SLOTS; i++) {
        int expect = 0;
        if (!atomic_compare_exchange_strong(&guards[i].used, &expect, 1))
            continue;
        atomic_store_explicit(&guards[i].path, path, memory_order_relaxed);
        atomic_store_explicit(&guards[i].len, (uintptr_t)len, memory_order_relaxed);
        atomic_store_explicit(&guards[i].base, (uintptr_t)base, memory_order_release);
        return i;
    }
    return -1;
}

void
mapfile_guard_remove(const void *base)
{
    if (base == NULL)
        return;
    for (int i = 0; i < MAPFILE_GUARD_SLOTS; i++) {
        if (atomic_load_explicit(&guards[i].base, memory_order_acquire) != (uintptr_t)base)
            continue;
        atomic_store_explicit(&guards[i].base, 0, memory_order_release);
        atomic_store_explicit(&guards[i].len, 0, memory_order_relaxed);
        atomic_store_explicit(&guards[i].path, NULL, memory_order_relaxed);
        atomic_store_explicit(&guards[i].used, 0, memory_order_release);
        return;
    }
}

const char *
mapfile_guard_find(const void *addr)
{
    uintptr_t a = (uintptr_t)addr;

    for (int i = 0; i < MAPFILE_GUARD_SLOTS; i++) {
        uintptr_t b = atomic_load_explicit(&guards[i].base, memory_order_acquire);
        if (b != 0 && a >= b && a - b < atomic_load_explicit(&guards[i].len, memory_order_relaxed))
            return atomic_load_explicit(&guards[i].path, memory_order_relaxed);
    }
    return NULL;
}

/* ---- mapping ---- */

int
mapfile_open(const char *path, mapfile **out, rwkv_err *err)
{
    struct stat st;
    mapfile *m;
    int fd, rc;

    *out = NULL;
    /* a FIFO or device is refused here, never waited on */
    if ((rc = rwkv_open_regular(path, &fd, err)) != RWKV_OK)
        return rc;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return rwkv_errf(err, RWKV_EIO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (st.st_size < 0 || (uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
        close(fd);
        return rwkv_errf(err, RWKV_EIO, "%s: file too large to map", path);
    }
    m = calloc(1, sizeof *m);
    if (m == NULL || (m->path = strdup(path)) == NULL) {
        free(m);
        close(fd);
        return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", path);
    }
    m->size = (uint64_t)st.st_size;
    if (m->size == 0) {
        m->data = (void *)empty_file;
    } else {
        m->data = mmap(NULL, (size_t)m->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m->data == MAP_FAILED) {
            int e = errno;
            close(fd);
            free(m->path);
            free(m);
            return rwkv_errf(err, RWKV_EIO, "%s: cannot mmap: %s", path, strerror(e));
        }
        m->mapped = 1;
        (void)mapfile_guard_add(m->data, m->size, m->path);
    }
    if (m->mapped) {
        m->fd = fd;
    } else {
        m->fd = -1;
        close(fd);
    }
    *out = m;
    return RWKV_OK;
}

void
mapfile_close(mapfile *m)
{
    if (m == NULL)
        return;
    if (m->mapped) {
        mapfile_guard_remove(m->data);
        munmap(m->data, (size_t)m->size);
        close(m->fd);
    }
    free(m->path);
    free(m);
}

void
mapfile_release(const mapfile *m, const void *p, uint64_t n)
{
    long ps = sysconf(_SC_PAGESIZE);
    uintptr_t base, end, a, b, page;

    if (m == NULL || !m->mapped || ps <= 0 || n == 0)
        return;
    page = (uintptr_t)ps;
    base = (uintptr_t)m->data;
    end = base + (uintptr_t)m->size;
    a = (uintptr_t)p;
    if (a < base || a >= end)
        return;
    b = n > (uint64_t)(end - a) ? end : a + (uintptr_t)n;
    /* whole pages only: the neighbours' bytes stay resident */
    a = (a + page - 1) / page * page;
    b = b / page * page;
    if (a < b)
        (void)madvise((void *)a, b - a, MADV_DONTNEED);
}

int
mapfile_read(const mapfile *m, const void *p, uint64_t n, void *dst)
{
    uintptr_t base, a = (uintptr_t)p;
    uint64_t off;

    if (n == 0)
        return 0;
    if (m == NULL || !m->mapped)
        return -1;
    base = (uintptr_t)m->data;
    if (a < base || a - base > m->size || n > m->size - (uint64_t)(a - base))
        return -1;
    off = (uint64_t)(a - base);
    return rwkv_pread_full(m->fd, dst, n, off, NULL);
}

const void *
mapfile_data(const mapfile *m)
{
    return m->data;
}

uint64_t
mapfile_size(const mapfile *m)
{
    return m->size;
}

const char *
mapfile_path(const mapfile *m)
{
    return m->path;
}
