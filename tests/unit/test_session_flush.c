/*
** test_session_flush.c -- leaving with exchanges a failed save kept out
** (sess_flush, sess_unsaved, sess_export; storage/session.h), on real
** database files in a temp dir with a real SQLite lock: another connection
** holds the write lock (BEGIN IMMEDIATE) while a message is sent, so its
** rows are kept out, as with a full disk or the file-size limit.
**
** Before, nothing wrote them when the user quit right after: the runtime
** kept them in memory for the next message, and a quit lost them without a
** word.  Now the front ends call sess_flush on their way out: it writes
** them once more as the next message would (one bounded wait for the lock,
** store_busy_once) and counts what still fails, for the front end to ask
** or say; and sess_export writes the conversation with them elsewhere.
** The busy time is cut to 200 ms here; waits are counted
** (store_busy_timeouts), not timed.
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

#define BUSY_MS 200

/* A runtime on DB (a new file NAME in the temp dir) with the busy time cut. */
static sess *
open_sess(rwkv_model *m, const tok *t, char *db, size_t cap, const char *name)
{
    sess_config sc;
    sess *s;

    test_tmp_path(db, cap, name);
    sess_test_config(&sc, m, t, db, 3, 6);
    if ((s = sess_test_create(&sc)) != NULL)
        store_set_busy_ms(sess_store(s), BUSY_MS);
    return s;
}

/* Nothing kept out: sess_flush does nothing -- no wait even with the lock
** held, no note -- so a quit is as fast and silent as before. */
static void
nothing_kept(rwkv_model *m, const tok *t)
{
    char db[600], why[RWKV_ERR_MSG] = "x";
    sess *s = open_sess(m, t, db, sizeof db, "none.db");
    sqlite3 *h;
    uint64_t waits;

    if (s == NULL)
        return;
    TEST_COND("none: saved", say(s, "one") == 0 && sess_id(s) == 1 && sess_unsaved(s) == 0);
    if ((h = sess_test_lock(s, db)) == NULL)
        return;
    waits = store_busy_timeouts(sess_store(s));
    all_notes[0] = '\0';
    TEST_CONDF(sess_flush(s, why, sizeof why) == 0 && why[0] == '\0' &&
                   store_busy_timeouts(sess_store(s)) == waits && all_notes[0] == '\0',
               "none: nothing done (%llu waits, notes '%s')",
               (unsigned long long)(store_busy_timeouts(sess_store(s)) - waits), all_notes);
    lock_release(h);
    sess_destroy(s);
}

/*
** Two messages sent under the lock in a saved session: both kept out.  A
** flush while the lock is still held waits once, writes nothing and counts
** both, with why; again, the same (nothing written twice); once the lock
** is gone it writes them, in order, on the branch, and says so.
*/
static void
kept_then_written(rwkv_model *m, const tok *t)
{
    char db[600], why[RWKV_ERR_MSG];
    sess *s = open_sess(m, t, db, sizeof db, "kept.db");
    sqlite3 *h;
    uint64_t waits;
    int64_t turns;

    if (s == NULL)
        return;
    TEST_COND("kept: the first message saved", say(s, "one") == 0 && sess_id(s) == 1);
    if ((h = sess_test_lock(s, db)) == NULL)
        return;
    TEST_COND("kept: answered under the lock", say(s, "two") == 0 && say(s, "three") == 0);
    TEST_CONDF(sess_unsaved(s) == 2, "kept: two exchanges kept out (%zu)", sess_unsaved(s));
    turns = q_int(db, "SELECT count(*) FROM turns");

    waits = store_busy_timeouts(sess_store(s));
    all_notes[0] = '\0';
    TEST_CONDF(sess_flush(s, why, sizeof why) == 2 && strstr(why, "database is locked") &&
                   strstr(why, db),
               "kept: still locked, both counted, why names the file: '%s'", why);
    TEST_CONDF(store_busy_timeouts(sess_store(s)) - waits == 1,
               "kept: one bounded wait (%llu ran out)",
               (unsigned long long)(store_busy_timeouts(sess_store(s)) - waits));
    TEST_CONDF(strstr(all_notes, "saving works again") == NULL, "kept: no success said: '%s'",
               all_notes);
    TEST_CONDF(sess_flush(s, why, sizeof why) == 2 && sess_unsaved(s) == 2 &&
                   q_int(db, "SELECT count(*) FROM turns") == turns,
               "kept: tried again, still out, nothing written (%lld turns, %lld before)",
               (long long)q_int(db, "SELECT count(*) FROM turns"), (long long)turns);

    lock_release(h);
    all_notes[0] = '\0';
    TEST_CONDF(sess_flush(s, why, sizeof why) == 0 && why[0] == '\0' && sess_unsaved(s) == 0,
               "kept: the lock gone, written (%s)", why);
    TEST_CONDF(strstr(all_notes, "saving works again: the 2 earlier exchanges not saved are in "
                                 "session 1 now"),
               "kept: said in one line: '%s'", all_notes);
    TEST_CONDF(sess_flush(s, why, sizeof why) == 0 && n_msg(db, "two") == 1 &&
                   n_msg(db, "three") == 1 && n_msg(db, "one") == 1,
               "kept: each message once (%lld, %lld, %lld)", (long long)n_msg(db, "one"),
               (long long)n_msg(db, "two"), (long long)n_msg(db, "three"));
    sess_destroy(s);
    /* in order, on one branch: the head's path holds every turn */
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns a, turns b WHERE a.text='two' AND "
                         "b.text='three' AND a.role=1 AND b.role=1 AND a.depth < b.depth") == 1 &&
                   q_int(db, "SELECT depth FROM turns WHERE id=(SELECT head_turn FROM sessions)") ==
                       q_int(db, "SELECT max(depth) FROM turns") &&
                   n_replied(db) == 3,
               "kept: one branch, each reply under its message (%lld turns)",
               (long long)q_int(db, "SELECT count(*) FROM turns"));
}

