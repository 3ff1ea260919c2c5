/*
** test_framing.c -- the chat's framing (storage/framing.h): the role names
** in the prompt and the demo greeting (the defaults byte for byte the
** demo's), the value's checks and text forms, its JSON form, and its life
** in the database on real SQLite files in a temp dir: saved with a session
** and used again on resume, changed in place or by leaving the session,
** copied by a fork, exported and imported, carried by presets, and a v3
** database (made before the framing was kept) migrated with its sessions
** read as the defaults.  Model: the in-memory demo model, byte tokenizer.
*/
#include "../harness.h"

#include <stdint.h>

#include "../../core/chat/chat.h"
#include "../../core/rwkv.h"
#include "../../core/text/tokenizer.h"
#include "../../storage/framing.h"
#include "../../storage/session.h"
#include "../../storage/store.h"
#include "session_test.h"

/* ---- core: names, prompt and greeting ------------------------------------ */

static void
test_names(void)
{
    char *g = chat_demo_greeting(NULL, NULL);
    rwkv_err err;

    TEST_COND("default greeting is the demo's byte for byte",
              g && strcmp(g, CHAT_DEMO_GREETING) == 0);
    free(g);
    g = chat_demo_greeting("Bob", "Alice");
    TEST_COND("named greeting", g && strncmp(g, "Bob: hi\n\nAlice: Hi. I am your assistant", 39) == 0);
    free(g);
    TEST_COND("name ok", chat_name_check("u", "Bob", &err) == RWKV_OK);
    TEST_COND("name CJK ok", chat_name_check("u", "\xe5\xb0\x8f\xe6\x98\x8e", &err) == RWKV_OK);
    TEST_COND("empty name", chat_name_check("u", "", &err) == RWKV_EINVAL);
    TEST_COND("colon", chat_name_check("u", "a:b", &err) == RWKV_EINVAL);
    TEST_COND("newline", chat_name_check("u", "a\nb", &err) == RWKV_EINVAL);
    TEST_COND("blank end", chat_name_check("u", "Bob ", &err) == RWKV_EINVAL);
    TEST_COND("bad utf-8", chat_name_check("u", "\xff", &err) == RWKV_EINVAL);
    TEST_COND("too long", chat_name_check("u", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                                          &err) == RWKV_EINVAL);
}

/* The text of IDS. */
static char *
text_of(const tok *t, const int32_t *ids, size_t n)
{
    char *s = NULL;
    size_t len;
    rwkv_err err;

    if (tok_decode(t, ids, n, &s, &len, &err) != RWKV_OK)
        return NULL;
    return s;
}

/* The prompt and greeting fed for USER/BOT (NULL = defaults). */
static void
check_prompt(rwkv_model *m, const tok *t, const char *user, const char *bot, const char *want,
             const char *want_greet)
{
    chat_config cfg;
    chat *c = NULL;
    rwkv_err err;
    char *p;
    const char *g;

    chat_config_init(&cfg);
    cfg.user_name = user;
    cfg.bot_name = bot;
    cfg.samp.max_tokens = 2;
    if (chat_create(m, t, &cfg, NULL, &c, &err) != RWKV_OK) {
        TEST_CONDF(0, "chat_create: %s", err.msg);
        return;
    }
    TEST_COND("submit", chat_submit(c, " hello ", 7, &err) == RWKV_OK && chat_run(c, &err) == RWKV_OK);
    p = text_of(t, chat_turn_at(c, 0)->prompt_ids, chat_turn_at(c, 0)->n_prompt);
    g = chat_greeting(c);
    TEST_CONDF(p && strcmp(p, want) == 0, "prompt '%s', want '%s'", p ? p : "?", want);
    TEST_CONDF(g && strcmp(g, want_greet) == 0, "greeting '%.40s'", g ? g : "?");
    free(p);
    chat_destroy(c);
}

