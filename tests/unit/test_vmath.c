/*
** test_vmath.c -- core/kernels/vmath.h against double-precision references, for
** every table the CPU runs (portable, avx2, avx512).
**
** exp / sigmoid / tanh / silu: the error in ulps of the float result,
** against libm in double, over every float bit pattern with a stride (all
** signs and exponents, subnormals, +-inf, NaNs) and densely over the range
** the models use; the largest error found is printed and asserted against
** the bound vmath.h states.
**
** The WKV recurrences, the RWKV-7 per-token work and the norms: against
** plain double-precision loops written here from the formulas, on random
** data, several tokens; the multi-token and one-token forms of the v7 WKV
** against each other.
*/
#include <float.h>
#include <stdint.h>

#include "../../core/chat/rng.h"
#include "../../core/kernels/vmath.h"
#include "../harness.h"

/* Bounds asserted (ulps of the float result); vmath.h states them. */
#define ULP_EXP     1.0
#define ULP_SIGMOID 2.5
#define ULP_TANH    2.0
#define ULP_SILU    3.5

/* Stride over the 2^32 bit patterns (odd, so every low-bit pattern occurs). */
#define SWEEP_STRIDE 1021u
#define BATCH        4096

/* Error of GOT in ulps of the float nearest REF (subnormal ulp 2^-149). */
static double
ulp_err(float got, double ref)
{
    int e;
    double u;

    if (isnan(ref))
        return isnan(got) ? 0 : INFINITY;
    if (isnan(got))
        return INFINITY;
    if (isinf(got) || isinf(ref))
        return (float)ref == got ? 0 : INFINITY;
    if (ref == 0)
        return got == 0 ? 0 : fabs(got) / ldexp(1, -149);
    frexp(ref, &e);   /* |ref| in [2^(e-1), 2^e) */
    u = ldexp(1, e - 24);
    if (u < ldexp(1, -149))
        u = ldexp(1, -149);
    return fabs((double)got - ref) / u;
}

static double ref_exp(double x) { return exp(x); }
static double ref_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double ref_tanh(double x) { return tanh(x); }
static double ref_silu(double x) { return x / (1.0 + exp(-x)); }

struct fn_case {
    const char *name;
    void (*fn)(const vm_ops *, const float *, float *, size_t);
    double (*ref)(double);
    double bound;
    int    normal_only;   /* measured only where sigmoid(x) >= FLT_MIN */
};

static const struct fn_case fns[] = {
    { "exp", vm_exp, ref_exp, ULP_EXP, 0 },
    { "sigmoid", vm_sigmoid, ref_sigmoid, ULP_SIGMOID, 0 },
    { "tanh", vm_tanh, ref_tanh, ULP_TANH, 0 },
    /* x * sigmoid(x) multiplies a subnormal sigmoid (x < -87.3) by |x| <= 104:
     * there the error is that of the subnormal, up to |x| * 2^-150 */
    { "silu", vm_silu, ref_silu, ULP_SILU, 1 },
};

/* Largest ulp error of F over N inputs X (in place copy in Y); the worst
 * input into *AT. */
static double
batch_err(const vm_ops *o, const struct fn_case *f, const float *x, float *y, size_t n,
          float *at)
{
    double worst = 0;

    f->fn(o, x, y, n);
    for (size_t i = 0; i < n; i++) {
        double ref = f->ref((double)x[i]), e;
        if (f->normal_only && ref_sigmoid((double)x[i]) < FLT_MIN)
            continue;
        e = ulp_err(y[i], ref);
        if (e > worst) {
            worst = e;
            *at = x[i];
        }
    }
    return worst;
}

