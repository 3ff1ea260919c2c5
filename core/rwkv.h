/*
** rwkv.h -- the engine's public API: load a model, keep recurrent states,
** run the forward pass.
**
** Numbers follow the `rwkv` pip package (ChatRWKV) 0.8.x, checked against its
** reference fixtures (docs/testing.md); the deliberate differences are in
** docs/differences.md.
**
** Threading: a model owns its workspace and thread pool, so one thread at a
** time may call rwkv_eval() on a given model.  States are plain data owned by
** the caller; any number may exist per model.
*/
#ifndef RWKV_RWKV_H
#define RWKV_RWKV_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct rwkv_model rwkv_model;   /* opaque, rwkv_model_open/close */
typedef struct rwkv_state rwkv_state;   /* opaque, rwkv_state_create/destroy */

typedef struct rwkv_info {
    char     version[8];     /* "4", "5.0", "5.1", "5.2", "6.0", "7.0" */
    int      major;          /* 4, 5, 6, 7 */
    int      n_layer, n_embd, n_head, head_size, n_ffn, n_vocab;
    uint64_t n_params;       /* parameters in the checkpoint (all tensors) */
    uint64_t file_size;      /* bytes */
    char     dtypes[48];     /* stored float dtypes, e.g. "bfloat16" or "float32" */
    char     format[16];     /* "pth" or "safetensors" or "demo" */
    char     strategy[128];  /* the strategy string in use, normalised */
    uint64_t fingerprint;    /* content hash of the weights (stable across
                                formats/paths; used to tag saved states) */
    uint64_t file_digest;    /* digest of a .pth's per-entry CRC-32s (read from
                                its zip directory at open, no extra read): any
                                consistent edit of the file changes it; 0 =
                                none (safetensors, demo) */
    size_t   state_len;      /* floats in a state (rwkv_state_len) */
    int      n_threads;      /* threads the model computes with */
    int      is_demo;        /* 1 for the in-memory --demo model */
    uint64_t weight_bytes;   /* bytes of the prepared weights read per token:
                                every matrix in its strategy dtype (Q8 scales
                                included) and the float32 vectors; the
                                embedding table is not counted (one row per
                                token) */
    uint64_t mat_params;     /* elements of the matrices multiplied per token
                                (linears, LoRA-style matrices, the head; not
                                the embedding): prefill does 2 flops each */
    char     weight_cache[12];   /* the cache of prepared weights at this load:
                                    "hit" (used in place), "writing" (being
                                    written in the background; close waits
                                    for it), "written", "none" (nothing worth
                                    caching, or not writable) or "off" */
    char     weight_cache_path[4096]; /* its file, "" if none (info's
                                         --clean-weight-cache keeps it) */
    char     weight_cache_why[320];   /* "none" though a cache was worth
                                         writing: why it is not (its folder
                                         cannot be written, no room on its
                                         disk); the path is where it would go */
    int      weight_cache_read;  /* a hit read into memory in huge pages, not
                                    mapped (the default; RWKV_WEIGHT_CACHE_LOAD=map) */
    uint64_t in_place_bytes;  /* bytes of the matrices the checkpoint stores
                                 in their strategy dtype (not converted) */
    int      in_place_read;   /* those read into memory in huge pages (1),
                                 the default, or used where the file is
                                 mapped (0): RWKV_CHECKPOINT_LOAD=map */
} rwkv_info;

typedef struct rwkv_open_opts {
    const char *strategy;    /* NULL = "cpu fp32" */
    int         n_threads;   /* 0 = all online cores */
    /* (optional) called during load with FRAC in [0,1]; WHAT is borrowed. */
    void      (*progress)(void *ud, double frac, const char *what);
    void       *progress_ud;
    /* Cache of prepared weights (converted matrices) so the next load of the
     * same checkpoint under the same strategy maps them instead of
     * converting (core/model/wcache.h): 0 = auto (on when 32 MiB or more were
     * converted to int8/16-bit, unless $RWKV_WEIGHT_CACHE is 0/off), 1 = on,
     * -1 = off. */
    int         weight_cache;
    /* (optional) directory for cache files; NULL = $RWKV_WEIGHT_CACHE_DIR,
     * else next to the model when its directory is writable, else
     * $XDG_CACHE_HOME/rwkv-tui/weights.  Borrowed for the call. */
    const char *weight_cache_dir;
} rwkv_open_opts;

