/*
** test_threadpool.c -- the thread pool (core/kernels/threadpool.c) and the batched
** one-token products on it (kern_matvec_multi, core/kernels/kernels.c).
**
** Pool: every chunk of every job runs exactly once with the right count,
** whether the workers are spinning (jobs back to back), asleep (a pause
** longer than the spin between jobs) or busy; workers do take part; a pool
** is destroyed cleanly while its workers spin or sleep.  Solo runs: after
** a job that a stalled worker made slower than the caller alone, the next
** jobs run every chunk on the caller (same chunks, same n), and
** RWKV_TPOOL_SOLO_MS=0 turns that off.  Jobs are judged by work function
** and kind; streaming jobs run alone while other programs take the cores.
** Batched products: bit-for-bit what kern_matmul gives product by product
** (plus vmath's element-wise function over the whole output), for every
** dtype, odd shapes, empty matrices, 1..4 threads and more products than
** one batch holds.
*/
#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT */
#include "../harness.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../core/mem.h"
#include "../../core/kernels/kernels.h"
#include "../../core/kernels/threadpool.h"
#include "../../core/kernels/threadpool_quiet.h"
#include "../../core/kernels/vmath.h"

/* Longer than the pool's spin (TPOOL_SPIN_NS), so workers go to sleep. */
#define PAUSE_NS 2000000
#define MAX_CHUNKS 1024

static void
sleep_ns(long ns)
{
    struct timespec ts = { ns / 1000000000, ns % 1000000000 };
    nanosleep(&ts, NULL);
}

/* Busy for NS nanoseconds (CPU time, as real work). */
static void
spin_ns(long ns)
{
    struct timespec a, b;

    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

/* count_fn's work: spinning (1) or sleeping (0, the default). */
static int count_spins;

struct count_job {
    int       hits[MAX_CHUNKS];   /* atomic */
    int       bad_n;              /* atomic: calls with an unexpected n */
    int       n_seen;             /* atomic: the n of the first call */
    pthread_t who[MAX_CHUNKS];
    long      work_ns;            /* per chunk */
    long      stall_ns;           /* the first chunk a worker runs sleeps this long */
    pthread_t caller;             /* with stall_ns: the thread calling tpool_run */
    int       stalled;            /* atomic */
};

static void
count_fn(void *ctx, int i, int n)
{
    struct count_job *j = ctx;
    int expect = 0;

    if (i < 0 || i >= n || n > MAX_CHUNKS) {
        __atomic_add_fetch(&j->bad_n, 1, __ATOMIC_RELAXED);
        return;
    }
    if (!__atomic_compare_exchange_n(&j->n_seen, &expect, n, 0, __ATOMIC_RELAXED,
                                     __ATOMIC_RELAXED) &&
        expect != n)
        __atomic_add_fetch(&j->bad_n, 1, __ATOMIC_RELAXED);
    j->who[i] = pthread_self();
    if (j->work_ns > 0 && count_spins)
        spin_ns(j->work_ns);
    else if (j->work_ns > 0)
        sleep_ns(j->work_ns);
    if (j->stall_ns > 0 && !pthread_equal(pthread_self(), j->caller) &&
        __atomic_exchange_n(&j->stalled, 1, __ATOMIC_RELAXED) == 0)
        sleep_ns(j->stall_ns);   /* a worker preempted while it holds a chunk */
    __atomic_add_fetch(&j->hits[i], 1, __ATOMIC_RELAXED);
}

/* Run one job of FN / KIND (tpool_run_kind) on P with WORK_NS per chunk;
** whether every chunk ran once; *THREADS: distinct threads.  STALL_NS > 0:
** the first chunk a worker runs sleeps that long. */
static int last_chunks;   /* the n of run_class's last job */

static int
run_class(tpool *p, tpool_fn fn, enum tpool_kind kind, long work_ns, long stall_ns, int *threads)
{
    static struct count_job j;
    int ok = 1, n;

    memset(&j, 0, sizeof j);
    j.work_ns = work_ns;
    j.stall_ns = stall_ns;
    j.caller = pthread_self();
    tpool_run_kind(p, fn, &j, kind);
    n = last_chunks = j.n_seen;
    if (n < 1 || j.bad_n != 0)
        return 0;
    for (int i = 0; i < MAX_CHUNKS; i++)
        if (j.hits[i] != (i < n ? 1 : 0))
            ok = 0;
    *threads = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int q = 0; q < i; q++)
            if (pthread_equal(j.who[q], j.who[i]))
                seen = 1;
        *threads += !seen;
    }
    return ok;
}

