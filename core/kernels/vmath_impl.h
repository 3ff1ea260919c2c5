/*
** vmath_impl.h -- private to core/kernels/vmath*.c: the table layout and, when
** VM_W is defined, the one source of every vmath kernel, written with GCC
** vector extensions of VM_W floats.  Each ISA file defines VM_W (4, 8, 16)
** and VM_TABLE (the table's name) and includes this file once; its compiler
** flags decide the instructions (SSE2, AVX2+FMA, AVX-512).
**
** Math (see vmath.h for the bounds the test measures):
**   exp(x): x clamped to [-104, 89] (beyond, the result is 0 / inf anyway);
**     n = round(x / ln2) by the 1.5 * 2^23 trick, r = x - n ln2 in two
**     parts (ln2 hi has 9 bits, so n * hi is exact without FMA),
**     e^r = 1 + r + r^2 q(r) with q a degree-5 Chebyshev fit (relative error
**     1.8e-10 on |r| <= ln2 / 2), then scaled by 2^(n/2) twice so that results
**     down to the subnormals (n = -150) and up to the overflow (n = 128)
**     come out of one rounding.  NaN passes through.
**   sigmoid(x) = e / (1 + e) for x < 0 and 1 / (1 + e) for x >= 0, with
**     e = exp(-|x|): no overflow, tiny results stay accurate.
**   tanh(x): |x| < 0.625: x + x^3 q(x^2), q a degree-4 Chebyshev fit
**     (relative error 1.7e-8); otherwise sign(x) (1 - 2 / (exp(2|x|) + 1)).
*/
#ifndef RWKV_VMATH_IMPL_H
#define RWKV_VMATH_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vmath.h"

/* Head size up to which the multi-token RWKV-7 WKV runs on a transposed
** copy of the state on the stack (64 KiB); larger heads use the row form. */
#define VM_WKV7_NMAX 128
/* Tokens from which the RWKV-7 WKV transposes the state (a transposition
** costs about as much as a few tokens of recurrence). */
#define VM_WKV7_T_TRANSPOSE 4

typedef void (*vm_unary_fn)(const float *x, float *y, size_t n);

struct vm_ops {
    const char *name;
    enum simd_isa isa;
    vm_unary_fn exp, sigmoid, tanh, silu, relu2;
    void (*sigmoid_add)(const float *a, const float *b, float *y, size_t n);
    void (*exp_scale)(const float *x, float s, float *y, size_t n);
    void (*add)(const float *x, float *y, size_t n);
    void (*mul)(const float *x, float *y, size_t n);
    void (*sub)(const float *x, float *y, size_t n);
    void (*mix_add)(const float *x, const float *s, const float *m, const float *d, float *out,
                    size_t n);
    void (*add_sigmoid_mul)(const float *r, const float *x, float *y, size_t n);
    void (*mix)(enum vm_mix_form form, const float *x, const float *sx,
                const float *const *mix, float *const *out, int nout, size_t n);
    void (*layer_norm)(const float *x, const float *w, const float *b, float *y, size_t n,
                       float eps);
    void (*wkv7)(float *s, size_t n, size_t t, size_t ld, const float *r, const float *w,
                 const float *k, const float *v, const float *kk, const float *kka, float *y);
    void (*wkv5)(float *s, size_t n, size_t t, size_t ld, const float *r, const float *k,
                 const float *v, const float *w, size_t w_ld, size_t w_step, const float *u,
                 size_t u_step, float *y);
    void (*wkv4)(float *aa, float *bb, float *pp, size_t n, size_t t, size_t ld,
                 const float *r, const float *k, const float *v, const float *w,
                 const float *u, float *y);
    void (*v7_pre)(const struct vm_v7_pre *p);
    void (*v7_post)(float *y, const float *r, const float *k, const float *v, const float *g,
                    const float *r_k, const float *lnx_w, const float *lnx_b, size_t h,
                    size_t n, float eps);
};

extern const struct vm_ops vm_ops_portable;
extern const struct vm_ops vm_ops_avx2;
extern const struct vm_ops vm_ops_avx512;

#endif /* RWKV_VMATH_IMPL_H */

/* ======================================================================== */
#ifdef VM_W

#include <math.h>

#define VM_AI static inline __attribute__((always_inline))

typedef float    vm_f __attribute__((vector_size(VM_W * 4)));
typedef int32_t  vm_i __attribute__((vector_size(VM_W * 4)));
typedef float    vm_fh __attribute__((vector_size(VM_W * 2)));   /* half: W/2 floats */
typedef double   vm_d __attribute__((vector_size(VM_W * 4)));    /* W/2 doubles */

VM_AI vm_f
vld(const float *p)
{
    vm_f v;
    memcpy(&v, p, sizeof v);
    return v;
}

