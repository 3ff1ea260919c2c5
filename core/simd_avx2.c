/*
** simd_avx2.c -- AVX2 + FMA + F16C kernels, compiled with the Makefile's
** AVX2_FLAGS and entered only through simd_kernels_avx2 after
** simd_kernels_get() checked the CPU.
**
** Same structure as simd_avx512.c at 8 lanes: matvec streams NR_MV rows with
** weights widened to fp32 (Q8: codes times the block scale; 8 | 32 so one
** scale covers a vector); matmul uses a 4 rows x 2 tokens register tile
** (8 ymm accumulators of 16 registers) with the same TB x KB cache blocking.
** AVX2 has no masked 16-bit loads, so the last cols % 8 columns are summed
** in scalar code.  All activations stay fp32 (no VNNI / BF16 here).
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

AI float
hsum8(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));

    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
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

AI void
mv_rows(enum fmt f, int NR, const simd_matrix *w, const float *x, float *y,
        int64_t r)
{
    const int64_t n = w->cols, nb = simd_q8_nblocks(n);
    const char *p[NR_MV];
    const float *s[NR_MV];
    __m256 a0[NR_MV], a1[NR_MV];
    float tail[NR_MV];
    int64_t c = 0;

#pragma GCC unroll 4
    for (int i = 0; i < NR; i++) {
        p[i] = row_ptr(w, r + i);
        s[i] = f == FMT_Q8 ? w->scales + (r + i) * nb : NULL;
        a0[i] = _mm256_setzero_ps();
        a1[i] = _mm256_setzero_ps();
        tail[i] = 0;
    }
    for (; c + 16 <= n; c += 16) {
        __m256 x0 = _mm256_loadu_ps(x + c), x1 = _mm256_loadu_ps(x + c + 8);
#pragma GCC unroll 4
        for (int i = 0; i < NR; i++) {
            __m256 w0 = ldw(f, p[i], c), w1 = ldw(f, p[i], c + 8);
            if (f == FMT_Q8) {
                __m256 sc = _mm256_set1_ps(q8_scale(f, s[i], c));
                w0 = _mm256_mul_ps(w0, sc);
                w1 = _mm256_mul_ps(w1, sc);
            }
            a0[i] = _mm256_fmadd_ps(w0, x0, a0[i]);
            a1[i] = _mm256_fmadd_ps(w1, x1, a1[i]);
        }
    }
    for (; c + 8 <= n; c += 8) {
        __m256 x0 = _mm256_loadu_ps(x + c);
#pragma GCC unroll 4
        for (int i = 0; i < NR; i++) {
            __m256 w0 = ldw(f, p[i], c);
            if (f == FMT_Q8)
                w0 = _mm256_mul_ps(w0, _mm256_set1_ps(q8_scale(f, s[i], c)));
            a0[i] = _mm256_fmadd_ps(w0, x0, a0[i]);
        }
    }
    for (; c < n; c++)
        for (int i = 0; i < NR; i++)
            tail[i] += ldw1(f, p[i], c) * q8_scale(f, s[i], c) * x[c];
#pragma GCC unroll 4
    for (int i = 0; i < NR; i++)
        y[r + i] = hsum8(_mm256_add_ps(a0[i], a1[i])) + tail[i];
}

AI void
mv_drive(enum fmt f, const simd_matrix *w, const float *x, float *y,
         int64_t r0, int64_t r1)
{
    int64_t r = r0;

    for (; r + NR_MV <= r1; r += NR_MV)
        mv_rows(f, NR_MV, w, x, y, r);
    for (; r < r1; r++)
        mv_rows(f, 1, w, x, y, r);
}

static void
mv_f32(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)
{
    mv_drive(FMT_F32, w, x, y, r0, r1);
}

static void
mv_bf16(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)
{
    mv_drive(FMT_BF16, w, x, y, r0, r1);
}

static void
mv_f16(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)
{
    mv_drive(FMT_F16, w, x, y, r0, r1);
}

static void
mv_q8(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)
{
    mv_drive(FMT_Q8, w, x, y, r0, r1);
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

const struct simd_kernels simd_kernels_avx2 = {
    .name = "avx2",
    .isa = SIMD_ISA_AVX2,
    .flags = SIMD_EXACT,
    .matvec = {mv_f32, mv_bf16, mv_f16, mv_q8},
    .matmul = {mm_f32, mm_bf16, mm_f16, mm_q8},
    .act = {SIMD_ACT_F32, SIMD_ACT_F32, SIMD_ACT_F32, SIMD_ACT_F32},
    .f32_to_bf16 = avx2_f32_to_bf16,
    .f32_to_f16 = avx2_f32_to_f16,
    .bf16_to_f32 = avx2_bf16_to_f32,
    .f16_to_f32 = avx2_f16_to_f32,
    .q8_quantize = simd_q8_quantize_portable,
    .peak = avx2_peak,
};

#endif /* __x86_64__ */
