/*
** gpu_model.c -- the CUDA backend of core/model/backend.h: runs the layers a
** strategy places on `cuda` / `cuda:N` with the gpu.h kernels and cuBLAS.
**
** Plain C on gpu.h (no CUDA header); it reads the prepared model through
** core/model/model.h (gpu -> core is the allowed direction).
**
** At open (gm_open), after core prepared every weight in its slot's dtype on
** the host:
**   - the plan (strat_plan / strat_streamed) gives each slot a device (or the
**     CPU); consecutive layers on the same device form a segment;
**   - each device gets a context, scratch for MDL_MAX_CHUNK tokens, and the
**     state of its segments ([l1 - l0] layers of the host layout);
**   - each device layer's tensors are packed into one blob (gm_walk: every
**     vector and matrix in struct mdl_layer, 256-byte aligned) that is either
**     uploaded once (resident) or kept in pinned host memory and uploaded per
**     use into one of two device slots (streamed, `*N+`), on a second stream
**     of the device, overlapped with the previous layer's compute (events);
**   - the head slot's ln_out and head matrix go to its device.
** Per call (gm_eval): the embedding rows are gathered on the host; the
** activations x (and v7's v_first) move host <-> device only where the plan
** changes device; the last row goes to the head's device.  A 1-token pass of
** a segment without streamed layers is recorded once as a CUDA graph and
** replayed (RWKV_CUDA_GRAPHS=0 turns that off).
**
** Products by weight dtype: fp16, Q8 and Q4 through our kernels for up to
** GM_SMALL_T tokens (fp32 activations), beyond that through cuBLAS (fp16
** activations; Q8 / Q4 dequantized to fp16 first); bf16 through cuBLAS (bf16
** activations); fp32 (and the LoRA matrices, always fp32) through cuBLAS fp32.
** Accumulation is fp32 everywhere, so no fp16 layer rescaling is needed.
**
** State: the device layers' part of the one state bound to the model lives
** on the device between calls (core/model/backend.h: mdl_state_link); core pulls it
** back when the host copy is read.
*/
#include "gpu.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/model/backend.h"
#include "../core/model/model.h"

/* Tokens up to which fp16 / Q8 / Q4 products use our own kernels (weights read
 * once per GPU_MM tile of 8 tokens), cuBLAS beyond. */
#define GM_SMALL_T 8
/* Alignment of every tensor in a layer blob (and cuBLAS's preference). */
#define GM_ALIGN ((size_t)256)
/* Most distinct cuda devices in one plan. */
#define GM_MAX_DEV 16
/* Device allocations of one device's scratch. */
#define GM_DEV_ALLOCS 48
/* Bytes per element of the half-precision activations given to cuBLAS. */
#define GM_HALF 2

/* ---- the tensors of a layer ---- */

#define LYF(f) offsetof(struct mdl_layer, f)

/* float vectors of struct mdl_layer the device needs (time_state is not:
 * fresh states are made on the host) */
static const size_t gm_vecs[] = {
    LYF(ln1_w), LYF(ln1_b), LYF(ln2_w), LYF(ln2_b), LYF(mix_k), LYF(mix_v), LYF(mix_r),
    LYF(mix_g), LYF(decay), LYF(first), LYF(maa_x), LYF(maa_w), LYF(maa_k), LYF(maa_v),
    LYF(maa_r), LYF(maa_g), LYF(x_r), LYF(x_w), LYF(x_k), LYF(x_v), LYF(x_a), LYF(x_g),
    LYF(w0), LYF(a0), LYF(v0), LYF(k_k), LYF(k_a), LYF(r_k), LYF(lnx_w), LYF(lnx_b),
    LYF(fmix_k), LYF(fmix_r),
};

/* matrices (kern_mat) of struct mdl_layer */
static const size_t gm_mats[] = {
    LYF(maa_w1), LYF(maa_w2) + 0 * sizeof(kern_mat), LYF(maa_w2) + 1 * sizeof(kern_mat),
    LYF(maa_w2) + 2 * sizeof(kern_mat), LYF(maa_w2) + 3 * sizeof(kern_mat),
    LYF(maa_w2) + 4 * sizeof(kern_mat), LYF(decay_w1), LYF(decay_w2), LYF(w1), LYF(w2),
    LYF(a1), LYF(a2), LYF(v1), LYF(v2), LYF(g1), LYF(g2), LYF(att_r), LYF(att_k),
    LYF(att_v), LYF(att_o), LYF(att_g), LYF(ffn_k), LYF(ffn_v), LYF(ffn_r),
};

static size_t
gm_up(size_t n)
{
    return (n + GM_ALIGN - 1) & ~(GM_ALIGN - 1);
}

/* Floats of vector field F of a layer of M. */
static size_t
gm_vec_len(const rwkv_model *m, size_t f)
{
    if ((f == LYF(decay) || f == LYF(first)) && (m->ver == MDL_V50 || m->ver == MDL_V51))
        return (size_t)m->H;
    return (size_t)m->C;
}

/* Bytes of W's data on the device (Q4: the codes, 16 bytes a block) and of
 * its Q8 scales / Q4 block words (0 for the other dtypes).  The host's Q4
 * rows hold codes and words together (simd.h); the device keeps them in two
 * arrays (gpu/gpu.h), split by gm_put. */
static size_t
gm_mat_data_bytes(const kern_mat *w)
{
    if (w->dtype == KERN_Q4)
        return (size_t)w->rows * (size_t)simd_q4_nblocks(w->cols) * 16;
    return (size_t)kern_data_bytes(w->dtype, w->rows, w->cols);
}

static size_t
gm_mat_scale_bytes(const kern_mat *w)
{
    if (w->dtype == KERN_Q4)
        return (size_t)w->rows * (size_t)simd_q4_nblocks(w->cols) * 4;
    if (w->scales == NULL)
        return 0;
    return (size_t)kern_scale_bytes(w->dtype, w->rows, w->cols);
}

/* W's bytes in the device's layout: data into DATA, scales / block words
 * into SCALES (gm_mat_data_bytes, gm_mat_scale_bytes; host memory). */
static void
gm_put(const kern_mat *w, void *data, void *scales)
{
    if (w->dtype == KERN_Q4) {
        simd_matrix sm = { SIMD_Q4, w->rows, w->cols, w->data, NULL };
        simd_q4_split(&sm, 0, w->rows, data, scales);
        return;
    }
    memcpy(data, w->data, gm_mat_data_bytes(w));
    if (gm_mat_scale_bytes(w) > 0)
        memcpy(scales, w->scales, gm_mat_scale_bytes(w));
}

/* Is W blockwise-quantized (Q8 or Q4: our kernel, or dequantized for cuBLAS)? */
static int
gm_quantized(const kern_mat *w)
{
    return w->dtype == KERN_Q8 || w->dtype == KERN_Q4;
}

enum gm_mode { GM_SIZE, GM_PACK, GM_BIND };

