/*
** kernels.c -- matrix products on the simd.h kernels, split over the thread
** pool, and the small float32 helpers (see kernels.h).
*/
#include "kernels.h"
#include "vmath.h"
#include "../clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Below this many multiply-adds a product runs on the calling thread: waking
** the pool costs more than it saves. */
#define KERN_PAR_MIN_FLOPS 262144
/* Prepared activations (bf16 copies) of at least this many bytes are made
** by the pool too (measured, 1.5B prefill on 1 thread: the conversion is
** 3.4% of the bf16 product time, so ~7% of a 2-thread product if serial). */
#define KERN_PAR_MIN_PREP_BYTES 65536
/* Iterations of each run of the dot-product probe (kern_dot_slow): 10 M
** flops of fp32 multiply-add, ~70 us on one core. */
#define KERN_PEAK_ITERS 20000

/* The choice, made once (cpuid may trap to the hypervisor: slow). */
static const simd_kernels *kern_chosen;
/* What was wrong with RWKV_KERNELS (kern_env_note), made with the choice. */
static char kern_note[200];

static const simd_kernels *kern_choose(void);

const simd_kernels *
kern_default_kernels(void)
{
    const simd_kernels *k = __atomic_load_n(&kern_chosen, __ATOMIC_ACQUIRE);

    if (k == NULL) {
        k = kern_choose();
        __atomic_store_n(&kern_chosen, k, __ATOMIC_RELEASE);
    }
    return k;
}

/*
** Does K's bf16 dot product (its bf16 / Q8 / Q4 prefill kernel) do less than
** 1.25x the flops of its fp32 multiply-add on this core?  (It does 2x on Zen
** 4 / 5, half on some Xeons.)  The best of three short register-only runs of
** each, once per process: about a millisecond.
*/
static int
kern_dot_slow(const simd_kernels *k)
{
    double best[2] = { 0, 0 };

    for (int rep = 0; rep < 3; rep++)
        for (int dot = 0; dot < 2; dot++) {
            double t0 = mono_now_s(), fl, dt;
            fl = simd_peak_probe(k, dot ? SIMD_BF16 : SIMD_F32, KERN_PEAK_ITERS);
            dt = mono_now_s() - t0;
            if (dt > 0 && fl / dt > best[dot])
                best[dot] = fl / dt;
        }
    return best[1] < 1.25 * best[0];
}

static const simd_kernels *
kern_choose(void)
{
    static const struct {
        const char   *name;
        enum simd_isa isa;
        unsigned      flags;
    } names[] = {
        { "portable", SIMD_ISA_PORTABLE, 0 }, { "avx2", SIMD_ISA_AVX2, 0 },
        { "avx2-vnni", SIMD_ISA_AVX2, SIMD_AVX_VNNI }, { "avx512", SIMD_ISA_AVX512, 0 },
        { "avx512-exact", SIMD_ISA_AVX512, SIMD_EXACT },
    };
    const char *e = getenv("RWKV_KERNELS");
    const simd_kernels *k;
    int named = 0;

    if (e != NULL && *e == '\0')   /* set empty: as unset */
        e = NULL;
    if (e != NULL)
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strcmp(e, names[i].name) == 0) {
                if ((k = simd_kernels_get(names[i].isa, names[i].flags)) != NULL)
                    return k;
                named = 1;
            }
    k = simd_kernels_best(0);
    /* AVX-512 with a bf16 dot product no faster than its fp32 multiply-add
     * (measured on a Xeon: half the rate) prefills faster, and exactly, on
     * the fp32 kernels: the same table with fp32 panels and activations */
    if (simd_kernels_isa(k) == SIMD_ISA_AVX512 && kern_dot_slow(k)) {
        const simd_kernels *x = simd_kernels_get(SIMD_ISA_AVX512, SIMD_EXACT);
        if (x != NULL)
            k = x;
    }
    if (e != NULL && named)
        snprintf(kern_note, sizeof kern_note,
                 "RWKV_KERNELS=%.40s: this CPU cannot run that kernel set; using %s", e,
                 simd_kernels_name(k));
    else if (e != NULL)
        snprintf(kern_note, sizeof kern_note,
                 "RWKV_KERNELS=%.40s is not a kernel set (portable, avx2, avx2-vnni, avx512, "
                 "avx512-exact); using %s", e, simd_kernels_name(k));
    return k;
}

const char *
kern_env_note(void)
{
    kern_default_kernels();
    return kern_note;
}

