/*
** test_session.c -- the session runtime (storage/session.h) on real SQLite
** files in a temp dir: a resumed session continues bit for bit like one
** uninterrupted process, by snapshot and by replay; fork, regenerate and
** state-file switch give the states the rules say; a session deleted
** elsewhere is saved again; another model's session is refused.
**
** Models: the in-memory demo model (RWKV-7) always; the tiny v5.2, v6 and v7
** fixtures when present (with their state files for the switch).
*/
#include "../harness.h"

#include <stdint.h>
#include <sys/stat.h>

#include "../../core/chat/chat.h"
#include "../../core/model/model_gen.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

#define N_MSG 3
static const char *const msgs[N_MSG] = { "hello there", "what is two and two?", "tell me more" };

static const char *model_path;      /* of the model under test, NULL = demo */

/* Tokens the replays fed, from the progress callback: each replay reports
** its last token (done == total), so a count going down is a new replay. */
static uint64_t fed_sum, fed_last;

static void
on_progress(void *ud, uint64_t done, uint64_t total)
{
    (void)ud;
    (void)total;
    fed_sum += done < fed_last ? done : done - fed_last;
    fed_last = done;
}

static sess *
mk(rwkv_model *m, const tok *t, const char *db, const char *state)
{
    sess_config sc;

    sess_test_config(&sc, m, t, db, 42, 12);
    sc.model_path = model_path;
    sc.chat.samp.temperature = 1.0f;
    sc.chat.samp.chunk = 5;            /* several chunks per prompt */
    sc.chat.samp_set |= PARAMS_BIT(params_find("chunk"));
    sc.chat.state_path = state;
    sc.progress = on_progress;
    return sess_test_create(&sc);
}

static float *
state_copy(sess *s)
{
    const rwkv_state *st = chat_state(sess_chat(s));
    size_t n = rwkv_state_len(st);
    float *v = malloc(n * sizeof *v);

    memcpy(v, rwkv_state_cdata(st), n * sizeof *v);
    return v;
}

static int
same_state(sess *s, const float *want)
{
    const rwkv_state *st = chat_state(sess_chat(s));
    return memcmp(rwkv_state_cdata(st), want, rwkv_state_len(st) * sizeof(float)) == 0;
}

/* Feed IDS by the replay rule into ST. */
static void
feed(rwkv_model *m, const int32_t *ids, size_t n, size_t step, rwkv_state *st)
{
    rwkv_err err;

    for (size_t i = 0; i < n; i += step)
        rwkv_eval(m, ids + i, n - i < step ? n - i : step, st, NULL, &err);
}

/* Run every check for model M (NAME for messages); STATE: a state file that
** fits it, or NULL. */
static int
ref_run(rwkv_model *m, const tok *t, const char *name, const char *dbA, float **after,
        char *ref_reply, size_t cap)
{
    sess *s;
    size_t n_ref;

    /* one uninterrupted process */
    s = mk(m, t, dbA, NULL);
    if (s == NULL)
        return -1;
    for (int i = 0; i < N_MSG; i++) {
        TEST_CONDF(say(s, msgs[i]) == 0, "%s: message %d", name, i);
        after[i] = state_copy(s);
    }
    n_ref = chat_n_turns(sess_chat(s));
    snprintf(ref_reply, cap, "%s", chat_turn_at(sess_chat(s), n_ref - 1)->reply);
    TEST_CONDF(sess_id(s) == 1, "%s: the session was created (%lld)", name, (long long)sess_id(s));
    sess_destroy(s);
    return 0;
}

