/*
** session.c -- the full-screen client's side of the session runtime
** (storage/session.h): it maps the runtime to the transcript.  Resume, save,
** regenerate, fork, sibling steps and state-file switches are the runtime's;
** the ones that may replay run on the worker thread (worker.c) with a
** progress bar and a cancel.  Here, on the UI thread and never while a job
** runs: the transcript rebuilt from the saved branch (with the notes kept
** for it: the run's and the model's at the top, a message's before its
** turn), sibling
** positions, and the library import of a state file.  Also where the UI
** starts a runtime job on the worker thread (tui_session_job, and the
** greeting's: tui_session_prime) and hands it the sidebar's sampling values.
*/
#include "app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/io/fileio.h"
#include "text.h"

void
tui_apply_sampling(struct app *a)
{
    if (a->sess && !a->busy) {
        sess_set_sampling(a->sess, &a->samp, a->samp_set);
        a->samp_pending = 0;
    }
}

void
tui_sampling_edited(struct app *a, unsigned bits)
{
    a->samp_set |= bits;
    if (a->busy)
        a->samp_pending |= bits;
    else
        tui_apply_sampling(a);
}

/*
** For the status line while an OPEN job (session SID, branch HEAD; < 0: its
** head) replays: the session's title and the tokens its branch holds -- the
** greeting's and every turn's, without a message that has no reply (the
** open goes on before it): store_branch_tokens, one query, not the branch
** the worker reads -- read now, on the UI thread: the runtime names the
** session only at the job's END (tui_session_sync).  The sidebar shows the
** session's sampling values from now on (sess_open_sampling), an edit made
** meanwhile winning at the end.  None for another job, or when the row
** cannot be read (the status line keeps the current session's then).
*/
static void
open_target(struct app *a, int job, int64_t sid, int64_t head)
{
    store_session ss;
    rwkv_sampling v = a->samp;
    unsigned set = a->samp_set;
    rwkv_err err;

    a->open_sid = 0;
    a->open_title[0] = '\0';
    a->open_tokens = 0;
    if (job != TUI_JOB_OPEN || a->st == NULL || sid <= 0 ||
        store_session_get(a->st, sid, &ss, &err) != RWKV_OK ||
        store_branch_tokens(a->st, head < 0 ? ss.head_turn : head, &a->open_tokens, &err)
        != RWKV_OK)
        return;
    a->open_sid = sid;
    snprintf(a->open_title, sizeof a->open_title, "%s", ss.title);
    if (sess_open_sampling(a->sess, a->st, sid, head < 0 ? ss.head_turn : head, &v, &set,
                           &err) == RWKV_OK) {
        a->samp = v;
        a->samp_set = set;
    }
}

int
tui_session_job(struct app *a, int job, int64_t arg1, int64_t arg2, const char *path)
{
    if (a->busy) {
        tui_notice(a, 1, "wait for the model to finish (Esc cancels it)");
        return -1;
    }
    a->busy = 1;
    a->job_noted = 0;
    a->job_line[0] = '\0';              /* (tui_notice_job) */
    a->job_lead = 0;
    a->phase = CHAT_PREFILL;             /* a replay shows the prefill bar */
    a->last_stats.prefill_tokens = a->last_stats.prefill_total = 0;
    a->stats_replay = 0;
    tui_edit_end(a, 0);
    open_target(a, job, arg1, arg2);
    if (tui_worker_start(&a->w, a->sess, job, path ? tui_xstrdup(path) : NULL, arg1, arg2)
        != 0) {
        a->busy = 0;
        tui_notice(a, 1, "could not start the worker thread");
        return -1;
    }
    a->dirty = 1;
    return 0;
}

void
tui_session_prime(struct app *a)
{
    if (chat_greeting_fed(a->chat) || chat_greeting(a->chat)[0] == '\0')
        return;
    a->busy = 1;
    a->phase = CHAT_PREFILL;
    if (tui_worker_start(&a->w, a->sess, TUI_JOB_PRIME, NULL, 0, 0) != 0) {
        /* the runtime feeds a greeting still pending with the first message */
        a->busy = 0;
        a->phase = CHAT_IDLE;
        tui_notice(a, 1, "could not start the worker thread: the greeting goes with the first "
                         "message");
    }
}

