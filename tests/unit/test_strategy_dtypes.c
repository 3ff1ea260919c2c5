/*
** test_strategy_dtypes.c -- an unknown dtype in a strategy is refused with
** the dtypes the grammar takes (core/model/strategy.c strat_dtype_list,
** made from the parser's own tables): the plain ones and the int8 and
** 4-/3-bit forms glued on ("fp32i8", "bf16i4").  Before, the list said
** "(fp16, fp32, bf16)" only, as if "cpu fp32i8" were not a strategy.
**
** Every name the message offers must parse, and every name that parses
** must be offered: the list is checked against the parser itself.
*/
#include <stdio.h>
#include <string.h>

#include "../../core/model/strategy.h"
#include "../harness.h"

static void
test_list(void)
{
    static const char *const dts[] = { "fp16", "fp32", "bf16" };
    static const char *const quants[] = { "", "i8", "i4", "i3" };
    char msg[RWKV_ERR_MSG], s[64];
    strat st;
    rwkv_err err;

    rwkv_err_clear(&err);
    TEST_COND("cpu fp64 refused", strat_parse("cpu fp64", &st, &err) == RWKV_EINVAL);
    snprintf(msg, sizeof msg, "%s", err.msg);
    TEST_CONDF(strstr(msg, "unknown dtype 'fp64' at position 5 (fp16, fp32, bf16, or one of "
                           "them with i8, i4 or i3 glued on, as fp16i8)") != NULL,
               "message: '%s'", msg);
    TEST_CONDF(strchr(msg, '\n') == NULL, "one line: '%s'", msg);
    /* what is offered is what parses */
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
        for (size_t q = 0; q < sizeof quants / sizeof quants[0]; q++) {
            snprintf(s, sizeof s, "cpu %s%s", dts[d], quants[q]);
            TEST_CONDF(strat_parse(s, &st, &err) == RWKV_OK, "'%s' offered but refused: %s", s,
                       err.msg);
            TEST_CONDF(strstr(msg, dts[d]) != NULL && strstr(msg, quants[q]) != NULL,
                       "'%s' parses but is not offered: '%s'", s, msg);
        }
    /* and a quantisation not offered does not parse */
    TEST_COND("i5 refused", strat_parse("cpu fp32i5", &st, &err) == RWKV_EINVAL &&
                                strstr(msg, "i5") == NULL);
    /* a typo near a quantised name still gets its suggestion */
    TEST_CONDF(strat_parse("cpu fp23i8", &st, &err) == RWKV_EINVAL &&
                   strstr(err.msg, "did you mean 'cpu fp32i8'?") != NULL,
               "fp23i8: '%s'", err.msg);
}

int
main(void)
{
    test_list();
    return TEST_REPORT();
}