VM_AI void
vst(float *p, vm_f v)
{
    memcpy(p, &v, sizeof v);
}

VM_AI vm_f
vset(float x)
{
    return x - (vm_f){ 0 };   /* not 0 + x: -0 must stay -0 */
}

/* A * B + C: one rounding where the ISA has FMA (the Makefile's C11 mode
** would not contract a*b+c by itself). */
#if VM_W == 16 && defined(__AVX512F__)
#include <immintrin.h>
VM_AI vm_f
vfma(vm_f a, vm_f b, vm_f c)
{
    return (vm_f)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
}
#elif VM_W == 8 && defined(__FMA__)
#include <immintrin.h>
VM_AI vm_f
vfma(vm_f a, vm_f b, vm_f c)
{
    return (vm_f)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
}
#else
VM_AI vm_f
vfma(vm_f a, vm_f b, vm_f c)
{
    return a * b + c;
}
#endif

/* M ? A : B for a comparison mask M (all ones / zeros per lane). */
VM_AI vm_f
vsel(vm_i m, vm_f a, vm_f b)
{
    return (vm_f)(((vm_i)a & m) | ((vm_i)b & ~m));
}

VM_AI vm_f
vabs(vm_f x)
{
    return (vm_f)((vm_i)x & 0x7fffffff);
}

VM_AI float
vhsum(vm_f v)
{
    float s = 0;
    for (int l = 0; l < VM_W; l++)
        s += v[l];
    return s;
}

/* exp, see the file comment. */
#define VM_EXP_HI       89.0f
#define VM_EXP_LO       (-104.0f)
#define VM_LOG2E        1.44269504088896341f
#define VM_LN2_HI       0.693359375f
#define VM_LN2_LO       (-2.12194440e-4f)
#define VM_ROUND_MAGIC  12582912.0f   /* 1.5 * 2^23 */
#define VM_TANH_SMALL   0.625f

VM_AI vm_f
vexp(vm_f x)
{
    vm_f xc = vsel(x > VM_EXP_HI, vset(VM_EXP_HI), x);
    xc = vsel(xc < VM_EXP_LO, vset(VM_EXP_LO), xc);
    vm_f t = vfma(xc, vset(VM_LOG2E), vset(VM_ROUND_MAGIC));
    vm_f nf = t - VM_ROUND_MAGIC;
    vm_i n = (vm_i)t - (vm_i)vset(VM_ROUND_MAGIC);
    vm_f r = vfma(nf, vset(-VM_LN2_HI), xc);
    r = vfma(nf, vset(-VM_LN2_LO), r);
    /* q(r) = (e^r - 1 - r) / r^2, Chebyshev fit, highest degree first */
    vm_f q = vfma(r, vset(0.0001989198131397769f), vset(0.0013934541928270264f));
    q = vfma(q, r, vset(0.008333310024225292f));
    q = vfma(q, r, vset(0.04166645680967788f));
    q = vfma(q, r, vset(0.16666666682534356f));
    q = vfma(q, r, vset(0.5000000014286223f));
    vm_f p = vfma(r * r, q, r) + 1.0f;
    vm_i n1 = n >> 1, n2 = n - n1;
    vm_f s1 = (vm_f)((n1 + 127) << 23), s2 = (vm_f)((n2 + 127) << 23);
    vm_f y = (p * s1) * s2;
    return vsel(x != x, x + x, y);
}

VM_AI vm_f
vsigmoid(vm_f x)
{
    vm_f e = vexp(-vabs(x));
    vm_f num = vsel(x >= 0.0f, vset(1.0f), e);
    /* NaN: e is NaN, so is the quotient */
    return num / (1.0f + e);
}

VM_AI vm_f
vtanh(vm_f x)
{
    vm_f ax = vabs(x), x2 = x * x;
    vm_f q = vfma(x2, vset(-0.006096714165908197f), vset(0.020997178999074752f));
    q = vfma(q, x2, vset(-0.05385090957851358f));
    q = vfma(q, x2, vset(0.13332769736976327f));
    q = vfma(q, x2, vset(-0.33333328944134255f));
    vm_f small = vfma(ax, x2 * q, ax);
    vm_f e = vexp(ax + ax);
    vm_f big = 1.0f - 2.0f / (e + 1.0f);
    vm_f y = vsel(ax < VM_TANH_SMALL, small, big);   /* tanh |x| (NaN: big) */
    return (vm_f)((vm_i)y | ((vm_i)x & (vm_i)vset(-0.0f)));   /* sign of x */
}

