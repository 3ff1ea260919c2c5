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

#include <stddef.h>

#include "../status.h"

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
** Parse S and check that this build can run it: RWKV_OK for any list of
** cpu stages (fp32 / bf16 / fp16, optionally i8 or i4 -- i4, 4-bit blocks,
** is an extension: the reference ignores it; i3 is accepted and ignored as
** the reference does), RWKV_ENOTSUP for cuda ("built without CUDA"; in a
** CUDA build the registered backend decides: no device, no such cuda:N), mps
** and dml stages.  V7 is nonzero for RWKV-7 models: the pip
** package's v7 class takes only "<device> <dtype>", rwkv-tui accepts the
** full grammar for every version (an extension), so V7 changes nothing.
*/
int strat_check(const char *s, int v7, strat *out, rwkv_err *err);

/*
** The reference's layer allocation: N_LAYER + 1 slots (the last one is
** ln_out + head); stages with *N take N slots in order (stopping when all
** are taken), a '+' stage also takes every unassigned slot, otherwise the
** unassigned slots are split evenly over the stages without *N with the
** remainder going to the last stage.  SLOT_STAGE [n_layer + 1] (OUT)
** receives the stage index of every slot.
*/
void strat_plan(const strat *s, int n_layer, int *slot_stage);
/*
** Which slots of a '+' stage are streamed (the reference's "*N+: the first N
** layers stay on the device, the rest are streamed to it per use"): STREAMED
** [n_layer + 1] (OUT) is 1 for a layer slot of a '+' stage after that
** stage's first N slots, else 0.  The head slot (n_layer) is never streamed
** (its weights stay on the device).  SLOT_STAGE is strat_plan's.
*/
void strat_streamed(const strat *s, int n_layer, const int *slot_stage, int *streamed);
/*
** The slots strat_plan gives each stage of S on a model of N_LAYER layers,
** in words, into BUF (CAP): "cpu fp32i8 *6: layers 0-5; cpu fp32: layers
** 6-11 and the head".  Returns how many stages get no slot though they did
** not ask for none ("*0"): a *N past the layer count leaves the later
** stages none, as in the reference (accepted, worth a word).
*/
int strat_split(const strat *s, int n_layer, char *buf, size_t cap);

#endif
