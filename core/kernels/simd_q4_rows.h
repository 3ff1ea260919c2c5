/*
** simd_q4_rows.h -- private to core/kernels/simd_q4_avx2.c, simd_q4_avxvnni.c and
** simd_q4_avx512.c: the Q4 matvec's row loop (simd_impl.h's layout and
** math), once for all three.  The includer defines Q4_ISUM_T (the type of
** a row's integer accumulator), Q4_ISUM_ZERO, Q4_ISUM_ADD(ACC, V, XL, XH)
** (ACC plus the products of the 32 code bytes V, low nibbles against the
** activation codes XL, high ones against XH) and Q4_ISUM_I32(ACC) (lane j
** the exact integer sum of block j): vpmaddubsw into 16-bit lanes (a
** group's sums fit: 8 x 2 x 15 x 127 = 30480) and one vpmaddwd on AVX2,
** vpdpbusd into 32-bit lanes with VNNI.
**
** Per group of 8 blocks and row (simd.h's layout: 128 bytes of codes,
** interleaved so that 32-byte load k holds bytes [4k, 4k + 4) of every
** block, then the 8 block words): four loads of codes, each split into
** nibbles (AND, shift, AND) and added into the row's integer accumulator,
** whose lane j is block j; then ONE vcvtdq2ps and ONE FMA by the 8 blocks'
** d * dx (lane j block j's, no permute), and the FMA of m * sum(x).  Per
** group and row: AVX2 34 vector ALU instructions (4 x (3 nibble + 2
** vpmaddubsw + 2 vpaddw) - 1, vpmaddwd, convert, FMA, and 4 for the
** words: shift, AND, multiply, FMA), AVX-VNNI / AVX-512 26 (4 x (3 + 2
** vpdpbusd), convert, FMA, 4); with the earlier layout (a 32-byte load a
** pair of blocks, two int32 lanes of partial sums a block) 44 and 36: per
** pair the nibbles, the integer sums, a convert, a permute of the scales
** and an FMA.  The float order is fixed, so every table (plain C too:
** simd_q4_rows_portable) gives the same bits: lane j accumulates, group
** by group, m * sum(x) and then the integer sum times d * dx (fused), the
** lanes are summed ((0 + 4) + (2 + 6)) + ((1 + 5) + (3 + 7)), and a row's
** short last group (< 8 blocks, kept plain) follows block by block
** (simd_q4_tail).  Measured against the earlier layout in one process,
** old and new kernel alternating call by call (Zen 5 VM, 2026-12-07,
** machine shared with other jobs: fastest and 10th-percentile samples):
** one thread with the codes in L1, [16, 2048], avx2 44 -> 60 GB/s
** (1.33x), avx2-vnni 52 -> 70 (1.34x), avx512 55 -> 73 (1.32x); two
** threads from memory ([2048, 8192], [8192, 2048], [2048, 2048], 384 MiB
** of copies) avx2 1.05x (70-73 -> 73-76 GB/s), avx2-vnni 1.01-1.02x,
** avx512 0.99-1.03x while the VM read ~70 GB/s (with VNNI the kernel
** already kept up with it, plain AVX2 did not), all 0.99-1.01x in a later
** hour when it read 44-46.
**
** NR_Q4 (4) rows per step share the activation loads: per group step k
** by step k across the rows, then each row's words and float work (row by
** row, the AVX2 build's 16 registers spilled).  The rows come from NR_Q4
** equal runs of the thread's rows, so the kernel reads NR_Q4 long
** sequential streams, each prefetched ahead of itself (as simd_avx2.c's
** matvecs).  Adjacent rows, with a later row block prefetched as one
** stream (the earliest scheme), ran 10-13% slower a thread (bench_kernels,
** cold [8192, 2048] and [2048, 8192], AVX2, Intel Xeon): the 1 KiB rows
** each began a new short stream, and the one prefetched stream's misses
** filled the line fill buffers.

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

#ifdef Q4_DPBUSD
/* With VNNI (the includer's Q4_DPBUSD: the VEX or the EVEX vpdpbusd): lane j
** += the products of block j's dword, low and high nibbles, by two vpdpbusd
** (u8 x s8, four products a lane, into s32). */
AI __m256i
q4_isum_add(__m256i acc, __m256i v, __m256i xl, __m256i xh)
{
    const __m256i m4 = _mm256_set1_epi8(15);
    const __m256i lo = _mm256_and_si256(v, m4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);

    return Q4_DPBUSD(Q4_DPBUSD(acc, lo, xl), hi, xh);
}
#define Q4_ISUM_T __m256i
#define Q4_ISUM_ZERO _mm256_setzero_si256()
#define Q4_ISUM_ADD(acc, v, xl, xh) q4_isum_add((acc), (v), (xl), (xh))
#define Q4_ISUM_I32(acc) (acc)
#endif

