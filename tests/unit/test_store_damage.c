/*
** test_store_damage.c -- the session store on tampered and damaged
** databases, and the hygiene of what goes in and out of it.  Real SQLite
** files in a temp dir; the damage is done through sqlite3 directly, as an
** attacker or a bad disk would:
**   - a parent loop (a turn's parent_id pointing into its own subtree) never
**     hangs a walk: path, leaf, fork, replay plan, restore, export all fail
**     with "turn N: parent loop in the database";
**   - a 10,000-turn chain is deleted (the ON DELETE cascade used to stop at
**     SQLite's 1000 levels of trigger recursion);
**   - damaged rows (token blob of a wrong length, sampling text that does not
**     parse, invalid UTF-8, escape codes) do not block export: the readable
**     part is exported, the damage is named;
**   - import and export clean text (U+FFFD for controls and invalid UTF-8),
**     Markdown export escapes Markdown;
**   - import keeps the model (path, fingerprint, vocabulary) and links it;
**   - a v2 database (unicode61 index, no models.vocab) is migrated to v3.
*/
#include <sqlite3.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../core/text/utf8.h"
#include "../../storage/store.h"
#include "../harness.h"
#include "store_test.h"

static const store_state_meta META = { 0x0123456789abcdefull, "7.0", 2, 8, 1, 8, STORE_PREC_FP32, 0,
                                        0 };

static int64_t
append(store *st, int64_t sid, int64_t parent, int role, const char *text, int with_state)
{
    static const int32_t ids[] = { 1, 2, 3 };
    float state[8 * 2 * 3];

    for (size_t i = 0; i < sizeof state / sizeof state[0]; i++)
        state[i] = (float)i;
    return add_turn(st, sid, parent, role, text, ids, 3, with_state ? state : NULL,
                    sizeof state / sizeof state[0], &META, NULL);
}

static int
has(const char *hay, const char *needle)
{
    return hay != NULL && strstr(hay, needle) != NULL;
}

/* ---- 1. parent loops -------------------------------------------------- */

static void
check_loop_everywhere(store *st, int64_t sid, int64_t from, int64_t leaf_of, const char *what)
{
    rwkv_err err;
    int64_t *ids = NULL, leaf = 0, nid = 0;
    size_t n = 0;
    store_plan plan;
    float out[8 * 2 * 3];
    char *buf = NULL;
    size_t len = 0;

    memset(&err, 0, sizeof err);
    TEST_CONDF(store_turn_path(st, from, &ids, &n, &err) == RWKV_EFORMAT && has(err.msg, "parent loop in the database") &&
                   ids == NULL && n == 0,
               "%s: path: %s", what, err.msg);
    TEST_CONDF(store_branch_leaf(st, leaf_of, &leaf, &err) == RWKV_EFORMAT && has(err.msg, "parent loop"),
               "%s: leaf: %s", what, err.msg);
    TEST_CONDF(store_session_fork(st, sid, from, "f", &nid, &err) == RWKV_EFORMAT && has(err.msg, "parent loop"),
               "%s: fork: %s", what, err.msg);
    TEST_CONDF(store_replay_plan(st, from, &META, &plan, &err) == RWKV_EFORMAT && has(err.msg, "parent loop"),
               "%s: plan: %s", what, err.msg);
    store_plan_fini(&plan);
    TEST_CONDF(store_state_restore(st, from, &META, out, sizeof out / sizeof out[0], &plan, &err) == RWKV_EFORMAT &&
                   has(err.msg, "parent loop"),
               "%s: restore: %s", what, err.msg);
    store_plan_fini(&plan);
    TEST_CONDF(store_export(st, sid, STORE_FMT_MD, &buf, &len, &err) == RWKV_EFORMAT && has(err.msg, "parent loop") &&
                   buf == NULL,
               "%s: export md: %s", what, err.msg);
    TEST_CONDF(store_export(st, sid, STORE_FMT_JSON, &buf, &len, &err) == RWKV_EFORMAT &&
                   has(err.msg, "parent loop") && buf == NULL,
               "%s: export json: %s", what, err.msg);
}