static void
test_prompt(rwkv_model *m, const tok *t)
{
    char *g = chat_demo_greeting("Bob", "Alice");
    rwkv_err err;
    chat_config cfg;
    chat *c = NULL;

    check_prompt(m, t, NULL, NULL, "User: hello\n\nAssistant:", CHAT_DEMO_GREETING);
    check_prompt(m, t, "Bob", "Alice", "Bob: hello\n\nAlice:", g);
    free(g);
    chat_config_init(&cfg);
    cfg.user_name = "x:y";
    TEST_COND("bad name refused by chat_create",
              chat_create(m, t, &cfg, NULL, &c, &err) == RWKV_EINVAL && c == NULL);
}

/* ---- the value ------------------------------------------------------------ */

static void
test_value(void)
{
    framing f, g;
    rwkv_err err;
    char buf[512], *j;

    framing_init(&f);
    framing_init(&g);
    TEST_COND("defaults equal", framing_equal(&f, &g));
    TEST_COND("stops text", framing_set_stops_text(&f, "a\\,b,\\n\\nBob:", &err) == RWKV_OK &&
                            f.n_stop == 2 && strcmp(f.stop[0], "a,b") == 0 &&
                            strcmp(f.stop[1], "\n\nBob:") == 0);
    framing_stops_text(&f, buf, sizeof buf);
    TEST_CONDF(strcmp(buf, "a\\,b,\\n\\nBob:") == 0, "stops text back: %s", buf);
    TEST_COND("empty stop item refused", framing_set_stops_text(&g, "a,,b", &err) == RWKV_EINVAL &&
                                         g.n_stop == 0);
    TEST_COND("ban text", framing_set_ban_text(&f, "0,11,7", &err) == RWKV_OK && f.n_ban == 3);
    framing_ban_text(&f, buf, sizeof buf);
    TEST_COND("ban text back", strcmp(buf, "0,11,7") == 0);
    TEST_COND("bad ban", framing_set_ban_text(&f, "1,-2", &err) == RWKV_EINVAL && f.n_ban == 3);
    TEST_COND("names", framing_set_user(&f, "Bob", &err) == RWKV_OK &&
                       framing_set_bot(&f, "Alice", &err) == RWKV_OK);
    TEST_COND("bad name keeps", framing_set_user(&f, "B:b", &err) == RWKV_EINVAL &&
                                strcmp(framing_user(&f), "Bob") == 0);
    TEST_COND("greeting", framing_set_greeting(&f, "Hi.\n\n", &err) == RWKV_OK);
    TEST_COND("differs", !framing_equal(&f, &g) && !framing_same_prompt(&f, &g));
    j = framing_encode(&f);
    TEST_COND("decode", j && framing_decode(j, strlen(j), "t", &g, &err) == RWKV_OK);
    TEST_CONDF(framing_equal(&f, &g), "round trip of %s", j ? j : "?");
    free(j);
    /* only stops/bans differ: same prompt */
    TEST_COND("stop only", framing_set_stops_text(&g, "", &err) == RWKV_OK &&
                           framing_same_prompt(&f, &g) && !framing_equal(&f, &g));
    /* "User"/"Assistant" read back as unset: the demo greeting follows */
    {
        static const char dj[] = "{\"user\":\"User\",\"bot\":\"Assistant\"}";
        TEST_COND("explicit defaults", framing_decode(dj, strlen(dj), "t", &g, &err) == RWKV_OK);
    }
    framing_fini(&f);
    TEST_COND("defaults again", framing_equal(&f, &g) && g.user[0] == '\0');
    {
        static const char *const bad[] = {
            "[]", "{\"user\": 3}", "{\"user\": \"a:b\"}", "{\"stop\": [1]}", "{\"stop\": [\"\"]}",
            "{\"ban\": [-1]}", "{\"ban\": [1.5]}", "{\"ban\": \"1\"}", "{\"greeting\": \"\\u0000\"}",
            "{\"stop\": [\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\"]}", "{",
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            int rc = framing_decode(bad[i], strlen(bad[i]), "t", &g, &err);
            TEST_CONDF(rc == RWKV_EFORMAT && framing_equal(&f, &g) && strchr(err.msg, '\n') == NULL,
                       "bad framing %s: rc %d %s", bad[i], rc, err.msg);
        }
    }
    framing_fini(&f);
    framing_fini(&g);
}

