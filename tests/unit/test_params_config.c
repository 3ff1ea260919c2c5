/*
** test_params_config.c -- a sampling value written in the config file
** (tui/config.c): the config has none, and its "unknown field" line said
** only that (or "did you mean" some unrelated field); it now says where
** such values go, on that one line, the rest of the file kept.
*/
#include <stdio.h>
#include <string.h>

#include "../harness.h"
#include "../../tui/config.h"

int
main(void)
{
    tui_config c;
    char msg[1024];
    const char *p;

    p = test_write_tmp("samp.yaml", "model: x\ntemperature: 0.7\ntop-p: 0.5\ntheme: dark\n");
    TEST_COND("a sampling key is refused", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "samp.yaml:2:1: unknown field 'temperature' (sampling values are a "
                           "preset's: F4, C-s saves the current ones as one; then 'preset: NAME' "
                           "here)") != NULL,
               "temperature: %s", msg);
    TEST_CONDF(strstr(msg, "samp.yaml:3:1: unknown field 'top-p' (sampling values are a preset's")
                   != NULL,
               "the CLI's spelling too: %s", msg);
    {
        int lines = 0;
        for (const char *q = msg; *q; q++)
            lines += *q == '\n' && q[1] != '\0';
        TEST_CONDF(lines == 1, "one line each (%d newlines between): %s", lines, msg);
    }
    TEST_COND("the rest kept", strcmp(c.model, "x") == 0 && strcmp(c.theme, "dark") == 0);

    p = test_write_tmp("all.yaml", "sampling:\n  temperature: 0.7\n");
    TEST_COND("a sampling mapping is refused", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "all.yaml:1:1: unknown field 'sampling' (sampling values are a preset's")
                   != NULL,
               "sampling: %s", msg);

    p = test_write_tmp("seed.yaml", "seed: 3\n");
    TEST_COND("seed refused", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "seed.yaml:1:1: unknown field 'seed' (the seed is given with --seed N)")
                   != NULL,
               "seed: no preset holds one: %s", msg);

    /* any other key: as before */
    p = test_write_tmp("typo.yaml", "modle: y\n");
    TEST_COND("typo refused", cfg_load(p, &c, msg, sizeof msg) != 0);
    TEST_CONDF(strstr(msg, "unknown field 'modle' (did you mean 'model'?)") != NULL, "typo: %s", msg);
    return TEST_REPORT();
}