/* Apply F to X[0..n) into Y, the tail through a padded copy. */
#define VM_MAP1(F, x, y, n)                                                    \
    do {                                                                       \
        size_t i_ = 0;                                                         \
        for (; i_ + VM_W <= (n); i_ += VM_W)                                   \
            vst((y) + i_, F(vld((x) + i_)));                                   \
        if (i_ < (n)) {                                                        \
            float b_[VM_W] = { 0 };                                            \
            memcpy(b_, (x) + i_, ((n) - i_) * sizeof(float));                  \
            vst(b_, F(vld(b_)));                                               \
            memcpy((y) + i_, b_, ((n) - i_) * sizeof(float));                  \
        }                                                                      \
    } while (0)

/* Same for two inputs. */
#define VM_MAP2(F, a, b, y, n)                                                 \
    do {                                                                       \
        size_t i_ = 0;                                                         \
        for (; i_ + VM_W <= (n); i_ += VM_W)                                   \
            vst((y) + i_, F(vld((a) + i_), vld((b) + i_)));                    \
        if (i_ < (n)) {                                                        \
            float a_[VM_W] = { 0 }, b_[VM_W] = { 0 };                          \
            memcpy(a_, (a) + i_, ((n) - i_) * sizeof(float));                  \
            memcpy(b_, (b) + i_, ((n) - i_) * sizeof(float));                  \
            vst(a_, F(vld(a_), vld(b_)));                                      \
            memcpy((y) + i_, a_, ((n) - i_) * sizeof(float));                  \
        }                                                                      \
    } while (0)

VM_AI vm_f vsilu(vm_f x) { return x * vsigmoid(x); }
VM_AI vm_f
vrelu2(vm_f x)
{
    vm_f z = vsel(x > 0.0f, x, vset(0.0f));
    return z * z;
}
VM_AI vm_f vsigadd(vm_f a, vm_f b) { return vsigmoid(a + b); }
VM_AI vm_f vaddf(vm_f x, vm_f y) { return y + x; }
VM_AI vm_f vmulf(vm_f x, vm_f y) { return y * x; }

static void f_exp(const float *x, float *y, size_t n) { VM_MAP1(vexp, x, y, n); }
static void f_sigmoid(const float *x, float *y, size_t n) { VM_MAP1(vsigmoid, x, y, n); }
static void f_tanh(const float *x, float *y, size_t n) { VM_MAP1(vtanh, x, y, n); }
static void f_silu(const float *x, float *y, size_t n) { VM_MAP1(vsilu, x, y, n); }
static void f_relu2(const float *x, float *y, size_t n) { VM_MAP1(vrelu2, x, y, n); }
static void
f_sigmoid_add(const float *a, const float *b, float *y, size_t n)
{
    VM_MAP2(vsigadd, a, b, y, n);
}
static void f_add(const float *x, float *y, size_t n) { VM_MAP2(vaddf, x, y, y, n); }
static void f_mul(const float *x, float *y, size_t n) { VM_MAP2(vmulf, x, y, y, n); }
VM_AI vm_f vsubf(vm_f x, vm_f y) { return y - x; }
static void f_sub(const float *x, float *y, size_t n) { VM_MAP2(vsubf, x, y, y, n); }

static void
f_mix_add(const float *x, const float *s, const float *m, const float *d, float *out, size_t n)
{
    size_t i = 0;

    for (; i + VM_W <= n; i += VM_W)
        vst(out + i, vfma(vld(s + i), vld(m + i) + vld(d + i), vld(x + i)));
    for (; i < n; i++)
        out[i] = x[i] + s[i] * (m[i] + d[i]);
}

static void
f_exp_scale(const float *x, float s, float *y, size_t n)
{
    size_t i = 0;

    for (; i + VM_W <= n; i += VM_W)
        vst(y + i, vexp(vld(x + i) * s));
    for (; i < n; i++) {
        float b[VM_W] = { 0 };
        b[0] = x[i] * s;
        y[i] = vexp(vld(b))[0];
    }
}

static void
f_add_sigmoid_mul(const float *r, const float *x, float *y, size_t n)
{
    size_t i = 0;

    for (; i + VM_W <= n; i += VM_W)
        vst(y + i, vfma(vsigmoid(vld(r + i)), vld(x + i), vld(y + i)));
    for (; i < n; i++) {
        float b[VM_W] = { 0 };
        b[0] = r[i];
        y[i] += vsigmoid(vld(b))[0] * x[i];
    }
}

static void
f_mix(enum vm_mix_form form, const float *x, const float *sx, const float *const *mix,
      float *const *out, int nout, size_t n)
{
    size_t i = 0;

    for (; i + VM_W <= n; i += VM_W) {
        vm_f xv = vld(x + i), sv = vld(sx + i), d = sv - xv;
        for (int k = 0; k < nout; k++) {
            vm_f m = vld(mix[k] + i);
            vst(out[k] + i, form == VM_MIX_LERP ? vfma(d, m, xv) : vfma(xv, m, sv * (1.0f - m)));
        }
    }
    for (; i < n; i++)
        for (int k = 0; k < nout; k++) {
            float m = mix[k][i];
            out[k][i] = form == VM_MIX_LERP ? x[i] + (sx[i] - x[i]) * m
                                            : x[i] * m + sx[i] * (1.0f - m);
        }
}