static void
resume_run(rwkv_model *m, const tok *t, const char *name, const char *dbB, const char *dbC,
           float *const *after, const char *ref_reply)
{
    sess *s;
    rwkv_err err;

    /* the same conversation in two processes: by snapshot (B) and by replay (C) */
    for (int k = 0; k < 2; k++) {
        const char *db = k ? dbC : dbB;
        s = mk(m, t, db, NULL);
        for (int i = 0; i < N_MSG - 1; i++)
            say(s, msgs[i]);
        sess_destroy(s);
        if (k)
            q_exec(db, "DELETE FROM snapshots");
        s = mk(m, t, db, NULL);
        last_note[0] = '\0';
        fed_sum = fed_last = 0;
        {
            /* by replay: one replay gives the head's state and the one
            ** before the last message (every stored token fed once), and
            ** the head's state is kept (the next open takes it) */
            store_plan plan, again;
            store_state_meta meta;
            store_session ss;
            store_meta_from_info(&meta, rwkv_model_info(m));
            memset(&plan, 0, sizeof plan);
            memset(&again, 0, sizeof again);
            if (k && store_session_get(sess_store(s), 1, &ss, &err) == RWKV_OK)
                store_replay_plan(sess_store(s), ss.head_turn, &meta, &plan, &err);
            TEST_CONDF(sess_open(s, 1, -1, &err) == RWKV_OK, "%s: open: %s", name, err.msg);
            if (k) {
                TEST_CONDF(plan.n_tokens > 0 && fed_sum == plan.n_tokens,
                           "%s: open by replay feeds each token once (%llu fed, %zu stored)",
                           name, (unsigned long long)fed_sum, plan.n_tokens);
                store_replay_plan(sess_store(s), sess_head(s), &meta, &again, &err);
                TEST_CONDF(again.n_tokens == 0, "%s: the replayed head's state kept (%zu to feed)",
                           name, again.n_tokens);
            }
            store_plan_fini(&plan);
            store_plan_fini(&again);
        }
        TEST_CONDF(same_state(s, after[N_MSG - 2]), "%s: state after resume (%s)", name,
                   k ? "replay" : "snapshot");
        TEST_CONDF(k == 0 ? strstr(last_note, "replayed") == NULL
                          : strstr(last_note, "replayed") != NULL,
                   "%s: replay note '%s'", name, last_note);
        say(s, msgs[N_MSG - 1]);
        TEST_CONDF(same_state(s, after[N_MSG - 1]), "%s: resumed chat continues bit for bit (%s)", name,
                   k ? "replay" : "snapshot");
        TEST_CONDF(strcmp(chat_turn_at(sess_chat(s), chat_n_turns(sess_chat(s)) - 1)->reply,
                          ref_reply) == 0,
                   "%s: same last reply (%s)", name, k ? "replay" : "snapshot");
        sess_destroy(s);
    }
}

static sess *
fork_run(rwkv_model *m, const tok *t, const char *name, const char *dbB, float *const *after)
{
    sess *s;
    rwkv_err err;

    /* the fork rule: turns 1 system, 2 user, 3 reply, 4 user, 5 reply, 6, 7 */
    s = mk(m, t, dbB, NULL);
    {
        int64_t at = -1;
        store_turn tu;
        TEST_CONDF(sess_open(s, 1, -1, &err) == RWKV_OK, "%s: open for fork: %s", name, err.msg);
        TEST_CONDF(sess_fork(s, 4, &at, &err) == RWKV_OK && at == 3,
                   "%s: fork at a user turn continues from its parent (at %lld)", name,
                   (long long)at);
        TEST_COND("fork: state after the parent", same_state(s, after[0]));
        TEST_CONDF(sess_fork(s, 5, &at, &err) == RWKV_OK && at == 5,
                   "%s: fork at a reply continues from it", name);
        TEST_COND("fork: state after that reply", same_state(s, after[1]));
        TEST_COND("fork: no turn of another session", sess_fork(s, 999, &at, &err) != RWKV_OK);
        say(s, "a new branch");
        {
            int64_t u, r;
            sess_last_ids(s, &u, &r);
            TEST_CONDF(store_turn_get(sess_store(s), u, &tu, &err) == RWKV_OK &&
                           tu.parent_id == 5,
                       "%s: the new message is a child of the fork point", name);
            store_turn_fini(&tu);
        }
        /* the same rule for callers that copy */
        TEST_COND("sess_fork_point user",
                  sess_fork_point(sess_store(s), sess_id(s), 4, &at, &err) == RWKV_OK && at == 3);
        TEST_CONDF(sess_fork_point(sess_store(s), sess_id(s) + 1, 4, &at, &err) == RWKV_EINVAL &&
                       strstr(err.msg, "turn 4 is not in session") != NULL,
                   "sess_fork_point: a turn of another session is refused naming it (%s)",
                   err.msg);
    }
    return s;
}

