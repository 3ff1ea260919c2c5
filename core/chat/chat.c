/*
** chat.c -- the chat demo's conversation loop as a steppable engine.
** See chat.h for the state machine and the invariants it keeps.
**
** Prefill is a queue of at most two segments, each chunked on its own like
** the demo's run_rnn() calls: the greeting (only while it has never been
** fed) and the turn's prompt.  Generation follows the demo's order exactly:
** penalise a copy of the logits, sample, feed the token, update the counts,
** then decode and look for the stop string.
**
** Snapshots kept (all states of the same model):
**   start         fresh/state-file state until the greeting is fed, then
**                 the state after the greeting: where /reset goes
**   turn_start    before the last turn's prompt (rollback on cancel)
**   before_reply  after the last turn's prompt, with its logits (regen)
*/
#include "chat.h"

#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../clock.h"
#include "rng.h"
#include "sampler.h"
#include "../text/utf8.h"

/* ------------------------------------------------------------------ */
/* Streaming                                                            */

struct chat_stream {
    char   stop[CHAT_MAX_STOP][CHAT_MAX_STOP_LEN + 1];
    size_t stop_len[CHAT_MAX_STOP];
    size_t n_stop;
    char  *pend;          /* bytes not yet emitted */
    size_t npend, cappend;
    char  *out;           /* scratch for U+FFFD substitution */
    size_t capout;
};

static int
grow(char **buf, size_t *cap, size_t need)
{
    size_t c = *cap ? *cap : 64;
    char *p;

    if (need <= *cap)
        return 0;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return -1;
        c *= 2;
    }
    p = realloc(*buf, c);
    if (p == NULL)
        return -1;
    *buf = p;
    *cap = c;
    return 0;
}

int
chat_stream_create(const char *const *stop, size_t n_stop, chat_stream **out, rwkv_err *err)
{
    chat_stream *st;

    *out = NULL;
    if (n_stop > CHAT_MAX_STOP)
        return rwkv_errf(err, RWKV_EINVAL, "%zu stop strings given, at most %d allowed", n_stop,
                         CHAT_MAX_STOP);
    for (size_t i = 0; i < n_stop; i++) {
        size_t l = stop[i] ? strlen(stop[i]) : 0;
        if (l == 0 || l > CHAT_MAX_STOP_LEN)
            return rwkv_errf(err, RWKV_EINVAL, "stop string %zu has %zu bytes (expected 1..%d)",
                             i + 1, l, CHAT_MAX_STOP_LEN);
    }
    st = calloc(1, sizeof *st);
    if (st == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
    for (size_t i = 0; i < n_stop; i++) {
        st->stop_len[i] = strlen(stop[i]);
        memcpy(st->stop[i], stop[i], st->stop_len[i] + 1);
    }
    st->n_stop = n_stop;
    *out = st;
    return RWKV_OK;
}

void
chat_stream_destroy(chat_stream *st)
{
    if (st == NULL)
        return;
    free(st->pend);
    free(st->out);
    free(st);
}

void
chat_stream_reset(chat_stream *st)
{
    st->npend = 0;
}

/*
** Emit N bytes of S with every ill-formed or incomplete sequence replaced
** and NUL bytes left out: the World vocabulary has a token for "\0", and
** text is a C string everywhere after this (the reply saved, shown,
** exported), so one would cut it there.  The token ids keep it.
*/
static int
emit_fixed(chat_stream *st, const char *s, size_t n, chat_emit_fn emit, void *ud)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, o = 0;

    if (n == 0)
        return 0;
    if (utf8_valid(s, n) && memchr(s, '\0', n) == NULL) {
        if (emit)
            emit(ud, s, n);
        return 0;
    }
    if (n > SIZE_MAX / UTF8_REPL_LEN || grow(&st->out, &st->capout, n * UTF8_REPL_LEN) < 0)
        return -1;
    while (i < n) {
        int r = utf8_decode(u + i, n - i, NULL);
        if (r > 0) {
            if (u[i] != '\0') {
                memcpy(st->out + o, s + i, (size_t)r);
                o += (size_t)r;
            }
            i += (size_t)r;
        } else {
            memcpy(st->out + o, UTF8_REPL, UTF8_REPL_LEN);
            o += UTF8_REPL_LEN;
            i += r < 0 ? (size_t)-r : n - i;    /* incomplete at the end: one U+FFFD */
        }
    }
    if (emit && o > 0)
        emit(ud, st->out, o);
    return 0;
}

/* 1 if the pending bytes end in an incomplete (but so far valid) sequence. */
static int
incomplete_tail(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = n > UTF8_MAX ? n - UTF8_MAX : 0;

    /* find the start of the last sequence: a non-continuation byte */
    for (size_t k = n; k > i; k--) {
        if ((u[k - 1] & 0xC0) != 0x80) {
            int r = utf8_decode(u + k - 1, n - (k - 1), NULL);
            return r == 0;
        }
    }
    return 0;
}

/* 1 if some suffix of S is a proper prefix of a stop string. */
static int
ends_with_stop_prefix(const chat_stream *st, const char *s, size_t n)
{
    for (size_t j = 0; j < st->n_stop; j++) {
        size_t L = st->stop_len[j];
        for (size_t k = 1; k < L && k <= n; k++)
            if (memcmp(s + n - k, st->stop[j], k) == 0)
                return 1;
    }
    return 0;
}

int
chat_stream_push(chat_stream *st, const char *bytes, size_t len, chat_emit_fn emit, void *ud)
{
    size_t first = SIZE_MAX;

    if (grow(&st->pend, &st->cappend, st->npend + len + 1) < 0)
        return -1;
    memcpy(st->pend + st->npend, bytes, len);
    st->npend += len;
    /* earliest stop string in the pending bytes (emitted text never ends
    ** with a stop prefix, so a stop string can not straddle the boundary) */
    for (size_t j = 0; j < st->n_stop; j++) {
        size_t L = st->stop_len[j];
        for (size_t k = 0; k + L <= st->npend && k < first; k++)
            if (memcmp(st->pend + k, st->stop[j], L) == 0) {
                first = k;
                break;
            }
    }
    if (first != SIZE_MAX) {
        int r = emit_fixed(st, st->pend, first, emit, ud);
        st->npend = 0;
        return r < 0 ? -1 : 1;
    }
    if (incomplete_tail(st->pend, st->npend) || ends_with_stop_prefix(st, st->pend, st->npend))
        return 0;
    if (emit_fixed(st, st->pend, st->npend, emit, ud) < 0)
        return -1;
    st->npend = 0;
    return 0;
}

int
chat_stream_flush(chat_stream *st, chat_emit_fn emit, void *ud)
{
    int r = emit_fixed(st, st->pend, st->npend, emit, ud);

    st->npend = 0;
    return r;
}

/* ------------------------------------------------------------------ */
/* Message normalisation                                                */

/* Length of a Python-whitespace character at S (N bytes), 0 if none. */
static size_t
py_space(const unsigned char *s, size_t n)
{
    uint32_t cp;
    int r = utf8_decode(s, n, &cp);

    if (r <= 0)
        return 0;
    if ((cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20) || cp == 0x85 || cp == 0xa0 ||
        cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
        cp == 0x202f || cp == 0x205f || cp == 0x3000)
        return (size_t)r;
    return 0;
}

char *
chat_normalize(const char *msg, size_t len, size_t *out_len)
{
    const unsigned char *u = (const unsigned char *)msg;
    unsigned char *a, *b;
    size_t n = 0, i = 0, lo, hi, m = 0;

    if (len > SIZE_MAX / UTF8_REPL_LEN - 1)
        return NULL;
    a = malloc(len * UTF8_REPL_LEN + 1);
    if (a == NULL)
        return NULL;
    /* 1. invalid UTF-8 -> U+FFFD, CRLF -> LF, a lone CR (an old Mac's line
    ** end, pasted) -> LF: else it reached the model, and every display,
    ** which drops controls, glued the lines ("a\rb" shown "ab") */
    while (i < len) {
        int r = utf8_decode(u + i, len - i, NULL);
        if (r > 0) {
            if (u[i] == '\r' && i + 1 < len && u[i + 1] == '\n') {
                i++;
                continue;
            }
            if (u[i] == '\r') {
                a[n++] = '\n';
                i++;
                continue;
            }
            memcpy(a + n, u + i, (size_t)r);
            n += (size_t)r;
            i += (size_t)r;
        } else {
            memcpy(a + n, UTF8_REPL, UTF8_REPL_LEN);
            n += UTF8_REPL_LEN;
            i += r < 0 ? (size_t)-r : len - i;
        }
    }
    /* 2. strip (Python str.strip: Unicode whitespace) */
    lo = 0;
    for (size_t k; lo < n && (k = py_space(a + lo, n - lo)) > 0;)
        lo += k;
    hi = lo;
    for (size_t p = lo; p < n;) {
        size_t k = py_space(a + p, n - p);
        int r;
        if (k == 0) {
            r = utf8_decode(a + p, n - p, NULL);
            p += r > 0 ? (size_t)r : 1;
            hi = p;
        } else {
            p += k;
        }
    }
    /* 3. runs of '\n' -> one '\n' */
    b = malloc(hi - lo + 1);
    if (b == NULL) {
        free(a);
        return NULL;
    }
    for (size_t p = lo; p < hi; p++) {
        if (a[p] == '\n' && m > 0 && b[m - 1] == '\n')
            continue;
        b[m++] = a[p];
    }
    b[m] = '\0';
    free(a);
    if (out_len)
        *out_len = m;
    return (char *)b;
}

