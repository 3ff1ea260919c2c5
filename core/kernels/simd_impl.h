/*
** simd_impl.h -- private to core/kernels/simd*.c: the kernel table layout and the
** per-ISA tables.  Nothing outside the simd module includes this (the
** kernel benchmark does, to time the variants side by side).
*/
#ifndef RWKV_SIMD_IMPL_H
#define RWKV_SIMD_IMPL_H

#include "simd.h"

/* simd_act.kind: which prepared copy of X a matmul kernel reads. */
enum simd_act_kind {
    SIMD_ACT_F32 = 0, /* X itself                                           */
    SIMD_ACT_BF16,    /* xq = bf16 [T, ldq = cols rounded up to even],
                         padding column 0                                  */
    SIMD_ACT_Q8U      /* xq = u8 [T, ldq] = int8 code + 128, ldq = cols
                         rounded up to 64, padding = 128 (code 0);
                         xs = scale per 32-block [T, ldq / 32]              */
};

typedef void (*simd_matvec_fn)(const simd_matrix *w, const float *x, float *y,
                               int64_t r0, int64_t r1);
typedef void (*simd_matmul_fn)(const simd_matrix *w, const simd_act *a,
                               float *y, int64_t ldy, int64_t r0, int64_t r1);
typedef void (*simd_cvt_down_fn)(const float *src, uint16_t *dst, size_t n);
typedef void (*simd_cvt_up_fn)(const uint16_t *src, float *dst, size_t n);
typedef void (*simd_q8_fn)(const float *src, int64_t cols, int64_t r0,
                           int64_t r1, int8_t *q, float *scales);

struct simd_q4_x;
struct simd_q8_x;

struct simd_kernels {
    const char *name;
    enum simd_isa isa;
    unsigned flags;
    simd_matvec_fn matvec[SIMD_NDTYPE];
    simd_matmul_fn matmul[SIMD_NDTYPE];
    enum simd_act_kind act[SIMD_NDTYPE]; /* what matmul[dt] reads */
    simd_cvt_down_fn f32_to_bf16, f32_to_f16;
    simd_cvt_up_fn bf16_to_f32, f16_to_f32;
    simd_q8_fn q8_quantize;
    double (*peak)(int dot_bf16, int64_t iters); /* see simd_peak_probe */
    uint64_t (*read)(const void *p, size_t bytes, int streams); /* simd_read_probe */
    /* the Q4 matvec's two halves (simd_q4_matvec), for prepared X */
    void (*q4_act)(const float *x, int64_t n, struct simd_q4_x *q);
    void (*q4_rows)(const struct simd_matrix *w, const struct simd_q4_x *q, int64_t nblk,
                    float *y, int64_t r0, int64_t r1, int64_t b0, int add);
    /* the Q8 matvec's two halves where it takes 16-bit activations
    ** (simd_q8x_matvec); NULL where it reads fp32 X */
    void (*q8_act)(const float *x, int64_t n, struct simd_q8_x *q);
    void (*q8_rows)(const struct simd_matrix *w, const struct simd_q8_x *q, int64_t nblk,
                    float *y, int64_t r0, int64_t r1, int64_t b0, int add);
};

/* simd_read_probe in ymm loads (the AVX2 and AVX-512 tables'). */
uint64_t simd_read_avx2(const void *p, size_t bytes, int streams);

/* Tables defined by the ISA files; only used after a cpuid check. */
extern const struct simd_kernels simd_kernels_avx2;
/* avx2 with the AVX-VNNI Q4 decode (simd_q4_avxvnni.c) */
extern const struct simd_kernels simd_kernels_avx2_vnni;
extern const struct simd_kernels simd_kernels_avx512;
extern const struct simd_kernels simd_kernels_avx512_exact;
/* avx512 with the VNNI Q8 matmul instead of the bf16-panel one (for the
** benchmark and the tests; check the CPU with simd_kernels_get first). */
extern const struct simd_kernels simd_kernels_avx512_vnni;

