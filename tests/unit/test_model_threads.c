/*
** test_model_threads.c -- the block math of every architecture gives
** bit-identical logits and states for any thread count.
**
** The element-wise stages run over token rows and the WKV recurrences over
** heads (v5/v6/v7) or channel blocks (v4) on the pool; each range computes
** what one call over everything would.  For each fixture model (v4, v5.0,
** v5.1, v5.2, v6.0, v7.0) a prompt longer than the spreading threshold, a
** single token and a short call are run with 1, 2 and 3 threads and compared
** byte for byte, under cpu fp32 and cpu bf16.  Two models written by the
** project's own generator (RWKV-7 and RWKV-6) run the same checks without
** the fixtures.  And the dealt chunk ranges of one token's WKV
** (mdl_par_task_dealt) cover every head once, one run a thread.
*/
#include <stdint.h>
#include <unistd.h>

#include "../../core/model/model_gen.h"
#include "../../core/model/model_par.h"
#include "../../core/rwkv.h"
#include "../harness.h"

#define N_TOK  70
#define MAX_V  65536

static const char *models[] = {
    "models/tiny-4v0-fp32.pth", "models/rand-v4-fp32.pth",  "models/tiny-5v1-fp32.pth",
    "models/rand-v5.1-fp32.pth", "models/tiny-5v2-fp32.pth", "models/tiny-6v0-fp32.pth",
    "models/tiny-7v0-fp32.pth", "models/rand-7v0-h2-bf16.pth",
};

static const char *strategies[] = { "cpu fp32", "cpu bf16" };

/* Run the three calls with N_THREADS; logits of each call into LOG
 * [3][vocab], the final state into *STATE (malloc'ed).  0 on failure. */
static int
run(const char *path, const char *strategy, int n_threads, float *log, float **state,
    size_t *len, int *vocab)
{
    rwkv_open_opts oo = { 0 };
    rwkv_model *m = NULL;
    rwkv_state *s = NULL;
    rwkv_err err;
    int32_t tok[N_TOK];
    int ok = 0;

    oo.strategy = strategy;
    oo.n_threads = n_threads;
    oo.weight_cache = -1;
    if (rwkv_model_open(path, &oo, &m, &err) != RWKV_OK) {
        TEST_CONDF(0, "%s: %s", path, err.msg);
        return 0;
    }
    *vocab = rwkv_model_info(m)->n_vocab;
    for (int i = 0; i < N_TOK; i++)
        tok[i] = (int32_t)((i * 29 + 7) % (*vocab < 256 ? *vocab : 256));
    if (*vocab <= MAX_V && rwkv_state_create(m, &s, &err) == RWKV_OK &&
        rwkv_eval(m, tok, N_TOK, s, log, &err) == RWKV_OK &&
        rwkv_eval(m, tok + 3, 1, s, log + *vocab, &err) == RWKV_OK &&
        rwkv_eval(m, tok + 9, 5, s, log + 2 * (size_t)*vocab, &err) == RWKV_OK) {
        *len = rwkv_state_len(s);
        *state = malloc(*len * sizeof(float));
        memcpy(*state, rwkv_state_cdata(s), *len * sizeof(float));
        ok = 1;
    } else {
        TEST_CONDF(0, "%s: eval failed: %s", path, err.msg);
    }
    rwkv_state_destroy(s);
    rwkv_model_close(m);
    return ok;
}

/* The 8 checks (2 strategies x threads 2, 3 x logits, state) for PATH. */
static void
check_model(const char *path, const char *label)
{
    static float ref[3 * MAX_V], got[3 * MAX_V];

    for (size_t si = 0; si < sizeof strategies / sizeof strategies[0]; si++) {
        float *s1 = NULL, *sn = NULL;
        size_t len1 = 0, lenn = 0;
        int v1 = 0, vn = 0;

        if (!run(path, strategies[si], 1, ref, &s1, &len1, &v1))
            continue;
        for (int th = 2; th <= 3; th++) {
            if (!run(path, strategies[si], th, got, &sn, &lenn, &vn))
                continue;
            TEST_CONDF(vn == v1 && memcmp(ref, got, 3 * (size_t)v1 * sizeof(float)) == 0,
                       "%s %s: logits with %d threads differ from 1 thread (max %g)",
                       label, strategies[si], th, test_max_abs_diff(ref, got, 3 * (size_t)v1));
            TEST_CONDF(lenn == len1 && memcmp(s1, sn, len1 * sizeof(float)) == 0,
                       "%s %s: state with %d threads differs from 1 thread", label,
                       strategies[si], th);
            free(sn);
            sn = NULL;
        }
        free(s1);
    }
}

/* mdl_par_task_dealt: the ranges of N chunks over ITEMS items, recorded. */
struct dealt_rec {
    size_t lo[64], hi[64];
    int    k;
};

static void
dealt_fn(void *ctx, size_t i0, size_t i1)
{
    struct dealt_rec *r = ctx;

    r->lo[r->k] = i0;
    r->hi[r->k++] = i1;
}

/* Every item covered once, whatever the chunk count and thread count; with
** the chunks claimed in turn, each thread's ranges one contiguous run. */
static void
test_dealt(void)
{
    static const int cases[][3] = {   /* threads, chunks, items */
        { 2, 16, 32 }, { 2, 16, 12 }, { 3, 24, 32 }, { 4, 32, 40 }, { 3, 16, 32 }, { 2, 1, 32 },
    };

    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int p = cases[c][0], n = cases[c][1];
        size_t items = (size_t)cases[c][2], hits[64] = { 0 };
        struct dealt_rec rec = { .k = 0 };
        struct mdl_par j = { dealt_fn, &rec, items, p };
        int once = 1, runs = 1;

        for (int i = 0; i < n; i++)
            mdl_par_task_dealt(&j, i, n);
        for (int i = 0; i < rec.k; i++)
            for (size_t x = rec.lo[i]; x < rec.hi[i]; x++)
                hits[x]++;
        for (size_t x = 0; x < items; x++)
            once &= hits[x] == 1;
        /* claimed in turn: chunk i by thread i % p, its ranges back to back */
        if (n % p == 0)
            for (int i = p; i < n; i++)
                runs &= rec.lo[i] == rec.hi[i - p];
        TEST_CONDF(once, "dealt ranges: %d threads, %d chunks, %zu items: each item once", p, n,
                   items);
        TEST_CONDF(runs, "dealt ranges: %d threads, %d chunks, %zu items: a thread's chunks in "
                   "turn are one run", p, n, items);
    }
}

int
main(void)
{
    static const char *shapes[] = { "demo", "demo-v6" };   /* RWKV-7, RWKV-6 */
    char path[512], dir[256];
    const char *td = getenv("TMPDIR");
    rwkv_err err;

    /* models written by the project's own .pth writer: no fixtures needed */
    snprintf(dir, sizeof dir, "%s/rwkv-threads.XXXXXX", td && *td ? td : "/tmp");
    TEST_COND("temporary directory", mkdtemp(dir) != NULL);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.pth", dir, shapes[i]);
        TEST_CONDF(mgen_save(shapes[i], path, &(mgen_opts){ .dtype = CK_BF16, .seed = 5 }, NULL,
                             &err) == RWKV_OK, "generate %s: %s", shapes[i], err.msg);
        check_model(path, shapes[i]);
        unlink(path);
    }
    rmdir(dir);
    test_dealt();
    /* the reference fixture models: every version */
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        if (!test_have_fixture(models[i], 8))
            continue;
        check_model(test_fixture_path(path, sizeof path, models[i]), models[i]);
    }
    return TEST_REPORT();
}
