/*
** test_backend.c -- what of the device backend glue runs without a GPU:
**   - placement: strat_plan + strat_streamed for the reference's cuda
**     strategies (which slots are on which stage, which are streamed);
**   - the refusals, in a CPU-only build ("built without CUDA") and in a CUDA
**     build (backend not registered; registered on a machine without a
**     device: "no CUDA device"; a cuda:K that does not exist);
**   - the state bookkeeping of core/model/backend.h: generation counter, stale
**     flag and link on every state call, and a CPU eval cutting a link;
**   - mdl_cpu_layers / mdl_cpu_head, the CPU half of a mixed plan: running
**     the layers as two ranges gives exactly the logits and state of one
**     rwkv_eval, for v5.0, v5.1, v5.2, v6 and v7 (v7: v_first is made by
**     the real layer 0 only).
*/
#include <stdint.h>

#include "../../core/model/backend.h"
#include "../../core/model/model.h"
#include "../../gpu/gpu.h"
#include "../harness.h"

static void
test_placement(void)
{
    static const struct {
        const char *s;
        int         n_layer;
        const char *plan;      /* stage of each slot (n_layer + 1) */
        const char *streamed;  /* 1 = streamed */
    } cases[] = {
        { "cuda fp16", 4, "00000", "00000" },
        { "cuda fp16i8 *2 -> cuda fp16", 4, "00111", "00000" },
        { "cuda fp16i8 *2+", 4, "00000", "00110" },   /* head slot stays */
        { "cuda fp16 *0+ -> cpu fp32 *1", 3, "0001", "1110" },
        { "cuda fp16 *2 -> cpu fp32", 4, "00111", "00000" },
        { "cuda:0 fp16 *2 -> cuda:1 fp16", 4, "00111", "00000" },
        { "cuda fp16 *1 -> cuda fp16i8 *1+ -> cpu fp32 *1", 4, "01112", "00110" },
        { "cuda fp16i4 *2 -> cpu fp32i4", 4, "00111", "00000" },
        { "cuda fp16i4 *2+", 4, "00000", "00110" },
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        strat st;
        rwkv_err err;
        int stage[16], str[16];
        char got[17], gs[17];
        int L = cases[i].n_layer;

        TEST_CONDF(strat_parse(cases[i].s, &st, &err) == RWKV_OK, "parse '%s'", cases[i].s);
        strat_plan(&st, L, stage);
        strat_streamed(&st, L, stage, str);
        for (int l = 0; l <= L; l++) {
            got[l] = (char)('0' + stage[l]);
            gs[l] = (char)('0' + str[l]);
        }
        got[L + 1] = gs[L + 1] = '\0';
        TEST_CONDF(strcmp(got, cases[i].plan) == 0 && strcmp(gs, cases[i].streamed) == 0,
                   "'%s' L%d: plan %s streamed %s, expected %s %s", cases[i].s, L, got, gs,
                   cases[i].plan, cases[i].streamed);
        TEST_CONDF(strat_has_device(&st) == (strstr(cases[i].s, "cuda") != NULL),
                   "'%s': has device", cases[i].s);
    }
}