const char *
kern_env_state(void)
{
    const char *e = getenv("RWKV_KERNELS");

    return e == NULL || *e == '\0' ? "" : *kern_env_note() ? "RWKV_KERNELS not followed"
                                                                  : "RWKV_KERNELS set";
}

size_t
kern_dtype_size(enum kern_dtype dt)
{
    return simd_dtype_size((enum simd_dtype)dt);
}

uint64_t
kern_data_bytes(enum kern_dtype dt, int64_t rows, int64_t cols)
{
    return simd_data_bytes((enum simd_dtype)dt, rows, cols);
}

uint64_t
kern_scale_bytes(enum kern_dtype dt, int64_t rows, int64_t cols)
{
    return simd_scale_bytes((enum simd_dtype)dt, rows, cols);
}

size_t
kern_mat_bytes(const kern_mat *w)
{
    return (size_t)(kern_data_bytes(w->dtype, w->rows, w->cols) +
                    kern_scale_bytes(w->dtype, w->rows, w->cols));
}

static void
kern_view(const kern_mat *w, simd_matrix *m)
{
    m->dtype = (enum simd_dtype)w->dtype;
    m->rows = w->rows;
    m->cols = w->cols;
    m->data = w->data;
    m->scales = w->dtype == KERN_Q8 ? w->scales : NULL;
}

struct kern_job {
    const simd_kernels *k;
    simd_matrix         m;
    const float        *x;      /* matvec */
    simd_act            a;      /* matmul */
    size_t              t;
    float              *y;
    int                 nthreads; /* matmul: the pool's threads */
    void               *ws;       /* matmul: scratch for the prepared X */
    const void         *prep;     /* matvec: X prepared (simd_mv_prepare) or NULL */
};

static void
kern_job_run(void *ctx, int i, int n)
{
    struct kern_job *j = ctx;
    int64_t r0, r1;

    if (j->t == 1) {
        simd_split_rows(j->m.rows, n, i, &r0, &r1);
        simd_matvec_prep(j->k, &j->m, j->x, j->prep, j->y, r0, r1);
    } else {
        /* row bands, or token ranges for small matrices (simd.h) */
        int64_t t0, t1;
        simd_act a;
        simd_split_matmul(j->m.rows, (int64_t)j->t, n, i, j->nthreads, &r0, &r1, &t0, &t1);
        if (t0 >= t1)
            return;
        simd_act_slice(&j->a, t0, t1, &a);
        simd_matmul(j->k, &j->m, &a, j->y + t0 * j->m.rows, j->m.rows, r0, r1);
    }
}

/* Activation preparation (T > 1): tokens of part I of N into the scratch. */
static void
kern_prep_run(void *ctx, int i, int n)
{
    struct kern_job *j = ctx;
    int64_t t = (int64_t)j->t;

    simd_act_prepare_rows(j->k, j->m.dtype, j->x, t, j->m.cols, j->ws, t * i / n,
                          t * (i + 1) / n);
}

size_t
kern_mv_ws_bytes(const kern_mat *w)
{
    return KERN_MV_MAX * simd_mv_prep_bytes(NULL, (enum simd_dtype)w->dtype, w->cols);
}

/* X prepared for one-token products by M at byte *OFF of CTX's scratch
** (*OFF advanced past it), or NULL when M's format needs nothing or the
** scratch is short (then every share prepares its own: the same numbers).
** At most KERN_MV_MAX preparations share the scratch, so kern_mv_ws_bytes
** of the widest matrix holds them. */
static const void *
kern_mv_prep(const kern_ctx *ctx, const simd_kernels *k, const simd_matrix *m, const float *x,
             size_t *off)
{
    size_t need = simd_mv_prep_bytes(k, m->dtype, m->cols);
    char *ws;

    if (need == 0 || ctx == NULL || ctx->mv_ws == NULL || *off + need > ctx->mv_bytes)
        return NULL;
    ws = (char *)ctx->mv_ws + *off;
    *off += need;
    simd_mv_prepare(k, m->dtype, x, m->cols, ws);
    return ws;
}

static void kern_matmul_run(const kern_ctx *ctx, const kern_mat *w, const float *x, size_t t,
                            float *y);
static void kern_matvec_multi_run(const kern_ctx *ctx, const kern_mv *list, int n);

