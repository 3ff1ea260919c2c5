/*
** test_ckpt.c -- the checkpoint reader on the real fixtures and on small
** valid archives built in memory (dtypes, views, metadata, wrappers).
**
** References: tensor names/shapes from fixtures/models/tiny_models_info.json
** and the run manifests' "arch"; raw values read independently with Python's
** zipfile+struct (noted where hard-coded); the fp32/bf16 fixture pairs (the
** bf16 file is the fp32 weights rounded to nearest-even, recomputed here
** with a separate rounding routine).
*/
#include <math.h>
#include <stdint.h>

#include "../../core/io/ckpt.h"
#include "../../core/kernels/dtype.h"
#include "../../core/io/json.h"
#include "../harness.h"
#include "fixture_json.h"
#include "test_ckpt_build.h"

/* Independent fp32 -> bf16 round-to-nearest-even (not dtype.c's). */
static float
ref_round_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if (isnan(f))
        return f;
    uint32_t lsb = (u >> 16) & 1u;
    u = (u + 0x7fffu + lsb) & 0xffff0000u;
    memcpy(&f, &u, 4);
    return f;
}

static float *
all_f32(const ckpt_tensor *t)
{
    float *v = malloc(t->numel ? t->numel * sizeof *v : 1);
    rwkv_err err;
    if (v && ckpt_to_f32(t, v, t->numel, &err) != RWKV_OK) {
        free(v);
        return NULL;
    }
    return v;
}

static int
shape_is(const ckpt_tensor *t, const json_value *shape)
{
    if (t == NULL || shape == NULL || shape->type != JSON_ARRAY || (size_t)t->ndim != shape->len)
        return 0;
    for (size_t i = 0; i < shape->len; i++)
        if (t->shape[i] != json_at(shape, i)->i64)
            return 0;
    return 1;
}

static void
test_tiny_models(void)
{
    char path[512];
    json_doc *doc;
    rwkv_err err;

    if (json_parse_file(test_fixture_path(path, sizeof path, "models/tiny_models_info.json"),
                        &doc, &err) != RWKV_OK) {
        TEST_CONDF(0, "tiny_models_info.json: %s", err.msg);
        return;
    }
    const json_value *root = json_root(doc);
    for (size_t m = 0; m < root->len; m++) {
        const char *tag = root->keys[m];
        const json_value *tensors = json_get(root->items[m], "tensors");
        ckpt *ck[2] = {NULL, NULL};
        static const char *const kind[2] = {"fp32", "bf16"};

        for (int w = 0; w < 2; w++) {
            char rel[64];
            snprintf(rel, sizeof rel, "models/tiny-%s-%s.pth", tag, kind[w]);
            int rc = ckpt_open(test_fixture_path(path, sizeof path, rel), NULL, &ck[w], &err);
            TEST_CONDF(rc == RWKV_OK, "open %s: %s", rel, err.msg);
            if (rc != RWKV_OK)
                continue;
            TEST_CONDF(strcmp(ckpt_format(ck[w]), "pth") == 0, "%s format", rel);
            TEST_CONDF(ckpt_count(ck[w]) == tensors->len, "%s: %zu tensors, manifest has %zu", rel,
                       ckpt_count(ck[w]), tensors->len);
            int bad_shape = 0, bad_order = 0, bad_dtype = 0, unaligned = 0, nonfinite = 0;
            for (size_t i = 0; i < tensors->len; i++) {
                const json_value *e = json_at(tensors, i);
                const char *name = json_at(e, 0)->str;
                const ckpt_tensor *t = ckpt_find(ck[w], name);
                if (!shape_is(t, json_at(e, 1))) {
                    bad_shape++;
                    continue;
                }
                if (ckpt_at(ck[w], i) != t)
                    bad_order++;
                if (t->dtype != (w ? CK_BF16 : CK_F32) || !t->contiguous)
                    bad_dtype++;
                if ((uintptr_t)t->data % 64 != 0)   /* in place: storages are 64-aligned */
                    unaligned++;
                float *v = all_f32(t);
                for (uint64_t k = 0; v && k < t->numel; k++)
                    if (!isfinite(v[k]) || fabsf(v[k]) > 1e4f)
                        nonfinite++;
                free(v);
            }
            TEST_CONDF(bad_shape == 0, "%s: %d tensors missing or with wrong shape", rel, bad_shape);
            TEST_CONDF(bad_order == 0, "%s: %d tensors out of file order", rel, bad_order);
            TEST_CONDF(bad_dtype == 0, "%s: %d tensors with wrong dtype/layout", rel, bad_dtype);
            TEST_CONDF(unaligned == 0, "%s: %d tensors not used in place (64-aligned)", rel, unaligned);
            TEST_CONDF(nonfinite == 0, "%s: %d non-finite or implausible values", rel, nonfinite);
            TEST_CONDF(ckpt_find(ck[w], "no.such.tensor") == NULL, "%s: find absent", rel);
        }
        /* bf16 file == fp32 weights rounded to nearest even */
        if (ck[0] && ck[1]) {
            uint64_t mism = 0, total = 0;
            for (size_t i = 0; i < ckpt_count(ck[0]); i++) {
                const ckpt_tensor *a = ckpt_at(ck[0], i), *b = ckpt_find(ck[1], a->name);
                if (b == NULL || b->numel != a->numel) {
                    mism++;
                    continue;
                }
                float *va = all_f32(a), *vb = all_f32(b);
                for (uint64_t k = 0; va && vb && k < a->numel; k++, total++)
                    if (ref_round_bf16(va[k]) != vb[k])
                        mism++;
                free(va);
                free(vb);
            }
            TEST_CONDF(mism == 0 && total > 0, "tiny-%s: %llu of %llu bf16 values != round(fp32)",
                       tag, (unsigned long long)mism, (unsigned long long)total);
        }
        ckpt_close(ck[0]);
        ckpt_close(ck[1]);
    }
    json_free(doc);
}

