/*
** simd_avx2.c -- AVX2 + FMA + F16C kernels, compiled with the Makefile's
** AVX2_FLAGS and entered only through simd_kernels_avx2 after
** simd_kernels_get() checked the CPU.
**
** Matvec (decode) streams NR_MV rows with weights widened to fp32 in
** registers (see the matvec section); the table's matmuls (prefill) are the
** packed-panel GEMMs of simd_mm_avx2.c.  The earlier matmul here -- a
** 4 rows x 2 tokens dot-product tile with TB x KB cache blocking, widening
** every weight again per token pair -- stays as simd_avx2_dot_matmul for
** bench_kernels' same-run comparison and the tests.  AVX2 has no masked
** 16-bit loads, so the last cols % 8 columns are summed in scalar code.
** Activations stay fp32 but in the Q8 matvec, which takes them as int16 per
** 32-block (simd_impl.h's simd_q8_x; the Q4 one, simd_q4_avx2.c, as int8).
*/
#if defined(__x86_64__)

#include <immintrin.h>
#include <string.h>

#include "simd_impl.h"

#define AI static inline __attribute__((always_inline))

#define NR_MV 4
#define TB 64
#define KB 1024

enum fmt { FMT_F32, FMT_BF16, FMT_F16, FMT_Q8 };

static const size_t fmt_size[] = {4, 2, 2, 1};

/* 8 weights at element I of row P widened to fp32 (Q8: codes, unscaled). */
AI __m256
ldw(enum fmt f, const void *p, int64_t i)
{
    switch (f) {
    case FMT_F32:
        return _mm256_loadu_ps((const float *)p + i);
    case FMT_BF16:
        return _mm256_castsi256_ps(_mm256_slli_epi32(
            _mm256_cvtepu16_epi32(
                _mm_loadu_si128((const __m128i *)((const uint16_t *)p + i))),
            16));
    case FMT_F16:
        return _mm256_cvtph_ps(
            _mm_loadu_si128((const __m128i *)((const uint16_t *)p + i)));
    case FMT_Q8:
        return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
            _mm_loadl_epi64((const __m128i *)((const int8_t *)p + i))));
    }
    return _mm256_setzero_ps();
}

/* One weight, widened (Q8: code, unscaled). */
AI float
ldw1(enum fmt f, const void *p, int64_t i)
{
    uint16_t h;
    uint32_t u;
    float v;

    switch (f) {
    case FMT_F32:
        return ((const float *)p)[i];
    case FMT_BF16:
        memcpy(&h, (const uint16_t *)p + i, 2);
        u = (uint32_t)h << 16;
        memcpy(&v, &u, 4);
        return v;
    case FMT_F16:
        memcpy(&h, (const uint16_t *)p + i, 2);
        return _cvtsh_ss(h);
    case FMT_Q8:
        return (float)((const int8_t *)p)[i];
    }
    return 0;
}

/* The largest of the 8 lanes of V. */
AI float
hmax8(__m256 v)
{
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));

    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

AI float
hsum8(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));

    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/*
** The sums of 4 vectors at once, [sum v0, sum v1, sum v2, sum v3]: three
** vhaddps and one add instead of four separate horizontal sums (fewer
** instructions per row block for the short LoRA rows; no speed change was
** measurable, those are bound by memory).  Every row's sum is ((e0 + e1) +
** (e2 + e3)) + ((e4 + e5) + (e6 + e7)) whichever slot it is in, so mv_put
** gives a single row the same value as the 4-row form.
*/
AI __m128
hsum4x8(__m256 v0, __m256 v1, __m256 v2, __m256 v3)
{
    __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(v0, v1), _mm256_hadd_ps(v2, v3));

    return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

/* y[0..NR) = sums of ACC[0..NR) + TAIL[0..NR) (NR 4 or 1). */
AI void
mv_put(int NR, const __m256 *acc, const float *tail, float *y)
{
    if (NR == 4) {
        _mm_storeu_ps(y, _mm_add_ps(hsum4x8(acc[0], acc[1], acc[2], acc[3]),
                                    _mm_loadu_ps(tail)));
        return;
    }
    for (int i = 0; i < NR; i++)
        y[i] = _mm_cvtss_f32(hsum4x8(acc[i], acc[i], acc[i], acc[i])) + tail[i];
}

AI const char *
row_ptr(const simd_matrix *w, int64_t r)
{
    return (const char *)w->data + (size_t)r * (size_t)w->cols * fmt_size[w->dtype];
}

