/*
** threadpool.c -- persistent worker threads (see threadpool.h).
**
** A job is published by bumping the generation counter.  Workers wait for a
** new generation by spinning a bounded while (TPOOL_SPIN pause loops, tens
** of microseconds: a decode step issues a job every few hundred
** microseconds, and a condition-variable wake-up costs about as much as the
** job on a busy VM) and then sleep on a condition variable; the caller runs
** share 0 itself and waits for the others the same way.  Nothing spins
** without bound, so a pool on a machine shared with other processes falls
** back to sleeping instead of burning the cores they need.
*/
#include "threadpool.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* Upper bound on threads; more than this is clamped. */
#define TPOOL_MAX_THREADS 256
/* Pause iterations a waiting thread spins before it sleeps (~20-60 us). */
#define TPOOL_SPIN 2000

struct tpool_worker {
    struct tpool *pool;
    int           index;
    pthread_t     thread;
};

struct tpool {
    int                  n;          /* threads including the caller */
    pthread_mutex_t      mu;
    pthread_cond_t       wake, done;
    unsigned long        generation; /* atomic; changed under mu */
    int                  pending;    /* atomic: workers still running this job */
    int                  sleepers;   /* workers waiting on WAKE (under mu) */
    int                  quit;       /* under mu */
    tpool_fn             fn;
    void                *ctx;
    struct tpool_worker *workers;    /* n - 1 of them */
    int                  n_started;
};

static inline void
tpool_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void *
tpool_main(void *arg)
{
    struct tpool_worker *w = arg;
    struct tpool *p = w->pool;
    unsigned long seen = 0;

    for (;;) {
        int spins = 0;
        while (__atomic_load_n(&p->generation, __ATOMIC_ACQUIRE) == seen && spins < TPOOL_SPIN) {
            tpool_pause();
            spins++;
        }
        pthread_mutex_lock(&p->mu);
        p->sleepers++;
        while (!p->quit && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->mu);
        p->sleepers--;
        if (p->quit) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        seen = p->generation;
        pthread_mutex_unlock(&p->mu);

        p->fn(p->ctx, w->index, p->n);

        if (__atomic_sub_fetch(&p->pending, 1, __ATOMIC_ACQ_REL) == 0) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
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
    int spins = 0;

    if (p == NULL || p->n <= 1) {
        fn(ctx, 0, 1);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    __atomic_store_n(&p->pending, p->n - 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&p->generation, 1, __ATOMIC_RELEASE);
    if (p->sleepers > 0)
        pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);

    fn(ctx, 0, p->n);

    while (__atomic_load_n(&p->pending, __ATOMIC_ACQUIRE) > 0 && spins < TPOOL_SPIN) {
        tpool_pause();
        spins++;
    }
    if (__atomic_load_n(&p->pending, __ATOMIC_ACQUIRE) > 0) {
        pthread_mutex_lock(&p->mu);
        while (__atomic_load_n(&p->pending, __ATOMIC_ACQUIRE) > 0)
            pthread_cond_wait(&p->done, &p->mu);
        pthread_mutex_unlock(&p->mu);
    }
}
