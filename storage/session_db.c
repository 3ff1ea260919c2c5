/*
** session_db.c -- the session runtime's persistence (session.h,
** session_int.h): the session row created and the turns saved as a reply
** runs (the user turn with the state before the reply, the begun reply,
** its partial text, the reply completed with the state after it), a
** session deleted elsewhere saved again; a branch read back into the chat
** with its state rebuilt by the replay rule (nearest snapshot + stored
** tokens); the checks on a stored session (its model, its tokens), and
** open / lookup / reset / fork / sibling steps on the turn tree.
*/
#include "session_int.h"
#include "store_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/clock.h"
#include "../core/model/strategy.h"

void
sess_save_fail(sess *s, const char *what, const rwkv_err *err)
{
    snprintf(s->fail_why, sizeof s->fail_why, "%s", err->msg);
    if (s->in_open && s->open_said++ > 0)
        return;                        /* an open's writes: one line (open_branch) */
    sess_notef(s, 1, "saving %s: %s (the chat goes on)", sess_tr(s, what), err->msg);
}

/* The store's busy hook (store_set_busy_hook; sess_open_store): called on
** the waiting thread, it uses no statement of the store -- its path and
** bound only -- and sends one note per wait once it lasted
** SESS_LOCK_SAY_MS (another client's commit, milliseconds, is not said). */
static int
lock_note(void *ud, int waited_ms)
{
    sess *s = ud;

    if (waited_ms == 0)                /* a wait begins */
        s->lock_said = 0;
    if (s->lock_said || waited_ms < SESS_LOCK_SAY_MS)
        return 0;
    s->lock_said = 1;
    sess_notef(s, 0, "waiting up to %d s for the lock another program holds on %s",
               (store_busy_ms(s->st) + 999) / 1000, store_path(s->st));
    return 0;
}

int
sess_open_store(sess *s, const sess_config *cfg, rwkv_err *err)
{
    store_open_opts o = { 0, cfg->nodb_hint ? cfg->nodb_hint : SESS_NODB_HINT, NULL };
    int rc;

    if ((rc = store_open_ex(cfg->db_path, &o, &s->st, err)) != RWKV_OK)
        return rc;
    store_set_busy_hook(s->st, lock_note, s);
    return RWKV_OK;
}

/* ---- the start of a session in the store ---------------------------------------------- */

/* The library row of START (adding a referenced file's row), 0 = none. */
static int64_t
start_row(sess *s)
{
    store_statefile f;
    int64_t id = 0;
    rwkv_err err;

    if (s->start.lib_id != 0)
        return s->start.lib_id;
    if (s->start.path[0] == '\0')
        return 0;
    store_statefile_from_path(&f, s->start.path);
    if (store_statefile_add(s->st, &f, &id, &err) != RWKV_OK) {
        sess_save_fail(s, "the state file row", &err);
        return 0;
    }
    return id;
}

/* START of the session row SS into *OUT. */
static int
session_start(sess *s, const store_session *ss, sess_start *out, rwkv_err *err)
{
    store_statefile f;
    void *data = NULL;
    int rc;

    memset(out, 0, sizeof *out);
    if (ss->state_file_id == 0)
        return RWKV_OK;
    if ((rc = store_statefile_get(s->st, ss->state_file_id, &f, &data, err)) != RWKV_OK)
        return rc;
    if (data != NULL) {                  /* imported: the row is the identity */
        free(data);
        out->lib_id = f.id;
        snprintf(out->label, sizeof out->label, "%s", f.name);
        return RWKV_OK;
    }
    /* other bytes at its path: said as a resume says it */
    if ((rc = sess_state_check(s->st, ss->id, &f, 0, err)) != RWKV_OK)
        return rc;
    if (f.path[0] == '\0' || access(f.path, F_OK) != 0) {
        /* not on disk: the session goes on from its saved states, only
        ** what needs the start itself is refused (sess_start.gone) */
        out->lib_id = f.id;
        out->gone = 1;
        snprintf(out->label, sizeof out->label, sess_tr(s, "%s (not on disk)"),
                 f.path[0] ? f.path : f.name);
        return RWKV_OK;
    }
    snprintf(out->path, sizeof out->path, "%s", f.path);
    snprintf(out->label, sizeof out->label, "%s", f.path);
    return RWKV_OK;
}

static int
same_start(const sess_start *a, const sess_start *b)
{
    return a->lib_id == b->lib_id && strcmp(a->path, b->path) == 0;
}

/* ---- the model row and checks -------------------------------------------------- */

int
sess_model_row(sess *s, rwkv_err *err)
{
    store_model m;

    store_meta_from_info(&s->meta, rwkv_model_info(s->m));
    if (s->st == NULL)
        return RWKV_OK;
    store_model_from_info(&m, s->model_path, rwkv_model_info(s->m));
    snprintf(m.vocab, sizeof m.vocab, "%s", s->vocab_path);
    /* a resume finds its row as it left it: read, not written (a write
    ** waits for another program's lock) */
    if (store_model_find(s->st, &m, &s->model_id, err) == RWKV_OK && s->model_id != 0)
        return RWKV_OK;
    return store_model_upsert(s->st, &m, &s->model_id, err);   /* the caller names it */
}

/* Whether the model of row SM is of another shape than the model INF
** describes (another content, and another version or dims): its states
** cannot be used nor its turns replayed there.  The one rule of a session
** of another model: sess_open refuses it (check_model), a client running
** one asks to load the session's own (sess_model_need). */
static int
other_shape(const store_model *sm, const rwkv_info *inf)
{
    return sm->fingerprint != inf->fingerprint &&
           (strcmp(sm->version, inf->version) != 0 || sm->n_layer != inf->n_layer ||
            sm->n_embd != inf->n_embd || sm->n_head != inf->n_head ||
            sm->head_size != inf->head_size);
}

/*
** Session SS must have been made by a model of this shape.  *CHANGED (OUT):
** it was made with another file at this model's path (a model written over
** it): the user is told, and only states known to be made with this file
** are used (the others are rebuilt by replay).  Told by the file's
** identity (size, fingerprint, digest: a model row's key), not by the row
** ids alone: this model's row may not be known (s->model_id 0, its write
** failed -- another program's lock), which says nothing of the file.
*/
static int
check_model(sess *s, const store_session *ss, int *changed, rwkv_err *err)
{
    const rwkv_info *inf = rwkv_model_info(s->m);
    store_model sm, cur;
    int rc;

    *changed = 0;
    if (ss->model_id == 0 || ss->model_id == s->model_id)
        return RWKV_OK;
    if ((rc = store_model_get(s->st, ss->model_id, &sm, err)) != RWKV_OK)
        return rc;
    if (other_shape(&sm, inf))
        return rwkv_errf(err, RWKV_ESHAPE,
                         "session %lld was made with %s (RWKV-%s, %d layers, %d embd), not this "
                         "model (RWKV-%s, %d layers, %d embd): open it with that model, or start a new session",
                         (long long)ss->id, sm.path, sm.version, sm.n_layer, sm.n_embd,
                         inf->version, inf->n_layer, inf->n_embd);
    store_model_from_info(&cur, s->model_path, inf);
    if (!inf->is_demo && strcmp(sm.path, s->model_path) == 0 &&
        (sm.size != cur.size || sm.fingerprint != cur.fingerprint || sm.digest != cur.digest)) {
        /* another file content at the same path (store.h) */
        *changed = 1;
        sess_notef(s, 0, "the model at %s changed since this session was saved: the states saved "
                    "with the old file are not used, they are rebuilt by replay", sm.path);
    }
    return RWKV_OK;
}

/*
** Whether session SS (of this model's shape: check_model) was made with
** another model -- told by content: the fingerprint, and the checksum
** digest where both files have one, so a copy elsewhere or the same weights
** in another format is the same model -- or, the model the same, under
** another strategy precision (store_precision_of: the compute dtype and the
** plan of quantized weights, what a state's numbers depend on; a device or
** thread count is not).  Into *OUT (sid 0: neither; sess_other).
*/
static void
other_made(sess *s, const store_session *ss, sess_other *out)
{
    const rwkv_info *inf = rwkv_model_info(s->m);
    store_model sm;
    rwkv_err e;

    memset(out, 0, sizeof *out);
    if (ss->model_id != 0 && ss->model_id != s->model_id &&
        store_model_get(s->st, ss->model_id, &sm, &e) == RWKV_OK &&
        (sm.fingerprint != inf->fingerprint ||
         (sm.digest != 0 && inf->file_digest != 0 && sm.digest != inf->file_digest))) {
        out->kind = strcmp(sm.path, s->model_path) == 0 ? SESS_OTHER_FILE : SESS_OTHER_MODEL;
        snprintf(out->was, sizeof out->was, "%s", sm.path);
    } else if (ss->strategy[0] != '\0' &&
               store_precision_of(ss->strategy, inf->n_layer) != s->meta.precision) {
        out->kind = SESS_OTHER_PREC;
        snprintf(out->was, sizeof out->was, "%s", ss->strategy);
    } else {
        return;
    }
    out->sid = ss->id;
}

/*
** Session SS, opened here, was made with this very model (other_made's
** rule: the fingerprint, and the digest where both have one) at another
** path, which no longer holds it (gone, or a file of another size there:
** sess_model_need's test) -- the file moved, named with --model -- and
** goes on in place (not sess_other): its row names this model's from now
** on, so that the next resume finds it without --model.  One line says
** so.  (A copy elsewhere, the old file still there, changes nothing.)
*/
static void
model_moved(sess *s, const store_session *ss)
{
    const rwkv_info *inf = rwkv_model_info(s->m);
    store_model sm;
    struct stat sb;
    rwkv_err e;

    if (ss->model_id == 0 || s->model_id == 0 || ss->model_id == s->model_id ||
        s->other.sid == ss->id || inf->is_demo ||
        store_model_get(s->st, ss->model_id, &sm, &e) != RWKV_OK ||
        strcmp(sm.path, s->model_path) == 0 || sm.fingerprint != inf->fingerprint ||
        (sm.digest != 0 && inf->file_digest != 0 && sm.digest != inf->file_digest) ||
        (stat(sm.path, &sb) == 0 && (uint64_t)sb.st_size == sm.size))
        return;
    if (store_session_set_model(s->st, ss->id, s->model_id, &e) != RWKV_OK) {
        sess_save_fail(s, "the model's new path", &e);
        return;
    }
    sess_notef(s, 0, "session %lld: its model is %s from now on (the same model, no longer "
                     "at %s)", (long long)ss->id, s->model_path, sm.path);
}

/* Every token of TURNS must be in this model's vocabulary, and every turn
** with text must have its tokens (store_turn_read: a damaged turn exported
** and imported has lost them; replaying without them is a wrong state). */
static int
check_tokens(sess *s, int64_t sid, const store_turn *turns, size_t n, rwkv_err *err)
{
    int32_t nv = rwkv_model_info(s->m)->n_vocab;

    for (size_t i = 0; i < n; i++) {
        if (turns[i].n_tokens == 0 && turns[i].text[0] != '\0')
            return rwkv_errf(err, RWKV_EFORMAT,
                             "session %lld: turn %lld has its text but not its tokens (a damaged "
                             "row, exported and imported): its state cannot be rebuilt; continue "
                             "from the turn before it (`sessions show %lld`)",
                             (long long)sid, (long long)turns[i].id, (long long)sid);
        for (size_t k = 0; k < turns[i].n_tokens; k++)
            if (turns[i].tokens[k] < 0 || turns[i].tokens[k] >= nv)
                return rwkv_errf(err, RWKV_ESHAPE,
                                 "session %lld: turn %lld holds token id %d, outside this "
                                 "model's vocabulary of %d: it was made with another model or "
                                 "vocabulary",
                                 (long long)sid, (long long)turns[i].id, (int)turns[i].tokens[k],
                                 (int)nv);
    }
    return RWKV_OK;
}

/* ---- the replay rule ------------------------------------------------------------ */

/* sess_feed_seg; LOGITS (NULL: none) the logits its last chunk gives, as
** a prefill's last chunk gives them (chat.c, step_prefill). */
static int
feed_seg(sess *s, const int32_t *ids, size_t n, int role, rwkv_state *out, uint64_t *done,
         uint64_t total, float *logits, rwkv_err *err)
{
    const rwkv_sampling *samp = chat_sampling(s->c);
    size_t chunk = samp->chunk > 0 ? (size_t)samp->chunk : 256;
    size_t step = role == STORE_ROLE_ASSISTANT ? 1 : chunk;

    for (size_t i = 0; i < n; i += step) {
        size_t k = n - i < step ? n - i : step;
        int rc;
        if (atomic_load(&s->cancel))
            return rwkv_errf(err, RWKV_ECANCEL, "replay cancelled");
        rc = rwkv_eval(s->m, ids + i, k, out, i + k == n ? logits : NULL, err);
        if (rc != RWKV_OK)
            return rc;
        *done += k;
        if (s->progress && (k > 1 || *done % 16 == 0 || *done == total))
            s->progress(s->cb.ud, *done, total);
    }
    return RWKV_OK;
}

/* Feed segment IDS[N] of ROLE into OUT by the replay rule; *DONE counts. */
int
sess_feed_seg(sess *s, const int32_t *ids, size_t n, int role, rwkv_state *out, uint64_t *done,
         uint64_t total, rwkv_err *err)
{
    return feed_seg(s, ids, n, role, out, done, total, NULL, err);
}

/* A state wanted on the way of a replay: the one after turn TURN (0 = the
** session's start) into OUT; GOT (OUT) says whether the replay passed it.
** FED: with the logits of the last token fed, into LOGITS (n_vocab floats)
** -- got only where the replay feeds TURN's own tokens, not where it
** starts from TURN's saved state (it has none).  OUT and LOGITS start
** NULL: replay_at makes them once its plan shows that it passes TURN
** (mid_make), so an open that replays nothing allocates nothing for them;
** owned by the caller (rwkv_state_destroy, free), NULL when not made. */
typedef struct replay_mid {
    int64_t            turn;
    int                fed;
    rwkv_state        *out;
    float             *logits;
    int                got;
    struct replay_mid *next;           /* another state wanted, NULL = none */
} replay_mid;

/* Whether the replay of PLAN takes MID's state (mid_take): from the saved
** state it starts at, or after a segment of MID's turn (fed, when MID
** wants logits). */
static int
mid_passed(const replay_mid *mid, const store_plan *plan)
{
    if (mid->turn == plan->base_turn && !mid->fed)
        return 1;
    for (size_t g = 0; g < plan->n_segs; g++)
        if (plan->segs[g].turn_id == mid->turn && (!mid->fed || plan->segs[g].len > 0))
            return 1;
    return 0;
}

