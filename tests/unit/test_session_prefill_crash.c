/*
** test_session_prefill_crash.c -- a process killed (SIGKILL) while it fed
** a long message: its rows were saved at submit, the message without its
** state, the reply begun with no token.  The open replays the message to
** rebuild the state after it; a continuation (M-r, /continue) or a
** regeneration (C-r, /regen) of that empty reply then starts from there:
**   - no prefill phase and no replay progress: the message is not fed a
**     second time;
**   - the tokens are those of a run that had the state saved (the same
**     crashed file opened once before, so that its open replays nothing
**     and the continuation or regeneration feeds the message itself).
** On the real runtime, a real SQLite file and the demo model; the crash is
** a child process that kills itself at ~30% of the message's prefill.
*/
#include "../harness.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

#define MSG_BYTES 3000
#define MAX_TOK   10

static int      phases[8];         /* phase reports seen, by enum chat_phase */
static uint64_t prog_calls;        /* replay progress reports */
static uint64_t prog_total;        /* the largest replay total reported */
static int      kill_armed;

static void
on_phase(void *ud, int ph)
{
    (void)ud;
    if (ph >= 0 && ph < 8)
        phases[ph]++;
}

static void
on_progress(void *ud, uint64_t done, uint64_t total)
{
    (void)ud;
    (void)done;
    prog_calls++;
    if (total > prog_total)
        prog_total = total;
}

/* The crash: ~30% into the long message's prefill. */
static void
kill_stats(void *ud, const chat_stats *st)
{
    (void)ud;
    if (kill_armed && st->prefill_total > MSG_BYTES / 2 &&
        st->prefill_tokens * 10 >= st->prefill_total * 3)
        raise(SIGKILL);
}

static void
counts_clear(void)
{
    memset(phases, 0, sizeof phases);
    prog_calls = prog_total = 0;
    all_notes[0] = '\0';
}

static sess *
mk(rwkv_model *m, const tok *t, const char *db)
{
    sess_config sc;

    sess_test_config(&sc, m, t, db, 7, MAX_TOK);
    sc.chat.no_stop = 1;
    sc.cb.phase = on_phase;
    sc.cb.stats = kill_stats;
    sc.progress = on_progress;
    return sess_test_create(&sc);
}

/* The child: one exchange, then the long message, killed in its prefill. */
static void
crash_child(const char *db)
{
    static char msg[MSG_BYTES + 1];
    rwkv_model *m = NULL;
    tok *t = NULL;
    rwkv_err err;
    sess *s;

    for (size_t i = 0; i < MSG_BYTES; i++)
        msg[i] = "abcdefgh "[(i * 7 + i / 13) % 9];
    msg[MSG_BYTES] = '\0';
    if (sess_test_demo(NULL, &m, &t) != 0 || (s = mk(m, t, db)) == NULL || say(s, "hello there"))
        _exit(2);
    kill_armed = 1;
    if (sess_submit(s, msg, strlen(msg), &err) == RWKV_OK)
        (void)sess_run(s, &err);
    _exit(3);                          /* not killed */
}

static int
copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b;
    char buf[65536];
    size_t k;
    int rc = 0;

    if (a == NULL)
        return 0;                      /* (no WAL: nothing to copy) */
    if ((b = fopen(to, "wb")) == NULL) {
        fclose(a);
        return -1;
    }
    while ((k = fread(buf, 1, sizeof buf, a)) > 0)
        if (fwrite(buf, 1, k, b) != k)
            rc = -1;
    fclose(a);
    if (fclose(b) != 0)
        rc = -1;
    return rc;
}

/* DB (with its WAL) copied to NAME in the temp dir, its path into OUT. */
static int
copy_db(const char *db, const char *name, char *out, size_t cap)
{
    char a[700], b[700];

    test_tmp_path(out, cap, name);
    snprintf(a, sizeof a, "%s-wal", db);
    snprintf(b, sizeof b, "%s-wal", out);
    return copy_file(db, out) != 0 || copy_file(a, b) != 0 ? -1 : 0;
}

/* What an open and a continuation or regeneration did. */
struct run {
    uint64_t open_replayed;            /* the open's replay total */
    int      prefills;                 /* prefill phases after the open */
    uint64_t replays;                  /* replay progress reports after it */
    int32_t  ids[64];
    size_t   n;
    int      ok;
};

