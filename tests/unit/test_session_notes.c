/*
** test_session_notes.c -- the session runtime's notes in the front end's
** language (sess_config.tr), the words put into them and the notes made
** below it (the store's replay plan) included.  The hook here marks every
** string it is asked for with "[T] ", so what went through it shows.  Real
** SQLite files in a temp dir, the demo model:
**   - a save that fails (a trigger refuses the row, as a full disk would):
**     "saving WHAT: ..." with WHAT through the hook too;
**   - a session resumed under another precision: the store's "saved state
**     of turn N not used: made with fp32, ..." through it, its reason too.
*/
#include "../harness.h"

#include <stdint.h>
#include <sys/stat.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

/* The stand-in language: MSGID marked (a ring of static copies: the hook's
** strings outlive the call, as a catalog's do). */
static const char *
mark_tr(const char *msgid)
{
    static char ring[16][600];
    static int next;
    char *b = ring[next++ % 16];

    snprintf(b, sizeof ring[0], "[T] %s", msgid);
    return b;
}

static sess *
mk(rwkv_model *m, const tok *t, const char *db, int translated)
{
    sess_config sc;

    sess_test_config(&sc, m, t, db, 5, 6);
    if (translated)
        sc.tr = mark_tr;
    return sess_test_create(&sc);
}

static void
save_failure(rwkv_model *m, const tok *t)
{
    char db[600];
    rwkv_err err;
    sess *s;

    test_tmp_path(db, sizeof db, "notes-save.db");
    s = mk(m, t, db, 0);
    if (s == NULL)
        return;
    TEST_COND("a first exchange", say(s, "hello there") == 0);
    sess_destroy(s);
    TEST_COND("rows refused from now on",
              q_exec(db, "CREATE TRIGGER no_rows BEFORE INSERT ON turns BEGIN "
                         "SELECT RAISE(ABORT, 'no room (the test refuses rows)'); END") == 0);
    s = mk(m, t, db, 1);
    if (s == NULL)
        return;
    TEST_CONDF(sess_open(s, 1, -1, &err) == RWKV_OK, "resumed: %s", err.msg);
    all_notes[0] = '\0';
    TEST_COND("the chat goes on", say(s, "and then?") == 0);
    TEST_CONDF(strstr(all_notes, "[T] saving [T] your message: ") != NULL &&
                   strstr(all_notes, "no room") != NULL,
               "the failed save's note and its word through the hook: '%s'", all_notes);
    sess_destroy(s);
}

static void
replay_note(rwkv_model *m, const tok *t)
{
    char db[600];
    rwkv_model *m16 = NULL;
    rwkv_err err;
    sess *s;

    test_tmp_path(db, sizeof db, "notes-replay.db");
    s = mk(m, t, db, 0);
    if (s == NULL)
        return;
    TEST_COND("one exchange in fp32", say(s, "hello there") == 0 && say(s, "more") == 0);
    sess_destroy(s);
    if (sess_test_demo("cpu bf16", &m16, NULL) != 0)
        return;
    s = mk(m16, t, db, 1);
    if (s != NULL) {
        all_notes[0] = '\0';
        TEST_CONDF(sess_open(s, 1, -1, &err) == RWKV_OK, "resumed in bf16: %s", err.msg);
        TEST_CONDF(strstr(all_notes, "[T] saved state of turn ") != NULL &&
                       strstr(all_notes, "not used: [T] made with fp32, the strategy computes in bf16") !=
                           NULL,
                   "the store's replay note and its reason through the hook: '%s'", all_notes);
        sess_destroy(s);
    }
    rwkv_model_close(m16);
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;

    if (test_tmpdir("rwkv-test-session-notes") == NULL)
        return 1;
    if (sess_test_demo(NULL, &m, &t) == 0) {
        save_failure(m, t);
        replay_note(m, t);
    }
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
