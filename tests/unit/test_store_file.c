/*
** test_store_file.c -- the session database file taken away under an open
** store (storage/store_file.c) and under a running chat (the session
** runtime), on real SQLite files in a temp dir: truncated (: > db) with its
** pages still in the WAL and after a checkpoint, deleted, renamed over by
** another database (mv), overwritten in place with something else.
** SQLite itself reports none of these at the next write (checked here);
** store_check_file names each one, a lost store's close leaves the path as
** the user made it, and a running chat says so once, keeps its turns in
** memory and goes on without saving.  Model: the in-memory demo model.
*/
#include "../harness.h"

#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

/* A user turn TEXT under PARENT in session SID: its id, or 0 (ERR). */
static int64_t
user_turn(store *st, int64_t sid, int64_t parent, const char *text, rwkv_err *err)
{
    return add_turn(st, sid, parent, STORE_ROLE_USER, text, NULL, 0, NULL, 0, NULL, err);
}

/* NAME's -wal or -shm file is there. */
static int
beside(const char *db, const char *suffix)
{
    char p[700];
    snprintf(p, sizeof p, "%s%s", db, suffix);
    return access(p, F_OK) == 0;
}

/* A database NAME in the temp dir with one session holding one turn: the
** store (open) and its path in DB. */
static store *
fresh(const char *name, char *db, size_t cap, int64_t *sid, int64_t *turn)
{
    store *st = NULL;
    rwkv_err err;

    test_tmp_path(db, cap, name);
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open %s: %s", name, err.msg);
        return NULL;
    }
    *sid = new_session(st, "mine");
    *turn = user_turn(st, *sid, 0, "one", &err);
    TEST_CONDF(*sid > 0 && *turn > 0, "%s: a session and a turn", name);
    return st;
}

/* The check's verdict on ST names DB and WHAT; the store is lost. */
static void
check_says(store *st, const char *db, const char *what, const char *name)
{
    rwkv_err err;
    int rc = store_check_file(st, &err);

    TEST_CONDF(rc == RWKV_EDB && strstr(err.msg, db) == err.msg && strstr(err.msg, what) &&
                   strchr(err.msg, '\n') == NULL && store_is_lost(st),
               "%s: check says '%s' (rc %d: %s)", name, what, rc, err.msg);
}

/* Truncated while its pages are all in the WAL, and after a checkpoint. */
static void
test_truncated(void)
{
    char db[600];
    int64_t sid, t1;
    rwkv_err err;
    store *st = fresh("trunc.db", db, sizeof db, &sid, &t1);

    if (st == NULL)
        return;
    TEST_COND("intact: check ok", store_check_file(st, &err) == RWKV_OK && !store_is_lost(st));
    TEST_COND("truncate", truncate(db, 0) == 0);
    /* SQLite: the pages are in its WAL, the write goes through */
    TEST_CONDF(user_turn(st, sid, t1, "two", &err) > 0, "SQLite writes on (%s)", err.msg);
    check_says(st, db, "while in use, the session database was truncated", "truncated");
    store_close(st);
    TEST_CONDF(file_size(db) == 0 && !beside(db, "-wal") && !beside(db, "-shm"),
               "close leaves the truncated file as it is (%ld bytes)", file_size(db));
    TEST_COND("reopened: a new database", store_open(db, &st, &err) == RWKV_OK &&
                                              q_int(db, "SELECT count(*) FROM sessions") == 0);
    store_close(st);

    /* after a checkpoint the pages must come from the file: SQLite fails */
    st = fresh("trunc2.db", db, sizeof db, &sid, &t1);
    if (st == NULL)
        return;
    TEST_COND("checkpoint", q_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)") == 0);
    TEST_COND("truncate 2", truncate(db, 0) == 0);
    TEST_CONDF(user_turn(st, sid, t1, "two", &err) == 0 && strstr(err.msg, "not a database"),
               "SQLite after a checkpoint: '%s'", err.msg);
    check_says(st, db, "while in use, the session database was truncated", "truncated after a checkpoint");
    store_close(st);
    TEST_COND("close leaves it empty", file_size(db) == 0 && !beside(db, "-wal"));

    /* not checked before close (the client's browsing connection): the
    ** close itself finds it and writes nothing back */
    st = fresh("trunc3.db", db, sizeof db, &sid, &t1);
    if (st == NULL)
        return;
    TEST_COND("truncate 3", truncate(db, 0) == 0);
    store_close(st);
    TEST_COND("unchecked close leaves it empty", file_size(db) == 0 && !beside(db, "-wal"));
}

