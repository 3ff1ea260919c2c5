/*
** test_chat_continue.c -- chat_continue (core/chat/chat.h): a continued
** reply is the reply as if it had never been cut.  Through the real model
** (the tiny byte-level RWKV-7, or the demo model without the fixtures):
**
**   - for several seeds and cut points (max_tokens k, then continue with
**     max_tokens N - k; or a cancel after k tokens), the reply's ids, text
**     and end equal those of one uncut run with max_tokens N, bit for bit,
**     cuts right after "\n" included (the "\n" held back before a "\n\n"
**     stop string takes part again; a stop string completed across the cut
**     ends the text before it);
**   - the same after the state was restored (a resume: the logits are
**     rebuilt from the turn start by the replay rule);
**   - the text callback gets the reply again, whole; the turn records the
**     total max_tokens, so a regeneration with its values and seed gives
**     the whole reply again;
**   - refusals change nothing: no reply, a reply at its stop string, a
**     running reply, a restored reply without a state to rebuild from; a
**     cancel during the rebuild leaves the reply as it was.
*/
#include <stdint.h>

#include "../../core/chat/chat.h"
#include "../harness.h"

#define N_MAX 64          /* the uncut run's max_tokens */

/* A reply's record, copied. */
struct rec {
    int32_t ids[4 * N_MAX];
    size_t  n;
    char    text[4096];
    int     stop;
};

static void
rec_take(struct rec *r, const chat_turn *t)
{
    r->n = t->n_reply < 4 * N_MAX ? t->n_reply : 4 * N_MAX;
    memcpy(r->ids, t->reply_ids, r->n * sizeof(int32_t));
    snprintf(r->text, sizeof r->text, "%s", t->reply);
    r->stop = t->stop;
}

static int
rec_same(const struct rec *a, const chat_turn *t)
{
    return t->n_reply == a->n && memcmp(t->reply_ids, a->ids, a->n * sizeof(int32_t)) == 0 &&
           strcmp(t->reply, a->text) == 0 && t->stop == a->stop;
}

static rwkv_model *
open_model(void)
{
    const char *rel = "models/tiny-7v0-fp32.pth";
    char path[1024];
    rwkv_model *m = NULL;
    rwkv_err err;

    if (!test_fixture_exists(rel)) {
        if (test_ci()) {
            test_have_fixture(rel, 0);
            return NULL;
        }
        TEST_INFO("%s missing: the demo model instead", rel);
        if (rwkv_model_open_demo(1, NULL, &m, &err) != RWKV_OK)
            TEST_CONDF(0, "open demo: %s", err.msg);
        return m;
    }
    if (rwkv_model_open(test_fixture_path(path, sizeof path, rel), NULL, &m, &err) != RWKV_OK)
        TEST_CONDF(0, "open %s: %s", path, err.msg);
    return m;
}

/* The stop string of the chats made (NULL = the default "\n\n"). */
static const char *stop_str;

static chat *
new_chat(rwkv_model *m, const tok *bt, uint64_t seed, int max_tokens, test_text *s)
{
    chat_config cfg;
    chat_callbacks cb = { .text = test_text_put, .ud = s };
    chat *ch = NULL;
    rwkv_err err;

    chat_config_init(&cfg);
    cfg.samp.temperature = 1.0f;
    cfg.samp.top_p = 0.9f;
    cfg.samp.max_tokens = max_tokens;
    cfg.samp.seed = seed;
    cfg.samp_set = PARAMS_BIT(params_find("seed"));
    if (stop_str != NULL) {
        cfg.stop[0] = stop_str;
        cfg.n_stop = 1;
    }
    if (chat_create(m, bt, &cfg, &cb, &ch, &err) != RWKV_OK)
        TEST_CONDF(0, "chat_create: %s", err.msg);
    return ch;
}

static void
set_max(chat *ch, int max_tokens)
{
    rwkv_sampling v = *chat_sampling(ch);

    v.max_tokens = max_tokens;
    chat_set_sampling(ch, &v, chat_sampling_set(ch));
}

static const char *msg = "Tell me a story.";