static void
regen_run(rwkv_model *m, const char *name, sess *s)
{
    rwkv_err err;

    /* regenerate: a sibling reply, state = the user turn's + its tokens one by one */
    {
        int64_t u, r1, r2;
        rwkv_state *st = NULL;
        size_t replayed;
        const chat_turn *ct;
        int64_t *kids = NULL;
        size_t nk = 0;

        sess_last_ids(s, &u, &r1);
        TEST_COND("regen", sess_regen(s, &err) == RWKV_OK && sess_run(s, &err) == RWKV_OK);
        sess_last_ids(s, &u, &r2);
        TEST_CONDF(r2 != r1 && r2 != 0, "%s: regen saved a new reply", name);
        store_turn_children(sess_store(s), sess_id(s), u, &kids, &nk, &err);
        TEST_CONDF(nk == 2, "%s: two sibling replies (%zu)", name, nk);
        free(kids);
        rwkv_state_create(m, &st, &err);
        sess_replay(s, u, st, &replayed, NULL, 0, &err);
        ct = chat_turn_at(sess_chat(s), chat_n_turns(sess_chat(s)) - 1);
        feed(m, ct->reply_ids, ct->n_reply, 1, st);
        TEST_CONDF(memcmp(rwkv_state_cdata(st), rwkv_state_cdata(chat_state(sess_chat(s))),
                          rwkv_state_len(st) * sizeof(float)) == 0,
                   "%s: state after regen = before the reply + its tokens", name);
        /* sibling step: back to the first reply's branch, state after it */
        TEST_CONDF(sess_step_sibling(s, r2, -1, &err) == RWKV_OK && sess_head(s) == r1,
                   "%s: previous sibling (%s)", name, err.msg);
        TEST_COND("no sibling before the first", sess_step_sibling(s, r1, -1, &err) != RWKV_OK);
        rwkv_state_destroy(st);
    }
}

static sess *
switch_run(rwkv_model *m, const tok *t, const char *name, const char *state,
           const char *dbB, sess *s)
{
    rwkv_err err;

    /* a state-file switch with replay: the conversation fed again under it */
    if (state != NULL) {
        rwkv_state *st = NULL;
        size_t n = chat_n_turns(sess_chat(s));
        int64_t old = sess_id(s);
        size_t chunk = (size_t)chat_sampling(sess_chat(s))->chunk;

        rwkv_state_create(m, &st, &err);
        rwkv_state_load_file(m, state, st, &err);
        for (size_t i = 0; i < n; i++) {
            const chat_turn *ct = chat_turn_at(sess_chat(s), i);
            feed(m, ct->prompt_ids, ct->n_prompt, chunk, st);
            feed(m, ct->reply_ids, ct->n_reply, 1, st);
        }
        TEST_CONDF(sess_switch_state(s, state, 0, 1, &err) == RWKV_OK, "%s: switch: %s", name,
                   err.msg);
        TEST_CONDF(memcmp(rwkv_state_cdata(st), rwkv_state_cdata(chat_state(sess_chat(s))),
                          rwkv_state_len(st) * sizeof(float)) == 0,
                   "%s: state after the switch = state file + the replay rule", name);
        TEST_CONDF(sess_id(s) != 0 && sess_id(s) != old, "%s: saved as a new session", name);
        TEST_COND("label names the state file", strstr(sess_state_label(s), "state-") != NULL);

        /* reopening that session gives the same state (its snapshot) */
        {
            int64_t sid = sess_id(s);
            float *v = state_copy(s);
            sess_destroy(s);
            s = mk(m, t, dbB, NULL);
            TEST_CONDF(sess_open(s, sid, -1, &err) == RWKV_OK, "%s: reopen: %s", name, err.msg);
            TEST_COND("reopened state", same_state(s, v));
            TEST_COND("reopened label", strstr(sess_state_label(s), "state-") != NULL);
            /* back to no state file: the label says so */
            TEST_COND("switch to none", sess_switch_state(s, NULL, 0, 0, &err) == RWKV_OK);
            TEST_COND("label empty", sess_state_label(s)[0] == '\0');
            TEST_COND("chat has no state file", !chat_has_state_file(sess_chat(s)));

            free(v);
        }
        rwkv_state_destroy(st);
    }
    return s;
}

static void
defaults_run(rwkv_model *m, const tok *t, const char *name, const char *state)
{
    sess *s;
    rwkv_err err;

    /* the state file's sampling defaults come with it and go with it (values
    ** not set by the user); an unsaved chat */
    if (state != NULL) {
        rwkv_sampling d;
        params_defaults(&d);
        s = mk(m, t, NULL, NULL);
        TEST_CONDF(sess_switch_state(s, state, 0, 0, &err) == RWKV_OK &&
                       chat_sampling(sess_chat(s))->top_p == 0.2f,
                   "%s: state defaults (top-p %g)", name,
                   (double)chat_sampling(sess_chat(s))->top_p);
        TEST_CONDF(sess_switch_state(s, NULL, 0, 0, &err) == RWKV_OK &&
                       chat_sampling(sess_chat(s))->top_p == d.top_p,
                   "%s: demo defaults again (top-p %g)", name,
                   (double)chat_sampling(sess_chat(s))->top_p);
        sess_destroy(s);
    }
}

