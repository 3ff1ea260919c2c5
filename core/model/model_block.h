/*
** model_block.h -- internal: the block math, between the driver (model.c)
** and the per-version files.
**
** Arrows: model.c picks one mdl_vN_layers at load (rwkv_model.run_layers)
** and calls only that; model_v4/v5/v6/v7.c call the shared pieces below
** (model_block.c) and the element-wise stage runner (model_par.h); nothing
** calls back up into model.c.
*/
#ifndef RWKV_MODEL_BLOCK_H
#define RWKV_MODEL_BLOCK_H

#include <stddef.h>

#include "model.h"

/* The versions' block math (model_vN.c), each an mdl_layers_fn. */
void mdl_v4_layers(rwkv_model *m, size_t t, float *state);
void mdl_v5_layers(rwkv_model *m, size_t t, float *state);
void mdl_v6_layers(rwkv_model *m, size_t t, float *state);
void mdl_v7_layers(rwkv_model *m, size_t t, float *state);

/* ---- shared pieces (model_block.c) ---- */

/* XN[t] = layer_norm(X[t]) for t < T. */
void mdl_ln_rows(const float *x, const float *w, const float *b, float *xn,
                 size_t t, size_t c);
/* SX[t] = previous row of XN (PREV for t = 0); then PREV = XN[T-1]. */
void mdl_shift(const float *xn, float *prev, float *sx, size_t t, size_t c);
/* The v4/v5/v6 FFN (sigmoid receptance * relu(k)^2 V) added to ws.x; PREV is
 * the state slot.  MAA: v6 mixing xx + (sx - xx) * maa, else v4/v5
 * xx * mix + sx * (1 - mix). */
void mdl_ffn_rkv(rwkv_model *m, const struct mdl_layer *ly, size_t t, float *prev,
                 int maa);

#endif
