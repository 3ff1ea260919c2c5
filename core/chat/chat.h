/*
** chat.h -- the conversation engine of the chat demo (API_DEMO_CHAT.py),
** as a module that the line-mode REPL (cli/cmd_chat.c) and the full-screen
** UI drive unchanged.
**
** It owns the prompt format ("User: {msg}\n\nAssistant:", role names
** configurable: chat_config.user_name / bot_name), the greeting or
** state-file start, chunked prefill, penalised sampling (core/chat/sampler.h),
** UTF-8-safe streaming, stop strings, cancellation and the per-turn record
** (text, token ids, sampling values, seed, stats) that the session store
** persists.  No I/O happens here: text goes out through callbacks, and the
** only file it reads is a state-tuning file through rwkv_state_load_file().
**
** State machine (one reply):
**
**              chat_submit()                      last prompt chunk fed
**     IDLE ------------------------> PREFILL ---------------------------+
**      ^ ^                              |  (one chunk per chat_step())   |
**      | |   chat_cancel() in PREFILL:  |                                v
**      | +------------------------------+     chat_regen()        GENERATING
**      |     state rolled back to the         (IDLE -> GENERATING,  |  (one token per
**      |     turn start, no turn kept)        state_before_reply    |   chat_step())
**      |                                      restored, no prefill; |
**      |                                      chat_continue(): the  |
**      |                                      last reply goes on)   |
**      |                                                            | stop string seen,
**      |           chat_step(): flush text, record the turn,        | max_tokens reached,
**      +----------------- fire done(), clear cancel --------  STOPPING  chat_cancel()
**
** chat_step() performs exactly one transition or one unit of work (one
** prefill chunk or one generated token) so a worker thread can run it in a
** loop and stay responsive; chat_run() is that loop.  chat_cancel() may be
** called from any thread or from a signal handler: the flag is checked
** between chunks/tokens, so a cancelled reply keeps exactly the tokens
** generated so far and the model state has exactly those tokens fed.
**
** Invariant: after every reply the current state equals the start state
** (greeting or state file) with every turn's prompt_ids and reply_ids fed,
** in order, through the reference's chunking.  A reply that ended at a stop
** string has the stop string's tokens fed (as the demo does); a reply that
** ended otherwise (max_tokens, cancel) does not, so the next prompt is
** prefixed with CHAT_TURN_SEP ("\n\n") -- visible in that turn's prompt_ids.
** The text before "{user}:" always ends with a blank line: after a stop
** string other than the demo's the next prompt begins with the newlines its
** text lacks ("\n" after a reply stopped at "\n", "\n\n" after one stopped
** at "User:"), and a greeting of one's own gets them at its end.
**
** Threading: one thread at a time calls the chat_* functions of one chat
** (chat_cancel excepted).  Callbacks run on that thread, inside chat_step().
*/
#ifndef RWKV_CHAT_H
#define RWKV_CHAT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "params.h"
#include "../rwkv.h"
#include "../status.h"
#include "../text/tokenizer.h"

/* The chat demo's greeting, fed when no state file is used. */
#define CHAT_DEMO_GREETING                                                     \
    "User: hi\n\nAssistant: Hi. I am your assistant and I will provide "      \
    "expert full response in full details. Please feel free to ask any "      \
    "question and I will always answer it.\n\n"
#define CHAT_USER_PREFIX      "User: "
#define CHAT_ASSISTANT_PREFIX "\n\nAssistant:"
/* The role names of the prompt format ("{user}: {msg}\n\n{bot}:"): the
** demo's `user` and `bot` (API_DEMO_CHAT.py; ChatRWKV's chat.py names them
** so).  Other names change the prompt and the demo greeting the same way;
** the stop string stays "\n\n" (it ends a reply before "\n\n{user}:"). */
#define CHAT_DEFAULT_USER     "User"
#define CHAT_DEFAULT_BOT      "Assistant"
#define CHAT_MAX_NAME         64     /* bytes of a role name */
#define CHAT_TURN_SEP         "\n\n"

