/*
** model_gen.c -- the random-weight model generator: one table of shapes
** and tensors, the value streams, and the benchmark model files.  The
** in-memory --demo / --shape models (model_demo.c) walk the same tables
** (mgen_each) and draw from the same streams (mgen_fill).  See model_gen.h.
**
** Files: each tensor is generated in chunks of MGEN_CHUNK elements: the chunk is
** cut into MGEN_PARTS parts that the pool's threads fill (value, dtype
** conversion) and CRC in parallel; the part CRCs are combined in order and
** the chunk goes to the writer.  Element e of tensor T is a function of
** (seed, hash of T's name, e) only, so files are identical for any thread
** count.
*/
#include "model_gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/ckpt_write.h"
#include "../hash.h"
#include "../kernels/kernels.h"
#include "../mem.h"
#include "../kernels/simd.h"
#include "../kernels/threadpool.h"
#include "../io/zipr.h"

/* Elements per chunk handed to the writer (16 MiB of fp32). */
#define MGEN_CHUNK ((uint64_t)4 << 20)
/* Parts per chunk (CRC'd separately, then combined). */
#define MGEN_PARTS 64
/* Elements converted per step inside a part. */
#define MGEN_STEP 256
/* Elements per task of mgen_fill_pool. */
#define MGEN_FILL_BLOCK 65536
/* Width the value ranges below are written for; matrices marked "scaled"
** use range * sqrt(MGEN_REF_C / C) so activations keep their size. */
#define MGEN_REF_C 128

struct mgen_shape {
    const char *name;
    int         ver;            /* 6 or 7 */
    int         n_layer, C, N, F, V;
    int         d_w, d_a, d_v, d_g;   /* v7 LoRA dims */
    int         d_mix, d_decay;       /* v6 LoRA dims */
};

static const struct mgen_shape mgen_shapes[] = {
    { "demo", 7, 2, 128, 64, 512, 256, 32, 32, 32, 32, 0, 0 },
    { "demo-v6", 6, 2, 128, 64, 448, 256, 0, 0, 0, 0, 32, 64 },
    { "0.1b", 7, 12, 768, 64, 3072, 65536, 64, 64, 32, 128, 0, 0 },
    { "0.4b", 7, 24, 1024, 64, 4096, 65536, 64, 64, 64, 128, 0, 0 },
    { "1.5b", 7, 24, 2048, 64, 8192, 65536, 96, 96, 64, 256, 0, 0 },
    { "3b", 7, 32, 2560, 64, 10240, 65536, 96, 96, 64, 320, 0, 0 },
    { "1.6b-v6", 6, 24, 2048, 64, 7168, 65536, 0, 0, 0, 0, 32, 64 },
};

static const char mgen_names[] = "demo, demo-v6, 0.1b, 0.4b, 1.5b, 3b, 1.6b-v6";

/* Symbolic dims of the tables. */
enum { G_C = -1, G_F = -2, G_V = -3, G_H = -4, G_N = -5, G_DW = -6, G_DA = -7, G_DV = -8,
       G_DG = -9, G_DM = -10, G_DM5 = -11, G_DD = -12 };

struct mgen_spec {
    const char *name;      /* after "blocks.N." (or the full name for globals) */
    int         nd;
    int         shape[3];
    float       lo, hi;    /* at MGEN_REF_C */
    int         layer1;    /* only in layers >= 1 (v7 v0/v1/v2) */
    int         scaled;    /* range * sqrt(MGEN_REF_C / C) */
    int         linear;    /* a W x matrix (mgen_item.linear) */
};

