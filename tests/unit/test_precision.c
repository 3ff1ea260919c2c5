/*
** test_precision.c -- the CPU weight precisions against cpu fp32 on every
** fixture model.
**
** For each model file of $RWKV_FIXTURES (tiny/ *.json and world-7v0) the
** tokens of a reference run are fed token by token (RNN path, every
** position's logits compared) and in one call (sequence path, last logits)
** under "cpu fp32" and under each other precision; the largest absolute
** logit difference is checked against a bound measured once on this code
** and written down in the table below (about 1.5x the measured value, so a
** regression that doubles an error fails).
**
** int8: our Q8 (symmetric, one fp32 scale per 32 weights, simd.h) must be no
** worse than the reference's scheme (per-row / per-column min-max uint8,
** rwkv pip package model.py) applied to the same matrices.  The reference
** scheme is run here by writing a safetensors copy of the model whose
** linear weights are replaced by their min-max quantize-dequantize values
** and running that copy under cpu fp32.
**
** Also: a mixed plan ("cpu fp32i8 *1 -> cpu fp32") lands between the two
** pure ones, and a bf16 checkpoint under "cpu bf16" gives the same logits
** as under "cpu fp32" for one token (same weights, fp32 activations in the
** matrix-vector kernel).
*/
#include <stdint.h>
#include <unistd.h>

#include "../../core/io/ckpt.h"
#include "../../core/io/json.h"
#include "../../core/rwkv.h"
#include "../harness.h"
#include "fixture_json.h"

#define MAX_VOCAB 65536

enum { P_BF16, P_FP16, P_FP32I8, P_BF16I8, P_MINMAX, NPREC };

static const char *prec_strategy[NPREC] = { "cpu bf16", "cpu fp16", "cpu fp32i8", "cpu bf16i8",
                                            "cpu fp32" };
static const char *prec_name[NPREC] = { "bf16", "fp16", "fp32i8", "bf16i8", "minmax-u8" };

/*
** Bounds: max abs logit difference against cpu fp32 (RNN positions and the
** one-call logits of the manifest's 44-token run), per model file and
** precision.  Measured values (AVX-512 kernels, 2026-12-02) are in the
** comment of each row.  fp32i8 and bf16i8 store the same Q8 weights and
** keep fp32 activations, so they agree exactly.  fp16 of a bf16 file is
** nearly exact (bf16 values of these sizes are fp16 values).
*/
static const struct {
    const char *file;
    double      bound[NPREC - 1];   /* bf16, fp16, fp32i8, bf16i8 */
} bounds[] = {
    /* bounds = 1.5 x measured (min 1e-5), rounded up; measured max abs
     * logit difference in the comment: bf16, fp16, fp32i8, bf16i8 */
    { "models/tiny-7v0-fp32.pth", { 0.00025, 1e-05, 0.018, 0.018 } }, /* 0.000165, 4.77e-07, 0.0118, 0.0118 */
    { "models/tiny-7v0-bf16.pth", { 0.00025, 1e-05, 0.018, 0.018 } }, /* 0.000165, 4.77e-07, 0.0118, 0.0118 */
    { "models/rand-7v0-h2-bf16.pth", { 0.03, 1e-05, 0.17, 0.17 } }, /* 0.0197, 2.38e-06, 0.108, 0.108 */
    { "models/tiny-5v2-fp32.pth", { 0.062, 0.0086, 0.16, 0.16 } }, /* 0.0412, 0.00568, 0.102, 0.102 */
    { "models/tiny-5v2-bf16.pth", { 0.028, 1e-05, 0.2, 0.2 } }, /* 0.0181, 3.58e-06, 0.13, 0.13 */
    { "models/tiny-6v0-fp32.pth", { 0.042, 0.0027, 0.22, 0.22 } }, /* 0.0275, 0.00179, 0.142, 0.142 */
    { "models/tiny-6v0-bf16.pth", { 0.0088, 1e-05, 0.19, 0.19 } }, /* 0.00586, 0, 0.125, 0.125 */
    { "models/tiny-4v0-fp32.pth", { 0.033, 0.0037, 0.056, 0.056 } }, /* 0.0216, 0.00241, 0.0367, 0.0367 */
    { "models/tiny-4v0-bf16.pth", { 0.0056, 1e-05, 0.046, 0.046 } }, /* 0.00368, 4.77e-07, 0.0305, 0.0305 */
    { "models/rand-v4-fp32.pth", { 0.039, 0.0049, 0.13, 0.13 } }, /* 0.0257, 0.00321, 0.0845, 0.0845 */
    { "models/tiny-5v1-fp32.pth", { 0.063, 0.0094, 0.21, 0.21 } }, /* 0.0415, 0.00624, 0.136, 0.136 */
    { "models/tiny-5v1-bf16.pth", { 0.028, 1e-05, 0.21, 0.21 } }, /* 0.0183, 3.04e-06, 0.139, 0.139 */
    { "models/rand-v5.1-fp32.pth", { 0.042, 0.0054, 0.14, 0.14 } }, /* 0.0279, 0.0036, 0.0907, 0.0907 */
    { "models/world-7v0-rand-bf16.pth", { 0.041, 1e-05, 0.19, 0.19 } }, /* 0.0273, 2.86e-06, 0.125, 0.125 */
};

