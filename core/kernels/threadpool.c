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
** finds nothing to claim and goes back to waiting.
**
** Waiting is a short bounded spin, then sleep.  Decode issues a job every
** few tens of microseconds (one per batch of matrix products, with a little
** element-wise work between them); a worker that went to sleep on a
** condition variable after each job needed a futex wake-up per job (tens
** of microseconds before it ran, often longer than the product itself),
** so the caller did much of the work alone.  So a worker that has finished
** a job polls for the next one (pause instructions) before it sleeps, and
** the caller polls for the last running chunks before it sleeps; a wake-up
** system call is made only when someone is actually asleep.
**
** The spin is bounded (TPOOL_SPIN_NS) and adaptive.  On cores shared with
** other busy processes spinning does harm: a spinning thread burns the
** time slice that a preempted thread of ours needs to finish its chunk, and
** a woken sleeper is scheduled sooner than one that has been running
** (measured on the 2-core box with a CPU hog beside a 2-thread decode:
** yielding the core while spinning was 2-4x slower than sleeping, and a
** fixed 50 us spin no better than none).  So nobody spins for
** TPOOL_QUIET_NS once pool threads were preempted often (a burst of
** getrusage's involuntary context switches, read when a thread is about to
** spin: other processes want the cores; a lone one is the system's own
** short task and changes nothing), and
** every other wasted spin -- a worker that arrived after the caller had
** done the whole job, or a caller whose wait outlasted the spin -- divides
** the bound by TPOOL_SPIN_CUT; every useful one raises it by a
** TPOOL_SPIN_STEPS-th of the maximum.  On free cores the pool spins, on
** busy ones it sleeps as before.  Nobody ever waits for an unclaimed chunk,
** so a worker that is not running costs nothing but its share of the work.
**
** Solo runs.  Claiming cannot help with one case: a worker that claimed a
** chunk and was then preempted by another process holds that chunk until
** the scheduler runs it again (a time slice, milliseconds; the idle core
** does not pull a thread that just ran, it counts as cache-hot), and the
** caller must wait for it.  With one of two cores busy elsewhere, prefill
** (chunks of a millisecond) was measured slower with 2 threads than with 1
** (1.5B, cpu bf16, avx2: 21 vs 26 tok/s).  So the caller judges its jobs:
** it knows how much CPU time its own chunks of a job took, hence how long
** the whole job would have taken it alone: that CPU time, scaled to the job,
** over the share of a core the caller got when it last ran alone (solo_eff,
** measured over solo runs; 1 at first).  CPU time, not wall time: a caller
** that is itself preempted by the pool's own worker would otherwise make
** the parallel job look better than it is (measured: with --busy 1 not one
** window was judged lost by wall time).  The measured share keeps it
** honest on a machine crowded with other programs, where a thread alone
** gets only part of a core and a second one adds to what the process gets.
** Over windows of parallel jobs of at least TPOOL_JUDGE_NS and
** TPOOL_JUDGE_JOBS each, the older ones counting half as much per window
** (one job or window decides nothing: a stall among many won jobs is no
** reason to give up the second core), when the jobs took longer than the
** caller alone would have (plus 1/TPOOL_SOLO_SLACK_DIV and
** TPOOL_SOLO_SLACK_NS per job), it runs the following jobs alone -- on
** the caller's thread as one chunk, as a pool of one thread does, so the
** results are the same -- for solo_cur nanoseconds of their own time, then
** tries the pool again.
** Each lost window right after a solo period doubles the period (up to
** TPOOL_SOLO_MAX_NS), a won one resets it to TPOOL_SOLO_NS.  On a quiet
** machine parallel jobs win and nothing changes; on a busy one the pool
** degrades to one thread, not below it.  $RWKV_TPOOL_SOLO_MS sets the first
** period (0: never run solo).
**
** Jobs are judged by class (struct tpool_class): their work function and
** the kind of job the caller says it is (tpool_run_kind).  With one core
** busy elsewhere, prefill's matrix products (chunks of a millisecond) still
** gain from the second thread while decode's (tens of microseconds) lose,
** and one verdict for both made each phase start with the other's.
**
** Streaming jobs.  The caller's CPU time is a fair estimate of a job alone
** only when its chunks run as fast beside a worker as alone.  Decode's
** products read their weights from memory once: beside a worker each chunk
** takes longer (they share the bandwidth), so the estimate comes out high,
** and jobs slower than the caller alone still looked won (1.5B 4-bit
** decode, avx2, beside `bench --busy 1`: every product on two threads, 5-9%
** slower than one thread).  Nor can a worker that only takes turns on a
** core with another program add bandwidth worth its wake-ups and waits.
** So jobs the caller marks TPOOL_STREAM (one-token matrix products, one
** token's WKV over the heads) run alone while no core is free for a worker
** (measured as above: 2-thread decode 0.91-1.06x one thread over 4 rounds,
** the VM's noise; level on the median): every TPOOL_LOAD_EVERY_NS the caller reads the system's CPU
** time (/proc/stat's first line, ~10 us) and its own; what the other
** programs used of the cores over the interval, in cores, is their demand,
** and when it leaves fewer than TPOOL_LOAD_FREE_MIN of the process's cores
** the sample counts as full.  Niced programs' time does not count (a
** worker takes their core at once) unless this process is niced itself.
** A decayed score of the samples decides (TPOOL_LOAD_KEEP), so a short
** burst of another program's work changes little.  A process held to some
** of the cores (taskset) cannot tell which are free from system-wide
** counts: there the judging above decides alone.
**
** The claim counter holds the job's generation in its high 32 bits, so a
** late worker can never claim a chunk of a newer job with an old snapshot;
** the job's fields are read before the claim and only used when the claim
** succeeds (a job's fields do not change until every chunk of it is done).
*/
#define _GNU_SOURCE   /* RUSAGE_THREAD */
#include "threadpool.h"
#include "threadpool_quiet.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../env.h"

/* Chunks per thread of every job: enough to even out a slow or late thread,
** few enough that claiming (one atomic add) stays negligible.  A thread that
** starts late makes the other wait for up to one chunk at the job's end:
** 1.5B-shape prefill (2 threads, bench, same session) ran at 57-64% of the
** bf16 peak with 4, 66-70% with 8 (2 threads / 1 thread 1.64 -> 1.93-1.99),
** 71% with 16. */
#define TPOOL_CHUNKS 8
/* How long a waiting thread polls before it sleeps: longer than the gap
** between two products of a decoded token (element-wise work, a few to a few
** tens of microseconds), short enough that a core shared with another
** process is given back quickly.  $RWKV_TPOOL_SPIN_US overrides it (0: sleep
** at once, as before; at most TPOOL_SPIN_MAX_NS). */
#define TPOOL_SPIN_NS 50000
#define TPOOL_SPIN_MAX_NS (ENV_TPOOL_SPIN_US_MAX * 1000LL)
/* Adaptation of the spin (see tpool_adapt): a wasted spin divides the
** current bound by TPOOL_SPIN_CUT, a useful one adds 1 / TPOOL_SPIN_STEPS of
** the maximum. */
#define TPOOL_SPIN_CUT 4
#define TPOOL_SPIN_STEPS 16
/* The quiet rule (no spinning after a burst of preemptions): threadpool_quiet.h. */
/* Polls between two clock reads while spinning. */
#define TPOOL_SPIN_POLLS 32
/* Solo runs (see the top): the first period after a lost job, the longest
** one (a busy machine costs one lost window per period: at 20 ms - 0.64 s,
** a few % once the period has grown), and the margin a
** job may exceed the caller's solo estimate by before it counts as lost
** (clock reads and wake-ups: noise, not a loss): 1/16 of the job + 20 us. */
#define TPOOL_SOLO_NS 20000000
#define TPOOL_SOLO_MAX_NS (ENV_TPOOL_SOLO_MS_MAX * 1000000LL)
#define TPOOL_SOLO_SLACK_NS 20000
#define TPOOL_SOLO_SLACK_DIV 16
/* Parallel jobs are judged together once their wall time adds up to this
** and there are at least TPOOL_JUDGE_JOBS of them (prefill: several matrix
** products; decode: several tokens): on a machine crowded with other
** programs single jobs win or lose by whole time slices, and only the sum
** says whether the second thread pays (measured there, load ~10 on 2
** cores: per-job judging ran solo too often, 2-thread prefill 28 tok/s
** against 48 without solo runs). */
#define TPOOL_JUDGE_NS 50000000
#define TPOOL_JUDGE_JOBS 4
/* Work functions judged apart (more share the last slot). */
#define TPOOL_CLASSES 8
/* The caller's CPU time is read for one solo job in this many (the clock
** is a system call: ~0.4 us on an Intel Xeon VM, ~1.1 us on a PVM guest;
** decode runs hundreds of jobs a token). */
#define TPOOL_SOLO_CPU_EVERY 8
/* ... and around one parallel job of a class in this many: the window
** judges those (their wall time against the caller-alone estimate) and
** closes on the wall time of all.  Read around every job, the two reads
** (the first one before the job is published)
** cost a 1.5B token 1.2-1.9% (4-bit and int8, avx2, the two ways
** alternating token by token in one process). */
#define TPOOL_JUDGE_CPU_EVERY 4
/* Load samples for streaming jobs: one per TPOOL_LOAD_EVERY_NS at most
** (the system's times are counted in 10 ms ticks); full when the other
** programs leave fewer than TPOOL_LOAD_FREE_MIN (x 1/1024) cores; the score
** keeps (TPOOL_LOAD_KEEP - 1) / TPOOL_LOAD_KEEP of its value per sample and
** is full over half of TPOOL_LOAD_ONE. */
#define TPOOL_LOAD_EVERY_NS 50000000
#define TPOOL_LOAD_FREE_MIN 1536
#define TPOOL_LOAD_KEEP 2
#define TPOOL_LOAD_ONE 1024

static inline void
tpool_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static int64_t
tpool_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CPU time of the calling thread (ns); 0 where the clock is missing. */
static int64_t
tpool_cpu_ns(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The judging state of one class of jobs (see "Solo runs" above). */
struct tpool_class {
    tpool_fn fn;          /* NULL: a free slot */
    int      kind;        /* with FN, the key */
    int64_t  solo_cur;    /* the next solo period (ns of this class's jobs) */
    int64_t  solo_left;   /* > 0: run its jobs alone for that much more of their time */
    int      solo_last;   /* its last window was lost */
    unsigned n_par;       /* its parallel jobs so far (which are sampled) */
    int64_t  win_span;    /* this window's parallel jobs: wall time */
    int64_t  win_wall;    /* ... of those sampled (TPOOL_JUDGE_CPU_EVERY) */
    int64_t  win_alone;   /* ... their caller-alone estimates */
    int      win_jobs;    /* ... and their number */
    int64_t  ev_wall, ev_alone, ev_slack; /* decayed sums of windows */
};

struct tpool_worker {
    struct tpool *pool;
    int           index;
    pthread_t     thread;
    long          preempted;  /* involuntary context switches seen so far */
};

struct tpool {
    int                  n;          /* threads including the caller */
    pthread_mutex_t      mu;
    pthread_cond_t       wake, done;
    /* Atomics (accessed with __atomic builtins only): */
    uint32_t             generation; /* of the current job; bumped per job */
    int                  quit;
    int                  n_asleep;   /* workers blocked (or about to) on wake */
    int                  caller_asleep; /* the caller blocked (or about to) on done */
    /* the current job, written before generation changes */
    tpool_fn             fn;
    void                *ctx;
    int                  n_chunks;
    uint64_t             claim;      /* generation << 32 | next chunk */
    int                  finished;   /* chunks done */
    struct tpool_worker *workers;    /* n - 1 of them */
    int                  n_started;
    int64_t              spin_ns;    /* TPOOL_SPIN_NS or $RWKV_TPOOL_SPIN_US */
    int64_t              spin_cur;   /* atomic: the adapted bound, 0..spin_ns */
    long                 preempted;  /* the caller's, as tpool_worker's */
    struct tpool_quiet   quiet;      /* atomic fields: the quiet rule's window */
    /* solo runs (caller only, one caller at a time: plain fields) */
    int64_t              solo_ns;    /* first period; 0 = never solo */
    struct tpool_class   cls[TPOOL_CLASSES];
    int64_t              solo_cpu, solo_wall; /* the caller's, over sampled solo jobs */
    int                  solo_eff;   /* its share of a core then, 1/1024 (64..1024) */
    uint64_t             n_solo_jobs; /* jobs run solo so far (tests) */
    int                  load_fd;    /* /proc/stat, or -1: no load samples */
    int                  load_cpus;  /* the cores online */
    int64_t              load_tick;  /* ns per tick of /proc/stat */
    int64_t              load_at;    /* when the last sample was taken (ns), 0: none */
    int64_t              load_sys;   /* the system's busy time then (ns, see tpool_load_read) */
    int64_t              load_nice;  /* ... of niced programs */
    int64_t              load_ours;  /* this process's CPU time then */
    int                  load_score; /* decayed full samples, 0..TPOOL_LOAD_ONE */
};

/*
** Whether the calling thread was preempted (an involuntary context switch:
** another runnable thread took its core) since the last call with the same
** *SEEN.  On Linux from getrusage(RUSAGE_THREAD) (well under a microsecond);
** elsewhere never.
*/
static long
tpool_was_preempted(long *seen)
{
#ifdef RUSAGE_THREAD
    struct rusage ru;

    if (getrusage(RUSAGE_THREAD, &ru) == 0 && ru.ru_nivcsw != *seen) {
        long n = ru.ru_nivcsw - *seen;
        *seen = ru.ru_nivcsw;
        return n > 0 ? n : 1;
    }
#else
    (void)seen;
#endif
    return 0;
}

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

/* Run claimed chunks of job GEN until none is left; how many ran. */
static int
tpool_work(struct tpool *p, uint32_t gen, tpool_fn fn, void *ctx, int n_chunks)
{
    int c, ran = 0;

    while ((c = tpool_claim(p, gen, n_chunks)) >= 0) {
        fn(ctx, c, n_chunks);
        /* seq_cst: pairs with the caller's store of caller_asleep */
        if (__atomic_add_fetch(&p->finished, 1, __ATOMIC_SEQ_CST) == n_chunks &&
            __atomic_load_n(&p->caller_asleep, __ATOMIC_SEQ_CST)) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
        ran++;
    }
    return ran;
}

/*
** Wait until COND(P, ARG) holds, polling with pause instructions for at most
** the current spin bound; whether it holds.  Nobody spins within
** TPOOL_QUIET_NS of a burst of preemptions of pool threads (a thread counts
** its own, *PREEMPTED, see tpool_was_preempted, when it is about to spin,
** into tpool_quiet_count): the cores are oversubscribed.
*/
static int
tpool_spin(struct tpool *p, int (*cond)(struct tpool *, uint32_t), uint32_t arg,
           long *preempted)
{
    int64_t limit = __atomic_load_n(&p->spin_cur, __ATOMIC_RELAXED), t0;
    long n;

    if (cond(p, arg))
        return 1;
    if (limit <= 0)
        return 0;
    t0 = tpool_now_ns();
    if ((n = tpool_was_preempted(preempted)) > 0) {
        tpool_quiet_count(&p->quiet, t0, n);
        return 0;
    }
    if (tpool_quiet_now(&p->quiet, t0))
        return 0;
    for (int i = 1;; i++) {
        if (cond(p, arg))
            return 1;
        if (i % TPOOL_SPIN_POLLS == 0 && tpool_now_ns() - t0 >= limit)
            return 0;
        tpool_pause();
    }
}

/*
** Adapt the spin bound to how useful spinning was.  Wasted (USEFUL 0): a
** worker got to a job only after the caller had done all of it, or the
** caller's wait for a running chunk outlasted the spin -- signs that our
** threads do not get the cores (other processes run there), where spinning
** only burns the time slice that a preempted thread of ours needs.  Useful:
** a worker took part in a job, the caller's wait ended while spinning.
*/
static void
tpool_adapt(struct tpool *p, int useful)
{
    int64_t cur = __atomic_load_n(&p->spin_cur, __ATOMIC_RELAXED), next;

    if (useful) {
        next = cur + p->spin_ns / TPOOL_SPIN_STEPS;
        if (next > p->spin_ns)
            next = p->spin_ns;
    } else {
        next = cur / TPOOL_SPIN_CUT;
    }
    if (next != cur)
        __atomic_store_n(&p->spin_cur, next, __ATOMIC_RELAXED);
}

static int
tpool_has_job(struct tpool *p, uint32_t seen)
{
    return __atomic_load_n(&p->generation, __ATOMIC_SEQ_CST) != seen ||
           __atomic_load_n(&p->quit, __ATOMIC_SEQ_CST);
}

static int
tpool_all_done(struct tpool *p, uint32_t n_chunks)
{
    return __atomic_load_n(&p->finished, __ATOMIC_SEQ_CST) >= (int)n_chunks;
}

static void *
tpool_main(void *arg)
{
    struct tpool_worker *w = arg;
    struct tpool *p = w->pool;
    uint32_t seen = 0;

    for (;;) {
        uint32_t gen;

        if (!tpool_spin(p, tpool_has_job, seen, &w->preempted)) {
            pthread_mutex_lock(&p->mu);
            /* seq_cst: the caller stores generation, then reads n_asleep */
            __atomic_add_fetch(&p->n_asleep, 1, __ATOMIC_SEQ_CST);
            while (!tpool_has_job(p, seen))
                pthread_cond_wait(&p->wake, &p->mu);
            __atomic_sub_fetch(&p->n_asleep, 1, __ATOMIC_SEQ_CST);
            pthread_mutex_unlock(&p->mu);
        }
        if (__atomic_load_n(&p->quit, __ATOMIC_ACQUIRE))
            return NULL;
        gen = __atomic_load_n(&p->generation, __ATOMIC_ACQUIRE);
        seen = gen;
        /* The fields may already belong to a newer job; then the claim of
        ** GEN fails and they are not used. */
        tpool_adapt(p, tpool_work(p, gen, __atomic_load_n(&p->fn, __ATOMIC_RELAXED),
                                  __atomic_load_n(&p->ctx, __ATOMIC_RELAXED),
                                  __atomic_load_n(&p->n_chunks, __ATOMIC_RELAXED)) > 0);
    }
}

int
tpool_create(int n_threads, tpool **out, rwkv_err *err)
{
    struct tpool *p;
    double v;

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
    p->spin_ns = TPOOL_SPIN_NS;
    /* (a value out of range or not a number: the default, said by env_notes) */
    if (env_number("RWKV_TPOOL_SPIN_US", 0, ENV_TPOOL_SPIN_US_MAX, &v) == 1)
        p->spin_ns = (int64_t)(v * 1000);
    p->spin_cur = p->spin_ns;
    p->solo_ns = TPOOL_SOLO_NS;
    if (env_number("RWKV_TPOOL_SOLO_MS", 0, ENV_TPOOL_SOLO_MS_MAX, &v) == 1)
        p->solo_ns = (int64_t)(v * 1e6);
    p->solo_eff = 1024;
    p->load_fd = -1;
#ifdef __linux__
    {
        cpu_set_t set;
        long on = sysconf(_SC_NPROCESSORS_ONLN);
        /* a system-wide count says whether a core is free only to a
        ** process that may run on every core */
        if (p->solo_ns > 0 && on > 1 && sched_getaffinity(0, sizeof set, &set) == 0 &&
            CPU_COUNT(&set) == on)
            p->load_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
        p->load_cpus = (int)on;
        p->load_tick = 1000000000 / (sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100);
    }
#endif
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
    __atomic_store_n(&p->quit, 1, __ATOMIC_SEQ_CST);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n_started; i++)
        pthread_join(p->workers[i].thread, NULL);
    if (p->load_fd >= 0)
        close(p->load_fd);
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

unsigned long long
tpool_solo_jobs(const tpool *p)
{
    return p ? (unsigned long long)p->n_solo_jobs : 0;
}

/*
** Count a parallel job of class C that started at T0 and whose last chunk
** ended at T_END into the class's window; a SAMPLED one, in which the caller
** ran MINE chunks of N_CHUNKS in C_MINE ns of CPU time, with its
** caller-alone estimate.  When the window is full, judge it: lost when its
** sampled jobs took longer than the caller alone would have at its own
** pace and its share of a core when alone (solo_eff).
*/
static void
tpool_judge(struct tpool *p, struct tpool_class *c, int64_t t0, int64_t c_mine, int64_t t_end,
            int mine, int n_chunks, int sampled)
{
    int64_t wall, alone;

    c->win_span += t_end - t0;
    if (sampled) {
        /* MINE == 0: the workers did it all; the caller would have taken as long */
        c->win_wall += t_end - t0;
        c->win_alone += mine > 0 && c_mine > 0
                            ? c_mine * n_chunks / mine * 1024 / p->solo_eff
                            : t_end - t0;
        c->win_jobs++;
    }
    if (c->win_span < TPOOL_JUDGE_NS || c->win_jobs < TPOOL_JUDGE_JOBS)
        return;
    /* the evidence of earlier windows counts half as much per window:
    ** windows that alternate between won and lost go by their average */
    c->ev_wall = c->ev_wall / 2 + c->win_wall;
    c->ev_alone = c->ev_alone / 2 + c->win_alone;
    c->ev_slack = c->ev_slack / 2 + TPOOL_SOLO_SLACK_NS * (int64_t)c->win_jobs;
    wall = c->ev_wall;
    alone = c->ev_alone;
    if (wall > alone + alone / TPOOL_SOLO_SLACK_DIV + c->ev_slack) {
        if (c->solo_last) {
            c->solo_cur *= 2;
            if (c->solo_cur > TPOOL_SOLO_MAX_NS)
                c->solo_cur = TPOOL_SOLO_MAX_NS;
        }
        c->solo_left = c->solo_cur;
        c->solo_last = 1;
    } else {
        c->solo_cur = p->solo_ns;
        c->solo_last = 0;
    }
    c->win_span = c->win_wall = c->win_alone = 0;
    c->win_jobs = 0;
}

/* The system's busy time from /proc/stat's "cpu" line, in ns: *SYS all but
** niced user time (user, system, irq, softirq, steal), *NICE niced user
** time.  0, or -1 when it cannot be read. */
static int
tpool_load_read(const struct tpool *p, int64_t *sys, int64_t *nice)
{
    char buf[256];
    long long v[8];
    ssize_t got = pread(p->load_fd, buf, sizeof buf - 1, 0);

    if (got <= 0)
        return -1;
    buf[got] = '\0';
    /* cpu  user nice system idle iowait irq softirq steal ... */
    if (sscanf(buf, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3],
               &v[4], &v[5], &v[6], &v[7]) != 8)
        return -1;
    *sys = (v[0] + v[2] + v[5] + v[6] + v[7]) * p->load_tick;
    *nice = v[1] * p->load_tick;
    return 0;
}

/*
** Whether no core is free for a worker (see "Streaming jobs" above), by the
** score of load samples, taking one when TPOOL_LOAD_EVERY_NS has passed
** since the last (at time NOW).  0 without samples.
*/
static int
tpool_cores_taken(struct tpool *p, int64_t now)
{
    int64_t sys, nice, ours, others, wall;
    struct timespec ts;

    if (p->load_fd < 0 || now - p->load_at < TPOOL_LOAD_EVERY_NS)
        return 2 * p->load_score > TPOOL_LOAD_ONE;
    if (tpool_load_read(p, &sys, &nice) != 0 ||
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 2 * p->load_score > TPOOL_LOAD_ONE;
    ours = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    if (p->load_at > 0) {
        wall = now - p->load_at;
        /* our own time is in SYS, or in NICE when we are niced: then the
        ** niced programs compete with us on equal terms */
        others = sys - p->load_sys;
        if (getpriority(PRIO_PROCESS, 0) > 0)
            others += nice - p->load_nice;
        others -= ours - p->load_ours;
        p->load_score -= p->load_score / TPOOL_LOAD_KEEP;
        if ((int64_t)p->load_cpus * 1024 - (others > 0 ? others * 1024 / wall : 0) <
            TPOOL_LOAD_FREE_MIN)
            p->load_score += TPOOL_LOAD_ONE / TPOOL_LOAD_KEEP;
    }
    p->load_at = now;
    p->load_sys = sys;
    p->load_nice = nice;
    p->load_ours = ours;
    return 2 * p->load_score > TPOOL_LOAD_ONE;
}

/* The judging state of FN's jobs of KIND (the last slot when all are taken). */
static struct tpool_class *
tpool_class_of(struct tpool *p, tpool_fn fn, int kind)
{
    int i;

    for (i = 0; i < TPOOL_CLASSES - 1; i++) {
        if (p->cls[i].fn == fn && p->cls[i].kind == kind)
            return &p->cls[i];
        if (p->cls[i].fn == NULL)
            break;
    }
    if (p->cls[i].fn == NULL) {
        p->cls[i].fn = fn;
        p->cls[i].kind = kind;
        p->cls[i].solo_cur = p->solo_ns;
    }
    return &p->cls[i];
}

/* Run job FN on the caller alone, as one chunk: what a pool of one thread
** runs (every job's results are the same for any split), and a streaming
** kernel's prefetch runs on where a chunk of the pool's would end (cut in
** 16 chunks, 4-bit decode beside a busy core ran ~2% slower).  C
** (or NULL) is the class whose solo period it counts against. */
static void
tpool_run_solo(struct tpool *p, struct tpool_class *c, tpool_fn fn, void *ctx, int64_t t0)
{
    int sample = p->n_solo_jobs % TPOOL_SOLO_CPU_EVERY == 0;
    int64_t c0 = sample ? tpool_cpu_ns() : 0, t1;

    fn(ctx, 0, 1);
    t1 = tpool_now_ns();
    p->n_solo_jobs++;
    if (sample) {
        p->solo_cpu += tpool_cpu_ns() - c0;
        p->solo_wall += t1 - t0;
    }
    if (c != NULL)
        c->solo_left -= t1 - t0;
}

void
tpool_run(tpool *p, tpool_fn fn, void *ctx)
{
    tpool_run_kind(p, fn, ctx, TPOOL_OTHER);
}

void
tpool_run_kind(tpool *p, tpool_fn fn, void *ctx, enum tpool_kind kind)
{
    uint32_t gen;
    int n_chunks, mine, sampled = 0;
    int64_t t0 = 0, c0 = 0, c_mine = 0;
    struct tpool_class *cls = NULL;

    if (p == NULL || p->n <= 1) {
        fn(ctx, 0, 1);
        return;
    }
    n_chunks = p->n * TPOOL_CHUNKS;
    if (p->solo_ns > 0) {
        cls = tpool_class_of(p, fn, (int)kind);
        t0 = tpool_now_ns();
        if (cls->solo_left > 0) {
            tpool_run_solo(p, cls, fn, ctx, t0);
            return;
        }
        if (kind == TPOOL_STREAM && tpool_cores_taken(p, t0)) {
            tpool_run_solo(p, NULL, fn, ctx, t0);
            return;
        }
        sampled = cls->n_par++ % TPOOL_JUDGE_CPU_EVERY == 0;
        if (sampled)
            c0 = tpool_cpu_ns();
        if (p->solo_wall > 0) {
            /* back on the pool: the share of a core the caller got in the
            ** solo jobs sampled, averaged with the earlier ones */
            int64_t eff = p->solo_cpu * 1024 / p->solo_wall;
            eff = eff < 64 ? 64 : eff > 1024 ? 1024 : eff;
            p->solo_eff = (int)((p->solo_eff + eff) / 2);
            p->solo_cpu = p->solo_wall = 0;
        }
    }
    /* Publish the job: fields, then the claim counter, then the generation
    ** that workers poll (release: a worker that sees it sees the rest). */
    __atomic_store_n(&p->fn, fn, __ATOMIC_RELAXED);
    __atomic_store_n(&p->ctx, ctx, __ATOMIC_RELAXED);
    __atomic_store_n(&p->n_chunks, n_chunks, __ATOMIC_RELAXED);
    __atomic_store_n(&p->finished, 0, __ATOMIC_RELAXED);
    gen = __atomic_load_n(&p->generation, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&p->claim, (uint64_t)gen << 32, __ATOMIC_RELEASE);
    /* seq_cst: pairs with a worker's n_asleep increment before its check */
    __atomic_store_n(&p->generation, gen, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&p->n_asleep, __ATOMIC_SEQ_CST) > 0) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->mu);
    }

    mine = tpool_work(p, gen, fn, ctx, n_chunks);
    if (sampled)
        c_mine = tpool_cpu_ns() - c0;

    if (tpool_all_done(p, (uint32_t)n_chunks)) {
        if (p->solo_ns > 0)
            tpool_judge(p, cls, t0, c_mine, tpool_now_ns(), mine, n_chunks, sampled);
        return;
    }
    if (tpool_spin(p, tpool_all_done, (uint32_t)n_chunks, &p->preempted)) {
        tpool_adapt(p, 1);
    } else {
        tpool_adapt(p, 0);
        pthread_mutex_lock(&p->mu);
        __atomic_store_n(&p->caller_asleep, 1, __ATOMIC_SEQ_CST);
        while (!tpool_all_done(p, (uint32_t)n_chunks))
            pthread_cond_wait(&p->done, &p->mu);
        __atomic_store_n(&p->caller_asleep, 0, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&p->mu);
    }
    if (p->solo_ns > 0)
        tpool_judge(p, cls, t0, c_mine, tpool_now_ns(), mine, n_chunks, sampled);
}