/*
** Lay out the device tensors of host layer H from offset 0, each GM_ALIGN
** aligned, and return the bytes.  GM_PACK copies the host data into BASE
** (host memory); GM_BIND makes *OUT a copy of H with every vector and matrix
** pointer moved to BASE + its offset (BASE: device memory).  The layout
** depends only on H, so a blob packed once binds to any device address.
*/
static size_t
gm_walk(const rwkv_model *m, const struct mdl_layer *h, enum gm_mode mode, char *base,
        struct mdl_layer *out)
{
    size_t off = 0;

    if (mode == GM_BIND) {
        *out = *h;
        out->time_state = NULL;
    }
    for (size_t i = 0; i < sizeof gm_vecs / sizeof gm_vecs[0]; i++) {
        const float *p;
        size_t n;
        memcpy(&p, (const char *)h + gm_vecs[i], sizeof p);
        if (p == NULL)
            continue;
        n = gm_vec_len(m, gm_vecs[i]) * sizeof(float);
        if (mode == GM_PACK)
            memcpy(base + off, p, n);
        else if (mode == GM_BIND) {
            const float *d = (const float *)(const void *)(base + off);
            memcpy((char *)out + gm_vecs[i], &d, sizeof d);
        }
        off = gm_up(off + n);
    }
    for (size_t i = 0; i < sizeof gm_mats / sizeof gm_mats[0]; i++) {
        const kern_mat *w = (const kern_mat *)(const void *)((const char *)h + gm_mats[i]);
        kern_mat *o = mode == GM_BIND ? (kern_mat *)(void *)((char *)out + gm_mats[i]) : NULL;
        size_t db, sb;
        if (w->data == NULL)
            continue;
        db = gm_mat_data_bytes(w);
        sb = gm_mat_scale_bytes(w);
        if (mode == GM_PACK)
            gm_put(w, base + off, sb > 0 ? base + gm_up(off + db) : NULL);
        else if (mode == GM_BIND)
            o->data = base + off;
        off = gm_up(off + db);
        if (sb > 0) {
            if (mode == GM_BIND)
                o->scales = (const float *)(const void *)(base + off);
            off = gm_up(off + sb);
        }
    }
    return off;
}

/* ---- the backend's data ---- */

struct gm_dev {
    int        index;          /* K of cuda:K */
    gpu_ctx   *g;              /* compute */
    gpu_ctx   *cp;             /* copies of streamed layers, or NULL */
    /* scratch, [cap][C] unless noted */
    float     *x, *xn, *sx, *mx[6], *r, *k, *v, *w, *a, *gt, *kk, *y, *o, *vg, *vf;
    float     *lo;             /* [cap][max LoRA dim] */
    float     *f;              /* [cap][F] */
    float     *last;           /* [C] */
    float     *logits;         /* [V] when the head is here */
    void      *xh;             /* [cap][max(C, F)] half / bf16 activations */
    void      *wh;             /* a dequantized Q8 / Q4 matrix (fp16), or NULL */
    /* streaming */
    void      *slot[2];
    gpu_event *ready[2], *freed[2], *start;
    /* head */
    const float *ln_out_w, *ln_out_b;
    kern_mat   head;
    void      *allocs[GM_DEV_ALLOCS];
    int        n_allocs;
    int        used;           /* work enqueued in this call */
    int        fuse;           /* decode's v7 attention in one launch (RWKV_CUDA_FUSE=0: three) */
};

struct gm_seg {
    int        l0, l1;         /* layers [l0, l1) */
    int        dev;            /* index into gm.dev, -1 = cpu */
    float     *state;          /* device: the segment's state, host layout */
    int       *streamed;       /* layers of the segment that are streamed, in order */
    int        n_streamed;
    gpu_graph *graph;          /* the 1-token pass, once recorded */
};

struct gm_layer {
    size_t           bytes;    /* the blob */
    void            *dev;      /* resident blob, or NULL */
    void            *pinned;   /* streamed blob in pinned host memory, or NULL */
    struct mdl_layer dl;       /* resident: the layer with device pointers */
};

struct gm {
    struct mdl_state_link link;   /* first: gm_pull casts back */
    rwkv_model     *m;
    size_t          per;          /* floats of one layer's state */
    int             n_dev;
    struct gm_dev   dev[GM_MAX_DEV];
    int             n_seg;
    struct gm_seg  *seg;
    struct gm_layer *ly;          /* [n_layer] */
    int             head_dev;     /* -1 = cpu */
    int             graphs;       /* record 1-token passes */
};

/* ---- allocation helpers ---- */

static int
gm_dalloc(struct gm_dev *d, size_t bytes, void **out, rwkv_err *err)
{
    int rc;

    *out = NULL;
    if (d->n_allocs == GM_DEV_ALLOCS)
        return rwkv_errf(err, RWKV_ENOMEM, "cuda: too many scratch buffers");
    if ((rc = gpu_alloc(d->g, bytes, out, err)) != RWKV_OK)
        return rc;
    d->allocs[d->n_allocs++] = *out;
    return gpu_zero(d->g, *out, bytes, err);
}

static int
gm_falloc(struct gm_dev *d, size_t floats, float **out, rwkv_err *err)
{
    void *p = NULL;
    int rc = gm_dalloc(d, floats * sizeof(float), &p, err);

    *out = p;
    return rc;
}

/* ---- products ---- */

/*
** Y [T][rows] = W X for a Q8 / Q4 matrix W: our kernel (fp32 activations) up
** to GM_SMALL_T tokens, else W dequantized into D's fp16 scratch and cuBLAS
** with fp16 activations.
*/
static int
gm_mm_quant(struct gm_dev *d, const kern_mat *w, const float *x, int t, float *y,
            rwkv_err *err)
{
    const uint32_t *dm = (const uint32_t *)(const void *)w->scales;   /* Q4 block words */
    int q4 = w->dtype == KERN_Q4, rc;

    if (t <= GM_SMALL_T || d->wh == NULL)
        return q4 ? gpu_matmul_q4(d->g, w->data, dm, w->rows, w->cols, x, t, y, err)
                  : gpu_matmul_q8(d->g, w->data, w->scales, w->rows, w->cols, x, t, y, err);
    rc = q4 ? gpu_dequant_q4(d->g, w->data, dm, w->rows, w->cols, GPU_F16, d->wh, err)
            : gpu_dequant_q8(d->g, w->data, w->scales, w->rows, w->cols, GPU_F16, d->wh, err);
    if (rc != RWKV_OK ||
        (rc = gpu_convert(d->g, x, GPU_F16, d->xh, (size_t)t * (size_t)w->cols, err)) != RWKV_OK)
        return rc;
    return gpu_gemm(d->g, GPU_F16, d->wh, w->rows, w->cols, d->xh, t, y, w->rows, 0.0f, err);
}