/*
** Think mode of RWKV-7 "G1" (reasoning) models, chosen by the prompt alone
** (the model card's formats):
**   off    "{user}: MSG\n\n{bot}:"                      the demo's, byte for byte
**   on     "{user}: MSG\n\n{bot}: <think"               the model reasons first
**   short  "{user}: MSG think a bit\n\n{bot}: <think"   less reasoning (newer G1)
**   long   "{user}: MSG think a lot\n\n{bot}: <think"   more reasoning (newer G1)
**   skip   "{user}: MSG\n\n{bot}: <think>\n</think"     no reasoning ("fake think")
** What the prompt writes after "{bot}:" is the start of the reply: a turn's
** reply text begins with it (" <think", then the generated ">..."), as the
** space a model writes after "{bot}:" begins every reply.  Stop strings see
** the generated text only.  The mode applies to each new message; a turn
** already written keeps its prompt (a regenerated reply too).
*/
enum chat_think {
    CHAT_THINK_OFF = 0,
    CHAT_THINK_ON,
    CHAT_THINK_SHORT,
    CHAT_THINK_LONG,
    CHAT_THINK_SKIP,
    CHAT_THINK_COUNT
};
#define CHAT_DEFAULT_STOP     "\n\n"

/* Stop strings: at most this many, each at most this long (bytes); the
** streaming holdback buffer is sized from it. */
#define CHAT_MAX_STOP     8
#define CHAT_MAX_STOP_LEN 64
/* Longest user message accepted (bytes): bounds the prompt's token buffer. */
#define CHAT_MAX_MESSAGE  (16u << 20)

typedef struct chat chat;   /* opaque: chat_create / chat_destroy */

enum chat_phase {
    CHAT_IDLE = 0,
    CHAT_PREFILL,       /* feeding the greeting / user prompt in chunks */
    CHAT_GENERATING,    /* sampling and feeding one token per step */
    CHAT_STOPPING       /* reply over; the next chat_step() records it */
};

enum chat_stop {
    CHAT_STOP_NONE = 0,     /* reply still running */
    CHAT_STOP_STRING,       /* a stop string appeared ("\n\n") */
    CHAT_STOP_MAX_TOKENS,   /* sampling.max_tokens tokens generated */
    CHAT_STOP_CANCEL,       /* chat_cancel() */
    CHAT_STOP_ERROR         /* rwkv_eval failed (message in chat_step's err) */
};

typedef struct chat_stats {
    uint64_t prefill_tokens;   /* prompt (+ greeting) tokens fed this turn */
    double   prefill_s;        /* seconds spent in prefill */
    uint64_t gen_tokens;       /* tokens generated (= n_reply) */
    double   gen_s;            /* seconds spent sampling + feeding them */
    double   prefill_tps;      /* prefill_tokens / prefill_s (0 if none) */
    double   decode_tps;       /* gen_tokens / gen_s (0 if none) */
    /* Progress of the prefill in flight: the number of tokens it feeds in
    ** all (greeting + prompt; 0 when nothing is queued).  prefill_tokens
    ** counts those fed so far, so prefill_tokens / prefill_total is the
    ** fraction done (a progress bar).  Also reported by chat_prime(). */
    uint64_t prefill_total;
} chat_stats;

