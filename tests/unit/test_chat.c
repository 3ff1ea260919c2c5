/*
** test_chat.c -- core/chat/chat.c: normalisation, streaming, the stop rule, and
** the chat demo end to end through the real model and tokenizer:
**
**   - generation/chat_generation_cases.json (byte-level tiny models, greeting
**     or state file, greedy with penalties): same greeting/prompt tokens,
**     same generated tokens, prefill logits within 1e-3;
**   - world/world-7v0.json chat_demo_flow (World tokenizer): greeting and
**     user tokens, 32 greedy steps, printed pieces;
**   - cancellation keeps state == before-reply state + kept tokens fed;
**     regen restores and resamples (same seed -> same reply); cancel in
**     prefill rolls back; a state file for another model is refused;
**   - think modes (World tokenizer): each mode's prompt tokens equal the
**     tokens of the model card's text, the reply starts with what the
**     prompt wrote of it, stop strings see only the generated text, a mode
**     change leaves a written turn's regen alone, a pushed turn gets its
**     head back from its prompt.
*/
#include <stdint.h>

#include "../../core/chat/chat.h"
#include "../../core/io/json.h"
#include "../../core/text/utf8.h"
#include "../harness.h"
#include "fixture_json.h"

/* ---- helpers ----------------------------------------------------------- */

struct sink {
    char   buf[65536];
    size_t len;
    size_t n;
    char   piece[512][96];
    int    phases[64];
    size_t n_phases;
    int    done;
    int    bad_utf8;
    size_t n_stats;
    uint64_t last_gen;
};

static void
on_text(void *ud, const char *text, size_t len)
{
    struct sink *s = ud;

    if (!utf8_valid(text, len))
        s->bad_utf8 = 1;
    if (s->len + len < sizeof s->buf) {
        memcpy(s->buf + s->len, text, len);
        s->len += len;
        s->buf[s->len] = 0;
    }
    if (s->n < 512 && len < 96) {
        memcpy(s->piece[s->n], text, len);
        s->piece[s->n][len] = 0;
    }
    s->n++;
}

static void
on_phase(void *ud, int phase)
{
    struct sink *s = ud;

    if (s->n_phases < 64)
        s->phases[s->n_phases++] = phase;
}

static void
on_done(void *ud, const chat_turn *t)
{
    struct sink *s = ud;

    (void)t;
    s->done++;
}

static void
on_stats(void *ud, const chat_stats *st)
{
    struct sink *s = ud;

    s->n_stats++;
    s->last_gen = st->gen_tokens;
}

static void
sink_reset(struct sink *s)
{
    memset(s, 0, sizeof *s);
}

