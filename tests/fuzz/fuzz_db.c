/*
** fuzz_db.c -- libFuzzer harness: a damaged or tampered session database.
**
**   make fuzz && build-fuzz/fuzz_db tests/fuzz/corpus/db
**
** Setup (once per process): a small database made through the store API --
** two sessions, a branching tree of turns with text, tokens, sampling
** values, and snapshots.  Each input is a list of row edits applied with
** plain SQL to a fresh copy of it (what a corrupt file or a hostile user
** can do), then the copy is opened with store_open and every read path the
** CLI uses runs over it: sessions list/get, show (store_branch_read,
** store_turn_read), export as Markdown and JSON (store_export_ex), the
** resume plan of every turn (store_replay_plan, store_turn_path).
**
** Edit records (bytes): T C R K [V...]
**   T table (mod the number of tables), C column (mod its columns), R rowid
**   (mod max rowid + 2), K kind: 0 NULL, 1 small int (next byte - 128),
**   2 int64 (next 8 bytes), 3 text (next byte = length, then the bytes),
**   4 blob (same), 5 delete the row, 6 copy of another row's value
**   (next byte: rowid), 7 the row's own id (a self-reference).
** Invariants: nothing crashes, hangs (libFuzzer -timeout) or reads out of
** bounds; every error is one line.
*/
#include <sqlite3.h>
#include <stdint.h>

#include "../../storage/store.h"
#include "fuzz_tmp.h"

#include "fuzz_entry.h"

#define FD_MAX_TABLES 16
#define FD_MAX_COLS 32
#define FD_MAX_EDITS 64
#define FD_N_STATE 64

struct fd_db {
    char           tpl[512], work[512];
    unsigned char *bytes;   /* the template database file */
    size_t         n;
    int            n_tables;
    char           table[FD_MAX_TABLES][64];
    int            n_cols[FD_MAX_TABLES];
    char           col[FD_MAX_TABLES][FD_MAX_COLS][64];
    store_state_meta meta;
};

static void
fd_meta(store_state_meta *m)
{
    memset(m, 0, sizeof *m);
    m->fingerprint = 0x1234;
    snprintf(m->version, sizeof m->version, "7");
    m->n_layer = 2;
    m->n_embd = 16;
    m->n_head = 2;
    m->head_size = 8;
}

/* The template: sessions with a branching tree of turns and snapshots. */
static void
fd_make(struct fd_db *d)
{
    static const char *texts[] = { "hi", "hello \xe2\x80\x94 there", "what is 2+2?", "4",
                                   "and 3+3?", "6", "an other branch", "\xf0\x9f\x98\x80" };
    static const int parents[] = { -1, 0, 1, 2, 3, 4, 1, 6 };   /* turn 6 forks at 1 */
    store *st;
    rwkv_err err;
    store_session ss;
    int64_t sid, ids[8];
    float state[FD_N_STATE];
    int32_t toks[4] = { 10, 20, 30, 40 };

    if (store_open(d->tpl, &st, &err) != RWKV_OK)
        abort();
    for (int k = 0; k < FD_N_STATE; k++)
        state[k] = (float)k * 0.25f;
    for (int s = 0; s < 2; s++) {
        memset(&ss, 0, sizeof ss);
        snprintf(ss.title, sizeof ss.title, "session %d", s);
        snprintf(ss.strategy, sizeof ss.strategy, "cpu fp32");
        if (store_session_new(st, &ss, &sid, &err) != RWKV_OK)
            abort();
        for (int i = 0; i < 8; i++) {
            store_turn t;
            memset(&t, 0, sizeof t);
            t.session_id = sid;
            t.parent_id = parents[i] < 0 ? 0 : ids[parents[i]];
            t.role = i % 2 == 0 ? STORE_ROLE_USER : STORE_ROLE_ASSISTANT;
            t.text = texts[i];
            t.tokens = toks;
            t.n_tokens = (size_t)(1 + i % 4);
            t.has_sampling = i % 2;
            t.sampling.temperature = 1.0f;
            t.sampling.top_p = 0.3f;
            t.sampling.max_tokens = 100;
            t.sampling.chunk = 64;
            if (store_turn_append(st, &t, i % 3 == 1 ? state : NULL, FD_N_STATE, &d->meta, &err) !=
                RWKV_OK)
                abort();
            ids[i] = t.id;
        }
    }
    store_close(st);
}

