/*
** cmd_bench.c -- `rwkv-tui bench`: load time, memory, prefill and decode
** speed of a model, with the machine's limits measured in the same
** invocation; and `bench --shape NAME --save PATH`, which writes a
** random-weight model file of a real shape (core/model/model_gen.h).
**
** Numbers are medians over --repeat runs.  Decode streams every weight once
** per token, so its ceiling is (read bandwidth / weight bytes per token).
** Prefill is arithmetic: its ceiling is (peak FLOP/s / flops per token),
** flops per token = 2 x the matrix elements a token is multiplied with (the
** layers' linears and LoRA matrices every token, the head once per call, so
** 1/chunk of it per token; the embedding is a row lookup).  The peak is
** measured by simd_peak_probe on every bench thread at once: fp32 FMA for
** fp32 / fp16 strategies, the bf16 dot product (vdpbf16ps) for bf16 and int8
** ones (the int8 matmul runs on the bf16 dot kernel); with the AVX2 kernel
** set (RWKV_KERNELS=avx2, or a CPU without AVX-512) both probes are ymm FMA.
** Both shares are what stays comparable on a noisy shared machine.  The
** report names the kernel set and the CPU's features (core/kernels/cpuid.h);
** --busy N runs N spinning processes beside the whole run.
*/
#include "cli.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../core/chat/sampler.h"
#include "../core/io/ckpt.h"
#include "../core/clock.h"
#include "../core/kernels/cpuid.h"
#include "../core/kernels/kernels.h"
#include "../core/mem.h"
#include "../core/model/model_gen.h"
#include "../core/rwkv.h"
#include "../core/kernels/simd.h"
#include "../core/model/strategy.h"
#include "../gpu/gpu.h"

/* A /proc/self/status value in MiB ("VmRSS:", "VmHWM:"; 0 if unavailable). */
static double
status_mib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t kl = strlen(key);
    double kb = 0;

    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, key, kl) == 0)
            kb = strtod(line + kl, NULL);
    fclose(f);
    return kb / 1024.0;
}

/* Start the peak-RSS count afresh (Linux: "5" to clear_refs resets VmHWM),
** so the baselines' buffers before the load do not count. */
static void
reset_peak_rss(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");

    if (f != NULL) {
        fputs("5", f);
        fclose(f);
    }
}

static double
maxd(double a, double b)
{
    return a > b ? a : b;
}

/* Resident set size now / at its peak, MiB. */
static double
rss_mib(void)
{
    return status_mib("VmRSS:");
}

static double
peak_rss_mib(void)
{
    return status_mib("VmHWM:");
}

/*
** Read bandwidth in bytes/s: THREADS threads each read their slice of a
** buffer much larger than the caches with simd_read_probe (4 and then 8
** interleaved streams, software prefetch, K's vector loads), as decode
** streams its weights; for each count the median of 7 passes after one not
** counted, and the better count is the figure.  (One plain stream per
** thread read 25-45% less than the decode kernels did on an Intel Xeon,
** which put decode at 110-150% of its "bound"; a memcpy on one thread is
** lower still.  8 streams alone read ~45 GB/s where 4 read ~59 on a Zen 5
** VM, and the decode kernels read up to 49.)  The buffer is advised huge
** pages as the prepared weights are (mem_alloc_huge): in 4 KiB pages it
** read 10-15% less on that VM (THP [madvise]).  The first pass after the
** buffer is written read half as fast there.
*/
#define BW_BYTES ((size_t)512 << 20)
#define BW_PASSES 7

struct bw_job {
    const simd_kernels *k;
    const char         *p;
    size_t              n;     /* bytes */
    int                 streams;
    uint64_t            sum;   /* OUT: stored, so the reads cannot be elided */
};

static void *
bw_sum(void *arg)
{
    struct bw_job *j = arg;

    j->sum = simd_read_probe(j->k, j->p, j->n, j->streams);
    return NULL;
}

/* Seconds for THREADS threads to read BYTES of BUF once as STREAMS streams
** each (every thread its own slice). */
static double
bw_pass(const simd_kernels *k, const char *buf, size_t bytes, int threads, int streams)
{
    struct bw_job job[64];
    pthread_t tid[64];
    int created[64] = { 0 };
    size_t part = bytes / (size_t)threads / 64 * 64;
    double t0 = mono_now_s();

    for (int i = 0; i < threads; i++) {
        job[i].k = k;
        job[i].streams = streams;
        job[i].p = buf + part * (size_t)i;
        job[i].n = i == threads - 1 ? bytes - part * (size_t)i : part;
        if (i > 0)
            created[i] = pthread_create(&tid[i], NULL, bw_sum, &job[i]) == 0;
    }
    bw_sum(&job[0]);
    for (int i = 1; i < threads; i++) {
        if (created[i])
            pthread_join(tid[i], NULL);
        else
            bw_sum(&job[i]);   /* no thread could be made: do it here */
    }
    return mono_now_s() - t0;
}

static int
bw_threads(int threads)
{
    return threads < 1 ? 1 : threads > 64 ? 64 : threads;
}

/* Bandwidth of THREADS threads reading BUF (BW_BYTES, written) as STREAMS
** streams each: one pass not counted, then the median of PASSES (at most
** BW_PASSES). */
static double
bw_streams(const simd_kernels *k, const char *buf, int threads, int passes, int streams)
{
    double t[BW_PASSES + 1];

    if (passes > BW_PASSES)
        passes = BW_PASSES;
    for (int r = 0; r <= passes; r++)   /* pass 0: warm-up */
        t[r] = bw_pass(k, buf, BW_BYTES, bw_threads(threads), streams);
    return (double)BW_BYTES / mono_median(t + 1, (size_t)passes);
}

