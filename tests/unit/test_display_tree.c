/*
** test_display_tree.c -- the text of an F6 tree node (store_session_tree)
** on a real SQLite file: taken from the first visible text, so a turn whose
** first 255+ bytes are escape sequences, controls or blank lines is still
** labelled by its words; a NUL in a text (a file written by another
** program: neither a chat nor an import stores one) is a control like any
** other, not the end; the work is bounded (STORE_TREE_SCAN bytes read);
** an empty text is an empty label, not a damaged row.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../storage/store.h"
#include "../harness.h"
#include "store_test.h"

/* The node of turn ID in V[N], or NULL. */
static const store_tree_node *
node(const store_tree_node *v, size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].id == id)
            return &v[i];
    return NULL;
}

int
main(void)
{
    char path[512], sql[256], esc[400], *far, *big;
    store *st = NULL;
    rwkv_err err;
    int32_t ids[1] = { 1 };
    int64_t sid, t_esc, t_blank, t_plain, t_nul, t_far, t_big;
    store_tree_node *v = NULL;
    size_t n = 0, k = 0;
    const store_tree_node *x;

    if (test_tmpdir("rwkv-dtree") == NULL)
        return 1;
    test_tmp_path(path, sizeof path, "t.db");
    if (store_open(path, &st, &err) != RWKV_OK) {
        TEST_COND("open", 0);
        return TEST_REPORT();
    }
    for (int i = 0; i < 80; i++) {               /* 320 bytes of SGR */
        memcpy(esc + k, "\x1b[1m", 4);
        k += 4;
    }
    strcpy(esc + k, "Visible words");
    far = malloc(9000 + 8);
    big = malloc(1u << 20);
    if (far == NULL || big == NULL)
        return 1;
    for (k = 0; k + 4 <= 9000; k += 4)
        memcpy(far + k, "\x1b[1m", 4);
    strcpy(far + k, "late");
    memset(big, 'w', (1u << 20) - 1);
    big[(1u << 20) - 1] = '\0';

    sid = new_session(st, "Tree");
    t_esc = add_turn(st, sid, 0, STORE_ROLE_USER, esc, ids, 1, NULL, 0, NULL, NULL);
    t_blank = add_turn(st, sid, t_esc, STORE_ROLE_ASSISTANT, "\n\n\x07  \n\x1b]0;t\x07 Hello\nmore", ids, 1,
                       NULL, 0, NULL, NULL);
    t_plain = add_turn(st, sid, t_blank, STORE_ROLE_USER, " In burrows.\nSome", ids, 1, NULL, 0, NULL, NULL);
    t_nul = add_turn(st, sid, t_plain, STORE_ROLE_ASSISTANT, "placeholder", ids, 1, NULL, 0, NULL, NULL);
    t_far = add_turn(st, sid, t_nul, STORE_ROLE_USER, far, ids, 1, NULL, 0, NULL, NULL);
    t_big = add_turn(st, sid, t_far, STORE_ROLE_ASSISTANT, big, ids, 1, NULL, 0, NULL, NULL);
    TEST_COND("turns saved", t_esc && t_blank && t_plain && t_nul && t_far && t_big);
    /* a NUL inside a text, as another program could write it */
    snprintf(sql, sizeof sql, "UPDATE turns SET text=CAST(x'6100621b5b316d00630a64' AS TEXT) WHERE id=%lld",
             (long long)t_nul);
    TEST_COND("tamper: a NUL in a text", q_exec(path, sql) == 0);

    TEST_COND("tree", store_session_tree(st, sid, &v, &n, &err) == RWKV_OK && n == 6);
    x = node(v, n, t_esc);
    TEST_CONDF(x && strcmp(x->text, "Visible words") == 0, "320 bytes of escapes first: '%s'", x ? x->text : "?");
    x = node(v, n, t_blank);
    TEST_CONDF(x && strcmp(x->text, " Hello\nmore") == 0, "blank lines and controls first: '%s'",
               x ? x->text : "?");
    x = node(v, n, t_plain);
    TEST_CONDF(x && strcmp(x->text, " In burrows.\nSome") == 0, "plain text as it is: '%s'", x ? x->text : "?");
    x = node(v, n, t_nul);
    TEST_CONDF(x && strcmp(x->text, "abc\nd") == 0, "a NUL is dropped, not the end: '%s'", x ? x->text : "?");
    x = node(v, n, t_far);
    TEST_CONDF(x && strcmp(x->text, "") == 0, "past the scan bound (9000 bytes of escapes): '%s'",
               x ? x->text : "?");
    x = node(v, n, t_big);
    TEST_CONDF(x && strlen(x->text) == 255, "a megabyte text: 255 bytes (%zu)", x ? strlen(x->text) : 0);
    free(v);
    v = NULL;

    /* an empty reply (a stop string at once; a reply row as it starts):
    ** SQLite's substr of an empty blob is NULL, and the tree read it as a
    ** damaged row, "table turns, row 7: text is NULL" (F6 during a reply) */
    {
        int64_t t_empty = add_turn(st, sid, t_big, STORE_ROLE_USER, "", ids, 1, NULL, 0, NULL, NULL);
        int rc = store_session_tree(st, sid, &v, &n, &err);
        TEST_CONDF(t_empty && rc == RWKV_OK && n == 7, "a tree with an empty turn: %s",
                   rc == RWKV_OK ? "" : err.msg);
        x = rc == RWKV_OK ? node(v, n, t_empty) : NULL;
        TEST_COND("its label is empty", x && x->text[0] == '\0');
    }

    free(v);
    free(far);
    free(big);
    store_close(st);
    return TEST_REPORT();
}