/* The turns of session 1 of OTHER (another connection), -1 when none. */
static int64_t
turns_of(store *other, int64_t *head)
{
    store_session ss;
    rwkv_err err;

    if (store_session_get(other, 1, &ss, &err) != RWKV_OK)
        return -1;
    if (head)
        *head = ss.head_turn;
    return ss.n_turns;
}

/* A message is saved when sent, before its prefill (what kill -9 or a
** crash during a long prefill leaves); a cancel before the reply starts
** takes it back, the head where it was; sess_abandon (a quit) keeps it. */
static void
sent_run(rwkv_model *m, const tok *t, const char *name, const char *db)
{
    store *other = NULL;
    int64_t head0 = 0, head = 0, n0;
    rwkv_err err;
    sess *s = mk(m, t, db, NULL);

    if (s == NULL)
        return;
    TEST_CONDF(sess_prime(s, NULL, &err) == RWKV_OK && say(s, msgs[0]) == 0, "%s: first", name);
    TEST_CONDF(store_open(db, &other, &err) == RWKV_OK, "%s: open: %s", name, err.msg);
    n0 = turns_of(other, &head0);
    TEST_CONDF(sess_submit(s, msgs[1], strlen(msgs[1]), &err) == RWKV_OK &&
                   turns_of(other, NULL) == n0 + 2,
               "%s: saved when sent (%lld turns, was %lld)", name,
               (long long)turns_of(other, NULL), (long long)n0);
    sess_cancel(s);
    sess_run(s, &err);
    TEST_CONDF(!sess_started(s) && turns_of(other, &head) == n0 && head == head0,
               "%s: cancelled before the reply: taken back (%lld turns, head %lld)", name,
               (long long)turns_of(other, NULL), (long long)head);
    TEST_CONDF(sess_submit(s, msgs[1], strlen(msgs[1]), &err) == RWKV_OK, "%s: again", name);
    sess_abandon(s);
    sess_run(s, &err);
    TEST_CONDF(turns_of(other, NULL) == n0 + 2, "%s: abandoned in the prefill: kept", name);
    TEST_CONDF(say(s, msgs[2]) == 0 && turns_of(other, NULL) == n0 + 4,
               "%s: the next message saves as ever", name);
    store_close(other);
    sess_destroy(s);
}

static void
deleted_run(rwkv_model *m, const tok *t, const char *name, const char *dbA)
{
    sess *s;
    rwkv_err err;

    /* a session deleted from another window: the conversation is saved again */
    {
        store *other = NULL;
        int64_t sid;
        store_session ss;

        store_open(dbA, &other, &err);
        TEST_COND("rename A", store_session_rename(other, 1, "kept title", &err) == RWKV_OK);
        s = mk(m, t, dbA, NULL);
        TEST_COND("open A", sess_open(s, 1, -1, &err) == RWKV_OK);
        TEST_COND("deleted elsewhere", store_session_delete(other, 1, &err) == RWKV_OK);
        last_note[0] = '\0';
        say(s, "still there?");
        sid = sess_id(s);
        TEST_CONDF(sid != 0 && strstr(last_note, "deleted elsewhere") != NULL,
                   "%s: saved as session %lld ('%s')", name, (long long)sid, last_note);
        TEST_CONDF(store_session_get(other, sid, &ss, &err) == RWKV_OK && ss.n_turns >= 8,
                   "%s: every turn saved again (%lld)", name, (long long)ss.n_turns);
        /* under its own title, not one made from its first message */
        TEST_CONDF(strcmp(ss.title, "kept title") == 0 && strcmp(sess_title(s), "kept title") == 0,
                   "%s: saved again as '%s'", name, ss.title);
        store_close(other);
        sess_destroy(s);
    }
}

