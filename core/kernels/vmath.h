/*
** vmath.h -- vectorized element-wise math and the WKV recurrences of the
** block math (RWKV-4/5/6/7), in a portable version and AVX2 / AVX-512
** versions chosen at run time (the same ISA as kern_default_kernels(), so
** RWKV_KERNELS=portable|avx2|avx2-vnni|avx512 switches both).
**
** One source (vmath_impl.h, GCC vector extensions) is compiled three times
** with vectors of 4 (vmath.c, baseline x86-64 / any CPU), 8 (vmath_avx2.c)
** and 16 floats (vmath_avx512.c).  The AVX builds contract a*b+c into FMA,
** so their results differ from the portable one by FMA rounding only.
**
** Accuracy (tests/unit/test_vmath.c measures it against double-precision
** libm over the whole float range, every ISA):
**   exp       <= 1 ulp, subnormal results included; exp(+inf) = inf,
**             exp(-inf) = 0, overflow -> inf, NaN -> NaN.
**   sigmoid   <= 2.5 ulp (as e/(1+e) for x < 0, so tiny results are accurate
**             down to the subnormals); +-inf -> 1 / 0; NaN -> NaN.
**   tanh      <= 2 ulp; odd (tanh(-0) = -0); +-inf -> +-1; NaN -> NaN.
**   silu      x * sigmoid(x): <= 3.5 ulp where sigmoid(x) is normal (x > -87.3).
**
** Every function works on arrays of any length and alignment; in-place use
** (Y == X) is allowed where stated.  Nothing allocates or keeps state;
** calls on disjoint data may run concurrently.
*/
#ifndef RWKV_VMATH_H
#define RWKV_VMATH_H

#include <stddef.h>

#include "simd.h"

/* A table of implementations (static, never freed). */
typedef struct vm_ops vm_ops;

/* The table of ISA, or NULL when the CPU lacks it (portable always exists). */
const vm_ops *vm_get(enum simd_isa isa);
/* The table matching kern_default_kernels()'s ISA (cached). */
const vm_ops *vm_default(void);
/* "portable", "avx2", "avx512". */
const char *vm_name(const vm_ops *o);

/* ---- element-wise math: Y[i] = f(X[i]) for i < N (Y may be X) ---- */
void vm_exp(const vm_ops *o, const float *x, float *y, size_t n);
void vm_sigmoid(const vm_ops *o, const float *x, float *y, size_t n);
void vm_tanh(const vm_ops *o, const float *x, float *y, size_t n);
/* Y = X * sigmoid(X). */
void vm_silu(const vm_ops *o, const float *x, float *y, size_t n);
/* Y = relu(X)^2. */
void vm_relu2(const vm_ops *o, const float *x, float *y, size_t n);
/* Y = sigmoid(A + B) (Y may be A or B). */
void vm_sigmoid_add(const vm_ops *o, const float *a, const float *b, float *y, size_t n);
/* Y = exp(S * X) (Y may be X). */
void vm_exp_scale(const vm_ops *o, const float *x, float s, float *y, size_t n);
/* Y += X. */
void vm_add(const vm_ops *o, const float *x, float *y, size_t n);
/* Y *= X. */
void vm_mul(const vm_ops *o, const float *x, float *y, size_t n);
/* Y -= X. */
void vm_sub(const vm_ops *o, const float *x, float *y, size_t n);
/* OUT = X + S * (M + D) (the v6 data-dependent mix; OUT may be D). */
void vm_mix_add(const vm_ops *o, const float *x, const float *s, const float *m, const float *d,
                float *out, size_t n);
/* Y += sigmoid(R) * X (the v4/v5/v6 FFN's receptance gate). */
void vm_add_sigmoid_mul(const vm_ops *o, const float *r, const float *x, float *y, size_t n);

/*
** Token-shift mixes of one row of N channels into NOUT outputs:
**   VM_MIX_LERP   OUT[k][c] = x + (sx - x) * MIX[k][c]         (v6, v7)
**   VM_MIX_AFFINE OUT[k][c] = x * MIX[k][c] + sx * (1 - MIX[k][c])   (v4, v5)
** X = XN row, SX = shifted row.  OUT rows must not overlap X or SX.
*/
enum vm_mix_form { VM_MIX_LERP, VM_MIX_AFFINE };
void vm_mix(const vm_ops *o, enum vm_mix_form form, const float *x, const float *sx,
            const float *const *mix, float *const *out, int nout, size_t n);

