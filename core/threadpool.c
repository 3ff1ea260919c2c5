/*
** threadpool.c -- persistent worker threads (see threadpool.h).
**
** A job is cut into more chunks than there are threads (TPOOL_CHUNKS per
** thread) and every participant -- the caller and the workers -- claims
** chunks from one atomic counter until none are left.  The caller then
** waits only for chunks that were claimed and are still running, never for
** a worker that has not woken up yet: on a machine shared with other
** processes a descheduled worker would otherwise stall every product until
** the scheduler runs it again (on two busy cores two threads were measured
** slower than one before this).  A worker that wakes after the job is done
** finds nothing to claim and goes back to sleep.
**
** Workers sleep on a condition variable between jobs; nothing spins.  The
** claim counter holds the job's generation in its high 32 bits, so a late
** worker can never claim a chunk of a newer job with an old snapshot.
*/
#include "threadpool.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* Upper bound on threads; more than this is clamped. */
#define TPOOL_MAX_THREADS 256
/* Chunks per thread of every job: enough to even out a slow or late thread,
** few enough that claiming (one atomic add) stays negligible. */
#define TPOOL_CHUNKS 4

struct tpool_worker {
    struct tpool *pool;
    int           index;
    pthread_t     thread;
};

struct tpool {
    int                  n;          /* threads including the caller */
    pthread_mutex_t      mu;
    pthread_cond_t       wake, done;
    unsigned long        generation; /* under mu */
    int                  quit;       /* under mu */
    /* the current job (written under mu before generation changes) */
    tpool_fn             fn;
    void                *ctx;
    int                  n_chunks;
    uint64_t             claim;      /* atomic: generation << 32 | next chunk */
    int                  finished;   /* atomic: chunks done */
    struct tpool_worker *workers;    /* n - 1 of them */
    int                  n_started;
};

/* Claim the next chunk of job GEN: its index, or -1 when none is left (or
** the job is not GEN any more). */
static int
tpool_claim(struct tpool *p, uint32_t gen, int n_chunks)
{
    uint64_t old = __atomic_load_n(&p->claim, __ATOMIC_ACQUIRE);

    for (;;) {
        if ((uint32_t)(old >> 32) != gen || (int)(uint32_t)old >= n_chunks)
            return -1;
        if (__atomic_compare_exchange_n(&p->claim, &old, old + 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            return (int)(uint32_t)old;
    }
}

/* Run claimed chunks of job GEN until none is left. */
static void
tpool_work(struct tpool *p, uint32_t gen, tpool_fn fn, void *ctx, int n_chunks)
{
    int c;

    while ((c = tpool_claim(p, gen, n_chunks)) >= 0) {
        fn(ctx, c, n_chunks);
        if (__atomic_add_fetch(&p->finished, 1, __ATOMIC_ACQ_REL) == n_chunks) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
    }
}

static void *
tpool_main(void *arg)
{
    struct tpool_worker *w = arg;
    struct tpool *p = w->pool;
    unsigned long seen = 0;

    for (;;) {
        tpool_fn fn;
        void *ctx;
        int n_chunks;

        pthread_mutex_lock(&p->mu);
        while (!p->quit && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->mu);
        if (p->quit) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        seen = p->generation;
        fn = p->fn;
        ctx = p->ctx;
        n_chunks = p->n_chunks;
        pthread_mutex_unlock(&p->mu);

        tpool_work(p, (uint32_t)seen, fn, ctx, n_chunks);
    }
}

int
tpool_create(int n_threads, tpool **out, rwkv_err *err)
{
    struct tpool *p;

    *out = NULL;
    if (n_threads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        n_threads = c > 0 ? (int)c : 1;
    }
    if (n_threads > TPOOL_MAX_THREADS)
        n_threads = TPOOL_MAX_THREADS;
    p = calloc(1, sizeof *p);
    if (p == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "thread pool: out of memory");
    p->n = n_threads;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    if (n_threads > 1) {
        p->workers = calloc((size_t)n_threads - 1, sizeof *p->workers);
        if (p->workers == NULL) {
            tpool_destroy(p);
            return rwkv_errf(err, RWKV_ENOMEM, "thread pool: out of memory");
        }
        for (int i = 1; i < n_threads; i++) {
            struct tpool_worker *w = &p->workers[i - 1];
            w->pool = p;
            w->index = i;
            if (pthread_create(&w->thread, NULL, tpool_main, w) != 0) {
                /* Run with the threads we have. */
                p->n = i;
                break;
            }
            p->n_started++;
        }
    }
    *out = p;
    return RWKV_OK;
}

void
tpool_destroy(tpool *p)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n_started; i++)
        pthread_join(p->workers[i].thread, NULL);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p->workers);
    free(p);
}

int
tpool_size(const tpool *p)
{
    return p ? p->n : 1;
}

void
tpool_run(tpool *p, tpool_fn fn, void *ctx)
{
    uint32_t gen;
    int n_chunks;

    if (p == NULL || p->n <= 1) {
        fn(ctx, 0, 1);
        return;
    }
    n_chunks = p->n * TPOOL_CHUNKS;
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->n_chunks = n_chunks;
    __atomic_store_n(&p->finished, 0, __ATOMIC_RELAXED);
    p->generation++;
    gen = (uint32_t)p->generation;
    __atomic_store_n(&p->claim, (uint64_t)gen << 32, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);

    tpool_work(p, gen, fn, ctx, n_chunks);

    if (__atomic_load_n(&p->finished, __ATOMIC_ACQUIRE) < n_chunks) {
        pthread_mutex_lock(&p->mu);
        while (__atomic_load_n(&p->finished, __ATOMIC_ACQUIRE) < n_chunks)
            pthread_cond_wait(&p->done, &p->mu);
        pthread_mutex_unlock(&p->mu);
    }
}
