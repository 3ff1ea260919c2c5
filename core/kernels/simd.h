/*
** simd.h -- CPU compute kernels: y = W x for weight matrices in f32, bf16,
** f16, blockwise int8 ("Q8") and blockwise 4-bit ("Q4"), with fp32
** accumulation, in a portable
** version and AVX2 / AVX-512 versions chosen at run time.
**
** Shapes follow PyTorch's nn.Linear: W is [out, in] row-major ("rows" = out,
** "cols" = in), x is [in], a batch X is [T, in] row-major, Y is [T, out]
** (row stride LDY).  Every kernel takes an output-row range [r0, r1) and
** writes only Y[t, r0..r1), so a pool of N threads can call it concurrently
** on disjoint ranges of the same matrix with the same activations; kernels
** never allocate, lock or keep state.
**
** Decode (one token):   simd_matvec(k, &W, x, y, r0, r1)
** Prefill (T tokens):   n = simd_act_bytes(k, W.dtype, T, in);   -- at setup
**                       simd_act_prepare(k, W.dtype, X, T, in, ws, &a); -- once
**                       simd_matmul(k, &W, &a, Y, ldy, r0, r1);  -- per thread
** simd_act_prepare converts the activations once per call (to bf16 for the
** AVX-512 bf16 dot-product paths) so the threads share one read-only copy.
**
** Precision (tests/unit/test_simd.c measures each bound):
**   f32          fp32 products, fp32 sums (order differs from a plain loop).
**   bf16 / f16   weights widened exactly to fp32.  Matvec and the portable /
**                AVX2 / SIMD_EXACT matmul keep activations in fp32.  The
**                default AVX-512 bf16 matmul rounds activations to bf16
**                (round to nearest even) and uses vdpbf16ps -- the same
**                rounding PyTorch's bf16 path applies to its activations
**                (measured: +1.6e-3 relative RMS change of y at in = 2048,
**                about the size of the bf16 weight rounding itself).
**   Q8           symmetric int8 codes q in [-127, 127] with one fp32 scale per
**                block of SIMD_Q8_BLOCK consecutive weights along `in`:
**                w ~= q * scale.  Matvec and exact matmul dequantize on the
**                fly against fp32 activations.  The default AVX-512 matmul
**                dequantizes each 64-row x 256-column W panel to
**                bf16(q * scale) once per call and runs the bf16
**                dot-product kernel on it (bf16 activations): prefill at
**                bf16 speed, +2.3e-3 relative RMS
**                on y against a 5.2e-3 error of the format itself.  (A VNNI
**                kernel with int8 activations per 32-block was measured too:
**                +5.2e-3 error and no faster, since every 32-block needs its
**                own fp32 rescale; it stays as the "avx512-vnni" table for
**                comparison.)
**
**   Q4           4-bit codes q in [0, 15] with a scale d and an offset m per
**                block of SIMD_Q4_BLOCK weights: w ~= q * d + m (see
**                core/kernels/simd_q4.c for the quantizer and the measurements).
**                The matmuls (prefill) dequantize q * d + m per panel into
**                the fp32 packed GEMM (fp32 activations); the matvecs use
**                int8 activations (see simd_matvec).
**
** Q8 design: blocks of 32 with an fp32 scale cost 1.125 bytes per weight
** (fp16 scales: 1.0625, 5.5% less decode traffic) but have no range limits
** (an fp16 scale goes subnormal for blocks whose largest weight is below
** ~8e-3, common in small LoRA-style matrices) and need no conversion in the
** kernels.  Against the reference's per-row/per-column min-max uint8 scheme
** ("fp32i8"), relative error of W x measured by test_simd on W [256, 1024]:
** Gaussian rows 5.4e-3 vs 6.5e-3, heavy-tailed (Student t2) 1.1e-2 vs
** 1.7e-2, rows of varying scale 6.4e-3 vs 1.6e-2, outlier input channels
** (20x) level (9.0e-3 vs 8.7e-3: min-max's per-channel scale absorbs them).
*/
#ifndef RWKV_SIMD_H
#define RWKV_SIMD_H

#include <stddef.h>
#include <stdint.h>

