/*
** simd_q4_rows.h -- private to core/kernels/simd_q4_avx2.c and simd_q4_avx512.c:
** the Q4 matvec's row loop (simd_impl.h's layout and math), once for both.
** The includer defines Q4_PAIR_ISUM(LO, HI, XL, XH): the 8 int32 partial
** sums of a pair of blocks (lanes 0-3: the first block, 4-7: the second)
** from the low / high nibble codes LO, HI (u8) and the activation codes
** XL, XH (s8) -- vpmaddubsw + vpmaddwd on AVX2, vpdpbusd with VNNI.
**
** Per 8 blocks and row: the 8 block words (d, m) in one load, m * sum(x)
** in one FMA; per pair one 32-byte load of codes, the nibble split,
** Q4_PAIR_ISUM, one vcvtdq2ps and one FMA by d * dx permuted per block.
** NR_Q4 rows per step share the activation loads.  They come from NR_Q4
** equal runs of the thread's rows, so the kernel reads NR_Q4 long
** sequential streams of codes and NR_Q4 of block words, each prefetched
** ahead of itself (as simd_avx2.c's matvecs).  Adjacent rows, with a later
** row block prefetched as one stream (the earlier scheme), ran 10-13%
** slower a thread (bench_kernels, cold [8192, 2048] and [2048, 8192], AVX2,
** Intel Xeon): the 1 KiB rows each began a new short stream, and the one
** prefetched stream's misses filled the line fill buffers (perf: a third of
** the samples on its prefetch instructions).  The last blocks short of 8
** go through simd_q4_isum.
**
** The includer may set NR_Q4 (default 4).  Each row is two streams (codes,
** block words), so 4 rows are 8 streams a thread, and 8 streams read ~25%
** less than 4 on the Zen 5 VM (bench's probe).  The plain AVX2 kernel, 2
** rows: whole 1.5B `cpu fp32i4` decode with the two alternating token by
** token in one process (drift cancels), token time 2 rows / 4 rows 0.90-1.03
** over six runs, median 0.96; [8192, 2048] alone cold 1.07-1.10.  The VNNI
** kernels (fewer uops a weight, so more room to wait on memory) gained
** nothing from 2 rows (0.98-1.08) and keep 4.
*/
#ifndef RWKV_SIMD_Q4_ROWS_H
#define RWKV_SIMD_Q4_ROWS_H

#include <immintrin.h>
#include <string.h>

#include "simd_impl.h"

#define AI static inline __attribute__((always_inline))

#ifndef NR_Q4
#define NR_Q4 4
#endif
/* Prefetch distance of each row's stream, in code bytes (0: none). */
#ifndef Q4_PF_ROW
#define Q4_PF_ROW 2048
#endif

/* Permutation indices: lanes 0-3 <- lane 2P, lanes 4-7 <- lane 2P + 1. */
AI __m256i
q4_pair_idx(int pr)
{
    return _mm256_setr_epi32(2 * pr, 2 * pr, 2 * pr, 2 * pr, 2 * pr + 1, 2 * pr + 1, 2 * pr + 1,
                             2 * pr + 1);
}

/* y[r + i RS], i < NR, (+)= the NBLK blocks from B0; PF: prefetch each
** row's stream of codes Q4_PF_ROW bytes ahead and its stream of block words
** as many blocks ahead (simd_mv_prefetch_runs). */
AI void
q4_rows(int NR, const simd_matrix *w, const simd_q4_x *q, int64_t nblk, float *y, int64_t r,
        int64_t rs, int64_t b0, int add, int pf)
{
    const int64_t nb = simd_q4_nblocks(w->cols);
    const __m256i m4 = _mm256_set1_epi8(15);
    const __m256i hi16 = _mm256_set1_epi32((int)0xffff0000u);
    const uint8_t *p[NR_Q4];
    const char *pc[NR_Q4];   /* the same, for the prefetch */
    const char *s[NR_Q4];
    __m256 acc[NR_Q4];
    float tail[NR_Q4];
    int64_t k = 0;

#pragma GCC unroll 4
    for (int i = 0; i < NR; i++) {
        p[i] = (const uint8_t *)w->data + (size_t)((r + i * rs) * nb + b0) * 16;
        pc[i] = (const char *)p[i];
        s[i] = (const char *)w->scales + (size_t)((r + i * rs) * nb + b0) * 4;
        acc[i] = _mm256_setzero_ps();
        tail[i] = 0;
    }
    for (; k + 8 <= nblk; k += 8) {
        const int8_t *xq = q->xq + (k / SIMD_Q4_QUAD) * 128;
        const __m256 xd = _mm256_loadu_ps(q->xd + k), xs = _mm256_loadu_ps(q->xs + k);

        if (pf) {   /* 128 bytes of codes a row, 64 of block words per 16 blocks */
            simd_mv_prefetch_runs(pc, NR, k * 16, Q4_PF_ROW, nblk * 16, nb * 16);
            simd_mv_prefetch_runs(pc, NR, k * 16 + 64, Q4_PF_ROW, nblk * 16, nb * 16);
            if ((k & 8) == 0)
                simd_mv_prefetch_runs(s, NR, k * 4, Q4_PF_ROW / 4, nblk * 4, nb * 4);
        }
#pragma GCC unroll 4
        for (int i = 0; i < NR; i++) {
            const __m256i wd = _mm256_loadu_si256((const __m256i *)(const void *)(s[i] + k * 4));
            const __m256 dd = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(wd, 16)), xd);

            acc[i] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(wd, hi16)), xs, acc[i]);