/*
** The first message of a new chat sent under the lock: not even the
** session row was written.  A flush under the lock counts it; once the
** lock is gone the conversation is written as a session, once.
*/
static void
new_chat(rwkv_model *m, const tok *t)
{
    char db[600], why[RWKV_ERR_MSG];
    sess *s = open_sess(m, t, db, sizeof db, "new.db");
    sqlite3 *h = sess_test_lock(s, db);

    if (h == NULL)
        return;
    TEST_COND("new: answered under the lock", say(s, "first") == 0 && sess_id(s) == 0);
    TEST_CONDF(sess_unsaved(s) == 1 && sess_flush(s, why, sizeof why) == 1 &&
                   strstr(why, "database is locked"),
               "new: kept out, counted: %zu '%s'", sess_unsaved(s), why);
    TEST_COND("new: no session yet", q_int(db, "SELECT count(*) FROM sessions") == 0);
    lock_release(h);
    all_notes[0] = '\0';
    TEST_CONDF(sess_flush(s, why, sizeof why) == 0 && sess_id(s) == 1 &&
                   strstr(all_notes, "saving works again"),
               "new: written as session %lld: '%s'", (long long)sess_id(s), all_notes);
    TEST_CONDF(sess_flush(s, why, sizeof why) == 0 &&
                   q_int(db, "SELECT count(*) FROM sessions") == 1 && n_msg(db, "first") == 1 &&
                   q_int(db, "SELECT count(*) FROM turns WHERE role=2") == 1,
               "new: one session, the message once (%lld sessions)",
               (long long)q_int(db, "SELECT count(*) FROM sessions"));
    /* and the next message goes on after it */
    TEST_CONDF(say(s, "second") == 0 && n_msg(db, "second") == 1 &&
                   q_int(db, "SELECT count(*) FROM turns WHERE role=2") == 2,
               "new: the next message after it (%lld turns)",
               (long long)q_int(db, "SELECT count(*) FROM turns"));
    sess_destroy(s);
}

/*
** Saving elsewhere: the conversation with its kept-out exchange, as a JSON
** export that `sessions import` takes back whole, and as Markdown.
*/
static void
export_kept(rwkv_model *m, const tok *t)
{
    char db[600], other[600], *buf = NULL;
    sess *s = open_sess(m, t, db, sizeof db, "exp.db");
    store *st = NULL;
    sqlite3 *h;
    size_t len = 0;
    int64_t id = 0;
    rwkv_err err;

    if (s == NULL)
        return;
    TEST_COND("export: saved first", say(s, "alpha") == 0);
    if ((h = sess_test_lock(s, db)) == NULL)
        return;
    TEST_COND("export: kept out", say(s, "beta *bold*") == 0 && sess_unsaved(s) == 1);
    TEST_CONDF(sess_export(s, STORE_FMT_MD, &buf, &len, &err) == RWKV_OK && len == strlen(buf) &&
                   strstr(buf, "## User\n\nalpha") && strstr(buf, "beta \\*bold\\*") &&
                   strstr(buf, "1 of its 2 exchanges not saved in session 1"),
               "export: Markdown has the kept-out message: %s", buf ? buf : err.msg);
    free(buf);
    buf = NULL;
    TEST_CONDF(sess_export(s, STORE_FMT_JSON, &buf, &len, &err) == RWKV_OK,
               "export: JSON (%s)", err.msg);
    lock_release(h);
    test_tmp_path(other, sizeof other, "imported.db");
    if (buf != NULL && store_open(other, &st, &err) == RWKV_OK) {
        TEST_CONDF(store_import(st, buf, len, "the export", &id, &err) == RWKV_OK && id > 0,
                   "export: imported (%s)", err.msg);
        store_close(st);
        TEST_CONDF(n_msg(other, "alpha") == 1 && n_msg(other, "beta *bold*") == 1 &&
                       q_int(other, "SELECT count(*) FROM turns WHERE role=2") == 2 &&
                       q_int(other, "SELECT count(*) FROM turns WHERE role=0") == 1 &&
                       q_int(other, "SELECT depth FROM turns WHERE id=(SELECT head_turn FROM "
                                    "sessions)") == 4,
                   "export: the import holds the greeting and both exchanges on one branch "
                   "(%lld turns)", (long long)q_int(other, "SELECT count(*) FROM turns"));
    } else {
        TEST_CONDF(0, "export: no import (%s)", err.msg);
    }
    free(buf);
    sess_destroy(s);
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;

    if (test_tmpdir("rwkv-test-session-flush") == NULL)
        return 1;
    if (sess_test_demo(NULL, &m, &t) == 0) {
        nothing_kept(m, t);
        kept_then_written(m, t);
        new_chat(m, t);
        export_kept(m, t);
    }
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
