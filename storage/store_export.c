/*
** store_export.c -- full-text search, export (Markdown, JSON) and import.
**
** JSON export format "rwkv-tui-session" version 1:
**   { "format": "rwkv-tui-session", "version": 1, "title": S, "created_ms": N,
**     "strategy": S, "model": null | {"path": S, "fingerprint": "16 hex",
**     "version": S}, "head": null | ID,
**     "turns": [ { "id": ID, "parent": null | ID, "role": "user"|"assistant"|
**                  "system", "text": S, "tokens": [N...], "sampling": null |
**                  {"temperature": F, ..., "seed": "decimal u64"},
**                  "prefill_tps": F, "decode_tps": F, "time_ms": N,
**                  "interrupted": B } ... ] }
** Turn ids are local to the file and strictly increasing; a parent comes
** before its children.  Snapshots are not exported: an imported session
** rebuilds its states by replaying the tokens (store_state_restore).
** Import checks everything first and writes in one transaction, so a bad
** file changes nothing.
*/
#include "store_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/json.h"

/* Import limits: far above any real conversation, low enough that a hostile
** file cannot make us allocate without bound beyond the JSON itself. */
#define STORE_IMPORT_MAX_TURNS  1000000
#define STORE_IMPORT_MAX_TOKENS (1u << 24)   /* per turn */

/* ---- search ------------------------------------------------------------- */

/* TEXT as an FTS5 query: each word a quoted string (so no word is syntax:
** quotes doubled; AND, NEAR(, *, - are text), followed by '*' so that it
** matches as a prefix ("mess" finds "message"); all words required.  A word
** of punctuation only quotes to an empty phrase, which FTS5 ignores. */
static char *
fts_query(const char *text)
{
    size_t n = strlen(text);
    char *q = malloc(n * 4 + 8), *o = q;
    const char *p = text;

    if (q == NULL)
        return NULL;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (*p == '\0')
            break;
        if (o != q)
            *o++ = ' ';
        *o++ = '"';
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
            if (*p == '"')
                *o++ = '"';
            *o++ = *p++;
        }
        *o++ = '"';
        *o++ = '*';
    }
    *o = '\0';
    return q;
}