/* Weights per Q8 scale block along `in`. */
#define SIMD_Q8_BLOCK 32
/* Weights per Q4 block (a scale and an offset) along `in`. */
#define SIMD_Q4_BLOCK 32

enum simd_dtype {
    SIMD_F32 = 0, /* float                                        */
    SIMD_BF16,    /* uint16_t bfloat16 bits                       */
    SIMD_F16,     /* uint16_t IEEE binary16 bits                  */
    SIMD_Q8,      /* int8_t codes + float scales per 32-block     */
    SIMD_Q4,      /* 4-bit codes + bf16 scale and offset per 32   */
    SIMD_NDTYPE
};

enum simd_isa {
    SIMD_ISA_PORTABLE = 0, /* plain C, any CPU                         */
    SIMD_ISA_AVX2,         /* AVX2 + FMA + F16C                        */
    SIMD_ISA_AVX512,       /* F/BW/VL/DQ + BF16 + VNNI                 */
    SIMD_NISA
};

/* Flags for simd_kernels_get. */
enum simd_flags {
    /* Never round prefill's activations: bf16 weights are widened to fp32
    ** and Q8 weights dequantized to fp32 in every matmul (slower prefill
    ** on AVX-512).  Decode is the same with or without it: the x86 tables'
    ** Q8 and every table's Q4 matvec quantize x, see simd_matvec. */
    SIMD_EXACT = 1,
    /* SIMD_ISA_AVX2 only: the "avx2-vnni" table (4-bit decode by AVX-VNNI's
    ** vpdpbusd, the same results), NULL without AVX-VNNI; without the flag
    ** the plain "avx2" table, what AVX2 CPUs before it run. */
    SIMD_AVX_VNNI = 2
};

/*
** A weight matrix view: W [rows = out, cols = in], row-major, row stride =
** cols elements.  DATA is borrowed (e.g. straight from a checkpoint's mmap;
** no alignment needed) and must stay valid while kernels use the view.
**   SIMD_F32:  float    data[rows * cols]
**   SIMD_BF16: uint16_t data[rows * cols]  (bfloat16 bits, little-endian)
**   SIMD_F16:  uint16_t data[rows * cols]  (binary16 bits)
**   SIMD_Q8:   int8_t   data[rows * cols], codes in [-127, 127];
**              float  scales[rows * simd_q8_nblocks(cols)]; weight (r, c) is
**              data[r*cols + c] * scales[r*nb + c/32].  The last block of a
**              row may be partial.
**   SIMD_Q4:   uint8_t data[rows * simd_q4_row_bytes(cols)]: row r at
**              r * simd_q4_row_bytes(cols), nb = simd_q4_nblocks(cols)
**              blocks of 32 weights, taken SIMD_Q4_GROUP (8) at a time: a
**              group is its blocks' codes, 16 bytes a block, then their
**              block words, 4 bytes a block (a row's last group may hold
**              fewer blocks).  A block's 16 code bytes: byte i holds the
**              code of column 32b + i in its low nibble and of column
**              32b + i + 16 in its high nibble (padding codes of a partial
**              last block are 0).  In a full group of 8 they are
**              interleaved 4 bytes at a time: bytes [4k, 4k + 4) of block
**              j sit at 32k + 4j of the group (k = 0..3), so a 32-byte load
**              holds a dword of every block; a short last group keeps each
**              block's 16 bytes together (simd_q4_code_at finds a byte,
**              simd_q4_block_codes copies a block's).  A block word holds
**              the bf16 bits of d in its low half and of m in its high
**              half.  Weight = code * d + m.  scales is NULL: each row is
**              one stream of bytes, the words beside their codes
**              (core/kernels/simd_q4_rows.h says why).
** Plain data: fill it in directly.
*/
typedef struct simd_matrix {
    enum simd_dtype dtype;
    int64_t rows;         /* out */
    int64_t cols;         /* in  */
    const void *data;     /* borrowed, see above */
    const float *scales;  /* borrowed, SIMD_Q8 only; NULL otherwise */
} simd_matrix;