static void
test_functions(const vm_ops *o)
{
    static float x[BATCH], y[BATCH];
    static const float specials[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, FLT_MIN, -FLT_MIN,
                                      FLT_MAX, -FLT_MAX, 1e-45f, -1e-45f, 88.7f, 88.72f,
                                      88.73f, 89.0f, 89.5f, -87.3f, -103.0f, -103.97f, -104.0f,
                                      -110.0f, 0.625f, -0.625f, 0.62499f, 9.0f, -9.0f, 44.0f,
                                      1e-8f, -1e-8f, 0.3465736f, -0.3465736f };

    for (size_t fi = 0; fi < sizeof fns / sizeof fns[0]; fi++) {
        const struct fn_case *f = &fns[fi];
        double worst = 0, e;
        float at = 0, a;
        size_t n = 0;
        uint64_t count = 0;

        /* sweep of bit patterns */
        for (uint64_t b = 0; b < (1ull << 32); b += SWEEP_STRIDE) {
            uint32_t u = (uint32_t)b;
            memcpy(&x[n], &u, sizeof u);
            if (++n == BATCH) {
                e = batch_err(o, f, x, y, n, &a);
                if (e > worst) { worst = e; at = a; }
                count += n;
                n = 0;
            }
        }
        /* dense over [-30, 30] */
        for (int i = 0; i <= 3000000; i++) {
            x[n] = -30.0f + 60.0f * (float)i / 3000000.0f;
            if (++n == BATCH) {
                e = batch_err(o, f, x, y, n, &a);
                if (e > worst) { worst = e; at = a; }
                count += n;
                n = 0;
            }
        }
        for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
            x[n++] = specials[i];
        e = batch_err(o, f, x, y, n, &a);
        if (e > worst) { worst = e; at = a; }
        count += n;
        /* odd lengths use the tail path: same values */
        for (size_t len = 1; len < 40; len += 3) {
            for (size_t i = 0; i < len; i++)
                x[i] = (float)i * 0.37f - 5.0f;
            e = batch_err(o, f, x, y, len, &a);
            if (e > worst) { worst = e; at = a; }
        }
        TEST_INFO("%s %-8s max error %.3f ulp (at %.9g) over %llu inputs", vm_name(o), f->name,
                  worst, (double)at, (unsigned long long)count);
        TEST_CONDF(worst <= f->bound, "%s %s: %.3f ulp at %.9g > %.1f", vm_name(o), f->name,
                   worst, (double)at, f->bound);
    }
    /* special values exactly */
    {
        float in[6] = { INFINITY, -INFINITY, NAN, -0.0f, 1000.0f, -1000.0f }, out[6];
        vm_exp(o, in, out, 6);
        TEST_COND("exp specials", out[0] == INFINITY && out[1] == 0 && isnan(out[2]) &&
                  out[3] == 1 && out[4] == INFINITY && out[5] == 0);
        vm_sigmoid(o, in, out, 6);
        TEST_COND("sigmoid specials", out[0] == 1 && out[1] == 0 && isnan(out[2]) &&
                  out[3] == 0.5f && out[4] == 1 && out[5] == 0);
        vm_tanh(o, in, out, 6);
        TEST_COND("tanh specials", out[0] == 1 && out[1] == -1 && isnan(out[2]) &&
                  out[3] == 0 && signbit(out[3]) && out[4] == 1 && out[5] == -1);
    }
}

/* ---- kernels against double loops ---- */

static void
fill(rng *g, float *p, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++)
        p[i] = lo + (hi - lo) * (float)rng_uniform(g);
}

/* max |a - b| / (1 + |b|) */
static double
rel_diff(const float *a, const double *b, size_t n)
{
    double w = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]) / (1 + fabs(b[i]));
        if (!(d <= w))
            w = d;
    }
    return w;
}

#define KN 64   /* head size */
#define KT 9    /* tokens */
#define KH 3    /* heads of the per-token tests */