static int
run_count_stall(tpool *p, long work_ns, long stall_ns, int *threads)
{
    return run_class(p, count_fn, TPOOL_OTHER, work_ns, stall_ns, threads);
}

static int
run_count(tpool *p, long work_ns, int *threads)
{
    return run_count_stall(p, work_ns, 0, threads);
}

/*
** Solo runs: jobs whose worker-run chunk stalls (20 ms, as a worker
** preempted by another process would) while the caller's chunks take
** 20 us each take longer than the caller alone would have, so the pool
** runs the next jobs on the caller alone: one thread, every chunk once.
** Retried: the caller may claim every chunk before a worker wakes.
*/
static void
test_solo(void)
{
    rwkv_err err;
    tpool *p = NULL;
    int ok = 1, solo_one_thread = 1, threads = 0;
    unsigned long long before;

    unsetenv("RWKV_TPOOL_SOLO_MS");
    TEST_COND("create for solo runs", tpool_create(2, &p, &err) == RWKV_OK && p != NULL);
    if (p == NULL)
        return;
    for (int r = 0; r < 100 && tpool_solo_jobs(p) == 0; r++)
        ok &= run_count_stall(p, 20000, 20000000, &threads);
    TEST_CONDF(tpool_solo_jobs(p) > 0, "jobs slower than the caller alone: %llu solo jobs "
               "follow", tpool_solo_jobs(p));
    /* the job that went solo ran on one thread; so do the ones right after */
    before = tpool_solo_jobs(p);
    for (int r = 0; r < 3; r++) {
        unsigned long long was = tpool_solo_jobs(p);
        ok &= run_count(p, 0, &threads);
        if (tpool_solo_jobs(p) > was)
            solo_one_thread &= threads == 1;
    }
    TEST_COND("solo and parallel jobs ran every chunk once with the pool's n", ok);
    TEST_COND("solo jobs ran on the caller alone", solo_one_thread);
    TEST_COND("solo count only grows", tpool_solo_jobs(p) >= before);
    tpool_destroy(p);

    /* RWKV_TPOOL_SOLO_MS=0: never solo, however slow the workers */
    setenv("RWKV_TPOOL_SOLO_MS", "0", 1);
    p = NULL;
    TEST_COND("create with solo runs off", tpool_create(2, &p, &err) == RWKV_OK && p != NULL);
    unsetenv("RWKV_TPOOL_SOLO_MS");
    if (p == NULL)
        return;
    ok = 1;
    for (int r = 0; r < 10; r++)
        ok &= run_count_stall(p, 20000, 5000000, &threads);
    TEST_COND("solo off: every chunk once", ok);
    TEST_CONDF(tpool_solo_jobs(p) == 0, "solo off: %llu solo jobs", tpool_solo_jobs(p));
    tpool_destroy(p);
    TEST_COND("NULL pool: no solo jobs", tpool_solo_jobs(NULL) == 0);
}

/* count_fn under another address: a second work function, judged apart. */
static void
count_fn2(void *ctx, int i, int n)
{
    count_fn(ctx, i, n);
}

