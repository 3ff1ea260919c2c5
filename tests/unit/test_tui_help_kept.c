/*
** test_tui_help_kept.c -- F1 lists every key the client keeps for itself
** (config.h's CFG_FIXED_KEYS, the list the config's keys: refuses and
** app.c acts on): F1's rows of them are made from that list, so a key
** added there is in F1 too.  The check reads CFG_FIXED_KEYS itself and
** looks for each key's name ("C-u", "M-d") in F1's key column, a word of
** its own ("C-k / C-u / C-w"), in English (--help-ui) as F1 lists them.
*/
#include <stdio.h>
#include <string.h>

#include "../harness.h"
#include "../../tui/app.h"
#include "../../tui/config.h"

struct seen { char cols[4096]; };

static void
row(void *ud, const char *key, const char *what)
{
    struct seen *s = ud;
    size_t n = strlen(s->cols);

    (void)what;
    snprintf(s->cols + n, sizeof s->cols - n, "|%s|", key);
}

/* 1 when NAME is a word of a key column in COLS: between '|', ' ', ',' or
** '/' on both sides ("C-d" not inside "C-d(...)"; "M-b" in "M-b / M-f") */
static int
has_key(const char *cols, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = strstr(cols, name); p != NULL; p = strstr(p + 1, name))
        if (strchr("| ,/", p[-1]) && strchr("| ,/", p[n]) && p[n] != '\0')
            return 1;
    return 0;
}

int
main(void)
{
    static struct seen s;
    static const int kept[] = {
#define KEPT_(e, k, ...) k,
        CFG_FIXED_KEYS(KEPT_)
#undef KEPT_
    };
    char name[32];

    tui_help_keys(row, &s);
    TEST_COND("F1 has rows", s.cols[0] != '\0');
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        cfg_key_name(kept[i], name, sizeof name);
        TEST_CONDF(has_key(s.cols, name), "F1 lacks the kept key %s: %s", name, s.cols);
    }
    return TEST_REPORT();
}