/* RWKV-7 layer tensors, in the released checkpoints' order. */
static const struct mgen_spec mgen_v7[] = {
    { "ln1.weight", 1, { G_C }, 0.8f, 1.2f, 0, 0, 0 },
    { "ln1.bias", 1, { G_C }, -0.1f, 0.1f, 0, 0, 0 },
    { "ln2.weight", 1, { G_C }, 0.8f, 1.2f, 0, 0, 0 },
    { "ln2.bias", 1, { G_C }, -0.1f, 0.1f, 0, 0, 0 },
    { "att.x_r", 3, { 1, 1, G_C }, 0.0f, 1.0f, 0, 0, 0 },
    { "att.x_w", 3, { 1, 1, G_C }, 0.0f, 1.0f, 0, 0, 0 },
    { "att.x_k", 3, { 1, 1, G_C }, 0.0f, 1.0f, 0, 0, 0 },
    { "att.x_v", 3, { 1, 1, G_C }, 0.0f, 1.0f, 0, 0, 0 },
    { "att.x_a", 3, { 1, 1, G_C }, 0.0f, 1.0f, 0, 0, 0 },
    { "att.x_g", 3, { 1, 1, G_C }, 0.0f, 1.0f, 0, 0, 0 },
    { "att.w0", 3, { 1, 1, G_C }, -2.0f, 1.0f, 0, 0, 0 },
    { "att.w1", 2, { G_C, G_DW }, -0.1f, 0.1f, 0, 1, 0 },
    { "att.w2", 2, { G_DW, G_C }, -0.1f, 0.1f, 0, 0, 0 },
    { "att.a0", 3, { 1, 1, G_C }, -1.0f, 1.0f, 0, 0, 0 },
    { "att.a1", 2, { G_C, G_DA }, -0.1f, 0.1f, 0, 1, 0 },
    { "att.a2", 2, { G_DA, G_C }, -0.1f, 0.1f, 0, 0, 0 },
    { "att.v0", 3, { 1, 1, G_C }, -1.0f, 1.0f, 1, 0, 0 },
    { "att.v1", 2, { G_C, G_DV }, -0.1f, 0.1f, 1, 1, 0 },
    { "att.v2", 2, { G_DV, G_C }, -0.1f, 0.1f, 1, 0, 0 },
    { "att.g1", 2, { G_C, G_DG }, -0.1f, 0.1f, 0, 1, 0 },
    { "att.g2", 2, { G_DG, G_C }, -0.2f, 0.2f, 0, 0, 0 },
    { "att.k_k", 3, { 1, 1, G_C }, 0.5f, 1.0f, 0, 0, 0 },
    { "att.k_a", 3, { 1, 1, G_C }, 0.5f, 1.0f, 0, 0, 0 },
    { "att.r_k", 2, { G_H, G_N }, -0.5f, 0.5f, 0, 0, 0 },
    { "att.receptance.weight", 2, { G_C, G_C }, -0.15f, 0.15f, 0, 1, 1 },
    { "att.key.weight", 2, { G_C, G_C }, -0.15f, 0.15f, 0, 1, 1 },
    { "att.value.weight", 2, { G_C, G_C }, -0.15f, 0.15f, 0, 1, 1 },
    { "att.output.weight", 2, { G_C, G_C }, -0.15f, 0.15f, 0, 1, 1 },
    { "att.ln_x.weight", 1, { G_C }, 0.8f, 1.2f, 0, 0, 0 },
    { "att.ln_x.bias", 1, { G_C }, -0.1f, 0.1f, 0, 0, 0 },
    { "ffn.x_k", 3, { 1, 1, G_C }, 0.0f, 1.0f, 0, 0, 0 },
    { "ffn.key.weight", 2, { G_F, G_C }, -0.15f, 0.15f, 0, 1, 1 },
    { "ffn.value.weight", 2, { G_C, G_F }, -0.08f, 0.08f, 0, 1, 1 },
};