void
kern_matmul(const kern_ctx *ctx, const kern_mat *w, const float *x, size_t t, float *y)
{
    double t0;

    if (ctx == NULL || ctx->tally == NULL || t != 1) {
        kern_matmul_run(ctx, w, x, t, y);
        return;
    }
    t0 = mono_now_s();
    kern_matmul_run(ctx, w, x, t, y);
    ctx->tally->seconds += mono_now_s() - t0;
    ctx->tally->bytes += (double)kern_mat_bytes(w);
}

void
kern_matvec_multi(const kern_ctx *ctx, const kern_mv *list, int n)
{
    double t0;

    if (ctx == NULL || ctx->tally == NULL) {
        kern_matvec_multi_run(ctx, list, n);
        return;
    }
    t0 = mono_now_s();
    kern_matvec_multi_run(ctx, list, n);
    ctx->tally->seconds += mono_now_s() - t0;
    for (int p = 0; p < n; p++)
        ctx->tally->bytes += (double)kern_mat_bytes(list[p].w);
}

static void
kern_matmul_run(const kern_ctx *ctx, const kern_mat *w, const float *x, size_t t, float *y)
{
    struct kern_job job;
    double flops = (double)w->rows * (double)w->cols * (double)t;
    tpool *pool = ctx ? ctx->pool : NULL;

    if (w->rows == 0 || t == 0)
        return;
    memset(&job, 0, sizeof job);
    job.k = ctx && ctx->k ? ctx->k : kern_default_kernels();
    kern_view(w, &job.m);
    job.x = x;
    job.t = t;
    job.y = y;
    job.nthreads = tpool_size(pool);
    job.ws = ctx ? ctx->act_ws : NULL;
    if (w->cols == 0) {
        memset(y, 0, t * (size_t)w->rows * sizeof(float));
        return;
    }
    if (t > 1) {
        size_t need = simd_act_bytes(job.k, job.m.dtype, (int64_t)t, w->cols);
        if (ctx == NULL || need > ctx->act_bytes) {
            /* no scratch for prepared activations: token by token */
            for (size_t p = 0; p < t; p++)
                simd_matvec(job.k, &job.m, x + p * (size_t)w->cols, y + p * (size_t)w->rows, 0,
                            w->rows);
            return;
        }
        if (need >= KERN_PAR_MIN_PREP_BYTES && pool != NULL && tpool_size(pool) > 1 &&
            flops >= KERN_PAR_MIN_FLOPS)
            tpool_run(pool, kern_prep_run, &job); /* converted by token ranges */
        else
            simd_act_prepare_rows(job.k, job.m.dtype, x, (int64_t)t, w->cols, ctx->act_ws, 0,
                                  (int64_t)t);
        simd_act_view(job.k, job.m.dtype, x, (int64_t)t, w->cols, ctx->act_ws, &job.a);
    }
    if (pool == NULL || tpool_size(pool) <= 1 || flops < KERN_PAR_MIN_FLOPS) {
        kern_job_run(&job, 0, 1);
        return;
    }
    if (t == 1) {
        size_t off = 0;
        job.prep = kern_mv_prep(ctx, job.k, &job.m, x, &off);
    }
    /* one token: a product that streams its weights; more: arithmetic */
    tpool_run_kind(pool, kern_job_run, &job, t == 1 ? TPOOL_STREAM : TPOOL_COMPUTE);
}

/* ---- batched one-token products (kern_matvec_multi) ---------------------- */

struct kern_mv_job {
    const simd_kernels *k;
    int                 n;
    simd_matrix         m[KERN_MV_MAX];
    const kern_mv      *mv;
    const void         *prep[KERN_MV_MAX];        /* X prepared, or NULL */
    double              unit_bytes[KERN_MV_MAX];  /* bytes of SIMD_ROW_ALIGN rows */
    double              start[KERN_MV_MAX];       /* byte offset of product i */
    double              total;
};

/* The element-wise function of a product on y[r0, r1): vmath.h's, as the
** prefill path applies it (so decode and prefill agree; vmath's functions
** give every element the same value whatever range it is in). */
static void
kern_mv_act(enum kern_act act, float *y, int64_t r0, int64_t r1)
{
    size_t n = (size_t)(r1 - r0);

    switch (act) {
    case KERN_ACT_NONE:
        break;
    case KERN_ACT_TANH:
        vm_tanh(vm_default(), y + r0, y + r0, n);
        break;
    case KERN_ACT_SIGMOID:
        vm_sigmoid(vm_default(), y + r0, y + r0, n);
        break;
    case KERN_ACT_RELU2:
        vm_relu2(vm_default(), y + r0, y + r0, n);
        break;
    }
}