static void
test_wkv7(const vm_ops *o, rng *g)
{
    static float s[KN * KN], s1[KN * KN], r[KT * KN], w[KT * KN], k[KT * KN], v[KT * KN];
    static float kk[KT * KN], kka[KT * KN], y[KT * KN], y1[KT * KN];
    static double sd[KN * KN], yd[KT * KN];

    /* 19: keys past the last vector (the scalar tail; one row at a time);
    ** 24, 40: whole vectors of 8 but not of 16 (one token: 4 rows at a time
    ** in the AVX2 table, one at a time in the AVX-512 one) */
    static const size_t sizes[] = { 16, 19, 24, 40, KN };

    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        fill(g, s, n * n, -1, 1);
        fill(g, r, KT * n, -1, 1);
        fill(g, w, KT * n, 0.5f, 1);
        fill(g, k, KT * n, -1, 1);
        fill(g, v, KT * n, -1, 1);
        fill(g, kk, KT * n, -0.3f, 0.3f);
        fill(g, kka, KT * n, -0.3f, 0.3f);
        for (size_t i = 0; i < n * n; i++)
            sd[i] = s[i];
        memcpy(s1, s, sizeof s);
        for (size_t p = 0; p < KT; p++) {
            size_t b = p * n;
            for (size_t i = 0; i < n; i++) {
                double sa = 0, acc = 0;
                for (size_t j = 0; j < n; j++)
                    sa += sd[i * n + j] * kk[b + j];
                for (size_t j = 0; j < n; j++) {
                    double *e = &sd[i * n + j];
                    *e = *e * w[b + j] - sa * kka[b + j] + (double)v[b + i] * k[b + j];
                    acc += *e * r[b + j];
                }
                yd[b + i] = acc;
            }
        }
        vm_wkv7(o, s, n, KT, n, r, w, k, v, kk, kka, y);
        TEST_CONDF(rel_diff(y, yd, KT * n) < 1e-5, "%s wkv7 n=%zu y %g", vm_name(o), n,
                   rel_diff(y, yd, KT * n));
        TEST_CONDF(rel_diff(s, sd, n * n) < 1e-5, "%s wkv7 n=%zu state %g", vm_name(o), n,
                   rel_diff(s, sd, n * n));
        /* token by token (the one-token form) */
        for (size_t p = 0; p < KT; p++)
            vm_wkv7(o, s1, n, 1, n, r + p * n, w + p * n, k + p * n, v + p * n, kk + p * n,
                    kka + p * n, y1 + p * n);
        TEST_CONDF(rel_diff(y1, yd, KT * n) < 1e-5 && rel_diff(s1, sd, n * n) < 1e-5,
                   "%s wkv7 n=%zu one token at a time", vm_name(o), n);
    }
}

static void
test_wkv5(const vm_ops *o, rng *g)
{
    static float s[KN * KN], r[KT * KN], w[KT * KN], k[KT * KN], v[KT * KN], u[KN];
    static float y[KT * KN];
    static double sd[KN * KN], yd[KT * KN];
    /* (w_ld, w_step, u_step): v6, v5.2, v5.0/5.1 */
    static const size_t modes[3][3] = { { 1, 1, 1 }, { 0, 1, 1 }, { 0, 0, 0 } };

    for (int mo = 0; mo < 3; mo++)
        for (size_t n = 8; n <= KN; n += 28) {   /* 8, 36 (tail), 64 */
            size_t wld = modes[mo][0] ? n : 0, ws = modes[mo][1], us = modes[mo][2];
            fill(g, s, n * n, -1, 1);
            fill(g, r, KT * n, -1, 1);
            fill(g, w, KT * n, 0.3f, 1);
            fill(g, k, KT * n, -1, 1);
            fill(g, v, KT * n, -1, 1);
            fill(g, u, n, -1, 1);
            for (size_t i = 0; i < n * n; i++)
                sd[i] = s[i];
            for (size_t p = 0; p < KT; p++) {
                size_t b = p * n;
                for (size_t j = 0; j < n; j++)
                    yd[b + j] = 0;
                for (size_t i = 0; i < n; i++) {
                    double wi = w[p * wld + i * ws], ui = u[i * us];
                    for (size_t j = 0; j < n; j++) {
                        double a = (double)k[b + i] * v[b + j];
                        yd[b + j] += r[b + i] * (ui * a + sd[i * n + j]);
                        sd[i * n + j] = a + wi * sd[i * n + j];
                    }
                }
            }
            vm_wkv5(o, s, n, KT, n, r, k, v, w, wld, ws, u, us, y);
            TEST_CONDF(rel_diff(y, yd, KT * n) < 1e-5 && rel_diff(s, sd, n * n) < 1e-5,
                       "%s wkv5 mode %d n=%zu: y %g state %g", vm_name(o), mo, n,
                       rel_diff(y, yd, KT * n), rel_diff(s, sd, n * n));
        }
}

