/*
** test_session_other.c -- a session opened under another strategy
** precision (or another model: sess_other, storage/session_int.h) is not
** written into: its row names one model and one strategy for all its
** turns, and a turn records neither.  The first write goes on as a new
** session of the runtime's model and strategy, holding the conversation,
** said in one line instead of "new session N"; the old session keeps its
** turns and its states.  A message cancelled before its reply, whose new
** session then goes again, leaves the next message to fork (and say so)
** again.  The same precision goes on in place.  Real SQLite files in a temp
** dir, the demo model under `cpu fp32` and `cpu bf16`.
*/
#include "../harness.h"

#include <stdint.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

#define NOTE_BF16(old, new) \
    "session " #old " was made with strategy cpu fp32; with cpu bf16 this conversation " \
    "goes on as session " #new

static sess *
mk(rwkv_model *m, const tok *t, const char *db)
{
    sess_config sc;
    sess *s;

    sess_test_config(&sc, m, t, db, 5, 6);
    sc.chat.no_stop = 1;
    sc.cb.phase = sess_test_cut_phase;
    s = sess_test_create(&sc);
    sess_cut.s = s;
    return s;
}

static int64_t
turns_of(const char *db, int sid)
{
    char sql[120];

    snprintf(sql, sizeof sql, "SELECT count(*) FROM turns WHERE session_id=%d", sid);
    return q_int(db, sql);
}

static int64_t
snaps_of(const char *db, int sid)
{
    char sql[160];

    snprintf(sql, sizeof sql, "SELECT count(*) FROM snapshots JOIN turns ON turns.id=turn_id"
                              " WHERE session_id=%d", sid);
    return q_int(db, sql);
}

static void
other_precision(rwkv_model *m32, rwkv_model *m16, const tok *t)
{
    char db[600];
    int64_t n1, k1;
    rwkv_err err;
    sess *s;

    test_tmp_path(db, sizeof db, "other.db");
    if ((s = mk(m32, t, db)) == NULL)
        return;
    TEST_COND("two exchanges in fp32", say(s, "hello") == 0 && say(s, "more") == 0);
    sess_destroy(s);
    n1 = turns_of(db, 1);
    k1 = snaps_of(db, 1);

    /* opened in bf16: nothing written yet; the next message forks */
    if ((s = mk(m16, t, db)) == NULL)
        return;
    TEST_CONDF(sess_open(s, 1, -1, &err) == RWKV_OK, "open in bf16: %s", err.msg);
    TEST_COND("open: still session 1", sess_id(s) == 1);
    all_notes[0] = '\0';
    TEST_COND("a message in bf16", say(s, "in bf16") == 0);
    TEST_CONDF(sess_id(s) == 2, "the message is in session 2 (%lld)", (long long)sess_id(s));
    TEST_CONDF(strstr(all_notes, NOTE_BF16(1, 2)) != NULL && strstr(all_notes, "new session") == NULL,
               "one line says it: '%s'", all_notes);
    TEST_CONDF(turns_of(db, 1) == n1 && snaps_of(db, 1) == k1,
               "session 1 as it was (%lld turns, %lld states)", (long long)turns_of(db, 1),
               (long long)snaps_of(db, 1));
    TEST_CONDF(turns_of(db, 2) == n1 + 2, "session 2: the conversation and the new exchange (%lld)",
               (long long)turns_of(db, 2));
    TEST_COND("session 2 is bf16's",
              q_int(db, "SELECT count(*) FROM sessions WHERE id=2 AND strategy='cpu bf16'") == 1);
    TEST_COND("session 1 still fp32's",
              q_int(db, "SELECT count(*) FROM sessions WHERE id=1 AND strategy='cpu fp32'") == 1);
    TEST_COND("the next message stays in session 2", say(s, "again") == 0 && sess_id(s) == 2);
    sess_destroy(s);

    /* a message cancelled before its reply: its new session goes again,
    ** and the next message forks again, said again */
    if ((s = mk(m16, t, db)) == NULL)
        return;
    TEST_CONDF(sess_open(s, 1, -1, &err) == RWKV_OK, "open in bf16 again: %s", err.msg);
    sess_cut.cancel = 1;
    (void)sess_test_say_cut(s, "cancelled");
    sess_cut.cancel = 0;
    TEST_CONDF(turns_of(db, 1) == n1, "cancelled: session 1 as it was (%lld)",
               (long long)turns_of(db, 1));
    TEST_COND("cancelled: no session 3 left", q_int(db, "SELECT count(*) FROM sessions WHERE id=3") == 0);
    all_notes[0] = '\0';
    TEST_COND("a message after the cancel", say(s, "after") == 0);
    TEST_CONDF(sess_id(s) > 2 && strstr(all_notes, "session 1 was made with strategy cpu fp32") != NULL &&
                   strstr(all_notes, "new session") == NULL,
               "after the cancel: forked and said again (session %lld: '%s')", (long long)sess_id(s),
               all_notes);
    TEST_CONDF(turns_of(db, 1) == n1, "after the cancel: session 1 as it was (%lld)",
               (long long)turns_of(db, 1));
    sess_destroy(s);

    /* the session's own precision: in place, nothing said */
    if ((s = mk(m32, t, db)) == NULL)
        return;
    TEST_CONDF(sess_open(s, 1, -1, &err) == RWKV_OK, "open in fp32: %s", err.msg);
    all_notes[0] = '\0';
    TEST_COND("fp32: a message", say(s, "plain") == 0);
    TEST_CONDF(sess_id(s) == 1 && turns_of(db, 1) == n1 + 2 && strstr(all_notes, "goes on as") == NULL,
               "fp32: in session 1 (%lld: '%s')", (long long)sess_id(s), all_notes);
    sess_destroy(s);
}

int
main(void)
{
    rwkv_model *m32 = NULL, *m16 = NULL;
    tok *t = NULL;

    if (test_tmpdir("rwkv-test-session-other") == NULL)
        return 1;
    if (sess_test_demo(NULL, &m32, &t) == 0 && sess_test_demo("cpu bf16", &m16, NULL) == 0)
        other_precision(m32, m16, t);
    rwkv_model_close(m16);
    rwkv_model_close(m32);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