/* The better of 4 and 8 streams (above); the better count into *STREAMS
** when not NULL. */
static double
bw_measure(const simd_kernels *k, const char *buf, int threads, int passes, int *streams)
{
    double b4 = bw_streams(k, buf, threads, passes, 4);
    double b8 = bw_streams(k, buf, threads, passes, 8);

    if (streams != NULL)
        *streams = b8 > b4 ? 8 : 4;
    return maxd(b4, b8);
}

/*
** The paired probe.  The bandwidth moves by a quarter between seconds on a
** shared machine (the 2-vCPU VM: 45-82 GB/s within a minute), so a bound
** probed before, between or after the runs -- even the best of several --
** says little about the seconds a decode run had: its shares moved 67-93%
** between runs of one binary.  So every other decoded token (the 2nd, 4th,
** ...) is followed by one pass of the probe over its buffer at the stream
** count that read best before the load: each such token's read rate
** (weight bytes / its time) over the rate read right after it is a share
** measured in the same conditions, and their median is the paired share (a
** pass over half the buffer read 3-5% less).  The token after a pass is
** not timed at all: in one process, tokens after a pass took 1.5-2% longer
** than tokens after a token (the pool's workers had gone to sleep), so
** decode tok/s counts only the tokens that follow a token (and the first).
*/

/* The probe's buffer, every page really there; NULL when out of memory. */
static char *
bw_buffer(void)
{
    char *buf = mem_alloc_huge(BW_BYTES);

    if (buf != NULL)
        memset(buf, 1, BW_BYTES);
    return buf;
}

static double
read_bandwidth(const simd_kernels *k, int threads, int *streams)
{
    char *buf = bw_buffer();
    double bw;

    if (streams != NULL)
        *streams = 4;
    if (buf == NULL)
        return 0;
    bw = bw_measure(k, buf, threads, BW_PASSES, streams);
    mem_free(buf);
    return bw;
}

/*
** Arithmetic peak in FLOP/s of THREADS threads running simd_peak_probe(K,
** DT) at once (register-only multiply-add chains), median of PEAK_PASSES
** passes of about PEAK_SECONDS each.
*/
#define PEAK_PASSES 3
#define PEAK_SECONDS 0.1

struct peak_job {
    const simd_kernels *k;
    enum simd_dtype     dt;
    int64_t             iters;
};

static void *
peak_run(void *arg)
{
    struct peak_job *j = arg;

    simd_peak_probe(j->k, j->dt, j->iters);
    return NULL;
}

static double
arith_peak(const simd_kernels *k, enum simd_dtype dt, int threads)
{
    struct peak_job job;
    pthread_t tid[64];
    double t[PEAK_PASSES], per_iter = simd_peak_probe(k, dt, 1), t0;
    int64_t iters = 1 << 12;

    if (threads < 1)
        threads = 1;
    if (threads > 64)
        threads = 64;
    job.k = k;
    job.dt = dt;
    /* calibrate on one thread: about PEAK_SECONDS per pass */
    for (;;) {
        t0 = mono_now_s();
        simd_peak_probe(k, dt, iters);
        if (mono_now_s() - t0 > PEAK_SECONDS / 4 || iters > ((int64_t)1 << 40))
            break;
        iters *= 2;
    }
    iters *= 4;
    job.iters = iters;
    for (int r = 0; r < PEAK_PASSES; r++) {
        int created[64] = { 0 };
        t0 = mono_now_s();
        for (int i = 1; i < threads; i++)
            created[i] = pthread_create(&tid[i], NULL, peak_run, &job) == 0;
        peak_run(&job);
        for (int i = 1; i < threads; i++) {
            if (created[i])
                pthread_join(tid[i], NULL);
            else
                peak_run(&job);
        }
        t[r] = mono_now_s() - t0;
    }
    return per_iter * (double)iters * threads / mono_median(t, (size_t)PEAK_PASSES);
}

/*
** Which peak bounds prefill under STRATEGY: the weight dtype of most layers
** (bf16 or any int8 / 4-bit stage: the bf16 dot product; fp32 / fp16: FMA).
*/
static int
strategy_uses_bf16_dot(const char *strategy, int n_layer)
{
    strat st;
    int *slot, bf = 0;

    if (n_layer <= 0 || strat_parse(strategy, &st, NULL) != RWKV_OK)
        return 0;
    slot = malloc(sizeof *slot * ((size_t)n_layer + 1));
    if (slot == NULL)
        return 0;
    strat_plan(&st, n_layer, slot);
    for (int l = 0; l < n_layer; l++) {
        const strat_stage *s = &st.stages[slot[l]];
        bf += s->quant == 8 || s->quant == 4 || s->dtype == STRAT_BF16;   /* i4: bf16 panels too */
    }
    free(slot);
    return 2 * bf > n_layer;
}

/*
** --busy N: N child processes that spin on a core each for the whole run
** (the "another program holds a core" case: 2-thread figures on a 2-core
** machine with --busy 1 show what a descheduled pool thread costs).  A
** child exits by itself when its parent is gone; bench_busy_stop kills
** and reaps them on every exit path.
*/
#define BENCH_MAX_BUSY 64

static void
bench_busy_child(pid_t parent)
{
    volatile uint64_t spin = 0;

    for (;;) {
        for (int i = 0; i < (1 << 20); i++)
            spin = spin + 1;
        if (getppid() != parent)
            _exit(0);
    }
}

/* Start N spinners into PIDS; how many started. */
static int
bench_busy_start(int n, pid_t *pids)
{
    pid_t self = getpid();
    int got = 0;

    fflush(stdout);
    fflush(stderr);
    for (int i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0)
            bench_busy_child(self);
        if (p > 0)
            pids[got++] = p;
    }
    return got;
}