static void
run(rwkv_model *m, const tok *t, const char *name, const char *state)
{
    char dbA[600], dbB[600], dbC[600];
    float *after[N_MSG] = { NULL };
    char ref_reply[4096];
    sess *s;

    snprintf(dbA, sizeof dbA, "%s/%s-A.db", test_tmp_dir(), name);
    snprintf(dbB, sizeof dbB, "%s/%s-B.db", test_tmp_dir(), name);
    snprintf(dbC, sizeof dbC, "%s/%s-C.db", test_tmp_dir(), name);
    if (ref_run(m, t, name, dbA, after, ref_reply, sizeof ref_reply) != 0)
        return;
    resume_run(m, t, name, dbB, dbC, after, ref_reply);
    s = fork_run(m, t, name, dbB, after);
    regen_run(m, name, s);
    s = switch_run(m, t, name, state, dbB, s);
    sess_destroy(s);
    defaults_run(m, t, name, state);
    deleted_run(m, t, name, dbA);
    snprintf(dbA, sizeof dbA, "%s/%s-sent.db", test_tmp_dir(), name);
    sent_run(m, t, name, dbA);
    for (int i = 0; i < N_MSG; i++)
        free(after[i]);
}

/* A model file written over another at the same path (same shape): the
** session made with the first is told, its states are rebuilt by replay
** under the new one, and it keeps naming the model it was made with. */
static void
replaced_model(const tok *t)
{
    char path[600], db[600];
    mgen_opts go = { CK_F32, 1, 2, NULL, NULL };
    rwkv_open_opts o;
    rwkv_model *m = NULL;
    rwkv_err err;
    store_session ss;
    store_model sm;
    uint64_t fp_a = 0;
    float *v;
    sess *s;

    test_tmp_path(path, sizeof path, "same.pth");
    test_tmp_path(db, sizeof db, "replaced.db");
    memset(&o, 0, sizeof o);
    o.n_threads = 2;
    model_path = path;
    TEST_COND("model A written", mgen_save("demo", path, &go, NULL, &err) == RWKV_OK);
    if (rwkv_model_open(path, &o, &m, &err) != RWKV_OK) {
        TEST_CONDF(0, "open A: %s", err.msg);
        return;
    }
    fp_a = rwkv_model_info(m)->fingerprint;
    s = mk(m, t, db, NULL);
    say(s, msgs[0]);
    say(s, msgs[1]);
    sess_destroy(s);
    rwkv_model_close(m);

    go.seed = 2;                   /* another model, same shape, same path */
    TEST_COND("model B written", mgen_save("demo", path, &go, NULL, &err) == RWKV_OK);
    m = NULL;
    if (rwkv_model_open(path, &o, &m, &err) != RWKV_OK) {
        TEST_CONDF(0, "open B: %s", err.msg);
        return;
    }
    s = mk(m, t, db, NULL);
    all_notes[0] = '\0';
    TEST_CONDF(sess_open(s, 1, -1, &err) == RWKV_OK, "replaced: open: %s", err.msg);
    TEST_CONDF(strstr(all_notes, "changed since this session was saved") != NULL &&
                   strstr(all_notes, "replayed") != NULL,
               "replaced: the user is told, states replayed ('%s')", all_notes);
    TEST_CONDF(store_session_get(sess_store(s), 1, &ss, &err) == RWKV_OK &&
                   store_model_get(sess_store(s), ss.model_id, &sm, &err) == RWKV_OK &&
                   sm.fingerprint == fp_a && fp_a != rwkv_model_info(m)->fingerprint,
               "replaced: the session still names the model it was made with (%016llx)",
               (unsigned long long)sm.fingerprint);
    v = state_copy(s);
    sess_destroy(s);
    /* the same, every state from the tokens */
    q_exec(db, "DELETE FROM snapshots");
    s = mk(m, t, db, NULL);
    TEST_COND("replaced: open by replay", sess_open(s, 1, -1, &err) == RWKV_OK);
    TEST_COND("replaced: state = a replay under the new model", same_state(s, v));
    free(v);
    sess_destroy(s);
    rwkv_model_close(m);
    model_path = NULL;
}

