/*
** sampler.h -- next-token choice exactly as the reference does it.
**
**   samp_apply_penalties   the chat demo's presence/frequency penalties
**                          (fixtures README 6): counts of generated tokens
**                          only, doubles, decayed after every token;
**                          logit[0] (END_OF_TEXT) lowered by 1e10; banned
**                          ids set to -inf.
**   samp_distribution      PIPELINE.sample_logits' distribution (README 5):
**                          float32 softmax, top-p cutoff with ties kept and
**                          "index 0 when the cumsum never reaches top_p",
**                          top-k, temperature applied after filtering as
**                          p ** (1/T), temperature 0 = greedy.
**   samp_sample            a draw from that distribution with core/chat/rng.h.
**
** A samp handle holds every buffer it needs (allocated once for n_vocab), so
** nothing allocates per token (house style G6).
*/
#ifndef RWKV_SAMPLER_H
#define RWKV_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"
#include "../status.h"

/* Largest vocabulary accepted: bounds the per-handle buffers (World is 65536). */
#define SAMP_MAX_VOCAB (1u << 22)
/* What the demo subtracts from logit[0] so END_OF_TEXT never ends a reply. */
#define SAMP_EOT_PENALTY 1e10

typedef struct samp samp;   /* opaque: samp_create / samp_destroy */

/* A sampler for N_VOCAB logits.  *OUT owned by caller (samp_destroy). */
int  samp_create(size_t n_vocab, samp **out, rwkv_err *err);
void samp_destroy(samp *s);                         /* NULL is fine */
size_t samp_n_vocab(const samp *s);

/* Ids never to be sampled (copied; replaces the previous list). */
int  samp_set_banned(samp *s, const int32_t *ids, size_t n, rwkv_err *err);

/* Forget every occurrence count (start of a reply). */
void samp_reset_penalties(samp *s);
/*
** In place on LOGITS (n_vocab floats), in this order: for every id counted
** so far  logit = float(logit - float(presence + count*frequency));  then
** logit[0] = float(logit[0] - float(1e10)); then banned ids = -inf.
*/
void samp_apply_penalties(const samp *s, float *logits, double presence,
                          double frequency);
/* After TOKEN was fed: every count *= decay, then count[TOKEN] += 1. */
void samp_update_penalties(samp *s, int32_t token, double decay);
/* Count of ID (0 when never generated) and whether it is counted at all. */
double samp_occurrence(const samp *s, int32_t id, int *present);
/* Ids counted so far, in first-seen order (borrowed, valid until the next
** samp_* call that changes counts). */
const int32_t *samp_touched(const samp *s, size_t *n);

/*
** The reference's final distribution for LOGITS (n_vocab floats, not
** modified): PROBS (OUT, n_vocab floats) gets the normalised float32
** probabilities, zero for every filtered id.  Returns how many are kept.
** A temperature so small that even the largest p ** (1/T) is under
** float32's range (0.0001), where the reference's powers are all 0 and its
** draw fails, gives that same distribution computed without the underflow.
*/
size_t samp_distribution(samp *s, const float *logits, double temperature,
                         double top_p, int top_k, float *probs);

/*
** Draw the next token from the distribution above with R.  Returns the id,
** or -1 when no token can be drawn (every logit -inf or NaN).
*/
int32_t samp_sample(samp *s, const float *logits, double temperature,
                    double top_p, int top_k, rng *r);

/* The index of the largest of the N >= 1 LOGITS (the first of equals): the
** greedy pick, as the benchmarks count agreement. */
size_t samp_argmax(const float *logits, size_t n);

/*
** The double a user meant by float F: the shortest decimal that round-trips
** to F, read back as double (0.3f -> 0.3, not 0.30000001192...).  The
** sampling values are stored as float but the demo computes with Python
** floats; this keeps the penalty arithmetic bit-exact.
*/
double samp_f2d(float f);

#endif
