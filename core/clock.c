/*
** clock.c -- see clock.h.
*/
#include "clock.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double
mono_now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int64_t
mono_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The stops' record, as a sequence lock: SEQ is odd while a writer (one at
** a time: the stop's begin and end run in order) changes SINCE (when the
** stop began, 0 when none is on) and TOTAL (the ended stops' time); a
** reader retries when SEQ moved under it.  A lock would not do: a reader
** interrupted by the SIGTSTP handler on its own thread would hold it. */
static atomic_uint_fast64_t stop_seq;
static atomic_int_fast64_t stop_since, stop_total;

static void
stop_write(int64_t since, int64_t total)
{
    atomic_fetch_add(&stop_seq, 1);
    atomic_store(&stop_since, since);
    atomic_store(&stop_total, total);
    atomic_fetch_add(&stop_seq, 1);
}

void
mono_stop_begin(void)
{
    if (atomic_load(&stop_since) == 0)
        stop_write(mono_now_ns(), atomic_load(&stop_total));
}

void
mono_stop_end(void)
{
    int64_t since = atomic_load(&stop_since);

    if (since != 0)
        stop_write(0, atomic_load(&stop_total) + (mono_now_ns() - since));
}

double
mono_run_s(void)
{
    for (;;) {
        uint_fast64_t seq = atomic_load(&stop_seq);
        int64_t since = atomic_load(&stop_since), total = atomic_load(&stop_total);
        int64_t now = since != 0 ? since : mono_now_ns();

        if ((seq & 1) == 0 && atomic_load(&stop_seq) == seq)
            return (double)(now - total) * 1e-9;
    }
}

void
mono_stop_as_default(int sig)
{
    struct sigaction dfl, ours;
    sigset_t set;

    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, &ours);
    sigemptyset(&set);
    sigaddset(&set, sig);
    raise(sig);                                  /* pending: blocked in here */
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);    /* stops here until SIGCONT */
    sigaction(sig, &ours, NULL);
}

/* SIGTSTP: note the stop, stop as by default, note the end after SIGCONT. */
static void
on_tstp(int sig)
{
    int saved = errno;

    mono_stop_begin();
    mono_stop_as_default(sig);
    mono_stop_end();
    errno = saved;
}

void
mono_catch_stops(void)
{
    struct sigaction sa, old;

    /* not where Ctrl-Z was ignored (a program started under nohup-like
    ** settings keeps running) */
    if (sigaction(SIGTSTP, NULL, &old) != 0 || old.sa_handler == SIG_IGN)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_tstp;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTSTP, &sa, NULL);
}

double
proc_cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double
mono_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