/*
** RWKV-6 layer tensors (the v6 class of the reference: five-way
** data-dependent token shift, LoRA decay).  time_decay is the raw decay
** (w = exp(-exp(time_decay + LoRA))) in the range of trained models'
** initialisation, time_faaaa the per-channel bonus.
*/
static const struct mgen_spec mgen_v6[] = {
    { "ln1.weight", 1, { G_C }, 0.8f, 1.2f, 0, 0, 0 },
    { "ln1.bias", 1, { G_C }, -0.1f, 0.1f, 0, 0, 0 },
    { "ln2.weight", 1, { G_C }, 0.8f, 1.2f, 0, 0, 0 },
    { "ln2.bias", 1, { G_C }, -0.1f, 0.1f, 0, 0, 0 },
    { "att.time_maa_x", 3, { 1, 1, G_C }, 0.0f, 1.0f, 0, 0, 0 },
    { "att.time_maa_w", 3, { 1, 1, G_C }, 0.0f, 1.0f, 0, 0, 0 },
    { "att.time_maa_k", 3, { 1, 1, G_C }, 0.0f, 1.0f, 0, 0, 0 },
    { "att.time_maa_v", 3, { 1, 1, G_C }, 0.0f, 1.0f, 0, 0, 0 },
    { "att.time_maa_r", 3, { 1, 1, G_C }, 0.0f, 1.0f, 0, 0, 0 },
    { "att.time_maa_g", 3, { 1, 1, G_C }, 0.0f, 1.0f, 0, 0, 0 },
    { "att.time_maa_w1", 2, { G_C, G_DM5 }, -0.1f, 0.1f, 0, 1, 0 },
    { "att.time_maa_w2", 3, { 5, G_DM, G_C }, -0.1f, 0.1f, 0, 0, 0 },
    { "att.time_decay", 3, { 1, 1, G_C }, -6.0f, -1.0f, 0, 0, 0 },
    { "att.time_decay_w1", 2, { G_C, G_DD }, -0.1f, 0.1f, 0, 1, 0 },
    { "att.time_decay_w2", 2, { G_DD, G_C }, -0.1f, 0.1f, 0, 0, 0 },
    { "att.time_faaaa", 2, { G_H, G_N }, -0.5f, 1.0f, 0, 0, 0 },
    { "att.receptance.weight", 2, { G_C, G_C }, -0.15f, 0.15f, 0, 1, 1 },
    { "att.key.weight", 2, { G_C, G_C }, -0.15f, 0.15f, 0, 1, 1 },
    { "att.value.weight", 2, { G_C, G_C }, -0.15f, 0.15f, 0, 1, 1 },
    { "att.output.weight", 2, { G_C, G_C }, -0.15f, 0.15f, 0, 1, 1 },
    { "att.gate.weight", 2, { G_C, G_C }, -0.15f, 0.15f, 0, 1, 1 },
    { "att.ln_x.weight", 1, { G_C }, 0.8f, 1.2f, 0, 0, 0 },
    { "att.ln_x.bias", 1, { G_C }, -0.1f, 0.1f, 0, 0, 0 },
    { "ffn.time_maa_k", 3, { 1, 1, G_C }, 0.0f, 1.0f, 0, 0, 0 },
    { "ffn.time_maa_r", 3, { 1, 1, G_C }, 0.0f, 1.0f, 0, 0, 0 },
    { "ffn.key.weight", 2, { G_F, G_C }, -0.15f, 0.15f, 0, 1, 1 },
    { "ffn.receptance.weight", 2, { G_C, G_C }, -0.15f, 0.15f, 0, 1, 1 },
    { "ffn.value.weight", 2, { G_C, G_F }, -0.08f, 0.08f, 0, 1, 1 },
};

/* Before the layers (ln0 inside layer 0 in the released files) and after. */
static const struct mgen_spec mgen_emb = { "emb.weight", 2, { G_V, G_C }, -1.0f, 1.0f, 0, 0, 0 };
static const struct mgen_spec mgen_ln0[] = {
    { "ln0.weight", 1, { G_C }, 0.8f, 1.2f, 0, 0, 0 },
    { "ln0.bias", 1, { G_C }, -0.1f, 0.1f, 0, 0, 0 },
};
static const struct mgen_spec mgen_tail[] = {
    { "ln_out.weight", 1, { G_C }, 0.8f, 1.2f, 0, 0, 0 },
    { "ln_out.bias", 1, { G_C }, -0.1f, 0.1f, 0, 0, 0 },
    { "head.weight", 2, { G_V, G_C }, -0.3f, 0.3f, 0, 1, 1 },
};

static int64_t
mgen_dim(const struct mgen_shape *sh, int d)
{
    switch (d) {
    case G_C: return sh->C;
    case G_F: return sh->F;
    case G_V: return sh->V;
    case G_H: return sh->C / sh->N;
    case G_N: return sh->N;
    case G_DW: return sh->d_w;
    case G_DA: return sh->d_a;
    case G_DV: return sh->d_v;
    case G_DG: return sh->d_g;
    case G_DM: return sh->d_mix;
    case G_DM5: return 5 * (int64_t)sh->d_mix;
    case G_DD: return sh->d_decay;
    default: return d;
    }
}

const char *
mgen_shape_names(void)
{
    return mgen_names;
}

static const struct mgen_shape *
mgen_find(const char *name)
{
    for (size_t i = 0; name != NULL && i < sizeof mgen_shapes / sizeof mgen_shapes[0]; i++)
        if (strcmp(name, mgen_shapes[i].name) == 0)
            return &mgen_shapes[i];
    return NULL;
}

