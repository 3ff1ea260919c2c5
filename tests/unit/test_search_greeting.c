/*
** test_search_greeting.c -- store_search and store_search_sessions find the
** titles and the messages (user and assistant turns), never the greeting:
** the greeting is framing, the same text in every chat of a framing, so
** searching it made every session match its common words ("answer",
** "question").  Also: "" (an empty phrase) and a phrase of blanks are no
** word, so such a search is blank (store_search_blank), not "no matches".
** Real SQLite file; sessions imported as `sessions import` takes them.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../storage/store.h"
#include "../harness.h"

/* A session TITLE: the demo-like greeting, then MSG and a reply. */
static int64_t
import_one(store *st, const char *title, const char *msg)
{
    char j[2048];
    int64_t id = 0;
    rwkv_err err;

    snprintf(j, sizeof j,
             "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"%s\","
             " \"created_ms\": 1700000000000, \"strategy\": \"cpu fp32\", \"model\": null,"
             " \"turns\": ["
             "  {\"id\": 1, \"parent\": null, \"role\": \"system\", \"text\": \"User: hi\\n\\nAssistant:"
             " Hi. I am your assistant and I will provide expert full response in full details."
             " Please feel free to ask any question and I will always answer it.\","
             "   \"tokens\": [1], \"time_ms\": 1700000000001},"
             "  {\"id\": 2, \"parent\": 1, \"role\": \"user\", \"text\": \"%s\","
             "   \"tokens\": [2], \"time_ms\": 1700000000002},"
             "  {\"id\": 3, \"parent\": 2, \"role\": \"assistant\", \"text\": \"ok\","
             "   \"tokens\": [3], \"time_ms\": 1700000000003}"
             " ]}", title, msg);
    return store_import(st, j, strlen(j), "t.json", &id, &err) == RWKV_OK ? id : 0;
}

/* Hits of store_search for TEXT (-1: an error), the first one's role in *ROLE. */
static long
hits(store *st, const char *text, int *role)
{
    store_hit *h = NULL;
    size_t n = 0;
    rwkv_err err;
    int rc = store_search(st, text, 100, &h, &n, &err);

    if (role)
        *role = n ? h[0].role : -9;
    free(h);
    return rc == RWKV_OK ? (long)n : -1;
}

static long
sessions(store *st, const char *text, int64_t *first)
{
    int64_t *ids = NULL;
    size_t n = 0;
    rwkv_err err;
    int rc = store_search_sessions(st, text, &ids, &n, &err);

    if (first)
        *first = n ? ids[0] : 0;
    free(ids);
    return rc == RWKV_OK ? (long)n : -1;
}

int
main(void)
{
    char path[512];
    store *st = NULL;
    rwkv_err err;
    int64_t a, b, first = 0;
    int role = -9;

    if (test_tmpdir("rwkv-search-greeting") == NULL)
        return 1;
    test_tmp_path(path, sizeof path, "s.db");
    TEST_COND("open", store_open(path, &st, &err) == RWKV_OK);
    a = import_one(st, "first", "what is the answer to this?");
    b = import_one(st, "second", "tell me about pangolins");
    TEST_COND("import", a > 0 && b > 0);

    /* the greeting's words: only where a message holds them */
    TEST_CONDF(hits(st, "answer", &role) == 1 && role == STORE_ROLE_USER,
               "'answer': the message, not the greetings (%ld hits, role %d)",
               hits(st, "answer", NULL), role);
    TEST_COND("'answer': one session", sessions(st, "answer", &first) == 1 && first == a);
    TEST_CONDF(hits(st, "expert", NULL) == 0, "'expert' is only in the greeting: %ld hits",
               hits(st, "expert", NULL));
    TEST_COND("'expert': no session", sessions(st, "expert", NULL) == 0);
    TEST_COND("'question answer': no session", sessions(st, "question answer", NULL) == 0);
    /* short words (LIKE) follow the same rule */
    TEST_COND("'x' (1 character, in \"expert\"): no hit", hits(st, "x", NULL) == 0);
    TEST_COND("'am' (2 characters): no session", sessions(st, "am", NULL) == 0);
    /* the messages and titles are still found */
    TEST_COND("a message", sessions(st, "pangolin", &first) == 1 && first == b);
    TEST_COND("an assistant turn", hits(st, "ok", &role) == 2 && role == STORE_ROLE_ASSISTANT);
    TEST_COND("a title", sessions(st, "first", &first) == 1 && first == a);

    /* an empty phrase is nothing to search for */
    TEST_COND("\"\" is blank", store_search_blank("\"\"") == 1);
    TEST_COND("\"\" \"\" is blank", store_search_blank(" \"\"  \"\" ") == 1);
    TEST_COND("\" \" is blank", store_search_blank("\" \"") == 1);
    TEST_COND("\"\" refused by the search", hits(st, "\"\"", NULL) == -1 &&
                                              sessions(st, "\"\"", NULL) == -1);
    TEST_COND("\"\" beside a word: the word", hits(st, "\"\" pangolin", NULL) == 1);
    TEST_COND("a lone quote is still a word", store_search_blank("\"") == 0);

    store_close(st);
    test_tmpdir_remove();
    return TEST_REPORT();
}