/*
** Classes: a work function whose jobs lost (a stalled worker) runs alone;
** another function, and the same function's jobs of another kind, still
** run on the pool's threads meanwhile.
*/
static void
test_classes(void)
{
    rwkv_err err;
    tpool *p = NULL;
    int ok = 1, threads = 0, pooled_fn = 0, pooled_kind = 0;

    unsetenv("RWKV_TPOOL_SOLO_MS");
    TEST_COND("create for classes", tpool_create(2, &p, &err) == RWKV_OK && p != NULL);
    if (p == NULL)
        return;
    for (int r = 0; r < 100 && tpool_solo_jobs(p) == 0; r++)
        ok &= run_class(p, count_fn, TPOOL_OTHER, 20000, 20000000, &threads);
    TEST_CONDF(tpool_solo_jobs(p) > 0, "count_fn/0 lost: %llu solo jobs", tpool_solo_jobs(p));
    /* 50 tries: the worker may be asleep when one starts */
    for (int r = 0; r < 50 && !(pooled_fn && pooled_kind); r++) {
        ok &= run_class(p, count_fn2, TPOOL_OTHER, 50000, 0, &threads);
        pooled_fn |= threads > 1;
        ok &= run_class(p, count_fn, TPOOL_COMPUTE, 50000, 0, &threads);
        pooled_kind |= threads > 1;
    }
    ok &= run_class(p, count_fn, TPOOL_OTHER, 0, 0, &threads);
    TEST_COND("count_fn/0 still alone (its period is not over)", threads == 1);
    TEST_CONDF(last_chunks == 1, "alone as one chunk, as a pool of one thread runs it (n = %d)",
               last_chunks);
    TEST_COND("another work function runs on the pool meanwhile", pooled_fn);
    TEST_COND("the same function's jobs of another kind run on the pool meanwhile", pooled_kind);
    TEST_COND("classes: every chunk once", ok);
    tpool_destroy(p);
}

/* N processes spinning on a core each until killed (or until this process
** is gone: a test that dies leaves none behind); their pids into PIDS. */
static int
spinners_start(int n, pid_t *pids)
{
    pid_t self = getpid();
    int started = 0;

    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            while (getppid() == self)
                ;
            _exit(0);
        }
        if (pid > 0)
            pids[started++] = pid;
    }
    return started;
}

static void
spinners_stop(int n, const pid_t *pids)
{
    for (int i = 0; i < n; i++) {
        kill(pids[i], SIGKILL);
        waitpid(pids[i], NULL, 0);
    }
}

/* Of N stream jobs (16 chunks of 20 us), how many ran alone, and how many
** ran on more than one thread. */
static void
stream_jobs(tpool *p, int n, int *alone, int *spread)
{
    int threads = 0;

    *alone = *spread = 0;
    for (int r = 0; r < n; r++) {
        unsigned long long was = tpool_solo_jobs(p);
        run_class(p, count_fn, TPOOL_STREAM, 20000, 0, &threads);
        *alone += tpool_solo_jobs(p) > was;
        *spread += threads > 1;
    }
}

/* Now (*T, s) and the CPU time other programs have used so far (*O, s:
** the system's busy time from /proc/stat less this process's; niced
** programs' only when this process is niced, as the pool counts them). */
static int
other_cpu(double *t, double *o)
{
    long long v[8];
    struct timespec now, mine;
    FILE *f = fopen("/proc/stat", "r");
    int got = f ? fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1],
                         &v[2], &v[3], &v[4], &v[5], &v[6], &v[7])
                : 0;

    if (f)
        fclose(f);
    if (got != 8)
        return 0;
    clock_gettime(CLOCK_MONOTONIC, &now);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mine);
    *t = (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
    *o = (double)(v[0] + v[2] + v[5] + v[6] + v[7] +
                  (getpriority(PRIO_PROCESS, 0) > 0 ? v[1] : 0)) /
             (double)sysconf(_SC_CLK_TCK) -
         ((double)mine.tv_sec + (double)mine.tv_nsec * 1e-9);
    return 1;
}