/* Open session 1 of DB (PRIME: opened once before, keeping the state the
** open rebuilds), then continue (REGEN: regenerate) its last reply. */
static void
go(rwkv_model *m, const tok *t, const char *db, int regen, int prime, struct run *r)
{
    rwkv_err err = { 0 };
    const chat_turn *ct;
    sess *s;

    memset(r, 0, sizeof *r);
    if (prime) {
        if ((s = mk(m, t, db)) == NULL)
            return;
        if (sess_open(s, 1, -1, &err) != RWKV_OK)
            printf("     prime open: %s\n", err.msg);
        sess_destroy(s);
    }
    if ((s = mk(m, t, db)) == NULL)
        return;
    counts_clear();
    if (sess_open(s, 1, -1, &err) != RWKV_OK) {
        printf("     open: %s\n", err.msg);
        sess_destroy(s);
        return;
    }
    r->open_replayed = prog_total;
    counts_clear();
    if ((regen ? sess_regen(s, &err) : sess_continue(s, &err)) != RWKV_OK ||
        sess_run(s, &err) != RWKV_OK) {
        printf("     %s: %s\n", regen ? "regen" : "continue", err.msg);
        sess_destroy(s);
        return;
    }
    r->prefills = phases[CHAT_PREFILL];
    r->replays = prog_calls;
    ct = chat_turn_at(sess_chat(s), chat_n_turns(sess_chat(s)) - 1);
    if (ct != NULL && ct->n_reply <= 64) {
        r->n = ct->n_reply;
        memcpy(r->ids, ct->reply_ids, r->n * sizeof *r->ids);
        r->ok = 1;
    }
    sess_destroy(s);
}

static void
one_case(rwkv_model *m, const tok *t, const char *crashed, int regen)
{
    const char *what = regen ? "regenerate" : "continue";
    char a[600], b[600];
    struct run got, want;

    if (copy_db(crashed, regen ? "regen.db" : "cont.db", a, sizeof a) != 0 ||
        copy_db(crashed, regen ? "regen-ref.db" : "cont-ref.db", b, sizeof b) != 0) {
        TEST_CONDF(0, "%s: copies of the crashed file", what);
        return;
    }
    go(m, t, a, regen, 0, &got);
    go(m, t, b, regen, 1, &want);
    TEST_CONDF(got.ok && want.ok, "%s: both runs went", what);
    TEST_CONDF(got.open_replayed > MSG_BYTES,
               "%s: the open replays the message (%llu tokens)", what,
               (unsigned long long)got.open_replayed);
    TEST_CONDF(got.prefills == 0 && got.replays == 0,
               "%s: the message is not fed again (%d prefill phases, %llu replay reports)", what,
               got.prefills, (unsigned long long)got.replays);
    TEST_CONDF(want.open_replayed == 0 && want.prefills == 1,
               "%s, the state saved: the open replays nothing (%llu), the message is fed (%d)",
               what, (unsigned long long)want.open_replayed, want.prefills);
    TEST_CONDF(got.n == MAX_TOK && got.n == want.n &&
                   memcmp(got.ids, want.ids, got.n * sizeof *got.ids) == 0,
               "%s: the tokens of the run that had the state saved (%zu / %zu tokens)", what,
               got.n, want.n);
}

int
main(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;
    char db[600];
    pid_t pid;
    int st = 0;

    if (test_tmpdir("rwkv-test-session-prefill-crash") == NULL)
        return 1;
    test_tmp_path(db, sizeof db, "crashed.db");
    fflush(stdout);
    if ((pid = fork()) == 0)
        crash_child(db);
    TEST_CONDF(pid > 0 && waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) &&
                   WTERMSIG(st) == SIGKILL,
               "the child was killed in the prefill (status %d)", st);
    TEST_CONDF(q_int(db, "SELECT count(*) FROM turns t WHERE t.id = (SELECT max(id) FROM turns)"
                         " AND length(t.tokens) = 0 AND t.interrupted != 0") == 1 &&
                   q_int(db, "SELECT count(*) FROM snapshots WHERE turn_id >= "
                             "(SELECT max(id) - 1 FROM turns)") == 0,
               "it left the message without its state, the reply begun and empty");
    if (sess_test_demo(NULL, &m, &t) == 0) {
        one_case(m, t, db, 0);
        one_case(m, t, db, 1);
    }
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