/* Scale of the block holding column C of the row whose scales are S. */
AI float
q8_scale(enum fmt f, const float *s, int64_t c)
{
    return f == FMT_Q8 ? s[c / SIMD_Q8_BLOCK] : 1.0f;
}

/* ---- matvec --------------------------------------------------------------- */

/*
** Decode is bound by weight bytes, so the kernels stream NR_MV rows at once
** and keep the instructions per byte low enough that the out-of-order
** window holds many cache misses: bf16 rows are read 16 weights per 32-byte
** load and widened in place (even elements: shift; odd: mask) against x
** split into its even / odd elements once per matvec (mv_x_pairs); f16
** rows the same way, each half moved into fp32's fields by an arithmetic
** shift and a mask; Q8 rows as int16 products per block (mv_rows_q8x).
**
** Why not vcvtph2ps for f16: on Zen 1 (AVX2 as two 128-bit halves) one
** ymm vcvtph2ps takes 3 cycles of a single pipe, so two cores widened
** ~21 GB/s of weights, below the memory's 23-28; the shifts run on another
** pipe, at 1.3x the rate (decode 83% -> 90% of the paired bound there).
** The shifted code is w * 2^-112 exactly for every finite fp16 w,
** subnormals included; the products are taken against x * 2^56 and the
** sums scaled back by 2^56, so nothing rounds differently unless a partial
** sum falls below 2^-70 or |x| passes 2^71.  An inf or NaN weight (which a
** model cannot use either way) reads as a finite 65536..131008.
**
** The NR_MV rows of a step come from NR_MV equal runs of the thread's rows
** (rows r, r + run, r + 2 run, ...), so the kernel reads NR_MV long
** sequential streams, each prefetched MV_PF_ROW bytes ahead of itself
** (simd_impl.h's simd_mv_prefetch_runs) -- the read probe's pattern, for
** every row length: the short LoRA rows too, and Q8 / Q4 with their block
** scales as streams of their own.  Adjacent rows (the earlier scheme) made
** every row a new short stream for the hardware prefetcher, and rows
** shorter than MV_PF_ROW needed a prefetch of their own.  The rows left
** over (fewer than NR_MV) go one at a time.
*/

/* The f16 rows' products are taken 2^-56 small (see above). */
#define MV_F16_SCALE 0x1p56f
/* Columns of X mv_x_pairs keeps; the 16-bit rows' later columns (no RWKV
** matrix has them) go through ldw, as the last cols % 16 do. */
#define MV_XS_COLS 32768

/* X's columns for the 16-bit rows, in a 32-byte load's pairing: per 16
** columns the 8 even ones, then the 8 odd ones (f16: times MV_F16_SCALE),
** for the first N rounded down to 16 (at most MV_XS_COLS); in this
** thread's buffer, once per matvec instead of once per NR_MV rows. */
static const float *
mv_x_pairs(enum fmt f, const float *x, int64_t n)
{
    static _Thread_local float xs[MV_XS_COLS] __attribute__((aligned(32)));
    const __m256 s = _mm256_set1_ps(f == FMT_F16 ? MV_F16_SCALE : 1.0f);

    for (int64_t c = 0; c + 16 <= n && c + 16 <= MV_XS_COLS; c += 16) {
        __m256 x0 = _mm256_loadu_ps(x + c), x1 = _mm256_loadu_ps(x + c + 8);
        /* [0 2 8 10 | 4 6 12 14] -> [0 2 4 6 8 10 12 14] (64-bit pairs) */
        __m256 xe = _mm256_castpd_ps(_mm256_permute4x64_pd(
            _mm256_castps_pd(_mm256_shuffle_ps(x0, x1, _MM_SHUFFLE(2, 0, 2, 0))),
            _MM_SHUFFLE(3, 1, 2, 0)));
        __m256 xo = _mm256_castpd_ps(_mm256_permute4x64_pd(
            _mm256_castps_pd(_mm256_shuffle_ps(x0, x1, _MM_SHUFFLE(3, 1, 3, 1))),
            _MM_SHUFFLE(3, 1, 2, 0)));
        _mm256_store_ps(xs + c, _mm256_mul_ps(xe, s));
        _mm256_store_ps(xs + c + 8, _mm256_mul_ps(xo, s));
    }
    return xs;
}

