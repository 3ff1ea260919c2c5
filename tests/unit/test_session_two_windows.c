/*
** test_session_two_windows.c -- two windows (two runtimes, each with its
** own store connection, as two line chats are) resumed on one session send
** a message at the same moment (storage/session_db.c, note_moved;
** storage/store_turn.c, store_turn_head_before).
**
** A window is told "session N was changed in another window" when the head
** it left in the file moved before its message's rows went in.  That check
** was a read before the write transaction: two windows that both read the
** head before either wrote both passed it, and the second one's message
** went beside the first one's as a new branch without a word.  Now the head
** is read inside the write's own transaction, so exactly one of the two
** goes on in place and the other is told, as when they are minutes apart;
** both exchanges stay in the tree.
**
** Deterministic, no timing: a trace hook on window A's connection runs
** window B's whole exchange at a chosen statement of A's save -- the start
** of A's first write (after A's old check had read the head), or the start
** of its second one (A's message row in, its reply row not yet).
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "../../storage/store_int.h"
#include "session_test.h"

#define MAX_TOK 4
#define NOTE "was changed in another window"
#define FORKS "starts a new branch beside it"
#define GOES_ON "goes on this window's branch"

/* The notes of one window. */
struct win {
    char notes[4096];
};

static void
win_note(void *ud, int is_err, const char *msg)
{
    struct win *w = ud;
    size_t k = strlen(w->notes);

    (void)is_err;
    snprintf(w->notes + k, sizeof w->notes - k, "%s\n", msg);
}