/*
** One turn: the user's message and the assistant's reply.  Every pointer is
** owned by the chat and valid until the turn is removed (chat_reset,
** chat_load_state_file, chat_regen of that turn, chat_destroy).
*/
typedef struct chat_turn {
    char          *user;        /* normalised message, NUL terminated */
    size_t         user_len;
    int32_t       *prompt_ids;  /* tokens fed for "User: ...\n\nAssistant:" */
    size_t         n_prompt;    /*   (with a leading "\n\n" if needed, see top) */
    char          *reply;       /* reply text as shown: head + the generated text, */
    size_t         reply_len;   /*   valid UTF-8, stop string excluded, NUL terminated */
    int32_t       *reply_ids;   /* tokens generated and fed (stop tokens included) */
    size_t         n_reply;
    rwkv_sampling  samp;        /* the values this reply was sampled with; */
                                /*   samp.seed = this reply's own seed */
    chat_stats     stats;
    int            stop;        /* enum chat_stop */
    int            interrupted; /* 1 when stop == CHAT_STOP_CANCEL */
    int            n_regen;     /* how many times this reply was regenerated */
    const char    *head;        /* what the prompt wrote after "{bot}:" and the
                                   reply starts with (" <think"; "" none): a
                                   constant, worked out from prompt_ids by
                                   chat_push_turn */
} chat_turn;

/*
** Callbacks, all optional (NULL members are skipped); UD is passed back.
** They run inside chat_step() on the calling thread and must not call
** chat_* functions other than the read-only accessors.
*/
typedef struct chat_callbacks {
    /* Streamed reply text: complete UTF-8 characters only (invalid bytes
    ** already replaced by U+FFFD, NUL bytes left out), never any part of a
    ** stop string.
    ** TEXT is borrowed for the duration of the call. */
    void (*text)(void *ud, const char *text, size_t len);
    /* The phase changed (enum chat_phase). */
    void (*phase)(void *ud, int phase);
    /* A reply ended and T was recorded (T borrowed: see chat_turn). */
    void (*done)(void *ud, const chat_turn *t);
    void *ud;
    /* Running stats after every prefill chunk and every generated token
    ** (rates included); ST borrowed for the call.  Initialise this struct
    ** with designated initialisers. */
    void (*stats)(void *ud, const chat_stats *st);
} chat_callbacks;

/* Everything chat_create needs besides the model and tokenizer. */
typedef struct chat_config {
    rwkv_sampling samp;          /* sampling values */
    unsigned      samp_set;      /* PARAMS_BIT mask of values the user set:
                                    decides whether samp.seed is used and which
                                    values the state-file defaults may change */
    const char   *greeting;      /* NULL = the demo's (chat_demo_greeting with the
                                    names), "" = none; borrowed (copied, with
                                    the "\n"s it lacks of a blank line at its
                                    end: chat_greeting is what is fed) */
    const char   *user_name;     /* NULL = CHAT_DEFAULT_USER; borrowed (copied) */
    const char   *bot_name;      /* NULL = CHAT_DEFAULT_BOT; borrowed (copied) */
    const char   *think;         /* think mode by name ("on"); NULL = off */
    const char   *state_path;    /* NULL = none; else loaded at create: greeting
                                    skipped, params_apply_state_defaults() */
    const rwkv_state *init_state;/* NULL = none; copied at create, treated like a
                                    state file (no greeting, state defaults) */
    const char   *stop[CHAT_MAX_STOP];  /* stop strings; n_stop 0 = {"\n\n"} */
    size_t        n_stop;
    const int32_t *banned;       /* token ids never sampled (copied); may be NULL */
    size_t        n_banned;
    int           no_stop;       /* 1 = no stop strings at all (plain completion:
                                    replies end at max_tokens or cancel) */
    atomic_int   *cancel;        /* the chat's cancel flag, NULL = one of its
                                    own; else borrowed (it outlives the chat):
                                    the chat reads and clears it as its own,
                                    and storing 1 in it is chat_cancel.
                                    Chats may share one: the session runtime's
                                    cancel reaches the chat it runs without
                                    touching one it swaps out and destroys */
} chat_config;

/* Fill CFG with the demo's behaviour: params_defaults, demo greeting,
** stop "\n\n", nothing banned, random seed. */
void chat_config_init(chat_config *cfg);

/*
** Create a chat on model M and tokenizer T (both borrowed: they must outlive
** the chat).  CB may be NULL.  Nothing is computed yet: the greeting is
** prefilled as part of the first turn (or by chat_prime()).  A state file
** for another model fails here with the loader's message.  *OUT owned by
** caller (chat_destroy).
*/
int  chat_create(rwkv_model *m, const tok *t, const chat_config *cfg,
                 const chat_callbacks *cb, chat **out, rwkv_err *err);
