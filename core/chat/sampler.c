/*
** sampler.c -- penalties and the reference's sample_logits.  See sampler.h.
**
** Invariants:
**   - every buffer is sized n_vocab at samp_create; the per-token path never
**     allocates;
**   - the top-p cumsum is a sequential float32 sum over the probabilities in
**     descending order, as numpy's cumsum over a float32 array is; ties are
**     interchangeable there (equal values), so any descending order gives the
**     reference's numbers;
**   - the order is produced by an LSD radix sort on the float bit patterns
**     (non-negative floats sort like their bits), linear in n_vocab.
*/
#include "sampler.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Float lanes of torch's vectorised softmax sum (AVX2: 8 floats). */
#define SAMP_LANES 8
/* Probability buckets for the top-p prefilter: the top 12 bits of a
** non-negative float (8 exponent + 3 mantissa bits) -- 2048 buckets. */
#define SAMP_BUCKET_BITS 12
/* How far above top_p the candidates' exact mass must reach: float32
** cumsum drift over 65536 terms is ~1e-4 (fixtures: world65536). */
#define SAMP_TOPP_MARGIN 1e-2

struct samp {
    size_t    n;          /* n_vocab */
    /* penalties */
    double   *count;      /* (n) occurrence counts, valid where present[] */
    uint8_t  *present;    /* (n) 1 if the id is in the demo's dict */
    int32_t  *touched;    /* (n) ids present, first-seen order */
    size_t    n_touched;
    int32_t  *banned;     /* (n) ids never to sample, n_banned of them */
    size_t    n_banned;
    uint8_t  *is_banned;  /* (n) 1 for the ids in banned[] */
    /* distribution workspace */
    float    *p;          /* (n) softmax probabilities */
    float    *dist;       /* (n) final distribution for samp_sample */
    uint32_t *key, *key2; /* (n) radix sort keys */
    uint32_t *ord, *ord2; /* (n) ids in descending probability */
    size_t    n_kept;     /* ord[0..n_kept) is the support of the last distribution */
    double    bucket_sum[1 << SAMP_BUCKET_BITS];   /* top-p prefilter */
};

int
samp_create(size_t n_vocab, samp **out, rwkv_err *err)
{
    samp *s;

    *out = NULL;
    if (n_vocab == 0 || n_vocab > SAMP_MAX_VOCAB)
        return rwkv_errf(err, RWKV_EINVAL, "sampler: vocabulary of %zu tokens (expected 1..%u)",
                         n_vocab, SAMP_MAX_VOCAB);
    s = calloc(1, sizeof *s);
    if (s == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "sampler: out of memory");
    s->n = n_vocab;
    s->count = calloc(n_vocab, sizeof *s->count);
    s->present = calloc(n_vocab, 1);
    s->touched = calloc(n_vocab, sizeof *s->touched);
    s->banned = calloc(n_vocab, sizeof *s->banned);
    s->is_banned = calloc(n_vocab, 1);
    s->p = calloc(n_vocab, sizeof *s->p);
    s->dist = calloc(n_vocab, sizeof *s->dist);
    s->key = calloc(n_vocab, sizeof *s->key);
    s->key2 = calloc(n_vocab, sizeof *s->key2);
    s->ord = calloc(n_vocab, sizeof *s->ord);
    s->ord2 = calloc(n_vocab, sizeof *s->ord2);
    if (!s->count || !s->present || !s->touched || !s->banned || !s->is_banned || !s->p || !s->dist ||
        !s->key || !s->key2 || !s->ord || !s->ord2) {
        samp_destroy(s);
        return rwkv_errf(err, RWKV_ENOMEM, "sampler: out of memory for %zu tokens", n_vocab);
    }
    *out = s;
    return RWKV_OK;
}

void
samp_destroy(samp *s)
{
    if (s == NULL)
        return;
    free(s->count);
    free(s->present);
    free(s->touched);
    free(s->banned);
    free(s->is_banned);
    free(s->p);
    free(s->dist);
    free(s->key);
    free(s->key2);
    free(s->ord);
    free(s->ord2);
    free(s);
}