int
tui_session_swapping(struct app *a)
{
    if (!a->busy ||
        (a->w.job != TUI_JOB_OPEN && a->w.job != TUI_JOB_SIBLING && a->w.job != TUI_JOB_SWITCH))
        return 0;
    tui_notice(a, 1, "wait for the model to finish (Esc cancels it)");
    return 1;
}

void
tui_session_siblings(struct app *a, int64_t turn, int *index, int *count)
{
    store_turn t;
    rwkv_err err;
    int64_t *ids = NULL;
    size_t n = 0;

    *index = *count = 0;
    if (a->st == NULL || turn == 0 || store_turn_get(a->st, turn, &t, &err) != RWKV_OK)
        return;
    if (store_turn_children(a->st, t.session_id, t.parent_id, &ids, &n, &err) == RWKV_OK) {
        for (size_t i = 0; i < n; i++)
            if (ids[i] == turn)
                *index = (int)i + 1;
        *count = (int)n;
    }
    free(ids);
    store_turn_fini(&t);
}

/* ---- notes kept over a rebuild ------------------------------------------- */

/* Keep a note (not shown here): TEXT (LEN bytes) copied. */
static void
keep_note(struct app *a, int role, int64_t turn, const char *text, size_t len)
{
    tui_note *n;

    if (a->n_notes >= TUI_NOTES_MAX)
        return;                       /* shown, not kept (a run has a few) */
    n = &a->notes[a->n_notes++];
    n->role = role;
    n->turn = turn;
    n->text = tui_xmalloc(len + 1);
    memcpy(n->text, text, len);
    n->text[len] = '\0';
    n->len = len;
}

/* The kept notes of TURN go (the pending ones: a blank-line note may be
** said again, the message is back in the input box). */
static void
drop_notes(struct app *a, int64_t turn)
{
    int k = 0;

    for (int i = 0; i < a->n_notes; i++) {
        if (a->notes[i].turn == turn) {
            free(a->notes[i].text);
            if (turn == TUI_NOTE_PENDING)
                a->blank_noted = 0;
        } else {
            a->notes[k++] = a->notes[i];
        }
    }
    a->n_notes = k;
}

void
tui_session_note(struct app *a, int role, int64_t turn, const char *text, size_t len)
{
    tui_tr_add(&a->tr, role, text, len);
    keep_note(a, role, turn, text, len);
    if (role == TUI_TURN_ERROR) {         /* an error is in the log too (M-l) */
        char *s = tui_xmalloc(len + 1);
        memcpy(s, text, len);
        s[len] = '\0';
        tui_log_add(a, 1, s);
        free(s);
    }
}

void
tui_session_model_note(struct app *a, const char *text, size_t len)
{
    drop_notes(a, TUI_NOTE_MODEL);
    if (len > 0)
        keep_note(a, TUI_TURN_INFO, TUI_NOTE_MODEL, text, len);
}

void
tui_session_note_saved(struct app *a)
{
    int64_t user = 0, reply = 0;

    sess_last_ids(a->sess, &user, &reply);
    for (int i = 0; i < a->n_notes; i++)
        if (a->notes[i].turn == TUI_NOTE_PENDING && user > 0)
            a->notes[i].turn = user;
}

int
tui_session_has_note(const struct app *a, int64_t turn)
{
    for (int i = 0; i < a->n_notes; i++)
        if (a->notes[i].turn == turn)
            return 1;
    return 0;
}

void
tui_session_notes_fini(struct app *a)
{
    for (int i = 0; i < a->n_notes; i++)
        free(a->notes[i].text);
    a->n_notes = 0;
}

