/*
** test_store_export_states.c -- saved states carried by a JSON export
** (store_export_states) and taken back by an import (store_import_states),
** on real SQLite files in a temp dir: without states the export is byte
** for byte store_export_ex's; with them every turn's saved state is
** carried (base64 of every padding: 0, 1 and 2 '='), and the import stores
** each one byte-identical, so the head opens with no replay; not taken,
** the import says how many turns and tokens the first open replays; a
** state whose base64 is tampered, cut or of another model is left out
** with one note naming the file and the turn, and the rest is imported.
*/
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../storage/store.h"
#include "../harness.h"
#include "store_test.h"

static const store_state_meta META = { 0x77, "7.0", 2, 16, 1, 16, STORE_PREC_FP32, 0, 0 };
static const int32_t IDS[] = { 1, 2, 3, 4, 5 };

/* A session of model 0x77: a message and a reply (3 and 5 tokens), each
** with the fake state K+1, K+2 of NF floats; *U, *A their ids. */
/* A new session of model 0x77 titled TITLE: its id, 0 on failure. */
static int64_t
model_session(store *st, const char *title)
{
    store_model m;
    store_session s;
    int64_t mid = 0, sid = 0;
    rwkv_err err;

    memset(&m, 0, sizeof m);
    snprintf(m.path, sizeof m.path, "/nowhere/m.pth");
    m.fingerprint = META.fingerprint;
    snprintf(m.version, sizeof m.version, "%s", META.version);
    m.n_layer = META.n_layer, m.n_embd = META.n_embd;
    m.n_head = META.n_head, m.head_size = META.head_size;
    memset(&s, 0, sizeof s);
    snprintf(s.title, sizeof s.title, "%s", title);
    snprintf(s.strategy, sizeof s.strategy, "cpu fp32");
    if (store_model_upsert(st, &m, &mid, &err) != RWKV_OK)
        return 0;
    s.model_id = mid;
    return store_session_new(st, &s, &sid, &err) == RWKV_OK ? sid : 0;
}

static int64_t
session_nf(store *st, size_t nf, int k, int64_t *u, int64_t *a)
{
    char title[32];
    float *v = calloc(nf, sizeof *v);
    int64_t sid;

    snprintf(title, sizeof title, "states %zu", nf);
    if (v == NULL || (sid = model_session(st, title)) == 0) {
        free(v);
        return 0;
    }
    test_fake_state(v, nf, k + 1);
    *u = add_turn(st, sid, 0, STORE_ROLE_USER, "hi", IDS, 3, v, nf, &META, NULL);
    test_fake_state(v, nf, k + 2);
    *a = add_turn(st, sid, *u, STORE_ROLE_ASSISTANT, "yo", IDS, 5, v, nf, &META, NULL);
    free(v);
    return sid;
}

/* TURN's state in ST is the fake state K of NF floats. */
static int
state_is(store *st, int64_t turn, size_t nf, int k)
{
    float *want = calloc(nf, sizeof *want), *got = calloc(nf, sizeof *got);
    rwkv_err err;
    int ok;

    if (want == NULL || got == NULL) {
        free(want);
        free(got);
        return 0;
    }
    test_fake_state(want, nf, k);
    ok = store_snapshot_get(st, turn, &META, got, nf, NULL, &err) == RWKV_OK &&
         memcmp(want, got, nf * sizeof *got) == 0;
    free(want);
    free(got);
    return ok;
}

/* The n-th "base64": "..." value of TEXT (0 = the first): its first character. */
static char *
b64_at(char *text, int n)
{
    char *p = text;

    for (int i = 0; i <= n && p != NULL; i++)
        if ((p = strstr(p, "\"base64\": \"")) != NULL)
            p += 11;
    return p;
}

