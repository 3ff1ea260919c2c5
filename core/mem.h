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
/* Free a buffer from mem_alloc/mem_zalloc/mem_alloc_huge. NULL is fine. */
void mem_free(void *p);

/* The transparent huge page size the advice below works in. */
#define MEM_HUGE_PAGE ((uint64_t)2 << 20)

/*
** Ask for transparent huge pages (madvise MADV_HUGEPAGE) on the whole
** MEM_HUGE_PAGE-aligned pages inside [P, P+N).  Big buffers read once per
** token (prepared weights, the bench's bandwidth probe) take a TLB miss per
** 4 KiB page without it on kernels set to [madvise] (the read probe read
** 10-15% less so on a Zen 5 VM), and a page fault per 4 KiB when first
** written.  Advice only: where the kernel gives none, nothing changes.
*/
void mem_advise_huge(void *p, uint64_t n);
/* mem_alloc, advised as above when N spans two huge pages or more. */
void *mem_alloc_huge(uint64_t n);
/*
** Part I of N of SIZE bytes cut at whole huge pages: [*A, *B), empty when
** *A >= *B.  Threads filling one buffer each touch their own huge pages.
*/
void mem_huge_part(uint64_t size, int i, int n, uint64_t *a, uint64_t *b);
/*
** Write a byte in every 4 KiB page of [P, P+N): the faults that bring its
** pages in, one per huge page where advised, before read(2) fills them
** (a read into untouched memory faulted page by page: seconds for 1.6 GB).
*/
void mem_touch(void *p, uint64_t n);

/*
** Should SIZE bytes of weights that could be used where a file maps them be
** read into memory advised huge pages (1, the default), or stay mapped (0)?
** Read when SIZE is at most half of MemAvailable (or that is unknown) and the
** environment variable ENV does not say "map"; else mapped: shared with other
** programs through the page cache, no load cost, but in 4 KiB pages.  On the
** 2-vCPU Zen 5 VM, 2026-12-07, 1.5B `cpu bf16` decode from the mapped file
** ran 9.5-14 tok/s against 19.3-21.9 read into huge pages (quiet machine,
** six runs each, alternating; every ~0.5 s a mapped token took 2-5x the
** others), and 4-6x slower beside busy cores; the read costs ~4 s of load
** for 3 GB there (the VM backs each new page on first touch).
*/
int mem_want_copy(const char *env, uint64_t size);

#endif
