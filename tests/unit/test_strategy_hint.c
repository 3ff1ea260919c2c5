/*
** test_strategy_hint.c -- a mistyped strategy is refused with what is
** wrong and, where exactly one valid strategy is near, "did you mean
** '...'?" (core/model/strategy.c strat_suggest).  The grammar stays the pip
** package's, case included: "CPU FP32" is refused (with the suggestion),
** never silently taken, so a string that works here works there.  Before,
** none of these had a suggestion and an unknown word was not named.
*/
#include <string.h>

#include "../../core/model/strategy.h"
#include "../harness.h"

static void
test_hints(void)
{
    static const struct {
        const char *s;
        const char *what;   /* fragment naming what is wrong */
        const char *hint;   /* the suggestion, or NULL: none must be made */
    } cases[] = {
        { "cpu fp23", "unknown dtype 'fp23' at position 5", "cpu fp32" },
        { "cpu-fp32", "one space expected after the device at position 4", "cpu fp32" },
        { "cpu_bf16", "one space expected after the device", "cpu bf16" },
        { "CPU FP32", "unknown device 'CPU' at position 1", "cpu fp32" },
        { "Cpu fp32", "unknown device 'Cpu'", "cpu fp32" },
        { "cpu FP32", "unknown dtype 'FP32'", "cpu fp32" },
        { "cpu fp32 i8", "'->' or end expected at position 10", "cpu fp32i8" },
        { "cpu  fp32", "position 5", "cpu fp32" },
        { "cpu fp32i8 * 6 -> cpu fp32", "layer count expected", "cpu fp32i8 *6 -> cpu fp32" },
        { "cpu fp32i8 *6 -> cup fp32", "unknown device 'cup' at position 18",
          "cpu fp32i8 *6 -> cpu fp32" },
        { "cpu float32", "unknown dtype 'float32'", "cpu fp32" },
        { "cpu bf61", "unknown dtype 'bf61'", "cpu bf16" },
        { "cuda:0 FP16 *10+", "unknown dtype 'FP16'", "cuda:0 fp16 *10+" },
        /* nothing near, or two equally near: no guess */
        { "cpu fp64", "unknown dtype 'fp64'", NULL },
        { "cpu fp12", "unknown dtype 'fp12'", NULL },
        { "cpu fp32 x", "'->' or end expected", NULL },
        { "cpu fp32i5", "'->' or end expected at position 9", NULL },
        { "cpu fp32 ->", "unknown device", NULL },
        { "hello", "unknown device 'hello'", NULL },
        /* the dtype left out: said so, not "one space expected"; a word that
        ** only starts with a device's name is named as the unknown device */
        { "cpu", "dtype expected after the device at position 4", NULL },
        { "cpu fp32 *2 -> cpu", "dtype expected after the device at position 19", NULL },
        { "cuda:1 -> cpu fp32", "dtype expected after the device at position 8", NULL },
        { "cpu ", "dtype expected after the device at position 5", NULL },
        { "cpu:0 fp32", "unknown device 'cpu:0' at position 1", NULL },
        { "cpus fp32", "unknown device 'cpus' at position 1", "cpu fp32" },
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char want[160];
        strat st;
        rwkv_err err;
        int rc;

        rwkv_err_clear(&err);
        rc = strat_parse(cases[i].s, &st, &err);
        TEST_CONDF(rc == RWKV_EINVAL, "'%s': code %d (want RWKV_EINVAL)", cases[i].s, rc);
        TEST_CONDF(strstr(err.msg, cases[i].what) != NULL, "'%s': message '%s' lacks '%s'",
                   cases[i].s, err.msg, cases[i].what);
        if (cases[i].hint != NULL) {
            snprintf(want, sizeof want, "; did you mean '%s'?", cases[i].hint);
            TEST_CONDF(strlen(err.msg) >= strlen(want) &&
                           strcmp(err.msg + strlen(err.msg) - strlen(want), want) == 0,
                       "'%s': message '%s' does not end in \"%s\"", cases[i].s, err.msg, want);
            /* what is suggested is valid as it stands */
            TEST_CONDF(strat_parse(cases[i].hint, &st, &err) == RWKV_OK, "suggestion '%s': %s",
                       cases[i].hint, err.msg);
        } else {
            TEST_CONDF(strstr(err.msg, "did you mean") == NULL &&
                           strstr(err.msg, "expected e.g.") != NULL,
                       "'%s': no suggestion expected, got '%s'", cases[i].s, err.msg);
        }
    }
}

int
main(void)
{
    test_hints();
    return TEST_REPORT();
}
