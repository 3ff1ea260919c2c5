/*
** session.c -- the TUI's side of the session store (storage/store.h): save
** every turn as it completes, resume a session (transcript + model state),
** step between sibling branches, start over from a state file.
**
** Layout of a session in the store (see the integration note in store.h):
**   [system: the demo greeting, its ids]   only when a greeting was fed
**     user  (tokens = prompt ids fed; snapshot = state before the reply)
**       assistant (tokens = reply ids; snapshot = state after it)
**         user ...
** A regenerated reply is a sibling assistant turn under the same user turn;
** an edited earlier message is a sibling user turn under that message's
** parent.  Runs on the UI thread only, and never while a job runs.
*/
#include "app.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text.h"

/*
** A loadable path for library row F: its own path when referenced (DATA
** NULL), else a temporary file holding the imported DATA, named with the
** original's extension (the loader tells .pth from .safetensors by it);
** the caller unlinks it.  0, or -1 with ERR.
*/
static int
lib_path(const store_statefile *f, const void *data, char *out, size_t cap, rwkv_err *err)
{
    const char *dot = strrchr(f->name, '.');
    const char *tmpdir = getenv("TMPDIR");
    char suffix[32];
    int fd;
    size_t off = 0;

    if (data == NULL) {
        if (f->path[0] == '\0') {
            rwkv_errf(err, RWKV_EINVAL, "state file '%s' has neither a path nor data", f->name);
            return -1;
        }
        snprintf(out, cap, "%s", f->path);
        return 0;
    }
    snprintf(suffix, sizeof suffix, "%s", dot && strlen(dot) < sizeof suffix ? dot : ".pth");
    snprintf(out, cap, "%s/rwkv-tui-state-XXXXXX%s", tmpdir && *tmpdir ? tmpdir : "/tmp", suffix);
    fd = mkstemps(out, (int)strlen(suffix));
    if (fd < 0) {
        rwkv_errf(err, RWKV_EIO, "%s: %s", out, strerror(errno));
        return -1;
    }
    while (off < f->size) {
        ssize_t w = write(fd, (const char *)data + off, f->size - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            rwkv_errf(err, RWKV_EIO, "%s: %s", out, w < 0 ? strerror(errno) : "short write");
            close(fd);
            unlink(out);
            return -1;
        }
        off += (size_t)w;
    }
    close(fd);
    return 0;
}

static void
state_meta(const struct app *a, store_state_meta *m)
{
    store_meta_from_info(m, rwkv_model_info(a->model));
}

void
tui_session_model_row(struct app *a)
{
    const rwkv_info *inf = rwkv_model_info(a->model);
    store_model m;
    rwkv_err err;
    const char *path = a->launch.demo ? "(demo)" : (a->launch.model ? a->launch.model
                                                                   : a->cfg.model);

    if (a->st == NULL)
        return;
    store_model_from_info(&m, path, inf);
    if (store_model_upsert(a->st, &m, &a->model_id, &err) != RWKV_OK)
        tui_notice(a, 1, "%s", err.msg);
}