static float *la, *lb;
/* int8 RMS error ratios ours / min-max, accumulated over the models */
static double log_ratio_sum;
static int n_ratio;

/* ---- the reference's min-max uint8 scheme, quantize + dequantize ---- */

static float
nz(float v)
{
    return v == 0 ? 1 : v;
}

/*
** W [O][I] (our layout; the reference holds W^T [I][O], so its dim 0 is our
** input index and dim 1 our output index).  Steps as in model.py: subtract
** the per-input and per-output minima (larger dimension first), divide by
** the per-output then per-input maxima, q = clip(floor(w * 256), 0, 255),
** w = (q + 0.5) * ry/16 * rx/16 + my + mx.
*/
static void
minmax_fake_quant(float *w, size_t O, size_t I)
{
    float *mx = calloc(O, sizeof *mx), *rx = calloc(O, sizeof *rx);
    float *my = calloc(I, sizeof *my), *ry = calloc(I, sizeof *ry);

    /* reference: shape[0] = I > shape[1] = O -> my (over dim 1) first */
    for (int pass = 0; pass < 2; pass++) {
        int do_my = (I > O) == (pass == 0);
        if (do_my) {
            for (size_t i = 0; i < I; i++) {
                float m = w[i];
                for (size_t o = 1; o < O; o++)
                    m = w[o * I + i] < m ? w[o * I + i] : m;
                my[i] = m;
                for (size_t o = 0; o < O; o++)
                    w[o * I + i] -= m;
            }
        } else {
            for (size_t o = 0; o < O; o++) {
                float m = w[o * I];
                for (size_t i = 1; i < I; i++)
                    m = w[o * I + i] < m ? w[o * I + i] : m;
                mx[o] = m;
                for (size_t i = 0; i < I; i++)
                    w[o * I + i] -= m;
            }
        }
    }
    for (size_t o = 0; o < O; o++) {
        float m = w[o * I];
        for (size_t i = 1; i < I; i++)
            m = w[o * I + i] > m ? w[o * I + i] : m;
        rx[o] = m;
        for (size_t i = 0; i < I; i++)
            w[o * I + i] /= nz(m);
    }
    for (size_t i = 0; i < I; i++) {
        float m = w[i];
        for (size_t o = 1; o < O; o++)
            m = w[o * I + i] > m ? w[o * I + i] : m;
        ry[i] = m;
        for (size_t o = 0; o < O; o++)
            w[o * I + i] /= nz(m);
    }
    for (size_t o = 0; o < O; o++)
        for (size_t i = 0; i < I; i++) {
            float q = floorf(w[o * I + i] * 256);
            q = q < 0 ? 0 : q > 255 ? 255 : q;
            w[o * I + i] = (q + 0.5f) * (ry[i] / 16) * (rx[o] / 16) + my[i] + mx[o];
        }
    free(mx);
    free(rx);
    free(my);
    free(ry);
}

/* The matrices our int8 strategies quantize. */
static int
is_linear(const char *name)
{
    static const char *suffix[] = { "receptance.weight", "key.weight", "value.weight",
                                    "output.weight", "gate.weight" };
    size_t n = strlen(name);

    if (strcmp(name, "head.weight") == 0)
        return 1;
    for (size_t k = 0; k < sizeof suffix / sizeof suffix[0]; k++) {
        size_t m = strlen(suffix[k]);
        if (n > m && strcmp(name + n - m, suffix[k]) == 0 && name[n - m - 1] == '.')
            return 1;
    }
    return 0;
}

