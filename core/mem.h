/*
** mem.h -- checked size arithmetic and aligned allocation.
**
** Every size that comes from input (tensor shapes, zip sizes, pickle lengths)
** is combined with these helpers so an overflow becomes an error, never a
** short allocation.
*/
#ifndef RWKV_MEM_H
#define RWKV_MEM_H

#include <stddef.h>
#include <stdint.h>

/* Alignment of every buffer from mem_alloc: one AVX-512 register / cache line. */
#define MEM_ALIGN 64

/* *OUT = a*b or a+b; return 0 on overflow (OUT then unspecified), 1 on success. */
static inline int
mem_mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

static inline int
mem_add_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}

/*
** MEM_ALIGN-aligned allocation of N bytes (N may be 0).  Owned by caller,
** free with mem_free.  Returns NULL on failure or if N exceeds SIZE_MAX.
*/
void *mem_alloc(uint64_t n);
/* Same as mem_alloc, zero-filled. */
void *mem_zalloc(uint64_t n);
/* Free a buffer from mem_alloc/mem_zalloc. NULL is fine. */
void mem_free(void *p);

#endif