/*
** Activations prepared for one matrix dtype and kernel table by
** simd_act_prepare.  Pointers are borrowed from the caller's X and
** workspace; valid while those are.  Treat as opaque.
*/
typedef struct simd_act {
    const float *x;       /* [T, cols] fp32 (the caller's)              */
    int64_t T, cols;
    int kind;             /* which copy below is filled (simd_impl.h)   */
    const void *xq;       /* bf16 [T, ldq] or u8 codes + 128 [T, ldq]   */
    const float *xs;      /* Q8 activation scales [T, ldq / 32]         */
    int64_t ldq;          /* row stride of xq in elements               */
} simd_act;

/* A kernel table (static, never freed). */
typedef struct simd_kernels simd_kernels;

/*
** The kernel table for ISA with FLAGS (enum simd_flags), or NULL when the
** running CPU (or OS) lacks that ISA.  SIMD_ISA_PORTABLE always exists.
*/
const simd_kernels *simd_kernels_get(enum simd_isa isa, unsigned flags);
/* The fastest table the CPU supports. */
const simd_kernels *simd_kernels_best(unsigned flags);
/* "portable", "avx2", "avx2-vnni", "avx512", "avx512-exact". */
const char *simd_kernels_name(const simd_kernels *k);
enum simd_isa simd_kernels_isa(const simd_kernels *k);
/* "f32", "bf16", "f16", "q8". */
const char *simd_dtype_name(enum simd_dtype dt);

/* Number of Q8 scale blocks in a row of COLS weights. */
static inline int64_t
simd_q8_nblocks(int64_t cols)
{
    return (cols + SIMD_Q8_BLOCK - 1) / SIMD_Q8_BLOCK;
}

/* Number of Q4 blocks in a row of COLS weights. */
static inline int64_t
simd_q4_nblocks(int64_t cols)
{
    return (cols + SIMD_Q4_BLOCK - 1) / SIMD_Q4_BLOCK;
}

/* Q4 blocks per group (see simd_matrix): codes, then block words. */
#define SIMD_Q4_GROUP 8
/* Bytes of a Q4 block: 16 of codes, 4 of block word. */
#define SIMD_Q4_BLOCK_BYTES 20

/* Bytes of a Q4 row of COLS weights. */
static inline int64_t
simd_q4_row_bytes(int64_t cols)
{
    return simd_q4_nblocks(cols) * SIMD_Q4_BLOCK_BYTES;
}

/* Offset in a Q4 row of NB blocks of byte I (0..15) of block B's codes:
** interleaved 4 bytes at a time in a full group, plain in a short one. */
static inline int64_t
simd_q4_code_at(int64_t nb, int64_t b, int i)
{
    const int64_t g = (int64_t)((uint64_t)b & ~(uint64_t)(SIMD_Q4_GROUP - 1));
    const int64_t j = b - g;

    if (nb - g >= SIMD_Q4_GROUP)
        return g * SIMD_Q4_BLOCK_BYTES + (i >> 2) * (4 * SIMD_Q4_GROUP) + j * 4 + (i & 3);
    return g * SIMD_Q4_BLOCK_BYTES + j * 16 + i;
}

/* Whether block B of a Q4 row of NB blocks lies in a full (interleaved)
** group. */
static inline int
simd_q4_interleaved(int64_t nb, int64_t b)
{
    return nb - (int64_t)((uint64_t)b & ~(uint64_t)(SIMD_Q4_GROUP - 1)) >= SIMD_Q4_GROUP;
}

/* Block B's 16 code bytes of the Q4 row at ROW (NB blocks) into OUT, in
** the block's own order (byte i: columns 32b + i and 32b + i + 16). */
static inline void
simd_q4_block_codes(const void *row, int64_t nb, int64_t b, uint8_t out[16])
{
    const uint8_t *p = (const uint8_t *)row + simd_q4_code_at(nb, b, 0);

    if (simd_q4_interleaved(nb, b))
        for (int k = 0; k < 4; k++)
            __builtin_memcpy(out + 4 * k, p + k * (4 * SIMD_Q4_GROUP), 4);
    else
        __builtin_memcpy(out, p, 16);
}

