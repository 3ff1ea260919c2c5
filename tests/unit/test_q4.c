/*
** test_q4.c -- 4-bit weights: simd.h's Q4 format, core/simd_q4*.c and the
** "cpu fp32i4" / "bf16i4" / "fp16i4" strategies.
**
** 1. Quantizer: per-weight round-trip bound (half a code step inside the
**    block's range), relative RMS error of Gaussian weights, exact zero and
**    constant blocks, partial last blocks, determinism (the same bytes for
**    any row split, twice), simd_q4_dequantize_row against the layout; and
**    the measurement behind the format: the offset form against a
**    symmetric 4-bit code with an fp32 scale at the same bytes.
** 2. Kernels: every table's matvec against the dequantized weights in
**    float64 (int8 activations: within 1e-2 of sum |w x|) and against the
**    portable table's (the same integer sums in one float order: the same
**    bits); matmul (T = 9)
**    against float64 (fp32 activations; bf16 on AVX-512: within 4e-3); the
**    AVX2 activation quantizer gives the plain-C bytes.
** 3. Kernel sets at model level: the binary runs itself with
**    RWKV_KERNELS=portable / avx2 / avx512 (each the CPU has) and the
**    logits under cpu fp32i4 (decode and prefill) agree within a quarter
**    of cpu fp32i4's own error against cpu fp32 (see Q4_SETS_SHARE).
** 4. Models: cpu fp32i4 against cpu fp32 on every fixture model (max abs
**    logit error within a bound measured once, 1.5x), bf16i4 / fp16i4 the
**    same weights, mixed plans ("cpu fp32i4 *1 -> cpu fp32" between the two,
**    "cpu fp32i4 *1 -> cpu fp32i8" parsed and planned), weight bytes
**    i4 < i8 < fp32; "cuda fp16i4" refused in one line where it cannot run
**    (CPU-only build, no device; tests/gpu/ runs it on a GPU).  Without the
**    fixtures the demo model stands in (the fixture checks are counted as
**    skipped).
*/
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../core/kernels/dtype.h"
#include "../../core/kernels/kernels.h"
#include "../../core/mem.h"
#include "../../core/rwkv.h"
#include "../../core/kernels/simd.h"
#include "../../core/kernels/simd_impl.h"
#include "../../core/model/strategy.h"
#include "../../gpu/gpu.h"
#include "../harness.h"

#define MAX_VOCAB 65536

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double
rnd_u(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}

static double
rnd_gauss(void)
{
    double u1 = rnd_u(), u2 = rnd_u();

    return sqrt(-2 * log(u1 > 1e-300 ? u1 : 1e-300)) * cos(6.283185307179586 * u2);
}

/* A quantized [rows][cols] matrix and its buffer. */
struct q4m {
    simd_matrix m;
    uint8_t    *q;
};

static void
q4m_make(struct q4m *o, const float *w, int64_t rows, int64_t cols)
{
    o->q = malloc((size_t)simd_data_bytes(SIMD_Q4, rows, cols) + 1);
    simd_q4_quantize(w, cols, 0, rows, o->q);
    o->m = (simd_matrix){ SIMD_Q4, rows, cols, o->q, NULL };
}

static void
q4m_free(struct q4m *o)
{
    free(o->q);
}

/* Offset of byte I (0..15) of block B's codes and of its word in a row of
** NB blocks, as simd.h describes the layout (the test's own arithmetic):
** groups of 8 blocks, 160 bytes each, the row's last group holding what
** is left; a full group's codes interleaved 4 bytes at a time (byte I of
** block j at 32 (I / 4) + 4 j + I % 4), a short group's plain. */
static int64_t
q4_code_off(int64_t nb, int64_t b, int i)
{
    int64_t g = b / 8 * 8;
    return nb - g >= 8 ? g * 20 + i / 4 * 32 + (b - g) * 4 + i % 4 : g * 20 + (b - g) * 16 + i;
}

/* Block B's 16 code bytes of ROW (NB blocks) into OUT. */
static void
q4_block_bytes(const uint8_t *row, int64_t nb, int64_t b, uint8_t *out)
{
    for (int i = 0; i < 16; i++)
        out[i] = row[q4_code_off(nb, b, i)];
}

static int64_t
q4_word_off(int64_t nb, int64_t b)
{
    int64_t g = b / 8 * 8, n = nb - g < 8 ? nb - g : 8;
    return g * 20 + n * 16 + b % 8 * 4;
}

/* Weight (r, c) read from the layout simd.h describes. */
static double
q4_at(const simd_matrix *m, int64_t r, int64_t c, double *step)
{
    int64_t nb = simd_q4_nblocks(m->cols), b = c / 32, j = c % 32;
    const uint8_t *row = (const uint8_t *)m->data + r * nb * 20;
    uint8_t byte = row[q4_code_off(nb, b, (int)(j % 16))];
    uint32_t u;
    double d;

    memcpy(&u, row + q4_word_off(nb, b), 4);
    d = dtype_bf16_to_f32((uint16_t)u);
    if (step != NULL)
        *step = d;
    return (double)(j < 16 ? byte & 15 : byte >> 4) * d + dtype_bf16_to_f32((uint16_t)(u >> 16));
}

/* ---- 1. quantizer ---- */