static void
test_loops(void)
{
    char db[512];
    store *st = NULL;
    rwkv_err err;
    int64_t s, t[5];
    int64_t *ids = NULL;
    size_t n = 0;

    test_tmp_path(db, sizeof db, "loop.db");
    TEST_COND("open", store_open(db, &st, &err) == RWKV_OK);
    if (st == NULL)
        return;
    s = new_session(st, "loop");
    t[0] = append(st, s, 0, STORE_ROLE_USER, "u1", 1);
    t[1] = append(st, s, t[0], STORE_ROLE_ASSISTANT, "a1", 1);
    t[2] = append(st, s, t[1], STORE_ROLE_USER, "u2", 1);
    t[3] = append(st, s, t[2], STORE_ROLE_ASSISTANT, "a2", 1);
    TEST_COND("path before tampering", store_turn_path(st, t[3], &ids, &n, &err) == RWKV_OK && n == 4 &&
                                           ids[0] == t[0] && ids[3] == t[3]);
    free(ids);

    /* the root's parent is its own leaf: a 4-turn cycle */
    {
        char sql[256];
        snprintf(sql, sizeof sql, "UPDATE turns SET parent_id=%lld WHERE id=%lld", (long long)t[3],
                 (long long)t[0]);
        TEST_COND("tamper: root -> leaf", q_exec(db, sql) == 0);
    }
    check_loop_everywhere(st, s, t[3], t[0], "root->leaf");
    TEST_COND("message names the turn", store_turn_path(st, t[3], &ids, &n, &err) != RWKV_OK &&
                                            strstr(err.msg, "turn ") != NULL);
    /* the same cycle with every depth rewritten to 0 (depth cannot help) */
    TEST_COND("tamper: depths", q_exec(db, "UPDATE turns SET depth=0") == 0);
    check_loop_everywhere(st, s, t[3], t[0], "flat depths");
    /* depths made to increase around the cycle */
    {
        char sql[256];
        snprintf(sql, sizeof sql, "UPDATE turns SET depth=id-%lld", (long long)t[0]);
        TEST_COND("tamper: increasing depths", q_exec(db, sql) == 0);
    }
    check_loop_everywhere(st, s, t[3], t[0], "increasing depths");

    /* a two-turn loop below an intact root */
    {
        char sql[512];
        snprintf(sql, sizeof sql,
                 "UPDATE turns SET parent_id=NULL, depth=0 WHERE id=%lld;"
                 "UPDATE turns SET depth=id-%lld WHERE id>%lld;"
                 "UPDATE turns SET parent_id=%lld WHERE id=%lld",
                 (long long)t[0], (long long)t[0], (long long)t[0], (long long)t[3], (long long)t[2]);
        TEST_COND("tamper: 2-cycle", q_exec(db, sql) == 0);
    }
    check_loop_everywhere(st, s, t[3], t[2], "2-cycle");
    /* a turn that is its own parent */
    {
        char sql[512];
        snprintf(sql, sizeof sql, "UPDATE turns SET parent_id=%lld WHERE id=%lld; UPDATE turns SET parent_id=id WHERE id=%lld",
                 (long long)t[1], (long long)t[2], (long long)t[3]);
        TEST_COND("tamper: self", q_exec(db, sql) == 0);
    }
    check_loop_everywhere(st, s, t[3], t[3], "self-parent");
    /* a parent that does not exist */
    {
        char sql[256];
        snprintf(sql, sizeof sql, "UPDATE turns SET parent_id=999999 WHERE id=%lld", (long long)t[3]);
        TEST_COND("tamper: missing parent", q_exec(db, sql) == 0);
        TEST_CONDF(store_turn_path(st, t[3], &ids, &n, &err) == RWKV_EFORMAT && has(err.msg, "missing"),
                   "missing parent: %s", err.msg);
    }
    /* the session can still be deleted */
    TEST_COND("delete a looped session", store_session_delete(st, s, &err) == RWKV_OK);
    store_close(st);
    TEST_COND("no turns left", q_int(db, "SELECT count(*) FROM turns") == 0);
}

/* ---- 2. deleting long sessions ------------------------------------------- */

