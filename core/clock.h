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
/* CPU time of the whole process (all its threads), seconds: with a wall
** interval, how many cores a run got. */
double  proc_cpu_s(void);
/* The median of V[N] (N >= 1; V is sorted in place): the middle value, the
** mean of the two middle values when N is even. */
double  mono_median(double *v, size_t n);

#endif
