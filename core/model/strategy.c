/*
** strategy.c -- strategy string parsing (see strategy.h).
**
** The grammar is the pip package's, case and spacing included (its regex:
** "cpu fp32" is a strategy, "CPU FP32", "cpu-fp32" and "cpu  fp32" are
** not), so a string that works here works there.  A bad string is refused
** with what is wrong and where; when a lenient reading of it (any case,
** '-' '_' or several spaces between words, the quantisation as its own word,
** one typo in a device or dtype name) gives exactly one valid strategy, the
** message suggests it (strat_suggest).
*/
#include "strategy.h"

#include "backend.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char       *name;
    enum strat_device dev;
} strat_devices[] = {
    { "cuda", STRAT_CUDA }, { "cpu", STRAT_CPU }, { "mps", STRAT_MPS }, { "dml", STRAT_DML },
};

static const struct {
    const char      *name;
    enum strat_dtype dt;
} strat_dtypes[] = {
    { "fp16", STRAT_FP16 }, { "fp32", STRAT_FP32 }, { "bf16", STRAT_BF16 },
};

/* The quantisations a dtype can carry, "i" and one digit ("fp32i8"). */
#define STRAT_QUANT_DIGITS "843"

/* Longest word of a strategy the suggestion reads ("bfloat16", "cuda:12"). */
#define STRAT_WORD_MAX 16

/* Other names for a device or a dtype that users write, and what the
** reference calls them. */
static const struct {
    const char *alias, *name;
} strat_aliases[] = {
    { "gpu", "cuda" },     { "float32", "fp32" }, { "f32", "fp32" },
    { "float16", "fp16" }, { "f16", "fp16" },     { "half", "fp16" },
    { "bfloat16", "bf16" },
};

static int strat_parse_as(const char *s, strat *out, rwkv_err *err, int suggest);

