/*
** model_load.c -- opening a model in the full-screen client: at start-up
** (before the screen, errors on stderr) and on F5 (a model switch, errors in
** the UI).  One rule for the vocabulary in both: --vocab, the config's
** vocab:, then the launch's finder ($RWKV_VOCAB, the model's folder, the
** data folder; cli_vocab_lookup).  The loader's progress goes to
** a->load_progress (app.c draws the bar and handles Ctrl-C while loading).
** What is printed on stderr meanwhile is caught (tui_capture_*: it would
** land on the curses screen) and shown in the transcript: the model's lines
** as its note at the top (tui_session_model_note), replaced by the next
** model's; a failed F5 load's in the message log only (load_failed).  F5
** keeps the leaving rule (storage/session.h) before it loads anything: a
** switch refused for exchanges not saved costs no load.  UI thread only.
*/
#include "app.h"

#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* ---- stderr caught while a model loads ----------------------------------- */

void
tui_capture_begin(tui_capture *c)
{
    fflush(stderr);
    c->f = tmpfile();
    c->saved = c->f ? dup(2) : -1;
    if (c->saved < 0 || dup2(fileno(c->f), 2) < 0) {
        if (c->saved >= 0)
            close(c->saved);
        if (c->f)
            fclose(c->f);
        c->f = NULL;
        c->saved = -1;
    }
}

long
tui_capture_mark(const tui_capture *c)
{
    off_t at;

    if (c->f == NULL)
        return 0;
    fflush(stderr);
    /* fd 2 is a dup of the file's descriptor: they share the offset */
    at = lseek(fileno(c->f), 0, SEEK_CUR);
    return at < 0 ? 0 : (long)at;
}

void
tui_capture_end(tui_capture *c)
{
    if (c->saved < 0)
        return;
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    c->saved = -1;
}

void
tui_capture_text(const tui_capture *c, long from, long to, tui_buf *out)
{
    char buf[1024];
    off_t at = from;
    ssize_t n;

    tui_buf_clear(out);
    if (c->f == NULL)
        return;
    fflush(stderr);
    if (to < 0)
        to = (long)lseek(fileno(c->f), 0, SEEK_END);
    while (at < to) {
        size_t want = (size_t)(to - at) < sizeof buf ? (size_t)(to - at) : sizeof buf;
        if ((n = pread(fileno(c->f), buf, want, at)) <= 0)
            break;
        tui_buf_add(out, buf, (size_t)n);
        at += n;
    }
    while (out->len > 0 && out->p[out->len - 1] == '\n')
        out->p[--out->len] = '\0';
}

void
tui_capture_close(tui_capture *c)
{
    tui_capture_end(c);
    if (c->f)
        fclose(c->f);
    c->f = NULL;
}

/* ---- opening a model ------------------------------------------------------ */

/* Start showing a load of PATH (NULL: the demo model) in the status line. */
static void
load_begin(struct app *a, const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;

    a->loading = 1;
    a->load_frac = 0;
    a->load_pct = -1;
    snprintf(a->load_what, sizeof a->load_what, "%s", TR("opening"));
    tui_cut(a->load_name, sizeof a->load_name,
            path ? (slash ? slash + 1 : path) : TR("demo model (random weights)"), 120);
    if (a->screen)
        tui_view_draw_loading(a);
}

/* The vocabulary for the model at MODEL into OUT: 0, or 1 with one line in
** WHY. */
static int
find_vocab(const struct app *a, const char *model, char *out, size_t cap, char *why,
           size_t why_cap)
{
    const char *v = a->launch.vocab ? a->launch.vocab : (a->cfg.vocab[0] ? a->cfg.vocab : NULL);

    if (v != NULL) {
        if (strlen(v) >= cap) {
            char cut[64];
            snprintf(why, why_cap, "vocabulary path too long: %s", tui_cut(cut, sizeof cut, v, 60));
            return 1;
        }
        strcpy(out, v);
        return 0;
    }
    if (a->launch.find_vocab != NULL)
        return a->launch.find_vocab(NULL, model, out, cap, why, why_cap);
    snprintf(why, why_cap, "no vocabulary: give --vocab rwkv_vocab_v20230424.txt (or vocab: in "
                           "the config file)");
    return 1;
}

