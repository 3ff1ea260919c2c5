/*
** test_ref_models.c -- the forward pass against the reference numbers of
** every model and every run in $RWKV_FIXTURES/tiny/ *.json and
** world/world-7v0.json (docs/testing.md; skipped without the fixtures).
**
** For each run: rnn.logits (all T rows, token by token), rnn.final_state,
** every chunked[] entry (each call's logits, final_state when present),
** from zero states and state-file states, fp32- and bf16-stored files.
** Runs with strategy "cpu bf16" are compared against our float32 output
** with their own (loose, informational) tolerance.  The maximum error per
** model is printed as TEST_INFO.
*/
#include <stdint.h>

#include "../../core/io/json.h"
#include "../../core/rwkv.h"
#include "../harness.h"
#include "fixture_json.h"

#define MAX_VOCAB 65536

static float *logits_buf;

/* Per-model worst errors, printed at the end of each manifest. */
struct worst {
    double logits_fp32;     /* cpu fp32 runs */
    double state_rel;       /* state error / max(1, max|ref|) */
    double logits_bf16;     /* cpu bf16 runs vs our fp32 (-1: none) */
    double logits_bf16b;    /* cpu bf16 runs vs our cpu bf16 (-1: none) */
};

static const char *
fmt_err(char *buf, size_t cap, double v)
{
    if (v < 0)
        snprintf(buf, cap, "n/a");
    else
        snprintf(buf, cap, "%.3g", v);
    return buf;
}