static void
test_wkv4(const vm_ops *o, rng *g)
{
    enum { C = 37 };   /* a vector tail in every table */
    static float aa[C], bb[C], pp[C], r[KT * C], k[KT * C], v[KT * C], w[C], u[C], y[KT * C];
    static double ad[C], bd[C], pd[C], yd[KT * C];

    fill(g, aa, C, -1, 1);
    fill(g, bb, C, 0.5f, 2);
    fill(g, pp, C, -3, 3);
    pp[0] = -1e30f;   /* a fresh state's pp */
    fill(g, r, KT * C, -3, 3);
    fill(g, k, KT * C, -5, 5);
    fill(g, v, KT * C, -1, 1);
    fill(g, w, C, -2, -0.01f);
    fill(g, u, C, -1, 1);
    for (size_t c = 0; c < C; c++) {
        ad[c] = aa[c];
        bd[c] = bb[c];
        pd[c] = pp[c];
    }
    for (size_t p = 0; p < KT; p++)
        for (size_t c = 0; c < C; c++) {
            size_t i = p * C + c;
            double ww = (double)u[c] + k[i], q = pd[c] > ww ? pd[c] : ww;
            double e1 = exp(pd[c] - q), e2 = exp(ww - q);
            double wkv = (e1 * ad[c] + e2 * v[i]) / (e1 * bd[c] + e2);
            ww = w[c] + pd[c];
            q = ww > k[i] ? ww : k[i];
            e1 = exp(ww - q);
            e2 = exp(k[i] - q);
            ad[c] = e1 * ad[c] + e2 * v[i];
            bd[c] = e1 * bd[c] + e2;
            pd[c] = q;
            yd[i] = wkv / (1 + exp(-(double)r[i]));
        }
    vm_wkv4(o, aa, bb, pp, C, KT, C, r, k, v, w, u, y);
    TEST_CONDF(rel_diff(y, yd, KT * C) < 1e-5 && rel_diff(aa, ad, C) < 1e-5 &&
               rel_diff(bb, bd, C) < 1e-5 && rel_diff(pp, pd, C) < 1e-5,
               "%s wkv4: y %g aa %g bb %g pp %g", vm_name(o), rel_diff(y, yd, KT * C),
               rel_diff(aa, ad, C), rel_diff(bb, bd, C), rel_diff(pp, pd, C));
}

static void
ln_ref(const float *x, const float *w, const float *b, double *y, size_t n, double eps)
{
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; i++)
        mean += x[i];
    mean /= (double)n;
    for (size_t i = 0; i < n; i++)
        var += (x[i] - mean) * (x[i] - mean);
    var /= (double)n;
    for (size_t i = 0; i < n; i++)
        y[i] = (x[i] - mean) / sqrt(var + eps) * w[i] + b[i];
}