/* ERR's message gets " (FIELD: from CONFIG:LINE:COLUMN)" when the value
** that failed came from the config file (AT: config.h's *_at, "" when
** not): a user who typed no option must learn where the path was set. */
static void
name_origin(rwkv_err *err, const char *field, const char *at)
{
    size_t n = strlen(err->msg);

    /* (cut short when the message is long: the line stays one line) */
    if (at[0] != '\0' && n < sizeof err->msg &&
        snprintf(err->msg + n, sizeof err->msg - n, " (%s: from %s)", field, at) < 0)
        err->msg[n] = '\0';
}

/* The tokenizer for model M loaded from PATH (NULL: the demo): the byte one
** for a 256-token vocabulary, else the World vocabulary (its path in VOCAB,
** else VOCAB is ""). */
static int
open_tokenizer(const struct app *a, const rwkv_model *m, const char *path, tok **t,
               char *vocab, size_t cap, rwkv_err *err)
{
    char why[1024];

    vocab[0] = '\0';
    if (rwkv_model_info(m)->n_vocab <= 256)
        return tok_create_bytes(t, err);
    int rc;

    if (find_vocab(a, path, vocab, cap, why, sizeof why) != 0)
        return rwkv_errf(err, RWKV_EINVAL, "%s", why);
    if ((rc = tok_open_world(vocab, t, err)) != RWKV_OK && a->launch.vocab == NULL &&
        a->cfg.vocab[0] && strcmp(vocab, a->cfg.vocab) == 0)
        name_origin(err, "vocab", a->cfg.vocab_at);
    return rc;
}

/* The model's path and label (NULL PATH: the demo). */
static void
set_names(struct app *a, const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;

    if (path == NULL) {
        a->model_path[0] = '\0';
        snprintf(a->model_label, sizeof a->model_label, "demo");
        return;
    }
    snprintf(a->model_path, sizeof a->model_path, "%s", path);
    tui_cut(a->model_label, sizeof a->model_label, slash ? slash + 1 : path, 120);
}

int
tui_model_open(struct app *a)
{
    const tui_launch *l = &a->launch;
    rwkv_open_opts oo;
    rwkv_err err;
    const char *model = l->model ? l->model : (a->cfg.model[0] ? a->cfg.model : NULL);
    const char *strategy = l->strategy ? l->strategy
                                       : (a->cfg.strategy[0] ? a->cfg.strategy : NULL);
    int rc;

    if (!l->demo && model == NULL) {
        char hint[STORE_PATH_MAX + STORE_TITLE_MAX + 160];
        fprintf(stderr, PROG_NAME_TUI ": no model: give --model PATH (or model: in the "
                        "config file), or --demo to try the interface\n");
        if (!l->no_db &&
            sess_saved_hint(l->db ? l->db : (a->cfg.db[0] ? a->cfg.db : NULL), hint, sizeof hint))
            fprintf(stderr, PROG_NAME_TUI ": %s\n", hint);
        return 2;
    }
    /* a resumed session's state file (--state: a copy of it, or refused),
    ** checked before the model loads, as the line chat does; from then on
    ** the session's own row names it (sess_resume_state) */
    if (l->resume_id != 0 &&
        sess_resume_state(l->db ? l->db : (a->cfg.db[0] ? a->cfg.db : NULL), &a->resume,
                          &a->launch.state, NULL, &err) != RWKV_OK) {
        fprintf(stderr, PROG_NAME_TUI ": %s\n", err.msg);
        return 1;
    }
    if (l->resume_id != 0 && err.msg[0])
        tui_notice(a, 0, "%s", err.msg);       /* a state file taken unchecked */
    memset(&oo, 0, sizeof oo);
    oo.strategy = strategy;
    oo.n_threads = l->threads;
    oo.progress_ud = a;
    if (a->screen || (!l->demo && isatty(2)))
        oo.progress = a->load_progress;
    if (a->screen)
        load_begin(a, l->demo ? NULL : model);
    rc = l->demo ? rwkv_model_open_demo(RWKV_DEMO_SEED, &oo, &a->model, &err)
                 : rwkv_model_open(model, &oo, &a->model, &err);
    if (rc != RWKV_OK) {
        /* what the file set is named where the line quotes it (a strategy
        ** refused here names it: "strategy 'cuda fp16': ..."), else the
        ** model's place */
        int cfg_model = !l->demo && l->model == NULL;
        int cfg_strat = l->strategy == NULL && strategy != NULL;
        char quoted[CFG_PATH + 4];
        snprintf(quoted, sizeof quoted, "'%s'", strategy ? strategy : "");
        sess_info_load_hint(l->resume_id ? &a->resume : NULL, model, strategy, &err);
        if (cfg_strat && strstr(err.msg, quoted) != NULL)
            name_origin(&err, "strategy", a->cfg.strategy_at);
        else if (cfg_model)
            name_origin(&err, "model", a->cfg.model_at);
    }
    if (oo.progress && a->screen == NULL)
        fputs(rc == RWKV_OK ? "\r\033[K" : "\n", stderr);
    if (rc == RWKV_OK)
        rc = open_tokenizer(a, a->model, l->demo ? NULL : model, &a->tok, a->vocab_path,
                            sizeof a->vocab_path, &err);
    if (rc != RWKV_OK) {
        fprintf(stderr, PROG_NAME_TUI ": %s\n", err.msg);
        return 1;
    }
    set_names(a, l->demo ? NULL : model);
    return 0;
}