/* ------------------------------------------------------------------ */
/* The engine                                                           */

struct chat {
    rwkv_model    *m;              /* borrowed */
    const tok     *t;              /* borrowed */
    size_t         n_vocab;
    chat_callbacks cb;

    rwkv_sampling  samp;
    unsigned       samp_set;
    uint64_t       seed;           /* master seed */
    int            seed_random;
    rng            master;         /* draws each reply's seed */
    rng            reply_rng;
    int            have_next_seed;
    uint64_t       next_seed;

    int            think;          /* enum chat_think of the next message */
    char           user[CHAT_MAX_NAME + 1];  /* role names of the prompt format */
    char           bot[CHAT_MAX_NAME + 1];
    char          *greeting;       /* owned, "" when none */
    char          *greeting_cfg;   /* owned: the greeting of chat_config, kept for
                                      chat_use_greeting after a state file */
    int            from_file;      /* start is a state file / init state */
    int32_t       *greet_ids;      /* owned */
    size_t         n_greet;
    int            greet_fed;      /* 1 when cur already holds the greeting */
    int            start_greeted;  /* 1 when start is the post-greeting state
                                      (differs from greet_fed after
                                      chat_restore_state on a fresh chat) */

    rwkv_state    *cur, *start, *turn_start, *before_reply;
    int            have_turn_start, have_before_reply;
    int            prev_have_before; /* have_before_reply of the previous turn, kept
                                        while a new prompt is prefilled (its snapshot
                                        is only overwritten when that prefill ends) */
    float         *logits;         /* (n_vocab) after the last eval */
    int            logits_valid;   /* LOGITS go with CUR (not after a restore) */
    float         *logits_before;  /* (n_vocab) with before_reply */
    float         *work;           /* (n_vocab) penalised copy for sampling */

    samp          *sp;
    chat_stream   *stream;

    chat_turn     *turns;
    size_t         n_turns, cap_turns;
    size_t         reply_cap, ids_cap;   /* capacities of the last turn's buffers */

    int            phase;
    atomic_int     own_cancel;     /* the cancel flag when cfg.cancel is NULL */
    atomic_int    *cancel;         /* the one in use: own_cancel or cfg.cancel */
    int            sep;            /* newlines the next prompt begins with
                                      (0..2: the end of CHAT_TURN_SEP), turn_sep */
    int            stop;           /* enum chat_stop of the running reply */

    /* the running reply's sampling values as the doubles the demo computes
    ** with (samp_f2d once per reply, not per token) */
    double         d_temp, d_top_p, d_presence, d_frequency, d_decay;

    /* prefill queue */
    const int32_t *seg_ids[2];
    size_t         seg_n[2];
    int            seg_is_greeting[2];
    int            seg_one[2];     /* fed one token at a time (a reply's tokens) */
    int            n_seg, si;
    size_t         pos;
    int            greet_in_queue; /* greeting fed in this prefill */

    chat_stats     cur_stats, last_stats;

    /* chat_continue: the running reply goes on from the last turn's */
    int            cont;           /* the running reply (or its rebuild) is one */
    rwkv_state    *cont_state;     /* the state after the reply as it was */
    char          *cont_text;      /* its text as it was (owned), for a failure */
    size_t         cont_n;         /* its token count as it was */
    chat_stats     cont_stats;     /* its stats, added to */
    rwkv_sampling  cont_samp;      /* its values as they were (max_tokens grows) */
    int            cont_stop;      /* its ending as it was (enum chat_stop) */
    int            cont_interrupted;
    int            cont_failed;    /* the engine failed while it generated: the
                                      reply goes back whole, ending included */
};

static void
finish_stats(chat_stats *st)
{
    st->prefill_tps = st->prefill_s > 0 ? (double)st->prefill_tokens / st->prefill_s : 0;
    st->decode_tps = st->gen_s > 0 ? (double)st->gen_tokens / st->gen_s : 0;
}

static void
report_stats(chat *c)
{
    if (c->cb.stats) {
        finish_stats(&c->cur_stats);
        c->cb.stats(c->cb.ud, &c->cur_stats);
    }
}

static void
set_phase(chat *c, int phase)
{
    c->phase = phase;
    if (c->cb.phase)
        c->cb.phase(c->cb.ud, phase);
}

static void
turn_free(chat_turn *t)
{
    free(t->user);
    free(t->prompt_ids);
    free(t->reply);
    free(t->reply_ids);
    memset(t, 0, sizeof *t);
}

static void
clear_turns(chat *c)
{
    for (size_t i = 0; i < c->n_turns; i++)
        turn_free(&c->turns[i]);
    c->n_turns = 0;
    c->logits_valid = 0;
    c->have_turn_start = 0;
    c->have_before_reply = 0;
    c->sep = 0;
}

/* The last N (0..2) bytes of CHAT_TURN_SEP: what the next prompt begins with. */
static const char *
sep_text(int n)
{
    return CHAT_TURN_SEP + (2 - n);
}

/* Newlines at the end of S[N], at most two. */
static int
trailing_newlines(const char *s, size_t n)
{
    int k = 0;

    while (k < 2 && (size_t)k < n && s[n - 1 - k] == '\n')
        k++;
    return k;
}

/*
** The end of the stop string that ended reply T, found in TEXT[LEN] (its
** last tokens decoded; LAST: the bytes of its last token): the one its last
** token completes, earliest first as chat_stream_push finds it (a stop
** string ending before it would have ended the reply there).  SIZE_MAX
** when there is none (it did not end at one of this chat's stop strings).
*/
static size_t
stop_end(const chat *c, const char *text, size_t len, size_t last)
{
    size_t best = SIZE_MAX, end = SIZE_MAX;

    for (size_t j = 0; c->stream != NULL && j < c->stream->n_stop; j++) {
        size_t L = c->stream->stop_len[j];
        for (size_t p = 0; p + L <= len && p < best; p++)
            if (p + L > len - last && memcmp(text + p, c->stream->stop[j], L) == 0) {
                best = p;
                end = p + L;
                break;
            }
    }
    return end;
}

/* T's last tokens decoded (enough for any stop string: malloc'ed, *LEN
** bytes) and the bytes of its last token in *LAST; NULL when none. */
static char *
reply_tail(const chat *c, const chat_turn *t, size_t *len, size_t *last)
{
    size_t k = t->n_reply < CHAT_MAX_STOP_LEN ? t->n_reply : CHAT_MAX_STOP_LEN;
    const char *piece;
    char *text = NULL;

    *len = *last = 0;
    if (k == 0 || tok_decode(c->t, t->reply_ids + t->n_reply - k, k, &text, len, NULL) != RWKV_OK)
        return NULL;
    if (tok_piece(c->t, t->reply_ids[t->n_reply - 1], &piece, last) != RWKV_OK || *last > *len)
        *last = *len;
    return text;
}

/*
** How many newlines the next prompt begins with after turn T that ended by
** STOP: the text before "{user}:" ends with a blank line, as the chat
** format has it.  A reply that did not end at a stop string (max_tokens, a
** cancel, an error) has none of its stop fed: CHAT_TURN_SEP whole.  One
** that did has its stop string fed, so the newlines that text lacks: none
** after the demo's "\n\n" (the reference feeds "{user}: ..." right after
** it), one after "\n", two after "User:" or "###".  The text is the
** reply's bytes up to the end of its stop string (stop_end: a token
** "\n\n " ends "\n\n" there) or the whole of them, whichever ends with
** more newlines.  Worked out from the token ids and the stop strings
** alone, so a restored turn gets what the live one got.
*/
static int
turn_sep(const chat *c, const chat_turn *t, int stop)
{
    size_t len, last, end;
    char *text;
    int have;

    if (stop != CHAT_STOP_STRING || (text = reply_tail(c, t, &len, &last)) == NULL)
        return 2;
    have = trailing_newlines(text, len);
    if ((end = stop_end(c, text, len, last)) != SIZE_MAX && trailing_newlines(text, end) > have)
        have = trailing_newlines(text, end);
    free(text);
    return 2 - have;
}