/* Symmetric 4-bit codes in [-8, 7] with an fp32 scale per 32 (the same
** 0.625 bytes a weight), scale fitted as the offset form's is; returns the
** sum of squared errors of the block. */
static double
sym_block(const float *w, int n)
{
    float amax = 0, s, best = 0;
    double err = 0;
    int q[32];

    for (int i = 0; i < n; i++)
        if (fabsf(w[i]) > fabsf(amax))
            amax = w[i];
    s = amax / -8.0f;
    for (int it = 0; it < 3 && s != 0; it++) {
        double swq = 0, sqq = 0;
        for (int i = 0; i < n; i++) {
            long v = lrintf(w[i] / s);
            q[i] = (int)(v < -8 ? -8 : v > 7 ? 7 : v);
            swq += (double)w[i] * q[i];
            sqq += (double)q[i] * q[i];
        }
        best = s;
        if (sqq > 0)
            s = (float)(swq / sqq);
    }
    for (int i = 0; i < n; i++) {
        double e = w[i] - (best != 0 ? (double)q[i] * best : 0);
        err += e * e;
    }
    return err;
}

/* Relative RMS error of W [rows][cols] as Q4 (and *SYM: symmetric). */
static double
q4_rel_err(const float *w, int64_t rows, int64_t cols, double *sym)
{
    struct q4m o;
    double se = 0, ss = 0, ssym = 0;

    q4m_make(&o, w, rows, cols);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) {
            double e = q4_at(&o.m, r, c, NULL) - w[r * cols + c];
            se += e * e;
            ss += (double)w[r * cols + c] * w[r * cols + c];
        }
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c += 32)
            ssym += sym_block(w + r * cols + c, (int)(cols - c < 32 ? cols - c : 32));
    q4m_free(&o);
    *sym = sqrt(ssym / ss);
    return sqrt(se / ss);
}

static void
test_quantizer_bounds(void)
{
    enum { R = 64, C = 1000 };   /* 31.25 blocks: a partial last block */
    float *w = malloc(R * C * sizeof(float));
    struct q4m o;
    double worst = 0, worst_step = 0;
    int inside = 1, exact = 1;

    for (int i = 0; i < R * C; i++)
        w[i] = (float)(rnd_gauss() * (1 + (i / C) % 7) * 0.01);
    for (int i = 0; i < C; i++) {
        w[3 * C + i] = 0;              /* a zero row */
        w[5 * C + i] = 0.25f;          /* a constant row */
        w[7 * C + i] = (float)(i % 32 == 5 ? 1e3 : rnd_gauss() * 1e-3);   /* outliers */
    }
    q4m_make(&o, w, R, C);
    for (int64_t r = 0; r < R; r++)
        for (int64_t b = 0; b * 32 < C; b++) {
            float mn = INFINITY, mx = -INFINITY;
            int n = (int)(C - b * 32 < 32 ? C - b * 32 : 32);
            for (int j = 0; j < n; j++) {
                mn = fminf(mn, w[r * C + b * 32 + j]);
                mx = fmaxf(mx, w[r * C + b * 32 + j]);
            }
            for (int j = 0; j < n; j++) {
                double step, v = q4_at(&o.m, r, b * 32 + j, &step);
                double wj = w[r * C + b * 32 + j], e = fabs(v - wj);
                if (mx > mn && e / (mx - mn) > worst)
                    worst = e / (mx - mn);
                if (step > 0 && e / step > worst_step)
                    worst_step = e / step;
                /* a constant block: its value in bf16 */
                inside &= mx > mn || e <= fabs(mx) * 0x1p-8;
            }
        }
    /* nearest codes for the fitted (d, m): half a step inside [m, m + 15 d];
    ** the least-squares fit may pull the range in past a lone extreme
    ** weight (measured: 0.58 steps at worst, 0.039 of the block's range) */
    TEST_COND("Q4 round trip: constant blocks within bf16 rounding", inside);
    TEST_CONDF(worst <= 0.045 && worst_step <= 0.7,
               "Q4 round trip: worst error %.3g of the block range, %.3g code steps", worst,
               worst_step);
    TEST_INFO("Q4 round trip: worst error %.4f of the block range, %.3f code steps (nearest "
              "code: 0.5)", worst, worst_step);
    for (int i = 0; i < C; i++) {
        double z = q4_at(&o.m, 3, i, NULL), k = q4_at(&o.m, 5, i, NULL);
        exact &= z == 0 && k == 0.25;
    }
    TEST_COND("Q4: zero and constant (bf16-exact) rows come back exactly", exact);
    {
        float row[C];
        int same = 1;
        simd_q4_dequantize_row(&o.m, 9, row);
        for (int i = 0; i < C; i++)
            same &= (double)row[i] == q4_at(&o.m, 9, i, NULL);
        TEST_COND("simd_q4_dequantize_row reads the layout of simd.h", same);
    }
    {
        struct q4m o2;
        uint8_t *q = malloc((size_t)simd_data_bytes(SIMD_Q4, R, C));
        simd_q4_quantize(w, C, 40, R, q);   /* the rows in two ranges */
        simd_q4_quantize(w, C, 0, 40, q);
        q4m_make(&o2, w, R, C);
        TEST_COND("Q4 quantizer: deterministic, the same bytes for any row split",
                  memcmp(q, o2.q, (size_t)simd_data_bytes(SIMD_Q4, R, C)) == 0 &&
                      memcmp(q, o.q, (size_t)simd_data_bytes(SIMD_Q4, R, C)) == 0);
        free(q);
        q4m_free(&o2);
    }
    q4m_free(&o);
    free(w);
}