/* Offset in a Q4 row of NB blocks of block B's word. */
static inline int64_t
simd_q4_word_offset(int64_t nb, int64_t b)
{
    const int64_t g = (int64_t)((uint64_t)b & ~(uint64_t)(SIMD_Q4_GROUP - 1));
    const int64_t n = nb - g < SIMD_Q4_GROUP ? nb - g : SIMD_Q4_GROUP;

    return g * SIMD_Q4_BLOCK_BYTES + n * 16 + (b - g) * 4;
}

/* Scale *D and offset *M of block B of the Q4 row at ROW (NB blocks). */
static inline void
simd_q4_dm(const void *row, int64_t nb, int64_t b, float *d, float *m)
{
    uint32_t u, lo, hi;

    __builtin_memcpy(&u, (const char *)row + simd_q4_word_offset(nb, b), 4);
    lo = u << 16;
    hi = u & 0xffff0000u;
    __builtin_memcpy(d, &lo, 4);
    __builtin_memcpy(m, &hi, 4);
}

/* Where the bytes of blocks [B0, B1) of the Q4 row at ROW (NB blocks) lie:
** the whole groups that hold them, *BYTES long (for prefetching). */
static inline const uint8_t *
simd_q4_span(const void *row, int64_t nb, int64_t b0, int64_t b1, int64_t *bytes)
{
    const int64_t g0 = b0 - b0 % SIMD_Q4_GROUP;
    int64_t g1 = b1 + (SIMD_Q4_GROUP - b1 % SIMD_Q4_GROUP) % SIMD_Q4_GROUP;

    if (g1 > nb)
        g1 = nb;
    *bytes = (g1 - g0) * SIMD_Q4_BLOCK_BYTES;
    return (const uint8_t *)row + g0 * SIMD_Q4_BLOCK_BYTES;
}

/* Row R of the Q4 matrix W. */
static inline const uint8_t *
simd_q4_row(const struct simd_matrix *w, int64_t r)
{
    return (const uint8_t *)w->data + r * simd_q4_row_bytes(w->cols);
}

/* Bytes per element of DT's data array (Q8: 1, scales not counted; Q4: 0,
** see simd_data_bytes). */
size_t simd_dtype_size(enum simd_dtype dt);
/* Bytes of the data array and of the scales of a [ROWS, COLS] matrix of DT. */
uint64_t simd_data_bytes(enum simd_dtype dt, int64_t rows, int64_t cols);
uint64_t simd_scale_bytes(enum simd_dtype dt, int64_t rows, int64_t cols);

/*
** y[r] = sum_c W[r, c] * x[c] for r in [r0, r1).  x [cols] fp32, y [rows]
** (only y[r0..r1) is written).  0 <= r0 <= r1 <= rows.  Activations stay
** fp32 (decode is bound by weight bytes, not arithmetic), except:
**   Q4  x is quantized per 32-block to int8 in every table (simd_impl.h; at
**       0.625 bytes a weight widening every code to fp32 was slower than
**       Q8), which adds ~5e-3 relative to y against the ~0.1 of the 4-bit
**       weights themselves; its integer sums are exact and its float order
**       one (core/kernels/simd_q4_rows.h), so every table gives the same
**       bits;
**   Q8  the AVX2 and AVX-512 tables quantize x per 32-block to int16
**       (simd_impl.h: widening every code to fp32 bound their decode below
**       the memory's speed), which adds ~1e-5 relative to y against the
**       ~5e-3 of the int8 weights; the portable table keeps fp32 x.
*/
void simd_matvec(const simd_kernels *k, const simd_matrix *w, const float *x,
                 float *y, int64_t r0, int64_t r1);
/*
** simd_matvec with X prepared once for several row ranges (the threads of
** one product): a Q4 matvec (and an x86 Q8 one) quantizes X first, and
** without this every range would quantize all of it again.
** simd_mv_prep_bytes: scratch bytes for DT and COLS in table K (NULL: the
** most any table needs; 0: DT's matvec reads X as it is);
** simd_mv_prepare fills WS (64-byte aligned) from X; simd_matvec_prep then
** runs any row range with it (WS NULL: simd_matvec).  Bit for bit the
** results of simd_matvec.
*/
size_t simd_mv_prep_bytes(const simd_kernels *k, enum simd_dtype dt, int64_t cols);
void simd_mv_prepare(const simd_kernels *k, enum simd_dtype dt, const float *x,
                     int64_t cols, void *ws);