/* The think mode in the value: default off (not written), set, round trip,
** merge (an "off" given wins over a mode). */
static void
test_think_value(void)
{
    framing f, g, off;
    rwkv_err err;
    chat_config cfg;
    char *j;

    framing_init(&f);
    framing_init(&g);
    framing_init(&off);
    TEST_COND("think default off", framing_think(&f) == CHAT_THINK_OFF);
    j = framing_encode(&f);
    TEST_CONDF(j && strstr(j, "think") == NULL, "default not written: %s", j ? j : "?");
    free(j);
    TEST_COND("think bad refused", framing_set_think(&f, "deep", &err) == RWKV_EINVAL &&
                                   f.think[0] == '\0' && strstr(err.msg, "deep") != NULL);
    TEST_COND("think set", framing_set_think(&f, "short", &err) == RWKV_OK &&
                           framing_think(&f) == CHAT_THINK_SHORT);
    TEST_COND("think differs, same prompt", !framing_equal(&f, &g) && framing_same_prompt(&f, &g));
    j = framing_encode(&f);
    TEST_CONDF(j && strstr(j, ", \"think\": \"short\"}") != NULL, "written: %s", j ? j : "?");
    TEST_COND("think decode", j && framing_decode(j, strlen(j), "t", &g, &err) == RWKV_OK &&
                              framing_equal(&f, &g) && framing_think(&g) == CHAT_THINK_SHORT);
    free(j);
    {
        static const char oj[] = "{\"think\": \"off\"}";
        static const char bj[] = "{\"think\": \"maybe\"}";
        static const char nj[] = "{\"think\": 1}";
        TEST_COND("think off read as unset", framing_decode(oj, strlen(oj), "t", &g, &err) ==
                                                 RWKV_OK && g.think[0] == '\0');
        TEST_CONDF(framing_decode(bj, strlen(bj), "t", &g, &err) == RWKV_EFORMAT &&
                       strstr(err.msg, "maybe") != NULL, "bad think: %s", err.msg);
        TEST_COND("think not a string", framing_decode(nj, strlen(nj), "t", &g, &err) ==
                                            RWKV_EFORMAT);
    }
    /* through a chat config and back (the launch path) */
    chat_config_init(&cfg);
    framing_to_config(&f, &cfg);
    TEST_COND("think to config", cfg.think && strcmp(cfg.think, "short") == 0);
    TEST_COND("think from config", framing_from_config(&g, &cfg, &err) == RWKV_OK &&
                                   framing_think(&g) == CHAT_THINK_SHORT);
    /* merge: unset keeps, a mode replaces, "off" given wins */
    framing_fini(&g);
    TEST_COND("merge unset keeps", framing_merge(&f, &g, FRAMING_ALL, &err) == RWKV_OK &&
                                   framing_think(&f) == CHAT_THINK_SHORT);
    framing_set_think(&off, "off", &err);
    TEST_COND("merge off outside mask", framing_merge(&f, &off, FRAMING_STOP, &err) == RWKV_OK &&
                                        framing_think(&f) == CHAT_THINK_SHORT);
    TEST_COND("merge off wins", framing_merge(&f, &off, FRAMING_THINK, &err) == RWKV_OK &&
                                framing_think(&f) == CHAT_THINK_OFF);
    framing_fini(&f);
    framing_fini(&g);
    framing_fini(&off);
}

/* ---- sessions -------------------------------------------------------------- */

static sess *
mk(rwkv_model *m, const tok *t, const char *db, const framing *fr)
{
    sess_config sc;

    sess_test_config(&sc, m, t, db, 7, 6);
    if (fr)
        framing_to_config(fr, &sc.chat);
    return sess_test_create(&sc);
}

/* The text of the last prompt fed in S. */
static char *
last_prompt(sess *s, const tok *t)
{
    chat *c = sess_chat(s);
    const chat_turn *ct = chat_turn_at(c, chat_n_turns(c) - 1);
    return text_of(t, ct->prompt_ids, ct->n_prompt);
}