/* How often NEEDLE is in HAY. */
static int
count(const char *hay, const char *needle)
{
    int n = 0;

    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/*
** The interleaving: once A's connection has read the session row (its
** check that the session is still there, before its rows), the AT-th
** "BEGIN IMMEDIATE" it starts after that (1: its first write) first runs
** window B's exchange OTHER_MSG -- B writes while A is between its check
** and that write.
*/
static struct {
    sess       *other;
    const char *other_msg;
    int         at, seen_check, begins, fired, other_rc;
} hook;

static int
on_trace(unsigned type, void *ud, void *p, void *x)
{
    const char *sql = x;

    (void)ud;
    (void)p;
    if (type != SQLITE_TRACE_STMT || hook.fired || sql == NULL)
        return 0;
    if (strstr(sql, "FROM sessions s WHERE s.id=") != NULL) {
        hook.seen_check = 1;
        hook.begins = 0;
    } else if (hook.seen_check && strncmp(sql, "BEGIN IMMEDIATE", 15) == 0 &&
               ++hook.begins == hook.at) {
        hook.fired = 1;
        hook.other_rc = say(hook.other, hook.other_msg);
    }
    return 0;
}

/* A window on DB (resuming session SID when not 0) with its notes in W. */
static sess *
window(rwkv_model *m, const tok *t, const char *db, uint64_t seed, int64_t sid, struct win *w)
{
    sess_config sc;
    sess *s;
    rwkv_err err;

    sess_test_config(&sc, m, t, db, seed, MAX_TOK);
    sc.note = win_note;
    sc.cb.ud = w;
    if ((s = sess_test_create(&sc)) == NULL)
        return NULL;
    if (sid != 0 && sess_open(s, sid, -1, &err) != RWKV_OK) {
        TEST_CONDF(0, "open session %lld: %s", (long long)sid, err.msg);
        sess_destroy(s);
        return NULL;
    }
    return s;
}

/* The children of turn ID in DB. */
static int64_t
children(const char *db, int64_t id)
{
    char sql[128];

    snprintf(sql, sizeof sql, "SELECT count(*) FROM turns WHERE parent_id=%lld", (long long)id);
    return q_int(db, sql);
}

/*
** Two windows on one session at head X; A sends, and B's whole exchange
** runs at A's AT-th write (see hook).  FIRST: the window that should go on
** in place (the one whose first row found X), the other told FORKS.
*/
static void
race(rwkv_model *m, const tok *t, int at, const char *name)
{
    char db[512], file[128];
    struct win wa, wb;
    sess *a = NULL, *b = NULL;
    int64_t x, ua = 0, ra = 0, ub = 0, rb = 0;
    int64_t turns0;

    memset(&wa, 0, sizeof wa);
    memset(&wb, 0, sizeof wb);
    snprintf(file, sizeof file, "%s.db", name);
    test_tmp_path(db, sizeof db, file);
    if ((a = window(m, t, db, 1, 0, &wa)) == NULL || say(a, "hi from a") != 0) {
        TEST_CONDF(0, "%s: first exchange", name);
        goto out;
    }
    if ((b = window(m, t, db, 2, sess_id(a), &wb)) == NULL)
        goto out;
    x = sess_head(a);
    TEST_CONDF(x != 0 && sess_head(b) == x, "%s: both windows at head %lld (b at %lld)", name,
               (long long)x, (long long)sess_head(b));
    turns0 = q_int(db, "SELECT count(*) FROM turns");
    wa.notes[0] = wb.notes[0] = '\0';

    memset(&hook, 0, sizeof hook);
    hook.other = b;
    hook.other_msg = "hello from b";
    hook.at = at;
    sqlite3_trace_v2(sess_store(a)->db, SQLITE_TRACE_STMT, on_trace, NULL);
    TEST_CONDF(say(a, "again from a") == 0, "%s: A's exchange", name);
    sqlite3_trace_v2(sess_store(a)->db, 0, NULL, NULL);
    TEST_CONDF(hook.fired && hook.other_rc == 0, "%s: B's exchange ran inside A's save "
               "(fired %d, rc %d)", name, hook.fired, hook.other_rc);
    sess_last_ids(a, &ua, &ra);
    sess_last_ids(b, &ub, &rb);

    /* nothing lost: both exchanges in the tree, both under X */
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns") == turns0 + 4 && ua && ra && ub && rb,
               "%s: both exchanges saved (%lld turns, were %lld)", name,
               (long long)q_int(db, "SELECT count(*) FROM turns"), (long long)turns0);
    TEST_CONDF(children(db, x) == 2, "%s: two branches under turn %lld (%lld)", name,
               (long long)x, (long long)children(db, x));
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns WHERE interrupted=1") == 0,
               "%s: both replies completed", name);
    if (at == 1) {
        /* B wrote between A's old check and A's rows: B found X and goes
        ** on in place; A finds B's rows in its own transaction: told */
        TEST_CONDF(count(wb.notes, NOTE) == 0, "%s: B, first in, is not told: [%s]", name,
                   wb.notes);
        TEST_CONDF(count(wa.notes, NOTE) == 1 && count(wa.notes, FORKS) == 1,
                   "%s: A, second in, is told once that its message starts a branch: [%s]", name,
                   wa.notes);
    } else {
        /* B wrote after A's message row: A went on in place (its reply row
        ** is not a new message); B found A's row: told */
        TEST_CONDF(count(wa.notes, NOTE) == 0, "%s: A, first in, is not told: [%s]", name,
                   wa.notes);
        TEST_CONDF(count(wb.notes, NOTE) == 1 && count(wb.notes, FORKS) == 1,
                   "%s: B, second in, is told once that its message starts a branch: [%s]",
                   name, wb.notes);
    }

    /* minutes apart, as before: B, whose rows were not the last (A's
    ** reply finished after them either way), is told, and its message goes
    ** on its own branch (its reply has no child) */
    {
        sess *late = b;
        struct win *wl = &wb, *wo = &wa;
        wa.notes[0] = wb.notes[0] = '\0';
        TEST_CONDF(say(late, "later") == 0, "%s: a later message", name);
        TEST_CONDF(count(wl->notes, NOTE) == 1 && count(wl->notes, GOES_ON) == 1 &&
                       count(wo->notes, NOTE) == 0,
                   "%s: the later message is told once, on its own branch: [%s]", name,
                   wl->notes);
        wa.notes[0] = wb.notes[0] = '\0';
        TEST_CONDF(say(late, "and again") == 0 && count(wl->notes, NOTE) == 0,
                   "%s: the window alone goes on untold: [%s]", name, wl->notes);
    }
out:
    sess_destroy(a);
    sess_destroy(b);
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;

    if (test_tmpdir("rwkv-test-session-two-windows") == NULL)
        return 1;
    if (sess_test_demo(NULL, &m, &t) == 0) {
        race(m, t, 1, "b_between_check_and_rows");
        race(m, t, 2, "b_between_message_and_reply");
    }
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