/* The state (and logits) of every state of MID the replay of PLAN takes;
** the others are left NULL. */
static int
mid_make(sess *s, replay_mid *mid, const store_plan *plan, rwkv_err *err)
{
    size_t nv = (size_t)rwkv_model_info(s->m)->n_vocab;
    int rc;

    for (; mid != NULL; mid = mid->next) {
        if (mid->got || mid->out != NULL || !mid_passed(mid, plan))
            continue;
        if ((rc = rwkv_state_create(s->m, &mid->out, err)) != RWKV_OK)
            return rc;
        if (mid->fed && (mid->logits = malloc(nv * sizeof *mid->logits)) == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "replay: out of memory");
    }
    return RWKV_OK;
}

/* The logits MID wants after turn AT, NULL = none. */
static float *
mid_logits(replay_mid *mid, int64_t at)
{
    for (; mid != NULL; mid = mid->next)
        if (!mid->got && mid->turn == at && mid->fed)
            return mid->logits;
    return NULL;
}

/* FED: AT's tokens were just fed, the logits of its last one given. */
static void
mid_take(replay_mid *mid, int64_t at, const rwkv_state *st, int fed)
{
    for (; mid != NULL; mid = mid->next)
        if (!mid->got && mid->out != NULL && mid->turn == at && (!mid->fed || fed)) {
            rwkv_state_copy(mid->out, st);
            mid->got = 1;
        }
}

/* sess_replay for the session whose start is START; MID (may be NULL) a
** state to take on the way, so that one replay gives both. */
static int
replay_at(sess *s, const sess_start *start, int64_t turn, rwkv_state *out, size_t *replayed,
          int64_t *base, char *note, size_t note_cap, replay_mid *mid, rwkv_err *err)
{
    store_plan plan;
    uint64_t done = 0;
    int rc = RWKV_OK;

    memset(&plan, 0, sizeof plan);
    *replayed = 0;
    if (base)
        *base = 0;
    if (note && note_cap)
        note[0] = '\0';
    if (turn != 0 && s->st != NULL &&
        (rc = store_state_restore(s->st, turn, &s->meta, rwkv_state_data(out),
                                  rwkv_state_len(out), &plan, err)) != RWKV_OK)
        goto out;
    store_read_end(s->st);             /* an open's reads are done (open_writes) */
    if (note && note_cap)
        snprintf(note, note_cap, "%s", plan.note);
    if ((rc = mid_make(s, mid, &plan, err)) != RWKV_OK)
        goto out;
    if (plan.base_turn == 0 && (rc = sess_load_start(s, start, out, err)) != RWKV_OK)
        goto out;
    mid_take(mid, plan.base_turn, out, 0);
    for (size_t g = 0; g < plan.n_segs && rc == RWKV_OK; g++) {
        const store_plan_seg *sg = &plan.segs[g];
        float *lg = mid_logits(mid, sg->turn_id);
        rc = feed_seg(s, plan.tokens + sg->off, sg->len, sg->role, out, &done, plan.n_tokens, lg,
                      err);
        if (rc == RWKV_OK)
            mid_take(mid, sg->turn_id, out, lg != NULL && sg->len > 0);
    }
    *replayed = plan.n_tokens;
    if (base)
        *base = plan.base_turn;
out:
    store_plan_fini(&plan);
    return rc;
}

int
sess_replay(sess *s, int64_t turn, rwkv_state *out, size_t *replayed, char *note,
            size_t note_cap, rwkv_err *err)
{
    atomic_store(&s->cancel, 0);
    return replay_at(s, &s->start, turn, out, replayed, NULL, note, note_cap, NULL, err);
}

/* ---- loading a branch into the chat --------------------------------------------------- */

/* Whether session SID's row has HEAD as its head already and is the most
** recently used one (the --resume target): moving there writes nothing
** new, so it is not written -- a resume then needs no write, and no wait
** for another program's lock, before the chat starts. */
static int
head_in_place(sess *s, int64_t sid, int64_t head)
{
    store_session ss;
    int64_t latest = 0;
    rwkv_err e;

    return store_session_get(s->st, sid, &ss, &e) == RWKV_OK && ss.head_turn == head &&
           store_session_latest(s->st, &latest, &e) == RWKV_OK && latest == sid;
}

/* The state a replay rebuilt for TURN, saved now so the next open takes
** it instead of replaying again: a leaf saved without one (a reply cut by a
** crash or kill before its state was saved), or the state before the last
** message (an imported session has none: every open replayed the whole
** conversation for it, silently). */
static void
keep_replayed(sess *s, int64_t turn, const rwkv_state *st)
{
    rwkv_err err;

    if (store_snapshot_put(s->st, turn, rwkv_state_cdata(st), rwkv_state_len(st), &s->meta,
                           &err) != RWKV_OK)
        sess_save_fail(s, "the rebuilt state", &err);
}

/*
** The fork point of branch TURNS[N] whose state a replay to its end passes
** and rebuilds, to be kept (keep_replayed): the deepest turn before the end
** with several children and no saved state (the retention policy keeps a
** branch point's state, store.h, but it may have been dropped before the
** turn became one, or by the budget) -- else every later fork or sibling
** step there replays again.  SKIP (the state before the last message)
** is taken on its own.  0 = none.
*/
static int64_t
fork_point_unsaved(const store_turn *turns, size_t n, int64_t skip)
{
    for (size_t i = n > 0 ? n - 1 : 0; i-- > 0;)
        if (turns[i].n_children >= 2 && !turns[i].has_snapshot && turns[i].id != skip)
            return turns[i].id;
    return 0;
}

/* The newest root of session SID that is a greeting (a system turn; with
** IDS not NULL, of those N tokens) into *R (store_turn_fini it), R->id 0
** when none; *NROOTS: the roots seen.  A damaged root is not a greeting. */
static int
greeting_root(sess *s, int64_t sid, const int32_t *ids, size_t n, store_turn *r,
              size_t *nroots, rwkv_err *err)
{
    int64_t *roots = NULL;
    int rc;

    memset(r, 0, sizeof *r);
    if ((rc = store_turn_children(s->st, sid, 0, &roots, nroots, err)) != RWKV_OK)
        return rc;
    for (size_t i = *nroots; i-- > 0;) {
        rwkv_err e2;
        if (store_turn_get(s->st, roots[i], r, &e2) != RWKV_OK) {
            memset(r, 0, sizeof *r);
            continue;
        }
        if (r->role == STORE_ROLE_SYSTEM &&
            (ids == NULL || (r->n_tokens == n && memcmp(r->tokens, ids, n * sizeof *ids) == 0)))
            break;
        store_turn_fini(r);
        memset(r, 0, sizeof *r);
    }
    free(roots);
    return RWKV_OK;
}

/*
** Where an empty branch of session SID starts (HEAD 0: a reset, a fork
** before a first message, a session whose conversation was deleted), by
** what the roots of its tree say: a greeting turn -> *HEAD is it (the
** newest); messages only (an import may start so) -> the start without the
** greeting, as they were fed (*ROOT SESS_ROOT_BARE); none (an empty
** session) -> as a new session of its framing: the greeting, its turn
** written with the next message (SESS_ROOT_NEW).
*/
static int
empty_root(sess *s, int64_t sid, int64_t *head, int *root, rwkv_err *err)
{
    store_turn r;
    size_t nr = 0;
    int rc;

    if ((rc = greeting_root(s, sid, NULL, 0, &r, &nr, err)) != RWKV_OK)
        return rc;
    *head = r.id;
    *root = r.id == 0 && nr > 0 ? SESS_ROOT_BARE : SESS_ROOT_NEW;
    store_turn_fini(&r);
    return RWKV_OK;
}

/*
** The speeds of saved reply A (its message N_PROMPT tokens) as the chat's
** own record of the run that wrote it: a /continue or M-r adds to these
** (chat.c, begin_continue), as it does in the process that wrote the reply,
** so the reply keeps its first run's prefill speed and gets a decode speed
** over all its tokens -- not 0 and the continuation's few tokens alone.
** Only the rates are stored: the counts are the reply's and the message's
** tokens, the times what those rates give.
*/
static void
saved_stats(const store_turn *a, size_t n_prompt, chat_stats *st)
{
    memset(st, 0, sizeof *st);
    if (a->prefill_tps > 0 && n_prompt > 0) {
        st->prefill_tokens = n_prompt;
        st->prefill_s = (double)n_prompt / a->prefill_tps;
        st->prefill_tps = a->prefill_tps;
    }
    if (a->decode_tps > 0 && a->n_tokens > 0) {
        st->gen_tokens = a->n_tokens;
        st->gen_s = (double)a->n_tokens / a->decode_tps;
        st->decode_tps = a->decode_tps;
    }
}

/*
** The turn an open of turn *HEAD of session SID goes on from (sess_load_branch):
** a message without its reply goes on from its parent; so does a reply that
** another window is writing now (store_turn_writing: its writer alive) --
** from the turn before the message it answers, a new branch beside it, said
** in one line.  Taken as cut, as a reply whose writer died is, the turns
** this window writes would hang under the shorter text saved so far, their
** states made from it, while the reply row ends up holding the whole text.
** Not a wait for it either: a reply may run for minutes, and the other
** window's reply stays whole, on its own branch (F6 / /history).
** *BARE_LEAF: *HEAD as given is a leaf saved without its state (a reply cut
** by a crash: its rebuilt state is kept).
*/
static int
branch_head(sess *s, int64_t sid, int64_t *head, int *bare_leaf, rwkv_err *err)
{
    store_turn h, u;
    int rc, writing = 0;

    if ((rc = store_turn_get(s->st, *head, &h, err)) != RWKV_OK)
        return rc;
    *bare_leaf = !h.has_snapshot && h.n_children == 0 && h.role != STORE_ROLE_USER;
    if (h.session_id != sid)
        rc = rwkv_errf(err, RWKV_EINVAL, "turn %lld is not in session %lld", (long long)*head,
                       (long long)sid);
    else if (h.role == STORE_ROLE_ASSISTANT && h.interrupted && h.parent_id > 0)
        rc = store_turn_writing(s->st, h.id, &writing, err);
    if (rc == RWKV_OK && writing && (rc = store_turn_get(s->st, h.parent_id, &u, err)) == RWKV_OK) {
        *head = u.parent_id;
        *bare_leaf = 0;
        store_turn_fini(&u);
        if (*head > 0)
            sess_notef(s, 0, "session %lld: a reply is still being written in another window; "
                             "this window goes on from turn %lld (a new branch beside it)",
                       (long long)sid, (long long)*head);
        else
            sess_notef(s, 0, "session %lld: a reply is still being written in another window; "
                             "this window goes on from the start of the session (a new branch "
                             "beside it)", (long long)sid);
    } else if (rc == RWKV_OK && h.role == STORE_ROLE_USER) {
        sess_notef(s, 0, "(turn %lld is a message without its reply: continuing before it)",
                   (long long)*head);
        *head = h.parent_id;
    }
    store_turn_fini(&h);
    return rc;
}

/* The note of a replay of REPLAYED tokens (from the state of turn BASE, 0:
** the start) that rebuilt the state of TURN; NOTE: why nearer saved states
** were not used ("": there was none).  Nothing replayed, no note. */
static void
replay_said(sess *s, int64_t turn, size_t replayed, int64_t base, const char *note)
{
    char why[320];

    if (replayed == 0 && note[0] == '\0')
        return;
    if (note[0])
        snprintf(why, sizeof why, "%s", note);
    else
        snprintf(why, sizeof why, sess_tr(s, "no saved state for turn %lld"), (long long)turn);
    if (base != 0)
        sess_notef(s, 0, "(%s: replayed %zu tokens from the state saved with turn %lld)", why,
                   replayed, (long long)base);
    else
        sess_notef(s, 0, "(%s: replayed %zu tokens from the start of the session)", why, replayed);
}

/* Whether session SID is no longer in the file (deleted elsewhere). */
static int
session_gone(sess *s, int64_t sid)
{
    store_session ss;
    rwkv_err e;

    return store_session_get(s->st, sid, &ss, &e) != RWKV_OK && e.code == RWKV_EINVAL;
}

/*
** The branch position of session SID set to HEAD where it changed (an open,
** sess_load_branch); 1 when the session is gone -- deleted elsewhere while
** the open read or replayed it (minutes for a long session): the open's
** writes are left out, unsaid, and the chat goes on, its next save making a
** new session and saying so (check_alive), as after a deletion at any
** later time.
*/
static int
open_position(sess *s, int64_t sid, int64_t head)
{
    rwkv_err e2;

    if ((s->sid == sid && s->head == head) || head_in_place(s, sid, head) ||
        store_session_set_head(s->st, sid, head, &e2) == RWKV_OK)
        return 0;
    if (session_gone(s, sid))
        return 1;
    sess_save_fail(s, "the branch position", &e2);
    return 0;
}

