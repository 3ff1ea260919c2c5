/*
** worker.c -- the generation thread (house style G7).
**
** One job at a time runs on its own thread, through the session runtime
** (storage/session.h, which saves as the reply goes): SUBMIT (sess_submit +
** sess_run, after a sess_fork when editing), REGEN (sess_regen_n: one or more
** alternatives),
** CONTINUE (sess_continue + sess_run),
** PRIME (chat_prime), OPEN / SIBLING / SWITCH (sess_open, sess_step_sibling,
** sess_switch_state: they may replay, with progress).  A cancel counts from
** where the job is queued (tui_worker_start), before its thread begins: the
** runtime's cancel rule (storage/session.h) or the client's own flag
** (gen_cancel) keeps it until the job takes it.  The chat's callbacks run
** on that thread and only append events to a mutex-protected list and write
** one byte to a non-blocking pipe; the UI thread poll()s the pipe together
** with stdin, drains the list and draws.  The worker never calls curses,
** never touches the transcript or the UI's store connection (the runtime
** writes through its own).  END is always the last event
** of a job; after it the UI thread joins the thread, and the worker has no
** job (TUI_JOB_NONE: tui_worker_end) until the next one starts.
*/
#include "app.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/chat/rng.h"
#include "../core/clock.h"
#include "text.h"

int
tui_worker_init(tui_worker *w)
{
    int fds[2];

    memset(w, 0, sizeof *w);
    w->job = TUI_JOB_NONE;
    w->pipe_r = w->pipe_w = -1;
    if (pipe(fds) != 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    }
    w->pipe_r = fds[0];
    w->pipe_w = fds[1];
    pthread_mutex_init(&w->lock, NULL);
    return 0;
}

void
tui_event_free(tui_event *e)
{
    while (e) {
        tui_event *n = e->next;
        free(e->text);
        free(e);
        e = n;
    }
}

void
tui_worker_fini(tui_worker *w)
{
    tui_worker_join(w);
    tui_event_free(w->head);
    w->head = w->tail = NULL;
    if (w->pipe_r >= 0) {
        close(w->pipe_r);
        close(w->pipe_w);
        pthread_mutex_destroy(&w->lock);
    }
    w->pipe_r = w->pipe_w = -1;
    free(w->msg);
    w->msg = NULL;
    fgen_destroy(w->gen);
    w->gen = NULL;
}

static void
post(tui_worker *w, tui_event *e)
{
    char b = 1;
    ssize_t r;

    e->next = NULL;
    pthread_mutex_lock(&w->lock);
    if (w->tail)
        w->tail->next = e;
    else
        w->head = e;
    w->tail = e;
    pthread_mutex_unlock(&w->lock);
    /* a full pipe already means "wake up": EAGAIN is fine */
    do
        r = write(w->pipe_w, &b, 1);
    while (r < 0 && errno == EINTR);
}

tui_event *
tui_worker_drain(tui_worker *w)
{
    tui_event *e;
    char buf[256];

    while (read(w->pipe_r, buf, sizeof buf) > 0)
        ;
    pthread_mutex_lock(&w->lock);
    e = w->head;
    w->head = w->tail = NULL;
    pthread_mutex_unlock(&w->lock);
    return e;
}

static tui_event *
ev_new(int type)
{
    tui_event *e = tui_xmalloc(sizeof *e);
    memset(e, 0, sizeof *e);
    e->type = type;
    return e;
}

/*
** The runtime's session as the job's thread sees it now, posted (SESSION)
** when it changed: a new session's row is made with its first message's
** rows (at submit, or at generation start: storage/session.h), a session
** deleted elsewhere is saved again as another, a cancel before the reply
** takes a new row away again -- and the runtime posts no event of its own
** for that, so the status line would say "new" while F2 lists the session.
** Read at each phase, note and end of a reply (the callbacks run on the
** thread driving the sess, which may read it); reply jobs only: an open's
** or a switch's session is taken at its END (tui_session_sync).
*/
static void
watch_session(tui_worker *w)
{
    tui_event *e;
    int64_t id;

    if (w->sess == NULL ||
        (w->job != TUI_JOB_SUBMIT && w->job != TUI_JOB_REGEN && w->job != TUI_JOB_CONTINUE))
        return;
    id = sess_id(w->sess);
    if (id == w->seen_sid)
        return;
    w->seen_sid = id;
    e = ev_new(TUI_EV_SESSION);
    e->sid = id;
    e->text = tui_xstrdup(id != 0 ? sess_title(w->sess) : "");
    e->len = strlen(e->text);
    post(w, e);
}

