/*
** simd_q4_rows.h -- private to core/kernels/simd_q4_avx2.c and simd_q4_avx512.c:
** the Q4 matvec's row loop (simd_impl.h's layout and math), once for both.
** The includer defines Q4_PAIR_ISUM(LO, HI, XL, XH): the 8 int32 partial
** sums of a pair of blocks (lanes 0-3: the first block, 4-7: the second)
** from the low / high nibble codes LO, HI (u8) and the activation codes
** XL, XH (s8) -- vpmaddubsw + vpmaddwd on AVX2, vpdpbusd with VNNI.
**
** Per group of 8 blocks and row (simd.h's layout: 128 bytes of codes, then
** the 8 block words): the words (d, m) in one load, m * sum(x) in one FMA;
** per pair of blocks one 32-byte load of codes, the nibble split,
** Q4_PAIR_ISUM, one vcvtdq2ps and one FMA by d * dx permuted per block.
** NR_Q4 (4) rows per step share the activation loads: per group the rows'
** words, then pair by pair across the rows (row by row, the AVX2 build's 16
** registers spilled the accumulators and the shuffle indices; pair by pair
** read 3-5% more a thread, cold and in L1, the same results bit for bit:
** Zen 5 VM, [2048, 8192] and [2048, 2048], alternating call by call).
** They come from NR_Q4 equal runs of the thread's rows, so the kernel reads
** NR_Q4 long sequential streams, each prefetched ahead of itself (as simd_avx2.c's
** matvecs).  Adjacent rows, with a later row block prefetched as one
** stream (the earliest scheme), ran 10-13% slower a thread (bench_kernels,
** cold [8192, 2048] and [2048, 8192], AVX2, Intel Xeon): the 1 KiB rows
** each began a new short stream, and the one prefetched stream's misses
** filled the line fill buffers.  The blocks of a row's last group, short
** of 8, go through simd_q4_isum.
**
** Why the words sit in the rows.  With codes and words in two arrays each
** row was two streams, 8 a thread at 4 rows a step, and 8 streams read
** ~25% less than 4 on a Zen 5 VM (bench's probe), so the AVX2 kernel went
** 2 rows a step, giving up half the sharing of activation loads.  Measured
** in one process, the 1.5B's decode products (24 layers' r/k/v/LoRA/o/FFN
** batches and the head, through kern_matvec_multi and the pool, 2
** threads, Zen 5 VM) alternating token by token between the two layouts:
** one stream a row, 4 rows a step, took 1.08-1.14x less time than two
** arrays at 2 rows (AVX2, six runs; A/A 1.000-1.006) and 1.08-1.13x less
** than two arrays at 4 rows with AVX-VNNI (three runs); the same bytes read
** by the bandwidth probe instead of the kernel were 1.15-1.23x faster than
** the old layout, so the layout had cost more than the kernel's arithmetic
** (which, cut to loads and nibble masks, gained 4-6%).
*/
#ifndef RWKV_SIMD_Q4_ROWS_H
#define RWKV_SIMD_Q4_ROWS_H

#include <immintrin.h>
#include <string.h>

#include "simd_impl.h"

#define AI static inline __attribute__((always_inline))

/* Rows a step (the runs read at once). */
#define NR_Q4 4
/* Prefetch distance of each row's stream, in bytes (0: none). */
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

