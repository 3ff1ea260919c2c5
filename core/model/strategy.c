/*
** strategy.c -- strategy string parsing (see strategy.h).
*/
#include "strategy.h"

#include "backend.h"

#include <ctype.h>
#include <stdio.h>
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

static int
strat_bad(rwkv_err *err, const char *s, const char *p, const char *what)
{
    return rwkv_errf(err, RWKV_EINVAL,
                     "invalid strategy '%s': %s at position %d (expected e.g. 'cpu fp32' "
                     "or 'cuda fp16 *10 -> cpu fp32')",
                     s, what, (int)(p - s) + 1);
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
    const char *p = s;
    size_t len;

    memset(out, 0, sizeof *out);
    if (s == NULL || *s == '\0')
        return rwkv_errf(err, RWKV_EINVAL, "invalid strategy '': empty (expected e.g. 'cpu fp32')");
    for (;;) {
        strat_stage *st;
        size_t k, n;

        if (out->n_stages == STRAT_MAX_STAGES)
            return strat_bad(err, s, p, "too many stages");
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
            return strat_bad(err, s, p, "unknown device (cpu, cuda, cuda:N, mps, dml)");
        st->device = strat_devices[k].dev;
        p += n;
        if (st->device == STRAT_CUDA && *p == ':') {
            p++;
            if (!strat_digits(&p, &st->device_index))
                return strat_bad(err, s, p, "device number expected after 'cuda:'");
        }
        if (*p != ' ')
            return strat_bad(err, s, p, "one space expected after the device");
        p++;
        for (k = 0; k < sizeof strat_dtypes / sizeof strat_dtypes[0]; k++) {
            n = strlen(strat_dtypes[k].name);
            if (strncmp(p, strat_dtypes[k].name, n) == 0)
                break;
        }
        if (k == sizeof strat_dtypes / sizeof strat_dtypes[0])
            return strat_bad(err, s, p, "unknown dtype (fp16, fp32, bf16)");
        st->dtype = strat_dtypes[k].dt;
        p += n;
        if (p[0] == 'i' && (p[1] == '8' || p[1] == '4' || p[1] == '3')) {
            st->quant = p[1] - '0';
            p += 2;
        }
        if (p[0] == ' ' && p[1] == '*') {
            p += 2;
            if (!strat_digits(&p, &st->n_layers))
                return strat_bad(err, s, p, "layer count expected after '*'");
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
            return strat_bad(err, s, p, "'->' or end expected");
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
        if (free_slots > 0 && to_alloc > alloc)
            for (int i = 0; i < n; i++)
                if (plan[i] == 0) {
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