/* Y [T][rows] = W X, X [T][ldx] (ldx >= cols) float32 on D. */
static int
gm_mm_ld(struct gm_dev *d, const kern_mat *w, const float *x, int ldx, int t, float *y,
         rwkv_err *err)
{
    size_t n = (size_t)t * (size_t)w->cols;
    int rc;

    if (w->dtype == KERN_F32)
        return gpu_gemm_ldx(d->g, GPU_F32, w->data, w->rows, w->cols, x, ldx, t, y, w->rows,
                            0.0f, err);
    if (ldx != w->cols)   /* only LoRA matrices (fp32) are applied to strided inputs */
        return rwkv_errf(err, RWKV_EINVAL, "cuda: strided input for a %s matrix",
                         simd_dtype_name((enum simd_dtype)w->dtype));
    switch (w->dtype) {
    case KERN_F16:
        if (t <= GM_SMALL_T)
            return gpu_matmul_f16(d->g, w->data, w->rows, w->cols, x, t, y, err);
        if ((rc = gpu_convert(d->g, x, GPU_F16, d->xh, n, err)) != RWKV_OK)
            return rc;
        return gpu_gemm(d->g, GPU_F16, w->data, w->rows, w->cols, d->xh, t, y, w->rows, 0.0f,
                        err);
    case KERN_BF16:
        if ((rc = gpu_convert(d->g, x, GPU_BF16, d->xh, n, err)) != RWKV_OK)
            return rc;
        return gpu_gemm(d->g, GPU_BF16, w->data, w->rows, w->cols, d->xh, t, y, w->rows, 0.0f,
                        err);
    case KERN_Q8:
    case KERN_Q4:
        return gm_mm_quant(d, w, x, t, y, err);
    default:
        return rwkv_errf(err, RWKV_EINVAL, "cuda: unknown weight dtype %d", (int)w->dtype);
    }
}

static int
gm_mm(struct gm_dev *d, const kern_mat *w, const float *x, int t, float *y, rwkv_err *err)
{
    return gm_mm_ld(d, w, x, w->cols, t, y, err);
}

static int
gm_ew(struct gm_dev *d, enum gpu_op op, size_t n, const float *a, const float *b,
      const float *c, float *y, rwkv_err *err)
{
    return gpu_ewise(d->g, op, n, 0, a, b, c, y, err);
}

/* Y = B act(A X) (a v7 LoRA; LO holds the hidden [T][A rows]). */
static int
gm_lora(struct gm_dev *d, const kern_mat *a, const kern_mat *b, enum gpu_op act,
        const float *x, int t, float *y, rwkv_err *err)
{
    int rc;

    if ((rc = gm_mm(d, a, x, t, d->lo, err)) != RWKV_OK)
        return rc;
    if (act != GPU_NOP &&
        (rc = gm_ew(d, act, (size_t)t * (size_t)a->rows, d->lo, NULL, NULL, d->lo, err)) != RWKV_OK)
        return rc;
    return gm_mm(d, b, d->lo, t, y, err);
}

/* ---- layers (each mirrors core/model/model_v*.c) ---- */

#define TRY(call)                          \
    do {                                   \
        if ((rc = (call)) != RWKV_OK)      \
            return rc;                     \
    } while (0)

/*
** A layer's products queued to run as one gpu_matmul_batch launch (passes of
** up to GM_SMALL_T tokens: decode), each with its activation and residual add
** fused in; longer passes run each product at once (cuBLAS), then the
** activation and the add as element-wise passes, as before batching.
*/
struct gm_batch {
    struct gm_dev *d;
    int            t, n, on;
    gpu_mm_job     j[GPU_MMB_MAX];
};

static void
gm_batch_begin(struct gm_batch *b, struct gm_dev *d, int t)
{
    b->d = d, b->t = t, b->n = 0, b->on = t <= GM_SMALL_T;
}

static int
gm_batch_run(struct gm_batch *b, rwkv_err *err)
{
    int n = b->n;

    b->n = 0;
    return n > 0 ? gpu_matmul_batch(b->d->g, b->j, n, b->t, err) : RWKV_OK;
}

/* Y [T][rows] (+= when ACC) ACT(W X), X [T][cols]: queued in B, or now. */
static int
gm_bmm(struct gm_batch *b, const kern_mat *w, const float *x, float *y, enum gpu_op act,
       int acc, rwkv_err *err)
{
    struct gm_dev *d = b->d;
    size_t n = (size_t)b->t * (size_t)w->rows;
    float *dst = acc ? d->o : y;
    int rc;

    if (b->on) {
        gpu_mm_job *j;
        if (b->n == GPU_MMB_MAX)
            TRY(gm_batch_run(b, err));
        j = &b->j[b->n++];
        memset(j, 0, sizeof *j);
        j->wt = w->dtype == KERN_F16 ? GPU_W_F16 : w->dtype == KERN_BF16 ? GPU_W_BF16
              : w->dtype == KERN_Q8 ? GPU_W_Q8 : w->dtype == KERN_Q4 ? GPU_W_Q4 : GPU_W_F32;
        j->w = w->data, j->scales = w->scales;
        j->rows = w->rows, j->cols = w->cols;
        j->x = x, j->y = y, j->act = act, j->accumulate = acc;
        return RWKV_OK;
    }
    TRY(gm_mm(d, w, x, b->t, dst, err));
    if (act != GPU_NOP)
        TRY(gm_ew(d, act, n, dst, NULL, NULL, dst, err));
    return acc ? gm_ew(d, GPU_OP_ADD, n, y, dst, NULL, y, err) : RWKV_OK;
}

/* v4/v5/v6 FFN: x += sigmoid(r) * V relu(K kx)^2; LERP for v6, else V5 mix. */
static int
gm_ffn_rkv(const rwkv_model *m, struct gm_dev *d, const struct mdl_layer *ly, int t,
           float *prev, enum gpu_mix_form form, rwkv_err *err)
{
    int C = m->C, rc;
    size_t TC = (size_t)t * (size_t)C;
    gpu_mix mx;
    struct gm_batch b;

    memset(&mx, 0, sizeof mx);
    mx.form = form, mx.n = 2;
    mx.mix[0] = ly->fmix_k, mx.out[0] = d->mx[0];
    mx.mix[1] = ly->fmix_r, mx.out[1] = d->mx[1];
    TRY(gpu_ln_mix(d->g, d->x, ly->ln2_w, ly->ln2_b, d->xn, prev, t, C, MDL_LN_EPS, &mx, err));
    gm_batch_begin(&b, d, t);
    TRY(gm_bmm(&b, &ly->ffn_r, d->mx[1], d->r, GPU_NOP, 0, err));
    TRY(gm_bmm(&b, &ly->ffn_k, d->mx[0], d->f, GPU_OP_RELU_SQ, 0, err));
    TRY(gm_batch_run(&b, err));
    TRY(gm_mm(d, &ly->ffn_v, d->f, t, d->o, err));
    return gm_ew(d, GPU_OP_SIGMUL_ADD, TC, d->x, d->r, d->o, d->x, err);
}

