/*
** test_size_words.c -- sizes and counts as people read them
** (storage/store_budget.c): store_size_str, the one formatter of every size
** shown (`sessions`, `sessions budget`, F2's title and budget prompt), and
** store_budget_say, the line both front ends print after a budget is set.
**
** Before: 1 TB read "1000.00 GB", 2 GB "2.00 GB", 999999 bytes "1000 kB",
** and one state was "1 states" ("68 kB in 1 states now").
*/
#include <stdint.h>
#include <string.h>

#include "../../storage/store.h"
#include "../harness.h"

static void
test_sizes(void)
{
    static const struct {
        uint64_t    bytes;
        const char *want;
    } cases[] = {
        { 0, "0 kB" },
        { 340000, "340 kB" },
        { 68000, "68 kB" },
        { 999499, "999 kB" },
        { 999999, "1 MB" },             /* rounds to 1000 kB: the next unit */
        { 12900000, "12.9 MB" },
        { 50000000, "50 MB" },          /* not "50.0 MB" */
        { 999960000, "1 GB" },          /* not "1000.0 MB" */
        { 2350000000ull, "2.35 GB" },
        { 2000000000ull, "2 GB" },      /* not "2.00 GB" */
        { 2500000000ull, "2.5 GB" },
        { 1000000000000ull, "1 TB" },   /* not "1000.00 GB" */
        { 1500000000000ull, "1.5 TB" },
        { 999000000000ull, "999 GB" },
        { UINT64_MAX, "18.45 EB" },
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[32];
        store_size_str(cases[i].bytes, buf, sizeof buf);
        TEST_CONDF(strcmp(buf, cases[i].want) == 0, "%llu bytes: '%s' (want '%s')",
                   (unsigned long long)cases[i].bytes, buf, cases[i].want);
    }
}

static void
test_budget_say(void)
{
    char line[512];
    store_budget_info bi;

    memset(&bi, 0, sizeof bi);
    bi.budget = 100000;
    bi.after = 68000;
    bi.states = 1;
    bi.dropped = 1;
    bi.dropped_bytes = 68000;
    store_budget_say(NULL, &bi, line, sizeof line);
    TEST_CONDF(strstr(line, "dropped 1 saved state (68 kB;") != NULL &&
                   strstr(line, "68 kB in 1 state now") != NULL && strstr(line, "states") == NULL,
               "one dropped, one left: '%s'", line);
    bi.states = 3;
    bi.dropped = 12;
    store_budget_say(NULL, &bi, line, sizeof line);
    TEST_CONDF(strstr(line, "budget 100 kB: dropped 12 saved states (") != NULL &&
                   strstr(line, "in 3 states now") != NULL,
               "many: '%s'", line);
    bi.dropped = 0;
    bi.states = 1;
    bi.budget = 1000000000000ull;
    store_budget_say(NULL, &bi, line, sizeof line);
    TEST_CONDF(strcmp(line, "budget 1 TB: the saved states fit (68 kB in 1 state)") == 0,
               "fits, one: '%s'", line);
}

int
main(void)
{
    test_sizes();
    test_budget_say();
    return TEST_REPORT();
}