/*
** Open the checkpoint at PATH (".pth" is appended if PATH does not exist and
** does not end in ".pth", like the reference).  OPTS may be NULL.  On success
** *OUT is owned by the caller: close with rwkv_model_close.
*/
int  rwkv_model_open(const char *path, const rwkv_open_opts *opts,
                     rwkv_model **out, rwkv_err *err);
/*
** A tiny random-weight RWKV-7 model built in memory (vocab 256, byte
** tokenizer), deterministic for a given SEED: for trying the interface
** without downloading a model.  info->is_demo is 1.  Every command's
** --demo is the model of RWKV_DEMO_SEED (one model: a session made with one
** front end resumes in the other from its saved states).
*/
#define RWKV_DEMO_SEED 0
int  rwkv_model_open_demo(uint64_t seed, const rwkv_open_opts *opts,
                          rwkv_model **out, rwkv_err *err);
/*
** A random-weight RWKV-7 model of a real shape, built in memory (in
** parallel, deterministic for SEED whatever the thread count) for
** benchmarks: SHAPE is "demo" (the model above), "0.1b" (L12 C768),
** "0.4b" (L24 C1024), "1.5b" (L24 C2048) or "3b" (L32 C2560), vocab 65536,
** F = 4C.  Under a strategy without plain fp32 stages the linears are
** generated as bf16.  RWKV_EINVAL names the known shapes.
*/
int  rwkv_model_open_shape(const char *shape, uint64_t seed, const rwkv_open_opts *opts,
                           rwkv_model **out, rwkv_err *err);
/*
** What the checkpoint at PATH holds, told from its tensors' names (read by
** ckpt_open_index: the archive's index, never a weight; the pickle is read
** by the restricted unpickler, nothing in the file is run), for listings:
** RWKV_CKPT_STATE when every tensor is a state's (blocks.N.att.time_state
** and the extras of the state files rwkv-tui writes) -- the rule by which
** rwkv_model_open refuses a state file --, else RWKV_CKPT_MODEL;
** RWKV_CKPT_UNKNOWN when it cannot be read as a checkpoint within a
** listing's bounds (ERR, which may be NULL, says why).  A model may still
** fail to load (a shape, an unknown version): only the kind is told.
*/
enum rwkv_ckpt_kind { RWKV_CKPT_UNKNOWN, RWKV_CKPT_MODEL, RWKV_CKPT_STATE };
int  rwkv_ckpt_kind(const char *path, rwkv_err *err);
void rwkv_model_close(rwkv_model *m);                 /* NULL is fine */
/* Borrowed; valid until rwkv_model_close. */
const rwkv_info *rwkv_model_info(const rwkv_model *m);
/* Running totals since M was opened: wall seconds spent in the one-token
** matrix products on the CPU (decode's: every layer's and the head's, with
** their dispatch to the threads) and the weight bytes they read.  For
** benchmarks: the difference across a decoded token is its products' share
** (`rwkv-tui bench`); device layers are not counted. */
void rwkv_model_products(const rwkv_model *m, double *seconds, double *bytes);