/*
** Edit distance between A and B (at most STRAT_WORD_MAX bytes each),
** counting a swap of two neighbours as one edit ("fp23" -> "fp32": 1).
*/
static int
strat_dist(const char *a, const char *b)
{
    int d[STRAT_WORD_MAX + 1][STRAT_WORD_MAX + 1];
    int na = (int)strlen(a), nb = (int)strlen(b);

    for (int i = 0; i <= na; i++)
        d[i][0] = i;
    for (int j = 0; j <= nb; j++)
        d[0][j] = j;
    for (int i = 1; i <= na; i++)
        for (int j = 1; j <= nb; j++) {
            int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[na][nb];
}

/*
** The one name of NAMES (N of them) that W is an alias of, or is one typo
** away from (or is); NULL when none is, or when two are equally near (no
** guess between them).
*/
static const char *
strat_closest(const char *w, const char *const *names, size_t n)
{
    const char *best = NULL;
    int best_d = 2, tie = 0;

    for (size_t k = 0; k < sizeof strat_aliases / sizeof strat_aliases[0]; k++)
        if (strcmp(w, strat_aliases[k].alias) == 0)
            for (size_t i = 0; i < n; i++)
                if (strcmp(strat_aliases[k].name, names[i]) == 0)
                    return names[i];
    for (size_t i = 0; i < n; i++) {
        int d = strat_dist(w, names[i]);
        if (d < best_d) {
            best = names[i];
            best_d = d;
            tie = 0;
        } else if (d == best_d) {
            tie = 1;
        }
    }
    return tie ? NULL : best;
}

/*
** One stage of a strategy read leniently: WORDS (N lower-case words, split
** at spaces, '-', '_' and ',') as "device[:K] dtype[quant] [*N[+]]" into
** OUT (capacity CAP).  0, or -1 when it cannot be read so.
*/
static int
strat_fix_stage(char words[][STRAT_WORD_MAX + 1], int n, char *out, size_t cap)
{
    enum { NDEV = sizeof strat_devices / sizeof strat_devices[0],
           NDT = sizeof strat_dtypes / sizeof strat_dtypes[0] };
    const char *devs[NDEV], *dts[NDT];   /* the parser's names */
    char dev[STRAT_WORD_MAX + 1], dt[STRAT_WORD_MAX + 1], quant[3] = "", layers[24] = "";
    const char *d, *t, *colon;
    int w = 2;
    size_t len;

    if (n < 2)
        return -1;
    for (size_t i = 0; i < NDEV; i++)
        devs[i] = strat_devices[i].name;
    for (size_t i = 0; i < NDT; i++)
        dts[i] = strat_dtypes[i].name;
    /* the device, with cuda's ":K" */
    memcpy(dev, words[0], sizeof dev);
    if ((colon = strchr(dev, ':')) != NULL)
        dev[colon - dev] = '\0';
    if ((d = strat_closest(dev, devs, NDEV)) == NULL ||
        (colon != NULL && (strcmp(d, "cuda") != 0 || strspn(words[0] + (colon - dev) + 1,
                                                                 "0123456789") == 0)))
        return -1;
    /* the dtype, its quantisation glued on ("fp32i8") or as the next word */
    memcpy(dt, words[1], sizeof dt);
    len = strlen(dt);
    if (len > 2 && dt[len - 2] == 'i' && strchr(STRAT_QUANT_DIGITS, dt[len - 1]) != NULL) {
        snprintf(quant, sizeof quant, "%s", dt + len - 2);
        dt[len - 2] = '\0';
    }
    if ((t = strat_closest(dt, dts, NDT)) == NULL)
        return -1;
    if (quant[0] == '\0' && w < n && words[w][0] == 'i' && words[w][1] != '\0' &&
        strchr(STRAT_QUANT_DIGITS, words[w][1]) != NULL && words[w][2] == '\0')
        snprintf(quant, sizeof quant, "%s", words[w++]);
    /* the layer count: "*N", "*N+", or "*" and "N" apart */
    if (w < n && words[w][0] == '*') {
        const char *num = words[w][1] != '\0' ? words[w] + 1 : w + 1 < n ? words[++w] : "";
        size_t k = strspn(num, "0123456789");
        if (k == 0 || (num[k] != '\0' && strcmp(num + k, "+") != 0))
            return -1;
        snprintf(layers, sizeof layers, " *%s", num);
        w++;
    }
    if (w != n)
        return -1;
    if (colon != NULL)
        len = (size_t)snprintf(out, cap, "%s%s %s%s%s", d, words[0] + (colon - dev), t, quant,
                               layers);
    else
        len = (size_t)snprintf(out, cap, "%s %s%s%s", d, t, quant, layers);
    return len < cap ? 0 : -1;
}

/*
** A valid strategy that S (not valid) most likely meant, into OUT
** (capacity CAP): every stage read by strat_fix_stage.  0, or -1 when there
** is none to suggest.
*/
static int
strat_suggest(const char *s, char *out, size_t cap)
{
    char words[8][STRAT_WORD_MAX + 1];
    size_t len = 0;
    strat tmp;
    rwkv_err e;

    out[0] = '\0';
    for (const char *a = s;;) {
        const char *b = strstr(a, "->"), *q;
        char stage[96];
        int n = 0;

        if (b == NULL)
            b = a + strlen(a);
        /* the stage's words, lower case */
        for (q = a; q < b;) {
            size_t k = 0;
            while (q < b && strchr(" \t-_,", *q) != NULL)
                q++;
            if (q == b)
                break;
            if (n == 8)
                return -1;
            while (q < b && strchr(" \t-_,", *q) == NULL) {
                if (k == STRAT_WORD_MAX)
                    return -1;
                words[n][k++] = (char)tolower((unsigned char)*q++);
            }
            words[n++][k] = '\0';
        }
        if (strat_fix_stage(words, n, stage, sizeof stage) != 0)
            return -1;
        len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? " -> " : "", stage);
        if (len >= cap)
            return -1;
        if (*b == '\0')
            break;
        a = b + 2;
    }
    if (strcmp(out, s) == 0 || strat_parse_as(out, &tmp, &e, 0) != RWKV_OK)
        return -1;
    return 0;
}

