/*
** session.c -- the session runtime (see session.h): one implementation of
** resume, save, regenerate, fork, sibling steps, state-file switch and
** replay for the line chat and the full-screen client.
*/
#include "session.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/clock.h"
#include "../core/chat/rng.h"
#include "framing.h"

/* Where a conversation starts: a state file by path, a library row, or
** none (zeros + the greeting). */
typedef struct sess_start {
    char    path[STORE_PATH_MAX];      /* referenced state file, "" = none */
    int64_t lib_id;                    /* library row (imported bytes or a path) */
    char    label[STORE_PATH_MAX];     /* what the user is shown */
} sess_start;

struct sess {
    rwkv_model      *m;                /* borrowed */
    const tok       *t;                /* borrowed */
    chat            *c;                /* owned */
    /* the config, kept to create the chat again (sess_set_model) */
    framing          fr;               /* the framing in use (the session's) */
    framing          launch_fr;        /* as given at launch: its stops and bans win
                                          at the first sess_open */
    int              launch_frame;     /* no session opened or created yet */
    int              no_stop;
    rwkv_sampling    cli_samp;         /* values given at launch ... */
    unsigned         cli_set;          /* ... and which (they win over stored ones) */
    chat_callbacks   cb;               /* the front end's */
    void           (*note)(void *ud, int is_err, const char *msg);
    void           (*progress)(void *ud, uint64_t done, uint64_t total);

    /* saving; st == NULL: nothing is saved */
    store           *st;               /* owned connection */
    store_state_meta meta;
    char             model_path[STORE_PATH_MAX];
    char             vocab_path[STORE_PATH_MAX];
    int64_t          model_id;
    int64_t          sid;              /* 0 = created at the first reply */
    char             title[STORE_TITLE_MAX];
    int64_t          head;             /* last saved turn of the branch */
    int64_t          last_user;        /* user turn of the last exchange */
    int64_t          reply_id;         /* the begun reply row, 0 = none */
    int64_t          last_reply;       /* the last finished reply row */
    int              regen;            /* the running reply is a regeneration */
    int              started;          /* the running reply reached generation */
    double           last_save;
    int              progress_failed;

    sess_start       start;            /* the state file in use */
    int              launch_state;     /* start is the expect_state of the config:
                                          the first sess_open must match it */

    /* explicit seed: the per-reply seed sequence, mirrored so a resumed
    ** session goes on with it */
    int              seeded;
    rng              seeds, seeds_after;

    atomic_int       cancel;           /* replay cancel (sess_cancel) */
};

/* ---- small helpers ----------------------------------------------------------- */

