/*
** model_demo.c -- the in-memory random-weight models: the --demo model
** (rwkv_model_open_demo) and the benchmark shapes (rwkv_model_open_shape).
**
** The tensors, their shapes and value ranges come from the generator of
** model_gen.c (the same tables that write the benchmark model files); this
** file puts them in memory, owned by the model, and hands them to the
** loader (mdl_build) as if they came from a checkpoint.  Values: element e
** of the whole model (tensors in MGEN_ORDER_GLOBALS_FIRST order, one running
** counter) is a function of (seed, e) only, so the weights do not depend on
** the thread count; the demo uses the exact (53-bit) stream, the benchmark
** shapes the fast one.
*/
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_gen.h"

struct demo_build {
    rwkv_model  *m;
    const rwkv_open_opts *opts;
    ckpt_tensor *t;                       /* [cap] */
    char       (*names)[MGEN_NAME_MAX];   /* [cap] */
    size_t       n, cap;
    uint64_t     seed;
    uint64_t     ctr;      /* random numbers drawn so far */
    int          fast;     /* benchmark shapes: the fast stream */
    int          bf16;     /* linears generated in bfloat16 */
    int          layer;    /* last layer reported to the progress callback */
};

/* mgen_each callback: count the tensors. */
static int
demo_count(void *ud, const mgen_item *it)
{
    (void)it;
    ((struct demo_build *)ud)->cap++;
    return 0;
}

/* mgen_each callback: generate one tensor into memory the model owns. */
static int
demo_add(void *ud, const mgen_item *it)
{
    struct demo_build *d = ud;
    ckpt_tensor *t = &d->t[d->n];
    int bf16 = d->bf16 && it->linear;
    uint64_t numel = 1;
    mgen_stream s = { d->seed, d->ctr, d->fast, it->lo, it->hi };
    void *data;

    if (d->n == d->cap)
        return RWKV_ENOMEM;
    if (it->layer >= 0 && it->layer != d->layer) {
        d->layer = it->layer;
        mdl_progress(d->opts, (double)it->layer / it->n_layer, "generating random weights");
    }
    snprintf(d->names[d->n], MGEN_NAME_MAX, "%s", it->name);
    memset(t, 0, sizeof *t);
    t->name = d->names[d->n];
    t->dtype = bf16 ? CK_BF16 : CK_F32;
    t->ndim = it->nd;
    for (int i = it->nd - 1; i >= 0; i--) {
        t->shape[i] = it->shape[i];
        t->stride[i] = (int64_t)numel;
        numel *= (uint64_t)it->shape[i];
    }
    data = mdl_own(d->m, numel * (bf16 ? 2 : 4));
    if (data == NULL)
        return RWKV_ENOMEM;
    mgen_fill_pool(d->m->pool, &s, numel, t->dtype, data);
    d->ctr += numel;
    t->data = data;
    t->numel = numel;
    t->nbytes = numel * (bf16 ? 2 : 4);
    t->contiguous = 1;
    d->n++;
    return RWKV_OK;
}

static void
demo_free(struct demo_build *d)
{
    if (d == NULL)
        return;
    free(d->t);
    free(d->names);
    free(d);
}

/* Generate the big matrices as bf16 (half the memory and time) when no
** slot of STRATEGY keeps plain fp32 weights. */
static int
demo_want_bf16(const char *strategy)
{
    strat st;

    if (strat_parse(strategy, &st, NULL) != RWKV_OK)
        return 0;
    for (int i = 0; i < st.n_stages; i++)
        if (st.stages[i].dtype == STRAT_FP32 && st.stages[i].quant != 8 &&
            st.stages[i].quant != 4)
            return 0;
    return 1;
}

/*
** The demo model's weights are random, so its raw output is uniform over the
** 256 byte values: mostly invalid UTF-8 and control bytes, shown as U+FFFD.
** To give the interface something legible to show, the demo (only) adds to
** every logit a fixed per-byte bonus shaped like English letter frequencies:
** the final layer norm's bias gets a component DEMO_BIAS_NORM along a unit
** direction U, and head row b gets bonus(b)/DEMO_BIAS_NORM along U, so
** logit(b) gains bonus(b) (plus a small random term from ln(x) . U).  The
** model is still an ordinary RWKV-7 checkpoint in memory: nothing in the
** forward pass knows about it.
*/
#define DEMO_BIAS_NORM 4.0f

/* Bonus of byte B: 2 ln(per-mille frequency in English text / 10); bytes
** that are not printable ASCII (or '\n') get DEMO_BONUS_RARE. */
#define DEMO_BONUS_RARE -12.0f
static float
demo_bonus(int b)
{
    static const unsigned char freq[26] = {
        82, 15, 28, 43, 127, 22, 20, 61, 70, 2, 8, 40, 24,   /* a..m */
        67, 75, 19, 1, 60, 63, 91, 28, 10, 24, 2, 20, 1,     /* n..z */
    };
    double f;

    if (b >= 'a' && b <= 'z')
        f = freq[b - 'a'];
    else if (b >= 'A' && b <= 'Z')
        f = freq[b - 'A'] / 20.0;
    else if (b == ' ')
        f = 180;
    else if (b == '.' || b == ',')
        f = 8;
    else if (b == '\n')
        f = 1;
    else if (b > ' ' && b < 0x7f)
        f = 0.5;
    else
        return DEMO_BONUS_RARE;
    return 2.0f * (float)log(f / 10.0);
}