void
tui_session_notes_fork(struct app *a, int64_t turn, int64_t new_sid)
{
    store_session ns;
    int64_t *src = NULL, *dst = NULL;
    size_t n_src = 0, n_dst = 0;
    rwkv_err err;
    int n0 = a->n_notes;

    /* the copy holds the turns root..TURN in order (store_session_fork):
    ** its path and the original's pair up one for one */
    if (a->st != NULL && turn != 0 && store_session_get(a->st, new_sid, &ns, &err) == RWKV_OK &&
        ns.head_turn != 0 && store_turn_path(a->st, turn, &src, &n_src, &err) == RWKV_OK &&
        store_turn_path(a->st, ns.head_turn, &dst, &n_dst, &err) == RWKV_OK && n_src == n_dst)
        for (size_t i = 0; i < n_src; i++)
            for (int k = 0; k < n0; k++)
                if (a->notes[k].turn == src[i])
                    keep_note(a, a->notes[k].role, dst[i], a->notes[k].text, a->notes[k].len);
    free(src);
    free(dst);
}

/* Into the transcript: the kept notes that stand before saved turn TURN
** (TUI_NOTE_RUN: the notes at the top, the model's and the demo model's
** among them). */
static void
put_notes(struct app *a, int64_t turn)
{
    for (int i = 0; i < a->n_notes; i++) {
        const tui_note *n = &a->notes[i];
        if (n->turn == turn ||
            (turn == TUI_NOTE_RUN && (n->turn == TUI_NOTE_MODEL ||
                                      (n->turn == TUI_NOTE_DEMO && a->launch.demo))))
            tui_tr_add(&a->tr, n->role, n->text, n->len);
    }
}

/* An empty transcript but for the notes at the top (a message not saved
** loses its notes). */
static void
transcript_top(struct app *a)
{
    tui_tr_clear(&a->tr);
    drop_notes(a, TUI_NOTE_PENDING);
    put_notes(a, TUI_NOTE_RUN);
}

/* Refresh the sibling position shown on every saved turn's header. */
static void
refresh_siblings(struct app *a)
{
    for (int i = 0; i < a->tr.nturns; i++) {
        tui_turn *t = &a->tr.turns[i];
        if (t->store_id != 0)
            tui_session_siblings(a, t->store_id, &t->sib_index, &t->sib_count);
    }
    tui_tr_layout(&a->tr, a->tr.width);
}

/* The app's copies of the runtime's session, state, framing and sampling:
** what the screen shows of them is read here, while no job runs, never at a
** redraw -- a job may be replacing them then (tui_session_swapping). */
void
tui_session_sync(struct app *a)
{
    const framing *fr = sess_framing(a->sess);
    const rwkv_sampling mine = a->samp;

    a->chat = sess_chat(a->sess);
    a->sid = sess_id(a->sess);
    a->head = sess_head(a->sess);
    snprintf(a->session_title, sizeof a->session_title, "%s", sess_title(a->sess));
    snprintf(a->state_path, sizeof a->state_path, "%s", sess_state_label(a->sess));
    a->state_lib_id = sess_state_lib(a->sess);
    snprintf(a->fr_user, sizeof a->fr_user, "%s", fr->user);
    snprintf(a->fr_bot, sizeof a->fr_bot, "%s", fr->bot);
    a->fr_think = framing_think(fr);
    a->samp = *chat_sampling(a->chat);
    a->samp_set = chat_sampling_set(a->chat);
    /* what the user set while a job ran wins over what it brought */
    for (int i = 0; params_table[i].name != NULL; i++)
        if (a->samp_pending & PARAMS_BIT(i))
            params_copy(&a->samp, &mine, i);
    if (a->samp_pending)
        tui_sampling_edited(a, a->samp_pending);
    tui_session_tokens(a);
    a->dirty = 1;
}

void
tui_turn_stats(tui_turn *tu, uint64_t tokens, double prefill_tps, double decode_tps, int max_tokens)
{
    const char *cut = max_tokens ? TR(", max tokens") : "";

    if (prefill_tps > 0)
        snprintf(tu->stats, sizeof tu->stats, TR("%llu tok, prefill %.0f tok/s, decode %.1f tok/s%s"),
                 (unsigned long long)tokens, prefill_tps, decode_tps, cut);
    else
        snprintf(tu->stats, sizeof tu->stats, TR("%llu tok, decode %.1f tok/s%s"),
                 (unsigned long long)tokens, decode_tps, cut);
}

