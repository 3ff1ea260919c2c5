/*
** test_json_params.c -- the strict JSON parser, the one string escaper
** (json_write_string) and the sampling table.
*/
#include "../../core/io/json.h"
#include "../../core/chat/params.h"
#include "../harness.h"

static int
parses(const char *s)
{
    json_doc *d = NULL;
    rwkv_err err;
    int rc = json_parse(s, strlen(s), "t", &d, &err);
    json_free(d);
    return rc == RWKV_OK;
}

/* The escaper: the documented escapes, and what it writes parses back to
** the input. */
static void
test_write_string(void)
{
    static const char in[] = "q\" b\\ n\n r\r t\t bell\a esc\x1b del\x7f \xc3\xa9 nul";
    test_text b = { "", 0 };
    char doc[sizeof b.buf + 2];
    json_doc *d = NULL;
    rwkv_err err;

    json_write_string(in, sizeof in - 1, test_text_put, &b);
    TEST_CONDF(strcmp(b.buf, "\"q\\\" b\\\\ n\\n r\\r t\\t bell\\u0007 esc\\u001b del\\u007f "
                           "\xc3\xa9 nul\"") == 0,
               "escapes: %s", b.buf);
    snprintf(doc, sizeof doc, "[%s]", b.buf);
    TEST_COND("round trip", json_parse(doc, strlen(doc), "t", &d, &err) == RWKV_OK &&
                                strcmp(json_at(json_root(d), 0)->str, in) == 0);
    json_free(d);
    b.len = 0;
    json_write_string("a\0b", 3, test_text_put, &b);
    TEST_CONDF(strcmp(b.buf, "\"a\\u0000b\"") == 0, "NUL: %s", b.buf);
}

int
main(void)
{
    json_doc *d;
    rwkv_err err;
    const char *txt = "{\"a\": [1, 2.5, -3e2, true, null], \"s\": \"x\\u00e9\\ud83d\\ude00\\n\","
                      " \"big\": 123456789012, \"o\": {}}";
    TEST_COND("parse ok", json_parse(txt, strlen(txt), "t", &d, &err) == RWKV_OK);
    const json_value *r = json_root(d);
    const json_value *a = json_get(r, "a");
    TEST_COND("array len", a && a->len == 5);
    TEST_COND("int", json_at(a, 0)->is_int && json_at(a, 0)->i64 == 1);
    TEST_COND("float", json_at(a, 1)->num == 2.5 && !json_at(a, 1)->is_int);
    TEST_COND("exp", json_at(a, 2)->num == -300.0);
    TEST_COND("bool", json_at(a, 3)->type == JSON_BOOL && json_at(a, 3)->num == 1);
    TEST_COND("null", json_at(a, 4)->type == JSON_NULL);
    TEST_COND("string escapes", strcmp(json_str(r, "s"), "x\xc3\xa9\xf0\x9f\x98\x80\n") == 0);
    TEST_COND("int64", json_get(r, "big")->i64 == 123456789012LL);
    TEST_COND("empty object", json_get(r, "o")->type == JSON_OBJECT && json_get(r, "o")->len == 0);
    TEST_COND("missing key", json_get(r, "zz") == NULL && json_num(r, "zz", 7) == 7);
    json_free(d);

    TEST_COND("trailing comma refused", !parses("[1,]"));
    TEST_COND("trailing data refused", !parses("{} x"));
    TEST_COND("unterminated refused", !parses("\"abc"));
    TEST_COND("lone surrogate refused", !parses("\"\\ud800\""));
    TEST_COND("control char refused", !parses("\"a\x01\""));
    TEST_COND("leading zero refused", !parses("01"));
    TEST_COND("empty refused", !parses(""));
    {
        char deep[400];
        memset(deep, '[', 300);
        deep[300] = 0;
        TEST_COND("deep nesting refused", !parses(deep));
    }

    rwkv_sampling s;
    params_defaults(&s);
    TEST_COND("demo defaults", s.temperature == 1.0f && s.top_p == 0.3f && s.presence == 0.5f &&
                                   s.frequency == 0.5f && s.decay == 0.996f && s.chunk == 256);
    TEST_COND("find by cli name", params_find("top-p") == params_find("top_p") && params_find("top-p") >= 0);
    TEST_COND("set ok", params_set(&s, params_find("top-p"), "0.7", &err) == RWKV_OK && s.top_p == 0.7f);
    TEST_COND("out of range", params_set(&s, params_find("top-p"), "1.5", &err) == RWKV_EINVAL);
    TEST_CONDF(params_set(&s, params_find("max-tokens"), "99999999999", &err) == RWKV_EINVAL &&
                   strcmp(err.msg, "max-tokens: 99999999999 is out of range [1, 1000000]") == 0,
               "an integer range printed as integers: %s", err.msg);
    TEST_COND("not a number", params_set(&s, params_find("temperature"), "abc", &err) == RWKV_EINVAL);
    TEST_COND("int must be int", params_set(&s, params_find("top-k"), "2.5", &err) == RWKV_EINVAL);
    TEST_COND("hex refused", params_set(&s, params_find("temperature"), "0x1", &err) == RWKV_EINVAL &&
                             params_set(&s, params_find("top-k"), "0x10", &err) == RWKV_EINVAL);
    TEST_COND("blanks around a number", params_set(&s, params_find("top-p"), " 0.25 ", &err) ==
                                            RWKV_OK && s.top_p == 0.25f);
    /* the seed: digits only (strtoull read " -5" as 2^64 - 5), blanks around */
    {
        int si = params_find("seed");
        static const char *const bad[] = { "-5", " -5", "+5", " +5", "", " ", "5x", "0x10",
                                           "18446744073709551616" };
        s.seed = 3;
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
            TEST_CONDF(params_set(&s, si, bad[k], &err) == RWKV_EINVAL && s.seed == 3,
                       "seed '%s' refused (seed now %llu)", bad[k], (unsigned long long)s.seed);
        TEST_COND("seed with blanks around", params_set(&s, si, " 42 ", &err) == RWKV_OK &&
                                                 s.seed == 42);
        TEST_COND("largest seed", params_set(&s, si, "18446744073709551615", &err) == RWKV_OK &&
                                      s.seed == UINT64_MAX);
    }
    {
        char b[32];
        TEST_COND("-0 is 0", params_set(&s, params_find("presence"), "-0", &err) == RWKV_OK);
        params_format(&s, params_find("presence"), b, sizeof b);
        TEST_CONDF(strcmp(b, "0") == 0, "-0 shown as '%s'", b);
    }
    params_defaults(&s);
    params_apply_state_defaults(&s, PARAMS_BIT(params_find("presence")));
    TEST_COND("state defaults respect user", s.top_p == 0.2f && s.presence == 0.5f && s.frequency == 0.3f);
    test_write_string();
    return TEST_REPORT();
}