/*
** Make the chat continue after turn HEAD of session SID whose start is START:
** its turns become the chat's records, its state the current one.  A user
** turn without its reply as HEAD is replaced by its parent.  Everything is
** computed before the chat changes: on failure nothing changed.
*/
int
sess_load_branch(sess *s, int64_t sid, const sess_start *start, int64_t head, rwkv_err *err)
{
    store_turn *turns = NULL;
    size_t n = 0, replayed = 0;
    rwkv_state *cur = NULL;
    int64_t base = 0, last_user = 0, last_user_parent = -1;
    replay_mid mid = { 0 }, fork_mid = { 0 }, reply_mid = { 0 };
    char note[300];
    int rc, need_sep = 0, bare_leaf = 0, root = SESS_ROOT_NEW, mid_rebuilt = 0, gone;

    /* a cancel sent while idle is void; one for a reply on its way (the
    ** client's edited message forks first: sess_fork) or for the open or
    ** sibling step asked for (sess_open) cuts this replay */
    if (!atomic_load(&s->expect))
        atomic_store(&s->cancel, 0);
    if (head != 0 && (rc = branch_head(s, sid, &head, &bare_leaf, err)) != RWKV_OK)
        return rc;
    if (head == 0 && (rc = empty_root(s, sid, &head, &root, err)) != RWKV_OK)
        return rc;
    if ((rc = store_branch_read(s->st, head, &turns, &n, err)) != RWKV_OK)
        return rc;
    if (n > 0)
        root = turns[0].role == STORE_ROLE_SYSTEM ? SESS_ROOT_GREETING : SESS_ROOT_BARE;
    if ((rc = check_tokens(s, sid, turns, n, err)) != RWKV_OK)
        goto out;
    for (size_t i = 0; i < n; i++)
        if (turns[i].role == STORE_ROLE_USER) {
            last_user = turns[i].id;
            last_user_parent = turns[i].parent_id;
        }
    if ((rc = rwkv_state_create(s->m, &cur, err)) != RWKV_OK)
        goto out;
    /* the states taken on the way (replay_mid: each made only where the
    ** replay passes its turn -- a resume of a branch whose states are saved
    ** makes none of them): the state before the last message, for a
    ** regeneration or a continuation (not passed: left to be rebuilt when
    ** one of them first needs it, sess_lazy_prev -- a resume that only goes
    ** on with the chat replays nothing for it) */
    mid.turn = last_user_parent;
    /* the fork point's, when it has none (fork_point_unsaved) */
    fork_mid.turn = s->other.sid != sid ? fork_point_unsaved(turns, n, last_user_parent) : 0;
    /* and, when the replay feeds the last message (its state not saved: a
    ** crash in its prefill), the state after it with its logits: a
    ** regeneration or continuation starts there, its prompt not fed again */
    reply_mid.turn = last_user;
    reply_mid.fed = 1;
    reply_mid.next = fork_mid.turn != 0 ? &fork_mid : NULL;
    mid.next = last_user > 0 ? &reply_mid : reply_mid.next;
    if ((rc = replay_at(s, start, head, cur, &replayed, &base, note, sizeof note,
                        last_user_parent >= 0 ? &mid : mid.next, err)) != RWKV_OK)
        goto out;
    mid_rebuilt = mid.got && replayed > 0 && base != last_user_parent;
    /* commit: the chat's start, records and state */
    if (!same_start(start, &s->start) ||
        chat_has_state_file(s->c) != (start->path[0] != '\0' || start->lib_id != 0)) {
        if ((rc = sess_chat_start_from(s, start, err)) != RWKV_OK)
            goto out;
        s->start = *start;
    }
    chat_reset(s->c);
    for (size_t i = 0; i < n; i++) {
        store_turn *t = &turns[i];
        chat_turn ct;

        if (t->role != STORE_ROLE_USER)
            continue;
        memset(&ct, 0, sizeof ct);
        ct.user = (char *)t->text;
        ct.user_len = strlen(t->text);
        ct.prompt_ids = (int32_t *)t->tokens;
        ct.n_prompt = t->n_tokens;
        ct.samp = *chat_sampling(s->c);
        if (i + 1 < n && turns[i + 1].role == STORE_ROLE_ASSISTANT) {
            store_turn *a = &turns[i + 1];
            ct.reply = (char *)a->text;
            ct.reply_len = strlen(a->text);
            ct.reply_ids = (int32_t *)a->tokens;
            ct.n_reply = a->n_tokens;
            if (a->has_sampling)
                ct.samp = a->sampling;
            saved_stats(a, ct.n_prompt, &ct.stats);
            ct.interrupted = a->interrupted;   /* chat_push_turn works out ct.stop */
        }
        if ((rc = chat_push_turn(s->c, &ct, err)) != RWKV_OK) {
            chat_reset(s->c);
            goto out;
        }
    }
    if (n > 0 && turns[n - 1].role == STORE_ROLE_ASSISTANT && chat_n_turns(s->c) > 0)
        need_sep = chat_turn_at(s->c, chat_n_turns(s->c) - 1)->stop != CHAT_STOP_STRING;
    /* an empty session starts as a new one: the chat's own start, its
    ** greeting fed (or still to be fed) and written with the next message
    ** (greeting_row); anything else is the branch's state, as replayed */
    if (root != SESS_ROOT_NEW)
        chat_restore_state(s->c, cur, need_sep);
    s->root = root;
    s->unfed = 0;
    s->lazy = last_user_parent >= 0 && !mid.got;
    if (s->lazy) {
        s->lazy_turn = last_user_parent;
        s->lazy_sid = sid;
        s->lazy_n = chat_n_turns(s->c);
        s->lazy_chat = s->c;
    } else if (last_user_parent >= 0) {
        chat_set_turn_start(s->c, mid.out);
        if (reply_mid.got)
            chat_set_before_reply(s->c, reply_mid.out, reply_mid.logits);
    }
    gone = open_position(s, sid, head);
    /* (not into a session of another model: its states are its model's,
    ** and its turns go on in a new session -- sess_other) */
    /* (the end itself too when turns go on under it: a fork there) */
    if (!gone && replayed > 0 && (bare_leaf || (n > 0 && turns[n - 1].n_children > 0)) &&
        s->other.sid != sid)
        keep_replayed(s, head, cur);
    if (!gone && fork_mid.got)
        keep_replayed(s, fork_mid.turn, fork_mid.out);
    if (!gone && mid_rebuilt && last_user_parent > 0 && s->other.sid != sid)
        keep_replayed(s, last_user_parent, mid.out);
    s->sid = sid;
    s->head = head;
    memset(&s->gone, 0, sizeof s->gone);   /* a session opened: no other's successor */
    sess_unsaved_clear(s);
    s->last_user = last_user;
    s->last_reply = n > 0 && turns[n - 1].role == STORE_ROLE_ASSISTANT ? turns[n - 1].id : 0;
    s->reply_id = 0;
    replay_said(s, head, replayed, base, note);
    rc = RWKV_OK;
out:
    rwkv_state_destroy(cur);
    rwkv_state_destroy(mid.out);
    rwkv_state_destroy(fork_mid.out);
    rwkv_state_destroy(reply_mid.out);
    free(reply_mid.logits);
    store_branch_free(turns, n);
    return rc;
}

/*
** The state before the last message, left by the open (sess.lazy), when
** something starts from it.  Nothing is written but the rebuilt state, at
** the end (as the open kept it: under the budget, store_snapshot_put), so
** a kill -9 during the replay loses nothing: the next open leaves it to be
** rebuilt again.  The chat moved on since the open (a message, a reset,
** another session or chat, a state of its own before the last message):
** nothing pending any more.
*/
int
sess_lazy_prev(sess *s, rwkv_err *err)
{
    rwkv_state *prev = NULL;
    size_t replayed = 0;
    int64_t base = 0, turn = s->lazy_turn;
    char note[300];
    int rc;

    if (!s->lazy)
        return RWKV_OK;
    if (s->st == NULL || s->c != s->lazy_chat || s->sid != s->lazy_sid ||
        chat_n_turns(s->c) != s->lazy_n || chat_state_turn_start(s->c) != NULL ||
        chat_state_before_reply(s->c) != NULL) {
        s->lazy = 0;
        return RWKV_OK;
    }
    if ((rc = rwkv_state_create(s->m, &prev, err)) != RWKV_OK)
        return rc;
    rc = replay_at(s, &s->start, turn, prev, &replayed, &base, note, sizeof note, NULL, err);
    if (rc == RWKV_OK) {
        chat_set_turn_start(s->c, prev);
        s->lazy = 0;
        /* (not into a session of another model: its states are its model's) */
        if (replayed > 0 && base != turn && turn > 0 && s->other.sid != s->sid)
            keep_replayed(s, turn, prev);
        replay_said(s, turn, replayed, base, note);
    }
    rwkv_state_destroy(prev);
    return rc;
}

/* ---- saving ----------------------------------------------------------------------------- */

/* The title of a session from its first message MSG: the store's rule
** (store_title_auto), which an import without a title takes too. */
void
sess_auto_title(const char *msg, char *out, size_t cap)
{
    store_title_auto(msg, out, cap);
}

/*
** The state after the greeting from the greeting turn of a saved session
** that fed the same tokens to this model file (fingerprint and checksum
** digest) under the same strategy string: the numbers a prefill would give.
*/
int
sess_greeting_saved(sess *s)
{
    size_t n = 0;
    const int32_t *ids = chat_greeting_ids(s->c, &n);
    store_state_meta want = s->meta;
    rwkv_state *st = NULL;
    int64_t turn = 0;
    rwkv_err err;
    int ok;

    want.digest_required = 1;          /* only states known made with this file */
    if (s->st == NULL || n == 0 || chat_greeting_fed(s->c) ||
        store_greeting_find(s->st, ids, n, rwkv_model_info(s->m)->strategy, &want, &turn,
                            &err) != RWKV_OK ||
        turn == 0 || rwkv_state_create(s->m, &st, &err) != RWKV_OK)
        return -1;
    ok = store_snapshot_get(s->st, turn, &want, rwkv_state_data(st), rwkv_state_len(st), NULL,
                            &err) == RWKV_OK &&
         chat_prime_from(s->c, st, &err) == RWKV_OK;
    rwkv_state_destroy(st);
    if (ok)
        sess_notef(s, 0, "greeting: its state saved before (same model file and strategy), "
                         "no prefill");
    return ok ? 0 : -1;
}

/*
** The one rule that writes a greeting turn: where the conversation in the
** chat starts with the greeting (s->root, session_int.h: a new chat, or a
** session whose conversation was deleted; not a branch restored without
** one) and the head of session s->sid is still none, its system turn goes
** first -- the greeting's ids and, when this chat fed it, the state after
** it (stateless otherwise: a replay feeds it) -- or one already at the
** session's root with the same ids (a first message cancelled left it) is
** taken again; the head moves to it, so the next message's row goes under
** it, as the chat fed it: what the tree says is what the chat fed.  A
** greeting not fed and no message yet: nothing yet (the first message
** writes it).  RWKV_OK, or the write's error (nothing changed).
*/
static int
greeting_row(sess *s, rwkv_err *err)
{
    size_t n = 0, nr = 0;
    const int32_t *gids = chat_greeting_ids(s->c, &n);
    const rwkv_state *st0 = NULL;
    store_turn t, r;
    uint64_t waits;
    int rc;

    if (s->st == NULL || s->sid == 0 || s->head != 0 || n == 0 || s->root == SESS_ROOT_BARE ||
        (!chat_greeting_fed(s->c) && chat_n_turns(s->c) == 0))
        return RWKV_OK;
    /* the state after the greeting is in memory only when this chat fed it
    ** (a restored branch's greeting_fed holds without it) */
    if (s->root == SESS_ROOT_NEW && chat_greeting_fed(s->c))
        st0 = chat_state_start(s->c);
    if ((rc = greeting_root(s, s->sid, gids, n, &r, &nr, err)) != RWKV_OK)
        return rc;
    if (r.id != 0) {                   /* one a cancelled first message left */
        rwkv_err e2;
        if (st0 != NULL && !r.has_snapshot)   /* failing, none: a replay rebuilds it */
            store_snapshot_put(s->st, r.id, rwkv_state_cdata(st0), rwkv_state_len(st0),
                               &s->meta, &e2);
        s->head = r.id;
        store_turn_fini(&r);
        return RWKV_OK;
    }
    memset(&t, 0, sizeof t);
    t.session_id = s->sid;
    t.role = STORE_ROLE_SYSTEM;
    t.text = chat_greeting(s->c);
    t.tokens = gids;
    t.n_tokens = n;
    waits = store_busy_timeouts(s->st);
    rc = store_turn_append(s->st, &t, st0 ? rwkv_state_cdata(st0) : NULL,
                           st0 ? rwkv_state_len(st0) : 0, &s->meta, err);
    /* no room for the state (a full disk, the file-size limit): the row
    ** alone, as catch_up writes rows -- a replay feeds the greeting, nothing
    ** is lost.  (Not after a lock wait ran out: that would be a second.) */
    if (rc != RWKV_OK && st0 != NULL && store_busy_timeouts(s->st) == waits)
        rc = store_turn_append(s->st, &t, NULL, 0, &s->meta, err);
    if (rc != RWKV_OK)
        return rc;
    s->head = t.id;
    return RWKV_OK;
}


/* The one line of a conversation forked from a session of another model or
** precision (sess_other) into the new session just made: it replaces the
** "new session" line. */
static void
other_note(sess *s)
{
    const sess_other *o = &s->other;

    if (o->kind == SESS_OTHER_FILE)
        sess_notef(s, 0, "session %lld was made with the earlier file at %s; with the file there "
                         "now this conversation goes on as session %lld",
                   (long long)o->sid, o->was, (long long)s->sid);
    else if (o->kind == SESS_OTHER_MODEL)
        sess_notef(s, 0, "session %lld was made with %s; with %s this conversation goes on as "
                         "session %lld",
                   (long long)o->sid, o->was, s->model_path, (long long)s->sid);
    else
        sess_notef(s, 0, "session %lld was made with strategy %s; with %s this conversation goes "
                         "on as session %lld",
                   (long long)o->sid, o->was, rwkv_model_info(s->m)->strategy, (long long)s->sid);
    s->other.fork = 0;
}

/* The one line of a conversation whose session was lost elsewhere
** (sess_gone, check_alive), going on in the new session just made: it
** replaces the "new session" line.  An error note: what was there is
** gone. */
static void
gone_note(sess *s)
{
    const sess_gone *g = &s->gone;

    if (g->kind == SESS_GONE_TURN)
        sess_notef(s, 1, "turn %lld of session %lld was deleted elsewhere: this conversation "
                         "goes on as session %lld", (long long)g->turn, (long long)g->sid,
                   (long long)s->sid);
    else if (g->kind == SESS_GONE_REPLACED)
        sess_notef(s, 1, "session %lld of %s is another conversation now (the file was replaced, "
                         "or the session deleted elsewhere): this conversation goes on as "
                         "session %lld", (long long)g->sid, store_path(s->st), (long long)s->sid);
    else
        sess_notef(s, 1, "session %lld was deleted elsewhere: this conversation goes on as "
                         "session %lld", (long long)g->sid, (long long)s->sid);
    memset(&s->gone, 0, sizeof s->gone);
}