/* Stream jobs for NS ns: a load sample per 50 ms. */
static void
stream_warm(tpool *p, long ns)
{
    struct timespec a, b;
    int alone, spread;

    clock_gettime(CLOCK_MONOTONIC, &a);
    do {
        stream_jobs(p, 10, &alone, &spread);
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

/*
** Streaming jobs run alone while other programs take every core but one
** (real spinning processes, one per core but ours), and on the pool again
** once they are gone (niced programs, as the other engineers' builds here
** may be, do not count) -- judged over a stretch that the other programs
** really left free, measured here as the pool measures it.  A process held to some of the cores (taskset) does
** not look at the load: skipped there.
*/
static void
test_stream(void)
{
    rwkv_err err;
    tpool *p = NULL;
    cpu_set_t set;
    long on = sysconf(_SC_NPROCESSORS_ONLN);
    pid_t pids[64];
    int n_spin, alone = 0, spread = 0;
    double others = 1;

    if (on < 2 || on > 64 || sched_getaffinity(0, sizeof set, &set) != 0 ||
        CPU_COUNT(&set) != on) {
        TEST_SKIP(3, "stream jobs: needs 2-64 cores, all of them this process's (%ld online)",
                  on);
        return;
    }
    unsetenv("RWKV_TPOOL_SOLO_MS");
    TEST_COND("create for stream jobs", tpool_create(2, &p, &err) == RWKV_OK && p != NULL);
    if (p == NULL)
        return;
    count_spins = 1;   /* the pool judges CPU time: work that uses some */
    n_spin = spinners_start((int)on - 1, pids);
    stream_warm(p, 400000000L);   /* the load score builds up */
    stream_jobs(p, 200, &alone, &spread);
    spinners_stop(n_spin, pids);
    TEST_CONDF(n_spin == on - 1 && alone >= 180,
               "%d other programs spinning on %ld cores: %d of 200 stream jobs ran alone",
               n_spin, on, alone);
    /* the score decays; judged only when the other programs left the
    ** cores free (under 0.15 of a core on average) for 0.8 s before the
    ** jobs and while they ran: longer than the longest solo period a
    ** busy stretch may have started (TPOOL_SOLO_MAX_NS, 0.64 s), and the
    ** load score mostly holds its last samples.  Up to 5 tries: this
    ** machine may be busy with something else, or the hypervisor take a
    ** core. */
    for (int tries = 0; tries < 5; tries++) {
        double t0, tm, t1, o0, om, o1;
        if (!other_cpu(&t0, &o0))
            break;
        stream_warm(p, 800000000L);
        if (!other_cpu(&tm, &om))
            break;
        stream_jobs(p, 200, &alone, &spread);
        if (!other_cpu(&t1, &o1))
            break;
        /* free before the jobs and while they ran (a burst that starts
        ** among them turns the score as it should) */
        others = (om - o0) / (tm - t0);
        if (t1 > tm && (o1 - om) / (t1 - tm) > others)
            others = (o1 - om) / (t1 - tm);
        if (others < 0.15)
            break;
    }
    if (others < 0.15) {
        TEST_CONDF(spread > 0, "cores free again: %d of 200 stream jobs ran on the pool's "
                   "threads", spread);
        TEST_CONDF(alone < 100, "cores free again: %d of 200 stream jobs ran alone", alone);
    } else {
        TEST_INFO("other programs kept %.1f cores busy: stream jobs on free cores not judged",
                  others);
    }
    count_spins = 0;
    tpool_destroy(p);
}

static void
test_pool(void)
{
    static const int sizes[] = { 1, 2, 3, 4, 8 };
    rwkv_err err;

    /* never solo: on a busy machine the pool may judge the slow jobs below
    ** lost and run them alone for up to TPOOL_SOLO_MAX_NS, so no worker
    ** would take a chunk (solo runs: test_solo) */
    setenv("RWKV_TPOOL_SOLO_MS", "0", 1);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        tpool *p = NULL;
        int ok = 1, threads = 0, max_threads = 0;

        TEST_CONDF(tpool_create(sizes[s], &p, &err) == RWKV_OK, "create %d", sizes[s]);
        if (p == NULL)
            continue;
        TEST_CONDF(tpool_size(p) == sizes[s], "size %d: %d", sizes[s], tpool_size(p));
        /* back to back: workers spinning */
        for (int r = 0; r < 3000; r++)
            ok &= run_count(p, 0, &threads);
        TEST_CONDF(ok, "%d threads: back-to-back jobs ran every chunk once", sizes[s]);
        /* with pauses: workers asleep between jobs */
        ok = 1;
        for (int r = 0; r < 20; r++) {
            sleep_ns(PAUSE_NS);
            ok &= run_count(p, 0, &threads);
        }
        TEST_CONDF(ok, "%d threads: jobs after a pause ran every chunk once", sizes[s]);
        /* slow chunks: the workers take some (retried: a busy machine may
        ** not run a worker in time for one job) */
        ok = 1;
        for (int r = 0; r < 50 && max_threads < 2; r++) {
            ok &= run_count(p, 200000, &threads);
            if (threads > max_threads)
                max_threads = threads;
        }
        TEST_CONDF(ok, "%d threads: slow jobs ran every chunk once", sizes[s]);
        TEST_CONDF(sizes[s] > 1 ? max_threads >= 2 : max_threads == 1,
                   "%d threads: chunks ran on %d threads", sizes[s], max_threads);
        tpool_destroy(p);   /* workers spinning right after a job */
    }
    unsetenv("RWKV_TPOOL_SOLO_MS");
    {
        tpool *p = NULL;
        int threads;
        TEST_COND("create for a sleeping destroy", tpool_create(3, &p, &err) == RWKV_OK);
        TEST_COND("one job", p != NULL && run_count(p, 0, &threads));
        sleep_ns(PAUSE_NS);
        tpool_destroy(p);   /* workers asleep */
        tpool_destroy(NULL);
        TEST_COND("NULL pool size", tpool_size(NULL) == 1);
    }
    {
        struct count_job *j = calloc(1, sizeof *j);
        tpool_run(NULL, count_fn, j);
        TEST_COND("NULL pool runs one chunk inline", j->hits[0] == 1 && j->n_seen == 1);
        free(j);
    }
}

/* ---- kern_matvec_multi ---------------------------------------------------- */

static uint64_t rng = 0x243f6a8885a308d3ull;

static float
frand(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((rng >> 40) & 0xffffff) / 16777216.0f * 2.0f - 1.0f;
}

struct owned {
    kern_mat m;
    void    *data;
    float   *scales;
};

static void
make_mat(struct owned *o, enum kern_dtype dt, int rows, int cols)
{
    size_t n = (size_t)rows * (size_t)cols;
    float *f = malloc(sizeof(float) * (n ? n : 1));

    for (size_t i = 0; i < n; i++)
        f[i] = frand();
    memset(o, 0, sizeof *o);
    o->m.dtype = dt;
    o->m.rows = rows;
    o->m.cols = cols;
    o->data = malloc((size_t)kern_data_bytes(dt, rows, cols) + 1);
    switch (dt) {
    case KERN_F32:
        memcpy(o->data, f, n * sizeof(float));
        break;
    case KERN_BF16:
        simd_f32_to_bf16(kern_default_kernels(), f, o->data, n);
        break;
    case KERN_F16:
        simd_f32_to_f16(kern_default_kernels(), f, o->data, n);
        break;
    case KERN_Q8:
        o->scales = malloc(sizeof(float) * ((size_t)rows * (size_t)simd_q8_nblocks(cols) + 1));
        kern_q8_quantize(f, cols, 0, rows, o->data, o->scales);
        break;
    case KERN_Q4:
        simd_q4_quantize(f, cols, 0, rows, o->data);
        break;
    }
    o->m.data = o->data;
    o->m.scales = o->scales;
    free(f);
}

/* The reference: the function over the whole output at once. */
static void
ref_act(enum kern_act a, float *y, size_t n)
{
    switch (a) {
    case KERN_ACT_TANH: vm_tanh(vm_default(), y, y, n); break;
    case KERN_ACT_SIGMOID: vm_sigmoid(vm_default(), y, y, n); break;
    case KERN_ACT_RELU2: vm_relu2(vm_default(), y, y, n); break;
    default: break;
    }
}

/* N products of random dtypes and shapes (some odd, some empty; every
** sixth shares the X of the one before) on T threads (0 = NULL context),
** with the scratch for prepared X when PREP; whether every output matches
** kern_matmul's (single-threaded) bit for bit, as does kern_matmul on the
** context for one token. */
static int
check_multi(int n, int threads, int big, int prep)
{
    static const enum kern_dtype dts[] = { KERN_F32, KERN_BF16, KERN_F16, KERN_Q8, KERN_Q4 };
    struct owned *o = calloc((size_t)n, sizeof *o);
    kern_mv *list = calloc((size_t)n, sizeof *list);
    float **x = calloc((size_t)n, sizeof *x), **y = calloc((size_t)n, sizeof *y);
    float **ref = calloc((size_t)n, sizeof *ref);
    tpool *p = NULL;
    kern_ctx kc;
    rwkv_err err;
    int ok = 1;

    if (threads > 0 && tpool_create(threads, &p, &err) != RWKV_OK)
        return 0;
    memset(&kc, 0, sizeof kc);
    kc.pool = p;
    kc.k = kern_default_kernels();
    for (int i = 0; i < n; i++) {
        int rows = (int)(rng >> 33) % (big ? 700 : 40) + (i % 5 == 4 ? 0 : 1);
        int cols = (int)(rng >> 45) % (big ? 900 : 70) + (i % 7 == 6 ? 0 : 1);
        int share = i % 6 == 5;
        frand();
        if (share)
            cols = o[i - 1].m.cols;
        make_mat(&o[i], dts[(size_t)(share ? i - 1 : i) % (sizeof dts / sizeof dts[0])], rows,
                 cols);
        x[i] = malloc(sizeof(float) * ((size_t)cols + 1));
        y[i] = malloc(sizeof(float) * ((size_t)rows + 1));
        ref[i] = malloc(sizeof(float) * ((size_t)rows + 1));
        for (int c = 0; c < cols; c++)
            x[i][c] = frand();
        for (int r = 0; r < rows; r++)
            y[i][r] = NAN;
        list[i] = (kern_mv){ &o[i].m, share ? x[i - 1] : x[i], y[i], (enum kern_act)(i % 4) };
        kern_matmul(NULL, &o[i].m, list[i].x, 1, ref[i]);
        if (cols == 0)
            for (int r = 0; r < rows; r++)
                ref[i][r] = 0;
        if (prep && kern_mv_ws_bytes(&o[i].m) > kc.mv_bytes)
            kc.mv_bytes = kern_mv_ws_bytes(&o[i].m);
    }
    if (kc.mv_bytes > 0 && (kc.mv_ws = mem_alloc(kc.mv_bytes)) == NULL)
        kc.mv_bytes = 0;
    for (int i = 0; i < n; i++) {   /* kern_matmul on the context, one token */
        if (o[i].m.rows > 0 && o[i].m.cols > 0) {
            kern_matmul(threads > 0 ? &kc : NULL, &o[i].m, list[i].x, 1, y[i]);
            if (memcmp(y[i], ref[i], sizeof(float) * (size_t)o[i].m.rows) != 0) {
                TEST_INFO("kern_matmul T=1, product %d (%s %dx%d) differs", i,
                          simd_dtype_name((enum simd_dtype)o[i].m.dtype), o[i].m.rows,
                          o[i].m.cols);
                ok = 0;
            }
        }
        ref_act(list[i].act, ref[i], (size_t)o[i].m.rows);
        for (int r = 0; r < o[i].m.rows; r++)
            y[i][r] = NAN;
    }
    kern_matvec_multi(threads > 0 ? &kc : NULL, list, n);
    for (int i = 0; i < n; i++)
        for (int r = 0; r < o[i].m.rows; r++)
            if (memcmp(&y[i][r], &ref[i][r], sizeof(float)) != 0) {
                if (ok)
                    TEST_INFO("product %d (%s %dx%d, act %d) row %d: %g vs %g", i,
                              simd_dtype_name((enum simd_dtype)o[i].m.dtype), o[i].m.rows,
                              o[i].m.cols, (int)list[i].act, r, y[i][r], ref[i][r]);
                ok = 0;
            }
    for (int i = 0; i < n; i++) {
        free(o[i].data);
        free(o[i].scales);
        free(x[i]);
        free(y[i]);
        free(ref[i]);
    }
    free(o);
    free(list);
    free(x);
    free(y);
    free(ref);
    mem_free(kc.mv_ws);
    tpool_destroy(p);
    return ok;
}

/* 4-bit products of different widths in one batch, the first two passes
** of the matvec wide (cols > SIMD_Q4_XCOLS): their prepared inputs, of
** different sizes, must not overlap in the scratch. */
static int
check_multi_wide(void)
{
    static const int shape[3][2] = { { 16, 16384 + 100 }, { 64, 300 }, { 64, 2000 } };
    struct owned o[3];
    kern_mv list[3];
    float *x[3], *y[3], *ref[3];
    tpool *p = NULL;
    kern_ctx kc;
    rwkv_err err;
    int ok = tpool_create(2, &p, &err) == RWKV_OK;

    memset(&kc, 0, sizeof kc);
    kc.pool = p;
    kc.k = kern_default_kernels();
    for (int i = 0; i < 3; i++) {
        make_mat(&o[i], KERN_Q4, shape[i][0], shape[i][1]);
        x[i] = malloc(sizeof(float) * (size_t)shape[i][1]);
        y[i] = malloc(sizeof(float) * (size_t)shape[i][0]);
        ref[i] = malloc(sizeof(float) * (size_t)shape[i][0]);
        for (int c = 0; c < shape[i][1]; c++)
            x[i][c] = frand();
        kern_matmul(NULL, &o[i].m, x[i], 1, ref[i]);
        list[i] = (kern_mv){ &o[i].m, x[i], y[i], KERN_ACT_NONE };
        if (kern_mv_ws_bytes(&o[i].m) > kc.mv_bytes)
            kc.mv_bytes = kern_mv_ws_bytes(&o[i].m);
    }
    kc.mv_ws = mem_alloc(kc.mv_bytes);
    if (ok && kc.mv_ws != NULL) {
        kern_matvec_multi(&kc, list, 3);
        for (int i = 0; i < 3; i++)
            ok &= memcmp(y[i], ref[i], sizeof(float) * (size_t)shape[i][0]) == 0;
    } else {
        ok = 0;
    }
    for (int i = 0; i < 3; i++) {
        free(o[i].data);
        free(o[i].scales);
        free(x[i]);
        free(y[i]);
        free(ref[i]);
    }
    mem_free(kc.mv_ws);
    tpool_destroy(p);
    return ok;
}

static void
test_multi(void)
{
    static const int counts[] = { 1, 2, 7, KERN_MV_MAX, KERN_MV_MAX + 5 };

    for (int threads = 0; threads <= 4; threads++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
            for (int big = 0; big <= 1; big++)
                for (int prep = 0; prep <= 1; prep++)
                    TEST_CONDF(check_multi(counts[c], threads, big, prep),
                               "kern_matvec_multi: %d products (%s), %d threads%s: differs "
                               "from kern_matmul", counts[c], big ? "large" : "small", threads,
                               prep ? ", X prepared once" : "");
    TEST_COND("kern_matvec_multi: 4-bit products of two widths (one over SIMD_Q4_XCOLS), X "
              "prepared once each: the same as kern_matmul", check_multi_wide());
    kern_matvec_multi(NULL, NULL, 0);   /* nothing to do */
    TEST_COND("no products", 1);
}

/* The quiet rule: TPOOL_QUIET_BURST preemptions within one window of
** TPOOL_QUIET_WINDOW_NS stop spinning for TPOOL_QUIET_NS; fewer, or the
** same number spread over windows, do not (a quiet machine's clumps). */
static void
test_quiet(void)
{
    const int64_t t0 = (int64_t)1000 * 1000 * 1000 * 1000, w = TPOOL_QUIET_WINDOW_NS;
    struct tpool_quiet q = { 0 };
    int64_t t = t0;

    for (int i = 0; i < TPOOL_QUIET_BURST - 1; i++, t += w / TPOOL_QUIET_BURST)
        tpool_quiet_count(&q, t, 1);
    TEST_COND("quiet rule: one short of the burst within a window still spins",
              !tpool_quiet_now(&q, t));
    tpool_quiet_count(&q, t, 1);
    TEST_COND("quiet rule: the burst within a window stops spinning", tpool_quiet_now(&q, t));
    TEST_COND("quiet rule: ... for TPOOL_QUIET_NS",
              tpool_quiet_now(&q, t + TPOOL_QUIET_NS - 1) && !tpool_quiet_now(&q, t + TPOOL_QUIET_NS));

    memset(&q, 0, sizeof q);   /* half a burst in each of two windows */
    tpool_quiet_count(&q, t0, TPOOL_QUIET_BURST / 2);
    tpool_quiet_count(&q, t0 + w, TPOOL_QUIET_BURST / 2);
    TEST_COND("quiet rule: a burst spread over two windows still spins",
              !tpool_quiet_now(&q, t0 + w));
    tpool_quiet_count(&q, t0 + w + w - 1, TPOOL_QUIET_BURST / 2);
    TEST_COND("quiet rule: ... until the second window holds a whole burst",
              tpool_quiet_now(&q, t0 + 2 * w - 1));

    memset(&q, 0, sizeof q);   /* preemptions counted several at once */
    tpool_quiet_count(&q, t0, TPOOL_QUIET_BURST);
    TEST_COND("quiet rule: a thread's count of a whole burst at once stops spinning",
              tpool_quiet_now(&q, t0 + 1));
}

int
main(void)
{
    test_pool();
    test_solo();
    test_classes();
    test_stream();
    test_multi();
    test_quiet();
    return TEST_REPORT();
}