static void
test_refusals(void)
{
    strat st;
    rwkv_err err;
    rwkv_model *m = NULL;
    rwkv_open_opts oo = { 0 };
    int rc, n = 0;

    /* no backend registered (core alone, e.g. a library user who did not
     * call gpu_backend_register) */
    rwkv_backend_register(NULL);
    rwkv_err_clear(&err);
    rc = strat_check("cuda fp16", 0, &st, &err);
    TEST_CONDF(rc == RWKV_ENOTSUP && (gpu_compiled() ? strstr(err.msg, "not registered") != NULL
                                                    : strstr(err.msg, "built without CUDA") != NULL),
               "unregistered: %d '%s'", rc, err.msg);
    TEST_COND("cpu plans need no backend", strat_check("cpu fp32 *1 -> cpu bf16", 0, &st, &err) ==
                                               RWKV_OK);

    gpu_backend_register();
    TEST_COND("the stub registers nothing, the CUDA build the cuda backend",
              (rwkv_backend_get() != NULL) == (gpu_compiled() != 0));
    if (gpu_compiled())
        gpu_device_count(&n, &err);
    rwkv_err_clear(&err);
    rc = strat_check("cuda fp16 *1 -> cpu fp32", 0, &st, &err);
    if (!gpu_compiled())
        TEST_CONDF(rc == RWKV_ENOTSUP && strstr(err.msg, "built without CUDA") != NULL,
                   "cpu-only build: %d '%s'", rc, err.msg);
    else if (n == 0)
        TEST_CONDF(rc == RWKV_ENOTSUP && strncmp(err.msg, "no CUDA device", 14) == 0 &&
                   strchr(err.msg, '\n') == NULL,
                   "cuda build, no device: one line starting 'no CUDA device': %d '%s'", rc,
                   err.msg);
    else
        TEST_CONDF(rc == RWKV_OK, "cuda build with %d devices: %d '%s'", n, rc, err.msg);
    if (gpu_compiled() && n > 0) {
        char s[64];
        snprintf(s, sizeof s, "cuda:%d fp16", n);
        rc = strat_check(s, 0, &st, &err);
        TEST_CONDF(rc == RWKV_ENOTSUP && strstr(err.msg, "does not exist") != NULL,
                   "'%s': %d '%s'", s, rc, err.msg);
    }
    /* the model refuses before building anything, whatever the build */
    oo.strategy = "cuda fp16";
    rc = rwkv_model_open_demo(1, &oo, &m, &err);
    if (!gpu_compiled() || n == 0)
        TEST_CONDF(rc == RWKV_ENOTSUP && m == NULL, "demo on cuda without a GPU: %d '%s'", rc,
                   err.msg);
    rwkv_model_close(m);
    /* v4 on cuda: a clear refusal where a device exists */
    if (gpu_compiled() && n > 0 && test_have_fixture("models/tiny-4v0-fp32.pth", 1)) {
        char p[1024];
        m = NULL;
        rc = rwkv_model_open(test_fixture_path(p, sizeof p, "models/tiny-4v0-fp32.pth"), &oo, &m,
                             &err);
        TEST_CONDF(rc == RWKV_ENOTSUP && strstr(err.msg, "v5.x-v7") != NULL, "v4 on cuda: '%s'",
                   err.msg);
        rwkv_model_close(m);
    }
    rwkv_backend_register(NULL);
}

/* A backend whose check passes (a machine with the device): its stages are
** accepted, mps and dml still refused by name. */
static int
yes_check(const strat *s, rwkv_err *err)
{
    (void)s;
    (void)err;
    return RWKV_OK;
}

static void
test_accepted(void)
{
    static const rwkv_backend yes = { "yes", yes_check, NULL, NULL, NULL };
    strat st;
    rwkv_err err;
    int rc;

    rwkv_backend_register(&yes);
    rwkv_err_clear(&err);
    rc = strat_check("cuda fp16", 0, &st, &err);
    TEST_CONDF(rc == RWKV_OK, "a device the backend can run: accepted (%d '%s')", rc, err.msg);
    rc = strat_check("cuda fp16i8 *2 -> cpu fp32", 0, &st, &err);
    TEST_CONDF(rc == RWKV_OK, "cuda then cpu: accepted (%d '%s')", rc, err.msg);
    rc = strat_check("mps fp32", 0, &st, &err);
    TEST_CONDF(rc == RWKV_ENOTSUP && strstr(err.msg, "device 'mps' (stage 1)") != NULL,
               "mps: refused by name ('%s')", err.msg);
    rc = strat_check("cuda fp16 *1 -> dml fp32", 0, &st, &err);
    TEST_CONDF(rc == RWKV_ENOTSUP && strstr(err.msg, "device 'dml' (stage 2)") != NULL,
               "dml: refused by name ('%s')", err.msg);
    rwkv_backend_register(NULL);
}

