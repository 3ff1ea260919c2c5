/*
** gpu_ref.h -- for tests/gpu/: straightforward CPU versions of what the GPU
** kernels compute, written from core/model/model_v5.c, model_v6.c, model_v7.c,
** core/model/model_block.c (mdl_shift, mdl_ffn_rkv) -- plain loops, no SIMD, so they
** are easy to check by eye; layer norms use core's kern_layer_norm -- plus random data, half/bfloat conversions and device helpers.
** Header-only (static inline) so each test binary takes what it uses.
*/
#ifndef RWKV_TESTS_GPU_REF_H
#define RWKV_TESTS_GPU_REF_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/kernels/kernels.h"
#include "../../gpu/gpu.h"

/* ---- random data (xorshift64*, reproducible) ---- */

static inline float
ref_rand(uint64_t *s, float lo, float hi)
{
    uint64_t x = *s;

    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    *s = x;
    return lo + (hi - lo) * (float)((x * 0x2545F4914F6CDD1DULL) >> 40) / (float)(1 << 24);
}

static inline float *
ref_vec(uint64_t *s, size_t n, float lo, float hi)
{
    float *p = (float *)malloc((n ? n : 1) * sizeof *p);   /* (cast: C++ includes this too) */

    if (p != NULL)
        for (size_t i = 0; i < n; i++)
            p[i] = ref_rand(s, lo, hi);
    return p;
}

/* ---- binary16 / bfloat16 (round to nearest even) ---- */

static inline uint16_t
ref_f32_to_f16(float f)
{
    uint32_t x, sign, mant;
    int32_t e;

    memcpy(&x, &f, 4);
    sign = (x >> 16) & 0x8000u;
    e = (int32_t)((x >> 23) & 0xff) - 127 + 15;
    mant = x & 0x7fffffu;
    if (((x >> 23) & 0xff) == 0xff)
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        uint32_t m, r, half;
        int sh;

        if (e < -10)
            return (uint16_t)sign;
        m = mant | 0x800000u;
        sh = 14 - e;
        r = m >> sh;
        half = 1u << (sh - 1);
        if ((m & ((1u << sh) - 1)) > half || ((m & ((1u << sh) - 1)) == half && (r & 1)))
            r++;
        return (uint16_t)(sign | r);
    }
    {
        uint32_t r = ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fffu;

        if (rem > 0x1000u || (rem == 0x1000u && (r & 1)))
            r++;   /* may carry into the exponent: still correct (inf at the top) */
        return (uint16_t)(sign | r);
    }
}

static inline float
ref_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu, x;
    float f;

    if (e == 0) {
        f = ldexpf((float)m, -24);
        return sign ? -f : f;
    }
    if (e == 31)
        x = sign | 0x7f800000u | (m << 13);
    else
        x = sign | ((e - 15 + 127) << 23) | (m << 13);
    memcpy(&f, &x, 4);
    return f;
}

static inline uint16_t
ref_f32_to_bf16(float f)
{
    uint32_t x;

    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

static inline float
ref_bf16_to_f32(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;

    memcpy(&f, &x, 4);
    return f;
}

/* ---- comparisons ---- */

static inline float
ref_max_abs(const float *a, size_t n)
{
    float m = 0;

    for (size_t i = 0; i < n; i++)
        m = fabsf(a[i]) > m ? fabsf(a[i]) : m;
    return m;
}

/* max |a - b| / (max |b| + 1e-6): NaN in A counts as a huge error. */
static inline double
ref_rel_err(const float *a, const float *b, size_t n)
{
    double m = 0;

    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (d != d)
            return 1e30;
        m = d > m ? d : m;
    }
    return m / ((double)ref_max_abs(b, n) + 1e-6);
}

static inline float ref_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

/* ---- token shift (core/model/model_block.c mdl_shift + the mixes) ---- */

