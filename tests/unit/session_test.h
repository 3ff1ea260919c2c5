/*
** session_test.h -- shared by the session-runtime tests: a runtime
** (storage/session.h) on a database file in the test's temp dir with its
** notes kept, the demo model (on a strategy), one message said and
** answered, a job cut at its first phase report (a quit or a cancel), and
** a hash of the chat's state.  Direct SQL on the file comes from
** store_test.h (included here).  Include after tests/harness.h,
** core/chat/chat.h, storage/session.h and storage/store.h.
*/
#ifndef RWKV_TEST_SESSION_TEST_H
#define RWKV_TEST_SESSION_TEST_H

#include <stdint.h>

#include "store_test.h"

/* The last note of the runtime, and every note since all_notes was emptied
** (the tests empty either before the call whose note they check). */
static char last_note[1024];
static char all_notes[4096];

/* The runtime's note callback: keeps MSG in last_note and all_notes. */
static inline void
on_note(void *ud, int is_err, const char *msg)
{
    size_t k = strlen(all_notes);

    (void)ud;
    (void)is_err;
    snprintf(last_note, sizeof last_note, "%s", msg);
    snprintf(all_notes + k, sizeof all_notes - k, "%s\n", msg);
}

/* SC for a runtime on DB (NULL: nothing saved) with model M and tokenizer
** T (both borrowed, as by the runtime): the demo model's path (none), notes
** to on_note, the seed SEED and at most MAX_TOKENS tokens a reply, both as
** if given at launch.  The caller sets the rest before sess_test_create. */
static inline void
sess_test_config(sess_config *sc, rwkv_model *m, const tok *t, const char *db, uint64_t seed,
                 int max_tokens)
{
    memset(sc, 0, sizeof *sc);
    sc->db_path = db;
    sc->model = m;
    sc->tok = t;
    chat_config_init(&sc->chat);
    sc->chat.samp.max_tokens = max_tokens;
    sc->chat.samp.seed = seed;
    sc->chat.samp_set = PARAMS_BIT(params_find("seed")) | PARAMS_BIT(params_find("max_tokens"));
    sc->note = on_note;
}

/* The runtime of SC (sess_destroy it), or NULL with the error printed. */
static inline sess *
sess_test_create(const sess_config *sc)
{
    sess *s = NULL;
    rwkv_err err;

    if (sess_create(sc, &s, &err) != RWKV_OK) {
        printf("FAIL sess_create: %s\n", err.msg);
        return NULL;
    }
    return s;
}

/* The demo model under STRATEGY (NULL: cpu fp32) on 2 threads into *M
** (rwkv_model_close), and, when T is not NULL, the byte tokenizer into *T
** (tok_close).  0, or -1 with a failed check. */
static inline int
sess_test_demo(const char *strategy, rwkv_model **m, tok **t)
{
    rwkv_open_opts o;
    rwkv_err err;

    memset(&o, 0, sizeof o);
    o.n_threads = 2;
    o.strategy = strategy;
    *m = NULL;
    if (t != NULL && tok_create_bytes(t, &err) != RWKV_OK) {
        TEST_CONDF(0, "byte tokenizer: %s", err.msg);
        return -1;
    }
    if (rwkv_model_open_demo(1, &o, m, &err) != RWKV_OK) {
        TEST_CONDF(0, "demo model (%s): %s", strategy ? strategy : "cpu fp32", err.msg);
        return -1;
    }
    return 0;
}

