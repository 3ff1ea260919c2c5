/*
** env.c -- the engine's RWKV_* settings (env.h): one reader per kind, one
** table of the settings, so a note says what the reader did.
*/
#include "env.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
env_number(const char *name, double lo, double hi, double *out)
{
    const char *s = getenv(name);
    char *end;
    double v;

    if (s == NULL || *s == '\0')
        return 0;
    v = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 1;
}

int
env_word(const char *name, const char *const *words)
{
    const char *s = getenv(name);

    if (s == NULL || *s == '\0')
        return -1;
    for (int i = 0; words[i] != NULL; i++)
        if (strcmp(s, words[i]) == 0)
            return i;
    return -2;
}

const char *const env_cache_words[] = { "0", "off", "no", "false", "1", "on", "yes", "true",
                                        "auto", NULL };
const char *const env_load_words[] = { "map", "copy", NULL };

static char notes[1024];

const char *
env_notes(void)
{
    static int made;
    static const struct {
        const char        *name;
        const char *const *words;     /* NULL: a number in [lo, hi] */
        double             lo, hi;
        const char        *want;
    } tab[] = {
        { "RWKV_TPOOL_SPIN_US", NULL, 0, ENV_TPOOL_SPIN_US_MAX, "a number of microseconds" },
        { "RWKV_TPOOL_SOLO_MS", NULL, 0, ENV_TPOOL_SOLO_MS_MAX, "a number of milliseconds" },
        { "RWKV_WEIGHT_CACHE", env_cache_words, 0, 0, "0/off/no/false, 1/on/yes/true or auto" },
        { "RWKV_CHECKPOINT_LOAD", env_load_words, 0, 0, "map or copy" },
        { "RWKV_WEIGHT_CACHE_LOAD", env_load_words, 0, 0, "map or copy" },
    };
    size_t o = 0;

    if (made)
        return notes;
    made = 1;
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        double v;
        int bad = tab[i].words ? env_word(tab[i].name, tab[i].words) == -2
                               : env_number(tab[i].name, tab[i].lo, tab[i].hi, &v) < 0;
        int n;
        if (!bad)
            continue;
        if (tab[i].words)
            n = snprintf(notes + o, sizeof notes - o, "%s%s=%.40s is not %s; using the default",
                         o ? "\n" : "", tab[i].name, getenv(tab[i].name), tab[i].want);
        else         /* the range from the readers' own limits (env.h) */
            n = snprintf(notes + o, sizeof notes - o,
                         "%s%s=%.40s is not %s, %g to %g; using the default", o ? "\n" : "",
                         tab[i].name, getenv(tab[i].name), tab[i].want, tab[i].lo, tab[i].hi);
        if (n < 0 || (size_t)n >= sizeof notes - o)
            break;
        o += (size_t)n;
    }
    return notes;
}