static void
cb_text(void *ud, const char *text, size_t len)
{
    tui_event *e = ev_new(TUI_EV_TEXT);

    e->text = tui_xstrndup(text, len);
    e->len = len;
    post(ud, e);
}

static void
cb_phase(void *ud, int phase)
{
    tui_event *e;

    watch_session(ud);
    e = ev_new(TUI_EV_PHASE);
    e->phase = phase;
    post(ud, e);
}

static void
cb_done(void *ud, const chat_turn *t)
{
    tui_event *e;

    watch_session(ud);
    e = ev_new(TUI_EV_DONE);
    e->stats = t->stats;
    e->stop = t->stop;
    post(ud, e);
}

static void
cb_stats(void *ud, const chat_stats *st)
{
    tui_event *e = ev_new(TUI_EV_STATS);

    e->stats = *st;
    post(ud, e);
}

/* sess_regen_n: alternative K of N begins. */
static void
cb_alt(void *ud, int k, int n)
{
    tui_event *e = ev_new(TUI_EV_ALT);

    e->phase = k;
    e->n_alt = n;
    post(ud, e);
}

/* The callbacks table the chat is created with (app.c); ud = the tui_worker. */
const chat_callbacks tui_worker_callbacks_proto = {
    .text = cb_text, .phase = cb_phase, .done = cb_done, .ud = NULL, .stats = cb_stats,
};

/* The runtime's note, on the worker thread during a job or on the UI thread
** in a runtime call while none runs (C-n, F5 and F8 retry a failed save):
** tagged with the job then, read where it is posted -- the UI thread may
** start another job before it drains this one (F5 starts the greeting's). */
void
tui_worker_note(void *ud, int is_err, const char *msg)
{
    tui_worker *w = ud;
    tui_event *e;

    watch_session(w);     /* (a reply job's thread: the UI's calls come while idle) */
    e = ev_new(TUI_EV_NOTE);
    e->text = tui_xstrdup(msg);
    e->len = strlen(msg);
    e->phase = is_err;
    e->job = w->job;
    post(w, e);
}

void
tui_worker_progress(void *ud, uint64_t done, uint64_t total)
{
    tui_worker *w = ud;
    tui_event *e = ev_new(TUI_EV_STATS);
    double now = mono_run_s();

    /* the rate since this replay's first report (the status line's bar
    ** says "0 tok/s" and no time left without it: a long replay after a
    ** crash is when the time left matters) */
    if (w->prog_t0 <= 0 || done < w->prog_last) {
        w->prog_t0 = now;
        w->prog_done0 = done;
    }
    w->prog_last = done;
    /* a replay's count, not a prompt's: the status line's token count
    ** holds it apart (tui_session_tokens_now: what a fork replays is the
    ** history, already counted) */
    e->phase = 1;
    e->stats.prefill_tokens = done;
    e->stats.prefill_total = total;
    if (now - w->prog_t0 >= 0.2 && done > w->prog_done0)
        e->stats.prefill_tps = (double)(done - w->prog_done0) / (now - w->prog_t0);
    post(w, e);
}

/* GEN / GEN_MORE: ChatRWKV's +gen and +++ (core/chat/freegen.h), from the start
** state in use (zeros or the state file), never saved.  Stopped by the
** client's cancel, from the moment the job was queued (tui_worker_start):
** one before this thread began stops it at its first step. */
static int
free_gen(tui_worker *w, rwkv_err *err)
{
    chat *c = sess_chat(w->sess);
    const rwkv_sampling *sp = chat_sampling(c);
    uint64_t seed = rng_mix(chat_seed(c, NULL) ^ rng_mix(++w->n_gen));
    const rwkv_state *st0;
    int rc;

    if (w->job == TUI_JOB_GEN_MORE) {
        if (w->gen == NULL)
            return rwkv_errf(err, RWKV_EINVAL,
                             "nothing to continue: M-g starts a free generation");
        return fgen_more(w->gen, sp, cb_text, w, &w->gen_cancel, NULL, err);
    }
    fgen_destroy(w->gen);
    w->gen = NULL;
    rc = sess_gen_start(w->sess, &st0, err);
    if (rc == RWKV_OK)
        rc = fgen_create(w->gen_model, w->gen_tok, st0, &w->gen, err);
    if (rc == RWKV_OK) {
        size_t n;
        const char *text = fgen_prompt_text(w->msg, &n);   /* "\n" escapes, as +gen */
        rc = fgen_start(w->gen, text, n, sp, seed, cb_text, w, &w->gen_cancel, NULL, err);
    }
    if (rc == RWKV_ECANCEL) {   /* cut while its prompt was fed: nothing to go on from */
        fgen_destroy(w->gen);
        w->gen = NULL;
    }
    return rc;
}