int
store_search(store *s, const char *text, size_t max, store_hit **hits, size_t *n, rwkv_err *err)
{
    sqlite3_stmt *st;
    store_hit *v = NULL;
    size_t cnt = 0, cap = 0;
    char *q;
    int rc;

    *hits = NULL;
    *n = 0;
    if ((q = fts_query(text)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    if (q[0] == '\0') {
        free(q);
        return rwkv_errf(err, RWKV_EINVAL, "search: empty text");
    }
    rc = store_prep(s, "SELECT t.session_id, t.id, t.role, s.title,"
                       " snippet(turns_fts, 0, '[', ']', '...', 12)"
                       " FROM turns_fts JOIN turns t ON t.id=turns_fts.rowid"
                       " JOIN sessions s ON s.id=t.session_id"
                       " WHERE turns_fts MATCH ? ORDER BY t.time_ms DESC, t.id DESC LIMIT ?", &st, err);
    if (rc != RWKV_OK) {
        free(q);
        return rc;
    }
    sqlite3_bind_text(st, 1, q, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, max > 0 && max < INT64_MAX ? (int64_t)max : -1);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (cnt == cap) {
            size_t nc = cap ? cap * 2 : 16;
            store_hit *t = realloc(v, nc * sizeof *v);
            if (t == NULL) {
                rc = SQLITE_NOMEM;
                break;
            }
            v = t;
            cap = nc;
        }
        store_hit *h = &v[cnt++];
        h->session_id = sqlite3_column_int64(st, 0);
        h->turn_id = sqlite3_column_int64(st, 1);
        h->role = sqlite3_column_int(st, 2);
        store_col_text(st, 3, h->title, sizeof h->title);
        store_col_text(st, 4, h->snippet, sizeof h->snippet);
    }
    if (rc != SQLITE_DONE) {
        rc = rc == SQLITE_NOMEM ? rwkv_errf(err, RWKV_ENOMEM, "out of memory")
                                : store_dberr(s, err, "search");
        free(v);
        v = NULL;
        cnt = 0;
    } else {
        rc = RWKV_OK;
    }
    sqlite3_finalize(st);
    free(q);
    *hits = v;
    *n = cnt;
    return rc;
}

/* ---- a growing text buffer ---------------------------------------------- */

struct sbuf {
    char  *p;
    size_t n, cap;
    int    oom;
};

static void
sb_put(struct sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t nc = (b->n + n + 1) * 2;
        char *t = realloc(b->p, nc);
        if (t == NULL) {
            b->oom = 1;
            return;
        }
        b->p = t;
        b->cap = nc;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void
sb_puts(struct sbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

static void
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
sb_printf(struct sbuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        sb_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* S as a JSON string literal (UTF-8 passed through, controls escaped). */
static void
sb_json_str(struct sbuf *b, const char *s)
{
    sb_put(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char e[8];
        switch (*p) {
        case '"': sb_put(b, "\\\"", 2); break;
        case '\\': sb_put(b, "\\\\", 2); break;
        case '\n': sb_put(b, "\\n", 2); break;
        case '\r': sb_put(b, "\\r", 2); break;
        case '\t': sb_put(b, "\\t", 2); break;
        default:
            if (*p < 0x20) {
                snprintf(e, sizeof e, "\\u%04x", *p);
                sb_put(b, e, 6);
            } else {
                sb_put(b, (const char *)p, 1);
            }
        }
    }
    sb_put(b, "\"", 1);
}

static void
sb_json_num(struct sbuf *b, double v)
{
    if (!isfinite(v))
        v = 0;
    sb_printf(b, "%.17g", v);
}

/* ---- export ------------------------------------------------------------- */

static void
fmt_time(int64_t ms, char *buf, size_t cap)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;

    if (gmtime_r(&t, &tm) == NULL || strftime(buf, cap, "%Y-%m-%d %H:%M UTC", &tm) == 0)
        snprintf(buf, cap, "?");
}

static int
export_md(store *s, const store_session *ss, struct sbuf *b, rwkv_err *err)
{
    int64_t *path = NULL;
    size_t n = 0;
    char when[64];
    int rc;

    fmt_time(ss->created_ms, when, sizeof when);
    sb_puts(b, "# ");
    sb_puts(b, ss->title[0] ? ss->title : "(untitled)");
    sb_printf(b, "\n\n- session %lld, created %s\n", (long long)ss->id, when);
    if (ss->model_id > 0) {
        store_model m;
        if (store_model_get(s, ss->model_id, &m, NULL) == RWKV_OK)
            sb_printf(b, "- model: %.300s (v%s, fingerprint %016llx)\n", m.path, m.version,
                      (unsigned long long)m.fingerprint);
    }
    if (ss->strategy[0])
        sb_printf(b, "- strategy: %s\n", ss->strategy);
    if (ss->head_turn > 0 && (rc = store_turn_path(s, ss->head_turn, &path, &n, err)) != RWKV_OK)
        return rc;
    sb_printf(b, "- current branch: %zu turns (%lld in the whole tree)\n", n, (long long)ss->n_turns);
    for (size_t i = 0; i < n; i++) {
        store_turn t;
        if ((rc = store_turn_get(s, path[i], &t, err)) != RWKV_OK) {
            free(path);
            return rc;
        }
        sb_printf(b, "\n## %s\n\n", t.role == STORE_ROLE_USER ? "User" :
                                    t.role == STORE_ROLE_ASSISTANT ? "Assistant" : "System");
        sb_puts(b, t.text);
        sb_puts(b, "\n");
        if (t.interrupted)
            sb_puts(b, "\n*(reply interrupted)*\n");
        store_turn_fini(&t);
    }
    free(path);
    return RWKV_OK;
}

static int
export_json(store *s, const store_session *ss, struct sbuf *b, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc, first = 1;

    sb_puts(b, "{\n  \"format\": \"rwkv-tui-session\",\n  \"version\": 1,\n  \"title\": ");
    sb_json_str(b, ss->title);
    sb_printf(b, ",\n  \"created_ms\": %lld,\n  \"strategy\": ", (long long)ss->created_ms);
    sb_json_str(b, ss->strategy);
    sb_puts(b, ",\n  \"model\": ");
    if (ss->model_id > 0) {
        store_model m;
        if ((rc = store_model_get(s, ss->model_id, &m, err)) != RWKV_OK)
            return rc;
        sb_puts(b, "{\"path\": ");
        sb_json_str(b, m.path);
        sb_printf(b, ", \"fingerprint\": \"%016llx\", \"version\": ", (unsigned long long)m.fingerprint);
        sb_json_str(b, m.version);
        sb_puts(b, "}");
    } else {
        sb_puts(b, "null");
    }
    if (ss->head_turn > 0)
        sb_printf(b, ",\n  \"head\": %lld,\n  \"turns\": [", (long long)ss->head_turn);
    else
        sb_puts(b, ",\n  \"head\": null,\n  \"turns\": [");
    if ((rc = store_prep(s, "SELECT id FROM turns WHERE session_id=? ORDER BY id", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, ss->id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_turn t;
        int r2 = store_turn_get(s, sqlite3_column_int64(st, 0), &t, err);
        if (r2 != RWKV_OK) {
            sqlite3_finalize(st);
            return r2;
        }
        sb_printf(b, "%s\n    {\"id\": %lld, \"parent\": ", first ? "" : ",", (long long)t.id);
        first = 0;
        if (t.parent_id > 0)
            sb_printf(b, "%lld", (long long)t.parent_id);
        else
            sb_puts(b, "null");
        sb_printf(b, ", \"role\": \"%s\", \"text\": ", store_role_name(t.role));
        sb_json_str(b, t.text);
        sb_puts(b, ",\n     \"tokens\": [");
        for (size_t i = 0; i < t.n_tokens; i++)
            sb_printf(b, "%s%" PRId32, i ? "," : "", t.tokens[i]);
        sb_puts(b, "],\n     \"sampling\": ");
        if (t.has_sampling) {
            sb_puts(b, "{");
            for (int k = 0; params_table[k].name != NULL; k++) {
                sb_printf(b, "%s\"%s\": ", k ? ", " : "", params_table[k].name);
                if (params_table[k].type == PARAMS_U64) {
                    char v[32];
                    params_format(&t.sampling, k, v, sizeof v);
                    sb_printf(b, "\"%s\"", v);
                } else if (params_table[k].type == PARAMS_INT) {
                    sb_printf(b, "%.0f", params_get(&t.sampling, k));
                } else {
                    char v[32];
                    store_fmt_float(params_get(&t.sampling, k), v, sizeof v);
                    sb_puts(b, v);
                }
            }
            sb_puts(b, "}");
        } else {
            sb_puts(b, "null");
        }
        sb_puts(b, ", \"prefill_tps\": ");
        sb_json_num(b, t.prefill_tps);
        sb_puts(b, ", \"decode_tps\": ");
        sb_json_num(b, t.decode_tps);
        sb_printf(b, ", \"time_ms\": %lld, \"interrupted\": %s}", (long long)t.time_ms,
                  t.interrupted ? "true" : "false");
        store_turn_fini(&t);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_dberr(s, err, "reading turns");
    sb_puts(b, "\n  ]\n}\n");
    return RWKV_OK;
}

int
store_export(store *s, int64_t id, enum store_format fmt, char **buf, size_t *len, rwkv_err *err)
{
    store_session ss;
    struct sbuf b = { 0 };
    int rc;

    *buf = NULL;
    *len = 0;
    if ((rc = store_session_get(s, id, &ss, err)) != RWKV_OK)
        return rc;
    /* One read transaction: a concurrent writer cannot tear the export. */
    if ((rc = store_exec(s, "BEGIN", err)) != RWKV_OK)
        return rc;
    rc = fmt == STORE_FMT_JSON ? export_json(s, &ss, &b, err) : export_md(s, &ss, &b, err);
    store_tx_rollback(s);
    if (rc == RWKV_OK && b.oom)
        rc = rwkv_errf(err, RWKV_ENOMEM, "export: out of memory");
    if (rc != RWKV_OK) {
        free(b.p);
        return rc;
    }
    if (b.p == NULL)
        sb_puts(&b, "");
    *buf = b.p;
    *len = b.n;
    return RWKV_OK;
}

/* ---- import ------------------------------------------------------------- */

struct idmap {
    int64_t old, new_;
};

static int
map_find(const struct idmap *m, size_t n, int64_t old, int64_t *new_)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m[mid].old < old)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && m[lo].old == old) {
        *new_ = m[lo].new_;
        return 1;
    }
    return 0;
}

static int
get_int(const json_value *o, const char *key, int64_t *out)
{
    const json_value *v = json_get(o, key);
    if (v == NULL || v->type != JSON_NUMBER || !v->is_int)
        return 0;
    *out = v->i64;
    return 1;
}

static int
parse_sampling(const json_value *o, rwkv_sampling *out, const char *what, size_t ti, rwkv_err *err)
{
    params_defaults(out);
    for (size_t k = 0; k < o->len; k++) {
        const json_value *v = o->items[k];
        int i = params_find(o->keys[k]);
        char txt[64];
        rwkv_err e2;
        if (i < 0)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: turn %zu: unknown sampling value '%.60s'", what, ti,
                             o->keys[k]);
        if (v->type == JSON_STRING)
            snprintf(txt, sizeof txt, "%s", v->str);
        else if (v->type == JSON_NUMBER && v->is_int)
            snprintf(txt, sizeof txt, "%lld", (long long)v->i64);
        else if (v->type == JSON_NUMBER)
            snprintf(txt, sizeof txt, "%.17g", v->num);
        else
            return rwkv_errf(err, RWKV_EFORMAT, "%s: turn %zu: sampling value '%s' is not a number", what,
                             ti, o->keys[k]);
        if (params_set(out, i, txt, &e2) != RWKV_OK)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: turn %zu: %s", what, ti, e2.msg);
    }
    return RWKV_OK;
}

int
store_import(store *s, const char *text, size_t len, const char *what, int64_t *id, rwkv_err *err)
{
    json_doc *doc = NULL;
    const json_value *r, *turns, *v;
    store_session ss;
    struct idmap *map = NULL;
    int32_t *tok = NULL;
    int64_t head = 0, head_new = 0;
    int rc;

    *id = 0;
    if ((rc = json_parse(text, len, what, &doc, err)) != RWKV_OK)
        return RWKV_EFORMAT;
    r = json_root(doc);
    v = json_get(r, "format");
    if (r->type != JSON_OBJECT || v == NULL || v->type != JSON_STRING ||
        strcmp(v->str, "rwkv-tui-session") != 0) {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: not a rwkv-tui session export (no \"format\": \"rwkv-tui-session\")", what);
        goto out;
    }
    {
        int64_t ver;
        if (!get_int(r, "version", &ver) || ver != 1) {
            rc = rwkv_errf(err, RWKV_EFORMAT, "%s: session export version is not 1", what);
            goto out;
        }
    }
    memset(&ss, 0, sizeof ss);
    v = json_get(r, "title");
    if (v == NULL || v->type != JSON_STRING || v->len >= STORE_TITLE_MAX || strlen(v->str) != v->len) {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: \"title\" must be a string of at most %d bytes", what,
                       STORE_TITLE_MAX - 1);
        goto out;
    }
    memcpy(ss.title, v->str, v->len + 1);
    v = json_get(r, "strategy");
    if (v && v->type == JSON_STRING && v->len < sizeof ss.strategy)
        memcpy(ss.strategy, v->str, v->len + 1);
    get_int(r, "created_ms", &ss.created_ms);
    v = json_get(r, "head");
    if (v && v->type != JSON_NULL && !get_int(r, "head", &head)) {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: \"head\" must be a turn id or null", what);
        goto out;
    }
    turns = json_get(r, "turns");
    if (turns == NULL || turns->type != JSON_ARRAY || turns->len > STORE_IMPORT_MAX_TURNS) {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: \"turns\" must be an array of at most %d turns", what,
                       STORE_IMPORT_MAX_TURNS);
        goto out;
    }
    map = malloc((turns->len ? turns->len : 1) * sizeof *map);
    if (map == NULL) {
        rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = store_tx_begin(s, err)) != RWKV_OK)
        goto out;
    /* Link a model this database already knows by fingerprint. */
    v = json_get(r, "model");
    if (v && v->type == JSON_OBJECT) {
        const char *fp = json_str(v, "fingerprint");
        sqlite3_stmt *st;
        if (fp && store_prep(s, "SELECT id FROM models WHERE fingerprint=? LIMIT 1", &st, NULL) == RWKV_OK) {
            sqlite3_bind_int64(st, 1, (int64_t)strtoull(fp, NULL, 16));
            if (sqlite3_step(st) == SQLITE_ROW)
                ss.model_id = sqlite3_column_int64(st, 0);
            sqlite3_finalize(st);
        }
    }
    if ((rc = store_session_insert_tx(s, &ss, id, err)) != RWKV_OK)
        goto fail;
    for (size_t i = 0; i < turns->len; i++) {
        const json_value *t = turns->items[i], *x;
        store_turn tt;
        int64_t oid, par = 0;
        memset(&tt, 0, sizeof tt);
        if (t->type != JSON_OBJECT || !get_int(t, "id", &oid)) {
            rc = rwkv_errf(err, RWKV_EFORMAT, "%s: turn %zu: not an object with an integer \"id\"", what, i);
            goto fail;
        }
        if (i > 0 && oid <= map[i - 1].old) {
            rc = rwkv_errf(err, RWKV_EFORMAT, "%s: turn %zu: ids must increase (%lld after %lld)", what, i,
                           (long long)oid, (long long)map[i - 1].old);
            goto fail;
        }
        x = json_get(t, "parent");
        if (x && x->type != JSON_NULL) {
            if (!get_int(t, "parent", &par) || !map_find(map, i, par, &tt.parent_id)) {
                rc = rwkv_errf(err, RWKV_EFORMAT, "%s: turn %zu: parent is not an earlier turn", what, i);
                goto fail;
            }
        }
        x = json_get(t, "role");
        if (x == NULL || x->type != JSON_STRING || (tt.role = store_role_parse(x->str)) < 0) {
            rc = rwkv_errf(err, RWKV_EFORMAT, "%s: turn %zu: \"role\" must be user, assistant or system", what, i);
            goto fail;
        }
        x = json_get(t, "text");
        if (x == NULL || x->type != JSON_STRING || strlen(x->str) != x->len) {
            rc = rwkv_errf(err, RWKV_EFORMAT, "%s: turn %zu: \"text\" must be a string without NUL", what, i);
            goto fail;
        }
        tt.text = x->str;
        x = json_get(t, "tokens");
        if (x && x->type != JSON_NULL) {
            if (x->type != JSON_ARRAY || x->len > STORE_IMPORT_MAX_TOKENS) {
                rc = rwkv_errf(err, RWKV_EFORMAT, "%s: turn %zu: \"tokens\" must be an array of ids", what, i);
                goto fail;
            }
            free(tok);
            tok = malloc((x->len ? x->len : 1) * sizeof *tok);
            if (tok == NULL) {
                rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory");
                goto fail;
            }
            for (size_t k = 0; k < x->len; k++) {
                const json_value *e = x->items[k];
                if (e->type != JSON_NUMBER || !e->is_int || e->i64 < 0 || e->i64 > INT32_MAX) {
                    rc = rwkv_errf(err, RWKV_EFORMAT, "%s: turn %zu: token %zu is not a token id", what, i, k);
                    goto fail;
                }
                tok[k] = (int32_t)e->i64;
            }
            tt.tokens = tok;
            tt.n_tokens = x->len;
        }
        x = json_get(t, "sampling");
        if (x && x->type == JSON_OBJECT) {
            if ((rc = parse_sampling(x, &tt.sampling, what, i, err)) != RWKV_OK)
                goto fail;
            tt.has_sampling = 1;
        } else if (x && x->type != JSON_NULL) {
            rc = rwkv_errf(err, RWKV_EFORMAT, "%s: turn %zu: \"sampling\" must be an object or null", what, i);
            goto fail;
        }
        tt.prefill_tps = json_num(t, "prefill_tps", 0);
        tt.decode_tps = json_num(t, "decode_tps", 0);
        get_int(t, "time_ms", &tt.time_ms);
        x = json_get(t, "interrupted");
        tt.interrupted = x && x->type == JSON_BOOL && x->num != 0;
        tt.session_id = *id;
        if ((rc = store_turn_insert_tx(s, &tt, err)) != RWKV_OK)
            goto fail;
        map[i].old = oid;
        map[i].new_ = tt.id;
    }
    if (head > 0 && !map_find(map, turns->len, head, &head_new)) {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: \"head\" %lld is not a turn of the file", what, (long long)head);
        goto fail;
    }
    if (head == 0 && turns->len > 0)
        head_new = map[turns->len - 1].new_;
    if (head_new > 0) {
        sqlite3_stmt *st;
        if ((rc = store_prep(s, "UPDATE sessions SET head_turn=? WHERE id=?", &st, err)) != RWKV_OK)
            goto fail;
        sqlite3_bind_int64(st, 1, head_new);
        sqlite3_bind_int64(st, 2, *id);
        rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "import");
        sqlite3_finalize(st);
        if (rc != RWKV_OK)
            goto fail;
    }
    rc = store_tx_commit(s, err);
    if (rc != RWKV_OK)
        *id = 0;
    goto out;
fail:
    store_tx_rollback(s);
    *id = 0;
out:
    free(tok);
    free(map);
    json_free(doc);
    return rc;
}