/*
** Recurrent state, stored as one float32 array in the reference's list order
** (fixtures README 2.2): v4 per layer [x_prev, aa, bb, pp, ffn_x_prev] (C
** each); v5/v6/v7 per layer [x_prev (C), kv (H*N*N), ffn_x_prev (C)].
** A fresh state is zeros (v4: pp = -1e30; a checkpoint that carries
** att.time_state starts from it, as the reference does).
*/
int    rwkv_state_create(const rwkv_model *m, rwkv_state **out, rwkv_err *err);
void   rwkv_state_destroy(rwkv_state *s);             /* NULL is fine */
void   rwkv_state_reset(const rwkv_model *m, rwkv_state *s);   /* back to fresh */
/* DST and SRC must come from the same model. */
void   rwkv_state_copy(rwkv_state *dst, const rwkv_state *src);
size_t rwkv_state_len(const rwkv_state *s);           /* floats */
float *rwkv_state_data(rwkv_state *s);                /* borrowed, len floats */
const float *rwkv_state_cdata(const rwkv_state *s);

/*
** Where one layer's parts lie in a state of a model of VERSION (rwkv_info.
** version) with N_EMBD channels and N_HEAD heads of HEAD_SIZE (0 and 0 for
** v4): offsets and lengths in floats from the layer's start.  The layout
** above, for code that holds a state without its model (a saved state's
** inspector).  RWKV_EINVAL for an unknown version or impossible sizes.
*/
typedef struct rwkv_state_parts {
    size_t layer;              /* floats a layer; n_layer of them make a state */
    size_t att_shift;          /* the attention's x_prev: offset 0, n_embd long */
    size_t wkv, wkv_len;       /* the recurrence: v5+ kv (H*N*N); v4 aa and bb
                                  (2C: pp, a running exponent, after them) */
    size_t ffn_shift;          /* the FFN's x_prev: n_embd long */
} rwkv_state_parts;
int rwkv_state_parts_of(const char *version, int n_embd, int n_head, int head_size,
                        rwkv_state_parts *out, rwkv_err *err);

/*
** Load a state-tuning file (keys blocks.N.att.time_state, [H,N,N], fp32 or
** bf16/fp16) into S as the chat demo does: kv = time_state.transpose(1,2),
** x_prev entries zero -- or, in a file rwkv_state_save_file wrote, the saved
** ones.  v5.x/v6/v7 (v4: only a file rwkv_state_save_file wrote).  A file for another model is
** refused with both shapes in the message.
*/
int rwkv_state_load_file(const rwkv_model *m, const char *path, rwkv_state *s,
                         rwkv_err *err);
/*
** Whether the state file at PATH fits a model of VERSION ("7", "5.2", "4",
** ...) with N_LAYER layers of N_HEAD heads of HEAD_SIZE, from the file's
** index alone (no model loaded, no tensor read): the shape checks
** rwkv_state_load_file makes, with its messages.  N_LAYER 0 (a shape not
** known): only whether PATH is a state file for such a model.
*/
int rwkv_state_file_fits(const char *path, const char *version, int n_layer, int n_head,
                         int head_size, rwkv_err *err);

/*
** Save S (a state of M) as a state file at PATH, in the layout the pip
** package loads (blocks.N.att.time_state [H,N,N] = kv.transpose(1,2),
** float32) plus the token-shift vectors (v4: aa/bb/pp too) under names the
** pip package ignores (core/model/state_file.h, docs/state-files.md), so that
** rwkv_state_load_file gives back S exactly.  Written to a temporary file
** renamed over PATH once complete; a failure leaves PATH as it was.
*/
int rwkv_state_save_file(const rwkv_model *m, const rwkv_state *s, const char *path,
                         rwkv_err *err);

/*
** One forward call, exactly the reference's forward(tokens, state): N == 1
** takes the single-token (RNN) path, N > 1 the sequence path (matrix-matrix
** over the chunk, WKV sequential).  S is updated in place.  LOGITS (OUT, may
** be NULL to skip the head) receives n_vocab floats: the logits after the
** last token.  Token ids must be < n_vocab (RWKV_EINVAL otherwise).
*/
int rwkv_eval(rwkv_model *m, const int32_t *tokens, size_t n, rwkv_state *s,
              float *logits, rwkv_err *err);

#endif