/* A 64-bit FNV-1a hash of state ST (two states told apart in a log line). */
static inline uint64_t
test_state_hash(const rwkv_state *st)
{
    const unsigned char *b = (const unsigned char *)rwkv_state_cdata(st);
    size_t n = rwkv_state_len(st) * sizeof(float);
    uint64_t h = 1469598103934665603ull;

    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* The same of the chat's state in S. */
static inline uint64_t
sess_test_state_hash(sess *s)
{
    return test_state_hash(chat_state(sess_chat(s)));
}

/* Submit MSG in S and run the reply: 0, or -1 with the error printed. */
static inline int
say(sess *s, const char *msg)
{
    rwkv_err err;

    if (sess_submit(s, msg, strlen(msg), &err) != RWKV_OK || sess_run(s, &err) != RWKV_OK) {
        printf("     say: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* Another connection holding DB's write lock (lock_take) beside the
** runtime S: it, or NULL with S destroyed (the case cannot go on); S NULL
** (its open failed): NULL, no lock tried. */
static inline sqlite3 *
sess_test_lock(sess *s, const char *db)
{
    sqlite3 *h;

    if (s == NULL)
        return NULL;
    if ((h = lock_take(db)) == NULL)
        sess_destroy(s);
    return h;
}

/*
** The cut hook, on a runtime's phase callback (sess_test_cut_phase): armed
** by sess_cut.next, the next phase report of sess_cut.s -- a message's
** prefill, from chat_submit inside sess_submit, before its save; a
** regeneration's, from chat_regen -- disarms it and cuts the job there:
** sess_abandon (a quit) or, with sess_cut.cancel, sess_cancel.
*/
static struct {
    sess *s;
    int   next, cancel;
} sess_cut;

static inline void
sess_test_cut_phase(void *ud, int phase)
{
    (void)ud;
    (void)phase;
    if (sess_cut.next) {
        sess_cut.next = 0;
        if (sess_cut.cancel)
            sess_cancel(sess_cut.s);
        else
            sess_abandon(sess_cut.s);
    }
}

/*
** A runtime on a new file NAME in the temp dir (its path into DB[CAP]):
** seed 7, replies of MAX_TOK tokens with no stop string, the store's busy
** wait cut to BUSY_MS, the cut hook on its phase callback and sess_cut.s
** set to it.  PROGRESS (may be NULL) on its replay progress.
*/
static inline sess *
sess_test_open_cut(rwkv_model *m, const tok *t, char *db, size_t cap, const char *name,
                   int max_tok, int busy_ms,
                   void (*progress)(void *ud, uint64_t done, uint64_t total))
{
    sess_config sc;
    sess *s;

    test_tmp_path(db, cap, name);
    sess_test_config(&sc, m, t, db, 7, max_tok);
    sc.chat.no_stop = 1;
    sc.cb.phase = sess_test_cut_phase;
    sc.progress = progress;
    if ((s = sess_test_create(&sc)) != NULL)
        store_set_busy_ms(sess_store(s), busy_ms);
    sess_cut.s = s;
    return s;
}

/*
** MSG sent in S (after an Enter, as the front ends do) and cut at its
** first phase report (sess_cut.cancel says how): sess_run's status, the
** error printed.
*/
static inline int
sess_test_say_cut(sess *s, const char *msg)
{
    rwkv_err err = { 0 };
    int rc;

    sess_cut.s = s;
    sess_cut.next = 1;
    sess_expect_reply(s);
    rc = sess_submit(s, msg, strlen(msg), &err);
    if (rc == RWKV_OK)
        rc = sess_run(s, &err);
    sess_cut.next = 0;
    if (rc != RWKV_OK)
        printf("     say_cut: %s\n", err.msg);
    return rc;
}

/*
** The replay of session 1 of DB from its start (every snapshot deleted): a
** new runtime (seed 7, replies of MAX_TOK, no stop string) opened at its
** head.  Its state's hash, 0 when it failed.
*/
static inline uint64_t
sess_test_replayed(rwkv_model *m, const tok *t, const char *db, int max_tok)
{
    sess_config sc;
    sess *s2;
    rwkv_err err = { 0 };
    uint64_t h = 0;

    if (q_exec(db, "DELETE FROM snapshots") != SQLITE_OK)
        return 0;
    sess_test_config(&sc, m, t, db, 7, max_tok);
    sc.chat.no_stop = 1;
    if ((s2 = sess_test_create(&sc)) == NULL)
        return 0;
    if (sess_open(s2, 1, -1, &err) == RWKV_OK)
        h = sess_test_state_hash(s2);
    else
        printf("     sess_open: %s\n", err.msg);
    sess_destroy(s2);
    return h;
}

#endif
