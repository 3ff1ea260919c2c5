/*
** simd.c -- run-time dispatch of the compute kernels, activation
** preparation, Q8 quantization and the portable (plain C) kernels.
**
** The portable kernels are the fallback for CPUs without AVX2 and the
** baseline the SIMD versions are tested against.  They keep 8 partial sums
** per dot product (vectorizable by the compiler at the baseline ISA) and
** widen bf16/f16/Q8 weights to fp32 element by element.
**
** Invariants: kernels write only y[t*ldy + r] for r in [r0, r1), read W, X
** and the prepared activations, and keep no state, so disjoint row ranges
** may run concurrently.
*/
#include "simd.h"

#include <math.h>
#include <string.h>

#include "cpuid.h"
#include "dtype.h"
#include "simd_impl.h"

/* Partial sums per portable dot product: enough independent chains to hide
** FP-add latency and to let the compiler use 4-wide SSE registers. */
#define SIMD_PORT_LANES 8

static inline float
bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;

    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- portable dot products: W row (n) . x (n) -> fp32 ----------------- */

static float
dot_f32(const float *w, const float *x, int64_t n)
{
    float s[SIMD_PORT_LANES] = {0};
    int64_t c = 0;

    for (; c + SIMD_PORT_LANES <= n; c += SIMD_PORT_LANES)
        for (int l = 0; l < SIMD_PORT_LANES; l++)
            s[l] += w[c + l] * x[c + l];
    for (int l = 0; c < n; c++, l++)
        s[l] += w[c] * x[c];
    return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

static float
dot_bf16(const uint16_t *w, const float *x, int64_t n)
{
    float s[SIMD_PORT_LANES] = {0};
    int64_t c = 0;

    for (; c + SIMD_PORT_LANES <= n; c += SIMD_PORT_LANES)
        for (int l = 0; l < SIMD_PORT_LANES; l++)
            s[l] += bf16_to_f32(w[c + l]) * x[c + l];
    for (int l = 0; c < n; c++, l++)
        s[l] += bf16_to_f32(w[c]) * x[c];
    return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

static float
dot_f16(const uint16_t *w, const float *x, int64_t n)
{
    float s[SIMD_PORT_LANES] = {0};
    int64_t c = 0;

    for (; c + SIMD_PORT_LANES <= n; c += SIMD_PORT_LANES)
        for (int l = 0; l < SIMD_PORT_LANES; l++)
            s[l] += dtype_f16_to_f32(w[c + l]) * x[c + l];
    for (int l = 0; c < n; c++, l++)
        s[l] += dtype_f16_to_f32(w[c]) * x[c];
    return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

/* Q8 row: sum over blocks of scale_b * (sum_i q_i x_i). */
static float
dot_q8(const int8_t *q, const float *scales, const float *x, int64_t n)
{
    float total = 0;

    for (int64_t c0 = 0; c0 < n; c0 += SIMD_Q8_BLOCK) {
        int64_t len = n - c0 < SIMD_Q8_BLOCK ? n - c0 : SIMD_Q8_BLOCK;
        float s[SIMD_PORT_LANES] = {0};
        int64_t c = 0;

        for (; c + SIMD_PORT_LANES <= len; c += SIMD_PORT_LANES)
            for (int l = 0; l < SIMD_PORT_LANES; l++)
                s[l] += (float)q[c0 + c + l] * x[c0 + c + l];
        for (int l = 0; c < len; c++, l++)
            s[l] += (float)q[c0 + c] * x[c0 + c];
        total += scales[c0 / SIMD_Q8_BLOCK] *
                 (((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7])));
    }
    return total;
}

static float
dot_row(const simd_matrix *w, int64_t r, const float *x)
{
    int64_t n = w->cols;

    switch (w->dtype) {
    case SIMD_F32:
        return dot_f32((const float *)w->data + r * n, x, n);
    case SIMD_BF16:
        return dot_bf16((const uint16_t *)w->data + r * n, x, n);
    case SIMD_F16:
        return dot_f16((const uint16_t *)w->data + r * n, x, n);
    case SIMD_Q8:
        return dot_q8((const int8_t *)w->data + r * n,
                      w->scales + r * simd_q8_nblocks(n), x, n);
    case SIMD_Q4:
        return simd_q4_dot_portable(w, r, x);
    case SIMD_NDTYPE:
        break;
    }
    return NAN;
}

static void
port_matvec(const simd_matrix *w, const float *x, float *y, int64_t r0,
            int64_t r1)
{
    for (int64_t r = r0; r < r1; r++)
        y[r] = dot_row(w, r, x);
}

/* Row-outer order: one W row stays in L1 while every token passes by. */
static void
port_matmul(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
            int64_t r0, int64_t r1)
{
    for (int64_t r = r0; r < r1; r++)
        for (int64_t t = 0; t < a->T; t++)
            y[t * ldy + r] = dot_row(w, r, a->x + t * a->cols);
}

/* ---- portable conversions ----------------------------------------------- */

static void
port_f32_to_bf16(const float *src, uint16_t *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = dtype_f32_to_bf16(src[i]);
}

static void
port_f32_to_f16(const float *src, uint16_t *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = dtype_f32_to_f16(src[i]);
}

static void
port_bf16_to_f32(const uint16_t *src, float *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = bf16_to_f32(src[i]);
}

static void
port_f16_to_f32(const uint16_t *src, float *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = dtype_f16_to_f32(src[i]);
}

static double port_peak(int dot_bf16, int64_t iters);
static uint64_t port_read(const void *p, size_t bytes, int streams);

static const struct simd_kernels simd_kernels_portable = {
    .name = "portable",
    .isa = SIMD_ISA_PORTABLE,
    .flags = SIMD_EXACT,
    .matvec = {port_matvec, port_matvec, port_matvec, port_matvec, simd_q4_mv_portable},
    .matmul = {port_matmul, port_matmul, port_matmul, port_matmul, port_matmul},
    .act = {SIMD_ACT_F32, SIMD_ACT_F32, SIMD_ACT_F32, SIMD_ACT_F32, SIMD_ACT_F32},
    .f32_to_bf16 = port_f32_to_bf16,
    .f32_to_f16 = port_f32_to_f16,
    .bf16_to_f32 = port_bf16_to_f32,
    .f16_to_f32 = port_f16_to_f32,
    .q8_quantize = simd_q8_quantize_portable,
    .peak = port_peak,
    .read = port_read,
    .q4_act = simd_q4_act,
    .q4_rows = simd_q4_rows_portable,
};

/* ---- dispatch ------------------------------------------------------------ */

const simd_kernels *
simd_kernels_get(enum simd_isa isa, unsigned flags)
{
#if defined(__x86_64__)
    unsigned f;

    switch (isa) {
    case SIMD_ISA_PORTABLE:
        return &simd_kernels_portable;
    case SIMD_ISA_AVX2:
        f = cpuid_features();
        if ((f & CPUID_LEVEL_AVX2) != CPUID_LEVEL_AVX2)
            return NULL;
        if (flags & SIMD_AVX_VNNI)
            return (f & CPUID_AVX_VNNI) ? &simd_kernels_avx2_vnni : NULL;
        return &simd_kernels_avx2;
    case SIMD_ISA_AVX512:
        f = cpuid_features();
        if ((f & CPUID_LEVEL_AVX512) != CPUID_LEVEL_AVX512)
            return NULL;
        return (flags & SIMD_EXACT) ? &simd_kernels_avx512_exact
                                    : &simd_kernels_avx512;
    case SIMD_NISA:
        break;
    }
    return NULL;
#else
    (void)flags;
    return isa == SIMD_ISA_PORTABLE ? &simd_kernels_portable : NULL;
#endif
}

const simd_kernels *
simd_kernels_best(unsigned flags)
{
    for (int isa = SIMD_NISA - 1; isa > SIMD_ISA_PORTABLE; isa--) {
        const simd_kernels *k = simd_kernels_get((enum simd_isa)isa, flags | SIMD_AVX_VNNI);
        if (k == NULL)
            k = simd_kernels_get((enum simd_isa)isa, flags & ~(unsigned)SIMD_AVX_VNNI);
        if (k)
            return k;
    }
    return &simd_kernels_portable;
}

const char *
simd_kernels_name(const simd_kernels *k)
{
    return k->name;
}

enum simd_isa
simd_kernels_isa(const simd_kernels *k)
{
    return k->isa;
}

const char *
simd_dtype_name(enum simd_dtype dt)
{
    static const char *const names[SIMD_NDTYPE] = {"f32", "bf16", "f16", "q8", "q4"};

    return (unsigned)dt < SIMD_NDTYPE ? names[dt] : "?";
}

size_t
simd_dtype_size(enum simd_dtype dt)
{
    static const size_t sizes[SIMD_NDTYPE] = {4, 2, 2, 1, 0};

    return (unsigned)dt < SIMD_NDTYPE ? sizes[dt] : 0;
}

uint64_t
simd_data_bytes(enum simd_dtype dt, int64_t rows, int64_t cols)
{
    if (dt == SIMD_Q4)
        return (uint64_t)rows * (uint64_t)simd_q4_row_bytes(cols);
    return (uint64_t)rows * (uint64_t)cols * simd_dtype_size(dt);
}

uint64_t
simd_scale_bytes(enum simd_dtype dt, int64_t rows, int64_t cols)
{
    if (dt == SIMD_Q8)
        return (uint64_t)rows * (uint64_t)simd_q8_nblocks(cols) * sizeof(float);
    return 0;   /* Q4: the block words are in the rows */
}

/* ---- kernels through the table -------------------------------------- */

void
simd_matvec(const simd_kernels *k, const simd_matrix *w, const float *x,
            float *y, int64_t r0, int64_t r1)
{
    if (r0 < r1)
        k->matvec[w->dtype](w, x, y, r0, r1);
}

/* Does K's matvec for DT quantize X (Q4 always; Q8 where it takes 16-bit
** activations)?  K NULL: might any table's. */
static int
mv_quantizes(const simd_kernels *k, enum simd_dtype dt)
{
    return dt == SIMD_Q4 || (dt == SIMD_Q8 && (k == NULL || k->q8_rows != NULL));
}

size_t
simd_mv_prep_bytes(const simd_kernels *k, enum simd_dtype dt, int64_t cols)
{
    if (cols <= 0 || !mv_quantizes(k, dt))
        return 0;
    if (dt == SIMD_Q8)
        return (size_t)((cols + SIMD_Q8_XCOLS - 1) / SIMD_Q8_XCOLS) * sizeof(simd_q8_x);
    return (size_t)((cols + SIMD_Q4_XCOLS - 1) / SIMD_Q4_XCOLS) * sizeof(simd_q4_x);
}

void
simd_mv_prepare(const simd_kernels *k, enum simd_dtype dt, const float *x, int64_t cols,
                void *ws)
{
    simd_q4_x *q = ws;
    simd_q8_x *q8 = ws;

    if (!mv_quantizes(k, dt))
        return;
    if (dt == SIMD_Q8) {
        for (int64_t c0 = 0; c0 < cols; c0 += SIMD_Q8_XCOLS, q8++)
            k->q8_act(x + c0, cols - c0 < SIMD_Q8_XCOLS ? cols - c0 : SIMD_Q8_XCOLS, q8);
        return;
    }
    for (int64_t c0 = 0; c0 < cols; c0 += SIMD_Q4_XCOLS, q++)
        k->q4_act(x + c0, cols - c0 < SIMD_Q4_XCOLS ? cols - c0 : SIMD_Q4_XCOLS, q);
}

void
simd_matvec_prep(const simd_kernels *k, const simd_matrix *w, const float *x, const void *ws,
                 float *y, int64_t r0, int64_t r1)
{
    const simd_q4_x *q = ws;
    const simd_q8_x *q8 = ws;

    if (ws == NULL || !mv_quantizes(k, w->dtype)) {
        simd_matvec(k, w, x, y, r0, r1);
        return;
    }
    /* the passes of simd_q8x_matvec / simd_q4_matvec, X already quantized */
    if (w->dtype == SIMD_Q8) {
        for (int64_t c0 = 0; r0 < r1 && c0 < w->cols; c0 += SIMD_Q8_XCOLS, q8++) {
            int64_t n = w->cols - c0 < SIMD_Q8_XCOLS ? w->cols - c0 : SIMD_Q8_XCOLS;
            k->q8_rows(w, q8, simd_q8_nblocks(n), y, r0, r1, c0 / SIMD_Q8_BLOCK, c0 > 0);
        }
        return;
    }
    for (int64_t c0 = 0; r0 < r1 && c0 < w->cols; c0 += SIMD_Q4_XCOLS, q++) {
        int64_t n = w->cols - c0 < SIMD_Q4_XCOLS ? w->cols - c0 : SIMD_Q4_XCOLS;
        k->q4_rows(w, q, simd_q4_nblocks(n), y, r0, r1, c0 / SIMD_Q4_BLOCK, c0 > 0);
    }
}

/* ---- Q8 matvec with 16-bit activations (simd_impl.h) ------------------- */

void
simd_q8x_act_block(const float *x, int len, simd_q8_x *q, int64_t b)
{
    int16_t *c = q->xq + b * SIMD_Q8_BLOCK;
    float amax = 0, inv;

    for (int j = 0; j < len; j++)
        amax = fabsf(x[j]) > amax ? fabsf(x[j]) : amax;
    inv = amax > 0 ? 32767.0f / amax : 0;
    q->xd[b] = amax / 32767.0f;
    for (int j = 0; j < SIMD_Q8_BLOCK; j++) {
        /* round to nearest even, as vcvtps2dq; |x * inv| <= 32767 + rounding */
        float v = j < len ? nearbyintf(x[j] * inv) : 0;
        c[j] = (int16_t)(v > 32767 ? 32767 : v < -32767 ? -32767 : v);
    }
}

void
simd_q8x_act(const float *x, int64_t n, simd_q8_x *q)
{
    for (int64_t b = 0; b * SIMD_Q8_BLOCK < n; b++) {
        int64_t c0 = b * SIMD_Q8_BLOCK;
        simd_q8x_act_block(x + c0, (int)(n - c0 < SIMD_Q8_BLOCK ? n - c0 : SIMD_Q8_BLOCK), q, b);
    }
}

void
simd_q8x_matvec(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1,
                simd_q8x_act_fn act, simd_q8x_rows_fn rows)
{
    simd_q8_x q;

    for (int64_t c0 = 0; c0 < w->cols; c0 += SIMD_Q8_XCOLS) {
        int64_t n = w->cols - c0 < SIMD_Q8_XCOLS ? w->cols - c0 : SIMD_Q8_XCOLS;
        act(x + c0, n, &q);
        rows(w, &q, simd_q8_nblocks(n), y, r0, r1, c0 / SIMD_Q8_BLOCK, c0 > 0);
    }
}

void
simd_split_rows(int64_t rows, int n, int i, int64_t *r0, int64_t *r1)
{
    int64_t units = (rows + SIMD_ROW_ALIGN - 1) / SIMD_ROW_ALIGN;
    int64_t lo = units * i / n, hi = units * (i + 1) / n;

    *r0 = lo * SIMD_ROW_ALIGN < rows ? lo * SIMD_ROW_ALIGN : rows;
    *r1 = hi * SIMD_ROW_ALIGN < rows ? hi * SIMD_ROW_ALIGN : rows;
}

/* Split by tokens when the row split would give a thread fewer than this
** many row bands (a band more or less is then >= 1/4 of its work). */
#define SIMD_MM_MIN_BANDS 4
/* Token parts are multiples of 8 tokens (any split gives the same results:
** each output is summed the same way in every tile shape). */
#define SIMD_MM_TOKEN_ALIGN 8

void
simd_split_matmul(int64_t rows, int64_t T, int n, int i, int nthreads, int64_t *r0,
                  int64_t *r1, int64_t *t0, int64_t *t1)
{
    int64_t bands = (rows + SIMD_MM_ROW_BLOCK - 1) / SIMD_MM_ROW_BLOCK;

    if (nthreads < 1)
        nthreads = 1;
    if (nthreads > n)
        nthreads = n;
    if (nthreads > 1 && bands < (int64_t)SIMD_MM_MIN_BANDS * nthreads &&
        T >= (int64_t)SIMD_MM_TOKEN_ALIGN * nthreads) {
        int64_t units = (T + SIMD_MM_TOKEN_ALIGN - 1) / SIMD_MM_TOKEN_ALIGN;
        int64_t lo = i < nthreads ? units * i / nthreads : units;
        int64_t hi = i < nthreads ? units * (i + 1) / nthreads : units;
        *r0 = 0;
        *r1 = rows;
        *t0 = lo * SIMD_MM_TOKEN_ALIGN < T ? lo * SIMD_MM_TOKEN_ALIGN : T;
        *t1 = hi * SIMD_MM_TOKEN_ALIGN < T ? hi * SIMD_MM_TOKEN_ALIGN : T;
        return;
    }
    {
        int64_t lo = bands * i / n, hi = bands * (i + 1) / n;
        *t0 = 0;
        *t1 = T;
        *r0 = lo * SIMD_MM_ROW_BLOCK < rows ? lo * SIMD_MM_ROW_BLOCK : rows;
        *r1 = hi * SIMD_MM_ROW_BLOCK < rows ? hi * SIMD_MM_ROW_BLOCK : rows;
    }
}

void
simd_act_slice(const simd_act *a, int64_t t0, int64_t t1, simd_act *out)
{
    *out = *a;
    out->T = t1 - t0;
    out->x = a->x + t0 * a->cols;
    switch (a->kind) {
    case SIMD_ACT_F32:
        break;
    case SIMD_ACT_BF16:
        out->xq = (const uint16_t *)a->xq + t0 * a->ldq;
        break;
    case SIMD_ACT_Q8U:
        out->xq = (const uint8_t *)a->xq + t0 * a->ldq;
        out->xs = a->xs + t0 * (a->ldq / SIMD_Q8_BLOCK);
        break;
    }
}

void
simd_matmul(const simd_kernels *k, const simd_matrix *w, const simd_act *a,
            float *y, int64_t ldy, int64_t r0, int64_t r1)
{
    if (r0 >= r1 || a->T <= 0)
        return;
    if (w->cols == 0) { /* empty sums (the blocked kernels write nothing) */
        for (int64_t t = 0; t < a->T; t++)
            for (int64_t r = r0; r < r1; r++)
                y[t * ldy + r] = 0;
        return;
    }
    if (a->T == 1) {
        k->matvec[w->dtype](w, a->x, y, r0, r1);
        return;
    }
    k->matmul[w->dtype](w, a, y, ldy, r0, r1);
}

/* ---- activation preparation ---------------------------------------------- */

static size_t
round64(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

/* Row stride of the SIMD_ACT_BF16 copy: even, so the AVX-512 kernel can
** read every column as part of a 32-bit (x[2p], x[2p + 1]) pair. */
static int64_t
act_bf16_ld(int64_t cols)
{
    return (cols + 1) & ~(int64_t)1;
}

size_t
simd_act_bytes(const simd_kernels *k, enum simd_dtype dt, int64_t T,
               int64_t cols)
{
    size_t ldq;

    if (T <= 1)
        return 0; /* T == 1 goes to matvec, which reads X directly */
    switch (k->act[dt]) {
    case SIMD_ACT_F32:
        return 0;
    case SIMD_ACT_BF16:
        return round64((size_t)T * (size_t)act_bf16_ld(cols) * sizeof(uint16_t));
    case SIMD_ACT_Q8U:
        ldq = (size_t)simd_q8u_ldq(cols);
        return round64((size_t)T * ldq) +
               round64((size_t)T * (ldq / SIMD_Q8_BLOCK) * sizeof(float));
    }
    return 0;
}

/*
** Q8 activations: per token and 32-block, d = max|x| / 127, code =
** round(x / d) in [-127, 127], stored + 128 as u8 (the unsigned operand of
** vpdpbusd); padding up to ldq holds code 0 with scale 0.
*/
void
simd_act_q8u_portable(const float *x, int64_t T, int64_t cols, int64_t ldq,
                      uint8_t *xq, float *xs)
{
    int64_t nbq = ldq / SIMD_Q8_BLOCK;

    for (int64_t t = 0; t < T; t++) {
        const float *xt = x + t * cols;
        uint8_t *qt = xq + t * ldq;
        float *st = xs + t * nbq;

        for (int64_t b = 0; b < nbq; b++) {
            int64_t c0 = b * SIMD_Q8_BLOCK;
            int64_t len = cols - c0;
            float amax = 0, d, id;

            if (len > SIMD_Q8_BLOCK)
                len = SIMD_Q8_BLOCK;
            if (len < 0)
                len = 0;
            for (int64_t i = 0; i < len; i++)
                amax = fmaxf(amax, fabsf(xt[c0 + i]));
            d = amax / 127.0f;
            id = d > 0 ? 1.0f / d : 0.0f;
            st[b] = d;
            for (int64_t i = 0; i < SIMD_Q8_BLOCK; i++) {
                int v = 0;
                if (i < len) {
                    v = (int)lrintf(xt[c0 + i] * id);
                    v = v < -127 ? -127 : v > 127 ? 127 : v;
                }
                qt[c0 + i] = (uint8_t)(v + 128);
            }
        }
    }
}

void
simd_act_view(const simd_kernels *k, enum simd_dtype dt, const float *x, int64_t T,
              int64_t cols, void *ws, simd_act *a)
{
    memset(a, 0, sizeof *a);
    a->x = x;
    a->T = T;
    a->cols = cols;
    a->ldq = cols;
    a->kind = SIMD_ACT_F32;
    if (T <= 1)
        return;
    switch (k->act[dt]) {
    case SIMD_ACT_F32:
        break;
    case SIMD_ACT_BF16:
        a->kind = SIMD_ACT_BF16;
        a->xq = ws;
        a->ldq = act_bf16_ld(cols);
        break;
    case SIMD_ACT_Q8U: {
        int64_t ldq = simd_q8u_ldq(cols);
        a->kind = SIMD_ACT_Q8U;
        a->xq = ws;
        a->xs = (const float *)((const char *)ws + round64((size_t)T * (size_t)ldq));
        a->ldq = ldq;
        break;
    }
    }
}

void
simd_act_prepare_rows(const simd_kernels *k, enum simd_dtype dt, const float *x,
                      int64_t T, int64_t cols, void *ws, int64_t t0, int64_t t1)
{
    simd_act a;

    if (T <= 1 || t0 >= t1)
        return;
    simd_act_view(k, dt, x, T, cols, ws, &a);
    switch (a.kind) {
    case SIMD_ACT_F32:
        break;
    case SIMD_ACT_BF16: {
        uint16_t *xq = (uint16_t *)ws;

        if (a.ldq == cols)
            k->f32_to_bf16(x + t0 * cols, xq + t0 * cols, (size_t)(t1 - t0) * (size_t)cols);
        else
            for (int64_t t = t0; t < t1; t++) {
                k->f32_to_bf16(x + t * cols, xq + t * a.ldq, (size_t)cols);
                xq[t * a.ldq + cols] = 0;
            }
        break;
    }
    case SIMD_ACT_Q8U: {
        int64_t nbq = a.ldq / SIMD_Q8_BLOCK;
        simd_act_q8u_portable(x + t0 * cols, t1 - t0, cols, a.ldq,
                              (uint8_t *)ws + t0 * a.ldq, (float *)a.xs + t0 * nbq);
        break;
    }
    }
}

void
simd_act_prepare(const simd_kernels *k, enum simd_dtype dt, const float *x,
                 int64_t T, int64_t cols, void *ws, simd_act *a)
{
    simd_act_prepare_rows(k, dt, x, T, cols, ws, 0, T);
    simd_act_view(k, dt, x, T, cols, ws, a);
}

/* ---- conversions ----------------------------------------------------------- */

void
simd_f32_to_bf16(const simd_kernels *k, const float *src, uint16_t *dst,
                 size_t n)
{
    k->f32_to_bf16(src, dst, n);
}

void
simd_f32_to_f16(const simd_kernels *k, const float *src, uint16_t *dst,
                size_t n)
{
    k->f32_to_f16(src, dst, n);
}

void
simd_bf16_to_f32(const simd_kernels *k, const uint16_t *src, float *dst,
                 size_t n)
{
    k->bf16_to_f32(src, dst, n);
}

void
simd_f16_to_f32(const simd_kernels *k, const uint16_t *src, float *dst,
                size_t n)
{
    k->f16_to_f32(src, dst, n);
}

double
simd_peak_probe(const simd_kernels *k, enum simd_dtype dt, int64_t iters)
{
    return k->peak(simd_uses_bf16_dot(k, dt), iters);
}

uint64_t
simd_read_probe(const simd_kernels *k, const void *p, size_t bytes, int streams)
{
    return k->read(p, bytes, streams == 4 ? 4 : 8);
}

int
simd_uses_bf16_dot(const simd_kernels *k, enum simd_dtype dt)
{
    return (unsigned)dt < SIMD_NDTYPE && k->act[dt] == SIMD_ACT_BF16;
}

/* 8 independent multiply-add chains in plain C. */
static double
port_peak(int dot_bf16, int64_t iters)
{
    volatile float seed = 1.0f;
    float a[8], m = 0.999999f, c = 1e-7f, sum = 0;

    (void)dot_bf16;
    for (int l = 0; l < 8; l++)
        a[l] = seed + (float)l;
    for (int64_t i = 0; i < iters; i++)
        for (int l = 0; l < 8; l++)
            a[l] = a[l] * m + c;
    for (int l = 0; l < 8; l++)
        sum += a[l];
    seed = sum;
    return 2.0 * 8 * (double)iters;
}

/* The read probe's most streams and prefetch distance (simd.h). */
#define READ_STREAMS 8
#define READ_AHEAD 2048

/* Sum of the 64-bit words at P..P+BYTES (any alignment; a tail under 8
** bytes is one word, zero-padded). */
static uint64_t
read_words(const unsigned char *p, size_t bytes)
{
    uint64_t s = 0, w;

    for (size_t i = 0; i < bytes; i += 8) {
        w = 0;
        memcpy(&w, p + i, bytes - i < 8 ? bytes - i : 8);
        s += w;
    }
    return s;
}

static uint64_t
port_read(const void *p, size_t bytes, int streams)
{
    const unsigned char *b = p;
    const size_t ns = (size_t)streams, q = bytes / ns / 64 * 64; /* bytes per stream */
    uint64_t s[READ_STREAMS] = { 0 }, sum = 0;

    for (size_t i = 0; i < q; i += 64)
        for (size_t k = 0; k < ns; k++) {
            __builtin_prefetch(b + k * q + i + READ_AHEAD);
            s[k] += read_words(b + k * q + i, 64);
        }
    for (size_t k = 0; k < ns; k++)
        sum += s[k];
    return sum + read_words(b + ns * q, bytes - ns * q);
}

void
simd_q8_quantize(const simd_kernels *k, const float *src, int64_t cols,
                 int64_t r0, int64_t r1, int8_t *q, float *scales)
{
    k->q8_quantize(src, cols, r0, r1, q, scales);
}

void
simd_q8_quantize_block(const float *x, int64_t len, int8_t *q, float *scale)
{
    float amax = 0, d;

    for (int64_t i = 0; i < len; i++)
        amax = fmaxf(amax, fabsf(x[i]));
    d = amax / 127.0f;
    *scale = d;
    for (int64_t i = 0; i < len; i++) {
        /* Divide (not multiply by 1/d) so a weight equal to the
        ** block max maps to exactly +-127. */
        int v = d > 0 ? (int)lrintf(x[i] / d) : 0;
        v = v < -127 ? -127 : v > 127 ? 127 : v;
        q[i] = (int8_t)v;
    }
}

void
simd_q8_quantize_portable(const float *src, int64_t cols, int64_t r0,
                          int64_t r1, int8_t *q, float *scales)
{
    int64_t nb = simd_q8_nblocks(cols);

    for (int64_t r = r0; r < r1; r++)
        for (int64_t b = 0; b < nb; b++) {
            int64_t c0 = b * SIMD_Q8_BLOCK;
            simd_q8_quantize_block(src + r * cols + c0,
                                   cols - c0 < SIMD_Q8_BLOCK ? cols - c0 : SIMD_Q8_BLOCK,
                                   q + r * cols + c0, scales + r * nb + b);
        }
}
