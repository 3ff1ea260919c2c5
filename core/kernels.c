/*
** kernels.c -- portable float32 kernels (see kernels.h).
*/
#include "kernels.h"

#include <math.h>
#include <string.h>

/* Below this many multiply-adds a product runs on the calling thread: waking
** the pool costs more than it saves. */
#define KERN_PAR_MIN_FLOPS 262144
/* Tokens per tile of a matrix-matrix product (their inputs stay in L2). */
#define KERN_TOKEN_TILE 32

/*
** Every dot product below sums the same way (one 4-lane partial sum over
** i = 0, 4, 8, ..., a fixed horizontal add, then the scalar tail), so a
** result does not depend on which kernel or thread computed it: T = 1 and
** T > 1, any thread count, give bit-identical numbers.
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

/* Four rows W[0..3] (row stride LD) against one X; Y[0..3]. */
static void
kern_dot4(const float *restrict w, size_t ld, const float *restrict x, size_t n,
          float *restrict y)
{
    const float *w0 = w, *w1 = w + ld, *w2 = w + 2 * ld, *w3 = w + 3 * ld;
    kern_v4 a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };
    size_t i = 0;
    float r0, r1, r2, r3;

    for (; i + 4 <= n; i += 4) {
        kern_v4 x0 = kern_ld4(x + i);
        a0 += kern_ld4(w0 + i) * x0;
        a1 += kern_ld4(w1 + i) * x0;
        a2 += kern_ld4(w2 + i) * x0;
        a3 += kern_ld4(w3 + i) * x0;
    }
    r0 = kern_hsum(a0);
    r1 = kern_hsum(a1);
    r2 = kern_hsum(a2);
    r3 = kern_hsum(a3);
    for (; i < n; i++) {
        r0 += w0[i] * x[i];
        r1 += w1[i] * x[i];
        r2 += w2[i] * x[i];
        r3 += w3[i] * x[i];
    }
    y[0] = r0;
    y[1] = r1;
    y[2] = r2;
    y[3] = r3;
}

/* Four rows against two tokens X0, X1: Y0[0..3], Y1[0..3]. */
static void
kern_dot4x2(const float *restrict w, size_t ld, const float *restrict x0p,
            const float *restrict x1p, size_t n, float *restrict y0, float *restrict y1)
{
    const float *w0 = w, *w1 = w + ld, *w2 = w + 2 * ld, *w3 = w + 3 * ld;
    kern_v4 a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };
    kern_v4 b0 = { 0 }, b1 = { 0 }, b2 = { 0 }, b3 = { 0 };
    size_t i = 0;
    float r[8];

    for (; i + 4 <= n; i += 4) {
        kern_v4 x0 = kern_ld4(x0p + i), x1 = kern_ld4(x1p + i), v;
        v = kern_ld4(w0 + i);
        a0 += v * x0;
        b0 += v * x1;
        v = kern_ld4(w1 + i);
        a1 += v * x0;
        b1 += v * x1;
        v = kern_ld4(w2 + i);
        a2 += v * x0;
        b2 += v * x1;
        v = kern_ld4(w3 + i);
        a3 += v * x0;
        b3 += v * x1;
    }
    r[0] = kern_hsum(a0);
    r[1] = kern_hsum(a1);
    r[2] = kern_hsum(a2);
    r[3] = kern_hsum(a3);
    r[4] = kern_hsum(b0);
    r[5] = kern_hsum(b1);
    r[6] = kern_hsum(b2);
    r[7] = kern_hsum(b3);
    for (; i < n; i++) {
        r[0] += w0[i] * x0p[i];
        r[1] += w1[i] * x0p[i];
        r[2] += w2[i] * x0p[i];
        r[3] += w3[i] * x0p[i];
        r[4] += w0[i] * x1p[i];
        r[5] += w1[i] * x1p[i];
        r[6] += w2[i] * x1p[i];
        r[7] += w3[i] * x1p[i];
    }
    memcpy(y0, r, 4 * sizeof(float));
    memcpy(y1, r + 4, 4 * sizeof(float));
}

struct kern_mm_job {
    const kern_mat *w;
    const float    *x;
    size_t          t;
    float          *y;
};

static void
kern_mm_rows(const kern_mat *w, const float *x, size_t t, float *y, int r0, int r1)
{
    size_t cols = (size_t)w->cols, rows = (size_t)w->rows;

    /* Tiles of KERN_TOKEN_TILE tokens (kept in L2) x blocks of four rows
     * (kept in L1), two tokens at a time in registers. */
    for (size_t t0 = 0; t0 < t; t0 += KERN_TOKEN_TILE) {
        size_t t1 = t0 + KERN_TOKEN_TILE < t ? t0 + KERN_TOKEN_TILE : t;
        int o = r0;
        for (; o + 4 <= r1; o += 4) {
            const float *row = w->f32 + (size_t)o * cols;
            size_t j = t0;
            for (; j + 2 <= t1; j += 2)
                kern_dot4x2(row, cols, x + j * cols, x + (j + 1) * cols, cols,
                            y + j * rows + (size_t)o, y + (j + 1) * rows + (size_t)o);
            for (; j < t1; j++)
                kern_dot4(row, cols, x + j * cols, cols, y + j * rows + (size_t)o);
        }
        for (; o < r1; o++) {
            const float *row = w->f32 + (size_t)o * cols;
            for (size_t j = t0; j < t1; j++)
                y[j * rows + (size_t)o] = kern_dot(row, x + j * cols, cols);
        }
    }
}

static void
kern_mm_task(void *ctx, int i, int n)
{
    struct kern_mm_job *job = ctx;
    int rows = job->w->rows;
    int r0 = (int)((long long)rows * i / n), r1 = (int)((long long)rows * (i + 1) / n);

    kern_mm_rows(job->w, job->x, job->t, job->y, r0, r1);
}

void
kern_matmul(tpool *pool, const kern_mat *w, const float *x, size_t t, float *y)
{
    struct kern_mm_job job = { w, x, t, y };
    double flops = (double)w->rows * (double)w->cols * (double)t;

    if (pool == NULL || tpool_size(pool) <= 1 || flops < KERN_PAR_MIN_FLOPS) {
        kern_mm_rows(w, x, t, y, 0, w->rows);
        return;
    }
    tpool_run(pool, kern_mm_task, &job);
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
