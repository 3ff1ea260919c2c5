/*
** mem.c -- aligned allocation.  See mem.h.
*/
#include "mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "env.h"

void *
mem_alloc(uint64_t n)
{
    void *p = NULL;

    if (n > SIZE_MAX - MEM_ALIGN)
        return NULL;
    /* Round up so the size is a multiple of the alignment (aligned_alloc rule). */
    n = (n + MEM_ALIGN - 1) / MEM_ALIGN * MEM_ALIGN;
    if (n == 0)
        n = MEM_ALIGN;
    if (posix_memalign(&p, MEM_ALIGN, (size_t)n) != 0)
        return NULL;
    return p;
}

void *
mem_zalloc(uint64_t n)
{
    void *p = mem_alloc(n);

    if (p != NULL)
        memset(p, 0, (size_t)(n == 0 ? 1 : n));
    return p;
}

void
mem_free(void *p)
{
    free(p);
}

void
mem_advise_huge(void *p, uint64_t n)
{
#ifdef MADV_HUGEPAGE
    uintptr_t a = ((uintptr_t)p + MEM_HUGE_PAGE - 1) & ~(uintptr_t)(MEM_HUGE_PAGE - 1);
    uintptr_t e = ((uintptr_t)p + (uintptr_t)n) & ~(uintptr_t)(MEM_HUGE_PAGE - 1);

    if (p != NULL && e > a)
        madvise((void *)a, (size_t)(e - a), MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

void *
mem_alloc_huge(uint64_t n)
{
    void *p = mem_alloc(n);

    if (p != NULL && n >= 2 * MEM_HUGE_PAGE)
        mem_advise_huge(p, n);
    return p;
}

void
mem_huge_part(uint64_t size, int i, int n, uint64_t *a, uint64_t *b)
{
    uint64_t pages = (size + MEM_HUGE_PAGE - 1) / MEM_HUGE_PAGE;

    *a = pages * (uint64_t)i / (uint64_t)n * MEM_HUGE_PAGE;
    *b = pages * (uint64_t)(i + 1) / (uint64_t)n * MEM_HUGE_PAGE;
    if (*b > size)
        *b = size;
}

void
mem_touch(void *p, uint64_t n)
{
    volatile unsigned char *c = p;

    for (uint64_t o = 0; o < n; o += 4096)
        c[o] = 0;
}

/* MemAvailable of /proc/meminfo in bytes, 0 when unknown. */
static uint64_t
mem_available(void)
{
    char line[128];
    unsigned long long kb = 0;
    FILE *f = fopen("/proc/meminfo", "re");

    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return (uint64_t)kb * 1024;
}

int
mem_want_copy(const char *env, uint64_t size)
{
    uint64_t avail;

    if (env != NULL && env_word(env, env_load_words) == 0)   /* "map" (another word: env_notes) */
        return 0;
    avail = mem_available();
    return avail == 0 || size <= avail / 2;
}