/*
** The refusal of S: WHAT went wrong at P, naming the word found there when
** WORD is set (and the valid ones, LIST, when not NULL); then the
** suggestion when SUGGEST and there is one, else an example.
*/
static int
strat_bad(rwkv_err *err, const char *s, const char *p, const char *what, int word,
          const char *list, int suggest)
{
    char fix[128], found[STRAT_WORD_MAX + 8] = "";
    size_t k = strcspn(p, " -");

    if (word && k > 0)
        snprintf(found, sizeof found, " '%.*s'", (int)(k > STRAT_WORD_MAX ? STRAT_WORD_MAX : k),
                 p);
    if (suggest && strat_suggest(s, fix, sizeof fix) == 0)
        return rwkv_errf(err, RWKV_EINVAL,
                         "invalid strategy '%s': %s%s at position %d%s%s%s; did you mean '%s'?",
                         s, what, found, (int)(p - s) + 1, list ? " (" : "", list ? list : "",
                         list ? ")" : "", fix);
    return rwkv_errf(err, RWKV_EINVAL,
                     "invalid strategy '%s': %s%s at position %d%s%s%s (expected e.g. 'cpu fp32' "
                     "or 'cuda fp16 *10 -> cpu fp32')",
                     s, what, found, (int)(p - s) + 1, list ? " (" : "", list ? list : "",
                     list ? ")" : "");
}

/*
** The dtypes the parser takes, as a refusal lists them, made from its own
** tables (strat_dtypes, STRAT_QUANT_DIGITS) into BUF (capacity CAP):
** "fp16, fp32, bf16, or one of them with i8, i4 or i3 glued on, as fp16i8".
** Returns BUF.
*/
static const char *
strat_dtype_list(char *buf, size_t cap)
{
    enum { NDT = sizeof strat_dtypes / sizeof strat_dtypes[0],
           NQ = sizeof STRAT_QUANT_DIGITS - 1 };
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < NDT && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "",
                                strat_dtypes[i].name);
    for (size_t q = 0; q < NQ && len < cap; q++)
        len += (size_t)snprintf(buf + len, cap - len, "%si%c",
                                q == 0 ? ", or one of them with " : q + 1 < NQ ? ", " : " or ",
                                STRAT_QUANT_DIGITS[q]);
    if (len < cap)
        snprintf(buf + len, cap - len, " glued on, as %si%c", strat_dtypes[0].name,
                 STRAT_QUANT_DIGITS[0]);
    return buf;
}

/* Parse a run of digits at *P into *OUT (clamped); 0 if none. */
static int
strat_digits(const char **p, int *out)
{
    long v = 0;
    const char *q = *p;

    if (!isdigit((unsigned char)*q))
        return 0;
    while (isdigit((unsigned char)*q)) {
        if (v < 1000000)
            v = v * 10 + (*q - '0');
        q++;
    }
    *p = q;
    *out = (int)v;
    return 1;
}

int
strat_parse(const char *s, strat *out, rwkv_err *err)
{
    return strat_parse_as(s, out, err, 1);
}

