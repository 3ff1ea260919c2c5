/*
** bench_kernels.c -- speed of the core/kernels/simd.h kernels at the RWKV-7 1.5B
** shapes (C = 2048, F = 8192): W [2048,2048], [8192,2048], [2048,8192] and
** the head [65536,2048]; matvec (T = 1) and matmul (T = 256; the head only
** at T = 1, as prefill needs logits for the last token only); 1 and 2
** threads splitting the output rows; every weight format and kernel
** variant.  Each figure is the median of 5 measurements; a measurement
** repeats the call until >= MIN_SECONDS passed.  The same run measures the
** memcpy bandwidth, the read bandwidth (simd_read_probe: the decode limit)
** and, if built with OpenBLAS
** (-DBENCH_OPENBLAS), cblas_sgemm on the fp32 matmul shapes.
**
** Matvec rotates over enough copies of W to fill four times the L3 (at
** least 256 MiB; sysconf's L3 size, or 64 MiB where it tells none), so its
** GB/s is DRAM bandwidth, comparable to memcpy's, on a 260 MB-L3 Xeon too.
**
** The RWKV-7 1.5B LoRA factors (fp32 [96|64|256, 2048] and their
** transposes) are timed at T = 256 in fp32 only.  Rows "(old dot)" run the
** earlier dot-product-form AVX-512 matmuls (simd_avx512_dot_matmul) in the
** same run, so old and new kernels compare on the same machine state.
** Matmul GFLOP/s in [brackets] are by CPU time, and their share is of the
** same run's peak (simd_peak_probe) for the same thread count.
**
** Usage: bench_kernels [--quick] [--mm] [--only FORMAT] [--shape NAME]
**   --quick  skip the AVX2 variants (new and "(old)" tile kernels; their
**            shares are of the avx2 table's own ymm FMA peak)      --mm  matmul only (no memcpy, matvec)
**   --only / --shape  substrings of the format / shape labels
** (make bench-kernels BENCH_ARGS="--mm --quick")
*/
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/clock.h"
#include "../core/mem.h"
#include "../core/kernels/simd.h"
#include "../core/kernels/simd_impl.h"

#define REPS 5
#define MIN_SECONDS 0.05
#define MAX_THREADS 2
/* Matvec working set: at least this many bytes of weights, and four
** times the L3 (cold_bytes). */
#define COLD_BYTES (256u << 20)
/* The largest copy count for the cold working set. */
#define MAX_COPIES 512

#ifdef BENCH_OPENBLAS
/* From OpenBLAS's cblas.h; declared here so no BLAS header is needed. */
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta,
                 float *c, int ldc);
void openblas_set_num_threads(int n);
#define CBLAS_ROW_MAJOR 101
#define CBLAS_NO_TRANS 111
#define CBLAS_TRANS 112
#endif

/* ---- a tiny fork-join runner: N threads, barrier per call ----------------- */

struct job {
    const simd_kernels *k;
    const simd_matrix *w;   /* [ncopies] */
    int ncopies;
    const simd_act *a;
    const float *x;
    float *y;
    int64_t ldy;
    int T;
    /* memcpy job (dst != NULL) or read-only sum job (dst == NULL) */
    char *dst;
    const char *src;
    size_t bytes;
    uint64_t *sink;
    int streams;   /* the read job's (simd_read_probe) */
    /* peak probe job (peak_iters > 0) */
    int64_t peak_iters;
    enum simd_dtype peak_dt;
};

struct worker {
    pthread_t th;
    int id, nthreads;
    struct job *job;
    pthread_barrier_t *bar;
    volatile int *iters; /* iterations for this measurement; 0 = quit */
};

static void
run_part(const struct job *j, int id, int n, int iter)
{
    if (j->peak_iters) {
        simd_peak_probe(j->k, j->peak_dt, j->peak_iters);
        return;
    }
    if (j->bytes) {
        size_t part = j->bytes / (size_t)n, off = part * (size_t)id;
        if (id == n - 1)
            part = j->bytes - off;
        if (j->dst)
            memcpy(j->dst + off, j->src + off, part);
        else
            j->sink[id] = simd_read_probe(j->k, j->src + off, part, j->streams);
        return;
    }
    {
        const simd_matrix *w = &j->w[iter % j->ncopies];
        /* split rows in multiples of 4 (the register tile height) */
        int64_t per = (w->rows / n + 3) / 4 * 4;
        int64_t r0 = per * id, r1 = id == n - 1 ? w->rows : per * (id + 1);
        if (r0 > w->rows)
            r0 = w->rows;
        if (r1 > w->rows)
            r1 = w->rows;
        if (j->T == 1)
            simd_matvec(j->k, w, j->x, j->y, r0, r1);
        else
            simd_matmul(j->k, w, j->a, j->y, j->ldy, r0, r1);
    }
}