static void
bench_busy_stop(int n, pid_t *pids)
{
    for (int i = 0; i < n; i++)
        kill(pids[i], SIGKILL);
    for (int i = 0; i < n; i++)
        waitpid(pids[i], NULL, 0);
}

static void
usage(FILE *f)
{
    fprintf(f, "usage: " PROG " bench (--model PATH | --demo | --shape NAME) [--strategy S]\n"
               "          [--threads N] [--prompt-tokens N] [--gen-tokens N] [--chunk N]\n"
               "          [--repeat R] [--seed N] [--busy N] [--json]\n"
               "       " PROG " bench --shape NAME --save PATH [--dtype bf16|fp16|fp32]\n"
               "          [--seed N] [--threads N]\n\n"
               "--shape builds a random-weight RWKV-7 model of a real shape in memory (no\n"
               "download): demo, 0.1b (L12 C768), 0.4b (L24 C1024), 1.5b (L24 C2048),\n"
               "3b (L32 C2560), vocab 65536.\n\n"
               "--save PATH writes the random-weight model NAME as a .pth file (torch.save\n"
               "format, written by rwkv-tui itself) and exits, printing the path, size and\n"
               "seconds: the shapes above, 1.6b-v6 (RWKV-6: L24 C2048 F7168) and the small\n"
               "test shapes demo, demo-v6. Weights in --dtype (default bf16, as released\n"
               "checkpoints are); --seed (default 1) picks the random weights. Benchmark\n"
               "the file with --model PATH.\n\n"
               "Measure load time, resident memory (after load, peak, and peak / file size),\n"
               "prefill (a prompt of --prompt-tokens, default 512, fed in chunks of --chunk,\n"
               "default 256) and decode (--gen-tokens, default 64, one token at a time; 0\n"
               "skips decode) speed; medians over --repeat runs (default 3). In the same run\n"
               "it measures the read bandwidth (all threads reading a 512 MiB buffer in huge\n"
               "pages as 4 and as 8 prefetched streams each, the way decode reads weights;\n"
               "the better counts) before, after, and right after each decode run (the\n"
               "best of them counts), and the arithmetic peak (fp32 FMA and bf16 dot\n"
               "product, all threads; the higher of the before and after figures counts;\n"
               "a kernel set without a bf16 dot product times the FMA in both, and the\n"
               "best of the four counts),\n"
               "and reports decode as a share of the\n"
               "bandwidth bound (read bandwidth / weight bytes per token) -- and, paired,\n"
               "every other decoded token against one pass of the probe read right after\n"
               "it (the median of those shares: the same seconds, where the bound's best\n"
               "probe may come from better ones; the passes are in no token's time, and\n"
               "the token right after a pass is not timed) -- and\n"
               "prefill as a share of the arithmetic bound (peak / (2 x matrix elements\n"
               "per token); the bf16 dot peak for bf16, int8 and 4-bit strategies, the\n"
               "FMA peak for fp32 and fp16). For CPU plans it also gives decode's matrix\n"
               "products apart: their share of a token's time (with their dispatch to the\n"
               "threads; the rest is the work between them) and their read rate, also\n"
               "against the paired pass (\"products\" line; decode_products_* in --json).\n"
               "It prints the kernel set that ran (RWKV_KERNELS=portable|avx2|avx2-vnni|\n"
               "avx512|avx512-exact forces one; avx2-vnni: 4-bit decode by AVX-VNNI;\n"
               "avx512-exact: fp32 prefill, chosen where the bf16 dot product is slow) and\n"
               "the CPU's features, and the cores each phase got (process CPU time / wall\n"
               "time: below --threads, other programs held the rest).\n\n"
               "--busy N starts N processes that spin on a core each for the whole run and\n"
               "kills them at the end: the speed when other programs hold cores (with\n"
               "--busy 1 on a 2-core machine, 2 threads should not fall below 1 thread).\n"
               "The limits are then measured with the spinners running too.\n\n");
    cli_opts_help(f, CLI_HELP_NO_FILES);
    cli_opts_help_client(f, 1);
}

/* Progress of --save on a terminal: "\rwriting weights  42%". */
static void
save_progress(void *ud, double frac, const char *what)
{
    int *last = ud, pct = (int)(frac * 100.0);

    if (pct == *last)
        return;
    *last = pct;
    fprintf(stderr, "\r%s %3d%%%s", what, pct, pct >= 100 ? "\r\033[K" : "");
}

/* --save: write the model file and report. */
static int
bench_save(const char *shape, const char *path, const char *dtype, uint64_t seed, int threads,
           int json)
{
    mgen_opts mo;
    rwkv_err err;
    uint64_t size = 0;
    double t0;
    int last_pct = -1;

    memset(&mo, 0, sizeof mo);
    if (dtype == NULL || strcmp(dtype, "bf16") == 0)
        mo.dtype = CK_BF16;
    else if (strcmp(dtype, "fp16") == 0)
        mo.dtype = CK_F16;
    else if (strcmp(dtype, "fp32") == 0)
        mo.dtype = CK_F32;
    else {
        cli_errorf("bench: --dtype must be bf16, fp16 or fp32, not '%s'", dtype);
        return 2;
    }
    mo.seed = seed;
    mo.n_threads = threads;
    if (isatty(STDERR_FILENO)) {
        mo.progress = save_progress;
        mo.progress_ud = &last_pct;
    }
    t0 = mono_now_s();
    if (mgen_save(shape, path, &mo, &size, &err) != RWKV_OK)
        return cli_fail(&err);
    t0 = mono_now_s() - t0;
    if (json) {
        fputs("{\"saved\": ", stdout);
        cli_json_str(stdout, path);
        printf(", \"shape\": \"%s\", \"dtype\": \"%s\", \"seed\": %llu, "
               "\"file_bytes\": %llu, \"seconds\": %.3f}\n", shape,
               ck_dtype_name(mo.dtype), (unsigned long long)seed, (unsigned long long)size, t0);
    } else
        printf("%s: %s model (%s, seed %llu), %llu bytes (%.1f MB), %.2f s\n", path, shape,
               ck_dtype_name(mo.dtype), (unsigned long long)seed, (unsigned long long)size, (double)size / 1e6, t0);
    return 0;
}

