/*
** freegen.h -- free generation, ChatRWKV's moves outside the
** conversation:
**   +gen TEXT   from a fresh (zero) state -- or the chat's state file --,
**               feed "\n" + TEXT verbatim (no User:/Assistant: framing) and
**               sample up to max_tokens tokens;
**   +++         continue that generation where it stopped (cut by
**               max_tokens or Ctrl-C): the state and the next-token logits
**               are kept, nothing is fed again;
**   ++          the same generation again from its prompt (a new draw).
** The conversation (its chat, state and session) is not touched and nothing
** is saved.  Sampling: the chat's current values (temperature, top-p,
** top-k, presence, frequency, decay, max-tokens, chunk), penalties counted
** over the whole generation (continuations included), a seed of its own
** drawn from the chat's seed sequence by the caller.
**
** Clients: cli/cmd_chat.c (+gen, +++, ++) and the full-screen client (M-g,
** M-+ on its worker thread).  One thread at a time.
*/
#ifndef RWKV_FREEGEN_H
#define RWKV_FREEGEN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "params.h"
#include "../rwkv.h"
#include "../status.h"
#include "../text/tokenizer.h"

typedef struct fgen fgen;   /* opaque: fgen_create / fgen_destroy */

/* Text out (LEN bytes of complete UTF-8), UD as given. */
typedef void (*fgen_emit)(void *ud, const char *text, size_t len);

/* M and T are borrowed and must outlive G.  START (may be NULL = zeros) is
** copied: the state a generation starts from. */
int  fgen_create(rwkv_model *m, const tok *t, const rwkv_state *start, fgen **out,
                 rwkv_err *err);
void fgen_destroy(fgen *g);                       /* NULL is fine */

/*
** The prompt of a +gen as the user wrote it, made what fgen_start takes, in
** place (ChatRWKV's rule, one for both front ends): "\n" (backslash, n) is
** a newline; spaces and tabs at either end go.  Returns the prompt's start
** within S (borrowed from S), its length in *LEN.
*/
char *fgen_prompt_text(char *s, size_t *len);

/* +gen: PROMPT (LEN bytes) as "\n" + PROMPT from the start state, then
** generate.  *CANCEL (may be NULL) set by a signal handler stops it (the
** text so far stays; +++ continues).  *N_OUT (may be NULL): tokens made. */
int  fgen_start(fgen *g, const char *prompt, size_t len, const rwkv_sampling *sp,
                uint64_t seed, fgen_emit emit, void *ud, volatile sig_atomic_t *cancel,
                size_t *n_out, rwkv_err *err);
/* +++: continue the last generation.  RWKV_EINVAL "nothing to continue"
** before any +gen. */
int  fgen_more(fgen *g, const rwkv_sampling *sp, fgen_emit emit, void *ud,
               volatile sig_atomic_t *cancel, size_t *n_out, rwkv_err *err);
/* ++: the last generation again from its prompt, with SEED. */
int  fgen_again(fgen *g, const rwkv_sampling *sp, uint64_t seed, fgen_emit emit, void *ud,
                volatile sig_atomic_t *cancel, size_t *n_out, rwkv_err *err);

#endif