/*
** The quantizer's scheme (core/kernels/simd_q4.c) written one weight at a
** time, as plainly as it reads: the bytes the vectorized quantizer must
** give (the weight cache and every kernel table rely on them).  Min-max
** start, nearest codes by the reciprocal, clamped, ties to even; two rounds
** of a least-squares refit (float sums in 4 lanes, lane k taking elements
** k, k + 4, ...) and new codes; d and m to bf16, codes once more.
*/
static void
ref_codes(const float *w, int n, float d, float m, uint8_t *codes)
{
    float id = 1.0f / d;

    for (int i = 0; i < n; i++) {
        float t = (w[i] - m) * id;
        t = t < 0 ? 0 : t > 15 ? 15 : t;
        codes[i] = (uint8_t)nearbyintf(t);
    }
}

static int
ref_fit(const float *w, int n, const uint8_t *codes, float *d, float *m)
{
    float sw[4] = { 0, 0, 0, 0 }, swq[4] = { 0, 0, 0, 0 }, nd, sumw, sumwq;
    int sq = 0, sqq = 0, det;

    for (int i = 0; i < n; i++) {
        sq += codes[i];
        sqq += codes[i] * codes[i];
        sw[i % 4] += w[i];
        swq[i % 4] += w[i] * (float)codes[i];
    }
    sumw = (sw[0] + sw[1]) + (sw[2] + sw[3]);
    sumwq = (swq[0] + swq[1]) + (swq[2] + swq[3]);
    det = n * sqq - sq * sq;
    if (det <= 0)
        return 0;
    nd = ((float)n * sumwq - (float)sq * sumw) / (float)det;
    if (!(nd > 0))
        return 0;
    *d = nd;
    *m = (sumw - nd * (float)sq) / (float)n;
    return 1;
}

static uint32_t
ref_block(const float *w, int n, uint8_t *codes)
{
    float mn = w[0], mx = w[0], d, m;
    uint16_t db, mb;

    memset(codes, 0, 32);
    for (int i = 1; i < n; i++) {
        mn = w[i] < mn ? w[i] : mn;
        mx = w[i] > mx ? w[i] : mx;
    }
    d = (mx - mn) / 15.0f;
    m = mn;
    if (!(d > 0))
        return (uint32_t)dtype_f32_to_bf16(mn) << 16;
    ref_codes(w, n, d, m, codes);
    for (int it = 0; it < 2 && ref_fit(w, n, codes, &d, &m); it++)
        ref_codes(w, n, d, m, codes);
    db = dtype_f32_to_bf16(d);
    mb = dtype_f32_to_bf16(m);
    d = dtype_bf16_to_f32(db);
    if (!(d > 0))
        return (uint32_t)dtype_f32_to_bf16(mn + (mx - mn) / 2) << 16;
    ref_codes(w, n, d, dtype_bf16_to_f32(mb), codes);
    return (uint32_t)db | (uint32_t)mb << 16;
}

static void
test_quantizer_reference(void)
{
    enum { R = 48, C = 32 * 9 + 13 };   /* a partial last block */
    float *w = malloc(R * C * sizeof(float));
    struct q4m o;
    int64_t nb = simd_q4_nblocks(C);
    long bad = 0;

    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            float v = (float)(rnd_gauss() * 0.02 * (1 + r % 5));
            switch (r % 8) {   /* signed zeros, constants, tiny and one-sided rows */
            case 1: v = c % 3 == 0 ? -0.0f : c % 3 == 1 ? 0.0f : fabsf(v); break;
            case 2: v = r % 16 == 2 ? -0.0f : 0.0f; break;
            case 3: v *= 1e-37f; break;
            case 4: v = c % 5 == 0 ? 0.0f : -fabsf(v); break;
            case 5: v = c % 32 == 7 ? 3.0f : v; break;
            case 6: v = 0.375f; break;
            case 7: v = (c + r / 8) % 2 ? 0.0f : -0.0f; break;   /* mixed zeros alone */
            }
            w[r * C + c] = v;
        }
    q4m_make(&o, w, R, C);
    for (int r = 0; r < R; r++)
        for (int64_t b = 0; b < nb; b++) {
            uint8_t codes[32], packed[16], got_codes[16];
            int n = (int)(C - b * 32 < 32 ? C - b * 32 : 32);
            uint32_t word = ref_block(w + r * C + b * 32, n, codes), got;
            for (int j = 0; j < 16; j++)
                packed[j] = (uint8_t)(codes[j] | codes[j + 16] << 4);
            memcpy(&got, o.q + r * nb * 20 + q4_word_off(nb, b), 4);
            q4_block_bytes(o.q + r * nb * 20, nb, b, got_codes);
            bad += got != word || memcmp(got_codes, packed, 16) != 0;
        }
    TEST_CONDF(bad == 0, "Q4 quantizer: %ld of %lld blocks differ from the scheme done one weight "
               "at a time (signed zeros, constant, tiny, one-sided, partial blocks)", bad,
               (long long)(R * nb));
    {   /* the two arrays the CUDA kernels read (gpu/gpu.h), from rows 5.. */
        uint8_t *codes = malloc((size_t)((R - 5) * nb * 16));
        uint32_t *words = malloc((size_t)((R - 5) * nb) * sizeof(uint32_t));
        long diff = 0;
        simd_q4_split(&o.m, 5, R, codes, words);
        for (int r = 5; r < R; r++)
            for (int64_t b = 0; b < nb; b++) {
                uint8_t want[16];
                q4_block_bytes(o.q + r * nb * 20, nb, b, want);
                diff += memcmp(codes + ((r - 5) * nb + b) * 16, want, 16) != 0 ||
                        memcmp(words + (r - 5) * nb + b, o.q + r * nb * 20 + q4_word_off(nb, b),
                               4) != 0;
            }
        TEST_CONDF(diff == 0, "simd_q4_split: rows 5-%d as codes [rows][nb][16] and words "
                   "[rows][nb] (%lld blocks a row, a short last group): %ld blocks differ",
                   R - 1, (long long)nb, diff);
        free(codes);
        free(words);
    }
    q4m_free(&o);
    free(w);
}

