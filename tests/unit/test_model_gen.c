/*
** test_model_gen.c -- the one random-model generator (core/model/model_gen.h)
** behind both the benchmark model files and the in-memory --demo / --shape
** models (core/model/model_demo.c):
**   - the value streams are pinned: fixed values for a fixed key, and the
**     --demo model's content fingerprint for seed 3 (a refactor of the
**     generator must not move a single weight);
**   - any split of a stream (pieces, threads) gives the same bytes;
**   - the tensor walk: both orders present the same tensors, the in-memory
**     demo holds exactly them, layer 0 has no v0/v1/v2;
**   - shape names and the refusal of the file-only RWKV-6 shapes in memory.
** Needs no fixtures.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/model/model_gen.h"
#include "../../core/rwkv.h"
#include "../../core/kernels/threadpool.h"
#include "../harness.h"

/* Bits of a float. */
static uint32_t
bits(float f)
{
    uint32_t u;

    memcpy(&u, &f, sizeof u);
    return u;
}

static void
test_streams_pinned(void)
{
    /* recorded from the generators as they were before they were merged */
    static const uint32_t fast[4] = { 0x3e65b430, 0x3e821854, 0x3e76cdc8, 0x3e19d160 };
    static const uint32_t exact[4] = { 0x3e085170, 0x3efbae38, 0x3f712746, 0xbde3e798 };
    mgen_stream f = { 1, 0, 1, -1.0f, 1.0f }, e = { 1, 0, 0, -1.0f, 1.0f };
    float a[4], b[4];

    mgen_fill(&f, 0, 4, CK_F32, a);
    mgen_fill(&e, 0, 4, CK_F32, b);
    for (int i = 0; i < 4; i++) {
        TEST_CONDF(bits(a[i]) == fast[i], "fast stream value %d: 0x%08x", i, (unsigned)bits(a[i]));
        TEST_CONDF(bits(b[i]) == exact[i], "exact stream value %d: 0x%08x", i,
                   (unsigned)bits(b[i]));
    }
    TEST_COND("tensor key of 'emb.weight' under seed 1",
              mgen_key(1, "emb.weight") == 0x2f050771cd349846ULL);
    TEST_COND("keys differ by name", mgen_key(1, "head.weight") != mgen_key(1, "emb.weight"));
    TEST_COND("keys differ by seed", mgen_key(2, "emb.weight") != mgen_key(1, "emb.weight"));
}

/* N elements of S in DT: whole, in uneven pieces, and on a pool; all equal. */
static void
check_splits(const mgen_stream *s, ck_dtype dt, size_t n, tpool *pool, const char *what)
{
    size_t es = ck_dtype_size(dt);
    unsigned char *whole = malloc(n * es), *parts = malloc(n * es), *par = malloc(n * es);
    static const size_t step[] = { 1, 255, 256, 257, 1000, 70001 };

    if (whole == NULL || parts == NULL || par == NULL) {
        TEST_COND("allocation", 0);
        free(whole);
        free(parts);
        free(par);
        return;
    }
    mgen_fill(s, 0, n, dt, whole);
    for (size_t e = 0, k = 0; e < n; k++) {
        size_t m = step[k % (sizeof step / sizeof step[0])];
        if (m > n - e)
            m = n - e;
        mgen_fill(s, e, m, dt, parts + e * es);
        e += m;
    }
    mgen_fill_pool(pool, s, n, dt, par);
    TEST_CONDF(memcmp(whole, parts, n * es) == 0, "%s: pieces == whole", what);
    TEST_CONDF(memcmp(whole, par, n * es) == 0, "%s: threads == whole", what);
    free(whole);
    free(parts);
    free(par);
}

static void
test_splits(void)
{
    tpool *pool = NULL;
    rwkv_err err;
    mgen_stream f = { 77, 12345, 1, -0.5f, 0.25f }, e = { 77, 12345, 0, -0.5f, 0.25f };

    TEST_CONDF(tpool_create(3, &pool, &err) == RWKV_OK, "pool: %s", err.msg);
    check_splits(&f, CK_F32, 300000, pool, "fast f32");
    check_splits(&f, CK_BF16, 300000, pool, "fast bf16");
    check_splits(&e, CK_F32, 300000, pool, "exact f32");
    check_splits(&e, CK_F16, 70000, pool, "exact f16");
    /* the base shifts the stream: element e of base b == element b+e of base 0 */
    {
        mgen_stream z = e;
        float x[8], y[8];
        z.base = 0;
        mgen_fill(&e, 3, 8, CK_F32, x);
        mgen_fill(&z, 12345 + 3, 8, CK_F32, y);
        TEST_COND("base offsets the counter", memcmp(x, y, sizeof x) == 0);
    }
    tpool_destroy(pool);
}

/* mgen_each callbacks. */
struct walk {
    size_t   n;
    uint64_t numel;
    char     names[600][64];
    int      bad_layer0;   /* a v0/v1/v2 tensor in layer 0 */
    int      last_layer;
    int      out_of_order; /* a layer number went down */
};

