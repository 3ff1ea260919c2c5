/*
** kernels.c -- matrix products on the simd.h kernels, split over the thread
** pool, and the small float32 helpers (see kernels.h).
*/
#include "kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Below this many multiply-adds a product runs on the calling thread: waking
** the pool costs more than it saves. */
#define KERN_PAR_MIN_FLOPS 262144

/* The choice, made once (cpuid may trap to the hypervisor: slow). */
static const simd_kernels *kern_chosen;

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

static const simd_kernels *
kern_choose(void)
{
    static const struct {
        const char   *name;
        enum simd_isa isa;
    } names[] = {
        { "portable", SIMD_ISA_PORTABLE }, { "avx2", SIMD_ISA_AVX2 }, { "avx512", SIMD_ISA_AVX512 },
    };
    const char *e = getenv("RWKV_KERNELS");

    if (e != NULL)
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strcmp(e, names[i].name) == 0) {
                const simd_kernels *k = simd_kernels_get(names[i].isa, 0);
                if (k != NULL)
                    return k;
            }
    return simd_kernels_best(0);
}

size_t
kern_dtype_size(enum kern_dtype dt)
{
    return simd_dtype_size((enum simd_dtype)dt);
}

size_t
kern_mat_bytes(const kern_mat *w)
{
    size_t n = (size_t)w->rows * (size_t)w->cols * kern_dtype_size(w->dtype);

    if (w->dtype == KERN_Q8)
        n += (size_t)w->rows * (size_t)simd_q8_nblocks(w->cols) * sizeof(float);
    return n;
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
};

static void
kern_job_run(void *ctx, int i, int n)
{
    struct kern_job *j = ctx;
    int64_t r0, r1;

    simd_split_rows(j->m.rows, n, i, &r0, &r1);
    if (j->t == 1)
        simd_matvec(j->k, &j->m, j->x, j->y, r0, r1);
    else
        simd_matmul(j->k, &j->m, &j->a, j->y, j->m.rows, r0, r1);
}

void
kern_matmul(const kern_ctx *ctx, const kern_mat *w, const float *x, size_t t, float *y)
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
        simd_act_prepare(job.k, job.m.dtype, x, (int64_t)t, w->cols, ctx->act_ws, &job.a);
    }
    if (pool == NULL || tpool_size(pool) <= 1 || flops < KERN_PAR_MIN_FLOPS)
        kern_job_run(&job, 0, 1);
    else
        tpool_run(pool, kern_job_run, &job);
}

/*
** Q8 quantization with a least-squares scale: codes from simd.h's quantizer
** (q = round(w * 127 / max|w|) per 32-block), then each block's scale is
** refitted to the codes, s = sum(w q) / sum(q q), which minimizes the
** block's squared error for those codes (it is never worse than max/127).
** Same format as simd.h's (codes in [-127, 127], one fp32 scale per block).
*/
void
kern_q8_quantize(const float *src, int64_t cols, int64_t r0, int64_t r1, int8_t *q,
                 float *scales)
{
    int64_t nb = simd_q8_nblocks(cols);

    simd_q8_quantize(kern_default_kernels(), src, cols, r0, r1, q, scales);
    for (int64_t r = r0; r < r1; r++)
        for (int64_t b = 0; b < nb; b++) {
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