/* y[r + i RS], i < NR, for f32 / bf16 / f16 rows; Q8 in mv_rows_q8x.  PF:
** prefetch each row's stream ahead. */
AI void
mv_rows(enum fmt f, int NR, const simd_matrix *w, const float *x, const float *xs, float *y,
        int64_t r, int64_t rs, int pf)
{
    const int64_t n = w->cols, rb = n * (int64_t)fmt_size[f];
    const int64_t nxs = n < MV_XS_COLS ? n : MV_XS_COLS;   /* columns in XS */
    const char *p[NR_MV];
    __m256 a0[NR_MV], a1[NR_MV];
    float tail[NR_MV], v[NR_MV];
    int64_t c = 0;

#pragma GCC unroll 4
    for (int i = 0; i < NR; i++) {
        p[i] = row_ptr(w, r + i * rs);
        a0[i] = _mm256_setzero_ps();
        a1[i] = _mm256_setzero_ps();
        tail[i] = 0;
    }
    if (f == FMT_BF16 || f == FMT_F16) {
        /* lane j of a 32-byte load holds weights 2j (low half) and 2j + 1;
        ** bf16: the even one shifted up, the odd one masked; f16: each
        ** moved into fp32's fields (sign to bit 31, exponent and mantissa
        ** 13 up: w * 2^-112), against xs * 2^56 */
        const __m256i hi = _mm256_set1_epi32((int)0xffff0000u);
        const __m256i m = _mm256_set1_epi32((int)0x8fffe000u);
        for (; c + 16 <= nxs; c += 16) {
            const __m256 xe = _mm256_load_ps(xs + c), xo = _mm256_load_ps(xs + c + 8);

            if (pf && (c & 31) == 0)
                simd_mv_prefetch_runs(p, NR, c * 2, MV_PF_ROW, rb, rb);
#pragma GCC unroll 4
            for (int i = 0; i < NR; i++) {
                __m256i u = _mm256_loadu_si256((const __m256i *)((const uint16_t *)p[i] + c));
                __m256i e, o;
                if (f == FMT_BF16) {
                    e = _mm256_slli_epi32(u, 16);
                    o = _mm256_and_si256(u, hi);
                } else {
                    e = _mm256_and_si256(_mm256_srai_epi32(_mm256_bslli_epi128(u, 2), 3), m);
                    o = _mm256_and_si256(_mm256_srai_epi32(u, 3), m);
                }
                a0[i] = _mm256_fmadd_ps(_mm256_castsi256_ps(e), xe, a0[i]);
                a1[i] = _mm256_fmadd_ps(_mm256_castsi256_ps(o), xo, a1[i]);
            }
        }
    }
    if (f == FMT_F16) {
#pragma GCC unroll 4
        for (int i = 0; i < NR; i++) {
            a0[i] = _mm256_mul_ps(_mm256_add_ps(a0[i], a1[i]), _mm256_set1_ps(MV_F16_SCALE));
            a1[i] = _mm256_setzero_ps();
        }
    }
    for (; c + 16 <= n; c += 16) {
        __m256 x0 = _mm256_loadu_ps(x + c), x1 = _mm256_loadu_ps(x + c + 8);

        if (pf && (f == FMT_F32 || (c & 31) == 0))
            simd_mv_prefetch_runs(p, NR, c * (int64_t)fmt_size[f], MV_PF_ROW, rb, rb);
#pragma GCC unroll 4
        for (int i = 0; i < NR; i++) {
            a0[i] = _mm256_fmadd_ps(ldw(f, p[i], c), x0, a0[i]);
            a1[i] = _mm256_fmadd_ps(ldw(f, p[i], c + 8), x1, a1[i]);
        }
    }
    for (; c + 8 <= n; c += 8) {
        __m256 x0 = _mm256_loadu_ps(x + c);
#pragma GCC unroll 4
        for (int i = 0; i < NR; i++)
            a0[i] = _mm256_fmadd_ps(ldw(f, p[i], c), x0, a0[i]);
    }
    for (; c < n; c++)
        for (int i = 0; i < NR; i++)
            tail[i] += ldw1(f, p[i], c) * x[c];
#pragma GCC unroll 4
    for (int i = 0; i < NR; i++)
        a0[i] = _mm256_add_ps(a0[i], a1[i]);
    mv_put(NR, a0, tail, v);
    for (int i = 0; i < NR; i++)
        y[r + i * rs] = v[i];
}

