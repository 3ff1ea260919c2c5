/*
** state_file.h -- internal: the extra tensors of the state files rwkv-tui
** writes (rwkv_state_save_file, core/model/state_file.c), read back by
** rwkv_state_load_file (core/model/state.c).
**
** A state file as the pip package loads it holds only the WKV matrices,
** blocks.N.att.time_state [H,N,N].  That is not the whole recurrent state:
** the token-shift vectors (and v4's aa/bb/pp) are in it too, and without
** them a reloaded state would not give the logits of the live one.  So the
** files we write carry them under names of our own, which the pip package
** ignores (it only looks up blocks.N.att.time_state):
**     blocks.N.att.shift_state   [C]  the attention's previous x
**     blocks.N.ffn.shift_state   [C]  the FFN's previous x
**     blocks.N.att.aa_state, blocks.N.att.bb_state, blocks.N.att.pp_state
**                                [C]  v4 only (no time_state in a v4 file)
** (docs/state-files.md).  A file holds all of a layer's extras or none.
**
** Owner: this file and state_file.c.  Client: core/model/state.c.
*/
#ifndef RWKV_STATE_FILE_H
#define RWKV_STATE_FILE_H

#include "../io/ckpt.h"
#include "model.h"

/*
** Read the extras of CK (PATH, for messages) into TMP, a whole state of M
** (s->len floats) whose kv part is already filled: for each layer with
** extras, its shift vectors (v4: and aa/bb/pp) are copied in.  A layer
** without them keeps zeros (the pip package's behaviour).  *HAVE (may be
** NULL) receives the number of layers that had them.  A v4 model needs
** every layer's extras (RWKV_ESHAPE naming the first missing tensor).
*/
int state_file_read_extras(const rwkv_model *m, const ckpt *ck, const char *path, float *tmp,
                           int *have, rwkv_err *err);

#endif