/* What `bench` was asked for. */
struct bench_args {
    struct cli_opts o;
    long prompt_n, gen_n, repeat, chunk, busy;
    uint64_t seed;
    int json;
    const char *shape, *save, *dtype;
};

/* The machine's limits, measured before the runs and again after: on a
** shared machine they move, so each bound uses the higher of the two. */
struct bench_limits {
    const simd_kernels *kk;
    double bw0, fma0, dot0;            /* before */
    double bw1, bw, peak_fma, peak_dot;  /* after; the higher of the two */
    int    streams;                    /* the stream count that read best before */
};

/* The buffers of the timed runs (kept until the report: the memory it
** reports includes them). */
struct bench_bufs {
    rwkv_state *s;
    int32_t    *toks;
    float      *logits;
    double     *tp, *td;   /* prefill / decode tokens per second, per run */
    double     *bw;        /* read bandwidth right after each decode run
                              (CPU plans; 0 when not measured): more
                              samples of the limit */
    double     *tt, *tb;   /* a paired token's seconds and the bandwidth read
                              right after it (every other token) */
    size_t      n_pairs;
    double     *ps, *pr;   /* a timed token's share of time in its matrix
                              products, and their read rate (bytes/s) */
    double     *pp;        /* a paired token's products' rate over the probe's */
    size_t      n_prod, n_prod_pairs;
};

/* What is reported, from the runs and the limits. */
struct bench_report {
    char        features[160];
    const char *mname;
    int         n_busy, on_gpu, use_dot;
    double      t_load, rss_load, rss_peak, rss_now;
    double      prefill, decode;   /* medians, tokens per second */
    /* the cores each phase got: process CPU time / wall time (on a shared
    ** machine, how much of the threads' cores other programs left us) */
    double      prefill_cores, decode_cores;
    double      wbytes, fpt;       /* weight bytes, flops per prefill token */
    double      peak, pbound, bound, fsize, ratio;
    double      bw_runs;           /* the best probe after a decode run, 0: none */
    double      pair_share;        /* median token share of the paired probe, 0: none */
    long        timed;             /* decoded tokens a run timed (bench_runs) */
    double      bw_pair;           /* the paired probe's median bandwidth */
    /* decode's matrix products (rwkv_model_products), medians over the timed
    ** tokens: share of a token's time, read rate (bytes/s), rate over the
    ** paired probe's; 0: not measured (no decode, a device plan) */
    double      prod_share, prod_rate, prod_paired;
};

/* Parse ARGV into *A: -1 to go on, else the exit status (usage printed or
** the error line). */
static int
bench_parse(int argc, char **argv, struct bench_args *a)
{
    const struct cli_opt tab[] = {
        { "json", CLI_OPT_FLAG, &a->json, 0, 0 },
        { "prompt-tokens", CLI_OPT_INT, &a->prompt_n, 1, 1 << 20 },
        { "gen-tokens", CLI_OPT_INT, &a->gen_n, 0, 1 << 20 },
        { "shape", CLI_OPT_STR, &a->shape, 0, 0 },
        { "save", CLI_OPT_PATH, &a->save, 0, 0 },
        { "dtype", CLI_OPT_STR, &a->dtype, 0, 0 },
        { "busy", CLI_OPT_INT, &a->busy, 0, BENCH_MAX_BUSY },
        { "repeat", CLI_OPT_INT, &a->repeat, 1, 1000 },
        { NULL, CLI_OPT_FLAG, NULL, 0, 0 },
    };
    int r;

    memset(a, 0, sizeof *a);
    a->prompt_n = 512;
    a->gen_n = 64;
    a->repeat = 3;
    a->chunk = 256;
    a->seed = 1;
    cli_opts_init(&a->o);
    /* its own decode length (--gen-tokens), argmax, no state file or text:
    ** of the common values only the chunk and the random weights' seed */
    a->o.samp_ok = PARAMS_BIT(params_find("chunk")) | PARAMS_BIT(params_find("seed"));
    a->o.files_ok = 0;
    if ((r = cli_parse_args(argc, argv, "bench", usage, tab, NULL, &a->o)) != CLI_ARGS_GO)
        return r;
    if (a->o.samp_set & PARAMS_BIT(params_find("chunk")))
        a->chunk = a->o.samp.chunk;
    /* the random weights' seed: any 64-bit number, read as chat reads --seed */
    if (a->o.samp_set & PARAMS_BIT(params_find("seed")))
        a->seed = a->o.samp.seed;
    return -1;
}