/*
** y[r + i RS], i < NR, (+)= NBLK blocks from block B0 of Q8 rows against
** the int16 activation codes Q (simd_impl.h): per block two 16-code
** vpmovsxbw loads, two vpmaddwd against the block's codes (8 exact int32
** sums), one vcvtdq2ps and one FMA by s * dx -- 4 arithmetic uops per 32
** weights on ports 0/1 where widening every code to fp32 took 9.  A last,
** partial block of the row is summed in scalar code (its loads would cross
** the row's end).  PF: each row's codes prefetched ahead as mv_rows does,
** its scales (a stream of their own) as far ahead in blocks.
*/
AI void
mv_rows_q8x(int NR, const simd_matrix *w, const simd_q8_x *q, int64_t nblk, float *y,
            int64_t r, int64_t rs, int64_t b0, int add, int pf)
{
    const int64_t n = w->cols, nb = simd_q8_nblocks(n);
    const int64_t nfull = (b0 + nblk) * SIMD_Q8_BLOCK > n ? nblk - 1 : nblk;
    const int64_t len = (b0 + nblk) * SIMD_Q8_BLOCK < n ? nblk * SIMD_Q8_BLOCK
                                                       : n - b0 * SIMD_Q8_BLOCK;
    const char *p[NR_MV], *ps[NR_MV];
    const float *s[NR_MV];
    __m256 acc[NR_MV];
    float tail[NR_MV], v[NR_MV];
    int64_t k = 0;

#pragma GCC unroll 4
    for (int i = 0; i < NR; i++) {
        p[i] = row_ptr(w, r + i * rs) + b0 * SIMD_Q8_BLOCK;
        s[i] = w->scales + (r + i * rs) * nb + b0;
        ps[i] = (const char *)s[i];
        acc[i] = _mm256_setzero_ps();
        tail[i] = 0;
    }
    while (k < nfull) {
        /* up to 8 blocks: their s * dx for every row in one multiply */
        const int64_t kn = nfull - k < 8 ? nfull - k : 8;
        float dd[NR_MV][8] __attribute__((aligned(32)));

        if (kn == 8) {
            const __m256 xd = _mm256_loadu_ps(q->xd + k);
#pragma GCC unroll 4
            for (int i = 0; i < NR; i++)
                _mm256_store_ps(dd[i], _mm256_mul_ps(_mm256_loadu_ps(s[i] + k), xd));
        } else {
            for (int i = 0; i < NR; i++)
                for (int64_t j = 0; j < kn; j++)
                    dd[i][j] = s[i][k + j] * q->xd[k + j];
        }
        for (int64_t j = 0; j < kn; j++, k++) {
            const int64_t c = k * SIMD_Q8_BLOCK;   /* from the pass's first column */
            const __m256i xa =
                _mm256_load_si256((const __m256i *)(const void *)(q->xq + k * 32));
            const __m256i xb =
                _mm256_load_si256((const __m256i *)(const void *)(q->xq + k * 32 + 16));

            if (pf && (c & 63) == 0)
                simd_mv_prefetch_runs(p, NR, c, MV_PF_ROW, len, n);
            if (pf && (c & 511) == 0)   /* the scales: 16 blocks a line */
                simd_mv_prefetch_runs(ps, NR, k * 4, MV_PF_ROW / SIMD_Q8_BLOCK * 4, nblk * 4,
                                      nb * 4);
#pragma GCC unroll 4
            for (int i = 0; i < NR; i++) {
                __m256i lo = _mm256_cvtepi8_epi16(
                    _mm_loadu_si128((const __m128i *)(const void *)(p[i] + c)));
                __m256i hi = _mm256_cvtepi8_epi16(
                    _mm_loadu_si128((const __m128i *)(const void *)(p[i] + c + 16)));
                __m256i si =
                    _mm256_add_epi32(_mm256_madd_epi16(lo, xa), _mm256_madd_epi16(hi, xb));
                acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(si), _mm256_broadcast_ss(&dd[i][j]),
                                         acc[i]);
            }
        }
    }
    if (k < nblk) {
        const int64_t c = k * SIMD_Q8_BLOCK;
        for (int i = 0; i < NR; i++) {
            int32_t is = 0;
            for (int64_t j = 0; b0 * SIMD_Q8_BLOCK + c + j < n; j++)
                is += (int32_t)((const int8_t *)p[i])[c + j] * q->xq[k * 32 + j];
            tail[i] = s[i][k] * q->xd[k] * (float)is;
        }
    }
    mv_put(NR, acc, tail, v);
    for (int i = 0; i < NR; i++)
        y[r + i * rs] = add ? y[r + i * rs] + v[i] : v[i];
}