static void
test_round_trip(store *src, const char *dir)
{
    /* 64, 65, 66 floats: 320, 324, 328 bytes = 2, 0, 1 bytes past a
    ** multiple of 3: each kind of base64 end */
    for (size_t nf = 64; nf <= 66; nf++) {
        int64_t u, a, sid = session_nf(src, nf, (int)nf * 10, &u, &a), nid = 0;
        char *plain = NULL, *old = NULL, *with = NULL, db[600], name[64];
        size_t lp = 0, lo = 0, lw = 0;
        store_import_info in;
        store *dst = NULL;
        rwkv_err err;

        TEST_CONDF(sid > 0 && u > 0 && a > 0, "session of %zu floats", nf);
        TEST_COND("export without states",
                  store_export_states(src, sid, STORE_FMT_JSON, 0, &plain, &lp, NULL, 0, &err) == RWKV_OK);
        TEST_COND("export_ex", store_export_ex(src, sid, STORE_FMT_JSON, &old, &lo, NULL, 0, &err) == RWKV_OK);
        TEST_COND("without states: byte for byte as before",
                  plain && old && lp == lo && memcmp(plain, old, lp) == 0 && !strstr(plain, "\"state\""));
        TEST_COND("export with states",
                  store_export_states(src, sid, STORE_FMT_JSON, 1, &with, &lw, NULL, 0, &err) == RWKV_OK);
        TEST_COND("two states carried", with && b64_at(with, 1) != NULL && b64_at(with, 2) == NULL);
        snprintf(name, sizeof name, "rt%zu.db", nf);
        snprintf(db, sizeof db, "%s/%s", dir, name);
        TEST_COND("open", store_open(db, &dst, &err) == RWKV_OK);
        if (dst == NULL || with == NULL)
            goto next;
        TEST_CONDF(store_import_states(dst, with, lw, "w.json", NULL, 1, &in, &nid, &err) == RWKV_OK &&
                       in.carried == 2 && in.taken == 2 && in.refused == 0 && in.note[0] == '\0',
                   "import --states (%zu floats): %s", nf, in.note);
        /* a fresh database: its turns are 1 and 2 */
        TEST_COND("the message's state, byte for byte", state_is(dst, 1, nf, (int)nf * 10 + 1));
        TEST_COND("the reply's state, byte for byte", state_is(dst, 2, nf, (int)nf * 10 + 2));
        TEST_COND("the head opens at once", in.replay_turns == 0 && in.replay_tokens == 0);
        /* not taken: none stored, the first open's cost said */
        TEST_COND("import without --states",
                  store_import_states(dst, with, lw, "w.json", NULL, 0, &in, &nid, &err) == RWKV_OK &&
                      in.carried == 2 && in.taken == 0 &&
                      q_int(db, "SELECT count(*) FROM snapshots n JOIN turns t ON t.id=n.turn_id"
                                " WHERE t.session_id=2") == 0);
        TEST_CONDF(in.replay_turns == 2 && in.replay_tokens == 8, "replay cost %lld turns %lld tokens",
                   (long long)in.replay_turns, (long long)in.replay_tokens);
        store_close(dst);
    next:
        free(plain);
        free(old);
        free(with);
    }
}

/* Import TEXT with states into a new database NAME: INFO; 1 when it imported. */
static int
import_into(const char *dir, const char *name, const char *text, store_import_info *in,
            int64_t *u, int64_t *a, int *u_ok, int *a_ok)
{
    char db[600];
    store *dst = NULL;
    int64_t nid = 0;
    rwkv_err err;
    int rc;

    snprintf(db, sizeof db, "%s/%s", dir, name);
    if (store_open(db, &dst, &err) != RWKV_OK)
        return 0;
    rc = store_import_states(dst, text, strlen(text), "h.json", NULL, 1, in, &nid, &err);
    if (rc != RWKV_OK)
        printf("     import: %s\n", err.msg);
    *u_ok = state_is(dst, *u, 64, 1001);
    *a_ok = state_is(dst, *a, 64, 1002);
    store_close(dst);
    return rc == RWKV_OK && nid > 0;
}

