/*
** test_store_nul_text.c -- a NUL byte inside text another program wrote
** into the database (Python's sqlite3 binding a str with '\0', a blob where
** text is expected) no longer cuts the text at it: every reader takes a
** column by its length and drops the NUL bytes, keeping the rest
** (storage/store_int.h store_nul_drop, the one rule; the chat's own stream
** never writes a NUL into a reply's text).
**
**   - a turn's text, as a text with NULs and as a blob: store_turn_get
**     (what `sessions show` and a resume read), store_branch_read (a
**     resume's transcript), the Markdown and JSON exports hold all of it;
**   - a title with a NUL: store_session_get / _list read all of it;
**   - a search hit's snippet and title: all of the line;
**   - preset names: a NUL inside one split it in two and lost the last;
**   - an import of a turn text holding \u0000: the NUL dropped, as
**     everywhere (it was refused), and store_text_clean drops it.
** Real SQLite files in a temp dir; the rows are written through a second
** connection, as another program would.
*/
#include "../harness.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../storage/store.h"
#include "store_test.h"

/* Run SQL on DB with ?1 = the N bytes at B (a blob; SQL casts it as it
** needs) and ?2 = ID: SQLITE_OK or the error. */
static int
q_bind(const char *db, const char *sql, const void *b, size_t n, int64_t id)
{
    sqlite3 *h;
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_open(db, &h) != SQLITE_OK)
        return -1;
    sqlite3_busy_timeout(h, 5000);
    rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_blob(st, 1, b, (int)n, SQLITE_STATIC);
        if (sqlite3_bind_parameter_count(st) >= 2)
            sqlite3_bind_int64(st, 2, id);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(h);
        sqlite3_finalize(st);
    }
    if (rc != SQLITE_OK)
        printf("  sql error: %s (%s)\n", sqlite3_errmsg(h), sql);
    sqlite3_close(h);
    return rc;
}

#define USER_TEXT  "before the nul\0after the nul, kept"
#define USER_WANT  "before the nulafter the nul, kept"
#define REPLY_TEXT "\0a reply \0\0that starts with a nul"
#define REPLY_WANT "a reply that starts with a nul"
#define TITLE_TEXT "nul\0title tail"
#define TITLE_WANT "nultitle tail"

static void
turn_text(void)
{
    static const int32_t ids[] = { 1, 2, 3 };
    char db[512];
    store *st = NULL;
    store_turn t, *br = NULL;
    store_session ss, *all = NULL;
    store_hit *hits = NULL;
    size_t n = 0, len = 0;
    char *buf = NULL;
    int64_t sid, u, r;
    rwkv_err err;

    test_tmp_path(db, sizeof db, "nul.db");
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open: %s", err.msg);
        return;
    }
    sid = new_session(st, "placeholder");
    u = add_turn(st, sid, 0, STORE_ROLE_USER, "placeholder", ids, 3, NULL, 0, NULL, NULL);
    r = add_turn(st, sid, u, STORE_ROLE_ASSISTANT, "placeholder", ids, 3, NULL, 0, NULL, NULL);
    TEST_COND("a session of two turns", sid != 0 && u != 0 && r != 0);
    TEST_COND("NULs written by another program",
              q_bind(db, "UPDATE turns SET text=CAST(?1 AS TEXT) WHERE id=?2", USER_TEXT,
                     sizeof USER_TEXT - 1, u) == SQLITE_OK &&
                  q_bind(db, "UPDATE turns SET text=?1 WHERE id=?2", REPLY_TEXT,
                         sizeof REPLY_TEXT - 1, r) == SQLITE_OK &&
                  q_bind(db, "UPDATE sessions SET title=CAST(?1 AS TEXT) WHERE id=?2", TITLE_TEXT,
                         sizeof TITLE_TEXT - 1, sid) == SQLITE_OK);

    TEST_CONDF(store_turn_get(st, u, &t, &err) == RWKV_OK && strcmp(t.text, USER_WANT) == 0,
               "text: the whole turn, its NUL dropped: '%s'", t.text ? t.text : err.msg);
    store_turn_fini(&t);
    TEST_CONDF(store_turn_get(st, r, &t, &err) == RWKV_OK && strcmp(t.text, REPLY_WANT) == 0,
               "blob: the whole reply, its NULs dropped: '%s'", t.text ? t.text : err.msg);
    store_turn_fini(&t);
    TEST_CONDF(store_branch_read(st, r, &br, &n, &err) == RWKV_OK && n == 2 &&
                   strcmp(br[0].text, USER_WANT) == 0 && strcmp(br[1].text, REPLY_WANT) == 0,
               "a resume's transcript holds both whole (%zu turns)", n);
    store_branch_free(br, n);

    TEST_CONDF(store_export(st, sid, STORE_FMT_MD, &buf, &len, &err) == RWKV_OK &&
                   strstr(buf, "after the nul, kept") && strstr(buf, "that starts with a nul") &&
                   strstr(buf, TITLE_WANT) && memchr(buf, '\0', len) == NULL,
               "Markdown export: all of it: %s", buf ? buf : err.msg);
    free(buf);
    buf = NULL;
    TEST_CONDF(store_export(st, sid, STORE_FMT_JSON, &buf, &len, &err) == RWKV_OK &&
                   strstr(buf, "\"" USER_WANT "\"") && strstr(buf, "\"" REPLY_WANT "\"") &&
                   strstr(buf, "\"" TITLE_WANT "\"") && strstr(buf, "\\u0000") == NULL,
               "JSON export: all of it, no \\u0000: %s", buf ? buf : err.msg);
    free(buf);
    buf = NULL;

    TEST_CONDF(store_session_get(st, sid, &ss, &err) == RWKV_OK && strcmp(ss.title, TITLE_WANT) == 0,
               "title: all of it: '%s'", ss.title);
    TEST_CONDF(store_session_list(st, &all, &n, &err) == RWKV_OK && n == 1 &&
                   strcmp(all[0].title, TITLE_WANT) == 0,
               "listed title: all of it: '%s'", n ? all[0].title : "");
    free(all);

    TEST_CONDF(store_search(st, "before", 0, &hits, &n, &err) == RWKV_OK && n == 1 &&
                   strstr(hits[0].snippet, "after the nul, kept") &&
                   strcmp(hits[0].title, TITLE_WANT) == 0,
               "search: the snippet and title go on past the NUL: '%s' '%s'",
               n ? hits[0].snippet : "", n ? hits[0].title : "");
    free(hits);
    store_close(st);
}