/* The rows of a matvec (Q8: the Q pass of NBLK blocks from B0, X unused;
** the other formats read X, whole rows): NR_MV runs, then the rest. */
AI void
mv_drive(enum fmt f, const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1,
         const simd_q8_x *q, int64_t nblk, int64_t b0, int add)
{
    const int64_t run = (r1 - r0) / NR_MV;
    const float *xs = f == FMT_BF16 || f == FMT_F16 ? mv_x_pairs(f, x, w->cols) : NULL;
    int64_t r;

    for (r = r0; r < r0 + run; r++) {
        if (f == FMT_Q8)
            mv_rows_q8x(NR_MV, w, q, nblk, y, r, run, b0, add, MV_PF_ROW > 0);
        else
            mv_rows(f, NR_MV, w, x, xs, y, r, run, MV_PF_ROW > 0);
    }
    for (r = r0 + NR_MV * run; r < r1; r++) {
        if (f == FMT_Q8)
            mv_rows_q8x(1, w, q, nblk, y, r, 1, b0, add, 0);
        else
            mv_rows(f, 1, w, x, xs, y, r, 1, 0);
    }
}

static void
mv_f32(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)
{
    mv_drive(FMT_F32, w, x, y, r0, r1, NULL, 0, 0, 0);
}

static void
mv_bf16(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)
{
    mv_drive(FMT_BF16, w, x, y, r0, r1, NULL, 0, 0, 0);
}

static void
mv_f16(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)
{
    mv_drive(FMT_F16, w, x, y, r0, r1, NULL, 0, 0, 0);
}

static void
q8x_rows(const simd_matrix *w, const simd_q8_x *q, int64_t nblk, float *y, int64_t r0,
         int64_t r1, int64_t b0, int add)
{
    mv_drive(FMT_Q8, w, NULL, y, r0, r1, q, nblk, b0, add);
}

/* simd_q8x_act_block's bytes for whole blocks in registers: |x| maximum,
** codes by vcvtps2dq (round to nearest even) of x * (32767 / max). */
void
simd_q8x_act_avx2(const float *x, int64_t n, simd_q8_x *q)
{
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    int64_t b = 0;

    for (; (b + 1) * SIMD_Q8_BLOCK <= n; b++) {
        const float *xb = x + b * SIMD_Q8_BLOCK;
        __m256 v[4], m;
        float amax, inv;

        for (int u = 0; u < 4; u++)
            v[u] = _mm256_loadu_ps(xb + 8 * u);
        m = _mm256_max_ps(_mm256_max_ps(_mm256_and_ps(v[0], absm), _mm256_and_ps(v[1], absm)),
                          _mm256_max_ps(_mm256_and_ps(v[2], absm), _mm256_and_ps(v[3], absm)));
        amax = hmax8(m);
        inv = amax > 0 ? 32767.0f / amax : 0;
        q->xd[b] = amax / 32767.0f;
        for (int u = 0; u < 4; u += 2) {
            __m256i c0 = _mm256_cvtps_epi32(_mm256_mul_ps(v[u], _mm256_set1_ps(inv)));
            __m256i c1 = _mm256_cvtps_epi32(_mm256_mul_ps(v[u + 1], _mm256_set1_ps(inv)));
            /* packs works per 128-bit lane: [c0 lo, c1 lo, c0 hi, c1 hi] -> in order */
            __m256i pk = _mm256_permute4x64_epi64(_mm256_packs_epi32(c0, c1),
                                                  _MM_SHUFFLE(3, 1, 2, 0));
            _mm256_store_si256((__m256i *)(void *)(q->xq + b * SIMD_Q8_BLOCK + 8 * u), pk);
        }
    }
    if (b * SIMD_Q8_BLOCK < n)
        simd_q8x_act_block(x + b * SIMD_Q8_BLOCK, (int)(n - b * SIMD_Q8_BLOCK), q, b);
}

static void
mv_q8(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)
{
    simd_q8x_matvec(w, x, y, r0, r1, simd_q8x_act_avx2, q8x_rows);
}

/* ---- matmul ------------------------------------------------------------------- */