/* SRC as an fp32 safetensors file at OUT, linears min-max fake-quantized. */
static int
write_minmax_copy(const char *src, const char *out)
{
    ckpt *ck = NULL;
    rwkv_err err;
    FILE *f;
    char *hdr;
    size_t hcap = 1 << 20, hlen = 0;
    uint64_t off = 0, n8;
    int ok;

    if (ckpt_open(src, NULL, &ck, &err) != RWKV_OK) {
        printf("write_minmax_copy: %s\n", err.msg);
        return -1;
    }
    hdr = malloc(hcap);
    hlen += (size_t)snprintf(hdr + hlen, hcap - hlen, "{");
    for (size_t i = 0; i < ckpt_count(ck); i++) {
        const ckpt_tensor *t = ckpt_at(ck, i);
        hlen += (size_t)snprintf(hdr + hlen, hcap - hlen, "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[",
                                 hlen > 1 ? "," : "", t->name);
        for (int d = 0; d < t->ndim; d++)
            hlen += (size_t)snprintf(hdr + hlen, hcap - hlen, "%s%lld", d ? "," : "",
                                     (long long)t->shape[d]);
        hlen += (size_t)snprintf(hdr + hlen, hcap - hlen, "],\"data_offsets\":[%llu,%llu]}",
                                 (unsigned long long)off, (unsigned long long)(off + t->numel * 4));
        off += t->numel * 4;
    }
    hlen += (size_t)snprintf(hdr + hlen, hcap - hlen, "}");
    while (hlen % 8)
        hdr[hlen++] = ' ';
    f = fopen(out, "wb");
    n8 = hlen;
    ok = f != NULL && fwrite(&n8, 8, 1, f) == 1 && fwrite(hdr, 1, hlen, f) == hlen;
    for (size_t i = 0; i < ckpt_count(ck) && ok; i++) {
        const ckpt_tensor *t = ckpt_at(ck, i);
        float *buf = malloc(t->numel * 4 + 4);
        ok = ckpt_to_f32(t, buf, t->numel, &err) == RWKV_OK;
        if (ok && t->ndim == 2 && is_linear(t->name))
            minmax_fake_quant(buf, (size_t)t->shape[0], (size_t)t->shape[1]);
        ok = ok && fwrite(buf, 4, t->numel, f) == t->numel;
        free(buf);
    }
    if (f != NULL && fclose(f) != 0)
        ok = 0;
    free(hdr);
    ckpt_close(ck);
    return ok ? 0 : -1;
}

/* ---- runs ---- */

static rwkv_model *
open_model(const char *path, const char *strategy)
{
    rwkv_open_opts oo;
    rwkv_model *m = NULL;
    rwkv_err err;

    memset(&oo, 0, sizeof oo);
    oo.strategy = strategy;
    oo.n_threads = 2;
    if (rwkv_model_open(path, &oo, &m, &err) != RWKV_OK) {
        TEST_CONDF(0, "%s under '%s': %s", path, strategy, err.msg);
        return NULL;
    }
    return m;
}

static double
rms_diff(const float *a, const float *b, size_t n)
{
    double s = 0;

    for (size_t i = 0; i < n; i++)
        s += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
    return s;
}

/*
** Max abs difference between A and B on TOK: token by token (every
** position) and in one call (last logits).  *RMS (may be NULL): root mean
** square difference over the token-by-token positions.
*/
static double
diff_models(rwkv_model *a, rwkv_model *b, const int32_t *tok, size_t n, double *rms)
{
    size_t V = (size_t)rwkv_model_info(a)->n_vocab;
    rwkv_state *sa = NULL, *sb = NULL;
    rwkv_err err;
    double worst = 0, ss = 0;

    rwkv_state_create(a, &sa, &err);
    rwkv_state_create(b, &sb, &err);
    for (size_t t = 0; t < n; t++) {
        double d;
        rwkv_eval(a, &tok[t], 1, sa, la, &err);
        rwkv_eval(b, &tok[t], 1, sb, lb, &err);
        d = test_max_abs_diff(la, lb, V);
        if (!(d <= worst))
            worst = d;
        ss += rms_diff(la, lb, V);
    }
    if (rms != NULL)
        *rms = sqrt(ss / (double)(n * V));
    rwkv_state_reset(a, sa);
    rwkv_state_reset(b, sb);
    if (rwkv_eval(a, tok, n, sa, la, &err) == RWKV_OK &&
        rwkv_eval(b, tok, n, sb, lb, &err) == RWKV_OK) {
        double d = test_max_abs_diff(la, lb, V);
        if (!(d <= worst))
            worst = d;
    } else {
        worst = INFINITY;
    }
    rwkv_state_destroy(sa);
    rwkv_state_destroy(sb);
    return worst;
}

