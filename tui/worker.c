/*
** worker.c -- the generation thread (house style G7).
**
** One job at a time runs on its own thread: SUBMIT (chat_submit+chat_run),
** REGEN (chat_regen+chat_run), PRIME (chat_prime).  The chat's callbacks run
** on that thread and only append events to a mutex-protected list and write
** one byte to a non-blocking pipe; the UI thread poll()s the pipe together
** with stdin, drains the list and draws.  The worker never calls curses,
** never touches the transcript or the store.  END is always the last event
** of a job; after it the UI thread joins the thread.
*/
#include "app.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "text.h"

int
tui_worker_init(tui_worker *w)
{
    int fds[2];

    memset(w, 0, sizeof *w);
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

static void
cb_text(void *ud, const char *text, size_t len)
{
    struct app *a = ud;
    tui_event *e = ev_new(TUI_EV_TEXT);

    e->text = tui_xstrndup(text, len);
    e->len = len;
    post(&a->w, e);
}

static void
cb_phase(void *ud, int phase)
{
    struct app *a = ud;
    tui_event *e = ev_new(TUI_EV_PHASE);

    e->phase = phase;
    post(&a->w, e);
}

static void
cb_done(void *ud, const chat_turn *t)
{
    struct app *a = ud;
    tui_event *e = ev_new(TUI_EV_DONE);

    e->stats = t->stats;
    e->stop = t->stop;
    post(&a->w, e);
}

static void
cb_stats(void *ud, const chat_stats *st)
{
    struct app *a = ud;
    tui_event *e = ev_new(TUI_EV_STATS);

    e->stats = *st;
    post(&a->w, e);
}

/* The callbacks table the chat is created with (app.c). */
const chat_callbacks tui_worker_callbacks_proto = {
    .text = cb_text, .phase = cb_phase, .done = cb_done, .ud = NULL, .stats = cb_stats,
};

static void *
worker_main(void *arg)
{
    struct app *a = arg;
    tui_event *end = ev_new(TUI_EV_END);
    int rc = RWKV_OK;

    switch (a->w.job) {
    case TUI_JOB_SUBMIT:
        rc = chat_submit(a->chat, a->w.msg, strlen(a->w.msg), &end->err);
        if (rc == RWKV_OK)
            rc = chat_run(a->chat, &end->err);
        break;
    case TUI_JOB_REGEN:
        rc = chat_regen(a->chat, &end->err);
        if (rc == RWKV_OK)
            rc = chat_run(a->chat, &end->err);
        break;
    case TUI_JOB_PRIME:
        rc = chat_prime(a->chat, &end->err);
        break;
    default:
        break;
    }
    end->rc = rc;
    post(&a->w, end);
    return NULL;
}

int
tui_worker_start(struct app *a, int job, char *msg)
{
    if (a->w.running)
        tui_worker_join(&a->w);
    free(a->w.msg);
    a->w.msg = msg;
    a->w.job = job;
    if (pthread_create(&a->w.thread, NULL, worker_main, a) != 0)
        return -1;
    a->w.running = 1;
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