static int
ids_equal_json(const int32_t *ids, size_t n, const json_value *arr)
{
    if (arr == NULL || arr->len != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (ids[i] != (int32_t)json_at(arr, i)->num)
            return 0;
    return 1;
}

/* The fixture model REL, or (without the fixtures, CI unset) the demo
** model: the chat-control checks hold for any byte-level model. */
static rwkv_model *
open_model(const char *rel)
{
    char path[1024];
    rwkv_model *m = NULL;
    rwkv_err err;

    if (!test_fixture_exists(rel)) {
        if (test_ci()) {
            test_have_fixture(rel, 0);   /* CI: a failure */
            return NULL;
        }
        if (rwkv_model_open_demo(1, NULL, &m, &err) != RWKV_OK) {
            TEST_CONDF(0, "open demo: %s", err.msg);
            return NULL;
        }
        TEST_INFO("%s missing: the demo model instead", rel);
        return m;
    }
    test_fixture_path(path, sizeof path, rel);
    if (rwkv_model_open(path, NULL, &m, &err) != RWKV_OK) {
        TEST_CONDF(0, "open %s: %s", path, err.msg);
        return NULL;
    }
    return m;
}

/* ---- pure parts ---------------------------------------------------------- */

static void
check_norm(const char *in, size_t inlen, const char *want)
{
    size_t n;
    char *got = chat_normalize(in, inlen, &n);

    TEST_CONDF(got && n == strlen(want) && strcmp(got, want) == 0,
               "normalize: got '%s' want '%s'", got ? got : "(null)", want);
    free(got);
}

static void
test_normalize(void)
{
    check_norm("  hi  ", 6, "hi");
    check_norm("a\n\n\nb", 5, "a\nb");
    check_norm("a\r\n\r\nb", 6, "a\nb");         /* CRLF first: no "\n\n" slips through */
    check_norm("\t\n x \n\n", 7, "x");
    check_norm("\xe3\x80\x80wide space\xc2\xa0", 15, "wide space");  /* Unicode strip */
    check_norm("bad\xff byte", 9, "bad\xef\xbf\xbd byte");
    check_norm("cut\xe4\xbd", 5, "cut\xef\xbf\xbd");
    check_norm("   ", 3, "");
    check_norm("", 0, "");
    /* a lone CR is a line end too (it was kept: the model got it, every
    ** display dropped it, "ab") */
    check_norm("a\rb", 3, "a\nb");
    check_norm("a\r\rb", 4, "a\nb");           /* two line ends: a blank line, joined */
    check_norm("a\r\r\nb", 5, "a\nb");         /* CR, then CR LF */
    check_norm("a\n\rb", 4, "a\nb");
    check_norm("\rx\r", 3, "x");                /* at the ends: stripped */
}

static const char *const stop_nn[1] = { "\n\n" };

static void
push_all(chat_stream *st, struct sink *s, const char *const *pieces, size_t n, int *stopped)
{
    *stopped = 0;
    for (size_t i = 0; i < n && !*stopped; i++)
        *stopped = chat_stream_push(st, pieces[i], strlen(pieces[i]), on_text, s) == 1;
}

static void
test_stream(void)
{
    chat_stream *st = NULL;
    struct sink *s = calloc(1, sizeof *s);
    rwkv_err err;
    int stopped;

    TEST_COND("stream create", chat_stream_create(stop_nn, 1, &st, &err) == RWKV_OK);
    {
        /* "你" = E4 BD A0 split over three tokens, then "好" in one */
        const char *p[] = { "a", "\xe4", "\xbd", "\xa0", "\xe5\xa5\xbd", "b" };
        push_all(st, s, p, 6, &stopped);
        TEST_COND("split char: emitted whole", s->n == 4 && strcmp(s->piece[1], "\xe4\xbd\xa0") == 0 &&
                                                   strcmp(s->buf, "a\xe4\xbd\xa0\xe5\xa5\xbd" "b") == 0);
        TEST_COND("split char: never invalid", !s->bad_utf8 && !stopped);
    }
    sink_reset(s);
    chat_stream_reset(st);
    {
        /* stop rule: "\n" held back, "\n\n" ends, text before it kept */
        const char *p[] = { "Hi", " there", "\n", "\n", "User" };
        push_all(st, s, p, 5, &stopped);
        TEST_COND("stop: stopped", stopped);
        TEST_COND("stop: text excludes stop string", strcmp(s->buf, "Hi there") == 0 && s->n == 2);
    }
    sink_reset(s);
    chat_stream_reset(st);
    {
        const char *p[] = { "a\n", "b", "\n\nc" };
        push_all(st, s, p, 3, &stopped);
        TEST_COND("single newline kept", strcmp(s->buf, "a\nb") == 0 && stopped);
        TEST_COND("newline held with its text (demo pieces)", strcmp(s->piece[0], "a\nb") == 0);
    }
    sink_reset(s);
    chat_stream_reset(st);
    {
        const char *p[] = { "x\xff", "y" };
        push_all(st, s, p, 2, &stopped);
        TEST_COND("invalid byte replaced", strcmp(s->buf, "x\xef\xbf\xbdy") == 0 && !s->bad_utf8);
        const char *q[] = { "z\xe4\xbd" };
        push_all(st, s, q, 1, &stopped);
        TEST_COND("incomplete tail held", strcmp(s->buf, "x\xef\xbf\xbdy") == 0);
        chat_stream_flush(st, on_text, s);
        TEST_COND("flush: incomplete tail -> U+FFFD", strcmp(s->buf, "x\xef\xbf\xbdyz\xef\xbf\xbd") == 0);
    }
    sink_reset(s);
    chat_stream_reset(st);
    {
        const char *p[] = { "end\n" };
        push_all(st, s, p, 1, &stopped);
        chat_stream_flush(st, on_text, s);
        TEST_COND("flush emits held newline", strcmp(s->buf, "end\n") == 0);
    }
    chat_stream_destroy(st);
    st = NULL;
    {
        static const char *const stops[2] = { "###", "\nUser:" };
        sink_reset(s);
        TEST_COND("two stops", chat_stream_create(stops, 2, &st, &err) == RWKV_OK);
        const char *p[] = { "ok #", "# not", "\nUse", "r: x" };
        push_all(st, s, p, 4, &stopped);
        TEST_COND("custom stop string", stopped && strcmp(s->buf, "ok ## not") == 0);
        chat_stream_destroy(st);
    }
    {
        static const char *const bad[1] = { "" };
        TEST_COND("empty stop refused", chat_stream_create(bad, 1, &st, &err) == RWKV_EINVAL);
    }
    free(s);
}

/* ---- byte-level generation cases through the model ----------------------- */

static void
test_generation_e2e(void)
{
    json_doc *d;
    const json_value *cases;
    tok *bt = NULL;
    rwkv_err err;

    if (!test_have_fixture("generation/chat_generation_cases.json", 34))
        return;
    if ((d = test_fixture_json("generation/chat_generation_cases.json")) == NULL)
        return;
    TEST_COND("byte tokenizer", tok_create_bytes(&bt, &err) == RWKV_OK);
    cases = json_get(json_root(d), "cases");
    for (size_t ci = 0; cases && ci < cases->len; ci++) {
        const json_value *c = json_at(cases, ci);
        const char *id = json_str(c, "id");
        const json_value *init_state = json_get(c, "init_state");
        const json_value *init_ctx = json_get(c, "init_ctx");
        const char *prompt = json_str(c, "prompt_ctx");
        rwkv_model *m = open_model(json_str(c, "model_file"));
        chat_config cfg;
        chat *ch = NULL;
        struct sink *s = calloc(1, sizeof *s);
        chat_callbacks cb = { .text = on_text, .phase = on_phase, .done = on_done, .ud = s, .stats = on_stats };
        char statepath[1024], msg[256];
        const chat_turn *t;
        size_t nraw;
        float *raw;
        char rawpath[1024];

        if (m == NULL) {
            free(s);
            continue;
        }
        chat_config_init(&cfg);
        if (init_state && init_state->type == JSON_STRING)
            cfg.state_path = test_fixture_path(statepath, sizeof statepath, init_state->str);
        cfg.samp.temperature = (float)json_num(c, "temperature", 1);
        cfg.samp.top_p = (float)json_num(c, "top_p", 0);
        cfg.samp.presence = (float)json_num(c, "alpha_presence", 0);
        cfg.samp.frequency = (float)json_num(c, "alpha_frequency", 0);
        cfg.samp.decay = (float)json_num(c, "penalty_decay", 0);
        cfg.samp.max_tokens = (int)json_num(c, "steps", 0);
        cfg.samp.chunk = (int)json_num(c, "chunk_len", 256);
        cfg.samp_set = ~0u;   /* everything "set by the user": no state defaults */
        cfg.samp.seed = 1;
        if (chat_create(m, bt, &cfg, &cb, &ch, &err) != RWKV_OK) {
            TEST_CONDF(0, "%s: chat_create: %s", id, err.msg);
            rwkv_model_close(m);
            free(s);
            continue;
        }
        if (init_ctx && init_ctx->type == JSON_STRING)
            TEST_CONDF(strcmp(chat_greeting(ch), init_ctx->str) == 0, "%s: greeting differs", id);
        else
            TEST_CONDF(chat_greeting(ch)[0] == 0, "%s: greeting with a state file", id);
        /* the prompt_ctx is "User: {msg}\n\nAssistant:" */
        snprintf(msg, sizeof msg, "%.*s", (int)(strlen(prompt) - strlen("User: ") - strlen("\n\nAssistant:")),
                 prompt + strlen("User: "));
        TEST_CONDF(chat_submit(ch, msg, strlen(msg), &err) == RWKV_OK, "%s: submit", id);
        TEST_CONDF(chat_run(ch, &err) == RWKV_OK, "%s: run: %s", id, err.msg);
        t = chat_turn_at(ch, 0);
        TEST_CONDF(t && ids_equal_json(t->prompt_ids, t->n_prompt, json_get(c, "prompt_tokens")),
                   "%s: prompt tokens", id);
        TEST_CONDF(t && ids_equal_json(t->reply_ids, t->n_reply, json_get(c, "generated_tokens")),
                   "%s: generated tokens differ from the reference", id);
        TEST_CONDF(t && t->stop == CHAT_STOP_MAX_TOKENS, "%s: stop reason %d", id, t ? t->stop : -1);
        TEST_CONDF(s->done == 1 && chat_phase(ch) == CHAT_IDLE, "%s: done once, idle", id);
        TEST_CONDF(t && t->stats.gen_tokens == t->n_reply && t->stats.decode_tps > 0 &&
                       t->stats.prefill_tokens >= t->n_prompt && t->stats.prefill_tps > 0 &&
                       s->last_gen == t->n_reply && s->n_stats >= t->n_reply + 1,
                   "%s: stats record and callback (%zu calls)", id, s->n_stats);
        TEST_CONDF(s->n_phases >= 4 && s->phases[0] == CHAT_PREFILL &&
                       s->phases[s->n_phases - 1] == CHAT_IDLE,
                   "%s: phase sequence", id);
        TEST_CONDF(!s->bad_utf8 && t && strcmp(t->reply, s->buf) == 0, "%s: reply == streamed text", id);
        raw = test_read_f32(test_fixture_path(rawpath, sizeof rawpath,
                                              json_str(json_get(c, "raw_logits"), "file")),
                            &nraw);
        if (raw && chat_logits_before_reply(ch)) {
            double diff = test_max_abs_diff(raw, chat_logits_before_reply(ch), 256);
            TEST_CONDF(diff <= 1e-3, "%s: logits after prefill differ by %g", id, diff);
        }
        free(raw);
        chat_destroy(ch);
        rwkv_model_close(m);
        free(s);
    }
    tok_close(bt);
    json_free(d);
}

/* ---- World chat_demo_flow ------------------------------------------------ */

static void
test_world_flow(void)
{
    json_doc *d;
    const json_value *flow = NULL, *cases, *gen;
    char vpath[1024];
    tok *wt = NULL;
    rwkv_model *m;
    rwkv_err err;
    chat_config cfg;
    chat *ch = NULL;
    struct sink *s = calloc(1, sizeof *s);
    chat_callbacks cb = { .text = on_text, .ud = s };
    const chat_turn *t;
    const char *msg;
    size_t ngreet;
    const int32_t *greet;

    if (!test_have_fixture("world/world-7v0.json", 11)) {
        free(s);
        return;
    }
    if ((d = test_fixture_json("world/world-7v0.json")) == NULL) {
        free(s);
        return;
    }
    cases = json_get(json_root(d), "cases");
    for (size_t i = 0; cases && i < cases->len; i++)
        if (strcmp(json_str(json_at(cases, i), "id"), "chat_demo_flow") == 0)
            flow = json_at(cases, i);
    TEST_COND("chat_demo_flow present", flow != NULL);
    if (flow == NULL)
        goto out;
    gen = json_get(flow, "generation");
    if (tok_open_world(test_fixture_path(vpath, sizeof vpath, "rwkv_vocab_v20230424.txt"), &wt,
                       &err) != RWKV_OK) {
        TEST_CONDF(0, "World vocab: %s", err.msg);
        goto out;
    }
    m = open_model(json_str(json_root(d), "model_file"));
    if (m == NULL)
        goto out;
    chat_config_init(&cfg);
    cfg.samp.temperature = (float)json_num(gen, "temperature", 1);
    cfg.samp.top_p = (float)json_num(gen, "top_p", 0);
    cfg.samp.presence = (float)json_num(gen, "alpha_presence", 0);
    cfg.samp.frequency = (float)json_num(gen, "alpha_frequency", 0);
    cfg.samp.decay = (float)json_num(gen, "penalty_decay", 0);
    cfg.samp.max_tokens = (int)json_num(gen, "max_steps", 32);
    cfg.samp.chunk = (int)json_num(flow, "chunk_len", 256);
    if (chat_create(m, wt, &cfg, &cb, &ch, &err) != RWKV_OK) {
        TEST_CONDF(0, "world chat_create: %s", err.msg);
        rwkv_model_close(m);
        goto out;
    }
    TEST_COND("world greeting text", strcmp(chat_greeting(ch), json_str(flow, "init_ctx")) == 0);
    greet = chat_greeting_ids(ch, &ngreet);
    TEST_COND("world greeting tokens", ids_equal_json(greet, ngreet, json_get(flow, "init_tokens")));
    msg = json_str(flow, "user_msg");
    TEST_COND("world submit", chat_submit(ch, msg, strlen(msg), &err) == RWKV_OK);
    TEST_CONDF(chat_run(ch, &err) == RWKV_OK, "world run: %s", err.msg);
    t = chat_turn_at(ch, 0);
    TEST_COND("world user tokens", t && ids_equal_json(t->prompt_ids, t->n_prompt, json_get(flow, "user_tokens")));
    TEST_COND("world 32 greedy tokens", t && ids_equal_json(t->reply_ids, t->n_reply, json_get(gen, "tokens")));
    {
        char p[1024];
        size_t n = 0;
        float *ref = test_read_f32(test_fixture_path(p, sizeof p,
                                                     json_str(json_get(flow, "logits_after_user"), "file")),
                                   &n);
        if (ref && n == 65536 && chat_logits_before_reply(ch)) {
            double diff = test_max_abs_diff(ref, chat_logits_before_reply(ch), n);
            TEST_CONDF(diff <= 1e-3, "world logits after user differ by %g", diff);
        } else {
            TEST_COND("world logits_after_user", 0);
        }
        free(ref);
    }
    {
        /* printed pieces: one for one while the demo prints */
        const json_value *pp = json_get(gen, "printed_pieces");
        int match = pp != NULL;
        for (size_t k = 0; pp && k < pp->len; k++)
            if (k >= s->n || k >= 512 || strcmp(s->piece[k], json_at(pp, k)->str) != 0) {
                TEST_INFO("world piece %zu: got '%s' ref '%s'", k, k < s->n ? s->piece[k] : "",
                          json_at(pp, k)->str);
                match = 0;
                break;
            }
        TEST_COND("world printed pieces", match);
        TEST_COND("world streamed text is valid UTF-8", !s->bad_utf8);
    }
    {
        char p[1024];
        size_t n = 0;
        float *ref = test_read_f32(test_fixture_path(p, sizeof p, json_str(json_get(flow, "final_state"), "file")), &n);
        const rwkv_state *st = chat_state(ch);
        if (ref && n == rwkv_state_len(st)) {
            double diff = test_max_abs_diff(ref, rwkv_state_cdata(st), n);
            TEST_CONDF(diff <= 1e-3, "world final state differs by %g", diff);
        } else {
            TEST_COND("world final state", 0);
        }
        free(ref);
    }
    chat_destroy(ch);
    rwkv_model_close(m);
out:
    tok_close(wt);
    json_free(d);
    free(s);
}

/* ---- cancel, regen, determinism, state files ----------------------------- */

static int
run_reply(chat *ch, const char *msg, rwkv_err *err)
{
    if (chat_submit(ch, msg, strlen(msg), err) != RWKV_OK)
        return -1;
    return chat_run(ch, err);
}

/* A and B (states of one model) hold the same bytes. */
static int
same_state(const rwkv_state *a, const rwkv_state *b)
{
    return memcmp(rwkv_state_cdata(a), rwkv_state_cdata(b), rwkv_state_len(a) * sizeof(float)) == 0;
}

/* Cancel mid-reply: the kept tokens are exactly what the state has fed;
** the next prompt carries the separator; a cancel in prefill drops the turn
** and restores the state.  REPLAY: a scratch state of M. */
static void
control_cancel(rwkv_model *m, chat *ch, rwkv_state *replay)
{
    const chat_turn *t;
    rwkv_err err;

    rwkv_state_copy(replay, chat_state(ch));
    TEST_COND("submit 2", chat_submit(ch, "And then?", 9, &err) == RWKV_OK);
    while (chat_phase(ch) != CHAT_GENERATING)
        chat_step(ch, &err);
    for (int i = 0; i < 7; i++)
        chat_step(ch, &err);
    chat_cancel(ch);
    chat_run(ch, &err);
    t = chat_turn_at(ch, 1);
    TEST_COND("cancelled reply recorded", t && t->interrupted && t->stop == CHAT_STOP_CANCEL &&
                                              t->n_reply == 7);
    rwkv_state_copy(replay, chat_state_before_reply(ch));
    for (size_t i = 0; t && i < t->n_reply; i++)
        rwkv_eval(m, &t->reply_ids[i], 1, replay, NULL, &err);
    TEST_COND("cancel: state == before_reply + kept tokens",
              same_state(replay, chat_state(ch)));
    /* the next prompt carries the "\n\n" the cancelled reply never got */
    TEST_COND("submit 3", chat_submit(ch, "ok", 2, &err) == RWKV_OK);
    t = chat_turn_at(ch, 2);
    TEST_COND("separator after an interrupted reply",
              t->n_prompt > 2 && t->prompt_ids[0] == '\n' && t->prompt_ids[1] == '\n' &&
                  t->prompt_ids[2] == 'U');
    /* cancel during prefill: turn dropped, state back at the turn start */
    rwkv_state_copy(replay, chat_state(ch));
    chat_cancel(ch);
    chat_run(ch, &err);
    TEST_COND("cancel in prefill drops the turn", chat_n_turns(ch) == 2 && chat_phase(ch) == CHAT_IDLE);
    TEST_COND("cancel in prefill restores the state",
              same_state(replay, chat_state(ch)));
    TEST_COND("after a cancelled prefill the previous reply can be redone",
              chat_state_before_reply(ch) != NULL && chat_regen(ch, &err) == RWKV_OK &&
                  chat_run(ch, &err) == RWKV_OK && chat_n_turns(ch) == 2 &&
                  chat_turn_at(ch, 1)->n_regen == 1);
}

/* A state file for another model: refused, the chat goes on; its own
** loads, with the file's defaults. */
static void
control_state_file(chat *ch)
{
    rwkv_err err;

    if (test_have_fixture("states/state-7v0-A.pth", 5)) {
        char p[1024];
        TEST_COND("foreign state file refused",
                  chat_load_state_file(ch, test_fixture_path(p, sizeof p, "states/state-6v0-A.pth"),
                                       &err) != RWKV_OK &&
                      err.msg[0] != 0);
        TEST_COND("chat still works", run_reply(ch, "hi", &err) == RWKV_OK && chat_n_turns(ch) == 1);
        TEST_COND("own state file loads",
                  chat_load_state_file(ch, test_fixture_path(p, sizeof p, "states/state-7v0-A.pth"),
                                       &err) == RWKV_OK);
        TEST_COND("state file: greeting gone, turns cleared, state defaults",
                  chat_n_turns(ch) == 0 && chat_greeting(ch)[0] == 0 &&
                      chat_sampling(ch)->top_p == 0.2f && chat_sampling(ch)->presence == 0.3f);
        TEST_COND("reply after state file", run_reply(ch, "hi", &err) == RWKV_OK);
    }
}

static void
test_control(void)
{
    rwkv_model *m = open_model("models/tiny-7v0-fp32.pth");
    tok *bt = NULL;
    rwkv_err err;
    chat_config cfg;
    chat *ch = NULL, *ch2 = NULL;
    struct sink *s = calloc(1, sizeof *s);
    chat_callbacks cb = { .text = on_text, .ud = s };
    rwkv_state *replay = NULL;
    char reply1[4096];
    int32_t ids1[512];
    size_t n1;

    if (m == NULL) {
        free(s);
        return;
    }
    tok_create_bytes(&bt, &err);
    chat_config_init(&cfg);
    cfg.samp.temperature = 1.0f;
    cfg.samp.top_p = 0.9f;
    cfg.samp.max_tokens = 40;
    cfg.samp.seed = 1234;
    cfg.samp_set = PARAMS_BIT(params_find("seed"));
    TEST_COND("control chat", chat_create(m, bt, &cfg, &cb, &ch, &err) == RWKV_OK);
    {
        int was_random;
        TEST_COND("seed as given", chat_seed(ch, &was_random) == 1234 && !was_random);
    }
    /* empty message: refused, nothing fed */
    TEST_COND("empty message refused", chat_submit(ch, " \n\n ", 4, &err) == RWKV_EINVAL &&
                                            strstr(err.msg, "say something") != NULL &&
                                            chat_n_turns(ch) == 0 && chat_phase(ch) == CHAT_IDLE);
    TEST_COND("regen with no turn refused", chat_regen(ch, &err) == RWKV_EINVAL);

    /* determinism: same seed -> same reply; a different seed -> different */
    TEST_COND("reply 1", run_reply(ch, "Tell me a story.", &err) == RWKV_OK);
    {
        const chat_turn *t = chat_turn_at(ch, 0);
        snprintf(reply1, sizeof reply1, "%s", t->reply);
        n1 = t->n_reply;
        memcpy(ids1, t->reply_ids, n1 * sizeof(int32_t));
        TEST_COND("max_tokens honoured", t->n_reply <= 40 && t->n_reply > 0);
    }
    cfg.samp_set = PARAMS_BIT(params_find("seed"));
    TEST_COND("chat 2", chat_create(m, bt, &cfg, NULL, &ch2, &err) == RWKV_OK);
    TEST_COND("reply 2", run_reply(ch2, "Tell me a story.", &err) == RWKV_OK);
    TEST_COND("same seed, same reply",
              chat_turn_at(ch2, 0)->n_reply == n1 &&
                  memcmp(chat_turn_at(ch2, 0)->reply_ids, ids1, n1 * sizeof(int32_t)) == 0 &&
                  strcmp(chat_turn_at(ch2, 0)->reply, reply1) == 0);
    chat_destroy(ch2);
    cfg.samp.seed = 99;
    TEST_COND("chat 3", chat_create(m, bt, &cfg, NULL, &ch2, &err) == RWKV_OK);
    TEST_COND("reply 3", run_reply(ch2, "Tell me a story.", &err) == RWKV_OK);
    TEST_COND("different seed, different reply (T=1, top_p 0.9)",
              chat_turn_at(ch2, 0)->n_reply != n1 ||
                  memcmp(chat_turn_at(ch2, 0)->reply_ids, ids1, n1 * sizeof(int32_t)) != 0);
    chat_destroy(ch2);

    /* the state after the reply == before_reply + reply tokens fed one by one */
    rwkv_state_create(m, &replay, &err);
    rwkv_state_copy(replay, chat_state_before_reply(ch));
    for (size_t i = 0; i < n1; i++)
        rwkv_eval(m, &ids1[i], 1, replay, NULL, &err);
    TEST_COND("state == before_reply + reply tokens",
              same_state(replay, chat_state(ch)));

    /* regen with the recorded seed reproduces the reply without prefill */
    chat_set_next_seed(ch, chat_turn_at(ch, 0)->samp.seed);
    TEST_COND("regen", chat_regen(ch, &err) == RWKV_OK && chat_phase(ch) == CHAT_GENERATING);
    chat_run(ch, &err);
    TEST_COND("regen, same seed: same reply", chat_n_turns(ch) == 1 &&
                                                  chat_turn_at(ch, 0)->n_reply == n1 &&
                                                  memcmp(chat_turn_at(ch, 0)->reply_ids, ids1,
                                                         n1 * sizeof(int32_t)) == 0 &&
                                                  chat_turn_at(ch, 0)->n_regen == 1 &&
                                                  chat_last_stats(ch)->prefill_tokens == 0);
    {
        uint64_t before = chat_turn_at(ch, 0)->samp.seed;
        TEST_COND("regen: new seed", chat_regen(ch, &err) == RWKV_OK);
        chat_run(ch, &err);
        TEST_COND("regen draws a new seed", chat_turn_at(ch, 0)->samp.seed != before);
    }

    control_cancel(m, ch, replay);

    /* a cancel sent while IDLE does not kill the next reply */
    chat_cancel(ch);
    TEST_COND("cancel while idle is void",
              run_reply(ch, "still there?", &err) == RWKV_OK &&
                  chat_turn_at(ch, chat_n_turns(ch) - 1)->n_reply > 0 &&
                  !chat_turn_at(ch, chat_n_turns(ch) - 1)->interrupted);

    /* reset: back to the post-greeting state, no re-prefill */
    chat_reset(ch);
    TEST_COND("reset clears turns", chat_n_turns(ch) == 0 && chat_greeting_fed(ch));
    TEST_COND("reset state == start",
              same_state(chat_state(ch), chat_state_start(ch)));

    control_state_file(ch);
    rwkv_state_destroy(replay);
    chat_destroy(ch);
    tok_close(bt);
    rwkv_model_close(m);
    free(s);
}

/* ---- resume: restore + push_turn + set_turn_start, then regen ------------ */

static void
test_resume(void)
{
    rwkv_model *m = open_model("models/tiny-7v0-fp32.pth");
    tok *bt = NULL;
    rwkv_err err;
    chat_config cfg;
    chat *a = NULL, *b = NULL;
    rwkv_state *ts = NULL;
    const chat_turn *t0, *t1;

    if (m == NULL)
        return;
    tok_create_bytes(&bt, &err);
    chat_config_init(&cfg);
    cfg.samp.max_tokens = 24;
    cfg.samp.top_p = 0.8f;
    cfg.samp.seed = 77;
    cfg.samp_set = PARAMS_BIT(params_find("seed"));
    TEST_COND("resume: chat a", chat_create(m, bt, &cfg, NULL, &a, &err) == RWKV_OK);
    TEST_COND("resume: reply", run_reply(a, "Where is Paris?", &err) == RWKV_OK);
    rwkv_state_create(m, &ts, &err);
    rwkv_state_copy(ts, chat_state_turn_start(a));
    t0 = chat_turn_at(a, 0);

    TEST_COND("resume: chat b", chat_create(m, bt, &cfg, NULL, &b, &err) == RWKV_OK);
    {
        /* a saved reply whose end is not recorded: the chat works it out
        ** from its tokens (byte tokenizer: id = byte) and the stop strings */
        static const int32_t ended[3] = { 'O', '\n', '\n' };
        chat_turn u = *t0;
        u.stop = CHAT_STOP_NONE;
        u.reply_ids = (int32_t *)ended;
        u.n_reply = 3;
        TEST_COND("resume: push turn ending at the stop", chat_push_turn(b, &u, &err) == RWKV_OK);
        TEST_CONDF(chat_turn_at(b, 0)->stop == CHAT_STOP_STRING, "inferred stop %d",
                   chat_turn_at(b, 0)->stop);
        u.n_reply = 2;   /* "O\n": the stop string never completed */
        TEST_COND("resume: push cut turn", chat_push_turn(b, &u, &err) == RWKV_OK);
        TEST_COND("resume: cut reply ended at the length limit",
                  chat_turn_at(b, 1)->stop == CHAT_STOP_MAX_TOKENS);
        u.n_reply = 3;
        u.interrupted = 1;
        TEST_COND("resume: push interrupted turn", chat_push_turn(b, &u, &err) == RWKV_OK);
        TEST_COND("resume: interrupted means cancelled", chat_turn_at(b, 2)->stop == CHAT_STOP_CANCEL);
        chat_reset(b);
    }
    TEST_COND("resume: push turn", chat_push_turn(b, t0, &err) == RWKV_OK);
    chat_restore_state(b, chat_state(a), t0->stop != CHAT_STOP_STRING);
    TEST_COND("resume: regen without snapshots refused", chat_regen(b, &err) == RWKV_EINVAL);
    TEST_COND("resume: restored state",
              same_state(chat_state(b), chat_state(a)));
    chat_set_turn_start(b, ts);
    chat_set_next_seed(b, t0->samp.seed);
    TEST_COND("resume: regen re-prefills", chat_regen(b, &err) == RWKV_OK && chat_phase(b) == CHAT_PREFILL);
    chat_run(b, &err);
    t1 = chat_turn_at(b, 0);
    TEST_COND("resume: regen reproduces the reply",
              chat_n_turns(b) == 1 && t1->n_reply == t0->n_reply &&
                  memcmp(t1->reply_ids, t0->reply_ids, t0->n_reply * sizeof(int32_t)) == 0 &&
                  strcmp(t1->reply, t0->reply) == 0 && t1->stats.prefill_tokens == t0->n_prompt);
    TEST_COND("resume: same final state",
              same_state(chat_state(b), chat_state(a)));
    /* a follow-up works and carries the separator rule */
    TEST_COND("resume: next turn", run_reply(b, "And Rome?", &err) == RWKV_OK && chat_n_turns(b) == 2);
    /* B never fed its own greeting: a reset after the restore must go back
    ** to the fresh state and feed the greeting again, like chat A's start. */
    chat_reset(b);
    TEST_COND("resume: reset after restore un-feeds the greeting", !chat_greeting_fed(b));
    TEST_COND("resume: reply after reset", run_reply(b, "Where is Paris?", &err) == RWKV_OK);
    TEST_COND("resume: reset+reply equals the original first reply",
              chat_n_turns(b) == 1 && chat_turn_at(b, 0)->n_prompt == t0->n_prompt);
    TEST_COND("resume: greeting fed again (state = A's turn start)",
              same_state(chat_state_turn_start(b), ts));
    rwkv_state_destroy(ts);
    chat_destroy(a);
    chat_destroy(b);
    tok_close(bt);
    rwkv_model_close(m);
}

/* ---- think modes ------------------------------------------------------------- */

/* 1 when turn T's prompt tokens are the tokens of WANT (encoded alone). */
static int
prompt_is(const tok *t, const chat_turn *tu, const char *want)
{
    int32_t *ids = NULL;
    size_t n = 0;
    int ok;

    if (tok_encode(t, want, strlen(want), &ids, &n, NULL) != RWKV_OK)
        return 0;
    ok = n == tu->n_prompt && memcmp(ids, tu->prompt_ids, n * sizeof *ids) == 0;
    free(ids);
    return ok;
}

static void
think_prompts(chat *ch, const tok *wt)
{
    static const struct {
        int mode;
        const char *prompt, *head;
    } cases[] = {
        { CHAT_THINK_OFF,   "User: hi\n\nAssistant:", "" },
        { CHAT_THINK_ON,    "User: hi\n\nAssistant: <think", " <think" },
        { CHAT_THINK_SHORT, "User: hi think a bit\n\nAssistant: <think", " <think" },
        { CHAT_THINK_LONG,  "User: hi think a lot\n\nAssistant: <think", " <think" },
        { CHAT_THINK_SKIP,  "User: hi\n\nAssistant: <think>\n</think", " <think>\n</think" },
    };
    rwkv_err err;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const chat_turn *t;
        chat_reset(ch);
        chat_set_think(ch, cases[i].mode);
        TEST_CONDF(chat_submit(ch, "hi", 2, &err) == RWKV_OK && chat_run(ch, &err) == RWKV_OK,
                   "think %s: reply: %s", chat_think_name(cases[i].mode), err.msg);
        t = chat_turn_at(ch, 0);
        if (t == NULL)
            continue;
        TEST_CONDF(prompt_is(wt, t, cases[i].prompt), "think %s: prompt tokens",
                   chat_think_name(cases[i].mode));
        TEST_CONDF(strcmp(t->head, cases[i].head) == 0 &&
                       strncmp(t->reply, cases[i].head, strlen(cases[i].head)) == 0,
                   "think %s: reply '%.40s' starts with the head",
                   chat_think_name(cases[i].mode), t->reply);
        TEST_CONDF(t->stop == CHAT_STOP_MAX_TOKENS && t->n_reply == 3,
                   "think %s: the stop string \"think\" is looked for in generated text only "
                   "(stop %d after %zu tokens)", chat_think_name(cases[i].mode), t->stop,
                   t->n_reply);
    }
}