/* The random / World models: shapes from each run manifest's "arch". */
static void
test_arch_models(void)
{
    static const struct { const char *manifest, *model; } cases[] = {
        {"tiny/rand7h2.json", "models/rand-7v0-h2-bf16.pth"},
        {"tiny/randv4.json", "models/rand-v4-fp32.pth"},
        {"tiny/randv51.json", "models/rand-v5.1-fp32.pth"},
        {"world/world-7v0.json", "models/world-7v0-rand-bf16.pth"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char path[512], name[64];
        json_doc *doc;
        ckpt *ck;
        rwkv_err err;

        if ((doc = test_fixture_json(cases[c].manifest)) == NULL)
            continue;
        const json_value *arch = json_get(json_root(doc), "arch");
        int64_t V = (int64_t)json_num(arch, "vocab_size", -1), C = (int64_t)json_num(arch, "n_embd", -1);
        int L = (int)json_num(arch, "n_layer", -1);
        ck_dtype dt = strcmp(json_str(arch, "stored_dtype"), "bfloat16") == 0 ? CK_BF16 : CK_F32;
        int rc = ckpt_open(test_fixture_path(path, sizeof path, cases[c].model), NULL, &ck, &err);
        TEST_CONDF(rc == RWKV_OK, "open %s: %s", cases[c].model, err.msg);
        if (rc == RWKV_OK) {
            const ckpt_tensor *emb = ckpt_find(ck, "emb.weight"), *head = ckpt_find(ck, "head.weight");
            TEST_CONDF(emb && emb->ndim == 2 && emb->shape[0] == V && emb->shape[1] == C &&
                       emb->dtype == dt, "%s: emb.weight shape/dtype", cases[c].model);
            TEST_CONDF(head && head->ndim == 2 && head->shape[0] == V && head->shape[1] == C,
                       "%s: head.weight shape", cases[c].model);
            snprintf(name, sizeof name, "blocks.%d.ln1.weight", L - 1);
            TEST_CONDF(ckpt_find(ck, name) != NULL, "%s: has %s", cases[c].model, name);
            snprintf(name, sizeof name, "blocks.%d.ln1.weight", L);
            TEST_CONDF(ckpt_find(ck, name) == NULL, "%s: no %s", cases[c].model, name);
            /* every emb row finite, plausible (random init ~ N(0,1)) */
            float *v = emb ? all_f32(emb) : NULL;
            int ok = v != NULL;
            for (uint64_t k = 0; ok && k < emb->numel; k++)
                ok = isfinite(v[k]) && fabsf(v[k]) < 100.0f;
            TEST_CONDF(ok, "%s: emb values finite and plausible", cases[c].model);
            free(v);
            ckpt_close(ck);
        }
        json_free(doc);
    }
}

static void
test_states(void)
{
    static const struct { const char *tag; int H, N; ck_dtype dt; } cases[] = {
        {"5v2", 8, 8, CK_F32}, {"6v0", 16, 8, CK_BF16}, {"7v0", 1, 64, CK_BF16},
    };
    for (size_t c = 0; c < 3; c++) {
        char path[512], rel[64];
        ckpt *ck;
        rwkv_err err;
        snprintf(rel, sizeof rel, "states/state-%s-A.pth", cases[c].tag);
        int rc = ckpt_open(test_fixture_path(path, sizeof path, rel), NULL, &ck, &err);
        TEST_CONDF(rc == RWKV_OK, "open %s: %s", rel, err.msg);
        if (rc != RWKV_OK)
            continue;
        TEST_CONDF(ckpt_count(ck) == 12, "%s: 12 tensors", rel);
        int bad = 0;
        for (int l = 0; l < 12; l++) {
            char name[64];
            snprintf(name, sizeof name, "blocks.%d.att.time_state", l);
            const ckpt_tensor *t = ckpt_find(ck, name);
            if (!t || t->ndim != 3 || t->shape[0] != cases[c].H || t->shape[1] != cases[c].N ||
                t->shape[2] != cases[c].N || t->dtype != cases[c].dt) {
                bad++;
                continue;
            }
            float *v = all_f32(t);
            for (uint64_t k = 0; v && k < t->numel; k++)
                if (!isfinite(v[k]))
                    bad++;
            free(v);
        }
        TEST_CONDF(bad == 0, "%s: %d bad time_state tensors", rel, bad);
        ckpt_close(ck);
    }
}

/* Values read with Python's zipfile + struct from the raw data/0 entries. */
static void
test_known_values(void)
{
    static const struct { const char *model; float v[4]; } cases[] = {
        {"models/tiny-5v1-fp32.pth", {-0.569267988204956f, -0.043184638023376465f,
                                      0.36280620098114014f, 0.29735708236694336f}},
        {"models/rand-7v0-h2-bf16.pth", {-0.73828125f, -2.015625f, -1.1640625f, -0.71484375f}},
    };
    for (size_t c = 0; c < 2; c++) {
        char path[512];
        ckpt *ck;
        rwkv_err err;
        if (ckpt_open(test_fixture_path(path, sizeof path, cases[c].model), NULL, &ck, &err)) {
            TEST_CONDF(0, "%s: %s", cases[c].model, err.msg);
            continue;
        }
        float *v = all_f32(ckpt_find(ck, "emb.weight"));
        TEST_CONDF(v && v[0] == cases[c].v[0] && v[1] == cases[c].v[1] && v[2] == cases[c].v[2] &&
                   v[3] == cases[c].v[3], "%s: emb.weight[0][0:4]", cases[c].model);
        free(v);
        ckpt_close(ck);
    }
}

static void
test_dtype(void)
{
    TEST_COND("f16 1.0", dtype_f16_to_f32(0x3c00) == 1.0f);
    TEST_COND("f16 -2", dtype_f16_to_f32(0xc000) == -2.0f);
    TEST_COND("f16 max", dtype_f16_to_f32(0x7bff) == 65504.0f);
    TEST_COND("f16 min subnormal", dtype_f16_to_f32(0x0001) == ldexpf(1.0f, -24));
    TEST_COND("f16 subnormal", dtype_f16_to_f32(0x0200) == ldexpf(1.0f, -15));
    TEST_COND("f16 inf", isinf(dtype_f16_to_f32(0x7c00)));
    TEST_COND("f16 nan", isnan(dtype_f16_to_f32(0x7e00)));
    TEST_COND("f16 -0", dtype_f16_to_f32(0x8000) == 0.0f && signbit(dtype_f16_to_f32(0x8000)));
    TEST_COND("bf16 1.0", dtype_bf16_to_f32(0x3f80) == 1.0f);
    TEST_COND("bf16 -pi-ish", dtype_bf16_to_f32(0xc049) == -3.140625f);
    TEST_COND("to bf16 rne up", dtype_f32_to_bf16(1.0f + ldexpf(1.0f, -8) + ldexpf(1.0f, -20)) == 0x3f81);
    TEST_COND("to bf16 tie even", dtype_f32_to_bf16(1.0f + ldexpf(1.0f, -8)) == 0x3f80);
    TEST_COND("to f16 1/3", dtype_f32_to_f16(1.0f / 3.0f) == 0x3555);
    TEST_COND("to f16 overflow", dtype_f32_to_f16(70000.0f) == 0x7c00);
    TEST_COND("to f16 subnormal", dtype_f32_to_f16(ldexpf(1.0f, -24)) == 0x0001);
    TEST_COND("to f16 65504", dtype_f32_to_f16(65504.0f) == 0x7bff);
    int rt = 1;
    for (uint32_t h = 0; h < 0x7c00; h++)   /* every finite positive half round-trips */
        if (dtype_f32_to_f16(dtype_f16_to_f32((uint16_t)h)) != h)
            rt = 0;
    TEST_COND("f16 round trip", rt);
    TEST_COND("dtype names", strcmp(ck_dtype_name(CK_BF16), "bfloat16") == 0 &&
                             strcmp(ck_dtype_name(CK_F32), "float32") == 0 && ck_dtype_size(CK_I64) == 8);
}

/* Built archives: views, dtypes, wrappers, metadata. */
static int
open_buf(const tb_buf *b, ckpt **ck, rwkv_err *err)
{
    return ckpt_open_mem(b->p, b->n, "mem.pth", NULL, ck, err);
}

static void
test_built(void)
{
    float s12[12];
    uint16_t h4[4] = {0x3c00, 0xc000, 0x3800, 0x0000};      /* 1, -2, 0.5, 0 (fp16) */
    uint16_t b4[4] = {0x3f80, 0x4000, 0xbf00, 0x4040};      /* 1, 2, -0.5, 3 (bf16) */
    double d2[2] = {1.5, -2.25};
    for (int i = 0; i < 12; i++)
        s12[i] = (float)i;
    tb_tensor_spec t[] = {
        /* transposed view: shape (3,2) stride (1,3) over 6 of 12 elements */
        {"tr", "FloatStorage", 4, s12, 12, 0, 2, {3, 2}, {1, 3}},
        /* offset view: row 2 of a 3x4 */
        {"row", "FloatStorage", 4, s12, 12, 8, 1, {4}, {1}},
        {"half", "HalfStorage", 2, h4, 4, 0, 2, {2, 2}, {2, 1}},
        {"bf", "BFloat16Storage", 2, b4, 4, 0, 1, {4}, {1}},
        {"dbl", "DoubleStorage", 8, d2, 2, 0, 1, {2}, {1}},
        {"scalar", "FloatStorage", 4, s12 + 7, 1, 0, 0, {0}, {0}},
        {"empty", "FloatStorage", 4, s12, 0, 0, 2, {0, 5}, {5, 1}},
        {"bcast", "FloatStorage", 4, s12 + 3, 1, 0, 2, {2, 3}, {0, 0}},
    };
    size_t nt = sizeof t / sizeof t[0];
    for (int ordered = 0; ordered < 2; ordered++) {
        tb_buf pk = {0}, z = {0};
        ckpt *ck;
        rwkv_err err;
        float v[16];
        tb_state_pickle(&pk, t, nt, ordered);
        tb_torch_zip(&z, ordered ? "archive" : "some-model.v2", &pk, t, nt, NULL, NULL);
        int rc = open_buf(&z, &ck, &err);
        TEST_CONDF(rc == RWKV_OK, "built archive (ordered=%d): %s", ordered, err.msg);
        if (rc == RWKV_OK) {
            const ckpt_tensor *x = ckpt_find(ck, "tr");
            TEST_COND("tr not contiguous", x && !x->contiguous && x->numel == 6);
            TEST_COND("tr gather", x && ckpt_to_f32(x, v, 6, &err) == RWKV_OK && v[0] == 0 &&
                                   v[1] == 3 && v[2] == 1 && v[3] == 4 && v[4] == 2 && v[5] == 5);
            x = ckpt_find(ck, "row");
            TEST_COND("row view", x && x->contiguous && ckpt_to_f32(x, v, 4, &err) == RWKV_OK &&
                                  v[0] == 8 && v[3] == 11);
            x = ckpt_find(ck, "half");
            TEST_COND("half", x && x->dtype == CK_F16 && ckpt_to_f32(x, v, 4, &err) == RWKV_OK &&
                              v[0] == 1 && v[1] == -2 && v[2] == 0.5f && v[3] == 0);
            x = ckpt_find(ck, "bf");
            TEST_COND("bf16", x && ckpt_to_f32(x, v, 4, &err) == RWKV_OK && v[0] == 1 && v[1] == 2 &&
                              v[2] == -0.5f && v[3] == 3);
            x = ckpt_find(ck, "dbl");
            TEST_COND("f64", x && x->dtype == CK_F64 && ckpt_to_f32(x, v, 2, &err) == RWKV_OK &&
                             v[0] == 1.5f && v[1] == -2.25f);
            x = ckpt_find(ck, "scalar");
            TEST_COND("0-d", x && x->ndim == 0 && x->numel == 1 &&
                             ckpt_to_f32(x, v, 1, &err) == RWKV_OK && v[0] == 7);
            x = ckpt_find(ck, "empty");
            TEST_COND("empty", x && x->numel == 0 && x->nbytes == 0 && x->data != NULL &&
                               ckpt_to_f32(x, v, 0, &err) == RWKV_OK);
            x = ckpt_find(ck, "bcast");
            TEST_COND("broadcast strides", x && ckpt_to_f32(x, v, 6, &err) == RWKV_OK &&
                                           v[0] == 3 && v[5] == 3);
            TEST_COND("to_f32 wrong n", ckpt_to_f32(ckpt_find(ck, "bf"), v, 3, &err) == RWKV_ESHAPE);
            TEST_COND("order", ckpt_count(ck) == nt && strcmp(ckpt_at(ck, 0)->name, "tr") == 0 &&
                               strcmp(ckpt_at(ck, nt - 1)->name, "bcast") == 0 && ckpt_at(ck, nt) == NULL);
            TEST_COND("path", strcmp(ckpt_path(ck), "mem.pth") == 0 && ckpt_file_size(ck) == z.n);
            ckpt_close(ck);
        }
        tb_free(&pk);
        tb_free(&z);
    }
}

/* Misaligned storages (a foreign zip writer) are copied, values intact. */
static void
test_misaligned(void)
{
    float s[5] = {1.25f, -2, 3, 4, 5};
    tb_tensor_spec t[] = {{"w", "FloatStorage", 4, s, 5, 0, 1, {5}, {1}}};
    tb_zipopt opt = {64, 2, 1, 0};
    tb_buf pk = {0}, z = {0};
    ckpt *ck;
    rwkv_err err;
    float v[5];

    tb_state_pickle(&pk, t, 1, 0);
    tb_torch_zip(&z, "m", &pk, t, 1, &opt, NULL);
    int rc = open_buf(&z, &ck, &err);
    TEST_CONDF(rc == RWKV_OK, "misaligned: %s", err.msg);
    if (rc == RWKV_OK) {
        const ckpt_tensor *x = ckpt_find(ck, "w");
        TEST_COND("misaligned copied", x && (uintptr_t)x->data % 4 == 0 &&
                                       ((const uint8_t *)x->data < z.p || (const uint8_t *)x->data >= z.p + z.n));
        TEST_COND("misaligned values", x && ckpt_to_f32(x, v, 5, &err) == RWKV_OK && v[0] == 1.25f && v[4] == 5);
        ckpt_close(ck);
    }
    tb_free(&pk);
    tb_free(&z);
}

/* Wrappers: _rebuild_parameter, _rebuild_from_type_v2, nested {"model": ...}, metadata. */
static void
test_wrappers_meta(void)
{
    float s[3] = {1, 2, 3};
    tb_tensor_spec t[] = {{"a", "FloatStorage", 4, s, 3, 0, 1, {3}, {1}}};
    int64_t sh[1] = {3}, st[1] = {1};
    tb_buf pk = {0}, z = {0};
    ckpt *ck;
    rwkv_err err;
    const char *sv;
    int64_t iv;
    double fv;

    tb_proto(&pk);
    tb_op(&pk, '}');
    tb_unicode(&pk, "model");
    tb_op(&pk, '}');
    tb_op(&pk, '(');
    tb_unicode(&pk, "p");                       /* _rebuild_parameter(tensor, True, OrderedDict()) */
    tb_global(&pk, "torch._utils", "_rebuild_parameter");
    tb_op(&pk, '(');
    tb_tensor(&pk, "FloatStorage", "0", 3, 0, sh, st, 1);
    tb_op(&pk, 0x88);
    tb_global(&pk, "collections", "OrderedDict");
    tb_op(&pk, ')');
    tb_op(&pk, 'R');
    tb_op(&pk, 't');
    tb_op(&pk, 'R');
    tb_unicode(&pk, "q");                       /* _rebuild_from_type_v2(v2, Parameter, args, {}) */
    tb_global(&pk, "torch._tensor", "_rebuild_from_type_v2");
    tb_op(&pk, '(');
    tb_global(&pk, "torch._utils", "_rebuild_tensor_v2");
    tb_global(&pk, "torch.nn.parameter", "Parameter");
    tb_op(&pk, '(');
    tb_pid(&pk, "FloatStorage", "0", "cuda:0", 3);
    tb_int(&pk, 1);
    tb_int(&pk, 2);
    tb_op(&pk, 0x85);
    tb_int(&pk, 1);
    tb_op(&pk, 0x85);
    tb_op(&pk, 0x89);
    tb_op(&pk, '}');
    tb_op(&pk, 't');
    tb_op(&pk, '}');
    tb_op(&pk, 't');
    tb_op(&pk, 'R');
    tb_unicode(&pk, "_strategy");
    tb_unicode(&pk, "cpu fp32");
    tb_unicode(&pk, "_rescale_layer");
    tb_int(&pk, 6);
    tb_unicode(&pk, "_big");
    tb_int(&pk, -5000000000LL);
    tb_unicode(&pk, "_lr");
    tb_float(&pk, 0.125);
    tb_unicode(&pk, "_none");
    tb_op(&pk, 'N');
    tb_op(&pk, 'u');
    tb_op(&pk, 's');
    tb_op(&pk, '.');
    tb_torch_zip(&z, "archive", &pk, t, 1, NULL, NULL);
    int rc = open_buf(&z, &ck, &err);
    TEST_CONDF(rc == RWKV_OK, "wrappers: %s", err.msg);
    if (rc == RWKV_OK) {
        float v[3];
        TEST_COND("parameter", ckpt_find(ck, "p") && ckpt_to_f32(ckpt_find(ck, "p"), v, 3, &err) == 0 &&
                                   v[2] == 3);
        TEST_COND("from_type_v2 view", ckpt_find(ck, "q") && ckpt_find(ck, "q")->numel == 2 &&
                                           ckpt_to_f32(ckpt_find(ck, "q"), v, 2, &err) == 0 &&
                                           v[0] == 2 && v[1] == 3);
        TEST_COND("meta str", ckpt_meta_str(ck, "_strategy", &sv) == RWKV_OK && strcmp(sv, "cpu fp32") == 0);
        TEST_COND("meta int", ckpt_meta_int(ck, "_rescale_layer", &iv) == RWKV_OK && iv == 6);
        TEST_COND("meta long", ckpt_meta_int(ck, "_big", &iv) == RWKV_OK && iv == -5000000000LL);
        TEST_COND("meta float", ckpt_meta_float(ck, "_lr", &fv) == RWKV_OK && fv == 0.125);
        TEST_COND("meta wrong type", ckpt_meta_int(ck, "_strategy", &iv) == RWKV_EINVAL);
        TEST_COND("meta absent", ckpt_meta_str(ck, "_version", &sv) == RWKV_EINVAL);
        TEST_COND("meta not a tensor", ckpt_find(ck, "_strategy") == NULL && ckpt_count(ck) == 2);
        ckpt_close(ck);
    }
    tb_free(&pk);
    tb_free(&z);
}

static void
test_open_errors(void)
{
    ckpt *ck = (ckpt *)1;
    rwkv_err err;
    static const uint8_t legacy[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20,
                                     0x6a, 0xa8, 0x50, 0x19, 0x2e, 0x80, 0x02};
    TEST_COND("missing file", ckpt_open("/nonexistent/x.pth", NULL, &ck, &err) == RWKV_EIO &&
                                  ck == NULL && strstr(err.msg, "/nonexistent/x.pth") != NULL);
    TEST_COND("directory", ckpt_open("/tmp", NULL, &ck, &err) == RWKV_EIO && ck == NULL);
    TEST_COND("empty", ckpt_open_mem("", 0, "e.pth", NULL, &ck, &err) == RWKV_EFORMAT &&
                           strstr(err.msg, "e.pth") == err.msg);
    TEST_COND("text", ckpt_open_mem("hello world, not a model", 24, "t.pth", NULL, &ck, &err) ==
                          RWKV_EFORMAT);
    TEST_COND("legacy torch", ckpt_open_mem(legacy, sizeof legacy, "old.pth", NULL, &ck, &err) ==
                                  RWKV_ENOTSUP && strstr(err.msg, "1.6") != NULL);
    ckpt_close(NULL);
}

/* ckpt_release drops tensor pages from the resident set; every byte must
 * read back the same afterwards (the mapping refaults from the file), for
 * the released tensors and their neighbours. */
static void
test_release(void)
{
    static const char *const rel[] = { "models/world-7v0-rand-bf16.pth",
                                       "models/rand-v5.1-fp32.pth" };

    for (size_t f = 0; f < sizeof rel / sizeof rel[0]; f++) {
        char path[512];
        rwkv_err err;
        ckpt *ck;
        size_t n, total = 0;
        unsigned char **copy;

        if (ckpt_open(test_fixture_path(path, sizeof path, rel[f]), NULL, &ck, &err) != RWKV_OK) {
            TEST_CONDF(0, "open %s: %s", rel[f], err.msg);
            continue;
        }
        n = ckpt_count(ck);
        copy = calloc(n, sizeof *copy);
        for (size_t i = 0; copy != NULL && i < n; i++) {
            const ckpt_tensor *t = ckpt_at(ck, i);
            size_t b = (size_t)t->numel * ck_dtype_size(t->dtype);
            if ((copy[i] = malloc(b ? b : 1)) != NULL)
                memcpy(copy[i], t->data, b);
        }
        /* release every other tensor, then the whole file's range at once */
        for (size_t i = 0; i < n; i += 2) {
            const ckpt_tensor *t = ckpt_at(ck, i);
            ckpt_release(ck, t->data, (uint64_t)t->numel * ck_dtype_size(t->dtype));
        }
        for (int pass = 0; pass < 2; pass++) {
            size_t bad = 0;
            for (size_t i = 0; copy != NULL && i < n; i++) {
                const ckpt_tensor *t = ckpt_at(ck, i);
                size_t b = (size_t)t->numel * ck_dtype_size(t->dtype);
                if (copy[i] == NULL || memcmp(copy[i], t->data, b) != 0)
                    bad++;
                total += b;
                if (pass == 0)
                    ckpt_release(ck, t->data, b);
            }
            TEST_CONDF(bad == 0 && n > 0, "%s: %zu of %zu tensors changed after release (pass %d)",
                       rel[f], bad, n, pass);
        }
        TEST_CONDF(total > 100000, "%s: %zu tensor bytes checked", rel[f], total);
        /* pointers outside the mapping and empty ranges are ignored */
        ckpt_release(ck, &total, sizeof total);
        ckpt_release(ck, NULL, 0);
        for (size_t i = 0; copy != NULL && i < n; i++)
            free(copy[i]);
        free(copy);
        ckpt_close(ck);
    }
}

int
main(void)
{
    test_dtype();
    /* the reference fixtures (counts: the checks each group makes) */
    if (test_have_fixture("models/tiny_models_info.json", 95))
        test_tiny_models();
    if (test_have_fixture("tiny/rand7h2.json", 24))
        test_arch_models();
    if (test_have_fixture("states/state-7v0-A.pth", 9))
        test_states();
    if (test_have_fixture("models/rand-7v0-h2-bf16.pth", 2))
        test_known_values();
    /* checkpoints built here: no fixtures needed */
    test_built();
    test_misaligned();
    test_wrappers_meta();
    test_open_errors();
    if (test_have_fixture("models/world-7v0-rand-bf16.pth", 6))
        test_release();
    return TEST_REPORT();
}