static void
test_hostile(const char *dir)
{
    char db[600];
    store *src = NULL;
    int64_t u = 0, a = 0, sid;
    char *with = NULL, *p, *q, c0, c1;
    size_t lw = 0;
    store_import_info in;
    rwkv_err err;
    int u_ok, a_ok;

    snprintf(db, sizeof db, "%s/hsrc.db", dir);
    if (store_open(db, &src, &err) != RWKV_OK)
        return;
    sid = session_nf(src, 64, 1000, &u, &a);
    TEST_COND("hostile: export", store_export_states(src, sid, STORE_FMT_JSON, 1, &with, &lw, NULL, 0,
                                                     &err) == RWKV_OK && with != NULL);
    store_close(src);
    if (with == NULL)
        return;

    /* a character of the reply's state's payload changed: the checksum */
    p = b64_at(with, 1) + 200;
    c1 = *p;
    *p = c1 == 'A' ? 'B' : 'A';
    TEST_COND("flipped: imported", import_into(dir, "h1.db", with, &in, &u, &a, &u_ok, &a_ok));
    TEST_CONDF(in.taken == 1 && in.refused == 1 && u_ok && !a_ok &&
                   strstr(in.note, "h.json: turn 2: saved state not taken: snapshot blob checksum mismatch"),
               "flipped: %s", in.note);
    TEST_COND("flipped: the head's replay counted", in.replay_turns == 1 && in.replay_tokens == 5);
    *p = c1;

    /* a character that is no base64 */
    q = b64_at(with, 0) + 10;
    c0 = *q;
    *q = '*';
    TEST_COND("bad base64: imported", import_into(dir, "h2.db", with, &in, &u, &a, &u_ok, &a_ok));
    TEST_CONDF(in.taken == 1 && in.refused == 1 && !u_ok && a_ok &&
                   strstr(in.note, "turn 1: saved state not taken: bad base64 at character 10"),
               "bad base64: %s", in.note);

    /* both refused: a line each, naming its turn and what is wrong */
    p = b64_at(with, 1) + 4;
    *p = '*';
    TEST_COND("two bad: imported", import_into(dir, "h3.db", with, &in, &u, &a, &u_ok, &a_ok));
    TEST_CONDF(in.taken == 0 && in.refused == 2 &&
                   strstr(in.note, "h.json: turn 1: saved state not taken: bad base64") &&
                   strstr(in.note, "\nh.json: turn 2: saved state not taken: bad base64") &&
                   !strstr(in.note, "more") && in.replay_turns == 2 && in.replay_tokens == 8,
               "two bad: %s", in.note);
    *q = c0;
    free(with);

    /* another model: the file's model says another fingerprint */
    if (store_open(db, &src, &err) == RWKV_OK) {
        with = NULL;
        if (store_export_states(src, sid, STORE_FMT_JSON, 1, &with, &lw, NULL, 0, &err) == RWKV_OK &&
            (p = strstr(with, "\"fingerprint\": \"0000000000000077\"")) != NULL) {
            p[strlen("\"fingerprint\": \"000000000000007")] = '8';
            TEST_COND("other model: imported", import_into(dir, "h4.db", with, &in, &u, &a, &u_ok, &a_ok));
            TEST_CONDF(in.taken == 0 && in.refused == 2 && !u_ok && !a_ok &&
                           strstr(in.note, "made with another model (fingerprint 0000000000000077, "
                                           "the session's model 0000000000000078)"),
                       "other model: %s", in.note);
        } else {
            TEST_COND("other model: export", 0);
        }
        free(with);
        store_close(src);
    }
}

/* Which states go: the end of each branch and the two turns above it. */
static void
test_which(const char *dir)
{
    char db[600], *with = NULL, *p;
    store *st = NULL;
    int64_t sid, g, u1, a1, u2, a2, u3, a3;
    float v[64];
    size_t lw = 0;
    int n = 0;
    rwkv_err err;

    snprintf(db, sizeof db, "%s/which.db", dir);
    if (store_open(db, &st, &err) != RWKV_OK)
        return;
    sid = model_session(st, "branches");
    test_fake_state(v, 64, 1);
    g = add_turn(st, sid, 0, STORE_ROLE_SYSTEM, "g", IDS, 1, v, 64, &META, NULL);
    u1 = add_turn(st, sid, g, STORE_ROLE_USER, "u1", IDS, 1, v, 64, &META, NULL);
    a1 = add_turn(st, sid, u1, STORE_ROLE_ASSISTANT, "a1", IDS, 1, v, 64, &META, NULL);
    u2 = add_turn(st, sid, a1, STORE_ROLE_USER, "u2", IDS, 1, v, 64, &META, NULL);
    a2 = add_turn(st, sid, u2, STORE_ROLE_ASSISTANT, "a2", IDS, 1, v, 64, &META, NULL);
    u3 = add_turn(st, sid, a1, STORE_ROLE_USER, "u3", IDS, 1, v, 64, &META, NULL);
    a3 = add_turn(st, sid, u3, STORE_ROLE_ASSISTANT, "a3", IDS, 1, v, 64, &META, NULL);
    TEST_COND("which: export", a3 > 0 && store_export_states(st, sid, STORE_FMT_JSON, 1, &with, &lw,
                                                              NULL, 0, &err) == RWKV_OK && with);
    for (p = with; p != NULL && (p = strstr(p, "\"state\": {")) != NULL; p++)
        n++;
    TEST_CONDF(n == 5, "which: %d states carried (a1 u2 a2 u3 a3)", n);
    /* imported: the greeting (turn 1) and the first message (2) carry none */
    {
        char db2[600];
        store *d2 = NULL;
        store_import_info in;
        int64_t nid;
        snprintf(db2, sizeof db2, "%s/which2.db", dir);
        if (with && store_open(db2, &d2, &err) == RWKV_OK) {
            TEST_COND("which: import", store_import_states(d2, with, lw, "b.json", NULL, 1, &in, &nid,
                                                           &err) == RWKV_OK && in.taken == 5);
            store_close(d2);
            TEST_COND("which: the turns carried",
                      q_int(db2, "SELECT group_concat(turn_id) = '3,4,5,6,7' FROM"
                                 " (SELECT turn_id FROM snapshots ORDER BY turn_id)") == 1);
        }
    }
    (void)u2, (void)a2;
    free(with);
    store_close(st);
}