static void
test_long_delete(void)
{
    char db[512], sql[1024];
    store *st = NULL;
    rwkv_err err;
    int64_t s, keep, root, *ids = NULL, leaf = 0;
    size_t n = 0;

    test_tmp_path(db, sizeof db, "long.db");
    TEST_COND("open", store_open(db, &st, &err) == RWKV_OK);
    if (st == NULL)
        return;
    keep = new_session(st, "kept");
    append(st, keep, 0, STORE_ROLE_USER, "kept turn", 1);
    s = new_session(st, "long");
    root = append(st, s, 0, STORE_ROLE_USER, "root", 1);
    /* 9,999 more turns in one chain, in one statement */
    snprintf(sql, sizeof sql,
             "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<9999)"
             " INSERT INTO turns(id, session_id, parent_id, depth, role, text, tokens, time_ms)"
             " SELECT %lld+i, %lld, %lld+i-1, i, 1+(i%%2), 'turn '||i, x'01000000', 1700000000000+i FROM c;"
             "UPDATE sessions SET head_turn=%lld+9999 WHERE id=%lld;"
             "INSERT INTO snapshots SELECT %lld+i, 1, '7.0', 2, 8, 1, 8, 0, 48, 0, zeroblob(100), 0, NULL FROM"
             " (SELECT 1 AS i UNION SELECT 5000 UNION SELECT 9999)",
             (long long)root + 100, (long long)s, (long long)root + 100, (long long)root + 100, (long long)s,
             (long long)root + 100);
    TEST_COND("10,000 turns", q_exec(db, sql) == 0);
    {
        char fix[128];
        snprintf(fix, sizeof fix, "UPDATE turns SET parent_id=%lld WHERE id=%lld", (long long)root,
                 (long long)root + 101);
        q_exec(db, fix);
    }
    TEST_COND("path of 10,000", store_turn_path(st, root + 100 + 9999, &ids, &n, &err) == RWKV_OK && n == 10000);
    free(ids);
    TEST_COND("leaf of 10,000", store_branch_leaf(st, root, &leaf, &err) == RWKV_OK && leaf == root + 100 + 9999);
    TEST_CONDF(store_session_delete(st, s, &err) == RWKV_OK, "delete 10,000 turns: %s", err.msg);
    store_close(st);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM turns WHERE session_id=%lld", (long long)s);
    TEST_COND("turns gone", q_int(db, sql) == 0);
    TEST_COND("snapshots gone", q_int(db, "SELECT count(*) FROM snapshots s LEFT JOIN turns t ON t.id=s.turn_id"
                                          " WHERE t.id IS NULL") == 0);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM sessions WHERE id=%lld", (long long)s);
    TEST_COND("session gone", q_int(db, sql) == 0);
    TEST_COND("other session kept", q_int(db, "SELECT count(*) FROM turns") == 1 &&
                                        q_int(db, "SELECT count(*) FROM snapshots") == 1);
    TEST_COND("fts index consistent",
              q_exec(db, "INSERT INTO turns_fts(turns_fts, rank) VALUES('integrity-check', 1)") == 0);
    TEST_COND("integrity", q_int(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check='ok'") == 1);
    TEST_COND("foreign keys", q_int(db, "SELECT count(*) FROM pragma_foreign_key_check") == 0);
}

/* ---- 3. damaged rows; 4. cleaning ------------------------------------- */

static int
no_controls(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
            return 0;
        if (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 && (unsigned char)s[i + 1] <= 0x9f)
            return 0;   /* C1 */
    }
    return 1;
}

static void
test_damage(void)
{
    char db[512], sql[512];
    store *st = NULL;
    rwkv_err err;
    int64_t s, t1, t2, t3, t4, t5, imp = 0;
    store_turn t;
    char note[512], *buf = NULL;
    size_t len = 0;

    test_tmp_path(db, sizeof db, "damage.db");
    TEST_COND("open", store_open(db, &st, &err) == RWKV_OK);
    if (st == NULL)
        return;
    s = new_session(st, "damaged \x1b]0;title\x07");
    t1 = append(st, s, 0, STORE_ROLE_USER, "first question", 0);
    t2 = append(st, s, t1, STORE_ROLE_ASSISTANT, "bad tokens reply", 0);
    t3 = append(st, s, t2, STORE_ROLE_USER, "bad sampling question", 0);
    t4 = append(st, s, t3, STORE_ROLE_ASSISTANT, "placeholder", 0);
    t5 = append(st, s, t4, STORE_ROLE_USER, "last readable words", 0);
    snprintf(sql, sizeof sql,
             "UPDATE turns SET tokens=x'0102030405' WHERE id=%lld;"
             "UPDATE turns SET sampling='temperature=banana' WHERE id=%lld;"
             "UPDATE turns SET text=CAST(x'62616420ff20757466382c1b5b33316d7265641b5b306d2c20c29b3f32356c' AS TEXT)"
             " WHERE id=%lld",
             (long long)t2, (long long)t3, (long long)t4);
    TEST_COND("tamper rows", q_exec(db, sql) == 0);

    TEST_CONDF(store_turn_get(st, t2, &t, &err) == RWKV_EFORMAT && has(err.msg, "turn"), "strict get, tokens: %s",
               err.msg);
    TEST_CONDF(store_turn_get(st, t3, &t, &err) == RWKV_EFORMAT && has(err.msg, "banana"), "strict get, sampling: %s",
               err.msg);
    TEST_COND("lenient read, tokens", store_turn_read(st, t2, &t, note, sizeof note, &err) == RWKV_OK &&
                                          t.n_tokens == 0 && strcmp(t.text, "bad tokens reply") == 0 &&
                                          has(note, "token blob of 5 bytes"));
    store_turn_fini(&t);
    TEST_COND("lenient read, sampling", store_turn_read(st, t3, &t, note, sizeof note, &err) == RWKV_OK &&
                                            t.has_sampling == 0 && t.n_tokens == 3 && has(note, "sampling dropped"));
    store_turn_fini(&t);
    TEST_COND("lenient read, clean row", store_turn_read(st, t5, &t, note, sizeof note, &err) == RWKV_OK &&
                                             note[0] == '\0');
    store_turn_fini(&t);

    /* Markdown: everything readable, damage named, output clean */
    TEST_COND("export md", store_export_ex(st, s, STORE_FMT_MD, &buf, &len, note, sizeof note, &err) == RWKV_OK);
    TEST_CONDF(has(buf, "first question") && has(buf, "bad tokens reply") && has(buf, "bad sampling question") &&
                   has(buf, "last readable words"),
               "md has the readable text: %s", buf ? buf : "");
    TEST_COND("md names the damage", has(buf, "is damaged in the database") && has(note, "banana") &&
                                         has(note, "token blob"));
    TEST_COND("md: invalid UTF-8 and escapes replaced", buf && utf8_valid(buf, len) && no_controls(buf, len) &&
                                                            has(buf, "bad \xef\xbf\xbd utf8"));
    free(buf);
    buf = NULL;

    /* JSON: valid UTF-8, no raw control (escaped: the text kept), re-importable,
    ** damage marked */
    TEST_COND("export json", store_export_ex(st, s, STORE_FMT_JSON, &buf, &len, note, sizeof note, &err) == RWKV_OK);
    TEST_COND("json valid, controls escaped", buf && utf8_valid(buf, len) && no_controls(buf, len) &&
                                               has(buf, "\"damaged\": ") && has(buf, "\\u001b[31m") &&
                                               has(buf, "\\u009b?25l"));
    TEST_CONDF(store_import(st, buf, len, "d.json", &imp, &err) == RWKV_OK && imp > 0, "re-import: %s", err.msg);
    free(buf);
    buf = NULL;
    {
        store_session ss;
        TEST_COND("imported title clean", store_session_get(st, imp, &ss, &err) == RWKV_OK &&
                                              no_controls(ss.title, strlen(ss.title)) &&
                                              has(ss.title, "damaged") && !has(ss.title, "]0;") &&
                                              ss.n_turns == 5);
        TEST_CONDF(store_export_ex(st, imp, STORE_FMT_JSON, &buf, &len, note, sizeof note, &err) == RWKV_OK &&
                       has(note, "tokens are missing") && !has(note, "banana"),
                   "imported session: the turn that lost its tokens stays marked (%s)", note);
        free(buf);
        buf = NULL;
    }
    store_close(st);
}

static void
test_import_clean(void)
{
    char db[512];
    store *st = NULL;
    rwkv_err err;
    int64_t id = 0;
    store_session ss;
    store_turn t;
    static const char js[] =
        "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"t\\u001b[2J\", \"model\": null,"
        " \"turns\": [{\"id\": 1, \"parent\": null, \"role\": \"user\","
        " \"text\": \"a\\u001b[31mred\\u0007 \\u009b1m \xff\xfe ok\\r\\n\\tend\", \"tokens\": [1]}]}";
    static const char md_text[] = "# not a heading\n```\ncode\n```\n1. not a list\n- nor this *em* _u_ <b>x</b>\n"
                                  "    not code\n[link](http://x) a|b ~~s~~ & \\";

    test_tmp_path(db, sizeof db, "clean.db");
    TEST_COND("open", store_open(db, &st, &err) == RWKV_OK);
    if (st == NULL)
        return;
    TEST_CONDF(store_import(st, js, strlen(js), "c.json", &id, &err) == RWKV_OK, "import: %s", err.msg);
    TEST_COND("title made as the client makes it (the escape sequence gone whole)",
              store_session_get(st, id, &ss, &err) == RWKV_OK && strcmp(ss.title, "t") == 0);
    TEST_COND("turn", store_session_get(st, id, &ss, &err) == RWKV_OK && ss.head_turn > 0 &&
                          store_turn_get(st, ss.head_turn, &t, &err) == RWKV_OK);
    /* controls kept (the chat keeps them: an export and its import hold the
    ** same text), ill-formed UTF-8 one U+FFFD a byte */
    TEST_CONDF(t.text && strcmp(t.text, "a\x1b[31mred\x07 \xc2\x9b" "1m \xef\xbf\xbd\xef\xbf\xbd"
                              " ok\r\n\tend") == 0,
               "text made well-formed on import: [%s]", t.text ? t.text : "(none)");
    store_turn_fini(&t);

    /* store_text_clean itself */
    {
        size_t n = 0;
        char *c = store_text_clean("ok\xe4\xb8\xad\xff\x1b\x7f\n", 9, &n);
        TEST_COND("clean: valid kept, bad replaced", c && n == strlen(c) &&
                                                         strcmp(c, "ok\xe4\xb8\xad\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\n") == 0);
        free(c);
        c = store_text_clean("cut \xe4\xb8", 6, &n);
        TEST_COND("clean: cut sequence", c && strcmp(c, "cut \xef\xbf\xbd") == 0);
        free(c);
    }

    /* Markdown export escapes Markdown */
    {
        int64_t s = new_session(st, "# *title*");
        char *md = NULL;
        size_t len = 0;
        append(st, s, 0, STORE_ROLE_USER, md_text, 0);
        TEST_COND("export md", store_export(st, s, STORE_FMT_MD, &md, &len, &err) == RWKV_OK);
        TEST_CONDF(has(md, "# \\# \\*title\\*\n") && has(md, "\\# not a heading") && has(md, "\\`\\`\\`") &&
                       has(md, "1\\. not a list") && has(md, "\\- nor this \\*em\\* \\_u\\_ \\<b\\>x\\</b\\>") &&
                       has(md, "&nbsp;&nbsp;&nbsp;&nbsp;not code") && has(md, "\\[link\\](http://x)") &&
                       has(md, "a\\|b \\~\\~s\\~\\~ \\& \\\\") && !has(md, "\n# not") && !has(md, "\n```"),
                   "md escaped: %s", md ? md : "");
        free(md);
    }
    store_close(st);
}

/* ---- 5. the model travels with the export ------------------------------- */

static void
test_model_import(void)
{
    char db1[512], db2[512];
    store *a = NULL, *b = NULL;
    rwkv_err err;
    store_model m, got;
    store_session ss;
    int64_t mid = 0, s, id1 = 0, id2 = 0, id3 = 0;
    char *js = NULL;
    size_t len = 0;

    test_tmp_path(db1, sizeof db1, "m1.db");
    test_tmp_path(db2, sizeof db2, "m2.db");
    TEST_COND("open", store_open(db1, &a, &err) == RWKV_OK && store_open(db2, &b, &err) == RWKV_OK);
    if (a == NULL || b == NULL) {
        store_close(a);
        store_close(b);
        return;
    }
    memset(&m, 0, sizeof m);
    snprintf(m.path, sizeof m.path, "/models/RWKV-x070-World-0.1B.pth");
    snprintf(m.version, sizeof m.version, "7.0");
    snprintf(m.vocab, sizeof m.vocab, "/models/rwkv_vocab_v20230424.txt");
    m.fingerprint = 0xfeedfacecafebeefull;
    m.size = 12345;
    m.mtime = 1700000000;
    m.n_layer = 12;
    m.n_embd = 768;
    m.n_head = 12;
    m.head_size = 64;
    TEST_COND("upsert", store_model_upsert(a, &m, &mid, &err) == RWKV_OK && mid > 0);
    TEST_COND("get vocab", store_model_get(a, mid, &got, &err) == RWKV_OK && strcmp(got.vocab, m.vocab) == 0);
    {
        store_model m2 = m;
        int64_t mid2 = 0;
        m2.vocab[0] = '\0';
        TEST_COND("upsert without vocab keeps it", store_model_upsert(a, &m2, &mid2, &err) == RWKV_OK &&
                                                       mid2 == mid && store_model_get(a, mid, &got, &err) == RWKV_OK &&
                                                       strcmp(got.vocab, m.vocab) == 0);
    }
    {
        store_session in;
        memset(&in, 0, sizeof in);
        snprintf(in.title, sizeof in.title, "with model");
        in.model_id = mid;
        TEST_COND("session", store_session_new(a, &in, &s, &err) == RWKV_OK);
    }
    append(a, s, 0, STORE_ROLE_USER, "hi", 0);
    TEST_COND("export", store_export(a, s, STORE_FMT_JSON, &js, &len, &err) == RWKV_OK &&
                            has(js, "\"vocab\": \"/models/rwkv_vocab_v20230424.txt\"") &&
                            has(js, "\"fingerprint\": \"feedfacecafebeef\"") && has(js, "\"n_embd\": 768"));
    /* into another database: the row is created */
    TEST_CONDF(store_import(b, js, len, "m.json", &id1, &err) == RWKV_OK, "import: %s", err.msg);
    TEST_COND("model linked", store_session_get(b, id1, &ss, &err) == RWKV_OK && ss.model_id > 0 &&
                                  store_model_get(b, ss.model_id, &got, &err) == RWKV_OK &&
                                  strcmp(got.path, m.path) == 0 && got.fingerprint == m.fingerprint &&
                                  strcmp(got.vocab, m.vocab) == 0 && got.n_embd == 768 && got.n_layer == 12 &&
                                  strcmp(got.version, "7.0") == 0 && got.size == 12345);
    /* again: the same row, not a second one */
    TEST_COND("import twice", store_import(b, js, len, "m.json", &id2, &err) == RWKV_OK);
    {
        store_session s2;
        TEST_COND("same row", store_session_get(b, id2, &s2, &err) == RWKV_OK && s2.model_id == ss.model_id &&
                                  q_int(db2, "SELECT count(*) FROM models") == 1);
    }
    /* another model at the path here (its own row since schema v5): that
    ** row is never rewritten; the file's model keeps its row, linked */
    {
        store_model o = m;
        int64_t oid = 0;
        store_session s3;
        o.fingerprint = 1;
        store_model_upsert(b, &o, &oid, &err);
        TEST_COND("import, path of another model", store_import(b, js, len, "m.json", &id3, &err) == RWKV_OK);
        TEST_COND("own row linked, other row kept",
                  store_session_get(b, id3, &s3, &err) == RWKV_OK && s3.model_id == ss.model_id &&
                      oid != ss.model_id && store_model_get(b, oid, &got, &err) == RWKV_OK &&
                      got.fingerprint == 1);
    }
    free(js);
    store_close(a);
    store_close(b);
}

/* ---- import of many turns ---------------------------------------------- */

static void
test_import_many(void)
{
    char db[512];
    store *st = NULL;
    rwkv_err err;
    int64_t id = 0;
    store_session ss;
    const int n = 20000;
    size_t cap = (size_t)n * 96 + 256, len = 0;
    char *js = malloc(cap);

    test_tmp_path(db, sizeof db, "many.db");
    TEST_COND("open", store_open(db, &st, &err) == RWKV_OK && js != NULL);
    if (st == NULL || js == NULL) {
        store_close(st);
        free(js);
        return;
    }
    len = (size_t)snprintf(js, cap, "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"roots\","
                                    " \"head\": 7, \"turns\": [");
    /* half roots (messages), half children of the previous (their replies:
    ** a message under a message is refused, store_import's tree check) */
    for (int i = 1; i <= n; i++)
        len += (size_t)snprintf(js + len, cap - len, "%s{\"id\": %d, \"parent\": %s%d%s, \"role\": \"%s\", \"text\": \"m%d\", \"tokens\": [%d]}",
                                i > 1 ? "," : "", i, i % 2 ? "null" : "", i % 2 ? 0 : i - 1, i % 2 ? "" : "",
                                i % 2 ? "user" : "assistant", i, i);
    /* the parent of an odd turn prints "null0": fix it up */
    for (char *p = js; (p = strstr(p, "null0")) != NULL;)
        memcpy(p, "null ", 5);
    len += (size_t)snprintf(js + len, cap - len, "]}");
    TEST_CONDF(store_import(st, js, len, "many.json", &id, &err) == RWKV_OK, "import %d turns: %s", n, err.msg);
    TEST_COND("all turns", store_session_get(st, id, &ss, &err) == RWKV_OK && ss.n_turns == n);
    {
        store_turn t;
        TEST_COND("head mapped", store_turn_get(st, ss.head_turn, &t, &err) == RWKV_OK && strcmp(t.text, "m7") == 0);
        store_turn_fini(&t);
    }
    /* malformed pieces change nothing */
    {
        int64_t before = q_int(db, "SELECT count(*) FROM turns"), x = 0;
        static const char *const bad[] = {
            "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"x\", \"turns\": [{\"id\": 1, \"role\": \"user\", \"text\": \"a\"}, {\"id\": 2,]}",
            "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"x\", \"turns\": [{\"id\": 1, \"role\": \"user\", \"text\": \"a\"} {\"id\": 2}]}",
            "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"x\", \"turns\": [{\"id\": 1, \"role\": \"user\", \"text\": \"a\"}}",
            "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"x\", \"turns\": 5}",
            "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"x\", \"turns\": [], \"turns\": []}",
            "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"x\", \"turns\": [{\"id\": 1, \"role\": \"user\", \"text\": \"a\"}]",
            "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"x\", \"turns\": [\"}]\"]}",
            "[]",
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
            TEST_CONDF(store_import(st, bad[i], strlen(bad[i]), "bad.json", &x, &err) == RWKV_EFORMAT && x == 0,
                       "bad %zu refused (%s)", i, err.msg);
        TEST_COND("nothing written", q_int(db, "SELECT count(*) FROM turns") == before);
    }
    free(js);
    store_close(st);
}

/* ---- a v2 database is migrated ------------------------------------------ */

/* A v4 file (models keyed by path alone) migrates to v5 keeping every
** session's model row: the table rebuild fires no ON DELETE SET NULL. */
static void
test_migrate_v4(void)
{
    char db[512];
    store *st = NULL;
    rwkv_err err;
    store_model m, g;
    store_session ss;
    int64_t s, mid = 0, mid2 = 0;

    test_tmp_path(db, sizeof db, "v4.db");
    TEST_COND("v4: open", store_open(db, &st, &err) == RWKV_OK);
    if (st == NULL)
        return;
    memset(&m, 0, sizeof m);
    snprintf(m.path, sizeof m.path, "/models/a.pth");
    m.size = 10;
    m.fingerprint = 0xabc;
    store_model_upsert(st, &m, &mid, &err);
    memset(&ss, 0, sizeof ss);
    snprintf(ss.title, sizeof ss.title, "made with a");
    ss.model_id = mid;
    store_session_new(st, &ss, &s, &err);
    store_close(st);
    TEST_COND("v4: downgrade",
              q_exec(db, "PRAGMA foreign_keys=OFF; CREATE TABLE m4(id INTEGER PRIMARY KEY,"
                         " path TEXT NOT NULL UNIQUE, size INTEGER NOT NULL, mtime INTEGER NOT NULL,"
                         " fingerprint INTEGER NOT NULL, version TEXT NOT NULL DEFAULT '',"
                         " n_layer INTEGER NOT NULL DEFAULT 0, n_embd INTEGER NOT NULL DEFAULT 0,"
                         " n_head INTEGER NOT NULL DEFAULT 0, head_size INTEGER NOT NULL DEFAULT 0,"
                         " vocab TEXT NOT NULL DEFAULT '');"
                         "INSERT INTO m4 SELECT id, path, size, mtime, fingerprint, version, n_layer,"
                         " n_embd, n_head, head_size, vocab FROM models; DROP TABLE models;"
                         "ALTER TABLE m4 RENAME TO models; ALTER TABLE snapshots DROP COLUMN digest;"
                         DROP_V6 "PRAGMA user_version=4") == 0);
    TEST_COND("v4: is v4", q_int(db, "PRAGMA user_version") == 4 &&
                               q_int(db, "SELECT count(*) FROM pragma_table_info('models')"
                                         " WHERE name='digest'") == 0);
    TEST_COND("v4: reopen migrates", store_open(db, &st, &err) == RWKV_OK);
    if (st == NULL)
        return;
    TEST_COND("v4: now v5", q_int(db, "PRAGMA user_version") == STORE_SCHEMA_VERSION);
    TEST_COND("v4: the session keeps its model",
              store_session_get(st, s, &ss, &err) == RWKV_OK && ss.model_id == mid &&
                  store_model_get(st, mid, &g, &err) == RWKV_OK && g.fingerprint == 0xabc);
    m.fingerprint = 0xdef;         /* another file at the path: a row of its own */
    TEST_COND("v4: another model at the path",
              store_model_upsert(st, &m, &mid2, &err) == RWKV_OK && mid2 != mid &&
                  store_session_get(st, s, &ss, &err) == RWKV_OK && ss.model_id == mid);
    TEST_COND("v4: no dangling reference", q_int(db, "SELECT count(*) FROM pragma_foreign_key_check") == 0);
    store_close(st);
    TEST_COND("v4: integrity", q_integrity_ok(db));
}

static void
test_migrate_v2(void)
{
    char db[512];
    store *st = NULL;
    rwkv_err err;
    int64_t s, id = 0;
    store_hit *h = NULL;
    size_t n = 0;

    test_tmp_path(db, sizeof db, "v2.db");
    TEST_COND("open", store_open(db, &st, &err) == RWKV_OK);
    if (st == NULL)
        return;
    s = new_session(st, "old");
    append(st, s, 0, STORE_ROLE_USER, "我喜欢吃苹果", 0);
    store_close(st);
    /* make it the v2 schema: unicode61 index, no models.vocab (nor v4's framing) */
    TEST_COND("downgrade to v2",
              q_exec(db, "DROP TRIGGER turns_fts_ai; DROP TRIGGER turns_fts_ad; DROP TRIGGER turns_fts_au;"
                         "DROP TABLE turns_fts; ALTER TABLE models DROP COLUMN vocab;"
                         "ALTER TABLE sessions DROP COLUMN framing; ALTER TABLE presets DROP COLUMN framing;"
                         "ALTER TABLE snapshots DROP COLUMN digest;"
                         "CREATE VIRTUAL TABLE turns_fts USING fts5(text, content='turns', content_rowid='id');"
                         "CREATE TRIGGER turns_fts_ai AFTER INSERT ON turns BEGIN"
                         " INSERT INTO turns_fts(rowid, text) VALUES (new.id, new.text); END;"
                         "INSERT INTO turns_fts(turns_fts) VALUES ('rebuild');" DROP_V6
                         "PRAGMA user_version=2") == 0);
    TEST_COND("is v2", q_int(db, "PRAGMA user_version") == 2);
    TEST_COND("reopen migrates", store_open(db, &st, &err) == RWKV_OK);
    if (st == NULL)
        return;
    TEST_COND("v3 and on", q_int(db, "PRAGMA user_version") == STORE_SCHEMA_VERSION);
    TEST_COND("framing column", q_int(db, "SELECT count(*) FROM pragma_table_info('sessions') WHERE name='framing'") == 1);
    TEST_COND("vocab column", q_int(db, "SELECT count(*) FROM pragma_table_info('models') WHERE name='vocab'") == 1);
    TEST_COND("trigram index", q_int(db, "SELECT count(*) FROM sqlite_master WHERE name='turns_fts' AND sql LIKE '%trigram%'") == 1);
    TEST_COND("old turn found by a word inside", store_search(st, "吃苹果", 10, &h, &n, &err) == RWKV_OK && n == 1);
    free(h);
    s = new_session(st, "new");
    append(st, s, 0, STORE_ROLE_USER, "日本語の文章です", 0);
    TEST_COND("new turn indexed", store_search(st, "文章で", 10, &h, &n, &err) == RWKV_OK && n == 1);
    free(h);
    TEST_COND("delete trigger works", store_session_delete(st, s, &err) == RWKV_OK &&
                                          store_search(st, "文章で", 10, &h, &n, &err) == RWKV_OK && n == 0);
    free(h);
    (void)id;
    store_close(st);
}

/* ---- --db: no directories made; an empty file becomes 0600 ------------- */

static void
test_db_path(void)
{
    char p[512], x[512];
    store *st = NULL;
    rwkv_err err;
    struct stat sb;
    FILE *f;

    test_tmp_path(p, sizeof p, "nodir/sub/x.db");
    TEST_COND("missing dir refused", store_open(p, &st, &err) != RWKV_OK && st == NULL &&
                                         has(err.msg, "cannot create the session database") &&
                                         access(test_tmp_path(x, sizeof x, "nodir"), F_OK) != 0);
    test_tmp_path(p, sizeof p, "afile/x.db");
    f = fopen(test_tmp_path(x, sizeof x, "afile"), "w");
    if (f)
        fclose(f);
    TEST_COND("parent is a file", store_open(p, &st, &err) != RWKV_OK && has(err.msg, "not a directory"));
    test_tmp_path(p, sizeof p, "empty.db");
    f = fopen(p, "w");
    if (f)
        fclose(f);
    chmod(p, 0644);
    TEST_COND("empty file opened", store_open(p, &st, &err) == RWKV_OK);
    store_close(st);
    TEST_COND("empty file made 0600", stat(p, &sb) == 0 && (sb.st_mode & 0777) == 0600);
}

int
main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (test_tmpdir("rwkv-damage") == NULL)
        return 1;
    test_loops();
    test_long_delete();
    test_damage();
    test_import_clean();
    test_model_import();
    test_import_many();
    test_migrate_v2();
    test_migrate_v4();
    test_db_path();
    test_tmpdir_remove();
    return TEST_REPORT();
}