/* Y[j*ldy + i] (+)= W[r+i, k0:kend] . X[j, k0:kend], NR <= 4, NT <= 2. */
AI void
tile(enum fmt f, int NR, int NT, const simd_matrix *w, int64_t r,
     const float *x, int64_t ldx, int64_t k0, int64_t kn, float *y,
     int64_t ldy, int first)
{
    const int64_t nb = simd_q8_nblocks(w->cols), kend = k0 + kn;
    const char *p[4];
    const float *s[4];
    __m256 acc[4][2];
    int64_t c = k0;

#pragma GCC unroll 4
    for (int i = 0; i < NR; i++) {
        p[i] = row_ptr(w, r + i);
        s[i] = f == FMT_Q8 ? w->scales + (r + i) * nb : NULL;
#pragma GCC unroll 2
        for (int j = 0; j < NT; j++)
            acc[i][j] = _mm256_setzero_ps();
    }
    for (; c + 8 <= kend; c += 8) {
        __m256 wv[4];
#pragma GCC unroll 4
        for (int i = 0; i < NR; i++) {
            wv[i] = ldw(f, p[i], c);
            if (f == FMT_Q8)
                wv[i] = _mm256_mul_ps(wv[i], _mm256_set1_ps(q8_scale(f, s[i], c)));
        }
#pragma GCC unroll 2
        for (int j = 0; j < NT; j++) {
            __m256 xv = _mm256_loadu_ps(x + j * ldx + c);
#pragma GCC unroll 4
            for (int i = 0; i < NR; i++)
                acc[i][j] = _mm256_fmadd_ps(wv[i], xv, acc[i][j]);
        }
    }
    for (int i = 0; i < NR; i++)
        for (int j = 0; j < NT; j++) {
            float v = hsum8(acc[i][j]);
            for (int64_t cc = c; cc < kend; cc++)
                v += ldw1(f, p[i], cc) * q8_scale(f, s[i], cc) * x[j * ldx + cc];
            y[j * ldy + i] = first ? v : y[j * ldy + i] + v;
        }
}

AI void
mm_drive(enum fmt f, const simd_matrix *w, const simd_act *a, float *y,
         int64_t ldy, int64_t r0, int64_t r1)
{
    const int64_t n = w->cols, T = a->T, ldx = a->cols;

    for (int64_t t0 = 0; t0 < T; t0 += TB) {
        int64_t t1 = t0 + TB < T ? t0 + TB : T;
        for (int64_t k0 = 0; k0 < n; k0 += KB) {
            int64_t kn = n - k0 < KB ? n - k0 : KB;
            int first = k0 == 0;
            int64_t r = r0;
            for (; r + 4 <= r1; r += 4) {
                int64_t t = t0;
                for (; t + 2 <= t1; t += 2)
                    tile(f, 4, 2, w, r, a->x + t * ldx, ldx, k0, kn,
                         y + t * ldy + r, ldy, first);
                for (; t < t1; t++)
                    tile(f, 4, 1, w, r, a->x + t * ldx, ldx, k0, kn,
                         y + t * ldy + r, ldy, first);
            }
            for (; r < r1; r++) {
                int64_t t = t0;
                for (; t + 2 <= t1; t += 2)
                    tile(f, 1, 2, w, r, a->x + t * ldx, ldx, k0, kn,
                         y + t * ldy + r, ldy, first);
                for (; t < t1; t++)
                    tile(f, 1, 1, w, r, a->x + t * ldx, ldx, k0, kn,
                         y + t * ldy + r, ldy, first);
            }
        }
    }
}

static void
mm_f32(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
       int64_t r0, int64_t r1)
{
    mm_drive(FMT_F32, w, a, y, ldy, r0, r1);
}

static void
mm_bf16(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
        int64_t r0, int64_t r1)
{
    mm_drive(FMT_BF16, w, a, y, ldy, r0, r1);
}

static void
mm_f16(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
       int64_t r0, int64_t r1)
{
    mm_drive(FMT_F16, w, a, y, ldy, r0, r1);
}

static void
mm_q8(const simd_matrix *w, const simd_act *a, float *y, int64_t ldy,
      int64_t r0, int64_t r1)
{
    mm_drive(FMT_Q8, w, a, y, ldy, r0, r1);
}

/* ---- conversions ------------------------------------------------------------ */

/* bf16 round to nearest even in integer arithmetic; NaN -> quiet NaN. */
AI __m128i
bf16_rne8(__m256 v)
{
    __m256i u = _mm256_castps_si256(v);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_srli_epi32(
        _mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff))), 16);
    __m256i qnan = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    __m256i sel = _mm256_blendv_epi8(r, qnan, nan);

    /* pack 8 x u32 (each < 65536) to 8 x u16 */
    return _mm_packus_epi32(_mm256_castsi256_si128(sel), _mm256_extracti128_si256(sel, 1));
}