static int
gm_layer_v5(const rwkv_model *m, struct gm_dev *d, const struct mdl_layer *ly, int t,
            float *st, rwkv_err *err)
{
    int C = m->C, H = m->H, N = m->N, rc;
    int gate = m->ver >= MDL_V51, chan = m->ver == MDL_V52;
    float *att_prev = st, *kv = st + C, *ffn_prev = kv + (size_t)H * N * N;
    gpu_mix mx;
    struct gm_batch b;

    memset(&mx, 0, sizeof mx);
    mx.form = GPU_MIX_V5, mx.n = gate ? 4 : 3;
    mx.mix[0] = ly->mix_k, mx.out[0] = d->mx[0];
    mx.mix[1] = ly->mix_v, mx.out[1] = d->mx[1];
    mx.mix[2] = ly->mix_r, mx.out[2] = d->mx[2];
    mx.mix[3] = ly->mix_g, mx.out[3] = d->mx[3];
    TRY(gpu_ln_mix(d->g, d->x, ly->ln1_w, ly->ln1_b, d->xn, att_prev, t, C, MDL_LN_EPS, &mx,
                   err));
    gm_batch_begin(&b, d, t);
    TRY(gm_bmm(&b, &ly->att_r, d->mx[2], d->r, GPU_NOP, 0, err));
    TRY(gm_bmm(&b, &ly->att_k, d->mx[0], d->k, GPU_NOP, 0, err));
    TRY(gm_bmm(&b, &ly->att_v, d->mx[1], d->v, GPU_NOP, 0, err));
    if (gate)
        TRY(gm_bmm(&b, &ly->att_g, d->mx[3], d->gt, GPU_OP_SILU, 0, err));
    TRY(gm_batch_run(&b, err));
    TRY(gpu_wkv5(d->g, t, H, N, kv, d->r, d->k, d->v, ly->decay, ly->first, 0, chan, d->y,
                 err));
    TRY(gpu_group_norm(d->g, d->y, ly->lnx_w, ly->lnx_b, gate ? d->gt : NULL, d->y, t, H, N,
                       MDL_GN_EPS, err));
    TRY(gm_bmm(&b, &ly->att_o, d->y, d->x, GPU_NOP, 1, err));
    TRY(gm_batch_run(&b, err));
    return gm_ffn_rkv(m, d, ly, t, ffn_prev, GPU_MIX_V5, err);
}

static int
gm_layer_v6(const rwkv_model *m, struct gm_dev *d, const struct mdl_layer *ly, int t,
            float *st, rwkv_err *err)
{
    int C = m->C, H = m->H, N = m->N, dm = m->d_mix, rc;
    size_t TC = (size_t)t * (size_t)C;
    float *att_prev = st, *kv = st + C, *ffn_prev = kv + (size_t)H * N * N;
    const float *maa[5] = { ly->maa_w, ly->maa_k, ly->maa_v, ly->maa_r, ly->maa_g };
    /* mixed inputs w, k, v, r, g (model_v6.c's order); mx[0] holds xxx */
    float *mix[5] = { d->mx[1], d->mx[2], d->mx[3], d->mx[4], d->mx[5] };
    gpu_mix mx;
    struct gm_batch b;

    /* sx := sx - xx (delta), xxx = xx + delta * maa_x */
    memset(&mx, 0, sizeof mx);
    mx.form = GPU_MIX_LERP, mx.n = 1;
    mx.mix[0] = ly->maa_x, mx.out[0] = d->mx[0];
    mx.delta = d->sx;
    TRY(gpu_ln_mix(d->g, d->x, ly->ln1_w, ly->ln1_b, d->xn, att_prev, t, C, MDL_LN_EPS, &mx,
                   err));
    TRY(gm_mm(d, &ly->maa_w1, d->mx[0], t, d->lo, err));          /* [T][5*Dm] */
    TRY(gm_ew(d, GPU_OP_TANH, (size_t)t * 5 * (size_t)dm, d->lo, NULL, NULL, d->lo, err));
    for (int s = 0; s < 5; s++) {
        TRY(gm_mm_ld(d, &ly->maa_w2[s], d->lo + (size_t)s * dm, 5 * dm, t, d->o, err));
        TRY(gpu_mix_add(d->g, d->xn, d->sx, maa[s], d->o, mix[s], t, C, err));
    }
    gm_batch_begin(&b, d, t);
    TRY(gm_bmm(&b, &ly->att_r, mix[3], d->r, GPU_NOP, 0, err));
    TRY(gm_bmm(&b, &ly->att_k, mix[1], d->k, GPU_NOP, 0, err));
    TRY(gm_bmm(&b, &ly->att_v, mix[2], d->v, GPU_NOP, 0, err));
    TRY(gm_bmm(&b, &ly->att_g, mix[4], d->gt, GPU_OP_SILU, 0, err));
    TRY(gm_batch_run(&b, err));
    /* decay w = exp(-exp(time_decay + LoRA(xw))) per token and channel */
    TRY(gm_lora(d, &ly->decay_w1, &ly->decay_w2, GPU_OP_TANH, mix[0], t, d->w, err));
    TRY(gpu_ewise(d->g, GPU_OP_V6_DECAY, TC, C, d->w, ly->decay, NULL, d->w, err));
    TRY(gpu_wkv5(d->g, t, H, N, kv, d->r, d->k, d->v, d->w, ly->first, 1, 1, d->y, err));
    TRY(gpu_group_norm(d->g, d->y, ly->lnx_w, ly->lnx_b, d->gt, d->y, t, H, N, MDL_GN_EPS,
                       err));
    TRY(gm_bmm(&b, &ly->att_o, d->y, d->x, GPU_NOP, 1, err));
    TRY(gm_batch_run(&b, err));
    return gm_ffn_rkv(m, d, ly, t, ffn_prev, GPU_MIX_LERP, err);
}