size_t
samp_n_vocab(const samp *s)
{
    return s->n;
}

int
samp_set_banned(samp *s, const int32_t *ids, size_t n, rwkv_err *err)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] < 0 || (size_t)ids[i] >= s->n)
            return rwkv_errf(err, RWKV_EINVAL, "banned token id %ld is outside the vocabulary (0..%zu)",
                             (long)ids[i], s->n - 1);
    for (size_t i = 0; i < s->n_banned; i++)
        s->is_banned[s->banned[i]] = 0;
    s->n_banned = 0;
    for (size_t i = 0; i < n; i++)
        if (!s->is_banned[ids[i]]) {    /* duplicates once: the list fits in n_vocab */
            s->is_banned[ids[i]] = 1;
            s->banned[s->n_banned++] = ids[i];
        }
    return RWKV_OK;
}

void
samp_reset_penalties(samp *s)
{
    for (size_t i = 0; i < s->n_touched; i++) {
        s->count[s->touched[i]] = 0;
        s->present[s->touched[i]] = 0;
    }
    s->n_touched = 0;
}

void
samp_apply_penalties(const samp *s, float *logits, double presence, double frequency)
{
    for (size_t i = 0; i < s->n_touched; i++) {
        int32_t id = s->touched[i];
        float pen = (float)(presence + s->count[id] * frequency);
        logits[id] = logits[id] - pen;
    }
    logits[0] = logits[0] - (float)SAMP_EOT_PENALTY;
    for (size_t i = 0; i < s->n_banned; i++)
        logits[s->banned[i]] = -INFINITY;
}

void
samp_update_penalties(samp *s, int32_t token, double decay)
{
    for (size_t i = 0; i < s->n_touched; i++)
        s->count[s->touched[i]] *= decay;
    if (token < 0 || (size_t)token >= s->n)
        return;
    if (!s->present[token]) {
        s->present[token] = 1;
        s->count[token] = 0;
        s->touched[s->n_touched++] = token;
    }
    s->count[token] += 1;
}

double
samp_occurrence(const samp *s, int32_t id, int *present)
{
    int in = id >= 0 && (size_t)id < s->n && s->present[id];

    if (present)
        *present = in;
    return in ? s->count[id] : 0.0;
}

const int32_t *
samp_touched(const samp *s, size_t *n)
{
    *n = s->n_touched;
    return s->touched;
}

/*
** Sort the M ids in s->ord[0..M) by s->p descending (stable: ties keep
** their order) with an LSD radix sort on the float bits.
*/
static void
sort_desc(samp *s, size_t m)
{
    uint32_t *key = s->key, *key2 = s->key2, *ord = s->ord, *ord2 = s->ord2;

    for (size_t i = 0; i < m; i++) {
        uint32_t b;
        memcpy(&b, &s->p[ord[i]], sizeof b);
        key[i] = ~b;        /* p >= 0: bits ascend with p; invert for descending */
    }
    for (int shift = 0; shift < 32 && m > 1; shift += 8) {
        size_t cnt[257] = { 0 };
        uint32_t *t;
        for (size_t i = 0; i < m; i++)
            cnt[((key[i] >> shift) & 0xff) + 1]++;
        if (cnt[((key[0] >> shift) & 0xff) + 1] == m)
            continue;       /* every key has this digit: the pass is a no-op */
        for (int d = 0; d < 256; d++)
            cnt[d + 1] += cnt[d];
        for (size_t i = 0; i < m; i++) {
            size_t at = cnt[(key[i] >> shift) & 0xff]++;
            key2[at] = key[i];
            ord2[at] = ord[i];
        }
        t = key; key = key2; key2 = t;
        t = ord; ord = ord2; ord2 = t;
    }
    /* Keep the sorted arrays in s->key / s->ord whichever buffer they ended in. */
    s->key = key; s->key2 = key2;
    s->ord = ord; s->ord2 = ord2;
}