/* The format's measurement: offset (min) form vs symmetric at equal bytes. */
static void
test_offset_vs_symmetric(void)
{
    enum { R = 128, C = 1024 };
    float *w = malloc(R * C * sizeof(float));
    double sym, e;

    for (int i = 0; i < R * C; i++)
        w[i] = (float)rnd_gauss();
    e = q4_rel_err(w, R, C, &sym);
    TEST_CONDF(e < 0.11 && e < sym, "Q4 gaussian: rel. RMS error %.4f (symmetric %.4f)", e, sym);
    TEST_INFO("Q4 accuracy, gaussian     W[%d,%d]: rel. RMS error of W: offset form %.4f, "
              "symmetric fp32-scale %.4f", R, C, e, sym);
    for (int i = 0; i < R * C; i++) {   /* Student t, 2 degrees of freedom */
        double g = rnd_gauss(), g1 = rnd_gauss(), g2 = rnd_gauss();
        w[i] = (float)(g / sqrt((g1 * g1 + g2 * g2) / 2 + 1e-12));
    }
    e = q4_rel_err(w, R, C, &sym);
    TEST_CONDF(e < sym, "Q4 heavy-tailed: rel. RMS error %.4f (symmetric %.4f)", e, sym);
    TEST_INFO("Q4 accuracy, heavy-tailed W[%d,%d]: rel. RMS error of W: offset form %.4f, "
              "symmetric fp32-scale %.4f", R, C, e, sym);
    for (int i = 0; i < R * C; i++)   /* one-sided (post-activation-like) */
        w[i] = (float)fabs(rnd_gauss());
    e = q4_rel_err(w, R, C, &sym);
    TEST_CONDF(e < sym, "Q4 one-sided: rel. RMS error %.4f (symmetric %.4f)", e, sym);
    TEST_INFO("Q4 accuracy, one-sided    W[%d,%d]: rel. RMS error of W: offset form %.4f, "
              "symmetric fp32-scale %.4f", R, C, e, sym);
    free(w);
}

/* ---- 2. kernels ---- */

/* Every table's Q4 matvec and matmul on W [rows][cols] (an uneven shape)
** against float64 over the dequantized weights and against portable. */
static void
test_kernels_shape(int64_t rows, int64_t cols)
{
    static const struct { enum simd_isa isa; unsigned flags; } tabs[] = {
        { SIMD_ISA_PORTABLE, 0 }, { SIMD_ISA_AVX2, 0 }, { SIMD_ISA_AVX2, SIMD_AVX_VNNI },
        { SIMD_ISA_AVX512, 0 }, { SIMD_ISA_AVX512, SIMD_EXACT } };
    enum { T = 9 };
    const simd_kernels *port = simd_kernels_get(SIMD_ISA_PORTABLE, 0);
    float *w = malloc((size_t)(rows * cols) * sizeof(float));
    float *x = malloc((size_t)(T * cols) * sizeof(float));
    float *y0 = malloc((size_t)rows * sizeof(float)), *y = malloc((size_t)(T * rows) * sizeof(float));
    double *ref = malloc((size_t)(T * rows) * sizeof(double)), *mag = malloc((size_t)(T * rows) * sizeof(double));
    struct q4m o;

    for (int64_t i = 0; i < rows * cols; i++)
        w[i] = (float)(rnd_gauss() * 0.02);
    for (int64_t i = 0; i < T * cols; i++)
        x[i] = (float)rnd_gauss();
    q4m_make(&o, w, rows, cols);
    for (int64_t t = 0; t < T; t++)
        for (int64_t r = 0; r < rows; r++) {
            double s = 0, a = 0;
            for (int64_t c = 0; c < cols; c++) {
                double p = q4_at(&o.m, r, c, NULL) * x[t * cols + c];
                s += p;
                a += fabs(p);
            }
            ref[t * rows + r] = s;
            mag[t * rows + r] = a;
        }
    simd_matvec(port, &o.m, x, y0, 0, rows);
    for (size_t k = 0; k < sizeof tabs / sizeof tabs[0]; k++) {
        const simd_kernels *kt = simd_kernels_get(tabs[k].isa, tabs[k].flags);
        double e_ref = 0, e_port = 0, e_mm = 0;
        int64_t differ = 0;
        void *ws;
        simd_act a;
        if (kt == NULL) {
            TEST_INFO("skip Q4 kernels of ISA %d: not supported by this CPU", (int)tabs[k].isa);
            continue;
        }
        simd_matvec(kt, &o.m, x, y, rows / 3, rows);   /* two disjoint ranges */
        simd_matvec(kt, &o.m, x, y, 0, rows / 3);
        for (int64_t r = 0; r < rows; r++) {
            e_ref = fmax(e_ref, fabs(y[r] - ref[r]) / mag[r]);
            e_port = fmax(e_port, fabs(y[r] - y0[r]) / mag[r]);
            differ += memcmp(&y[r], &y0[r], sizeof(float)) != 0;
        }
        /* one float order in every table (simd_q4_rows.h) */
        TEST_CONDF(differ == 0, "%s Q4 [%lld,%lld] matvec: %lld of %lld rows differ from the "
                   "portable table's bits", simd_kernels_name(kt), (long long)rows,
                   (long long)cols, (long long)differ, (long long)rows);
        ws = mem_alloc(simd_act_bytes(kt, SIMD_Q4, T, cols));
        simd_act_prepare(kt, SIMD_Q4, x, T, cols, ws, &a);
        simd_matmul(kt, &o.m, &a, y, rows, 0, rows);
        for (int64_t i = 0; i < T * rows; i++)
            e_mm = fmax(e_mm, fabs(y[i] - ref[i]) / mag[i]);
        mem_free(ws);
        TEST_CONDF(e_ref < 1e-2 && e_port < 1e-5 && e_mm < 4e-3,
                   "%s Q4 [%lld,%lld]: matvec vs float64 %.3g, vs portable %.3g; matmul %.3g",
                   simd_kernels_name(kt), (long long)rows, (long long)cols, e_ref, e_port, e_mm);
        TEST_INFO("%-12s Q4 [%lld,%lld]: matvec vs float64 %.2e S (int8 x), vs portable %.2e S; "
                  "matmul (T=%d) vs float64 %.2e S", simd_kernels_name(kt), (long long)rows,
                  (long long)cols, e_ref, e_port, T, e_mm);
    }
    q4m_free(&o);
    free(w);
    free(x);
    free(y0);
    free(y);
    free(ref);
    free(mag);
}