/* First row unit of product P whose start byte is >= OFF. */
static int64_t
kern_mv_unit_at(const struct kern_mv_job *j, int p, double off)
{
    int64_t units = (j->m[p].rows + SIMD_ROW_ALIGN - 1) / SIMD_ROW_ALIGN;
    double u = ceil((off - j->start[p]) / j->unit_bytes[p]);

    return u <= 0 ? 0 : u >= (double)units ? units : (int64_t)u;
}

/* Chunk I of N: the row units whose first byte lies in the I-th of N equal
** byte ranges of all the products laid end to end. */
static void
kern_mv_job_run(void *ctx, int i, int n)
{
    const struct kern_mv_job *j = ctx;
    double lo = j->total * i / n, hi = j->total * (i + 1) / n;

    if (i == n - 1)
        hi = j->total + 1;
    for (int p = 0; p < j->n; p++) {
        int64_t u0, u1, r0, r1;
        if (j->start[p] + j->unit_bytes[p] * (double)((j->m[p].rows + SIMD_ROW_ALIGN - 1) /
                                                      SIMD_ROW_ALIGN) <= lo ||
            j->start[p] >= hi)
            continue;
        u0 = kern_mv_unit_at(j, p, lo);
        u1 = kern_mv_unit_at(j, p, hi);
        r0 = u0 * SIMD_ROW_ALIGN;
        r1 = u1 * SIMD_ROW_ALIGN < j->m[p].rows ? u1 * SIMD_ROW_ALIGN : j->m[p].rows;
        if (r0 >= r1)
            continue;
        simd_matvec_prep(j->k, &j->m[p], j->mv[p].x, j->prep[p], j->mv[p].y, r0, r1);
        kern_mv_act(j->mv[p].act, j->mv[p].y, r0, r1);
    }
}

/* X of each product prepared once (an X shared by products of the same
** format and width, once for all of them). */
static void
kern_mv_job_prep(const kern_ctx *ctx, struct kern_mv_job *j)
{
    size_t off = 0;

    for (int p = 0; p < j->n; p++) {
        int q = 0;
        while (q < p && !(j->prep[q] != NULL && j->mv[q].x == j->mv[p].x &&
                          j->m[q].dtype == j->m[p].dtype && j->m[q].cols == j->m[p].cols))
            q++;
        if (q < p)
            j->prep[p] = j->prep[q];
        else if (j->m[p].rows > 0)
            j->prep[p] = kern_mv_prep(ctx, j->k, &j->m[p], j->mv[p].x, &off);
    }
}

static void
kern_matvec_multi_run(const kern_ctx *ctx, const kern_mv *list, int n)
{
    struct kern_mv_job job;
    tpool *pool = ctx ? ctx->pool : NULL;
    double flops = 0;

    if (n <= 0)
        return;
    if (n > KERN_MV_MAX) {   /* more than one job's worth: in batches */
        kern_matvec_multi_run(ctx, list, KERN_MV_MAX);
        kern_matvec_multi_run(ctx, list + KERN_MV_MAX, n - KERN_MV_MAX);
        return;
    }
    job.k = ctx && ctx->k ? ctx->k : kern_default_kernels();
    job.n = 0;
    job.mv = list;
    job.total = 0;
    for (int p = 0; p < n; p++) {
        const kern_mat *w = list[p].w;
        kern_view(w, &job.m[p]);
        job.prep[p] = NULL;
        if (w->cols == 0) {   /* empty sums: no bytes to share */
            memset(list[p].y, 0, (size_t)w->rows * sizeof(float));
            kern_mv_act(list[p].act, list[p].y, 0, w->rows);
        }
        /* bytes of a row unit (+ 1: never 0) */
        job.unit_bytes[p] = (double)SIMD_ROW_ALIGN *
                            ((double)kern_mat_bytes(w) / (w->rows > 0 ? w->rows : 1) + 1);
        job.start[p] = job.total;
        if (w->cols > 0 && w->rows > 0)
            job.total += job.unit_bytes[p] * (double)((w->rows + SIMD_ROW_ALIGN - 1) /
                                                      SIMD_ROW_ALIGN);
        else
            job.m[p].rows = 0;   /* nothing to run */
        flops += (double)w->rows * (double)w->cols;
    }
    job.n = n;
    if (job.total <= 0)
        return;
    if (pool == NULL || tpool_size(pool) <= 1 || flops < KERN_PAR_MIN_FLOPS) {
        kern_mv_job_run(&job, 0, 1);
        return;
    }
    kern_mv_job_prep(ctx, &job);
    tpool_run_kind(pool, kern_mv_job_run, &job, TPOOL_STREAM);
}