/*
** What a failed F5 load says: one line in the footer (and the log) naming
** the file P (NULL: the demo model) and the reason, and that the model in
** use stays.  What the load printed on stderr (SAID: a library's own words,
** raw) goes to the message log only, before that line, for whoever wants
** the detail: the transcript is no place for it.
*/
static void
load_failed(struct app *a, const char *p, const rwkv_err *err, const tui_buf *said)
{
    const char *what = p ? p : "demo";

    if (said->len > 0) {
        tui_buf line;
        size_t n = said->len;
        while (n > 0 && (said->p[n - 1] == '\n' || said->p[n - 1] == '\r'))
            n--;
        tui_buf_init(&line);
        tui_buf_adds(&line, TR("printed while loading "));
        tui_buf_adds(&line, what);
        tui_buf_adds(&line, ": ");
        tui_buf_add(&line, said->p, n);
        tui_log_only(a, line.p);
        tui_buf_fini(&line);
    }
    /* (the reason is the loader's, in English: the client's sentence
    ** around it is in the interface language); one shape, "FILE: not
    ** loaded: why", the loader's "FILE: " before its reason said once */
    tui_notice(a, 1, "%s: not loaded: %s; %s stays in use", what,
               rwkv_err_past_path(err->msg, p), a->model_label);
}

/* The tokenizer of model M loaded from P for a switch: the World
** vocabulary PREF (a session's own, on record) when it is there, else as
** every load finds it (open_tokenizer). */
static int
switch_tokenizer(const struct app *a, const rwkv_model *m, const char *p, const char *pref,
                 tok **t, char *vocab, size_t cap, rwkv_err *err)
{
    if (pref != NULL && pref[0] != '\0' && strlen(pref) < cap &&
        rwkv_model_info(m)->n_vocab > 256 && access(pref, R_OK) == 0) {
        strcpy(vocab, pref);
        return tok_open_world(vocab, t, err);
    }
    return open_tokenizer(a, m, p, t, vocab, cap, err);
}