void simd_matvec_prep(const simd_kernels *k, const simd_matrix *w, const float *x,
                      const void *ws, float *y, int64_t r0, int64_t r1);

/*
** The row range [*R0, *R1) of part I of N (0 <= I < N) of a matrix with ROWS
** rows: contiguous, balanced, with every boundary a multiple of
** SIMD_ROW_ALIGN so the register tiles stay full.  Ranges of different
** parts are disjoint and cover [0, rows).
*/
#define SIMD_ROW_ALIGN 4
void simd_split_rows(int64_t rows, int n, int i, int64_t *r0 /* OUT */,
                     int64_t *r1 /* OUT */);

/*
** Part I of N (0 <= I < N) of a matrix-matrix product of ROWS outputs x T
** tokens for a pool of NTHREADS threads: output rows [*R0, *R1) of tokens
** [*T0, *T1).  Parts are disjoint and cover the product; some may be empty.
** A matrix with enough rows is split by rows, on multiples of
** SIMD_MM_ROW_BLOCK (the AVX-512 kernel's row band) so no part but the
** last has a partial band; a small one (few bands, e.g. a LoRA factor) by
** tokens into NTHREADS parts of equal size (parts I >= NTHREADS empty), so
** no thread gets more than its share.  Every output is computed the same
** way whatever the split: results do not depend on N or NTHREADS.
*/
#define SIMD_MM_ROW_BLOCK 64
void simd_split_matmul(int64_t rows, int64_t T, int n, int i, int nthreads,
                       int64_t *r0 /* OUT */, int64_t *r1 /* OUT */,
                       int64_t *t0 /* OUT */, int64_t *t1 /* OUT */);
/* *OUT = the tokens [t0, t1) of the prepared activations A (a view: the
** same storage); Y for it starts at row t0 of the full Y. */
void simd_act_slice(const simd_act *a, int64_t t0, int64_t t1, simd_act *out /* OUT */);

/*
** Workspace bytes simd_act_prepare needs for DT, T tokens of COLS (may be
** 0).  Non-decreasing in T and COLS, so one workspace sized for the largest
** chunk and the widest matrix serves every call.
*/
size_t simd_act_bytes(const simd_kernels *k, enum simd_dtype dt, int64_t T,
                      int64_t cols);
/*
** Prepare X [T, cols] fp32 for simd_matmul with matrices of dtype DT.
** WS: simd_act_bytes(...) bytes, 64-byte aligned (mem_alloc), owned by the
** caller; X and WS must outlive *A.  Single-threaded; call once per X.
*/
void simd_act_prepare(const simd_kernels *k, enum simd_dtype dt,
                      const float *x, int64_t T, int64_t cols, void *ws,
                      simd_act *a /* OUT */);
/*
** simd_act_prepare in parts, for threads: simd_act_prepare_rows converts
** only tokens [t0, t1) of X into WS (disjoint ranges may run concurrently;
** together they must cover [0, T)); simd_act_view then fills *A for the
** whole of X and WS without converting anything.  Same WS size and layout
** as simd_act_prepare.
*/
void simd_act_prepare_rows(const simd_kernels *k, enum simd_dtype dt,
                           const float *x, int64_t T, int64_t cols, void *ws,
                           int64_t t0, int64_t t1);
void simd_act_view(const simd_kernels *k, enum simd_dtype dt, const float *x,
                   int64_t T, int64_t cols, void *ws, simd_act *a /* OUT */);

/*
** Y[t, r] = sum_c W[r, c] * X[t, c] for t < T, r in [r0, r1);
** Y [T, ldy] row-major, ldy >= rows.  A must have been prepared with the
** same K and w->dtype, and a->cols == w->cols.
*/
void simd_matmul(const simd_kernels *k, const simd_matrix *w,
                 const simd_act *a, float *y, int64_t ldy, int64_t r0,
                 int64_t r1);