/* Cut after K tokens (max_tokens K, or a cancel when BY_CANCEL). */
static int
cut_reply(chat *ch, size_t k, int by_cancel, rwkv_err *err)
{
    if (chat_submit(ch, msg, strlen(msg), err) != RWKV_OK)
        return -1;
    if (!by_cancel)
        return chat_run(ch, err);
    while (chat_phase(ch) != CHAT_GENERATING)
        chat_step(ch, err);
    for (size_t i = 0; i < k; i++)
        chat_step(ch, err);
    chat_cancel(ch);
    return chat_run(ch, err);
}

/*
** A chat that takes over CH's conversation as a resume does: its turn
** pushed, its state restored (no logits), the state before the message as
** the turn start.  NULL on failure.
*/
static chat *
resumed(rwkv_model *m, const tok *bt, chat *ch, uint64_t seed, test_text *s, int turn_start)
{
    chat *r = new_chat(m, bt, seed, N_MAX, s);
    const chat_turn *t = chat_turn_at(ch, 0);
    rwkv_err err;

    if (r == NULL || chat_push_turn(r, t, &err) != RWKV_OK) {
        chat_destroy(r);
        return NULL;
    }
    chat_restore_state(r, chat_state(ch), t->stop != CHAT_STOP_STRING);
    if (turn_start)
        chat_set_turn_start(r, chat_state_turn_start(ch));
    return r;
}

/* One cut at K of the uncut reply U (seed SEED): plain, and resumed. */
static int
check_cut(rwkv_model *m, const tok *bt, uint64_t seed, const struct rec *u, size_t k,
          int by_cancel)
{
    test_text s = { .len = 0 };
    chat *ch = new_chat(m, bt, seed, by_cancel ? N_MAX : (int)k, &s), *r;
    const chat_turn *t;
    rwkv_err err;
    int ok, ok_text, ok_resume = 0;

    if (ch == NULL || cut_reply(ch, k, by_cancel, &err) != RWKV_OK) {
        chat_destroy(ch);
        return 0;
    }
    r = resumed(m, bt, ch, seed, &s, 1);
    set_max(ch, N_MAX - (int)k);
    s.len = 0;
    ok = chat_continue(ch, &err) == RWKV_OK && chat_run(ch, &err) == RWKV_OK;
    t = chat_turn_at(ch, 0);
    ok = ok && rec_same(u, t) && t->samp.max_tokens == N_MAX;
    ok_text = strcmp(s.buf, t->reply) == 0;
    if (r != NULL) {
        set_max(r, N_MAX - (int)k);
        ok_resume = chat_continue(r, &err) == RWKV_OK && chat_phase(r) == CHAT_PREFILL &&
                    chat_run(r, &err) == RWKV_OK && rec_same(u, chat_turn_at(r, 0));
    }
    if (!ok || !ok_text || !ok_resume)
        TEST_INFO("seed %llu cut %zu%s: continued %d, text streamed %d, resumed %d",
                  (unsigned long long)seed, k, by_cancel ? " (cancel)" : "", ok, ok_text,
                  ok_resume);
    chat_destroy(r);
    chat_destroy(ch);
    return ok && ok_text && ok_resume;
}

/* The uncut reply of SEED under stop_str into *U; 0 or -1. */
static int
uncut(rwkv_model *m, const tok *bt, uint64_t seed, struct rec *u)
{
    test_text s = { .len = 0 };
    chat *ch = new_chat(m, bt, seed, N_MAX, &s);
    rwkv_err err;
    int ok = ch != NULL && chat_submit(ch, msg, strlen(msg), &err) == RWKV_OK &&
             chat_run(ch, &err) == RWKV_OK;

    if (ok)
        rec_take(u, chat_turn_at(ch, 0));
    else
        TEST_CONDF(0, "seed %llu: the uncut reply", (unsigned long long)seed);
    chat_destroy(ch);
    return ok ? 0 : -1;
}