/* ---- models ---- */

static const int32_t q4_toks[] = { 72, 101, 108, 108, 111, 44, 32, 119, 111, 114, 108, 100,
                                   33, 10, 84, 104, 101, 32, 113, 117, 105, 99, 107 };
#define Q4_NTOK (sizeof q4_toks / sizeof q4_toks[0])

static float *la, *lb;

/* PATH NULL: the demo model. */
static rwkv_model *
open_model(const char *path, const char *strategy)
{
    rwkv_open_opts oo;
    rwkv_model *m = NULL;
    rwkv_err err;
    int rc;

    memset(&oo, 0, sizeof oo);
    oo.strategy = strategy;
    oo.n_threads = 2;
    oo.weight_cache = -1;
    rc = path ? rwkv_model_open(path, &oo, &m, &err) : rwkv_model_open_demo(1, &oo, &m, &err);
    TEST_CONDF(rc == RWKV_OK, "%s under '%s': %s", path ? path : "demo", strategy,
               rc == RWKV_OK ? "" : err.msg);
    return rc == RWKV_OK ? m : NULL;
}

/* Token ids of the run for model M (World vocabulary: bytes are 1..256). */
static int32_t
tok_for(const rwkv_model *m, size_t i)
{
    return q4_toks[i] + (rwkv_model_info(m)->n_vocab > 256 ? 1 : 0);
}

/* Logits of M on the run: every position token by token, then the last of
** one call, into OUT [(Q4_NTOK + 1) * V]. */
static int
run_logits(rwkv_model *m, float *out)
{
    size_t V = (size_t)rwkv_model_info(m)->n_vocab;
    int32_t tok[Q4_NTOK];
    rwkv_state *s = NULL;
    rwkv_err err;
    int ok = rwkv_state_create(m, &s, &err) == RWKV_OK;

    for (size_t t = 0; t < Q4_NTOK; t++)
        tok[t] = tok_for(m, t);
    for (size_t t = 0; ok && t < Q4_NTOK; t++)
        ok = rwkv_eval(m, &tok[t], 1, s, out + t * V, &err) == RWKV_OK;
    if (ok) {
        rwkv_state_reset(m, s);
        ok = rwkv_eval(m, tok, Q4_NTOK, s, out + Q4_NTOK * V, &err) == RWKV_OK;
    }
    rwkv_state_destroy(s);
    return ok;
}

static double
diff_models(rwkv_model *a, rwkv_model *b)
{
    size_t n = (Q4_NTOK + 1) * (size_t)rwkv_model_info(a)->n_vocab;

    if (!run_logits(a, la) || !run_logits(b, lb))
        return INFINITY;
    return test_max_abs_diff(la, lb, n);
}

/* The AVX2 activation quantizer gives simd_q4_act's bytes exactly. */
static void
test_act_avx2(void)
{
    static const int64_t ns[] = { 1, 31, 32, 64, 100, 2048, 2085 };
    static simd_q4_x a, b;
    float *x = malloc(4096 * sizeof(float));
    int same = 1;

    if (simd_kernels_get(SIMD_ISA_AVX2, 0) == NULL) {
        TEST_SKIP(1, "AVX2 activation quantizer: no AVX2 on this CPU");
        free(x);
        return;
    }
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        for (int64_t c = 0; c < ns[i]; c++)   /* some zero blocks, ties, -0 */
            x[c] = c % 97 < 32 && i == 4 ? 0.0f : c % 41 == 0 ? -0.0f
                 : (float)(rnd_gauss() * (c % 3 == 0 ? 1e-3 : 2.0));
        memset(&a, 0x55, sizeof a);
        memset(&b, 0x55, sizeof b);
        simd_q4_act(x, ns[i], &a);
        simd_q4_act_avx2(x, ns[i], &b);
        /* whole groups of 8 blocks (256 columns), the padding too */
        same &= memcmp(a.xq, b.xq, (size_t)((ns[i] + 255) / 256 * 256)) == 0 &&
                memcmp(a.xd, b.xd, (size_t)((ns[i] + 255) / 256 * 8) * sizeof(float)) == 0 &&
                memcmp(a.xs, b.xs, (size_t)((ns[i] + 255) / 256 * 8) * sizeof(float)) == 0;
    }
    TEST_COND("Q4 activations: the AVX2 quantizer gives the plain-C bytes", same);
    free(x);
}

