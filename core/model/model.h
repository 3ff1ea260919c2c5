/*
** model.h -- internal: the prepared model shared by model.c (load,
** validation, eval driver), model_block.c + model_v4/v5/v6/v7.c (block
** math, see model_block.h), model_demo.c (in-memory models) and state.c.
** Not part of the public API (that is rwkv.h).
**
** Weights are prepared once at open: vectors are float32 (squeezed), the
** linears (att/ffn receptance, key, value, output, gate and the head) are
** [out][in] matrices in the weight dtype the strategy gives their slot
** (fp32, bf16, fp16 or Q8 int8), LoRA-style `x @ M` matrices are float32,
** transposed at load so every product is y = W x.  Tensors already in the
** wanted dtype, contiguous and aligned are used in place from the checkpoint
** mapping, everything else is a private copy owned by the model (converted
** in parallel on the model's pool).
*/
#ifndef RWKV_MODEL_H
#define RWKV_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "../io/ckpt.h"
#include "../kernels/kernels.h"
#include "../rwkv.h"
#include "strategy.h"
#include "../kernels/threadpool.h"
#include "wcache.h"

/* Tokens per internal pass.  A longer forward call is processed in passes of
 * this many tokens: every op is per token except the (sequential) WKV, which
 * carries the state, so the result is identical to one long pass. */
#define MDL_MAX_CHUNK 256

/* Epsilons of the reference. */
#define MDL_LN_EPS 1e-5f
#define MDL_GN_EPS 64e-5f
/* v4 fresh-state pp. */
#define MDL_V4_PP_INIT (-1e30f)

/* Versions, times ten. */
enum { MDL_V4 = 40, MDL_V50 = 50, MDL_V51 = 51, MDL_V52 = 52, MDL_V60 = 60, MDL_V70 = 70 };

struct mdl_layer {
    const float *ln1_w, *ln1_b, *ln2_w, *ln2_b;
    /* v4 / v5.x token-shift mixes (squeezed [C]) */
    const float *mix_k, *mix_v, *mix_r, *mix_g;
    /* prepared decay / bonus:
     * v4: decay = -exp(time_decay) [C], first = time_first [C]
     * v5.0/5.1: decay = exp(-exp(time_decay)) [H], first = u [H]
     * v5.2: same, [H*N] (indexed by key channel)
     * v6: decay = raw time_decay [C], first = time_faaaa [C] */
    const float *decay, *first;
    /* v6 */
    const float *maa_x, *maa_w, *maa_k, *maa_v, *maa_r, *maa_g;
    kern_mat     maa_w1;       /* [5*Dm][C] */
    kern_mat     maa_w2[5];    /* [C][Dm] each: w, k, v, r, g */
    kern_mat     decay_w1;     /* [Dd][C] */
    kern_mat     decay_w2;     /* [C][Dd] */
    /* v7 */
    const float *x_r, *x_w, *x_k, *x_v, *x_a, *x_g, *w0, *a0, *v0, *k_k, *k_a, *r_k;
    kern_mat     w1, w2, a1, a2, v1, v2, g1, g2;   /* transposed to [out][in] */
    /* v5+ group norm */
    const float *lnx_w, *lnx_b;
    kern_mat     att_r, att_k, att_v, att_o, att_g;
    /* att.time_state from the checkpoint, already as kv [H][N][N] (or NULL) */
    const float *time_state;
    /* FFN: v4/v5 time_mix_k/r, v6 time_maa_k/r, v7 x_k (fmix_r NULL) */
    const float *fmix_k, *fmix_r;
    kern_mat     ffn_k, ffn_v, ffn_r;
};

/* Workspace: scratch for one pass of up to ws_t tokens, allocated at open. */
struct mdl_ws {
    size_t cap_t;
    float *x, *xn, *sx;            /* [T][C] */
    float *m[6];                   /* [T][C] mixed inputs */
    float *r, *k, *v, *g, *w, *a, *kk, *y, *vf, *o;   /* [T][C] */
    float *lo;                     /* [T][max LoRA hidden] */
    float *f;                      /* [T][F] */
    float *last;                   /* [C] */
    float *block;                  /* the single allocation */
};

/* The block math of one version (model_v4/v5/v6/v7.c): run every layer of
 * m->layers over m->ws.x (T rows of C), updating STATE. */