/* The combinations of options: -1 to go on to the benchmark, else the exit
** status (--save runs here). */
static int
bench_check(const struct bench_args *a)
{
    rwkv_err err;

    /* a name not in the table is a usage error (exit 2), as every other
    ** bad option value, with or without --save: the names that can go
    ** with it (in memory, only the RWKV-7 shapes) */
    if (a->shape != NULL && !mgen_has_shape(a->shape)) {
        char names[256];
        mgen_shape_list(a->save != NULL ? 0 : 7, names, sizeof names);
        cli_errorf("bench: unknown model shape '%s' (known: %s)", a->shape, names);
        return 2;
    }
    if (a->save != NULL) {
        if (a->shape == NULL || a->o.model != NULL || a->o.demo) {
            cli_errorf("bench: --save needs --shape NAME (and no --model / --demo)");
            return 2;
        }
        /* the rule of every output: never a database or its files (it has
        ** no input file to guard) */
        if (store_output_check(NULL, a->save, NULL, 0, &err) != RWKV_OK) {
            cli_errorf("bench: --save %s", err.msg);
            return 2;
        }
        return cli_stdout_close(bench_save(a->shape, a->save, a->dtype, a->seed, a->o.threads,
                                           a->json));
    }
    if (a->dtype != NULL) {
        cli_errorf("bench: --dtype only applies with --save (the strategy sets the "
                   "weight precision)");
        return 2;
    }
    if ((a->o.model != NULL) + (a->o.demo != 0) + (a->shape != NULL) != 1) {
        cli_errorf("bench: give one of --model PATH, --demo, --shape NAME");
        return 2;
    }
    if (a->shape != NULL && strstr(a->shape, "-v6") != NULL && mgen_has_shape(a->shape)) {
        cli_errorf("bench: shape '%s' exists only as a file: write it with --shape %s "
                   "--save PATH, then bench --model PATH", a->shape, a->shape);
        return 2;
    }
    return -1;
}

/* The limits before the runs, on THREADS threads (0: every core). */
static void
bench_limits_before(struct bench_limits *lim, int threads)
{
    long on = sysconf(_SC_NPROCESSORS_ONLN);
    int nthr = threads > 0 ? threads : on > 0 ? (int)on : 1;

    memset(lim, 0, sizeof *lim);
    lim->kk = kern_default_kernels();
    lim->bw0 = read_bandwidth(lim->kk, nthr, &lim->streams);
    lim->fma0 = arith_peak(lim->kk, SIMD_F32, nthr);
    lim->dot0 = arith_peak(lim->kk, SIMD_BF16, nthr);
}

/* Open the model A names, timing the load and the memory it takes. */
static int
bench_open(const struct bench_args *a, rwkv_model **m, struct bench_report *rep, rwkv_err *err)
{
    rwkv_open_opts oo;
    int rc;

    memset(&oo, 0, sizeof oo);
    oo.strategy = a->o.strategy;
    oo.n_threads = a->o.threads;
    reset_peak_rss();
    rep->t_load = mono_now_s();
    rc = a->shape ? rwkv_model_open_shape(a->shape, a->seed, &oo, m, err)
         : a->o.demo ? rwkv_model_open_demo(a->seed, &oo, m, err)
                     : rwkv_model_open(a->o.model, &oo, m, err);
    if (rc != RWKV_OK)
        return rc;
    rep->t_load = mono_now_s() - rep->t_load;
    rep->rss_load = rss_mib();
    rep->mname = a->shape ? a->shape : a->o.demo ? "demo" : a->o.model;
    return RWKV_OK;
}

static void
bench_bufs_free(struct bench_bufs *b)
{
    free(b->toks);
    free(b->logits);
    free(b->tp);
    free(b->td);
    free(b->bw);
    free(b->tt);
    free(b->tb);
    free(b->ps);
    free(b->pr);
    free(b->pp);
    rwkv_state_destroy(b->s);
}

/* The timed runs: A->repeat times a prompt of A->prompt_n tokens in chunks
** of A->chunk, then A->gen_n tokens one at a time; the medians into REP.
** 0, or 1 with one line printed. */
static int
bench_runs(rwkv_model *m, const struct bench_args *a, const struct bench_limits *lim,
           struct bench_bufs *b, struct bench_report *rep)
{
    const rwkv_info *info = rwkv_model_info(m);
    /* a probe after each decode run and after every other decoded token
    ** (the paired probe, above): CPU plans that decode (a device plan's
    ** bound is the device's bandwidth, bench_bounds) */
    int probe_after = a->gen_n > 0 && strstr(info->strategy, "cuda") == NULL;
    size_t n_tok = (size_t)a->repeat * (size_t)a->gen_n;
    char *probe = NULL;
    rwkv_err err;

    b->toks = malloc(sizeof *b->toks * (size_t)a->prompt_n);
    b->logits = malloc(sizeof *b->logits * (size_t)info->n_vocab);
    b->tp = malloc(sizeof *b->tp * (size_t)a->repeat);
    b->td = malloc(sizeof *b->td * (size_t)a->repeat);
    b->bw = calloc((size_t)a->repeat, sizeof *b->bw);
    b->tt = malloc(sizeof *b->tt * (n_tok > 0 ? n_tok : 1));
    b->tb = malloc(sizeof *b->tb * (n_tok > 0 ? n_tok : 1));
    b->ps = malloc(sizeof *b->ps * (n_tok > 0 ? n_tok : 1));
    b->pr = malloc(sizeof *b->pr * (n_tok > 0 ? n_tok : 1));
    b->pp = malloc(sizeof *b->pp * (n_tok > 0 ? n_tok : 1));
    if (b->toks == NULL || b->logits == NULL || b->tp == NULL || b->td == NULL ||
        b->bw == NULL || b->tt == NULL || b->tb == NULL || b->ps == NULL || b->pr == NULL ||
        b->pp == NULL) {
        cli_errorf("bench: out of memory");
        return 1;
    }
    if (rwkv_state_create(m, &b->s, &err) != RWKV_OK)
        return cli_fail(&err);
    /* A fixed pseudo-random prompt: the speed does not depend on the ids. */
    for (long i = 0; i < a->prompt_n; i++)
        b->toks[i] = (int32_t)(1 + (uint32_t)(i * 2654435761u) % (uint32_t)(info->n_vocab - 1));