void
tui_session_tokens(struct app *a)
{
    size_t ng = 0;

    /* a greeting not fed yet goes first with the next message
    ** (chat_submit); with a state file there is none (0 tokens) */
    chat_greeting_ids(a->chat, &ng);
    a->ctx_greet_due = chat_greeting_fed(a->chat) ? 0 : ng;
    a->ctx_greeting = sess_holds_greeting(a->sess) ? ng : a->ctx_greet_due;
    a->ctx_tokens = a->ctx_greeting;
    for (size_t i = 0; i < chat_n_turns(a->chat); i++)
        a->ctx_tokens += chat_turn_at(a->chat, i)->n_prompt + chat_turn_at(a->chat, i)->n_reply;
}

const char *
tui_session_status_title(const struct app *a)
{
    int64_t sid = a->sid;
    const char *t = a->session_title;

    if (a->busy && a->w.job == TUI_JOB_OPEN && a->open_sid != 0) {
        sid = a->open_sid;             /* (open_target) */
        t = a->open_title;
    }
    return sid ? (t[0] ? t : TR("(untitled)")) : TR("new");
}

uint64_t
tui_session_tokens_now(const struct app *a)
{
    const chat_stats *ls = &a->last_stats;
    uint64_t n = a->ctx_greeting, fed = ls->prefill_tokens;
    int last;

    /* an open counts the branch it opens, not the tokens it replays so
    ** far nor the session it leaves (open_target) */
    if (a->busy && a->w.job == TUI_JOB_OPEN && a->open_sid != 0)
        return a->open_tokens;
    /* (a continuation goes on from the count at rest: its reply's tokens
    ** so far are not reported apart from those it had) */
    if (!a->busy || (a->w.job != TUI_JOB_SUBMIT && a->w.job != TUI_JOB_REGEN) ||
        a->reply_turn < 0 || a->reply_turn >= a->tr.nturns)
        return a->ctx_tokens;
    /* the exchanges before this one as the transcript holds them, up to
    ** the message replied to: a fork has dropped what it replaces, a reply
    ** a regeneration replaces may still sit between that message and the
    ** streaming turn until the first report, and the message sent has no
    ** count until it is done */
    last = a->reply_turn - 1;
    while (last >= 0 && a->tr.turns[last].role != TUI_TURN_USER)
        last--;
    for (int i = 0; i <= last; i++)
        n += a->tr.turns[i].ntok;
    /* the message as it is fed (after the greeting still due, counted
    ** above), then the reply so far; not the replay an edit's fork runs
    ** first (sess_fork: the history up to the message, counted above) */
    if (a->w.job == TUI_JOB_SUBMIT && !a->stats_replay && fed > a->ctx_greet_due)
        n += fed - a->ctx_greet_due;
    return n + ls->gen_tokens;
}

/* The transcript from the chat's records (nothing saved). */
static void
rebuild_from_chat(struct app *a)
{
    for (size_t i = 0; i < chat_n_turns(a->chat); i++) {
        const chat_turn *ct = chat_turn_at(a->chat, i);
        int k;
        k = tui_tr_add(&a->tr, TUI_TURN_USER, ct->user, ct->user_len);
        a->tr.turns[k].ntok = ct->n_prompt;
        k = tui_tr_add(&a->tr, TUI_TURN_ASSISTANT, ct->reply ? ct->reply : "", ct->reply_len);
        a->tr.turns[k].ntok = ct->n_reply;
        if (ct->interrupted)
            a->tr.turns[k].flags |= TUI_TURN_INTERRUPTED;
    }
}

/* The status line's speeds are the last reply's: after an open or a
** switch of branch, the last reply shown (LAST, to the message ASKED; its
** saved speeds), none when it has none -- not those of a reply on another
** branch or in another session. */
static void
shown_speeds(struct app *a, const store_turn *last, const store_turn *asked)
{
    chat_stats *ls = &a->last_stats;

    if (a->busy)
        return;                       /* a job's own counts are in there */
    ls->prefill_tps = last ? last->prefill_tps : 0;
    ls->decode_tps = last ? last->decode_tps : 0;
    ls->prefill_tokens = ls->prefill_tps > 0 && asked ? asked->n_tokens : 0;
    ls->gen_tokens = last && last->decode_tps > 0 ? last->n_tokens : 0;
    ls->prefill_total = 0;
}