void chat_destroy(chat *c);                          /* NULL is fine */

/* Prefill the greeting now if it is still pending (blocking; chat_cancel()
** from another thread or a signal handler stops it between chunks, rolls
** the state back and returns RWKV_ECANCEL).  Optional: chat_submit() does
** it otherwise.  IDLE only. */
int  chat_prime(chat *c, rwkv_err *err);
/* The greeting taken as fed, AFTER the state it leaves (one saved before
** from the same tokens, model and strategy): chat_prime without the
** prefill.  Nothing changes when it was fed already.  IDLE only. */
int  chat_prime_from(chat *c, const rwkv_state *after, rwkv_err *err);

/*
** IDLE -> PREFILL with the user message MSG (LEN bytes, any bytes).  The
** message is normalised (chat_normalize); an empty result is refused with
** RWKV_EINVAL and the demo's "please say something" message, nothing fed.
*/
int  chat_submit(chat *c, const char *msg, size_t len, rwkv_err *err);

/*
** Like chat_submit, but TEXT (LEN bytes, any bytes) is fed verbatim: no
** normalisation, no "User:/Assistant:" framing, no separator.  For plain
** completion (`generate`).  The turn's user field holds TEXT with invalid
** UTF-8 replaced.  An empty TEXT is refused (RWKV_EINVAL).
*/
int  chat_submit_raw(chat *c, const char *text, size_t len, rwkv_err *err);

/*
** IDLE -> GENERATING: drop the last turn's reply, restore the state (and
** logits) from before it and sample again with the current sampling values
** and a new seed.  No prefill.  RWKV_EINVAL when there is no reply to redo.
*/
int  chat_regen(chat *c, rwkv_err *err);

/*
** IDLE -> GENERATING on the last turn, keeping its reply: the reply goes on
** as if it had never been cut (by max_tokens, a cancel, a crash before a
** resume).  With the turn's own sampling values and seed (not the current
** ones): the RNG advanced one uniform per token it has, the penalty counts
** rebuilt from its tokens, and the stream holding what the uncut run would
** hold -- text at its end that is a proper prefix of a stop string, or an
** incomplete character, takes part again, so a stop string completed
** across the cut ends the reply before it.  So the turn's text is first cut
** back to what the uncut run would have shown, and the text callback gets
** it again, whole, right after the phase callback (GENERATING): a front end
** shows the reply anew from there.  At most the CURRENT max_tokens more
** tokens are generated and samp.max_tokens records the new total, so that
** value and the seed give the whole reply again; the total is held to
** max_tokens' limit (params_table), the most any reply is, so the record
** is a value every reader takes and still the cap the reply ran under.
** Stats add up.
**
** After chat_restore_state the logits after the reply are rebuilt first
** (phase PREFILL, progress in chat_stats.prefill_*): from the before-reply
** snapshot its tokens one at a time, or from chat_set_turn_start's state
** its prompt in chunks first -- the replay rule, so bit-exact with the
** process that wrote it.  A cancel then leaves everything as it was; a
** cancel while generating keeps what was generated (interrupted again,
** continuable again).  Refused (RWKV_EINVAL, nothing changed): no turn; a
** reply that ended at a stop string (or holds one of the stop strings in
** use now); a reply at max_tokens' limit already; no state to rebuild
** from; a reply running.
*/
int  chat_continue(chat *c, rwkv_err *err);

/*
** Do one unit of work (see the diagram).  Returns RWKV_OK, or the error of
** a failing rwkv_eval (the reply is then recorded with CHAT_STOP_ERROR and
** the state rolled back to the turn start -- or to before the reply for a
** failing generation step -- and the phase is IDLE).  In IDLE it does nothing.
*/
int  chat_step(chat *c, rwkv_err *err);