/*
** Put in s->ord[0..return) the ids that can matter for a top-p of TP: all
** ids in the highest probability buckets (top SAMP_BUCKET_BITS of the float
** bits) whose exact sum reaches TP + SAMP_TOPP_MARGIN.  Every candidate is
** >= every other id, so the sorted candidates are the sorted prefix of the
** whole vocabulary.  Returns n (everything) when the margin can't be met.
*/
static size_t
candidates(samp *s, float tp)
{
    size_t n = s->n, m = 0;
    double need = (double)tp + SAMP_TOPP_MARGIN, acc = 0;
    int stop = -1;

    if (need >= 1.0)
        goto all;
    memset(s->bucket_sum, 0, sizeof s->bucket_sum);
    for (size_t i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, &s->p[i], sizeof b);
        s->bucket_sum[b >> (32 - SAMP_BUCKET_BITS)] += s->p[i];
    }
    for (int k = (1 << SAMP_BUCKET_BITS) - 1; k >= 0; k--) {
        acc += s->bucket_sum[k];
        if (acc >= need) {
            stop = k;
            break;
        }
    }
    if (stop < 0)
        goto all;
    for (size_t i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, &s->p[i], sizeof b);
        if ((int)(b >> (32 - SAMP_BUCKET_BITS)) >= stop)
            s->ord[m++] = (uint32_t)i;
    }
    return m;
all:
    for (size_t i = 0; i < n; i++)
        s->ord[i] = (uint32_t)i;
    return n;
}