/*
** Seeds 1..N_SEEDS under the default stop string; or, ACROSS, under a
** two-byte stop string taken from the middle of each seed's reply (the
** draws do not depend on it), so that the reply ends at it and one cut
** falls between its bytes.
*/
static void
test_bit_exact(rwkv_model *m, const tok *bt, int across_mode, int n_seeds)
{
    int cuts = 0, checks = 0, bad = 0, after_nl = 0, across = 0;
    char stop[3] = "";

    for (uint64_t seed = 1; seed <= (uint64_t)n_seeds; seed++) {
        struct rec u;
        char held = '\n';        /* a proper prefix of the stop string */

        stop_str = NULL;
        if (uncut(m, bt, seed, &u) != 0)
            continue;
        if (across_mode) {
            if (u.n < 8 || u.ids[u.n / 2] == 0 || u.ids[u.n / 2 + 1] == 0)
                continue;
            stop[0] = held = (char)u.ids[u.n / 2];
            stop[1] = (char)u.ids[u.n / 2 + 1];
            stop_str = stop;
            if (uncut(m, bt, seed, &u) != 0)
                continue;
        }
        for (size_t k = 1; k < u.n; k++) {
            int nl = u.ids[k - 1] == held;
            /* a few fixed cuts, and every cut right after a "\n" */
            if (!(k == 1 || k == 5 || k == u.n / 2 || k == u.n - 1 || nl))
                continue;
            cuts++;
            after_nl += nl;
            across += nl && k == u.n - 1 && u.stop == CHAT_STOP_STRING;
            bad += !check_cut(m, bt, seed, &u, k, 0);
            checks++;
            if (k == 5 || nl) {
                bad += !check_cut(m, bt, seed, &u, k, 1);
                checks++;
            }
        }
    }
    stop_str = NULL;
    TEST_INFO("%s: %d cuts, %d right after a held byte, %d across the stop string",
              across_mode ? "stop strings from the replies" : "stop \\n\\n", cuts, after_nl,
              across);
    TEST_CONDF(bad == 0, "continued == uncut, bit for bit (%d of %d differ)", bad, checks);
    TEST_CONDF(cuts >= 12 && after_nl >= 1, "enough cuts tested (%d, %d after a held byte)",
               cuts, after_nl);
    if (across_mode)
        TEST_CONDF(across >= 1, "a stop string completed across the cut (%d)", across);
}

/* The turn records the total: its values and seed give the whole reply again. */
static void
test_regen_total(rwkv_model *m, const tok *bt)
{
    test_text s = { .len = 0 };
    chat *ch = new_chat(m, bt, 7, 6, &s);
    const chat_turn *t;
    struct rec c;
    rwkv_err err;

    if (ch == NULL)
        return;
    cut_reply(ch, 6, 0, &err);
    set_max(ch, 9);
    TEST_COND("continue", chat_continue(ch, &err) == RWKV_OK && chat_run(ch, &err) == RWKV_OK);
    t = chat_turn_at(ch, 0);
    rec_take(&c, t);
    TEST_CONDF(t->samp.max_tokens == 15, "max_tokens records the total (%d)", t->samp.max_tokens);
    set_max(ch, t->samp.max_tokens);
    chat_set_next_seed(ch, t->samp.seed);
    TEST_COND("regen with the recorded values and seed: the whole reply",
              chat_regen(ch, &err) == RWKV_OK && chat_run(ch, &err) == RWKV_OK &&
                  rec_same(&c, chat_turn_at(ch, 0)));
    chat_destroy(ch);
}