/* strat_parse; SUGGEST 0: no suggestion is looked for (strat_suggest's own
** check of what it would suggest). */
static int
strat_parse_as(const char *s, strat *out, rwkv_err *err, int suggest)
{
    const char *p = s;
    size_t len;

    memset(out, 0, sizeof *out);
    if (s == NULL || *s == '\0')
        return rwkv_errf(err, RWKV_EINVAL, "invalid strategy '': empty (expected e.g. 'cpu fp32')");
    for (;;) {
        strat_stage *st;
        const char *dev;
        size_t k, n;

        if (out->n_stages == STRAT_MAX_STAGES)
            return strat_bad(err, s, p, "too many stages", 0, NULL, suggest);
        st = &out->stages[out->n_stages];
        st->n_layers = -1;
        while (*p == ' ')
            p++;
        for (k = 0; k < sizeof strat_devices / sizeof strat_devices[0]; k++) {
            n = strlen(strat_devices[k].name);
            if (strncmp(p, strat_devices[k].name, n) == 0)
                break;
        }
        if (k == sizeof strat_devices / sizeof strat_devices[0])
            return strat_bad(err, s, p, "unknown device", 1,
                              "cpu, cuda, cuda:N, mps, dml", suggest);
        st->device = strat_devices[k].dev;
        dev = p;
        p += n;
        if (st->device == STRAT_CUDA && *p == ':') {
            p++;
            if (!strat_digits(&p, &st->device_index))
                return strat_bad(err, s, p, "device number expected after 'cuda:'", 0, NULL,
                                  suggest);
        }
        /* "cpu" alone, "cpu -> ...": the dtype left out; "cpu:0", "cpus": a
        ** word that only starts with a device's name */
        if (*p == '\0' || (p[0] == '-' && p[1] == '>'))
            return strat_bad(err, s, p, "dtype expected after the device", 0, NULL, suggest);
        if (isalnum((unsigned char)*p) || *p == ':')
            return strat_bad(err, s, dev, "unknown device", 1, "cpu, cuda, cuda:N, mps, dml",
                             suggest);
        if (*p != ' ')
            return strat_bad(err, s, p, "one space expected after the device", 0, NULL,
                             suggest);
        p++;
        if (*p == '\0' || (p[0] == '-' && p[1] == '>'))
            return strat_bad(err, s, p, "dtype expected after the device", 0, NULL, suggest);
        for (k = 0; k < sizeof strat_dtypes / sizeof strat_dtypes[0]; k++) {
            n = strlen(strat_dtypes[k].name);
            if (strncmp(p, strat_dtypes[k].name, n) == 0)
                break;
        }
        if (k == sizeof strat_dtypes / sizeof strat_dtypes[0]) {
            char dts[96];
            return strat_bad(err, s, p, "unknown dtype", 1, strat_dtype_list(dts, sizeof dts),
                             suggest);
        }
        st->dtype = strat_dtypes[k].dt;
        p += n;
        if (p[0] == 'i' && p[1] != '\0' && strchr(STRAT_QUANT_DIGITS, p[1]) != NULL) {
            st->quant = p[1] - '0';
            p += 2;
        }
        if (p[0] == ' ' && p[1] == '*') {
            p += 2;
            if (!strat_digits(&p, &st->n_layers))
                return strat_bad(err, s, p, "layer count expected after '*'", 0, NULL,
                                 suggest);
            if (*p == '+') {
                st->stream = 1;
                p++;
            }
        }
        while (*p == ' ')
            p++;
        out->n_stages++;
        if (*p == '\0')
            break;
        if (p[0] != '-' || p[1] != '>')
            return strat_bad(err, s, p, "'->' or end expected", 0, NULL, suggest);
        p += 2;
    }

    /* Normalised form: each stage stripped, joined by " -> ". */
    out->normalised[0] = '\0';
    len = 0;
    for (const char *a = s; *a != '\0';) {
        const char *b = strstr(a, "->"), *e;
        if (b == NULL)
            b = a + strlen(a);
        while (a < b && *a == ' ')
            a++;
        e = b;
        while (e > a && e[-1] == ' ')
            e--;
        len += (size_t)snprintf(out->normalised + len, sizeof out->normalised - len,
                                "%s%.*s", len ? " -> " : "", (int)(e - a), a);
        if (len >= sizeof out->normalised)
            return rwkv_errf(err, RWKV_EINVAL, "invalid strategy '%s': too long", s);
        a = *b ? b + 2 : b;
    }
    return RWKV_OK;
}

int
strat_check(const char *s, int v7, strat *out, rwkv_err *err)
{
    int rc = strat_parse(s, out, err);

    (void)v7;
    if (rc != RWKV_OK)
        return rc;
    if (strat_has_device(out)) {
        const rwkv_backend *b = rwkv_backend_get();
        if (b == NULL)
            return rwkv_errf(err, RWKV_ENOTSUP,
#if defined(RWKV_CUDA_BUILD)
                             "strategy '%s': cuda layers are not supported yet by this program "
                             "(built with CUDA, but the CUDA backend was not registered: call "
                             "gpu_backend_register())", s);
#else
                             "strategy '%s': this rwkv-tui was built without CUDA", s);
#endif
        if ((rc = b->check(out, err)) != RWKV_OK)
            return rc;
    }
    /* cuda stages passed the backend's check above; mps and dml have none */
    for (int i = 0; i < out->n_stages; i++) {
        const strat_stage *st = &out->stages[i];
        if (st->device == STRAT_MPS || st->device == STRAT_DML)
            return rwkv_errf(err, RWKV_ENOTSUP,
                             "strategy '%s': device '%s' (stage %d) is not supported (only cpu "
                             "and, in a CUDA build, cuda)", s,
                             st->device == STRAT_MPS ? "mps" : "dml", i + 1);
    }
    return RWKV_OK;
}