/* chat_step() until IDLE.  A cancelled reply still returns RWKV_OK. */
int  chat_run(chat *c, rwkv_err *err);

/* Ask the running reply/prefill to stop at the next token or chunk.
** Async-signal-safe and callable from any thread; cleared when IDLE is
** reached.  A cancel sent while IDLE is void (the next chat_submit,
** chat_submit_raw, chat_regen or chat_prime clears it). */
void chat_cancel(chat *c);

int  chat_phase(const chat *c);                      /* enum chat_phase */

/* Forget every turn and go back to the start state (greeting already fed,
** or the state file).  IDLE only; never re-prefills a fed greeting. */
void chat_reset(chat *c);

/*
** Start over from the state-tuning file PATH: loaded into a fresh state,
** greeting skipped, turns cleared, params_apply_state_defaults() on the
** current sampling values (keeping those in the user-set mask).  On failure
** (e.g. a file for another model) nothing changes.  IDLE only.
*/
int  chat_load_state_file(chat *c, const char *path, rwkv_err *err);
/* chat_load_state_file with the state S (a state of the chat's model,
** copied; NULL = the fresh state) as the file's: a start known only as
** "a state file" (one no longer on disk: the session layer's saved states
** carry the conversation on, and what goes back to the start says so). */
int  chat_load_state(chat *c, const rwkv_state *s, rwkv_err *err);

/*
** Start over WITHOUT a state file: zeros and the greeting of the chat's
** config (fed again at the next message or chat_prime()); turns cleared.
** The values the state-file defaults changed go back to the demo's (those
** in the user-set mask stay).  A chat that already starts from its
** greeting is only reset (a fed greeting is not fed again).  IDLE only.
*/
int  chat_use_greeting(chat *c, rwkv_err *err);
/* 1 when the start state is a state file (or chat_config.init_state). */
int  chat_has_state_file(const chat *c);

/* Current sampling values (borrowed) and their user-set mask.  New values
** take effect at the next reply (a running reply keeps the values it started
** with, recorded in its chat_turn.samp).  Like every chat_* call but
** chat_cancel: from the thread that steps the chat, or while no thread does. */
const rwkv_sampling *chat_sampling(const chat *c);
unsigned chat_sampling_set(const chat *c);
void chat_set_sampling(chat *c, const rwkv_sampling *s, unsigned samp_set);

/* The seed the chat's RNG was created with (random unless samp_set has the
** seed bit) and whether it was chosen randomly.  Each reply draws its own
** seed from it (recorded in chat_turn.samp.seed). */
uint64_t chat_seed(const chat *c, int *was_random);
/* Use SEED for the next reply only (replaying a recorded reply). */
void chat_set_next_seed(chat *c, uint64_t seed);

/* Turns so far (I < chat_n_turns); the last may be in progress while not
** IDLE.  Borrowed: see chat_turn. */
size_t           chat_n_turns(const chat *c);
const chat_turn *chat_turn_at(const chat *c, size_t i);

/* The role names in use (borrowed). */
const char    *chat_user_name(const chat *c);
const char    *chat_bot_name(const chat *c);
/*
** The demo's greeting with the role names USER and BOT (NULL = the
** defaults: then it is CHAT_DEMO_GREETING byte for byte).  malloc'ed,
** owned by the caller; NULL when out of memory.
*/
char *chat_demo_greeting(const char *user, const char *bot);
/* A greeting of one's own G as the chat feeds it: the "\n"s it lacks of
** a blank line at its end added ("" stays ""); malloc'ed, NULL when out of
** memory.  What the framing views show (framing_greeting_fed). */
char *chat_greeting_ended(const char *g);
/* NAME is usable as a role name: 1..CHAT_MAX_NAME bytes of valid UTF-8, no
** control character, no ':', not blank at either end.  WHAT names it in
** the message ("--user"). */
int  chat_name_check(const char *what, const char *name, rwkv_err *err);
/* New stop strings (N 0 = "\n\n"; NO_STOP: none at all) or banned tokens
** for the next reply on; the conversation is kept.  On failure nothing
** changes.  IDLE only. */
int  chat_set_stops(chat *c, const char *const *stop, size_t n, int no_stop, rwkv_err *err);
int  chat_set_banned(chat *c, const int32_t *ids, size_t n, rwkv_err *err);