static struct fd_db *
fd_setup(void)
{
    static struct fd_db d;
    sqlite3 *db;
    sqlite3_stmt *q;
    FILE *f;
    long n;

    if (d.bytes != NULL)
        return &d;
    fuzz_path(d.tpl, sizeof d.tpl, "tpl.db");
    fuzz_path(d.work, sizeof d.work, "work.db");
    fd_meta(&d.meta);
    fd_make(&d);
    /* one file (no WAL beside it): checkpointed by store_close */
    if ((f = fopen(d.tpl, "rb")) == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 ||
        fseek(f, 0, SEEK_SET) != 0 || (d.bytes = malloc((size_t)n)) == NULL ||
        fread(d.bytes, 1, (size_t)n, f) != (size_t)n)
        abort();
    fclose(f);
    d.n = (size_t)n;
    if (sqlite3_open_v2(d.tpl, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE "
                               "'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name",
                           -1, &q, NULL) != SQLITE_OK)
        abort();
    while (sqlite3_step(q) == SQLITE_ROW && d.n_tables < FD_MAX_TABLES)
        snprintf(d.table[d.n_tables++], sizeof d.table[0], "%s", (const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    for (int t = 0; t < d.n_tables; t++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT name FROM pragma_table_info('%s')", d.table[t]);
        if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
            abort();
        while (sqlite3_step(q) == SQLITE_ROW && d.n_cols[t] < FD_MAX_COLS)
            snprintf(d.col[t][d.n_cols[t]++], sizeof d.col[0][0], "%s",
                     (const char *)sqlite3_column_text(q, 0));
        sqlite3_finalize(q);
    }
    sqlite3_close(db);
    return &d;
}

/* Apply the edit records of DATA to the work copy with plain SQL. */
static void
fd_edit(struct fd_db *d, const uint8_t *data, size_t size)
{
    sqlite3 *db;
    size_t p = 0;
    int edits = 0;

    if (sqlite3_open(d->work, &db) != SQLITE_OK) {
        sqlite3_close(db);
        return;
    }
    sqlite3_exec(db, "PRAGMA foreign_keys=OFF; PRAGMA recursive_triggers=OFF", NULL, NULL, NULL);
    while (p + 4 <= size && edits++ < FD_MAX_EDITS) {
        int t = data[p] % (d->n_tables ? d->n_tables : 1), kind = data[p + 3] % 8;
        const char *col;
        sqlite3_stmt *q = NULL;
        sqlite3_int64 maxid = 0, row;
        char sql[256];

        if (d->n_tables == 0 || d->n_cols[t] == 0)
            break;
        col = d->col[t][data[p + 1] % d->n_cols[t]];
        snprintf(sql, sizeof sql, "SELECT max(rowid) FROM \"%s\"", d->table[t]);
        if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
            maxid = sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
        row = (sqlite3_int64)(data[p + 2] % (unsigned)(maxid + 2));
        p += 4;
        if (kind == 5)
            snprintf(sql, sizeof sql, "DELETE FROM \"%s\" WHERE rowid = ?2", d->table[t]);
        else if (kind == 6)
            snprintf(sql, sizeof sql, "UPDATE \"%s\" SET \"%s\" = (SELECT \"%s\" FROM \"%s\" WHERE rowid = ?1) "
                     "WHERE rowid = ?2", d->table[t], col, col, d->table[t]);
        else if (kind == 7)
            snprintf(sql, sizeof sql, "UPDATE \"%s\" SET \"%s\" = rowid WHERE rowid = ?2", d->table[t], col);
        else
            snprintf(sql, sizeof sql, "UPDATE \"%s\" SET \"%s\" = ?1 WHERE rowid = ?2", d->table[t], col);
        if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
            sqlite3_finalize(q);
            continue;
        }
        switch (kind) {
        case 1:
            if (p < size)
                sqlite3_bind_int64(q, 1, (sqlite3_int64)data[p++] - 128);
            break;
        case 2: {
            uint64_t v = 0;
            for (int k = 0; k < 8 && p < size; k++)
                v = v << 8 | data[p++];
            sqlite3_bind_int64(q, 1, (sqlite3_int64)v);
            break;
        }
        case 3:
        case 4: {
            size_t len = p < size ? data[p++] : 0;
            if (len > size - p)
                len = size - p;
            if (kind == 3)
                sqlite3_bind_text(q, 1, (const char *)data + p, (int)len, SQLITE_TRANSIENT);
            else
                sqlite3_bind_blob(q, 1, data + p, (int)len, SQLITE_TRANSIENT);
            p += len;
            break;
        }
        case 6:
            if (p < size)
                sqlite3_bind_int64(q, 1, (sqlite3_int64)data[p++]);
            break;
        default:
            break;
        }
        sqlite3_bind_int64(q, 2, row);
        (void)sqlite3_step(q);
        sqlite3_finalize(q);
    }
    sqlite3_close(db);
}

/* Every read path over session SID. */
static void
fd_read_session(store *st, const store_state_meta *meta, int64_t sid)
{
    store_session ss;
    store_turn *turns = NULL;
    size_t n = 0, len = 0;
    char *buf = NULL, note[512];
    rwkv_err err;

    memset(&err, 0, sizeof err);
    if (store_session_get(st, sid, &ss, &err) != RWKV_OK) {
        FUZZ_CHECK(fuzz_one_line(err.msg));
        return;
    }
    if (store_branch_read(st, ss.head_turn, &turns, &n, &err) == RWKV_OK) {
        for (size_t i = 0; i < n; i++)
            FUZZ_CHECK(turns[i].text != NULL);
        store_branch_free(turns, n);
    } else {
        FUZZ_CHECK(fuzz_one_line(err.msg));
    }
    for (int fmt = 0; fmt < 2; fmt++) {
        note[0] = '\0';
        if (store_export_ex(st, sid, fmt ? STORE_FMT_JSON : STORE_FMT_MD, &buf, &len, note, sizeof note,
                            &err) == RWKV_OK) {
            FUZZ_CHECK(buf != NULL && memchr(note, '\0', sizeof note) != NULL);
            free(buf);
            buf = NULL;
        } else {
            FUZZ_CHECK(fuzz_one_line(err.msg));
        }
    }
    (void)meta;
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    struct fd_db *d = fd_setup();
    store *st = NULL;
    store_session *l = NULL;
    size_t n = 0;
    rwkv_err err;
    char wal[600];

    snprintf(wal, sizeof wal, "%.500s-wal", d->work);
    unlink(wal);
    snprintf(wal, sizeof wal, "%.500s-shm", d->work);
    unlink(wal);
    if (!fuzz_put(d->work, d->bytes, d->n))
        return 0;
    fd_edit(d, data, size);
    memset(&err, 0, sizeof err);
    if (store_open(d->work, &st, &err) != RWKV_OK) {
        FUZZ_CHECK(fuzz_one_line(err.msg));
        return 0;
    }
    if (store_session_list(st, &l, &n, &err) == RWKV_OK) {
        for (size_t i = 0; i < n && i < 8; i++)
            fd_read_session(st, &d->meta, l[i].id);
        free(l);
    } else {
        FUZZ_CHECK(fuzz_one_line(err.msg));
    }
    /* the resume plan and path of every turn id the template had, and a few
     * beyond */
    for (int64_t t = 0; t <= 20; t++) {
        store_plan plan;
        int64_t *ids = NULL;
        size_t ni = 0;
        memset(&plan, 0, sizeof plan);
        if (store_replay_plan(st, t, &d->meta, &plan, &err) == RWKV_OK)
            FUZZ_CHECK(plan.n_tokens == 0 || plan.tokens != NULL);
        else
            FUZZ_CHECK(fuzz_one_line(err.msg));
        store_plan_fini(&plan);
        if (store_turn_path(st, t, &ids, &ni, &err) == RWKV_OK)
            free(ids);
        else
            FUZZ_CHECK(fuzz_one_line(err.msg));
    }
    store_close(st);
    return 0;
}