static void
test_session(rwkv_model *m, const tok *t)
{
    char db[400], *p;
    framing bob, got, stop2;
    sess *s, *r;
    rwkv_err err;
    int64_t sid, fork_id, left;
    int lf;
    store *st = NULL;

    test_tmp_path(db, sizeof db, "s.db");
    framing_init(&bob);
    framing_init(&got);
    framing_init(&stop2);
    framing_set_user(&bob, "Bob", &err);
    framing_set_bot(&bob, "Alice", &err);
    framing_set_greeting(&bob, "Bob: yo\n\nAlice: yo.\n\n", &err);
    framing_set_ban_text(&bob, "3,4", &err);
    if ((s = mk(m, t, db, &bob)) == NULL)
        return;
    TEST_COND("say", say(s, "hello") == 0);
    sid = sess_id(s);
    p = last_prompt(s, t);
    TEST_CONDF(p && strstr(p, "Bob: hello\n\nAlice:") == p, "prompt %s", p ? p : "?");
    free(p);
    sess_destroy(s);

    /* resumed by a runtime launched with the defaults: the session's framing */
    if ((r = mk(m, t, db, NULL)) == NULL)
        return;
    TEST_CONDF(sess_open(r, sid, -1, &err) == RWKV_OK, "open: %s", err.msg);
    TEST_COND("framing back on resume", framing_equal(sess_framing(r), &bob));
    TEST_COND("names in the chat", strcmp(chat_user_name(sess_chat(r)), "Bob") == 0);
    TEST_COND("say again", say(r, "more") == 0);
    p = last_prompt(r, t);
    TEST_CONDF(p && strstr(p, "Bob: more\n\nAlice:") != NULL, "resumed prompt %s", p ? p : "?");
    free(p);

    /* stop strings change in place, saved with the session */
    framing_copy(&stop2, &bob, &err);
    framing_set_stops_text(&stop2, "\\n\\nBob:", &err);
    TEST_COND("set stops", sess_set_framing(r, &stop2, &lf, &err) == RWKV_OK && lf == 0 &&
                           sess_id(r) == sid);
    TEST_COND("store", store_open(db, &st, &err) == RWKV_OK);
    TEST_COND("saved stops", store_session_framing(st, sid, &got, &err) == RWKV_OK &&
                             framing_equal(&got, &stop2));
    /* other names leave the session */
    TEST_COND("set names", sess_set_framing(r, &got /* same */, &lf, &err) == RWKV_OK && lf == 0);
    framing_set_user(&got, "Carol", &err);
    TEST_COND("names leave", sess_set_framing(r, &got, &lf, &err) == RWKV_OK && lf == 1 &&
                             sess_id(r) == 0 && chat_n_turns(sess_chat(r)) == 0);
    TEST_COND("new session framing", say(r, "hi") == 0 && sess_id(r) != sid);
    left = sess_id(r);
    framing_fini(&got);
    TEST_COND("new session saved with Carol", store_session_framing(st, left, &got, &err) == RWKV_OK &&
                                              strcmp(framing_user(&got), "Carol") == 0);
    sess_destroy(r);

    /* launched with --stop / --user and resuming: stops win, names are the session's */
    framing_fini(&got);
    framing_set_user(&got, "Dan", &err);
    framing_set_stops_text(&got, "zz", &err);
    if ((r = mk(m, t, db, &got)) != NULL) {
        last_note[0] = '\0';
        TEST_COND("open 2", sess_open(r, sid, -1, &err) == RWKV_OK);
        TEST_COND("names kept", strcmp(framing_user(sess_framing(r)), "Bob") == 0);
        TEST_COND("stop given wins", sess_framing(r)->n_stop == 1 &&
                                     strcmp(sess_framing(r)->stop[0], "zz") == 0);
        TEST_CONDF(strstr(last_note, "keeps its own") != NULL, "note: %s", last_note);
        sess_destroy(r);
    }

    /* fork copies it; export/import carry it */
    {
        store_session ss;
        TEST_CONDF(store_session_get(st, sid, &ss, &err) == RWKV_OK &&
                   store_session_fork(st, sid, ss.head_turn, "f", &fork_id, &err) == RWKV_OK,
                   "fork: %s", err.msg);
    }
    framing_fini(&got);
    TEST_COND("fork framing", store_session_framing(st, fork_id, &got, &err) == RWKV_OK &&
                              strcmp(framing_user(&got), "Bob") == 0);
    {
        char *buf = NULL;
        size_t len = 0;
        int64_t nid = 0;
        framing imp;
        framing_init(&imp);
        TEST_COND("export", store_export(st, sid, STORE_FMT_JSON, &buf, &len, &err) == RWKV_OK &&
                            strstr(buf, "\"framing\": {\"greeting\": \"Bob: yo") != NULL);
        TEST_COND("import", buf && store_import(st, buf, len, "x", &nid, &err) == RWKV_OK);
        TEST_COND("imported framing", store_session_framing(st, nid, &imp, &err) == RWKV_OK &&
                                      framing_equal(&imp, &got));
        free(buf);
        TEST_COND("md names", store_export(st, sid, STORE_FMT_MD, &buf, &len, &err) == RWKV_OK &&
                              strstr(buf, "## Bob") && strstr(buf, "## Alice"));
        free(buf);
        {
            static const char nofr[] = "{\"format\": \"rwkv-tui-session\", \"version\": 1, "
                                       "\"title\": \"old\", \"turns\": []}";
            static const char badfr[] = "{\"format\": \"rwkv-tui-session\", \"version\": 1, "
                                        "\"title\": \"bad\", \"framing\": {\"user\": \"a:b\"}, "
                                        "\"turns\": []}";
            int64_t before = 0;
            TEST_COND("import without framing", store_import(st, nofr, strlen(nofr), "x", &nid,
                                                             &err) == RWKV_OK);
            TEST_COND("... defaults", store_session_framing(st, nid, &imp, &err) == RWKV_OK &&
                                      imp.user[0] == '\0' && imp.greeting == NULL);
            store_session_latest(st, &before, &err);
            TEST_CONDF(store_import(st, badfr, strlen(badfr), "bad.json", &nid, &err) == RWKV_EFORMAT &&
                       strstr(err.msg, "bad.json") != NULL, "bad framing import: %s", err.msg);
        }
        framing_fini(&imp);
    }

    /* presets */
    {
        rwkv_sampling sp;
        framing pf;
        int has = -1;
        framing_init(&pf);
        params_defaults(&sp);
        TEST_COND("preset put", store_preset_put(st, "mine", &sp, NULL, &err) == RWKV_OK);
        TEST_COND("no framing yet", store_preset_framing(st, "mine", &pf, &has, &err) == RWKV_OK &&
                                    has == 0);
        TEST_COND("save framing", store_preset_set_framing(st, "mine", &bob, &err) == RWKV_OK);
        TEST_COND("load framing", store_preset_framing(st, "mine", &pf, &has, &err) == RWKV_OK &&
                                  has == 1 && framing_equal(&pf, &bob));
        TEST_COND("builtin refused", store_preset_set_framing(st, "demo", &bob, &err) == RWKV_EINVAL);
        TEST_COND("absent preset", store_preset_framing(st, "nope", &pf, &has, &err) == RWKV_EINVAL);
        framing_fini(&pf);
    }
    {
        store_model *v = NULL;
        size_t n = 0;
        TEST_COND("model list", store_model_list(st, &v, &n, &err) == RWKV_OK && n >= 1);
        free(v);
    }
    store_close(st);
    framing_fini(&bob);
    framing_fini(&got);
    framing_fini(&stop2);
}