static void
avx2_f32_to_bf16(const float *src, uint16_t *dst, size_t n)
{
    size_t i = 0;

    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(dst + i), bf16_rne8(_mm256_loadu_ps(src + i)));
    if (i < n) {
        float tmp[8] = {0};
        uint16_t out[8];
        memcpy(tmp, src + i, (n - i) * sizeof(float));
        _mm_storeu_si128((__m128i *)out, bf16_rne8(_mm256_loadu_ps(tmp)));
        memcpy(dst + i, out, (n - i) * sizeof(uint16_t));
    }
}

static void
avx2_f32_to_f16(const float *src, uint16_t *dst, size_t n)
{
    size_t i = 0;

    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(dst + i),
            _mm256_cvtps_ph(_mm256_loadu_ps(src + i),
                            _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    if (i < n) {
        float tmp[8] = {0};
        uint16_t out[8];
        memcpy(tmp, src + i, (n - i) * sizeof(float));
        _mm_storeu_si128((__m128i *)out,
            _mm256_cvtps_ph(_mm256_loadu_ps(tmp),
                            _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        memcpy(dst + i, out, (n - i) * sizeof(uint16_t));
    }
}

static void
avx2_bf16_to_f32(const uint16_t *src, float *dst, size_t n)
{
    size_t i = 0;

    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, ldw(FMT_BF16, src, (int64_t)i));
    for (; i < n; i++)
        dst[i] = ldw1(FMT_BF16, src, (int64_t)i);
}

static void
avx2_f16_to_f32(const uint16_t *src, float *dst, size_t n)
{
    size_t i = 0;

    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, ldw(FMT_F16, src, (int64_t)i));
    for (; i < n; i++)
        dst[i] = ldw1(FMT_F16, src, (int64_t)i);
}

/* 12 independent ymm FMA chains (enough for 2 FMA/cycle x 4-5 latency). */
static double
avx2_peak(int dot_bf16, int64_t iters)
{
    __m256 a[12], m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
    volatile float sink;

    (void)dot_bf16;
#pragma GCC unroll 12
    for (int l = 0; l < 12; l++)
        a[l] = _mm256_set1_ps((float)l);
    for (int64_t i = 0; i < iters; i++)
#pragma GCC unroll 12
        for (int l = 0; l < 12; l++)
            a[l] = _mm256_fmadd_ps(a[l], m, c);
    for (int l = 1; l < 12; l++)
        a[0] = _mm256_add_ps(a[0], a[l]);
    sink = hsum8(a[0]);
    (void)sink;
    return 2.0 * 8 * 12 * (double)iters;
}

/* simd_read_probe: NS streams of two 32-byte loads a cache line, each
** prefetched 2 KiB ahead; the tail beyond NS whole streams word by word. */
AI uint64_t
read_streams(const char *b, size_t bytes, const int NS)
{
    const size_t q = bytes / (size_t)NS / 64 * 64;
    __m256i s[8];
    uint64_t out[4], sum = 0, w;

#pragma GCC unroll 8
    for (int k = 0; k < NS; k++)
        s[k] = _mm256_setzero_si256();
    for (size_t i = 0; i < q; i += 64)
#pragma GCC unroll 8
        for (int k = 0; k < NS; k++) {
            const char *r = b + (size_t)k * q + i;
            _mm_prefetch(r + 2048, _MM_HINT_T0);
            s[k] = _mm256_add_epi64(s[k], _mm256_add_epi64(
                                              _mm256_loadu_si256((const __m256i *)r),
                                              _mm256_loadu_si256((const __m256i *)(r + 32))));
        }
    for (int k = 1; k < NS; k++)
        s[0] = _mm256_add_epi64(s[0], s[k]);
    _mm256_storeu_si256((__m256i *)out, s[0]);
    sum = out[0] + out[1] + out[2] + out[3];
    for (size_t i = (size_t)NS * q; i < bytes; i += 8) {
        w = 0;
        memcpy(&w, b + i, bytes - i < 8 ? bytes - i : 8);
        sum += w;
    }
    return sum;
}

uint64_t
simd_read_avx2(const void *p, size_t bytes, int streams)
{
    return streams == 4 ? read_streams(p, bytes, 4) : read_streams(p, bytes, 8);
}

const simd_matmul_fn simd_avx2_dot_matmul[SIMD_NDTYPE] = {mm_f32, mm_bf16, mm_f16, mm_q8};

/*
** simd_q8_quantize_portable's bytes 32 weights at a time: the block's |w|
** maximum by vmaxps (exact), codes by a division and vcvtps2dq (round to
** nearest even, as lrintf), clamped to +-127 and packed; the last, partial
** block by the portable one.  At load this was most of an int8 model's
** conversion time with fmaxf and lrintf as calls.
*/
static void
avx2_q8_quantize(const float *src, int64_t cols, int64_t r0, int64_t r1, int8_t *q,
                 float *scales)
{
    const int64_t nb = simd_q8_nblocks(cols), full = cols / SIMD_Q8_BLOCK;
    const __m256 sign = _mm256_set1_ps(-0.0f);
    const __m256i lim = _mm256_set1_epi32(127), nlim = _mm256_set1_epi32(-127);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);

    for (int64_t r = r0; r < r1; r++) {
        const float *row = src + r * cols;
        int8_t *qr = q + r * cols;
        int64_t b = 0;

        for (; b < full; b++) {
            const float *x = row + b * SIMD_Q8_BLOCK;
            __m256 v[4], m = _mm256_setzero_ps();
            __m256i c[4], packed;
            float d;

            for (int k = 0; k < 4; k++) {
                v[k] = _mm256_loadu_ps(x + 8 * k);
                m = _mm256_max_ps(m, _mm256_andnot_ps(sign, v[k]));
            }
            d = hmax8(m) / 127.0f;
            scales[r * nb + b] = d;
            for (int k = 0; k < 4; k++)
                c[k] = d > 0 ? _mm256_max_epi32(nlim, _mm256_min_epi32(lim, _mm256_cvtps_epi32(
                                   _mm256_div_ps(v[k], _mm256_set1_ps(d)))))
                             : _mm256_setzero_si256();
            packed = _mm256_packs_epi16(_mm256_packs_epi32(c[0], c[1]),
                                        _mm256_packs_epi32(c[2], c[3]));
            _mm256_storeu_si256((__m256i *)(void *)(qr + b * SIMD_Q8_BLOCK),
                                _mm256_permutevar8x32_epi32(packed, order));
        }
        for (; b < nb; b++)
            simd_q8_quantize_block(row + b * SIMD_Q8_BLOCK, cols - b * SIMD_Q8_BLOCK,
                                   qr + b * SIMD_Q8_BLOCK, scales + r * nb + b);
    }
}