/* L: the absolute layer index (layer 0 makes v_first, the others mix it in). */
static int
gm_layer_v7(const rwkv_model *m, struct gm_dev *d, const struct mdl_layer *ly, int l, int t,
            float *st, rwkv_err *err)
{
    int C = m->C, H = m->H, N = m->N, rc;
    size_t TC = (size_t)t * (size_t)C;
    float *att_prev = st, *kv = st + C, *ffn_prev = kv + (size_t)H * N * N;
    float *lw, *la, *lg, *lv;
    gpu_mix mx;
    gpu_v7_prep_args p;
    struct gm_batch b;

    /* time mix */
    memset(&mx, 0, sizeof mx);
    mx.form = GPU_MIX_LERP, mx.n = 6;
    mx.mix[0] = ly->x_r, mx.mix[1] = ly->x_w, mx.mix[2] = ly->x_k;
    mx.mix[3] = ly->x_v, mx.mix[4] = ly->x_a, mx.mix[5] = ly->x_g;
    for (int i = 0; i < 6; i++)
        mx.out[i] = d->mx[i];
    TRY(gpu_ln_mix(d->g, d->x, ly->ln1_w, ly->ln1_b, d->xn, att_prev, t, C, MDL_LN_EPS, &mx,
                   err));
    /* the products of the six mixes and the LoRAs' first halves, then their
     * second halves (hidden [T][D] of w, a, g, v one after another in lo) */
    lw = d->lo, la = lw + (size_t)t * ly->w1.rows, lg = la + (size_t)t * ly->a1.rows;
    lv = lg + (size_t)t * ly->g1.rows;
    gm_batch_begin(&b, d, t);
    TRY(gm_bmm(&b, &ly->att_r, d->mx[0], d->r, GPU_NOP, 0, err));
    TRY(gm_bmm(&b, &ly->w1, d->mx[1], lw, GPU_OP_TANH, 0, err));
    TRY(gm_bmm(&b, &ly->att_k, d->mx[2], d->k, GPU_NOP, 0, err));
    TRY(gm_bmm(&b, &ly->att_v, d->mx[3], d->v, GPU_NOP, 0, err));
    TRY(gm_bmm(&b, &ly->a1, d->mx[4], la, GPU_NOP, 0, err));
    TRY(gm_bmm(&b, &ly->g1, d->mx[5], lg, GPU_OP_SIGMOID, 0, err));
    if (l > 0)
        TRY(gm_bmm(&b, &ly->v1, d->mx[3], lv, GPU_NOP, 0, err));
    TRY(gm_batch_run(&b, err));
    TRY(gm_bmm(&b, &ly->w2, lw, d->w, GPU_NOP, 0, err));
    TRY(gm_bmm(&b, &ly->a2, la, d->a, GPU_NOP, 0, err));
    TRY(gm_bmm(&b, &ly->g2, lg, d->gt, GPU_NOP, 0, err));
    if (l > 0)
        TRY(gm_bmm(&b, &ly->v2, lv, d->vg, GPU_NOP, 0, err));
    TRY(gm_batch_run(&b, err));
    if (l == 0)
        TRY(gpu_copy(d->g, d->vf, d->v, TC * sizeof(float), err));
    memset(&p, 0, sizeof p);
    p.k = d->k, p.a = d->a, p.kk = d->kk, p.w = d->w, p.v = d->v;
    p.vf = l ? d->vf : NULL, p.vg = l ? d->vg : NULL;
    p.a0 = ly->a0, p.k_k = ly->k_k, p.k_a = ly->k_a, p.w0 = ly->w0, p.v0 = ly->v0;
    if (t == 1 && d->fuse) {
        TRY(gpu_v7_att1(d->g, H, N, kv, &p, d->r, d->gt, ly->lnx_w, ly->lnx_b, ly->r_k,
                        MDL_GN_EPS, d->y, err));
    } else {
        TRY(gpu_v7_prep(d->g, t, H, N, &p, err));
        TRY(gpu_wkv7(d->g, t, H, N, kv, d->r, d->w, d->k, d->v, d->kk, d->a, d->y, err));
        TRY(gpu_v7_out(d->g, t, H, N, d->y, d->r, d->k, d->v, d->gt, ly->lnx_w, ly->lnx_b,
                       ly->r_k, MDL_GN_EPS, err));
    }
    TRY(gm_bmm(&b, &ly->att_o, d->y, d->x, GPU_NOP, 1, err));
    TRY(gm_batch_run(&b, err));
    /* channel mix */
    memset(&mx, 0, sizeof mx);
    mx.form = GPU_MIX_LERP, mx.n = 1, mx.mix[0] = ly->fmix_k, mx.out[0] = d->mx[0];
    TRY(gpu_ln_mix(d->g, d->x, ly->ln2_w, ly->ln2_b, d->xn, ffn_prev, t, C, MDL_LN_EPS, &mx,
                   err));
    TRY(gm_bmm(&b, &ly->ffn_k, d->mx[0], d->f, GPU_OP_RELU_SQ, 0, err));
    TRY(gm_batch_run(&b, err));
    TRY(gm_bmm(&b, &ly->ffn_v, d->f, d->x, GPU_NOP, 1, err));
    return gm_batch_run(&b, err);
}

static int
gm_layer(const struct gm *be, struct gm_dev *d, const struct mdl_layer *ly, int l, int t,
         float *st, rwkv_err *err)
{
    switch (be->m->ver / 10) {
    case 5: return gm_layer_v5(be->m, d, ly, t, st, err);
    case 6: return gm_layer_v6(be->m, d, ly, t, st, err);
    default: return gm_layer_v7(be->m, d, ly, l, t, st, err);
    }
}

/* ---- segments ---- */

/* Upload the K-th streamed layer of SG into slot K % 2 on the copy stream. */
static int
gm_stream_in(struct gm *be, struct gm_dev *d, const struct gm_seg *sg, int k, rwkv_err *err)
{
    const struct gm_layer *gl = &be->ly[sg->streamed[k]];
    int b = k % 2, rc;

    if (k >= 2)   /* the slot's previous layer must be done */
        TRY(gpu_stream_wait(d->cp, d->freed[b], err));
    TRY(gpu_upload(d->cp, d->slot[b], gl->pinned, gl->bytes, err));
    return gpu_event_record(d->cp, d->ready[b], err);
}

/* The layers of SG on its device, T tokens of d->x. */
static int
gm_seg_layers(struct gm *be, struct gm_seg *sg, int t, rwkv_err *err)
{
    struct gm_dev *d = &be->dev[sg->dev];
    int k = 0, rc;

    if (sg->n_streamed > 0) {
        /* the copies start once earlier work on the compute stream is done
         * (a previous call may still read the slots) */
        TRY(gpu_event_record(d->g, d->start, err));
        TRY(gpu_stream_wait(d->cp, d->start, err));
        for (int i = 0; i < 2 && i < sg->n_streamed; i++)
            TRY(gm_stream_in(be, d, sg, i, err));
    }
    for (int l = sg->l0; l < sg->l1; l++) {
        float *st = sg->state + (size_t)(l - sg->l0) * be->per;
        const struct gm_layer *gl = &be->ly[l];
        struct mdl_layer dl;

        if (gl->dev != NULL) {
            TRY(gm_layer(be, d, &gl->dl, l, t, st, err));
            continue;
        }
        /* streamed: layer sg->streamed[k] == l */
        TRY(gpu_stream_wait(d->g, d->ready[k % 2], err));
        gm_walk(be->m, &be->m->layers[l], GM_BIND, d->slot[k % 2], &dl);
        TRY(gm_layer(be, d, &dl, l, t, st, err));
        TRY(gpu_event_record(d->g, d->freed[k % 2], err));
        if (k + 2 < sg->n_streamed)
            TRY(gm_stream_in(be, d, sg, k + 2, err));
        k++;
    }
    return RWKV_OK;
}

static int
gm_run_seg(struct gm *be, struct gm_seg *sg, int t, rwkv_err *err)
{
    struct gm_dev *d = &be->dev[sg->dev];
    int rc;

    d->used = 1;
    if (t != 1 || !be->graphs || sg->n_streamed > 0)
        return gm_seg_layers(be, sg, t, err);
    if (sg->graph == NULL) {
        rwkv_err e2;
        int rc2;
        /* Record once; if anything fails while recording, run directly from
         * now on (the direct run reports a real error again). */
        if (gpu_capture_begin(d->g, &e2) != RWKV_OK) {
            be->graphs = 0;
            return gm_seg_layers(be, sg, t, err);
        }
        rc = gm_seg_layers(be, sg, t, &e2);
        rc2 = gpu_capture_end(d->g, &sg->graph, &e2);
        if (rc != RWKV_OK || rc2 != RWKV_OK) {
            gpu_graph_destroy(sg->graph);
            sg->graph = NULL;
            be->graphs = 0;
            return gm_seg_layers(be, sg, t, err);
        }
    }
    return gpu_graph_launch(d->g, sg->graph, err);
}

