/*
** env.c -- the engine's RWKV_* settings (env.h): one reader per kind, one
** table of the settings, so a note says what the reader did.
*/
#include "env.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    /* a cache folder refused rather than made (core/model/wcache.c), unless
    ** the cache is off */
    {
        const char *d = getenv("RWKV_WEIGHT_CACHE_DIR");
        int w = env_word("RWKV_WEIGHT_CACHE", env_cache_words);
        char why[512];
        if (d != NULL && *d != '\0' && !(w >= 0 && w < 4) &&
            env_dir_check(d, why, sizeof why) != 0 && o < sizeof notes)
            snprintf(notes + o, sizeof notes - o,
                     "%sRWKV_WEIGHT_CACHE_DIR=%.200s: %s; models load without the weight cache",
                     o ? "\n" : "", d, why);
    }
    return notes;
}

int
env_dir_check(const char *dir, char *why, size_t cap)
{
    char cur[PATH_MAX], up[PATH_MAX];
    struct stat st;
    size_t n = strlen(dir);
    int depth = 0;

    while (n > 1 && dir[n - 1] == '/')       /* "DIR/" is DIR */
        n--;
    if (n >= sizeof cur) {
        snprintf(why, cap, "the path is longer than %d bytes", PATH_MAX - 1);
        return -1;
    }
    memcpy(cur, dir, n);
    cur[n] = '\0';
    /* up from DIR to the first part that exists: CUR, with UP the missing
    ** part below it (DEPTH parts missing) */
    while (stat(cur, &st) != 0) {
        char *slash;
        if (errno != ENOENT && errno != ENOTDIR) {   /* (ENOTDIR: a file above) */
            snprintf(why, cap, "%.200s: %s", cur, strerror(errno));
            return -1;
        }
        memcpy(up, cur, sizeof up);
        slash = strrchr(cur, '/');
        if (slash == NULL)
            snprintf(cur, sizeof cur, ".");
        else if (slash == cur)
            cur[1] = '\0';                   /* "/x": the root */
        else
            *slash = '\0';
        depth++;
        if (strcmp(cur, up) == 0) {          /* (never: "/" and "." exist) */
            snprintf(why, cap, "%.200s does not exist", cur);
            return -1;
        }
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, cap, "%.200s is not a folder", cur);
        return -1;
    }
    if (depth > 1) {
        snprintf(why, cap, "%.200s does not exist (only the cache's own folder is made)", up);
        return -1;
    }
    return 0;
}
