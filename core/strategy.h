/*
** strategy.h -- the reference's strategy strings ("cpu fp32",
** "cuda fp16 *10 -> cpu fp32", ...).
**
** Grammar (the pip package's regex): stages separated by "->", each
** `device dtype[quant] [*N[+]]` with device cpu | mps | dml | cuda[:K], dtype
** fp16 | fp32 | bf16, quant i8 | i4 | i3, spaces allowed around "->".
*/
#ifndef RWKV_STRATEGY_H
#define RWKV_STRATEGY_H

#include "status.h"

#define STRAT_MAX_STAGES 16

enum strat_device { STRAT_CPU, STRAT_CUDA, STRAT_MPS, STRAT_DML };
enum strat_dtype  { STRAT_FP32, STRAT_FP16, STRAT_BF16 };

typedef struct strat_stage {
    enum strat_device device;
    int               device_index;  /* cuda:K, else 0 */
    enum strat_dtype  dtype;
    int               quant;         /* 0, or 8 / 4 / 3 for i8 / i4 / i3 */
    int               n_layers;      /* *N, -1 when absent */
    int               stream;        /* the '+' after *N */
} strat_stage;

typedef struct strat {
    int         n_stages;
    strat_stage stages[STRAT_MAX_STAGES];
    char        normalised[128];     /* stages joined by " -> " */
} strat;

/* Parse S into *OUT; RWKV_EINVAL with a message pointing at the problem. */
int strat_parse(const char *s, strat *out, rwkv_err *err);
/*
** Parse S and check that this build can run it: RWKV_OK for "cpu fp32"
** (any number of cpu fp32 stages), RWKV_ENOTSUP otherwise.  V7 is nonzero
** for RWKV-7 models, whose loader takes only "<device> <dtype>".
*/
int strat_check(const char *s, int v7, strat *out, rwkv_err *err);

#endif