void
tui_session_rebuild(struct app *a)
{
    store_turn *turns = NULL;
    size_t n = 0;
    rwkv_err err;

    tui_session_sync(a);
    transcript_top(a);
    if (a->st == NULL || a->sid == 0 || a->head == 0) {
        rebuild_from_chat(a);
    } else if (store_branch_read(a->st, a->head, &turns, &n, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        rebuild_from_chat(a);
    } else {
        const store_turn *last = NULL, *asked = NULL;
        for (size_t i = 0; i < n; i++) {
            const store_turn *t = &turns[i];
            int k;
            if (t->role == STORE_ROLE_SYSTEM)
                continue;
            if (t->role == STORE_ROLE_ASSISTANT) {
                last = t;
                asked = i > 0 && turns[i - 1].role == STORE_ROLE_USER ? &turns[i - 1] : NULL;
            }
            put_notes(a, t->id);
            k = tui_tr_add(&a->tr, t->role == STORE_ROLE_USER ? TUI_TURN_USER : TUI_TURN_ASSISTANT,
                           t->text, strlen(t->text));
            a->tr.turns[k].store_id = t->id;
            a->tr.turns[k].ntok = t->n_tokens;
            if (t->role == STORE_ROLE_ASSISTANT && t->interrupted)
                a->tr.turns[k].flags |= TUI_TURN_INTERRUPTED;
            if (t->role == STORE_ROLE_ASSISTANT && t->decode_tps > 0)
                tui_turn_stats(&a->tr.turns[k], t->n_tokens, t->prefill_tps, t->decode_tps, 0);
        }
        shown_speeds(a, last, asked);
        store_branch_free(turns, n);
    }
    refresh_siblings(a);
    tui_tr_scroll_end(&a->tr);
}

void
tui_session_mark_reply(struct app *a)
{
    int64_t user = 0, reply = 0;

    tui_session_sync(a);
    sess_last_ids(a->sess, &user, &reply);
    if (chat_n_turns(a->chat) > 0 && a->reply_turn >= 1 && a->reply_turn < a->tr.nturns) {
        const chat_turn *ct = chat_turn_at(a->chat, chat_n_turns(a->chat) - 1);
        a->tr.turns[a->reply_turn].ntok = ct->n_reply;
        if (a->tr.turns[a->reply_turn - 1].role == TUI_TURN_USER)
            a->tr.turns[a->reply_turn - 1].ntok = ct->n_prompt;
    }
    if (a->reply_turn >= 0 && a->reply_turn < a->tr.nturns && reply != 0)
        a->tr.turns[a->reply_turn].store_id = reply;
    if (a->reply_turn >= 1 && a->tr.turns[a->reply_turn - 1].role == TUI_TURN_USER && user != 0)
        a->tr.turns[a->reply_turn - 1].store_id = user;
    refresh_siblings(a);
}

void
tui_session_fresh(struct app *a)
{
    transcript_top(a);
    tui_edit_end(a, 0);
    tui_session_sync(a);
}

void
tui_session_new(struct app *a)
{
    rwkv_err err;

    tui_unsaved_saving(a);            /* its try may wait for a lock */
    if (sess_new(a->sess, &err) != RWKV_OK) {
        /* queued after the runtime's notes of that try: the last word */
        tui_worker_note(&a->w, 1, err.msg);
        return;
    }
    tui_session_fresh(a);
    tui_notice(a, 0, "new session");
    /* as at a start and after a model switch: the greeting is fed now, not
    ** with the first message (whose prefill would hold it) */
    tui_session_prime(a);
}

int
tui_session_read_file(const char *path, size_t max, char **out, size_t *len, rwkv_err *err)
{
    FILE *fp = NULL;
    long size;

    *out = NULL;
    *len = 0;
    if (rwkv_fopen_regular(path, &fp, err) != RWKV_OK)    /* never a FIFO */
        return -1;
    if (fseek(fp, 0, SEEK_END) != 0 || (size = ftell(fp)) < 0 || (unsigned long)size > max ||
        fseek(fp, 0, SEEK_SET) != 0) {
        fclose(fp);
        rwkv_errf(err, RWKV_EIO, "%s: cannot read (or larger than %zu MiB)", path, max >> 20);
        return -1;
    }
    *out = tui_xmalloc((size_t)size + 1);
    if (fread(*out, 1, (size_t)size, fp) != (size_t)size) {
        fclose(fp);
        free(*out);
        *out = NULL;
        rwkv_errf(err, RWKV_EIO, "%s: short read", path);
        return -1;
    }
    fclose(fp);
    (*out)[size] = '\0';
    *len = (size_t)size;
    return 0;
}

int
tui_session_import_state(struct app *a, const char *path, int64_t *id)
{
    const rwkv_info *inf = rwkv_model_info(a->model);
    store_statefile f;
    rwkv_state *s = NULL;
    rwkv_err err;
    char *data = NULL;
    size_t size;

    *id = 0;
    if (a->st == NULL) {
        tui_notice(a, 1, "no session database (--no-db): nothing to import into");
        return -1;
    }
    /* it must load for this model: the shapes recorded are the model's */
    if (rwkv_state_create(a->model, &s, &err) != RWKV_OK ||
        rwkv_state_load_file(a->model, path, s, &err) != RWKV_OK ||
        tui_session_read_file(path, TUI_STATE_IMPORT_MAX, &data, &size, &err) != 0) {
        rwkv_state_destroy(s);
        tui_notice(a, 1, "%s", err.msg);
        return -1;
    }
    rwkv_state_destroy(s);
    store_statefile_from_path(&f, path);
    f.path[0] = '\0';                  /* imported: the bytes, not the path */
    f.data = data;
    f.size = size;
    f.n_layer = inf->n_layer;
    f.n_embd = inf->n_embd;
    f.n_head = inf->n_head;
    f.head_size = inf->head_size;
    if (store_statefile_add(a->st, &f, id, &err) != RWKV_OK) {
        tui_notice(a, 1, "importing %s into the library: %s", f.name, err.msg);
        free(data);
        return -1;
    }
    free(data);
    tui_notice(a, 0, "imported %s into the library (%zu KiB)", f.name, (size + 1023) / 1024);
    return 0;
}

/* ChatRWKV's free generation (M-g, M-+): outside the conversation, not
** saved; the worker runs it on the model in use. */
void
tui_free_gen(struct app *a, const char *prompt)
{
    const char *head = TR("free generation (not saved): ");
    size_t hl = strlen(head);

    if (a->busy) {
        tui_notice(a, 1, "wait for the model to finish (Esc cancels it)");
        return;
    }
    if (prompt == NULL && a->w.gen == NULL) {
        tui_notice(a, 1, "nothing to continue: M-g starts a free generation");
        return;
    }
    if (prompt != NULL) {
        char *t = tui_xmalloc(hl + strlen(prompt) + 1);
        memcpy(t, head, hl);
        strcpy(t + hl, prompt);
        a->reply_turn = tui_tr_add(&a->tr, TUI_TURN_INFO, t, strlen(t));
        free(t);
    } else {
        const char *cont = TR("(continued) ");
        a->reply_turn = tui_tr_add(&a->tr, TUI_TURN_INFO, cont, strlen(cont));
    }
    a->tr.turns[a->reply_turn].flags |= TUI_TURN_STREAMING;
    tui_tr_scroll_end(&a->tr);
    tui_apply_sampling(a);
    a->w.gen_model = a->model;
    a->w.gen_tok = a->tok;
    a->busy = 1;
    a->phase = CHAT_GENERATING;
    if (tui_worker_start(&a->w, a->sess, prompt ? TUI_JOB_GEN : TUI_JOB_GEN_MORE,
                         prompt ? tui_xstrdup(prompt) : NULL, 0, 0) != 0) {
        a->busy = 0;
        tui_notice(a, 1, "could not start the generation thread");
    }
    a->dirty = 1;
}