/*
** The AVX-512 matrix-matrix kernels (core/kernels/simd_mm_avx512.c): register-tiled
** outer products on a per-call packed panel of W.  f32/f16/bf16_exact/
** q8_exact read fp32 X (SIMD_ACT_F32); bf16/q8 read bf16 X (SIMD_ACT_BF16).
*/
void simd_mm_avx512_f32(const simd_matrix *w, const simd_act *a, float *y,
                        int64_t ldy, int64_t r0, int64_t r1);
void simd_mm_avx512_f16(const simd_matrix *w, const simd_act *a, float *y,
                        int64_t ldy, int64_t r0, int64_t r1);
void simd_mm_avx512_bf16_exact(const simd_matrix *w, const simd_act *a, float *y,
                               int64_t ldy, int64_t r0, int64_t r1);
void simd_mm_avx512_q8_exact(const simd_matrix *w, const simd_act *a, float *y,
                             int64_t ldy, int64_t r0, int64_t r1);
void simd_mm_avx512_bf16(const simd_matrix *w, const simd_act *a, float *y,
                         int64_t ldy, int64_t r0, int64_t r1);
void simd_mm_avx512_q8(const simd_matrix *w, const simd_act *a, float *y,
                       int64_t ldy, int64_t r0, int64_t r1);
/* The earlier dot-product-form AVX-512 matmuls (4 x 4 tiles, horizontal
** sums), kept so bench_kernels can time both in one run: [0] for the
** default table's act kinds, [1] for avx512-exact's. */
extern const simd_matmul_fn simd_avx512_dot_matmul[2][SIMD_NDTYPE];

/*
** The AVX2 matrix-matrix kernels (core/kernels/simd_mm_avx2.c): 6 tokens x 16 rows
** register tiles on a per-call packed fp32 panel of W; all read fp32 X
** (SIMD_ACT_F32).
*/
void simd_mm_avx2_f32(const simd_matrix *w, const simd_act *a, float *y,
                      int64_t ldy, int64_t r0, int64_t r1);
void simd_mm_avx2_bf16(const simd_matrix *w, const simd_act *a, float *y,
                       int64_t ldy, int64_t r0, int64_t r1);
void simd_mm_avx2_f16(const simd_matrix *w, const simd_act *a, float *y,
                      int64_t ldy, int64_t r0, int64_t r1);
void simd_mm_avx2_q8(const simd_matrix *w, const simd_act *a, float *y,
                     int64_t ldy, int64_t r0, int64_t r1);
/* The earlier AVX2 matmuls (4 rows x 2 tokens dot-product tiles), kept so
** bench_kernels and the tests can run both (fp32 X, like the table's). */
extern const simd_matmul_fn simd_avx2_dot_matmul[SIMD_NDTYPE];

/*
** The matvecs' row order and prefetch (simd_avx2.c, simd_avx512.c,
** simd_q4_rows.h).  A step reads NR rows at once; they come from NR equal
** runs of the thread's rows (rows r, r + run, r + 2 run, ...), so the
** kernel reads NR long sequential streams (Q8 and Q4: NR more of block
** scales), each prefetched MV_PF_ROW bytes ahead of itself -- the read
** probe's pattern (simd_read_*), for every row length.  Before, the NR rows
** of a step were adjacent: each row a new short stream for the hardware
** prefetcher, the next row block prefetched per row (rows of at least
** MV_PF_ROW bytes) or as one stream a block on (shorter rows: the LoRA
** factors, every 4-bit row of a 2048-column matrix).  Measured on the Intel
** Xeon (2 vCPU, AVX-512), whole 1.5B model, 2 threads, avx2 kernels, old
** and new binaries alternating, medians of 3: 4-bit decode +12% (22.4 ->
** 25.0 tok/s), int8 +7%, bf16 +6%, fp16 +2.5%, fp32 level; avx512-exact
** 4-bit +9%.  The earlier per-row scheme (same machine, [8192, 2048] etc.,
** against a row block prefetched as one stream): AVX2 f32 +16-20%, bf16
** +12-22%, f16 +11-32%, Q8 +1-14%; AVX-512 bf16 +19-26%, f16 +16-27%, Q8
** +5-21%; 1 or 4 KiB ahead, or 8 rows, no better.  -DMV_PF_ROW=0 builds
** the kernels without the prefetch.
*/
#ifndef MV_PF_ROW
#define MV_PF_ROW 2048
#endif