/*
** Q8 quantization with a least-squares scale: codes from simd.h's quantizer
** (q = round(w * 127 / max|w|) per 32-block), then each block's scale is
** refitted to the codes, s = sum(w q) / sum(q q), which minimizes the
** block's squared error for those codes (it is never worse than max/127).
** Same format as simd.h's (codes in [-127, 127], one fp32 scale per block).
*/
/* Blocks refitted side by side (kern_q8_quantize). */
#define KERN_Q8_FIT 8

void
kern_q8_quantize(const float *src, int64_t cols, int64_t r0, int64_t r1, int8_t *q,
                 float *scales)
{
    int64_t nb = simd_q8_nblocks(cols);

    simd_q8_quantize(kern_default_kernels(), src, cols, r0, r1, q, scales);
    for (int64_t r = r0; r < r1; r++) {
        int64_t b = 0;
        /* KERN_Q8_FIT blocks side by side: their sums are independent
        ** chains (each in its own order, the same as one block at a time),
        ** not one chain of 64 dependent adds a block */
        for (; b + KERN_Q8_FIT <= cols / SIMD_Q8_BLOCK; b += KERN_Q8_FIT) {
            const float *w = src + r * cols + b * SIMD_Q8_BLOCK;
            const int8_t *qb = q + r * cols + b * SIMD_Q8_BLOCK;
            float swq[KERN_Q8_FIT] = { 0 }, sqq[KERN_Q8_FIT] = { 0 };
            for (int i = 0; i < SIMD_Q8_BLOCK; i++)
                for (int j = 0; j < KERN_Q8_FIT; j++) {
                    float c = (float)qb[j * SIMD_Q8_BLOCK + i];
                    swq[j] += w[j * SIMD_Q8_BLOCK + i] * c;
                    sqq[j] += c * c;
                }
            for (int j = 0; j < KERN_Q8_FIT; j++)
                if (sqq[j] > 0)
                    scales[r * nb + b + j] = swq[j] / sqq[j];
        }
        for (; b < nb; b++) {
            const float *w = src + r * cols + b * SIMD_Q8_BLOCK;
            const int8_t *qb = q + r * cols + b * SIMD_Q8_BLOCK;
            int64_t n = cols - b * SIMD_Q8_BLOCK < SIMD_Q8_BLOCK ? cols - b * SIMD_Q8_BLOCK
                                                                : SIMD_Q8_BLOCK;
            float swq = 0, sqq = 0;
            for (int64_t i = 0; i < n; i++) {
                swq += w[i] * (float)qb[i];
                sqq += (float)qb[i] * (float)qb[i];
            }
            if (sqq > 0)
                scales[r * nb + b] = swq / sqq;
        }
    }
}

/*
** Every dot product sums the same way (one 4-lane partial sum over
** i = 0, 4, 8, ..., a fixed horizontal add, then the scalar tail).
*/
float
kern_dot(const float *restrict a, const float *restrict b, size_t n)
{
    kern_v4 s4 = { 0 };
    size_t i = 0;
    float s;

    for (; i + 4 <= n; i += 4)
        s4 += kern_ld4(a + i) * kern_ld4(b + i);
    s = kern_hsum(s4);
    for (; i < n; i++)
        s += a[i] * b[i];
    return s;
}

void
kern_layer_norm(const float *x, const float *w, const float *b, float *y,
                size_t n, float eps)
{
    double mean = 0, var = 0;
    float m, rstd;

    for (size_t i = 0; i < n; i++)
        mean += x[i];
    mean /= (double)n;
    for (size_t i = 0; i < n; i++) {
        double d = x[i] - mean;
        var += d * d;
    }
    var /= (double)n;
    m = (float)mean;
    rstd = (float)(1.0 / sqrt(var + eps));
    for (size_t i = 0; i < n; i++)
        y[i] = (x[i] - m) * rstd * w[i] + b[i];
}

void
kern_group_norm(const float *x, const float *w, const float *b, float *y,
                size_t h, size_t n, float eps)
{
    for (size_t g = 0; g < h; g++)
        kern_layer_norm(x + g * n, w + g * n, b + g * n, y + g * n, n, eps);
}