static size_t
json_tokens(const json_value *arr, int32_t **out)
{
    size_t n = arr ? arr->len : 0;
    int32_t *t = malloc((n ? n : 1) * sizeof *t);

    for (size_t i = 0; i < n; i++)
        t[i] = (int32_t)json_at(arr, i)->num;
    *out = t;
    return n;
}

static void
test_model_file(const char *rel, const int32_t *tok, size_t n)
{
    char path[1024], tmp[] = "/tmp/rwkv-prec-XXXXXX";
    rwkv_model *ref, *m;
    double err[NPREC], rms[NPREC];
    const double *bound = NULL;
    int fd;

    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++)
        if (strcmp(bounds[i].file, rel) == 0)
            bound = bounds[i].bound;
    TEST_CONDF(bound != NULL, "%s: no bounds in the table", rel);
    test_fixture_path(path, sizeof path, rel);
    if ((ref = open_model(path, "cpu fp32")) == NULL)
        return;
    for (int p = 0; p < NPREC; p++) {
        err[p] = rms[p] = INFINITY;
        if (p == P_MINMAX) {
            fd = mkstemp(tmp);
            close(fd);
            if (write_minmax_copy(path, tmp) != 0) {
                TEST_CONDF(0, "%s: cannot write the min-max copy", rel);
                unlink(tmp);
                continue;
            }
            m = open_model(tmp, "cpu fp32");
            unlink(tmp);
        } else {
            m = open_model(path, prec_strategy[p]);
        }
        if (m == NULL)
            continue;
        err[p] = diff_models(ref, m, tok, n, &rms[p]);
        rwkv_model_close(m);
        if (p != P_MINMAX && bound != NULL)
            TEST_CONDF(err[p] <= bound[p], "%s %s: max abs logit diff %.3g > bound %.3g", rel,
                       prec_name[p], err[p], bound[p]);
    }
    /* int8 against the reference's scheme, per model: within 15% (two of
     * the fourteen files, tiny-5v1 fp32/bf16, measure 9% worse: their
     * matrices have column structure the per-column min-max absorbs; the
     * other twelve are 1-57% better); over all models (geometric mean of
     * the ratios, measured 0.853, checked in main) it must be better */
    TEST_CONDF(rms[P_FP32I8] <= 1.15 * rms[P_MINMAX],
               "%s: our int8 (RMS logit error %.3g) is worse than the reference's min-max uint8 "
               "(%.3g)", rel, rms[P_FP32I8], rms[P_MINMAX]);
    if (rms[P_MINMAX] > 0 && isfinite(rms[P_FP32I8] / rms[P_MINMAX])) {
        log_ratio_sum += log(rms[P_FP32I8] / rms[P_MINMAX]);
        n_ratio++;
    }
    TEST_INFO("%-32s max|d| bf16 %-8.3g fp16 %-8.3g fp32i8 %-8.3g bf16i8 %-8.3g | RMS fp32i8 "
              "%.3g vs reference min-max u8 %.3g (max %.3g)", rel, err[P_BF16], err[P_FP16],
              err[P_FP32I8], err[P_BF16I8], rms[P_FP32I8], rms[P_MINMAX], err[P_MINMAX]);

    /* a mixed plan: layer 0 int8, the rest fp32 -- error between the two */
    if ((m = open_model(path, "cpu fp32i8 *1 -> cpu fp32")) != NULL) {
        double d = diff_models(ref, m, tok, n, NULL);
        TEST_CONDF(d > 0 && d <= err[P_FP32I8] * 1.5 + 1e-6,
                   "%s: 'cpu fp32i8 *1 -> cpu fp32' differs by %.3g (fp32i8 everywhere: %.3g)",
                   rel, d, err[P_FP32I8]);
        rwkv_model_close(m);
    }
    rwkv_model_close(ref);
}

