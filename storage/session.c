/*
** session.c -- the session runtime (see session.h): one implementation of
** resume, save, regenerate, fork, sibling steps, state-file switch and
** replay for the line chat and the full-screen client.  This file is the
** runtime around the chat (config, callbacks, the start of a conversation,
** framing, sampling, state-file and model switches, submit / run); its
** persistence (the rows saved as a reply runs, a branch read back and
** replayed, open / fork / siblings) is session_db.c (session_int.h).
*/
#include "session_int.h"

#include "../core/io/ckpt.h"
#include "../core/io/fileio.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

/* ---- small helpers ----------------------------------------------------------- */

const char *
sess_tr(const sess *s, const char *msgid)
{
    return s->tr ? s->tr(msgid) : msgid;
}

void
sess_notef(sess *s, int is_err, const char *fmt, ...)
{
    char buf[RWKV_ERR_MSG + 512];
    va_list ap;

    if (s->note == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, sess_tr(s, fmt), ap);
    va_end(ap);
    s->note(s->cb.ud, is_err, buf);
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
void
sess_queue_seed(sess *s)
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
    if (start->gone)
        return sess_start_gone(start, err);
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
int
sess_load_start(sess *s, const sess_start *start, rwkv_state *out, rwkv_err *err)
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

/* Make the chat start from START (its state file, or the greeting; a
** file gone: the fresh state in its place, which nothing goes back to --
** the branch's saved state is the chat's, start_file refuses the rest). */
int
sess_chat_start_from(sess *s, const sess_start *start, rwkv_err *err)
{
    char path[STORE_PATH_MAX + 64];
    int is_tmp, rc;

    if (start->path[0] == '\0' && start->lib_id == 0)
        return chat_use_greeting(s->c, err);
    if (start->gone)
        return chat_load_state(s->c, NULL, err);
    if ((rc = start_file(s, start, path, sizeof path, &is_tmp, err)) != RWKV_OK)
        return rc;
    rc = chat_load_state_file(s->c, path, err);
    if (is_tmp)
        unlink(path);
    return rc;
}

/* ---- the state file of a resume (sess_resume_state) ------------------------------------- */

/* The digest session state file SF is known by: its row's, else (a row
** made before digests were kept) its file's or its kept bytes'; 0 when
** unknown (the file gone).  *BYTES: the row keeps the file's bytes. */
static uint64_t
known_digest(store *st, const store_statefile *sf, int *bytes)
{
    store_statefile f;
    void *data = NULL;
    uint64_t d = sf->fingerprint;

    *bytes = 0;
    if (sf->path[0] != '\0') {
        if (d == 0)
            store_statefile_digest(sf->path, &d, NULL, NULL);
        return d;
    }
    if (store_statefile_get(st, sf->id, &f, &data, NULL) == RWKV_OK && data != NULL) {
        *bytes = 1;
        if (d == 0)
            d = store_statefile_digest_mem(data, f.size);
    }
    free(data);
    return d;
}

/* How a session's state file that is gone (or holds other bytes) is given
** back: at launch, --state; in the app (an open from the client's F2 menu;
** the line chat has no /open) nothing gives a session a file -- F3 and
** /state start a new session -- so the line names the launch that does.
** BUF (CAP) holds it where needed. */
static const char *
way_on(int64_t sid, int at_launch, char *buf, size_t cap)
{
    if (at_launch)
        return "--state PATH";
    snprintf(buf, cap, "--session %lld --state PATH at launch", (long long)sid);
    return buf;
}

int
sess_state_check(store *st, int64_t sid, const store_statefile *sf, int at_launch, rwkv_err *err)
{
    char wb[96];
    const char *way = way_on(sid, at_launch, wb, sizeof wb);
    uint64_t got, size;
    rwkv_err e2;

    /* none; its bytes kept (an import); or not on disk: its saved states
    ** carry it on (session_start), what needs the start says so */
    if (sf->id == 0 || sf->path[0] == '\0' || access(sf->path, F_OK) != 0)
        return RWKV_OK;
    if (store_statefile_digest(sf->path, &got, &size, NULL) != RWKV_OK)
        return RWKV_OK;                /* unreadable: the load says why */
    /* a row made before digests were kept names what its file holds
    ** at its first use (best effort: the next use tries again) */
    if (sf->fingerprint == 0)
        store_statefile_set_digest(st, sf->id, got, size, &e2);
    else if (got != sf->fingerprint)
        return rwkv_errf(err, RWKV_EINVAL, "%s: holds another state than session %lld was "
                         "made with (digest %016llx on record, %016llx now); %s resumes it "
                         "with a copy of it", sf->path, (long long)sid,
                         (unsigned long long)sf->fingerprint, (unsigned long long)got, way);
    return RWKV_OK;
}

int
sess_start_gone(const sess_start *start, rwkv_err *err)
{
    return rwkv_errf(err, RWKV_EINVAL, "%s: this session starts from it: going "
                     "back to its start (a replay from there, its first reply again, a new "
                     "chat) needs a copy of it (--state PATH at launch)", start->label);
}

/* GIVEN for session SS, whose state file SF is gone with no digest on
** record: nothing to check it against but the session's model, which it
** must fit (store_statefile_fits: before the model loads); NOTE->msg
** says it was taken unchecked. */
static int
resume_unchecked(store *st, const store_session *ss, const store_statefile *sf, const char *given,
                 rwkv_err *note, rwkv_err *err)
{
    store_model m;
    int rc;

    if ((rc = store_model_ref(st, ss->model_id, &m, err)) != RWKV_OK)
        return rc;
    if ((rc = store_statefile_fits(given, &m, err)) != RWKV_OK)
        return rwkv_errf(err, rc, "session %lld: %s", (long long)ss->id, err->msg);
    return rwkv_errf(note, RWKV_OK, "session %lld: its state file %s is gone with no digest on "
                     "record to check a copy against: taking %s as its state file",
                     (long long)ss->id, sf->path[0] ? sf->path : sf->name, given);
}

/* GIVEN (absolute) named with session SS, which starts from SF: the same
** content is the same state file -- the session's row names GIVEN from
** now on, unless it keeps the bytes itself -- another is refused; its own
** path is checked as without --state.  NOTE->msg: a line to say. */
static int
resume_given(store *st, const store_session *ss, const store_statefile *sf, const char *given,
             rwkv_err *note, rwkv_err *err)
{
    store_statefile nf;
    uint64_t want, got;
    int64_t id = 0;
    int bytes, rc;

    if (sf->id == 0)
        return rwkv_errf(err, RWKV_EINVAL, "session %lld has no state file: leave out --state (or "
                         "start a --new session)", (long long)ss->id);
    if (sf->path[0] != '\0' && strcmp(sf->path, given) == 0 && access(given, F_OK) == 0)
        return sess_state_check(st, ss->id, sf, 1, err);
    if ((rc = store_statefile_digest(given, &got, NULL, err)) != RWKV_OK)
        return rwkv_errf(err, rc, "session %lld starts from the state file %s: %s",
                         (long long)ss->id, sf->path[0] ? sf->path : sf->name, err->msg);
    want = known_digest(st, sf, &bytes);
    if (want != 0 && want != got)
        return rwkv_errf(err, RWKV_EINVAL, "session %lld starts from the state file %s, and %s "
                         "holds another state: give a copy of that file, or leave out --state "
                         "(or start a --new session)", (long long)ss->id,
                         sf->path[0] ? sf->path : sf->name, given);
    if (want == 0 && (rc = resume_unchecked(st, ss, sf, given, note, err)) != RWKV_OK)
        return rc;
    if (bytes)
        return RWKV_OK;              /* its own copy of the same bytes goes on */
    store_statefile_from_path(&nf, given);
    if ((rc = store_statefile_add(st, &nf, &id, err)) != RWKV_OK ||
        (rc = store_session_set_statefile(st, ss->id, id, err)) != RWKV_OK)
        return rwkv_errf(err, rc, "recording the state file of session %lld: %s",
                         (long long)ss->id, err->msg);
    return RWKV_OK;
}

int
sess_resume_state(const char *db, const sess_info *info, const char **given, const char *nodb,
                  rwkv_err *err)
{
    store_open_opts o = { 0, nodb ? nodb : SESS_NODB_HINT, NULL };
    char defpath[STORE_PATH_MAX], path[STORE_PATH_MAX];
    store *st = NULL;
    store_session ss;
    store_statefile sf;
    rwkv_err note = { RWKV_OK, "" };
    int rc;

    if (db == NULL) {
        if ((rc = store_default_path(defpath, sizeof defpath, err)) != RWKV_OK)
            return rc;
        db = defpath;
    }
    if ((rc = store_open_ex(db, &o, &st, err)) != RWKV_OK)
        return rc;
    if ((rc = store_session_get(st, info->id, &ss, err)) == RWKV_OK &&
        (rc = store_statefile_ref(st, ss.state_file_id, &sf, err)) == RWKV_OK) {
        if (*given != NULL) {
            abs_path(*given, path, sizeof path);
            rc = resume_given(st, &ss, &sf, path, &note, err);
        } else {
            rc = sess_state_check(st, ss.id, &sf, 1, err);
        }
    }
    store_close(st);
    if (rc == RWKV_OK) {
        *given = NULL;             /* the session's row names the file to load */
        *err = note;               /* ERR->msg: the note to say, or "" */
    }
    return rc;
}

/* ---- the chat's callbacks: persistence, then the front end's ----------------------------- */

static void
cb_text(void *ud, const char *text, size_t len)
{
    sess *s = ud;

    if (s->cb.text)
        s->cb.text(s->cb.ud, text, len);
    sess_save_progress(s);
}

static void
cb_phase(void *ud, int phase)
{
    sess *s = ud;

    if (phase == CHAT_GENERATING) {
        s->started = 1;
        s->unfed = 0;                  /* a kept message's prompt was fed again */
        sess_save_begin(s);
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
    sess_save_finish(s, t);
}

static void
cb_stats(void *ud, const chat_stats *st)
{
    sess *s = ud;

    if (s->cb.stats)
        s->cb.stats(s->cb.ud, st);
    sess_save_alive(s);                /* the reply's lease, in a long prefill too */
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
    cfg.cancel = &s->chat_cancel;
    return chat_create(m, t, &cfg, &cb, out, err);
}

/* ---- public ----------------------------------------------------------------------------- */

static void note_greeting_unused(sess *s);

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
    atomic_init(&s->chat_cancel, 0);
    atomic_init(&s->keep, 0);
    atomic_init(&s->expect, 0);
    s->m = cfg->model;
    s->t = cfg->tok;
    s->cb = cfg->cb;
    s->note = cfg->note;
    s->tr = cfg->tr;
    s->progress = cfg->progress;
    if (cfg->quit_key != NULL &&
        snprintf(s->quit_key, sizeof s->quit_key, "%s", cfg->quit_key) >= (int)sizeof s->quit_key) {
        rc = rwkv_errf(err, RWKV_EINVAL, "session: quit key name '%.40s' longer than %d bytes",
                       cfg->quit_key, SESS_QUIT_KEY_MAX - 1);
        goto fail;
    }
    if (cfg->keep_way != NULL &&
        snprintf(s->keep_way, sizeof s->keep_way, "%s", cfg->keep_way) >= (int)sizeof s->keep_way) {
        rc = rwkv_errf(err, RWKV_EINVAL, "session: keep_way '%.40s...' longer than %d bytes",
                       cfg->keep_way, SESS_KEEP_WAY_MAX - 1);
        goto fail;
    }
    s->cli_samp = cfg->chat.samp;
    s->cli_set = cfg->chat.samp_set & ~cfg->config_set;   /* launch values win */
    s->no_stop = cfg->chat.no_stop;
    if ((rc = framing_from_config(&s->fr, &cfg->chat, err)) != RWKV_OK ||
        (rc = framing_copy(&s->launch_fr, cfg->launch_frame ? cfg->launch_frame : &s->fr,
                           err)) != RWKV_OK)
        goto fail;
    s->launch_frame = 1;
    if (cfg->model_path && cfg->model_path[0])
        abs_path(cfg->model_path, s->model_path, sizeof s->model_path);
    else
        snprintf(s->model_path, sizeof s->model_path, "%s", SESS_DEMO_PATH);
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
    if (cfg->db_path != NULL && (rc = sess_open_store(s, cfg, err)) != RWKV_OK)
        goto fail;
    if (cfg->chat.state_path != NULL)
        note_greeting_unused(s);
    if (s->st != NULL)
        store_set_tr(s->st, cfg->tr);       /* its replay notes in the same language */
    /* a model row that cannot be saved (a full disk, a lock held) is a
    ** failed save, not a failed start: the chat goes on, and the row is
    ** tried again with the session's (session_db.c, session_create) */
    if (sess_model_row(s, err) != RWKV_OK) {
        sess_save_failed(s, "the model row", err);
        s->model_id = 0;
    }
    if (s->st != NULL && (cfg->chat.samp_set & PARAMS_BIT(params_find("seed")))) {
        s->seeded = 1;
        rng_seed(&s->seeds, chat_seed(s->c, NULL));
        sess_queue_seed(s);
    }
    *out = s;
    return RWKV_OK;
fail:
    sess_destroy(s);
    return rc;
}

static void keep_drop(sess *s);
static void sent_drop(sess *s);

void
sess_destroy(sess *s)
{
    if (s == NULL)
        return;
    keep_drop(s);
    sent_drop(s);
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

/*
** The start of a free generation (+gen, +qa, M-g; freegen.h): *OUT NULL
** (zeros) without a state file, else the state file's start state
** (borrowed).  A state file not on disk (the session opened from its saved
** turns): its one line (sess_start_gone), never the blank stand-in.
*/
int
sess_gen_start(sess *s, const rwkv_state **out, rwkv_err *err)
{
    *out = NULL;
    if (s->start.gone)
        return sess_start_gone(&s->start, err);
    if (chat_has_state_file(s->c))
        *out = chat_state_start(s->c);
    return RWKV_OK;
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

int
sess_greeting_used(const sess *s)
{
    return !chat_has_state_file(s->c);
}

/* A greeting of one's own set, and a state file starting the chat: it is
** not fed (sess_greeting_used), and the user hears it once, here. */
static void
note_greeting_unused(sess *s)
{
    if (s->fr.greeting != NULL && s->fr.greeting[0] != '\0' && !sess_greeting_used(s))
        sess_notef(s, 0, "the greeting is not fed: a chat that starts from a state file "
                         "starts from the state alone, as the demo does");
}

int
sess_holds_greeting(const sess *s)
{
    return s->root != SESS_ROOT_BARE && (chat_greeting_fed(s->c) || chat_n_turns(s->c) > 0);
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
    /* the last exchange kept out by a failed save: its rows are not (or
    ** not all) written, and the ids left are the exchange's before it */
    int out = sess_unsaved(s) > 0;

    *user_turn = out ? 0 : s->last_user;
    *reply_turn = out ? 0 : s->last_reply;
}

int
sess_started(const sess *s)
{
    return s->started;
}

/* The conversation left (the leaving rule, session.h: checked by the
** caller): the next message starts a new session from the current start. */
void
sess_start_over(sess *s)
{
    chat_reset(s->c);
    s->unfed = 0;
    s->lazy = 0;
    s->root = SESS_ROOT_NEW;
    s->sid = 0;
    memset(&s->other, 0, sizeof s->other);   /* a new session is of this model */
    memset(&s->gone, 0, sizeof s->gone);     /* ... and no other one's successor */
    s->head = s->last_user = s->last_reply = s->reply_id = 0;
    sess_unsaved_clear(s);
    s->title[0] = '\0';
    s->launch_state = 0;
}

/* A chat like the current one (sampling, the start in use) with framing FR. */
int
sess_chat_with_framing(sess *s, const framing *fr, chat **out, rwkv_err *err)
{
    char file[STORE_PATH_MAX + 64];
    int is_tmp = 0, rc;
    int has_state = s->start.path[0] || s->start.lib_id;

    if (s->start.gone)                 /* (sess_chat_start_from's rule) */
        has_state = 0;
    if (has_state && (rc = start_file(s, &s->start, file, sizeof file, &is_tmp, err)) != RWKV_OK)
        return rc;
    rc = new_chat(s, s->m, s->t, fr, chat_sampling(s->c), chat_sampling_set(s->c),
                  has_state ? file : NULL, out, err);
    if (is_tmp)
        unlink(file);
    if (rc == RWKV_OK && s->start.gone && (rc = chat_load_state(*out, NULL, err)) != RWKV_OK) {
        chat_destroy(*out);
        *out = NULL;
    }
    return rc;
}

const framing *
sess_framing(const sess *s)
{
    return &s->fr;
}

/* The stop strings, bans and think mode of T into the chat (the framing
** that changes in place: the turns so far stay as they were written); on
** failure the chat keeps S's. */
static int
framing_apply(sess *s, const framing *t, rwkv_err *err)
{
    const char *stops[CHAT_MAX_STOP];
    int rc;

    for (size_t i = 0; i < t->n_stop; i++)
        stops[i] = t->stop[i];
    if ((rc = chat_set_banned(s->c, t->ban, t->n_ban, err)) == RWKV_OK &&
        (rc = chat_set_stops(s->c, stops, t->n_stop, s->no_stop, err)) != RWKV_OK)
        chat_set_banned(s->c, s->fr.ban, s->fr.n_ban, NULL);
    if (rc == RWKV_OK)
        chat_set_think(s->c, framing_think(t));
    return rc;
}

/*
** The framing another window wrote since this one read it (its F8, M-t,
** /stop, /think): its stop strings, bans and think mode apply here too from
** now on, said once.  This window had gone on under its own, and its next
** framing write put its stale set back over the other's.  A greeting or
** names changed there write the prompt otherwise: this branch was made
** under these, they stay.  A saved session only; a failed read changes
** nothing (the write after it is the one that says).
*/
static void
framing_sync(sess *s)
{
    const unsigned inplace = FRAMING_STOP | FRAMING_BAN | FRAMING_THINK;
    framing cur, t;
    rwkv_err err;
    unsigned d;

    if (s->st == NULL || s->sid == 0)
        return;
    framing_init(&cur);
    framing_init(&t);
    if (store_session_framing(s->st, s->sid, &cur, &err) == RWKV_OK &&
        (d = framing_diff(&cur, &s->fr) & inplace) != 0 &&
        framing_copy(&t, &s->fr, &err) == RWKV_OK && framing_take(&t, &cur, d, &err) == RWKV_OK &&
        framing_apply(s, &t, &err) == RWKV_OK) {
        framing_fini(&s->fr);
        s->fr = t;
        framing_init(&t);
        sess_notef(s, 0, "session %lld's framing was changed in another window: the %s%s%s%s%s "
                         "set there apply here too (/framing, F8)", (long long)s->sid,
                   (d & FRAMING_STOP) ? "stop strings" : "",
                   (d & FRAMING_STOP) && (d & (FRAMING_BAN | FRAMING_THINK)) ? ", " : "",
                   (d & FRAMING_BAN) ? "bans" : "",
                   (d & FRAMING_BAN) && (d & FRAMING_THINK) ? ", " : "",
                   (d & FRAMING_THINK) ? "think mode" : "");
    }
    framing_fini(&t);
    framing_fini(&cur);
}

int
sess_set_framing(sess *s, const framing *f, int *left, rwkv_err *err)
{
    framing t;
    chat *nc = NULL;
    unsigned mine;
    int rc, leave;

    *left = 0;
    if (chat_phase(s->c) != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "a reply is still running");
    /* F is this window's framing with the user's change: on top of what
    ** another window wrote since, only the fields the user changed */
    mine = framing_diff(f, &s->fr);
    if (mine == 0)
        return RWKV_OK;
    framing_sync(s);
    framing_init(&t);
    if ((rc = framing_copy(&t, &s->fr, err)) != RWKV_OK ||
        (rc = framing_take(&t, f, mine, err)) != RWKV_OK) {
        framing_fini(&t);
        return rc;
    }
    leave = !framing_same_prompt(&t, &s->fr);
    if (leave && (rc = sess_leave_check(s, err)) != RWKV_OK) {
        framing_fini(&t);
        return rc;
    }
    if (leave)   /* another greeting or names: the turns so far were written otherwise */
        rc = sess_chat_with_framing(s, &t, &nc, err);
    else
        rc = framing_apply(s, &t, err);
    if (rc != RWKV_OK) {
        framing_fini(&t);
        return rc;
    }
    framing_fini(&s->fr);
    s->fr = t;
    if (leave) {
        /* the user's greeting and names from now on, not the launch's
        ** (take_launch_names) */
        framing_set_greeting(&s->launch_fr, NULL, NULL);
        framing_set_user(&s->launch_fr, NULL, NULL);
        framing_set_bot(&s->launch_fr, NULL, NULL);
        *left = s->sid != 0 || chat_n_turns(s->c) > 0;
        chat_destroy(s->c);
        s->c = nc;
        sess_start_over(s);
    } else if (s->st != NULL && s->sid != 0) {
        rwkv_err e2;
        if (store_session_set_framing(s->st, s->sid, &s->fr, &e2) != RWKV_OK)
            sess_save_fail(s, "the framing", &e2);
    }
    return RWKV_OK;
}

/*
** A new session of this run (sess_new, a state-file switch without replay)
** takes the greeting and names given at launch over the framing in use: a
** resumed session keeps its own (open_framing's note says the ones given
** apply to new sessions), this is where they do.  A new chat when they
** write the prompt otherwise (from the start in use); on failure nothing
** changes.  Framing the user sets later (sess_set_framing) drops them.
*/
static int
take_launch_names(sess *s, rwkv_err *err)
{
    const framing *l = &s->launch_fr;
    framing t;
    chat *nc = NULL;
    int rc;

    if (l->greeting == NULL && l->user[0] == '\0' && l->bot[0] == '\0')
        return RWKV_OK;
    framing_init(&t);
    if ((rc = framing_copy(&t, &s->fr, err)) != RWKV_OK ||
        (rc = framing_merge(&t, l, FRAMING_GREETING | FRAMING_NAMES, err)) != RWKV_OK ||
        framing_same_prompt(&t, &s->fr) ||
        (rc = sess_chat_with_framing(s, &t, &nc, err)) != RWKV_OK) {
        framing_fini(&t);
        return rc;
    }
    chat_destroy(s->c);
    s->c = nc;
    framing_fini(&s->fr);
    s->fr = t;
    return RWKV_OK;
}

int
sess_new(sess *s, rwkv_err *err)
{
    int rc;

    if (s->start.gone)                 /* a new chat starts from the start itself */
        return sess_start_gone(&s->start, err);
    if ((rc = sess_leave_check(s, err)) != RWKV_OK || (rc = take_launch_names(s, err)) != RWKV_OK)
        return rc;
    sess_start_over(s);
    return RWKV_OK;
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

/* A deep copy of turn T into *DST (free with turn_free): 0, or -1 when out
** of memory (nothing left to free). */
static int
turn_copy(chat_turn *dst, const chat_turn *t)
{
    *dst = *t;
    dst->user = strndup(t->user, t->user_len);
    dst->reply = strndup(t->reply ? t->reply : "", t->reply_len);
    dst->prompt_ids = malloc((t->n_prompt + 1) * sizeof(int32_t));
    dst->reply_ids = malloc((t->n_reply + 1) * sizeof(int32_t));
    if (!dst->user || !dst->reply || !dst->prompt_ids || !dst->reply_ids) {
        free(dst->user);
        free(dst->reply);
        free(dst->prompt_ids);
        free(dst->reply_ids);
        return -1;
    }
    if (t->n_prompt > 0)   /* (a turn just sent has no reply ids: NULL) */
        memcpy(dst->prompt_ids, t->prompt_ids, t->n_prompt * sizeof(int32_t));
    if (t->n_reply > 0)
        memcpy(dst->reply_ids, t->reply_ids, t->n_reply * sizeof(int32_t));
    return 0;
}

static void
turn_free(chat_turn *t)
{
    free(t->user);
    free(t->reply);
    free(t->prompt_ids);
    free(t->reply_ids);
}

/* Deep copies of the chat's first N records (chat_load_state_file and
** chat_reset drop them): free with free_records(v, N).  NULL when out of
** memory. */
static chat_turn *
copy_records(sess *s, size_t n)
{
    chat_turn *v = calloc(n ? n : 1, sizeof *v);

    if (v == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (turn_copy(&v[i], chat_turn_at(s->c, i)) != 0) {
            while (i-- > 0)
                turn_free(&v[i]);
            free(v);
            return NULL;
        }
    }
    return v;
}

static void
free_records(chat_turn *v, size_t n)
{
    if (v == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        turn_free(&v[i]);
    free(v);
}

/* The sampling values a new start changed from WAS -- the demo's for a
** state file, or back without one (params_apply_state_defaults; a value
** the user set stays) -- said in one line naming each ("top_p 0.3 -> 0.2"),
** so that replies sampled otherwise are no surprise.  FILE: the new start
** is a state file.  Nothing changed, nothing said. */
static void
note_sampling_moved(sess *s, const rwkv_sampling *was, int file)
{
    const rwkv_sampling *now = chat_sampling(s->c);
    char list[320] = "", a[32], b[32];
    size_t n = 0;

    for (int k = 0; params_table[k].name != NULL && n < sizeof list; k++) {
        if (params_get(was, k) == params_get(now, k))
            continue;
        params_format(was, k, a, sizeof a);
        params_format(now, k, b, sizeof b);
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s %s -> %s", n ? ", " : "",
                              params_table[k].name, a, b);
    }
    if (list[0] == '\0')
        return;
    if (file)
        sess_notef(s, 0, "sampling for a state file (the demo's): %s", list);
    else
        sess_notef(s, 0, "sampling without a state file (the demo's): %s", list);
}

/* sess_switch_state within the expected job (the cancel rule, session.h). */
static int
switch_state(sess *s, const char *path, int64_t lib_id, int replay, rwkv_err *err)
{
    sess_start start;
    chat_turn *rec = NULL;
    rwkv_state *st = NULL;
    rwkv_sampling samp_was = *chat_sampling(s->c);
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
    if (!atomic_load(&s->expect))       /* void while idle; kept when asked for */
        atomic_store(&s->cancel, 0);
    if ((rc = rwkv_state_create(s->m, &st, err)) != RWKV_OK)
        return rc;
    /* the new start must load before anything changes */
    if ((rc = sess_load_start(s, &start, st, err)) != RWKV_OK)
        goto out;
    /* without a replay the conversation is left (a replay saves all of it,
    ** what was kept out included, as the new session) */
    if (!(replay && chat_n_turns(s->c) > 0) && (rc = sess_leave_check(s, err)) != RWKV_OK)
        goto out;
    if (replay && chat_n_turns(s->c) > 0) {
        if ((rec = copy_records(s, chat_n_turns(s->c))) == NULL) {
            rc = rwkv_errf(err, RWKV_ENOMEM, "replay: out of memory");
            goto out;
        }
        n = chat_n_turns(s->c);
        for (size_t i = 0; i < n && rc == RWKV_OK; i++) {
            rc = sess_feed_seg(s, rec[i].prompt_ids, rec[i].n_prompt, STORE_ROLE_USER, st, &done,
                          total, err);
            if (rc == RWKV_OK)
                rc = sess_feed_seg(s, rec[i].reply_ids, rec[i].n_reply, STORE_ROLE_ASSISTANT, st,
                              &done, total, err);
        }
        if (rc != RWKV_OK)
            goto out;
    }
    /* commit: a new session of this run under the launch's names (a
    ** replay keeps the conversation's: its turns were written so) */
    if (rec == NULL) {
        sess_start was = s->start;
        s->start = start;
        rc = take_launch_names(s, err);
        s->start = was;
        if (rc != RWKV_OK)
            goto out;
    }
    if ((rc = sess_chat_start_from(s, &start, err)) != RWKV_OK)
        goto out;
    s->start = start;
    s->launch_state = 0;
    s->unfed = 0;                      /* the records' tokens are all fed again */
    s->lazy = 0;                       /* ... under another start */
    /* the replay fed the records from the start alone, no greeting: the new
    ** session's tree says so (no greeting turn), so a replay of it gives
    ** the same state; without one the next message starts from the greeting */
    s->root = rec != NULL ? SESS_ROOT_BARE : SESS_ROOT_NEW;
    s->sid = 0;
    memset(&s->other, 0, sizeof s->other);   /* a new session is of this model */
    memset(&s->gone, 0, sizeof s->gone);     /* ... and no other one's successor */
    s->head = s->last_user = s->last_reply = s->reply_id = 0;
    sess_unsaved_clear(s);
    s->title[0] = '\0';
    /* (before the replay's line: that one is the footer's, in the client) */
    note_sampling_moved(s, &samp_was, start.path[0] != '\0' || start.lib_id != 0);
    if (rec != NULL) {
        for (size_t i = 0; i < n; i++) {
            if ((rc = chat_push_turn(s->c, &rec[i], err)) != RWKV_OK) {
                chat_reset(s->c);
                goto out;
            }
        }
        chat_restore_state(s->c, st, rec[n - 1].stop != CHAT_STOP_STRING);
        if (s->st != NULL)
            sess_save_records(s, n, st);
        if (start.label[0])
            sess_notef(s, 0, "replayed %llu tokens under state %s", (unsigned long long)total,
                       start.label);
        else      /* (not "under state no state file") */
            sess_notef(s, 0, "replayed %llu tokens with no state file", (unsigned long long)total);
    }
    rc = RWKV_OK;
out:
    free_records(rec, n);
    rwkv_state_destroy(st);
    return rc;
}

int
sess_switch_state(sess *s, const char *path, int64_t lib_id, int replay, rwkv_err *err)
{
    int rc = switch_state(s, path, lib_id, replay, err);

    sess_expect_clear(s);               /* its expectation ends, as sess_open's */
    if (rc == RWKV_OK)
        note_greeting_unused(s);
    return rc;
}

int
sess_prime(sess *s, int *saved, rwkv_err *err)
{
    int got = sess_greeting_saved(s) == 0;

    if (saved)
        *saved = got;
    return got ? RWKV_OK : chat_prime(s->c, err);
}

/* A reply is about to be sent (a message, a regeneration, a continuation):
** its saves wait for another program's lock once at most (store_busy_once)
** -- from before its first row (a regeneration's and a continuation's are
** written inside chat_regen / chat_continue) until reply_busy_end: the end
** of sess_run, or its start failing (refused, or a kept message's feed
** cancelled), when no reply will run to end it. */
static void
reply_busy_once(sess *s)
{
    if (s->st != NULL)
        store_busy_once(s->st, 1);
}

/* The reply of reply_busy_once ended or will not run: other store work (a
** rename, an export, the model row) waits its full time again. */
static void
reply_busy_end(sess *s)
{
    if (s->st != NULL)
        store_busy_once(s->st, 0);
}

/* ---- the cancel rule (session.h) ------------------------------------------------
**
**   idle --sess_expect_reply--> EXPECTED --sess_submit/regen/continue--> RUNNING
**    ^     (or the reply's start:           (CANCEL, KEEP kept; the chat   |
**    |      CANCEL, KEEP voided             armed with CANCEL: reply_arm)  |
**    |      when nothing was expected)                                     |
**    +---- sess_expect_clear: sess_run / the batch ends, or a start fails -+
**
** CANCEL is never cleared at the end: a cancel after it is void at the next
** start instead (as one while idle), so nothing ends the rule early. */

void
sess_expect_reply(sess *s)
{
    if (atomic_load(&s->expect))
        return;                 /* already on its way: a cancel since then holds */
    atomic_store(&s->keep, 0);
    atomic_store(&s->cancel, 0);
    atomic_store(&s->expect, 1);
}

/* The expected reply (or open, sibling step, switch) ended, or will not
** come: its start failed -- in the runtime, or in the front end that could
** not start the job (session.h). */
void
sess_expect_clear(sess *s)
{
    atomic_store(&s->expect, 0);
}

/* The chat took the reply (chat_submit, chat_regen and chat_continue void a
** cancel sent while it was idle): a cancel sent for it since it was
** expected stops it at its first step, as one sent during it would. */
static void
reply_arm(sess *s)
{
    if (atomic_load(&s->cancel))
        chat_cancel(s->c);
}

/* ---- a message not saved, cut by sess_abandon before its reply ----------------------------
**
** The chat drops a message whose prefill is cut (chat.h: as if never sent).
** A cancel wants that; sess_abandon (a quit, a hang-up) wants the message
** kept, as a crash keeps it.  When its rows were written at submit they
** stay (sess_save_unsent); when they were not -- their save failed (a lock
** held past the busy time, a full disk), or the greeting was still to be
** fed -- the memory is all there is of it, so it goes back into the chat:
**
**   sess_submit: no rows --sent_take--> SENT (a copy of the chat's turn)
**   sess_run: the prefill cut, keep --keep_unsent--> the message in the
**             chat again with an empty interrupted reply, kept out
**             (sess_unsaved: the quit's sess_flush writes it), UNFED
**   next message --feed_kept(whole)--> its prompt fed first, then the
**             message's own; a regeneration or a continuation feeds it
**             itself (feed_kept: the state before it, the turn start)
**
** UNFED because the state stays the one before the message: its prefill
** was what the quit cut short.  Fed later by the replay rule, the numbers
** are the ones a resume of the saved tokens gives.
*/

/* The copy of the message being sent (sent_take) goes. */
static void
sent_drop(sess *s)
{
    if (!s->has_sent)
        return;
    turn_free(&s->sent);
    s->has_sent = 0;
}

/* The message just submitted was not saved: a copy of its turn, for
** keep_unsent.  Out of memory: none (an abandon then drops it, as before). */
static void
sent_take(sess *s)
{
    size_t n = chat_n_turns(s->c);

    sent_drop(s);
    if (s->st == NULL || s->early || n == 0 || turn_copy(&s->sent, chat_turn_at(s->c, n - 1)) != 0)
        return;
    s->sent_at = n - 1;
    s->has_sent = 1;
}

/*
** sess_abandon cut the prefill of the message copied by sent_take, and the
** chat dropped it: back into the chat with an empty interrupted reply (a
** reply cut at its first token), counted as kept out from there.  0 when
** kept.
*/
static int
keep_unsent(sess *s)
{
    chat_turn ct = s->sent;
    rwkv_err err;

    if (chat_n_turns(s->c) != s->sent_at)
        return -1;                     /* not dropped */
    ct.reply = (char *)(ct.head ? ct.head : "");   /* as a reply begins */
    ct.reply_len = strlen(ct.reply);
    ct.n_reply = 0;
    ct.stop = CHAT_STOP_CANCEL;
    ct.interrupted = 1;
    if (chat_push_turn(s->c, &ct, &err) != RWKV_OK) {
        sess_notef(s, 1, "your message could not be kept: %s", err.msg);
        return -1;
    }
    s->unfed = 1;
    /* kept out: a failed save marked it (session_db.c, save_gap); one never
    ** tried (the greeting was to be fed) is marked now -- in a new session
    ** every turn counts anyway */
    if (s->sid != 0 && s->unsaved == 0) {
        s->unsaved = s->sent_at + 1;
        s->unsaved_user = s->unsaved_reply = 0;
    }
    return 0;
}

/*
** A kept message (s->unfed) fed now by the replay rule -- the greeting first
** when that was still to be fed too: WHOLE, its prompt too (a message
** follows it); else up to the state before it, made the chat's turn start,
** from which a regeneration or a continuation feeds the prompt itself.
** Cancellable (sess_cancel: RWKV_ECANCEL, the chat as it was but for a
** greeting fed).  Nothing kept: RWKV_OK, nothing done.
*/
static int
feed_kept(sess *s, int whole, rwkv_err *err)
{
    size_t n = chat_n_turns(s->c), ng = 0;
    const int32_t *g = chat_greeting_ids(s->c, &ng);
    const chat_turn *t;
    rwkv_state *before = NULL, *after = NULL;
    uint64_t done = 0, total;
    int rc;

    if (!s->unfed)
        return RWKV_OK;
    if (n == 0) {
        s->unfed = 0;
        return RWKV_OK;
    }
    t = chat_turn_at(s->c, n - 1);
    total = (chat_greeting_fed(s->c) ? 0 : ng) + (whole ? t->n_prompt : 0);
    if ((rc = rwkv_state_create(s->m, &before, err)) != RWKV_OK ||
        (whole && (rc = rwkv_state_create(s->m, &after, err)) != RWKV_OK))
        goto out;
    rwkv_state_copy(before, chat_state(s->c));
    if (!chat_greeting_fed(s->c)) {
        if ((rc = sess_feed_seg(s, g, ng, STORE_ROLE_SYSTEM, before, &done, total, err)) !=
                RWKV_OK ||
            (rc = chat_prime_from(s->c, before, err)) != RWKV_OK)
            goto out;
    }
    if (whole) {
        rwkv_state_copy(after, before);
        if ((rc = sess_feed_seg(s, t->prompt_ids, t->n_prompt, STORE_ROLE_USER, after, &done,
                                total, err)) != RWKV_OK)
            goto out;
        /* after an interrupted reply the next prompt starts with "\n\n" */
        chat_restore_state(s->c, after, 1);
        s->unfed = 0;
    }
    chat_set_turn_start(s->c, before);
out:
    rwkv_state_destroy(before);
    rwkv_state_destroy(after);
    return rc;
}

/* INPUT, when it names a file that is there, else NULL: an input that is
** gone is nothing a write could replace. */
static const char *
present(const char *input)
{
    return input != NULL && input[0] != '\0' && access(input, F_OK) == 0 ? input : NULL;
}

int
sess_output_check(sess *s, const char *path, rwkv_err *err)
{
    char mf[STORE_PATH_MAX + 8];
    const char *model = s->model_path[0] == '/' ? ckpt_file_name(s->model_path, mf, sizeof mf)
                                                : NULL;   /* not the demo */
    const store_input in[] = {
        { present(model), "the model in use" },
        { present(s->vocab_path), "the vocabulary in use" },
        { present(s->start.path), "the state file in use (the conversation starts from it)" },
    };

    return store_output_check(s->st, path, in, sizeof in / sizeof in[0], err);
}

int
sess_state_save(sess *s, const char *path, rwkv_err *err)
{
    rwkv_state *next = NULL;
    struct stat sb;
    rwkv_err e2;
    int rc;

    if (chat_phase(s->c) != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "a reply is still running: save the state when it ends");
    /* an output never replaces an input, the database or any SQLite file */
    if ((rc = sess_output_check(s, path, err)) != RWKV_OK)
        return rc;
    /* nor goes to a device or a pipe (/dev/null, /dev/stdout): nothing
    ** there is a file that --state loads */
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
        return rwkv_errf(err, RWKV_EINVAL, "%s is not a file (a device or a pipe): the state "
                         "was not saved", path);
    if (!atomic_load(&s->expect))       /* a cancel sent while idle is void */
        atomic_store(&s->cancel, 0);
    /* the state of the conversation shown: a kept message in it is fed
    ** first, as the next message would feed it (and then does not again) */
    if ((rc = feed_kept(s, 1, &e2)) != RWKV_OK)
        return rwkv_errf(err, rc, "%s: the state was not saved: %s", path,
                         rc == RWKV_ECANCEL ? "cancelled while your last message was read"
                                            : e2.msg);
    /* the state the chat goes on from: after a reply cut by max-tokens or a
    ** cancel, with the "\n\n" the next message would be fed after, so a
    ** chat started from the file goes on as this one does */
    if ((rc = rwkv_state_create(s->m, &next, err)) != RWKV_OK)
        return rc;
    if ((rc = chat_state_next(s->c, next, err)) == RWKV_OK)
        rc = rwkv_state_save_file(s->m, next, path, err);
    rwkv_state_destroy(next);
    return rc;
}

int
sess_submit(sess *s, const char *msg, size_t len, rwkv_err *err)
{
    int rc;

    sess_expect_reply(s);
    framing_sync(s);                   /* another window's stop strings, think mode */
    reply_busy_once(s);
    s->started = 0;
    s->regen = 0;
    s->cont = 0;
    sess_greeting_saved(s);            /* a greeting still pending: saved, if it was */
    if ((rc = feed_kept(s, 1, err)) == RWKV_OK)     /* a kept message before it */
        rc = chat_submit(s->c, msg, len, err);
    if (rc != RWKV_OK) {
        reply_busy_end(s);
        sess_expect_clear(s);
        sess_reply_sampling_end(s);
        return rc;
    }
    sess_save_submit(s);
    sent_take(s);
    reply_arm(s);
    return RWKV_OK;
}

/*
** What a regeneration replaces, so that one cut before its first token (or
** while its prompt is fed again) can put it back where no saved branch can
** -- no database (--no-db, the line chat without one) or nothing saved yet:
** the chat's last turn, the state after it and the state before its
** prompt.  Taken by sess_regen, dropped by sess_run.  A saved session
** takes its branch back from the store instead (two fewer states to copy
** for every regeneration of a large model).
*/
struct sess_regen_keep {
    size_t      at;               /* the turn's index in the chat */
    chat_turn   turn;             /* deep copy (turn_copy) */
    rwkv_state *after;            /* the state after its reply */
    rwkv_state *before;           /* before its prompt; NULL: the chat had none */
};

static void
keep_drop(sess *s)
{
    struct sess_regen_keep *k = s->kept;

    if (k == NULL)
        return;
    turn_free(&k->turn);
    rwkv_state_destroy(k->after);
    rwkv_state_destroy(k->before);
    free(k);
    s->kept = NULL;
}

/* Keep the chat's last turn before a regeneration replaces it, where no
** saved session can give it back; out of memory nothing is kept (a cut
** regeneration then stays, empty). */
static void
keep_take(sess *s)
{
    size_t n = chat_n_turns(s->c);
    const rwkv_state *before = chat_state_turn_start(s->c);
    struct sess_regen_keep *k;
    rwkv_err err;

    keep_drop(s);
    if ((s->st != NULL && s->sid != 0 && sess_unsaved(s) == 0) || n == 0 ||
        (k = calloc(1, sizeof *k)) == NULL)
        return;
    if (turn_copy(&k->turn, chat_turn_at(s->c, n - 1)) != 0) {
        free(k);
        return;
    }
    s->kept = k;
    k->at = n - 1;
    if (rwkv_state_create(s->m, &k->after, &err) != RWKV_OK ||
        (before != NULL && rwkv_state_create(s->m, &k->before, &err) != RWKV_OK)) {
        keep_drop(s);
        return;
    }
    rwkv_state_copy(k->after, chat_state(s->c));
    if (before != NULL)
        rwkv_state_copy(k->before, before);
}

/*
** Put back what the regeneration replaced: the turns before it, the kept
** turn and the state after it.  With the state before its prompt, the next
** regeneration feeds that prompt again (as after a resume: the state right
** after it is not kept).  0, or -1 (nothing kept, out of memory: a note).
*/
static int
keep_put_back(sess *s)
{
    struct sess_regen_keep *k = s->kept;
    chat_turn *rec;
    rwkv_err err;
    int rc = RWKV_OK;

    if (k == NULL || chat_n_turns(s->c) < k->at)
        return -1;
    if ((rec = copy_records(s, k->at)) == NULL) {
        sess_notef(s, 1, "the reply before the regeneration could not be put back: out of memory");
        return -1;
    }
    chat_reset(s->c);
    for (size_t i = 0; i < k->at && rc == RWKV_OK; i++)
        rc = chat_push_turn(s->c, &rec[i], &err);
    if (rc == RWKV_OK)
        rc = chat_push_turn(s->c, &k->turn, &err);
    free_records(rec, k->at);
    if (rc != RWKV_OK) {
        chat_reset(s->c);
        sess_notef(s, 1, "%s", err.msg);
        return -1;
    }
    chat_restore_state(s->c, k->after, k->turn.stop != CHAT_STOP_STRING);
    if (k->before != NULL)
        chat_set_turn_start(s->c, k->before);
    return 0;
}

/* sess_regen within the expected reply (a batch's alternative). */
static int
regen_one(sess *s, rwkv_err *err)
{
    int rc;

    framing_sync(s);                   /* another window's stop strings, think mode */
    reply_busy_once(s);
    s->started = 0;
    s->regen = 1;
    sess_regen_mark(s);
    s->cont = 0;
    if ((rc = feed_kept(s, 0, err)) != RWKV_OK || (rc = sess_lazy_prev(s, err)) != RWKV_OK) {
        s->regen = 0;
        reply_busy_end(s);
        return rc;
    }
    keep_take(s);
    rc = chat_regen(s->c, err);
    if (rc != RWKV_OK) {
        s->regen = 0;
        keep_drop(s);
        reply_busy_end(s);
        return rc;
    }
    reply_arm(s);
    return RWKV_OK;
}

int
sess_regen(sess *s, rwkv_err *err)
{
    int rc;

    sess_expect_reply(s);
    if ((rc = regen_one(s, err)) != RWKV_OK)
        sess_expect_clear(s);
    return rc;
}

/* 1 when the batch of sess_regen_n goes on after a reply: it reached
** generation and was neither cancelled nor stopped by an error. */
static int
batch_goes_on(sess *s)
{
    size_t n = chat_n_turns(s->c);

    if (!s->started || atomic_load(&s->cancel) || n == 0)
        return 0;
    return chat_turn_at(s->c, n - 1)->stop != CHAT_STOP_CANCEL;
}

static int run_one(sess *s, rwkv_err *err);

int
sess_regen_n(sess *s, int n, void (*each)(void *ud, int k, int n), int *done, rwkv_err *err)
{
    int rc = RWKV_OK, k;

    if (done)
        *done = 0;
    if (n < 1 || n > SESS_MAX_ALTS) {
        sess_expect_clear(s);
        return rwkv_errf(err, RWKV_EINVAL, "alternatives: %d is not in 1..%d", n,
                         SESS_MAX_ALTS);
    }
    /* one expected reply for the whole batch: a cancel between two
    ** alternatives (since batch_goes_on looked) is the next one's, armed
    ** by regen_one */
    sess_expect_reply(s);
    for (k = 1; k <= n; k++) {
        if (k > 1 && !batch_goes_on(s))
            break;
        if (each)
            each(s->cb.ud, k, n);
        if ((rc = regen_one(s, err)) != RWKV_OK)
            break;
        rc = run_one(s, err);
        if (done && s->started)
            (*done)++;
        if (rc != RWKV_OK)
            break;
    }
    sess_expect_clear(s);
    sess_reply_sampling_end(s);
    return rc;
}

/* The state before the last message for a continuation, when the open
** left it to be rebuilt (sess_lazy_prev): not for a reply chat_continue
** refuses at once (ended at its stop string), which then says why. */
static int
continue_prev(sess *s, rwkv_err *err)
{
    size_t n = chat_n_turns(s->c);

    if (n == 0 || chat_turn_at(s->c, n - 1)->stop == CHAT_STOP_STRING)
        return RWKV_OK;
    return sess_lazy_prev(s, err);
}

int
sess_continue(sess *s, rwkv_err *err)
{
    int rc;

    if (chat_phase(s->c) != CHAT_IDLE)
        return rwkv_errf(err, RWKV_EINVAL, "a reply is still running");
    sess_expect_reply(s);
    if ((rc = sess_reply_is_last(s, err)) != RWKV_OK) {
        sess_expect_clear(s);
        return rc;
    }
    reply_busy_once(s);
    s->started = 0;
    s->regen = 0;
    s->cont = 1;
    if ((rc = feed_kept(s, 0, err)) == RWKV_OK && (rc = continue_prev(s, err)) == RWKV_OK)
        rc = chat_continue(s->c, err);
    if (rc != RWKV_OK) {
        s->cont = 0;
        reply_busy_end(s);
        sess_expect_clear(s);
        return rc;
    }
    reply_arm(s);
    return RWKV_OK;
}

/* 1 when the regeneration just run made no token: cancelled before its
** first, or ended by an error there ("no token can be sampled": every
** token banned).  A sibling with nothing in it: not kept, see sess_run. */
static int
regen_made_nothing(sess *s)
{
    size_t n = chat_n_turns(s->c);
    const chat_turn *t = n ? chat_turn_at(s->c, n - 1) : NULL;

    return t != NULL && (t->stop == CHAT_STOP_CANCEL || t->stop == CHAT_STOP_ERROR) &&
           t->n_reply == 0;
}

/* sess_run within the expected reply (a batch's alternative). */
static int
run_one(sess *s, rwkv_err *err)
{
    int rc = chat_run(s->c, err);

    if (s->early && !s->started)
        sess_save_unsent(s);   /* a cancel: its rows go; sess_abandon: they stay */
    /* sess_abandon: a message not saved is kept in the chat instead */
    if (s->has_sent && !s->started && atomic_load(&s->keep) && keep_unsent(s) == 0)
        s->started = 1;        /* as a reply cut at its first token */
    sent_drop(s);
    /* a regeneration cut before its first token: its empty row goes (none
    ** where nothing is saved) */
    if (s->regen && s->started && regen_made_nothing(s) &&
        (sess_drop_empty_regen(s) == 0 || ((s->st == NULL || s->sid == 0) && s->kept)))
        s->started = 0;        /* as if cut before it started: nothing changed */
    if (!s->started && !s->regen)   /* (a regeneration's message comes back below) */
        sess_unsaved_dropped(s);
    if (s->regen && !s->started) {
        /* a regeneration cancelled while its prompt was fed again dropped
        ** the exchange from the chat, one cut before its first token left
        ** an empty reply there: the saved branch comes back, or what was
        ** kept where nothing is saved (--no-db: the same rule) */
        rwkv_err e2;
        sess_start start = s->start;
        atomic_store(&s->cancel, 0);   /* the cancel that cut it is spent: no replay cut */
        if (s->st == NULL || s->sid == 0 || s->kept != NULL) {
            /* (or an exchange kept out, not in the store: keep_take kept
            ** it -- the store's branch has not got it, whether its prompt
            ** was being fed again or its empty rows just went) */
            keep_put_back(s);
        } else if (sess_load_branch(s, s->sid, &start, s->head, &e2) != RWKV_OK) {
            sess_notef(s, 1, "%s", e2.msg);
            keep_put_back(s);
        }
    }
    keep_drop(s);
    s->regen = 0;
    s->cont = 0;
    reply_busy_end(s);
    return rc;
}

int
sess_run(sess *s, rwkv_err *err)
{
    int rc = run_one(s, err);

    sess_expect_clear(s);
    sess_reply_sampling_end(s);
    return rc;
}

void
sess_cancel(sess *s)
{
    atomic_store(&s->cancel, 1);
    atomic_store(&s->chat_cancel, 1);   /* chat_cancel of whichever chat runs */
}

void
sess_abandon(sess *s)
{
    atomic_store(&s->keep, 1);
    sess_cancel(s);
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
        sess_queue_seed(s);
    }
    sess_save_sampling(s);             /* kept at once: no reply may follow */
}

void
sess_reply_sampling(sess *s, const rwkv_sampling *samp, unsigned samp_set)
{
    if (!s->once) {
        s->once_own = *chat_sampling(s->c);
        s->once_set = chat_sampling_set(s->c);
        s->once = 1;
    }
    chat_set_sampling(s->c, samp, samp_set);   /* not saved: sess_save_sampling */
}

void
sess_reply_sampling_end(sess *s)
{
    if (!s->once)
        return;
    s->once = 0;
    chat_set_sampling(s->c, &s->once_own, s->once_set);
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

    /* the leaving rule first: what was kept out is the old model's */
    if ((rc = sess_leave_check(s, err)) != RWKV_OK)
        return rc;
    s->m = m;                         /* start_file/new_chat use the new model */
    if (s->start.gone) {              /* the new session cannot start from it */
        sess_notef(s, 1, "%s: not used (a new session starts from the greeting)",
                   s->start.label);
        memset(&s->start, 0, sizeof s->start);
        has_state = 0;
    }
    if (has_state && start_file(s, &s->start, file, sizeof file, &is_tmp, err) != RWKV_OK)
        has_state = 0;
    rc = new_chat(s, m, t, &s->fr, chat_sampling(old), chat_sampling_set(old),
                  has_state ? file : NULL, &c, err);
    if (rc != RWKV_OK && has_state) {
        sess_notef(s, 1, "state file %s does not fit this model: %s (not used)", s->start.label,
              rwkv_err_past_path(err->msg, file));    /* (named: the label) */
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
        snprintf(s->model_path, sizeof s->model_path, "%s", SESS_DEMO_PATH);
    s->vocab_path[0] = '\0';
    if (vocab_path && vocab_path[0])
        abs_path(vocab_path, s->vocab_path, sizeof s->vocab_path);
    if (sess_model_row(s, err) != RWKV_OK)
        sess_save_fail(s, "the model row", err);
    chat_destroy(old);
    sess_start_over(s);
    return RWKV_OK;
}