/* ---- norms (means and variances summed in double, like kern_layer_norm) ---- */
/* Y = layer_norm(X) * W + B over N values (biased variance); Y may be X. */
void vm_layer_norm(const vm_ops *o, const float *x, const float *w, const float *b, float *y,
                   size_t n, float eps);
/* H groups of N: layer norm per group, per-channel W and B; Y may be X. */
void vm_group_norm(const vm_ops *o, const float *x, const float *w, const float *b, float *y,
                   size_t h, size_t n, float eps);

/* ---- WKV recurrences, one head (or channel range) over T tokens ---- */
/*
** RWKV-7, one head of N channels: state S [N][N] (value i, key j), for each
** token p < T (its vectors at offset p * LD in R, W, K, V, KK, KKA, Y):
**     sa_i = sum_j S_ij kk_j
**     S_ij = S_ij w_j - sa_i kka_j + v_i k_j,      y_i = sum_j S_ij r_j
** (KKA = kk * a; the reference's S (-kk)(kk a)^T term).  Several tokens (at
** least 4, head size a multiple of the vector width, N <= 128) run on a
** transposed copy of S held in L1, in vectors along i (y summed over j in
** order, sa as even-j and odd-j sums in order); otherwise on S's rows (sums
** over j in vector lanes).  The same math with a different summation order:
** the float results differ by rounding (test_vmath: both within 1e-5
** relative of a double-precision loop).  The result never depends on how
** heads are spread over threads.
*/
void vm_wkv7(const vm_ops *o, float *s, size_t n, size_t t, size_t ld, const float *r,
             const float *w, const float *k, const float *v, const float *kk,
             const float *kka, float *y);
/*
** RWKV-5/6, one head of N channels: state S [N][N] (key i, value j), for
** each token p < T (R, K, V, Y at offset p * LD):
**     y_j = sum_i r_i (u_i k_i v_j + S_ij),     S_ij = k_i v_j + w_i S_ij
** (sums over i in order).  W_i = W[p * W_LD + i * W_STEP], U_i =
** U[i * U_STEP]: steps 0 give one value for the head (v5.0/5.1), W_LD 0 a
** decay that does not depend on the token (v5.x), W_LD = LD a per-token
** decay (v6).
*/
void vm_wkv5(const vm_ops *o, float *s, size_t n, size_t t, size_t ld, const float *r,
             const float *k, const float *v, const float *w, size_t w_ld, size_t w_step,
             const float *u, size_t u_step, float *y);
/*
** RWKV-4, channels c in [0, N) (pointers already offset to the first
** channel), T tokens (R, K, V, Y at offset p * LD): the reference's log-space
** recurrence with the running maximum PP, state AA, BB, PP [N]:
**     ww = u + k; q = max(pp, ww); wkv = (e^(pp-q) aa + e^(ww-q) v) / (e^(pp-q) bb + e^(ww-q))
**     ww = w + pp; q = max(ww, k); aa = e^(ww-q) aa + e^(k-q) v; bb = e^(ww-q) bb + e^(k-q); pp = q
**     y = sigmoid(r) wkv
** with W = decay (-exp(time_decay)) and U = time_first.
*/
void vm_wkv4(const vm_ops *o, float *aa, float *bb, float *pp, size_t n, size_t t, size_t ld,
             const float *r, const float *k, const float *v, const float *w, const float *u,
             float *y);

/* ---- RWKV-7 per-token element-wise work (one token of C = H * N) ---- */
/*
** Before the WKV (all [C], in place):
**     a  = sigmoid(a0 + a);   kk = normalize_per_head(k * k_k)  (eps NORM_EPS)
**     k  = k * (1 + (a - 1) * k_a);   a = kk * a   (A then holds kk * a)
**     w  = exp(DECAY * sigmoid(w0 + w))
**     v  = v + (vf - v) * sigmoid(v0 + vg)      (only when VF is not NULL;
**                                               VG is overwritten)
*/
struct vm_v7_pre {
    float       *k, *a, *kk, *w, *v, *vg;
    const float *vf;
    const float *a0, *k_k, *k_a, *w0, *v0;
    size_t       h, n;             /* heads, head size */
    float        decay;            /* -e^-0.5 */
    float        norm_eps;
};
void vm_v7_pre(const vm_ops *o, const struct vm_v7_pre *p);
/*
** After the WKV: y = group_norm(y) (LNX_W, LNX_B, EPS), then per head
** y += (sum r * k * r_k) * v, then y *= g.  All [C] = H * N.
*/
void vm_v7_post(const vm_ops *o, float *y, const float *r, const float *k, const float *v,
                const float *g, const float *r_k, const float *lnx_w, const float *lnx_b,
                size_t h, size_t n, float eps);

#endif
