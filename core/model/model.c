/*
** model.c -- open a checkpoint, detect the RWKV version like the reference,
** validate every tensor's shape, prepare the weights once, and drive the
** forward pass (rwkv_eval) through the version's block math, chosen once at
** load (mdl_versions; model_block.h), states in state.c, the in-memory
** models in model_demo.c.
*/
#include "model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"   /* [device hook] */
#include "../hash.h"
#include "../mem.h"
#include "model_block.h"
#include "wcache.h"

/* Longest tensor name we build. */
#define MDL_NAME_MAX 96
/* Layers we accept (a bound on input, far above real models). */
#define MDL_MAX_LAYERS 4096
/* Fingerprint: tensors up to this many bytes are hashed whole; larger ones
 * by MDL_FP_SLICES slices of MDL_FP_SLICE bytes spread evenly over the data
 * (hashing gigabytes at every load would take seconds). */
#define MDL_FP_WHOLE 4096
#define MDL_FP_SLICES 64
#define MDL_FP_SLICE 64
/* Tile edge of the LoRA-matrix transpose (mdl_f32_t). */
#define MDL_TBLK 32

/* ---- the tensor source (model.h): a checkpoint or in-memory tensors ---- */

static size_t
src_count(const struct mdl_src *s)
{
    return s->ck ? ckpt_count(s->ck) : s->n;
}

static const ckpt_tensor *
src_at(const struct mdl_src *s, size_t i)
{
    return s->ck ? ckpt_at(s->ck, i) : &s->tensors[i];
}

static const ckpt_tensor *
src_find(const struct mdl_src *s, const char *name)
{
    if (s->ck)
        return ckpt_find(s->ck, name);
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->tensors[i].name, name) == 0)
            return &s->tensors[i];
    return NULL;
}

static int
mdl_is_float(ck_dtype d)
{
    return d == CK_F32 || d == CK_F16 || d == CK_BF16 || d == CK_F64;
}

static int
mdl_to_f32(const ckpt_tensor *t, float *dst, rwkv_err *err)
{
    if (t->dtype == CK_F32 && t->contiguous) {
        memcpy(dst, t->data, t->numel * sizeof(float));
        return RWKV_OK;
    }
    return ckpt_to_f32(t, dst, t->numel, err);
}

/* ---- symbolic shapes ---- */

enum mdl_dim { D_1 = 1, D_C = -1, D_F = -2, D_H = -3, D_N = -4, D_V = -5, D_DW = -6,
               D_DA = -7, D_DV = -8, D_DG = -9, D_DM5 = -10, D_DM = -11, D_DD = -12,
               D_5 = 5 };

static int64_t
mdl_dim(const rwkv_model *m, int d)
{
    switch (d) {
    case D_C: return m->C;
    case D_F: return m->F;
    case D_H: return m->H;
    case D_N: return m->N;
    case D_V: return m->V;
    case D_DW: return m->d_w;
    case D_DA: return m->d_a;
    case D_DV: return m->d_v;
    case D_DG: return m->d_g;
    case D_DM5: return 5 * (int64_t)m->d_mix;
    case D_DM: return m->d_mix;
    case D_DD: return m->d_decay;
    default: return d;
    }
}