/* ---- state ---- */

static int
gm_pull(struct mdl_state_link *k, rwkv_err *err)
{
    struct gm *be = (struct gm *)(void *)k;
    rwkv_state *s = k->bound;
    int rc;

    for (int i = 0; i < be->n_seg; i++) {
        const struct gm_seg *sg = &be->seg[i];
        if (sg->dev < 0)
            continue;
        TRY(gpu_download(be->dev[sg->dev].g, s->data + (size_t)sg->l0 * be->per, sg->state,
                         (size_t)(sg->l1 - sg->l0) * be->per * sizeof(float), err));
    }
    return RWKV_OK;
}

/* Make the device copy of S current (upload unless it already is). */
static int
gm_bind(struct gm *be, rwkv_state *s, rwkv_err *err)
{
    int rc;

    if (be->link.bound == s && be->link.gen == s->gen)
        return RWKV_OK;
    /* Cut every old link first (each pulls its state when the device copy
     * is newer; S itself, when bound here with another generation, was
     * rewritten on the host, so nothing is pulled), then upload. */
    if (be->link.bound != NULL)
        mdl_state_release(be->link.bound);
    if (s->link != NULL)
        mdl_state_release(s);                /* held by another model */
    if (be->link.failed) {
        be->link.failed = 0;
        return rwkv_errf(err, be->link.pull_err.code ? be->link.pull_err.code : RWKV_EIO, "%s",
                         be->link.pull_err.msg);
    }
    for (int i = 0; i < be->n_seg; i++) {
        const struct gm_seg *sg = &be->seg[i];
        if (sg->dev < 0)
            continue;
        TRY(gpu_upload(be->dev[sg->dev].g, sg->state, s->data + (size_t)sg->l0 * be->per,
                       (size_t)(sg->l1 - sg->l0) * be->per * sizeof(float), err));
    }
    be->link.bound = s;
    be->link.gen = s->gen;
    s->link = &be->link;
    s->host_stale = 0;
    return RWKV_OK;
}

/* ---- eval ---- */

/* Rows [r0, r0 + rows) of x (and of v_first when VF) between the host
 * workspace and device D. */
static int
gm_x_down(struct gm *be, struct gm_dev *d, size_t r0, size_t rows, int vf, rwkv_err *err)
{
    rwkv_model *m = be->m;
    size_t C = (size_t)m->C;
    int rc;

    TRY(gpu_download(d->g, m->ws.x + r0 * C, d->x + r0 * C, rows * C * sizeof(float), err));
    if (vf)
        TRY(gpu_download(d->g, m->ws.vf + r0 * C, d->vf + r0 * C, rows * C * sizeof(float),
                         err));
    return RWKV_OK;
}

static int
gm_x_up(struct gm *be, struct gm_dev *d, size_t r0, size_t rows, int vf, rwkv_err *err)
{
    rwkv_model *m = be->m;
    size_t C = (size_t)m->C;
    int rc;

    d->used = 1;
    TRY(gpu_upload(d->g, d->x + r0 * C, m->ws.x + r0 * C, rows * C * sizeof(float), err));
    if (vf)
        TRY(gpu_upload(d->g, d->vf + r0 * C, m->ws.vf + r0 * C, rows * C * sizeof(float), err));
    return RWKV_OK;
}

static int
gm_head(struct gm *be, int where, size_t t, float *logits, rwkv_err *err)
{
    rwkv_model *m = be->m;
    size_t C = (size_t)m->C;
    int rc;

    if (be->head_dev < 0) {
        if (where >= 0)
            TRY(gm_x_down(be, &be->dev[where], t - 1, 1, 0, err));
        mdl_cpu_head(m, t, logits);
        return RWKV_OK;
    }
    {
        struct gm_dev *d = &be->dev[be->head_dev];
        if (where != be->head_dev) {
            if (where >= 0)
                TRY(gm_x_down(be, &be->dev[where], t - 1, 1, 0, err));
            TRY(gm_x_up(be, d, t - 1, 1, 0, err));
        }
        TRY(gpu_layer_norm(d->g, d->x + (t - 1) * C, d->ln_out_w, d->ln_out_b, d->last, 1,
                           m->C, MDL_LN_EPS, err));
        TRY(gm_mm(d, &d->head, d->last, 1, d->logits, err));
        return gpu_download(d->g, logits, d->logits, (size_t)m->V * sizeof(float), err);
    }
}

static int
gm_eval(void *bev, rwkv_model *m, const int32_t *tokens, size_t n, rwkv_state *s,
        float *logits, rwkv_err *err)
{
    struct gm *be = bev;
    size_t C = (size_t)m->C;
    int v7 = m->ver == MDL_V70, rc;

    if (be->link.failed) {
        /* a pull (a read of a state's host copy) failed since the last call */
        be->link.failed = 0;
        return rwkv_errf(err, be->link.pull_err.code ? be->link.pull_err.code : RWKV_EIO,
                         "%s", be->link.pull_err.msg);
    }
    TRY(gm_bind(be, s, err));
    s->host_stale = 1;   /* from here on the device copy is the newer one */
    for (int i = 0; i < be->n_dev; i++)
        be->dev[i].used = 0;
    for (size_t start = 0; start < n;) {
        size_t t = n - start;
        int where = -1;   /* where x is: -1 host, else a device */

        if (t > m->ws.cap_t)
            t = m->ws.cap_t;
        for (size_t p = 0; p < t; p++)
            mdl_embed(m, tokens[start + p], m->ws.x + p * C);
        for (int i = 0; i < be->n_seg; i++) {
            struct gm_seg *sg = &be->seg[i];
            /* v7's v_first travels with x once layer 0 is behind */
            int vf = v7 && sg->l0 > 0;

            if (sg->dev == where && where >= 0) {
                TRY(gm_run_seg(be, sg, (int)t, err));
                continue;
            }
            if (where >= 0)
                TRY(gm_x_down(be, &be->dev[where], 0, t, vf, err));
            if (sg->dev < 0) {
                mdl_cpu_layers(m, sg->l0, sg->l1, t, s->data);
            } else {
                TRY(gm_x_up(be, &be->dev[sg->dev], 0, t, vf, err));
                TRY(gm_run_seg(be, sg, (int)t, err));
            }
            where = sg->dev;
        }
        start += t;
        if (start == n && logits != NULL)
            TRY(gm_head(be, where, t, logits, err));
    }
    for (int i = 0; i < be->n_dev; i++)
        if (be->dev[i].used)
            TRY(gpu_sync(be->dev[i].g, err));
    return RWKV_OK;
}

/* ---- open / close ---- */