static void *
worker_main(void *arg)
{
    struct worker *wk = arg;

    for (;;) {
        int n;
        pthread_barrier_wait(wk->bar);  /* start of a measurement */
        n = *wk->iters;
        if (n == 0)
            return NULL;
        for (int i = 0; i < n; i++) {
            run_part(wk->job, wk->id, wk->nthreads, i);
            pthread_barrier_wait(wk->bar);
        }
    }
}

struct pool {
    int n;
    struct worker w[MAX_THREADS];
    pthread_barrier_t bar;
    volatile int iters;
    struct job job;
};

static void
pool_start(struct pool *p, int n)
{
    p->n = n;
    pthread_barrier_init(&p->bar, NULL, (unsigned)n);
    for (int i = 1; i < n; i++) {
        p->w[i] = (struct worker){.id = i, .nthreads = n, .job = &p->job,
                                  .bar = &p->bar, .iters = &p->iters};
        pthread_create(&p->w[i].th, NULL, worker_main, &p->w[i]);
    }
}

static void
pool_stop(struct pool *p)
{
    p->iters = 0;
    if (p->n > 1)
        pthread_barrier_wait(&p->bar);
    for (int i = 1; i < p->n; i++)
        pthread_join(p->w[i].th, NULL);
    pthread_barrier_destroy(&p->bar);
}

/*
** CPU seconds per call per thread of the last pool_time (median): process
** CPU time / threads.  Reported in [brackets] next to the wall-clock figure:
** on a shared machine it excludes the time other processes held our cores
** (the barrier sleeps in the kernel, so waiting is not counted either).
*/
static double last_cpu;

/* Seconds per call of p->job: median of REPS measurements. */
static double
pool_time(struct pool *p)
{
    double t[REPS], tc[REPS];
    int iters = 1;

    /* warm up and size the measurement */
    for (;;) {
        double t0 = mono_now_s(), dt;
        p->iters = iters;
        if (p->n > 1)
            pthread_barrier_wait(&p->bar);
        for (int i = 0; i < iters; i++) {
            run_part(&p->job, 0, p->n, i);
            if (p->n > 1)
                pthread_barrier_wait(&p->bar);
        }
        dt = mono_now_s() - t0;
        if (dt >= MIN_SECONDS || iters >= 1 << 20)
            break;
        iters = dt <= 0 ? iters * 16 : (int)(iters * MIN_SECONDS * 1.2 / dt) + 1;
    }
    for (int r = 0; r < REPS; r++) {
        double t0 = mono_now_s(), c0 = proc_cpu_s();
        p->iters = iters;
        if (p->n > 1)
            pthread_barrier_wait(&p->bar);
        for (int i = 0; i < iters; i++) {
            run_part(&p->job, 0, p->n, i);
            if (p->n > 1)
                pthread_barrier_wait(&p->bar);
        }
        t[r] = (mono_now_s() - t0) / iters;
        tc[r] = (proc_cpu_s() - c0) / iters / p->n;
    }
    last_cpu = mono_median(tc, REPS);
    return mono_median(t, REPS);
}

/* ---- data ---------------------------------------------------------------------- */

static uint64_t seed = 88172645463325252ull;

static void
fill_random(float *p, size_t n, float scale)
{
    for (size_t i = 0; i < n; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        p[i] = ((float)(seed >> 40) * (1.0f / 16777216.0f) * 2 - 1) * scale;
    }
}

/* Owned buffers behind a simd_matrix. */
struct mat {
    simd_matrix m;
    void *data;
    float *scales;
};