/* Deleted, renamed over, overwritten in place. */
static void
test_replaced(void)
{
    char db[600], other[600];
    int64_t sid, t1, osid, ot;
    rwkv_err err;
    store *st = fresh("rm.db", db, sizeof db, &sid, &t1), *o;
    FILE *f;

    if (st == NULL)
        return;
    TEST_COND("rm", unlink(db) == 0);
    TEST_CONDF(user_turn(st, sid, t1, "two", &err) > 0, "SQLite writes into the deleted file (%s)",
               err.msg);
    check_says(st, db, "while in use, the session database was deleted", "deleted");
    store_close(st);
    TEST_COND("deleted: nothing left at the path", access(db, F_OK) != 0 && !beside(db, "-wal") &&
                                                   !beside(db, "-shm"));

    st = fresh("mv.db", db, sizeof db, &sid, &t1);
    o = fresh("other.db", other, sizeof other, &osid, &ot);
    if (st == NULL || o == NULL)
        return;
    store_close(o);
    TEST_COND("mv other db", rename(other, db) == 0);
    TEST_CONDF(user_turn(st, sid, t1, "two", &err) > 0, "SQLite writes into the renamed-over file (%s)",
               err.msg);
    check_says(st, db, "while in use, the session database was replaced by another file", "renamed over");
    store_close(st);
    TEST_COND("renamed over: the other database intact, without our turn",
              q_integrity_ok(db) && q_int(db, "SELECT count(*) FROM turns WHERE text='two'") == 0 &&
                  q_int(db, "SELECT count(*) FROM turns") == 1 && !beside(db, "-wal"));

    st = fresh("cp.db", db, sizeof db, &sid, &t1);
    if (st == NULL)
        return;
    f = fopen(db, "r+");
    TEST_COND("overwrite in place", f != NULL && fputs("not a database any more\n", f) >= 0);
    if (f)
        fclose(f);
    check_says(st, db, "while in use, the session database was overwritten (it is no longer a database)", "overwritten");
    store_close(st);
}

/* cp FROM TO: TO truncated and written in place (same inode). */
static int
copy_over(const char *from, const char *to)
{
    size_t n = 0;
    unsigned char *buf = test_slurp(from, &n);
    FILE *f = buf ? fopen(to, "wb") : NULL;
    int ok = f != NULL && fwrite(buf, 1, n, f) == n;

    if (f != NULL && fclose(f) != 0)
        ok = 0;
    free(buf);
    return ok ? 0 : -1;
}

