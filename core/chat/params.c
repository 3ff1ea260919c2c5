/*
** params.c -- the sampling parameter table and its accessors.  See params.h.
*/
#include "params.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OFF(f) offsetof(rwkv_sampling, f)

const params_entry params_table[] = {
    { "temperature", "temperature", PARAMS_FLOAT, OFF(temperature), 0.0, 5.0, 0.1, 1.0,
      "sampling temperature (0 = greedy)" },
    { "top_p", "top-p", PARAMS_FLOAT, OFF(top_p), 0.0, 1.0, 0.05, 0.3,
      "nucleus sampling: the likeliest tokens up to this mass (pip rule: 1 keeps the top "
      "one alone, 0.99 is wide)" },
    { "top_k", "top-k", PARAMS_INT, OFF(top_k), 0, 65536, 1, 0,
      "keep only the K most likely tokens (0 = off)" },
    { "presence", "presence", PARAMS_FLOAT, OFF(presence), -5.0, 5.0, 0.1, 0.5,
      "presence penalty for tokens already generated in this reply" },
    { "frequency", "frequency", PARAMS_FLOAT, OFF(frequency), -5.0, 5.0, 0.1, 0.5,
      "frequency penalty per (decayed) occurrence in this reply" },
    { "decay", "decay", PARAMS_FLOAT, OFF(decay), 0.0, 1.0, 0.001, 0.996,
      "per-token decay of the penalty counts" },
    { "max_tokens", "max-tokens", PARAMS_INT, OFF(max_tokens), 1, 1000000, 50, 1000,
      "longest reply in tokens" },
    { "chunk", "chunk", PARAMS_INT, OFF(chunk), 1, 65536, 16, 256,
      "prefill chunk length in tokens" },
    { "seed", "seed", PARAMS_U64, OFF(seed), 0, 18446744073709551615.0, 1, 0,
      "random seed (a random one is chosen and shown when unset)" },
    { NULL, NULL, PARAMS_FLOAT, 0, 0, 0, 0, 0, NULL },
};

void
params_defaults(rwkv_sampling *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; params_table[i].name != NULL; i++) {
        const params_entry *e = &params_table[i];
        char *p = (char *)s + e->offset;
        switch (e->type) {
        case PARAMS_FLOAT: *(float *)(void *)p = (float)e->def; break;
        case PARAMS_INT: *(int *)(void *)p = (int)e->def; break;
        case PARAMS_U64: *(uint64_t *)(void *)p = (uint64_t)e->def; break;
        }
    }
}

int
params_find(const char *name)
{
    for (int i = 0; params_table[i].name != NULL; i++)
        if (strcmp(params_table[i].name, name) == 0 || strcmp(params_table[i].cli, name) == 0)
            return i;
    return -1;
}

int
params_int_check(const char *text, size_t len, long long min, unsigned long long max,
                 unsigned long long *mag, int *neg)
{
    int minus = len > 0 && text[0] == '-';
    size_t k = (size_t)minus;
    unsigned long long m = 0;
    int big = 0;

    /* digits alone: strtoll/strtod would also take " 5", "+5", "5.", "1e1"
    ** or "0x10", each read its own way somewhere -- one spelling for every
    ** integer, whatever reads it afterwards */
    if (k == len)
        return PARAMS_INT_NOT;
    for (; k < len; k++) {
        unsigned dig = (unsigned)(text[k] - '0');
        if (text[k] < '0' || text[k] > '9')
            return PARAMS_INT_NOT;
        if (m > (ULLONG_MAX - dig) / 10)
            big = 1;                 /* digits still checked to the end */
        else
            m = m * 10 + dig;
    }
    if (minus && m == 0 && !big)
        return PARAMS_INT_NOT;       /* "-0": 0 is written "0" */
    if (big)
        return PARAMS_INT_RANGE;
    if (minus ? min >= 0 || m > (unsigned long long)(-(min + 1)) + 1   /* -M < MIN */
              : m > max || (min > 0 && m < (unsigned long long)min))
        return PARAMS_INT_RANGE;
    if (mag)
        *mag = m;
    if (neg)
        *neg = minus;
    return PARAMS_INT_OK;
}