    double p_cpu = 0, p_wall = 0, d_cpu = 0, d_wall = 0;
    for (long r = 0; r < a->repeat; r++) {
        double t0, c0, run = 0;
        rwkv_state_reset(m, b->s);
        t0 = mono_now_s();
        c0 = proc_cpu_s();
        for (long at = 0; at < a->prompt_n; at += a->chunk) {
            size_t n = (size_t)(a->prompt_n - at < a->chunk ? a->prompt_n - at : a->chunk);
            if (rwkv_eval(m, b->toks + at, n, b->s, b->logits, &err) != RWKV_OK)
                return cli_fail(&err);
        }
        p_wall += mono_now_s() - t0;
        p_cpu += proc_cpu_s() - c0;
        b->tp[r] = (double)a->prompt_n / (mono_now_s() - t0);
        if (probe_after && r == 0) {
            /* the memory reported is the model's and the runs' (the
            ** prefill has touched every weight; decode adds nothing):
            ** taken before the probe adds its own */
            rep->rss_peak = peak_rss_mib();
            rep->rss_now = rss_mib();
            probe = bw_buffer();
            if (probe != NULL)   /* the first pass after writing is slow */
                bw_pass(lim->kk, probe, BW_BYTES, bw_threads(info->n_threads), lim->streams);
        }
        long timed = 0;
        for (long g = 0; g < a->gen_n; g++) {
            int32_t t = (int32_t)samp_argmax(b->logits, (size_t)info->n_vocab);
            double dt, dc, ps0, pb0, ps, pb;
            rwkv_model_products(m, &ps0, &pb0);
            t0 = mono_now_s();
            c0 = proc_cpu_s();
            if (rwkv_eval(m, &t, 1, b->s, b->logits, &err) != RWKV_OK)
                return cli_fail(&err);
            dt = mono_now_s() - t0;
            dc = proc_cpu_s() - c0;
            rwkv_model_products(m, &ps, &pb);
            ps -= ps0;
            pb -= pb0;
            /* a token right after a pass of the paired probe is not timed
            ** (it ran 1.5-2% slower: the pool's threads had gone to sleep) */
            if (probe == NULL || g == 0 || g % 2 == 1) {
                run += dt;
                d_cpu += dc;
                timed++;
                if (ps > 0 && dt > 0) {   /* products on the CPU */
                    b->ps[b->n_prod] = ps / dt;
                    b->pr[b->n_prod++] = pb / ps;
                }
            }
            if (probe != NULL && g % 2 == 1) {
                b->tt[b->n_pairs] = dt;
                b->tb[b->n_pairs++] =
                    (double)BW_BYTES / bw_pass(lim->kk, probe, BW_BYTES,
                                               bw_threads(info->n_threads), lim->streams);
                if (ps > 0 && b->tb[b->n_pairs - 1] > 0)
                    b->pp[b->n_prod_pairs++] = pb / ps / b->tb[b->n_pairs - 1];
            }
        }
        d_wall += run;
        rep->timed = timed;
        b->td[r] = timed > 0 && run > 0 ? (double)timed / run : 0;
        if (probe != NULL)
            b->bw[r] = bw_measure(lim->kk, probe, info->n_threads, 3, NULL);
    }
    mem_free(probe);
    rep->prefill_cores = p_wall > 0 ? p_cpu / p_wall : 0;
    rep->decode_cores = d_wall > 0 ? d_cpu / d_wall : 0;
    rep->prefill = mono_median(b->tp, (size_t)a->repeat);
    rep->decode = mono_median(b->td, (size_t)a->repeat);
    return 0;
}

/* After the runs: the memory, the limits again, and the bounds. */
static void
bench_bounds(const rwkv_info *info, const struct bench_args *a, struct bench_limits *lim,
             struct bench_bufs *b, struct bench_report *rep)
{
    /* memory before the baselines allocate their own buffers (with
    ** decode, bench_runs took it before the paired probe's) */
    if (rep->rss_peak == 0) {
        rep->rss_peak = peak_rss_mib();
        rep->rss_now = rss_mib();
    }
    lim->bw1 = read_bandwidth(lim->kk, info->n_threads, NULL);
    /* the bandwidth moves by 25% between seconds on a shared machine: the
    ** best of every probe (before, after, and after each decode run) is the
    ** bound, so a probe caught at a bad moment never inflates a share */
    for (long r = 0; r < a->repeat; r++)
        rep->bw_runs = maxd(rep->bw_runs, b->bw[r]);
    lim->bw = maxd(maxd(lim->bw0, lim->bw1), rep->bw_runs);
    /* cuda plans read their weights from device memory: their bound is the
    ** device's copy bandwidth (read + write counted), their prefill limit the
    ** GPU's (tests/gpu/device_check.sh measures cuBLAS), not the CPU peaks */
    rep->on_gpu = strstr(info->strategy, "cuda") != NULL;
    if (rep->on_gpu) {
        double dbw = 0;
        if (gpu_copy_bandwidth(0, (size_t)1 << 30, 5, &dbw, NULL) == RWKV_OK && dbw > 0)
            lim->bw = lim->bw0 = lim->bw1 = dbw;
    }
    lim->peak_fma = maxd(lim->fma0, arith_peak(lim->kk, SIMD_F32, info->n_threads));
    lim->peak_dot = maxd(lim->dot0, arith_peak(lim->kk, SIMD_BF16, info->n_threads));
    /* a kernel set without a bf16 dot product runs its "dot" probe on the
    ** FMA too: all four probes timed the same instruction, and the best of
    ** them is the peak (a probe caught at a slow moment must not raise a
    ** share) */
    if (!simd_uses_bf16_dot(lim->kk, SIMD_BF16))
        lim->peak_fma = lim->peak_dot = maxd(lim->peak_fma, lim->peak_dot);
    rep->use_dot = strategy_uses_bf16_dot(info->strategy, info->n_layer) &&
                   simd_uses_bf16_dot(lim->kk, SIMD_BF16);
    rep->peak = rep->use_dot ? lim->peak_dot : lim->peak_fma;
    /* Weight bytes read per decoded token: every prepared weight in the
    ** dtype the strategy stores it in, except the embedding table (one row
    ** is read). */
    rep->wbytes = (double)info->weight_bytes;
    double head = (double)info->n_vocab * (double)info->n_embd;
    double calls = (double)((a->prompt_n + a->chunk - 1) / a->chunk);
    rep->fpt = 2.0 * ((double)info->mat_params - head + head * calls / (double)a->prompt_n);
    rep->pbound = rep->fpt > 0 && !rep->on_gpu ? rep->peak / rep->fpt : 0;
    rep->bound = rep->wbytes > 0 ? lim->bw / rep->wbytes : 0;
    if (b->n_pairs > 0 && rep->wbytes > 0) {
        /* each token's read rate over the rate read right after it (the
        ** pair arrays are the report's own from here on) */
        for (size_t i = 0; i < b->n_pairs; i++)
            b->tt[i] = b->tt[i] > 0 && b->tb[i] > 0 ? rep->wbytes / b->tt[i] / b->tb[i] : 0;
        rep->pair_share = mono_median(b->tt, b->n_pairs);
        rep->bw_pair = mono_median(b->tb, b->n_pairs);
    }
    if (b->n_prod > 0) {
        rep->prod_share = mono_median(b->ps, b->n_prod);
        rep->prod_rate = mono_median(b->pr, b->n_prod);
    }
    if (b->n_prod_pairs > 0)
        rep->prod_paired = mono_median(b->pp, b->n_prod_pairs);
    rep->fsize = (double)info->file_size;
    rep->ratio = rep->fsize > 0 ? rep->rss_peak * 1048576.0 / rep->fsize : 0;
}