static void
test_manifest(const char *rel)
{
    json_doc *doc;
    const json_value *root, *runs, *files;
    int32_t *tok = NULL;
    size_t n = 0;

    if ((doc = test_fixture_json(rel)) == NULL)
        return;
    root = json_root(doc);
    runs = json_get(root, "runs");
    files = json_get(root, "model_files");
    /* the medium run's tokens (44) */
    for (size_t i = 0; runs && i < runs->len && tok == NULL; i++) {
        const char *id = json_str(json_at(runs, i), "id");
        if (id && strstr(id, "-M") != NULL)
            n = json_tokens(json_get(json_at(runs, i), "tokens"), &tok);
    }
    TEST_CONDF(tok != NULL && n > 1, "%s: no medium run", rel);
    if (tok != NULL) {
        if (json_str(files, "fp32") != NULL)
            test_model_file(json_str(files, "fp32"), tok, n);
        if (json_str(files, "bf16") != NULL)
            test_model_file(json_str(files, "bf16"), tok, n);
    }
    free(tok);
    json_free(doc);
}

static void
test_world(void)
{
    json_doc *doc;
    const json_value *root, *cases;
    int32_t *tok = NULL;
    size_t n = 0;

    if ((doc = test_fixture_json("world/world-7v0.json")) == NULL)
        return;
    root = json_root(doc);
    cases = json_get(root, "cases");
    for (size_t i = 0; cases && i < cases->len && tok == NULL; i++)
        if (json_get(json_at(cases, i), "tokens") != NULL)
            n = json_tokens(json_get(json_at(cases, i), "tokens"), &tok);
    TEST_CONDF(tok != NULL && n > 1, "world: no tokens");
    if (tok != NULL)
        test_model_file(json_str(root, "model_file"), tok, n);
    free(tok);
    json_free(doc);
}

/* A bf16 checkpoint under cpu bf16 runs on the checkpoint's own bf16 weights:
** one token (matrix-vector, fp32 activations) equals cpu fp32 up to the
** summation order of the kernels. */
static void
test_bf16_same_weights(void)
{
    char path[1024];
    rwkv_model *a, *b;
    rwkv_state *sa = NULL, *sb = NULL;
    rwkv_err err;
    int32_t t = 72;

    test_fixture_path(path, sizeof path, "models/tiny-7v0-bf16.pth");
    a = open_model(path, "cpu fp32");
    b = open_model(path, "cpu bf16");
    if (a == NULL || b == NULL) {
        rwkv_model_close(a);
        rwkv_model_close(b);
        return;
    }
    rwkv_state_create(a, &sa, &err);
    rwkv_state_create(b, &sb, &err);
    rwkv_eval(a, &t, 1, sa, la, &err);
    rwkv_eval(b, &t, 1, sb, lb, &err);
    TEST_CONDF(test_max_abs_diff(la, lb, 256) < 1e-4, "bf16 file: cpu bf16 vs cpu fp32 one token %g",
               test_max_abs_diff(la, lb, 256));
    TEST_COND("bf16 weights take fewer bytes",
              rwkv_model_info(b)->weight_bytes < rwkv_model_info(a)->weight_bytes * 0.8);
    rwkv_state_destroy(sa);
    rwkv_state_destroy(sb);
    rwkv_model_close(a);
    rwkv_model_close(b);
}

int
main(int argc, char **argv)
{
    /* the checks each manifest makes (counted as skipped without it) */
    static const int nchecks[TEST_N_TINY] = { 15, 8, 15, 15, 15, 8, 15, 8 };
    const char *filter = argc < 2 ? NULL : argv[1];

    la = malloc(MAX_VOCAB * sizeof(float));
    lb = malloc(MAX_VOCAB * sizeof(float));
    test_each_tiny(filter, nchecks, test_manifest);
    if (test_picked(filter, "world") && test_have_fixture("world/world-7v0.json", 8))
        test_world();
    if (test_have_fixture("models/tiny-7v0-bf16.pth", 2))
        test_bf16_same_weights();
    if (n_ratio == 0 && test_skipped > 0)
        TEST_SKIP(1, "int8 error ratio over the fixture models: none ran");
    if (n_ratio > 0) {
        double g = exp(log_ratio_sum / n_ratio);
        TEST_CONDF(g < 1.0, "int8: geometric mean of RMS error ratios (ours / reference min-max) "
                   "%.3f over %d models, expected < 1", g, n_ratio);
        TEST_INFO("int8: RMS logit error ours / reference min-max u8, geometric mean over %d "
                  "models: %.3f", n_ratio, g);
    }
    free(la);
    free(lb);
    return TEST_REPORT();
}