static void
gm_close(void *bev)
{
    struct gm *be = bev;

    if (be == NULL)
        return;
    if (be->link.bound != NULL)
        mdl_state_release(be->link.bound);   /* the state keeps its numbers */
    for (int i = 0; i < be->n_dev; i++)
        if (be->dev[i].g != NULL)
            (void)gpu_sync(be->dev[i].g, NULL);
    if (be->seg != NULL)
        for (int i = 0; i < be->n_seg; i++) {
            struct gm_seg *sg = &be->seg[i];
            gpu_graph_destroy(sg->graph);
            if (sg->dev >= 0)
                gpu_free(be->dev[sg->dev].g, sg->state);
            free(sg->streamed);
        }
    if (be->ly != NULL)
        for (int l = 0; l < be->m->n_layer; l++) {
            struct gm_layer *gl = &be->ly[l];
            int sd = -1;
            for (int i = 0; i < be->n_seg; i++)
                if (l >= be->seg[i].l0 && l < be->seg[i].l1)
                    sd = be->seg[i].dev;
            if (sd >= 0) {
                gpu_free(be->dev[sd].g, gl->dev);
                gpu_host_free(be->dev[sd].g, gl->pinned);
            }
        }
    for (int i = 0; i < be->n_dev; i++) {
        struct gm_dev *d = &be->dev[i];
        for (int k = 0; k < d->n_allocs; k++)
            gpu_free(d->g, d->allocs[k]);
        for (int b = 0; b < 2; b++) {
            gpu_event_destroy(d->ready[b]);
            gpu_event_destroy(d->freed[b]);
        }
        gpu_event_destroy(d->start);
        gpu_ctx_destroy(d->cp);
        gpu_ctx_destroy(d->g);
    }
    free(be->seg);
    free(be->ly);
    free(be);
}

/* Device slot (index into be->dev) for cuda:K, adding it. */
static int
gm_dev_of(struct gm *be, int k, rwkv_err *err)
{
    for (int i = 0; i < be->n_dev; i++)
        if (be->dev[i].index == k)
            return i;
    if (be->n_dev == GM_MAX_DEV)
        return -rwkv_errf(err, RWKV_ENOTSUP, "cuda: more than %d devices in one strategy",
                          GM_MAX_DEV);
    be->dev[be->n_dev].index = k;
    return be->n_dev++;
}

/* Context and scratch of device D for model M. */
static int
gm_dev_init(const rwkv_model *m, struct gm_dev *d, int streams, size_t slot_bytes,
            size_t wh_bytes, int head, rwkv_err *err)
{
    size_t cap = m->ws.cap_t, C = (size_t)m->C, TC = cap * C, lo = 1, wide;
    float **tc[] = { &d->x, &d->xn, &d->sx, &d->mx[0], &d->mx[1], &d->mx[2], &d->mx[3],
                     &d->mx[4], &d->mx[5], &d->r, &d->k, &d->v, &d->w, &d->a, &d->gt,
                     &d->kk, &d->y, &d->o, &d->vg, &d->vf };
    int dims[] = { m->d_w, m->d_a, m->d_v, m->d_g, 5 * m->d_mix, m->d_decay };
    const char *fuse;
    int rc;

    TRY(gpu_ctx_create(d->index, &d->g, err));
    fuse = getenv("RWKV_CUDA_FUSE");
    d->fuse = fuse == NULL || strcmp(fuse, "0") != 0;
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        if ((size_t)dims[i] > lo)
            lo = (size_t)dims[i];
    /* v7 keeps the four LoRAs' hidden vectors side by side (gm_layer_v7) */
    if ((size_t)(m->d_w + m->d_a + m->d_v + m->d_g) > lo)
        lo = (size_t)(m->d_w + m->d_a + m->d_v + m->d_g);
    wide = C > (size_t)m->F ? C : (size_t)m->F;
    for (size_t i = 0; i < sizeof tc / sizeof tc[0]; i++)
        TRY(gm_falloc(d, TC, tc[i], err));
    TRY(gm_falloc(d, cap * lo, &d->lo, err));
    TRY(gm_falloc(d, cap * (size_t)m->F, &d->f, err));
    TRY(gm_falloc(d, C, &d->last, err));
    TRY(gm_dalloc(d, cap * wide * GM_HALF, &d->xh, err));
    if (wh_bytes > 0)
        TRY(gm_dalloc(d, wh_bytes, &d->wh, err));
    if (head)
        TRY(gm_falloc(d, (size_t)m->V, &d->logits, err));
    if (streams) {
        TRY(gpu_ctx_create(d->index, &d->cp, err));
        for (int b = 0; b < 2; b++) {
            TRY(gm_dalloc(d, slot_bytes, &d->slot[b], err));
            TRY(gpu_event_create(d->g, &d->ready[b], err));
            TRY(gpu_event_create(d->g, &d->freed[b], err));
        }
        TRY(gpu_event_create(d->g, &d->start, err));
    }
    return gpu_sync(d->g, err);
}

/* Upload the head slot's tensors to D. */
static int
gm_head_init(const rwkv_model *m, struct gm_dev *d, rwkv_err *err)
{
    size_t C = (size_t)m->C, db = gm_mat_data_bytes(&m->head), sb = gm_mat_scale_bytes(&m->head);
    void *p;
    int rc;

    d->head = m->head;
    TRY(gm_dalloc(d, C * sizeof(float), &p, err));
    TRY(gpu_upload(d->g, p, m->ln_out_w, C * sizeof(float), err));
    d->ln_out_w = p;
    TRY(gm_dalloc(d, C * sizeof(float), &p, err));
    TRY(gpu_upload(d->g, p, m->ln_out_b, C * sizeof(float), err));
    d->ln_out_b = p;
    if (m->head.dtype == KERN_Q4) {   /* split on the host first (gm_put) */
        uint8_t *h = malloc(db + sb);
        void *ps;
        if (h == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "cuda: out of memory splitting the 4-bit head");
        gm_put(&m->head, h, h + db);
        rc = gm_dalloc(d, db, &p, err);
        if (rc == RWKV_OK && (rc = gpu_upload(d->g, p, h, db, err)) == RWKV_OK)
            d->head.data = p;
        if (rc == RWKV_OK && (rc = gm_dalloc(d, sb, &ps, err)) == RWKV_OK &&
            (rc = gpu_upload(d->g, ps, h + db, sb, err)) == RWKV_OK)
            d->head.scales = ps;
        if (rc == RWKV_OK)
            rc = gpu_sync(d->g, err);   /* the upload may read H until here */
        free(h);
        return rc;
    }
    TRY(gm_dalloc(d, db, &p, err));
    TRY(gpu_upload(d->g, p, m->head.data, db, err));
    d->head.data = p;
    if (sb > 0) {
        TRY(gm_dalloc(d, sb, &p, err));
        TRY(gpu_upload(d->g, p, m->head.scales, sb, err));
        d->head.scales = p;
    }
    return gpu_sync(d->g, err);
}

/* Largest Q8 / Q4 matrix (fp16 bytes when dequantized) of layer H. */
static size_t
gm_quant_max(const struct mdl_layer *h)
{
    size_t best = 0;

    for (size_t i = 0; i < sizeof gm_mats / sizeof gm_mats[0]; i++) {
        const kern_mat *w = (const kern_mat *)(const void *)((const char *)h + gm_mats[i]);
        size_t b = (size_t)w->rows * (size_t)w->cols * GM_HALF;
        if (w->data != NULL && gm_quantized(w) && b > best)
            best = b;
    }
    return best;
}

static int
gm_head_size_ok(int n)
{
    return n == 8 || n == 16 || n == 32 || n == 64 || n == 128;
}

