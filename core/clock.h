/*
** clock.h -- the one monotonic clock and median helper of the project, for
** timing intervals (chat statistics, save throttling, bench, the benchmark
** programs).  Never for wall-clock dates (storage uses time(2) for those).
*/
#ifndef RWKV_CLOCK_H
#define RWKV_CLOCK_H

#include <stddef.h>
#include <stdint.h>

/* Seconds / nanoseconds on CLOCK_MONOTONIC (an arbitrary origin). */
double  mono_now_s(void);
int64_t mono_now_ns(void);
/*
** Run time: CLOCK_MONOTONIC less the time the process spent stopped by
** Ctrl-Z (a speed that counted the minutes in the shell would be saved
** with the turn).  mono_stop_begin / mono_stop_end bracket a stop the
** program makes itself (the full-screen client's C-z); mono_catch_stops()
** makes SIGTSTP (the line commands' Ctrl-Z) do the same and then stop as
** by default.  All three, and the readers, are async-signal-safe and may
** be called from any thread: a stop's time is left out from its begin,
** also for a reader that runs after the SIGCONT and before the end.  A
** SIGSTOP from elsewhere cannot be caught and is counted.
*/
double  mono_run_s(void);
void    mono_stop_begin(void);
void    mono_stop_end(void);
void    mono_catch_stops(void);
/* From a handler of the stop signal SIG (SIGTSTP): stop as its default
** action does, until SIGCONT, the handler in place again after.  Only
** async-signal-safe calls. */
void    mono_stop_as_default(int sig);
/* CPU time of the whole process (all its threads), seconds: with a wall
** interval, how many cores a run got. */
double  proc_cpu_s(void);
/* The median of V[N] (N >= 1; V is sorted in place): the middle value, the
** mean of the two middle values when N is even. */
double  mono_median(double *v, size_t n);

#endif