/* The AVX2 tables: NAME, with the Q4 matvec MV_Q4 and its row half ROWS_Q4
** (vpmaddubsw, or AVX-VNNI's vpdpbusd where cpuid has it). */
#define AVX2_TABLE(NAME, MV_Q4, ROWS_Q4)                                                    \
    {                                                                                     \
        .name = NAME, .isa = SIMD_ISA_AVX2, .flags = SIMD_EXACT,                          \
        .matvec = {mv_f32, mv_bf16, mv_f16, mv_q8, MV_Q4},                                \
        .matmul = {simd_mm_avx2_f32, simd_mm_avx2_bf16, simd_mm_avx2_f16, simd_mm_avx2_q8, \
                   simd_mm_avx2_q4},                                                      \
        .act = {SIMD_ACT_F32, SIMD_ACT_F32, SIMD_ACT_F32, SIMD_ACT_F32, SIMD_ACT_F32},    \
        .f32_to_bf16 = avx2_f32_to_bf16, .f32_to_f16 = avx2_f32_to_f16,                   \
        .bf16_to_f32 = avx2_bf16_to_f32, .f16_to_f32 = avx2_f16_to_f32,                   \
        .q8_quantize = avx2_q8_quantize, .peak = avx2_peak, .read = simd_read_avx2,       \
        .q4_act = simd_q4_act_avx2, .q4_rows = ROWS_Q4,                                   \
        .q8_act = simd_q8x_act_avx2, .q8_rows = q8x_rows,                                          \
    }

const struct simd_kernels simd_kernels_avx2 =
    AVX2_TABLE("avx2", simd_mv_avx2_q4, simd_q4_rows_avx2);
const struct simd_kernels simd_kernels_avx2_vnni =
    AVX2_TABLE("avx2-vnni", simd_mv_avxvnni_q4, simd_q4_rows_avxvnni);

#endif /* __x86_64__ */