/* Max abs difference of A and B [n]; *RMS: root mean square difference. */
static double
diff_stats(const float *a, const float *b, size_t n, double *rms)
{
    double ss = 0;

    for (size_t i = 0; i < n; i++)
        ss += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
    *rms = sqrt(ss / (double)(n ? n : 1));
    return test_max_abs_diff(a, b, n);
}

/* ---- 3. kernel sets: the binary runs itself per RWKV_KERNELS ---- */

/*
** How close the kernel sets must be: within a quarter of cpu fp32i4's own
** error against cpu fp32 (max abs and RMS logit difference).  The Q4
** matvec quantizes x to int8 with identical codes in every set, but an
** activation within rounding of a code boundary goes either way after the
** summation-order differences of the other kernels (~1e-7), and the
** recurrence carries it on, so logits do not agree to 1e-5 as in fp32;
** the avx512 prefill also rounds x to bf16 (as its Q8 prefill does).
** Measured: 5-13% of the i4 error (world-vocabulary model: avx512 vs
** portable max 0.31, RMS 0.047 against 2.3 and 0.35).
*/
#define Q4_SETS_SHARE 0.25

/* Child: logits of MODEL ("demo" or a path) under cpu fp32i4 into FILE,
** after the kernel set's name (16 bytes). */
static int
child_logits(const char *model, const char *file)
{
    rwkv_model *m = open_model(strcmp(model, "demo") == 0 ? NULL : model, "cpu fp32i4");
    char name[16] = { 0 };
    FILE *f;
    size_t n;
    int ok;

    if (m == NULL)
        return 1;
    n = (Q4_NTOK + 1) * (size_t)rwkv_model_info(m)->n_vocab;
    snprintf(name, sizeof name, "%s", simd_kernels_name(kern_default_kernels()));
    ok = run_logits(m, la) && (f = fopen(file, "wb")) != NULL;
    ok = ok && fwrite(name, 1, sizeof name, f) == sizeof name && fwrite(la, 4, n, f) == n;
    ok = ok && fclose(f) == 0;
    rwkv_model_close(m);
    return ok ? 0 : 1;
}

static void
test_kernel_sets(const char *model, const char *self)
{
    static const struct { const char *name; enum simd_isa isa; unsigned flags; } sets[] = {
        { "portable", SIMD_ISA_PORTABLE, 0 }, { "avx2", SIMD_ISA_AVX2, 0 },
        { "avx2-vnni", SIMD_ISA_AVX2, SIMD_AVX_VNNI }, { "avx512", SIMD_ISA_AVX512, 0 } };
    enum { NSETS = sizeof sets / sizeof sets[0] };
    char file[NSETS][64];
    float *l[NSETS] = { NULL };
    size_t n[NSETS] = { 0 };
    double e_max = 0, e_rms = 0;   /* cpu fp32i4 (portable) against cpu fp32 */
    rwkv_model *ref;

    for (int k = 0; k < NSETS; k++) {
        pid_t pid;
        int st = -1;
        float *buf;
        snprintf(file[k], sizeof file[k], "/tmp/rwkv-q4-%d-%d.bin", (int)getpid(), k);
        if (simd_kernels_get(sets[k].isa, sets[k].flags) == NULL) {
            TEST_INFO("kernel set %s: not supported by this CPU", sets[k].name);
            continue;
        }
        if ((pid = fork()) == 0) {
            setenv("RWKV_KERNELS", sets[k].name, 1);
            execl(self, self, "--logits", model, file[k], (char *)NULL);
            _exit(127);
        }
        waitpid(pid, &st, 0);
        buf = test_read_f32(file[k], &n[k]);
        unlink(file[k]);
        TEST_CONDF(st == 0 && buf != NULL && n[k] > 4 && strcmp((char *)buf, sets[k].name) == 0,
                   "%s: cpu fp32i4 under RWKV_KERNELS=%s (ran: %s)", model, sets[k].name,
                   buf ? (char *)buf : "nothing");
        l[k] = buf;
    }
    if (l[0] != NULL && (ref = open_model(strcmp(model, "demo") == 0 ? NULL : model,
                                          "cpu fp32")) != NULL) {
        if (run_logits(ref, lb) && n[0] - 4 == (Q4_NTOK + 1) * (size_t)rwkv_model_info(ref)->n_vocab)
            e_max = diff_stats(l[0] + 4, lb, n[0] - 4, &e_rms);
        rwkv_model_close(ref);
    }
    for (int k = 1; k < NSETS; k++)
        if (l[0] != NULL && l[k] != NULL) {
            double rms = INFINITY, d = n[0] == n[k] ? diff_stats(l[0] + 4, l[k] + 4, n[0] - 4, &rms)
                                                    : INFINITY;
            TEST_CONDF(d <= Q4_SETS_SHARE * e_max && rms <= Q4_SETS_SHARE * e_rms,
                       "%s cpu fp32i4: %s vs portable logits differ by %.3g (RMS %.3g); i4 vs "
                       "fp32: %.3g (RMS %.3g)", model, sets[k].name, d, rms, e_max, e_rms);
            TEST_INFO("%s cpu fp32i4: %s vs portable: max abs logit difference %.2e, RMS %.2e "
                      "(%.0f%%, %.0f%% of i4's error)", model, sets[k].name, d, rms,
                      100 * d / e_max, 100 * rms / e_rms);
        }
    for (int k = 0; k < NSETS; k++)
        free(l[k]);
}

