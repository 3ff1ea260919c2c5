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

/* Import a session TITLE of N exchanges ("hello N" and a reply) from
** TIME_MS on: its id, or 0. */
static int64_t
import_chat(store *st, const char *title, int n, int64_t time_ms, const char *word)
{
    size_t cap = 400 + (size_t)n * 300, o = 0;
    char *j = malloc(cap);
    int64_t id = 0;
    rwkv_err err;

    if (j == NULL)
        return 0;
    o += (size_t)snprintf(j + o, cap - o, "{\"format\": \"rwkv-tui-session\", \"version\": 1, "
                          "\"title\": \"%s\", \"created_ms\": %lld, \"strategy\": \"cpu fp32\", "
                          "\"model\": null, \"turns\": [", title, (long long)time_ms);
    for (int i = 0; i < n; i++)
        o += (size_t)snprintf(j + o, cap - o,
                              "%s{\"id\": %d, \"parent\": %s%.0d, \"role\": \"user\", \"text\": "
                              "\"%s %d\", \"time_ms\": %lld}, {\"id\": %d, \"parent\": %d, \"role\": "
                              "\"assistant\", \"text\": \"reply %d\", \"time_ms\": %lld}",
                              i ? ", " : "", 2 * i + 1, i ? "" : "null", i ? 2 * i : 0, word, i,
                              (long long)(time_ms + 2 * i), 2 * i + 2, 2 * i + 1, i,
                              (long long)(time_ms + 2 * i + 1));
    snprintf(j + o, cap - o, "]}");
    if (store_import(st, j, strlen(j), "c.json", &id, &err) != RWKV_OK)
        TEST_CONDF(0, "import %s: %s", title, err.msg);
    free(j);
    return id;
}

/* store_search_sessions: every session with a match, however many hits a
** few long chats have (F2's filter kept the sessions of the first 200 hits:
** two long chats filled them and hid the rest). */
static void
test_sessions(store *st)
{
    int64_t a = import_chat(st, "short one", 2, 1750000000000LL, "hello");
    int64_t b = import_chat(st, "hello in the title", 1, 1750000001000LL, "other");
    int64_t c = import_chat(st, "no match", 3, 1750000002000LL, "other");
    int64_t d = import_chat(st, "long one", 150, 1750000003000LL, "hello");
    int64_t *ids = NULL;
    store_hit *h = NULL;
    size_t n = 0, nh = 0;
    rwkv_err err;
    int seen_a = 0, seen_b = 0, seen_c = 0, seen_d = 0;

    TEST_COND("sessions: imported", a > 0 && b > 0 && c > 0 && d > 0);
    TEST_COND("sessions: 100 hits are the long chat's and the title's",
              store_search(st, "hello", 100, &h, &nh, &err) == RWKV_OK && nh == 100);
    for (size_t i = 0; i < nh; i++)
        seen_a |= h[i].session_id == a;
    TEST_COND("sessions: ... the short chat is not among them", !seen_a);
    free(h);
    TEST_COND("sessions: search", store_search_sessions(st, "hello", &ids, &n, &err) == RWKV_OK);
    for (size_t i = 0; i < n; i++) {
        seen_a += ids[i] == a;
        seen_b += ids[i] == b;
        seen_c += ids[i] == c;
        seen_d += ids[i] == d;
    }
    TEST_CONDF(n == 3 && seen_a == 1 && seen_b == 1 && seen_d == 1 && !seen_c,
               "sessions: every session with a match, once: %zu (%d %d %d %d)", n, seen_a, seen_b,
               seen_c, seen_d);
    free(ids);
    TEST_COND("sessions: every word in one place", store_search_sessions(st, "hello 149", &ids, &n,
                                                                         &err) == RWKV_OK &&
                                                       n == 1 && ids[0] == d);
    free(ids);
    TEST_COND("sessions: a short word by LIKE", store_search_sessions(st, "o 1", &ids, &n, &err) ==
                                                    RWKV_OK && n == 3);
    free(ids);
    TEST_COND("sessions: FTS5 syntax is text", store_search_sessions(st, "NEAR( \"", &ids, &n, &err) ==
                                                   RWKV_OK && n == 0);
    free(ids);
    TEST_COND("sessions: empty refused", store_search_sessions(st, " ", &ids, &n, &err) == RWKV_EINVAL &&
                                             ids == NULL && n == 0);
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
    test_sessions(st);

    store_close(st);
    test_tmpdir_remove();
    return TEST_REPORT();
}