static void
test_v7_token(const vm_ops *o, rng *g)
{
    enum { C = KH * KN };
    static float k[C], a[C], kk[C], w[C], v[C], vg[C], vf[C], a0[C], k_k[C], k_a[C], w0[C];
    static float v0[C], y[C], r[C], gt[C], r_k[C], lw[C], lb[C];
    static double kd[C], ad[C], wd[C], vd[C], yd[C];
    struct vm_v7_pre pre = { k, a, kk, w, v, vg, vf, a0, k_k, k_a, w0, v0, KH, KN,
                             -0.606531f, 1e-12f };

    fill(g, k, C, -2, 2);
    fill(g, a, C, -3, 3);
    fill(g, w, C, -3, 3);
    fill(g, v, C, -2, 2);
    fill(g, vg, C, -3, 3);
    fill(g, vf, C, -2, 2);
    fill(g, a0, C, -1, 1);
    fill(g, k_k, C, 0, 1);
    fill(g, k_a, C, 0, 1);
    fill(g, w0, C, -1, 1);
    fill(g, v0, C, -1, 1);
    for (size_t h = 0; h < KH; h++) {
        double ss = 0, nrm;
        for (size_t i = h * KN; i < (h + 1) * KN; i++)
            ss += (double)k[i] * k_k[i] * k[i] * k_k[i];
        nrm = sqrt(ss);
        for (size_t i = h * KN; i < (h + 1) * KN; i++) {
            double ai = 1 / (1 + exp(-(double)a0[i] - a[i])), kki = k[i] * (double)k_k[i] / nrm;
            double vs = 1 / (1 + exp(-(double)v0[i] - vg[i]));
            kd[i] = k[i] * (1 + (ai - 1) * k_a[i]);
            ad[i] = kki * ai;
            wd[i] = exp(-0.606531 / (1 + exp(-(double)w0[i] - w[i])));
            vd[i] = v[i] + ((double)vf[i] - v[i]) * vs;
        }
    }
    vm_v7_pre(o, &pre);
    TEST_CONDF(rel_diff(k, kd, C) < 1e-6 && rel_diff(a, ad, C) < 1e-6 && rel_diff(w, wd, C) < 1e-6 &&
               rel_diff(v, vd, C) < 1e-6, "%s v7 pre: k %g kka %g w %g v %g", vm_name(o),
               rel_diff(k, kd, C), rel_diff(a, ad, C), rel_diff(w, wd, C), rel_diff(v, vd, C));

    fill(g, y, C, -2, 2);
    fill(g, r, C, -1, 1);
    fill(g, gt, C, -1, 1);
    fill(g, r_k, C, -1, 1);
    fill(g, lw, C, 0.5f, 1.5f);
    fill(g, lb, C, -0.5f, 0.5f);
    for (size_t h = 0; h < KH; h++) {
        size_t b = h * KN;
        double bonus = 0;
        ln_ref(y + b, lw + b, lb + b, yd + b, KN, 64e-5);
        for (size_t i = b; i < b + KN; i++)
            bonus += (double)r[i] * k[i] * r_k[i];
        for (size_t i = b; i < b + KN; i++)
            yd[i] = (yd[i] + bonus * v[i]) * gt[i];
    }
    vm_v7_post(o, y, r, k, v, gt, r_k, lw, lb, KH, KN, 64e-5f);
    TEST_CONDF(rel_diff(y, yd, C) < 1e-5, "%s v7 post %g", vm_name(o), rel_diff(y, yd, C));
}