/* Fill s->dist and s->ord[0..n_kept); returns n_kept (0: nothing drawable). */
static size_t
distribution(samp *s, const float *logits, double temperature, double top_p, int top_k)
{
    size_t n = s->n, idx, kept, m;
    float mx = -INFINITY, cutoff, c, tp;
    int found;
    double sum = 0;

    if (temperature == 0) {
        temperature = 1.0;
        top_p = 0;
    }
    for (size_t i = 0; i < n; i++)
        if (logits[i] > mx)
            mx = logits[i];
    memset(s->dist, 0, n * sizeof *s->dist);
    s->n_kept = 0;
    if (!(mx > -INFINITY) || isinf(mx))
        return 0;
    /*
    ** float32 softmax, summed the way torch's CPU kernel does (8 float
    ** lanes, the tail added into the first lanes, then a pairwise tree over
    ** the lanes; p = e * (1/sum)): the top_p = 1.0 cases hinge on the last
    ** bit of the cumsum, and this reproduces the fixtures' cumsum totals.
    */
    {
        float acc[SAMP_LANES] = { 0 }, inv;
        size_t full = n - n % SAMP_LANES;
        for (size_t i = 0; i < n; i++)
            s->p[i] = logits[i] == logits[i] ? expf(logits[i] - mx) : 0.0f;  /* NaN -> 0 */
        for (size_t i = 0; i < full; i += SAMP_LANES)
            for (int l = 0; l < SAMP_LANES; l++)
                acc[l] += s->p[i + l];
        for (size_t i = full; i < n; i++)
            acc[i - full] += s->p[i];
        for (int h = SAMP_LANES / 2; h >= 1; h /= 2)
            for (int l = 0; l < h; l++)
                acc[l] += acc[l + h];
        inv = 1.0f / acc[0];
        for (size_t i = 0; i < n; i++)
            s->p[i] *= inv;
    }
    /* top-p: first index whose float32 cumsum reaches top_p, else index 0 */
    tp = (float)top_p;
    m = candidates(s, tp);
    for (int pass = 0; pass < 2; pass++) {
        sort_desc(s, m);
        found = 0;
        idx = 0;
        c = 0;
        for (size_t k = 0; k < m; k++) {
            c += s->p[s->ord[k]];
            if (c >= tp) {
                idx = k;
                found = 1;
                break;
            }
        }
        if (found || m == n)
            break;
        /* float32 drift kept the cumsum under top_p within the candidates
        ** (practically never): decide on the whole vocabulary */
        for (size_t i = 0; i < n; i++)
            s->ord[i] = (uint32_t)i;
        m = n;
    }
    cutoff = s->p[s->ord[idx]];
    kept = idx + 1;
    while (kept < m && s->p[s->ord[kept]] >= cutoff)   /* ties with the cutoff */
        kept++;
    if (top_k > 0 && (size_t)top_k < n && (size_t)top_k < kept)
        kept = (size_t)top_k;
    /* temperature on the kept probabilities, then normalise */
    sum = 0;
    if (temperature != 1.0 && !(powf(s->p[s->ord[0]], (float)(1.0 / temperature)) >= FLT_MIN)) {
        /*
        ** A small temperature (0.0001: p ** 10000) takes even the largest
        ** p ** (1/T) under float32's range, and the reference's float32
        ** powers are all 0 (its numpy draw then fails on NaN): the same
        ** distribution, scaled by 1 / pmax ** (1/T) before the powers, so
        ** the largest is 1.  (Above FLT_MIN the reference's powers below
        ** are used unchanged: the fixtures' numbers.)
        */
        double ex = 1.0 / temperature, lmax = log((double)s->p[s->ord[0]]);
        for (size_t k = 0; k < kept; k++) {
            uint32_t id = s->ord[k];
            s->dist[id] = s->p[id] == s->p[s->ord[0]]
                              ? 1.0f
                              : (float)exp(ex * (log((double)s->p[id]) - lmax));
            sum += s->dist[id];
        }
    } else if (temperature != 1.0) {
        float ex = (float)(1.0 / temperature);
        for (size_t k = 0; k < kept; k++) {
            uint32_t id = s->ord[k];
            s->dist[id] = powf(s->p[id], ex);
            sum += s->dist[id];
        }
    } else {
        for (size_t k = 0; k < kept; k++) {
            uint32_t id = s->ord[k];
            s->dist[id] = s->p[id];
            sum += s->dist[id];
        }
    }
    if (!(sum > 0))
        return 0;
    {
        float fs = (float)sum;
        for (size_t k = 0; k < kept; k++)
            s->dist[s->ord[k]] /= fs;
    }
    s->n_kept = kept;
    return kept;
}

size_t
samp_argmax(const float *logits, size_t n)
{
    size_t best = 0;

    for (size_t i = 1; i < n; i++)
        if (logits[i] > logits[best])
            best = i;
    return best;
}

size_t
samp_distribution(samp *s, const float *logits, double temperature, double top_p,
                  int top_k, float *probs)
{
    size_t kept = distribution(s, logits, temperature, top_p, top_k);

    memcpy(probs, s->dist, s->n * sizeof *probs);
    return kept;
}

int32_t
samp_sample(samp *s, const float *logits, double temperature, double top_p, int top_k,
            rng *r)
{
    size_t kept = distribution(s, logits, temperature, top_p, top_k);
    double u = rng_uniform(r), total = 0, cum = 0, target;

    /* One uniform per token whatever happens, so the stream position is
    ** a function of the token count only (replay). */
    if (kept == 0)
        return -1;
    for (size_t k = 0; k < kept; k++)
        total += s->dist[s->ord[k]];
    target = u * total;
    for (size_t k = 0; k < kept; k++) {
        cum += s->dist[s->ord[k]];
        if (cum > target)
            return (int32_t)s->ord[k];
    }
    return (int32_t)s->ord[kept - 1];
}

double
samp_f2d(float f)
{
    char buf[48];

    if (!isfinite(f))
        return (double)f;
    for (int prec = 1; prec <= 9; prec++) {
        double d;
        snprintf(buf, sizeof buf, "%.*g", prec, (double)f);
        d = strtod(buf, NULL);
        if ((float)d == f)
            return d;
    }
    return (double)f;
}