static int
gm_open(rwkv_model *m, void **out, rwkv_err *err)
{
    struct gm *be;
    int L = m->n_layer, rc = RWKV_OK;
    int *stage = NULL, *streamed = NULL, *slot_dev = NULL;
    const char *env = getenv("RWKV_CUDA_GRAPHS");

    *out = NULL;
    if (m->ver / 10 < 5)
        return rwkv_errf(err, RWKV_ENOTSUP, "strategy '%s': cuda strategies support RWKV "
                         "v5.x-v7 models (this is RWKV %s; use a cpu strategy)",
                         m->strategy.normalised, m->info.version);
    if (!gm_head_size_ok(m->N))
        return rwkv_errf(err, RWKV_ENOTSUP, "strategy '%s': cuda needs a head size of 8, 16, 32, "
                         "64 or 128 (this model's is %d)", m->strategy.normalised, m->N);
    be = calloc(1, sizeof *be);
    if (be != NULL)
        be->m = m;   /* before anything that can fail: gm_close reads it */
    stage = calloc((size_t)L + 1, sizeof *stage);
    streamed = calloc((size_t)L + 1, sizeof *streamed);
    slot_dev = calloc((size_t)L + 1, sizeof *slot_dev);
    if (be == NULL || stage == NULL || streamed == NULL || slot_dev == NULL ||
        (be->ly = calloc((size_t)L, sizeof *be->ly)) == NULL ||
        (be->seg = calloc((size_t)L, sizeof *be->seg)) == NULL) {
        rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory");
        goto done;
    }
    be->per = mdl_layer_state_len(m);
    be->link.pull = gm_pull;
    be->graphs = env == NULL || strcmp(env, "0") != 0;
    strat_plan(&m->strategy, L, stage);
    strat_streamed(&m->strategy, L, stage, streamed);
    for (int l = 0; l <= L; l++) {
        const strat_stage *st = &m->strategy.stages[stage[l]];
        slot_dev[l] = -1;
        if (st->device == STRAT_CUDA) {
            int k = gm_dev_of(be, st->device_index, err);
            if (k < 0) {
                rc = -k;
                goto done;
            }
            slot_dev[l] = k;
        }
    }
    be->head_dev = slot_dev[L];
    /* segments: runs of layers on the same device (or the cpu) */
    for (int l = 0; l < L; l++) {
        if (be->n_seg == 0 || be->seg[be->n_seg - 1].dev != slot_dev[l]) {
            be->seg[be->n_seg].l0 = l;
            be->seg[be->n_seg].dev = slot_dev[l];
            be->n_seg++;
        }
        be->seg[be->n_seg - 1].l1 = l + 1;
    }
    /* per device: streamed layers, slot and dequant sizes, then scratch */
    for (int i = 0; i < be->n_dev; i++) {
        size_t slot_bytes = 0, wh = 0;
        int ns = 0;
        for (int l = 0; l < L; l++) {
            size_t q;
            if (slot_dev[l] != i)
                continue;
            be->ly[l].bytes = gm_walk(m, &m->layers[l], GM_SIZE, NULL, NULL);
            if (streamed[l]) {
                ns++;
                if (be->ly[l].bytes > slot_bytes)
                    slot_bytes = be->ly[l].bytes;
            }
            q = gm_quant_max(&m->layers[l]);
            wh = q > wh ? q : wh;
        }
        if ((rc = gm_dev_init(m, &be->dev[i], ns > 0, slot_bytes, wh, be->head_dev == i,
                              err)) != RWKV_OK)
            goto done;
    }
    /* weights */
    for (int l = 0; l < L; l++) {
        struct gm_layer *gl = &be->ly[l];
        struct gm_dev *d;
        if (slot_dev[l] < 0)
            continue;
        d = &be->dev[slot_dev[l]];
        if (streamed[l]) {
            if ((rc = gpu_host_alloc(d->g, gl->bytes, &gl->pinned, err)) != RWKV_OK)
                goto done;
            gm_walk(m, &m->layers[l], GM_PACK, gl->pinned, NULL);
        } else {
            char *tmp = malloc(gl->bytes ? gl->bytes : 1);
            if (tmp == NULL) {
                rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory staging layer %d", l);
                goto done;
            }
            gm_walk(m, &m->layers[l], GM_PACK, tmp, NULL);
            rc = gpu_alloc(d->g, gl->bytes, &gl->dev, err);
            if (rc == RWKV_OK)
                rc = gpu_upload(d->g, gl->dev, tmp, gl->bytes, err);
            if (rc == RWKV_OK)
                rc = gpu_sync(d->g, err);
            free(tmp);
            if (rc != RWKV_OK)
                goto done;
            gm_walk(m, &m->layers[l], GM_BIND, gl->dev, &gl->dl);
        }
    }
    /* segment states and streamed-layer lists */
    for (int i = 0; i < be->n_seg; i++) {
        struct gm_seg *sg = &be->seg[i];
        struct gm_dev *d;
        void *p;
        if (sg->dev < 0)
            continue;
        d = &be->dev[sg->dev];
        if ((rc = gpu_alloc(d->g, (size_t)(sg->l1 - sg->l0) * be->per * sizeof(float), &p,
                            err)) != RWKV_OK)
            goto done;
        sg->state = p;
        sg->streamed = malloc((size_t)(sg->l1 - sg->l0) * sizeof *sg->streamed);
        if (sg->streamed == NULL) {
            rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory");
            goto done;
        }
        for (int l = sg->l0; l < sg->l1; l++)
            if (streamed[l])
                sg->streamed[sg->n_streamed++] = l;
    }
    if (be->head_dev >= 0 && (rc = gm_head_init(m, &be->dev[be->head_dev], err)) != RWKV_OK)
        goto done;
done:
    free(stage);
    free(streamed);
    free(slot_dev);
    if (rc != RWKV_OK) {
        gm_close(be);
        return rc;
    }
    *out = be;
    return RWKV_OK;
}

static int
gm_check(const strat *s, rwkv_err *err)
{
    int n = 0;
    rwkv_err e2;

    rwkv_err_clear(&e2);
    gpu_device_count(&n, &e2);
    if (n <= 0)
        return rwkv_errf(err, RWKV_ENOTSUP, "%s: strategy '%s' needs a GPU",
                         e2.msg[0] ? e2.msg : "no CUDA device", s->normalised);
    for (int i = 0; i < s->n_stages; i++) {
        const strat_stage *st = &s->stages[i];
        if (st->device == STRAT_CUDA && st->device_index >= n)
            return rwkv_errf(err, RWKV_ENOTSUP, "strategy '%s': cuda:%d does not exist (this "
                             "machine has %d CUDA device%s: cuda:0%s)", s->normalised,
                             st->device_index, n, n == 1 ? "" : "s",
                             n == 1 ? "" : " .. cuda:N-1");
    }
    return RWKV_OK;
}

static const rwkv_backend gm_backend = {
    "cuda", gm_check, gm_open, gm_close, gm_eval,
};

void
gpu_backend_register(void)
{
    rwkv_backend_register(&gm_backend);
}