/* An export with states over what an import reads (STORE_IMPORT_MAX_BYTES;
** here a small cap): it was written whole, and the import refused the file
** whole.  Now the states that fit are kept -- the head's and the turns above
** it first, then the newest -- the rest left out and counted, and the file
** stays under the cap and imports. */
static void
test_cap(const char *dir)
{
    char db[600], *full = NULL, *plain = NULL, *cut = NULL, *same = NULL;
    size_t lf = 0, lp = 0, lc = 0, ls = 0;
    int64_t sid, u, a1, a2, a3, left = -1, nid = 0;
    float v[64];
    store_import_info in;
    store *st = NULL, *dst = NULL;
    rwkv_err err;

    snprintf(db, sizeof db, "%s/cap.db", dir);
    TEST_COND("open", store_open(db, &st, &err) == RWKV_OK);
    if (st == NULL || (sid = model_session(st, "cap")) == 0)
        goto out;
    /* a message and three replies to it (regenerations): four leaves' states */
    test_fake_state(v, 64, 2001);
    u = add_turn(st, sid, 0, STORE_ROLE_USER, "hi", IDS, 3, v, 64, &META, NULL);
    test_fake_state(v, 64, 2002);
    a1 = add_turn(st, sid, u, STORE_ROLE_ASSISTANT, "one", IDS, 5, v, 64, &META, NULL);
    test_fake_state(v, 64, 2003);
    a2 = add_turn(st, sid, u, STORE_ROLE_ASSISTANT, "two", IDS, 5, v, 64, &META, NULL);
    test_fake_state(v, 64, 2004);
    a3 = add_turn(st, sid, u, STORE_ROLE_ASSISTANT, "three", IDS, 5, v, 64, &META, NULL);
    TEST_COND("turns", u > 0 && a1 > 0 && a2 > 0 && a3 > 0);
    TEST_COND("export, no cap", store_export_states_cap(st, sid, STORE_FMT_JSON, 1, 0, &full, &lf,
                                                        &left, NULL, 0, &err) == RWKV_OK && left == 0);
    TEST_COND("four states", full && b64_at(full, 3) != NULL && b64_at(full, 4) == NULL);
    TEST_COND("export, no states",
              store_export_states(st, sid, STORE_FMT_JSON, 0, &plain, &lp, NULL, 0, &err) == RWKV_OK);
    /* under the cap: byte for byte the export with no cap */
    TEST_COND("a cap above it", store_export_states_cap(st, sid, STORE_FMT_JSON, 1, lf + 1, &same, &ls,
                                                        &left, NULL, 0, &err) == RWKV_OK);
    TEST_COND("under the cap: unchanged", same && ls == lf && memcmp(same, full, lf) == 0 && left == 0);
    /* room beside the text for two states (~430 bytes of base64 each) */
    TEST_COND("a cap for two states", store_export_states_cap(st, sid, STORE_FMT_JSON, 1, lp + 1500, &cut,
                                                              &lc, &left, NULL, 0, &err) == RWKV_OK);
    TEST_CONDF(cut && lc < lp + 1500 && left == 2 && b64_at(cut, 1) != NULL && b64_at(cut, 2) == NULL,
               "two states kept, two left out (left %lld, %zu bytes of %zu)", (long long)left, lc,
               lp + 1500);
    snprintf(db, sizeof db, "%s/cap2.db", dir);
    TEST_COND("open the import's", store_open(db, &dst, &err) == RWKV_OK);
    if (dst == NULL || cut == NULL)
        goto out;
    TEST_CONDF(store_import_states(dst, cut, lc, "c.json", NULL, 1, &in, &nid, &err) == RWKV_OK &&
                   in.carried == 2 && in.taken == 2 && in.replay_turns == 0,
               "imported, the head opens at once: %s", err.msg);
    /* a fresh database: the message is turn 1, the head (the last reply) 4 */
    TEST_COND("the message's state kept", state_is(dst, 1, 64, 2001));
    TEST_COND("the head's state kept", state_is(dst, 4, 64, 2004));
out:
    store_close(dst);
    store_close(st);
    free(full);
    free(plain);
    free(cut);
    free(same);
}

int
main(void)
{
    char db[512];
    const char *dir;
    store *st = NULL;
    rwkv_err err;

    if ((dir = test_tmpdir("rwkv-expst")) == NULL)
        return 1;
    test_tmp_path(db, sizeof db, "src.db");
    TEST_COND("open", store_open(db, &st, &err) == RWKV_OK);
    if (st) {
        test_round_trip(st, dir);
        store_close(st);
    }
    test_hostile(dir);
    test_which(dir);
    test_cap(dir);
    test_tmpdir_remove();
    return TEST_REPORT();
}