/* ---- the first save of a new session: one transaction -----------------------------------
**
** A new session's first rows -- its row, framing and greeting
** (session_create), the turns kept so far (sess_save_records), the message
** and its begun reply (begin_rows_write), their states -- are one write:
** all of it is in the store, or none of it (a full disk, a read-only file,
** a lock held too long, a kill -9 in the middle).  A try that failed leaves
** no row and takes no id (ids are never given twice, store_int.h
** STORE_NEXT_ID: a row written and deleted again took one), so the session
** a later try makes is the one the user sees.  The writes made of their own
** transactions run inside it as its savepoints (store_tx_begin).  The
** bracket opens where no session is yet (s->sid 0); one inside another is
** a savepoint of it, and only the outermost says "new session" once its
** COMMIT is through.  A try undone puts back what it changed of the save
** bookkeeping: the conversation is as unsaved as before (sess_unsaved: no
** session, all of it), for the next message or the quit's flush.
*/
struct first_save {
    int      open, outer;
    int64_t  head, last_user, last_reply, reply_id, created_ms, model_id;
    size_t   unsaved;
    int64_t  unsaved_user, unsaved_reply;
    int      launch_state, launch_frame, digest_required, samp_known, fail_said;
};

/* Open the bracket when S has no session yet: 0, or -1 after a note (the
** write lock not had, a read-only file). */
static int
first_begin(sess *s, struct first_save *f)
{
    rwkv_err err;

    memset(f, 0, sizeof *f);
    if (s->st == NULL || s->sid != 0)
        return 0;
    f->outer = store_tx_depth(s->st) == 0;
    f->head = s->head;
    f->last_user = s->last_user;
    f->last_reply = s->last_reply;
    f->reply_id = s->reply_id;
    f->created_ms = s->created_ms;
    f->model_id = s->model_id;
    f->unsaved = s->unsaved;
    f->unsaved_user = s->unsaved_user;
    f->unsaved_reply = s->unsaved_reply;
    f->launch_state = s->launch_state;
    f->launch_frame = s->launch_frame;
    f->digest_required = s->meta.digest_required;
    f->samp_known = s->samp_known;
    f->fail_said = s->fail_said;
    if (store_tx_begin(s->st, &err) != RWKV_OK) {
        sess_save_failed(s, "the new session", &err);
        return -1;
    }
    f->open = 1;
    return 0;
}

static void created_note(sess *s);

/* Close the bracket F: committed when OK (its failure said), else undone,
** S's bookkeeping as first_begin found it.  0 when the rows are in. */
static int
first_end(sess *s, struct first_save *f, int ok)
{
    rwkv_err err;

    if (!f->open)
        return ok ? 0 : -1;
    f->open = 0;
    if (s->st == NULL) {               /* its file lost (said): the connection took it along */
        s->sid = 0;
        s->head = 0;
        return -1;
    }
    if (ok && store_tx_commit(s->st, &err) != RWKV_OK) {   /* (undone by it) */
        s->fail_said = f->fail_said;   /* said once, as before the try */
        sess_save_failed(s, "the new session", &err);
        ok = 0;
    } else if (!ok) {
        store_tx_rollback(s->st);
    }
    if (ok) {
        if (f->outer && s->unsaved == 0)
            s->fail_said = 0;          /* a save worked: the next failure is said */
        if (f->outer && s->sid != 0)
            created_note(s);
        return 0;
    }
    s->sid = 0;
    s->head = f->head;
    s->last_user = f->last_user;
    s->last_reply = f->last_reply;
    s->reply_id = f->reply_id;
    s->created_ms = f->created_ms;
    s->model_id = f->model_id;         /* a row made inside it is gone */
    s->unsaved = f->unsaved;
    s->unsaved_user = f->unsaved_user;
    s->unsaved_reply = f->unsaved_reply;
    s->launch_state = f->launch_state;
    s->launch_frame = f->launch_frame;
    s->meta.digest_required = f->digest_required;
    s->samp_known = f->samp_known;
    return -1;
}

/* The one line of session S->sid just made (its bracket committed). */
static void
created_note(sess *s)
{
    if (s->other.fork)
        other_note(s);
    else if (s->gone.sid != 0)
        gone_note(s);
    else
        sess_notef(s, 0, "new session %lld: %s", (long long)s->sid, s->title);
}

/* session_create's rows, inside its bracket: 0, or -1 after a note. */
static int
session_rows(sess *s, const char *title, store_session *ss)
{
    rwkv_err err;
    const char *what = NULL;

    if (store_session_new(s->st, ss, &s->sid, &err) != RWKV_OK)
        what = "the new session";
    if (what == NULL && store_session_set_framing(s->st, s->sid, &s->fr, &err) != RWKV_OK)
        what = "the framing";
    if (what == NULL && greeting_row(s, &err) != RWKV_OK)
        what = "the greeting";
    if (what != NULL) {                /* undone by the bracket: no row, no id */
        s->sid = 0;
        s->head = 0;
        if (title != NULL && title != s->title)
            store_title_clean(title, s->title, sizeof s->title);
        sess_save_failed(s, what, &err);
        return -1;
    }
    s->meta.digest_required = 0;        /* every state of it is made here */
    /* the title as saved (store_title_clean: one line, by the display rule),
    ** not as given: the front ends show it and the note says it */
    s->created_ms = store_session_get(s->st, s->sid, ss, &err) == RWKV_OK ? ss->created_ms : -1;
    store_title_clean(ss->title, s->title, sizeof s->title);
    s->last_user = 0;
    s->last_reply = 0;
    sess_unsaved_clear(s);
    s->launch_state = 0;
    s->launch_frame = 0;
    s->samp_known = 0;                 /* the chat's values are the new session's */
    sess_save_sampling(s);
    return 0;
}

/*
** Create the session row (title TITLE; NULL: the conversation's own title
** when it has one -- a session deleted elsewhere is saved again under its
** name -- else the first line of MSG), its framing and its greeting turn
** (greeting_row: with the post-greeting state when this chat fed it).  A
** conversation whose greeting was never fed (a first message kept by
** sess_abandon while the greeting was still to be fed before it:
** session.c, keep_unsent) still starts with it: the system turn without a
** state, which a replay feeds.  A session is nothing without its start:
** all of it is one write (first_begin; the caller's bracket when it writes
** the first turns too), and when a part fails (a full disk) none of it is
** there and the conversation is kept out as when the row failed.  A
** failure is a save_failed note (said once until a save works: a full
** disk fails every message's try); the session is announced only once it
** is all there.  A TITLE given is kept for the next try.  0, or -1 after a
** note.
*/
static int
session_create(sess *s, const char *title, const char *msg)
{
    struct first_save f;
    store_session ss;
    rwkv_err err;

    memset(&ss, 0, sizeof ss);
    if (title == NULL && s->title[0] != '\0')
        title = s->title;
    if (title != NULL) {
        snprintf(ss.title, sizeof ss.title, "%s", title);
    } else {
        sess_auto_title(msg, ss.title, sizeof ss.title);
    }
    snprintf(ss.strategy, sizeof ss.strategy, "%s", rwkv_model_info(s->m)->strategy);
    s->head = 0;
    s->sid = 0;
    ss.state_file_id = start_row(s);
    if (s->model_id == 0 && sess_model_row(s, &err) != RWKV_OK) {
        /* (its save at the start failed too) */
        if (title != NULL && title != s->title)
            store_title_clean(title, s->title, sizeof s->title);
        sess_save_failed(s, "the model row", &err);
        return -1;
    }
    ss.model_id = s->model_id;
    if (first_begin(s, &f) != 0) {
        if (title != NULL && title != s->title)
            store_title_clean(title, s->title, sizeof s->title);
        return -1;
    }
    return first_end(s, &f, session_rows(s, title, &ss) == 0);
}

/* The store row of chat turn CT's message (parent: the head). */
static void
user_row(const sess *s, const chat_turn *ct, store_turn *u)
{
    memset(u, 0, sizeof *u);
    u->session_id = s->sid;
    u->parent_id = s->head;
    u->role = STORE_ROLE_USER;
    u->text = ct->user;
    u->tokens = ct->prompt_ids;
    u->n_tokens = ct->n_prompt;
}

/* The store row of chat turn CT's reply, under user turn PARENT. */
static void
reply_row(const sess *s, const chat_turn *ct, int64_t parent, store_turn *r)
{
    memset(r, 0, sizeof *r);
    r->session_id = s->sid;
    r->parent_id = parent;
    r->role = STORE_ROLE_ASSISTANT;
    r->text = ct->reply ? ct->reply : "";
    r->tokens = ct->reply_ids;
    r->n_tokens = ct->n_reply;
    r->has_sampling = 1;
    r->sampling = ct->samp;
    /* a copy of another model's turn (sess_other): its speeds were that
    ** model's, not this one's -- unknown here (0), not shown as this one's */
    r->prefill_tps = s->other.copying ? 0 : ct->stats.prefill_tps;
    r->decode_tps = s->other.copying ? 0 : ct->stats.decode_tps;
    r->interrupted = ct->interrupted || ct->stop == CHAT_STOP_CANCEL || ct->stop == CHAT_STOP_ERROR;
}

static void save_gap(sess *s, const char *what, const rwkv_err *err, size_t i, int64_t user,
                     int64_t reply);
static void note_moved(sess *s);

/* sess_save_records' rows (N > 0), inside its bracket. */
static int
records_rows(sess *s, size_t n, const rwkv_state *last)
{
    rwkv_err err;

    if (s->sid == 0 && session_create(s, NULL, chat_turn_at(s->c, 0)->user) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const chat_turn *ct = chat_turn_at(s->c, i);
        int at_end = i + 1 == n && last != NULL;
        store_turn u, r;

        user_row(s, ct, &u);
        if (store_turn_append(s->st, &u, NULL, 0, &s->meta, &err) != RWKV_OK) {
            save_gap(s, "the conversation", &err, i, 0, 0);
            return -1;
        }
        s->head = s->last_user = u.id;
        reply_row(s, ct, u.id, &r);
        if (store_turn_append(s->st, &r, at_end ? rwkv_state_cdata(last) : NULL,
                              at_end ? rwkv_state_len(last) : 0, &s->meta, &err) != RWKV_OK) {
            save_gap(s, "the conversation", &err, i, u.id, 0);
            return -1;
        }
        s->head = s->last_reply = r.id;
    }
    if (s->unsaved != 0 && s->unsaved - 1 < n)
        sess_unsaved_clear(s);
    return 0;
}

/*
** Save the chat's records [0, N) under the head of a new session titled from
** the first message (LAST: the state after the last one, NULL = none); a
** session made here gets them in the same write (first_begin).
*/
int
sess_save_records(sess *s, size_t n, const rwkv_state *last)
{
    struct first_save f;

    if (n == 0)
        return 0;
    if (first_begin(s, &f) != 0)
        return -1;
    return first_end(s, &f, records_rows(s, n, last) == 0);
}

/*
** The store's file is still the one it opened (store_check_file), else the
** runtime goes on as with --no-db: one line says what happened to which
** file, the store is closed (leaving the path as it is now) and nothing more
** is saved; the chat and its turns stay in memory.  1 when it was lost.
** LEAVING (sess_db_check at a quit): the quit's own line says it when
** there are turns (sess_flush's WHY: what happened), so the line here only
** when there are none -- a quit is never silent about a file gone.
*/
static int
file_lost_at(sess *s, int leaving)
{
    char note[RWKV_ERR_MSG];
    rwkv_err err;

    if (store_check_file(s->st, &err) == RWKV_OK) {
        if (store_file_note(s->st, note, sizeof note))   /* a -wal deleted: mended */
            sess_notef(s, 1, "%s", note);
        return 0;
    }
    if (!leaving)
        sess_notef(s, 1, "%s: this chat goes on without saving, as with --no-db (its turns "
                         "stay in memory until you quit)", err.msg);
    else if (chat_n_turns(s->c) == 0)
        sess_notef(s, 1, "%s (this chat had nothing in it to lose)", err.msg);
    s->db_lost = 1;
    store_close(s->st);
    s->st = NULL;
    s->sid = 0;
    s->head = s->last_user = s->last_reply = s->reply_id = 0;
    sess_unsaved_clear(s);
    /* every exchange in memory is now saved nowhere (the file that held
    ** the earlier ones is gone too): kept out from turn 0, so a quit asks
    ** (sess_unsaved, sess_flush) as after any failed save */
    s->unsaved = 1;
    snprintf(s->fail_why, sizeof s->fail_why, "%s", err.msg);
    return 1;
}

static int
file_lost(sess *s)
{
    return file_lost_at(s, 0);
}

int
sess_db_check(sess *s, int leaving)
{
    if (s->st != NULL)
        file_lost_at(s, leaving);
    return s->db_lost;
}

int
sess_db_lost(const sess *s)
{
    return s->db_lost;
}

/* A save of WHAT failed with ERR: said, unless the file went away (then
** file_lost says that, once) or a failure was said since the last save
** that worked (a full disk fails every save after it: one line). */
void
sess_save_failed(sess *s, const char *what, const rwkv_err *err)
{
    snprintf(s->fail_why, sizeof s->fail_why, "%s", err->msg);
    if (file_lost(s) || s->fail_said)
        return;
    /* a damaged file (store_corrupt's line, its way on in it): no retry mends it */
    if (err->code == RWKV_ECORRUPT)
        sess_notef(s, 1, "saving %s: %s (a retry cannot mend a damaged file: this chat goes on "
                         "without saving, in memory until you quit)", sess_tr(s, what), err->msg);
    else
        sess_notef(s, 1, "saving %s: %s (the chat goes on; what is not saved is tried again "
                         "with your next message)", sess_tr(s, what), err->msg);
    s->fail_said = 1;
}

/* ---- a save that failed part-way ---------------------------------------------------------
**
** A full disk, the file-size limit or a lock held past the busy timeout can
** fail the rows of a turn while the chat goes on.  Saving the next turns
** under the last saved one would skip the failed ones: a transcript with a
** hole, and states after it that its tokens do not give.  So the first
** failure is said once (not again while turns stay out), turns [I, n) are
** marked (save_gap), and each later save first writes them, in order, as
** they are in memory (catch_up: rows without states, which a resume
** rebuilds by replay); it says so when it worked.
*/

void
sess_unsaved_clear(sess *s)
{
    /* inside a first save (first_begin) it is not through yet: first_end
    ** clears it once it is, and a failure before that is not said twice */
    if (s->st == NULL || store_tx_depth(s->st) == 0)
        s->fail_said = 0;
    s->unsaved = 0;
    s->unsaved_user = s->unsaved_reply = 0;
}

/* Saving turn I of the chat failed with ERR (WHAT: what was being saved;
** USER, REPLY: its rows already written, 0 = none). */
static void
save_gap(sess *s, const char *what, const rwkv_err *err, size_t i, int64_t user, int64_t reply)
{
    sess_save_failed(s, what, err);
    if (s->st == NULL || s->unsaved != 0)
        return;
    s->unsaved = i + 1;
    s->unsaved_user = user;
    s->unsaved_reply = reply;
}