/* Prefetch, for each of the NR streams at P, the line AHEAD bytes after
** byte CB of the stream: each reads LEN bytes of a row of RB bytes (a pass
** of it, or all), and the next row of its run (RB bytes on) continues it,
** so a place past LEN lies in a later row (the other passes' bytes
** skipped).  (Integer addresses: the line may lie past the matrix; a
** prefetch never faults.) */
static inline __attribute__((always_inline)) void
simd_mv_prefetch_runs(const char *const *p, int NR, int64_t cb, int64_t ahead, int64_t len,
                      int64_t rb)
{
    int64_t a = cb + ahead;

    if (len < rb && a >= len)
        a += a / len * (rb - len);
#pragma GCC unroll 8
    for (int i = 0; i < NR; i++)
        __builtin_prefetch((const void *)((uintptr_t)p[i] + (uintptr_t)a), 0, 3);
}

/* Row stride of the SIMD_ACT_Q8U copy for COLS inputs. */
static inline int64_t
simd_q8u_ldq(int64_t cols)
{
    return (cols + 63) / 64 * 64;
}

/* Portable pieces the ISA tables reuse. */
void simd_q8_quantize_portable(const float *src, int64_t cols, int64_t r0,
                               int64_t r1, int8_t *q, float *scales);
/* One block of LEN (1..SIMD_Q8_BLOCK) weights X: codes into Q, *SCALE. */
void simd_q8_quantize_block(const float *x, int64_t len, int8_t *q, float *scale);
void simd_act_q8u_portable(const float *x, int64_t T, int64_t cols,
                           int64_t ldq, uint8_t *xq, float *xs);

