/*
** test_chat_inline.c -- ChatRWKV chat.py's "-temp=X" / "-top_p=Y" in a
** message (core/chat: chat_inline_sampling), the rule both front ends take
** a message through, and the runtime's one-reply values
** (storage/session.h: sess_reply_sampling):
**
**   - whole words with a number only, the first of each, clamped as chat.py
**     does (temperature 0.2..5, a negative top_p 0); taken out of the text;
**   - a value out of range: -1, the word named in the error, the text and
**     the values as they were (also when the other word was fine);
**   - the reply samples with them (its turn records them), the session
**     keeps its own values while it runs and after, and the chat's own
**     values are back when it ends -- also when its start fails.
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

/* TEXT through chat_inline_sampling from the defaults: its status, the
** text left in OUT, the values in *V and *SET. */
static int
parse(const char *text, char *out, size_t cap, rwkv_sampling *v, unsigned *set, rwkv_err *err)
{
    size_t n = strlen(text);
    int r;

    params_defaults(v);
    *set = 0;
    snprintf(out, cap, "%s", text);
    r = chat_inline_sampling(out, &n, v, set, err);
    if (n != strlen(out))
        return -2;            /* *N does not say the text's length */
    return r;
}

static void
parser_cases(void)
{
    static const struct {
        const char *in, *out;
        int ret;
        double temp, top_p;       /* < 0: the default's */
    } cs[] = {
        { "hello -temp=0.5 -top_p=0.7", "hello  ", 1, 0.5, 0.7 },
        { "-top_p=0.9 -temp=0.3 hi", "  hi", 1, 0.3, 0.9 },
        { "hi -temp=0", "hi ", 1, 0.2, -1 },
        { "hi -temp=9", "hi ", 1, 5, -1 },
        { "a -top_p=-1 b", "a  b", 1, -1, 0 },
        { "x-temp=1 -temp=hot done", "x-temp=1 -temp=hot done", 0, -1, -1 },
        { "-temp=1.5\nline -temp=0.4", "\nline -temp=0.4", 1, 1.5, -1 },
        { "-temp=", "-temp=", 0, -1, -1 },
        { "-temp=inf -temp=nan go", "-temp=inf -temp=nan go", 0, -1, -1 },
        { "-temp=0.5x", "-temp=0.5x", 0, -1, -1 },
        { "plain text", "plain text", 0, -1, -1 },
        { "", "", 0, -1, -1 },
    };
    rwkv_sampling d;
    int ti = params_find("temperature"), pi = params_find("top_p");

    params_defaults(&d);
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        char out[128];
        rwkv_sampling v;
        unsigned set, want_set = 0;
        rwkv_err err;
        int r = parse(cs[i].in, out, sizeof out, &v, &set, &err);
        double t = cs[i].temp < 0 ? d.temperature : cs[i].temp;
        double p = cs[i].top_p < 0 ? d.top_p : cs[i].top_p;
        if (cs[i].temp >= 0)
            want_set |= PARAMS_BIT(ti);
        if (cs[i].top_p >= 0)
            want_set |= PARAMS_BIT(pi);
        TEST_CONDF(r == cs[i].ret && strcmp(out, cs[i].out) == 0 &&
                       fabs(v.temperature - t) < 1e-6 && fabs(v.top_p - p) < 1e-6 && set == want_set,
                   "'%s': %d '%s' temperature %g top_p %g set %#x (want %d '%s' %g %g %#x)",
                   cs[i].in, r, out, (double)v.temperature, (double)v.top_p, set, cs[i].ret,
                   cs[i].out, t, p, want_set);
    }
    /* refused: the text and the values as they were, the word named */
    {
        char out[128];
        rwkv_sampling v;
        unsigned set;
        rwkv_err err = { 0 };
        int r = parse("ok -temp=0.5 bad -top_p=2", out, sizeof out, &v, &set, &err);
        TEST_CONDF(r == -1 && strcmp(out, "ok -temp=0.5 bad -top_p=2") == 0 &&
                       v.temperature == d.temperature && v.top_p == d.top_p && set == 0,
                   "top_p 2 refused, nothing taken: %d '%s' %g %g %#x", r, out,
                   (double)v.temperature, (double)v.top_p, set);
        TEST_CONDF(strncmp(err.msg, "-top_p=2: ", 10) == 0 && strstr(err.msg, "out of range"),
                   "the error names the word: '%s'", err.msg);
    }
}

/* ---- the runtime: one reply's values ----------------------------------- */