/* ---- 4. models ---- */

/*
** Bounds: max abs logit difference of cpu fp32i4 against cpu fp32 on the
** run above (23 positions token by token + one call), 1.5x the value
** measured once on this code (AVX-512 kernels, 2026-12-03; in the
** comment), so a regression that doubles the error fails.  The int8 bound
** of the same file (test_precision.c) is ~10x smaller: 4-bit blocks of
** these tiny models (C = 64..128) are coarse.
*/
static const struct {
    const char *file;
    double      bound;
} q4_bounds[] = {
    { "models/tiny-4v0-fp32.pth", 0.78 },   /* 0.517 */
    { "models/tiny-4v0-bf16.pth", 0.89 },   /* 0.587 */
    { "models/rand-v4-fp32.pth", 1.6 },   /* 1.04 */
    { "models/tiny-5v1-fp32.pth", 2.8 },   /* 1.82 */
    { "models/tiny-5v1-bf16.pth", 2.7 },   /* 1.78 */
    { "models/rand-v5.1-fp32.pth", 1.8 },   /* 1.19 */
    { "models/tiny-5v2-fp32.pth", 2.2 },   /* 1.41 */
    { "models/tiny-5v2-bf16.pth", 2.2 },   /* 1.44 */
    { "models/tiny-6v0-fp32.pth", 2.7 },   /* 1.78 */
    { "models/tiny-6v0-bf16.pth", 2.6 },   /* 1.72 */
    { "models/tiny-7v0-fp32.pth", 0.26 },   /* 0.169 */
    { "models/tiny-7v0-bf16.pth", 0.26 },   /* 0.169 */
    { "models/rand-7v0-h2-bf16.pth", 4.2 },   /* 2.78 */
    { "models/world-7v0-rand-bf16.pth", 3.5 },   /* 2.33 */
};
/* The demo model (no fixtures needed). */
#define Q4_DEMO_BOUND 1.3   /* measured 0.852 */

/* Checks test_model makes per model. */
#define Q4_MODEL_CHECKS 15

/* fp32i4 (and bf16i4 / fp16i4, mixed plans) against fp32 on PATH (NULL:
** the demo model). */
static void
test_model(const char *path, const char *name, double bound)
{
    rwkv_model *ref = open_model(path, "cpu fp32"), *q = open_model(path, "cpu fp32i4");
    rwkv_model *q8 = open_model(path, "cpu fp32i8"), *m;
    double e, e8, d;

    if (ref == NULL || q == NULL || q8 == NULL)
        goto out;
    e = diff_models(ref, q);
    e8 = diff_models(ref, q8);
    TEST_CONDF(e > 0 && e <= bound, "%s cpu fp32i4: max abs logit diff %.3g (bound %.3g)", name, e,
               bound);
    TEST_INFO("%-32s max |logit diff| vs cpu fp32: fp32i4 %-8.3g fp32i8 %.3g", name, e, e8);
    TEST_CONDF(rwkv_model_info(q)->weight_bytes < rwkv_model_info(q8)->weight_bytes &&
                   rwkv_model_info(q8)->weight_bytes < rwkv_model_info(ref)->weight_bytes,
               "%s: weight bytes i4 %llu, i8 %llu, fp32 %llu", name,
               (unsigned long long)rwkv_model_info(q)->weight_bytes,
               (unsigned long long)rwkv_model_info(q8)->weight_bytes,
               (unsigned long long)rwkv_model_info(ref)->weight_bytes);
    /* the same 4-bit weights whatever the stage dtype (fp32 activations) */
    if ((m = open_model(path, "cpu bf16i4")) != NULL) {
        TEST_CONDF(diff_models(q, m) == 0, "%s: cpu bf16i4 differs from cpu fp32i4", name);
        rwkv_model_close(m);
    }
    if ((m = open_model(path, "cpu fp16i4")) != NULL) {
        TEST_CONDF(diff_models(q, m) == 0, "%s: cpu fp16i4 differs from cpu fp32i4", name);
        rwkv_model_close(m);
    }
    /* mixed: layer 0 in 4 bits, the rest fp32 -- between the two */
    if ((m = open_model(path, "cpu fp32i4 *1 -> cpu fp32")) != NULL) {
        d = diff_models(ref, m);
        TEST_CONDF(d > 0 && d <= e * 1.5 + 1e-6, "%s: 'cpu fp32i4 *1 -> cpu fp32' differs by %.3g "
                   "(fp32i4 everywhere: %.3g)", name, d, e);
        TEST_CONDF(strcmp(rwkv_model_info(m)->strategy, "cpu fp32i4 *1 -> cpu fp32") == 0,
                   "%s: strategy shown as '%s'", name, rwkv_model_info(m)->strategy);
        rwkv_model_close(m);
    }
    /* mixed with int8: more bytes than all-i4, fewer than all-i8 */
    if ((m = open_model(path, "cpu fp32i4 *1 -> cpu fp32i8")) != NULL) {
        TEST_CONDF(rwkv_model_info(m)->weight_bytes > rwkv_model_info(q)->weight_bytes &&
                       rwkv_model_info(m)->weight_bytes < rwkv_model_info(q8)->weight_bytes,
                   "%s: 'cpu fp32i4 *1 -> cpu fp32i8' weight bytes %llu", name,
                   (unsigned long long)rwkv_model_info(m)->weight_bytes);
        d = diff_models(ref, m);
        TEST_CONDF(d > 0 && d <= e * 1.5 + 1e-6, "%s: 'cpu fp32i4 *1 -> cpu fp32i8' differs by %.3g",
                   name, d);
        rwkv_model_close(m);
    }
out:
    rwkv_model_close(ref);
    rwkv_model_close(q);
    rwkv_model_close(q8);
}