typedef void (*mdl_layers_fn)(rwkv_model *m, size_t t, float *state);

struct rwkv_model {
    rwkv_info         info;
    int               ver;         /* MDL_V* */
    mdl_layers_fn     run_layers;  /* ver's block math, chosen once at load */
    int               n_layer, C, H, N, F, V;
    int               d_w, d_a, d_v, d_g, d_mix, d_decay;   /* LoRA dims */
    int               real_time_first;
    ckpt             *ck;          /* open for the model's lifetime (in-place weights) */
    const float      *emb;         /* [V][C], ln0 folded (float32) */
    /* or, when emb is NULL (CPU-only plans): the checkpoint's own table used
     * in place, ln0 applied per token at eval (model.c mdl_embed): no 4-byte
     * copy of V*C and no fold at load */
    const void       *emb_raw;     /* [V][C] of emb_dt, borrowed (ck / demo data) */
    ck_dtype          emb_dt;      /* CK_F32, CK_BF16 or CK_F16 */
    const float      *ln0_w, *ln0_b;
    const float      *ln_out_w, *ln_out_b;
    kern_mat          head;
    /* weight dtype of the linears of each slot (n_layer + 1: the last is the
     * head), from the strategy */
    enum kern_dtype  *slot_dt;
    /* dtype of each layer's LoRA factors: float32, bf16 in 4-bit CPU layers
     * (a one-token pass reads them too: in float32 they were ~11% of a 4-bit
     * layer's bytes, ~16% of its decode time) */
    enum kern_dtype  *lora_dt;
    struct mdl_layer *layers;
    void            **allocs;      /* prepared copies, freed at close */
    size_t            n_allocs, cap_allocs;
    tpool            *pool;
    kern_ctx          kc;          /* pool + kernels + activation scratch */
    kern_tally        tally;       /* kc.tally: decode's products so far */
    void             *act_ws;      /* kc.act_ws (mem_alloc) */
    void             *mv_ws;       /* kc.mv_ws (mem_alloc) */
    struct mdl_ws     ws;
    strat             strategy;
    /* matrices the checkpoint stores in their strategy dtype are read
     * into huge-page memory (1) instead of used where the file is mapped
     * (model.c, mdl_rehome; the default; RWKV_CHECKPOINT_LOAD=map) */
    int               rehome;
    wc_cache         *wc;          /* weight cache (NULL = off); its mapping
                                      backs cached weights until close */
    /* device backend (core/model/backend.h) when the strategy has device stages */
    const struct rwkv_backend *be;
    void             *be_data;
    int               layer_base;  /* absolute index of m->layers[0] (mdl_cpu_layers) */
};

struct rwkv_state {
    size_t   len;
    uint64_t fingerprint;          /* of the model it was made for */
    float   *data;
    /* device copies (core/model/backend.h): host-change generation, the backend
     * link holding a device copy, and "the device copy is newer" */
    uint64_t gen;
    struct mdl_state_link *link;
    int      host_stale;
};

/*
** ---- loading (model.c), also used by the in-memory models (model_demo.c) ----
*/

/* Where mdl_build takes the tensors from: a checkpoint, or in-memory tensors
** (all borrowed for the duration of mdl_build; in-place weights must outlive
** the model, which is why the demo allocates them with mdl_own). */
struct mdl_src {
    const ckpt        *ck;      /* or NULL: use tensors[] */
    const ckpt_tensor *tensors;
    size_t             n;
    const char        *path;    /* for messages */
};

/* Detect the version, check every shape, prepare the weights and the
** workspace of M (calloc'ed; its pool may already be made) from SRC.  On
** failure M is half built: release it with rwkv_model_close. */
int mdl_build(rwkv_model *m, const struct mdl_src *src, const rwkv_open_opts *opts,
              rwkv_err *err);
/* BYTES of memory owned by M (freed at rwkv_model_close), or NULL. */
void *mdl_own(rwkv_model *m, uint64_t bytes);
/* Report load progress F in [0, 1] through O's callback (O may be NULL). */
void mdl_progress(const rwkv_open_opts *o, double f, const char *what);

/* Floats of one layer's state (model_block.c; the layout is in state.c). */
size_t mdl_layer_state_len(const rwkv_model *m);

#endif
