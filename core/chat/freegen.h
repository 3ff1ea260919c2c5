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

/*
** ChatRWKV's "+" commands (v2/chat.py), recognised in one place for both
** front ends: the line chat runs them, the full-screen client names its
** key instead of sending one as a message.  Only "+WORD" with WORD one of
** ChatRWKV's names (any case, ChatRWKV lower-cases them) followed by a
** blank or the end, and "+", "++", "+++" alone, are commands; "+1 agreed"
** or "+gentle" is a message.  Blanks around the line are not part of it.
*/
enum fgen_cmd {
    FGEN_CMD_NONE = 0,   /* an ordinary message */
    FGEN_CMD_GEN,        /* +gen TEXT   free generation from "\n" + TEXT */
    FGEN_CMD_INSTRUCT,   /* +i TEXT     the same from ChatRWKV's instruction prompt */
    FGEN_CMD_QQ,         /* +qq TEXT    the same from "\nQ: TEXT\nA:" */
    FGEN_CMD_QA,         /* +qa TEXT    "{user}: TEXT\n\n{bot}:" after the greeting */
    FGEN_CMD_MORE,       /* +++         continue the free generation */
    FGEN_CMD_AGAIN,      /* ++          the free generation again */
    FGEN_CMD_REGEN,      /* +           another reply to the last message */
    FGEN_CMD_RESET,      /* +reset      forget the conversation */
    FGEN_CMD_PROMPT      /* +prompt F   a ChatRWKV prompt file: not supported */
};
/* The command LINE is (enum fgen_cmd); *ARG (may be NULL): what follows
** its name, blanks around it skipped ("" none), borrowed from LINE. */
int         fgen_cmd_parse(const char *line, const char **arg, size_t *arg_len);
/* "+gen", "+i", ... as ChatRWKV writes it; "" for FGEN_CMD_NONE. */
const char *fgen_cmd_name(int cmd);
/*
** The text a free generation CMD (GEN, INSTRUCT, QQ, QA) feeds for ARG
** (ARG_LEN bytes as typed: "\n" is a newline, blanks at the ends go --
** fgen_prompt_text), with ChatRWKV's templates byte for byte:
**   +gen  "\n" TEXT
**   +i    "\nBelow is an instruction that describes a task. Write a response
**         that appropriately completes the request.\n\n# Instruction:\n"
**         TEXT "\n\n# Response:\n"   (TEXT's "\r\n" and "\n\n" made "\n")
**   +qq   "\nQ: " TEXT "\nA:"
**   +qa   USER ": " TEXT "\n\n" BOT ":"
** Owned by caller (free), *LEN its length; NULL when out of memory or
** when TEXT is empty (*LEN 0 then).
*/
char       *fgen_cmd_prompt(int cmd, const char *arg, size_t arg_len, const char *user,
                            const char *bot, size_t *len);
/* fgen_start without the "\n": TEXT (LEN bytes) fed as it is. */
int  fgen_start_text(fgen *g, const char *text, size_t len, const rwkv_sampling *sp,
                     uint64_t seed, fgen_emit emit, void *ud, volatile sig_atomic_t *cancel,
                     size_t *n_out, rwkv_err *err);

#endif