static int
mat_make(struct mat *mt, enum simd_dtype dt, const float *w, int64_t rows,
         int64_t cols, const simd_kernels *k)
{
    size_t n = (size_t)rows * (size_t)cols;

    memset(mt, 0, sizeof *mt);
    mt->data = mem_alloc((size_t)simd_data_bytes(dt, rows, cols));
    if (mt->data == NULL)
        return -1;
    switch (dt) {
    case SIMD_F32:
        memcpy(mt->data, w, n * sizeof(float));
        break;
    case SIMD_BF16:
        simd_f32_to_bf16(k, w, mt->data, n);
        break;
    case SIMD_F16:
        simd_f32_to_f16(k, w, mt->data, n);
        break;
    case SIMD_Q8:
        mt->scales = mem_alloc((size_t)rows * (size_t)simd_q8_nblocks(cols) * sizeof(float));
        if (mt->scales == NULL)
            return -1;
        simd_q8_quantize(k, w, cols, 0, rows, mt->data, mt->scales);
        break;
    case SIMD_Q4:
        simd_q4_quantize(w, cols, 0, rows, mt->data);
        break;
    case SIMD_NDTYPE:
        break;
    }
    mt->m = (simd_matrix){dt, rows, cols, mt->data, mt->scales};
    return 0;
}

static void
mat_free(struct mat *mt)
{
    mem_free(mt->data);
    mem_free(mt->scales);
}

static size_t
mat_bytes(const simd_matrix *m)
{
    return (size_t)(simd_data_bytes(m->dtype, m->rows, m->cols) +
                    simd_scale_bytes(m->dtype, m->rows, m->cols));
}

/* ---- main ------------------------------------------------------------------------ */

static double membw[MAX_THREADS + 1], readbw[MAX_THREADS + 1];
/* measured arithmetic peaks of N threads, GFLOP/s by CPU time (see
** last_cpu): [0] fp32 FMA, [1] bf16 dot products of the best table, [2]
** the avx2 table's ymm FMA (what its rows are measured against) */
static double peak_cpu[3][MAX_THREADS + 1];

static void
bench_peak(void)
{
    const int64_t iters = 1 << 20;

    for (int kind = 0; kind < 3; kind++) {
        enum simd_dtype dt = kind == 1 ? SIMD_BF16 : SIMD_F32;
        const simd_kernels *k = kind == 2 ? simd_kernels_get(SIMD_ISA_AVX2, 0)
                                          : simd_kernels_best(0);
        if (k == NULL)
            continue;
        double flops = simd_peak_probe(k, dt, 1); /* per iteration */
        for (int n = 1; n <= MAX_THREADS; n++) {
            struct pool p;
            double t;
            memset(&p, 0, sizeof p);
            p.job = (struct job){.k = k, .peak_iters = iters, .peak_dt = dt};
            pool_start(&p, n);
            t = pool_time(&p);
            pool_stop(&p);
            peak_cpu[kind][n] = flops * (double)iters * n / last_cpu / 1e9;
            printf("peak %-12s %d thr  %7.1f GFLOP/s [cpu %.1f]\n",
                   kind == 2 ? "avx2 FMA" : kind ? "bf16 dot" : "fp32 FMA", n, flops * (double)iters * n / t / 1e9,
                   peak_cpu[kind][n]);
        }
    }
}

static void
bench_memcpy(const simd_kernels *k)
{
    size_t bytes = 512u << 20;
    char *a = mem_alloc_huge(bytes), *b = mem_alloc_huge(bytes);
    struct pool p;

    memset(a, 1, bytes);
    memset(b, 2, bytes);
    for (int n = 1; n <= MAX_THREADS; n++) {
        double t;
        memset(&p, 0, sizeof p);
        p.job = (struct job){.dst = b, .src = a, .bytes = bytes};
        pool_start(&p, n);
        t = pool_time(&p);
        pool_stop(&p);
        membw[n] = 2.0 * (double)bytes / t / 1e9; /* read + write */
        printf("memcpy            %d thr  %7.1f GB/s (read+write) [cpu %.1f]\n", n, membw[n],
               2.0 * (double)bytes / last_cpu / 1e9);
    }
    for (int n = 1; n <= MAX_THREADS; n++) {
        /* 4 and 8 streams, the better is the limit (cli/cmd_bench.c) */
        readbw[n] = 0;
        for (int ns = 4; ns <= 8; ns += 4) {
            double t, bw;
            uint64_t sink[MAX_THREADS];
            memset(&p, 0, sizeof p);
            p.job = (struct job){.k = k, .src = a, .bytes = bytes, .sink = sink, .streams = ns};
            pool_start(&p, n);
            t = pool_time(&p);
            pool_stop(&p);
            bw = (double)bytes / t / 1e9;
            if (bw > readbw[n])
                readbw[n] = bw;
            printf("read (probe, %d)   %d thr  %7.1f GB/s [cpu %.1f]\n", ns, n, bw,
                   (double)bytes / last_cpu / 1e9);
        }
    }
    mem_free(a);
    mem_free(b);
}