/* The think mode in a session: in place (no new session), saved, the next
** prompt written by it, a launch mode winning on resume, exports. */
static void
test_think_session(rwkv_model *m, const tok *t)
{
    char db[400], *p, *buf = NULL;
    framing on, got;
    sess *s;
    rwkv_err err;
    int64_t sid, nid = 0;
    size_t len = 0;
    int lf = -1;
    store *st = NULL;

    test_tmp_path(db, sizeof db, "think.db");
    framing_init(&on);
    framing_init(&got);
    if ((s = mk(m, t, db, NULL)) == NULL)
        return;
    TEST_COND("think: say", say(s, "hello") == 0);
    sid = sess_id(s);
    framing_set_think(&on, "long", &err);
    TEST_COND("think: in place", sess_set_framing(s, &on, &lf, &err) == RWKV_OK && lf == 0 &&
                                 sess_id(s) == sid && chat_n_turns(sess_chat(s)) == 1 &&
                                 chat_think(sess_chat(s)) == CHAT_THINK_LONG);
    TEST_COND("think: say 2", say(s, "again") == 0 && sess_id(s) == sid);
    p = last_prompt(s, t);
    TEST_CONDF(p && strstr(p, "User: again think a lot\n\nAssistant: <think") != NULL &&
                   strcmp(p + strlen(p) - 7, " <think") == 0, "think prompt %s", p ? p : "?");
    free(p);
    {
        const chat_turn *ct = chat_turn_at(sess_chat(s), 1);
        TEST_COND("think: reply starts with the head", ct && strncmp(ct->reply, " <think", 7) == 0);
        ct = chat_turn_at(sess_chat(s), 0);
        TEST_COND("think: the first turn keeps its prompt", ct && ct->head[0] == '\0');
    }
    sess_destroy(s);
    TEST_COND("think: store", store_open(db, &st, &err) == RWKV_OK);
    TEST_COND("think: saved", store_session_framing(st, sid, &got, &err) == RWKV_OK &&
                              framing_think(&got) == CHAT_THINK_LONG);
    TEST_COND("think: export", store_export(st, sid, STORE_FMT_JSON, &buf, &len, &err) == RWKV_OK &&
                               strstr(buf, "\"think\": \"long\"") != NULL &&
                               strstr(buf, "\"text\": \" <think") != NULL);
    TEST_COND("think: import", buf && store_import(st, buf, len, "x", &nid, &err) == RWKV_OK &&
                               store_session_framing(st, nid, &got, &err) == RWKV_OK &&
                               framing_think(&got) == CHAT_THINK_LONG);
    free(buf);
    store_close(st);

    /* resumed: its own mode; a mode given at launch ("off" too) wins */
    if ((s = mk(m, t, db, NULL)) != NULL) {
        TEST_COND("think: resumed", sess_open(s, sid, -1, &err) == RWKV_OK &&
                                    chat_think(sess_chat(s)) == CHAT_THINK_LONG);
        TEST_COND("think: regen keeps the head", sess_regen(s, &err) == RWKV_OK &&
                  strncmp(chat_turn_at(sess_chat(s), 1)->reply, " <think", 7) == 0);
        sess_destroy(s);
    }
    framing_fini(&on);
    framing_set_think(&on, "off", &err);
    if ((s = mk(m, t, db, &on)) != NULL) {
        TEST_COND("think: launch off wins", sess_open(s, sid, -1, &err) == RWKV_OK &&
                                            chat_think(sess_chat(s)) == CHAT_THINK_OFF &&
                                            framing_think(sess_framing(s)) == CHAT_THINK_OFF);
        sess_destroy(s);
    }
    framing_fini(&on);
    framing_fini(&got);
}