/* v5 form: out = xx*mix + sx*(1-mix); lerp form: out = xx + (sx-xx)*mix. */
static inline void
ref_token_mix(const float *xn, float *prev, size_t t, size_t c, int lerp, int n,
              const float *const *mix, float *const *out, float *delta)
{
    for (size_t p = 0; p < t; p++) {
        for (size_t i = 0; i < c; i++) {
            float xx = xn[p * c + i], sx = p == 0 ? prev[i] : xn[(p - 1) * c + i];
            if (delta)
                delta[p * c + i] = sx - xx;
            for (int s = 0; s < n; s++)
                out[s][p * c + i] = lerp ? xx + (sx - xx) * mix[s][i]
                                         : xx * mix[s][i] + sx * (1 - mix[s][i]);
        }
    }
    memcpy(prev, xn + (t - 1) * c, c * sizeof(float));
}

/* ---- WKV (model_v5.c / model_v6.c v*_wkv_head, model_v7.c v7_wkv_head) ---- */

/* W: w_tok ? [T][C] : chan ? [C] : [H];  U: chan ? [C] : [H]. */
static inline void
ref_wkv5(size_t t, size_t h, size_t n, float *state, const float *r, const float *k,
         const float *v, const float *w, const float *u, int w_tok, int chan, float *y)
{
    size_t C = h * n;

    for (size_t p = 0; p < t; p++) {
        for (size_t hh = 0; hh < h; hh++) {
            size_t o = p * C + hh * n;
            float *s = state + hh * n * n;
            const float *wp = w_tok ? w + o : chan ? w + hh * n : w + hh;
            const float *up = chan ? u + hh * n : u + hh;
            size_t st = chan ? 1 : 0;

            for (size_t j = 0; j < n; j++)
                y[o + j] = 0;
            for (size_t i = 0; i < n; i++) {
                float ri = r[o + i], ki = k[o + i], ui = up[i * st], wi = wp[i * st];
                for (size_t j = 0; j < n; j++) {
                    float a = ki * v[o + j];
                    y[o + j] += ri * (ui * a + s[i * n + j]);
                    s[i * n + j] = a + wi * s[i * n + j];
                }
            }
        }
    }
}

static inline void
ref_wkv7(size_t t, size_t h, size_t n, float *state, const float *r, const float *w,
         const float *k, const float *v, const float *kk, const float *kka, float *y)
{
    size_t C = h * n;

    for (size_t p = 0; p < t; p++) {
        for (size_t hh = 0; hh < h; hh++) {
            size_t o = p * C + hh * n;
            for (size_t i = 0; i < n; i++) {
                float *row = state + hh * n * n + i * n, sa = 0, acc = 0;
                for (size_t j = 0; j < n; j++)
                    sa -= row[j] * kk[o + j];
                for (size_t j = 0; j < n; j++) {
                    row[j] = row[j] * w[o + j] + sa * kka[o + j] + v[o + i] * k[o + j];
                    acc += row[j] * r[o + j];
                }
                y[o + i] = acc;
            }
        }
    }
}

/* ---- v7 per-token math (model_v7.c) ---- */

static inline void
ref_v7_prep(size_t t, size_t h, size_t n, float *k, float *a, float *kk, float *w, float *v,
            const float *vf, const float *vg, const float *a0, const float *k_k,
            const float *k_a, const float *w0, const float *v0)
{
    size_t C = h * n;

    for (size_t p = 0; p < t; p++) {
        float *kp = k + p * C, *ap = a + p * C, *kkp = kk + p * C, *wp = w + p * C;
        for (size_t c = 0; c < C; c++) {
            ap[c] = ref_sigmoid(a0[c] + ap[c]);
            kkp[c] = kp[c] * k_k[c];
        }
        for (size_t hh = 0; hh < h; hh++) {
            float ss = 0, nrm;
            for (size_t j = 0; j < n; j++)
                ss += kkp[hh * n + j] * kkp[hh * n + j];
            nrm = sqrtf(ss);
            if (nrm < 1e-12f)
                nrm = 1e-12f;
            for (size_t j = 0; j < n; j++)
                kkp[hh * n + j] /= nrm;
        }
        for (size_t c = 0; c < C; c++) {
            kp[c] = kp[c] * (1 + (ap[c] - 1) * k_a[c]);
            ap[c] = kkp[c] * ap[c];
            wp[c] = expf(-0.606531f * ref_sigmoid(w0[c] + wp[c]));
        }
        if (vf != NULL)
            for (size_t c = 0; c < C; c++) {
                float *vv = v + p * C + c;
                *vv = *vv + (vf[p * C + c] - *vv) * ref_sigmoid(v0[c] + vg[p * C + c]);
            }
    }
}