/*
** A greeting of one's own as the chat feeds it: ending with a blank line,
** as the demo's does, so the first message is "{user}: ..." on a paragraph
** of its own (ChatRWKV's load_prompt ends a custom prompt with "\n\n" the
** same way).  The newlines it lacks are added; "" (none) stays "".
** malloc'ed, NULL when out of memory.
*/
char *
chat_greeting_ended(const char *g)
{
    size_t n = strlen(g);
    int add = n > 0 ? 2 - trailing_newlines(g, n) : 0;
    char *s = malloc(n + (size_t)add + 1);

    if (s != NULL) {
        memcpy(s, g, n);
        memcpy(s + n, CHAT_TURN_SEP, (size_t)add);
        s[n + (size_t)add] = '\0';
    }
    return s;
}

void
chat_config_init(chat_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    params_defaults(&cfg->samp);
}

static uint64_t
next_reply_seed(chat *c)
{
    if (c->have_next_seed) {
        c->have_next_seed = 0;
        return c->next_seed;
    }
    return rng_next(&c->master);
}

static int
seed_bit(void)
{
    return params_find("seed");
}

/* The longest reply there is: max_tokens' limit in params_table (the one
** every reader of a turn's sampling values holds it to). */
static size_t
reply_limit(void)
{
    return (size_t)params_table[params_find("max_tokens")].max;
}

/* The streaming rule for STOP (N 0 = "\n\n"; NO_STOP: none at all). */
static int
open_stream(const char *const *stop, size_t n, int no_stop, chat_stream **out, rwkv_err *err)
{
    static const char *const def_stop[1] = { CHAT_DEFAULT_STOP };

    if (no_stop)
        return chat_stream_create(NULL, 0, out, err);
    if (n > 0)
        return chat_stream_create(stop, n, out, err);
    return chat_stream_create(def_stop, 1, out, err);
}

/* The think modes (chat.h): the tail of the user's message and the head of
** the reply that each writes into the prompt. */
static const struct {
    const char *name, *tail, *head;
} think_modes[CHAT_THINK_COUNT] = {
    [CHAT_THINK_OFF]   = { "off",   "",             "" },
    [CHAT_THINK_ON]    = { "on",    "",             " <think" },
    [CHAT_THINK_SHORT] = { "short", " think a bit", " <think" },
    [CHAT_THINK_LONG]  = { "long",  " think a lot", " <think" },
    [CHAT_THINK_SKIP]  = { "skip",  "",             " <think>\n</think" },
};

const char *
chat_think_name(int mode)
{
    return mode >= 0 && mode < CHAT_THINK_COUNT ? think_modes[mode].name : "?";
}

void
chat_think_text(int mode, const char **tail, const char **head)
{
    if (mode < 0 || mode >= CHAT_THINK_COUNT)
        mode = CHAT_THINK_OFF;
    *tail = think_modes[mode].tail;
    *head = think_modes[mode].head;
}

int
chat_think_parse(const char *name, int *mode, rwkv_err *err)
{
    for (int i = 0; i < CHAT_THINK_COUNT; i++)
        if (strcmp(name, think_modes[i].name) == 0) {
            *mode = i;
            return RWKV_OK;
        }
    return rwkv_errf(err, RWKV_EINVAL, "think: '%.40s' is not off, on, short, long or skip", name);
}

void
chat_set_think(chat *c, int mode)
{
    if (mode >= 0 && mode < CHAT_THINK_COUNT)
        c->think = mode;
}

int
chat_think(const chat *c)
{
    return c->think;
}

/*
** The head of turn T's reply, from its prompt: the longest head of a think
** mode that the prompt's text ends with, right after "{bot}:" (a prompt
** written in another mode ends with "{bot}:" itself).
*/
static const char *
prompt_head(const chat *c, const chat_turn *t)
{
    size_t k = t->n_prompt < 2 * CHAT_MAX_NAME ? t->n_prompt : 2 * CHAT_MAX_NAME;
    const char *best = "";
    char *text = NULL;
    size_t len = 0, bl = strlen(c->bot);

    if (k == 0 ||
        tok_decode(c->t, t->prompt_ids + t->n_prompt - k, k, &text, &len, NULL) != RWKV_OK)
        return best;
    for (int i = 0; i < CHAT_THINK_COUNT; i++) {
        const char *h = think_modes[i].head;
        size_t hl = strlen(h);
        if (hl > strlen(best) && len >= bl + 1 + hl &&
            memcmp(text + len - hl - 1 - bl, c->bot, bl) == 0 && text[len - hl - 1] == ':' &&
            memcmp(text + len - hl, h, hl) == 0)
            best = h;
    }
    free(text);
    return best;
}