/* The avx2 table with the earlier dot-product-form matmuls, or NULL. */
static const simd_kernels *
old_avx2_kernels(void)
{
    static struct simd_kernels k;
    const simd_kernels *base = simd_kernels_get(SIMD_ISA_AVX2, 0);

    if (base == NULL)
        return NULL;
    k = *base;
    k.name = "avx2-dot";
    for (int dt = 0; dt < SIMD_NDTYPE; dt++)
        if (simd_avx2_dot_matmul[dt] != NULL)
            k.matmul[dt] = simd_avx2_dot_matmul[dt];
    return &k;
}

/* The avx512 table with the earlier dot-product-form matmuls, or NULL. */
static const simd_kernels *
old_dot_kernels(void)
{
    static struct simd_kernels k;
    const simd_kernels *base = simd_kernels_get(SIMD_ISA_AVX512, 0);

    if (base == NULL)
        return NULL;
    k = *base;
    k.name = "avx512-dot";
    for (int dt = 0; dt < SIMD_NDTYPE; dt++)
        if (simd_avx512_dot_matmul[0][dt] != NULL)
            k.matmul[dt] = simd_avx512_dot_matmul[0][dt];
    return &k;
}

struct shape {
    const char *name;
    int64_t rows, cols;
    int prefill; /* also time T = 256 */
    int lora;    /* a small fp32 LoRA factor: matmul only, f32 formats only */
};

static const struct shape shapes[] = {
    {"att  [2048,2048]", 2048, 2048, 1, 0},
    {"ffn-k[8192,2048]", 8192, 2048, 1, 0},
    {"ffn-v[2048,8192]", 2048, 8192, 1, 0},
    {"head[65536,2048]", 65536, 2048, 0, 0},
    /* RWKV-7 1.5B LoRA factors (D = 96, 64, 256 against C = 2048) */
    {"lora [96,2048]", 96, 2048, 1, 1},
    {"lora [2048,96]", 2048, 96, 1, 1},
    {"lora [256,2048]", 256, 2048, 1, 1},
    {"lora [2048,256]", 2048, 256, 1, 1},
    {"lora [64,2048]", 64, 2048, 1, 1},
    {"lora [2048,64]", 2048, 64, 1, 1},
};

struct variant {
    const char *label;
    int isa; /* enum simd_isa, or the two extra tables below */
    unsigned flags;
    enum simd_dtype dt;
};

static const struct variant variants[] = {
    /* isa SIMD_NISA + 1: the avx512 table with the earlier dot-product
    ** matmuls (simd_avx512_dot_matmul), to compare in the same run */
    {"f32 (old dot)", SIMD_NISA + 1, 0, SIMD_F32},
    {"bf16 (old dot)", SIMD_NISA + 1, 0, SIMD_BF16},
    {"q8 (old dot)", SIMD_NISA + 1, 0, SIMD_Q8},
    {"f32", SIMD_ISA_AVX512, 0, SIMD_F32},
    {"bf16 (dpbf16)", SIMD_ISA_AVX512, 0, SIMD_BF16},
    {"bf16 (exact)", SIMD_ISA_AVX512, SIMD_EXACT, SIMD_BF16},
    {"f16", SIMD_ISA_AVX512, 0, SIMD_F16},
    {"q8 (bf16 dp)", SIMD_ISA_AVX512, 0, SIMD_Q8},
    {"q8 (vnni)", SIMD_NISA, 0, SIMD_Q8},
    {"q8 (exact)", SIMD_ISA_AVX512, SIMD_EXACT, SIMD_Q8},
    {"q4", SIMD_ISA_AVX512, 0, SIMD_Q4},
    {"f32 avx2", SIMD_ISA_AVX2, 0, SIMD_F32},
    {"bf16 avx2", SIMD_ISA_AVX2, 0, SIMD_BF16},
    {"q8 avx2", SIMD_ISA_AVX2, 0, SIMD_Q8},
    {"f16 avx2", SIMD_ISA_AVX2, 0, SIMD_F16},
    {"q4 avx2", SIMD_ISA_AVX2, 0, SIMD_Q4},
    /* isa SIMD_NISA + 2: the avx2 table with its earlier dot-product
    ** matmuls (simd_avx2_dot_matmul) */
    {"f32 avx2 (old)", SIMD_NISA + 2, 0, SIMD_F32},
    {"bf16 avx2 (old)", SIMD_NISA + 2, 0, SIMD_BF16},
    {"q8 avx2 (old)", SIMD_NISA + 2, 0, SIMD_Q8},
};

