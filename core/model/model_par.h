/*
** model_par.h -- internal to the block math (model_block.c,
** model_v4/5/6/7.c): the one helper that runs an element-wise stage over
** token rows (or heads, or channel blocks) [0, N) split into contiguous
** ranges on the model's pool.
**
** Every range computes exactly what one call over [0, N) would (each row's
** math does not depend on the split), so results are the same for any
** thread count.
*/
#ifndef RWKV_MODEL_PAR_H
#define RWKV_MODEL_PAR_H

#include <stddef.h>

#include "../kernels/threadpool.h"

/* Items from which a stage is spread over the pool (one token stays on the
** calling thread: a dispatch costs more than its work). */
#define MDL_PAR_MIN 4

/* Work on items [I0, I1) of a stage. */
typedef void (*mdl_range_fn)(void *ctx, size_t i0, size_t i1);

struct mdl_par {
    mdl_range_fn fn;
    void        *ctx;
    size_t       n;
    int          threads;   /* mdl_par_task_dealt's */
};

static inline void
mdl_par_task(void *ctx, int i, int n)
{
    const struct mdl_par *j = ctx;

    j->fn(j->ctx, j->n * (size_t)i / (size_t)n, j->n * (size_t)(i + 1) / (size_t)n);
}

/*
** mdl_par_task with the ranges dealt out: of N chunks claimed in turn by
** THREADS threads (chunk i most often by thread i % THREADS: a caller and
** a waiting worker take turns), thread t's run one contiguous part of the
** items, [t N / THREADS, (t + 1) N / THREADS) in order.  For one token's
** WKV, whose heads' states lie side by side and are read and written once:
** chunks of two heads alternating between two threads took 36-39 us for
** the 1.5B's 32 heads where two contiguous halves took 21-23 (state from
** memory; 20-25 against 12-14 in L2): each core's prefetchers ran into
** the heads the other was writing.  In the model (1.5B, avx2): 31-39 ->
** 25-30 us a layer.  Any claim order still covers [0, N).
*/
static inline void
mdl_par_task_dealt(void *ctx, int i, int n)
{
    const struct mdl_par *j = ctx;
    int p = j->threads, pos = i;

    if (p > 1 && n % p == 0)
        pos = (i % p) * (n / p) + i / p;
    j->fn(j->ctx, j->n * (size_t)pos / (size_t)n, j->n * (size_t)(pos + 1) / (size_t)n);
}

/* FN(CTX, i0, i1) over disjoint ranges covering [0, N) of a pass of T
** tokens; returns when all ran.  Inline on the caller for fewer than
** MDL_PAR_MIN tokens or items (a WKV over heads of one token costs less than
** waking the pool). */
static inline void
mdl_par_run(tpool *pool, size_t t, size_t n, mdl_range_fn fn, void *ctx)
{
    struct mdl_par j = { fn, ctx, n, 1 };

    if (t >= MDL_PAR_MIN && n >= MDL_PAR_MIN)
        tpool_run(pool, mdl_par_task, &j);
    else if (n > 0)
        fn(ctx, 0, n);
}

/* A layer's WKV state (heads x N x N floats) from which even one token's
** recurrence goes over the heads on the pool: reading and writing the
** state (from memory: the weights streamed through the caches since the
** layer last ran) costs tens of microseconds there, more than a dispatch
** to a waiting thread (1.5B: 32 x 64 x 64; the 0.1B's 12 heads stay on the
** caller). */
#define MDL_PAR_MIN_STATE 65536

/* The WKV stage over H heads of N x N state each: mdl_par_run over the
** heads, and for fewer than MDL_PAR_MIN tokens too once the state reaches
** MDL_PAR_MIN_STATE floats -- a job that streams the state, judged as
** such (threadpool.h).  Heads are independent: the same numbers. */
static inline void
mdl_par_run_heads(tpool *pool, size_t t, size_t h, size_t n, mdl_range_fn fn, void *ctx)
{
    struct mdl_par j = { fn, ctx, h, tpool_size(pool) };

    if (t < MDL_PAR_MIN && h >= 2 && h * n * n >= MDL_PAR_MIN_STATE && tpool_size(pool) > 1)
        tpool_run_kind(pool, mdl_par_task_dealt, &j, TPOOL_STREAM);
    else
        mdl_par_run(pool, t, h, fn, ctx);
}

#endif