static void
test_state_flags(void)
{
    rwkv_model *m = NULL;
    rwkv_state *a = NULL, *b = NULL;
    rwkv_err err;
    struct mdl_state_link link;
    uint64_t g;
    int32_t tok[3] = { 1, 2, 3 };
    float *logits;

    TEST_COND("open demo", rwkv_model_open_demo(1, NULL, &m, &err) == RWKV_OK);
    rwkv_state_create(m, &a, &err);
    rwkv_state_create(m, &b, &err);
    logits = malloc(256 * sizeof(float));
    TEST_COND("a fresh state: generation 1 or more, host current, no link",
              a->gen >= 1 && a->host_stale == 0 && a->link == NULL);
    g = a->gen;
    (void)rwkv_state_cdata(a);
    TEST_COND("cdata does not change the generation", a->gen == g);
    (void)rwkv_state_len(a);
    TEST_COND("len does not change the generation", a->gen == g);
    (void)rwkv_state_data(a);
    TEST_COND("data (writable) bumps the generation", a->gen > g);
    g = a->gen;
    rwkv_state_reset(m, a);
    TEST_COND("reset bumps the generation", a->gen > g);
    g = a->gen;
    {
        uint64_t gb = b->gen;
        rwkv_state_copy(b, a);
        TEST_COND("copy bumps the destination only", b->gen > gb && a->gen == g);
        gb = b->gen;
        rwkv_state_copy(b, b);
        TEST_COND("copy onto itself changes nothing", b->gen == gb);
    }

    /* a link as a backend sets it (host current, so no pull is needed) */
    memset(&link, 0, sizeof link);
    link.bound = a;
    link.gen = a->gen;
    a->link = &link;
    mdl_state_touch(a);
    TEST_COND("touch: the backend's copy is outdated", link.gen != a->gen && a->host_stale == 0);
    mdl_state_release(a);
    TEST_COND("release cuts both ends", a->link == NULL && link.bound == NULL);
    link.bound = a;
    a->link = &link;
    TEST_COND("CPU eval", rwkv_eval(m, tok, 3, a, logits, &err) == RWKV_OK);
    TEST_COND("a CPU eval takes the state back from the backend", a->link == NULL &&
              link.bound == NULL);
    link.bound = b;
    b->link = &link;
    rwkv_state_destroy(b);
    TEST_COND("destroying a state clears the backend's pointer", link.bound == NULL);
    rwkv_state_destroy(a);
    free(logits);
    rwkv_model_close(m);
}

/* Logits and state of one eval vs the same layers as two CPU ranges, on
** FILE (a fixture: NCHECK checks, skipped without it) or the demo model. */
static void
test_cpu_ranges(const char *file, int ncheck)
{
    char p[1024];
    rwkv_model *m = NULL;
    rwkv_state *s1 = NULL, *s2 = NULL;
    rwkv_err err;
    int32_t tok[20];
    float *a, *b;
    size_t C, V, t = sizeof tok / sizeof tok[0];

    if (file == NULL) {
        file = "demo";
        if (rwkv_model_open_demo(1, NULL, &m, &err) != RWKV_OK) {
            TEST_CONDF(0, "open demo: %s", err.msg);
            return;
        }
    } else if (!test_have_fixture(file, ncheck)) {
        return;
    } else if (rwkv_model_open(test_fixture_path(p, sizeof p, file), NULL, &m, &err) != RWKV_OK) {
        TEST_CONDF(0, "open %s: %s", file, err.msg);
        return;
    }
    C = (size_t)m->C;
    V = (size_t)m->V;
    a = malloc(V * sizeof *a);
    b = malloc(V * sizeof *b);
    rwkv_state_create(m, &s1, &err);
    rwkv_state_create(m, &s2, &err);
    for (size_t i = 0; i < t; i++)
        tok[i] = (int32_t)((i * 37 + 11) % V);
    for (int split = 1; split < m->n_layer; split += (m->n_layer > 4 ? 5 : 1)) {
        rwkv_state_reset(m, s1);
        rwkv_state_reset(m, s2);
        rwkv_eval(m, tok, t, s1, a, &err);
        for (size_t q = 0; q < t; q++)
            mdl_embed(m, tok[q], m->ws.x + q * C);
        mdl_cpu_layers(m, 0, split, t, rwkv_state_data(s2));
        mdl_cpu_layers(m, split, m->n_layer, t, rwkv_state_data(s2));
        mdl_cpu_head(m, t, b);
        TEST_CONDF(memcmp(a, b, V * sizeof *a) == 0 &&
                       memcmp(rwkv_state_cdata(s1), rwkv_state_cdata(s2),
                              rwkv_state_len(s1) * sizeof(float)) == 0,
                   "%s: layers [0,%d) + [%d,%d) on the CPU == one eval (max diff %g)", file,
                   split, split, m->n_layer, test_max_abs_diff(a, b, V));
    }
    rwkv_state_destroy(s1);
    rwkv_state_destroy(s2);
    free(a);
    free(b);
    rwkv_model_close(m);
}

int
main(void)
{
    test_placement();
    test_refusals();
    test_accepted();
    test_state_flags();
    test_cpu_ranges(NULL, 0);
    test_cpu_ranges("models/tiny-5v1-fp32.pth", 3);
    test_cpu_ranges("models/rand-v5.1-fp32.pth", 1);
    test_cpu_ranges("models/tiny-5v2-fp32.pth", 3);
    test_cpu_ranges("models/tiny-6v0-fp32.pth", 3);
    test_cpu_ranges("models/tiny-7v0-fp32.pth", 3);
    test_cpu_ranges("models/rand-7v0-h2-bf16.pth", 2);
    return TEST_REPORT();
}