static void
bench_print_json(const rwkv_info *info, const struct bench_args *a,
                 const struct bench_limits *lim, const struct bench_report *r)
{
    fputs("{\"model\": ", stdout);
    cli_json_str(stdout, r->mname);
    printf(", \"version\": \"%s\", \"strategy\": \"%s\", \"threads\": %d, "
           "\"kernels\": \"%s\", \"cpu_features\": \"%s\", \"busy\": %d, \"params\": %llu, \"mat_params\": %llu, "
           "\"file_bytes\": %llu, \"load_s\": %.3f, \"rss_load_mib\": %.1f, "
           "\"peak_rss_mib\": %.1f, \"rss_file_ratio\": %.3f, "
           "\"prompt_tokens\": %ld, \"chunk\": %ld, "
           "\"gen_tokens\": %ld, \"repeat\": %ld, \"weight_bytes\": %llu, \"prefill_tok_s\": %.2f, "
           "\"decode_tok_s\": %.2f, \"read_bandwidth_gb_s\": %.2f, "
           "\"read_bandwidth_before_gb_s\": %.2f, \"read_bandwidth_after_gb_s\": %.2f, "
           "\"read_bandwidth_runs_gb_s\": %.2f, \"read_bandwidth_paired_gb_s\": %.2f, "
           "\"decode_share_paired\": %.3f, \"decode_tokens_timed\": %ld, "
           "\"decode_bound_tok_s\": %.2f, \"decode_share_of_bound\": %.3f, "
           "\"peak_fma_gflop_s\": %.1f, \"peak_bf16dot_gflop_s\": %.1f, "
           "\"prefill_peak\": \"%s\", \"prefill_gflop_per_tok\": %.4f, "
           "\"prefill_bound_tok_s\": %.2f, \"prefill_share_of_bound\": %.3f, "
           "\"weight_cache\": \"%s\", \"weight_cache_read\": %d, "
           "\"in_place_bytes\": %llu, \"in_place_read\": %d, \"rss_mib\": %.1f, "
           "\"prefill_cores\": %.2f, \"decode_cores\": %.2f, "
           "\"decode_products_share\": %.3f, \"decode_products_gb_s\": %.2f, "
           "\"decode_products_paired\": %.3f}\n",
           info->version, info->strategy, info->n_threads, simd_kernels_name(lim->kk),
           r->features, r->n_busy, (unsigned long long)info->n_params,
           (unsigned long long)info->mat_params,
           (unsigned long long)info->file_size, r->t_load, r->rss_load, r->rss_peak, r->ratio,
           a->prompt_n, a->chunk, a->gen_n, a->repeat,
           (unsigned long long)info->weight_bytes, r->prefill,
           r->decode, lim->bw / 1e9, lim->bw0 / 1e9, lim->bw1 / 1e9, r->bw_runs / 1e9, r->bw_pair / 1e9,
           r->pair_share, r->timed, r->bound,
           r->bound > 0 ? r->decode / r->bound : 0,
           lim->peak_fma / 1e9,
           lim->peak_dot / 1e9, r->on_gpu ? "gpu" : r->use_dot ? "bf16dot" : "fma", r->fpt / 1e9,
           r->pbound, r->pbound > 0 ? r->prefill / r->pbound : 0, info->weight_cache,
           info->weight_cache_read, (unsigned long long)info->in_place_bytes,
           info->in_place_read, r->rss_now,
           r->prefill_cores, r->decode_cores, r->prod_share, r->prod_rate / 1e9, r->prod_paired);
}