/* Another rwkv-tui database copied over the file in place under a chat (the
** inode stays, the header is a database's): the chat's session id is
** another conversation there; the chat goes on as a new session of it. */
static void
chat_copied_over(rwkv_model *m, const tok *t)
{
    char db[600], other[600];
    int64_t osid, ot;
    sess_config sc;
    sess *s;
    store *o = fresh("cp-other.db", other, sizeof other, &osid, &ot);

    store_close(o);
    usleep(3000);                       /* another creation time for session 1 */
    test_tmp_path(db, sizeof db, "cp-chat.db");
    sess_test_config(&sc, m, t, db, 3, 6);
    if (o == NULL || (s = sess_test_create(&sc)) == NULL)
        return;
    TEST_COND("cp: first message saved", say(s, "hello") == 0 && sess_id(s) == 1);
    TEST_COND("cp: checkpoint", q_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)") == 0);
    TEST_COND("cp other.db db", copy_over(other, db) == 0);
    all_notes[0] = '\0';
    TEST_COND("cp: the next message is answered", say(s, "again") == 0);
    TEST_CONDF(strstr(all_notes, "session 1 of ") && strstr(all_notes, db) &&
                   strstr(all_notes, "is another conversation now") &&
                   strstr(all_notes, "goes on as session 2"),
               "cp: said: '%s'", all_notes);
    TEST_COND("cp: saving goes on", sess_store(s) != NULL && sess_id(s) == 2);
    sess_destroy(s);
    TEST_CONDF(q_integrity_ok(db) &&
                   q_int(db, "SELECT count(*) FROM sessions WHERE id=1 AND title='mine'") == 1 &&
                   q_int(db, "SELECT count(*) FROM turns WHERE session_id=1") == 1 &&
                   q_int(db, "SELECT count(*) FROM turns WHERE session_id=2 AND text IN ('hello', 'again')") == 2,
               "cp: the other's session untouched, this conversation beside it (%lld sessions)",
               (long long)q_int(db, "SELECT count(*) FROM sessions"));
}

/* A chat running on the file: said once, the turns kept, no more saving. */
static void
test_chat(void)
{
    char db[600];
    rwkv_open_opts o;
    rwkv_model *m = NULL;
    tok *t = NULL;
    rwkv_err err;
    sess_config sc;
    sess *s;
    int n_err = 0;

    memset(&o, 0, sizeof o);
    o.n_threads = 2;
    tok_create_bytes(&t, &err);
    if (rwkv_model_open_demo(1, &o, &m, &err) != RWKV_OK) {
        TEST_CONDF(0, "demo model: %s", err.msg);
        tok_close(t);
        return;
    }
    test_tmp_path(db, sizeof db, "chat.db");
    sess_test_config(&sc, m, t, db, 3, 6);
    if ((s = sess_test_create(&sc)) != NULL) {
        TEST_COND("first message saved", say(s, "hello") == 0 && sess_id(s) == 1);
        TEST_COND("truncated under the chat", truncate(db, 0) == 0);
        all_notes[0] = '\0';
        TEST_COND("the next message is answered", say(s, "again") == 0);
        for (const char *p = all_notes; (p = strstr(p, "without saving")) != NULL; p++)
            n_err++;
        TEST_CONDF(n_err == 1 && strstr(all_notes, db) &&
                       strstr(all_notes, "while in use, the session database was truncated") &&
                       strstr(all_notes, "as with --no-db"),
                   "one line says so: '%s'", all_notes);
        TEST_CONDF(chat_n_turns(sess_chat(s)) == 2 &&
                       strcmp(chat_turn_at(sess_chat(s), 1)->user, "again") == 0 &&
                       chat_turn_at(sess_chat(s), 1)->n_reply > 0,
                   "the turn is kept in memory (%zu turns)", chat_n_turns(sess_chat(s)));
        TEST_COND("no more saving", sess_store(s) == NULL && sess_id(s) == 0);
        all_notes[0] = '\0';
        TEST_CONDF(say(s, "third") == 0 && all_notes[0] == '\0' &&
                       chat_n_turns(sess_chat(s)) == 3,
                   "goes on quietly: '%s'", all_notes);
        TEST_COND("open refused as with --no-db", sess_open(s, 1, -1, &err) == RWKV_EINVAL);
        sess_destroy(s);
        TEST_COND("the file stays as the user left it", file_size(db) == 0 && !beside(db, "-wal"));
    }
    chat_copied_over(m, t);
    rwkv_model_close(m);
    tok_close(t);
}

int
main(void)
{
    if (test_tmpdir("rwkv-test-store-file") == NULL)
        return 1;
    test_truncated();
    test_replaced();
    test_chat();
    test_tmpdir_remove();
    return TEST_REPORT();
}