/* y[r + i RS], i < NR, (+)= the NBLK blocks from B0 (a multiple of
** SIMD_Q4_GROUP: simd_q4_matvec's column passes); PF: prefetch each row's
** stream Q4_PF_ROW bytes ahead (simd_mv_prefetch_runs: three lines a group
** of 160 bytes cover every line once the stream is under way). */
AI void
q4_rows(int NR, const simd_matrix *w, const simd_q4_x *q, int64_t nblk, float *y, int64_t r,
        int64_t rs, int64_t b0, int add, int pf)
{
    const int64_t nb = simd_q4_nblocks(w->cols), rb = simd_q4_row_bytes(w->cols);
    const __m256i m4 = _mm256_set1_epi8(15);
    const __m256i hi16 = _mm256_set1_epi32((int)0xffff0000u);
    const uint8_t *p[NR_Q4];   /* each row from block B0 */
    const char *pc[NR_Q4];     /* the same, for the prefetch */
    __m256 acc[NR_Q4], dd[NR_Q4];   /* dd: a group's d * dx per row */
    float tail[NR_Q4];
    int64_t k = 0;

#pragma GCC unroll 8
    for (int i = 0; i < NR; i++) {
        p[i] = simd_q4_row(w, r + i * rs) + b0 * SIMD_Q4_BLOCK_BYTES;
        pc[i] = (const char *)p[i];
        acc[i] = _mm256_setzero_ps();
        tail[i] = 0;
    }
    for (; k + SIMD_Q4_GROUP <= nblk; k += SIMD_Q4_GROUP) {
        const int8_t *xq = q->xq + (k / SIMD_Q4_QUAD) * 128;
        const __m256 xd = _mm256_loadu_ps(q->xd + k), xs = _mm256_loadu_ps(q->xs + k);
        const int64_t at = k * SIMD_Q4_BLOCK_BYTES;

        if (pf) {
            simd_mv_prefetch_runs(pc, NR, at, Q4_PF_ROW, nblk * SIMD_Q4_BLOCK_BYTES, rb);
            simd_mv_prefetch_runs(pc, NR, at + 64, Q4_PF_ROW, nblk * SIMD_Q4_BLOCK_BYTES, rb);
            simd_mv_prefetch_runs(pc, NR, at + 128, Q4_PF_ROW, nblk * SIMD_Q4_BLOCK_BYTES, rb);
        }
        /* the rows' words first, then pair by pair across the rows: the
         * activation codes of a pair load once and every row's scales stay
         * in registers (row by row, the AVX2 build ran out of its 16 and
         * spilled the accumulators; the same operations in the same order
         * a row, so the same results) */
#pragma GCC unroll 8
        for (int i = 0; i < NR; i++) {
            const __m256i wd = _mm256_loadu_si256((const __m256i *)(const void *)(p[i] + at + 128));

            dd[i] = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(wd, 16)), xd);
            acc[i] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(wd, hi16)), xs, acc[i]);
        }
#pragma GCC unroll 4
        for (int pr = 0; pr < 4; pr++) {
            /* blocks k + 2pr, k + 2pr + 1: quad (k + 2pr) / 4, half pr % 2 */
            const int8_t *xp = xq + (pr / 2) * 128 + (pr % 2) * 32;
            const __m256i xl = _mm256_load_si256((const __m256i *)(const void *)xp);
            const __m256i xh = _mm256_load_si256((const __m256i *)(const void *)(xp + 64));
#pragma GCC unroll 8
            for (int i = 0; i < NR; i++) {
                const uint8_t *g = p[i] + at + pr * 32;
                __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)g);
                __m256i si = Q4_PAIR_ISUM(_mm256_and_si256(v, m4),
                                          _mm256_and_si256(_mm256_srli_epi16(v, 4), m4), xl, xh);
                acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(si),
                                         _mm256_permutevar8x32_ps(dd[i], q4_pair_idx(pr)), acc[i]);
            }
        }
    }
    for (; k < nblk; k++)   /* the row's last group, short of 8 blocks */
#pragma GCC unroll 8
        for (int i = 0; i < NR; i++) {
            const uint8_t *row = simd_q4_row(w, r + i * rs);
            float d, m;
            simd_q4_dm(row, nb, b0 + k, &d, &m);
            tail[i] += d * q->xd[k] * (float)simd_q4_isum(simd_q4_codes(row, b0 + k), q, k) +
                       m * q->xs[k];
        }
#pragma GCC unroll 8
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