static void
test_think(void)
{
    char vpath[1024];
    tok *wt = NULL;
    rwkv_model *m;
    rwkv_err err;
    chat_config cfg;
    chat *ch = NULL, *b = NULL;
    struct sink *s = calloc(1, sizeof *s);
    chat_callbacks cb = { .text = on_text, .ud = s };
    const chat_turn *t;
    int mode = -1;

    TEST_COND("think names", strcmp(chat_think_name(CHAT_THINK_SHORT), "short") == 0 &&
                                 chat_think_parse("skip", &mode, &err) == RWKV_OK &&
                                 mode == CHAT_THINK_SKIP &&
                                 chat_think_parse("deep", &mode, &err) == RWKV_EINVAL &&
                                 strstr(err.msg, "short") != NULL);
    if (!test_have_fixture("models/world-7v0-rand-bf16.pth", 8) ||
        tok_open_world(test_fixture_path(vpath, sizeof vpath, "rwkv_vocab_v20230424.txt"), &wt,
                       &err) != RWKV_OK) {
        free(s);
        return;
    }
    m = open_model("models/world-7v0-rand-bf16.pth");
    chat_config_init(&cfg);
    cfg.samp.max_tokens = 3;
    cfg.samp.seed = 7;
    cfg.samp_set = PARAMS_BIT(params_find("seed"));
    /* "think" is a stop string the heads hold: only generated text is seen */
    cfg.stop[0] = "think";
    cfg.stop[1] = "\n\n";
    cfg.n_stop = 2;
    cfg.think = "sometimes";
    TEST_COND("think: a bad mode is refused", m && chat_create(m, wt, &cfg, &cb, &ch, &err) ==
                                                      RWKV_EINVAL);
    cfg.think = "on";
    if (m == NULL || chat_create(m, wt, &cfg, &cb, &ch, &err) != RWKV_OK) {
        TEST_CONDF(0, "think chat_create: %s", m ? err.msg : "no model");
        goto out;
    }
    TEST_COND("think: config's mode", chat_think(ch) == CHAT_THINK_ON);
    think_prompts(ch, wt);

    /* the head streams like the reply; a mode change keeps a written
    ** turn's prompt, so regen writes the same head */
    chat_reset(ch);
    chat_set_think(ch, CHAT_THINK_ON);
    sink_reset(s);
    TEST_COND("think: reply", run_reply(ch, "hello", &err) == RWKV_OK);
    t = chat_turn_at(ch, 0);
    TEST_COND("think: streamed text = reply", t && strcmp(s->buf, t->reply) == 0 &&
                                                  strncmp(s->buf, " <think", 7) == 0);
    chat_set_think(ch, CHAT_THINK_OFF);
    TEST_COND("think: regen", chat_regen(ch, &err) == RWKV_OK && chat_run(ch, &err) == RWKV_OK);
    t = chat_turn_at(ch, 0);
    TEST_COND("think: regen keeps the head", t && strncmp(t->reply, " <think", 7) == 0);

    /* a restored turn: the head comes back from the prompt tokens */
    cfg.think = NULL;
    if (chat_create(m, wt, &cfg, NULL, &b, &err) == RWKV_OK && t) {
        chat_turn u = *t;
        u.head = NULL;
        u.stop = CHAT_STOP_NONE;
        TEST_COND("think: push turn", chat_push_turn(b, &u, &err) == RWKV_OK);
        TEST_COND("think: pushed head", strcmp(chat_turn_at(b, 0)->head, " <think") == 0);
        chat_reset(b);
        TEST_COND("think: off reply", run_reply(b, "hello", &err) == RWKV_OK);
        u = *chat_turn_at(b, 0);
        u.head = NULL;
        TEST_COND("think: push off turn", chat_push_turn(b, &u, &err) == RWKV_OK &&
                                              strcmp(chat_turn_at(b, 1)->head, "") == 0);
    }
    chat_destroy(b);
    chat_destroy(ch);
out:
    rwkv_model_close(m);
    tok_close(wt);
    free(s);
}