/* Saving still fails with ERR (not said again): kept for sess_flush. */
static int
still_failing(sess *s, const rwkv_err *err)
{
    snprintf(s->fail_why, sizeof s->fail_why, "%s", err->msg);
    return -1;
}

/* "saving works again": the N exchanges kept out are in the store now. */
static void
said_saved(sess *s, size_t n)
{
    if (n == 1)
        sess_notef(s, 0, "saving works again: the earlier exchange not saved is in session %lld now",
                   (long long)s->sid);
    else
        sess_notef(s, 0, "saving works again: the %zu earlier exchanges not saved are in session "
                         "%lld now", n, (long long)s->sid);
}

/* The unsaved turns before UPTO written under the head: 0 when every one
** is in the store now, -1 when saving still fails (not said again). */
static int
catch_up(sess *s, size_t upto)
{
    size_t from = s->unsaved - 1, i;
    rwkv_err err;
    int rc;

    if (s->unsaved == 0 || s->st == NULL || s->sid == 0)  /* a new session saves them all */
        return 0;
    if (upto > chat_n_turns(s->c))
        upto = chat_n_turns(s->c);
    if (from >= upto)                  /* only the turn being saved now (begin_rows) */
        return 0;
    for (i = from; i < upto; i++) {
        const chat_turn *ct = chat_turn_at(s->c, i);
        store_turn u, r;

        if (s->unsaved_user == 0) {
            if (s->head == 0 && greeting_row(s, &err) != RWKV_OK)
                return still_failing(s, &err);
            user_row(s, ct, &u);
            if (store_turn_append(s->st, &u, NULL, 0, &s->meta, &err) != RWKV_OK)
                return still_failing(s, &err);
            s->unsaved_user = u.id;
            note_moved(s);
        }
        s->head = s->last_user = s->unsaved_user;
        reply_row(s, ct, s->last_user, &r);
        r.id = s->unsaved_reply;
        rc = r.id != 0 ? store_turn_finish(s->st, &r, NULL, 0, &s->meta, &err)
                       : store_turn_append(s->st, &r, NULL, 0, &s->meta, &err);
        if (rc != RWKV_OK)
            return still_failing(s, &err);
        s->head = s->last_reply = r.id;
        note_moved(s);
        s->unsaved = i + 2;
        s->unsaved_user = s->unsaved_reply = 0;
    }
    sess_unsaved_clear(s);
    said_saved(s, upto - from);
    return 0;
}

void
sess_unsaved_dropped(sess *s)
{
    if (s->unsaved == 0 || s->unsaved - 1 < chat_n_turns(s->c))
        return;
    if (s->unsaved_user != 0 && s->unsaved_user == s->last_user)
        sess_save_unsent(s);           /* its half-written rows go, the head back */
    sess_unsaved_clear(s);
}

/*
** Another process (a second window on the session) wrote since this one:
** the session's head in the file was not the one this process left there
** (every move of s->head here also moves the file's) when the first row of
** this message was written.  That head is read inside the row's own write
** transaction (store_turn_head_before), so of two windows sending at the
** same moment exactly one goes on in place and the other is told -- a
** check before the write let both pass.  The row still went under its
** parent (s->head, or the user turn of a regeneration) -- nothing is lost
** or reordered -- and one line says where it landed: a new branch when
** the parent already had another child (the other window wrote under the
** same turn), else on this window's branch beside the other's.  A branch
** chosen in this process is not told.  Called after every row write of
** begin_rows and catch_up; only the first one checks (head_watch).
*/
static void
note_moved(sess *s)
{
    int64_t head;
    int siblings = 0;

    if (!s->head_watch || s->st == NULL)
        return;
    s->head_watch = 0;
    head = store_turn_head_before(s->st, &siblings);
    if (head == s->watch_head)
        return;
    sess_notef(s, 0, "session %lld was changed in another window: this message %s "
                     "(F6 / /history shows both)", (long long)s->sid,
               siblings > 0 ? sess_tr(s, "starts a new branch beside it")
                            : sess_tr(s, "goes on this window's branch, beside the other one"));
}

/*
** The first of the rows the next writes go under or into that another
** window deleted (its F6 delete of a turn): ANCHOR (the head a
** message goes under, the message a regeneration's reply goes under, the
** reply a continuation extends) and, while a failed save keeps turns out,
** the head catch_up writes under and the half-written rows it completes.
** 0 when all are there (or unknown: a failed read, said).  A deleted turn
** takes every turn under it along (store_turn_prune), so the rows above
** these are there when they are.
*/
static int64_t
row_deleted(sess *s, int64_t anchor)
{
    int64_t need[4] = { anchor, s->unsaved ? s->head : 0, s->unsaved_user, s->unsaved_reply };
    rwkv_err err;
    int in;

    for (int i = 0; i < 4; i++) {
        if (need[i] == 0)
            continue;
        if (store_turn_in_session(s->st, need[i], s->sid, &in, &err) != RWKV_OK) {
            sess_save_failed(s, "the session", &err);
            return 0;
        }
        if (!in)
            return need[i];
    }
    return 0;
}

/*
** The current session still exists (another window may have deleted it),
** is still this conversation (same id and creation time: the file may have
** been overwritten with another database, or the id taken again), and
** still holds the rows the next writes need (row_deleted, ANCHOR: another
** window may have deleted this window's branch); if not, the conversation
** so far (its first N_DONE exchanges, from this window's copy) goes on in a
** new session, said in one line -- never a write that fails every time,
** "tried again" while nothing could ever save it.  A new session, not the
** deleted turns written back into the old one: what another window deleted
** stays deleted there.  (A head moved by another window is told by the
** write itself: note_moved.)  LAST: the state after the last of them, saved
** with it (NULL = none: a replay rebuilds it).
*/
static void
check_alive(sess *s, size_t n_done, int64_t anchor, const rwkv_state *last)
{
    store_session ss;
    rwkv_err err;
    int64_t old = s->sid, gone = 0;
    int rc;

    if (s->sid == 0)
        return;
    if (s->other.sid == s->sid) {
        /* a session of another model (sess_other): the conversation so
        ** far goes on in a new one of this model, said by session_create */
        s->sid = 0;
        s->head = s->last_user = s->last_reply = 0;
        sess_unsaved_clear(s);
        s->other.fork = 1;
        s->other.copying = 1;          /* the records so far: the other model's */
        if (n_done > 0)
            sess_save_records(s, n_done, last);
        s->other.copying = 0;
        return;
    }
    rc = store_session_get(s->st, s->sid, &ss, &err);
    if (rc == RWKV_OK && (ss.created_ms == s->created_ms || s->created_ms < 0) &&
        (gone = row_deleted(s, anchor)) == 0)
        return;
    if (rc != RWKV_OK && err.code != RWKV_EINVAL) {
        sess_save_failed(s, "the session", &err);
        return;
    }
    s->sid = 0;
    s->head = s->last_user = s->last_reply = 0;
    sess_unsaved_clear(s);             /* the records below are all of them */
    if (sess_model_row(s, &err) != RWKV_OK) {   /* another file may not have it */
        sess_save_fail(s, "the model row", &err);
        return;
    }
    /* the new session says why it is made, in its one line (gone_note):
    ** made here, or by the message being written when nothing came before */
    s->gone.sid = old;
    s->gone.turn = gone;
    s->gone.kind = gone != 0 ? SESS_GONE_TURN : rc == RWKV_OK ? SESS_GONE_REPLACED
                                                              : SESS_GONE_SESSION;
    if (n_done > 0)
        sess_save_records(s, n_done, last);
}

size_t
sess_unsaved(const sess *s)
{
    size_t n = chat_n_turns(s->c);

    if (n == 0)
        return 0;
    if (s->st == NULL)                 /* --no-db: nothing; its file lost: all of it */
        return s->unsaved != 0 ? n : 0;
    if (s->sid == 0)                   /* the session's row failed: all of it */
        return n;
    if (s->unsaved == 0 || s->unsaved - 1 >= n)
        return 0;
    return n - (s->unsaved - 1);
}

void
sess_unsaved_where(const sess *s, size_t left, char *buf, size_t cap)
{
    const char *reply = s->unsaved_reply != 0 ? "with an empty reply marked interrupted"
                                              : "without its reply";

    if (s->st == NULL || s->sid == 0 || s->unsaved == 0 || s->unsaved_user == 0)
        snprintf(buf, cap, "%s not in the session", left == 1 ? "it is" : "they are");
    else if (left == 1)
        snprintf(buf, cap, "only its message is in the session, %s", reply);
    else
        snprintf(buf, cap, "they are not in the session, but the first one's message is, %s",
                 reply);
}

/*
** Leaving: the next message's write of what was kept out (check_alive,
** then catch_up, or the whole conversation in a new session when its row
** failed), with the message's one bounded wait for another program's lock.
** (A new session whose first message sess_abandon kept before any save was
** tried -- its greeting was still to be fed -- is written here too, with
** no "saving works again": nothing failed.)
*/
size_t
sess_flush(sess *s, char *why, size_t cap)
{
    size_t n = chat_n_turns(s->c), kept = sess_unsaved(s), left;
    int failed = s->fail_why[0] != '\0';

    if (why != NULL && cap > 0)
        why[0] = '\0';
    if (kept > 0 && (s->st == NULL || file_lost(s))) {   /* its file lost: nothing saves */
        if (why != NULL && cap > 0)
            snprintf(why, cap, "%s", s->fail_why);
        return sess_unsaved(s);
    }
    if (kept == 0)
        return 0;
    s->fail_why[0] = '\0';
    store_busy_once(s->st, 1);
    if (s->sid == 0) {
        if (sess_save_records(s, n, NULL) == 0 && failed)
            said_saved(s, kept);
    } else {
        check_alive(s, n, s->head, NULL);    /* deleted elsewhere: all of it in a new session */
        if (s->st != NULL && s->sid != 0)
            catch_up(s, n);
    }
    if (s->st != NULL)
        sess_save_sampling(s);         /* a change whose write failed */
    if (s->st != NULL)
        store_busy_once(s->st, 0);
    left = sess_unsaved(s);
    if (left > 0 && why != NULL && cap > 0)
        snprintf(why, cap, "%s", s->fail_why[0] ? s->fail_why : "saving failed");
    return left;
}

/*
** The refusal when the database was lost in use (file_lost): no retry can
** save the LEFT exchanges, so the line says where they are (in memory
** only), what the user can do -- the front end's way to keep them
** (cfg.keep_way: the client's "quit with F10 and export it (e)"), else its
** quit, which loses them -- or go on chatting, and WHY (what happened to
** which file) last, as the other refusal has it (a narrow line cuts the end):
**   2 exchanges are only in memory, so this chat stays: quit with F10 and
**   export it (e), or go on here; no retry can save it (PATH: while in use,
**   the session database was deleted)
*/
static int
lost_refusal(sess *s, size_t left, const char *why, rwkv_err *err)
{
    char n[96], way[SESS_KEEP_WAY_MAX + SESS_QUIT_KEY_MAX + 64];

    if (left == 1)
        snprintf(n, sizeof n, "%s", sess_tr(s, "1 exchange is only in memory"));
    else
        snprintf(n, sizeof n, sess_tr(s, "%zu exchanges are only in memory"), left);
    if (s->keep_way[0])
        snprintf(way, sizeof way, "%s", s->keep_way);
    else if (s->quit_key[0])
        snprintf(way, sizeof way, sess_tr(s, "quit with %s (it is lost then)"), s->quit_key);
    else
        snprintf(way, sizeof way, "%s", sess_tr(s, "quit (it is lost then)"));
    return rwkv_errf(err, RWKV_EDB,
                     sess_tr(s, "%s, so this chat stays: %s, or go on here; no retry can save "
                                "it (%s)"), n, way, why);
}

/*
** The leaving rule (session.h): the conversation is about to be left, so
** what a failed save kept out is written first, as sess_flush writes it.
** RWKV_EDB when some of it still is not: the caller then changes nothing.
** The refusal's one line for both front ends: what to do first, with the
** front end's own quit key or command (cfg.quit_key), the reason last --
** a narrow status line cuts the end.
*/
int
sess_leave_check(sess *s, rwkv_err *err)
{
    char why[RWKV_ERR_MSG];
    const char *k = s->quit_key;
    size_t left;

    /* a file gone since the last save: found now, before the step drops
    ** what only memory holds (a stat; said as a save would say it) */
    sess_db_check(s, 0);
    if (sess_unsaved(s) == 0 || (left = sess_flush(s, why, sizeof why)) == 0)
        return RWKV_OK;
    if (s->db_lost)
        return lost_refusal(s, left, why, err);
    if (left == 1 && k[0])
        return rwkv_errf(err, RWKV_EDB,
                         sess_tr(s, "1 exchange is not saved, so this chat stays: try again, or "
                                    "quit with %s (%s)"), k, why);
    if (left == 1)
        return rwkv_errf(err, RWKV_EDB,
                         sess_tr(s, "1 exchange is not saved, so this chat stays: try again, or "
                                    "quit (%s)"), why);
    if (k[0])
        return rwkv_errf(err, RWKV_EDB,
                         sess_tr(s, "%zu exchanges are not saved, so this chat stays: try again, "
                                    "or quit with %s (%s)"), left, k, why);
    return rwkv_errf(err, RWKV_EDB,
                     sess_tr(s, "%zu exchanges are not saved, so this chat stays: try again, or "
                                "quit (%s)"), left, why);
}

int
sess_reply_is_last(sess *s, rwkv_err *err)
{
    store_turn t;
    int n;

    if (s->st == NULL || s->sid == 0 || s->last_reply == 0 ||
        store_turn_get(s->st, s->last_reply, &t, err) != RWKV_OK)
        return RWKV_OK;      /* nothing saved of it: nothing after it either */
    n = t.n_children;
    store_turn_fini(&t);
    if (n > 0)
        return rwkv_errf(err, RWKV_EINVAL,
                         "this reply (turn %lld) has turns after it in another branch: only the "
                         "last reply of a branch goes on; regenerate it for a new one, or go to "
                         "the end of that branch", (long long)s->last_reply);
    return RWKV_OK;
}