/* The think mode's name ("off", "on", "short", "long", "skip"; "?" for
** another value) and the mode named NAME (RWKV_EINVAL naming the choices). */
const char *chat_think_name(int mode);
/* What think MODE writes into the prompt: *TAIL after the user's message,
** *HEAD at the start of the reply (borrowed; another mode: off's). */
void chat_think_text(int mode, const char **tail, const char **head);
int  chat_think_parse(const char *name, int *mode, rwkv_err *err);
/* The think mode of the next message on (the conversation is kept; a turn
** already written keeps its prompt).  Like chat_set_sampling: from the
** thread that steps the chat, or while no thread does. */
void chat_set_think(chat *c, int mode);
int  chat_think(const chat *c);

/* The greeting text and its token ids (empty with a state file), borrowed. */
const char    *chat_greeting(const chat *c);
const int32_t *chat_greeting_ids(const chat *c, size_t *n);
int            chat_greeting_fed(const chat *c);

/*
** States (borrowed from the chat, valid until the next chat_* call that
** changes them; copy with rwkv_state_copy):
**   chat_state             the current state
**   chat_state_start       the start state (after greeting / from state file)
**   chat_state_turn_start  before the last turn's prompt was fed, NULL if none
**   chat_state_before_reply after the last prompt, before its reply, NULL if none
** and the logits that go with chat_state_before_reply (n_vocab floats).
*/
const rwkv_state *chat_state(const chat *c);
const rwkv_state *chat_state_start(const chat *c);
const rwkv_state *chat_state_turn_start(const chat *c);
const rwkv_state *chat_state_before_reply(const chat *c);
const float      *chat_logits_before_reply(const chat *c);

/*
** The state the next message continues from, into OUT (a state of the
** chat's model): the current state, plus the separator the next prompt
** would begin with: CHAT_TURN_SEP when the last reply did not end at a stop
** string (max_tokens, a cancel), the newlines a stop string's text lacks of
** a blank line when it did (none after "\n\n").  A chat started from OUT (a state file
** saved from it) feeds "{user}: MSG..." without that separator, so both go
** on the same way.  IDLE only; nothing in the chat changes.
*/
int  chat_state_next(const chat *c, rwkv_state *out, rwkv_err *err);
/*
** The start state with the greeting in it, into OUT: ChatRWKV's
** "chat_init", where +qa asks its one-off question.  The start as it is
** when the greeting was fed into it (or there is none: a state file, no
** greeting); else the greeting's tokens are fed into the copy, in chunks
** as a prefill feeds them.  Nothing in the chat changes.
*/
int  chat_state_greeted(const chat *c, rwkv_state *out, rwkv_err *err);

/*
** For the session store (resume): replace the current state with S (copied;
** same model), and append a turn record T (copied) without running the
** model.  NEED_SEP says whether the next prompt needs CHAT_TURN_SEP (last
** reply did not end at a stop string); 0 after a reply that did: the
** newlines its stop string's text lacks (none after "\n\n"; the rule of
** chat.h's top, from the last turn pushed).  IDLE only.  After a restore
** chat_regen() re-prefills the last prompt from the turn start when no
** before-reply snapshot exists.
*/
void chat_restore_state(chat *c, const rwkv_state *s, int need_sep);
/* After chat_restore_state/chat_push_turn: S (copied) is the state before the
** last turn's prompt, so chat_regen() can re-prefill that prompt and sample
** the reply again.  IDLE only. */
void chat_set_turn_start(chat *c, const rwkv_state *s);
/* After chat_set_turn_start: S (copied) is the state after the last turn's
** prompt and LOGITS (n_vocab floats, copied) what its last chunk gave -- as
** a prefill of it leaves them (a replay that fed the prompt so), so
** chat_regen() and chat_continue() start there without feeding the prompt
** again.  IDLE only. */
void chat_set_before_reply(chat *c, const rwkv_state *s, const float *logits);
/* T->stop may be CHAT_STOP_NONE for a saved reply whose end is not recorded:
** it is then worked out from T->interrupted and whether the reply's last
** token completes one of this chat's stop strings (else CHAT_STOP_MAX_TOKENS). */
int  chat_push_turn(chat *c, const chat_turn *t, rwkv_err *err);

