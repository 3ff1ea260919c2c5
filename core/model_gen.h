/*
** model_gen.h -- random-weight RWKV model FILES of real shapes, for
** benchmarks: `rwkv-tui bench --shape NAME --save PATH` and `make bench`.
**
** The file is an ordinary torch.save checkpoint (core/ckpt_write.h) with the
** tensor names, shapes and file order of the released RWKV-7 / RWKV-6
** checkpoints, every tensor in one dtype (bfloat16 by default, as released
** checkpoints are).  Values are uniform in per-tensor ranges chosen so the
** forward pass stays finite and activations keep a realistic size at any
** width (matrices scale with 1/sqrt(width), like the in-memory --shape
** models of model.c), deterministic for a seed whatever the thread count
** (a counter-based generator keyed by the seed and the tensor name), and
** generated in parallel while the file is written tensor by tensor (never
** more than a few MiB in memory).
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

#include <stdint.h>

#include "ckpt.h"
#include "status.h"

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

#endif