/* One weight format VR on shape SH: matvec (and matmul at T rows for a
** prefill shape) with 1..MAX_THREADS threads, a row each.  0, or 1 when out
** of memory. */
/* The matvec working set: four L3s, at least COLD_BYTES. */
static size_t
cold_bytes(void)
{
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    size_t b = 4 * (size_t)(l3 > 0 ? l3 : 64l << 20);

    return b > COLD_BYTES ? b : COLD_BYTES;
}

static int
bench_variant(const struct shape *sh, const struct variant *vr, const float *w, float *x,
              float *y, int T, int mm_only)
{
    size_t n = (size_t)sh->rows * (size_t)sh->cols;
    const simd_kernels *k = (int)vr->isa == SIMD_NISA + 2 ? old_avx2_kernels()
        : (int)vr->isa > SIMD_NISA ? old_dot_kernels()
        : vr->isa == SIMD_NISA
        ? (simd_kernels_get(SIMD_ISA_AVX512, 0) ? &simd_kernels_avx512_vnni : NULL)
        : simd_kernels_get(vr->isa, vr->flags);
    struct mat *mats;
    simd_matrix *views;
    int ncopies;
    size_t wb, db;
    void *ws;
    simd_act a;

    if (k == NULL)
        return 0;
    mats = calloc(MAX_COPIES, sizeof *mats);
    views = calloc(MAX_COPIES, sizeof *views);
    if (mats == NULL || views == NULL || mat_make(&mats[0], vr->dt, w, sh->rows, sh->cols, k) != 0) {
        fprintf(stderr, "bench_kernels: out of memory\n");
        free(mats);
        free(views);
        return 1;
    }
    wb = mat_bytes(&mats[0].m);
    ncopies = mm_only ? 1 : (int)((cold_bytes() + wb - 1) / wb);
    if (ncopies > MAX_COPIES)
        ncopies = MAX_COPIES;
    for (int c = 1; c < ncopies; c++) {
        mats[c] = mats[0];
        mats[c].data = mem_alloc(wb);
        mats[c].scales = NULL;
        if (mats[c].data == NULL) {
            ncopies = c;
            break;
        }
        db = (size_t)simd_data_bytes(vr->dt, sh->rows, sh->cols);
        memcpy(mats[c].data, mats[0].data, db);
        mats[c].m.data = mats[c].data;
        if (vr->dt == SIMD_Q8) {
            /* the scales go to the tail of the same block (the data
            ** bytes are a multiple of 64, so they stay aligned) */
            mats[c].m.scales = (const float *)((const char *)mats[c].data + db);
            memcpy((char *)mats[c].data + db, mats[0].scales, wb - db);
        }
    }
    for (int c = 0; c < ncopies; c++)
        views[c] = mats[c].m;
    ws = mem_alloc(simd_act_bytes(k, vr->dt, T, sh->cols));
    for (int nt = 1; nt <= MAX_THREADS; nt++) {
        struct pool p;
        double tv, tm = 0, tv_cpu, tm_cpu = 0;

        memset(&p, 0, sizeof p);
        p.job = (struct job){.k = k, .w = views, .ncopies = ncopies,
                             .x = x, .y = y, .ldy = sh->rows, .T = 1};
        pool_start(&p, nt);
        tv = mm_only ? 0 : pool_time(&p);
        tv_cpu = last_cpu;
        if (sh->prefill) {
            /* activation prep is part of a matmul call's cost */
            double t0 = mono_now_s();
            simd_act_prepare(k, vr->dt, x, T, sh->cols, ws, &a);
            double tprep = mono_now_s() - t0;
            p.job.a = &a;
            p.job.T = T;
            p.job.ncopies = 1;
            tm = pool_time(&p) + tprep;
            tm_cpu = last_cpu + tprep;
        }
        pool_stop(&p);
        if (mm_only)
            printf("%-17s %-14s %d  %33s", sh->name, vr->label, nt, "");
        else
            printf("%-17s %-14s %d  %6.1f [%6.1f] (%3.0f%%) %6.1f", sh->name,
                   vr->label, nt, (double)wb / tv / 1e9, (double)wb / tv_cpu / 1e9,
                   100.0 * (double)wb / tv / 1e9 / readbw[nt],
                   2.0 * (double)n / tv / 1e9);
        if (sh->prefill) {
            double g = 2.0 * (double)n * T / tm_cpu / 1e9;
            int bf = k->act[vr->dt] == SIMD_ACT_BF16;
            int pk = k->isa == SIMD_ISA_AVX2 ? 2 : bf;
            printf(" | %6.1f [%6.1f] %3.0f%% of %s peak", 2.0 * (double)n * T / tm / 1e9,
                   g, 100.0 * g / peak_cpu[pk][nt],
                   pk == 2 ? "avx2" : bf ? "bf16" : "fp32");
        }
        printf("\n");
    }
    mem_free(ws);
    for (int c = 1; c < ncopies; c++)
        mem_free(mats[c].data);
    mat_free(&mats[0]);
    free(mats);
    free(views);
    return 0;
}