/* Two preset names another program wrote, one with a NUL inside. */
static void
preset_names(void)
{
    static const char name[] = "pre\0set";
    char db[512], **names = NULL;
    store *st = NULL;
    size_t n = 0;
    int has_preset = 0, has_zz = 0, has_cut = 0;
    rwkv_err err;

    test_tmp_path(db, sizeof db, "presets.db");
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open: %s", err.msg);
        return;
    }
    TEST_COND("presets written",
              q_bind(db, "INSERT INTO presets(name, builtin, sampling) SELECT CAST(?1 AS TEXT), 0,"
                         " sampling FROM presets LIMIT 1", name, sizeof name - 1, 0) == SQLITE_OK &&
                  q_bind(db, "INSERT INTO presets(name, builtin, sampling) SELECT CAST(?1 AS TEXT), 0,"
                             " sampling FROM presets LIMIT 1", "zz", 2, 0) == SQLITE_OK);
    if (store_preset_list(st, &names, &n, &err) == RWKV_OK) {
        for (size_t i = 0; i < n; i++) {
            has_preset |= strcmp(names[i], "preset") == 0;
            has_zz |= strcmp(names[i], "zz") == 0;
            has_cut |= strcmp(names[i], "pre") == 0 || strcmp(names[i], "set") == 0;
        }
    }
    TEST_CONDF(has_preset && has_zz && !has_cut,
               "preset names: 'preset' and 'zz', none split (%d %d %d)", has_preset, has_zz,
               has_cut);
    free(names);
    store_close(st);
}

/* An export whose turn text holds \u0000 imports, the NUL dropped. */
static void
import_nul(void)
{
    static const char js[] =
        "{\"format\": \"rwkv-tui-session\", \"version\": 1, \"title\": \"imp\", \"model\": null,"
        " \"turns\": [{\"id\": 1, \"parent\": null, \"role\": \"user\","
        " \"text\": \"one\\u0000two\", \"tokens\": [1]}]}";
    char db[512], *c;
    store *st = NULL;
    store_turn *br = NULL;
    store_session ss;
    size_t n = 0, cl = 0;
    int64_t id = 0;
    rwkv_err err;

    c = store_text_clean("a\0b\x1b", 4, &cl);
    TEST_CONDF(c && cl == 5 && memcmp(c, "ab\xef\xbf\xbd", 5) == 0,
               "store_text_clean drops a NUL (an escape still U+FFFD): %zu", cl);
    free(c);
    test_tmp_path(db, sizeof db, "import.db");
    if (store_open(db, &st, &err) != RWKV_OK) {
        TEST_CONDF(0, "open: %s", err.msg);
        return;
    }
    TEST_CONDF(store_import(st, js, sizeof js - 1, "nul.json", &id, &err) == RWKV_OK,
               "import with \\u0000 in a text: %s", id ? "" : err.msg);
    TEST_CONDF(id != 0 && store_session_get(st, id, &ss, &err) == RWKV_OK &&
                   store_branch_read(st, ss.head_turn, &br, &n, &err) == RWKV_OK && n == 1 &&
                   strcmp(br[0].text, "onetwo") == 0,
               "imported text: 'onetwo' (%zu turns)", n);
    store_branch_free(br, n);
    store_close(st);
}

int
main(void)
{
    if (test_tmpdir("rwkv-test-store-nul-text") == NULL)
        return 1;
    turn_text();
    preset_names();
    import_nul();
    test_tmpdir_remove();
    return TEST_REPORT();
}