static inline void
ref_v7_out(size_t t, size_t h, size_t n, float *y, const float *r, const float *k,
           const float *v, const float *g, const float *lw, const float *lb,
           const float *r_k, float eps)
{
    size_t C = h * n;

    for (size_t p = 0; p < t; p++) {
        size_t o = p * C;
        for (size_t hh = 0; hh < h; hh++)
            kern_layer_norm(y + o + hh * n, lw + hh * n, lb + hh * n, y + o + hh * n, n, eps);
        for (size_t hh = 0; hh < h; hh++) {
            size_t hn = hh * n;
            float bonus = 0;
            for (size_t j = 0; j < n; j++)
                bonus += r[o + hn + j] * k[o + hn + j] * r_k[hn + j];
            for (size_t j = 0; j < n; j++)
                y[o + hn + j] += bonus * v[o + hn + j];
        }
        for (size_t c = 0; c < C; c++)
            y[o + c] *= g[o + c];
    }
}

/* ---- products: Y [T][rows] = W [rows][cols] X [T][cols], double sums ---- */

static inline void
ref_matmul(const float *w, size_t rows, size_t cols, const float *x, size_t t, float *y)
{
    for (size_t p = 0; p < t; p++)
        for (size_t r = 0; r < rows; r++) {
            double s = 0;
            for (size_t c = 0; c < cols; c++)
                s += (double)w[r * cols + c] * x[p * cols + c];
            y[p * rows + r] = (float)s;
        }
}

/* Q8 as core/kernels/simd.c: scale = max|w| / 127 per 32-block, codes round(w/scale). */
static inline void
ref_q8_quantize(const float *w, size_t rows, size_t cols, int8_t *q, float *scales,
                float *deq)
{
    size_t nb = (cols + 31) / 32;

    for (size_t r = 0; r < rows; r++)
        for (size_t b = 0; b < nb; b++) {
            size_t c0 = b * 32, len = cols - c0 < 32 ? cols - c0 : 32;
            float mx = 0, d;
            for (size_t i = 0; i < len; i++)
                mx = fabsf(w[r * cols + c0 + i]) > mx ? fabsf(w[r * cols + c0 + i]) : mx;
            d = mx / 127.0f;
            scales[r * nb + b] = d;
            for (size_t i = 0; i < len; i++) {
                float z = d > 0 ? roundf(w[r * cols + c0 + i] / d) : 0;
                z = z > 127 ? 127 : z < -127 ? -127 : z;
                q[r * cols + c0 + i] = (int8_t)z;
                /* from the stored code: roundf(-0.3) is -0, the int8 code 0 */
                deq[r * cols + c0 + i] = (float)q[r * cols + c0 + i] * d;
            }
        }
}

/*
** Q4 by core itself: Q [rows][nb][16] codes and DM [rows][nb] block words
** (the device's two arrays, gpu.h) split by simd_q4_split from what
** simd_q4_quantize writes (what a cpu fp32i4 model holds), DEQ [rows][cols]
** the weights simd_q4_dequantize_row reads back from those bytes.
*/
static inline void
ref_q4_quantize(const float *w, size_t rows, size_t cols, uint8_t *q, uint32_t *dm,
                float *deq)
{
    uint8_t *packed =
        (uint8_t *)malloc((size_t)simd_data_bytes(SIMD_Q4, (int64_t)rows, (int64_t)cols));
    simd_matrix m = { SIMD_Q4, (int64_t)rows, (int64_t)cols, packed, NULL };

    if (packed == NULL)
        abort();
    simd_q4_quantize(w, (int64_t)cols, 0, (int64_t)rows, packed);
    simd_q4_split(&m, 0, (int64_t)rows, q, dm);
    for (size_t r = 0; r < rows; r++)
        simd_q4_dequantize_row(&m, (int64_t)r, deq + r * cols);
    free(packed);
}

