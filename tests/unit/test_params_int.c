/*
** test_params_int.c -- the one spelling of an integer (params_int_check)
** and params_set's integer entries under it: "1e1", "5.", "+5" were taken
** for top_k, max_tokens and chunk (strtod read them as 10 and 5) by every
** reader but the CLI -- /set, the sidebar, presets, imports.
*/
#include "../../core/chat/params.h"
#include "../harness.h"

#include <limits.h>

static int
check(const char *s, long long min, unsigned long long max)
{
    return params_int_check(s, strlen(s), min, max, NULL, NULL);
}

static void
test_rule(void)
{
    static const char *const not_int[] = { "1e1", "5.", "5.0", "+5", " 5", "5 ", "0x10", "-0",
                                           "", "-", "1,0", "٣", "5\n" };
    unsigned long long mag = 0;
    int neg = -1;

    for (size_t k = 0; k < sizeof not_int / sizeof not_int[0]; k++)
        TEST_CONDF(check(not_int[k], 0, 100) == PARAMS_INT_NOT, "'%s' is no integer", not_int[k]);
    TEST_COND("digits", params_int_check("42", 2, 0, 100, &mag, &neg) == PARAMS_INT_OK &&
                            mag == 42 && neg == 0);
    TEST_COND("leading zeros", check("007", 0, 100) == PARAMS_INT_OK);
    TEST_COND("LEN bytes only", params_int_check("12x", 2, 0, 100, &mag, NULL) == PARAMS_INT_OK &&
                                    mag == 12);
    TEST_COND("the ends", check("0", 0, 100) == PARAMS_INT_OK && check("100", 0, 100) == PARAMS_INT_OK);
    TEST_COND("past MAX", check("101", 0, 100) == PARAMS_INT_RANGE);
    TEST_COND("below MIN", check("0", 1, 100) == PARAMS_INT_RANGE);
    TEST_COND("negative, MIN 0", check("-5", 0, 100) == PARAMS_INT_RANGE);
    TEST_COND("negative allowed", params_int_check("-5", 2, -5, 100, &mag, &neg) == PARAMS_INT_OK &&
                                      mag == 5 && neg == 1);
    TEST_COND("negative below", check("-6", -5, 100) == PARAMS_INT_RANGE);
    TEST_COND("LLONG_MIN + 1", check("-9223372036854775807", -LLONG_MAX, 0) == PARAMS_INT_OK);
    TEST_COND("2^64 - 1", check("18446744073709551615", 0, ULLONG_MAX) == PARAMS_INT_OK);
    TEST_COND("2^64", check("18446744073709551616", 0, ULLONG_MAX) == PARAMS_INT_RANGE);
    TEST_COND("long digits", check("000000000000000000000000000000001", 0, 1) == PARAMS_INT_OK);
    TEST_COND("long, then a letter", check("99999999999999999999999x", 0, 1) == PARAMS_INT_NOT);
}

static void
test_set(void)
{
    static const char *const ints[] = { "top_k", "max_tokens", "chunk", "seed" };
    static const char *const bad[] = { "1e1", "5.", "5.0", "+5", "0x10", "-0", "1,0", "", " " };
    rwkv_sampling s;
    rwkv_err err;

    for (size_t n = 0; n < sizeof ints / sizeof ints[0]; n++) {
        int i = params_find(ints[n]);
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            rwkv_sampling before;
            params_defaults(&s);
            if (strcmp(ints[n], "max_tokens") != 0)
                params_set(&s, i, "7", &err);
            before = s;
            TEST_CONDF(params_set(&s, i, bad[k], &err) == RWKV_EINVAL &&
                           memcmp(&s, &before, sizeof s) == 0,
                       "%s '%s' refused, unchanged", ints[n], bad[k]);
        }
        TEST_CONDF(params_set(&s, i, " 9 ", &err) == RWKV_OK && params_get(&s, i) == 9,
                   "%s: blanks around digits are fine (%s)", ints[n], err.msg);
    }
    params_defaults(&s);
    TEST_CONDF(params_set(&s, params_find("top-k"), "1e1", &err) == RWKV_EINVAL &&
                   strcmp(err.msg, "top-k: '1e1' is not an integer (digits alone: no sign, point or "
                                   "exponent)") == 0,
               "one line saying why: %s", err.msg);
    TEST_CONDF(params_set(&s, params_find("top-k"), "-5", &err) == RWKV_EINVAL &&
                   strcmp(err.msg, "top-k: -5 is out of range [0, 65536]") == 0,
               "a negative number is out of range: %s", err.msg);
    TEST_CONDF(params_set(&s, params_find("max-tokens"), "0 ", &err) == RWKV_EINVAL &&
                   strcmp(err.msg, "max-tokens: 0 is out of range [1, 1000000]") == 0,
               "range: %s", err.msg);
    TEST_CONDF(params_set(&s, params_find("seed"), "18446744073709551616", &err) == RWKV_EINVAL &&
                   strcmp(err.msg, "seed: 18446744073709551616 is out of range "
                                   "[0, 18446744073709551615]") == 0,
               "the seed's range in digits: %s", err.msg);
    TEST_COND("largest top_k", params_set(&s, params_find("top_k"), "65536", &err) == RWKV_OK &&
                                   s.top_k == 65536);
    /* the float entries keep their reading */
    TEST_COND("1e-1 is a temperature", params_set(&s, params_find("temperature"), "1e-1", &err) ==
                                          RWKV_OK && s.temperature == 0.1f);
    TEST_COND("+0.5 is a top-p", params_set(&s, params_find("top_p"), "+0.5", &err) == RWKV_OK &&
                                     s.top_p == 0.5f);
}

int
main(void)
{
    test_rule();
    test_set();
    return TEST_REPORT();
}