/* ---- the blank line before "{user}:" (a greeting, a stop string's text) --- */

/* The bytes the next message begins with after a restored reply REPLY that
** ended at one of STOPS (N; 0 = the demo's), the byte tokenizer's ids being
** the bytes: "" after "\n\n", "\n" after "\n", "\n\n" after "User:". */
static void
check_sep(rwkv_model *m, const tok *bt, const char *const *stops, size_t n, const char *reply,
          const char *want)
{
    int32_t ids[32];
    chat_config cfg;
    chat_turn u;
    chat *c = NULL;
    rwkv_state *st = NULL;
    rwkv_err err;
    size_t k = strlen(reply), w = strlen(want);
    const chat_turn *t;

    chat_config_init(&cfg);
    for (size_t i = 0; i < n; i++)
        cfg.stop[i] = stops[i];
    cfg.n_stop = n;
    cfg.samp.max_tokens = 1;
    for (size_t i = 0; i < k; i++)
        ids[i] = (unsigned char)reply[i];
    memset(&u, 0, sizeof u);
    u.user = "hi";
    u.user_len = 2;
    u.prompt_ids = ids;
    u.n_prompt = 1;
    u.reply_ids = ids;
    u.n_reply = k;
    if (chat_create(m, bt, &cfg, NULL, &c, &err) != RWKV_OK ||
        rwkv_state_create(m, &st, &err) != RWKV_OK || chat_push_turn(c, &u, &err) != RWKV_OK) {
        TEST_CONDF(0, "sep '%s': %s", reply, err.msg);
        goto out;
    }
    TEST_CONDF(chat_turn_at(c, 0)->stop == CHAT_STOP_STRING, "sep: '%s' not at a stop", reply);
    chat_restore_state(c, st, 0);
    TEST_COND("sep: submit", chat_submit(c, "x", 1, &err) == RWKV_OK);
    t = chat_turn_at(c, 1);
    TEST_CONDF(t != NULL && t->n_prompt > w + 7, "sep '%s': no prompt", reply);
    for (size_t i = 0; t != NULL && i < w + 5 && i < t->n_prompt; i++)
        if (t->prompt_ids[i] != (unsigned char)(i < w ? want[i] : "User:"[i - w])) {
            TEST_CONDF(0, "sep after '%s': byte %zu is %d", reply, i, (int)t->prompt_ids[i]);
            break;
        }
    chat_cancel(c);
    chat_run(c, &err);
out:
    rwkv_state_destroy(st);
    chat_destroy(c);
}