#ifdef BENCH_OPENBLAS
/* OpenBLAS sgemm on a prefill shape, for comparison. */
static void
bench_openblas(const struct shape *sh, const float *w, const float *x, float *y, int T,
               const char *only)
{
    size_t n = (size_t)sh->rows * (size_t)sh->cols;

    if (sh->prefill && (!only || strstr("openblas", only))) {
        for (int nt = 1; nt <= MAX_THREADS; nt++) {
            double t[REPS], tc[REPS];
            openblas_set_num_threads(nt);
            /* warm-up */
            cblas_sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_TRANS, T, (int)sh->rows,
                        (int)sh->cols, 1.0f, x, (int)sh->cols, w, (int)sh->cols, 0.0f,
                        y, (int)sh->rows);
            for (int r = 0; r < REPS; r++) {
                double t0 = mono_now_s(), c0 = proc_cpu_s();
                cblas_sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_TRANS, T,
                            (int)sh->rows, (int)sh->cols, 1.0f, x, (int)sh->cols, w,
                            (int)sh->cols, 0.0f, y, (int)sh->rows);
                t[r] = mono_now_s() - t0;
                tc[r] = (proc_cpu_s() - c0) / nt;
            }
            printf("%-17s %-14s %d  %33s | %6.1f [%6.1f]\n", sh->name, "openblas sgemm", nt,
                   "", 2.0 * (double)n * T / mono_median(t, REPS) / 1e9,
                   2.0 * (double)n * T / mono_median(tc, REPS) / 1e9);
        }
    }
}
#endif

int
main(int argc, char **argv)
{
    const int T = 256;
    int quick = 0, mm_only = 0;
    const char *only = NULL, *only_shape = NULL;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--mm") == 0)
            mm_only = 1;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc)
            only_shape = argv[++i];
        else {
            fprintf(stderr, "usage: bench_kernels [--quick] [--mm] [--only SUBSTRING] "
                            "[--shape SUBSTRING]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    printf("kernels: best = %s; medians of %d; T = %d for matmul\n",
           simd_kernels_name(simd_kernels_best(0)), REPS, T);
    if (!mm_only)
        bench_memcpy(simd_kernels_best(0));
    bench_peak();
    printf("%-17s %-14s %s\n", "shape", "format", "thr  matvec GB/s [cpu] (%read) GFLOP/s | matmul GFLOP/s [cpu]");

    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const struct shape *sh = &shapes[s];
        size_t n = (size_t)sh->rows * (size_t)sh->cols;
        float *w, *x, *y;

        if ((only_shape && !strstr(sh->name, only_shape)) || (mm_only && !sh->prefill))
            continue;
        w = mem_alloc(n * sizeof(float));
        x = mem_alloc((size_t)T * (size_t)sh->cols * sizeof(float));
        y = mem_alloc((size_t)T * (size_t)sh->rows * sizeof(float));
        if (!w || !x || !y) {
            fprintf(stderr, "bench_kernels: out of memory for %s\n", sh->name);
            return 1;
        }
        fill_random(w, n, 0.05f);
        fill_random(x, (size_t)T * (size_t)sh->cols, 1.0f);
        for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
            const struct variant *vr = &variants[v];
            if ((only && !strstr(vr->label, only)) ||
                (quick && (vr->isa == (int)SIMD_ISA_AVX2 || vr->isa == SIMD_NISA + 2)) ||
                (sh->lora && vr->dt != SIMD_F32))
                continue;
            if (bench_variant(sh, vr, w, x, y, T, mm_only) != 0)
                return 1;
        }
#ifdef BENCH_OPENBLAS
        bench_openblas(sh, w, x, y, T, only);
#endif
        mem_free(w);
        mem_free(x);
        mem_free(y);
    }
    return 0;
}