#pragma GCC unroll 4
            for (int pr = 0; pr < 4; pr++) {
                /* blocks k + 2pr, k + 2pr + 1: quad (k + 2pr) / 4, half pr % 2 */
                const int8_t *xp = xq + (pr / 2) * 128 + (pr % 2) * 32;
                __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p[i] + (k + 2 * pr) * 16));
                __m256i si = Q4_PAIR_ISUM(
                    _mm256_and_si256(v, m4), _mm256_and_si256(_mm256_srli_epi16(v, 4), m4),
                    _mm256_load_si256((const __m256i *)(const void *)xp),
                    _mm256_load_si256((const __m256i *)(const void *)(xp + 64)));
                acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(si),
                                         _mm256_permutevar8x32_ps(dd, q4_pair_idx(pr)), acc[i]);
            }
        }
    }
    for (; k < nblk; k++)
#pragma GCC unroll 4
        for (int i = 0; i < NR; i++) {
            float d, m;
            simd_q4_dm(w->scales, (r + i * rs) * nb + b0 + k, &d, &m);
            tail[i] += d * q->xd[k] * (float)simd_q4_isum(p[i] + k * 16, q, k) + m * q->xs[k];
        }
#pragma GCC unroll 4
    for (int i = 0; i < NR; i++) {
        __m128 t = _mm_add_ps(_mm256_castps256_ps128(acc[i]), _mm256_extractf128_ps(acc[i], 1));
        float v;
        t = _mm_add_ps(t, _mm_movehl_ps(t, t));
        v = _mm_cvtss_f32(_mm_add_ss(t, _mm_movehdup_ps(t))) + tail[i];
        y[r + i * rs] = add ? y[r + i * rs] + v : v;
    }
}

/* NR_Q4 runs of the rows (each row of a step from its own run, a stream
** of its own), then the rest one at a time. */
static void
q4_rows_drive(const simd_matrix *w, const simd_q4_x *q, int64_t nblk, float *y, int64_t r0,
             int64_t r1, int64_t b0, int add)
{
    const int64_t run = (r1 - r0) / NR_Q4;
    int64_t r;

    for (r = r0; r < r0 + run; r++)
        q4_rows(NR_Q4, w, q, nblk, y, r, run, b0, add, Q4_PF_ROW > 0);
    for (r = r0 + NR_Q4 * run; r < r1; r++)
        q4_rows(1, w, q, nblk, y, r, 1, b0, add, 0);
}

/* The includer's two entry points (simd_impl.h): the row half ROWS and the
** whole matvec MV (activations by the AVX2 quantizer, the same bytes as
** every table's). */
#define Q4_ENTRY_POINTS(ROWS, MV)                                                           \
    void ROWS(const simd_matrix *w, const simd_q4_x *q, int64_t nblk, float *y, int64_t r0, \
              int64_t r1, int64_t b0, int add)                                              \
    {                                                                                       \
        q4_rows_drive(w, q, nblk, y, r0, r1, b0, add);                                      \
    }                                                                                       \
    void MV(const simd_matrix *w, const float *x, float *y, int64_t r0, int64_t r1)         \
    {                                                                                       \
        simd_q4_matvec(w, x, y, r0, r1, simd_q4_act_avx2, q4_rows_drive);                   \
    }

#endif