/*
** Q4 (core/simd_q4*.c).  The matvecs quantize x per 32-block to int8 once
** per call (simd_q4_act: code = round(x / dx), dx = max|x| / 127, the
** SIMD_ACT_Q8U rule) and take exact integer dot products with the 4-bit
** codes: block value = (d * dx) * sum(q * code) + m * sum(x), sum(x) in
** fp32.  The codes are stored per group of 8 blocks (256 bytes) as the
** weights' full groups are (simd.h): the low-nibble columns first, 32
** bytes a step k = 0..3 holding columns 4k..4k+3 of blocks 0..7 (4 bytes
** a block), then the high-nibble columns (16 + 4k..) likewise
** (SIMD_Q4_XHI on), so the 32-byte load k of a group's weight codes lines
** up with two loads of activation codes.  Columns go in passes of
** SIMD_Q4_XCOLS.
*/
#define SIMD_Q4_XCOLS 16384
typedef struct simd_q4_x {
    int8_t xq[SIMD_Q4_XCOLS] __attribute__((aligned(64)));  /* group layout */
    float  xd[SIMD_Q4_XCOLS / SIMD_Q4_BLOCK];                 /* dx per block */
    float  xs[SIMD_Q4_XCOLS / SIMD_Q4_BLOCK];                 /* sum(x) */
} simd_q4_x;
/* Bytes of a group's activation codes, and where its high-nibble half
** starts. */
#define SIMD_Q4_XGROUP 256
#define SIMD_Q4_XHI 128
/* Offset in simd_q4_x.xq of the code of column I (0..15) of block B (its
** column I + 16: SIMD_Q4_XHI further on). */
static inline int64_t
simd_q4_xq_at(int64_t b, int i)
{
    return b / SIMD_Q4_GROUP * SIMD_Q4_XGROUP + (i >> 2) * 32 + b % SIMD_Q4_GROUP * 4 + (i & 3);
}
/* Quantize X [n] (n <= SIMD_Q4_XCOLS) into *Q; blocks up to the next whole
** group are padded with code 0, dx 0, sum 0.  simd_q4_act_block: block B
** alone from its LEN (0..32) values at X.  The AVX2 version gives the same
** bytes (sum(x) in the same 8 partial sums and tree). */
typedef void (*simd_q4_act_fn)(const float *x, int64_t n, simd_q4_x *q);
void simd_q4_act(const float *x, int64_t n, simd_q4_x *q);
void simd_q4_act_block(const float *x, int len, simd_q4_x *q, int64_t b);
void simd_q4_act_avx2(const float *x, int64_t n, simd_q4_x *q);
/* One block of 16 code bytes P (a block's own order, simd_q4_block_codes)
** against block K of Q: the exact integer sum(q * code). */
int32_t simd_q4_isum(const uint8_t *p, const simd_q4_x *q, int64_t k);
/* The blocks [K, NBLK) of a pass (from block B0 of the Q4 row at ROW, NB
** blocks): the row's short last group, block by block (m * sum(x), then
** the integer sum times d * dx, each one fused multiply-add).  Every
** table's row loop ends with it, so every table gives the same bits. */
static inline float
simd_q4_tail(const uint8_t *row, int64_t nb, const simd_q4_x *q, int64_t b0, int64_t k,
             int64_t nblk)
{
    float t = 0;

    for (; k < nblk; k++) {
        uint8_t p[16];
        float d, m;
        simd_q4_block_codes(row, nb, b0 + k, p);
        simd_q4_dm(row, nb, b0 + k, &d, &m);
        t = __builtin_fmaf(m, q->xs[k], t);
        t = __builtin_fmaf((float)simd_q4_isum(p, q, k), d * q->xd[k], t);
    }
    return t;
}
/*
** The driver of a Q4 matvec: for each pass of columns, ACT, then
** ROWS(w, q, nblk, y, r0, r1, b0, add) for the rows (NBLK blocks of the
** pass from block B0; ADD: y += instead of y =).
*/
typedef void (*simd_q4_rows_fn)(const simd_matrix *w, const simd_q4_x *q, int64_t nblk,
                                float *y, int64_t r0, int64_t r1, int64_t b0, int add);
void simd_q4_matvec(const simd_matrix *w, const float *x, float *y, int64_t r0,
                    int64_t r1, simd_q4_act_fn act, simd_q4_rows_fn rows);
/*
** Q8 decode with 16-bit activations (the AVX2 and AVX-512 tables' matvec).  Widening
** every int8 code to fp32 (vpmovsxbd, vcvtdq2ps, one FMA per 8 weights)
** made the matvec bound by that arithmetic on Intel cores, below the
** memory's speed (README, issue 15).  So these matvecs quantize x per
** 32-block to int16 once per call (simd_q8x_act: code = round(x / dx),
** dx = max|x| / 32767, the code of a block's largest |x| +-32767) and take
** exact integer dot products with the weight codes (vpmovsxbw, then
** vpmaddwd or vpdpwssd: an int32 lane sums at most 4 products of |q| <= 127
** and |code| <= 32767, below 2^24, so exact in fp32 too): block value =
** (s * dx) * sum(q * code).  The
** rounding of x is at most half a step, 2^-16 of the block's largest |x|:
** ~1e-5 relative to y against the ~5e-3 of the int8 weights themselves
** (test_simd measures both).  Columns go in passes of SIMD_Q8_XCOLS.
*/
#define SIMD_Q8_XCOLS 8192
typedef struct simd_q8_x {
    int16_t xq[SIMD_Q8_XCOLS] __attribute__((aligned(64)));  /* codes, 0-padded */
    float   xd[SIMD_Q8_XCOLS / SIMD_Q8_BLOCK];                 /* dx per block */
} simd_q8_x;
/* Quantize X [n] (n <= SIMD_Q8_XCOLS, finite) into *Q (the last block
** padded with code 0).  The AVX2 version (every x86 table's) gives the
** same bytes. */
typedef void (*simd_q8x_act_fn)(const float *x, int64_t n, simd_q8_x *q);
void simd_q8x_act(const float *x, int64_t n, simd_q8_x *q);
void simd_q8x_act_avx2(const float *x, int64_t n, simd_q8_x *q);
/* The driver of such a matvec: for each pass of columns, ACT, then ROWS(w,
** q, nblk, y, r0, r1, b0, add) as for Q4. */
typedef void (*simd_q8x_rows_fn)(const simd_matrix *w, const simd_q8_x *q, int64_t nblk,
                                 float *y, int64_t r0, int64_t r1, int64_t b0, int add);