/* An integer entry (PARAMS_INT, PARAMS_U64) of TEXT, blanks around it
** allowed (a prompt typed by hand), by params_int_check's rule. */
static int
set_int(rwkv_sampling *s, const params_entry *e, const char *text, rwkv_err *err)
{
    char *p = (char *)s + e->offset;
    size_t len = strlen(text);
    /* the table's max as an integer: the seed's 2^64 - 1 is no double */
    unsigned long long max = e->type == PARAMS_U64 ? UINT64_MAX : (unsigned long long)e->max;
    unsigned long long mag;
    int neg;

    while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\t'))
        len--;
    switch (params_int_check(text, len, (long long)e->min, max, &mag, &neg)) {
    case PARAMS_INT_OK: break;
    case PARAMS_INT_RANGE:
        return rwkv_errf(err, RWKV_EINVAL, "%s: %.*s is out of range [%lld, %llu]", e->cli,
                         (int)len, text, (long long)e->min, max);
    default:
        return rwkv_errf(err, RWKV_EINVAL,
                         "%s: '%.*s' is not an integer (digits alone: no sign, point or exponent)",
                         e->cli, (int)len, text);
    }
    if (e->type == PARAMS_U64)
        *(uint64_t *)(void *)p = (uint64_t)mag;
    else
        *(int *)(void *)p = neg ? -(int)mag : (int)mag;   /* in the table's int range */
    return RWKV_OK;
}

int
params_set(rwkv_sampling *s, int i, const char *text, rwkv_err *err)
{
    const params_entry *e = &params_table[i];
    char *p = (char *)s + e->offset;
    char *end;

    errno = 0;
    /* blanks around a number are fine, as in a prompt typed by hand */
    while (*text == ' ' || *text == '\t')
        text++;
    if (e->type != PARAMS_FLOAT)
        return set_int(s, e, text, err);
    /* decimal only (strtod would take "0x10" and "0x1p3"); -0 is 0 */
    double v = strtod(text, &end);
    while (*end == ' ' || *end == '\t')
        end++;
    if (errno != 0 || end == text || *end != '\0' || !isfinite(v) || strpbrk(text, "xX") != NULL)
        return rwkv_errf(err, RWKV_EINVAL, "%s: '%s' is not a number", e->cli, text);
    if (v == 0)
        v = 0;                       /* not -0 */
    if (v < e->min || v > e->max)
        return rwkv_errf(err, RWKV_EINVAL, "%s: %s is out of range [%.10g, %.10g]", e->cli, text,
                         e->min, e->max);
    *(float *)(void *)p = (float)v;
    return RWKV_OK;
}

double
params_get(const rwkv_sampling *s, int i)
{
    const params_entry *e = &params_table[i];
    const char *p = (const char *)s + e->offset;

    switch (e->type) {
    case PARAMS_FLOAT: return *(const float *)(const void *)p;
    case PARAMS_INT: return *(const int *)(const void *)p;
    case PARAMS_U64: return (double)*(const uint64_t *)(const void *)p;
    }
    return 0;
}

void
params_copy(rwkv_sampling *dst, const rwkv_sampling *src, int i)
{
    const params_entry *e = &params_table[i];
    size_t sz = e->type == PARAMS_U64 ? sizeof(uint64_t)
              : e->type == PARAMS_INT ? sizeof(int) : sizeof(float);

    memcpy((char *)dst + e->offset, (const char *)src + e->offset, sz);
}

void
params_format(const rwkv_sampling *s, int i, char *buf, size_t cap)
{
    const params_entry *e = &params_table[i];
    const char *p = (const char *)s + e->offset;

    switch (e->type) {
    case PARAMS_FLOAT: snprintf(buf, cap, "%g", (double)*(const float *)(const void *)p); break;
    case PARAMS_INT: snprintf(buf, cap, "%d", *(const int *)(const void *)p); break;
    case PARAMS_U64:
        snprintf(buf, cap, "%llu", (unsigned long long)*(const uint64_t *)(const void *)p);
        break;
    }
}

void
params_apply_state_defaults(rwkv_sampling *s, unsigned user_set)
{
    if (!(user_set & PARAMS_BIT(params_find("top_p"))))
        s->top_p = 0.2f;
    if (!(user_set & PARAMS_BIT(params_find("presence"))))
        s->presence = 0.3f;
    if (!(user_set & PARAMS_BIT(params_find("frequency"))))
        s->frequency = 0.3f;
}

void
params_apply_demo_defaults(rwkv_sampling *s, unsigned user_set)
{
    rwkv_sampling d;

    params_defaults(&d);
    if (!(user_set & PARAMS_BIT(params_find("top_p"))))
        s->top_p = d.top_p;
    if (!(user_set & PARAMS_BIT(params_find("presence"))))
        s->presence = d.presence;
    if (!(user_set & PARAMS_BIT(params_find("frequency"))))
        s->frequency = d.frequency;
}