/* ---- layer norm: sums in double, VM_W / 2 lanes ---- */
VM_AI vm_d
vld_d(const float *p)
{
    vm_fh h;
    memcpy(&h, p, sizeof h);
    return __builtin_convertvector(h, vm_d);
}

static void
f_layer_norm(const float *x, const float *w, const float *b, float *y, size_t n, float eps)
{
    enum { H = VM_W / 2 };
    vm_d s0 = { 0 }, s1 = { 0 };
    double mean = 0, var = 0;
    size_t i = 0;
    float m, rstd;

    for (; i + VM_W <= n; i += VM_W) {
        s0 += vld_d(x + i);
        s1 += vld_d(x + i + H);
    }
    s0 += s1;
    for (int l = 0; l < H; l++)
        mean += s0[l];
    for (; i < n; i++)
        mean += x[i];
    mean /= (double)n;
    s0 = (vm_d){ 0 };
    s1 = (vm_d){ 0 };
    for (i = 0; i + VM_W <= n; i += VM_W) {
        vm_d d0 = vld_d(x + i) - mean, d1 = vld_d(x + i + H) - mean;
        s0 += d0 * d0;
        s1 += d1 * d1;
    }
    s0 += s1;
    for (int l = 0; l < H; l++)
        var += s0[l];
    for (; i < n; i++) {
        double d = x[i] - mean;
        var += d * d;
    }
    var /= (double)n;
    m = (float)mean;
    rstd = (float)(1.0 / sqrt(var + eps));
    for (i = 0; i + VM_W <= n; i += VM_W)
        vst(y + i, vfma((vld(x + i) - m) * rstd, vld(w + i), vld(b + i)));
    for (; i < n; i++)
        y[i] = (x[i] - m) * rstd * w[i] + b[i];
}

/* ---- RWKV-7 WKV ---- */

/* Tokens ahead whose vectors the multi-token WKV prefetches: a head walks
** the [T][C] arrays with a stride of C floats, one short row per token. */
#define VM_PF_TOKENS 2

VM_AI void
wkv_prefetch(size_t o, size_t n, const float *a, const float *b, const float *c,
             const float *d, const float *e, const float *f)
{
    for (size_t i = 0; i < n; i += 64 / sizeof(float)) {
        __builtin_prefetch(a + o + i);
        __builtin_prefetch(b + o + i);
        __builtin_prefetch(c + o + i);
        __builtin_prefetch(d + o + i);
        if (e != NULL)
            __builtin_prefetch(e + o + i);
        if (f != NULL)
            __builtin_prefetch(f + o + i);
    }
}

/* One token on row I of S (value i): vectors along the key j. */
VM_AI void
wkv7_row(float *restrict s, size_t n, size_t i, const float *restrict r,
         const float *restrict w, const float *restrict k, const float *restrict v,
         const float *restrict kk, const float *restrict kka, float *restrict y)
{
    float *row = s + i * n;
    vm_f sa4 = { 0 }, acc4 = { 0 };
    float sa, acc, vi = v[i];
    size_t j = 0;

    for (; j + VM_W <= n; j += VM_W)
        sa4 = vfma(vld(row + j), vld(kk + j), sa4);
    sa = vhsum(sa4);
    for (; j < n; j++)
        sa += row[j] * kk[j];
    for (j = 0; j + VM_W <= n; j += VM_W) {
        vm_f x = vfma(vld(row + j), vld(w + j),
                      vfma(vset(-sa), vld(kka + j), vset(vi) * vld(k + j)));
        vst(row + j, x);
        acc4 = vfma(x, vld(r + j), acc4);
    }
    acc = vhsum(acc4);
    for (; j < n; j++) {
        row[j] = row[j] * w[j] - sa * kka[j] + vi * k[j];
        acc += row[j] * r[j];
    }
    y[i] = acc;
}

/*
** One token on S's rows, WKV7_ROWS rows at a time where N is a multiple of
** VM_W: each row's sums in wkv7_row's order (the same numbers), the rows'
** chains interleaved.  A row is two dependent chains of N / VM_W FMAs, each
** ending in a horizontal sum, and one row at a time left the core waiting
** on them: on the 1.5B's heads (64 x 64, state in L2) 4 rows at a time took
** 19 us a token where one took 28-31 (one thread, AVX2, Zen 5 VM).  The
** state comes from memory (the weights streamed through the caches since
** the layer last ran), and rows read 4 at a time no longer make a pattern
** the hardware prefetcher follows (cold: 44 us against 33), so the block
** prefetches the state WKV7_PF_BYTES ahead of itself (30 us).
*/
#define WKV7_ROWS 4
#define WKV7_PF_BYTES 4096

