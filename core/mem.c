/*
** mem.c -- aligned allocation.  See mem.h.
*/
#include "mem.h"

#include <stdlib.h>
#include <string.h>

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
