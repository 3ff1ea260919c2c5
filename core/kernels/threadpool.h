/*
** threadpool.h -- a persistent pool of compute threads.
**
** The model creates one pool at open and keeps it for its lifetime: no thread
** is created per token.  tpool_run() cuts a job into N chunks (a few per
** thread) that the caller's thread and the workers claim dynamically, and
** returns when every chunk is done: "split N ways, then join", where a slow
** or descheduled thread just takes fewer chunks.  One caller at a time per
** pool.
**
** Between jobs a waiting thread polls for a bounded time (50 us; the
** environment variable RWKV_TPOOL_SPIN_US changes it, 0 = sleep at once),
** yielding the core after the first few microseconds, then sleeps on a
** condition variable: back-to-back jobs (decode: a product every few tens
** of microseconds) start without a wake-up system call, and an idle pool
** or a core wanted by another process costs nothing.
**
** When the jobs of one class (work function and kind) over the last 50 ms
** (4 sampled jobs at least: the caller's CPU time is read around one in 4)
** took longer than the caller alone would have needed
** (workers preempted by other processes while they held a chunk), the
** caller runs that class's next jobs alone for a while (20 ms of them,
** doubling while it keeps losing, up to 0.64 s), then tries the pool again:
** on a machine whose cores are busy with other programs the pool is not
** slower than one thread.  Solo runs call FN once with n = 1, as a pool
** of one thread does, so results are the same.  RWKV_TPOOL_SOLO_MS sets the
** first period (0: never).
*/
#ifndef RWKV_THREADPOOL_H
#define RWKV_THREADPOOL_H

#include "../status.h"

typedef struct tpool tpool;

/* Work function: called once for each chunk I in [0, N) (N is chosen by the
** pool; 1 for a pool of one thread), from any thread; chunks run
** concurrently and must write disjoint data. */
typedef void (*tpool_fn)(void *ctx, int i, int n);

/* Upper bound on threads; tpool_create clamps a larger count (the command
** line refuses one: cli/opts.c). */
#define TPOOL_MAX_THREADS 256

/*
** Create a pool of N_THREADS threads in all (the caller counts as one; 0 =
** all online cores).  *OUT is owned by the caller: free with tpool_destroy.
*/
int  tpool_create(int n_threads, tpool **out, rwkv_err *err);
void tpool_destroy(tpool *p);                  /* NULL is fine */
int  tpool_size(const tpool *p);               /* 1 for a NULL pool */
/* Run FN(CTX, i, n) for every i in [0, n) in parallel; a NULL pool runs it
** inline with n = 1. */
void tpool_run(tpool *p, tpool_fn fn, void *ctx);
/* What a job is, as far as the pool's judging goes (see threadpool.c). */
enum tpool_kind {
    TPOOL_OTHER,    /* tpool_run's */
    TPOOL_STREAM,   /* reads its data from memory once (one-token products):
                    ** alone while other programs leave no core free */
    TPOOL_COMPUTE   /* arithmetic-bound (prefill's products) */
};
/* tpool_run for a job of KIND; jobs are judged by FN and KIND together. */
void tpool_run_kind(tpool *p, tpool_fn fn, void *ctx, enum tpool_kind kind);
/* How many jobs P ran on the caller alone so far (0 for NULL). */
unsigned long long tpool_solo_jobs(const tpool *p);

#endif
