/*
** threadpool.c -- persistent worker threads (see threadpool.h).
**
** Workers sleep on a condition variable and wake when the job generation
** changes; the caller runs share 0 itself and waits for the others.
*/
#include "threadpool.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* Upper bound on threads; more than this is clamped. */
#define TPOOL_MAX_THREADS 256

struct tpool_worker {
    struct tpool *pool;
    int           index;
    pthread_t     thread;
};

struct tpool {
    int                  n;          /* threads including the caller */
    pthread_mutex_t      mu;
    pthread_cond_t       wake, done;
    unsigned long        generation;
    int                  pending;    /* workers still running this job */
    int                  quit;
    tpool_fn             fn;
    void                *ctx;
    struct tpool_worker *workers;    /* n - 1 of them */
    int                  n_started;
};

static void *
tpool_main(void *arg)
{
    struct tpool_worker *w = arg;
    struct tpool *p = w->pool;
    unsigned long seen = 0;

    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->quit && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->mu);
        if (p->quit) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        seen = p->generation;
        pthread_mutex_unlock(&p->mu);

        p->fn(p->ctx, w->index, p->n);

        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0)
            pthread_cond_signal(&p->done);
        pthread_mutex_unlock(&p->mu);
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
    if (p == NULL || p->n <= 1) {
        fn(ctx, 0, 1);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->pending = p->n - 1;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);

    fn(ctx, 0, p->n);

    pthread_mutex_lock(&p->mu);
    while (p->pending > 0)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}
