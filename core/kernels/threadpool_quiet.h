/*
** threadpool_quiet.h -- private to core/kernels/threadpool.c (and its unit
** test): the quiet rule, which stops the pool's threads spinning while the
** cores are oversubscribed.  Each thread counts its own preemptions when it
** is about to spin (threadpool.c, tpool_was_preempted) into the window of
** TPOOL_QUIET_WINDOW_NS they fall in; at TPOOL_QUIET_BURST in one window
** nobody spins for TPOOL_QUIET_NS.
*/
#ifndef RWKV_THREADPOOL_QUIET_H
#define RWKV_THREADPOOL_QUIET_H

#include <stdint.h>

/* No spinning for this long once pool threads were preempted
** TPOOL_QUIET_BURST times within TPOOL_QUIET_WINDOW_NS: the pool then sleeps
** as a plain condition-variable pool does.  A core that another busy
** process shares preempts a thread of ours every time slice (measured on
** the 2-core VM, 2-thread decode beside `bench --busy 1`: ~1000 a second),
** while on a quiet machine the system's own short tasks do now and then
** (20-30 a second).  Going quiet after every single one, as the pool first
** did, kept a quiet machine's pool sleeping between products nearly all
** the time (1.5B 4-bit decode, avx2: 31-33 tok/s on 1.76-1.83 cores, against
** 37-39 on 1.92-1.96 with the burst rule; --busy 1 still goes quiet).  The
** quiet machine's preemptions come in clumps, though (35-40 a second in
** 2-thread decode, a few within milliseconds of each other), and a burst
** of 4 in 20 ms still came often enough that a 300-token 1.5B decode
** refused 7,000-10,000 spins, each a worker asleep when the next product
** came: on that VM a sleeping thread wakes 12-50 us after it is signalled,
** a spinning one in 0.3 us.  16 in 50 ms (320 a second, a third of a
** shared core's rate) refused none there; old and new binary alternating,
** `bench --strategy "cpu fp32i4"`'s paired decode share rose 4-9 points in
** each of six pairs (71-80% -> 75-88%). */
#define TPOOL_QUIET_NS 200000000
#define TPOOL_QUIET_BURST 16
#define TPOOL_QUIET_WINDOW_NS 50000000

/* The window and the end of the quiet period (all atomic, relaxed: two
** threads racing may lose a count or restart a window, which only delays
** the quiet period a little, and a busy machine preempts plenty). */
struct tpool_quiet {
    int64_t win_start;     /* the current preemption window (ns) */
    long    win_count;     /* preemptions counted in it */
    int64_t quiet_until;   /* no spinning before this (ns) */
};

/* Count N preemptions of a pool thread seen at T (ns). */
static inline void
tpool_quiet_count(struct tpool_quiet *q, int64_t t, long n)
{
    if (t - __atomic_load_n(&q->win_start, __ATOMIC_RELAXED) >= TPOOL_QUIET_WINDOW_NS) {
        __atomic_store_n(&q->win_start, t, __ATOMIC_RELAXED);
        __atomic_store_n(&q->win_count, 0, __ATOMIC_RELAXED);
    }
    if (__atomic_add_fetch(&q->win_count, n, __ATOMIC_RELAXED) >= TPOOL_QUIET_BURST)
        __atomic_store_n(&q->quiet_until, t + TPOOL_QUIET_NS, __ATOMIC_RELAXED);
}

/* Whether spinning is refused at T (ns). */
static inline int
tpool_quiet_now(const struct tpool_quiet *q, int64_t t)
{
    return t < __atomic_load_n(&q->quiet_until, __ATOMIC_RELAXED);
}

#endif