int
chat_create(rwkv_model *m, const tok *t, const chat_config *cfg, const chat_callbacks *cb,
            chat **out, rwkv_err *err)
{
    const rwkv_info *info = rwkv_model_info(m);
    const char *greet;
    chat *c;
    int rc;

    *out = NULL;
    if (info->n_vocab <= 0)
        return rwkv_errf(err, RWKV_EINVAL, "chat: model has no vocabulary");
    if (tok_vocab_size(t) > (size_t)info->n_vocab)
        return rwkv_errf(err, RWKV_EINVAL,
                         "chat: the tokenizer has %zu tokens but the model's vocabulary is %d "
                         "(wrong --vocab for this model?)",
                         tok_vocab_size(t), info->n_vocab);
    c = calloc(1, sizeof *c);
    if (c == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
    c->m = m;
    c->t = t;
    c->n_vocab = (size_t)info->n_vocab;
    if (cb)
        c->cb = *cb;
    c->samp = cfg->samp;
    c->samp_set = cfg->samp_set;
    atomic_init(&c->own_cancel, 0);
    c->cancel = cfg->cancel ? cfg->cancel : &c->own_cancel;   /* a borrowed one kept as is */

    rc = samp_create(c->n_vocab, &c->sp, err);
    if (rc != RWKV_OK)
        goto fail;
    if (cfg->n_banned > 0 && (rc = samp_set_banned(c->sp, cfg->banned, cfg->n_banned, err)) != RWKV_OK)
        goto fail;
    if ((rc = open_stream(cfg->stop, cfg->n_stop, cfg->no_stop, &c->stream, err)) != RWKV_OK)
        goto fail;
    c->logits = calloc(c->n_vocab, sizeof(float));
    c->logits_before = calloc(c->n_vocab, sizeof(float));
    c->work = calloc(c->n_vocab, sizeof(float));
    if (!c->logits || !c->logits_before || !c->work) {
        rc = rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
        goto fail;
    }
    if ((rc = rwkv_state_create(m, &c->cur, err)) != RWKV_OK ||
        (rc = rwkv_state_create(m, &c->start, err)) != RWKV_OK ||
        (rc = rwkv_state_create(m, &c->turn_start, err)) != RWKV_OK ||
        (rc = rwkv_state_create(m, &c->before_reply, err)) != RWKV_OK ||
        (rc = rwkv_state_create(m, &c->cont_state, err)) != RWKV_OK)
        goto fail;

    if ((rc = chat_name_check("user name", cfg->user_name ? cfg->user_name : CHAT_DEFAULT_USER,
                              err)) != RWKV_OK ||
        (rc = chat_name_check("bot name", cfg->bot_name ? cfg->bot_name : CHAT_DEFAULT_BOT,
                              err)) != RWKV_OK)
        goto fail;
    if (cfg->think && (rc = chat_think_parse(cfg->think, &c->think, err)) != RWKV_OK)
        goto fail;
    snprintf(c->user, sizeof c->user, "%s", cfg->user_name ? cfg->user_name : CHAT_DEFAULT_USER);
    snprintf(c->bot, sizeof c->bot, "%s", cfg->bot_name ? cfg->bot_name : CHAT_DEFAULT_BOT);
    c->greeting_cfg = cfg->greeting ? chat_greeting_ended(cfg->greeting)
                                    : chat_demo_greeting(c->user, c->bot);
    if (c->greeting_cfg == NULL) {
        rc = rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
        goto fail;
    }
    greet = c->greeting_cfg;
    if (cfg->state_path != NULL) {
        rc = rwkv_state_load_file(m, cfg->state_path, c->start, err);
        if (rc != RWKV_OK)
            goto fail;
        greet = "";
    } else if (cfg->init_state != NULL) {
        rwkv_state_copy(c->start, cfg->init_state);
        greet = "";
    }
    if (cfg->state_path != NULL || cfg->init_state != NULL)
        params_apply_state_defaults(&c->samp, c->samp_set);
    c->from_file = cfg->state_path != NULL || cfg->init_state != NULL;
    c->greeting = strdup(greet);
    if (c->greeting == NULL) {
        rc = rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
        goto fail;
    }
    if (greet[0] != '\0') {
        rc = tok_encode(t, greet, strlen(greet), &c->greet_ids, &c->n_greet, err);
        if (rc != RWKV_OK)
            goto fail;
    }
    c->greet_fed = c->n_greet == 0;
    c->start_greeted = c->greet_fed;
    rwkv_state_copy(c->cur, c->start);

    if (c->samp_set & PARAMS_BIT(seed_bit())) {
        c->seed = c->samp.seed;
    } else {
        c->seed = rng_random_seed();
        c->seed_random = 1;
        c->samp.seed = c->seed;
    }
    rng_seed(&c->master, c->seed);
    c->phase = CHAT_IDLE;
    *out = c;
    return RWKV_OK;
fail:
    chat_destroy(c);
    return rc;
}

void
chat_destroy(chat *c)
{
    if (c == NULL)
        return;
    clear_turns(c);
    free(c->turns);
    free(c->greeting);
    free(c->greeting_cfg);
    free(c->greet_ids);
    rwkv_state_destroy(c->cur);
    rwkv_state_destroy(c->start);
    rwkv_state_destroy(c->turn_start);
    rwkv_state_destroy(c->before_reply);
    rwkv_state_destroy(c->cont_state);
    free(c->cont_text);
    free(c->logits);
    free(c->logits_before);
    free(c->work);
    samp_destroy(c->sp);
    chat_stream_destroy(c->stream);
    free(c);
}

/* Feed N tokens in chunks of sampling.chunk, honouring cancel between
** chunks.  LOGITS may be NULL. */
static int
feed_chunked(chat *c, const int32_t *ids, size_t n, float *logits, rwkv_err *err)
{
    size_t chunk = c->samp.chunk > 0 ? (size_t)c->samp.chunk : 256;

    for (size_t pos = 0; pos < n;) {
        size_t k = n - pos < chunk ? n - pos : chunk;
        int rc;
        double t0;
        if (atomic_load(c->cancel))
            return rwkv_errf(err, RWKV_ECANCEL, "cancelled");
        t0 = mono_run_s();
        rc = rwkv_eval(c->m, ids + pos, k, c->cur, pos + k == n ? logits : NULL, err);
        if (rc != RWKV_OK)
            return rc;
        pos += k;
        c->cur_stats.prefill_s += mono_run_s() - t0;
        c->cur_stats.prefill_tokens += k;
        report_stats(c);
    }
    return RWKV_OK;
}

int
chat_prime(chat *c, rwkv_err *err)
{
    int rc;

    if (c->phase != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "chat: busy");
    if (c->greet_fed)
        return RWKV_OK;
    atomic_store(c->cancel, 0);    /* a cancel sent while IDLE is void */
    memset(&c->cur_stats, 0, sizeof c->cur_stats);
    c->cur_stats.prefill_total = c->n_greet;
    set_phase(c, CHAT_PREFILL);
    c->logits_valid = 0;
    rc = feed_chunked(c, c->greet_ids, c->n_greet, NULL, err);
    if (rc == RWKV_OK) {
        rwkv_state_copy(c->start, c->cur);
        c->greet_fed = 1;
        c->start_greeted = 1;
    } else {
        rwkv_state_copy(c->cur, c->start);
    }
    atomic_store(c->cancel, 0);
    set_phase(c, CHAT_IDLE);
    return rc;
}

int
chat_prime_from(chat *c, const rwkv_state *after, rwkv_err *err)
{
    if (c->phase != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "chat: busy");
    if (c->greet_fed)
        return RWKV_OK;
    rwkv_state_copy(c->start, after);
    rwkv_state_copy(c->cur, after);
    c->logits_valid = 0;
    c->greet_fed = 1;
    c->start_greeted = 1;
    return RWKV_OK;
}

static int
push_turn_slot(chat *c, rwkv_err *err)
{
    if (c->n_turns == c->cap_turns) {
        size_t nc = c->cap_turns ? c->cap_turns * 2 : 8;
        chat_turn *p = realloc(c->turns, nc * sizeof *p);
        if (p == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
        c->turns = p;
        c->cap_turns = nc;
    }
    memset(&c->turns[c->n_turns], 0, sizeof c->turns[0]);
    c->n_turns++;
    return RWKV_OK;
}

/* The running reply's sampling values as the demo's doubles. */
static void
take_sampling(chat *c, const rwkv_sampling *s)
{
    c->d_temp = samp_f2d(s->temperature);
    c->d_top_p = samp_f2d(s->top_p);
    c->d_presence = samp_f2d(s->presence);
    c->d_frequency = samp_f2d(s->frequency);
    c->d_decay = samp_f2d(s->decay);
}

/* Start the reply of the last turn from c->cur / c->logits. */
static int
begin_reply(chat *c, rwkv_err *err)
{
    chat_turn *t = &c->turns[c->n_turns - 1];

    free(t->reply);
    free(t->reply_ids);
    t->reply = malloc(64);
    t->reply_ids = malloc(64 * sizeof(int32_t));
    if (t->reply == NULL || t->reply_ids == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
    /* the reply starts with what the prompt wrote of it (a head is short) */
    t->reply_len = strlen(t->head);
    memcpy(t->reply, t->head, t->reply_len + 1);
    t->n_reply = 0;
    c->reply_cap = 64;
    c->ids_cap = 64;
    t->stop = CHAT_STOP_NONE;
    t->interrupted = 0;
    t->samp = c->samp;
    t->samp.seed = next_reply_seed(c);
    rng_seed(&c->reply_rng, t->samp.seed);
    take_sampling(c, &t->samp);
    samp_reset_penalties(c->sp);
    chat_stream_reset(c->stream);
    c->stop = CHAT_STOP_NONE;
    c->cur_stats.gen_tokens = 0;
    c->cur_stats.gen_s = 0;
    c->cont = 0;
    c->logits_valid = 1;
    set_phase(c, CHAT_GENERATING);
    if (t->reply_len > 0 && c->cb.text)
        c->cb.text(c->cb.ud, t->reply, t->reply_len);
    return RWKV_OK;
}

/* Record a new turn (taking ownership of NORM) whose prompt is TEXT
** (TLEN bytes, fed verbatim) and whose reply starts with HEAD (a constant),
** and queue its prefill. */
static int
start_turn(chat *c, char *norm, size_t nlen, const char *text, size_t tlen, const char *head,
           rwkv_err *err)
{
    chat_turn *t;
    int rc;

    atomic_store(c->cancel, 0);    /* a cancel sent while IDLE is void */
    if ((rc = push_turn_slot(c, err)) != RWKV_OK) {
        free(norm);
        return rc;
    }
    t = &c->turns[c->n_turns - 1];
    t->user = norm;
    t->user_len = nlen;
    t->head = head;
    rc = tok_encode(c->t, text, tlen, &t->prompt_ids, &t->n_prompt, err);
    if (rc != RWKV_OK) {
        turn_free(t);
        c->n_turns--;
        return rc;
    }
    t->samp = c->samp;

    memset(&c->cur_stats, 0, sizeof c->cur_stats);
    memset(c->seg_one, 0, sizeof c->seg_one);
    c->cont = 0;
    c->n_seg = 0;
    c->si = 0;
    c->pos = 0;
    c->greet_in_queue = 0;
    if (!c->greet_fed) {
        c->seg_ids[c->n_seg] = c->greet_ids;
        c->seg_n[c->n_seg] = c->n_greet;
        c->seg_is_greeting[c->n_seg] = 1;
        c->n_seg++;
        c->greet_in_queue = 1;
    } else {
        rwkv_state_copy(c->turn_start, c->cur);
        c->have_turn_start = 1;
    }
    c->seg_ids[c->n_seg] = t->prompt_ids;
    c->seg_n[c->n_seg] = t->n_prompt;
    c->seg_is_greeting[c->n_seg] = 0;
    c->n_seg++;
    c->prev_have_before = c->have_before_reply;
    c->have_before_reply = 0;
    for (int i = 0; i < c->n_seg; i++)
        c->cur_stats.prefill_total += c->seg_n[i];
    set_phase(c, CHAT_PREFILL);
    return RWKV_OK;
}

int
chat_submit(chat *c, const char *msg, size_t len, rwkv_err *err)
{
    const char *tail, *head;
    char *norm, *text;
    size_t nlen, tlen;
    int rc;

    if (c->phase != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "chat: a reply is still running");
    if (len > CHAT_MAX_MESSAGE)
        return rwkv_errf(err, RWKV_EINVAL, "message of %zu bytes is too long (limit %u)", len,
                         CHAT_MAX_MESSAGE);
    norm = chat_normalize(msg, len, &nlen);
    if (norm == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
    if (nlen == 0) {
        free(norm);
        return rwkv_errf(err, RWKV_EINVAL, "please say something");
    }
    /* "{user}: {msg}{tail}\n\n{bot}:{head}" -- "User: ...\n\nAssistant:" by
    ** default; the think mode's tail and head (chat.h) otherwise */
    tail = think_modes[c->think].tail;
    head = think_modes[c->think].head;
    tlen = strlen(CHAT_TURN_SEP) + strlen(c->user) + 2 + nlen + strlen(tail) + 2 +
           strlen(c->bot) + 1 + strlen(head);
    text = malloc(tlen + 1);
    if (text == NULL) {
        free(norm);
        return rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
    }
    snprintf(text, tlen + 1, "%s%s: %s%s\n\n%s:%s", sep_text(c->sep), c->user,
             norm, tail, c->bot, head);
    rc = start_turn(c, norm, nlen, text, strlen(text), head, err);
    free(text);
    return rc;
}

int
chat_submit_raw(chat *c, const char *text, size_t len, rwkv_err *err)
{
    char *shown;
    size_t i = 0, o = 0;

    if (c->phase != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "chat: a reply is still running");
    if (len == 0)
        return rwkv_errf(err, RWKV_EINVAL, "the prompt is empty");
    if (len > CHAT_MAX_MESSAGE)
        return rwkv_errf(err, RWKV_EINVAL, "prompt of %zu bytes is too long (limit %u)", len,
                         CHAT_MAX_MESSAGE);
    shown = malloc(len * UTF8_REPL_LEN + 1);
    if (shown == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
    while (i < len) {
        int r = utf8_decode((const unsigned char *)text + i, len - i, NULL);
        if (r > 0) {
            memcpy(shown + o, text + i, (size_t)r);
            o += (size_t)r;
            i += (size_t)r;
        } else {
            memcpy(shown + o, UTF8_REPL, UTF8_REPL_LEN);
            o += UTF8_REPL_LEN;
            i += r < 0 ? (size_t)-r : len - i;
        }
    }
    shown[o] = '\0';
    return start_turn(c, shown, o, text, len, "", err);
}

/* Cancel or failure during prefill: drop the turn, restore the state. */
static void
prefill_rollback(chat *c)
{
    if (c->greet_in_queue && !c->greet_fed)
        rwkv_state_copy(c->cur, c->start);
    else
        rwkv_state_copy(c->cur, c->turn_start);
    turn_free(&c->turns[c->n_turns - 1]);
    c->n_turns--;
    c->have_turn_start = 0;
    c->have_before_reply = c->prev_have_before;   /* the previous reply can still be redone */
    c->prev_have_before = 0;
    atomic_store(c->cancel, 0);
    set_phase(c, CHAT_IDLE);
}

static int begin_continue(chat *c, rwkv_err *err);
static void cont_rollback(chat *c);

/* A prefill cancelled or failed: a new prompt's or a continue's rebuild. */
static void
rollback(chat *c)
{
    if (c->cont)
        cont_rollback(c);
    else
        prefill_rollback(c);
}

static int
step_prefill(chat *c, rwkv_err *err)
{
    size_t chunk = c->samp.chunk > 0 ? (size_t)c->samp.chunk : 256;
    size_t n, k;
    int want, rc;
    double t0;

    if (atomic_load(c->cancel)) {
        rollback(c);
        return RWKV_OK;
    }
    if (c->seg_one[c->si])
        chunk = 1;
    n = c->seg_n[c->si];
    k = n - c->pos < chunk ? n - c->pos : chunk;
    /* the logits after the last chunk; a continue's rebuild also wants them
    ** after the prompt (the before-reply snapshot) */
    want = c->pos + k == n && (c->si == c->n_seg - 1 || c->cont);
    if (want)
        c->logits_valid = 0;
    t0 = mono_run_s();
    rc = k > 0 ? rwkv_eval(c->m, c->seg_ids[c->si] + c->pos, k, c->cur, want ? c->logits : NULL,
                           err)
               : RWKV_OK;
    c->cur_stats.prefill_s += mono_run_s() - t0;
    if (rc != RWKV_OK) {
        rollback(c);
        return rc;
    }
    c->cur_stats.prefill_tokens += k;
    c->pos += k;
    report_stats(c);
    if (c->pos < n)
        return RWKV_OK;
    if (c->seg_is_greeting[c->si]) {
        rwkv_state_copy(c->start, c->cur);
        c->greet_fed = 1;
        c->start_greeted = 1;
        rwkv_state_copy(c->turn_start, c->cur);
        c->have_turn_start = 1;
    }
    if (!c->seg_is_greeting[c->si] && !c->seg_one[c->si]) {
        /* prompt fed: snapshot for regen */
        rwkv_state_copy(c->before_reply, c->cur);
        memcpy(c->logits_before, c->logits, c->n_vocab * sizeof(float));
        c->have_before_reply = 1;
    }
    c->si++;
    c->pos = 0;
    if (c->si < c->n_seg)
        return RWKV_OK;
    rc = c->cont ? begin_continue(c, err) : begin_reply(c, err);
    if (rc != RWKV_OK)
        rollback(c);
    return rc;
}

static void
emit_cb(void *ud, const char *text, size_t len)
{
    chat *c = ud;
    chat_turn *t = &c->turns[c->n_turns - 1];

    if (grow(&t->reply, &c->reply_cap, t->reply_len + len + 1) < 0) {
        c->stop = CHAT_STOP_ERROR;   /* out of memory: end the reply */
        return;
    }
    memcpy(t->reply + t->reply_len, text, len);
    t->reply_len += len;
    t->reply[t->reply_len] = '\0';
    if (c->cb.text)
        c->cb.text(c->cb.ud, text, len);
}

static int
step_generate(chat *c, rwkv_err *err)
{
    chat_turn *t = &c->turns[c->n_turns - 1];
    const rwkv_sampling *s = &t->samp;
    const char *piece;
    size_t plen;
    int32_t token;
    double t0;
    int rc, r;

    if (atomic_load(c->cancel)) {
        c->stop = CHAT_STOP_CANCEL;
        set_phase(c, CHAT_STOPPING);
        return RWKV_OK;
    }
    if (s->max_tokens > 0 && t->n_reply >= (size_t)s->max_tokens) {
        c->stop = CHAT_STOP_MAX_TOKENS;
        set_phase(c, CHAT_STOPPING);
        return RWKV_OK;
    }
    t0 = mono_run_s();
    memcpy(c->work, c->logits, c->n_vocab * sizeof(float));
    samp_apply_penalties(c->sp, c->work, c->d_presence, c->d_frequency);
    token = samp_sample(c->sp, c->work, c->d_temp, c->d_top_p, s->top_k, &c->reply_rng);
    if (token < 0) {
        rc = rwkv_errf(err, RWKV_EINVAL, "chat: no token can be sampled (all banned or NaN logits)");
        goto fail;
    }
    if (t->n_reply + 1 > c->ids_cap) {
        size_t nc = c->ids_cap * 2;
        int32_t *p = realloc(t->reply_ids, nc * sizeof *p);
        if (p == NULL) {
            rc = rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
            goto fail;
        }
        t->reply_ids = p;
        c->ids_cap = nc;
    }
    rc = rwkv_eval(c->m, &token, 1, c->cur, c->logits, err);
    if (rc != RWKV_OK)
        goto fail;
    c->cur_stats.gen_s += mono_run_s() - t0;
    c->cur_stats.gen_tokens++;
    t->reply_ids[t->n_reply++] = token;
    samp_update_penalties(c->sp, token, c->d_decay);
    report_stats(c);
    if (tok_piece(c->t, token, &piece, &plen) != RWKV_OK) {
        piece = "";
        plen = 0;
    }
    r = chat_stream_push(c->stream, piece, plen, emit_cb, c);
    if (r < 0 || c->stop == CHAT_STOP_ERROR) {
        rc = rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
        c->stop = CHAT_STOP_ERROR;
        set_phase(c, CHAT_STOPPING);
        return rc;
    }
    if (r == 1) {
        c->stop = CHAT_STOP_STRING;
        set_phase(c, CHAT_STOPPING);
    } else if (s->max_tokens > 0 && t->n_reply >= (size_t)s->max_tokens) {
        c->stop = CHAT_STOP_MAX_TOKENS;
        set_phase(c, CHAT_STOPPING);
    }
    return RWKV_OK;
fail:
    if (c->cont) {
        /* a continuation: back to the reply as it was */
        rwkv_state_copy(c->cur, c->cont_state);
        c->logits_valid = 0;
        t->n_reply = c->cont_n;
        if (grow(&t->reply, &c->reply_cap, strlen(c->cont_text) + 1) == 0) {
            t->reply_len = strlen(c->cont_text);
            memcpy(t->reply, c->cont_text, t->reply_len + 1);
        }
        c->cont_failed = 1;            /* step_stopping restores its ending */
        c->stop = CHAT_STOP_ERROR;
        set_phase(c, CHAT_STOPPING);
        return rc;
    }
    /* the state may be half-updated: go back to before the reply */
    rwkv_state_copy(c->cur, c->before_reply);
    memcpy(c->logits, c->logits_before, c->n_vocab * sizeof(float));
    t->n_reply = 0;
    t->reply_len = strlen(t->head);
    memcpy(t->reply, t->head, t->reply_len + 1);
    c->stop = CHAT_STOP_ERROR;
    set_phase(c, CHAT_STOPPING);
    return rc;
}


static int
step_stopping(chat *c, rwkv_err *err)
{
    chat_turn *t = &c->turns[c->n_turns - 1];
    int rc = RWKV_OK;

    if (c->stop != CHAT_STOP_STRING && c->stop != CHAT_STOP_ERROR &&
        chat_stream_flush(c->stream, emit_cb, c) < 0)
        rc = rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
    chat_stream_reset(c->stream);
    t->stop = c->stop;
    t->interrupted = c->stop == CHAT_STOP_CANCEL;
    /* the state ends with the stop string only when the reply stopped at it */
    c->sep = turn_sep(c, t, c->stop);
    finish_stats(&c->cur_stats);
    t->stats = c->cur_stats;
    c->last_stats = c->cur_stats;
    if (c->cont && c->cont_failed) {
        /* not interrupted, nor ended by the error: the reply it was (the
        ** caller has the error), which a save then writes back as it was */
        t->stop = c->cont_stop;
        t->interrupted = c->cont_interrupted;
        t->samp = c->cont_samp;
        t->stats = c->cont_stats;
        c->sep = turn_sep(c, t, t->stop);
    }
    c->cont_failed = 0;
    c->cont = 0;
    free(c->cont_text);
    c->cont_text = NULL;
    atomic_store(c->cancel, 0);
    set_phase(c, CHAT_IDLE);
    if (c->cb.done)
        c->cb.done(c->cb.ud, t);
    return rc;
}

int
chat_step(chat *c, rwkv_err *err)
{
    switch (c->phase) {
    case CHAT_PREFILL: return step_prefill(c, err);
    case CHAT_GENERATING: return step_generate(c, err);
    case CHAT_STOPPING: return step_stopping(c, err);
    default: return RWKV_OK;
    }
}

int
chat_run(chat *c, rwkv_err *err)
{
    int rc = RWKV_OK;

    while (c->phase != CHAT_IDLE) {
        int r = chat_step(c, err);
        if (r != RWKV_OK && rc == RWKV_OK)
            rc = r;
    }
    return rc;
}

int
chat_regen(chat *c, rwkv_err *err)
{
    chat_turn *t;

    if (c->phase != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "chat: a reply is still running");
    if (c->n_turns == 0)
        return rwkv_errf(err, RWKV_EINVAL, "nothing to regenerate yet");
    t = &c->turns[c->n_turns - 1];
    memset(&c->cur_stats, 0, sizeof c->cur_stats);
    atomic_store(c->cancel, 0);    /* a cancel sent while IDLE is void */
    if (c->have_before_reply) {
        rwkv_state_copy(c->cur, c->before_reply);
        memcpy(c->logits, c->logits_before, c->n_vocab * sizeof(float));
        c->logits_valid = 1;
        t->n_regen++;
        return begin_reply(c, err);
    }
    if (!c->have_turn_start || t->prompt_ids == NULL)
        return rwkv_errf(err, RWKV_EINVAL, "no state from before the last reply to regenerate from");
    /* restored session: re-prefill the last prompt from the turn start
    ** (cancelling that prefill drops the turn, as for a new message) */
    rwkv_state_copy(c->cur, c->turn_start);
    c->prev_have_before = 0;
    t->n_regen++;
    memset(c->seg_one, 0, sizeof c->seg_one);
    c->cont = 0;
    c->n_seg = 1;
    c->si = 0;
    c->pos = 0;
    c->greet_in_queue = 0;
    c->seg_ids[0] = t->prompt_ids;
    c->seg_n[0] = t->n_prompt;
    c->seg_is_greeting[0] = 0;
    c->cur_stats.prefill_total = t->n_prompt;
    set_phase(c, CHAT_PREFILL);
    return RWKV_OK;
}

/* ---- continue ---------------------------------------------------------- */

/* Growable text for the stream's replay. */
struct text_acc {
    char  *p;
    size_t len, cap;
    int    oom;
};

static void
acc_emit(void *ud, const char *text, size_t len)
{
    struct text_acc *a = ud;

    if (grow(&a->p, &a->cap, a->len + len + 1) < 0) {
        a->oom = 1;
        return;
    }
    memcpy(a->p + a->len, text, len);
    a->len += len;
    a->p[a->len] = '\0';
}

/*
** Push T's reply tokens through the stream again, as the uncut run did:
** the stream then holds back what that run would still hold (a proper
** prefix of a stop string, an incomplete character) and *ACC gets T's head
** plus the text that run had emitted (owned by caller, free ACC->p).
** Returns 0, 1 when a stop string is in the reply (stop strings changed
** since it was written), -1 when out of memory.
*/
static int
stream_replay(chat *c, const chat_turn *t, struct text_acc *acc)
{
    int r = 0;

    memset(acc, 0, sizeof *acc);
    acc_emit(acc, t->head, strlen(t->head));
    chat_stream_reset(c->stream);
    for (size_t i = 0; i < t->n_reply && r == 0; i++) {
        const char *piece;
        size_t plen;
        if (tok_piece(c->t, t->reply_ids[i], &piece, &plen) != RWKV_OK) {
            piece = "";
            plen = 0;
        }
        r = chat_stream_push(c->stream, piece, plen, acc_emit, acc);
    }
    return acc->oom || r < 0 ? -1 : r;
}

/*
** The reply goes on (phase GENERATING): the RNG at the place the uncut run
** would be (seeded from the turn's seed, one uniform per token drawn), the
** penalty counts rebuilt from its tokens, the stream holding what it would
** hold, and the text cut back to what it would have shown (the text
** callback gets it again).  c->cur / c->logits are the state after the
** reply.
*/
static int
begin_continue(chat *c, rwkv_err *err)
{
    chat_turn *t = &c->turns[c->n_turns - 1];
    struct text_acc acc;
    size_t icap = t->n_reply < 32 ? 64 : t->n_reply * 2;
    int32_t *ids;
    int more = c->samp.max_tokens;

    if (stream_replay(c, t, &acc) != 0 ||
        (c->cont_text = strndup(t->reply ? t->reply : "", t->reply_len)) == NULL ||
        (ids = realloc(t->reply_ids, icap * sizeof *ids)) == NULL) {
        free(acc.p);
        free(c->cont_text);
        c->cont_text = NULL;
        chat_stream_reset(c->stream);
        return rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
    }
    t->reply_ids = ids;
    c->ids_cap = icap;
    free(t->reply);
    t->reply = acc.p;
    t->reply_len = acc.len;
    c->reply_cap = acc.cap;
    c->cont_n = t->n_reply;
    c->cont_samp = t->samp;
    c->cont_stop = t->stop;
    c->cont_interrupted = t->interrupted;
    c->cont_failed = 0;
    rwkv_state_copy(c->cont_state, c->cur);
    rng_seed(&c->reply_rng, t->samp.seed);
    for (size_t i = 0; i < t->n_reply; i++)
        (void)rng_uniform(&c->reply_rng);     /* samp_sample draws one per token */
    take_sampling(c, &t->samp);
    samp_reset_penalties(c->sp);
    for (size_t i = 0; i < t->n_reply; i++)
        samp_update_penalties(c->sp, t->reply_ids[i], c->d_decay);
    /* at most max_tokens more; the turn records the total, so its values
    ** and seed give the whole reply again.  The total is held to the
    ** limit of max_tokens: a value past it is no turn a reader takes
    ** (store_sampling_parse) -- and the cap the reply runs under
    ** (chat_step) is this recorded value, so the record stays exact: the
    ** reply is at most the limit long, as any reply is (chat_continue
    ** refuses one already there) */
    if (more > 0)
        t->samp.max_tokens = (int)(t->n_reply + (size_t)more > reply_limit()
                                       ? reply_limit() : t->n_reply + (size_t)more);
    else
        t->samp.max_tokens = 0;
    t->stop = CHAT_STOP_NONE;
    t->interrupted = 0;
    c->stop = CHAT_STOP_NONE;
    c->cur_stats = c->cont_stats;
    c->cur_stats.prefill_total = 0;
    c->logits_valid = 1;
    set_phase(c, CHAT_GENERATING);
    if (t->reply_len > 0 && c->cb.text)
        c->cb.text(c->cb.ud, t->reply, t->reply_len);
    return RWKV_OK;
}

/* A continue's rebuild cancelled or failed: the reply as it was. */
static void
cont_rollback(chat *c)
{
    rwkv_state_copy(c->cur, c->cont_state);
    c->logits_valid = 0;
    c->cont = 0;
    atomic_store(c->cancel, 0);
    set_phase(c, CHAT_IDLE);
}

/* Queue the rebuild of the logits after the last reply (the state was
** restored without them): from the before-reply snapshot its tokens one
** at a time, or from the turn start its prompt in chunks first. */
static int
queue_rebuild(chat *c, const chat_turn *t, rwkv_err *err)
{
    c->n_seg = 0;
    c->si = 0;
    c->pos = 0;
    c->greet_in_queue = 0;
    memset(c->seg_one, 0, sizeof c->seg_one);
    memset(c->seg_is_greeting, 0, sizeof c->seg_is_greeting);
    if (c->have_before_reply) {
        rwkv_state_copy(c->cur, c->before_reply);
        memcpy(c->logits, c->logits_before, c->n_vocab * sizeof(float));
    } else if (c->have_turn_start && t->n_prompt > 0) {
        rwkv_state_copy(c->cur, c->turn_start);
        c->seg_ids[0] = t->prompt_ids;
        c->seg_n[0] = t->n_prompt;
        c->n_seg = 1;
    } else {
        return rwkv_errf(err, RWKV_EINVAL,
                         "no state from before the last reply to rebuild it from");
    }
    if (t->n_reply > 0) {
        c->seg_ids[c->n_seg] = t->reply_ids;
        c->seg_n[c->n_seg] = t->n_reply;
        c->seg_one[c->n_seg] = 1;
        c->n_seg++;
    }
    for (int i = 0; i < c->n_seg; i++)
        c->cur_stats.prefill_total += c->seg_n[i];
    return RWKV_OK;
}

int
chat_continue(chat *c, rwkv_err *err)
{
    const chat_turn *t;
    struct text_acc acc;
    int r, rc;

    if (c->phase != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "a reply is still running");
    if (c->n_turns == 0)
        return rwkv_errf(err, RWKV_EINVAL, "no reply to continue yet");
    t = &c->turns[c->n_turns - 1];
    if (t->stop == CHAT_STOP_STRING)
        return rwkv_errf(err, RWKV_EINVAL, "the reply is complete (it ended at its stop "
                                           "string); regenerate it to draw another");
    r = stream_replay(c, t, &acc);
    free(acc.p);
    chat_stream_reset(c->stream);
    if (r < 0)
        return rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
    if (r > 0)
        return rwkv_errf(err, RWKV_EINVAL, "the reply holds one of the stop strings now in "
                                           "use: it is complete; regenerate it to draw another");
    if (t->n_reply >= reply_limit())
        return rwkv_errf(err, RWKV_EINVAL, "the reply is %zu tokens long, the most a reply can be "
                                           "(max_tokens limit): it cannot go on", t->n_reply);
    atomic_store(c->cancel, 0);    /* a cancel sent while IDLE is void */
    memset(&c->cur_stats, 0, sizeof c->cur_stats);
    c->cont_stats = t->stats;
    c->cont = 1;
    rwkv_state_copy(c->cont_state, c->cur);
    c->n_seg = 0;
    if (!c->logits_valid && (rc = queue_rebuild(c, t, err)) != RWKV_OK) {
        c->cont = 0;
        return rc;
    }
    if (c->n_seg > 0) {
        set_phase(c, CHAT_PREFILL);
        return RWKV_OK;
    }
    /* the logits are there (or the before-reply ones, for no tokens) */
    if ((rc = begin_continue(c, err)) != RWKV_OK) {
        rwkv_state_copy(c->cur, c->cont_state);
        c->cont = 0;
    }
    return rc;
}

void
chat_cancel(chat *c)
{
    atomic_store(c->cancel, 1);
}

int
chat_phase(const chat *c)
{
    return c->phase;
}

void
chat_reset(chat *c)
{
    if (c->phase != CHAT_IDLE)
        return;
    clear_turns(c);
    rwkv_state_copy(c->cur, c->start);
    /* A restored conversation may have come with its own greeting while
    ** START is still fresh: the greeting is then fed again on the next
    ** message. */
    c->greet_fed = c->start_greeted;
    atomic_store(c->cancel, 0);
}

int
chat_load_state_file(chat *c, const char *path, rwkv_err *err)
{
    rwkv_state *s;
    int rc;

    if (c->phase != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "chat: a reply is still running");
    rc = rwkv_state_create(c->m, &s, err);
    if (rc != RWKV_OK)
        return rc;
    rc = rwkv_state_load_file(c->m, path, s, err);
    if (rc == RWKV_OK)
        rc = chat_load_state(c, s, err);
    rwkv_state_destroy(s);
    return rc;
}

int
chat_load_state(chat *c, const rwkv_state *s, rwkv_err *err)
{
    if (c->phase != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "chat: a reply is still running");
    if (s != NULL)
        rwkv_state_copy(c->start, s);
    else
        rwkv_state_reset(c->m, c->start);
    rwkv_state_copy(c->cur, c->start);
    free(c->greet_ids);
    c->greet_ids = NULL;
    c->n_greet = 0;
    c->greeting[0] = '\0';
    c->greet_fed = 1;
    c->start_greeted = 1;
    c->from_file = 1;
    clear_turns(c);
    params_apply_state_defaults(&c->samp, c->samp_set);
    return RWKV_OK;
}

int
chat_use_greeting(chat *c, rwkv_err *err)
{
    int32_t *ids = NULL;
    size_t n = 0;
    char *g;
    int rc;

    if (c->phase != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "chat: a reply is still running");
    if (!c->from_file) {
        chat_reset(c);
        return RWKV_OK;
    }
    if (c->greeting_cfg[0] != '\0' &&
        (rc = tok_encode(c->t, c->greeting_cfg, strlen(c->greeting_cfg), &ids, &n, err)) != RWKV_OK)
        return rc;
    g = strdup(c->greeting_cfg);
    if (g == NULL) {
        free(ids);
        return rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
    }
    free(c->greeting);
    free(c->greet_ids);
    c->greeting = g;
    c->greet_ids = ids;
    c->n_greet = n;
    rwkv_state_reset(c->m, c->start);
    rwkv_state_copy(c->cur, c->start);
    c->greet_fed = c->start_greeted = n == 0;
    c->from_file = 0;
    clear_turns(c);
    params_apply_demo_defaults(&c->samp, c->samp_set);
    atomic_store(c->cancel, 0);
    return RWKV_OK;
}

int
chat_has_state_file(const chat *c)
{
    return c->from_file;
}

const rwkv_sampling *
chat_sampling(const chat *c)
{
    return &c->samp;
}

unsigned
chat_sampling_set(const chat *c)
{
    return c->samp_set;
}

void
chat_set_sampling(chat *c, const rwkv_sampling *s, unsigned samp_set)
{
    unsigned bit = PARAMS_BIT(seed_bit());
    int reseed = (samp_set & bit) && (!(c->samp_set & bit) || s->seed != c->seed);

    c->samp = *s;
    c->samp_set = samp_set;
    if (reseed) {
        c->seed = s->seed;
        c->seed_random = 0;
        rng_seed(&c->master, c->seed);
    }
}

uint64_t
chat_seed(const chat *c, int *was_random)
{
    if (was_random)
        *was_random = c->seed_random;
    return c->seed;
}

void
chat_set_next_seed(chat *c, uint64_t seed)
{
    c->have_next_seed = 1;
    c->next_seed = seed;
}

size_t
chat_n_turns(const chat *c)
{
    return c->n_turns;
}

const chat_turn *
chat_turn_at(const chat *c, size_t i)
{
    return i < c->n_turns ? &c->turns[i] : NULL;
}

const char *
chat_user_name(const chat *c)
{
    return c->user;
}

const char *
chat_bot_name(const chat *c)
{
    return c->bot;
}

char *
chat_demo_greeting(const char *user, const char *bot)
{
    static const char fmt[] = "%s: hi\n\n%s: Hi. I am your assistant and I will provide expert "
                              "full response in full details. Please feel free to ask any "
                              "question and I will always answer it.\n\n";
    size_t cap;
    char *g;

    user = user ? user : CHAT_DEFAULT_USER;
    bot = bot ? bot : CHAT_DEFAULT_BOT;
    cap = sizeof fmt + strlen(user) + strlen(bot);
    g = malloc(cap);
    if (g != NULL)
        snprintf(g, cap, fmt, user, bot);
    return g;
}

int
chat_name_check(const char *what, const char *name, rwkv_err *err)
{
    size_t n = strlen(name);

    if (n == 0 || n > CHAT_MAX_NAME)
        return rwkv_errf(err, RWKV_EINVAL, "%s: a role name has 1..%d bytes", what, CHAT_MAX_NAME);
    if (!utf8_valid(name, n))
        return rwkv_errf(err, RWKV_EINVAL, "%s: not valid UTF-8", what);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f || name[i] == ':')
            return rwkv_errf(err, RWKV_EINVAL,
                             "%s: no ':', newline or control character in a role name", what);
    if (name[0] == ' ' || name[n - 1] == ' ')
        return rwkv_errf(err, RWKV_EINVAL, "%s '%s': no blank at either end of a role name",
                         what, name);
    return RWKV_OK;
}

int
chat_set_stops(chat *c, const char *const *stop, size_t n, int no_stop, rwkv_err *err)
{
    chat_stream *st;
    int rc;

    if (c->phase != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "chat: a reply is still running");
    if ((rc = open_stream(stop, n, no_stop, &st, err)) != RWKV_OK)
        return rc;
    chat_stream_destroy(c->stream);
    c->stream = st;
    return RWKV_OK;
}

int
chat_set_banned(chat *c, const int32_t *ids, size_t n, rwkv_err *err)
{
    if (c->phase != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "chat: a reply is still running");
    return samp_set_banned(c->sp, ids, n, err);
}

const char *
chat_greeting(const chat *c)
{
    return c->greeting;
}

const int32_t *
chat_greeting_ids(const chat *c, size_t *n)
{
    *n = c->n_greet;
    return c->greet_ids;
}

int
chat_greeting_fed(const chat *c)
{
    return c->greet_fed;
}

const rwkv_state *
chat_state(const chat *c)
{
    return c->cur;
}

const rwkv_state *
chat_state_start(const chat *c)
{
    return c->start;
}

const rwkv_state *
chat_state_turn_start(const chat *c)
{
    return c->have_turn_start ? c->turn_start : NULL;
}

const rwkv_state *
chat_state_before_reply(const chat *c)
{
    return c->have_before_reply ? c->before_reply : NULL;
}

const float *
chat_logits_before_reply(const chat *c)
{
    return c->have_before_reply ? c->logits_before : NULL;
}

int
chat_state_next(const chat *c, rwkv_state *out, rwkv_err *err)
{
    int32_t *ids = NULL;
    size_t n = 0;
    int rc;

    if (c->phase != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "chat: a reply is still running");
    rwkv_state_copy(out, c->cur);
    if (c->sep == 0)
        return RWKV_OK;
    /* the separator's tokens as the next prompt's text begins with them:
    ** "\n\n" is a token of its own in the World vocabulary, bytes in a
    ** byte-level one, so "\n\n" + "{user}: ..." splits after it */
    if ((rc = tok_encode(c->t, sep_text(c->sep), (size_t)c->sep, &ids, &n, err)) != RWKV_OK)
        return rc;
    rc = n > 0 ? rwkv_eval(c->m, ids, n, out, NULL, err) : RWKV_OK;
    free(ids);
    return rc;
}

int
chat_state_greeted(const chat *c, rwkv_state *out, rwkv_err *err)
{
    size_t chunk = c->samp.chunk > 0 ? (size_t)c->samp.chunk : 256;
    int rc = RWKV_OK;

    rwkv_state_copy(out, c->start);
    if (c->start_greeted)
        return RWKV_OK;
    for (size_t i = 0; rc == RWKV_OK && i < c->n_greet; i += chunk) {
        size_t k = c->n_greet - i < chunk ? c->n_greet - i : chunk;
        rc = rwkv_eval(c->m, c->greet_ids + i, k, out, NULL, err);
    }
    return rc;
}

void
chat_restore_state(chat *c, const rwkv_state *s, int need_sep)
{
    if (c->phase != CHAT_IDLE)
        return;
    rwkv_state_copy(c->cur, s);
    c->logits_valid = 0;
    c->greet_fed = 1;
    c->have_turn_start = 0;
    c->have_before_reply = 0;
    c->sep = need_sep ? 2 : 0;
    if (!need_sep && c->n_turns > 0 && c->turns[c->n_turns - 1].stop == CHAT_STOP_STRING)
        c->sep = turn_sep(c, &c->turns[c->n_turns - 1], CHAT_STOP_STRING);
}

void
chat_set_turn_start(chat *c, const rwkv_state *s)
{
    if (c->phase != CHAT_IDLE)
        return;
    rwkv_state_copy(c->turn_start, s);
    c->have_turn_start = 1;
    c->have_before_reply = 0;
}

void
chat_set_before_reply(chat *c, const rwkv_state *s, const float *logits)
{
    if (c->phase != CHAT_IDLE)
        return;
    rwkv_state_copy(c->before_reply, s);
    memcpy(c->logits_before, logits, c->n_vocab * sizeof(float));
    c->have_before_reply = 1;
}

static void *
dup_mem(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);

    if (q != NULL && n > 0)
        memcpy(q, p, n);
    return q;
}

/*
** Why a saved reply T ended, for a record that does not say: cancelled when
** it was interrupted, at a stop string when its last token completes one of
** this chat's stop strings (stop_end: the stop string is fed, so it is
** there; a last token "\n\n " completes "\n\n"), else at the length limit.
*/
static int
saved_stop(const chat *c, const chat_turn *t)
{
    size_t len, last;
    char *text;
    int hit;

    if (t->interrupted)
        return CHAT_STOP_CANCEL;
    if ((text = reply_tail(c, t, &len, &last)) == NULL)
        return CHAT_STOP_MAX_TOKENS;
    hit = stop_end(c, text, len, last) != SIZE_MAX;
    free(text);
    return hit ? CHAT_STOP_STRING : CHAT_STOP_MAX_TOKENS;
}

int
chat_push_turn(chat *c, const chat_turn *src, rwkv_err *err)
{
    chat_turn *t;
    int rc;

    if (c->phase != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "chat: a reply is still running");
    if ((rc = push_turn_slot(c, err)) != RWKV_OK)
        return rc;
    t = &c->turns[c->n_turns - 1];
    *t = *src;
    t->user_len = src->user ? src->user_len : 0;
    t->reply_len = src->reply ? src->reply_len : 0;
    t->user = dup_mem(src->user ? src->user : "", t->user_len + 1);
    t->reply = dup_mem(src->reply ? src->reply : "", t->reply_len + 1);
    t->prompt_ids = dup_mem(src->prompt_ids, src->n_prompt * sizeof(int32_t));
    t->reply_ids = dup_mem(src->reply_ids, src->n_reply * sizeof(int32_t));
    if (!t->user || !t->reply || !t->prompt_ids || !t->reply_ids) {
        turn_free(t);
        c->n_turns--;
        return rwkv_errf(err, RWKV_ENOMEM, "chat: out of memory");
    }
    if (t->stop == CHAT_STOP_NONE && (t->n_reply > 0 || t->interrupted))
        t->stop = saved_stop(c, t);
    t->head = prompt_head(c, t);
    c->have_turn_start = 0;
    c->have_before_reply = 0;
    c->logits_valid = 0;
    return RWKV_OK;
}

const chat_stats *
chat_last_stats(const chat *c)
{
    return &c->last_stats;
}

/* ---- chat.py's inline sampling words ------------------------------------ */

/* The value word KW (e.g. "-temp=") starts at TEXT[I] (I < N): it is whole
** (a blank or the start before it) with a finite number after '=' up to a
** blank or the end: *X and *LEN (the whole word's bytes).  1, else 0. */
static int
inline_word(const char *text, size_t n, size_t i, const char *kw, double *x, size_t *len)
{
    size_t wl = strlen(kw), vl;
    char num[64], *end;

    if (i + wl > n || (i > 0 && strchr(" \t\n", text[i - 1]) == NULL) ||
        memcmp(text + i, kw, wl) != 0)
        return 0;
    vl = strcspn(text + i + wl, " \t\n");
    if (vl == 0 || vl >= sizeof num)
        return 0;
    memcpy(num, text + i + wl, vl);
    num[vl] = '\0';
    *x = strtod(num, &end);
    if (*end != '\0' || !isfinite(*x))
        return 0;
    *len = wl + vl;
    return 1;
}

int
chat_inline_sampling(char *text, size_t *n, rwkv_sampling *s, unsigned *set, rwkv_err *err)
{
    static const struct { const char *word, *param; } kw[] = {
        { "-temp=", "temperature" },
        { "-top_p=", "top_p" },
    };
    rwkv_sampling v = *s;
    unsigned bits = 0;
    struct { size_t at, len; } cut[2];
    int found = 0;

    /* both checked before either is taken out: a refused one leaves TEXT
    ** and *S as they were */
    for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++) {
        int pi = params_find(kw[k].param);
        for (size_t i = 0; i < *n; i++) {
            char num[64];
            double x;
            size_t len;
            if (!inline_word(text, *n, i, kw[k].word, &x, &len))
                continue;
            if (k == 0)
                x = x < 0.2 ? 0.2 : x > 5 ? 5 : x;
            else if (x < 0)
                x = 0;
            snprintf(num, sizeof num, "%.9g", x);
            if (params_set(&v, pi, num, err) != RWKV_OK) {
                char why[sizeof err->msg];
                snprintf(why, sizeof why, "%s", err->msg);
                rwkv_errf(err, RWKV_EINVAL, "%.*s: %s", (int)len, text + i, why);
                return -1;
            }
            bits |= PARAMS_BIT(pi);
            cut[found].at = i;
            cut[found].len = len;
            found++;
            break;          /* the first one, as chat.py takes it */
        }
    }
    /* the later word first: the earlier one's place stays */
    if (found == 2 && cut[0].at < cut[1].at) {
        size_t t = cut[0].at, l = cut[0].len;
        cut[0] = cut[1];
        cut[1].at = t;
        cut[1].len = l;
    }
    for (int j = 0; j < found; j++) {
        memmove(text + cut[j].at, text + cut[j].at + cut[j].len, *n - cut[j].at - cut[j].len + 1);
        *n -= cut[j].len;
    }
    if (found) {
        *s = v;
        *set |= bits;
    }
    return found > 0;
}
