/*
** mapfile.c -- read-only mmap of a file.  See mapfile.h.
*/
#include "mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct mapfile {
    void    *data;      /* mapping, or &empty for a 0-byte file */
    uint64_t size;
    int      mapped;
};

static const unsigned char empty_file[1];

int
mapfile_open(const char *path, mapfile **out, rwkv_err *err)
{
    struct stat st;
    mapfile *m;
    int fd;

    *out = NULL;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return rwkv_errf(err, RWKV_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return rwkv_errf(err, RWKV_EIO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return rwkv_errf(err, RWKV_EIO, "%s: not a regular file", path);
    }
    if (st.st_size < 0 || (uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
        close(fd);
        return rwkv_errf(err, RWKV_EIO, "%s: file too large to map", path);
    }
    m = calloc(1, sizeof *m);
    if (m == NULL) {
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
            free(m);
            return rwkv_errf(err, RWKV_EIO, "%s: cannot mmap: %s", path, strerror(e));
        }
        m->mapped = 1;
    }
    close(fd);
    *out = m;
    return RWKV_OK;
}

void
mapfile_close(mapfile *m)
{
    if (m == NULL)
        return;
    if (m->mapped)
        munmap(m->data, (size_t)m->size);
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