/* A damaged row exported and imported: the imported turn has its text but
** not its tokens; opening past it is refused naming the turn (as the
** original is), opening before it gives the original's state. */
static void
damaged_import(rwkv_model *m, const tok *t)
{
    char db[600], note[512];
    float *after1;
    sess *s;
    rwkv_err err;
    char *buf = NULL;
    size_t len = 0, n = 0;
    int64_t imp = 0, *ids = NULL;
    store_session ss;

    test_tmp_path(db, sizeof db, "damaged.db");
    s = mk(m, t, db, NULL);
    say(s, msgs[0]);
    after1 = state_copy(s);
    say(s, msgs[1]);
    sess_destroy(s);
    /* turns: 1 system, 2 user, 3 reply, 4 user, 5 reply; 5's tokens damaged */
    q_exec(db, "UPDATE turns SET tokens=x'0102030405' WHERE id=5");
    s = mk(m, t, db, NULL);
    TEST_CONDF(sess_open(s, 1, -1, &err) == RWKV_EFORMAT, "damaged: original refused (%s)",
               err.msg);
    TEST_COND("damaged: export",
              store_export_ex(sess_store(s), 1, STORE_FMT_JSON, &buf, &len, note, sizeof note,
                              &err) == RWKV_OK && strstr(buf, "\"damaged\"") != NULL);
    TEST_CONDF(store_import(sess_store(s), buf, len, "d.json", &imp, &err) == RWKV_OK,
               "damaged: import: %s", err.msg);
    free(buf);
    TEST_CONDF(sess_open(s, imp, -1, &err) == RWKV_EFORMAT &&
                   strstr(err.msg, "has its text but not its tokens") != NULL,
               "damaged: the imported session is not replayed through the lost turn (%s)",
               err.msg);
    store_session_get(sess_store(s), imp, &ss, &err);
    store_turn_path(sess_store(s), ss.head_turn, &ids, &n, &err);
    TEST_CONDF(n == 5 && sess_open(s, imp, ids[2], &err) == RWKV_OK && same_state(s, after1),
               "damaged: the imported session before the lost turn = the original (%s)",
               n == 5 ? err.msg : "path");
    if (n == 5) {
        store_turn tu;
        TEST_COND("damaged: the lost turn is named in show and export",
                  store_turn_read(sess_store(s), ids[4], &tu, note, sizeof note, &err) == RWKV_OK &&
                      strstr(note, "tokens are missing") != NULL);
        store_turn_fini(&tu);
    }
    free(ids);
    free(after1);
    sess_destroy(s);
}

int
main(void)
{
    rwkv_open_opts o;
    rwkv_model *m = NULL;
    tok *t = NULL;
    rwkv_err err;
    static const struct { const char *file, *state, *name; } fx[] = {
        { "models/tiny-7v0-fp32.pth", "states/state-7v0-A.pth", "7v0" },
        { "models/tiny-6v0-fp32.pth", "states/state-6v0-A.pth", "6v0" },
        { "models/tiny-5v2-fp32.pth", "states/state-5v2-A.pth", "5v2" },
    };

    setenv("RWKV_WEIGHT_CACHE", "0", 1);       /* never write next to the fixtures */
    if (test_tmpdir("rwkv-test-session") == NULL)
        return 1;
    memset(&o, 0, sizeof o);
    o.n_threads = 2;
    tok_create_bytes(&t, &err);
    TEST_COND("demo model", rwkv_model_open_demo(1, &o, &m, &err) == RWKV_OK);
    if (m != NULL) {
        run(m, t, "demo", NULL);
        damaged_import(m, t);
    }

    rwkv_model_close(m);
    replaced_model(t);

    for (size_t i = 0; i < sizeof fx / sizeof fx[0]; i++) {
        char path[1024], spath[1024];
        if (!test_have_fixture(fx[i].file, 30))
            continue;
        test_fixture_path(path, sizeof path, fx[i].file);
        test_fixture_path(spath, sizeof spath, fx[i].state);
        m = NULL;
        TEST_CONDF(rwkv_model_open(path, &o, &m, &err) == RWKV_OK, "%s: %s", fx[i].name, err.msg);
        if (m == NULL)
            continue;
        model_path = path;
        if (rwkv_model_info(m)->n_vocab == 256)
            run(m, t, fx[i].name, test_fixture_exists(fx[i].state) ? spath : NULL);
        if (i == 0) {
            /* the demo model's session under this model (another shape): refused */
            char db[600];
            sess *s;
            test_tmp_path(db, sizeof db, "demo-B.db");
            s = mk(m, t, db, NULL);
            TEST_CONDF(s != NULL && sess_open(s, 1, -1, &err) == RWKV_ESHAPE &&
                           strstr(err.msg, "was made with (demo)") != NULL,
                       "another shape refused: %s", err.msg);
            sess_destroy(s);
        }
        rwkv_model_close(m);
    }
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