static void
notef(sess *s, int is_err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void
notef(sess *s, int is_err, const char *fmt, ...)
{
    char buf[RWKV_ERR_MSG + 512];
    va_list ap;

    if (s->note == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    s->note(s->cb.ud, is_err, buf);
}

static void
save_fail(sess *s, const char *what, const rwkv_err *err)
{
    notef(s, 1, "saving %s: %s (the chat goes on)", what, err->msg);
}

/* PATH made absolute (a session resumes from any directory), trying
** PATH.pth as the model loader does; PATH itself when neither exists. */
static void
abs_path(const char *path, char *out, size_t cap)
{
    char buf[STORE_PATH_MAX + 8], *rp;

    rp = realpath(path, NULL);
    if (rp == NULL) {
        snprintf(buf, sizeof buf, "%s.pth", path);
        rp = realpath(buf, NULL);
    }
    snprintf(out, cap, "%s", rp != NULL ? rp : path);
    free(rp);
}

/* The next reply's seed from the mirrored sequence (explicit seed only). */
static void
queue_seed(sess *s)
{
    if (!s->seeded)
        return;
    s->seeds_after = s->seeds;
    chat_set_next_seed(s->c, rng_next(&s->seeds_after));
}

/*
** A loadable path for state START: its own path, or for an imported library
** row a temporary file holding its bytes (named with the original's
** extension: the loader tells .pth from .safetensors by it), to unlink when
** *IS_TMP.  RWKV_OK or an error.
*/
static int
start_file(sess *s, const sess_start *start, char *out, size_t cap, int *is_tmp, rwkv_err *err)
{
    store_statefile f;
    void *data = NULL;
    const char *dot, *tmpdir = getenv("TMPDIR");
    char suffix[32];
    size_t off = 0;
    int fd, rc;

    *is_tmp = 0;
    if (start->lib_id == 0) {
        snprintf(out, cap, "%s", start->path);
        return RWKV_OK;
    }
    if (s->st == NULL)
        return rwkv_errf(err, RWKV_EINVAL, "state file '%s': no session database", start->label);
    if ((rc = store_statefile_get(s->st, start->lib_id, &f, &data, err)) != RWKV_OK)
        return rc;
    if (data == NULL) {
        if (f.path[0] == '\0')
            return rwkv_errf(err, RWKV_EINVAL, "state file '%s' has neither a path nor data",
                             f.name);
        snprintf(out, cap, "%s", f.path);
        return RWKV_OK;
    }
    dot = strrchr(f.name, '.');
    snprintf(suffix, sizeof suffix, "%s", dot && strlen(dot) < sizeof suffix ? dot : ".pth");
    snprintf(out, cap, "%s/rwkv-tui-state-XXXXXX%s", tmpdir && *tmpdir ? tmpdir : "/tmp", suffix);
    fd = mkstemps(out, (int)strlen(suffix));
    if (fd < 0) {
        free(data);
        return rwkv_errf(err, RWKV_EIO, "%s: %s", out, strerror(errno));
    }
    while (off < f.size) {
        ssize_t w = write(fd, (const char *)data + off, f.size - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            rc = rwkv_errf(err, RWKV_EIO, "%s: %s", out, w < 0 ? strerror(errno) : "short write");
            close(fd);
            unlink(out);
            free(data);
            return rc;
        }
        off += (size_t)w;
    }
    close(fd);
    free(data);
    *is_tmp = 1;
    return RWKV_OK;
}

/* The start state of START (zeros, or its state file) into OUT. */
static int
load_start(sess *s, const sess_start *start, rwkv_state *out, rwkv_err *err)
{
    char path[STORE_PATH_MAX + 64];
    int is_tmp, rc;

    rwkv_state_reset(s->m, out);
    if (start->path[0] == '\0' && start->lib_id == 0)
        return RWKV_OK;
    if ((rc = start_file(s, start, path, sizeof path, &is_tmp, err)) != RWKV_OK)
        return rc;
    rc = rwkv_state_load_file(s->m, path, out, err);
    if (is_tmp)
        unlink(path);
    return rc;
}

/* Make the chat start from START (its state file, or the greeting). */
static int
chat_start_from(sess *s, const sess_start *start, rwkv_err *err)
{
    char path[STORE_PATH_MAX + 64];
    int is_tmp, rc;

    if (start->path[0] == '\0' && start->lib_id == 0)
        return chat_use_greeting(s->c, err);
    if ((rc = start_file(s, start, path, sizeof path, &is_tmp, err)) != RWKV_OK)
        return rc;
    rc = chat_load_state_file(s->c, path, err);
    if (is_tmp)
        unlink(path);
    return rc;
}

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
        save_fail(s, "the state file row", &err);
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
    if (f.path[0] == '\0')
        return rwkv_errf(err, RWKV_EINVAL,
                         "session %lld starts from the state file '%s', which is not on disk",
                         (long long)ss->id, f.name);
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

static int
model_row(sess *s, rwkv_err *err)
{
    store_model m;

    store_meta_from_info(&s->meta, rwkv_model_info(s->m));
    if (s->st == NULL)
        return RWKV_OK;
    store_model_from_info(&m, s->model_path, rwkv_model_info(s->m));
    snprintf(m.vocab, sizeof m.vocab, "%s", s->vocab_path);
    return store_model_upsert(s->st, &m, &s->model_id, err);
}

/*
** Session SS must have been made by a model of this shape.  *CHANGED (OUT):
** it was made with another file at this model's path (a model written over
** it): the user is told, and only states known to be made with this file
** are used (the others are rebuilt by replay).
*/
static int
check_model(sess *s, const store_session *ss, int *changed, rwkv_err *err)
{
    const rwkv_info *inf = rwkv_model_info(s->m);
    store_model sm;
    int rc;

    *changed = 0;
    if (ss->model_id == 0 || ss->model_id == s->model_id)
        return RWKV_OK;
    if ((rc = store_model_get(s->st, ss->model_id, &sm, err)) != RWKV_OK)
        return rc;
    if (sm.fingerprint != inf->fingerprint &&
        (strcmp(sm.version, inf->version) != 0 || sm.n_layer != inf->n_layer ||
         sm.n_embd != inf->n_embd || sm.n_head != inf->n_head || sm.head_size != inf->head_size))
        return rwkv_errf(err, RWKV_ESHAPE,
                         "session %lld was made with %s (RWKV-%s, %d layers, %d embd), not this "
                         "model (RWKV-%s, %d layers, %d embd): use that model or --new",
                         (long long)ss->id, sm.path, sm.version, sm.n_layer, sm.n_embd,
                         inf->version, inf->n_layer, inf->n_embd);
    if (!inf->is_demo && strcmp(sm.path, s->model_path) == 0) {
        /* another row of the same path: another file content (store.h) */
        *changed = 1;
        notef(s, 0, "the model at %s changed since this session was saved: the states saved "
                    "with the old file are not used, they are rebuilt by replay", sm.path);
    }
    return RWKV_OK;
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

/* Feed segment IDS[N] of ROLE into OUT by the replay rule; *DONE counts. */
static int
feed_seg(sess *s, const int32_t *ids, size_t n, int role, rwkv_state *out, uint64_t *done,
         uint64_t total, rwkv_err *err)
{
    const rwkv_sampling *samp = chat_sampling(s->c);
    size_t chunk = samp->chunk > 0 ? (size_t)samp->chunk : 256;
    size_t step = role == STORE_ROLE_ASSISTANT ? 1 : chunk;

    for (size_t i = 0; i < n; i += step) {
        size_t k = n - i < step ? n - i : step;
        int rc;
        if (atomic_load(&s->cancel))
            return rwkv_errf(err, RWKV_ECANCEL, "replay cancelled");
        rc = rwkv_eval(s->m, ids + i, k, out, NULL, err);
        if (rc != RWKV_OK)
            return rc;
        *done += k;
        if (s->progress && (k > 1 || *done % 16 == 0 || *done == total))
            s->progress(s->cb.ud, *done, total);
    }
    return RWKV_OK;
}

/* A state wanted on the way of a replay: the one after turn TURN (0 = the
** session's start) into OUT; GOT (OUT) says whether the replay passed it. */
typedef struct replay_mid {
    int64_t     turn;
    rwkv_state *out;
    int         got;
} replay_mid;

static void
mid_take(replay_mid *mid, int64_t at, const rwkv_state *st)
{
    if (mid != NULL && !mid->got && mid->turn == at) {
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
    if (note && note_cap)
        snprintf(note, note_cap, "%s", plan.note);
    if (plan.base_turn == 0 && (rc = load_start(s, start, out, err)) != RWKV_OK)
        goto out;
    mid_take(mid, plan.base_turn, out);
    for (size_t g = 0; g < plan.n_segs && rc == RWKV_OK; g++) {
        rc = feed_seg(s, plan.tokens + plan.segs[g].off, plan.segs[g].len, plan.segs[g].role, out,
                      &done, plan.n_tokens, err);
        if (rc == RWKV_OK)
            mid_take(mid, plan.segs[g].turn_id, out);
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

/*
** Make the chat continue after turn HEAD of session SID whose start is START:
** its turns become the chat's records, its state the current one.  A user
** turn without its reply as HEAD is replaced by its parent.  Everything is
** computed before the chat changes: on failure nothing changed.
*/
static int
load_branch(sess *s, int64_t sid, const sess_start *start, int64_t head, rwkv_err *err)
{
    store_turn *turns = NULL;
    size_t n = 0, replayed = 0;
    rwkv_state *cur = NULL, *prev = NULL;
    int64_t base = 0, last_user = 0, last_user_parent = -1;
    replay_mid mid;
    char note[300];
    int rc, need_sep = 0;

    atomic_store(&s->cancel, 0);
    if (head != 0) {
        store_turn h;
        if ((rc = store_turn_get(s->st, head, &h, err)) != RWKV_OK)
            return rc;
        if (h.session_id != sid) {
            store_turn_fini(&h);
            return rwkv_errf(err, RWKV_EINVAL, "turn %lld is not in session %lld",
                             (long long)head, (long long)sid);
        }
        if (h.role == STORE_ROLE_USER) {
            notef(s, 0, "(turn %lld is a message without its reply: continuing before it)",
                  (long long)head);
            head = h.parent_id;
        }
        store_turn_fini(&h);
    }
    if ((rc = store_branch_read(s->st, head, &turns, &n, err)) != RWKV_OK)
        return rc;
    if ((rc = check_tokens(s, sid, turns, n, err)) != RWKV_OK)
        goto out;
    for (size_t i = 0; i < n; i++)
        if (turns[i].role == STORE_ROLE_USER) {
            last_user = turns[i].id;
            last_user_parent = turns[i].parent_id;
        }
    if ((rc = rwkv_state_create(s->m, &cur, err)) != RWKV_OK ||
        (rc = rwkv_state_create(s->m, &prev, err)) != RWKV_OK)
        goto out;
    /* the state before the last message too, so that a regeneration works at
    ** once: taken on the way when the replay passes it, else replayed alone
    ** (from its own snapshot: the head's was nearer) */
    mid.turn = last_user_parent;
    mid.out = prev;
    mid.got = 0;
    if ((rc = replay_at(s, start, head, cur, &replayed, &base, note, sizeof note,
                        last_user_parent >= 0 ? &mid : NULL, err)) != RWKV_OK)
        goto out;
    if (last_user_parent >= 0 && !mid.got) {
        size_t r2;
        if ((rc = replay_at(s, start, last_user_parent, prev, &r2, NULL, NULL, 0, NULL, err)) !=
            RWKV_OK)
            goto out;
    }
    /* commit: the chat's start, records and state */
    if (!same_start(start, &s->start) ||
        chat_has_state_file(s->c) != (start->path[0] != '\0' || start->lib_id != 0)) {
        if ((rc = chat_start_from(s, start, err)) != RWKV_OK)
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
            ct.interrupted = a->interrupted;   /* chat_push_turn works out ct.stop */
        }
        if ((rc = chat_push_turn(s->c, &ct, err)) != RWKV_OK) {
            chat_reset(s->c);
            goto out;
        }
    }
    if (n > 0 && turns[n - 1].role == STORE_ROLE_ASSISTANT && chat_n_turns(s->c) > 0)
        need_sep = chat_turn_at(s->c, chat_n_turns(s->c) - 1)->stop != CHAT_STOP_STRING;
    chat_restore_state(s->c, cur, need_sep);
    if (last_user_parent >= 0)
        chat_set_turn_start(s->c, prev);
    if (s->sid != sid || s->head != head) {
        rwkv_err e2;
        if (store_session_set_head(s->st, sid, head, &e2) != RWKV_OK)
            save_fail(s, "the branch position", &e2);
    }
    s->sid = sid;
    s->head = head;
    s->last_user = last_user;
    s->last_reply = n > 0 && turns[n - 1].role == STORE_ROLE_ASSISTANT ? turns[n - 1].id : 0;
    s->reply_id = 0;
    if (replayed > 0 || note[0]) {
        char why[320];
        if (note[0])
            snprintf(why, sizeof why, "%s", note);
        else
            snprintf(why, sizeof why, "no saved state for turn %lld", (long long)head);
        if (base != 0)
            notef(s, 0, "(%s: replayed %zu tokens from the state saved with turn %lld)", why,
                  replayed, (long long)base);
        else
            notef(s, 0, "(%s: replayed %zu tokens from the start of the session)", why, replayed);
    }
    rc = RWKV_OK;
out:
    rwkv_state_destroy(cur);
    rwkv_state_destroy(prev);
    store_branch_free(turns, n);
    return rc;
}

/* ---- saving ----------------------------------------------------------------------------- */

/*
** Create the session row (title TITLE, or the first line of MSG) and, when
** the greeting was fed, its system turn with the post-greeting state.
*/
static int
session_create(sess *s, const char *title, const char *msg)
{
    store_session ss;
    rwkv_err err;
    size_t n = 0;
    const int32_t *gids = chat_greeting_ids(s->c, &n);

    memset(&ss, 0, sizeof ss);
    if (title != NULL) {
        snprintf(ss.title, sizeof ss.title, "%s", title);
    } else {
        size_t len = strcspn(msg, "\n");
        if (len > SESS_AUTO_TITLE_MAX) {
            len = SESS_AUTO_TITLE_MAX;
            while (len > 0 && ((unsigned char)msg[len] & 0xC0) == 0x80)
                len--;
        }
        snprintf(ss.title, sizeof ss.title, "%.*s", (int)len, msg);
    }
    ss.model_id = s->model_id;
    ss.state_file_id = start_row(s);
    s->meta.digest_required = 0;        /* every state of it is made here */
    snprintf(ss.strategy, sizeof ss.strategy, "%s", rwkv_model_info(s->m)->strategy);
    if (store_session_new(s->st, &ss, &s->sid, &err) != RWKV_OK) {
        save_fail(s, "the new session", &err);
        s->sid = 0;
        return -1;
    }
    snprintf(s->title, sizeof s->title, "%s", ss.title);
    s->head = 0;
    s->last_user = 0;
    s->last_reply = 0;
    s->launch_state = 0;
    s->launch_frame = 0;
    if (store_session_set_framing(s->st, s->sid, &s->fr, &err) != RWKV_OK)
        save_fail(s, "the framing", &err);
    notef(s, 0, "new session %lld: %s", (long long)s->sid, s->title);
    if (chat_greeting_fed(s->c) && n > 0) {
        store_turn t;
        const rwkv_state *st0 = chat_state_start(s->c);

        memset(&t, 0, sizeof t);
        t.session_id = s->sid;
        t.role = STORE_ROLE_SYSTEM;
        t.text = chat_greeting(s->c);
        t.tokens = gids;
        t.n_tokens = n;
        if (store_turn_append(s->st, &t, rwkv_state_cdata(st0), rwkv_state_len(st0), &s->meta,
                              &err) != RWKV_OK) {
            save_fail(s, "the greeting", &err);
            return -1;
        }
        s->head = t.id;
    }
    return 0;
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
    r->prefill_tps = ct->stats.prefill_tps;
    r->decode_tps = ct->stats.decode_tps;
    r->interrupted = ct->interrupted || ct->stop == CHAT_STOP_CANCEL || ct->stop == CHAT_STOP_ERROR;
}

/*
** Save the chat's records [0, N) under the head of a new session titled from
** the first message (LAST: the state after the last one, NULL = none).
*/
static int
save_records(sess *s, size_t n, const rwkv_state *last)
{
    rwkv_err err;

    if (n == 0)
        return 0;
    if (s->sid == 0 && session_create(s, NULL, chat_turn_at(s->c, 0)->user) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const chat_turn *ct = chat_turn_at(s->c, i);
        int at_end = i + 1 == n && last != NULL;
        store_turn u, r;

        user_row(s, ct, &u);
        if (store_turn_append(s->st, &u, NULL, 0, &s->meta, &err) != RWKV_OK)
            goto fail;
        s->head = s->last_user = u.id;
        reply_row(s, ct, u.id, &r);
        if (store_turn_append(s->st, &r, at_end ? rwkv_state_cdata(last) : NULL,
                              at_end ? rwkv_state_len(last) : 0, &s->meta, &err) != RWKV_OK)
            goto fail;
        s->head = s->last_reply = r.id;
    }
    return 0;
fail:
    save_fail(s, "the conversation", &err);
    return -1;
}

/* The current session still exists (another window may have deleted it);
** if not, the conversation so far goes on in a new session. */
static void
check_alive(sess *s, size_t n_done)
{
    store_session ss;
    rwkv_err err;
    int64_t old = s->sid;

    if (s->sid == 0 || store_session_get(s->st, s->sid, &ss, &err) == RWKV_OK)
        return;
    if (err.code != RWKV_EINVAL) {
        save_fail(s, "the session", &err);
        return;
    }
    s->sid = 0;
    s->head = s->last_user = s->last_reply = 0;
    if (n_done > 0)
        save_records(s, n_done, NULL);
    if (s->sid != 0)
        notef(s, 1, "session %lld was deleted elsewhere: this conversation goes on as session %lld",
              (long long)old, (long long)s->sid);
}

/* Generation started: the user turn (unless a regeneration) and the begun reply. */
static void
save_begin(sess *s)
{
    size_t n = chat_n_turns(s->c);
    const chat_turn *ct = n ? chat_turn_at(s->c, n - 1) : NULL;
    store_turn u, a;
    rwkv_err err;

    s->reply_id = 0;
    if (s->seeded) {
        s->seeds = s->seeds_after;   /* the queued seed was taken */
        queue_seed(s);
    }
    if (s->st == NULL || ct == NULL)
        return;
    check_alive(s, n - 1);
    if (s->sid == 0) {
        if (n > 1 && save_records(s, n - 1, NULL) != 0)
            return;
        if (s->sid == 0 && session_create(s, NULL, ct->user) != 0)
            return;
    }
    if (!s->regen) {
        const rwkv_state *before = chat_state_before_reply(s->c);
        user_row(s, ct, &u);
        if (store_turn_append(s->st, &u, before ? rwkv_state_cdata(before) : NULL,
                              before ? rwkv_state_len(before) : 0, &s->meta, &err) != RWKV_OK) {
            save_fail(s, "your message", &err);
            s->last_user = 0;
            return;
        }
        s->last_user = s->head = u.id;
    }
    if (s->last_user == 0)
        return;
    memset(&a, 0, sizeof a);
    a.session_id = s->sid;
    a.parent_id = s->last_user;
    a.role = STORE_ROLE_ASSISTANT;
    a.text = "";
    a.has_sampling = 1;
    a.sampling = ct->samp;
    a.interrupted = 1;
    if (store_turn_begin(s->st, &a, &err) != RWKV_OK) {
        save_fail(s, "the reply", &err);
        return;
    }
    s->reply_id = s->head = a.id;
    s->last_save = mono_now_s();
    s->progress_failed = 0;
}

/* The partial reply now and then, so a crash keeps it. */
static void
save_progress(sess *s)
{
    const chat_turn *ct;
    rwkv_err err;
    double now;

    if (s->reply_id == 0 || s->progress_failed)
        return;
    now = mono_now_s();
    if (now - s->last_save < SESS_SAVE_EVERY_S)
        return;
    s->last_save = now;
    ct = chat_turn_at(s->c, chat_n_turns(s->c) - 1);
    if (store_turn_progress(s->st, s->reply_id, ct->reply ? ct->reply : "", ct->reply_ids,
                            ct->n_reply, &err) != RWKV_OK) {
        save_fail(s, "the partial reply", &err);
        s->progress_failed = 1;
    }
}

/* The reply ended: complete its row with the state after it. */
static void
save_finish(sess *s, const chat_turn *t)
{
    store_turn a;
    rwkv_err err;
    const rwkv_state *after = chat_state(s->c);

    if (s->reply_id == 0)
        return;
    reply_row(s, t, s->last_user, &a);
    a.id = s->reply_id;
    if (store_turn_finish(s->st, &a, rwkv_state_cdata(after), rwkv_state_len(after), &s->meta,
                          &err) != RWKV_OK)
        save_fail(s, "the reply", &err);
    s->last_reply = s->reply_id;
    s->reply_id = 0;
}

/* ---- the chat's callbacks: persistence, then the front end's ----------------------------- */

static void
cb_text(void *ud, const char *text, size_t len)
{
    sess *s = ud;

    if (s->cb.text)
        s->cb.text(s->cb.ud, text, len);
    save_progress(s);
}

static void
cb_phase(void *ud, int phase)
{
    sess *s = ud;

    if (phase == CHAT_GENERATING) {
        s->started = 1;
        save_begin(s);
    }
    if (s->cb.phase)
        s->cb.phase(s->cb.ud, phase);
}

static void
cb_done(void *ud, const chat_turn *t)
{
    sess *s = ud;

    if (s->cb.done)
        s->cb.done(s->cb.ud, t);
    save_finish(s, t);
}

static void
cb_stats(void *ud, const chat_stats *st)
{
    sess *s = ud;

    if (s->cb.stats)
        s->cb.stats(s->cb.ud, st);
}

/* A chat on the sess's model and config with framing FR; STATE_PATH NULL =
** none. */
static int
new_chat(sess *s, rwkv_model *m, const tok *t, const framing *fr, const rwkv_sampling *samp,
         unsigned samp_set, const char *state_path, chat **out, rwkv_err *err)
{
    chat_config cfg;
    chat_callbacks cb = { .text = cb_text, .phase = cb_phase, .done = cb_done, .ud = s,
                          .stats = cb_stats };

    chat_config_init(&cfg);
    cfg.samp = *samp;
    cfg.samp_set = samp_set;
    framing_to_config(fr, &cfg);
    cfg.state_path = state_path;
    cfg.no_stop = s->no_stop;
    return chat_create(m, t, &cfg, &cb, out, err);
}

/* ---- public ----------------------------------------------------------------------------- */

int
sess_create(const sess_config *cfg, sess **out, rwkv_err *err)
{
    sess *s;
    int rc = RWKV_ENOMEM;

    *out = NULL;
    s = calloc(1, sizeof *s);
    if (s == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "session: out of memory");
    atomic_init(&s->cancel, 0);
    s->m = cfg->model;
    s->t = cfg->tok;
    s->cb = cfg->cb;
    s->note = cfg->note;
    s->progress = cfg->progress;
    s->cli_samp = cfg->chat.samp;
    s->cli_set = cfg->chat.samp_set & ~cfg->config_set;   /* launch values win */
    s->no_stop = cfg->chat.no_stop;
    if ((rc = framing_from_config(&s->fr, &cfg->chat, err)) != RWKV_OK ||
        (rc = framing_copy(&s->launch_fr, &s->fr, err)) != RWKV_OK)
        goto fail;
    s->launch_frame = 1;
    if (cfg->model_path && cfg->model_path[0])
        abs_path(cfg->model_path, s->model_path, sizeof s->model_path);
    else
        snprintf(s->model_path, sizeof s->model_path, "(demo)");
    if (cfg->vocab_path && cfg->vocab_path[0])
        abs_path(cfg->vocab_path, s->vocab_path, sizeof s->vocab_path);
    if (cfg->chat.state_path || cfg->expect_state) {
        abs_path(cfg->chat.state_path ? cfg->chat.state_path : cfg->expect_state, s->start.path,
                 sizeof s->start.path);
        snprintf(s->start.label, sizeof s->start.label, "%s", s->start.path);
        s->launch_state = cfg->expect_state != NULL;
    }
    if ((rc = new_chat(s, s->m, s->t, &s->fr, &cfg->chat.samp, cfg->chat.samp_set,
                       cfg->chat.state_path, &s->c, err)) != RWKV_OK)
        goto fail;
    if (cfg->db_path != NULL && (rc = store_open(cfg->db_path, &s->st, err)) != RWKV_OK)
        goto fail;
    if ((rc = model_row(s, err)) != RWKV_OK)
        goto fail;
    if (s->st != NULL && (cfg->chat.samp_set & PARAMS_BIT(params_find("seed")))) {
        s->seeded = 1;
        rng_seed(&s->seeds, chat_seed(s->c, NULL));
        queue_seed(s);
    }
    *out = s;
    return RWKV_OK;
fail:
    sess_destroy(s);
    return rc;
}

void
sess_destroy(sess *s)
{
    if (s == NULL)
        return;
    chat_destroy(s->c);
    store_close(s->st);
    framing_fini(&s->fr);
    framing_fini(&s->launch_fr);
    free(s);
}

chat *
sess_chat(sess *s)
{
    return s->c;
}

store *
sess_store(sess *s)
{
    return s->st;
}

int64_t
sess_id(const sess *s)
{
    return s->sid;
}

int64_t
sess_head(const sess *s)
{
    return s->head;
}

const char *
sess_title(const sess *s)
{
    return s->title;
}

const char *
sess_state_label(const sess *s)
{
    return s->start.label;
}

int64_t
sess_state_lib(const sess *s)
{
    return s->start.lib_id;
}

void
sess_last_ids(const sess *s, int64_t *user_turn, int64_t *reply_turn)
{
    *user_turn = s->last_user;
    *reply_turn = s->last_reply;
}

int
sess_started(const sess *s)
{
    return s->started;
}

int
sess_lookup(const char *db, int64_t sid, sess_info *out, rwkv_err *err)
{
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
    if ((rc = store_open(db, &st, err)) != RWKV_OK)
        return rc;
    if (sid == 0 && store_session_latest(st, &sid, err) != RWKV_OK) {
        rc = rwkv_errf(err, RWKV_EINVAL, "--resume: no saved sessions in %s", db);
        goto out;
    }
    if ((rc = store_session_get(st, sid, &ss, err)) != RWKV_OK)
        goto out;
    out->id = ss.id;
    out->head_turn = ss.head_turn;
    snprintf(out->title, sizeof out->title, "%s", ss.title);
    snprintf(out->strategy, sizeof out->strategy, "%s", ss.strategy);
    if (ss.model_id != 0 && store_model_get(st, ss.model_id, &sm, err) == RWKV_OK) {
        snprintf(out->model_path, sizeof out->model_path, "%s", sm.path);
        snprintf(out->vocab_path, sizeof out->vocab_path, "%s", sm.vocab);
    }
    rc = RWKV_OK;
out:
    store_close(st);
    return rc;
}

/* The sampling values of the last reply on the branch to HEAD, with the
** values the user set at launch winning; the chat's seed stays. */
static int
session_sampling(sess *s, int64_t head, rwkv_err *err)
{
    store_turn *turns = NULL;
    size_t n = 0;
    int seed_i = params_find("seed"), rc;

    if ((rc = store_branch_read(s->st, head, &turns, &n, err)) != RWKV_OK)
        return rc;
    for (size_t i = n; i-- > 0;) {
        if (turns[i].role == STORE_ROLE_ASSISTANT && turns[i].has_sampling) {
            rwkv_sampling v = turns[i].sampling;
            unsigned set = chat_sampling_set(s->c);
            for (int k = 0; params_table[k].name != NULL; k++) {
                const params_entry *e = &params_table[k];
                if (k == seed_i)
                    continue;
                if (s->cli_set & PARAMS_BIT(k))
                    memcpy((char *)&v + e->offset, (const char *)&s->cli_samp + e->offset,
                           e->type == PARAMS_U64 ? sizeof(uint64_t)
                           : e->type == PARAMS_INT ? sizeof(int) : sizeof(float));
                set |= PARAMS_BIT(k);
            }
            v.seed = chat_sampling(s->c)->seed;
            chat_set_sampling(s->c, &v, set);
            break;
        }
    }
    store_branch_free(turns, n);
    return RWKV_OK;
}

/*
** The framing session SID is continued with, into *OUT: its own (the
** defaults, said in a note, when its row is damaged); at the
** first open after launch, stop strings and bans given at launch win (they
** change no past turn), and a greeting or role names given that differ are
** named in a note (the session keeps its own: its turns were written so).
*/
static int
open_framing(sess *s, int64_t sid, framing *out, rwkv_err *err)
{
    const framing *l = &s->launch_fr;
    int rc;

    rc = store_session_framing(s->st, sid, out, err);
    if (rc == RWKV_EFORMAT) {         /* a damaged row: said, and the defaults */
        notef(s, 1, "%s (the default framing is used)", err->msg);
        framing_fini(out);
        rc = RWKV_OK;
    }
    if (rc != RWKV_OK || !s->launch_frame ||
        (rc = framing_merge(out, l, FRAMING_STOP | FRAMING_BAN, err)) != RWKV_OK)
        return rc;
    if ((l->greeting || l->user[0] || l->bot[0]) && !framing_same_prompt(l, out))
        notef(s, 0, "(session %lld keeps its own greeting and names: %s / %s; the ones given "
              "apply to new sessions)", (long long)sid, framing_user(out), framing_bot(out));
    return RWKV_OK;
}

/* A chat like the current one (sampling, the start in use) with framing FR. */
static int
chat_with_framing(sess *s, const framing *fr, chat **out, rwkv_err *err)
{
    char file[STORE_PATH_MAX + 64];
    int is_tmp = 0, rc;
    int has_state = s->start.path[0] || s->start.lib_id;

    if (has_state && (rc = start_file(s, &s->start, file, sizeof file, &is_tmp, err)) != RWKV_OK)
        return rc;
    rc = new_chat(s, s->m, s->t, fr, chat_sampling(s->c), chat_sampling_set(s->c),
                  has_state ? file : NULL, out, err);
    if (is_tmp)
        unlink(file);
    return rc;
}

/* load_branch under the session's framing FR (a new chat when it is not the
** one in use); on failure nothing changes.  Takes FR's contents. */
static int
load_framed(sess *s, int64_t sid, const sess_start *start, int64_t head, framing *fr,
            rwkv_err *err)
{
    chat *old = s->c, *nc = NULL;
    int rc;

    if (!framing_equal(fr, &s->fr)) {
        if ((rc = chat_with_framing(s, fr, &nc, err)) != RWKV_OK)
            return rc;
        s->c = nc;
    }
    if ((rc = load_branch(s, sid, start, head, err)) != RWKV_OK) {
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

int
sess_open(sess *s, int64_t sid, int64_t head, rwkv_err *err)
{
    store_session ss;
    sess_start start;
    int rc, changed, was_required = s->meta.digest_required;

    if (s->st == NULL)
        return rwkv_errf(err, RWKV_EINVAL, "this chat is not saved: no session to open");
    if (chat_phase(s->c) != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "a reply is still running");
    if ((rc = store_session_get(s->st, sid, &ss, err)) != RWKV_OK)
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
    {
        framing fr;
        framing_init(&fr);
        s->meta.digest_required = changed;
        if ((rc = open_framing(s, sid, &fr, err)) == RWKV_OK)
            rc = load_framed(s, sid, &start, head, &fr, err);
        framing_fini(&fr);
        if (rc != RWKV_OK) {
            s->meta.digest_required = was_required;
            return rc;
        }
    }
    if (s->launch_frame) {       /* stops/bans given at launch are the session's now */
        rwkv_err e2;
        s->launch_frame = 0;
        if (store_session_set_framing(s->st, sid, &s->fr, &e2) != RWKV_OK)
            save_fail(s, "the framing", &e2);
    }
    s->launch_state = 0;
    snprintf(s->title, sizeof s->title, "%s", ss.title);
    if ((rc = session_sampling(s, s->head, err)) != RWKV_OK)
        return rc;
    if (s->seeded) {
        uint64_t used = 0;
        if ((rc = store_session_reply_count(s->st, sid, &used, err)) != RWKV_OK)
            return rc;
        rng_seed(&s->seeds, chat_seed(s->c, NULL));
        for (uint64_t i = 0; i < used; i++)
            rng_next(&s->seeds);
        queue_seed(s);
    }
    return RWKV_OK;
}

const framing *
sess_framing(const sess *s)
{
    return &s->fr;
}

int
sess_set_framing(sess *s, const framing *f, int *left, rwkv_err *err)
{
    framing t;
    chat *nc = NULL;
    int rc, leave;

    *left = 0;
    if (chat_phase(s->c) != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "a reply is still running");
    if (framing_equal(f, &s->fr))
        return RWKV_OK;
    framing_init(&t);
    if ((rc = framing_copy(&t, f, err)) != RWKV_OK)
        return rc;
    leave = !framing_same_prompt(f, &s->fr);
    if (leave) {
        /* another greeting or names: the turns so far were written otherwise */
        rc = chat_with_framing(s, &t, &nc, err);
    } else {
        const char *stops[CHAT_MAX_STOP];
        for (size_t i = 0; i < t.n_stop; i++)
            stops[i] = t.stop[i];
        if ((rc = chat_set_banned(s->c, t.ban, t.n_ban, err)) == RWKV_OK &&
            (rc = chat_set_stops(s->c, stops, t.n_stop, s->no_stop, err)) != RWKV_OK)
            chat_set_banned(s->c, s->fr.ban, s->fr.n_ban, NULL);
    }
    if (rc != RWKV_OK) {
        framing_fini(&t);
        return rc;
    }
    framing_fini(&s->fr);
    s->fr = t;
    if (leave) {
        *left = s->sid != 0 || chat_n_turns(s->c) > 0;
        chat_destroy(s->c);
        s->c = nc;
        sess_new(s);
    } else if (s->st != NULL && s->sid != 0) {
        rwkv_err e2;
        if (store_session_set_framing(s->st, s->sid, &s->fr, &e2) != RWKV_OK)
            save_fail(s, "the framing", &e2);
    }
    return RWKV_OK;
}

void
sess_new(sess *s)
{
    chat_reset(s->c);
    s->sid = 0;
    s->head = s->last_user = s->last_reply = s->reply_id = 0;
    s->title[0] = '\0';
    s->launch_state = 0;
}

int
sess_begin(sess *s, const char *title, rwkv_err *err)
{
    if (s->st == NULL)
        return rwkv_errf(err, RWKV_EINVAL, "this chat is not saved");
    if (session_create(s, title, NULL) != 0)
        return rwkv_errf(err, RWKV_EDB, "could not create the session '%s'", title);
    return RWKV_OK;
}

int
sess_reset(sess *s, rwkv_err *err)
{
    store_turn *turns = NULL;
    size_t n = 0;
    int64_t root = 0;
    int rc;

    if (s->st == NULL || s->sid == 0) {
        chat_reset(s->c);
        s->head = s->last_user = s->last_reply = 0;
        return RWKV_OK;
    }
    if ((rc = store_branch_read(s->st, s->head, &turns, &n, err)) != RWKV_OK)
        return rc;
    if (n > 0 && turns[0].role == STORE_ROLE_SYSTEM)
        root = turns[0].id;
    store_branch_free(turns, n);
    {
        sess_start start = s->start;
        return load_branch(s, s->sid, &start, root, err);
    }
}

int
sess_fork_point(store *st, int64_t turn, int64_t *at, rwkv_err *err)
{
    store_turn t;
    int rc;

    if ((rc = store_turn_get(st, turn, &t, err)) != RWKV_OK)
        return rc;
    *at = t.role == STORE_ROLE_USER ? t.parent_id : turn;
    store_turn_fini(&t);
    return RWKV_OK;
}

int
sess_fork(sess *s, int64_t turn, int64_t *at, rwkv_err *err)
{
    store_turn t;
    int64_t to;
    int rc;

    if (s->st == NULL)
        return rwkv_errf(err, RWKV_EINVAL, "this chat is not saved");
    if ((rc = store_turn_get(s->st, turn, &t, err)) != RWKV_OK)
        return rc;
    if (t.session_id != s->sid) {
        store_turn_fini(&t);
        return rwkv_errf(err, RWKV_EINVAL, "turn %lld is not in session %lld", (long long)turn,
                         (long long)s->sid);
    }
    store_turn_fini(&t);
    if ((rc = sess_fork_point(s->st, turn, &to, err)) != RWKV_OK)
        return rc;
    {
        sess_start start = s->start;
        if ((rc = load_branch(s, s->sid, &start, to, err)) != RWKV_OK)
            return rc;
    }
    if (at)
        *at = to;
    return RWKV_OK;
}

int
sess_step_sibling(sess *s, int64_t turn, int dir, rwkv_err *err)
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
            rc = sess_open(s, t.session_id, leaf, err);
    }
    free(ids);
    store_turn_fini(&t);
    return rc;
}

uint64_t
sess_replay_cost(sess *s)
{
    uint64_t cost = 0;

    for (size_t i = 0; i < chat_n_turns(s->c); i++) {
        const chat_turn *t = chat_turn_at(s->c, i);
        cost += t->n_prompt + t->n_reply;
    }
    return cost;
}

/* Deep copies of the chat's records (chat_load_state_file drops them). */
static chat_turn *
copy_records(sess *s, size_t *n_out)
{
    size_t n = chat_n_turns(s->c);
    chat_turn *v = calloc(n ? n : 1, sizeof *v);

    if (v == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const chat_turn *t = chat_turn_at(s->c, i);
        v[i] = *t;
        v[i].user = strndup(t->user, t->user_len);
        v[i].reply = strndup(t->reply ? t->reply : "", t->reply_len);
        v[i].prompt_ids = malloc((t->n_prompt + 1) * sizeof(int32_t));
        v[i].reply_ids = malloc((t->n_reply + 1) * sizeof(int32_t));
        if (!v[i].user || !v[i].reply || !v[i].prompt_ids || !v[i].reply_ids) {
            *n_out = i + 1;
            return v;       /* the caller frees; n_out marks it incomplete by NULLs */
        }
        memcpy(v[i].prompt_ids, t->prompt_ids, t->n_prompt * sizeof(int32_t));
        memcpy(v[i].reply_ids, t->reply_ids, t->n_reply * sizeof(int32_t));
    }
    *n_out = n;
    return v;
}

static void
free_records(chat_turn *v, size_t n)
{
    if (v == NULL)
        return;
    for (size_t i = 0; i < n; i++) {
        free(v[i].user);
        free(v[i].reply);
        free(v[i].prompt_ids);
        free(v[i].reply_ids);
    }
    free(v);
}

int
sess_switch_state(sess *s, const char *path, int64_t lib_id, int replay, rwkv_err *err)
{
    sess_start start;
    chat_turn *rec = NULL;
    rwkv_state *st = NULL;
    size_t n = 0;
    uint64_t done = 0, total = sess_replay_cost(s);
    int rc;

    if (chat_phase(s->c) != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "a reply is still running");
    memset(&start, 0, sizeof start);
    if (lib_id != 0) {
        store_statefile f;
        if (s->st == NULL)
            return rwkv_errf(err, RWKV_EINVAL, "no session database: no state-file library");
        if ((rc = store_statefile_get(s->st, lib_id, &f, NULL, err)) != RWKV_OK)
            return rc;
        start.lib_id = lib_id;
        snprintf(start.label, sizeof start.label, "%s", f.name);
    } else if (path != NULL) {
        abs_path(path, start.path, sizeof start.path);
        snprintf(start.label, sizeof start.label, "%s", start.path);
    }
    atomic_store(&s->cancel, 0);
    if ((rc = rwkv_state_create(s->m, &st, err)) != RWKV_OK)
        return rc;
    /* the new start must load before anything changes */
    if ((rc = load_start(s, &start, st, err)) != RWKV_OK)
        goto out;
    if (replay && chat_n_turns(s->c) > 0) {
        rec = copy_records(s, &n);
        if (rec == NULL || n != chat_n_turns(s->c) || rec[n - 1].reply_ids == NULL) {
            rc = rwkv_errf(err, RWKV_ENOMEM, "replay: out of memory");
            goto out;
        }
        for (size_t i = 0; i < n && rc == RWKV_OK; i++) {
            rc = feed_seg(s, rec[i].prompt_ids, rec[i].n_prompt, STORE_ROLE_USER, st, &done,
                          total, err);
            if (rc == RWKV_OK)
                rc = feed_seg(s, rec[i].reply_ids, rec[i].n_reply, STORE_ROLE_ASSISTANT, st,
                              &done, total, err);
        }
        if (rc != RWKV_OK)
            goto out;
    }
    /* commit */
    if ((rc = chat_start_from(s, &start, err)) != RWKV_OK)
        goto out;
    s->start = start;
    s->launch_state = 0;
    s->sid = 0;
    s->head = s->last_user = s->last_reply = s->reply_id = 0;
    s->title[0] = '\0';
    if (rec != NULL) {
        for (size_t i = 0; i < n; i++) {
            if ((rc = chat_push_turn(s->c, &rec[i], err)) != RWKV_OK) {
                chat_reset(s->c);
                goto out;
            }
        }
        chat_restore_state(s->c, st, rec[n - 1].stop != CHAT_STOP_STRING);
        if (s->st != NULL)
            save_records(s, n, st);
        notef(s, 0, "replayed %llu tokens under state %s", (unsigned long long)total,
              start.label[0] ? start.label : "no state file");
    }
    rc = RWKV_OK;
out:
    free_records(rec, n);
    rwkv_state_destroy(st);
    return rc;
}

int
sess_submit(sess *s, const char *msg, size_t len, rwkv_err *err)
{
    s->started = 0;
    s->regen = 0;
    return chat_submit(s->c, msg, len, err);
}

int
sess_regen(sess *s, rwkv_err *err)
{
    int rc;

    s->started = 0;
    s->regen = 1;
    rc = chat_regen(s->c, err);
    if (rc != RWKV_OK)
        s->regen = 0;
    return rc;
}

int
sess_run(sess *s, rwkv_err *err)
{
    int rc = chat_run(s->c, err);

    if (s->regen && !s->started && s->st != NULL && s->sid != 0) {
        /* a regeneration cancelled while its prompt was fed again dropped
        ** the exchange from the chat: take the saved branch back */
        rwkv_err e2;
        sess_start start = s->start;
        if (load_branch(s, s->sid, &start, s->head, &e2) != RWKV_OK)
            notef(s, 1, "%s", e2.msg);
    }
    s->regen = 0;
    return rc;
}

void
sess_cancel(sess *s)
{
    atomic_store(&s->cancel, 1);
    chat_cancel(s->c);
}

void
sess_set_sampling(sess *s, const rwkv_sampling *samp, unsigned samp_set)
{
    unsigned bit = PARAMS_BIT(params_find("seed"));
    int reseed = (samp_set & bit) &&
                 (!(chat_sampling_set(s->c) & bit) || samp->seed != chat_sampling(s->c)->seed);

    chat_set_sampling(s->c, samp, samp_set);
    if (s->st != NULL && reseed) {
        /* a saved session continues this seed's sequence from here */
        s->seeded = 1;
        rng_seed(&s->seeds, samp->seed);
        queue_seed(s);
    }
}

int
sess_set_model(sess *s, rwkv_model *m, const tok *t, const char *path, const char *vocab_path,
               rwkv_err *err)
{
    chat *c = NULL, *old = s->c;
    rwkv_model *old_m = s->m;
    char file[STORE_PATH_MAX + 64];
    int is_tmp = 0, rc;
    int has_state = s->start.path[0] || s->start.lib_id;

    s->m = m;                         /* start_file/new_chat use the new model */
    if (has_state && start_file(s, &s->start, file, sizeof file, &is_tmp, err) != RWKV_OK)
        has_state = 0;
    rc = new_chat(s, m, t, &s->fr, chat_sampling(old), chat_sampling_set(old),
                  has_state ? file : NULL, &c, err);
    if (rc != RWKV_OK && has_state) {
        notef(s, 1, "state file %s does not fit this model: %s (not used)", s->start.label,
              err->msg);
        memset(&s->start, 0, sizeof s->start);
        rc = new_chat(s, m, t, &s->fr, chat_sampling(old), chat_sampling_set(old), NULL, &c,
                      err);
    }
    if (is_tmp)
        unlink(file);
    if (rc != RWKV_OK) {
        s->m = old_m;
        return rc;
    }
    s->c = c;
    s->t = t;
    if (path && path[0])
        abs_path(path, s->model_path, sizeof s->model_path);
    else
        snprintf(s->model_path, sizeof s->model_path, "(demo)");
    s->vocab_path[0] = '\0';
    if (vocab_path && vocab_path[0])
        abs_path(vocab_path, s->vocab_path, sizeof s->vocab_path);
    if (model_row(s, err) != RWKV_OK)
        save_fail(s, "the model row", err);
    chat_destroy(old);
    sess_new(s);
    return RWKV_OK;
}
