/*
** test_session_finish_nostate.c -- a finished reply whose state cannot be
** saved (a full disk: the state is most of the write) is saved without it
** (sess_save_finish, storage/session_db.c) -- and now the user hears it:
** one note, "saving the state after the reply: WHY (the reply is saved
** without it: ...)", through the runtime's note callback, which the line
** chat prints on stderr and the full-screen client shows as a notice.  It
** was silent: the first failure's reason was dropped.  Said once while it
** goes on failing (a full disk fails every reply's state), again after a
** state was saved.  A trigger on the file fails every reply's snapshot,
** as a full disk would; real database files in a temp dir, the demo model.
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

#define MAX_TOK 6
#define NOTE "saving the state after the reply: "

/* A trigger failing the snapshot of every reply row. */
#define FAIL_STATE                                                                      \
    "CREATE TRIGGER test_fail_state BEFORE INSERT ON snapshots WHEN "                   \
    "(SELECT role FROM turns WHERE id=NEW.turn_id)=2 BEGIN "                            \
    "SELECT RAISE(ABORT, 'disk full (test)'); END"

/* Times the note was said in all_notes. */
static int
n_said(void)
{
    int n = 0;

    for (const char *p = all_notes; (p = strstr(p, NOTE)) != NULL; p++)
        n++;
    return n;
}

/* The last reply row of DB: complete (not interrupted, its text and tokens)
** and with a state (1) or without (0); -1 when it is not complete. */
static int
last_reply_state(const char *db)
{
    if (q_int(db, "SELECT interrupted=0 AND length(text)>0 AND length(tokens)>0 FROM turns "
                  "WHERE role=2 ORDER BY id DESC LIMIT 1") != 1)
        return -1;
    return (int)q_int(db, "SELECT count(*) FROM snapshots WHERE turn_id="
                          "(SELECT max(id) FROM turns WHERE role=2)");
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;
    char db[600];
    sess_config sc;
    sess *s;

    if (test_tmpdir("rwkv-test-session-finish-nostate") == NULL)
        return 1;
    if (sess_test_demo(NULL, &m, &t) != 0)
        goto out;
    test_tmp_path(db, sizeof db, "nostate.db");
    sess_test_config(&sc, m, t, db, 7, MAX_TOK);
    if ((s = sess_test_create(&sc)) == NULL)
        goto out;
    TEST_COND("the first reply saved with its state", say(s, "one") == 0 && last_reply_state(db) == 1);
    TEST_COND("the failing trigger", q_exec(db, FAIL_STATE) == SQLITE_OK);

    all_notes[0] = '\0';
    TEST_COND("a reply whose state fails: answered", say(s, "two") == 0);
    TEST_CONDF(last_reply_state(db) == 0 && sess_unsaved(s) == 0,
               "... saved complete, without its state (%d, %zu kept out)", last_reply_state(db),
               sess_unsaved(s));
    TEST_CONDF(n_said() == 1 && strstr(all_notes, "nostate.db: disk full (test) (") != NULL &&
                   strstr(all_notes, "saved without it") != NULL,
               "... said, once, with the reason: '%s'", all_notes);
    TEST_COND("another: saved without its state", say(s, "three") == 0 && last_reply_state(db) == 0);
    TEST_CONDF(n_said() == 1, "... not said again: '%s'", all_notes);

    q_exec(db, "DROP TRIGGER test_fail_state");
    TEST_COND("the cause gone: saved with its state", say(s, "four") == 0 && last_reply_state(db) == 1);
    TEST_CONDF(n_said() == 1, "... nothing said: '%s'", all_notes);
    q_exec(db, FAIL_STATE);
    TEST_COND("failing again", say(s, "five") == 0 && last_reply_state(db) == 0);
    TEST_CONDF(n_said() == 2, "... said again, once: '%s'", all_notes);
    sess_destroy(s);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns WHERE role=2 AND interrupted=0") == 5,
               "every reply complete in the file (%lld)",
               (long long)q_int(db, "SELECT count(*) FROM turns WHERE role=2 AND interrupted=0"));
    TEST_COND("the file is sound", q_integrity_ok(db));
out:
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