static sess *g_s;
static int cancel_at_text;        /* the next streamed text cancels the reply */
static float seen_temp = -1;      /* the chat's temperature while the reply streamed */
static float saved_temp = -1;     /* the session's own, read meanwhile */

static void
on_text(void *ud, const char *text, size_t len)
{
    rwkv_sampling v;
    int found = 0;
    rwkv_err err;

    (void)ud;
    (void)text;
    (void)len;
    seen_temp = chat_sampling(sess_chat(g_s))->temperature;
    if (cancel_at_text) {
        cancel_at_text = 0;
        sess_cancel(g_s);
    }
    if (sess_id(g_s) > 0 &&
        store_session_sampling(sess_store(g_s), sess_id(g_s), &v, &found, &err) == RWKV_OK && found)
        saved_temp = v.temperature;
}

static void
runtime_cases(void)
{
    rwkv_model *m = NULL;
    tok *t = NULL;
    sess_config sc;
    sess *s;
    char db[600];
    rwkv_sampling v, own;
    unsigned set, own_set;
    int found = 0;
    rwkv_err err;
    const chat_turn *ct;

    if (sess_test_demo(NULL, &m, &t) != 0)
        goto out;
    test_tmp_path(db, sizeof db, "inline.db");
    sess_test_config(&sc, m, t, db, 3, 4);
    sc.chat.no_stop = 1;
    sc.cb.text = on_text;
    if ((g_s = s = sess_test_create(&sc)) == NULL)
        goto out;
    if (say(s, "first") != 0) {
        TEST_COND("a first reply", 0);
        goto out;
    }
    own = *chat_sampling(sess_chat(s));
    own_set = chat_sampling_set(sess_chat(s));
    v = own;
    set = own_set;
    v.temperature = 0.3f;
    set |= PARAMS_BIT(params_find("temperature"));
    sess_reply_sampling(s, &v, set);
    seen_temp = saved_temp = -1;
    TEST_COND("the second reply", say(s, "second") == 0);
    ct = chat_turn_at(sess_chat(s), chat_n_turns(sess_chat(s)) - 1);
    TEST_CONDF(fabsf(seen_temp - 0.3f) < 1e-6 && fabsf(ct->samp.temperature - 0.3f) < 1e-6,
               "the reply sampled with 0.3 (streamed under %g, recorded %g)", (double)seen_temp,
               (double)ct->samp.temperature);
    TEST_CONDF(fabsf(saved_temp - own.temperature) < 1e-6,
               "the session kept its own temperature while it ran (%g)", (double)saved_temp);
    TEST_CONDF(chat_sampling(sess_chat(s))->temperature == own.temperature &&
                   chat_sampling_set(sess_chat(s)) == own_set,
               "the chat's own values back after it (%g)",
               (double)chat_sampling(sess_chat(s))->temperature);
    TEST_CONDF(store_session_sampling(sess_store(s), sess_id(s), &v, &found, &err) == RWKV_OK &&
                   found && v.temperature == own.temperature,
               "the session's own values saved (%g)", (double)v.temperature);
    /* a reply cancelled while it streams: the values come back */
    v = own;
    v.temperature = 2;
    sess_reply_sampling(s, &v, set);
    cancel_at_text = 1;
    seen_temp = -1;
    TEST_COND("a cancelled reply", say(s, "third") == 0);
    TEST_CONDF(seen_temp == 2 && chat_sampling(sess_chat(s))->temperature == own.temperature,
               "cancelled: streamed under %g, then the own values (%g)", (double)seen_temp,
               (double)chat_sampling(sess_chat(s))->temperature);
    /* a start that fails (nothing to say): the values come back too */
    v = own;
    v.temperature = 4;
    sess_reply_sampling(s, &v, set);
    TEST_COND("an empty message refused", sess_submit(s, "", 0, &err) != RWKV_OK);
    TEST_CONDF(chat_sampling(sess_chat(s))->temperature == own.temperature,
               "its values gone after the refusal (%g)",
               (double)chat_sampling(sess_chat(s))->temperature);
    /* ended by the front end (no reply started): a second end is nothing */
    sess_reply_sampling(s, &v, set);
    sess_reply_sampling_end(s);
    sess_reply_sampling_end(s);
    TEST_COND("sess_reply_sampling_end: the own values",
              chat_sampling(sess_chat(s))->temperature == own.temperature);
out:
    sess_destroy(g_s);
    rwkv_model_close(m);
    tok_close(t);
}

int
main(void)
{
    parser_cases();
    if (test_tmpdir("rwkv-test-chat-inline") == NULL)
        return 1;
    runtime_cases();
    test_tmpdir_remove();
    return TEST_REPORT();
}
