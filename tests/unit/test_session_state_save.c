/*
** test_session_state_save.c -- saving the state as a state file
** (sess_state_save, storage/session.h: the client's state-save key and the
** line chat's /save) after a message sess_abandon kept before its prompt
** was fed, on real database files in a temp dir.
**
** A quit that cut a message's prefill while its save failed (the lock of
** another program) or before the greeting was fed keeps the message in the
** chat with an empty interrupted reply, its prompt not fed (s->unfed): the
** chat's state is still the one before it, and the next message feeds it
** first (session.c, feed_kept).  After "Esc back" from the quit question the
** user sees that message in the transcript; both front ends saved
** chat_state() as it was -- the state from before that message, a file
** that goes on as if it had never been sent.  Now sess_state_save feeds the
** kept message first, as the next message would (which then does not feed
** it again): the file holds the state the saved tokens give, the same
** numbers a resume's replay of the session gives.
**
** Also: without a kept message the file is the chat's state as it was; the
** session database is never written over.
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
#define MAX_TOK 6

/* The state in state file PATH, loaded for M: its hash, 0 when it failed. */
static uint64_t
file_hash(rwkv_model *m, const char *path)
{
    rwkv_state *st = NULL;
    rwkv_err err = { 0 };
    uint64_t h = 0;

    if (rwkv_state_create(m, &st, &err) == RWKV_OK &&
        rwkv_state_load_file(m, path, st, &err) == RWKV_OK)
        h = test_state_hash(st);
    else
        printf("     load %s: %s\n", path, err.msg);
    rwkv_state_destroy(st);
    return h;
}

/* The state chat of S goes on from (chat_state_next: the current state,
** with the "\n\n" the next message is fed after when the last reply was cut
** at MAX_TOK, as these are): what a saved file holds.  0 when it failed. */
static uint64_t
next_hash(rwkv_model *m, sess *s)
{
    rwkv_state *st = NULL;
    rwkv_err err = { 0 };
    uint64_t h = 0;

    if (rwkv_state_create(m, &st, &err) == RWKV_OK &&
        chat_state_next(sess_chat(s), st, &err) == RWKV_OK)
        h = test_state_hash(st);
    else
        printf("     next state: %s\n", err.msg);
    rwkv_state_destroy(st);
    return h;
}

static sess *
open_sess(rwkv_model *m, const tok *t, char *db, size_t cap, const char *name)
{
    return sess_test_open_cut(m, t, db, cap, name, MAX_TOK, BUSY_MS, NULL);
}

/* MSG sent in S and abandoned at its first step: 0, or -1 (printed). */
static int
say_abandoned(sess *s, const char *msg)
{
    sess_cut.cancel = 0;
    return sess_test_say_cut(s, msg) == RWKV_OK ? 0 : -1;
}

/*
** FIRST 0: "one" saved, then "two" kept under another program's lock; 1:
** "two" the first message, kept before the greeting was fed.  The state
** saved after "Esc back" is the one the saved tokens give; a message after
** it goes on from there without feeding "two" again.
*/
static void
kept(rwkv_model *m, const tok *t, int first)
{
    const char *nm = first ? "first" : "lock";
    char db[600], file[640], name[32], why[RWKV_ERR_MSG];
    sess *s;
    sqlite3 *h = NULL;
    rwkv_err err = { 0 };
    uint64_t saved, live, replay;
    int rc;

    snprintf(name, sizeof name, "kept-%d.db", first);
    if ((s = open_sess(m, t, db, sizeof db, name)) == NULL)
        return;
    snprintf(file, sizeof file, "%s.state.pth", db);
    if (!first && (say(s, "one") != 0 || (h = lock_take(db)) == NULL)) {
        TEST_COND("set up", 0);
        sess_destroy(s);
        return;
    }
    TEST_CONDF(say_abandoned(s, "two") == 0 && sess_started(s) && sess_unsaved(s) == 1,
               "%s: \"two\" kept (%zu out)", nm, sess_unsaved(s));
    if (h != NULL)
        lock_release(h);

    /* Esc back from the quit question, then the state saved */
    rc = sess_state_save(s, file, &err);
    TEST_CONDF(rc == RWKV_OK, "%s: saved (%s)", nm, rc == RWKV_OK ? "" : err.msg);
    saved = file_hash(m, file);
    live = sess_test_state_hash(s);
    TEST_CONDF(saved != 0 && saved == next_hash(m, s),
               "%s: the file holds the state the chat goes on from now", nm);
    TEST_CONDF(sess_flush(s, why, sizeof why) == 0, "%s: \"two\" written ('%s')", nm, why);
    replay = sess_test_replayed(m, t, db, MAX_TOK);
    TEST_CONDF(replay != 0 && live == replay,
               "%s: the chat's state includes \"two\": the one its saved tokens give "
               "(%016llx, replayed %016llx)", nm, (unsigned long long)live,
               (unsigned long long)replay);

    /* the next message does not feed "two" a second time */
    TEST_CONDF(say(s, "three") == 0 && sess_flush(s, why, sizeof why) == 0,
               "%s: a next message", nm);
    live = sess_test_state_hash(s);
    sess_destroy(s);
    replay = sess_test_replayed(m, t, db, MAX_TOK);
    TEST_CONDF(replay != 0 && live == replay,
               "%s: then the state is the one its saved tokens give (%016llx, replayed %016llx)",
               nm, (unsigned long long)live, (unsigned long long)replay);
}

/* Nothing kept: the file is the chat's state as it was; never over the
** session database. */
static void
plain(rwkv_model *m, const tok *t)
{
    char db[600], file[640];
    sess *s = open_sess(m, t, db, sizeof db, "plain.db");
    rwkv_err err = { 0 };
    uint64_t live;

    if (s == NULL)
        return;
    snprintf(file, sizeof file, "%s.state.pth", db);
    TEST_COND("plain: a message", say(s, "one") == 0);
    live = sess_test_state_hash(s);
    TEST_CONDF(sess_state_save(s, file, &err) == RWKV_OK &&
                   file_hash(m, file) == next_hash(m, s) && sess_test_state_hash(s) == live,
               "plain: the state the chat goes on from; the chat's unchanged");
    TEST_CONDF(sess_state_save(s, db, &err) == RWKV_EINVAL &&
                   strstr(err.msg, "is the session database") && q_integrity_ok(db) &&
                   q_int(db, "SELECT count(*) FROM turns WHERE text='one'") == 1,
               "plain: not over the session database (%s)", err.msg);
    sess_destroy(s);
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;

    if (test_tmpdir("rwkv-test-session-state-save") == NULL)
        return 1;
    if (sess_test_demo(NULL, &m, &t) == 0) {
        kept(m, t, 0);
        kept(m, t, 1);
        plain(m, t);
    }
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
