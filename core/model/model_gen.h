/*
** model_gen.h -- random-weight RWKV model FILES of real shapes, for
** benchmarks: `rwkv-tui bench --shape NAME --save PATH` and `make bench`.
**
** The file is an ordinary torch.save checkpoint (core/io/ckpt_write.h) with the
** tensor names, shapes and file order of the released RWKV-7 / RWKV-6
** checkpoints, every tensor in one dtype (bfloat16 by default, as released
** checkpoints are).  Values are uniform in per-tensor ranges chosen so the
** forward pass stays finite and activations keep a realistic size at any
** width (matrices scale with 1/sqrt(width)), deterministic for a seed
** whatever the thread count (a counter-based generator keyed by the seed and
** the tensor name), and generated in parallel while the file is written
** tensor by tensor (never more than a few MiB in memory).  The in-memory
** --demo / --shape models (model_demo.c) come from the same tables and
** generator (below).
**
** Shapes (vocab 65536, head size 64, except the small test shapes):
**   demo      RWKV-7  L2  C128  F512   vocab 256   (tests)
**   demo-v6   RWKV-6  L2  C128  F448   vocab 256   (tests)
**   0.1b      RWKV-7  L12 C768  F3072   LoRA w/a/v/g 64/64/32/128
**   0.4b      RWKV-7  L24 C1024 F4096   64/64/64/128
**   1.5b      RWKV-7  L24 C2048 F8192   96/96/64/256
**   3b        RWKV-7  L32 C2560 F10240  96/96/64/320
**   1.6b-v6   RWKV-6  L24 C2048 F7168   time_maa_w1 [C, 5*32], time_decay_w1 [C, 64]
*/
#ifndef RWKV_MODEL_GEN_H
#define RWKV_MODEL_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "../io/ckpt.h"
#include "../status.h"
#include "../kernels/threadpool.h"

/* The shape names above, comma-separated (static string). */
const char *mgen_shape_names(void);
/* 1 if NAME is one of them. */
int mgen_has_shape(const char *name);

typedef struct mgen_opts {
    ck_dtype dtype;        /* CK_BF16 (0 is CK_F32: set it), CK_F16 or CK_F32 */
    uint64_t seed;
    int      n_threads;    /* 0 = all online cores */
    /* (optional) progress, FRAC in [0,1]; WHAT borrowed */
    void   (*progress)(void *ud, double frac, const char *what);
    void    *progress_ud;
} mgen_opts;

/*
** Write the random-weight model SHAPE to PATH (through PATH.tmp, renamed when
** complete).  *SIZE (may be NULL) receives the file size.  Errors: unknown
** shape (RWKV_EINVAL, naming the known ones), a path that cannot be written
** (RWKV_EIO, one line naming PATH).
*/
int mgen_save(const char *shape, const char *path, const mgen_opts *o, uint64_t *size,
              rwkv_err *err);

/*
** ---- the generator itself, shared with the in-memory models (model_demo.c) ----
**
** One table of shapes and tensors serves the files above and the models
** rwkv_model_open_demo / rwkv_model_open_shape build in memory.
*/

/* Version (6 or 7) of shape NAME; 0 when there is no such shape. */
int mgen_shape_version(const char *name);
/* The names of the shapes of version VER (0: all), ", "-separated, into BUF
** (CAP bytes, always terminated). */
void mgen_shape_list(int ver, char *buf, size_t cap);

/* Longest tensor name of the tables, with its terminating NUL. */
#define MGEN_NAME_MAX 96

/* One tensor of a shape, as mgen_each presents it. */
typedef struct mgen_item {
    const char *name;       /* full name; borrowed, valid during the callback */
    int         layer;      /* -1 for the tensors outside the layers */
    int         n_layer;    /* of the shape */
    int         nd;
    int64_t     shape[3];
    uint64_t    numel;
    float       lo, hi;     /* value range, already scaled for the width */
    int         linear;     /* a W x matrix (att/ffn linears, head) */
} mgen_item;

enum mgen_order {
    MGEN_ORDER_FILE,          /* the released files' order (emb, layers with
                                 ln0 in layer 0, ln_out, head) */
    MGEN_ORDER_GLOBALS_FIRST  /* emb, ln0, ln_out, head, then the layers */
};

/* Call FN(UD, item) for every tensor of SHAPE in ORDER; stops at and returns
** the first nonzero FN result.  RWKV_EINVAL (no message) for an unknown shape. */
int mgen_each(const char *shape, enum mgen_order order,
              int (*fn)(void *ud, const mgen_item *it), void *ud);

/*
** The values of one tensor: element e is a function of (KEY, BASE + e) only,
** so any range can be made by any thread.  FAST (the files and the benchmark
** shapes): one multiply-xorshift round of a Weyl counter, 24 bits; otherwise
** (the --demo model) a splitmix64 round, 53 bits.
*/
typedef struct mgen_stream {
    uint64_t key;    /* the seed, or mgen_key(seed, name) */
    uint64_t base;   /* counter of element 0 */
    int      fast;
    float    lo, hi;
} mgen_stream;

/* The stream key of tensor NAME under SEED (the files' per-tensor streams). */
uint64_t mgen_key(uint64_t seed, const char *name);
/* Elements [E0, E0 + N) of S into DST (borrowed; N elements of DT: CK_F32,
** CK_BF16 or CK_F16). */
void mgen_fill(const mgen_stream *s, uint64_t e0, size_t n, ck_dtype dt, void *dst);
/* Elements [0, N) of S into DST, spread over POOL when N is large. */
void mgen_fill_pool(tpool *pool, const mgen_stream *s, uint64_t n, ck_dtype dt, void *dst);

#endif