static void
test_blank_line(void)
{
    static const char *const user[] = { "User:" }, *const nl[] = { "\n" };
    static const char *const two[] = { "QQ", "\n\n" };
    static const struct { const char *given, *fed; } greet[] = {
        { "Bot here.", "Bot here.\n\n" }, { "Bot here.\n", "Bot here.\n\n" },
        { "Bot here.\n\n", "Bot here.\n\n" }, { "", "" },
    };
    rwkv_model *m = open_model("models/tiny-7v0-fp32.pth");
    tok *bt = NULL;
    rwkv_err err;

    if (m == NULL)
        return;
    tok_create_bytes(&bt, &err);
    check_sep(m, bt, NULL, 0, "ok\n\n", "");
    check_sep(m, bt, two, 2, "ok\n\n", "");
    check_sep(m, bt, user, 1, "ok\n\nUser:", "\n\n");
    check_sep(m, bt, nl, 1, "ok\n", "\n");
    for (size_t i = 0; i < sizeof greet / sizeof greet[0]; i++) {
        chat_config cfg;
        chat *c = NULL;
        chat_config_init(&cfg);
        cfg.greeting = greet[i].given;
        TEST_CONDF(chat_create(m, bt, &cfg, NULL, &c, &err) == RWKV_OK &&
                       strcmp(chat_greeting(c), greet[i].fed) == 0,
                   "greeting '%s' fed as '%s'", greet[i].given, c ? chat_greeting(c) : "?");
        chat_destroy(c);
    }
    tok_close(bt);
    rwkv_model_close(m);
}

int
main(void)
{
    test_normalize();
    test_stream();
    test_generation_e2e();
    test_world_flow();
    test_control();
    test_resume();
    test_think();
    test_blank_line();
    return TEST_REPORT();
}