/* Rows a step (the runs read at once). */
#define NR_Q4 4
/* Prefetch distance of each row's stream, in bytes (0: none). */
#ifndef Q4_PF_ROW
#define Q4_PF_ROW 2048
#endif

/* y[r + i RS], i < NR, (+)= the NBLK blocks from B0 (a multiple of
** SIMD_Q4_GROUP: simd_q4_matvec's column passes); PF: prefetch each row's
** stream Q4_PF_ROW bytes ahead (simd_mv_prefetch_runs: three lines a group
** of 160 bytes cover every line once the stream is under way). */
AI void
q4_rows(int NR, const simd_matrix *w, const simd_q4_x *q, int64_t nblk, float *y, int64_t r,
        int64_t rs, int64_t b0, int add, int pf)
{
    const int64_t nb = simd_q4_nblocks(w->cols), rb = simd_q4_row_bytes(w->cols);
    const __m256i hi16 = _mm256_set1_epi32((int)0xffff0000u);
    const uint8_t *p[NR_Q4];   /* each row from block B0 */
    const char *pc[NR_Q4];     /* the same, for the prefetch */
    __m256 acc[NR_Q4];
    int64_t k = 0;

#pragma GCC unroll 8
    for (int i = 0; i < NR; i++) {
        p[i] = simd_q4_row(w, r + i * rs) + b0 * SIMD_Q4_BLOCK_BYTES;
        pc[i] = (const char *)p[i];
        acc[i] = _mm256_setzero_ps();
    }
    for (; k + SIMD_Q4_GROUP <= nblk; k += SIMD_Q4_GROUP) {
        const int8_t *xg = q->xq + k / SIMD_Q4_GROUP * SIMD_Q4_XGROUP;
        const int64_t at = k * SIMD_Q4_BLOCK_BYTES;
        Q4_ISUM_T is[NR_Q4];

        if (pf) {
            simd_mv_prefetch_runs(pc, NR, at, Q4_PF_ROW, nblk * SIMD_Q4_BLOCK_BYTES, rb);
            simd_mv_prefetch_runs(pc, NR, at + 64, Q4_PF_ROW, nblk * SIMD_Q4_BLOCK_BYTES, rb);
            simd_mv_prefetch_runs(pc, NR, at + 128, Q4_PF_ROW, nblk * SIMD_Q4_BLOCK_BYTES, rb);
        }
#pragma GCC unroll 8
        for (int i = 0; i < NR; i++)
            is[i] = Q4_ISUM_ZERO;
        /* step k across the rows: the activation codes load once */
#pragma GCC unroll 4
        for (int s = 0; s < 4; s++) {
            const __m256i xl = _mm256_load_si256((const __m256i *)(const void *)(xg + 32 * s));
            const __m256i xh =
                _mm256_load_si256((const __m256i *)(const void *)(xg + SIMD_Q4_XHI + 32 * s));
#pragma GCC unroll 8
            for (int i = 0; i < NR; i++)
                is[i] = Q4_ISUM_ADD(is[i],
                                    _mm256_loadu_si256((const __m256i *)(const void *)(p[i] + at +
                                                                                         32 * s)),
                                    xl, xh);
        }
        {
            const __m256 xd = _mm256_loadu_ps(q->xd + k), xs = _mm256_loadu_ps(q->xs + k);
#pragma GCC unroll 8
            for (int i = 0; i < NR; i++) {
                const __m256i wd =
                    _mm256_loadu_si256((const __m256i *)(const void *)(p[i] + at + 128));
                const __m256 dd =
                    _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(wd, 16)), xd);

                acc[i] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(wd, hi16)), xs,
                                         acc[i]);
                acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(Q4_ISUM_I32(is[i])), dd, acc[i]);
            }
        }
    }
#pragma GCC unroll 8
    for (int i = 0; i < NR; i++) {
        __m128 t = _mm_add_ps(_mm256_castps256_ps128(acc[i]), _mm256_extractf128_ps(acc[i], 1));
        float v;
        t = _mm_add_ps(t, _mm_movehl_ps(t, t));
        v = _mm_cvtss_f32(_mm_add_ss(t, _mm_movehdup_ps(t)));
        if (k < nblk)   /* the row's last group, short of 8 blocks */
            v += simd_q4_tail(simd_q4_row(w, r + i * rs), nb, q, b0, k, nblk);
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
