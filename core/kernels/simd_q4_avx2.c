/*
** simd_q4_avx2.c -- the AVX2 + FMA Q4 matvec (decode), compiled with the
** Makefile's AVX2_FLAGS and entered only through the AVX2 / AVX-512 tables
** after simd_kernels_get() checked the CPU.
**
** Q4 decode reads 0.625 bytes a weight, so the kernel must handle ~1.8x
** more weights per byte than Q8's; widening every code to fp32 (a first
** version) ran at 13 GB/s a thread, 65% of the read bandwidth, slower than
** Q8.  So x is quantized to int8 per 32-block once per call (simd_impl.h)
** and per 32-byte load of codes (a dword of each of a group's 8 blocks) an
** AND and a shift (low / high nibbles), two vpmaddubsw against the
** activation codes and two vpaddw into the row's 16-bit sums; per group
** one vpmaddwd, one vcvtdq2ps and one FMA by the 8 blocks' d * dx, and m *
** sum(x) (the row loop, shared with the AVX-VNNI and AVX-512 kernels, is
** core/kernels/simd_q4_rows.h).
*/
#if defined(__x86_64__)

#include <immintrin.h>

#include "simd_q4_avx2.h"

/* The row's 16-bit sums: lane pair 2j, 2j + 1 block j (a group adds at
** most 8 x 2 x 15 x 127 = 30480: vpmaddubsw does not saturate, vpaddw does
** not wrap); vpmaddwd by 1 makes lane j. */
static inline __attribute__((always_inline)) __m256i
q4_isum_add(__m256i acc, __m256i v, __m256i xl, __m256i xh)
{
    const __m256i m4 = _mm256_set1_epi8(15);
    const __m256i lo = _mm256_and_si256(v, m4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);

    __m256i s = _mm256_add_epi16(acc, _mm256_add_epi16(_mm256_maddubs_epi16(lo, xl),
                                                       _mm256_maddubs_epi16(hi, xh)));

    /* the sum stays in a register step by step: left alone, GCC reassociated
    ** the integer adds of a group into one tree after all 32 vpmaddubsw and
    ** spilled them (one thread, codes in L1: 1.02x the earlier layout with,
    ** the spills, and 1.2x without) */
    __asm__("" : "+x"(s));
    return s;
}
#define Q4_ISUM_T __m256i
#define Q4_ISUM_ZERO _mm256_setzero_si256()
#define Q4_ISUM_ADD(acc, v, xl, xh) q4_isum_add((acc), (v), (xl), (xh))
#define Q4_ISUM_I32(acc) _mm256_madd_epi16((acc), _mm256_set1_epi16(1))

#include "simd_q4_rows.h"

Q4_ENTRY_POINTS(simd_q4_rows_avx2, simd_mv_avx2_q4)

/* Block B's 32 codes (x[32] / dx, rounded to nearest even, clamped to
** +-127) in the order of its columns, *XD and *XS as simd_q4_act_block
** finds them: |x| maximum, sum(x) in 8 lanes (lane l: x[l], x[l + 8], ...
** from 0) and the same tree. */
static inline __attribute__((always_inline)) __m256i
q4_act_codes(const float *xb, float *xd, float *xs)
{
    const __m256 sign = _mm256_set1_ps(-0.0f);
    const __m256i lim = _mm256_set1_epi32(127), nlim = _mm256_set1_epi32(-127);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    __m256 v[4], s = _mm256_setzero_ps(), m = _mm256_setzero_ps(), idv;
    __m128 t, h;
    __m256i c[4];
    float amax, d, id;

#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        v[k] = _mm256_loadu_ps(xb + 8 * k);
        s = _mm256_add_ps(s, v[k]);
        m = _mm256_max_ps(m, _mm256_andnot_ps(sign, v[k]));
    }
    t = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    t = _mm_max_ps(t, _mm_movehl_ps(t, t));
    amax = _mm_cvtss_f32(_mm_max_ss(t, _mm_movehdup_ps(t)));
    d = amax / 127.0f;
    id = d > 0 ? 1.0f / d : 0.0f;
    *xd = d;
    h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1)); /* s_l + s_l+4 */
    h = _mm_hadd_ps(h, h);                                                   /* pairs */
    *xs = _mm_cvtss_f32(_mm_add_ss(h, _mm_movehdup_ps(h)));
    idv = _mm256_set1_ps(id);
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++)
        c[k] = _mm256_max_epi32(nlim, _mm256_min_epi32(lim, _mm256_cvtps_epi32(
                                                                _mm256_mul_ps(v[k], idv))));
    return _mm256_permutevar8x32_epi32(
        _mm256_packs_epi16(_mm256_packs_epi32(c[0], c[1]), _mm256_packs_epi32(c[2], c[3])), order);
}

/*
** simd_q4_act with a group's blocks in registers, the same bytes as the
** plain C version: the 8 blocks' codes (32 bytes each: dwords 0-3 the low
** columns, 4-7 the high ones) transposed 8 x 8 as dwords, so vector m
** holds dword m of every block -- the group layout (simd_impl.h) in 8
** stores.  A group with a partial or missing block goes the plain way.
*/
void
simd_q4_act_avx2(const float *x, int64_t n, simd_q4_x *q)
{
    const int64_t nb = simd_q4_nblocks(n);
    const int64_t nbg = (nb + SIMD_Q4_GROUP - 1) / SIMD_Q4_GROUP * SIMD_Q4_GROUP;
    int64_t b = 0;

    for (; b + SIMD_Q4_GROUP <= n / SIMD_Q4_BLOCK; b += SIMD_Q4_GROUP) {
        __m256 r[8];
        int8_t *xg = q->xq + b / SIMD_Q4_GROUP * SIMD_Q4_XGROUP;

#pragma GCC unroll 8
        for (int j = 0; j < 8; j++)
            r[j] = _mm256_castsi256_ps(
                q4_act_codes(x + (b + j) * SIMD_Q4_BLOCK, &q->xd[b + j], &q->xs[b + j]));
        simd_avx2_tr8(r);   /* dword k of every block together */
#pragma GCC unroll 8
        for (int j = 0; j < 8; j++)
            _mm256_store_ps((float *)(void *)(xg + 32 * j), r[j]);
    }
    for (; b < nbg; b++) {   /* the last group: partial blocks, padding */
        int64_t c0 = b * SIMD_Q4_BLOCK;
        simd_q4_act_block(x + (c0 < n ? c0 : 0),
                          (int)(n - c0 < 0 ? 0 : n - c0 < SIMD_Q4_BLOCK ? n - c0 : SIMD_Q4_BLOCK), q,
                          b);
    }
}

#endif /* __x86_64__ */