/* Stats of the last finished reply (zeros before the first). */
const chat_stats *chat_last_stats(const chat *c);

/*
** The demo's message normalisation: CRLF -> LF (and, unlike the demo, a
** lone CR -> LF: one rule for every line end), strip leading/trailing
** whitespace (Python str.strip), runs of '\n' collapsed to one, invalid
** UTF-8 replaced by U+FFFD.  Returns a malloc'ed NUL-terminated string
** (owned by caller, free()) with *OUT_LEN bytes, or NULL on OOM.
*/
char *chat_normalize(const char *msg, size_t len, size_t *out_len);

/*
** ChatRWKV's chat.py reads "-temp=X" and "-top_p=Y" typed in a message:
** that one reply samples with them -- the temperature clamped to 0.2..5 as
** there, a negative top_p taken as 0 -- and the word is taken out of the
** text.  A word counts only whole (at the start or after a blank, up to a
** blank or the end) with a number after '=': "-temp=hot" or "x-temp=1"
** stays text; of each, the first one counts.  TEXT (*N bytes,
** NUL-terminated, edited in place) loses the words, *N shrinking; *S gets
** the values (its others as they were), *SET their bits (PARAMS_BIT).
** 1 when one was found, 0 when none (nothing changed), -1 when a value is
** out of range: ERR says so, naming the word ("-top_p=2: top-p: ..."),
** and TEXT is as it was.  The line chat and the full-screen client both
** take a message through it (the runtime's sess_reply_sampling then).
*/
int  chat_inline_sampling(char *text, size_t *n, rwkv_sampling *s, unsigned *set,
                          rwkv_err *err);

/*
** The streaming rule on its own (used by chat_step; exposed for tests and
** for callers that stream other token sources).  Bytes of generated tokens
** are pushed in; text comes out through EMIT only when
**   - it is complete, valid UTF-8 (an incomplete character at the end holds
**     everything back, as the demo's "no U+FFFD in decode()" rule does;
**     bytes that can never become valid are replaced by U+FFFD) without NUL
**     bytes (left out: text is a C string from here on), and
**   - it does not end with a proper prefix of a stop string (the demo holds
**     text ending in "\n" while the stop string is "\n\n").
** When a stop string appears, the text before it is emitted and push
** returns 1; the stop string and anything after it are dropped.
*/
typedef struct chat_stream chat_stream;
typedef void (*chat_emit_fn)(void *ud, const char *text, size_t len);

/* STOP: N_STOP strings (copied; each 1..CHAT_MAX_STOP_LEN bytes). */
int  chat_stream_create(const char *const *stop, size_t n_stop, chat_stream **out,
                        rwkv_err *err);
void chat_stream_destroy(chat_stream *st);              /* NULL is fine */
void chat_stream_reset(chat_stream *st);
/* Returns 1 when a stop string completed (push no more), 0 otherwise,
** -1 on OOM. */
int  chat_stream_push(chat_stream *st, const char *bytes, size_t len,
                      chat_emit_fn emit, void *ud);
/* End of reply without a stop string: emit what is held (U+FFFD for an
** incomplete character).  Returns 0, -1 on OOM. */
int  chat_stream_flush(chat_stream *st, chat_emit_fn emit, void *ud);

#endif