int
mgen_has_shape(const char *name)
{
    return mgen_find(name) != NULL;
}

int
mgen_shape_version(const char *name)
{
    const struct mgen_shape *sh = mgen_find(name);

    return sh ? sh->ver : 0;
}

void
mgen_shape_list(int ver, char *buf, size_t cap)
{
    size_t len = 0;

    if (cap == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof mgen_shapes / sizeof mgen_shapes[0] && len < cap; i++)
        if (ver == 0 || mgen_shapes[i].ver == ver)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "",
                                    mgen_shapes[i].name);
}

/* ---- the tensors of a shape ---- */

/* Present table entry SP as tensor NAME of layer L to FN. */
static int
mgen_item_call(const struct mgen_shape *sh, const struct mgen_spec *sp, const char *name, int l,
               int (*fn)(void *ud, const mgen_item *it), void *ud)
{
    mgen_item it;
    float f = sp->scaled ? sqrtf((float)MGEN_REF_C / (float)sh->C) : 1.0f;

    memset(&it, 0, sizeof it);
    it.name = name;
    it.layer = l;
    it.n_layer = sh->n_layer;
    it.nd = sp->nd;
    it.numel = 1;
    for (int d = 0; d < sp->nd; d++) {
        it.shape[d] = mgen_dim(sh, sp->shape[d]);
        it.numel *= (uint64_t)it.shape[d];
    }
    it.lo = sp->lo * f;
    it.hi = sp->hi * f;
    it.linear = sp->linear;
    return fn(ud, &it);
}

/* ln0 (blocks.0.ln0.*), presented as tensors of layer L (0 or -1). */
static int
mgen_each_ln0(const struct mgen_shape *sh, int l, int (*fn)(void *ud, const mgen_item *it),
              void *ud)
{
    char name[MGEN_NAME_MAX];
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < sizeof mgen_ln0 / sizeof mgen_ln0[0]; i++) {
        snprintf(name, sizeof name, "blocks.0.%s", mgen_ln0[i].name);
        rc = mgen_item_call(sh, &mgen_ln0[i], name, l, fn, ud);
    }
    return rc;
}

/* ln_out and head. */
static int
mgen_each_tail(const struct mgen_shape *sh, int (*fn)(void *ud, const mgen_item *it), void *ud)
{
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < sizeof mgen_tail / sizeof mgen_tail[0]; i++)
        rc = mgen_item_call(sh, &mgen_tail[i], mgen_tail[i].name, -1, fn, ud);
    return rc;
}

int
mgen_each(const char *shape, enum mgen_order order,
          int (*fn)(void *ud, const mgen_item *it), void *ud)
{
    const struct mgen_shape *sh = mgen_find(shape);
    const struct mgen_spec *ly;
    size_t nly;
    char name[MGEN_NAME_MAX];
    int rc, first = order == MGEN_ORDER_GLOBALS_FIRST;

    if (sh == NULL)
        return RWKV_EINVAL;
    ly = sh->ver == 6 ? mgen_v6 : mgen_v7;
    nly = sh->ver == 6 ? sizeof mgen_v6 / sizeof mgen_v6[0] : sizeof mgen_v7 / sizeof mgen_v7[0];
    if ((rc = mgen_item_call(sh, &mgen_emb, mgen_emb.name, -1, fn, ud)) != 0)
        return rc;
    if (first && ((rc = mgen_each_ln0(sh, -1, fn, ud)) != 0 ||
                  (rc = mgen_each_tail(sh, fn, ud)) != 0))
        return rc;
    for (int l = 0; l < sh->n_layer; l++) {
        if (l == 0 && !first && (rc = mgen_each_ln0(sh, 0, fn, ud)) != 0)
            return rc;
        for (size_t i = 0; i < nly; i++) {
            if (ly[i].layer1 && l == 0)
                continue;
            snprintf(name, sizeof name, "blocks.%d.%s", l, ly[i].name);
            if ((rc = mgen_item_call(sh, &ly[i], name, l, fn, ud)) != 0)
                return rc;
        }
    }
    return first ? 0 : mgen_each_tail(sh, fn, ud);
}

/* ---- values ---- */

/* Stream key of tensor NAME under SEED. */
uint64_t
mgen_key(uint64_t seed, const char *name)
{
    return hash_mix64(seed ^ hash_mix64(hash_fnv1a(HASH_FNV_OFFSET, name, strlen(name))));
}