static void
wkv7_rows(float *restrict s, size_t n, const float *restrict r, const float *restrict w,
          const float *restrict k, const float *restrict v, const float *restrict kk,
          const float *restrict kka, float *restrict y)
{
    size_t i = 0;

    if (n % VM_W == 0)
        for (; i + WKV7_ROWS <= n; i += WKV7_ROWS) {
            vm_f sa4[WKV7_ROWS], acc4[WKV7_ROWS];
            float nsa[WKV7_ROWS];

            for (size_t b = 0; b < WKV7_ROWS * n * sizeof(float); b += 64)
                __builtin_prefetch((const char *)(s + i * n) + WKV7_PF_BYTES + b, 1);
#pragma GCC unroll 8
            for (int q = 0; q < WKV7_ROWS; q++)
                sa4[q] = acc4[q] = (vm_f){ 0 };
            for (size_t j = 0; j < n; j += VM_W) {
                vm_f kj = vld(kk + j);
#pragma GCC unroll 8
                for (int q = 0; q < WKV7_ROWS; q++)
                    sa4[q] = vfma(vld(s + (i + q) * n + j), kj, sa4[q]);
            }
#pragma GCC unroll 8
            for (int q = 0; q < WKV7_ROWS; q++)
                nsa[q] = -vhsum(sa4[q]);
            for (size_t j = 0; j < n; j += VM_W) {
                vm_f wj = vld(w + j), aj = vld(kka + j), kj = vld(k + j), rj = vld(r + j);
#pragma GCC unroll 8
                for (int q = 0; q < WKV7_ROWS; q++) {
                    float *row = s + (i + q) * n + j;
                    vm_f x = vfma(vld(row), wj, vfma(vset(nsa[q]), aj, vset(v[i + q]) * kj));
                    vst(row, x);
                    acc4[q] = vfma(x, rj, acc4[q]);
                }
            }
#pragma GCC unroll 8
            for (int q = 0; q < WKV7_ROWS; q++)
                y[i + q] = vhsum(acc4[q]);
        }
    for (; i < n; i++)
        wkv7_row(s, n, i, r, w, k, v, kk, kka, y);
}

/* One token on the transposed state ST [key j][value i], value columns
** [i0, i0 + 4 VM_W) in four named vectors (kept in registers): two passes
** over j.  N is even (a multiple of VM_W); sa sums even and odd j apart. */
VM_AI void
wkv7_cols4(float *restrict st, size_t n, size_t i0, const float *restrict r,
           const float *restrict w, const float *restrict k, const float *restrict v,
           const float *restrict kk, const float *restrict kka, float *restrict y)
{
    vm_f s0 = { 0 }, s1 = { 0 }, s2 = { 0 }, s3 = { 0 };
    vm_f a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };
    vm_f v0 = vld(v + i0), v1 = vld(v + i0 + VM_W), v2 = vld(v + i0 + 2 * VM_W);
    vm_f v3 = vld(v + i0 + 3 * VM_W);

    {
        /* even and odd j in separate sums: twice the independent FMA chains */
        vm_f e0 = { 0 }, e1 = { 0 }, e2 = { 0 }, e3 = { 0 };
        for (size_t j = 0; j + 1 < n; j += 2) {
            const float *row = st + j * n + i0, *nxt = row + n;
            vm_f q = vset(kk[j]), u = vset(kk[j + 1]);
            s0 = vfma(vld(row), q, s0);
            s1 = vfma(vld(row + VM_W), q, s1);
            s2 = vfma(vld(row + 2 * VM_W), q, s2);
            s3 = vfma(vld(row + 3 * VM_W), q, s3);
            e0 = vfma(vld(nxt), u, e0);
            e1 = vfma(vld(nxt + VM_W), u, e1);
            e2 = vfma(vld(nxt + 2 * VM_W), u, e2);
            e3 = vfma(vld(nxt + 3 * VM_W), u, e3);
        }
        s0 += e0;
        s1 += e1;
        s2 += e2;
        s3 += e3;
    }
    for (size_t j = 0; j < n; j++) {
        float *row = st + j * n + i0;
        vm_f wj = vset(w[j]), aj = vset(-kka[j]), kj = vset(k[j]), rj = vset(r[j]);
        vm_f x0 = vfma(vld(row), wj, vfma(s0, aj, v0 * kj));
        vm_f x1 = vfma(vld(row + VM_W), wj, vfma(s1, aj, v1 * kj));
        vm_f x2 = vfma(vld(row + 2 * VM_W), wj, vfma(s2, aj, v2 * kj));
        vm_f x3 = vfma(vld(row + 3 * VM_W), wj, vfma(s3, aj, v3 * kj));
        vst(row, x0);
        vst(row + VM_W, x1);
        vst(row + 2 * VM_W, x2);
        vst(row + 3 * VM_W, x3);
        a0 = vfma(x0, rj, a0);
        a1 = vfma(x1, rj, a1);
        a2 = vfma(x2, rj, a2);
        a3 = vfma(x3, rj, a3);
    }
    vst(y + i0, a0);
    vst(y + i0 + VM_W, a1);
    vst(y + i0 + 2 * VM_W, a2);
    vst(y + i0 + 3 * VM_W, a3);
}