/* A v3 database (before the framing was kept): migrated, read as defaults. */
static void
test_migration(rwkv_model *m, const tok *t)
{
    char db[400];
    sess *s;
    store *st = NULL;
    framing f, bob;
    rwkv_err err;
    int64_t sid;

    test_tmp_path(db, sizeof db, "v3.db");
    framing_init(&f);
    framing_init(&bob);
    framing_set_user(&bob, "Bob", &err);
    if ((s = mk(m, t, db, &bob)) == NULL)
        return;
    TEST_COND("say v3", say(s, "old times") == 0);
    sid = sess_id(s);
    sess_destroy(s);
    /* a damaged framing row: the session still opens, with the defaults, said */
    q_exec(db, "UPDATE sessions SET framing='{\"user\": 7' WHERE id=1");
    if ((s = mk(m, t, db, NULL)) != NULL) {
        last_note[0] = '\0';
        TEST_COND("damaged framing: opens", sess_open(s, sid, -1, &err) == RWKV_OK);
        TEST_CONDF(strstr(last_note, "default framing is used") != NULL, "note: %s", last_note);
        TEST_COND("damaged framing: defaults", sess_framing(s)->user[0] == '\0');
        sess_destroy(s);
    }
    /* make it the v3 schema again */
    q_exec(db, "ALTER TABLE sessions DROP COLUMN framing; ALTER TABLE presets DROP COLUMN framing;"
            " ALTER TABLE snapshots DROP COLUMN digest; " DROP_V6 "PRAGMA user_version=3;");
    TEST_COND("open migrates", store_open(db, &st, &err) == RWKV_OK);
    TEST_COND("old session: defaults", store_session_framing(st, sid, &f, &err) == RWKV_OK &&
                                       f.user[0] == '\0' && f.greeting == NULL && f.n_stop == 0);
    store_close(st);
    TEST_COND("schema v4 and on", q_int(db, "PRAGMA user_version") == STORE_SCHEMA_VERSION &&
                                      STORE_SCHEMA_VERSION >= 4);
    /* resumed: the old session continues with today's defaults */
    if ((s = mk(m, t, db, NULL)) != NULL) {
        char *p;
        TEST_COND("open old", sess_open(s, sid, -1, &err) == RWKV_OK);
        TEST_COND("say old", say(s, "again") == 0);
        p = last_prompt(s, t);
        TEST_CONDF(p && strstr(p, "User: again\n\nAssistant:") != NULL, "old prompt %s", p ? p : "?");
        free(p);
        sess_destroy(s);
    }
    framing_fini(&f);
    framing_fini(&bob);
}

