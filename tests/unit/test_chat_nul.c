/*
** test_chat_nul.c -- a reply holding the token that decodes to a NUL byte
** (the World vocabulary's id 1; the byte tokenizer's byte 0), through the
** session runtime on a real database file in a temp dir.
**
** The chat kept the NUL in the reply's text, and everything after it
** treats the text as a C string: the saved row (store_turn binds the text
** by strlen) and a resumed session lost the rest of the reply at the first
** NUL, while the tokens kept all of it.  Now the reply's text, the text
** streamed to the front end and the saved row hold the reply without its
** NUL bytes; the token ids keep them (the state and a replay are the
** model's).
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

#define MAX_TOK 24

/* What the front end was streamed: bytes, and whether one was a NUL. */
static char streamed[4 * MAX_TOK + 1];
static size_t n_streamed;
static int streamed_nul;

static void
on_text(void *ud, const char *text, size_t len)
{
    (void)ud;
    if (memchr(text, '\0', len) != NULL)
        streamed_nul = 1;
    for (size_t i = 0; i < len && n_streamed + 1 < sizeof streamed; i++)
        streamed[n_streamed++] = text[i];
    streamed[n_streamed] = '\0';
}

/* The id of T whose piece is the one byte B, -1 when none. */
static int32_t
byte_id(const tok *t, unsigned char b)
{
    for (size_t id = 0; id < tok_vocab_size(t); id++) {
        const char *p;
        size_t n;
        if (tok_piece(t, (int32_t)id, &p, &n) == RWKV_OK && n == 1 && (unsigned char)p[0] == b)
            return (int32_t)id;
    }
    return -1;
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;
    sess_config sc;
    sess *s = NULL;
    int32_t *banned = NULL, nul, a;
    size_t nb = 0, n_nul = 0, n_a = 0;
    char db[600], sql[256];
    const chat_turn *ct;

    if (test_tmpdir("rwkv-test-chat-nul") == NULL)
        return 1;
    if (sess_test_demo(NULL, &m, &t) != 0)
        goto out;
    nul = byte_id(t, 0);
    a = byte_id(t, 'a');
    TEST_CONDF(nul >= 0 && a >= 0, "the NUL byte's id %d and 'a''s %d", (int)nul, (int)a);
    if (nul < 0 || a < 0)
        goto out;
    /* every token banned but the NUL: the reply is NULs; then continued
    ** with every token banned but 'a': the same reply goes on with 'a's */
    banned = malloc(tok_vocab_size(t) * sizeof *banned);
    if (banned == NULL)
        goto out;
    for (size_t id = 0; id < tok_vocab_size(t); id++)
        if ((int32_t)id != nul)
            banned[nb++] = (int32_t)id;

    test_tmp_path(db, sizeof db, "nul.db");
    sess_test_config(&sc, m, t, db, 5, MAX_TOK);
    sc.chat.no_stop = 1;
    sc.chat.banned = banned;
    sc.chat.n_banned = nb;
    sc.cb.text = on_text;
    if ((s = sess_test_create(&sc)) == NULL || say(s, "hello") != 0) {
        TEST_COND("a reply", 0);
        goto out;
    }
    nb = 0;
    for (size_t id = 0; id < tok_vocab_size(t); id++)
        if ((int32_t)id != a)
            banned[nb++] = (int32_t)id;
    {
        rwkv_err err;
        int rc = chat_set_banned(sess_chat(s), banned, nb, &err);
        if (rc == RWKV_OK) {
            sess_expect_reply(s);
            rc = sess_continue(s, &err);
        }
        if (rc == RWKV_OK)
            rc = sess_run(s, &err);
        TEST_CONDF(rc == RWKV_OK, "continued: %s", rc == RWKV_OK ? "" : err.msg);
    }
    ct = chat_turn_at(sess_chat(s), chat_n_turns(sess_chat(s)) - 1);
    for (size_t i = 0; i < ct->n_reply; i++) {
        n_nul += ct->reply_ids[i] == nul;
        n_a += ct->reply_ids[i] == a;
    }
    printf("     reply: %zu tokens, %zu NUL, %zu 'a'\n", ct->n_reply, n_nul, n_a);
    TEST_COND("the reply: NULs, then 'a's", n_nul == MAX_TOK && n_a > 0 && n_nul + n_a == ct->n_reply &&
                                              ct->reply_ids[0] == nul);
    TEST_CONDF(ct->reply_len == n_a && strlen(ct->reply) == n_a,
               "the reply's text is its 'a's, no NUL (%zu bytes, strlen %zu, %zu 'a')",
               ct->reply_len, strlen(ct->reply), n_a);
    TEST_COND("no NUL streamed to the front end", !streamed_nul);
    TEST_COND("what was streamed is the reply's text", strcmp(streamed, ct->reply) == 0);
    /* the saved row: the whole text, the tokens with their NULs */
    snprintf(sql, sizeof sql,
             "SELECT length(CAST(text AS BLOB)) FROM turns WHERE role=2 ORDER BY id DESC LIMIT 1");
    TEST_CONDF(q_int(db, sql) == (int64_t)n_a, "the saved text has every 'a' (%lld bytes)",
               (long long)q_int(db, sql));
    snprintf(sql, sizeof sql,
             "SELECT length(tokens) FROM turns WHERE role=2 ORDER BY id DESC LIMIT 1");
    TEST_CONDF(q_int(db, sql) == (int64_t)(ct->n_reply * sizeof(int32_t)),
               "the saved tokens are all %zu, NULs too", ct->n_reply);
out:
    sess_destroy(s);
    free(banned);
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