void simd_q8x_matvec(const simd_matrix *w, const float *x, float *y, int64_t r0,
                     int64_t r1, simd_q8x_act_fn act, simd_q8x_rows_fn rows);
/* Block B of *Q alone from its LEN (0..32) values at X (simd_q8x_act's). */
void simd_q8x_act_block(const float *x, int len, simd_q8_x *q, int64_t b);

/* The plain-C Q4 kernels: matvec, and the dot product of row R with fp32 X
** (the portable matmul's). */
void simd_q4_mv_portable(const simd_matrix *w, const float *x, float *y, int64_t r0,
                         int64_t r1);
float simd_q4_dot_portable(const simd_matrix *w, int64_t r, const float *x);
/* The row halves of the portable, AVX2 and AVX-512 Q4 matvecs. */
void simd_q4_rows_portable(const simd_matrix *w, const simd_q4_x *q, int64_t nblk, float *y,
                           int64_t r0, int64_t r1, int64_t b0, int add);
void simd_q4_rows_avx2(const simd_matrix *w, const simd_q4_x *q, int64_t nblk, float *y,
                       int64_t r0, int64_t r1, int64_t b0, int add);
void simd_q4_rows_avxvnni(const simd_matrix *w, const simd_q4_x *q, int64_t nblk, float *y,
                          int64_t r0, int64_t r1, int64_t b0, int add);
void simd_mv_avxvnni_q4(const simd_matrix *w, const float *x, float *y, int64_t r0,
                        int64_t r1);
void simd_q4_rows_avx512(const simd_matrix *w, const simd_q4_x *q, int64_t nblk, float *y,
                         int64_t r0, int64_t r1, int64_t b0, int add);
/* The AVX2 matvec / packed-panel matmul (the exact and VNNI AVX-512 tables
** take this matmul too: exact fp32) and the AVX-512 VNNI matvec. */
void simd_mv_avx2_q4(const simd_matrix *w, const float *x, float *y, int64_t r0,
                     int64_t r1);
void simd_mm_avx2_q4(const simd_matrix *w, const simd_act *a, float *y,
                     int64_t ldy, int64_t r0, int64_t r1);
void simd_mv_avx512_q4(const simd_matrix *w, const float *x, float *y, int64_t r0,
                       int64_t r1);
/* The AVX-512 Q4 matmul: panels of bf16(q * d + m), bf16 activations, as
** simd_mm_avx512_q8 (core/kernels/simd_mm_avx512.c). */
void simd_mm_avx512_q4(const simd_matrix *w, const simd_act *a, float *y,
                       int64_t ldy, int64_t r0, int64_t r1);
void simd_mm_avx512_q4_exact(const simd_matrix *w, const simd_act *a, float *y,
                             int64_t ldy, int64_t r0, int64_t r1);

#endif