static int64_t
statefile_id(struct app *a)
{
    store_statefile f;
    int64_t id = 0;
    rwkv_err err;

    if (a->state_path[0] == '\0')
        return 0;
    if (a->state_lib_id != 0)
        return a->state_lib_id;        /* loaded from the library */
    store_statefile_from_path(&f, a->state_path);
    if (store_statefile_add(a->st, &f, &id, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return 0;
    }
    return id;
}

/* Create the session row (and the greeting's root turn) on first save. */
static int
ensure_session(struct app *a, const char *first_msg)
{
    store_session s;
    rwkv_err err;
    size_t n = 0;
    const int32_t *gids;

    if (a->sid != 0)
        return 0;
    memset(&s, 0, sizeof s);
    {
        /* title: the first line of the first message, at most 60 bytes on a
         * character boundary */
        size_t len = strcspn(first_msg, "\n");
        if (len > 60) {
            len = 60;
            while (len > 0 && ((unsigned char)first_msg[len] & 0xC0) == 0x80)
                len--;
        }
        snprintf(s.title, sizeof s.title, "%.*s", (int)len, first_msg);
    }
    s.model_id = a->model_id;
    s.state_file_id = statefile_id(a);
    snprintf(s.strategy, sizeof s.strategy, "%s", rwkv_model_info(a->model)->strategy);
    if (store_session_new(a->st, &s, &a->sid, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return -1;
    }
    snprintf(a->session_title, sizeof a->session_title, "%s", s.title);
    a->head = 0;
    gids = chat_greeting_ids(a->chat, &n);
    if (chat_greeting_fed(a->chat) && n > 0) {
        store_turn t;
        store_state_meta meta;
        const rwkv_state *start = chat_state_start(a->chat);

        memset(&t, 0, sizeof t);
        t.session_id = a->sid;
        t.role = STORE_ROLE_SYSTEM;
        t.text = chat_greeting(a->chat);
        t.tokens = gids;
        t.n_tokens = n;
        state_meta(a, &meta);
        if (store_turn_append(a->st, &t, rwkv_state_cdata(start), rwkv_state_len(start),
                              &meta, &err) != RWKV_OK) {
            tui_notice(a, 1, "%s", err.msg);
            return -1;
        }
        a->head = t.id;
    }
    a->greet_pending = 0;
    return 0;
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

void
tui_session_save_reply(struct app *a, int interrupted)
{
    size_t n = chat_n_turns(a->chat);
    const chat_turn *ct;
    store_turn u, r;
    store_state_meta meta;
    rwkv_err err;
    int job = a->w.job;
    int user_idx = a->reply_turn - 1;
    const rwkv_state *before, *after;

    if (a->st == NULL || n == 0 || n <= a->turns_before)
        return;                          /* nothing recorded (cancelled in prefill) */
    ct = chat_turn_at(a->chat, n - 1);
    state_meta(a, &meta);
    if (job == TUI_JOB_SUBMIT) {
        if (ensure_session(a, ct->user) != 0)
            return;
        memset(&u, 0, sizeof u);
        u.session_id = a->sid;
        u.parent_id = a->head;
        u.role = STORE_ROLE_USER;
        u.text = ct->user;
        u.tokens = ct->prompt_ids;
        u.n_tokens = ct->n_prompt;
        before = chat_state_before_reply(a->chat);
        if (store_turn_append(a->st, &u, before ? rwkv_state_cdata(before) : NULL,
                              before ? rwkv_state_len(before) : 0, &meta, &err) != RWKV_OK) {
            tui_notice(a, 1, "saving: %s", err.msg);
            return;
        }
        if (user_idx >= 0 && user_idx < a->tr.nturns)
            a->tr.turns[user_idx].store_id = u.id;
    } else {
        /* REGEN: a sibling under the same user turn */
        if (a->sid == 0 || user_idx < 0 || a->tr.turns[user_idx].store_id == 0)
            return;
        u.id = a->tr.turns[user_idx].store_id;
    }
    memset(&r, 0, sizeof r);
    r.session_id = a->sid;
    r.parent_id = u.id;
    r.role = STORE_ROLE_ASSISTANT;
    r.text = ct->reply;
    r.tokens = ct->reply_ids;
    r.n_tokens = ct->n_reply;
    r.has_sampling = 1;
    r.sampling = ct->samp;
    r.prefill_tps = ct->stats.prefill_tps;
    r.decode_tps = ct->stats.decode_tps;
    r.interrupted = interrupted;
    after = chat_state(a->chat);
    if (store_turn_append(a->st, &r, rwkv_state_cdata(after), rwkv_state_len(after), &meta,
                          &err) != RWKV_OK) {
        tui_notice(a, 1, "saving: %s", err.msg);
        return;
    }
    a->head = r.id;
    if (a->reply_turn >= 0 && a->reply_turn < a->tr.nturns)
        a->tr.turns[a->reply_turn].store_id = r.id;
    refresh_siblings(a);
}

/* Feed N tokens into S in chunks (replay). */
static int
feed(struct app *a, const int32_t *ids, size_t n, rwkv_state *s, rwkv_err *err)
{
    size_t chunk = a->samp.chunk > 0 ? (size_t)a->samp.chunk : 256;

    for (size_t i = 0; i < n; i += chunk) {
        size_t k = n - i < chunk ? n - i : chunk;
        int rc = rwkv_eval(a->model, ids + i, k, s, NULL, err);
        if (rc != RWKV_OK)
            return rc;
    }
    return RWKV_OK;
}

/*
** The model state after TURN (0 = the session's initial state) into S: the
** nearest usable snapshot plus a replay of the tokens after it.  NOTE gets
** the store's reason for skipping a snapshot; *REPLAYED the tokens fed.
*/
static int
state_at(struct app *a, const store_session *ss, int64_t turn, rwkv_state *s, char *note,
         size_t note_cap, size_t *replayed)
{
    store_state_meta meta;
    store_plan plan;
    rwkv_err err;
    int rc = -1;

    memset(&plan, 0, sizeof plan);
    *replayed = 0;
    state_meta(a, &meta);
    if (turn != 0) {
        if (store_state_restore(a->st, turn, &meta, rwkv_state_data(s), rwkv_state_len(s), &plan,
                                &err) != RWKV_OK) {
            tui_notice(a, 1, "%s", err.msg);
            goto out;
        }
        if (note && plan.note[0])
            snprintf(note, note_cap, "%s", plan.note);
    }
    if (plan.base_turn == 0) {
        rwkv_state_reset(a->model, s);
        if (ss->state_file_id != 0) {
            store_statefile f;
            void *data = NULL;
            char tmp[STORE_PATH_MAX + 64];
            if (store_statefile_get(a->st, ss->state_file_id, &f, &data, &err) == RWKV_OK &&
                lib_path(&f, data, tmp, sizeof tmp, &err) == 0 &&
                rwkv_state_load_file(a->model, tmp, s, &err) == RWKV_OK) {
                if (data) {
                    a->state_lib_id = f.id;
                    snprintf(a->state_path, sizeof a->state_path, "%.200s", f.name);
                } else {
                    a->state_lib_id = 0;
                    snprintf(a->state_path, sizeof a->state_path, "%.1000s", f.path);
                }
            } else {
                tui_notice(a, 1, "state file of this session: %s", err.msg);
            }
            if (data)
                unlink(tmp);
            free(data);
        }
    }
    if (plan.n_tokens > 0 && feed(a, plan.tokens, plan.n_tokens, s, &err) != RWKV_OK) {
        tui_notice(a, 1, "replay: %s", err.msg);
        goto out;
    }
    *replayed = plan.n_tokens;
    rc = 0;
out:
    store_plan_fini(&plan);
    return rc;
}

int
tui_session_load(struct app *a, int64_t sid, int64_t head)
{
    store_session ss;
    rwkv_err err;
    int64_t *ids = NULL;
    size_t n = 0;
    store_turn *turns = NULL;
    rwkv_state *s = NULL;
    size_t replayed = 0;
    int rc = -1, need_sep = 0;
    char note[300] = "";

    if (a->st == NULL)
        return -1;
    if (a->busy) {
        tui_notice(a, 1, "wait for the model to finish (Esc cancels a reply)");
        return -1;
    }
    if (store_session_get(a->st, sid, &ss, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return -1;
    }
    if (head < 0)
        head = ss.head_turn;
    if (head != 0 && store_turn_path(a->st, head, &ids, &n, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return -1;
    }
    turns = tui_xmalloc((n ? n : 1) * sizeof *turns);
    memset(turns, 0, (n ? n : 1) * sizeof *turns);
    for (size_t i = 0; i < n; i++) {
        if (store_turn_get(a->st, ids[i], &turns[i], &err) != RWKV_OK) {
            tui_notice(a, 1, "%s", err.msg);
            goto out;
        }
    }
    /* the model state after HEAD: nearest snapshot + replay */
    if (rwkv_state_create(a->model, &s, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        goto out;
    }
    if (state_at(a, &ss, head, s, note, sizeof note, &replayed) != 0)
        goto out;
    /* the chat: its turn records, then the state */
    chat_reset(a->chat);
    tui_tr_clear(&a->tr);
    for (size_t i = 0; i < n; i++) {
        store_turn *t = &turns[i];
        if (t->role == STORE_ROLE_USER) {
            chat_turn ct;
            memset(&ct, 0, sizeof ct);
            ct.user = (char *)t->text;
            ct.user_len = strlen(t->text);
            ct.prompt_ids = (int32_t *)t->tokens;
            ct.n_prompt = t->n_tokens;
            ct.samp = a->samp;
            if (i + 1 < n && turns[i + 1].role == STORE_ROLE_ASSISTANT) {
                store_turn *r = &turns[i + 1];
                ct.reply = (char *)r->text;
                ct.reply_len = strlen(r->text);
                ct.reply_ids = (int32_t *)r->tokens;
                ct.n_reply = r->n_tokens;
                if (r->has_sampling)
                    ct.samp = r->sampling;
                ct.interrupted = r->interrupted;   /* chat_push_turn works out ct.stop */
            }
            if (chat_push_turn(a->chat, &ct, &err) != RWKV_OK) {
                tui_notice(a, 1, "%s", err.msg);
                goto out;
            }
            tui_tr_add(&a->tr, TUI_TURN_USER, t->text, strlen(t->text));
            a->tr.turns[a->tr.nturns - 1].store_id = t->id;
        } else if (t->role == STORE_ROLE_ASSISTANT) {
            int k = tui_tr_add(&a->tr, TUI_TURN_ASSISTANT, t->text, strlen(t->text));
            a->tr.turns[k].store_id = t->id;
            if (t->interrupted)
                a->tr.turns[k].flags |= TUI_TURN_INTERRUPTED;
            if (t->decode_tps > 0)
                snprintf(a->tr.turns[k].stats, sizeof a->tr.turns[k].stats,
                         "%zu tok, prefill %.0f tok/s, decode %.1f tok/s", t->n_tokens,
                         t->prefill_tps, t->decode_tps);
        }
    }
    if (n > 0) {
        store_turn *last = &turns[n - 1];
        need_sep = last->role == STORE_ROLE_ASSISTANT && chat_n_turns(a->chat) > 0
                       ? chat_turn_at(a->chat, chat_n_turns(a->chat) - 1)->stop != CHAT_STOP_STRING
                       : 0;
    }
    /* the sampling values stored with the session's last reply come back
     * (the seed stays as it is: each reply draws its own) */
    for (size_t i = n; i > 0; i--) {
        if (turns[i - 1].role == STORE_ROLE_ASSISTANT && turns[i - 1].has_sampling) {
            int si = params_find("seed");
            uint64_t seed = a->samp.seed;
            a->samp = turns[i - 1].sampling;
            a->samp.seed = seed;
            for (int k = 0; params_table[k].name != NULL; k++)
                if (k != si)
                    a->samp_set |= PARAMS_BIT(k);
            chat_set_sampling(a->chat, &a->samp, a->samp_set);
            break;
        }
    }
    chat_restore_state(a->chat, s, need_sep);
    /* the state before the last prompt, so that regenerate works at once */
    for (size_t i = n; i > 0; i--) {
        if (turns[i - 1].role == STORE_ROLE_USER) {
            size_t r2;
            if (state_at(a, &ss, turns[i - 1].parent_id, s, NULL, 0, &r2) == 0)
                chat_set_turn_start(a->chat, s);
            break;
        }
    }
    if (store_session_set_head(a->st, sid, head, &err) != RWKV_OK)
        tui_notice(a, 1, "%s", err.msg);
    a->sid = sid;
    a->head = head;
    a->fork_pending = 0;
    a->greet_pending = 0;
    snprintf(a->session_title, sizeof a->session_title, "%s", ss.title);
    refresh_siblings(a);
    tui_tr_scroll_end(&a->tr);
    if (note[0])
        tui_notice(a, 0, "%s", note);
    else if (replayed > 0)
        tui_notice(a, 0, "resumed '%s' (replayed %zu tokens)", ss.title, replayed);
    else
        tui_notice(a, 0, "resumed '%s'", ss.title);
    rc = 0;
out:
    rwkv_state_destroy(s);
    for (size_t i = 0; i < n; i++)
        store_turn_fini(&turns[i]);
    free(turns);
    free(ids);
    a->dirty = 1;
    return rc;
}

void
tui_session_new(struct app *a)
{
    chat_reset(a->chat);
    tui_tr_clear(&a->tr);
    a->sid = 0;
    a->head = 0;
    a->fork_pending = 0;
    a->session_title[0] = '\0';
    tui_notice(a, 0, "new session");
}

int
tui_session_step_sibling(struct app *a, int64_t turn, int dir)
{
    store_turn t;
    rwkv_err err;
    int64_t *ids = NULL, leaf = 0;
    size_t n = 0;
    long pos = -1;
    int rc = -1;

    if (a->busy) {
        tui_notice(a, 1, "wait for the model to finish (Esc cancels a reply)");
        return -1;
    }
    if (a->st == NULL || store_turn_get(a->st, turn, &t, &err) != RWKV_OK)
        return -1;
    if (store_turn_children(a->st, t.session_id, t.parent_id, &ids, &n, &err) == RWKV_OK) {
        for (size_t i = 0; i < n; i++)
            if (ids[i] == turn)
                pos = (long)i;
        if (pos >= 0 && pos + dir >= 0 && pos + dir < (long)n) {
            if (store_branch_leaf(a->st, ids[pos + dir], &leaf, &err) == RWKV_OK)
                rc = tui_session_load(a, t.session_id, leaf);
            else
                tui_notice(a, 1, "%s", err.msg);
        } else {
            tui_notice(a, 0, "no %s sibling", dir < 0 ? "previous" : "next");
        }
    }
    free(ids);
    store_turn_fini(&t);
    return rc;
}

long
tui_session_replay_cost(struct app *a)
{
    long cost = 0;

    for (size_t i = 0; i < chat_n_turns(a->chat); i++) {
        const chat_turn *t = chat_turn_at(a->chat, i);
        cost += (long)(t->n_prompt + t->n_reply);
    }
    return cost;
}

int
tui_session_switch_state(struct app *a, const char *path, int replay)
{
    rwkv_err err;
    size_t n = chat_n_turns(a->chat);
    chat_turn *saved = NULL;
    int rc = -1;

    if (a->busy) {
        tui_notice(a, 1, "wait for the model to finish (Esc cancels a reply)");
        return -1;
    }
    if (replay && n > 0) {
        /* keep copies of the records: chat_load_state_file drops them */
        saved = tui_xmalloc(n * sizeof *saved);
        for (size_t i = 0; i < n; i++) {
            const chat_turn *t = chat_turn_at(a->chat, i);
            saved[i] = *t;
            saved[i].user = tui_xstrndup(t->user, t->user_len);
            saved[i].reply = tui_xstrndup(t->reply ? t->reply : "", t->reply_len);
            saved[i].prompt_ids = tui_xmalloc((t->n_prompt + 1) * sizeof(int32_t));
            memcpy(saved[i].prompt_ids, t->prompt_ids, t->n_prompt * sizeof(int32_t));
            saved[i].reply_ids = tui_xmalloc((t->n_reply + 1) * sizeof(int32_t));
            memcpy(saved[i].reply_ids, t->reply_ids, t->n_reply * sizeof(int32_t));
        }
    }
    if (chat_load_state_file(a->chat, path, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        a->pending_lib_id = 0;
        goto out;
    }
    a->state_lib_id = a->pending_lib_id;    /* the library's row, or 0: by path */
    a->pending_lib_id = 0;
    snprintf(a->state_path, sizeof a->state_path, "%s", a->state_lib_id ? a->lib_name : path);
    a->samp = *chat_sampling(a->chat);
    a->samp_set = chat_sampling_set(a->chat);
    a->sid = 0;
    a->head = 0;
    a->session_title[0] = '\0';
    a->greet_pending = 0;
    if (!replay || n == 0) {
        tui_tr_clear(&a->tr);
        tui_notice(a, 0, "new session from state %s", a->state_path);
        rc = 0;
        goto out;
    }
    {
        rwkv_state *s = NULL;
        store_state_meta meta;
        size_t total = 0;

        if (rwkv_state_create(a->model, &s, &err) != RWKV_OK) {
            tui_notice(a, 1, "%s", err.msg);
            goto out;
        }
        rwkv_state_copy(s, chat_state(a->chat));
        state_meta(a, &meta);
        for (size_t i = 0; i < n; i++) {
            /* the old prompts; a leading "\n\n" stays as it was fed */
            if (feed(a, saved[i].prompt_ids, saved[i].n_prompt, s, &err) != RWKV_OK ||
                feed(a, saved[i].reply_ids, saved[i].n_reply, s, &err) != RWKV_OK ||
                chat_push_turn(a->chat, &saved[i], &err) != RWKV_OK) {
                tui_notice(a, 1, "replay: %s", err.msg);
                rwkv_state_destroy(s);
                goto out;
            }
            total += saved[i].n_prompt + saved[i].n_reply;
            if (a->st) {
                store_turn u, r;
                int last = i + 1 == n;
                if (ensure_session(a, saved[0].user) != 0)
                    break;
                memset(&u, 0, sizeof u);
                u.session_id = a->sid;
                u.parent_id = a->head;
                u.role = STORE_ROLE_USER;
                u.text = saved[i].user;
                u.tokens = saved[i].prompt_ids;
                u.n_tokens = saved[i].n_prompt;
                if (store_turn_append(a->st, &u, NULL, 0, &meta, &err) != RWKV_OK)
                    break;
                memset(&r, 0, sizeof r);
                r.session_id = a->sid;
                r.parent_id = u.id;
                r.role = STORE_ROLE_ASSISTANT;
                r.text = saved[i].reply;
                r.tokens = saved[i].reply_ids;
                r.n_tokens = saved[i].n_reply;
                r.has_sampling = 1;
                r.sampling = saved[i].samp;
                r.interrupted = saved[i].interrupted;
                if (store_turn_append(a->st, &r, last ? rwkv_state_cdata(s) : NULL,
                                      last ? rwkv_state_len(s) : 0, &meta, &err) != RWKV_OK)
                    break;
                a->head = r.id;
            }
        }
        chat_restore_state(a->chat, s, saved[n - 1].stop != CHAT_STOP_STRING);
        rwkv_state_destroy(s);
        /* the transcript stays; its turns now live in the new session */
        if (a->sid != 0) {
            int64_t *ids = NULL;
            size_t np = 0;
            if (store_turn_path(a->st, a->head, &ids, &np, &err) == RWKV_OK) {
                size_t k = 0;
                for (int i = 0; i < a->tr.nturns; i++) {
                    tui_turn *t = &a->tr.turns[i];
                    if (t->role != TUI_TURN_USER && t->role != TUI_TURN_ASSISTANT)
                        continue;
                    t->store_id = k < np ? ids[k++] : 0;
                }
            }
            free(ids);
            refresh_siblings(a);
        }
        tui_notice(a, 0, "replayed %zu tokens under state %s", total, a->state_path);
    }
    rc = 0;
out:
    if (saved) {
        for (size_t i = 0; i < n; i++) {
            free(saved[i].user);
            free(saved[i].reply);
            free(saved[i].prompt_ids);
            free(saved[i].reply_ids);
        }
        free(saved);
    }
    a->dirty = 1;
    return rc;
}

int
tui_session_switch_library(struct app *a, int64_t id, int replay)
{
    store_statefile f;
    void *data = NULL;
    char path[STORE_PATH_MAX + 64];
    rwkv_err err;
    int rc;

    if (a->st == NULL)
        return -1;
    if (store_statefile_get(a->st, id, &f, &data, &err) != RWKV_OK ||
        lib_path(&f, data, path, sizeof path, &err) != 0) {
        free(data);
        tui_notice(a, 1, "%s", err.msg);
        return -1;
    }
    if (data) {                       /* imported: the row is the identity */
        a->pending_lib_id = id;
        snprintf(a->lib_name, sizeof a->lib_name, "%s", f.name);
    } else {
        a->pending_lib_id = 0;
    }
    rc = tui_session_switch_state(a, path, replay);
    if (data)
        unlink(path);
    free(data);
    return rc;
}

int
tui_session_import_state(struct app *a, const char *path, int64_t *id)
{
    const rwkv_info *inf = rwkv_model_info(a->model);
    store_statefile f;
    rwkv_state *s = NULL;
    rwkv_err err;
    FILE *fp = NULL;
    char *data = NULL;
    long size;

    *id = 0;
    if (a->st == NULL) {
        tui_notice(a, 1, "no session database (--no-db): nothing to import into");
        return -1;
    }
    /* it must load for this model: the shapes recorded are the model's */
    if (rwkv_state_create(a->model, &s, &err) != RWKV_OK ||
        rwkv_state_load_file(a->model, path, s, &err) != RWKV_OK) {
        rwkv_state_destroy(s);
        tui_notice(a, 1, "%s", err.msg);
        return -1;
    }
    rwkv_state_destroy(s);
    fp = fopen(path, "rb");
    if (fp == NULL || fseek(fp, 0, SEEK_END) != 0 || (size = ftell(fp)) < 0 ||
        (unsigned long)size > TUI_STATE_IMPORT_MAX || fseek(fp, 0, SEEK_SET) != 0) {
        tui_notice(a, 1, "%s: %s", path, fp == NULL ? strerror(errno) : "cannot read (or too big)");
        if (fp)
            fclose(fp);
        return -1;
    }
    data = tui_xmalloc((size_t)size + 1);
    if (fread(data, 1, (size_t)size, fp) != (size_t)size) {
        tui_notice(a, 1, "%s: short read", path);
        fclose(fp);
        free(data);
        return -1;
    }
    fclose(fp);
    store_statefile_from_path(&f, path);
    f.path[0] = '\0';                  /* imported: the bytes, not the path */
    f.data = data;
    f.size = (size_t)size;
    f.n_layer = inf->n_layer;
    f.n_embd = inf->n_embd;
    f.n_head = inf->n_head;
    f.head_size = inf->head_size;
    if (store_statefile_add(a->st, &f, id, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        free(data);
        return -1;
    }
    free(data);
    tui_notice(a, 0, "imported %s into the library (%ld KiB)", f.name, (size + 1023) / 1024);
    return 0;
}