static void
demo_bias_printable(struct demo_build *d)
{
    float *bias = NULL, *head = NULL;
    int64_t V = 0, C = 0;
    float u;

    for (size_t i = 0; i < d->n; i++) {
        if (strcmp(d->t[i].name, "ln_out.bias") == 0) {
            bias = (float *)(uintptr_t)d->t[i].data;
            C = d->t[i].shape[0];
        } else if (strcmp(d->t[i].name, "head.weight") == 0 && d->t[i].dtype == CK_F32) {
            head = (float *)(uintptr_t)d->t[i].data;
            V = d->t[i].shape[0];
        }
    }
    if (bias == NULL || head == NULL || V > 256)
        return;
    u = 1.0f / sqrtf((float)C);   /* U = (1, 1, ..., 1) / sqrt(C) */
    for (int64_t c = 0; c < C; c++)
        bias[c] += DEMO_BIAS_NORM * u;
    for (int64_t b = 0; b < V; b++) {
        float k = demo_bonus((int)b) / DEMO_BIAS_NORM * u;
        for (int64_t c = 0; c < C; c++)
            head[b * C + c] += k;
    }
}

/* The build state for SHAPE (its tensor arrays sized), or NULL (no memory). */
static struct demo_build *
demo_new(const char *shape)
{
    struct demo_build *d = calloc(1, sizeof *d);

    if (d == NULL)
        return NULL;
    mgen_each(shape, MGEN_ORDER_GLOBALS_FIRST, demo_count, d);
    d->t = calloc(d->cap, sizeof *d->t);
    d->names = calloc(d->cap, sizeof *d->names);
    if (d->t == NULL || d->names == NULL) {
        demo_free(d);
        return NULL;
    }
    d->layer = -1;
    return d;
}

/* Build the RWKV-7 model SHAPE (a name model_gen knows) in memory. */
static int
demo_open(const char *shape, uint64_t seed, const rwkv_open_opts *opts, rwkv_model **out,
          rwkv_err *err)
{
    const char *strategy = opts && opts->strategy ? opts->strategy : "cpu fp32";
    int demo = strcmp(shape, "demo") == 0;
    rwkv_model *m;
    struct demo_build *d;
    struct mdl_src src;
    strat st;
    int rc;

    *out = NULL;
    /* refuse a bad strategy before generating gigabytes */
    if ((rc = strat_check(strategy, 1, &st, err)) != RWKV_OK)
        return rc;
    m = calloc(1, sizeof *m);
    d = demo_new(shape);
    if (m == NULL || d == NULL) {
        free(m);
        demo_free(d);
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    }
    if ((rc = tpool_create(opts ? opts->n_threads : 0, &m->pool, err)) != RWKV_OK) {
        demo_free(d);
        free(m);
        return rc;
    }
    d->m = m;
    d->opts = opts;
    d->seed = seed;
    d->fast = !demo;
    d->bf16 = !demo && demo_want_bf16(strategy);
    if (mgen_each(shape, MGEN_ORDER_GLOBALS_FIRST, demo_add, d) != RWKV_OK) {
        demo_free(d);
        rwkv_model_close(m);
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory building the '%s' model", shape);
    }
    if (demo)
        demo_bias_printable(d);
    memset(&src, 0, sizeof src);
    src.tensors = d->t;
    src.n = d->n;
    src.path = shape;
    rc = mdl_build(m, &src, opts, err);
    demo_free(d);   /* names are no longer needed: the model keeps only the data */
    if (rc != RWKV_OK) {
        rwkv_model_close(m);
        return rc;
    }
    m->info.is_demo = 1;
    m->info.file_size = 0;
    snprintf(m->info.format, sizeof m->info.format, "demo");
    *out = m;
    return RWKV_OK;
}

int
rwkv_model_open_demo(uint64_t seed, const rwkv_open_opts *opts, rwkv_model **out, rwkv_err *err)
{
    return demo_open("demo", seed, opts, out, err);
}

int
rwkv_model_open_shape(const char *shape, uint64_t seed, const rwkv_open_opts *opts,
                      rwkv_model **out, rwkv_err *err)
{
    char names[128];

    *out = NULL;
    /* in memory: the RWKV-7 shapes (the RWKV-6 ones exist only as files) */
    if (shape != NULL && mgen_shape_version(shape) == 7)
        return demo_open(shape, seed, opts, out, err);
    mgen_shape_list(7, names, sizeof names);
    return rwkv_errf(err, RWKV_EINVAL, "unknown model shape '%s' (known: %s)",
                     shape ? shape : "", names);
}