void
strat_plan(const strat *s, int n_layer, int *slot_stage)
{
    int plan[STRAT_MAX_STAGES] = { 0 };
    int n = s->n_stages, stream_i = -1, to_alloc = n_layer + 1, alloc = 0, free_slots = 0;

    for (int i = 0; i < n; i++) {
        const strat_stage *st = &s->stages[i];
        if (st->n_layers >= 0) {
            plan[i] = st->n_layers;
            if (st->stream)
                stream_i = i;
            alloc += plan[i];
            if (alloc >= to_alloc) {
                plan[i] += to_alloc - alloc;
                break;
            }
        } else {
            free_slots++;
        }
    }
    if (stream_i < 0) {
        /* the stages without *N share the rest.  The reference tests
        ** plan[i] == 0, so a "*0" stage took a share and the last stage
        ** without *N divided by zero (a ZeroDivisionError there); in every
        ** plan it completes, the two tests pick the same stages */
        if (free_slots > 0 && to_alloc > alloc)
            for (int i = 0; i < n; i++)
                if (plan[i] == 0 && s->stages[i].n_layers < 0) {
                    plan[i] = (to_alloc - alloc) / free_slots;
                    alloc += plan[i];
                    free_slots--;
                }
        if (to_alloc > alloc)
            plan[n - 1] += to_alloc - alloc;
    } else if (to_alloc > alloc) {
        plan[stream_i] += to_alloc - alloc;
    }
    for (int i = 1; i < n; i++)
        plan[i] += plan[i - 1];
    for (int l = 0; l <= n_layer; l++) {
        slot_stage[l] = n - 1;
        for (int i = 0; i < n; i++)
            if (l < plan[i]) {
                slot_stage[l] = i;
                break;
            }
    }
}

void
strat_streamed(const strat *s, int n_layer, const int *slot_stage, int *streamed)
{
    int seen[STRAT_MAX_STAGES] = { 0 };

    for (int l = 0; l <= n_layer; l++) {
        const strat_stage *st = &s->stages[slot_stage[l]];
        int k = seen[slot_stage[l]]++;
        streamed[l] = l < n_layer && st->stream && k >= st->n_layers;
    }
}

/* Append the printf-style text to BUF (CAP) at *LEN, never past its end. */
static void strat_put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static void
strat_put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (*len >= cap)
        return;
    va_start(ap, fmt);
    k = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    *len = k < 0 ? cap : *len + (size_t)k;
}

int
strat_split(const strat *s, int n_layer, char *buf, size_t cap)
{
    int *stage, empty = 0;
    size_t len = 0;
    const char *a = s->normalised;

    if (cap > 0)
        buf[0] = '\0';
    if (n_layer < 0 || s->n_stages < 1 ||
        (stage = malloc(((size_t)n_layer + 1) * sizeof *stage)) == NULL)
        return 0;
    strat_plan(s, n_layer, stage);
    for (int i = 0; i < s->n_stages; i++) {
        const char *b = strstr(a, " -> ");
        size_t k = b != NULL ? (size_t)(b - a) : strlen(a);
        int lo = -1, hi = -1;
        for (int l = 0; l <= n_layer; l++)
            if (stage[l] == i) {
                if (lo < 0)
                    lo = l;
                hi = l;
            }
        strat_put(buf, cap, &len, "%s%.*s: ", i ? "; " : "", (int)k, a);
        if (lo < 0) {
            empty += s->stages[i].n_layers != 0;    /* "*0" asked for none */
            strat_put(buf, cap, &len, "no layers");
        } else if (lo == n_layer) {
            strat_put(buf, cap, &len, "the head");
        } else {
            int last = hi < n_layer ? hi : n_layer - 1;
            if (lo == last)
                strat_put(buf, cap, &len, "layer %d", lo);
            else
                strat_put(buf, cap, &len, "layers %d-%d", lo, last);
            if (hi == n_layer)
                strat_put(buf, cap, &len, " and the head");
        }
        a = b != NULL ? b + 4 : a + k;
    }
    free(stage);
    return empty;
}
