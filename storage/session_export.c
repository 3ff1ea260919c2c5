/*
** session_export.c -- the conversation of a session runtime as it is in
** memory, written as `sessions export` writes a saved session
** (store_export.c): Markdown to read, or the JSON ("rwkv-tui-session" v1)
** that `sessions import` takes back.  The front ends' "save elsewhere"
** when saving fails: the exchanges a failed save kept out are in memory
** only, so an export from the store would leave them out.
**
** The turns are the branch the chat holds: the greeting (when it was fed,
** or is to be fed before a message kept unfed, as a saved session has it:
** session_db.c, session_create) and each exchange, one user and one assistant
** turn, ids counted from 1 in that order.  No states: an import rebuilds
** them by replay, as for any imported session.
*/
#include "session_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store_int.h"

/* The title the session has, or would get from its first message. */
static void
title_of(const sess *s, char *out, size_t cap)
{
    if (s->title[0] != '\0')
        snprintf(out, cap, "%s", s->title);
    else if (chat_n_turns(s->c) > 0)
        sess_auto_title(chat_turn_at(s->c, 0)->user, out, cap);
    else
        snprintf(out, cap, "(untitled)");
}

/* The state file the chat starts from into *F (f->id 0: none), with its
** digest: the file's, or a library row's bytes (store_export.c writes a
** saved session's so). */
static void
state_of(const sess *s, store_statefile *f)
{
    void *data = NULL;

    memset(f, 0, sizeof *f);
    if (s->start.path[0] != '\0') {
        store_statefile_from_path(f, s->start.path);
        f->id = -1;                    /* in use, whether it has a row or not */
    } else if (s->start.lib_id != 0 && s->st != NULL) {
        if (store_statefile_get(s->st, s->start.lib_id, f, &data, NULL) != RWKV_OK)
            memset(f, 0, sizeof *f);
        else if (f->fingerprint == 0 && data != NULL)
            f->fingerprint = store_statefile_digest_mem(data, f->size);
        free(data);
    }
}

/* ---- Markdown ----------------------------------------------------------------------------- */

static void
export_md(const sess *s, struct sbuf *b)
{
    const rwkv_info *inf = rwkv_model_info(s->m);
    size_t n = chat_n_turns(s->c), kept = sess_unsaved(s), ng = 0;
    char title[STORE_TITLE_MAX], when[64];
    time_t now = time(NULL);
    struct tm tm;
    store_statefile sf;

    title_of(s, title, sizeof title);
    if (gmtime_r(&now, &tm) == NULL || strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm) == 0)
        snprintf(when, sizeof when, "?");
    sb_puts(b, "# ");
    sb_md(b, title);
    sb_printf(b, "\n\n- exported from the chat in memory, %s: ", when);
    if (s->st == NULL || s->sid == 0)
        sb_printf(b, "not saved in a session\n");
    else
        sb_printf(b, "%zu of its %zu exchanges not saved in session %lld\n", kept, n,
              (long long)s->sid);
    sb_puts(b, "- model: ");
    sb_md(b, s->model_path);
    sb_printf(b, " (v%s, fingerprint %016llx)\n- strategy: ", inf->version,
          (unsigned long long)inf->fingerprint);
    sb_md(b, inf->strategy);
    state_of(s, &sf);
    if (sf.id != 0) {                  /* as a saved session's export names it */
        sb_puts(b, "\n- state file: ");
        sb_md(b, sf.path[0] ? sf.path : sf.name);
        if (sf.fingerprint != 0)
            sb_printf(b, " (digest %016llx)", (unsigned long long)sf.fingerprint);
    }
    sb_printf(b, "\n- current branch: %zu turns\n", 2 * n);
    if ((chat_greeting_fed(s->c) || n > 0) && chat_greeting_ids(s->c, &ng) != NULL && ng > 0) {
        sb_puts(b, "\n## System\n\n");
        sb_md(b, chat_greeting(s->c));
        sb_puts(b, "\n");
    }
    for (size_t i = 0; i < n; i++) {
        const chat_turn *ct = chat_turn_at(s->c, i);
        sb_puts(b, "\n## ");
        sb_md(b, framing_user(&s->fr));
        sb_puts(b, "\n\n");
        sb_md(b, ct->user);
        sb_puts(b, "\n\n## ");
        sb_md(b, framing_bot(&s->fr));
        sb_puts(b, "\n\n");
        sb_md(b, ct->reply ? ct->reply : "");
        sb_puts(b, "\n");
        if (ct->interrupted || ct->stop == CHAT_STOP_CANCEL || ct->stop == CHAT_STOP_ERROR)
            sb_puts(b, "\n*(reply interrupted)*\n");
    }
}