/* A continuation started: the reply's row begun again (sess_continue). */
static void
save_reopen(sess *s)
{
    size_t n = chat_n_turns(s->c);
    rwkv_err err;

    if (s->st == NULL || n == 0 || file_lost(s))
        return;
    check_alive(s, n, s->last_reply, NULL);   /* no new row: nothing to place */
    if (s->st == NULL)                  /* its read found the file gone: said */
        return;
    if (s->sid == 0 && sess_save_records(s, n, NULL) != 0)
        return;
    if (catch_up(s, n) != 0 || s->last_reply == 0)
        return;
    if (store_turn_reopen(s->st, s->last_reply, &err) != RWKV_OK) {
        save_gap(s, "the reply", &err, n - 1, s->last_user, s->last_reply);
        return;
    }
    s->reply_id = s->head = s->last_reply;
    s->last_save = mono_now_s();
    s->progress_failed = 0;
}

/* begin_rows_write after the catch-up: the session when there is none,
** the message row, the reply row. */
static int
begin_rows_in(sess *s, const chat_turn *ct, size_t n, int with_user, const rwkv_state *before,
              int64_t sid0)
{
    store_turn u, a;
    rwkv_err err;

    if (s->sid == 0 || s->sid != sid0)
        with_user = 1;                 /* a session made now has not got the message */
    if (s->sid == 0) {
        if (n > 1 && sess_save_records(s, n - 1, NULL) != 0)
            return -1;
        if (s->sid == 0 && session_create(s, NULL, ct->user) != 0)
            return -1;
    }
    if (s->regen)
        sess_regen_mark(s);            /* what the rows below change */
    if (with_user && s->head == 0 && greeting_row(s, &err) != RWKV_OK) {
        save_gap(s, "the greeting", &err, n - 1, 0, 0);   /* an emptied session's */
        s->last_user = 0;
        return -1;
    }
    if (with_user) {
        user_row(s, ct, &u);
        if (store_turn_append(s->st, &u, before ? rwkv_state_cdata(before) : NULL,
                              before ? rwkv_state_len(before) : 0, &s->meta, &err) != RWKV_OK) {
            save_gap(s, "your message", &err, n - 1, 0, 0);
            s->last_user = 0;
            return -1;
        }
        s->last_user = s->head = u.id;
        note_moved(s);
        if (s->regen)
            s->regen_undo.user = u.id;   /* it goes with an empty regeneration */
        if (s->unsaved == n)
            s->unsaved_user = u.id;      /* the kept-out message's row is in now */
    }
    if (s->last_user == 0)
        return -1;
    memset(&a, 0, sizeof a);
    a.session_id = s->sid;
    a.parent_id = s->last_user;
    a.role = STORE_ROLE_ASSISTANT;
    a.text = "";
    a.has_sampling = 1;
    a.sampling = ct->samp;
    a.interrupted = 1;
    if (store_turn_begin(s->st, &a, &err) != RWKV_OK) {
        save_gap(s, "the reply", &err, n - 1, s->last_user, 0);
        return -1;
    }
    s->reply_id = s->head = a.id;
    note_moved(s);
    s->last_save = mono_now_s();
    s->progress_failed = 0;
    if (s->unsaved != 0 && s->unsaved >= n)   /* the unsaved turn was this one */
        sess_unsaved_clear(s);
    return 0;
}

/* begin_rows after its checks: catch-up, then the rows (begin_rows_in); a
** session made here is made with them, in one write (first_begin). */
static int
begin_rows_write(sess *s, const chat_turn *ct, size_t n, int with_user, const rwkv_state *before,
                 int64_t sid0)
{
    struct first_save f;
    int failed = s->fail_said;         /* the earlier ones were kept out: said */
    int made, rc;

    if (catch_up(s, n - 1) != 0)
        return -1;
    made = s->sid == 0;
    if (first_begin(s, &f) != 0)
        return -1;
    rc = first_end(s, &f, begin_rows_in(s, ct, n, with_user, before, sid0) == 0);
    if (rc == 0 && made && n > 1 && failed)
        said_saved(s, n - 1);
    return rc;
}

/*
** The rows of the last chat turn CT (N turns in the chat): its user turn
** (unless WITH_USER is 0: a regeneration) with BEFORE, the state before the
** reply (NULL: none yet), then the begun reply row, marked interrupted, the
** head on it.  The session is made first when there is none.  0 when both
** were written; -1 after a note.
*/
static int
begin_rows(sess *s, const chat_turn *ct, size_t n, int with_user, const rwkv_state *before)
{
    rwkv_err err;
    int64_t sid0 = s->sid;
    int rc;

    if (s->unsaved != 0 && (s->unsaved < n || s->unsaved_user == 0)) {
        with_user = 1;                 /* a regeneration of a message that was not saved */
    } else if (s->unsaved == n && s->unsaved_user != 0) {
        /* the message row is in (its reply's failed: saved at submit, or
        ** before a regeneration): the reply goes under it, not a second one */
        with_user = 0;
        s->last_user = s->unsaved_user;
        if (before != NULL &&
            store_snapshot_put(s->st, s->last_user, rwkv_state_cdata(before),
                               rwkv_state_len(before), &s->meta, &err) != RWKV_OK)
            sess_save_failed(s, "the state of your message", &err);   /* its row is in */
        if (s->st == NULL)
            return -1;
    }
    /* first: a session deleted elsewhere gets every turn in a new one */
    check_alive(s, n - 1, with_user ? s->head : s->last_user, NULL);
    if (s->st == NULL)                 /* its read found the file gone: said */
        return -1;
    /* the first row written below says whether another window moved the
    ** head (note_moved); not in a session made now, nor under no parent */
    s->head_watch = s->sid != 0 && s->sid == sid0 && (with_user ? s->head : s->last_user) != 0;
    s->watch_head = s->head;
    rc = begin_rows_write(s, ct, n, with_user, before, sid0);
    s->head_watch = 0;
    if (rc == 0)
        sess_save_sampling(s);         /* values given at launch are the session's now */
    return rc;
}

void
sess_save_submit(sess *s)
{
    size_t n = chat_n_turns(s->c);

    s->early = 0;
    s->reply_id = 0;
    if (s->st == NULL || n == 0 || !chat_greeting_fed(s->c) || file_lost(s))
        return;
    catch_up(s, n - 1);                /* before the undo point: a cancel keeps them */
    s->undo_sid = s->sid;
    s->undo_head = s->head;
    s->undo_user = s->last_user;
    s->undo_reply = s->last_reply;
    memcpy(s->undo_title, s->title, sizeof s->title);
    s->undo_launch_state = s->launch_state;
    s->undo_launch_frame = s->launch_frame;
    if (begin_rows(s, chat_turn_at(s->c, n - 1), n, 1, NULL) == 0)
        s->early = 1;
}

/* Generation of CT began on rows saved at submit: the state before the
** reply goes to the user turn, the reply's sampling (its seed is drawn
** now) to its row. */
static void
early_begin(sess *s, const chat_turn *ct)
{
    const rwkv_state *before = chat_state_before_reply(s->c);
    store_turn a;
    rwkv_err err;

    if (s->st == NULL || s->reply_id == 0 || file_lost(s))
        return;
    if (before != NULL &&
        store_snapshot_put(s->st, s->last_user, rwkv_state_cdata(before), rwkv_state_len(before),
                           &s->meta, &err) != RWKV_OK) {
        sess_save_failed(s, "the state of your message", &err);   /* its row is in */
        if (s->st == NULL)
            return;
    }
    reply_row(s, ct, s->last_user, &a);
    a.id = s->reply_id;
    a.interrupted = STORE_TURN_BEGUN;  /* begun: sess_save_progress still takes it */
    if (store_turn_finish(s->st, &a, NULL, 0, &s->meta, &err) != RWKV_OK)
        sess_save_failed(s, "the reply", &err);
    s->last_save = mono_now_s();
}

void
sess_save_unsent(sess *s)
{
    rwkv_err err;
    int rc;

    s->early = 0;
    if (s->st != NULL && atomic_load(&s->keep) && s->reply_id != 0)
        (void)store_turn_lease(s->st, s->reply_id, 0, &err);   /* kept as cut: not written on */
    if (s->st == NULL || atomic_load(&s->keep) || s->last_user == 0)
        return;
    if (s->sid != s->undo_sid) {       /* the session was made for this message */
        int fork = s->other.sid != 0 && s->other.sid == s->undo_sid;
        rc = store_session_delete(s->st, s->sid, &err);
        /* it was announced: its end is said too -- what it was made for,
        ** and, for a fork of another model's session (sess_other: it held
        ** a copy of that conversation too), that the session is untouched */
        if (rc == RWKV_OK && fork)
            sess_notef(s, 0, "session %lld, made for the message you cancelled, is deleted again; "
                             "session %lld is as it was", (long long)s->sid,
                       (long long)s->other.sid);
        else if (rc == RWKV_OK)
            sess_notef(s, 0, "session %lld, made for the message you cancelled, is deleted again",
                       (long long)s->sid);
        s->sid = 0;
        s->other.fork = 0;
        s->head = s->last_user = s->last_reply = 0;
        if (fork) {
            /* back on the other model's session, as before the message: the
            ** next write forks again, and says so (check_alive); nothing is
            ** kept out, so leaving now makes no copy of it either */
            s->sid = s->undo_sid;
            s->head = s->undo_head;
            s->last_user = s->undo_user;
            s->last_reply = s->undo_reply;
        }
        memcpy(s->title, s->undo_title, sizeof s->title);   /* the next message titles it */
        s->launch_state = s->undo_launch_state;
        s->launch_frame = s->undo_launch_frame;
    } else {
        rc = store_turn_prune(s->st, s->last_user, NULL, &err);
        if (rc == RWKV_OK)
            rc = store_session_set_head(s->st, s->sid, s->undo_head, &err);
        s->head = s->undo_head;
        s->last_user = s->undo_user;
        s->last_reply = s->undo_reply;
    }
    s->reply_id = 0;
    if (rc != RWKV_OK)
        sess_save_failed(s, "the cancelled message", &err);
}

void
sess_regen_mark(sess *s)
{
    sess_regen_undo *u = &s->regen_undo;

    u->head = s->head;
    u->user = 0;
    u->last_user = s->last_user;
    u->last_reply = s->last_reply;
    u->unsaved = s->unsaved;
    u->unsaved_user = s->unsaved_user;
    u->unsaved_reply = s->unsaved_reply;
}

int
sess_drop_empty_regen(sess *s)
{
    const sess_regen_undo *u = &s->regen_undo;
    rwkv_err err;
    /* the message row it wrote takes its reply with it (store_turn_prune):
    ** left alone, it would be a message without a reply, and the exchange,
    ** no longer kept out, never written whole */
    int64_t row = u->user != 0 ? u->user : s->head;

    if (s->st == NULL || s->sid == 0 || s->head == 0 || u->head == 0 || s->head == u->head ||
        file_lost(s))
        return -1;
    if (store_turn_prune(s->st, row, NULL, &err) != RWKV_OK ||
        store_session_set_head(s->st, s->sid, u->head, &err) != RWKV_OK) {
        sess_save_failed(s, "the cancelled reply", &err);
        return -1;
    }
    s->head = u->head;
    s->last_user = u->last_user;
    s->last_reply = u->last_reply;
    s->unsaved = u->unsaved;           /* kept out again, as before it */
    s->unsaved_user = u->unsaved_user;
    s->unsaved_reply = u->unsaved_reply;
    s->reply_id = 0;
    return 0;
}

/* Generation started: the user turn (unless a regeneration) and the begun
** reply, or their state and seed when they were saved at submit. */
void
sess_save_begin(sess *s)
{
    size_t n = chat_n_turns(s->c);
    const chat_turn *ct = n ? chat_turn_at(s->c, n - 1) : NULL;

    if (s->cont) {               /* a continuation: no new seed taken, no new row */
        s->reply_id = 0;
        save_reopen(s);
        return;
    }
    if (s->seeded) {
        s->seeds = s->seeds_after;   /* the queued seed was taken */
        sess_queue_seed(s);
    }
    if (s->early) {
        s->early = 0;
        if (ct != NULL)
            early_begin(s, ct);
        return;
    }
    s->reply_id = 0;
    if (s->st == NULL || ct == NULL || file_lost(s))
        return;
    begin_rows(s, ct, n, !s->regen, s->regen ? NULL : chat_state_before_reply(s->c));
}

/* The partial reply now and then, so a crash keeps it. */
void
sess_save_progress(sess *s)
{
    const chat_turn *ct;
    rwkv_err err;
    double now;

    if (s->reply_id == 0 || s->progress_failed)
        return;
    now = mono_now_s();
    if (now - s->last_save < SESS_SAVE_EVERY_S || file_lost(s))
        return;
    s->last_save = now;
    ct = chat_turn_at(s->c, chat_n_turns(s->c) - 1);
    if (store_turn_progress(s->st, s->reply_id, ct->reply ? ct->reply : "", ct->reply_ids,
                            ct->n_reply, &err) != RWKV_OK) {
        rwkv_err e2;
        int in = 1;
        /* the reply's row deleted in another window (sessions rm, F2): no
        ** save failed -- the reply's end saves the conversation as a new
        ** session and says why (check_alive) */
        if (store_turn_in_session(s->st, s->reply_id, s->sid, &in, &e2) != RWKV_OK || in)
            sess_save_failed(s, "the partial reply", &err);
        s->progress_failed = 1;
    }
}

/* A reply runs with no text saved for a second (its prefill, a slow token):
** its writer's lease alone is refreshed, so another window opening the
** session still finds it being written (store_turn_writing).  Quiet: one
** that fails (the lock held elsewhere) is tried again a second later. */
void
sess_save_alive(sess *s)
{
    rwkv_err err;
    double now;

    if (s->reply_id == 0 || s->st == NULL)
        return;
    now = mono_now_s();
    if (now - s->last_save < SESS_SAVE_EVERY_S || now - s->last_alive < SESS_SAVE_EVERY_S)
        return;
    s->last_alive = now;
    (void)store_turn_lease(s->st, s->reply_id, 1, &err);
}

/*
** The reply's row was not there to complete: deleted in another window
** while it streamed (sessions rm, F6's delete of it or of its message).
** No save failed -- none could ever work there -- so the conversation,
** this reply included (with AFTER, the state after it), goes on in a new
** session now, said in one line (check_alive: the first of the message and
** the reply that is gone is named).  1 when that was the case.
*/
static int
finish_gone(sess *s, const rwkv_state *after)
{
    rwkv_err err;
    int in_user = 1, in_reply = 1;

    if (store_turn_in_session(s->st, s->reply_id, s->sid, &in_reply, &err) != RWKV_OK ||
        in_reply ||
        store_turn_in_session(s->st, s->last_user, s->sid, &in_user, &err) != RWKV_OK)
        return 0;
    check_alive(s, chat_n_turns(s->c), in_user ? s->reply_id : s->last_user, after);
    s->reply_id = 0;
    return 1;
}