/* ---- products of gpu_matmul_batch ---- */

/* The epilogue activation OP (gpu.h's gpu_mm_job.act) of Z. */
static inline float
ref_act(enum gpu_op op, float z)
{
    switch (op) {
    case GPU_OP_TANH:    return tanhf(z);
    case GPU_OP_SIGMOID: return ref_sigmoid(z);
    case GPU_OP_SILU:    return z * ref_sigmoid(z);
    case GPU_OP_RELU_SQ: return z > 0 ? z * z : 0.0f;
    default:             return z;
    }
}

/* The host bytes of W [R][K] in format WT: *DATA (DATA_BYTES) and, for Q8 /
 * Q4, *SCALES (SCALE_BYTES; else NULL, 0), malloc'ed (16-byte aligned); DEQ
 * gets the weights those bytes stand for. */
static inline void
ref_mm_weights(enum gpu_wtype wt, const float *w, size_t R, size_t K, void **data,
               size_t *data_bytes, void **scales, size_t *scale_bytes, float *deq)
{
    size_t nw = R * K, nb = (K + 31) / 32;

    *scales = NULL, *scale_bytes = 0;
    switch (wt) {
    case GPU_W_Q8:
        *data_bytes = nw, *scale_bytes = R * nb * 4;
        *data = aligned_alloc(16, (*data_bytes + 15) / 16 * 16);
        *scales = aligned_alloc(16, (*scale_bytes + 15) / 16 * 16);
        ref_q8_quantize(w, R, K, (int8_t *)*data, (float *)*scales, deq);
        break;
    case GPU_W_Q4:
        *data_bytes = R * nb * 16, *scale_bytes = R * nb * 4;
        *data = aligned_alloc(16, *data_bytes);
        *scales = aligned_alloc(16, (*scale_bytes + 15) / 16 * 16);
        ref_q4_quantize(w, R, K, (uint8_t *)*data, (uint32_t *)*scales, deq);
        break;
    case GPU_W_F16:
    case GPU_W_BF16: {
        uint16_t *h = (uint16_t *)aligned_alloc(16, (nw * 2 + 15) / 16 * 16);
        for (size_t e = 0; e < nw; e++) {
            h[e] = wt == GPU_W_BF16 ? ref_f32_to_bf16(w[e]) : ref_f32_to_f16(w[e]);
            deq[e] = wt == GPU_W_BF16 ? ref_bf16_to_f32(h[e]) : ref_f16_to_f32(h[e]);
        }
        *data = h, *data_bytes = nw * 2;
        break;
    }
    default:
        *data_bytes = nw * 4;
        *data = aligned_alloc(16, (*data_bytes + 15) / 16 * 16);
        memcpy(*data, w, nw * 4);
        memcpy(deq, w, nw * 4);
        break;
    }
}

/* WANT [T][R] = (ACC ? Y0 : 0) + act(DEQ X), X [T][ldx] (the first K of a row). */
static inline void
ref_mm_job(const float *deq, size_t R, size_t K, const float *x, size_t ldx, size_t T,
           enum gpu_op act, int acc, const float *y0, float *want)
{
    float *xc = (float *)malloc(T * K * sizeof(float));

    for (size_t t = 0; t < T; t++)
        memcpy(xc + t * K, x + t * ldx, K * sizeof(float));
    ref_matmul(deq, R, K, xc, T, want);
    for (size_t e = 0; e < T * R; e++)
        want[e] = (acc ? y0[e] : 0.0f) + ref_act(act, want[e]);
    free(xc);
}

/* ---- device helpers: NULL on failure (the test counts it) ---- */

static inline void *
ref_dev_put(gpu_ctx *g, const void *src, size_t bytes, rwkv_err *err)
{
    void *d = NULL;

    if (gpu_alloc(g, bytes, &d, err) != RWKV_OK)
        return NULL;
    if (src != NULL && gpu_upload(g, d, src, bytes, err) != RWKV_OK) {
        gpu_free(g, d);
        return NULL;
    }
    if (src == NULL && gpu_zero(g, d, bytes, err) != RWKV_OK) {
        gpu_free(g, d);
        return NULL;
    }
    return d;
}

#endif