/* A stop string must be UTF-8 as the greeting and the names are (--stop
** $'\xff' was taken, and the session's JSON, exports and list --json then
** held a raw 0xff); one an older version saved is still read (its session
** must open) and written to JSON as U+FFFD. */
static void
test_stop_utf8(void)
{
    framing f, g;
    rwkv_err err;
    char *j;
    static const char old[] = "{\"greeting\": null, \"user\": \"User\", \"bot\": \"Assistant\","
                              " \"stop\": [\"ok\", \"a\xff\"], \"ban\": []}";

    framing_init(&f);
    TEST_COND("stop: ill-formed refused", framing_add_stop(&f, "a\xff", &err) == RWKV_EINVAL &&
                                          strcmp(err.msg, "stop: not valid UTF-8") == 0 &&
                                          f.n_stop == 0);
    TEST_COND("stop: a cut sequence refused", framing_add_stop(&f, "\xe4\xb8", &err) == RWKV_EINVAL);
    TEST_COND("stop: the text form too", framing_set_stops_text(&f, "x,\xc3", &err) == RWKV_EINVAL &&
                                         f.n_stop == 0);
    TEST_COND("stop: UTF-8 taken", framing_add_stop(&f, "\xe4\xb8\xad\n", &err) == RWKV_OK &&
                                   f.n_stop == 1);
    framing_fini(&f);
    framing_init(&g);
    TEST_CONDF(framing_decode(old, strlen(old), "t", &g, &err) == RWKV_OK && g.n_stop == 2 &&
                   strcmp(g.stop[1], "a\xff") == 0,
               "stop: an old saved one is read: %s", err.msg);
    j = framing_encode(&g);
    TEST_CONDF(j && strstr(j, "\"a\xef\xbf\xbd\"") && !strchr(j, '\xff'),
               "stop: written to JSON as U+FFFD: %s", j ? j : "(null)");
    free(j);
    framing_fini(&g);
}

int
main(void)
{
    rwkv_open_opts o;
    rwkv_model *m = NULL;
    tok *t = NULL;
    rwkv_err err;

    if (test_tmpdir("rwkv-test-framing") == NULL)
        return 1;
    memset(&o, 0, sizeof o);
    o.n_threads = 2;
    test_names();
    test_value();
    test_think_value();
    test_stop_utf8();
    tok_create_bytes(&t, &err);
    TEST_COND("demo model", rwkv_model_open_demo(1, &o, &m, &err) == RWKV_OK);
    if (m != NULL) {
        test_prompt(m, t);
        test_session(m, t);
        test_think_session(m, t);
        test_migration(m, t);
    }
    rwkv_model_close(m);
    tok_close(t);
    test_tmpdir_remove();
    return TEST_REPORT();
}