/*
** Peak-arithmetic probe for benchmarks: run ITERS iterations of a
** register-only loop of independent multiply-adds in the widest form K has
** for DT's matmul (f32/f16/exact paths: FMA; the AVX-512 bf16 and Q8
** matmul: vdpbf16ps) and return the flops done (2 per multiply-add).  Time
** it to get the machine's arithmetic peak in the same run.
*/
double simd_peak_probe(const simd_kernels *k, enum simd_dtype dt, int64_t iters);
/*
** Read-bandwidth probe for benchmarks: read the BYTES at P once, as STREAMS
** (4 or 8; anything else is 8) interleaved streams (far-apart slices read
** side by side), each prefetched 2 KiB ahead, in K's widest loads, and
** return the sum of its 64-bit words (store it, so the reads cannot be
** elided).  Time it on every thread at once over a buffer much larger than
** the caches: the memory's read bandwidth as a streaming kernel can get it.
** Which count reads faster depends on the CPU (a Zen 5 VM: 4 streams ~59
** GB/s, 8 ~45; the decode kernels stream 4 or 8 rows), so a bound takes the
** better.  (One plain stream per thread reads 25-45% less on some CPUs than
** the decode kernels do.)
*/
uint64_t simd_read_probe(const simd_kernels *k, const void *p, size_t bytes, int streams);
/* Does K's matmul for DT run on the bf16 dot product (bf16 activations)? */
int simd_uses_bf16_dot(const simd_kernels *k, enum simd_dtype dt);

/* Conversions (bulk, any alignment of SRC/DST). */
/* f32 -> bf16, round to nearest even; NaN stays a quiet NaN. */
void simd_f32_to_bf16(const simd_kernels *k, const float *src, uint16_t *dst,
                      size_t n);
/* f32 -> IEEE binary16, round to nearest even, overflow -> inf. */
void simd_f32_to_f16(const simd_kernels *k, const float *src, uint16_t *dst,
                     size_t n);
/* bf16 / f16 -> f32 (exact). */
void simd_bf16_to_f32(const simd_kernels *k, const uint16_t *src, float *dst,
                      size_t n);
void simd_f16_to_f32(const simd_kernels *k, const uint16_t *src, float *dst,
                     size_t n);
/*
** Quantize rows [r0, r1) of SRC [rows, cols] fp32 to Q8: codes into
** Q [rows, cols], scales into SCALES [rows, simd_q8_nblocks(cols)]
** (scale = max |w| of the block / 127; q = round-to-nearest-even(w / scale)).
** Every table gives bit-identical results.  Threads may quantize disjoint
** row ranges concurrently.  Non-finite weights are not supported (they give
** unspecified codes).
*/
void simd_q8_quantize(const simd_kernels *k, const float *src, int64_t cols,
                      int64_t r0, int64_t r1, int8_t *q, float *scales);
/*
** Quantize rows [r0, r1) of SRC [rows, cols] fp32 to Q4 (layout above):
** row r into DST + r * simd_q4_row_bytes(cols).  Per block: d and m fitted by least
** squares to the codes, alternating with nearest codes from the min/max
** start, then rounded to bf16 and the codes chosen again for the rounded
** pair (core/kernels/simd_q4.c).  One plain-C implementation serves every kernel
** table, so the result is the same bit for bit on every CPU.  Disjoint row
** ranges may run concurrently.  Non-finite weights are not supported.
*/
void simd_q4_quantize(const float *src, int64_t cols, int64_t r0, int64_t r1, uint8_t *dst);
/* Rows [r0, r1) of Q4 matrix W split into codes CODES (row r's blocks at
** (r - r0) * nb * 16, 16 bytes each in the block's own order, the full
** groups de-interleaved) and block words WORDS ((r - r0) * nb of them):
** the two arrays the CUDA kernels read (gpu/gpu.h). */
void simd_q4_split(const simd_matrix *w, int64_t r0, int64_t r1, uint8_t *codes,
                   uint32_t *words);
/* Row R of Q4 matrix W widened to fp32 (q * d + m) into DST [cols]. */
void simd_q4_dequantize_row(const simd_matrix *w, int64_t r, float *dst);

#endif
