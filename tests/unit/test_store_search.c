/*
** test_store_search.c -- store_search on a real SQLite file: words match as
** prefixes ("mess" finds "message"), every word is required, case and
** CJK work, and a user's quotes or FTS5 operators are plain text (never a
** syntax error).  The expected hits are read off the messages by hand.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../storage/store.h"
#include "../harness.h"

static const char session_json[] =
    "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"Search me\","
    " \"created_ms\": 1700000000000, \"strategy\": \"cpu fp32\", \"model\": null, \"head\": 4,"
    " \"turns\": ["
    "  {\"id\": 1, \"parent\": null, \"role\": \"user\", \"text\": \"Send the message to the pangolin\","
    "   \"tokens\": [1], \"time_ms\": 1700000000001},"
    "  {\"id\": 2, \"parent\": 1, \"role\": \"assistant\", \"text\": \"Messages go nearby AND far\","
    "   \"tokens\": [2], \"time_ms\": 1700000000002},"
    "  {\"id\": 3, \"parent\": 2, \"role\": \"user\", \"text\": \"很多 stars * and a-b quotes \\\"q\\\"\","
    "   \"tokens\": [3], \"time_ms\": 1700000000003},"
    "  {\"id\": 4, \"parent\": 3, \"role\": \"assistant\", \"text\": \"usage of images\","
    "   \"tokens\": [4], \"time_ms\": 1700000000004}"
    " ]}";

/* Hits for TEXT, or -1 on an error (message in ERR). */
static long
hits(store *st, const char *text, rwkv_err *err)
{
    store_hit *h = NULL;
    size_t n = 0;
    int rc = store_search(st, text, 100, &h, &n, err);

    free(h);
    return rc == RWKV_OK ? (long)n : -1;
}

int
main(void)
{
    char dir[] = "/tmp/rwkv-search-XXXXXX", path[256];
    store *st = NULL;
    rwkv_err err;
    int64_t id = 0;

    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/s.db", dir);
    TEST_COND("open", store_open(path, &st, &err) == RWKV_OK);
    TEST_COND("import", store_import(st, session_json, strlen(session_json), "t.json", &id, &err) ==
                            RWKV_OK && id > 0);

    /* prefixes */
    TEST_CONDF(hits(st, "mess", &err) == 2, "'mess' finds message and Messages: %ld",
               hits(st, "mess", &err));
    TEST_COND("'MESS' case-insensitive", hits(st, "MESS", &err) == 2);
    TEST_COND("'message' whole word still", hits(st, "message", &err) == 2);
    TEST_COND("'messages' finds only the plural", hits(st, "messages", &err) == 1);
    TEST_COND("'pang' finds pangolin", hits(st, "pang", &err) == 1);
    TEST_COND("'age' is no prefix of a word", hits(st, "age", &err) == 0);
    TEST_COND("'ima' finds images", hits(st, "ima", &err) == 1);
    TEST_COND("every word required", hits(st, "mess pang", &err) == 1);
    TEST_COND("a missing word: no hit", hits(st, "mess zebra", &err) == 0);
    TEST_COND("CJK prefix", hits(st, "很", &err) == 1);
    {
        store_hit *h = NULL;
        size_t n = 0;
        TEST_COND("snippet marks the prefix match",
                  store_search(st, "pang", 10, &h, &n, &err) == RWKV_OK && n == 1 &&
                      strstr(h[0].snippet, "[pangolin]") != NULL && h[0].session_id == id);
        free(h);
    }

    /* a user's quotes and FTS5 syntax are text, never an error */
    {
        static const char *const odd[] = {
            "\"", "*", "AND", "NEAR(", "-", "\"mess", "mess\"", "a\"b", "(", ")", "mess)",
            ":", "text:mess", "^mess", "+", "NOT", "OR", "mess OR", "\"\"\"", "* * *",
            "NEAR(mess pang, 2)", "-mess", "mess -pang", "{text}: mess", "'", "\\",
        };
        for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
            long n = hits(st, odd[i], &err);
            TEST_CONDF(n >= 0, "query [%s] is not an error (%s)", odd[i], n < 0 ? err.msg : "");
        }
    }
    /* ... and they mean what the words mean */
    TEST_COND("AND is a word (prefix of 'and')", hits(st, "AND", &err) == 2);
    TEST_COND("NEAR( finds nearby", hits(st, "NEAR(", &err) == 1);
    TEST_COND("'-mess' is 'mess'", hits(st, "-mess", &err) == 2);
    TEST_COND("'mess -pang' needs both", hits(st, "mess -pang", &err) == 1);
    TEST_COND("punctuation alone: no hit", hits(st, "-", &err) == 0 && hits(st, "*", &err) == 0 &&
                                              hits(st, "\"", &err) == 0);
    TEST_COND("a lone quote is ignored beside a word", hits(st, "\" pang", &err) == 1);
    TEST_COND("quoted word", hits(st, "\"mess\"", &err) == 2);
    TEST_COND("a-b as a phrase", hits(st, "a-b", &err) == 1);
    TEST_COND("empty refused", hits(st, "  \t", &err) == -1);

    store_close(st);
    {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", dir);
    }
    return TEST_REPORT();
}