/* ---- strategy strings ---- */

static void
test_strategy(void)
{
    strat s;
    rwkv_err err;
    int slot[25], st;

    TEST_COND("'cpu fp32i4 *20 -> cpu fp32i8' parses",
              strat_check("cpu fp32i4 *20 -> cpu fp32i8", 1, &s, &err) == RWKV_OK &&
                  s.n_stages == 2 && s.stages[0].quant == 4 && s.stages[0].n_layers == 20 &&
                  s.stages[1].quant == 8 && s.stages[0].dtype == STRAT_FP32);
    strat_plan(&s, 24, slot);
    TEST_COND("'cpu fp32i4 *20 -> cpu fp32i8': layers 0-19 in 4 bits, 20-23 and the head in 8",
              slot[0] == 0 && slot[19] == 0 && slot[20] == 1 && slot[23] == 1 && slot[24] == 1);
    TEST_COND("'cpu bf16i4' / 'cpu fp16i4' parse",
              strat_check("cpu bf16i4", 0, &s, &err) == RWKV_OK && s.stages[0].quant == 4 &&
                  s.stages[0].dtype == STRAT_BF16 &&
                  strat_check("cpu fp16i4", 0, &s, &err) == RWKV_OK &&
                  s.stages[0].dtype == STRAT_FP16);
    TEST_COND("'cpu fp32 *4 -> cpu bf16i4 *4 -> cpu fp32i8' parses",
              strat_check("cpu fp32 *4 -> cpu bf16i4 *4 -> cpu fp32i8", 1, &s, &err) == RWKV_OK &&
                  s.n_stages == 3 && s.stages[1].quant == 4);
    /* cuda i4 (gpu/'s 4-bit kernels): a CPU-only build refuses it ("without
    ** CUDA"), a CUDA build runs it where there is a device and otherwise
    ** says it needs a GPU -- one line either way */
    gpu_backend_register();
    st = strat_check("cuda fp16i4", 1, &s, &err);
    TEST_CONDF(gpu_compiled() ? st == RWKV_OK || (st == RWKV_ENOTSUP && strstr(err.msg, "needs a GPU"))
                              : st == RWKV_ENOTSUP && strstr(err.msg, "without CUDA") != NULL,
               "'cuda fp16i4': status %d '%s'", st, err.msg);
    TEST_COND("'cuda fp16i4' message is one line", st == RWKV_OK || strchr(err.msg, '\n') == NULL);
    TEST_INFO("'cuda fp16i4': %s", st == RWKV_OK ? "accepted (a CUDA device is here)" : err.msg);
    TEST_COND("'cuda fp16i4 *20 -> cpu fp32i4' parses: 20 layers cuda 4-bit, the rest cpu 4-bit",
              strat_parse("cuda fp16i4 *20 -> cpu fp32i4", &s, &err) == RWKV_OK &&
                  s.n_stages == 2 && s.stages[0].device == STRAT_CUDA &&
                  s.stages[0].quant == 4 && s.stages[0].dtype == STRAT_FP16 &&
                  s.stages[1].device == STRAT_CPU && s.stages[1].quant == 4);
    TEST_COND("'cuda fp16i4 *10+' parses as streamed",
              strat_parse("cuda fp16i4 *10+", &s, &err) == RWKV_OK && s.stages[0].quant == 4 &&
                  s.stages[0].stream);
    TEST_COND("'cpu fp32i5' is refused in one line",
              strat_check("cpu fp32i5", 1, &s, &err) != RWKV_OK && strchr(err.msg, '\n') == NULL);
}

int
main(int argc, char **argv)
{
    la = malloc(MAX_VOCAB * (Q4_NTOK + 1) * sizeof(float));
    lb = malloc(MAX_VOCAB * (Q4_NTOK + 1) * sizeof(float));
    if (argc == 4 && strcmp(argv[1], "--logits") == 0)
        return child_logits(argv[2], argv[3]);
    test_quantizer_bounds();
    test_quantizer_reference();
    test_offset_vs_symmetric();
    test_kernels_shape(67, 2048 + 32 + 5);
    test_kernels_shape(5, 16384 + 100);   /* two passes of the matvec (SIMD_Q4_XCOLS) */
    test_act_avx2();
    test_strategy();
    test_kernel_sets("demo", argv[0]);
    test_model(NULL, "demo", Q4_DEMO_BOUND);
    for (size_t i = 0; i < sizeof q4_bounds / sizeof q4_bounds[0]; i++) {
        char path[1024];
        if (!test_have_fixture(q4_bounds[i].file, Q4_MODEL_CHECKS))
            continue;
        test_model(test_fixture_path(path, sizeof path, q4_bounds[i].file), q4_bounds[i].file,
                   q4_bounds[i].bound);
    }
    if (test_have_fixture("models/world-7v0-rand-bf16.pth", 6)) {
        char path[1024];
        test_kernel_sets(test_fixture_path(path, sizeof path, "models/world-7v0-rand-bf16.pth"),
                         argv[0]);
    }
    free(la);
    free(lb);
    return TEST_REPORT();
}