/* The same for one vector of value columns [i0, i0 + VM_W). */
VM_AI void
wkv7_cols1(float *restrict st, size_t n, size_t i0, const float *restrict r,
           const float *restrict w, const float *restrict k, const float *restrict v,
           const float *restrict kk, const float *restrict kka, float *restrict y)
{
    vm_f s0 = { 0 }, a0 = { 0 }, v0 = vld(v + i0);

    for (size_t j = 0; j < n; j++)
        s0 = vfma(vld(st + j * n + i0), vset(kk[j]), s0);
    for (size_t j = 0; j < n; j++) {
        float *row = st + j * n + i0;
        vm_f x0 = vfma(vld(row), vset(w[j]), vfma(s0, vset(-kka[j]), v0 * k[j]));
        vst(row, x0);
        a0 = vfma(x0, vset(r[j]), a0);
    }
    vst(y + i0, a0);
}

static void
f_wkv7(float *s, size_t n, size_t t, size_t ld, const float *r, const float *w,
       const float *k, const float *v, const float *kk, const float *kka, float *y)
{
    float st[VM_WKV7_NMAX * VM_WKV7_NMAX] __attribute__((aligned(64)));

    if (t < VM_WKV7_T_TRANSPOSE || n > VM_WKV7_NMAX || n % VM_W != 0) {
        for (size_t p = 0; p < t; p++) {
            size_t o = p * ld;
            wkv7_rows(s, n, r + o, w + o, k + o, v + o, kk + o, kka + o, y + o);
        }
        return;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            st[j * n + i] = s[i * n + j];
    for (size_t p = 0; p < t; p++) {
        size_t o = p * ld, i0 = 0;
        if (p + VM_PF_TOKENS < t)
            wkv_prefetch(o + VM_PF_TOKENS * ld, n, r, w, k, v, kk, kka);
        for (; i0 + 4 * VM_W <= n; i0 += 4 * VM_W)
            wkv7_cols4(st, n, i0, r + o, w + o, k + o, v + o, kk + o, kka + o, y + o);
        for (; i0 < n; i0 += VM_W)
            wkv7_cols1(st, n, i0, r + o, w + o, k + o, v + o, kk + o, kka + o, y + o);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            s[i * n + j] = st[j * n + i];
}

/* ---- RWKV-5/6 WKV: rows are keys i, vectors along the value j ---- */
/* One token, value columns [j0, j0 + 4 VM_W) in named vectors (registers). */
VM_AI void
wkv5_cols4(float *restrict s, size_t n, size_t j0, const float *restrict r,
           const float *restrict k, const float *restrict v, const float *restrict w,
           size_t w_step, const float *restrict u, size_t u_step, float *restrict y)
{
    vm_f a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };
    vm_f v0 = vld(v + j0), v1 = vld(v + j0 + VM_W), v2 = vld(v + j0 + 2 * VM_W);
    vm_f v3 = vld(v + j0 + 3 * VM_W);

    for (size_t i = 0; i < n; i++) {
        float *row = s + i * n + j0;
        vm_f ri = vset(r[i]), ki = vset(k[i]), ui = vset(u[i * u_step]);
        vm_f wi = vset(w[i * w_step]);
        vm_f b0 = ki * v0, b1 = ki * v1, b2 = ki * v2, b3 = ki * v3;
        vm_f s0 = vld(row), s1 = vld(row + VM_W), s2 = vld(row + 2 * VM_W);
        vm_f s3 = vld(row + 3 * VM_W);
        a0 = vfma(ri, vfma(ui, b0, s0), a0);
        a1 = vfma(ri, vfma(ui, b1, s1), a1);
        a2 = vfma(ri, vfma(ui, b2, s2), a2);
        a3 = vfma(ri, vfma(ui, b3, s3), a3);
        vst(row, vfma(wi, s0, b0));
        vst(row + VM_W, vfma(wi, s1, b1));
        vst(row + 2 * VM_W, vfma(wi, s2, b2));
        vst(row + 3 * VM_W, vfma(wi, s3, b3));
    }
    vst(y + j0, a0);
    vst(y + j0 + VM_W, a1);
    vst(y + j0 + 2 * VM_W, a2);
    vst(y + j0 + 3 * VM_W, a3);
}

/* The same for one vector [j0, j0 + VM_W). */
VM_AI void
wkv5_cols1(float *restrict s, size_t n, size_t j0, const float *restrict r,
           const float *restrict k, const float *restrict v, const float *restrict w,
           size_t w_step, const float *restrict u, size_t u_step, float *restrict y)
{
    vm_f a0 = { 0 }, v0 = vld(v + j0);

    for (size_t i = 0; i < n; i++) {
        float *row = s + i * n + j0;
        vm_f b0 = k[i] * v0, s0 = vld(row);
        a0 = vfma(vset(r[i]), vfma(vset(u[i * u_step]), b0, s0), a0);
        vst(row, vfma(vset(w[i * w_step]), s0, b0));
    }
    vst(y + j0, a0);
}

static void
f_wkv5(float *s, size_t n, size_t t, size_t ld, const float *r, const float *k,
       const float *v, const float *w, size_t w_ld, size_t w_step, const float *u,
       size_t u_step, float *y)
{
    for (size_t p = 0; p < t; p++) {
        size_t o = p * ld, j0 = 0;
        const float *wp = w + p * w_ld;
        if (p + VM_PF_TOKENS < t) {
            wkv_prefetch(o + VM_PF_TOKENS * ld, n, r, k, v, y, NULL, NULL);
            if (w_ld != 0)
                wkv_prefetch((p + VM_PF_TOKENS) * w_ld, n, w, w, w, w, NULL, NULL);
        }
        for (; j0 + 4 * VM_W <= n; j0 += 4 * VM_W)
            wkv5_cols4(s, n, j0, r + o, k + o, v + o, wp, w_step, u, u_step, y + o);
        for (; j0 + VM_W <= n; j0 += VM_W)
            wkv5_cols1(s, n, j0, r + o, k + o, v + o, wp, w_step, u, u_step, y + o);
        for (; j0 < n; j0++) {
            float acc = 0;
            for (size_t i = 0; i < n; i++) {
                float *sij = s + i * n + j0;
                float a = k[o + i] * v[o + j0];
                acc += r[o + i] * (u[i * u_step] * a + *sij);
                *sij = a + wp[i * w_step] * *sij;
            }
            y[o + j0] = acc;
        }
    }
}

/* ---- RWKV-4 WKV, channels in vectors ---- */
VM_AI void
wkv4_vec(float *aa, float *bb, float *pp, size_t c, size_t t, size_t ld, const float *r,
         const float *k, const float *v, const float *w, const float *u, float *y)
{
    vm_f a = vld(aa + c), b = vld(bb + c), q0 = vld(pp + c), wv = vld(w + c), uv = vld(u + c);

    for (size_t p = 0; p < t; p++) {
        size_t o = p * ld + c;
        vm_f kv = vld(k + o), vv = vld(v + o);
        vm_f ww = uv + kv, q = vsel(q0 > ww, q0, ww);
        vm_f e1 = vexp(q0 - q), e2 = vexp(ww - q);
        vm_f wkv = (e1 * a + e2 * vv) / (e1 * b + e2);
        ww = wv + q0;
        q = vsel(ww > kv, ww, kv);
        e1 = vexp(ww - q);
        e2 = vexp(kv - q);
        a = e1 * a + e2 * vv;
        b = e1 * b + e2;
        q0 = q;
        vst(y + o, vsigmoid(vld(r + o)) * wkv);
    }
    vst(aa + c, a);
    vst(bb + c, b);
    vst(pp + c, q0);
}

static void
f_wkv4(float *aa, float *bb, float *pp, size_t n, size_t t, size_t ld, const float *r,
       const float *k, const float *v, const float *w, const float *u, float *y)
{
    size_t c = 0;

    for (; c + VM_W <= n; c += VM_W)
        wkv4_vec(aa, bb, pp, c, t, ld, r, k, v, w, u, y);
    if (c < n) {
        /* the tail through padded copies of one vector's worth per token */
        size_t m = n - c;
        float a_[VM_W] = { 0 }, b_[VM_W] = { 0 }, p_[VM_W] = { 0 }, w_[VM_W] = { 0 };
        float u_[VM_W] = { 0 };
        memcpy(a_, aa + c, m * sizeof(float));
        memcpy(b_, bb + c, m * sizeof(float));
        memcpy(p_, pp + c, m * sizeof(float));
        memcpy(w_, w + c, m * sizeof(float));
        memcpy(u_, u + c, m * sizeof(float));
        for (size_t p = 0; p < t; p++) {
            size_t o = p * ld + c;
            float r_[VM_W] = { 0 }, k_[VM_W] = { 0 }, v_[VM_W] = { 0 }, y_[VM_W];
            memcpy(r_, r + o, m * sizeof(float));
            memcpy(k_, k + o, m * sizeof(float));
            memcpy(v_, v + o, m * sizeof(float));
            wkv4_vec(a_, b_, p_, 0, 1, 0, r_, k_, v_, w_, u_, y_);
            memcpy(y + o, y_, m * sizeof(float));
        }
        memcpy(aa + c, a_, m * sizeof(float));
        memcpy(bb + c, b_, m * sizeof(float));
        memcpy(pp + c, p_, m * sizeof(float));
    }
}

/* ---- RWKV-7 per-token work ---- */
static void
f_v7_pre(const struct vm_v7_pre *p)
{
    size_t n = p->n, c = p->h * n, i;
    float *restrict k = p->k, *restrict a = p->a, *restrict kk = p->kk, *restrict w = p->w;

    f_sigmoid_add(p->a0, a, a, c);
    for (size_t h = 0; h < p->h; h++) {
        float *kh = kk + h * n;
        const float *ks = k + h * n, *kks = p->k_k + h * n;
        vm_f ss4 = { 0 };
        float ss, nrm;
        for (i = 0; i + VM_W <= n; i += VM_W) {
            vm_f x = vld(ks + i) * vld(kks + i);
            vst(kh + i, x);
            ss4 += x * x;
        }
        ss = vhsum(ss4);
        for (; i < n; i++) {
            kh[i] = ks[i] * kks[i];
            ss += kh[i] * kh[i];
        }
        nrm = sqrtf(ss);
        if (nrm < p->norm_eps)
            nrm = p->norm_eps;
        for (i = 0; i + VM_W <= n; i += VM_W)
            vst(kh + i, vld(kh + i) / nrm);
        for (; i < n; i++)
            kh[i] /= nrm;
    }
    for (i = 0; i + VM_W <= c; i += VM_W) {
        vm_f av = vld(a + i);
        vst(k + i, vld(k + i) * (1.0f + (av - 1.0f) * vld(p->k_a + i)));
        vst(a + i, vld(kk + i) * av);
        vst(w + i, vexp(p->decay * vsigmoid(vld(p->w0 + i) + vld(w + i))));
    }
    for (; i < c; i++) {
        float b[VM_W] = { 0 };
        k[i] = k[i] * (1 + (a[i] - 1) * p->k_a[i]);
        a[i] = kk[i] * a[i];
        b[0] = p->w0[i] + w[i];
        w[i] = vexp(p->decay * vsigmoid(vld(b)))[0];
    }
    if (p->vf != NULL) {
        float *restrict v = p->v;
        f_sigmoid_add(p->v0, p->vg, p->vg, c);
        for (i = 0; i + VM_W <= c; i += VM_W) {
            vm_f vv = vld(v + i);
            vst(v + i, vv + (vld(p->vf + i) - vv) * vld(p->vg + i));
        }
        for (; i < c; i++)
            v[i] = v[i] + (p->vf[i] - v[i]) * p->vg[i];
    }
}

static void
f_v7_post(float *y, const float *r, const float *k, const float *v, const float *g,
          const float *r_k, const float *lnx_w, const float *lnx_b, size_t h, size_t n,
          float eps)
{
    for (size_t hh = 0; hh < h; hh++) {
        size_t o = hh * n, i;
        vm_f b4 = { 0 };
        float bonus;
        f_layer_norm(y + o, lnx_w + o, lnx_b + o, y + o, n, eps);
        for (i = 0; i + VM_W <= n; i += VM_W)
            b4 += vld(r + o + i) * vld(k + o + i) * vld(r_k + o + i);
        bonus = vhsum(b4);
        for (; i < n; i++)
            bonus += r[o + i] * k[o + i] * r_k[o + i];
        for (i = 0; i + VM_W <= n; i += VM_W)
            vst(y + o + i, (vld(y + o + i) + bonus * vld(v + o + i)) * vld(g + o + i));
        for (; i < n; i++)
            y[o + i] = (y[o + i] + bonus * v[o + i]) * g[o + i];
    }
}

const struct vm_ops VM_TABLE = {
    .name = VM_NAME,
    .isa = VM_ISA,
    .exp = f_exp,
    .sigmoid = f_sigmoid,
    .tanh = f_tanh,
    .silu = f_silu,
    .relu2 = f_relu2,
    .sigmoid_add = f_sigmoid_add,
    .exp_scale = f_exp_scale,
    .add = f_add,
    .mul = f_mul,
    .sub = f_sub,
    .mix_add = f_mix_add,
    .add_sigmoid_mul = f_add_sigmoid_mul,
    .mix = f_mix,
    .layer_norm = f_layer_norm,
    .wkv7 = f_wkv7,
    .wkv5 = f_wkv5,
    .wkv4 = f_wkv4,
    .v7_pre = f_v7_pre,
    .v7_post = f_v7_post,
};

#endif /* VM_W */