static void
bench_print_text(const rwkv_info *info, const struct bench_args *a,
                 const struct bench_limits *lim, const struct bench_report *r)
{
    char dot[96];

    printf("model      %s%s (RWKV v%s, %d layers, %d embd, %llu params, %.1f MB of weights "
           "per token)\n", r->mname, info->is_demo ? " (random weights)" : "", info->version,
           info->n_layer, info->n_embd, (unsigned long long)info->n_params, r->wbytes / 1e6);
    printf("strategy   %s, %d threads, %s kernels; load %.3f s (weight cache: %s%s%s)\n",
           info->strategy, info->n_threads, simd_kernels_name(lim->kk), r->t_load,
           info->weight_cache,
           info->in_place_bytes == 0 ? "" : "; checkpoint's matrices in place: ",
           info->in_place_bytes == 0 ? "" : info->in_place_read ? "read into memory" : "mapped");
    printf("cpu        %s%s%s%s", r->features, *kern_env_state() ? " (" : "", kern_env_state(),
           *kern_env_state() ? ")" : "");
    if (r->n_busy > 0)
        printf("; %d spinning process%s beside the run (--busy)", r->n_busy,
               r->n_busy == 1 ? "" : "es");
    printf("\n");
    if (r->fsize > 0)
        printf("memory     file %.1f MiB; RSS after load %.1f MiB, peak %.1f MiB "
               "(%.2f x the file)\n", r->fsize / 1048576.0, r->rss_load, r->rss_peak, r->ratio);
    else
        printf("memory     RSS after load %.1f MiB, peak %.1f MiB (in-memory model)\n",
               r->rss_load, r->rss_peak);
    if (r->on_gpu)
        printf("prefill    %.2f tok/s (%ld tokens, chunk %ld, median of %ld); %.2f GFLOP/token "
               "(%.1f TFLOP/s; the GPU's GEMM peak: tests/gpu/device_check.sh)\n", r->prefill,
               a->prompt_n, a->chunk, a->repeat, r->fpt / 1e9, r->prefill * r->fpt / 1e12);
    else
        printf("prefill    %.2f tok/s (%ld tokens, chunk %ld, median of %ld); %.2f GFLOP/token "
               "-> bound %.1f tok/s at the %s peak; prefill at %.0f%% (on %.2f cores)\n",
               r->prefill, a->prompt_n, a->chunk, a->repeat, r->fpt / 1e9, r->pbound,
               r->use_dot ? "bf16 dot" : "fp32 FMA",
               r->pbound > 0 ? 100.0 * r->prefill / r->pbound : 0.0, r->prefill_cores);
    if (a->gen_n > 0) {
        printf("decode     %.2f tok/s (%ld tokens", r->decode, a->gen_n);
        if (r->timed < a->gen_n)
            printf(", %ld timed: none right after a probe pass", r->timed);
        printf(", median of %ld); bound %.2f tok/s; decode at %.0f%%", a->repeat, r->bound,
               r->bound > 0 ? 100.0 * r->decode / r->bound : 0.0);
        if (r->pair_share > 0)
            printf(", %.0f%% paired (every other token against the %.2f GB/s read after it, "
                   "median)", 100.0 * r->pair_share, r->bw_pair / 1e9);
        printf(" (on %.2f cores)\n", r->decode_cores);
        if (r->prod_share > 0) {
            printf("products   %.0f%% of a decoded token's time, reading %.2f GB/s",
                   100.0 * r->prod_share, r->prod_rate / 1e9);
            if (r->prod_paired > 0)
                printf(", %.0f%% paired", 100.0 * r->prod_paired);
            printf(" (the matrix products with their dispatch to the threads; the rest of a "
                   "token is the work between them; medians)\n");
        }
    }
    if (simd_uses_bf16_dot(lim->kk, SIMD_BF16))
        snprintf(dot, sizeof dot, "bf16 dot %.1f GFLOP/s", lim->peak_dot / 1e9);
    else   /* avx2, avx512-exact, portable: every prefill on FMA */
        snprintf(dot, sizeof dot, "no bf16 dot kernel in %s", simd_kernels_name(lim->kk));
    printf("baseline   read bandwidth %.2f GB/s (before / after the runs %.2f / %.2f", lim->bw / 1e9,
           lim->bw0 / 1e9, lim->bw1 / 1e9);
    if (r->bw_runs > 0)
        printf(", after the decode runs up to %.2f", r->bw_runs / 1e9);
    printf("; the best counts); peak fp32 FMA %.1f GFLOP/s, %s (%d threads; the higher of "
           "before and after)\n", lim->peak_fma / 1e9, dot, info->n_threads);
}

int
cmd_bench(int argc, char **argv)
{
    struct bench_args a;
    struct bench_limits lim;
    struct bench_report rep;
    struct bench_bufs bufs;
    pid_t busy_pids[BENCH_MAX_BUSY];
    rwkv_model *m = NULL;
    rwkv_err err;
    int rc, n_busy = 0;

    rc = bench_parse(argc, argv, &a);
    if (rc < 0)
        rc = bench_check(&a);
    if (rc >= 0)
        return rc;
    memset(&rep, 0, sizeof rep);
    memset(&bufs, 0, sizeof bufs);
    cpuid_feature_names(cpuid_features(), rep.features, sizeof rep.features);
    if (a.busy > 0)
        n_busy = bench_busy_start((int)a.busy, busy_pids);
    rep.n_busy = n_busy;
    bench_limits_before(&lim, a.o.threads);
    if (bench_open(&a, &m, &rep, &err) != RWKV_OK) {
        bench_busy_stop(n_busy, busy_pids);
        return cli_fail(&err);
    }
    rc = bench_runs(m, &a, &lim, &bufs, &rep);
    if (rc == 0) {
        bench_bounds(rwkv_model_info(m), &a, &lim, &bufs, &rep);
        if (a.json)
            bench_print_json(rwkv_model_info(m), &a, &lim, &rep);
        else
            bench_print_text(rwkv_model_info(m), &a, &lim, &rep);
    }
    bench_busy_stop(n_busy, busy_pids);
    bench_bufs_free(&bufs);
    rwkv_model_close(m);
    return cli_stdout_close(rc);
}