static void
test_refusals(rwkv_model *m, const tok *bt)
{
    test_text s = { .len = 0 };
    chat *ch = new_chat(m, bt, 3, 8, &s), *r = NULL;
    const chat_turn *t;
    struct rec before;
    rwkv_err err;

    if (ch == NULL)
        return;
    TEST_COND("no reply yet: refused", chat_continue(ch, &err) == RWKV_EINVAL &&
                                           strstr(err.msg, "no reply") && chat_n_turns(ch) == 0);
    chat_submit(ch, msg, strlen(msg), &err);
    TEST_COND("a running reply: refused", chat_continue(ch, &err) == RWKV_EINVAL &&
                                              chat_phase(ch) == CHAT_PREFILL);
    chat_run(ch, &err);
    /* a reply at its stop string: a chat whose stop string is what it ends with */
    t = chat_turn_at(ch, 0);
    {
        char stop[2] = { (char)t->reply_ids[t->n_reply - 1], 0 };
        const char *stops[1] = { stop };
        chat *c2 = NULL;
        chat_config cfg;
        chat_config_init(&cfg);
        cfg.stop[0] = stops[0];
        cfg.n_stop = 1;
        if (chat_create(m, bt, &cfg, NULL, &c2, &err) == RWKV_OK) {
            chat_turn u = *t;
            u.stop = CHAT_STOP_NONE;        /* worked out: it ends with the stop string */
            chat_push_turn(c2, &u, &err);
            rec_take(&before, chat_turn_at(c2, 0));
            TEST_COND("a reply at its stop string: refused, unchanged",
                      chat_continue(c2, &err) == RWKV_EINVAL && strstr(err.msg, "complete") &&
                          rec_same(&before, chat_turn_at(c2, 0)));
            chat_destroy(c2);
        }
    }
    /* restored without a turn start: nothing to rebuild from */
    r = resumed(m, bt, ch, 3, &s, 0);
    if (r != NULL) {
        rec_take(&before, chat_turn_at(r, 0));
        TEST_COND("restored, no state to rebuild from: refused, unchanged",
                  chat_continue(r, &err) == RWKV_EINVAL && strstr(err.msg, "rebuild") &&
                      chat_phase(r) == CHAT_IDLE && rec_same(&before, chat_turn_at(r, 0)));
        chat_destroy(r);
    }
    /* a cancel during the rebuild leaves the reply as it was */
    r = resumed(m, bt, ch, 3, &s, 1);
    if (r != NULL) {
        rwkv_state *st = NULL;
        rwkv_state_create(m, &st, &err);
        rwkv_state_copy(st, chat_state(r));
        rec_take(&before, chat_turn_at(r, 0));
        TEST_COND("rebuild starts", chat_continue(r, &err) == RWKV_OK &&
                                        chat_phase(r) == CHAT_PREFILL);
        chat_step(r, &err);
        chat_cancel(r);
        chat_run(r, &err);
        TEST_COND("cancel in the rebuild: the reply and state as they were",
                  chat_phase(r) == CHAT_IDLE && chat_n_turns(r) == 1 &&
                      rec_same(&before, chat_turn_at(r, 0)) &&
                      memcmp(rwkv_state_cdata(st), rwkv_state_cdata(chat_state(r)),
                             rwkv_state_len(st) * sizeof(float)) == 0);
        /* a cancel while generating: kept, continuable again */
        set_max(r, 20);
        TEST_COND("continue after a cancelled rebuild", chat_continue(r, &err) == RWKV_OK);
        while (chat_phase(r) != CHAT_GENERATING)
            chat_step(r, &err);
        chat_step(r, &err);
        chat_step(r, &err);
        chat_cancel(r);
        chat_run(r, &err);
        t = chat_turn_at(r, 0);
        TEST_COND("cancelled continuation: kept, interrupted",
                  t->n_reply == before.n + 2 && t->interrupted && t->stop == CHAT_STOP_CANCEL &&
                      memcmp(t->reply_ids, before.ids, before.n * sizeof(int32_t)) == 0);
        TEST_COND("and continuable again", chat_continue(r, &err) == RWKV_OK &&
                                               chat_phase(r) == CHAT_GENERATING &&
                                               chat_run(r, &err) == RWKV_OK);
        rwkv_state_destroy(st);
        chat_destroy(r);
    }
    chat_destroy(ch);
}

int
main(void)
{
    rwkv_model *m = open_model();
    tok *bt = NULL;
    rwkv_err err;

    if (m == NULL || tok_create_bytes(&bt, &err) != RWKV_OK) {
        TEST_COND("model and byte tokenizer", 0);
        rwkv_model_close(m);
        return TEST_REPORT();
    }
    test_bit_exact(m, bt, 0, 16);
    test_bit_exact(m, bt, 1, 6);
    test_regen_total(m, bt);
    test_refusals(m, bt);
    tok_close(bt);
    rwkv_model_close(m);
    return TEST_REPORT();
}