/*
** Put the model at P (NULL: the demo model) in use with STRATEGY (NULL: the
** current one's), as F5 does: the leaving rule first, then the load with
** its progress, the old model kept on any failure.  NEED (NULL: F5) is the
** model of a session made with another shape (F2, sess_model_need): the
** file loaded must be the one it was made with (sess_need_loaded) before it
** takes the place of the model in use, and that session is opened on it
** instead of a new one; VOCAB is its World vocabulary on record (NULL:
** none).
*/
static int
switch_to(struct app *a, const char *p, const char *strategy, const char *pref,
          const sess_need *need)
{
    rwkv_open_opts oo;
    rwkv_err err;
    rwkv_model *m = NULL;
    tok *t = NULL;
    tui_capture cap;
    tui_buf said;
    char vocab[sizeof a->vocab_path];
    int rc;

    if (a->busy) {
        tui_notice(a, 1, "wait for the model to finish (Esc cancels a reply)");
        return -1;
    }
    /* the leaving rule before the load (seconds, gigabytes): a switch it
    ** refuses loads nothing; sess_set_model then finds nothing kept out */
    tui_unsaved_saving(a);            /* its try may wait for a lock */
    if (sess_leave_check(a->sess, &err) != RWKV_OK) {
        /* queued after the runtime's notes of that try: the last word */
        tui_worker_note(&a->w, 1, err.msg);
        return -1;
    }
    memset(&oo, 0, sizeof oo);
    oo.strategy = strategy ? strategy : rwkv_model_info(a->model)->strategy;
    oo.n_threads = a->launch.threads;
    tui_notice(a, 0, "loading %s ...", p ? p : "demo");
    oo.progress = a->load_progress;
    oo.progress_ud = a;
    load_begin(a, p);
    tui_capture_begin(&cap);
    rc = p == NULL ? rwkv_model_open_demo(RWKV_DEMO_SEED, &oo, &m, &err)
                   : rwkv_model_open(p, &oo, &m, &err);
    if (rc == RWKV_OK && need != NULL)    /* the session's own file, not one put there since */
        rc = sess_need_loaded(need, rwkv_model_info(m), &err);
    if (rc == RWKV_OK)
        rc = switch_tokenizer(a, m, p, pref, &t, vocab, sizeof vocab, &err);
    if (rc == RWKV_OK)   /* the runtime records the model really used from now on */
        rc = sess_set_model(a->sess, m, t, p, vocab[0] ? vocab : NULL, &err);
    a->loading = 0;
    tui_capture_end(&cap);
    tui_buf_init(&said);
    tui_capture_text(&cap, 0, -1, &said);
    tui_capture_close(&cap);
    if (rc != RWKV_OK) {             /* the model in use and its note stay */
        load_failed(a, p, &err, &said);
        tui_buf_fini(&said);
        tok_close(t);
        rwkv_model_close(m);
        return TUI_SWITCH_LOAD;
    }
    fgen_destroy(a->w.gen);          /* made on the old model */
    a->w.gen = NULL;
    tok_close(a->tok);
    rwkv_model_close(a->model);
    a->tok = t;
    a->model = m;
    snprintf(a->vocab_path, sizeof a->vocab_path, "%s", vocab);
    if (need != NULL || p != a->model_path) {   /* (F5's reload keeps its names) */
        set_names(a, p);
        a->launch.demo = p == NULL;
    }
    /* the new model's lines replace the old one's, on the screen at once
    ** as after any later rebuild */
    tui_session_model_note(a, said.p, said.len);
    tui_buf_fini(&said);
    tui_session_fresh(a);
    if (need != NULL) {              /* the session it was loaded for, opened on it */
        tui_notice(a, 0, "model %s (%s); opening session %lld", a->model_label,
                   rwkv_model_info(m)->strategy, (long long)need->info.id);
        tui_session_job(a, TUI_JOB_OPEN, need->info.id, -1, NULL);
        return 0;
    }
    tui_notice(a, 0, "model %s (%s); new session", a->model_label, rwkv_model_info(m)->strategy);
    tui_session_prime(a);
    return 0;
}

int
tui_switch_model(struct app *a, const char *path, const char *strategy)
{
    const char *p = path ? path : (a->model_path[0] ? a->model_path : NULL);  /* NULL: demo */

    if (p == NULL && !a->launch.demo && !a->busy)
        return -1;
    return switch_to(a, p, strategy, NULL, NULL);
}

int
tui_switch_session_model(struct app *a, const sess_need *need)
{
    const char *model = NULL, *strategy = NULL, *vocab = NULL;
    int demo = 0;

    /* the launch's rule for a session's model (sess_info_launch): its
    ** file (or the demo), with its strategy so its states are used as
    ** saved, and its vocabulary */
    sess_info_launch(&need->info, &model, &demo, &strategy, &vocab);
    if (model == NULL && !demo)
        return -1;
    return switch_to(a, demo ? NULL : model, strategy, vocab, need);
}