static float *
load_bin(const json_value *ref, size_t want)
{
    char path[1024];
    size_t n;
    float *p;

    if (ref == NULL || json_str(ref, "file") == NULL)
        return NULL;
    p = test_read_f32(test_fixture_path(path, sizeof path, json_str(ref, "file")), &n);
    if (p != NULL && want != 0 && n != want) {
        printf("FAIL %s: %zu floats, expected %zu\n", path, n, want);
        free(p);
        return NULL;
    }
    return p;
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

/* State check per tensor of LAYOUT: |c - ref| <= rel * max(1, max|ref|). */
static void
check_state(const char *what, const json_value *layout, const float *got, size_t len,
            const json_value *ref, double rel, struct worst *w)
{
    float *r = load_bin(ref, len);
    int bad = 0;

    TEST_CONDF(r != NULL, "%s: cannot read the reference state", what);
    if (r == NULL)
        return;
    for (size_t k = 0; k < layout->len; k++) {
        const json_value *e = json_at(layout, k);
        size_t off = (size_t)json_num(e, "offset_floats", 0), n = 1;
        const json_value *sh = json_get(e, "shape");
        double mx = 1, d;
        for (size_t i = 0; i < sh->len; i++)
            n *= (size_t)json_at(sh, i)->num;
        for (size_t i = 0; i < n; i++)
            if (fabs(r[off + i]) > mx)
                mx = fabs(r[off + i]);
        d = test_max_abs_diff(got + off, r + off, n) / mx;
        if (d > w->state_rel)
            w->state_rel = d;
        if (!(d <= rel)) {
            if (bad++ < 3)
                printf("FAIL %s: state tensor %zu (%s) rel err %g > %g\n", what, k,
                       json_str(e, "role"), d, rel);
        }
    }
    TEST_CONDF(bad == 0, "%s: %d state tensors out of tolerance", what, bad);
    free(r);
}

/* BF16: 0 = a cpu fp32 run, 1 = a cpu bf16 run on our fp32, 2 = a cpu bf16
** run on our cpu bf16. */
static void
note_logits(struct worst *w, int bf16, double d)
{
    double *p = bf16 == 2 ? &w->logits_bf16b : bf16 ? &w->logits_bf16 : &w->logits_fp32;
    if (*p < 0)
        *p = 0;
    if (!(d <= *p))
        *p = isnan(d) ? INFINITY : d;
}

/* Fresh state, or the run's state file. */
static int
init_state(rwkv_model *m, rwkv_state *s, const json_value *init, const char *what)
{
    rwkv_err err;
    char path[1024];

    rwkv_state_reset(m, s);
    if (init == NULL || init->type != JSON_OBJECT)
        return 0;
    if (rwkv_state_load_file(m, test_fixture_path(path, sizeof path, json_str(init, "file")), s,
                             &err) != RWKV_OK) {
        TEST_CONDF(0, "%s: state file: %s", what, err.msg);
        return -1;
    }
    return 0;
}

static void
run_tiny(rwkv_model *m, const json_value *layout, const json_value *run, struct worst *w,
         int ours_bf16)
{
    const char *id = json_str(run, "id");
    int bf16 = strcmp(json_str(run, "strategy"), "cpu fp32") != 0 ? 1 + ours_bf16 : 0;
    const json_value *tol = json_get(run, "tolerance");
    double ltol = json_num(tol, "logits_max_abs", 1e-3);
    double stol = json_num(tol, "state_max_abs_rel", 1e-3);
    const json_value *rnn = json_get(run, "rnn"), *chunked = json_get(run, "chunked");
    const rwkv_info *info = rwkv_model_info(m);
    size_t V = (size_t)info->n_vocab;
    int32_t *tok;
    size_t T = json_tokens(json_get(run, "tokens"), &tok);
    rwkv_state *s;
    rwkv_err err;
    char what[256];
    float *ref;

    if (rwkv_state_create(m, &s, &err) != RWKV_OK) {
        TEST_CONDF(0, "%s: %s", id, err.msg);
        free(tok);
        return;
    }
    /* token by token */
    snprintf(what, sizeof what, "%s rnn", id);
    ref = load_bin(json_get(rnn, "logits"), T * V);
    TEST_CONDF(ref != NULL, "%s: no rnn.logits", what);
    if (ref != NULL && init_state(m, s, json_get(run, "init_state"), what) == 0) {
        double worst = 0;
        int ok = 1;
        for (size_t t = 0; t < T && ok; t++) {
            double d;
            ok = rwkv_eval(m, &tok[t], 1, s, logits_buf, &err) == RWKV_OK;
            TEST_CONDF(ok, "%s: eval: %s", what, err.msg);
            d = test_max_abs_diff(logits_buf, ref + t * V, V);
            if (!(d <= worst))
                worst = d;
        }
        note_logits(w, bf16, worst);
        TEST_CONDF(worst <= ltol, "%s: logits max abs err %g > %g", what, worst, ltol);
        if (ok && json_get(rnn, "final_state") != NULL)
            check_state(what, layout, rwkv_state_cdata(s), rwkv_state_len(s),
                        json_get(rnn, "final_state"), stol, w);
        /* the whole sequence in ONE call (longer than the internal pass of
         * 256 tokens for L) ends with the same logits */
        if (ok && T > 1 && init_state(m, s, json_get(run, "init_state"), what) == 0) {
            double d;
            ok = rwkv_eval(m, tok, T, s, logits_buf, &err) == RWKV_OK;
            TEST_CONDF(ok, "%s one call: eval: %s", id, err.msg);
            d = test_max_abs_diff(logits_buf, ref + (T - 1) * V, V);
            note_logits(w, bf16, d);
            TEST_CONDF(d <= ltol, "%s one call of %zu tokens: logits max abs err %g > %g", id, T,
                       d, ltol);
        }
    }
    free(ref);

    /* chunked */
    for (size_t c = 0; chunked && c < chunked->len; c++) {
        const json_value *ch = json_at(chunked, c), *calls = json_get(ch, "calls");
        double worst = 0;
        int ok = 1;

        snprintf(what, sizeof what, "%s chunk%d", id, (int)json_num(ch, "chunk_len", 0));
        ref = load_bin(json_get(ch, "logits"), calls->len * V);
        TEST_CONDF(ref != NULL, "%s: no logits", what);
        if (ref == NULL || init_state(m, s, json_get(run, "init_state"), what) != 0) {
            free(ref);
            continue;
        }
        for (size_t k = 0; k < calls->len && ok; k++) {
            const json_value *cl = json_at(calls, k);
            size_t a = (size_t)json_at(cl, 0)->num, b = (size_t)json_at(cl, 1)->num;
            double d;
            ok = rwkv_eval(m, tok + a, b - a, s, logits_buf, &err) == RWKV_OK;
            TEST_CONDF(ok, "%s: eval: %s", what, err.msg);
            d = test_max_abs_diff(logits_buf, ref + k * V, V);
            if (!(d <= worst))
                worst = d;
        }
        note_logits(w, bf16, worst);
        TEST_CONDF(worst <= ltol, "%s: logits max abs err %g > %g", what, worst, ltol);
        if (ok && json_get(ch, "final_state") != NULL)
            check_state(what, layout, rwkv_state_cdata(s), rwkv_state_len(s),
                        json_get(ch, "final_state"), stol, w);
        free(ref);
    }
    rwkv_state_destroy(s);
    free(tok);
}

static void
test_manifest(const char *rel)
{
    char path[1024];
    json_doc *doc;
    rwkv_err err;
    const json_value *root, *runs, *files;
    rwkv_model *models[2] = { NULL, NULL }, *mbf16 = NULL;
    const char *kinds[2] = { "fp32", "bf16" };
    struct worst w[2];
    rwkv_open_opts ob;

    memset(w, 0, sizeof w);
    w[0].logits_bf16 = w[1].logits_bf16 = -1;
    w[0].logits_bf16b = w[1].logits_bf16b = -1;
    memset(&ob, 0, sizeof ob);
    ob.strategy = "cpu bf16";
    if ((doc = test_fixture_json(rel)) == NULL)
        return;
    root = json_root(doc);
    runs = json_get(root, "runs");
    files = json_get(root, "model_files");
    for (int k = 0; k < 2; k++) {
        const char *f = json_str(files, kinds[k]);
        if (f == NULL)
            continue;
        if (k == 1 && rwkv_model_open(test_fixture_path(path, sizeof path, f), &ob, &mbf16,
                                      &err) != RWKV_OK)
            TEST_CONDF(0, "%s: open under cpu bf16: %s", f, err.msg);
        if (rwkv_model_open(test_fixture_path(path, sizeof path, f), NULL, &models[k], &err) != RWKV_OK)
            TEST_CONDF(0, "%s: open: %s", f, err.msg);
        else
            TEST_CONDF(rwkv_model_info(models[k])->state_len ==
                           (size_t)json_num(root, "state_total_floats", 0),
                       "%s: state length %zu", f, rwkv_model_info(models[k])->state_len);
    }
    for (size_t i = 0; runs && i < runs->len; i++) {
        const json_value *run = json_at(runs, i);
        int k = strcmp(json_str(run, "weights"), "bf16") == 0;
        if (models[k] != NULL)
            run_tiny(models[k], json_get(root, "state_layout"), run, &w[k], 0);
        /* the reference's cpu bf16 runs also against our cpu bf16 */
        if (k == 1 && mbf16 != NULL && strcmp(json_str(run, "strategy"), "cpu bf16") == 0)
            run_tiny(mbf16, json_get(root, "state_layout"), run, &w[k], 1);
    }
    rwkv_model_close(mbf16);
    for (int k = 0; k < 2; k++) {
        if (models[k] == NULL)
            continue;
        char b16[32], b16b[32];
        TEST_INFO("%-32s v%-4s cpu-fp32 logits max err %.3g, state max rel err %.3g, "
                  "cpu-bf16 runs vs our fp32 %s, vs our cpu bf16 %s", json_str(files, kinds[k]),
                  rwkv_model_info(models[k])->version, w[k].logits_fp32, w[k].state_rel,
                  fmt_err(b16, sizeof b16, w[k].logits_bf16),
                  fmt_err(b16b, sizeof b16b, w[k].logits_bf16b));
        rwkv_model_close(models[k]);
    }
    json_free(doc);
}

/* Feed TOK in calls of CHUNK tokens (the chat demo's loop). */
static int
feed(rwkv_model *m, rwkv_state *s, const int32_t *tok, size_t n, size_t chunk, float *out)
{
    rwkv_err err;

    while (n > 0) {
        size_t k = n < chunk ? n : chunk;
        if (rwkv_eval(m, tok, k, s, out, &err) != RWKV_OK) {
            TEST_CONDF(0, "eval: %s", err.msg);
            return -1;
        }
        tok += k;
        n -= k;
    }
    return 0;
}

static void
cmp_logits(const char *what, const json_value *ref, const float *got, size_t V, double tol,
           struct worst *w, int bf16)
{
    float *r = load_bin(ref, V);
    double d;

    TEST_CONDF(r != NULL, "%s: no reference", what);
    if (r == NULL)
        return;
    d = test_max_abs_diff(got, r, V);
    note_logits(w, bf16, d);
    TEST_CONDF(d <= tol, "%s: logits max abs err %g > %g", what, d, tol);
    free(r);
}

/* Case C's chunked runs of TOK[0..T) on M / S: each run's last logits
** against the reference's (KIND as note_logits takes it; SUFFIX ends the
** checks' names). */
static void
world_chunked(rwkv_model *m, rwkv_state *s, const json_value *c, const int32_t *tok, size_t T,
              size_t V, double tol, struct worst *w, int kind, const char *suffix)
{
    const json_value *chunked = json_get(c, "chunked");
    char what[256];

    for (size_t k = 0; chunked != NULL && k < chunked->len; k++) {
        const json_value *ch = json_at(chunked, k);
        size_t cl = (size_t)json_num(ch, "chunk_len", 256);
        rwkv_state_reset(m, s);
        snprintf(what, sizeof what, "%s chunk%zu last_logits%s", json_str(c, "id"), cl, suffix);
        if (feed(m, s, tok, T, cl, logits_buf) == 0)
            cmp_logits(what, json_get(ch, "last_logits"), logits_buf, V, tol, w, kind);
    }
}

/* The chat_demo_flow case C: the greeting, the user's message, then the
** reference's reply tokens fed one by one (the final state must match). */
static void
world_demo_flow(rwkv_model *m, rwkv_state *s, const json_value *c, const json_value *layout,
                size_t V, double tol, struct worst *w)
{
    const json_value *gen = json_get(c, "generation");
    int32_t *tok, *ut;
    size_t T, UT;

    T = json_tokens(json_get(c, "init_tokens"), &tok);
    UT = json_tokens(json_get(c, "user_tokens"), &ut);
    rwkv_state_reset(m, s);
    if (feed(m, s, tok, T, 256, logits_buf) == 0)
        cmp_logits("chat_demo_flow after init", json_get(c, "logits_after_init"),
                   logits_buf, V, tol, w, 0);
    if (feed(m, s, ut, UT, 256, logits_buf) == 0)
        cmp_logits("chat_demo_flow after user", json_get(c, "logits_after_user"),
                   logits_buf, V, tol, w, 0);
    /* feed the reference's generated tokens: the final state must match */
    if (gen != NULL && json_get(c, "final_state") != NULL) {
        int32_t *gt;
        size_t GT = json_tokens(json_get(gen, "tokens"), &gt);
        int ok = 1;
        for (size_t k = 0; k < GT && ok; k++)
            ok = feed(m, s, &gt[k], 1, 1, logits_buf) == 0;
        if (ok)
            check_state("chat_demo_flow final state", layout, rwkv_state_cdata(s),
                        rwkv_state_len(s), json_get(c, "final_state"), 1e-3, w);
        free(gt);
    }
    free(tok);
    free(ut);
}

/* The reference's cpu bf16 cases of CASES also against our cpu bf16, on
** the model MODEL_FILE (a fixture). */
static void
world_our_bf16(const char *model_file, const json_value *cases, size_t V, struct worst *w)
{
    char path[1024];
    rwkv_err err;
    rwkv_open_opts ob;
    rwkv_model *mb = NULL;
    rwkv_state *sb = NULL;

    memset(&ob, 0, sizeof ob);
    ob.strategy = "cpu bf16";
    if (rwkv_model_open(test_fixture_path(path, sizeof path, model_file), &ob,
                        &mb, &err) != RWKV_OK || rwkv_state_create(mb, &sb, &err) != RWKV_OK)
        TEST_CONDF(0, "world: open under cpu bf16: %s", err.msg);
    for (size_t i = 0; mb != NULL && sb != NULL && i < cases->len; i++) {
        const json_value *c = json_at(cases, i);
        const char *id = json_str(c, "id");
        double tol = json_num(json_get(c, "tolerance"), "logits_max_abs", 1e-3);
        char what[256];
        int32_t *tok;
        size_t T;
        if (json_str(c, "strategy") == NULL || strcmp(json_str(c, "strategy"), "cpu bf16") != 0)
            continue;
        T = json_tokens(json_get(c, "tokens"), &tok);
        rwkv_state_reset(mb, sb);
        if (feed(mb, sb, tok, T, 1, logits_buf) == 0) {
            snprintf(what, sizeof what, "%s rnn_last_logits (our cpu bf16)", id);
            cmp_logits(what, json_get(c, "rnn_last_logits"), logits_buf, V, tol, w, 2);
        }
        world_chunked(mb, sb, c, tok, T, V, tol, w, 2, " (our cpu bf16)");
        free(tok);
    }
    rwkv_state_destroy(sb);
    rwkv_model_close(mb);
}

static void
test_world(void)
{
    char path[1024];
    json_doc *doc;
    rwkv_err err;
    rwkv_model *m;
    rwkv_state *s;
    const json_value *root, *cases, *layout;
    struct worst w;
    size_t V;

    memset(&w, 0, sizeof w);
    w.logits_bf16 = w.logits_bf16b = -1;
    if ((doc = test_fixture_json("world/world-7v0.json")) == NULL)
        return;
    root = json_root(doc);
    cases = json_get(root, "cases");
    layout = json_get(root, "state_layout");
    if (rwkv_model_open(test_fixture_path(path, sizeof path, json_str(root, "model_file")), NULL, &m,
                        &err) != RWKV_OK) {
        TEST_CONDF(0, "world: open: %s", err.msg);
        json_free(doc);
        return;
    }
    V = (size_t)rwkv_model_info(m)->n_vocab;
    TEST_CONDF(V == 65536, "world: vocab %zu", V);
    rwkv_state_create(m, &s, &err);
    for (size_t i = 0; i < cases->len; i++) {
        const json_value *c = json_at(cases, i);
        const char *id = json_str(c, "id");
        int bf16 = json_str(c, "strategy") && strcmp(json_str(c, "strategy"), "cpu fp32") != 0;
        double tol = json_num(json_get(c, "tolerance"), "logits_max_abs", 1e-3);
        char what[256];
        int32_t *tok;
        size_t T;

        if (strcmp(id, "chat_demo_flow") == 0) {
            world_demo_flow(m, s, c, layout, V, tol, &w);
            continue;
        }
        T = json_tokens(json_get(c, "tokens"), &tok);
        /* token by token */
        {
            const json_value *all = json_get(c, "rnn_logits_all");
            float *ra = all ? load_bin(all, T * V) : NULL;
            double worst = 0;
            rwkv_state_reset(m, s);
            for (size_t t = 0; t < T; t++) {
                if (feed(m, s, &tok[t], 1, 1, logits_buf) != 0)
                    break;
                if (ra != NULL) {
                    double d = test_max_abs_diff(logits_buf, ra + t * V, V);
                    if (!(d <= worst))
                        worst = d;
                }
            }
            if (all != NULL) {
                TEST_CONDF(ra != NULL, "%s: no rnn_logits_all", id);
                note_logits(&w, bf16, worst);
                TEST_CONDF(worst <= tol, "%s rnn_logits_all: max abs err %g > %g", id, worst, tol);
            }
            free(ra);
            snprintf(what, sizeof what, "%s rnn_last_logits", id);
            cmp_logits(what, json_get(c, "rnn_last_logits"), logits_buf, V, tol, &w, bf16);
            if (json_get(c, "rnn_final_state") != NULL) {
                snprintf(what, sizeof what, "%s rnn_final_state", id);
                check_state(what, layout, rwkv_state_cdata(s), rwkv_state_len(s),
                            json_get(c, "rnn_final_state"), 1e-3, &w);
            }
        }
        world_chunked(m, s, c, tok, T, V, tol, &w, bf16, "");
        free(tok);
    }
    world_our_bf16(json_str(root, "model_file"), cases, V, &w);
    {
        char b16[32], b16b[32];
        TEST_INFO("%-32s v%-4s cpu-fp32 logits max err %.3g, state max rel err %.3g, "
                  "cpu-bf16 cases vs our fp32 %s, vs our cpu bf16 %s", json_str(root, "model_file"),
                  rwkv_model_info(m)->version, w.logits_fp32, w.state_rel,
                  fmt_err(b16, sizeof b16, w.logits_bf16), fmt_err(b16b, sizeof b16b, w.logits_bf16b));
    }
    rwkv_state_destroy(s);
    rwkv_model_close(m);
    json_free(doc);
}

int
main(int argc, char **argv)
{
    /* the checks each manifest makes (counted as skipped without it) */
    static const int nchecks[TEST_N_TINY] = { 1116, 536, 1116, 1116, 926, 398, 926, 398 };
    const char *filter = argc < 2 ? NULL : argv[1];

    logits_buf = malloc(MAX_VOCAB * sizeof(float));
    test_each_tiny(filter, nchecks, test_manifest);
    if (test_picked(filter, "world") && test_have_fixture("world/world-7v0.json", 49))
        test_world();
    free(logits_buf);
    return TEST_REPORT();
}