static int
walk_one(void *ud, const mgen_item *it)
{
    struct walk *w = ud;

    if (w->n < sizeof w->names / sizeof w->names[0])
        snprintf(w->names[w->n], sizeof w->names[0], "%s", it->name);
    w->n++;
    w->numel += it->numel;
    if (it->layer == 0 && (strstr(it->name, "att.v0") || strstr(it->name, "att.v1") ||
                           strstr(it->name, "att.v2")))
        w->bad_layer0 = 1;
    if (it->layer >= 0) {
        if (it->layer < w->last_layer)
            w->out_of_order = 1;
        w->last_layer = it->layer;
    }
    return 0;
}

static int
name_cmp(const void *a, const void *b)
{
    return strcmp(a, b);
}

static int
stop_at_third(void *ud, const mgen_item *it)
{
    (void)it;
    return ++*(int *)ud == 3 ? 42 : 0;
}

static void
test_walk(void)
{
    static const char *shapes[] = { "demo", "demo-v6" };
    struct walk *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    int calls = 0;

    if (a == NULL || b == NULL) {
        TEST_COND("allocation", 0);
        free(a);
        free(b);
        return;
    }
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        memset(a, 0, sizeof *a);
        memset(b, 0, sizeof *b);
        TEST_CONDF(mgen_each(shapes[s], MGEN_ORDER_FILE, walk_one, a) == 0 &&
                   mgen_each(shapes[s], MGEN_ORDER_GLOBALS_FIRST, walk_one, b) == 0,
                   "%s: walks", shapes[s]);
        TEST_CONDF(a->n == b->n && a->n > 0 && a->n <= sizeof a->names / sizeof a->names[0] &&
                   a->numel == b->numel, "%s: both orders, same count (%zu, %zu)", shapes[s],
                   a->n, b->n);
        TEST_CONDF(strcmp(a->names[0], "emb.weight") == 0 &&
                   strcmp(a->names[a->n - 1], "head.weight") == 0 &&
                   strcmp(b->names[5], "head.weight") == 0,
                   "%s: file order ends with head, globals-first has it sixth", shapes[s]);
        qsort(a->names, a->n, sizeof a->names[0], name_cmp);
        qsort(b->names, b->n, sizeof b->names[0], name_cmp);
        TEST_CONDF(memcmp(a->names, b->names, a->n * sizeof a->names[0]) == 0,
                   "%s: both orders, same tensors", shapes[s]);
        TEST_CONDF(!a->bad_layer0 && !a->out_of_order, "%s: layer 0 without v0/v1/v2, layers "
                   "in order", shapes[s]);
    }
    TEST_COND("unknown shape", mgen_each("7b", MGEN_ORDER_FILE, walk_one, a) == RWKV_EINVAL);
    TEST_COND("the callback stops the walk",
              mgen_each("demo", MGEN_ORDER_FILE, stop_at_third, &calls) == 42 && calls == 3);

    /* the in-memory demo model holds exactly the generator's "demo" tensors */
    {
        rwkv_model *m = NULL;
        rwkv_err err;
        memset(a, 0, sizeof *a);
        mgen_each("demo", MGEN_ORDER_GLOBALS_FIRST, walk_one, a);
        TEST_CONDF(rwkv_model_open_demo(3, NULL, &m, &err) == RWKV_OK, "demo: %s", err.msg);
        if (m != NULL) {
            const rwkv_info *in = rwkv_model_info(m);
            TEST_CONDF(in->n_params == a->numel, "demo parameters %llu == table %llu",
                       (unsigned long long)in->n_params, (unsigned long long)a->numel);
            /* recorded before the two generators were merged: the demo's
             * weights, bit for bit (the fingerprint hashes the data) */
            TEST_CONDF(in->fingerprint == 0x1d222c4e225597e8ULL,
                       "demo seed 3 fingerprint %016llx", (unsigned long long)in->fingerprint);
        }
        rwkv_model_close(m);
    }
    free(a);
    free(b);
}

static void
test_shapes(void)
{
    char buf[128];
    rwkv_model *m = NULL;
    rwkv_err err;

    mgen_shape_list(7, buf, sizeof buf);
    TEST_CONDF(strcmp(buf, "demo, 0.1b, 0.4b, 1.5b, 3b") == 0, "RWKV-7 shapes: %s", buf);
    mgen_shape_list(6, buf, sizeof buf);
    TEST_CONDF(strcmp(buf, "demo-v6, 1.6b-v6") == 0, "RWKV-6 shapes: %s", buf);
    mgen_shape_list(0, buf, sizeof buf);
    TEST_CONDF(strcmp(buf, mgen_shape_names()) == 0, "all shapes: %s", buf);
    mgen_shape_list(0, buf, 8);
    TEST_CONDF(strlen(buf) < 8, "short buffer: '%s'", buf);
    TEST_COND("versions", mgen_shape_version("1.5b") == 7 && mgen_shape_version("demo-v6") == 6 &&
                          mgen_shape_version("nope") == 0 && mgen_shape_version(NULL) == 0);
    TEST_CONDF(rwkv_model_open_shape("demo-v6", 1, NULL, &m, &err) == RWKV_EINVAL && m == NULL &&
               strstr(err.msg, "unknown model shape 'demo-v6' (known: demo, 0.1b, 0.4b, 1.5b, "
                      "3b)") != NULL, "RWKV-6 shapes exist only as files: %s", err.msg);
}

int
main(void)
{
    test_streams_pinned();
    test_splits();
    test_walk();
    test_shapes();
    return TEST_REPORT();
}