static void
test_misc(const vm_ops *o, rng *g)
{
    enum { C = 203 };
    static float x[C], sx[C], m0[C], m1[C], o0[C], o1[C], w[C], b[C], y[C], z[C];
    static double d0[C], d1[C], yd[C];
    const float *mix[2] = { m0, m1 };
    float *out[2] = { o0, o1 };

    fill(g, x, C, -3, 3);
    fill(g, sx, C, -3, 3);
    fill(g, m0, C, 0, 1);
    fill(g, m1, C, 0, 1);
    for (int form = 0; form < 2; form++) {
        vm_mix(o, (enum vm_mix_form)form, x, sx, mix, out, 2, C);
        for (size_t i = 0; i < C; i++) {
            d0[i] = form == VM_MIX_LERP ? x[i] + ((double)sx[i] - x[i]) * m0[i]
                                        : (double)x[i] * m0[i] + sx[i] * (1 - (double)m0[i]);
            d1[i] = form == VM_MIX_LERP ? x[i] + ((double)sx[i] - x[i]) * m1[i]
                                        : (double)x[i] * m1[i] + sx[i] * (1 - (double)m1[i]);
        }
        TEST_CONDF(rel_diff(o0, d0, C) < 1e-6 && rel_diff(o1, d1, C) < 1e-6, "%s mix form %d",
                   vm_name(o), form);
    }
    fill(g, w, C, 0.5f, 1.5f);
    fill(g, b, C, -1, 1);
    for (size_t i = 0; i < C; i++)
        x[i] += 100.0f;   /* a large mean: the variance must not cancel */
    ln_ref(x, w, b, yd, C, 1e-5);
    vm_layer_norm(o, x, w, b, y, C, 1e-5f);
    TEST_CONDF(rel_diff(y, yd, C) < 1e-5, "%s layer norm %g", vm_name(o), rel_diff(y, yd, C));
    memcpy(z, x, sizeof z);
    vm_layer_norm(o, z, w, b, z, C, 1e-5f);
    TEST_COND("layer norm in place", memcmp(y, z, sizeof y) == 0);

    fill(g, x, C, -5, 5);
    memcpy(y, x, sizeof y);
    vm_relu2(o, x, z, C);
    vm_add_sigmoid_mul(o, sx, x, y, C);
    for (size_t i = 0; i < C; i++) {
        d0[i] = x[i] > 0 ? (double)x[i] * x[i] : 0;
        d1[i] = x[i] + x[i] / (1 + exp(-(double)sx[i]));
    }
    TEST_CONDF(rel_diff(z, d0, C) < 1e-6 && rel_diff(y, d1, C) < 1e-6, "%s relu2 / gate", vm_name(o));
    vm_sigmoid_add(o, x, sx, y, C);
    vm_exp_scale(o, x, -0.5f, z, C);
    for (size_t i = 0; i < C; i++) {
        d0[i] = 1 / (1 + exp(-(double)x[i] - sx[i]));
        d1[i] = exp(-0.5 * x[i]);
    }
    TEST_CONDF(rel_diff(y, d0, C) < 1e-6 && rel_diff(z, d1, C) < 1e-6, "%s sigmoid_add / exp_scale",
               vm_name(o));
    memcpy(y, sx, sizeof y);
    vm_sub(o, x, y, C);
    vm_mix_add(o, x, sx, m0, m1, z, C);
    for (size_t i = 0; i < C; i++) {
        d0[i] = (double)sx[i] - x[i];
        d1[i] = x[i] + (double)sx[i] * ((double)m0[i] + m1[i]);
    }
    TEST_CONDF(rel_diff(y, d0, C) < 1e-6 && rel_diff(z, d1, C) < 1e-6, "%s sub / mix_add",
               vm_name(o));
}

int
main(void)
{
    static const enum simd_isa isas[] = { SIMD_ISA_PORTABLE, SIMD_ISA_AVX2, SIMD_ISA_AVX512 };
    rng g;

    TEST_COND("default table exists", vm_default() != NULL);
    for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++) {
        const vm_ops *o = vm_get(isas[i]);
        if (o == NULL) {
            TEST_INFO("isa %d: not on this CPU, skipped", (int)isas[i]);
            continue;
        }
        rng_seed(&g, 1234 + i);
        test_functions(o);
        test_wkv7(o, &g);
        test_wkv5(o, &g);
        test_wkv4(o, &g);
        test_v7_token(o, &g);
        test_misc(o, &g);
    }
    return TEST_REPORT();
}