/*
** The reply ended: complete its row with the state after it.  Where that
** fails (a full disk: the state is most of the write), the row is
** completed without it -- its text and tokens, the state rebuilt by replay
** when needed, as catch_up writes a kept-out reply -- rather than left the
** empty row marked interrupted that its begin wrote; a note says so, once
** until a state is saved again (a full disk fails every reply's).
*/
void
sess_save_finish(sess *s, const chat_turn *t)
{
    store_turn a;
    rwkv_err err, e2;
    const rwkv_state *after = chat_state(s->c);
    int with;

    if (s->reply_id == 0 || file_lost(s))
        return;
    reply_row(s, t, s->last_user, &a);
    a.id = s->reply_id;
    with = store_turn_finish(s->st, &a, rwkv_state_cdata(after), rwkv_state_len(after),
                             &s->meta, &err) == RWKV_OK;
    if (!with && store_turn_finish(s->st, &a, NULL, 0, &s->meta, &e2) != RWKV_OK) {
        if (finish_gone(s, after))
            return;                    /* in a new session now, said */
        save_gap(s, "the reply", &err, chat_n_turns(s->c) - 1, s->last_user, s->reply_id);
    } else {
        if (!with && !s->nostate_said && !s->fail_said)   /* (a failure said: one line) */
            sess_notef(s, 1, "saving the state after the reply: %s (the reply is saved without "
                             "it: a resume rebuilds it by replaying the conversation)", err.msg);
        s->nostate_said = !with;
        if (s->unsaved == 0)
            s->fail_said = 0;          /* saving works: the next failure is said */
    }
    s->last_reply = s->reply_id;
    s->reply_id = 0;
    if (s->st != NULL)
        file_lost(s);                  /* what the commit found beside the file, said now */
    if (s->st != NULL)
        store_wal_trim(s->st);         /* a quiet point: the -wal cut (store.h) */
}

/* ---- opening, and moving in the turn tree ---------------------------------------------- */

/* What a resume of session SS, made with model SM (id 0: none on record),
** needs before a model is loaded. */
static void
info_of(const store_session *ss, const store_model *sm, sess_info *out)
{
    memset(out, 0, sizeof *out);
    out->id = ss->id;
    out->head_turn = ss->head_turn;
    out->n_turns = ss->n_turns;
    snprintf(out->title, sizeof out->title, "%s", ss->title);
    snprintf(out->strategy, sizeof out->strategy, "%s", ss->strategy);
    if (sm->id != 0) {
        snprintf(out->model_path, sizeof out->model_path, "%s", sm->path);
        snprintf(out->vocab_path, sizeof out->vocab_path, "%s", sm->vocab);
    }
}

int
sess_model_need(store *st, int64_t sid, const rwkv_info *inf, sess_need *out, rwkv_err *err)
{
    store_session ss;
    store_statefile sf;
    struct stat sb;
    const char *p;
    int rc;

    memset(out, 0, sizeof *out);
    if ((rc = store_session_get(st, sid, &ss, err)) != RWKV_OK ||
        (rc = store_model_ref(st, ss.model_id, &out->model, err)) != RWKV_OK)
        return rc;
    if (out->model.id == 0 || !other_shape(&out->model, inf))
        return RWKV_OK;                /* this model opens it (sess_open checks the rest) */
    out->other = 1;
    info_of(&ss, &out->model, &out->info);
    p = out->model.path;
    out->demo = strcmp(p, SESS_DEMO_PATH) == 0;
    /* the file the session was made with, still there: by its size here
    ** (its content once loaded: sess_need_loaded) */
    if (!out->demo) {
        if (stat(p, &sb) != 0)
            return rwkv_errf(err, RWKV_EINVAL, "%s: cannot open: %s (the model session %lld was "
                             "made with; --session %lld --model PATH at launch resumes it with a "
                             "copy of it)", p, strerror(errno), (long long)sid, (long long)sid);
        if (!S_ISREG(sb.st_mode) || (uint64_t)sb.st_size != out->model.size)
            return rwkv_errf(err, RWKV_EINVAL, "%s: holds another model than session %lld was "
                             "made with (%llu bytes on record, %llu now); --session %lld --model "
                             "PATH at launch resumes it with a copy of it", p, (long long)sid,
                             (unsigned long long)out->model.size,
                             (unsigned long long)sb.st_size, (long long)sid);
    }
    /* its state file, as the open would say it: before a load, not after */
    if ((rc = store_statefile_ref(st, ss.state_file_id, &sf, err)) != RWKV_OK)
        return rc;
    return sess_state_check(st, sid, &sf, 0, err);
}

int
sess_need_loaded(const sess_need *need, const rwkv_info *inf, rwkv_err *err)
{
    const store_model *m = &need->model;

    if (inf->fingerprint == m->fingerprint &&
        (m->digest == 0 || inf->file_digest == 0 || m->digest == inf->file_digest))
        return RWKV_OK;
    return rwkv_errf(err, RWKV_EINVAL, "%s: holds another model than session %lld was made with "
                     "(fingerprint %016llx on record, %016llx now); --session %lld --model PATH "
                     "at launch resumes it with a copy of it", m->path, (long long)need->info.id,
                     (unsigned long long)m->fingerprint, (unsigned long long)inf->fingerprint,
                     (long long)need->info.id);
}

int
sess_lookup(const char *db, int64_t sid, sess_info *out, rwkv_err *err)
{
    return sess_lookup_ex(db, sid, NULL, out, err);
}

int
sess_lookup_ex(const char *db, int64_t sid, const char *nodb, sess_info *out, rwkv_err *err)
{
    store_open_opts o = { 0, nodb ? nodb : SESS_NODB_HINT, NULL };
    char defpath[STORE_PATH_MAX];
    store *st = NULL;
    store_session ss;
    store_model sm;
    int rc;

    memset(out, 0, sizeof *out);
    if (db == NULL) {
        if ((rc = store_default_path(defpath, sizeof defpath, err)) != RWKV_OK)
            return rc;
        db = defpath;
    }
    if (access(db, F_OK) != 0) {
        if (sid == 0)
            return rwkv_errf(err, RWKV_EINVAL, "--resume: no saved sessions (%s does not exist)",
                             db);
        return rwkv_errf(err, RWKV_EINVAL, "--session %lld: no saved sessions (%s does not exist)",
                         (long long)sid, db);
    }
    if ((rc = store_open_ex(db, &o, &st, err)) != RWKV_OK)
        return rc;
    if (sid == 0 && store_session_latest(st, &sid, err) != RWKV_OK) {
        rc = rwkv_errf(err, RWKV_EINVAL, "--resume: no saved sessions in %s", db);
        goto out;
    }
    if ((rc = store_session_get(st, sid, &ss, err)) != RWKV_OK)
        goto out;
    if ((rc = store_model_ref(st, ss.model_id, &sm, err)) != RWKV_OK)
        goto out;                       /* a damaged models table, said */
    info_of(&ss, &sm, out);
out:
    store_close(st);
    return rc;
}

int
sess_saved_hint(const char *db, char *buf, size_t cap)
{
    char defpath[STORE_PATH_MAX];
    store *st = NULL;
    store_session *ss = NULL;
    size_t n = 0;
    rwkv_err e;

    buf[0] = '\0';
    if (db == NULL && store_default_path(defpath, sizeof defpath, NULL) == RWKV_OK)
        db = defpath;
    if (db == NULL || store_open_peek(db, &st, &e) != RWKV_OK)
        return 0;
    store_set_busy_ms(st, SESS_HINT_BUSY_MS);   /* a lock held elsewhere: no hint */
    if (store_session_list(st, &ss, &n, &e) != RWKV_OK)
        n = 0;
    if (n == 1)
        snprintf(buf, cap, "%s holds a saved session, '%s': --resume continues it", db,
                 ss[0].title);
    else if (n > 1)
        snprintf(buf, cap, "%s holds %zu saved sessions: --resume continues the latest, '%s' "
                           "(`rwkv-tui sessions list` lists them)", db, n, ss[0].title);
    free(ss);
    store_close(st);
    return buf[0] != '\0';
}

void
sess_info_launch(const sess_info *info, const char **model, int *demo, const char **strategy,
                 const char **vocab)
{
    if (*model == NULL && !*demo) {
        if (strcmp(info->model_path, SESS_DEMO_PATH) == 0)
            *demo = 1;
        else if (info->model_path[0] != '\0')
            *model = info->model_path;
        if ((*model != NULL || *demo) && *strategy == NULL && info->strategy[0] != '\0')
            *strategy = info->strategy;
    }
    if (*vocab == NULL && info->vocab_path[0] != '\0')
        *vocab = info->vocab_path;
}

void
sess_info_load_hint(const sess_info *info, const char *model, const char *strategy,
                    rwkv_err *err)
{
    size_t n = strlen(err->msg);
    strat st;
    rwkv_err e2;

    if (info == NULL || n >= sizeof err->msg - 1)
        return;
    /* the session's strategy taken with its model: when it cannot load
    ** here (a GPU one, a malformed one) the strategy is what failed */
    if (strategy == info->strategy &&
        (strat_check(strategy, 0, &st, &e2) != RWKV_OK || model != info->model_path))
        snprintf(err->msg + n, sizeof err->msg - n,
                 " (the strategy session %lld was saved with: --strategy S resumes it with "
                 "another)", (long long)info->id);
    else if (model == info->model_path)
        snprintf(err->msg + n, sizeof err->msg - n,
                 " (the model session %lld was saved with: --model PATH resumes it with a copy "
                 "of it elsewhere)", (long long)info->id);
}

/* A and B the same values, the seed aside (a session keeps no seed of its
** own: each reply records the one it drew). */
static int
same_values(const rwkv_sampling *a, const rwkv_sampling *b)
{
    int seed_i = params_find("seed");

    for (int k = 0; params_table[k].name != NULL; k++)
        if (k != seed_i && params_get(a, k) != params_get(b, k))
            return 0;
    return 1;
}

void
sess_save_sampling(sess *s)
{
    const rwkv_sampling *v = s->once ? &s->once_own : chat_sampling(s->c);
    rwkv_err err;

    if (s->st == NULL || s->sid == 0 || (s->samp_known && same_values(v, &s->samp_saved)))
        return;
    if (store_session_sampling_put(s->st, s->sid, v, &err) != RWKV_OK) {
        s->samp_known = 0;             /* tried again with the next reply, and when leaving */
        sess_save_failed(s, "the sampling values", &err);
        return;
    }
    s->samp_saved = *v;
    s->samp_known = 1;
}

/*
** The sampling values session SID (branch HEAD) keeps, read through ST into
** *V, which is left as it was when there are none: its own
** (store_session_sampling: as the user last set them or ran a reply with
** them; *OWN set), else -- a session saved before they were kept, or
** imported -- the last reply's on the branch to HEAD, whose max_tokens, when
** a /continue made it the reply's new total, is the run's cap only if no
** continuation raised it (which that record cannot tell).  *FOUND: either.
*/
static int
stored_sampling(store *st, int64_t sid, int64_t head, rwkv_sampling *v, int *found, int *own,
                rwkv_err *err)
{
    store_turn *turns = NULL;
    size_t n = 0;
    int rc;

    *own = 0;
    if ((rc = store_session_sampling(st, sid, v, found, err)) != RWKV_OK || *found) {
        *own = *found;
        return rc;
    }
    if ((rc = store_branch_read(st, head, &turns, &n, err)) != RWKV_OK)
        return rc;
    for (size_t i = n; i-- > 0 && !*found;)
        if (turns[i].role == STORE_ROLE_ASSISTANT && turns[i].has_sampling) {
            *v = turns[i].sampling;
            *found = 1;
        }
    store_branch_free(turns, n);
    return RWKV_OK;
}

/* The stored values V (stored_sampling) as the chat takes them, into *SET:
** the values the user set at launch win; SEED, the chat's, stays. */
static void
launch_values_win(const sess *s, rwkv_sampling *v, unsigned *set, uint64_t seed)
{
    int seed_i = params_find("seed");

    for (int k = 0; params_table[k].name != NULL; k++) {
        if (k == seed_i)
            continue;
        if (s->cli_set & PARAMS_BIT(k))
            params_copy(v, &s->cli_samp, k);
        *set |= PARAMS_BIT(k);
    }
    v->seed = seed;
}

/*
** What an open of session SID takes from the database besides the branch:
** the sampling values its new replies use (stored_sampling, on the branch to
** HEAD) and, for a seeded chat, how many replies it holds.  Read before the
** branch is loaded (open_read), applied after (open_apply): the load's replay
** may take minutes, and a session deleted elsewhere meanwhile stops nothing
** -- the chat goes on, its turns saved in a new session (check_alive), as
** after a deletion at any later time.
*/
struct open_vals {
    rwkv_sampling v;
    int           found, own;
    uint64_t      used;
};

static int
open_read(sess *s, int64_t sid, int64_t head, struct open_vals *o, rwkv_err *err)
{
    int rc;

    memset(o, 0, sizeof *o);
    o->v = *chat_sampling(s->c);
    if ((rc = stored_sampling(s->st, sid, head, &o->v, &o->found, &o->own, err)) != RWKV_OK)
        return rc;
    return s->seeded ? store_session_reply_count(s->st, sid, &o->used, err) : RWKV_OK;
}

/* O (open_read) into the chat (launch_values_win: the values set at launch
** win), and the seeds of a seeded chat past the replies it holds. */
static void
open_apply(sess *s, const struct open_vals *o)
{
    rwkv_sampling v = o->v;
    unsigned set = chat_sampling_set(s->c);

    s->samp_known = 0;
    if (o->own) {
        s->samp_saved = o->v;
        s->samp_known = 1;
    }
    if (o->found) {
        launch_values_win(s, &v, &set, chat_sampling(s->c)->seed);
        chat_set_sampling(s->c, &v, set);
    }
    if (s->seeded) {
        rng_seed(&s->seeds, chat_seed(s->c, NULL));
        for (uint64_t i = 0; i < o->used; i++)
            rng_next(&s->seeds);
        sess_queue_seed(s);
    }
}