/* Value E of the stream KEY, uniform in [lo, hi): one multiply-xorshift
** round of a Weyl counter (cheap: billions of weights), 24 bits. */
static inline float
mgen_fast_at(uint64_t key, uint64_t e, float lo, float hi)
{
    uint64_t z = key + (e + 1) * 0x9e3779b97f4a7c15ULL;

    z ^= z >> 32;
    z *= 0xd6e8feb86659fd93ULL;
    z ^= z >> 32;
    return lo + (hi - lo) * ((float)(uint32_t)(z >> 40) * (1.0f / 16777216.0f));
}

/* Value E of the stream KEY: a full splitmix64 round, 53 bits (--demo). */
static float
mgen_exact_at(uint64_t key, uint64_t e, float lo, float hi)
{
    uint64_t z = hash_mix64(key + (e + 1) * 0x9e3779b97f4a7c15ULL);

    return lo + (hi - lo) * (float)((double)(z >> 11) / 9007199254740992.0);
}

void
mgen_fill(const mgen_stream *s, uint64_t e0, size_t n, ck_dtype dt, void *dst)
{
    const simd_kernels *k = kern_default_kernels();
    size_t es = ck_dtype_size(dt);
    float tmp[MGEN_STEP];

    for (size_t e = 0; e < n;) {
        size_t m = n - e < MGEN_STEP ? n - e : MGEN_STEP;
        unsigned char *out = (unsigned char *)dst + e * es;
        uint64_t g = s->base + e0 + e;
        if (s->fast)
            for (size_t q = 0; q < m; q++)
                tmp[q] = mgen_fast_at(s->key, g + q, s->lo, s->hi);
        else
            for (size_t q = 0; q < m; q++)
                tmp[q] = mgen_exact_at(s->key, g + q, s->lo, s->hi);
        if (dt == CK_BF16)
            simd_f32_to_bf16(k, tmp, (uint16_t *)(void *)out, m);
        else if (dt == CK_F16)
            simd_f32_to_f16(k, tmp, (uint16_t *)(void *)out, m);
        else
            memcpy(out, tmp, m * sizeof(float));
        e += m;
    }
}

struct mgen_fill_job {
    const mgen_stream *s;
    uint64_t           n;
    ck_dtype           dt;
    void              *dst;
};

static void
mgen_fill_task(void *ctx, int i, int n)
{
    const struct mgen_fill_job *j = ctx;
    uint64_t blocks = (j->n + MGEN_FILL_BLOCK - 1) / MGEN_FILL_BLOCK;
    uint64_t a = blocks * (uint64_t)i / (uint64_t)n * MGEN_FILL_BLOCK;
    uint64_t b = blocks * (uint64_t)(i + 1) / (uint64_t)n * MGEN_FILL_BLOCK;

    if (b > j->n)
        b = j->n;
    if (a < b)
        mgen_fill(j->s, a, (size_t)(b - a), j->dt,
                  (unsigned char *)j->dst + a * ck_dtype_size(j->dt));
}

void
mgen_fill_pool(tpool *pool, const mgen_stream *s, uint64_t n, ck_dtype dt, void *dst)
{
    struct mgen_fill_job j = { s, n, dt, dst };

    if (n >= MGEN_FILL_BLOCK)
        tpool_run(pool, mgen_fill_task, &j);
    else
        mgen_fill_task(&j, 0, 1);
}

/* ---- files ---- */

struct mgen_job {
    ck_dtype            dt;
    size_t              es;        /* element size */
    mgen_stream         s;
    uint64_t            e0, n;     /* chunk: elements [e0, e0 + n) */
    unsigned char      *buf;       /* n * es bytes */
    uint32_t            crc[MGEN_PARTS];
};

static void
mgen_part_range(const struct mgen_job *j, int p, uint64_t *a, uint64_t *b)
{
    *a = j->n * (uint64_t)p / MGEN_PARTS;
    *b = j->n * (uint64_t)(p + 1) / MGEN_PARTS;
}

static void
mgen_task(void *ctx, int i, int n)
{
    struct mgen_job *j = ctx;
    int p0 = MGEN_PARTS * i / n, p1 = MGEN_PARTS * (i + 1) / n;

    for (int p = p0; p < p1; p++) {
        uint64_t a, b;
        mgen_part_range(j, p, &a, &b);
        mgen_fill(&j->s, j->e0 + a, (size_t)(b - a), j->dt, j->buf + a * j->es);
        j->crc[p] = zipr_crc32(0, j->buf + a * j->es, (size_t)((b - a) * j->es));
    }
}