static void *
worker_main(void *arg)
{
    tui_worker *w = arg;
    tui_event *end = ev_new(TUI_EV_END);
    sess *s = w->sess;
    int rc = RWKV_OK;

    switch (w->job) {
    case TUI_JOB_SUBMIT:
        if (w->arg1 > 0)
            rc = sess_fork(s, w->arg1, NULL, &end->err);
        if (rc == RWKV_OK)
            rc = sess_submit(s, w->msg, strlen(w->msg), &end->err);
        if (rc == RWKV_OK)
            rc = sess_run(s, &end->err);
        sess_reply_sampling_end(s);    /* (sess_run did; not after a refused fork) */
        break;
    case TUI_JOB_REGEN:
        rc = sess_regen_n(s, w->arg1 > 0 ? (int)w->arg1 : 1, cb_alt, NULL, &end->err);
        break;
    case TUI_JOB_CONTINUE:
        rc = sess_continue(s, &end->err);
        if (rc == RWKV_OK)
            rc = sess_run(s, &end->err);
        break;
    case TUI_JOB_PRIME:
        rc = sess_prime(s, NULL, &end->err);
        break;
    case TUI_JOB_GEN:
    case TUI_JOB_GEN_MORE:
        rc = free_gen(w, &end->err);
        break;
    case TUI_JOB_OPEN:
        rc = sess_open(s, w->arg1, w->arg2, &end->err);
        break;
    case TUI_JOB_SIBLING:
        rc = sess_step_sibling(s, w->arg1, (int)w->arg2, &end->err);
        break;
    case TUI_JOB_SWITCH:
        rc = sess_switch_state(s, w->msg, w->arg1, (int)w->arg2, &end->err);
        break;
    default:
        break;
    }
    if (rc == RWKV_OK)
        watch_session(w);
    w->started = sess_started(s);
    end->rc = rc;
    post(w, end);
    return NULL;
}

int
tui_worker_start(tui_worker *w, sess *s, int job, char *msg, int64_t arg1, int64_t arg2)
{
    if (w->running)
        tui_worker_join(w);
    free(w->msg);
    w->msg = msg;
    w->sess = s;
    w->job = job;
    w->arg1 = arg1;
    w->arg2 = arg2;
    w->started = 0;
    w->prog_t0 = 0;              /* a replay's rate counts from its own start */
    w->seen_sid = sess_id(s);       /* no thread runs: the UI's to read */
    /* a cancel counts from here, before the thread begins, and one from
    ** before (sent while idle, or to the last job) is void: the client's
    ** (free generation) and, for the replays the runtime runs, its own
    ** (the cancel rule, storage/session.h; a reply's is set where it is
    ** sent: app.c, start_job) */
    w->gen_cancel = 0;
    if (job == TUI_JOB_OPEN || job == TUI_JOB_SIBLING || job == TUI_JOB_SWITCH)
        sess_expect_reply(s);
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
        /* the job will not run: its expectation (here, or the caller's:
        ** app.c, start_job) ends, or it held a cancel over the next one */
        sess_expect_clear(s);
        w->job = TUI_JOB_NONE;
        return -1;
    }
    w->running = 1;
    return 0;
}

void
tui_worker_join(tui_worker *w)
{
    if (w->running) {
        pthread_join(w->thread, NULL);
        w->running = 0;
    }
}

int
tui_worker_end(tui_worker *w)
{
    int job = w->job;

    tui_worker_join(w);
    w->job = TUI_JOB_NONE;
    return job;
}