int
sess_open_sampling(const sess *s, store *st, int64_t sid, int64_t head, rwkv_sampling *v,
                   unsigned *set, rwkv_err *err)
{
    int found = 0, own = 0, rc;
    uint64_t seed = v->seed;

    if ((rc = stored_sampling(st, sid, head, v, &found, &own, err)) == RWKV_OK && found)
        launch_values_win(s, v, set, seed);
    return rc;
}

/*
** The framing session SID is continued with, into *OUT: its own (the
** defaults, said in a note, when its row is damaged); at the
** first open after launch, stop strings, bans and a think mode given at
** launch win (they change no past turn), and a greeting or role names
** given that differ are named in a note (the session keeps its own: its
** turns were written so).
*/
static int
open_framing(sess *s, int64_t sid, framing *out, int *changed, rwkv_err *err)
{
    const framing *l = &s->launch_fr;
    framing was;
    int rc;

    *changed = 0;
    rc = store_session_framing(s->st, sid, out, err);
    if (rc == RWKV_EFORMAT) {         /* a damaged row: said, and the defaults */
        sess_notef(s, 1, "%s (the default framing is used)", err->msg);
        framing_fini(out);
        *changed = 1;                  /* (written back, mended, with the launch's) */
        rc = RWKV_OK;
    }
    if (rc != RWKV_OK || !s->launch_frame)
        return rc;
    /* *CHANGED: the launch's stops, bans or think mode change the row's */
    framing_init(&was);
    if ((rc = framing_copy(&was, out, err)) == RWKV_OK &&
        (rc = framing_merge(out, l, FRAMING_STOP | FRAMING_BAN | FRAMING_THINK, err)) == RWKV_OK &&
        !framing_equal(&was, out))
        *changed = 1;
    framing_fini(&was);
    if (rc != RWKV_OK)
        return rc;
    if ((l->greeting || l->user[0] || l->bot[0]) && !framing_same_prompt(l, out))
        sess_notef(s, 0, "(session %lld keeps its own greeting and names: %s / %s; the ones given "
              "apply to new sessions)", (long long)sid, framing_user(out), framing_bot(out));
    return RWKV_OK;
}

/* sess_load_branch under the session's framing FR (a new chat when it is not the
** one in use); on failure nothing changes.  Takes FR's contents. */
static int
load_framed(sess *s, int64_t sid, const sess_start *start, int64_t head, framing *fr,
            rwkv_err *err)
{
    chat *old = s->c, *nc = NULL;
    int rc;

    if (!framing_equal(fr, &s->fr)) {
        if ((rc = sess_chat_with_framing(s, fr, &nc, err)) != RWKV_OK)
            return rc;
        s->c = nc;
    }
    if ((rc = sess_load_branch(s, sid, start, head, err)) != RWKV_OK) {
        if (nc != NULL) {
            s->c = old;
            chat_destroy(nc);
        }
        return rc;
    }
    if (nc != NULL) {
        chat_destroy(old);
        framing_fini(&s->fr);
        s->fr = *fr;
        framing_init(fr);
    }
    return RWKV_OK;
}

static int open_writes(sess *s, int64_t sid, int64_t head, rwkv_err *err);

/* sess_open within the expected job (the cancel rule, session.h), the
** leaving rule kept; its writes are one job (open_writes). */
static int
open_branch(sess *s, int64_t sid, int64_t head, rwkv_err *err)
{
    int rc;

    if (s->st == NULL)
        return rwkv_errf(err, RWKV_EINVAL, "this chat is not saved: no session to open");
    if (chat_phase(s->c) != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "a reply is still running");
    if ((rc = sess_leave_check(s, err)) != RWKV_OK)
        return rc;
    /*
    ** The open's own writes -- the branch position, a state a replay
    ** rebuilt, the framing given at launch, each only where it changes
    ** the row -- make one job, as a message's rows do (store_busy_once):
    ** while another program holds the lock, the first waits (said once,
    ** up front: sess_open_store's hook), the others give up at once, and
    ** one line says what was not saved.  None is needed to go on: the
    ** chat starts either way.
    */
    store_busy_once(s->st, 1);
    s->in_open = 1;
    s->open_said = 0;
    rc = open_writes(s, sid, head, err);
    s->in_open = 0;
    store_read_end(s->st);             /* (a failed open's snapshot) */
    if (s->st != NULL)
        store_busy_once(s->st, 0);
    return rc;
}

/* open_branch's work once it may go on: the session read, checked and
** loaded, its position and framing written where they changed. */
static int
open_writes(sess *s, int64_t sid, int64_t head, rwkv_err *err)
{
    store_session ss;
    sess_start start;
    struct open_vals vals;
    int rc, changed, fr_changed = 0, was_required = s->meta.digest_required;

    /* the open's reads, the session row to the replay's plan, are one
    ** snapshot (replay_at ends it, before the tokens are fed): a session
    ** deleted elsewhere while they run is read whole, and goes on in a new
    ** session (open_position), as one deleted during the replay does */
    if ((rc = store_read_begin(s->st, err)) != RWKV_OK ||
        (rc = store_session_get(s->st, sid, &ss, err)) != RWKV_OK)
        return rc;
    if ((rc = check_model(s, &ss, &changed, err)) != RWKV_OK)
        return rc;
    if ((rc = session_start(s, &ss, &start, err)) != RWKV_OK)
        return rc;
    if (s->launch_state) {
        /* --state given at launch: it must be the session's own */
        if (start.lib_id == 0 && start.path[0] == '\0')
            return rwkv_errf(err, RWKV_EINVAL,
                             "session %lld has no state file: leave out --state (or start a "
                             "--new session)", (long long)sid);
        if (!same_start(&start, &s->start))
            return rwkv_errf(err, RWKV_EINVAL,
                             "session %lld starts from the state file %s: leave out --state (or "
                             "start a --new session)", (long long)sid, start.label);
    }
    if (head < 0)
        head = ss.head_turn;
    if ((rc = open_read(s, sid, head, &vals, err)) != RWKV_OK)
        return rc;
    {
        framing fr;
        sess_other was_other = s->other;
        framing_init(&fr);
        s->meta.digest_required = changed;
        other_made(s, &ss, &s->other);   /* before the load: what it may write */
        if ((rc = open_framing(s, sid, &fr, &fr_changed, err)) == RWKV_OK)
            rc = load_framed(s, sid, &start, head, &fr, err);
        framing_fini(&fr);
        if (rc != RWKV_OK) {
            s->meta.digest_required = was_required;
            s->other = was_other;
            return rc;
        }
    }
    model_moved(s, &ss);
    if (s->launch_frame) {       /* stops/bans/think given at launch are the session's now */
        rwkv_err e2;
        s->launch_frame = 0;
        /* (of another model's session, the fork's: written with it) */
        if (fr_changed && s->other.sid != sid &&
            store_session_set_framing(s->st, sid, &s->fr, &e2) != RWKV_OK)
            sess_save_fail(s, "the framing", &e2);
    }
    s->launch_state = 0;
    snprintf(s->title, sizeof s->title, "%s", ss.title);
    s->created_ms = ss.created_ms;
    open_apply(s, &vals);
    return RWKV_OK;
}

/* The open or sibling step asked for ended: so did its expectation, as
** sess_run ends a reply's (a cancel after it is void at the next start).
** Returns RC. */
static int
open_leave(sess *s, int rc)
{
    sess_expect_clear(s);
    return rc;
}

int
sess_open(sess *s, int64_t sid, int64_t head, rwkv_err *err)
{
    return open_leave(s, open_branch(s, sid, head, err));
}

int
sess_begin(sess *s, const char *title, rwkv_err *err)
{
    if (s->st == NULL)
        return rwkv_errf(err, RWKV_EINVAL, "this chat is not saved");
    if (session_create(s, title, NULL) != 0)   /* said (a note), the title kept */
        return rwkv_errf(err, RWKV_EDB, "%s", s->fail_why[0] ? s->fail_why : "saving failed");
    return RWKV_OK;
}

int
sess_rename(sess *s, int64_t id, const char *title, rwkv_err *err)
{
    int rc;

    if (s->st == NULL)
        return rwkv_errf(err, RWKV_EINVAL, "this chat is not saved");
    if ((rc = store_session_rename(s->st, id, title, err)) != RWKV_OK)
        return rc;
    if (id == s->sid)
        store_title_clean(title, s->title, sizeof s->title);
    return RWKV_OK;
}

int
sess_reset(sess *s, rwkv_err *err)
{
    store_turn *turns = NULL;
    size_t n = 0;
    int64_t root = 0;
    int rc;

    if ((rc = sess_leave_check(s, err)) != RWKV_OK)
        return rc;
    if (s->st == NULL || s->sid == 0) {
        chat_reset(s->c);
        s->unfed = 0;
        s->head = s->last_user = s->last_reply = 0;
        sess_unsaved_clear(s);
        return RWKV_OK;
    }
    if ((rc = store_branch_read(s->st, s->head, &turns, &n, err)) != RWKV_OK) {
        if (!session_gone(s, s->sid))
            return rc;
        /* deleted elsewhere: the reset conversation is a new one */
        sess_notef(s, 1, "session %lld was deleted elsewhere: the next message starts a new "
                         "session", (long long)s->sid);
        sess_start_over(s);
        return RWKV_OK;
    }
    if (n > 0 && turns[0].role == STORE_ROLE_SYSTEM)
        root = turns[0].id;
    store_branch_free(turns, n);
    {
        sess_start start = s->start;
        return sess_load_branch(s, s->sid, &start, root, err);
    }
}

/*
** The first reply on the path root..TURN that another process is writing
** now (store_turn_writing) into *LIVE, and the turn before the message it
** answers into *BEFORE; *LIVE 0 when none.  Such a reply is a leaf (a
** window that opens it goes on beside it: branch_head), but a turn under
** it (written by a version before leases) is checked through it too.
*/
static int
live_on_path(store *st, int64_t turn, int64_t *live, int64_t *before, rwkv_err *err)
{
    int64_t *path = NULL;
    size_t n = 0;
    int rc, writing = 0;

    *live = *before = 0;
    if ((rc = store_turn_path(st, turn, &path, &n, err)) != RWKV_OK)
        return rc;
    for (size_t i = 0; i < n && rc == RWKV_OK; i++) {
        if ((rc = store_turn_writing(st, path[i], &writing, err)) != RWKV_OK || !writing)
            continue;
        *live = path[i];
        *before = i >= 2 ? path[i - 2] : 0;   /* its message's parent (0: the start) */
        break;
    }
    free(path);
    return rc;
}

int
sess_fork_point_ex(store *st, int64_t sid, int64_t turn, int64_t *at, int64_t *live,
                   rwkv_err *err)
{
    store_turn t;
    int64_t w = 0, before = 0;
    int rc;

    if (live != NULL)
        *live = 0;
    if ((rc = store_turn_get(st, turn, &t, err)) != RWKV_OK)
        return rc;
    if (t.session_id != sid) {   /* before the rule: the turn named is the one asked for */
        store_turn_fini(&t);
        return rwkv_errf(err, RWKV_EINVAL, "turn %lld is not in session %lld", (long long)turn,
                         (long long)sid);
    }
    *at = t.role == STORE_ROLE_USER ? t.parent_id : turn;
    store_turn_fini(&t);
    /* a reply still being written holds only part of its text: a fork goes
    ** on from before its message, as a resume does (branch_head) */
    if (*at != 0 && (rc = live_on_path(st, *at, &w, &before, err)) == RWKV_OK && w != 0) {
        *at = before;
        if (live != NULL)
            *live = w;
    }
    return rc;
}

int
sess_fork_point(store *st, int64_t sid, int64_t turn, int64_t *at, rwkv_err *err)
{
    return sess_fork_point_ex(st, sid, turn, at, NULL, err);
}

int64_t
sess_fork_live_why(store *st, int64_t live, char *buf, size_t cap)
{
    store_turn t;
    rwkv_err err;
    int64_t msg = 0;

    if (store_turn_get(st, live, &t, &err) == RWKV_OK) {
        msg = t.parent_id;
        store_turn_fini(&t);
    }
    if (msg > 0)
        snprintf(buf, cap, store_tr(st, "reply %lld is still being written in another window: "
                                       "branched before its message %lld"),
                 (long long)live, (long long)msg);
    else
        snprintf(buf, cap, store_tr(st, "reply %lld is still being written in another window: "
                                       "branched before its message"), (long long)live);
    return msg;
}

static int
fork_to(sess *s, int64_t turn, int64_t *at, rwkv_err *err)
{
    int64_t to;
    int rc;

    if (s->st == NULL)
        return rwkv_errf(err, RWKV_EINVAL, "this chat is not saved");
    if ((rc = sess_leave_check(s, err)) != RWKV_OK)
        return rc;
    if ((rc = sess_fork_point(s->st, s->sid, turn, &to, err)) != RWKV_OK)
        return rc;
    {
        sess_start start = s->start;
        if ((rc = sess_load_branch(s, s->sid, &start, to, err)) != RWKV_OK)
            return rc;
    }
    if (at)
        *at = to;
    return RWKV_OK;
}

int
sess_fork(sess *s, int64_t turn, int64_t *at, rwkv_err *err)
{
    int rc = fork_to(s, turn, at, err);

    if (rc != RWKV_OK)
        sess_expect_clear(s);          /* a reply expected after it will not come */
    return rc;
}

static int
step_sibling(sess *s, int64_t turn, int dir, rwkv_err *err)
{
    store_turn t;
    int64_t *ids = NULL, leaf = 0;
    size_t n = 0;
    long pos = -1;
    int rc;

    if (s->st == NULL)
        return rwkv_errf(err, RWKV_EINVAL, "this chat is not saved");
    if ((rc = store_turn_get(s->st, turn, &t, err)) != RWKV_OK)
        return rc;
    rc = store_turn_children(s->st, t.session_id, t.parent_id, &ids, &n, err);
    if (rc == RWKV_OK) {
        for (size_t i = 0; i < n; i++)
            if (ids[i] == turn)
                pos = (long)i;
        if (pos < 0 || pos + dir < 0 || pos + dir >= (long)n)
            rc = rwkv_errf(err, RWKV_EINVAL, "no %s sibling", dir < 0 ? "previous" : "next");
        else if ((rc = store_branch_leaf(s->st, ids[pos + dir], &leaf, err)) == RWKV_OK)
            rc = open_branch(s, t.session_id, leaf, err);
    }
    free(ids);
    store_turn_fini(&t);
    return rc;
}

int
sess_step_sibling(sess *s, int64_t turn, int dir, rwkv_err *err)
{
    return open_leave(s, step_sibling(s, turn, dir, err));
}