/* mgen_save's state while mgen_each hands it the tensors. */
struct mgen_writer {
    ckw             *w;
    tpool           *pool;
    struct mgen_job *j;
    const mgen_opts *o;
    uint64_t         total, done;
    rwkv_err        *err;
};

/* Generate and write one tensor. */
static int
mgen_tensor(struct mgen_writer *wr, const mgen_item *it)
{
    struct mgen_job *j = wr->j;
    int rc;

    if ((rc = ckw_begin(wr->w, it->name, j->dt, it->nd, it->shape, wr->err)) != RWKV_OK)
        return rc;
    j->s = (mgen_stream){ mgen_key(wr->o->seed, it->name), 0, 1, it->lo, it->hi };
    for (uint64_t e0 = 0; e0 < it->numel; e0 += MGEN_CHUNK) {
        uint32_t crc = 0;
        j->e0 = e0;
        j->n = it->numel - e0 < MGEN_CHUNK ? it->numel - e0 : MGEN_CHUNK;
        if (j->n >= MGEN_PARTS * MGEN_STEP)
            tpool_run(wr->pool, mgen_task, j);
        else
            mgen_task(j, 0, 1);
        for (int p = 0; p < MGEN_PARTS; p++) {
            uint64_t a, b;
            mgen_part_range(j, p, &a, &b);
            crc = p == 0 ? j->crc[0] : ckw_crc32_combine(crc, j->crc[p], (b - a) * j->es);
        }
        if ((rc = ckw_write_crc(wr->w, j->buf, (size_t)(j->n * j->es), crc, wr->err)) != RWKV_OK)
            return rc;
    }
    return ckw_end(wr->w, wr->err);
}

static int
mgen_write_one(void *ud, const mgen_item *it)
{
    struct mgen_writer *wr = ud;
    int rc = mgen_tensor(wr, it);

    if (rc != RWKV_OK)
        return rc;
    wr->done += it->numel;
    if (wr->o->progress)
        wr->o->progress(wr->o->progress_ud, (double)wr->done / (double)wr->total,
                        "writing weights");
    return RWKV_OK;
}

static int
mgen_count_one(void *ud, const mgen_item *it)
{
    *(uint64_t *)ud += it->numel;
    return 0;
}

int
mgen_save(const char *shape, const char *path, const mgen_opts *o, uint64_t *size,
          rwkv_err *err)
{
    struct mgen_writer wr;
    int rc;

    if (size)
        *size = 0;
    if (mgen_find(shape) == NULL)
        return rwkv_errf(err, RWKV_EINVAL, "unknown model shape '%s' (known: %s)",
                         shape ? shape : "", mgen_names);
    if (o->dtype != CK_F32 && o->dtype != CK_BF16 && o->dtype != CK_F16)
        return rwkv_errf(err, RWKV_EINVAL, "model files are written in float32, bfloat16 or "
                         "float16, not %s", ck_dtype_name(o->dtype));
    memset(&wr, 0, sizeof wr);
    wr.o = o;
    wr.err = err;
    mgen_each(shape, MGEN_ORDER_FILE, mgen_count_one, &wr.total);   /* for progress */
    if ((rc = ckw_create(path, NULL, &wr.w, err)) != RWKV_OK)
        return rc;
    wr.j = calloc(1, sizeof *wr.j);
    if (wr.j == NULL || (wr.j->buf = mem_alloc(MGEN_CHUNK * sizeof(float))) == NULL) {
        rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = tpool_create(o->n_threads, &wr.pool, err)) != RWKV_OK)
        goto out;
    wr.j->dt = o->dtype;
    wr.j->es = ck_dtype_size(o->dtype);
    if ((rc = mgen_each(shape, MGEN_ORDER_FILE, mgen_write_one, &wr)) != RWKV_OK)
        goto out;
    rc = ckw_finish(wr.w, size, err);
    wr.w = NULL;
out:
    ckw_abort(wr.w);
    tpool_destroy(wr.pool);
    if (wr.j != NULL)
        mem_free(wr.j->buf);
    free(wr.j);
    return rc;
}