/* ---- JSON (store_export.c's writers, from memory) ------------------------------------------ */

/* Turn ID (PARENT, 0 = none) of ROLE with TEXT and IDS[N]; CT: the
** exchange, whose sampling, speeds and mark an assistant turn has. */
static void
put_turn(struct sbuf *b, int64_t id, int64_t parent, int role, const char *text,
         const int32_t *ids, size_t n, const chat_turn *ct, int64_t now)
{
    const chat_turn *r = role == STORE_ROLE_ASSISTANT ? ct : NULL;
    store_turn t;

    memset(&t, 0, sizeof t);
    t.id = id, t.parent_id = parent, t.role = role, t.text = text;
    t.tokens = ids, t.n_tokens = n, t.time_ms = now;
    if (r != NULL) {
        t.has_sampling = 1;
        t.sampling = r->samp;
        t.prefill_tps = r->stats.prefill_tps;
        t.decode_tps = r->stats.decode_tps;
        t.interrupted = r->interrupted || r->stop == CHAT_STOP_CANCEL ||
                        r->stop == CHAT_STOP_ERROR;
    }
    sb_json_turn(b, &t, id == 1, NULL);
}

static int
export_json(const sess *s, struct sbuf *b, rwkv_err *err)
{
    const rwkv_info *inf = rwkv_model_info(s->m);
    size_t n = chat_n_turns(s->c), ng = 0;
    const int32_t *gids = chat_greeting_ids(s->c, &ng);
    int64_t now = store_now_ms(), id = 0, parent = 0, head;
    int greet = (chat_greeting_fed(s->c) || n > 0) && gids != NULL && ng > 0;
    char title[STORE_TITLE_MAX], *fr;
    framing f = s->fr;
    store_model m;
    store_statefile sf;

    title_of(s, title, sizeof title);
    store_model_from_info(&m, s->model_path, inf);
    snprintf(m.vocab, sizeof m.vocab, "%s", s->vocab_path);
    sb_json_session(b, title, s->sid != 0 && s->created_ms > 0 ? s->created_ms : now,
                    inf->strategy, &m);
    state_of(s, &sf);
    sb_json_statefile(b, sf.id != 0 ? &sf : NULL);
    /* the framing as a saved session keeps it, its greeting cleaned */
    f.greeting = s->fr.greeting ? store_text_clean(s->fr.greeting, strlen(s->fr.greeting), NULL)
                                : NULL;
    fr = (s->fr.greeting == NULL || f.greeting != NULL) ? framing_encode(&f) : NULL;
    free(f.greeting);
    if (fr == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "export: out of memory");
    sb_puts(b, ",\n  \"framing\": ");
    sb_puts(b, fr);
    free(fr);
    /* the session's own sampling values, as sessions export writes them */
    sb_puts(b, ",\n  \"sampling\": ");
    sb_json_sampling(b, chat_sampling(s->c));
    head = (int64_t)(2 * n) + greet;
    if (head > 0)
        sb_printf(b, ",\n  \"head\": %lld,\n  \"turns\": [", (long long)head);
    else
        sb_puts(b, ",\n  \"head\": null,\n  \"turns\": [");
    if (greet) {
        put_turn(b, ++id, 0, STORE_ROLE_SYSTEM, chat_greeting(s->c), gids, ng, NULL, now);
        parent = id;
    }
    for (size_t i = 0; i < n; i++) {
        const chat_turn *ct = chat_turn_at(s->c, i);
        put_turn(b, ++id, parent, STORE_ROLE_USER, ct->user, ct->prompt_ids, ct->n_prompt, ct, now);
        parent = id;
        put_turn(b, ++id, parent, STORE_ROLE_ASSISTANT, ct->reply ? ct->reply : "", ct->reply_ids,
                 ct->n_reply, ct, now);
        parent = id;
    }
    sb_puts(b, "\n  ]\n}\n");
    return RWKV_OK;
}

int
sess_export(const sess *s, enum store_format fmt, char **buf, size_t *len, rwkv_err *err)
{
    struct sbuf b = { 0 };
    int rc = RWKV_OK;

    *buf = NULL;
    *len = 0;
    if (fmt == STORE_FMT_JSON)
        rc = export_json(s, &b, err);
    else
        export_md(s, &b);
    return sb_take(&b, rc, buf, len, err);
}