static void
mdl_fmt_shape(char *buf, size_t cap, const int64_t *dims, int nd)
{
    size_t n = 0;

    n += (size_t)snprintf(buf + n, cap - n, "[");
    for (int i = 0; i < nd && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? "," : "", (long long)dims[i]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}

/* ---- the weight table ---- */

enum { VM4 = 1, VM50 = 2, VM51 = 4, VM52 = 8, VM60 = 16, VM70 = 32,
       VM5 = VM50 | VM51 | VM52, VMG = VM51 | VM52 | VM60, VM4_5 = VM4 | VM5,
       VMLX = VM5 | VM60 | VM70, VMALL = 63 };

enum mdl_kind {
    K_VEC,    /* float32 values, shape compared without size-1 dims (the reference squeezes) */
    K_MAT,    /* [out][in] matrix used as W x */
    K_MATT,   /* [in][out] matrix used as x @ M: transposed at load */
    K_MAAW2,  /* v6 time_maa_w2 [5][Dm][C]: five x @ M matrices */
};

enum { F_COPY = 1,      /* needs a private copy (transformed in place later) */
       F_FIRST = 2,     /* time_first, or time_faaaa when the file has one */
       F_LAYER1 = 4,    /* absent in layer 0 (v7 v0/v1/v2) */
       F_OPT = 8 };     /* optional */

struct mdl_spec {
    int           vmask;
    const char   *name;    /* after "blocks.N." */
    int           nd;
    int           dims[3];
    enum mdl_kind kind;
    int           flags;
    size_t        off;     /* in struct mdl_layer */
};

#define LY(f) offsetof(struct mdl_layer, f)

static const struct mdl_spec mdl_layer_specs[] = {
    { VMALL, "ln1.weight", 1, { D_C }, K_VEC, 0, LY(ln1_w) },
    { VMALL, "ln1.bias", 1, { D_C }, K_VEC, 0, LY(ln1_b) },
    { VMALL, "ln2.weight", 1, { D_C }, K_VEC, 0, LY(ln2_w) },
    { VMALL, "ln2.bias", 1, { D_C }, K_VEC, 0, LY(ln2_b) },
    /* v4 / v5 mixes */
    { VM4_5, "att.time_mix_k", 3, { 1, 1, D_C }, K_VEC, 0, LY(mix_k) },
    { VM4_5, "att.time_mix_v", 3, { 1, 1, D_C }, K_VEC, 0, LY(mix_v) },
    { VM4_5, "att.time_mix_r", 3, { 1, 1, D_C }, K_VEC, 0, LY(mix_r) },
    { VM51 | VM52, "att.time_mix_g", 3, { 1, 1, D_C }, K_VEC, 0, LY(mix_g) },
    /* decay / bonus */
    { VM4, "att.time_decay", 1, { D_C }, K_VEC, F_COPY, LY(decay) },
    { VM4, "att.time_first", 1, { D_C }, K_VEC, F_COPY | F_FIRST, LY(first) },
    { VM50 | VM51, "att.time_decay", 1, { D_H }, K_VEC, F_COPY, LY(decay) },
    { VM50 | VM51, "att.time_first", 1, { D_H }, K_VEC, F_COPY | F_FIRST, LY(first) },
    { VM52, "att.time_decay", 2, { D_H, D_N }, K_VEC, F_COPY, LY(decay) },
    { VM52, "att.time_first", 2, { D_H, D_N }, K_VEC, F_COPY | F_FIRST, LY(first) },
    { VM60, "att.time_decay", 3, { 1, 1, D_C }, K_VEC, 0, LY(decay) },
    { VM60, "att.time_first", 2, { D_H, D_N }, K_VEC, F_FIRST, LY(first) },
    /* v6 */
    { VM60, "att.time_maa_x", 3, { 1, 1, D_C }, K_VEC, 0, LY(maa_x) },
    { VM60, "att.time_maa_w", 3, { 1, 1, D_C }, K_VEC, 0, LY(maa_w) },
    { VM60, "att.time_maa_k", 3, { 1, 1, D_C }, K_VEC, 0, LY(maa_k) },
    { VM60, "att.time_maa_v", 3, { 1, 1, D_C }, K_VEC, 0, LY(maa_v) },
    { VM60, "att.time_maa_r", 3, { 1, 1, D_C }, K_VEC, 0, LY(maa_r) },
    { VM60, "att.time_maa_g", 3, { 1, 1, D_C }, K_VEC, 0, LY(maa_g) },
    { VM60, "att.time_maa_w1", 2, { D_C, D_DM5 }, K_MATT, 0, LY(maa_w1) },
    { VM60, "att.time_maa_w2", 3, { D_5, D_DM, D_C }, K_MAAW2, 0, LY(maa_w2) },
    { VM60, "att.time_decay_w1", 2, { D_C, D_DD }, K_MATT, 0, LY(decay_w1) },
    { VM60, "att.time_decay_w2", 2, { D_DD, D_C }, K_MATT, 0, LY(decay_w2) },
    /* v7 */
    { VM70, "att.x_r", 3, { 1, 1, D_C }, K_VEC, 0, LY(x_r) },
    { VM70, "att.x_w", 3, { 1, 1, D_C }, K_VEC, 0, LY(x_w) },
    { VM70, "att.x_k", 3, { 1, 1, D_C }, K_VEC, 0, LY(x_k) },
    { VM70, "att.x_v", 3, { 1, 1, D_C }, K_VEC, 0, LY(x_v) },
    { VM70, "att.x_a", 3, { 1, 1, D_C }, K_VEC, 0, LY(x_a) },
    { VM70, "att.x_g", 3, { 1, 1, D_C }, K_VEC, 0, LY(x_g) },
    { VM70, "att.w0", 3, { 1, 1, D_C }, K_VEC, 0, LY(w0) },
    { VM70, "att.w1", 2, { D_C, D_DW }, K_MATT, 0, LY(w1) },
    { VM70, "att.w2", 2, { D_DW, D_C }, K_MATT, 0, LY(w2) },
    { VM70, "att.a0", 3, { 1, 1, D_C }, K_VEC, 0, LY(a0) },
    { VM70, "att.a1", 2, { D_C, D_DA }, K_MATT, 0, LY(a1) },
    { VM70, "att.a2", 2, { D_DA, D_C }, K_MATT, 0, LY(a2) },
    { VM70, "att.v0", 3, { 1, 1, D_C }, K_VEC, F_LAYER1, LY(v0) },
    { VM70, "att.v1", 2, { D_C, D_DV }, K_MATT, F_LAYER1, LY(v1) },
    { VM70, "att.v2", 2, { D_DV, D_C }, K_MATT, F_LAYER1, LY(v2) },
    { VM70, "att.g1", 2, { D_C, D_DG }, K_MATT, 0, LY(g1) },
    { VM70, "att.g2", 2, { D_DG, D_C }, K_MATT, 0, LY(g2) },
    { VM70, "att.k_k", 3, { 1, 1, D_C }, K_VEC, 0, LY(k_k) },
    { VM70, "att.k_a", 3, { 1, 1, D_C }, K_VEC, 0, LY(k_a) },
    { VM70, "att.r_k", 2, { D_H, D_N }, K_VEC, 0, LY(r_k) },
    /* linears */
    { VMALL, "att.receptance.weight", 2, { D_C, D_C }, K_MAT, 0, LY(att_r) },
    { VMALL, "att.key.weight", 2, { D_C, D_C }, K_MAT, 0, LY(att_k) },
    { VMALL, "att.value.weight", 2, { D_C, D_C }, K_MAT, 0, LY(att_v) },
    { VMALL, "att.output.weight", 2, { D_C, D_C }, K_MAT, 0, LY(att_o) },
    { VMG, "att.gate.weight", 2, { D_C, D_C }, K_MAT, 0, LY(att_g) },
    { VMLX, "att.ln_x.weight", 1, { D_C }, K_VEC, 0, LY(lnx_w) },
    { VMLX, "att.ln_x.bias", 1, { D_C }, K_VEC, 0, LY(lnx_b) },
    /* FFN */
    { VM4_5, "ffn.time_mix_k", 3, { 1, 1, D_C }, K_VEC, 0, LY(fmix_k) },
    { VM4_5, "ffn.time_mix_r", 3, { 1, 1, D_C }, K_VEC, 0, LY(fmix_r) },
    { VM60, "ffn.time_maa_k", 3, { 1, 1, D_C }, K_VEC, 0, LY(fmix_k) },
    { VM60, "ffn.time_maa_r", 3, { 1, 1, D_C }, K_VEC, 0, LY(fmix_r) },
    { VM70, "ffn.x_k", 3, { 1, 1, D_C }, K_VEC, 0, LY(fmix_k) },
    { VMALL, "ffn.key.weight", 2, { D_F, D_C }, K_MAT, 0, LY(ffn_k) },
    { VMALL, "ffn.value.weight", 2, { D_C, D_F }, K_MAT, 0, LY(ffn_v) },
    { VM4 | VM5 | VM60, "ffn.receptance.weight", 2, { D_C, D_C }, K_MAT, 0, LY(ffn_r) },
    /* a checkpoint may carry its own initial state (v5/v6) */
    { VM5 | VM60, "att.time_state", 3, { D_H, D_N, D_N }, K_VEC, F_COPY | F_OPT, LY(time_state) },
};

/* The versions: name, weight-table mask and block math, looked up once at
** load (mdl_detect). */
struct mdl_version {
    int           ver;      /* MDL_V* */
    const char   *name;     /* rwkv_info.version */
    int           vmask;    /* VM*: the rows of mdl_layer_specs it uses */
    mdl_layers_fn layers;
};

static const struct mdl_version mdl_versions[] = {
    { MDL_V4, "4", VM4, mdl_v4_layers },
    { MDL_V50, "5.0", VM50, mdl_v5_layers },
    { MDL_V51, "5.1", VM51, mdl_v5_layers },
    { MDL_V52, "5.2", VM52, mdl_v5_layers },
    { MDL_V60, "6.0", VM60, mdl_v6_layers },
    { MDL_V70, "7.0", VM70, mdl_v7_layers },
};

/* The entry of VER (the last, RWKV-7, for any other value). */
static const struct mdl_version *
mdl_version_of(int ver)
{
    size_t n = sizeof mdl_versions / sizeof mdl_versions[0];

    for (size_t i = 0; i + 1 < n; i++)
        if (mdl_versions[i].ver == ver)
            return &mdl_versions[i];
    return &mdl_versions[n - 1];
}

static int
mdl_vmask(int ver)
{
    return mdl_version_of(ver)->vmask;
}

/* ---- build helpers ---- */

void *
mdl_own(rwkv_model *m, uint64_t bytes)
{
    void *p;

    if (m->n_allocs == m->cap_allocs) {
        size_t cap = m->cap_allocs ? m->cap_allocs * 2 : 256;
        void **a = realloc(m->allocs, cap * sizeof *a);
        if (a == NULL)
            return NULL;
        m->allocs = a;
        m->cap_allocs = cap;
    }
    /* Prepared weights are streamed once per token: huge pages cut the
     * page faults at load (seconds for gigabytes on a VM) and the TLB misses
     * of every pass (mem_alloc_huge). */
    p = mem_alloc_huge(bytes ? bytes : 1);
    if (p != NULL)
        m->allocs[m->n_allocs++] = p;
    return p;
}

/* Check T's shape against DIMS (exact, or without size-1 dims when SQUEEZE). */
static int
mdl_check_shape(const rwkv_model *m, const struct mdl_src *src, const char *name,
                const ckpt_tensor *t, const int *dims, int nd, int squeeze, rwkv_err *err)
{
    int64_t exp[CK_MAX_DIMS], a[CK_MAX_DIMS], b[CK_MAX_DIMS];
    int na = 0, nb = 0, ok = 1;
    char s1[96], s2[96];

    for (int i = 0; i < nd; i++)
        exp[i] = mdl_dim(m, dims[i]);
    if (!mdl_is_float(t->dtype))
        return rwkv_errf(err, RWKV_ESHAPE, "%s: tensor '%s' has dtype %s, expected a float type",
                         src->path, name, ck_dtype_name(t->dtype));
    if (squeeze) {
        for (int i = 0; i < t->ndim; i++)
            if (t->shape[i] != 1)
                a[na++] = t->shape[i];
        for (int i = 0; i < nd; i++)
            if (exp[i] != 1)
                b[nb++] = exp[i];
        ok = na == nb;
        for (int i = 0; ok && i < na; i++)
            ok = a[i] == b[i];
    } else {
        ok = t->ndim == nd;
        for (int i = 0; ok && i < nd; i++)
            ok = t->shape[i] == exp[i];
    }
    if (!ok) {
        mdl_fmt_shape(s1, sizeof s1, t->shape, t->ndim);
        mdl_fmt_shape(s2, sizeof s2, exp, nd);
        return rwkv_errf(err, RWKV_ESHAPE, "%s: tensor '%s' has shape %s, expected %s",
                         src->path, name, s1, s2);
    }
    return RWKV_OK;
}

/* float32 view of T: in place when possible, else a private copy. */
static int
mdl_f32(rwkv_model *m, const ckpt_tensor *t, int copy, const float **out, rwkv_err *err)
{
    float *p;

    if (!copy && t->dtype == CK_F32 && t->contiguous && ((uintptr_t)t->data % sizeof(float)) == 0) {
        *out = t->data;
        return RWKV_OK;
    }
    p = mdl_own(m, t->numel * sizeof(float));
    if (p == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory preparing '%s'", t->name);
    if (mdl_to_f32(t, p, err) != RWKV_OK)
        return err ? err->code : RWKV_EFORMAT;
    *out = p;
    return RWKV_OK;
}

/* ---- linears in the strategy's weight dtype, converted in parallel ---- */

/* Rows one thread converts per step (its float32 scratch). */
#define MDL_CVT_ROWS 16

struct mdl_cvt_job {
    const void         *src;      /* contiguous [rows][cols] */
    ck_dtype            sdt;      /* CK_F32, CK_BF16 or CK_F16 */
    int64_t             rows, cols;
    enum kern_dtype     dt;
    void               *dst;
    float              *scales;   /* KERN_Q8 */
    const simd_kernels *k;
    int                 failed;   /* a worker could not allocate its scratch */
};

static void
mdl_cvt_rows(void *ctx, int i, int n)
{
    struct mdl_cvt_job *j = ctx;
    size_t cols = (size_t)j->cols, nb = (size_t)simd_q8_nblocks(j->cols);
    int64_t r0, r1;
    float *tmp;

    simd_split_rows(j->rows, n, i, &r0, &r1);
    if (r0 >= r1)
        return;
    tmp = malloc(MDL_CVT_ROWS * cols * sizeof(float));
    if (tmp == NULL) {
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (int64_t r = r0; r < r1; r += MDL_CVT_ROWS) {
        size_t nr = (size_t)(r1 - r < MDL_CVT_ROWS ? r1 - r : MDL_CVT_ROWS), cnt = nr * cols;
        size_t at = (size_t)r * cols;
        switch (j->sdt) {
        case CK_BF16:
            simd_bf16_to_f32(j->k, (const uint16_t *)j->src + at, tmp, cnt);
            break;
        case CK_F16:
            simd_f16_to_f32(j->k, (const uint16_t *)j->src + at, tmp, cnt);
            break;
        default:
            memcpy(tmp, (const float *)j->src + at, cnt * sizeof(float));
            break;
        }
        switch (j->dt) {
        case KERN_F32:
            memcpy((float *)j->dst + at, tmp, cnt * sizeof(float));
            break;
        case KERN_BF16:
            simd_f32_to_bf16(j->k, tmp, (uint16_t *)j->dst + at, cnt);
            break;
        case KERN_F16:
            simd_f32_to_f16(j->k, tmp, (uint16_t *)j->dst + at, cnt);
            break;
        case KERN_Q8:
            kern_q8_quantize(tmp, j->cols, 0, (int64_t)nr, (int8_t *)j->dst + at,
                             j->scales + (size_t)r * nb);
            break;
        case KERN_Q4:
            simd_q4_quantize(tmp, j->cols, 0, (int64_t)nr,
                             (uint8_t *)j->dst + (size_t)kern_data_bytes(KERN_Q4, r, j->cols));
            break;
        }
    }
    free(tmp);
}

/* Does T serve as DT's data in place (same dtype, contiguous, aligned)? */
static int
mdl_in_place(const ckpt_tensor *t, enum kern_dtype dt)
{
    uintptr_t a = (uintptr_t)t->data;

    if (!t->contiguous)
        return 0;
    return (dt == KERN_F32 && t->dtype == CK_F32 && a % sizeof(float) == 0) ||
           (dt == KERN_BF16 && t->dtype == CK_BF16 && a % 2 == 0) ||
           (dt == KERN_F16 && t->dtype == CK_F16 && a % 2 == 0);
}

/*
** A matrix the checkpoint stores as the strategy wants it needs no
** conversion.  Where m->rehome (CPU-only plans whose file fits in half the
** available memory, unless RWKV_CHECKPOINT_LOAD=map: mem_want_copy) it is
** read into huge-page memory, split over the pool in whole huge pages, each
** touched first, and the mapping's pages are let go; what was read is
** checked against the file's CRC-32 (ckpt_check_copy), as a converted matrix
** is.  Else it is used where the file is mapped (4 KiB pages, shared through
** the page cache), checked on request (`info --verify`).  Reading from the
** page cache took ~0.3 s for 2.7 GB where copying out of the mapping faulted
** every 4-64 KiB and took 1.2-1.9 s; decode from the mapping ran at half the
** speed on the Zen 5 VM (mem.h).
*/
struct mdl_copy_job {
    const ckpt *ck;
    const char *src;
    char       *dst;
    uint64_t    bytes;
    int         failed;
};

static void
mdl_copy_part(void *ctx, int i, int n)
{
    struct mdl_copy_job *j = ctx;
    uint64_t a, b;

    mem_huge_part(j->bytes, i, n, &a, &b);
    if (a >= b)
        return;
    mem_touch(j->dst + a, b - a);
    if (ckpt_read(j->ck, j->src + a, b - a, j->dst + a) != 0)
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
}

static int
mdl_rehome(rwkv_model *m, const ckpt_tensor *t, kern_mat *km, rwkv_err *err)
{
    struct mdl_copy_job job;

    km->data = t->data;
    job.bytes = kern_data_bytes(km->dtype, km->rows, km->cols);
    m->info.in_place_bytes += job.bytes;
    if (!m->rehome)
        return RWKV_OK;
    /* a tensor misaligned in the file was copied into memory when the file
    ** was opened (ckpt_copied): used as it is, checked against the file's
    ** CRC-32 as a copy made here would be (it was read as the file's
    ** address, which failed as "the file is shorter than when it was
    ** opened") */
    if (ckpt_copied(m->ck, t->data))
        return ckpt_check_tensor(m->ck, t, m->pool, err);
    if ((job.dst = mdl_own(m, job.bytes)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory preparing '%s'", t->name);
    job.ck = m->ck;
    job.src = t->data;
    job.failed = 0;
    tpool_run(m->pool, mdl_copy_part, &job);
    if (job.failed)
        return rwkv_errf(err, RWKV_EIO, "%s: '%s': cannot read: %s", ckpt_path(m->ck), t->name,
                         "the file is shorter than when it was opened");
    if (ckpt_check_copy(m->ck, t, job.dst, job.bytes, m->pool, err) != RWKV_OK)
        return err ? err->code : RWKV_EFORMAT;
    ckpt_release(m->ck, t->data, job.bytes);
    km->data = job.dst;
    return RWKV_OK;
}

/* The [rows][cols] tensor T as a kern_mat of dtype DT (in place or converted). */
static int
mdl_mat(rwkv_model *m, const ckpt_tensor *t, enum kern_dtype dt, kern_mat *km, rwkv_err *err)
{
    struct mdl_cvt_job job;
    int64_t rows = t->shape[0], cols = t->shape[1];
    float *tmp = NULL;
    uint64_t bytes;

    km->dtype = dt;
    km->rows = (int)rows;
    km->cols = (int)cols;
    km->scales = NULL;
    if (mdl_in_place(t, dt))
        return mdl_rehome(m, t, km, err);
    if (wc_get(m->wc, t->name, WC_MAT, dt, rows, cols, &km->data, &km->scales))
        return RWKV_OK;   /* prepared by an earlier load (weight cache) */
    memset(&job, 0, sizeof job);
    job.src = t->data;
    job.sdt = t->dtype;
    job.rows = rows;
    job.cols = cols;
    job.dt = dt;
    job.k = m->kc.k;
    if (!t->contiguous || (t->dtype != CK_F32 && t->dtype != CK_BF16 && t->dtype != CK_F16)) {
        tmp = malloc((size_t)t->numel * sizeof(float));
        if (tmp == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "out of memory preparing '%s'", t->name);
        if (ckpt_to_f32(t, tmp, t->numel, err) != RWKV_OK) {
            free(tmp);
            return err ? err->code : RWKV_EFORMAT;
        }
        job.src = tmp;
        job.sdt = CK_F32;
    }
    if (!mem_mul_ok(t->numel, sizeof(float), &bytes) ||   /* the widest dtype's bytes */
        (job.dst = mdl_own(m, kern_data_bytes(dt, rows, cols))) == NULL ||
        (kern_scale_bytes(dt, rows, cols) > 0 &&
         (job.scales = mdl_own(m, kern_scale_bytes(dt, rows, cols))) == NULL)) {
        free(tmp);
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory preparing '%s'", t->name);
    }
    if (rows * cols >= MDL_CVT_ROWS * 1024)
        tpool_run(m->pool, mdl_cvt_rows, &job);
    else
        mdl_cvt_rows(&job, 0, 1);
    free(tmp);
    if (job.failed)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory preparing '%s'", t->name);
    if (ckpt_check_tensor(m->ck, t, m->pool, err) != RWKV_OK)   /* zip CRC-32 (ckpt_verify.h) */
        return err ? err->code : RWKV_EFORMAT;
    /* the checkpoint's bytes of this matrix are not read again: out of the
     * resident set (a 1.5B bf16 file under cpu fp32i8: peak RSS 1.51x the
     * file before, see bench) */
    if (job.src == t->data)
        ckpt_release(m->ck, t->data, (uint64_t)t->numel * ck_dtype_size(t->dtype));
    km->data = job.dst;
    km->scales = job.scales;
    wc_put(m->wc, t->name, WC_MAT, dt, rows, cols, job.dst, job.scales, 1);
    return RWKV_OK;
}

/* Transposed copy of a [R][C] tensor (as a [C][R] kern_mat) in DT: float32,
** or bf16 (rounded from the float32 values). */
static int
mdl_f32_t(rwkv_model *m, const ckpt_tensor *t, int64_t r, int64_t c, const float *src_f32,
          enum kern_dtype dt, kern_mat *out, rwkv_err *err)
{
    float *tmp = NULL, *p;
    const float *s = src_f32;
    size_t n = (size_t)(r * c);

    out->dtype = dt;
    out->rows = (int)c;
    out->cols = (int)r;
    out->scales = NULL;
    if (wc_get(m->wc, t->name, WC_TRANS, dt, c, r, &out->data, NULL))
        return RWKV_OK;   /* weight cache */
    p = dt == KERN_F32 ? mdl_own(m, (uint64_t)n * sizeof(float)) : malloc(n * sizeof(float));
    if (p == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory preparing '%s'", t->name);
    if (s == NULL) {
        int rc = (tmp = malloc(n * sizeof(float))) == NULL
                     ? rwkv_errf(err, RWKV_ENOMEM, "out of memory preparing '%s'", t->name)
                     : mdl_to_f32(t, tmp, err);
        if (rc != RWKV_OK) {
            free(tmp);
            if (dt != KERN_F32)
                free(p);
            return rc;
        }
        s = tmp;
    }
    /* in MDL_TBLK x MDL_TBLK tiles: a plain loop writes one float per
     * cache line and page (stride r) and took ~0.4 s of a 1.5B model's load */
    for (int64_t i0 = 0; i0 < r; i0 += MDL_TBLK)
        for (int64_t j0 = 0; j0 < c; j0 += MDL_TBLK)
            for (int64_t j = j0; j < c && j < j0 + MDL_TBLK; j++)
                for (int64_t i = i0; i < r && i < i0 + MDL_TBLK; i++)
                    p[j * r + i] = s[i * c + j];
    free(tmp);
    if (dt != KERN_F32) {
        uint16_t *h = mdl_own(m, (uint64_t)n * sizeof(uint16_t));
        if (h != NULL)
            simd_f32_to_bf16(m->kc.k, p, h, n);
        free(p);
        if (h == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "out of memory preparing '%s'", t->name);
        out->data = h;
    } else {
        out->data = p;
    }
    wc_put(m->wc, t->name, WC_TRANS, dt, c, r, out->data, NULL, 0);
    return RWKV_OK;
}

static int
mdl_missing(const struct mdl_src *src, const char *name, const char *ver, rwkv_err *err)
{
    return rwkv_errf(err, RWKV_ESHAPE, "%s: missing tensor '%s' (needed by RWKV %s)",
                     src->path, name, ver);
}

/* Load one table entry for layer L. */
static int
mdl_load_spec(rwkv_model *m, const struct mdl_src *src, int l, const struct mdl_spec *sp,
              rwkv_err *err)
{
    char name[MDL_NAME_MAX];
    const char *suffix = sp->name;
    const ckpt_tensor *t;
    char *base = (char *)&m->layers[l];
    int rc;

    if ((sp->flags & F_FIRST) && m->real_time_first)
        suffix = "att.time_faaaa";
    snprintf(name, sizeof name, "blocks.%d.%s", l, suffix);
    t = src_find(src, name);
    if (t == NULL) {
        if ((sp->flags & F_OPT) || ((sp->flags & F_LAYER1) && l == 0))
            return RWKV_OK;
        return mdl_missing(src, name, m->info.version, err);
    }
    if ((sp->flags & F_LAYER1) && l == 0)
        return RWKV_OK;   /* the reference ignores layer-0 v0/v1/v2 */
    rc = mdl_check_shape(m, src, name, t, sp->dims, sp->nd, sp->kind == K_VEC, err);
    if (rc != RWKV_OK)
        return rc;
    switch (sp->kind) {
    case K_VEC:
        return mdl_f32(m, t, sp->flags & F_COPY, (const float **)(void *)(base + sp->off), err);
    case K_MAT:
        return mdl_mat(m, t, m->slot_dt[l], (kern_mat *)(void *)(base + sp->off), err);
    case K_MATT:
        return mdl_f32_t(m, t, t->shape[0], t->shape[1], NULL, m->lora_dt[l],
                         (kern_mat *)(void *)(base + sp->off), err);
    case K_MAAW2: {
        kern_mat *km = (kern_mat *)(void *)(base + sp->off);
        const float *all;
        int64_t dm = t->shape[1], c = t->shape[2];
        rc = mdl_f32(m, t, 1, &all, err);
        if (rc != RWKV_OK)
            return rc;
        for (int s = 0; s < 5; s++) {
            rc = mdl_f32_t(m, t, dm, c, all + s * dm * c, m->lora_dt[l], &km[s], err);
            if (rc != RWKV_OK)
                return rc;
        }
        return RWKV_OK;
    }
    }
    return RWKV_OK;
}

/* ---- version detection (the reference's rules, in file order) ---- */

static int
mdl_layer_of(const char *name, long *layer)
{
    const char *p = strstr(name, "blocks.");
    char *end;

    if (p == NULL)
        return 0;
    p += 7;
    errno = 0;
    *layer = strtol(p, &end, 10);
    if (end == p || errno != 0 || (*end != '.' && *end != '\0') || *layer < 0)
        return -1;
    return 1;
}

/* 1 if X names a state's tensor (blocks.N.att.time_state, and the extras
** of the state files rwkv-tui writes, state_file.h). */
static int
mdl_state_key(const char *x)
{
    static const char *const suffix[] = { ".att.time_state", ".att.shift_state",
                                          ".ffn.shift_state", ".att.aa_state",
                                          ".att.bb_state", ".att.pp_state" };
    const char *dot;

    if (strncmp(x, "blocks.", 7) != 0 || (dot = strchr(x + 7, '.')) == NULL)
        return 0;
    for (size_t k = 0; k < sizeof suffix / sizeof suffix[0]; k++)
        if (strcmp(dot, suffix[k]) == 0)
            return 1;
    return 0;
}

/*
** 1 if every tensor of SRC is a state's (mdl_state_key): a state-tuning
** file opened as a model, which has no version to find.
*/
static int
mdl_only_state(const struct mdl_src *src)
{
    size_t n = src_count(src);

    for (size_t i = 0; i < n; i++)
        if (!mdl_state_key(src_at(src, i)->name))
            return 0;
    return n > 0;
}

/* A listing's bounds on a file's index (rwkv_ckpt_kind): a real data.pkl is
** under 1 MiB and a 14B model has ~1000 tensors (ckpt_internal.h), so a
** file past these is no checkpoint to list by kind, and a folder of
** hostile files costs a few MiB each to look at. */
#define MDL_KIND_MAX_PICKLE (4u << 20)
#define MDL_KIND_MAX_ENTRIES (1u << 14)

int
rwkv_ckpt_kind(const char *path, rwkv_err *err)
{
    ckpt_limits lim = { .max_pickle_bytes = MDL_KIND_MAX_PICKLE,
                        .max_entries = MDL_KIND_MAX_ENTRIES,
                        .max_tensors = MDL_KIND_MAX_ENTRIES };
    struct mdl_src src = { 0 };
    ckpt *ck;
    int kind;

    if (ckpt_open_index(path, &lim, &ck, err) != RWKV_OK)
        return RWKV_CKPT_UNKNOWN;
    src.ck = ck;
    kind = mdl_only_state(&src) ? RWKV_CKPT_STATE : RWKV_CKPT_MODEL;
    ckpt_close(ck);
    return kind;
}

static int
mdl_detect(rwkv_model *m, const struct mdl_src *src, rwkv_err *err)
{
    size_t n = src_count(src);
    int ver = MDL_V4, v7 = 0, has_v4_keys = 0;
    long maxl = -1;

    for (size_t i = 0; i < n; i++) {
        const ckpt_tensor *t = src_at(src, i);
        const char *x = t->name;
        long l;
        int r = mdl_layer_of(x, &l);

        if (r < 0)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: tensor '%s' has no layer number after 'blocks.'",
                             src->path, x);
        if (r > 0 && l > maxl)
            maxl = l;
        if (strstr(x, "att.r_k") != NULL)
            v7 = 1;
        if (strstr(x, "time_faaaa") != NULL)
            m->real_time_first = 1;
        if (strstr(x, "att.time_mix_k") != NULL || strstr(x, "att.time_decay") != NULL)
            has_v4_keys = 1;
        if (strstr(x, "ln_x") != NULL && ver < MDL_V50)
            ver = MDL_V50;
        if (strstr(x, "gate.weight") != NULL && ver < MDL_V51)
            ver = MDL_V51;
        if (ver / 10 == 5 && strstr(x, "att.time_decay") != NULL) {
            m->H = t->ndim > 0 ? (int)t->shape[0] : 0;
            if (t->ndim > 1 && t->shape[1] > 1 && ver < MDL_V52)
                ver = MDL_V52;
        }
        if (strstr(x, "time_maa") != NULL && ver < MDL_V60)
            ver = MDL_V60;
        if (ver / 10 == 6 && strstr(x, "time_faaaa") != NULL)
            m->H = t->ndim > 0 ? (int)t->shape[0] : 0;
    }
    if (v7)
        ver = MDL_V70;
    else if (ver == MDL_V4 && !has_v4_keys && mdl_only_state(src))
        return rwkv_errf(err, RWKV_EINVAL,
                         "%s: a state file (blocks.N.att.time_state), not a model: give it "
                         "as --state, with the model it was made for as --model", src->path);
    else if (ver == MDL_V4 && !has_v4_keys)
        return rwkv_errf(err, RWKV_ENOTSUP,
                         "%s: unknown RWKV version (no RWKV-4/5/6/7 attention keys such as "
                         "'blocks.0.att.time_mix_k', 'time_maa_x' or 'r_k')", src->path);
    if (maxl < 0)
        return rwkv_errf(err, RWKV_ESHAPE, "%s: no 'blocks.N.' tensors: not an RWKV model",
                         src->path);
    if (maxl >= MDL_MAX_LAYERS)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: layer number %ld is too large", src->path, maxl);
    m->ver = ver;
    m->run_layers = mdl_version_of(ver)->layers;
    m->n_layer = (int)maxl + 1;
    snprintf(m->info.version, sizeof m->info.version, "%s", mdl_version_of(ver)->name);
    m->info.major = ver / 10;
    return RWKV_OK;
}

/* A required tensor used to size the model: present and of rank ND. */
static int
mdl_need(const rwkv_model *m, const struct mdl_src *src, const char *name, int nd,
         const ckpt_tensor **out, rwkv_err *err)
{
    const ckpt_tensor *t = src_find(src, name);

    if (t == NULL)
        return mdl_missing(src, name, m->info.version, err);
    if (t->ndim != nd) {
        char s[96];
        mdl_fmt_shape(s, sizeof s, t->shape, t->ndim);
        return rwkv_errf(err, RWKV_ESHAPE, "%s: tensor '%s' has shape %s, expected %d dimensions",
                         src->path, name, s, nd);
    }
    for (int i = 0; i < nd; i++)
        if (t->shape[i] <= 0 || t->shape[i] > (1 << 24))
            return rwkv_errf(err, RWKV_ESHAPE, "%s: tensor '%s' has an unusable dimension %lld",
                             src->path, name, (long long)t->shape[i]);
    *out = t;
    return RWKV_OK;
}

static int
mdl_dims(rwkv_model *m, const struct mdl_src *src, rwkv_err *err)
{
    const ckpt_tensor *t;
    int rc;

    if ((rc = mdl_need(m, src, "emb.weight", 2, &t, err)) != RWKV_OK)
        return rc;
    m->V = (int)t->shape[0];
    m->C = (int)t->shape[1];
    if ((rc = mdl_need(m, src, "blocks.0.ffn.key.weight", 2, &t, err)) != RWKV_OK)
        return rc;
    m->F = (int)t->shape[0];
    switch (m->ver) {
    case MDL_V4:
        m->H = m->N = 0;
        break;
    case MDL_V70:
        if ((rc = mdl_need(m, src, "blocks.0.att.r_k", 2, &t, err)) != RWKV_OK)
            return rc;
        m->H = (int)t->shape[0];
        m->N = (int)t->shape[1];
        if ((rc = mdl_need(m, src, "blocks.0.att.w1", 2, &t, err)) != RWKV_OK)
            return rc;
        m->d_w = (int)t->shape[1];
        if ((rc = mdl_need(m, src, "blocks.0.att.a1", 2, &t, err)) != RWKV_OK)
            return rc;
        m->d_a = (int)t->shape[1];
        if ((rc = mdl_need(m, src, "blocks.0.att.g1", 2, &t, err)) != RWKV_OK)
            return rc;
        m->d_g = (int)t->shape[1];
        if (m->n_layer > 1) {
            if ((rc = mdl_need(m, src, "blocks.1.att.v1", 2, &t, err)) != RWKV_OK)
                return rc;
            m->d_v = (int)t->shape[1];
        }
        break;
    default:
        if (m->H <= 0 || m->C % m->H != 0)
            return rwkv_errf(err, RWKV_ESHAPE,
                             "%s: %d heads (from time_decay/time_faaaa) do not divide n_embd %d",
                             src->path, m->H, m->C);
        m->N = m->C / m->H;
        if (m->ver == MDL_V60) {
            if ((rc = mdl_need(m, src, "blocks.0.att.time_maa_w1", 2, &t, err)) != RWKV_OK)
                return rc;
            if (t->shape[1] % 5 != 0)
                return rwkv_errf(err, RWKV_ESHAPE,
                                 "%s: tensor 'blocks.0.att.time_maa_w1' has %lld columns, expected a multiple of 5",
                                 src->path, (long long)t->shape[1]);
            m->d_mix = (int)(t->shape[1] / 5);
            if ((rc = mdl_need(m, src, "blocks.0.att.time_decay_w1", 2, &t, err)) != RWKV_OK)
                return rc;
            m->d_decay = (int)t->shape[1];
        }
        break;
    }
    if (m->ver == MDL_V70 && (int64_t)m->H * m->N != m->C)
        return rwkv_errf(err, RWKV_ESHAPE,
                         "%s: tensor 'blocks.0.att.r_k' has shape [%d,%d], expected [H,N] with "
                         "H*N = n_embd %d", src->path, m->H, m->N, m->C);
    return RWKV_OK;
}

/* ---- fingerprint ---- */

/*
** Content fingerprint: FNV-1a of each tensor's name, dtype, shape and data,
** the data hashed whole up to MDL_FP_WHOLE bytes and otherwise by a strided
** sample (MDL_FP_SLICES slices): enough to tell checkpoints apart without
** reading gigabytes.  Per-tensor hashes are summed, so the file order (pth
** vs safetensors) does not matter.  Non-contiguous tensors hash their
** storage span the same way.
*/
static uint64_t
mdl_fingerprint(const struct mdl_src *src)
{
    uint64_t sum = 0;

    for (size_t i = 0; i < src_count(src); i++) {
        const ckpt_tensor *t = src_at(src, i);
        uint64_t h = HASH_FNV_OFFSET;
        int32_t dt = (int32_t)t->dtype;
        const unsigned char *d = t->data;

        h = hash_fnv1a(h, t->name, strlen(t->name) + 1);
        h = hash_fnv1a(h, &dt, sizeof dt);
        for (int k = 0; k < t->ndim; k++)
            h = hash_fnv1a(h, &t->shape[k], sizeof t->shape[k]);
        if (d != NULL && t->contiguous) {
            if (t->nbytes <= MDL_FP_WHOLE) {
                h = hash_fnv1a(h, d, (size_t)t->nbytes);
            } else {
                uint64_t step = (t->nbytes - MDL_FP_SLICE) / (MDL_FP_SLICES - 1);
                for (int s = 0; s < MDL_FP_SLICES; s++)
                    h = hash_fnv1a(h, d + (uint64_t)s * step, MDL_FP_SLICE);
            }
        }
        sum += hash_mix64(h);
    }
    return sum;
}

/* ---- workspace ---- */

static void mdl_each_mat(rwkv_model *m, void (*fn)(void *ud, const kern_mat *w), void *ud);
static void mdl_actsz_add(void *ud, const kern_mat *w);
struct mdl_actsz {
    const simd_kernels *k;
    int64_t             t;
    size_t              need;
    size_t              need_mv;   /* kern_mv_ws_bytes */
};

static int
mdl_ws_alloc(rwkv_model *m, size_t cap_t, rwkv_err *err)
{
    struct mdl_ws *ws = &m->ws;
    size_t C = (size_t)m->C, lo = 1, tot, off = 0;
    int d[] = { m->d_w, m->d_a, m->d_v, m->d_g, 5 * m->d_mix, m->d_decay };
    float **tc[] = { &ws->x, &ws->xn, &ws->sx, &ws->m[0], &ws->m[1], &ws->m[2], &ws->m[3],
                     &ws->m[4], &ws->m[5], &ws->r, &ws->k, &ws->v, &ws->g, &ws->w, &ws->a,
                     &ws->kk, &ws->y, &ws->vf, &ws->o };
    size_t ntc = sizeof tc / sizeof tc[0];
    uint64_t bytes;

    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if ((size_t)d[i] > lo)
            lo = (size_t)d[i];
    /* each buffer rounded up to 16 floats to keep 64-byte alignment */
#define RUP(n) (((n) + 15) & ~(size_t)15)
    tot = ntc * RUP(cap_t * C) + RUP(cap_t * lo) + RUP(cap_t * (size_t)m->F) + RUP(C);
    if (!mem_mul_ok(tot, sizeof(float), &bytes) || (ws->block = mem_alloc(bytes)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory for the workspace (%zu floats)", tot);
    for (size_t i = 0; i < ntc; i++) {
        *tc[i] = ws->block + off;
        off += RUP(cap_t * C);
    }
    ws->lo = ws->block + off;
    off += RUP(cap_t * lo);
    ws->f = ws->block + off;
    off += RUP(cap_t * (size_t)m->F);
    ws->last = ws->block + off;
#undef RUP
    ws->cap_t = cap_t;
    {
        struct mdl_actsz a = { m->kc.k, (int64_t)cap_t, 0, 0 };
        mdl_each_mat(m, mdl_actsz_add, &a);
        if ((a.need > 0 && (m->act_ws = mem_alloc(a.need)) == NULL) ||
            (a.need_mv > 0 && (m->mv_ws = mem_alloc(a.need_mv)) == NULL))
            return rwkv_errf(err, RWKV_ENOMEM, "out of memory for the workspace (%zu bytes)",
                             a.need + a.need_mv);
        m->kc.act_ws = m->act_ws;
        m->kc.act_bytes = m->act_ws ? a.need : 0;
        m->kc.mv_ws = m->mv_ws;
        m->kc.mv_bytes = m->mv_ws ? a.need_mv : 0;
    }
    return RWKV_OK;
}

/* ---- open ---- */

void
mdl_progress(const rwkv_open_opts *o, double f, const char *what)
{
    if (o && o->progress)
        o->progress(o->progress_ud, f, what);
}

/* Weight dtype of every slot from the strategy (m->strategy parsed). */
static int
mdl_plan(rwkv_model *m, rwkv_err *err)
{
    int *stage = malloc(((size_t)m->n_layer + 1) * sizeof *stage);

    m->slot_dt = calloc((size_t)m->n_layer + 1, sizeof *m->slot_dt);
    m->lora_dt = calloc((size_t)m->n_layer + 1, sizeof *m->lora_dt);
    if (stage == NULL || m->slot_dt == NULL || m->lora_dt == NULL) {
        free(stage);
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    }
    strat_plan(&m->strategy, m->n_layer, stage);
    for (int l = 0; l <= m->n_layer; l++) {
        const strat_stage *st = &m->strategy.stages[stage[l]];
        /* i4: 4-bit blocks (an extension: the reference ignores it); i3 is
         * ignored like the reference: weights in the dtype */
        m->slot_dt[l] = st->quant == 8 ? KERN_Q8 : st->quant == 4 ? KERN_Q4
                      : st->dtype == STRAT_BF16 ? KERN_BF16
                      : st->dtype == STRAT_FP16 ? KERN_F16 : KERN_F32;
        m->lora_dt[l] = st->quant == 4 && st->device == STRAT_CPU ? KERN_BF16 : KERN_F32;
    }
    free(stage);
    return RWKV_OK;
}

/* Apply FN to every matrix of the model (layers' linears and LoRAs, head). */
static void
mdl_each_mat(rwkv_model *m, void (*fn)(void *ud, const kern_mat *w), void *ud)
{
    int vm = mdl_vmask(m->ver);

    for (int l = 0; l < m->n_layer; l++) {
        const char *base = (const char *)&m->layers[l];
        for (size_t k = 0; k < sizeof mdl_layer_specs / sizeof mdl_layer_specs[0]; k++) {
            const struct mdl_spec *sp = &mdl_layer_specs[k];
            const kern_mat *km = (const kern_mat *)(const void *)(base + sp->off);
            if (!(sp->vmask & vm) || sp->kind == K_VEC)
                continue;
            for (int i = 0; i < (sp->kind == K_MAAW2 ? 5 : 1); i++)
                if (km[i].data != NULL)
                    fn(ud, &km[i]);
        }
    }
    fn(ud, &m->head);
}

struct mdl_wb {
    uint64_t bytes, elems;
};

static void
mdl_wb_add(void *ud, const kern_mat *w)
{
    struct mdl_wb *b = ud;

    b->bytes += kern_mat_bytes(w);
    b->elems += (uint64_t)w->rows * (uint64_t)w->cols;
}

/* Bytes read per token: the matrices as stored, every other parameter
** (vectors) as float32, the embedding not at all. */
static uint64_t
mdl_weight_bytes(rwkv_model *m)
{
    struct mdl_wb b = { 0, 0 };
    uint64_t rest;

    mdl_each_mat(m, mdl_wb_add, &b);
    m->info.mat_params = b.elems;
    rest = m->info.n_params - b.elems - (uint64_t)m->V * (uint64_t)m->C;
    if (rest > m->info.n_params)
        rest = 0;
    return b.bytes + 4 * rest;
}

static void
mdl_actsz_add(void *ud, const kern_mat *w)
{
    struct mdl_actsz *a = ud;
    size_t n = simd_act_bytes(a->k, (enum simd_dtype)w->dtype, a->t, w->cols);
    size_t n_mv = kern_mv_ws_bytes(w);

    if (n > a->need)
        a->need = n;
    if (n_mv > a->need_mv)
        a->need_mv = n_mv;
}

/* The weight cache for a checkpoint's plan (core/model/wcache.h); none for the
** in-memory demo/shape models. */
static int
mdl_wc_open(rwkv_model *m, const struct mdl_src *src, const rwkv_open_opts *opts,
            rwkv_err *err)
{
    wc_key key;
    uint8_t *plan;
    int rc;

    if (src->ck == NULL || (opts != NULL && opts->weight_cache == WC_OFF))
        return RWKV_OK;
    if ((plan = malloc((size_t)m->n_layer + 1)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    /* the slot dtypes and, in bit 7, bf16 LoRA factors (4-bit layers): a
    ** plan whose prepared bytes differ gets another file */
    for (int l = 0; l <= m->n_layer; l++)
        plan[l] = (uint8_t)(m->slot_dt[l] | (m->lora_dt[l] == KERN_BF16 ? 0x80 : 0));
    memset(&key, 0, sizeof key);
    key.model_path = ckpt_path(src->ck);
    key.fingerprint = m->info.fingerprint;
    key.plan = plan;
    key.n_plan = (size_t)m->n_layer + 1;
    key.kernels = simd_kernels_name(m->kc.k);
    key.k = m->kc.k;
    key.ck = src->ck;   /* its zip CRC-32s join the key (wcache.h) */
    rc = wc_open(&key, opts ? opts->weight_cache : WC_AUTO, opts ? opts->weight_cache_dir : NULL,
                 m->pool, &m->wc, err);
    free(plan);
    return rc;
}

/* Does every stage of the plan run on the CPU? */
static int
mdl_cpu_only(const rwkv_model *m)
{
    for (int i = 0; i < m->strategy.n_stages; i++)
        if (m->strategy.stages[i].device != STRAT_CPU)
            return 0;
    return 1;
}

/*
** Keep the embedding table T in place (ln0 applied per token by mdl_embed)
** instead of a folded float32 copy: for plans that run on the CPU only, when
** T is contiguous float32/bfloat16/float16.  The fold cost a V*C*4-byte copy
** (512 MiB for a 1.5B model: +18% RSS over a bf16 file) and ~0.8 s of load
** for a few rows per token; the result is bit-identical (the same exact
** widening and the same layer norm, per row).
*/
static int
mdl_emb_lazy(const rwkv_model *m, const ckpt_tensor *t)
{
    return mdl_cpu_only(m) && t->contiguous && (t->dtype == CK_F32 || t->dtype == CK_BF16 || t->dtype == CK_F16) &&
           (t->dtype != CK_F32 || (uintptr_t)t->data % sizeof(float) == 0);
}

/* Build step 1: version, strategy, sizes, weight plan, pool, fingerprint,
** weight cache and the layer array. */
static int
mdl_setup(rwkv_model *m, const struct mdl_src *src, const rwkv_open_opts *opts, rwkv_err *err)
{
    const char *strategy = opts && opts->strategy ? opts->strategy : "cpu fp32";
    int rc;

    if ((rc = mdl_detect(m, src, err)) != RWKV_OK)
        return rc;
    if ((rc = strat_check(strategy, m->ver == MDL_V70, &m->strategy, err)) != RWKV_OK)
        return rc;
    if ((rc = mdl_dims(m, src, err)) != RWKV_OK)
        return rc;
    if ((rc = mdl_plan(m, err)) != RWKV_OK)
        return rc;
    if (m->pool == NULL && (rc = tpool_create(opts ? opts->n_threads : 0, &m->pool, err)) != RWKV_OK)
        return rc;
    m->kc.pool = m->pool;
    m->kc.k = kern_default_kernels();
    m->kc.tally = &m->tally;
    m->info.fingerprint = mdl_fingerprint(src);
    m->info.file_digest = ckpt_crc_digest(src->ck);
    if ((rc = mdl_wc_open(m, src, opts, err)) != RWKV_OK)
        return rc;
    m->rehome = src->ck != NULL && mdl_cpu_only(m) &&
                mem_want_copy("RWKV_CHECKPOINT_LOAD", ckpt_file_size(src->ck));
    m->layers = calloc((size_t)m->n_layer, sizeof *m->layers);
    if (m->layers == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    return RWKV_OK;
}

static const int mdl_shp_vc[2] = { D_V, D_C }, mdl_shp_c[1] = { D_C };

/* The embedding and ln0: in place (CPU plans), from the weight cache, or
** folded into a float32 copy. */
static int
mdl_load_emb(rwkv_model *m, const struct mdl_src *src, rwkv_err *err)
{
    const ckpt_tensor *t, *lw, *lb;
    const float *ln0w, *ln0b;
    float *emb;
    int rc;

    t = src_find(src, "emb.weight");
    if ((rc = mdl_check_shape(m, src, "emb.weight", t, mdl_shp_vc, 2, 0, err)) != RWKV_OK)
        return rc;
    if ((lw = src_find(src, "blocks.0.ln0.weight")) == NULL)
        return mdl_missing(src, "blocks.0.ln0.weight", m->info.version, err);
    if ((lb = src_find(src, "blocks.0.ln0.bias")) == NULL)
        return mdl_missing(src, "blocks.0.ln0.bias", m->info.version, err);
    if ((rc = mdl_check_shape(m, src, "blocks.0.ln0.weight", lw, mdl_shp_c, 1, 1, err)) != RWKV_OK ||
        (rc = mdl_check_shape(m, src, "blocks.0.ln0.bias", lb, mdl_shp_c, 1, 1, err)) != RWKV_OK)
        return rc;
    if (mdl_emb_lazy(m, t)) {
        /* CPU plan: the table stays where it is, ln0 per token (mdl_embed) */
        if ((rc = mdl_f32(m, lw, 0, &m->ln0_w, err)) != RWKV_OK ||
            (rc = mdl_f32(m, lb, 0, &m->ln0_b, err)) != RWKV_OK)
            return rc;
        m->emb_raw = t->data;
        m->emb_dt = t->dtype;
        return RWKV_OK;
    }
    if (wc_get(m->wc, "emb.weight", WC_EMB, KERN_F32, m->V, m->C, (const void **)&m->emb, NULL))
        return RWKV_OK;   /* folded by an earlier load (weight cache) */
    if ((rc = mdl_f32(m, t, 1, (const float **)&emb, err)) != RWKV_OK ||
        (rc = mdl_f32(m, lw, 0, &ln0w, err)) != RWKV_OK ||
        (rc = mdl_f32(m, lb, 0, &ln0b, err)) != RWKV_OK)
        return rc;
    /* ln0 folded into the embedding, in float32 */
    for (int v = 0; v < m->V; v++) {
        float *row = emb + (size_t)v * (size_t)m->C;
        kern_layer_norm(row, ln0w, ln0b, row, (size_t)m->C, MDL_LN_EPS);
    }
    m->emb = emb;
    wc_put(m->wc, "emb.weight", WC_EMB, KERN_F32, m->V, m->C, emb, NULL, 0);
    return RWKV_OK;
}

/* The required [C] vector NAME as float32 into *OUT. */
static int
mdl_load_vec(rwkv_model *m, const struct mdl_src *src, const char *name, const float **out,
             rwkv_err *err)
{
    const ckpt_tensor *t = src_find(src, name);
    int rc;

    if (t == NULL)
        return mdl_missing(src, name, m->info.version, err);
    if ((rc = mdl_check_shape(m, src, name, t, mdl_shp_c, 1, 1, err)) != RWKV_OK)
        return rc;
    return mdl_f32(m, t, 0, out, err);
}

/* Build step 2: the tensors outside the layers. */
static int
mdl_load_globals(rwkv_model *m, const struct mdl_src *src, rwkv_err *err)
{
    const ckpt_tensor *t;
    int rc;

    if ((rc = mdl_load_emb(m, src, err)) != RWKV_OK ||
        (rc = mdl_load_vec(m, src, "ln_out.weight", &m->ln_out_w, err)) != RWKV_OK ||
        (rc = mdl_load_vec(m, src, "ln_out.bias", &m->ln_out_b, err)) != RWKV_OK)
        return rc;
    if ((t = src_find(src, "head.weight")) == NULL)
        return mdl_missing(src, "head.weight", m->info.version, err);
    if ((rc = mdl_check_shape(m, src, "head.weight", t, mdl_shp_vc, 2, 0, err)) != RWKV_OK)
        return rc;
    return mdl_mat(m, t, m->slot_dt[m->n_layer], &m->head, err);
}

/* The version-specific transforms of a loaded layer (on its private copies,
** F_COPY): decay / bonus as the block math wants them, time_state as kv. */
static int
mdl_transform_layer(rwkv_model *m, struct mdl_layer *ly, rwkv_err *err)
{
    float *dec = (float *)ly->decay, *fst = (float *)ly->first;
    size_t nd = (m->ver == MDL_V50 || m->ver == MDL_V51) ? (size_t)m->H : (size_t)m->C;

    if (m->ver == MDL_V4) {
        for (size_t i = 0; i < nd; i++)
            dec[i] = -expf(dec[i]);
    } else if (m->ver / 10 == 5) {
        for (size_t i = 0; i < nd; i++)
            dec[i] = expf(-expf(dec[i]));
        if (!m->real_time_first)
            for (size_t i = 0; i < nd; i++)
                fst[i] = expf(fst[i]);
    }
    if (ly->time_state != NULL) {
        /* checkpoint time_state [H][a][b] -> kv = transpose(1,2) */
        size_t H = (size_t)m->H, N = (size_t)m->N;
        float *ts = (float *)ly->time_state, *tmp = malloc(H * N * N * sizeof(float));
        if (tmp == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
        memcpy(tmp, ts, H * N * N * sizeof(float));
        for (size_t h = 0; h < H; h++)
            for (size_t a = 0; a < N; a++)
                for (size_t b = 0; b < N; b++)
                    ts[h * N * N + a * N + b] = tmp[h * N * N + b * N + a];
        free(tmp);
    }
    return RWKV_OK;
}

/* Build step 3: every layer's tensors (the rows of mdl_layer_specs the
** version uses), then its transforms. */
static int
mdl_load_layers(rwkv_model *m, const struct mdl_src *src, const rwkv_open_opts *opts,
                rwkv_err *err)
{
    int vm = mdl_vmask(m->ver), rc;

    for (int l = 0; l < m->n_layer; l++) {
        mdl_progress(opts, (double)l / m->n_layer, "preparing weights");
        for (size_t k = 0; k < sizeof mdl_layer_specs / sizeof mdl_layer_specs[0]; k++) {
            const struct mdl_spec *sp = &mdl_layer_specs[k];
            if (!(sp->vmask & vm))
                continue;
            if ((rc = mdl_load_spec(m, src, l, sp, err)) != RWKV_OK)
                return rc;
        }
        if ((rc = mdl_transform_layer(m, &m->layers[l], err)) != RWKV_OK)
            return rc;
    }
    return RWKV_OK;
}

/* Build step 4: the sizes and counts of rwkv_info. */
static void
mdl_fill_info(rwkv_model *m, const struct mdl_src *src)
{
    uint64_t nparams = 0;

    for (size_t i = 0; i < src_count(src); i++) {
        const ckpt_tensor *x = src_at(src, i);
        const char *dn = ck_dtype_name(x->dtype);
        nparams += x->numel;
        if (mdl_is_float(x->dtype) && strstr(m->info.dtypes, dn) == NULL) {
            size_t len = strlen(m->info.dtypes);
            snprintf(m->info.dtypes + len, sizeof m->info.dtypes - len, "%s%s", len ? "," : "", dn);
        }
    }
    m->info.n_params = nparams;
    m->info.n_layer = m->n_layer;
    m->info.n_embd = m->C;
    m->info.n_head = m->H;
    m->info.head_size = m->N;
    m->info.n_ffn = m->F;
    m->info.n_vocab = m->V;
    m->info.state_len = (size_t)m->n_layer * mdl_layer_state_len(m);
    snprintf(m->info.strategy, sizeof m->info.strategy, "%s", m->strategy.normalised);
    m->info.n_threads = tpool_size(m->pool);
    m->info.weight_bytes = mdl_weight_bytes(m);
}

int
mdl_build(rwkv_model *m, const struct mdl_src *src, const rwkv_open_opts *opts, rwkv_err *err)
{
    int rc;

    if ((rc = mdl_setup(m, src, opts, err)) != RWKV_OK ||
        (rc = mdl_load_globals(m, src, err)) != RWKV_OK ||
        (rc = mdl_load_layers(m, src, opts, err)) != RWKV_OK)
        return rc;
    mdl_fill_info(m, src);
    if ((rc = mdl_ws_alloc(m, MDL_MAX_CHUNK, err)) != RWKV_OK)
        return rc;
    wc_finish(m->wc);   /* a new cache is written in the background */
    snprintf(m->info.weight_cache, sizeof m->info.weight_cache, "%s", wc_status(m->wc));
    snprintf(m->info.weight_cache_path, sizeof m->info.weight_cache_path, "%s", wc_path(m->wc));
    snprintf(m->info.weight_cache_why, sizeof m->info.weight_cache_why, "%s", wc_why(m->wc));
    m->info.weight_cache_read = wc_read_in(m->wc);
    m->info.in_place_read = m->rehome && m->info.in_place_bytes > 0;
    /* [device hook] upload the device stages' weights (no-op for cpu plans) */
    if ((rc = mdl_backend_open(m, err)) != RWKV_OK)
        return rc;
    mdl_progress(opts, 1.0, "ready");
    return RWKV_OK;
}

int
rwkv_model_open(const char *path, const rwkv_open_opts *opts, rwkv_model **out, rwkv_err *err)
{
    rwkv_model *m;
    struct mdl_src src;
    char *p2 = NULL;
    const char *use = path, *meta;
    size_t n;
    int rc;

    *out = NULL;
    if (path == NULL || *path == '\0')
        return rwkv_errf(err, RWKV_EINVAL, "no model path given");
    /* like the reference: "x" -> "x.pth" (only when "x" itself is not there) */
    n = strlen(path) + 5;
    if ((p2 = malloc(n)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    use = ckpt_file_name(path, p2, n);
    m = calloc(1, sizeof *m);
    if (m == NULL) {
        free(p2);
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    }
    rc = ckpt_open(use, NULL, &m->ck, err);
    free(p2);
    if (rc != RWKV_OK) {
        free(m);
        return rc;
    }
    if (ckpt_meta_str(m->ck, "_strategy", &meta) == RWKV_OK) {
        rc = rwkv_errf(err, RWKV_ENOTSUP,
                       "%s: a checkpoint converted by the pip package (strategy '%s') is not "
                       "supported; use the original checkpoint", ckpt_path(m->ck), meta);
        rwkv_model_close(m);
        return rc;
    }
    memset(&src, 0, sizeof src);
    src.ck = m->ck;
    src.path = ckpt_path(m->ck);
    rc = mdl_build(m, &src, opts, err);
    if (rc != RWKV_OK) {
        rwkv_model_close(m);
        return rc;
    }
    m->info.file_size = ckpt_file_size(m->ck);
    snprintf(m->info.format, sizeof m->info.format, "%s", ckpt_format(m->ck));
    *out = m;
    return RWKV_OK;
}

void
rwkv_model_close(rwkv_model *m)
{
    if (m == NULL)
        return;
    mdl_backend_close(m);   /* [device hook] */
    tpool_destroy(m->pool);
    wc_close(m->wc);        /* after every user of cached weights */
    mem_free(m->ws.block);
    mem_free(m->act_ws);
    mem_free(m->mv_ws);
    free(m->slot_dt);
    free(m->lora_dt);
    for (size_t i = 0; i < m->n_allocs; i++)
        mem_free(m->allocs[i]);
    free(m->allocs);
    free(m->layers);
    ckpt_close(m->ck);
    free(m);
}

const rwkv_info *
rwkv_model_info(const rwkv_model *m)
{
    return &m->info;
}

void
rwkv_model_products(const rwkv_model *m, double *seconds, double *bytes)
{
    *seconds = m->tally.seconds;
    *bytes = m->tally.bytes;
}

/* ---- forward ---- */

/* X [C] = embedding row TOK with ln0 applied (folded table or in place). */
void
mdl_embed(const rwkv_model *m, int32_t tok, float *x)
{
    size_t C = (size_t)m->C, at = (size_t)tok * C;

    if (m->emb != NULL) {
        memcpy(x, m->emb + at, C * sizeof(float));
        return;
    }
    if (m->emb_dt == CK_BF16)
        simd_bf16_to_f32(m->kc.k, (const uint16_t *)m->emb_raw + at, x, C);
    else if (m->emb_dt == CK_F16)
        simd_f16_to_f32(m->kc.k, (const uint16_t *)m->emb_raw + at, x, C);
    else
        memcpy(x, (const float *)m->emb_raw + at, C * sizeof(float));
    kern_layer_norm(x, m->ln0_w, m->ln0_b, x, C, MDL_LN_EPS);
}

int
rwkv_eval(rwkv_model *m, const int32_t *tokens, size_t n, rwkv_state *s, float *logits,
          rwkv_err *err)
{
    size_t C = (size_t)m->C;

    if (n == 0)
        return rwkv_errf(err, RWKV_EINVAL, "eval: no tokens");
    if (s == NULL || s->len != m->info.state_len || s->fingerprint != m->info.fingerprint)
        return rwkv_errf(err, RWKV_EINVAL, "eval: the state was made for another model "
                         "(%zu floats, this model's states have %zu)", s ? s->len : 0,
                         m->info.state_len);
    for (size_t i = 0; i < n; i++)
        if (tokens[i] < 0 || tokens[i] >= m->V)
            return rwkv_errf(err, RWKV_EINVAL, "token id %ld at position %zu is out of range "
                             "(vocabulary size %d)", (long)tokens[i], i, m->V);
    /* [device hook] a plan with device stages runs in the backend; a CPU
     * eval first takes the state back from any backend holding it */
    if (m->be != NULL)
        return m->be->eval(m->be_data, m, tokens, n, s, logits, err);
    mdl_state_release(s);
    for (size_t start = 0; start < n;) {
        size_t t = n - start;
        if (t > m->ws.cap_t)
            t = m->ws.cap_t;
        for (size_t p = 0; p < t; p++)
            mdl_embed(m, tokens[start + p], m->ws.x + p * C);
        m->run_layers(m, t, s->data);
        start += t;
        if (start == n && logits != NULL) {
            kern_layer_norm(m->ws.x + (t - 1) * C, m->ln_out_w, m->ln_out_b, m->ws.last, C,
                            MDL_LN_EPS);
            kern_matmul(&m->kc, &m->head, m->ws.last, 1, logits);
        }
    }
    return RWKV_OK;
}
