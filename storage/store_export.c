/*
** store_export.c -- full-text search, export (Markdown, JSON) and import.
**
** JSON export format "rwkv-tui-session" version 1:
**   { "format": "rwkv-tui-session", "version": 1, "title": S, "created_ms": N,
**     "strategy": S, "model": null | {"path": S, "fingerprint": "16 hex",
**     "version": S}, "state_file": null | {"name": S, "path": S, "size": N,
**     "digest": "16 hex"} (absent or null: none; path "" for a file kept
**     in the database, whose bytes are not exported), "framing": null |
**     {...} (storage/framing.h; absent or null: the defaults), "sampling":
**     null | {...} (the session's own values, as a turn's; absent or null:
**     none kept), "head": null | ID,
**     "turns": [ { "id": ID, "parent": null | ID, "role": "user"|"assistant"|
**                  "system", "text": S, "tokens": [N...], "sampling": null |
**                  {"temperature": F, ..., "seed": "decimal u64"},
**                  "prefill_tps": F, "decode_tps": F, "time_ms": N,
**                  "interrupted": B [, "being_written": true] } ... ] }
** Turn ids are local to the file and strictly increasing; a parent comes
** before its children, and the roles make the tree the chat makes (a system
** greeting at the root, a user message at the root or under the greeting or
** a reply, a reply under its message: import_tree_check).  Snapshots are
** not exported by default: an imported session rebuilds its states by
** replaying the tokens (store_state_restore) -- from its state file, which
** is linked by content as the model is (import_statefile), so the replay
** starts where the original did, or says the file is missing.
** With states (store_export_states, `sessions export --states`), still
** version 1 -- an optional member an older import ignores -- the turns at
** and just above each branch's end (export_state_turns) that have a saved
** state readable whole carry it, after "interrupted":
**     "state": {"format": "RWKVSNAP", "version": 1, "bytes": N,
**               "n_floats": N, "fingerprint": "16 hex", "precision": N,
**               "digest": "16 hex", "checksum": "16 hex", "base64": S}
** S is the snapshot blob (store_blob.c: its 64-byte header names the
** model's fingerprint, version and shape, the precision and the length,
** and holds the checksum of header and floats), standard base64 with '='
** padding; "digest" is the model file's (the snapshots column, not in the
** blob).  The other members repeat the blob's header so a reader sees
** what it holds without decoding it; the import trusts only the blob and
** checks the members against it (import_state).  Without states the
** export is byte for byte what it was.  With them it stays under what an
** import reads (STORE_IMPORT_MAX_BYTES): over it, the states that fit are
** kept, the head's first, then the newest (carry_fit), the others counted.
** Import reads the file one turn at a time (memory: the file, 24 bytes a
** turn and one turn's tree; time linear in turns) and writes in one
** transaction, so a bad file changes nothing.  The model object also has
** "vocab", "size", "mtime", "n_layer", "n_embd", "n_head", "head_size"; a
** turn read from a damaged row has "damaged": "what was dropped"; a reply
** another process was still writing at the export ("[being written]" in
** `sessions show`) has "interrupted": true and "being_written": true (its
** text so far), and the Markdown says so: its import is a cut reply, as
** nothing writes it there.
** Text is made well-formed (store_text_utf8: controls kept, JSON escapes
** them) on import and in the JSON export, cleaned (store_text_clean) in
** the Markdown export; an
** imported title is made as the client makes one (store_title_clean_n,
** the rule of store_title_clean), and a search snippet is cleaned by the display
** rule (utf8_sanitize_for_terminal), as the client shows text.
*/
#include "store_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../core/io/json.h"
#include "../core/model/strategy.h"
#include "../core/text/tokenizer.h"
#include "../core/text/utf8.h"
#include "framing.h"

/* Import limits: far above any real conversation, low enough that a hostile
** file cannot make us allocate without bound beyond the JSON itself. */
#define STORE_IMPORT_MAX_TURNS  1000000
#define STORE_IMPORT_MAX_TOKENS (1u << 24)   /* per turn */
/* A malformed file up to this size is parsed whole to name the error. */
#define STORE_IMPORT_DIAG_MAX   (16u << 20)

/* ---- search ------------------------------------------------------------- */

/* Words of a search: split at blanks; "a quoted phrase" is one word (the
** quotes removed; a quote without a closing one is a plain character).  Each word
** owns a NUL-terminated copy in one block.  Returns the count, -1 on OOM. */
static int
split_words(const char *text, char ***words, char **blk)
{
    size_t n = strlen(text), cnt = 0;
    char *o, **v;
    const char *p = text;

    *words = NULL;
    *blk = malloc(n + 1);
    v = malloc((n / 2 + 2) * sizeof *v);
    if (*blk == NULL || v == NULL) {
        free(*blk);
        free(v);
        return -1;
    }
    o = *blk;
    while (*p) {
        char *w = o;
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (*p == '\0')
            break;
        /* "" is an empty phrase, as "a b" is a phrase: nothing to search
        ** for (store_search_blank), never the two quote characters */
        if (*p == '"' && strchr(p + 1, '"') != NULL) {
            for (p++; *p != '"'; p++)
                *o++ = *p;
            p++;
        } else {
            while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
                *o++ = *p++;
        }
        *o++ = '\0';
        if (w[strspn(w, " \t\n\r")])    /* a phrase of blanks is no word either */
            v[cnt++] = w;
    }
    *words = v;
    return (int)cnt;
}

/* Code points in the UTF-8 string W (continuation bytes not counted). */
static size_t
n_chars(const char *w)
{
    size_t n = 0;
    for (; *w; w++)
        n += ((unsigned char)*w & 0xC0) != 0x80;
    return n;
}

/* One character of the NUL-terminated P: its length (ill-formed: 1 byte,
** itself) and *CP; 0 at the end. */
static size_t
next_cp(const char *p, uint32_t *cp)
{
    size_t n = 1;
    int r;

    if (*p == '\0')
        return 0;
    while (n < 4 && p[n] != '\0')   /* a character's room, not strlen: per position */
        n++;
    r = utf8_decode((const unsigned char *)p, n, cp);
    if (r <= 0) {
        *cp = (unsigned char)*p | 0x80000000u;   /* never a character's fold */
        return 1;
    }
    return (size_t)r;
}

/* Length in P of the match of W at P, case folded as the body index folds
** (store_casefold_cp), 0 if none. */
static size_t
match_at(const char *p, const char *w)
{
    size_t i = 0, j = 0;

    while (w[j]) {
        uint32_t a, b;
        size_t la = next_cp(p + i, &a), lb = next_cp(w + j, &b);
        if (la == 0 || store_casefold_cp(a) != store_casefold_cp(b))
            return 0;
        i += la;
        j += lb;
    }
    return i;
}

/* SRC as a terminal shows it (the display rule, utf8_sanitize_for_terminal:
** a snippet is a view of the text, shown as the client shows text) into a
** new string (*N its length); NULL when out of memory. */
static char *
snippet_text(const char *src, size_t len, size_t *n)
{
    char *t;

    if (len > SIZE_MAX / 8 || (t = malloc(UTF8_SANITIZE_MAX(len) + 1)) == NULL)
        return NULL;
    *n = utf8_sanitize_for_terminal(NULL, src ? src : "", len, t);
    t[*n] = '\0';
    return t;
}

/* SRC (LEN bytes) by the display rule with every match of a word in [ ],
** cut to a window of one line around the first match, into OUT (CAP bytes). */
static void
make_snippet(const char *src, size_t len, char *const *w, int nw, char *out, size_t cap)
{
    size_t n = 0, first = SIZE_MAX, start, o = 0;
    char *text;

    if (cap == 0)
        return;
    out[0] = '\0';
    if ((text = snippet_text(src, len, &n)) == NULL)
        return;
    for (size_t i = 0; i < n && first == SIZE_MAX; i++)
        for (int k = 0; k < nw; k++)
            if (match_at(text + i, w[k])) {
                first = i;
                break;
            }
    if (first == SIZE_MAX)
        first = 0;
    start = first;
    /* back up to the line start or ~40 bytes, on a character boundary */
    while (start > 0 && text[start - 1] != '\n' && first - start < 40)
        start--;
    while (start > 0 && start < n && ((unsigned char)text[start] & 0xC0) == 0x80)
        start--;
    if (start > 0 && text[start - 1] != '\n' && o + 3 < cap) {
        memcpy(out, "...", 3);
        o = 3;
    }
    for (size_t i = start; i < n && text[i] != '\n';) {
        size_t m = 0, need;
        for (int k = 0; k < nw && m == 0; k++)
            m = match_at(text + i, w[k]);
        need = m ? m + 2 : 1;
        if (!m)   /* whole characters only */
            while (i + need < n && ((unsigned char)text[i + need] & 0xC0) == 0x80)
                need++;
        if (o + need + 4 > cap) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (m) {
            out[o++] = '[';
            memcpy(out + o, text + i, m);
            o += m;
            out[o++] = ']';
            i += m;
        } else {
            memcpy(out + o, text + i, need);
            o += need;
            i += need;
        }
    }
    out[o] = '\0';
    free(text);
}

/* Append a hit row of ST (session, turn, role, title, text) to *V. */
static int
add_hit(sqlite3_stmt *st, char *const *w, int nw, store_hit **v, size_t *cnt, size_t *cap)
{
    store_hit *h;
    const char *text;
    char *own;
    size_t len = 0;

    if ((h = store_grow(*v, cap, *cnt, sizeof *h, 16)) == NULL)
        return -1;
    *v = h;
    h = &(*v)[(*cnt)++];
    memset(h, 0, sizeof *h);
    h->session_id = sqlite3_column_int64(st, 0);
    h->turn_id = sqlite3_column_int64(st, 1);
    h->role = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 2);
    store_col_title(st, 3, h->title, sizeof h->title);
    if ((text = store_col_str(st, 4, &len, &own)) == NULL)    /* by length, NULs dropped */
        return -1;
    make_snippet(text, len, w, nw, h->snippet, sizeof h->snippet);
    free(own);
    return 0;
}

/* add_hit for every row of ST: RWKV_OK, RWKV_ENOMEM or RWKV_EDB (ERR set). */
static int
add_hits(store *s, sqlite3_stmt *st, char *const *w, int nw, store_hit **v, size_t *cnt,
         size_t *cap, rwkv_err *err)
{
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (add_hit(st, w, nw, v, cnt, cap) < 0)
            return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    return rc == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "search");
}

/*
** A search's words: W[NW] (pointers into BLK), PAT[k] word k folded
** (store_casefold_str: matched in rwkv_fold() of a title or a turn), Q the FTS5 query of the NLONG words of 3+ characters, SQL room for
** either statement.  All owned; search_q_free frees them.
*/
struct search_q {
    char **w, *blk, **pat, *q, *sql;
    int    nw, nlong;
};

int
store_search_blank(const char *text)
{
    char **w = NULL, *blk = NULL;
    int n = split_words(text, &w, &blk);

    if (n < 0)
        return 0;                      /* out of memory (freed): the search says so */
    free(w);
    free(blk);
    return n == 0;
}

static void
search_q_free(struct search_q *sq)
{
    if (sq->pat)
        for (int k = 0; k < sq->nw; k++)
            free(sq->pat[k]);
    free(sq->pat);
    free(sq->sql);
    free(sq->q);
    free(sq->w);
    free(sq->blk);
}

/* Append word W to the FTS5 query Q (QN bytes so far) as a quoted phrase,
** quotes doubled: never FTS5 syntax.  Returns the new length. */
static size_t
fts_phrase_add(char *q, size_t qn, const char *w)
{
    if (qn)
        q[qn++] = ' ';
    q[qn++] = '"';
    for (const char *c = w; *c; c++) {
        if (*c == '"')
            q[qn++] = '"';
        q[qn++] = *c;
    }
    q[qn++] = '"';
    q[qn] = '\0';
    return qn;
}

/*
** Split TEXT into *SQ.  Words of 3+ characters go to the trigram index (Q);
** shorter ones, which a trigram index cannot answer, are matched folded, by
** the index's own folding (a scan of the turns).  On failure *SQ is freed.
*/
static int
search_q_build(const char *text, struct search_q *sq, rwkv_err *err)
{
    size_t qn = 0;

    memset(sq, 0, sizeof *sq);
    if ((sq->nw = split_words(text, &sq->w, &sq->blk)) < 0) {
        sq->nw = 0;
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    }
    if (sq->nw == 0) {
        search_q_free(sq);
        return rwkv_errf(err, RWKV_EINVAL, "search: empty text");
    }
    sq->q = malloc(strlen(text) * 2 + 4 * (size_t)sq->nw + 1);
    sq->pat = calloc((size_t)sq->nw, sizeof *sq->pat);
    sq->sql = malloc(800 + 100 * (size_t)sq->nw);
    if (sq->q == NULL || sq->pat == NULL || sq->sql == NULL)
        goto oom;
    sq->q[0] = '\0';
    for (int k = 0; k < sq->nw; k++) {
        if ((sq->pat[k] = store_casefold_str(sq->w[k], strlen(sq->w[k]), NULL)) == NULL)
            goto oom;
        if (n_chars(sq->w[k]) < 3)
            continue;
        qn = fts_phrase_add(sq->q, qn, sq->w[k]);
        sq->nlong++;
    }
    return RWKV_OK;
oom:
    search_q_free(sq);
    return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
}

/* The conditions of a title (of sessions s) / a turn's text (turns t)
** holding every word of SQ, appended to SQ->sql; the bind_ functions bind
** their values from parameter B on and return the next.  A title: every
** word folded (rwkv_fold, the index's folding); a turn: the long words by
** the trigram index, the short ones folded (search_q_build). */
static void
title_where(struct search_q *sq)
{
    strcat(sq->sql, "1");
    for (int k = 0; k < sq->nw; k++)
        strcat(sq->sql, " AND instr(rwkv_fold(s.title), ?) > 0");
}

static int
bind_title_words(sqlite3_stmt *st, const struct search_q *sq, int b)
{
    for (int k = 0; k < sq->nw; k++)
        sqlite3_bind_text(st, b++, sq->pat[k], -1, SQLITE_STATIC);
    return b;
}

static void
turn_where(struct search_q *sq)
{
    /* not the greeting (the system turn): framing, the same text in every
    ** chat of a framing, not a message anyone wrote or the model replied */
    sprintf(sq->sql + strlen(sq->sql), "t.role<>%d", STORE_ROLE_SYSTEM);
    if (sq->nlong)
        strcat(sq->sql, " AND t.id IN (SELECT rowid FROM turns_fts WHERE turns_fts MATCH ?)");
    for (int k = 0; k < sq->nw; k++)
        if (n_chars(sq->w[k]) < 3)
            strcat(sq->sql, " AND instr(rwkv_fold(t.text), ?) > 0");
}

static int
bind_turn_words(sqlite3_stmt *st, const struct search_q *sq, int b)
{
    if (sq->nlong)
        sqlite3_bind_text(st, b++, sq->q, -1, SQLITE_STATIC);
    for (int k = 0; k < sq->nw; k++)
        if (n_chars(sq->w[k]) < 3)
            sqlite3_bind_text(st, b++, sq->pat[k], -1, SQLITE_STATIC);
    return b;
}

/* Step 1: sessions whose title holds every word (turn_id 0), at most LIM
** (-1: all), appended to the hits *V. */
static int
search_titles(store *s, struct search_q *sq, int64_t lim, store_hit **v, size_t *cnt,
              size_t *cap, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    strcpy(sq->sql, "SELECT s.id, 0, NULL, s.title, s.title FROM sessions s WHERE ");
    title_where(sq);
    strcat(sq->sql, " ORDER BY s.updated_ms DESC, s.id DESC LIMIT ?");
    if ((rc = store_prep(s, sq->sql, &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, bind_title_words(st, sq, 1), lim);
    rc = add_hits(s, st, sq->w, sq->nw, v, cnt, cap, err);
    sqlite3_finalize(st);
    return rc;
}

/* Step 2: turns whose text holds every word, newest first, while fewer than
** LIM (-1: no limit) hits are in *V. */
static int
search_turns(store *s, struct search_q *sq, int64_t lim, store_hit **v, size_t *cnt,
             size_t *cap, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc, b = 1;

    if (lim >= 0 && (int64_t)*cnt >= lim)
        return RWKV_OK;
    strcpy(sq->sql, "SELECT t.session_id, t.id, t.role, s.title, t.text FROM turns t"
                    " JOIN sessions s ON s.id=t.session_id WHERE ");
    turn_where(sq);
    strcat(sq->sql, " ORDER BY t.time_ms DESC, t.id DESC LIMIT ?");
    if ((rc = store_prep(s, sq->sql, &st, err)) != RWKV_OK)
        return rc;
    b = bind_turn_words(st, sq, b);
    sqlite3_bind_int64(st, b, lim < 0 ? -1 : lim - (int64_t)*cnt);
    rc = add_hits(s, st, sq->w, sq->nw, v, cnt, cap, err);
    sqlite3_finalize(st);
    return rc;
}

/* store_search, once (it is run again after a damaged index is rebuilt). */
static int
search_once(store *s, const char *text, size_t max, store_hit **hits, size_t *n, rwkv_err *err)
{
    struct search_q sq;
    store_hit *v = NULL;
    size_t cnt = 0, cap = 0;
    int64_t lim = max > 0 && max < INT64_MAX ? (int64_t)max : -1;
    int rc;

    *hits = NULL;
    *n = 0;
    if ((rc = store_casefold_register(s, err)) != RWKV_OK ||
        (rc = search_q_build(text, &sq, err)) != RWKV_OK)
        return rc;
    if ((rc = search_titles(s, &sq, lim, &v, &cnt, &cap, err)) == RWKV_OK)
        rc = search_turns(s, &sq, lim, &v, &cnt, &cap, err);
    search_q_free(&sq);
    if (rc != RWKV_OK) {
        free(v);
        return rc;
    }
    *hits = v;
    *n = cnt;
    return RWKV_OK;
}

/* store_search_sessions, once (as search_once). */
static int
sessions_once(store *s, const char *text, int64_t **ids, size_t *n, rwkv_err *err)
{
    struct search_q sq;
    sqlite3_stmt *st;
    int64_t *v = NULL;
    size_t cnt = 0, cap = 0;
    int rc, step;

    *ids = NULL;
    *n = 0;
    if ((rc = store_casefold_register(s, err)) != RWKV_OK ||
        (rc = search_q_build(text, &sq, err)) != RWKV_OK)
        return rc;
    /* store_search's two matches, a title or a turn, for every session */
    strcpy(sq.sql, "SELECT s.id FROM sessions s WHERE (");
    title_where(&sq);
    strcat(sq.sql, ") OR s.id IN (SELECT t.session_id FROM turns t WHERE ");
    turn_where(&sq);
    strcat(sq.sql, ") ORDER BY s.updated_ms DESC, s.id DESC");
    if ((rc = store_prep(s, sq.sql, &st, err)) != RWKV_OK) {
        search_q_free(&sq);
        return rc;
    }
    bind_turn_words(st, &sq, bind_title_words(st, &sq, 1));
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *g = store_grow(v, &cap, cnt, sizeof *v, 16);
        if (g == NULL)
            break;
        v = g;
        v[cnt++] = sqlite3_column_int64(st, 0);
    }
    rc = step == SQLITE_DONE ? RWKV_OK
       : step == SQLITE_ROW ? rwkv_errf(err, RWKV_ENOMEM, "out of memory")
                            : store_dberr(s, err, "search");
    sqlite3_finalize(st);
    search_q_free(&sq);
    if (rc != RWKV_OK) {
        free(v);
        return rc;
    }
    *ids = v;
    *n = cnt;
    return RWKV_OK;
}

/* The two searches: where the search index was the damage (store_fts_mend:
** rebuilt), once more. */
int
store_search(store *s, const char *text, size_t max, store_hit **hits, size_t *n, rwkv_err *err)
{
    int rc = search_once(s, text, max, hits, n, err);

    if (rc == RWKV_ECORRUPT && store_fts_mend(s, err) == RWKV_OK)
        rc = search_once(s, text, max, hits, n, err);
    return rc;
}

int
store_search_sessions(store *s, const char *text, int64_t **ids, size_t *n, rwkv_err *err)
{
    int rc = sessions_once(s, text, ids, n, err);

    if (rc == RWKV_ECORRUPT && store_fts_mend(s, err) == RWKV_OK)
        rc = sessions_once(s, text, ids, n, err);
    return rc;
}

/* ---- cleaning ----------------------------------------------------------- */

/* KEEP_CTL: controls kept (store_text_utf8), or made U+FFFD (clean). */
static char *
text_fix(const char *text, size_t len, size_t *out_len, int keep_ctl)
{
    const unsigned char *u = (const unsigned char *)text;
    char *o;
    size_t i = 0, k = 0;

    if (text == NULL)
        len = 0;
    if (len > (SIZE_MAX - 1) / UTF8_REPL_LEN)
        return NULL;
    if ((o = malloc(len * UTF8_REPL_LEN + 1)) == NULL)
        return NULL;
    while (i < len) {
        uint32_t cp = 0;
        int r = utf8_decode(u + i, len - i, &cp);
        if (r > 0 && cp == 0) {        /* a NUL is dropped (store_nul_drop's rule) */
            i++;
        } else if (r > 0 && (keep_ctl || !((cp < 0x20 && cp != '\n' && cp != '\t') ||
                                           (cp >= 0x7f && cp <= 0x9f)))) {
            memcpy(o + k, u + i, (size_t)r);
            k += (size_t)r;
            i += (size_t)r;
        } else {
            memcpy(o + k, UTF8_REPL, UTF8_REPL_LEN);
            k += UTF8_REPL_LEN;
            i += r > 0 ? (size_t)r : r < 0 ? (size_t)-r : len - i;
        }
    }
    o[k] = '\0';
    if (out_len)
        *out_len = k;
    return o;
}

char *
store_text_clean(const char *text, size_t len, size_t *out_len)
{
    return text_fix(text, len, out_len, 0);
}

char *
store_text_utf8(const char *text, size_t len, size_t *out_len)
{
    return text_fix(text, len, out_len, 1);
}

/* ---- a growing text buffer (store_int.h) -------------------------------- */

void
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

void
sb_puts(struct sbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

void
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

static void
sb_put_cb(void *ud, const char *s, size_t n)
{
    sb_put(ud, s, n);
}

int
sb_take(struct sbuf *b, int rc, char **buf, size_t *len, rwkv_err *err)
{
    if (rc == RWKV_OK && b->oom)
        rc = rwkv_errf(err, RWKV_ENOMEM, "export: out of memory");
    if (rc != RWKV_OK) {
        free(b->p);
        return rc;
    }
    if (b->p == NULL)
        sb_puts(b, "");
    *buf = b->p;
    *len = b->n;
    return RWKV_OK;
}

void
sb_json_str(struct sbuf *b, const char *s)
{
    json_write_string(s, strlen(s), sb_put_cb, b);      /* the one escaper (core/io/json.h) */
}

static void
sb_json_num(struct sbuf *b, double v)
{
    if (!isfinite(v))
        v = 0;
    sb_printf(b, "%.17g", v);
}

void
sb_json_clean(struct sbuf *b, const char *s)
{
    char *c = store_text_utf8(s, strlen(s), NULL);

    if (c == NULL) {
        b->oom = 1;
        return;
    }
    sb_json_str(b, c);
    free(c);
}

/*
** Cleaned S as Markdown text that stays text: inline punctuation with a
** meaning (` * _ [ ] < > | ~ & \) is backslash-escaped everywhere, a block
** marker at a line start (# > + - = and "1." / "1)") too, leading blanks
** that would make a code block become &nbsp;, and line breaks are kept as
** hard breaks.  So a message's "# x" or "```" never becomes structure.
*/
void
sb_md(struct sbuf *b, const char *s)
{
    char *c = store_text_clean(s, strlen(s), NULL);
    const char *p;

    if (c == NULL) {
        b->oom = 1;
        return;
    }
    p = c;
    while (*p) {
        const char *eol = strchr(p, '\n'), *q = p;
        size_t ind = 0;
        if (eol == NULL)
            eol = p + strlen(p);
        while (q < eol && (*q == ' ' || *q == '\t'))
            ind += *q++ == '\t' ? 4 : 1;
        if (ind >= 4) {
            for (size_t k = 0; k < ind; k++)
                sb_puts(b, "&nbsp;");
        } else {
            sb_put(b, p, (size_t)(q - p));
        }
        if (q < eol && strchr("#>+-=", *q))
            sb_put(b, "\\", 1);
        else if (q < eol && *q >= '0' && *q <= '9') {
            const char *d = q;
            while (d < eol && *d >= '0' && *d <= '9')
                d++;
            if (d < eol && (*d == '.' || *d == ')')) {
                sb_put(b, q, (size_t)(d - q));
                sb_put(b, "\\", 1);
                q = d;
            }
        }
        for (; q < eol; q++) {
            if (strchr("`*_[]<>|~&\\", *q))
                sb_put(b, "\\", 1);
            sb_put(b, q, 1);
        }
        if (*eol == '\0')
            break;
        sb_puts(b, eol > p ? "  \n" : "\n");
        p = eol + 1;
    }
    free(c);
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

/* Add "turn N: WHY" to the list of damaged rows in NOTE. */
static void
note_add(char *note, size_t cap, int *count, int64_t id, const char *why)
{
    size_t l;

    if (note == NULL || cap == 0)
        return;
    if ((*count)++ == 0)
        note[0] = '\0';
    l = strlen(note);
    if (l + 1 < cap)
        snprintf(note + l, cap - l, "%sturn %lld: %s", l ? "; " : "", (long long)id, why);
}

/*
** The state-file row SF of an exported session into *OUT (out->id 0: none,
** or a row gone), its digest read from the file or the bytes kept when the
** row has none (a row made before digests were kept; a file not there
** leaves it 0, unknown).  A damaged table is the error.
*/
static int
export_statefile(store *s, int64_t sf, store_statefile *out, rwkv_err *err)
{
    void *data = NULL;
    int rc;

    if ((rc = store_statefile_ref(s, sf, out, err)) != RWKV_OK || out->id == 0 ||
        out->fingerprint != 0)
        return rc;
    if (out->path[0] != '\0') {
        uint64_t size;
        if (store_statefile_digest(out->path, &out->fingerprint, &size, NULL) == RWKV_OK)
            out->size = (size_t)size;
        return RWKV_OK;
    }
    if ((rc = store_statefile_get(s, sf, out, &data, err)) == RWKV_OK && data != NULL)
        out->fingerprint = store_statefile_digest_mem(data, out->size);
    free(data);
    return rc;
}

/* 1 when reply T is being written now by another process (store_turn_writing:
** its writer alive, its row the text so far), as `sessions show` says
** "[being written]"; a failed read of the writer is taken as cut, as there. */
static int
turn_live(store *s, const store_turn *t)
{
    rwkv_err e2;
    int writing = 0;

    return t->interrupted && store_turn_writing(s, t->id, &writing, &e2) == RWKV_OK && writing;
}

static int
export_md(store *s, const store_session *ss, struct sbuf *b, char *note, size_t cap, int *bad,
          rwkv_err *err)
{
    int64_t *path = NULL, on_branch = 0;
    size_t n = 0;
    char when[64];
    framing fr;
    int rc;

    fmt_time(ss->created_ms, when, sizeof when);
    sb_puts(b, "# ");
    sb_md(b, ss->title[0] ? ss->title : "(untitled)");
    sb_printf(b, "\n\n- session %lld, created %s\n", (long long)ss->id, when);
    if (ss->model_id > 0) {
        store_model m;
        rwkv_err e2;
        rc = store_model_get(s, ss->model_id, &m, &e2);
        if (rc == RWKV_OK) {
            sb_puts(b, "- model: ");
            sb_md(b, m.path);
            sb_printf(b, " (v%s, fingerprint %016llx)\n", m.version, (unsigned long long)m.fingerprint);
        } else if (rc != RWKV_EINVAL) {  /* a damaged models table, not a row gone */
            if (err)
                *err = e2;
            return rc;
        }
    }
    {
        store_statefile sf;
        if ((rc = export_statefile(s, ss->state_file_id, &sf, err)) != RWKV_OK)
            return rc;
        if (sf.id != 0) {           /* as `sessions show` names it */
            sb_puts(b, "- state file: ");
            sb_md(b, sf.path[0] ? sf.path : sf.name);
            if (sf.fingerprint != 0)
                sb_printf(b, " (digest %016llx)", (unsigned long long)sf.fingerprint);
            sb_puts(b, "\n");
        }
    }
    if (ss->strategy[0]) {
        sb_puts(b, "- strategy: ");
        sb_md(b, ss->strategy);
        sb_puts(b, "\n");
    }
    framing_init(&fr);
    if (store_session_framing(s, ss->id, &fr, NULL) != RWKV_OK)
        framing_fini(&fr);          /* damaged: the default names */
    if (ss->head_turn > 0 && (rc = store_turn_path(s, ss->head_turn, &path, &n, err)) != RWKV_OK) {
        framing_fini(&fr);
        return rc;
    }
    if ((rc = store_branch_messages(s, ss->head_turn, &on_branch, err)) != RWKV_OK) {
        free(path);
        framing_fini(&fr);
        return rc;
    }
    sb_printf(b, "- current branch: %lld turns (%lld in the whole tree)%s\n", (long long)on_branch,
              (long long)ss->n_turns, (int64_t)n > on_branch ? ", after the greeting" : "");
    for (size_t i = 0; i < n; i++) {
        store_turn t;
        char why[200];
        if ((rc = store_turn_read(s, path[i], &t, why, sizeof why, err)) != RWKV_OK) {
            free(path);
            framing_fini(&fr);
            return rc;
        }
        sb_puts(b, "\n## ");
        sb_md(b, t.role == STORE_ROLE_USER ? framing_user(&fr) :
                 t.role == STORE_ROLE_ASSISTANT ? framing_bot(&fr) : "System");
        sb_puts(b, "\n\n");
        sb_md(b, t.text);
        sb_puts(b, "\n");
        if (t.interrupted)          /* as `sessions show` marks it */
            sb_puts(b, turn_live(s, &t) ? "\n*(reply still being written in another window: "
                                           "its text so far)*\n" : "\n*(reply interrupted)*\n");
        if (why[0]) {
            sb_printf(b, "\n*(turn %lld is damaged in the database: ", (long long)t.id);
            sb_md(b, why);
            sb_puts(b, ")*\n");
            note_add(note, cap, bad, t.id, why);
        }
        store_turn_fini(&t);
    }
    free(path);
    framing_fini(&fr);
    return RWKV_OK;
}

/* 1 if ID is in the sorted array V[0..N). */
static int
id_in(const int64_t *v, size_t n, int64_t id)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == id;
}

/* A turn whose parent was not written before it: a parent loop (named by
** store_turn_path) or a parent outside the session. */
static int
bad_parent(store *s, const store_turn *t, rwkv_err *err)
{
    int64_t *ids = NULL;
    size_t n = 0;
    int rc = store_turn_path(s, t->id, &ids, &n, err);

    free(ids);
    if (rc != RWKV_OK)
        return rc;
    return rwkv_errf(err, RWKV_EFORMAT, "%s: turn %lld: parent turn %lld is not an earlier turn of its session",
                     s->path, (long long)t->id, (long long)t->parent_id);
}

/* ",\n  \"framing\": {...}" of session SID (framing.h), its greeting
** cleaned like every exported text; damaged: null. */
static int
export_framing(store *s, int64_t sid, struct sbuf *b, rwkv_err *err)
{
    framing fr;
    char *text;

    framing_init(&fr);
    sb_puts(b, ",\n  \"framing\": ");
    if (store_session_framing(s, sid, &fr, NULL) != RWKV_OK) {
        sb_puts(b, "null");
        return RWKV_OK;
    }
    if (fr.greeting != NULL) {
        char *g = store_text_clean(fr.greeting, strlen(fr.greeting), NULL);
        if (g == NULL) {
            framing_fini(&fr);
            return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
        }
        free(fr.greeting);
        fr.greeting = g;
    }
    text = framing_encode(&fr);
    framing_fini(&fr);
    if (text == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    sb_puts(b, text);
    free(text);
    return RWKV_OK;
}

/* The JSON export's opening, up to and including "model" (M NULL: null). */
void
sb_json_session(struct sbuf *b, const char *title, int64_t created_ms, const char *strategy,
                const store_model *m)
{
    sb_puts(b, "{\n  \"format\": \"rwkv-tui-session\",\n  \"version\": 1,\n  \"title\": ");
    sb_json_clean(b, title);
    sb_printf(b, ",\n  \"created_ms\": %lld,\n  \"strategy\": ", (long long)created_ms);
    sb_json_clean(b, strategy);
    sb_puts(b, ",\n  \"model\": ");
    if (m == NULL) {
        sb_puts(b, "null");
        return;
    }
    sb_puts(b, "{\"path\": ");
    sb_json_clean(b, m->path);
    sb_printf(b, ", \"fingerprint\": \"%016llx\", \"version\": ", (unsigned long long)m->fingerprint);
    sb_json_clean(b, m->version);
    sb_puts(b, ", \"vocab\": ");
    sb_json_clean(b, m->vocab);
    sb_printf(b, ", \"size\": %llu, \"mtime\": %lld, \"n_layer\": %d, \"n_embd\": %d, \"n_head\": %d,"
                 " \"head_size\": %d}", (unsigned long long)m->size, (long long)m->mtime, m->n_layer,
              m->n_embd, m->n_head, m->head_size);
}

void
sb_json_statefile(struct sbuf *b, const store_statefile *f)
{
    sb_puts(b, ",\n  \"state_file\": ");
    if (f == NULL) {
        sb_puts(b, "null");
        return;
    }
    sb_puts(b, "{\"name\": ");
    sb_json_clean(b, f->name);
    sb_puts(b, ", \"path\": ");
    sb_json_clean(b, f->path);
    sb_printf(b, ", \"size\": %llu, \"digest\": \"%016llx\"}", (unsigned long long)f->size,
              (unsigned long long)f->fingerprint);
}

void
sb_json_sampling(struct sbuf *b, const rwkv_sampling *v)
{
    if (v == NULL) {
        sb_puts(b, "null");
        return;
    }
    sb_puts(b, "{");
    for (int k = 0; params_table[k].name != NULL; k++) {
        sb_printf(b, "%s\"%s\": ", k ? ", " : "", params_table[k].name);
        if (params_table[k].type == PARAMS_U64) {
            char t[32];
            params_format(v, k, t, sizeof t);
            sb_printf(b, "\"%s\"", t);
        } else if (params_table[k].type == PARAMS_INT) {
            sb_printf(b, "%.0f", params_get(v, k));
        } else {
            char t[32];
            store_fmt_float(params_get(v, k), t, sizeof t);
            sb_puts(b, t);
        }
    }
    sb_puts(b, "}");
}

/* One turn of the JSON export's "turns" (FIRST: no comma before it;
** DAMAGED, when not empty: what a damaged row lost). */
void
sb_json_turn(struct sbuf *b, const store_turn *t, int first, const char *damaged)
{
    sb_printf(b, "%s\n    {\"id\": %lld, \"parent\": ", first ? "" : ",", (long long)t->id);
    if (t->parent_id > 0)
        sb_printf(b, "%lld", (long long)t->parent_id);
    else
        sb_puts(b, "null");
    sb_printf(b, ", \"role\": \"%s\", \"text\": ", store_role_name(t->role));
    sb_json_clean(b, t->text);
    if (damaged != NULL && damaged[0]) {
        sb_puts(b, ", \"damaged\": ");
        sb_json_clean(b, damaged);
    }
    sb_puts(b, ",\n     \"tokens\": [");
    for (size_t i = 0; i < t->n_tokens; i++)
        sb_printf(b, "%s%" PRId32, i ? "," : "", t->tokens[i]);
    sb_puts(b, "],\n     \"sampling\": ");
    sb_json_sampling(b, t->has_sampling ? &t->sampling : NULL);
    sb_puts(b, ", \"prefill_tps\": ");
    sb_json_num(b, t->prefill_tps);
    sb_puts(b, ", \"decode_tps\": ");
    sb_json_num(b, t->decode_tps);
    sb_printf(b, ", \"time_ms\": %lld, \"interrupted\": %s%s}", (long long)t->time_ms,
              t->interrupted ? "true" : "false",
              t->interrupted == STORE_TURN_LIVE ? ", \"being_written\": true" : "");
}

/* ",\n  \"sampling\": ..." of session SID: its own sampling values (the
** settings row store_session_sampling reads; null when it has none -- saved
** before they were kept, imported without them -- or a damaged one). */
static int
export_sampling(store *s, int64_t sid, struct sbuf *b, rwkv_err *err)
{
    rwkv_sampling v;
    int found, rc;

    params_defaults(&v);
    if ((rc = store_session_sampling(s, sid, &v, &found, err)) != RWKV_OK)
        return rc;
    sb_puts(b, ",\n  \"sampling\": ");
    sb_json_sampling(b, found ? &v : NULL);
    return RWKV_OK;
}

/* ---- saved states in the JSON export (--states) ------------------------ */

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* N bytes of P as standard base64 (RFC 4648, '=' padded), appended to B. */
static void
sb_base64(struct sbuf *b, const unsigned char *p, size_t n)
{
    char out[4096];
    size_t o = 0;

    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        out[o++] = b64_alphabet[v >> 18 & 63];
        out[o++] = b64_alphabet[v >> 12 & 63];
        out[o++] = i + 1 < n ? b64_alphabet[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? b64_alphabet[v & 63] : '=';
        if (o + 4 > sizeof out) {
            sb_put(b, out, o);
            o = 0;
        }
    }
    sb_put(b, out, o);
}

/*
** Decode the base64 text IN (N characters) into *OUT (malloc'd, *OUT_N
** bytes).  Strict: standard alphabet, a multiple of 4 characters, '=' only
** as the last one or two.  RWKV_OK; RWKV_EFORMAT with WHY set ("character
** K ..."); RWKV_ENOMEM.
*/
static int
base64_decode(const char *in, size_t n, unsigned char **out, size_t *out_n, char *why,
              size_t cap)
{
    unsigned char *o;
    signed char val[256];
    size_t k = 0, pad = 0;

    memset(val, -1, sizeof val);
    for (int i = 0; i < 64; i++)
        val[(unsigned char)b64_alphabet[i]] = (signed char)i;
    *out = NULL;
    *out_n = 0;
    if (n % 4 != 0) {
        snprintf(why, cap, "base64 of %zu characters is cut (not a multiple of 4)", n);
        return RWKV_EFORMAT;
    }
    if (n >= 1 && in[n - 1] == '=')
        pad = n >= 2 && in[n - 2] == '=' ? 2 : 1;
    if ((o = malloc(n / 4 * 3 + 1)) == NULL)
        return RWKV_ENOMEM;
    for (size_t i = 0; i < n; i += 4) {
        uint32_t v = 0;
        for (size_t j = 0; j < 4; j++) {
            const char c = in[i + j];
            const int d = val[(unsigned char)c];
            if (d < 0 && !(c == '=' && i + j >= n - pad)) {
                free(o);
                snprintf(why, cap, "bad base64 at character %zu", i + j);
                return RWKV_EFORMAT;
            }
            v = v << 6 | (uint32_t)(d < 0 ? 0 : d);
        }
        o[k++] = (unsigned char)(v >> 16);
        if (i + 4 < n || pad < 2)
            o[k++] = (unsigned char)(v >> 8 & 0xff);
        if (i + 4 < n || pad < 1)
            o[k++] = (unsigned char)(v & 0xff);
    }
    *out = o;
    *out_n = k;
    return RWKV_OK;
}

/* A snapshot's bytes (inline before v8, else its shared row) and digest,
** by turn_id, as store_snapshot.c reads them. */
#define EXPORT_SNAP_SELECT                                                                     \
    "SELECT CASE WHEN n.blob_id IS NULL THEN n.blob ELSE b.blob END, n.digest"                 \
    " FROM snapshots n LEFT JOIN state_blobs b ON b.id=n.blob_id WHERE n.turn_id=?"

/*
** ",\n     \"state\": {...}" of TURN, when it has a saved state that reads
** back whole (store_blob_decode: a damaged one is left out -- the import
** rebuilds it by replay, as it would without --states); *N counts them.
*/
static int
export_state(store *s, int64_t turn, struct sbuf *b, int64_t *n, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    if ((rc = store_prep(s, EXPORT_SNAP_SELECT, &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, turn);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_BLOB) {
        const unsigned char *p = sqlite3_column_blob(st, 0);
        size_t len = (size_t)sqlite3_column_bytes(st, 0), nf;
        store_state_meta m;
        rwkv_err e2;
        if (store_blob_decode(p, len, &m, &nf, NULL, 0, &e2) == RWKV_OK) {
            sb_printf(b, ",\n     \"state\": {\"format\": \"RWKVSNAP\", \"version\": 1,"
                         " \"bytes\": %zu, \"n_floats\": %zu, \"fingerprint\": \"%016llx\","
                         " \"precision\": %d, \"digest\": \"%016llx\", \"checksum\": \"%016llx\",\n"
                         "      \"base64\": \"", len, nf, (unsigned long long)m.fingerprint,
                      m.precision, (unsigned long long)(uint64_t)sqlite3_column_int64(st, 1),
                      (unsigned long long)store_blob_hash(p));
            sb_base64(b, p, len);
            sb_puts(b, "\"}");
            (*n)++;
        }
        rc = SQLITE_DONE;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_dberr(s, err, "reading snapshot");
    return RWKV_OK;
}

/*
** The turns of session SID whose saved states an export with states
** carries, sorted, into *V (caller frees; *N of them): the end of every
** branch (a resume there is instant) and the two turns above it (the
** state a regeneration or an edit of the last message starts from).  Not
** every saved state: with retention's every-8th, a 2,000-turn session of a
** 1.5B model holds ~250 of 13 MB -- a file of gigabytes, over what an
** import reads; a turn carried none is rebuilt from the nearest one that
** is, as any dropped state is.
*/
static int
export_state_turns(store *s, int64_t sid, int64_t **v, size_t *n, rwkv_err *err)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    int rc;

    *v = NULL;
    *n = 0;
    if ((rc = store_prep(s, "WITH leaf(id, parent) AS (SELECT t.id, t.parent_id FROM turns t"
                            " WHERE t.session_id=?1 AND NOT EXISTS (SELECT 1 FROM turns c"
                            " WHERE c.parent_id=t.id))"
                            " SELECT id FROM leaf UNION SELECT parent FROM leaf WHERE parent IS NOT NULL"
                            " UNION SELECT t.parent_id FROM turns t JOIN leaf l ON t.id=l.parent"
                            " WHERE t.parent_id IS NOT NULL ORDER BY 1", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, sid);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *x = store_grow(*v, &cap, *n, sizeof *x, 16);
        if (x == NULL) {
            sqlite3_finalize(st);
            return rwkv_errf(err, RWKV_ENOMEM, "export: out of memory");
        }
        *v = x;
        (*v)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "reading turns");
}

/* The states of an export under a size cap (store_export_states_cap). */
struct xstates {
    uint64_t budget;   /* bytes the states may take; 0: no limit */
    uint64_t bytes;    /* OUT: bytes the states took */
    int64_t  left;     /* OUT: states left out for the budget */
};

/* Bytes a state of LEN blob bytes takes in an export: its base64 and the
** members around it (export_state's, at most ~230 bytes). */
#define XSTATE_BYTES(len) (((uint64_t)(len) + 2) / 3 * 4 + 320)

struct xcand {
    int64_t  id;
    int      head;     /* the head or one of the two turns above it */
    uint64_t bytes;
};

static int
xcand_cmp(const void *a, const void *b)
{
    const struct xcand *x = a, *y = b;

    if (x->head != y->head)
        return y->head - x->head;
    return (x->id < y->id) - (x->id > y->id);     /* newest first */
}

static int
id_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* CARRY (*N turn ids, sorted) cut to the states that fit in X's budget: the
** head's (the head and the two turns above it: the instant resume and a
** regeneration) first, then the newest; X's left counts the others. */
static int
carry_fit(store *s, int64_t head, int64_t *carry, size_t *n, struct xstates *x, rwkv_err *err)
{
    sqlite3_stmt *st;
    struct xcand *c;
    int64_t up[3] = { head, 0, 0 };
    uint64_t used = 0;
    size_t k = 0;
    int rc = RWKV_OK;

    if ((c = calloc(*n ? *n : 1, sizeof *c)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "export: out of memory");
    if ((rc = store_prep(s, "SELECT parent_id FROM turns WHERE id=?", &st, err)) != RWKV_OK)
        goto out;
    for (int i = 1; i < 3 && up[i - 1] > 0; i++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, up[i - 1]);
        up[i] = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    }
    sqlite3_finalize(st);
    if ((rc = store_prep(s, "SELECT length(CASE WHEN n.blob_id IS NULL THEN n.blob ELSE b.blob END)"
                            " FROM snapshots n LEFT JOIN state_blobs b ON b.id=n.blob_id"
                            " WHERE n.turn_id=?", &st, err)) != RWKV_OK)
        goto out;
    for (size_t i = 0; i < *n; i++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, carry[i]);
        c[i].id = carry[i];
        c[i].head = carry[i] > 0 && (carry[i] == up[0] || carry[i] == up[1] || carry[i] == up[2]);
        c[i].bytes = sqlite3_step(st) == SQLITE_ROW ? XSTATE_BYTES(sqlite3_column_int64(st, 0)) : 0;
    }
    sqlite3_finalize(st);
    qsort(c, *n, sizeof *c, xcand_cmp);
    for (size_t i = 0; i < *n; i++) {
        if (c[i].bytes <= x->budget - used) {
            used += c[i].bytes;
            carry[k++] = c[i].id;
        } else {
            x->left++;
        }
    }
    *n = k;
    qsort(carry, k, sizeof *carry, id_cmp);
out:
    free(c);
    return rc;
}

/* STATES: the saved states of export_state_turns too (export_state), within
** XS's budget (carry_fit). */
static int
export_json(store *s, const store_session *ss, int states, struct xstates *xs, struct sbuf *b,
            char *note, size_t cap, int *bad, rwkv_err *err)
{
    sqlite3_stmt *st;
    int64_t *done = NULL, *carry = NULL;
    size_t ndone = 0, capdone = 0, ncarry = 0;
    int rc, first = 1;
    store_model m, *mp = NULL;
    store_statefile sf;

    if (ss->model_id > 0) {
        if ((rc = store_model_get(s, ss->model_id, &m, err)) != RWKV_OK)
            return rc;
        mp = &m;
    }
    if ((rc = export_statefile(s, ss->state_file_id, &sf, err)) != RWKV_OK)
        return rc;
    sb_json_session(b, ss->title, ss->created_ms, ss->strategy, mp);
    sb_json_statefile(b, sf.id != 0 ? &sf : NULL);
    if ((rc = export_framing(s, ss->id, b, err)) != RWKV_OK ||
        (rc = export_sampling(s, ss->id, b, err)) != RWKV_OK)
        return rc;
    if (ss->head_turn > 0)
        sb_printf(b, ",\n  \"head\": %lld,\n  \"turns\": [", (long long)ss->head_turn);
    else
        sb_puts(b, ",\n  \"head\": null,\n  \"turns\": [");
    if (states && (rc = export_state_turns(s, ss->id, &carry, &ncarry, err)) == RWKV_OK &&
        xs->budget > 0)
        rc = carry_fit(s, ss->head_turn, carry, &ncarry, xs, err);
    if (states && rc != RWKV_OK) {
        free(carry);
        return rc;
    }
    if ((rc = store_prep(s, "SELECT id FROM turns WHERE session_id=? ORDER BY id", &st, err)) != RWKV_OK) {
        free(carry);
        return rc;
    }
    sqlite3_bind_int64(st, 1, ss->id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_turn t;
        char why[200];
        int r2 = store_turn_read(s, sqlite3_column_int64(st, 0), &t, why, sizeof why, err);
        if (r2 == RWKV_OK && t.parent_id > 0 && !id_in(done, ndone, t.parent_id)) {
            r2 = bad_parent(s, &t, err);
            store_turn_fini(&t);
        }
        if (r2 == RWKV_OK) {
            int64_t *x = store_grow(done, &capdone, ndone, sizeof *x, 256);
            if (x == NULL) {
                store_turn_fini(&t);
                r2 = rwkv_errf(err, RWKV_ENOMEM, "export: out of memory");
            } else {
                done = x;
            }
        }
        if (r2 != RWKV_OK) {
            sqlite3_finalize(st);
            free(done);
            free(carry);
            return r2;
        }
        done[ndone++] = t.id;
        if (why[0])
            note_add(note, cap, bad, t.id, why);
        if (turn_live(s, &t))
            t.interrupted = STORE_TURN_LIVE;
        sb_json_turn(b, &t, first, why);
        first = 0;
        store_turn_fini(&t);
        if (states && id_in(carry, ncarry, done[ndone - 1]) && !b->oom && b->n > 0 &&
            b->p[b->n - 1] == '}') {
            int64_t dummy = 0;
            size_t at = --b->n;         /* the turn's closing brace, after its state */
            r2 = export_state(s, done[ndone - 1], b, &dummy, err);
            xs->bytes += b->n - at;
            if (r2 != RWKV_OK) {
                sqlite3_finalize(st);
                free(done);
                free(carry);
                return r2;
            }
            sb_puts(b, "}");
        }
    }
    sqlite3_finalize(st);
    free(done);
    free(carry);
    if (rc != SQLITE_DONE)
        return store_dberr(s, err, "reading turns");
    sb_puts(b, "\n  ]\n}\n");
    return RWKV_OK;
}

int
store_export_output_check(store *s, int64_t id, const char *path, const store_input *in,
                          size_t n_in, rwkv_err *err)
{
    store_session ss;
    store_model m;
    store_statefile sf;
    char wm[64], wv[64], ws[64];
    store_input all[8];
    size_t n = 0;
    rwkv_err e2;
    int rc;

    /* a Markdown written over the session's own model or state file would
    ** leave it unable to go on.  Rows that cannot be read name nothing: the
    ** export itself then says what is wrong, in its own words.  One
    ** store_output_check with them all, so that the file is named for what
    ** it is before any other reason (read-only) */
    if (path != NULL && strcmp(path, "-") != 0 && store_session_get(s, id, &ss, &e2) == RWKV_OK &&
        store_model_ref(s, ss.model_id, &m, &e2) == RWKV_OK &&
        store_statefile_ref(s, ss.state_file_id, &sf, &e2) == RWKV_OK) {
        snprintf(wm, sizeof wm, "the model of session %lld", (long long)id);
        snprintf(wv, sizeof wv, "the vocabulary of session %lld", (long long)id);
        snprintf(ws, sizeof ws, "the state file of session %lld", (long long)id);
        all[n++] = (store_input){ m.path, wm };
        all[n++] = (store_input){ m.vocab, wv };
        all[n++] = (store_input){ sf.path, ws };
    }
    if (n_in > sizeof all / sizeof all[0] - n) {
        /* more inputs than fit beside them: those first, on their own */
        if ((rc = store_output_check(s, path, in, n_in, err)) != RWKV_OK)
            return rc;
        n_in = 0;
    }
    for (size_t i = 0; i < n_in; i++)
        all[n++] = in[i];
    return store_output_check(s, path, all, n, err);
}

int
store_export_ex(store *s, int64_t id, enum store_format fmt, char **buf, size_t *len, char *note,
                size_t note_cap, rwkv_err *err)
{
    return store_export_states(s, id, fmt, 0, buf, len, note, note_cap, err);
}

int
store_export_states(store *s, int64_t id, enum store_format fmt, int states, char **buf,
                    size_t *len, char *note, size_t note_cap, rwkv_err *err)
{
    return store_export_states_cap(s, id, fmt, states, STORE_IMPORT_MAX_BYTES, buf, len, NULL,
                                   note, note_cap, err);
}

int
store_export_states_cap(store *s, int64_t id, enum store_format fmt, int states, uint64_t max,
                        char **buf, size_t *len, int64_t *left, char *note, size_t note_cap,
                        rwkv_err *err)
{
    store_session ss;
    struct sbuf b = { 0 };
    struct xstates x = { 0, 0, 0 };
    int rc, bad = 0;

    *buf = NULL;
    *len = 0;
    if (left)
        *left = 0;
    if (note && note_cap)
        note[0] = '\0';
    if ((rc = store_session_get(s, id, &ss, err)) != RWKV_OK)
        return rc;
    /* One read transaction: a concurrent writer cannot tear the export. */
    if ((rc = store_exec(s, "BEGIN", err)) != RWKV_OK)
        return rc;
    rc = fmt == STORE_FMT_JSON ? export_json(s, &ss, states, &x, &b, note, note_cap, &bad, err)
                               : export_md(s, &ss, &b, note, note_cap, &bad, err);
    /* over what an import reads (a file it would refuse whole): again, with
    ** the states that fit beside the rest (carry_fit) -- the text is not
    ** cut, a file too large without any state stays as it is */
    if (rc == RWKV_OK && states && fmt == STORE_FMT_JSON && max > 0 && b.n >= max && !b.oom &&
        b.n - x.bytes + 1 < max) {
        x.budget = max - (b.n - x.bytes) - 1;
        x.bytes = 0;
        free(b.p);
        memset(&b, 0, sizeof b);
        if (note && note_cap)
            note[0] = '\0';
        bad = 0;
        rc = export_json(s, &ss, states, &x, &b, note, note_cap, &bad, err);
    }
    store_tx_rollback(s);
    if (left)
        *left = x.left;
    return sb_take(&b, rc, buf, len, err);
}

int
store_export(store *s, int64_t id, enum store_format fmt, char **buf, size_t *len, rwkv_err *err)
{
    return store_export_ex(s, id, fmt, buf, len, NULL, 0, err);
}

/* ---- import ------------------------------------------------------------- */

/* An imported turn: its id in the file, its new id, its role (the tree
** check of its children, import_tree_check). */
struct idmap {
    int64_t old, new_;
    int     role;
    int     mode;   /* a message's think mode (tok_check_turn), -1 unknown */
};

/* The entry of file id OLD among the N turns of M (ids increasing), or NULL. */
static const struct idmap *
map_find(const struct idmap *m, size_t n, int64_t old)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m[mid].old < old)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && m[lo].old == old ? &m[lo] : NULL;
}

/*
** The tree the chat makes (storage/session_db.c): a session's greeting is a
** system turn at the root (session_create); a message (user_row) goes under
** the head -- nothing (a session without a greeting, or an edited first
** message), the greeting or a reply; a reply (reply_row, begin_rows_write)
** under its message.  A file of any other shape -- a greeting under a turn,
** a message under a message, a reply without its message -- is one the
** client cannot show (a second "Start:" in the middle of a branch) nor
** resume, so it is refused.
** tree_ok[role][parent's role + 1], a root's parent role being -1.
*/
static const unsigned char tree_ok[3][4] = {
    /*                    root system user assistant */
    [STORE_ROLE_SYSTEM]    = { 1,   0,     0,   0 },
    [STORE_ROLE_USER]      = { 1,   1,     0,   1 },
    [STORE_ROLE_ASSISTANT] = { 0,   0,     1,   0 },
};

/* Turn TN ("turn ID", role ROLE) under PARENT (NULL: a root), as tree_ok
** has it: RWKV_OK, else one line naming the turn, its parent's id and the
** rule. */
static int
import_tree_check(int role, const struct idmap *parent, const char *tn, const char *what,
                  rwkv_err *err)
{
    static const char *const a[] = { "a system", "a user", "an assistant" };
    static const char *const rule[] = {
        "the greeting (system) is a first turn only",
        "a message goes first, or under the greeting or a reply",
        "a reply goes under its message (a user turn)",
    };
    int prole = parent ? parent->role : -1;

    if (tree_ok[role][prole + 1])
        return RWKV_OK;
    if (parent == NULL)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: %s: %s turn cannot be a first turn: %s", what,
                         tn, a[role], rule[role]);
    return rwkv_errf(err, RWKV_EFORMAT, "%s: %s: %s turn cannot be under %s turn (\"parent\": %lld): %s",
                     what, tn, a[role], a[prole], (long long)parent->old, rule[role]);
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

/* The times an import takes (a session's "created_ms", a turn's "time_ms"):
** from 2000-01-01 to a day past now (another computer's clock). */
#define IMPORT_TIME_MIN_MS   946684800000LL
#define IMPORT_TIME_AHEAD_MS 86400000LL

/*
** Field KEY of O, a time in unix milliseconds, into *OUT: absent or null
** gives 0 (now, as the chat's rows take it); anything else outside the
** bounds above -- a year 3170843 that lists first forever, a negative
** time that became now without a word -- is refused in one line naming
** the field (WHERE: the turn, NULL for the session's own).
*/
static int
import_time(const json_value *o, const char *key, int64_t *out, const char *what,
            const char *where, rwkv_err *err)
{
    const json_value *v = json_get(o, key);
    int64_t now = store_now_ms();

    *out = 0;
    if (v == NULL || v->type == JSON_NULL)
        return RWKV_OK;
    if (v->type != JSON_NUMBER || !v->is_int)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: %s%s\"%s\" must be a time in unix milliseconds "
                         "(an integer) or null", what, where ? where : "", where ? ": " : "", key);
    if (v->i64 < IMPORT_TIME_MIN_MS || v->i64 > now + IMPORT_TIME_AHEAD_MS)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: %s%s\"%s\": %lld is not a time from 2000-01-01 "
                         "to now (unix milliseconds; now is %lld)", what, where ? where : "",
                         where ? ": " : "", key, (long long)v->i64, (long long)now);
    *out = v->i64;
    return RWKV_OK;
}

static int
key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* dup_key's answer when out of memory (told apart by its address). */
static const char dup_oom[] = "";

/* A key that object O holds twice, else NULL (sorted when it has many:
** a file's size bounds the keys, not their square). */
static const char *
dup_key_of(const json_value *o)
{
    const char **k, *d = NULL;

    if (o->len <= 32) {
        for (size_t i = 1; i < o->len; i++)
            for (size_t j = 0; j < i; j++)
                if (strcmp(o->keys[i], o->keys[j]) == 0)
                    return o->keys[i];
        return NULL;
    }
    if ((k = malloc(o->len * sizeof *k)) == NULL)
        return dup_oom;
    memcpy(k, o->keys, o->len * sizeof *k);
    qsort(k, o->len, sizeof *k, key_cmp);
    for (size_t i = 1; i < o->len && d == NULL; i++)
        if (strcmp(k[i], k[i - 1]) == 0)
            d = k[i];
    free(k);
    return d;
}

/* The first key held twice by an object in V (at any depth), else NULL. */
static const char *
dup_key(const json_value *v)
{
    const char *d;

    if (v->type == JSON_OBJECT && (d = dup_key_of(v)) != NULL)
        return d;
    if (v->type == JSON_OBJECT || v->type == JSON_ARRAY)
        for (size_t i = 0; i < v->len; i++)
            if ((v->items[i]->type == JSON_OBJECT || v->items[i]->type == JSON_ARRAY) &&
                (d = dup_key(v->items[i])) != NULL)
                return d;
    return NULL;
}

/*
** A key written twice in one object of V (the session's fields, WHERE
** NULL, or a turn's): the parser keeps both and every reader takes the
** first, so which one the file meant cannot be told -- refused, naming it.
*/
static int
import_dup_keys(const json_value *v, const char *what, const char *where, rwkv_err *err)
{
    const char *d = dup_key(v);
    char k[64];

    if (d == NULL)
        return RWKV_OK;
    if (d == dup_oom)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    utf8_san_line(d, strlen(d), k, sizeof k);    /* a key's controls never raw */
    return rwkv_errf(err, RWKV_EFORMAT, "%s: %s%s\"%s\" is written twice in one object (which "
                     "value is meant cannot be told)", what, where ? where : "",
                     where ? ": " : "", k);
}

static int
parse_sampling(const json_value *o, rwkv_sampling *out, const char *what, const char *tn,
               rwkv_err *err)
{
    params_defaults(out);
    for (size_t k = 0; k < o->len; k++) {
        const json_value *v = o->items[k];
        int i = params_find(o->keys[k]);
        char txt[64];
        rwkv_err e2;
        if (i < 0)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: %s: unknown sampling value '%.60s'", what, tn,
                             o->keys[k]);
        if (v->type == JSON_STRING)
            snprintf(txt, sizeof txt, "%s", v->str);
        else if (v->type == JSON_NUMBER && v->is_int)
            snprintf(txt, sizeof txt, "%lld", (long long)v->i64);
        else if (v->type == JSON_NUMBER && params_table[i].type != PARAMS_FLOAT &&
                 (fabs(v->num) < 9e18 || v->num != floor(v->num)))
            /* 1e1 or 10.0 is no integer (params_int_check's rule), though
            ** "%.17g" would make it "10" */
            return rwkv_errf(err, RWKV_EFORMAT, "%s: %s: %s: %.17g written with a point or "
                             "exponent is not an integer (digits alone: no sign, point or "
                             "exponent)", what, tn, params_table[i].cli, v->num);
        else if (v->type == JSON_NUMBER && params_table[i].type == PARAMS_INT)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: %s: %s: %.17g is out of range [%.0f, %.0f]",
                             what, tn, params_table[i].cli, v->num, params_table[i].min,
                             params_table[i].max);
        else if (v->type == JSON_NUMBER && params_table[i].type != PARAMS_FLOAT)
            /* digits past int64: no JSON number here holds them exactly */
            return rwkv_errf(err, RWKV_EFORMAT, "%s: %s: %s: %.17g is past 2^63 as a JSON "
                             "number: write it as a decimal string", what, tn,
                             params_table[i].cli, v->num);
        else if (v->type == JSON_NUMBER)
            snprintf(txt, sizeof txt, "%.17g", v->num);
        else
            return rwkv_errf(err, RWKV_EFORMAT, "%s: %s: sampling value '%s' is not a number", what,
                             tn, o->keys[k]);
        /* a file exported before the /continue fix may hold its old
        ** max_tokens past the limit: taken as the database's rows are */
        if (store_sampling_set(out, i, txt, &e2) != RWKV_OK)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: %s: %s", what, tn, e2.msg);
    }
    return RWKV_OK;
}

/*
** A structural scan of JSON text, so that import never builds the tree of
** the whole file: the document is parsed with its "turns" array left out,
** then each turn object on its own (json_parse checks each piece fully).
** Memory is then the file, the id map (16 bytes a turn) and one turn's tree,
** instead of a tree of the whole file (~60x its size, mostly token arrays).
*/
static const char *
scan_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* End of the string starting at P ('"'), or NULL. */
static const char *
scan_string(const char *p, const char *e)
{
    for (p++; p < e; p++) {
        if (*p == '\\')
            p++;
        else if (*p == '"')
            return p + 1;
    }
    return NULL;
}

/* End of the value starting at P, or NULL if it is cut or unbalanced. */
static const char *
scan_value(const char *p, const char *e)
{
    int depth = 0;

    if (p >= e)
        return NULL;
    if (*p == '"')
        return scan_string(p, e);
    if (*p != '{' && *p != '[') {
        const char *q = p;
        while (q < e && !strchr(",]} \t\r\n", *q))
            q++;
        return q > p ? q : NULL;
    }
    for (const char *q = p; q < e; q++) {
        if (*q == '"') {
            if ((q = scan_string(q, e)) == NULL)
                return NULL;
            q--;
        } else if (*q == '{' || *q == '[') {
            if (++depth > JSON_MAX_DEPTH)
                return NULL;
        } else if (*q == '}' || *q == ']') {
            if (--depth == 0)
                return q + 1;
        }
    }
    return NULL;
}

/* Find the top-level "turns" value of the object TEXT: [*A, *B). */
static int
find_turns(const char *text, size_t len, const char **a, const char **b)
{
    const char *p = text, *e = text + len;

    *a = *b = NULL;
    if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)   /* json_parse skips it too */
        p += 3;
    p = scan_ws(p, e);
    if (p >= e || *p != '{')
        return -1;
    p = scan_ws(p + 1, e);
    if (p < e && *p == '}')
        return 0;
    for (;;) {
        const char *k = p, *ke, *v, *ve;
        if (p >= e || *p != '"' || (ke = scan_string(p, e)) == NULL)
            return -1;
        p = scan_ws(ke, e);
        if (p >= e || *p != ':')
            return -1;
        v = scan_ws(p + 1, e);
        if ((ve = scan_value(v, e)) == NULL)
            return -1;
        if (ke - k == 7 && memcmp(k, "\"turns\"", 7) == 0) {
            if (*a != NULL)
                return -1;   /* twice */
            *a = v;
            *b = ve;
        }
        p = scan_ws(ve, e);
        if (p < e && *p == ',') {
            p = scan_ws(p + 1, e);
            continue;
        }
        return p < e && *p == '}' ? 0 : -1;
    }
}

/*
** The session's model: a row of this database with the same path and
** fingerprint, else one with the same fingerprint, else a new row from the
** file's description when its path is unknown here; 0 (none) when the path
** names another model in this database (never rewrite that row).
*/
static int
import_model(store *s, const json_value *v, int64_t *model_id, rwkv_err *err)
{
    const char *path = json_str(v, "path"), *fp = json_str(v, "fingerprint");
    const char *ver = json_str(v, "version"), *voc = json_str(v, "vocab");
    uint64_t f = fp ? strtoull(fp, NULL, 16) : 0;
    sqlite3_stmt *st;
    int path_known = 0, rc;

    *model_id = 0;
    if (fp == NULL)
        return RWKV_OK;
    if (path && (rc = store_prep(s, "SELECT id, fingerprint FROM models WHERE path=?"
                                    " ORDER BY fingerprint=? DESC, id DESC LIMIT 1", &st, err)) == RWKV_OK) {
        sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, (int64_t)f);
        if (sqlite3_step(st) == SQLITE_ROW) {
            path_known = 1;
            if ((uint64_t)sqlite3_column_int64(st, 1) == f)
                *model_id = sqlite3_column_int64(st, 0);
        }
        sqlite3_finalize(st);
    } else if (path) {
        return rc;
    }
    if (*model_id == 0) {
        if ((rc = store_prep(s, "SELECT id FROM models WHERE fingerprint=? ORDER BY id LIMIT 1", &st, err))
            != RWKV_OK)
            return rc;
        sqlite3_bind_int64(st, 1, (int64_t)f);
        if (sqlite3_step(st) == SQLITE_ROW)
            *model_id = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    if (*model_id == 0 && path && path[0] && !path_known && strlen(path) < STORE_PATH_MAX) {
        store_model m;
        int64_t x;
        memset(&m, 0, sizeof m);
        snprintf(m.path, sizeof m.path, "%s", path);
        m.fingerprint = f;
        if (ver)
            snprintf(m.version, sizeof m.version, "%s", ver);
        if (voc && strlen(voc) < sizeof m.vocab)
            snprintf(m.vocab, sizeof m.vocab, "%s", voc);
        if (get_int(v, "size", &x) && x >= 0)
            m.size = (uint64_t)x;
        get_int(v, "mtime", &m.mtime);
        m.n_layer = get_int(v, "n_layer", &x) && x >= 0 && x < INT32_MAX ? (int)x : 0;
        m.n_embd = get_int(v, "n_embd", &x) && x >= 0 && x < INT32_MAX ? (int)x : 0;
        m.n_head = get_int(v, "n_head", &x) && x >= 0 && x < INT32_MAX ? (int)x : 0;
        m.head_size = get_int(v, "head_size", &x) && x >= 0 && x < INT32_MAX ? (int)x : 0;
        return store_model_upsert(s, &m, model_id, err);
    }
    /* A vocabulary the file knows and the row does not. */
    if (*model_id > 0 && voc && voc[0] &&
        (rc = store_prep(s, "UPDATE models SET vocab=? WHERE id=? AND vocab=''", &st, err)) == RWKV_OK) {
        sqlite3_bind_text(st, 1, voc, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, *model_id);
        rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "import");
        sqlite3_finalize(st);
        return rc;
    }
    return RWKV_OK;
}

/* A new referenced state_files row for the exported file V describes
** (PATH may be "": its bytes stayed in the other database), with the
** digest that lets a copy of it be given at resume. */
static int
import_statefile_row(store *s, const char *name, const char *path, uint64_t digest,
                     const json_value *v, int64_t *id, rwkv_err *err)
{
    char txt[512];
    rwkv_sampling def;
    sqlite3_stmt *st;
    int64_t size = 0;
    int rc;

    params_defaults(&def);
    params_apply_state_defaults(&def, 0);
    store_sampling_format(&def, txt, sizeof txt);
    if (!get_int(v, "size", &size) || size < 0)
        size = 0;
    if ((rc = store_prep(s, "INSERT INTO state_files(name, path, size, fingerprint, sampling)"
                            " VALUES (?,?,?,?,?)", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, size);
    sqlite3_bind_int64(st, 4, (int64_t)digest);
    sqlite3_bind_text(st, 5, txt, -1, SQLITE_STATIC);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "import");
    sqlite3_finalize(st);
    if (rc == RWKV_OK)
        *id = sqlite3_last_insert_rowid(s->db);
    return rc;
}

/*
** The session's state file, linked as its model is (import_model): a row
** of this database holding the same content (its digest; the same path
** first), else a row at the same path whose content is unknown on either
** side, else a new referenced row (import_statefile_row).  Never another
** file's row: a session must not start from another state.
*/
static int
import_statefile(store *s, const json_value *v, int64_t *sf_id, rwkv_err *err)
{
    const char *path = json_str(v, "path"), *name = json_str(v, "name");
    const char *dg = json_str(v, "digest"), *slash;
    uint64_t d = dg ? strtoull(dg, NULL, 16) : 0;
    sqlite3_stmt *st;
    int rc;

    *sf_id = 0;
    if (path == NULL || strlen(path) >= STORE_PATH_MAX)
        path = "";
    if (name == NULL || name[0] == '\0' || strlen(name) >= STORE_TITLE_MAX)
        name = (slash = strrchr(path, '/')) != NULL ? slash + 1 : path;
    if (path[0] == '\0' && d == 0)
        return RWKV_OK;               /* nothing to find it by */
    if ((rc = store_prep(s, "SELECT id FROM state_files WHERE (fingerprint=?1 AND ?1<>0)"
                            " OR (path=?2 AND ?2<>'' AND data IS NULL AND (fingerprint=0 OR ?1=0))"
                            " ORDER BY fingerprint=?1 DESC, path=?2 DESC, id LIMIT 1", &st, err))
        != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, (int64_t)d);
    sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        *sf_id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (*sf_id != 0)
        return RWKV_OK;
    return import_statefile_row(s, name, path, d, v, sf_id, err);
}

/*
** The check of a turn's tokens against its text (store_import_ex): a resume
** feeds the tokens, every display shows the text, so a file where they
** differ would show one conversation and feed the model another.  They are
** compared as the chat made one from the other (core/chat/chat.c):
**   greeting  its text is its tokens' bytes made well-formed (store_text_utf8,
**             the rule of the chat's stream: ill-formed UTF-8 to U+FFFD, NUL
**             dropped);
**   message   its tokens' bytes, made well-formed as well (the chat's
**             message is: chat_normalize), are "[\n\n]{user}: TEXT{tail}\n\n
**             {bot}:{head}" (chat_submit; the names of the file's framing,
**             which a session keeps; a think mode's tail and head, which may
**             change from one message to the next: think_tail/think_head below);
**   reply     its text is the head its message wrote, then its tokens' bytes
**             made well-formed -- all of them (cut, cancelled, at the length
**             limit: an incomplete last character is one U+FFFD), or those
**             before a stop string that the last token completes (the stop
**             string and the rest of that token are fed, not shown).  The
**             stop strings: "\n\n" and the file's (they may have changed
**             since; what a file can hide is then one of its own stop
**             strings, shown in its framing, and part of one token).
** A turn without tokens (a damaged row exported) hides nothing: a resume
** refuses it (check_tokens in session_db.c).
*/

/* The think modes a message may have been framed in (chat.h: the tail of
** the message and the head of the reply each writes into the prompt). */
#define N_THINK CHAT_THINK_COUNT
static const char *
think_tail(int m)
{
    const char *t, *h;
    chat_think_text(m, &t, &h);
    return t;
}
static const char *
think_head(int m)
{
    const char *t, *h;
    chat_think_text(m, &t, &h);
    return h;
}

/* What the check needs across the turns of one import. */
struct tok_check {
    const store_import_vocab *v;   /* NULL: no check (store_import) */
    const char *model_path;        /* the file's model path, "" when none */
    const char *vocab_path;        /* the World vocabulary it names, "" when none */
    const framing *fr;             /* the file's framing: the names */
    const tok  *t;                 /* decided at the first turn with tokens */
    tok        *bytes;             /* owned: the byte-level one, when it is that */
};

/* Up to 40 bytes of S[0..N) from OFF for a one-line message into OUT
** (never cutting a character; line breaks, quotes and controls escaped). */
static void
excerpt(const char *s, size_t n, size_t off, char *out, size_t cap)
{
    size_t o = 0, i = off;

    if (i >= n) {
        snprintf(out, cap, "(its end)");
        return;
    }
    out[o++] = '"';
    while (i < n && i - off < 40 && o + 12 < cap) {
        unsigned char c = (unsigned char)s[i];
        uint32_t cp = 0;
        int r = utf8_decode((const unsigned char *)s + i, n - i, &cp);
        if (c == '\n' || c == '\t' || c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = c == '\n' ? 'n' : c == '\t' ? 't' : (char)c;
            i++;
        } else if (c < 0x20 || c == 0x7f || r <= 0) {
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
            i++;
        } else if (cp >= 0x80 && cp <= 0x9f) {      /* C1: never raw to a terminal */
            o += (size_t)snprintf(out + o, cap - o, "\\u%04x", (unsigned)cp);
            i += (size_t)r;
        } else {
            memcpy(out + o, s + i, (size_t)r);
            o += (size_t)r;
            i += (size_t)r;
        }
    }
    if (i < n)
        o += (size_t)snprintf(out + o, cap - o, "...");
    out[o++] = '"';
    out[o] = '\0';
}

/* The refusal of turn TN (role ROLE): GOT (what its tokens make) and WANT
** (what its text makes) differ; where, in one line. */
static int
tok_mismatch(const char *what, const char *tn, int role, const char *got, size_t gn,
             const char *want, size_t wn, rwkv_err *err)
{
    static const char *const rn[] = { "system", "user", "assistant" };
    char g[200], w[200];
    size_t k = 0;

    while (k < gn && k < wn && got[k] == want[k])
        k++;
    while (k > 0 && k < gn && ((unsigned char)got[k] & 0xC0) == 0x80)
        k--;                           /* from the start of the character */
    excerpt(got, gn, k, g, sizeof g);
    excerpt(want, wn, k, w, sizeof w);
    return rwkv_errf(err, RWKV_EFORMAT,
                     "%s: %s (%s): its tokens are not its text: from byte %zu the tokens hold %s, "
                     "the %s %s (a file changed by hand or by another program: nothing imported)",
                     what, tn, rn[role], k, g, role == STORE_ROLE_USER ? "framed text" : "text", w);
}

/* The vocabulary of the file's turns, decided at the first turn with
** tokens (IDS[N]): the World one when the model names it or an id is over
** 255, else the byte-level one. */
static int
tok_decide(struct tok_check *c, const int32_t *ids, size_t n, const char *what, rwkv_err *err)
{
    int world = c->vocab_path[0] != '\0';
    rwkv_err e2;

    for (size_t k = 0; k < n && !world; k++)
        world = ids[k] > 255;
    if (!world) {
        if (tok_create_bytes(&c->bytes, err) != RWKV_OK)
            return err->code;
        c->t = c->bytes;
        return RWKV_OK;
    }
    if (c->v->world(c->v->ud, c->model_path, c->vocab_path, &c->t, &e2) != RWKV_OK)
        return rwkv_errf(err, e2.code, "%s: %s", what, e2.msg);
    return RWKV_OK;
}

/* The rows of a World model's head: ids its sampler can write. */
#define TOK_WORLD_HEAD 65536

/* The bytes of IDS[N] (a token without bytes gives none, as the chat
** streams it) into *B (malloc'ed), *BN; *LAST: the last token's length.
** REPLY: a reply's ids, where one without bytes below TOK_WORLD_HEAD is
** the sampler's and allowed; elsewhere such an id is refused. */
static int
tok_bytes(const struct tok_check *c, const int32_t *ids, size_t n, int reply, char **b,
          size_t *bn, size_t *last, const char *what, const char *tn, rwkv_err *err)
{
    size_t len = 0, o = 0;
    const char *p;
    size_t pl;

    *b = NULL;
    *last = 0;
    for (size_t k = 0; k < n; k++) {
        /* an id the vocabulary has no bytes for (past its end, or one of
        ** the World vocabulary's gaps: 65530..65535 and the unused ids)
        ** is no token of a text: `tokenize --decode` refuses it too */
        if (tok_piece(c->t, ids[k], &p, &pl) != RWKV_OK) {
            /* a reply's: a World model's head has 65536 rows, so its
            ** sampler can pick an id without bytes (shown as nothing):
            ** the chat's own export must import */
            if (reply && !tok_is_bytes(c->t) && ids[k] > 0 && ids[k] < TOK_WORLD_HEAD)
                continue;
            return rwkv_errf(err, RWKV_EFORMAT, "%s: %s: token id %d is outside the %s vocabulary "
                             "(ids 1..%zu, with gaps)", what, tn, (int)ids[k],
                             tok_is_bytes(c->t) ? "byte-level" : "World",
                             tok_vocab_size(c->t) - 1);
        }
        len += pl;
    }
    if ((*b = malloc(len + 1)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    for (size_t k = 0; k < n; k++) {
        pl = 0;
        if (tok_piece(c->t, ids[k], &p, &pl) == RWKV_OK && pl > 0) {
            memcpy(*b + o, p, pl);
            o += pl;
        }
        *last = pl;
    }
    (*b)[o] = '\0';
    *bn = o;
    return RWKV_OK;
}

/* A message: B[BN] (made well-formed) is "[\n\n|\n]{user}: T{tail}\n\n{bot}:{head}"
** for a think mode (*MODE) -- "\n" after a reply stopped at "\n" (chat.h's
** rule: the newlines the text before it lacks).  0 when it is; else the
** closest form in *W (malloc'ed), -1 when out of memory. */
static int
tok_message(const struct tok_check *c, const char *b, size_t bn, const char *t, int *mode,
            char **w, size_t *wn)
{
    const char *u = framing_user(c->fr), *bot = framing_bot(c->fr);
    size_t best = 0;

    *w = NULL;
    for (int sep = 0; sep < 3; sep++)
        for (int m = 0; m < N_THINK; m++) {
            size_t n = strlen(u) + strlen(t) + strlen(think_tail(m)) + strlen(bot) +
                       strlen(think_head(m)) + 8, k = 0;
            char *e = malloc(n);
            if (e == NULL)
                return -1;
            n = (size_t)snprintf(e, n, "%s%s: %s%s\n\n%s:%s", CHAT_TURN_SEP + (sep ? sep - 1 : 2),
                                 u, t, think_tail(m), bot, think_head(m));
            if (n == bn && memcmp(e, b, bn) == 0) {
                free(e);
                free(*w);
                *w = NULL;
                *mode = m;
                return 0;
            }
            while (k < n && k < bn && e[k] == b[k])
                k++;
            if (*w == NULL || k > best) {
                free(*w);
                *w = e;
                *wn = n;
                best = k;
            } else {
                free(e);
            }
        }
    return 1;
}

/* A reply: T is HEAD then B[BN] made well-formed, whole or up to a stop
** string that its last token (LAST bytes) completes.  1 when it is. */
static int
tok_reply_is(const struct tok_check *c, const char *b, size_t bn, size_t last, const char *t,
             const char *head)
{
    size_t hl = strlen(head), tl = strlen(t), fn;
    size_t ns = c->fr->n_stop;
    char *f;
    int ok;

    if (strncmp(t, head, hl) != 0)
        return 0;
    t += hl;
    tl -= hl;
    if ((f = store_text_utf8(b, bn, &fn)) == NULL)
        return -1;
    ok = fn == tl && memcmp(f, t, tl) == 0;     /* no stop string: the whole of B */
    free(f);
    for (size_t j = 0; j <= ns && !ok; j++) {
        const char *s = j < ns ? c->fr->stop[j] : CHAT_DEFAULT_STOP;
        size_t sl = strlen(s), from = bn > last + sl ? bn - last - sl + 1 : 0;
        for (size_t p = from; !ok && sl > 0 && p + sl <= bn; p++) {
            if (memcmp(b + p, s, sl) != 0 || p + sl <= bn - last)
                continue;
            if ((f = store_text_utf8(b, p, &fn)) == NULL)
                return -1;
            ok = fn == tl && memcmp(f, t, tl) == 0;
            free(f);
        }
    }
    return ok;
}

/*
** Id 0 in turn TT (named TN): no turn holds it, whatever the vocabulary --
** in the World one it is the end of a text, no token of the vocabulary
** (`tokenize --decode` refuses it), in the byte-level one the byte 00,
** which no text holds (a NUL is dropped from every text: store_nul_drop).
** Either way a replay would feed a token the text does not show, and the
** comparison below, made on the text's terms, cannot see it.
*/
static int
tok_zero(const store_turn *tt, const char *what, const char *tn, rwkv_err *err)
{
    static const char *const rn[] = { "system", "user", "assistant" };

    for (size_t k = 0; k < tt->n_tokens; k++)
        if (tt->tokens[k] == 0)
            return rwkv_errf(err, RWKV_EFORMAT,
                             "%s: %s (%s): its tokens are not its text: token %zu is id 0 (the "
                             "end of a text in the World vocabulary, the byte 00 in the "
                             "byte-level one), which no text holds (a file changed by hand or by "
                             "another program: nothing imported)", what, tn, rn[tt->role], k);
    return RWKV_OK;
}

/*
** Turn TT (named TN) against its tokens, as the top of this section says.
** PMODE: the think mode of its message (a reply; -1 unknown); *MODE (OUT):
** a message's own.
*/
static int
tok_check_turn(struct tok_check *c, const store_turn *tt, int pmode, int *mode, const char *what,
               const char *tn, rwkv_err *err)
{
    char *b = NULL, *f = NULL, *w = NULL;
    size_t bn = 0, fn, wn = 0, last = 0;
    int rc = RWKV_OK, r;

    *mode = -1;
    if (c->v == NULL || tt->n_tokens == 0)
        return RWKV_OK;
    if ((rc = tok_zero(tt, what, tn, err)) != RWKV_OK)
        return rc;
    if (c->t == NULL && (rc = tok_decide(c, tt->tokens, tt->n_tokens, what, err)) != RWKV_OK)
        return rc;
    if ((rc = tok_bytes(c, tt->tokens, tt->n_tokens, tt->role == STORE_ROLE_ASSISTANT, &b, &bn,
                        &last, what, tn, err)) != RWKV_OK)
        return rc;
    if ((f = store_text_utf8(b, bn, &fn)) == NULL) {
        r = -1;
        goto out;
    }
    if (tt->role == STORE_ROLE_USER) {
        if ((r = tok_message(c, f, fn, tt->text, mode, &w, &wn)) > 0)
            rc = tok_mismatch(what, tn, tt->role, f, fn, w, wn, err);
        goto out;
    }
    if (tt->role == STORE_ROLE_SYSTEM) {
        r = strcmp(f, tt->text) != 0;
        if (r)
            rc = tok_mismatch(what, tn, tt->role, f, fn, tt->text, strlen(tt->text), err);
        goto out;
    }
    r = 0;
    for (int m = pmode >= 0 ? pmode : 0; r == 0 && m < (pmode >= 0 ? pmode + 1 : N_THINK); m++)
        r = tok_reply_is(c, b, bn, last, tt->text, think_head(m));
    if (r == 0) {
        const char *h = think_head(pmode >= 0 ? pmode : 0), *t = tt->text;
        if (strncmp(t, h, strlen(h)) == 0)
            t += strlen(h);
        r = 1;
        rc = tok_mismatch(what, tn, tt->role, f, fn, t, strlen(t), err);
    } else if (r > 0) {
        r = 0;
    }
out:
    if (r < 0)
        rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    free(b);
    free(f);
    free(w);
    return rc;
}

/*
** The states a file carries (store_import_states): taken (TAKE) only when
** they belong to the file's model, as its "model" object describes it.
*/
struct state_take {
    int              take;
    int              has_model;   /* the file names a model (fingerprint) */
    store_state_meta model;       /* its fingerprint, version and shape (0: not said) */
    store_import_info info;
};

/* A refused state into SC's note, a line each ("WHAT: turn N: saved state
** not taken: why"); past STORE_IMPORT_NOTE_LINES only counted (the "and K
** more" line is added at the end: import_run). */
static void
state_refused(struct state_take *sc, const char *what, const char *tn, const char *why)
{
    size_t l = strlen(sc->info.note);

    if (sc->info.refused++ < STORE_IMPORT_NOTE_LINES)
        snprintf(sc->info.note + l, sizeof sc->info.note - l,
                 "%s%s: %s: saved state not taken: %s", l ? "\n" : "", what, tn, why);
}

/* Hex "16 digits" of KEY in O into *OUT; 0 when absent or not that. */
static int
get_hex64(const json_value *o, const char *key, uint64_t *out)
{
    const char *h = json_str(o, key);
    char *end;

    if (h == NULL || strlen(h) != 16 || strspn(h, "0123456789abcdefABCDEF") != 16)
        return 0;
    *out = strtoull(h, &end, 16);
    return 1;
}

/* Turn TN's "prefill_tps" and "decode_tps" (tokens a second) from T into
** TT: a number, 0 or more, or null or absent (0: unknown).  A negative one
** or a string was taken (shown as a speed, or read as 0). */
static int
import_speeds(const json_value *t, store_turn *tt, const char *what, const char *tn,
              rwkv_err *err)
{
    static const char *const keys[2] = { "prefill_tps", "decode_tps" };
    double *dst[2] = { &tt->prefill_tps, &tt->decode_tps };

    for (int k = 0; k < 2; k++) {
        const json_value *x = json_get(t, keys[k]);
        *dst[k] = 0;
        if (x == NULL || x->type == JSON_NULL)
            continue;
        if (x->type != JSON_NUMBER || !(x->num >= 0))
            return rwkv_errf(err, RWKV_EFORMAT, "%s: %s: \"%s\" must be a number, 0 or more",
                             what, tn, keys[k]);
        *dst[k] = x->num;
    }
    return RWKV_OK;
}

/* The file's "model": an object, null or absent; its "fingerprint", when
** given, 16 hex digits ("zz" was read as 0, a model of no fingerprint,
** and could link the session to another row). */
static int
import_model_check(const json_value *r, const char *what, rwkv_err *err)
{
    const json_value *v = json_get(r, "model"), *f;
    uint64_t fp;

    if (v == NULL || v->type == JSON_NULL)
        return RWKV_OK;
    if (v->type != JSON_OBJECT)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: \"model\" must be an object or null", what);
    f = json_get(v, "fingerprint");
    if (f != NULL && f->type != JSON_NULL && !get_hex64(v, "fingerprint", &fp))
        return rwkv_errf(err, RWKV_EFORMAT, "%s: \"model\": \"fingerprint\" must be 16 hex digits",
                         what);
    return RWKV_OK;
}

/*
** Verify the "state" object X of turn TN and store it as the snapshot of
** TURN (its new id).  RWKV_OK both when stored and when refused (WHY, then
** SC's note); only a database error or out of memory stops the import.
** Checked, in this order: the framing (format RWKVSNAP v1, "bytes"), the
** base64, its length, the blob (store_blob_decode: magic, version,
** length, checksum of header and floats), the file's "checksum" and
** "fingerprint" against the blob's, and the blob's model against the
** file's model -- fingerprint, version, layers, width, heads.  A state
** that passes is the state the other database saved; what the checks
** cannot tell is whether it is the state of the turn's text (a checksum
** catches damage, not a forger): hence TAKE, asked for by the user.
*/
static int
import_state(store *s, const json_value *x, int64_t turn, struct state_take *sc, const char *what,
             const char *tn, rwkv_err *err)
{
    const json_value *v;
    unsigned char *blob = NULL;
    float *fl = NULL;
    size_t blen = 0, nf = 0;
    int64_t bytes = 0, ver = 0;
    uint64_t ck = 0, fp = 0, dg = 0;
    store_state_meta m;
    char why[300];
    rwkv_err e2;
    int rc;

    why[0] = '\0';
    v = x->type == JSON_OBJECT ? json_get(x, "base64") : NULL;
    if (x->type != JSON_OBJECT)
        snprintf(why, sizeof why, "\"state\" is not an object");
    else if (json_str(x, "format") == NULL || strcmp(json_str(x, "format"), "RWKVSNAP") != 0 ||
             !get_int(x, "version", &ver) || ver != 1)
        snprintf(why, sizeof why, "not a state of format RWKVSNAP version 1");
    else if (!get_int(x, "bytes", &bytes) || bytes < STORE_BLOB_HEADER ||
             (uint64_t)bytes > (uint64_t)STORE_BLOB_HEADER + 4ull * STORE_MAX_STATE_FLOATS)
        snprintf(why, sizeof why, "\"bytes\" is not a state's size");
    else if (!get_hex64(x, "checksum", &ck) || !get_hex64(x, "fingerprint", &fp) ||
             !get_hex64(x, "digest", &dg))
        snprintf(why, sizeof why, "\"checksum\", \"fingerprint\" and \"digest\" must be 16 hex digits");
    else if (v == NULL || v->type != JSON_STRING)
        snprintf(why, sizeof why, "no \"base64\" string");
    if (why[0]) {
        state_refused(sc, what, tn, why);
        return RWKV_OK;
    }
    rc = base64_decode(v->str, v->len, &blob, &blen, why, sizeof why);
    if (rc == RWKV_ENOMEM)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    if (rc != RWKV_OK)
        ;
    else if (blen != (size_t)bytes)
        snprintf(why, sizeof why, "its base64 holds %zu bytes, \"bytes\" says %lld (cut or padded)",
                 blen, (long long)bytes);
    else if (store_blob_decode(blob, blen, &m, &nf, NULL, 0, &e2) != RWKV_OK)
        snprintf(why, sizeof why, "%.200s", e2.msg);
    else if (store_blob_hash(blob) != ck)
        snprintf(why, sizeof why, "\"checksum\" %016llx is not the state's (%016llx)",
                 (unsigned long long)ck, (unsigned long long)store_blob_hash(blob));
    else if (m.fingerprint != fp)
        snprintf(why, sizeof why, "\"fingerprint\" %016llx is not the state's (%016llx)",
                 (unsigned long long)fp, (unsigned long long)m.fingerprint);
    else if (!sc->has_model)
        snprintf(why, sizeof why, "the file names no model (\"model\": null) it could belong to");
    else if (m.fingerprint != sc->model.fingerprint)
        snprintf(why, sizeof why, "made with another model (fingerprint %016llx, the session's "
                                  "model %016llx)", (unsigned long long)m.fingerprint,
                 (unsigned long long)sc->model.fingerprint);
    else if ((sc->model.version[0] && strcmp(m.version, sc->model.version) != 0) ||
             (sc->model.n_layer && m.n_layer != sc->model.n_layer) ||
             (sc->model.n_embd && m.n_embd != sc->model.n_embd) ||
             (sc->model.n_head && m.n_head != sc->model.n_head) ||
             (sc->model.head_size && m.head_size != sc->model.head_size))
        snprintf(why, sizeof why, "made for v%s %dx%d (%d heads of %d), the session's model is "
                                  "v%s %dx%d (%d heads of %d)", m.version, m.n_layer, m.n_embd,
                 m.n_head, m.head_size, sc->model.version, sc->model.n_layer, sc->model.n_embd,
                 sc->model.n_head, sc->model.head_size);
    if (why[0]) {
        free(blob);
        state_refused(sc, what, tn, why);
        return RWKV_OK;
    }
    if ((fl = malloc(nf * sizeof *fl)) == NULL) {
        free(blob);
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    }
    rc = store_blob_decode(blob, blen, &m, &nf, fl, nf, err);
    free(blob);
    m.digest = dg;              /* the model file's digest: a column, not in the blob */
    if (rc == RWKV_OK)
        rc = store_snapshot_put_tx(s, turn, fl, nf, &m, err);
    free(fl);
    if (rc == RWKV_OK)
        sc->info.taken++;
    return rc;
}

/* Check turn object T (the I-th) and insert it into session SID; the map
** gets its old and new ids.  S NULL: check only (store_import_check).
** SC: the states it may carry (NULL: none taken). */
static int
import_turn(store *s, const json_value *t, size_t i, int64_t sid, struct idmap *map,
            struct tok_check *tc, struct state_take *sc, const char *what, rwkv_err *err)
{
    const json_value *x;
    const struct idmap *pm = NULL;
    store_turn tt;
    int32_t *ids = NULL;
    char *clean = NULL;
    int64_t oid, par = 0;
    char tn[40];   /* the turn as the file names it: "turn ID" */
    int rc;

    memset(&tt, 0, sizeof tt);
    if (t->type != JSON_OBJECT || !get_int(t, "id", &oid))
        return rwkv_errf(err, RWKV_EFORMAT, "%s: \"turns\"[%zu]: not an object with an integer \"id\"",
                         what, i);
    snprintf(tn, sizeof tn, "turn %lld", (long long)oid);
    if ((rc = import_dup_keys(t, what, tn, err)) != RWKV_OK)
        return rc;
    if (i > 0 && oid <= map[i - 1].old)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: %s: ids must increase (%lld after %lld)", what, tn,
                         (long long)oid, (long long)map[i - 1].old);
    x = json_get(t, "parent");
    if (x && x->type != JSON_NULL) {
        if (!get_int(t, "parent", &par) || (pm = map_find(map, i, par)) == NULL)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: %s: parent is not an earlier turn", what, tn);
        tt.parent_id = pm->new_;
    }
    x = json_get(t, "role");
    if (x == NULL || x->type != JSON_STRING || (tt.role = store_role_parse(x->str)) < 0)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: %s: \"role\" must be user, assistant or system", what, tn);
    if ((rc = import_tree_check(tt.role, pm, tn, what, err)) != RWKV_OK)
        return rc;
    /* one greeting a session (a system turn is a root: tree_ok): the chat
    ** feeds one, and which of two a resume went on from was anyone's guess */
    for (size_t j = 0; tt.role == STORE_ROLE_SYSTEM && j < i; j++)
        if (map[j].role == STORE_ROLE_SYSTEM)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: %s: a second greeting (system) turn; the "
                             "session's greeting is turn %lld", what, tn, (long long)map[j].old);
    x = json_get(t, "text");
    if (x == NULL || x->type != JSON_STRING)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: %s: \"text\" must be a string", what, tn);
    /* Invalid UTF-8 never enters the database; a NUL (\u0000) is dropped,
    ** as everywhere (store_nul_drop).  Controls are kept, as the chat keeps
    ** a model's or a user's (every display of them cleans them), so an
    ** export and its import hold the same text. */
    if ((clean = store_text_utf8(x->str, x->len, NULL)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    tt.text = clean;
    x = json_get(t, "tokens");
    if (x && x->type != JSON_NULL) {
        if (x->type != JSON_ARRAY || x->len > STORE_IMPORT_MAX_TOKENS) {
            rc = rwkv_errf(err, RWKV_EFORMAT, "%s: %s: \"tokens\" must be an array of ids", what, tn);
            goto out;
        }
        if ((ids = malloc((x->len ? x->len : 1) * sizeof *ids)) == NULL) {
            rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory");
            goto out;
        }
        for (size_t k = 0; k < x->len; k++) {
            const json_value *e = x->items[k];
            if (e->type != JSON_NUMBER || !e->is_int || e->i64 < 0 || e->i64 > INT32_MAX) {
                rc = rwkv_errf(err, RWKV_EFORMAT, "%s: %s: token %zu is not a token id", what, tn, k);
                goto out;
            }
            ids[k] = (int32_t)e->i64;
        }
        tt.tokens = ids;
        tt.n_tokens = x->len;
    }
    x = json_get(t, "sampling");
    if (x && x->type == JSON_OBJECT) {
        if ((rc = parse_sampling(x, &tt.sampling, what, tn, err)) != RWKV_OK)
            goto out;
        tt.has_sampling = 1;
    } else if (x && x->type != JSON_NULL) {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: %s: \"sampling\" must be an object or null", what, tn);
        goto out;
    }
    if ((rc = import_speeds(t, &tt, what, tn, err)) != RWKV_OK ||
        (rc = import_time(t, "time_ms", &tt.time_ms, what, tn, err)) != RWKV_OK)
        goto out;
    x = json_get(t, "interrupted");
    if (x && x->type != JSON_NULL && x->type != JSON_BOOL) {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: %s: \"interrupted\" must be true, false or null",
                       what, tn);
        goto out;
    }
    tt.interrupted = x && x->type == JSON_BOOL && x->num != 0;
    tt.session_id = sid;
    if ((rc = tok_check_turn(tc, &tt, pm ? pm->mode : -1, &map[i].mode, what, tn, err)) != RWKV_OK)
        goto out;
    if (s == NULL)
        tt.id = (int64_t)i + 1;      /* store_import_check: no row, an id to map */
    else if ((rc = store_turn_insert_tx(s, &tt, err)) != RWKV_OK)
        goto out;
    x = json_get(t, "state");
    if (s != NULL && sc != NULL && x != NULL && x->type != JSON_NULL) {
        sc->info.carried++;
        if (sc->take && (rc = import_state(s, x, tt.id, sc, what, tn, err)) != RWKV_OK)
            goto out;
    }
    map[i].old = oid;
    map[i].new_ = tt.id;
    map[i].role = tt.role;
out:
    free(ids);
    free(clean);
    return rc;
}

/*
** ERR from E2, the JSON parser's error about a part of the file WHAT
** ("WHAT: JSON why at byte N", N counted in that part), in the one form of
** every import error: the file first, then WHERE ("turn 3: ", or ""), then
** why, the byte counted in the whole file -- N, plus SHIFT when N is at or
** past SPLIT (the part's text maps to the file's from there on).  Out of
** memory stays RWKV_ENOMEM.
*/
static int
import_json_err(rwkv_err *err, const rwkv_err *e2, const char *what, const char *where,
                long split, long shift)
{
    const char *m = e2->msg, *at;
    size_t wl = strlen(what);
    int code = e2->code == RWKV_ENOMEM ? RWKV_ENOMEM : RWKV_EFORMAT;
    long b;

    if (strncmp(m, what, wl) == 0 && m[wl] == ':' && m[wl + 1] == ' ')
        m += wl + 2;                   /* the parser named the file: named once, first */
    if ((at = strstr(m, " at byte ")) != NULL && sscanf(at, " at byte %ld", &b) == 1 && b >= 0)
        return rwkv_errf(err, code, "%s: %s%.*s at byte %ld", what, where, (int)(at - m), m,
                         b >= split ? b + shift : b);
    return rwkv_errf(err, code, "%s: %s%s", what, where, m);
}

/*
** Import step 1: parse the document without its turns ("turns": [], so the
** tree stays small whatever the file's size).  *TA..*TB: the turns array's
** text (*TA NULL when the file has none); *DOC and *HEAD_TEXT (the copy it
** was parsed from) are the caller's to free, also on failure.
*/
static int
import_parse_head(const char *text, size_t len, const char *what, const char **ta,
                  const char **tb, json_doc **doc, char **head_text, rwkv_err *err)
{
    const char *e = text + len;
    size_t hl;
    rwkv_err e2;
    int rc;

    if (find_turns(text, len, ta, tb) != 0) {
        /* let the parser name the error (bounded: its tree is ~60x) */
        if (len <= STORE_IMPORT_DIAG_MAX) {
            if ((rc = json_parse(text, len, what, doc, err)) != RWKV_OK)
                return RWKV_EFORMAT;
            json_free(*doc);
            *doc = NULL;
        }
        return rwkv_errf(err, RWKV_EFORMAT, "%s: not a rwkv-tui session export (malformed JSON)", what);
    }
    if (*ta == NULL)
        return json_parse(text, len, what, doc, err) == RWKV_OK ? RWKV_OK : RWKV_EFORMAT;
    /* The document without its turns: "turns": [] */
    hl = (size_t)(*ta - text) + 2 + (size_t)(e - *tb);
    if ((*head_text = malloc(hl + 1)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    memcpy(*head_text, text, (size_t)(*ta - text));
    memcpy(*head_text + (*ta - text), "[]", 2);
    memcpy(*head_text + (*ta - text) + 2, *tb, (size_t)(e - *tb));
    (*head_text)[hl] = '\0';
    if (json_parse(*head_text, hl, what, doc, &e2) == RWKV_OK)
        return RWKV_OK;
    /* a byte after the "[]" that stands for the turns is that many bytes
    ** further on in the file */
    import_json_err(err, &e2, what, "", (long)(*ta - text) + 2, (long)(*tb - *ta) - 2);
    return RWKV_EFORMAT;
}

/*
** The session's "strategy" of root R into SS: absent, null or "" none; a
** string the program's parser takes (strat_parse, no model loaded), else
** refused in one line naming the field -- it was taken unread and failed
** at the resume.  One this build cannot run (a GPU one from another
** computer) is kept: a resume says so and --strategy S resumes it with
** another (sess_info_load_hint).
*/
static int
import_strategy(const json_value *r, const char *what, store_session *ss, rwkv_err *err)
{
    const json_value *v = json_get(r, "strategy");
    strat st;
    rwkv_err e2;
    int ctl = 0;

    if (v == NULL || v->type == JSON_NULL)
        return RWKV_OK;
    if (v->type != JSON_STRING)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: \"strategy\" must be a string or null", what);
    if (v->len == 0)
        return RWKV_OK;
    for (size_t k = 0; k < v->len; k++)
        ctl |= (unsigned char)v->str[k] < 0x20 || (unsigned char)v->str[k] >= 0x7f;
    /* (never echoed when it holds a control or a non-ASCII byte: no
    ** strategy does) */
    if (v->len >= sizeof ss->strategy || ctl)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: \"strategy\" must be a strategy of at most %zu "
                         "bytes (e.g. \"cpu fp32\")", what, sizeof ss->strategy - 1);
    if (strat_parse(v->str, &st, &e2) != RWKV_OK)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: \"strategy\": %s", what, e2.msg);
    memcpy(ss->strategy, v->str, v->len + 1);
    return RWKV_OK;
}

/* Import step 2: the session's own fields from root R into SS (zeroed
** here); *HEAD: the file's head turn id (0 when null or absent). */
static int
import_session_fields(const json_value *r, const char *what, store_session *ss, int64_t *head,
                      rwkv_err *err)
{
    const json_value *v = json_get(r, "format");
    int64_t ver;
    int rc;

    if (r->type != JSON_OBJECT || v == NULL || v->type != JSON_STRING ||
        strcmp(v->str, "rwkv-tui-session") != 0)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: not a rwkv-tui session export (no \"format\": \"rwkv-tui-session\")", what);
    if ((rc = import_dup_keys(r, what, NULL, err)) != RWKV_OK)
        return rc;
    if (get_int(r, "version", &ver) && ver > 1)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: a session export of version %lld, written by a "
                         "newer rwkv-tui: this one reads version 1", what, (long long)ver);
    if (!get_int(r, "version", &ver) || ver != 1)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: \"version\" must be 1", what);
    memset(ss, 0, sizeof *ss);
    v = json_get(r, "title");
    /* The title as the client makes one from the same text (store_title_clean:
    ** the terminal rule on one line, so an escape sequence goes whole rather
    ** than leaving a U+FFFD and its tail), held to the client's limit on the
    ** text as given; a NUL (\u0000) in it is a control like any other, not
    ** its end. */
    if (v == NULL || v->type != JSON_STRING || v->len >= STORE_TITLE_MAX)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: \"title\" must be a string of at most %d bytes", what,
                         STORE_TITLE_MAX - 1);
    store_title_clean_n(v->str, v->len, ss->title, sizeof ss->title);
    if (ss->title[strspn(ss->title, " ")] == '\0')
        ss->title[0] = '\0';          /* blank: none (import_title names it) */
    if ((rc = import_strategy(r, what, ss, err)) != RWKV_OK ||
        (rc = import_time(r, "created_ms", &ss->created_ms, what, NULL, err)) != RWKV_OK)
        return rc;
    v = json_get(r, "head");
    if (v && v->type != JSON_NULL && !get_int(r, "head", head))
        return rwkv_errf(err, RWKV_EFORMAT, "%s: \"head\" must be a turn id or null", what);
    return RWKV_OK;
}

/*
** An imported session SID whose file gave no title ("" or blanks) gets
** one as a new chat does (store_title_auto): from its first message, the
** first user turn imported; with none (or a blank first line) it stays
** untitled, as a new chat with no message is, and every reader shows its
** placeholder ("(untitled)").  A rename's rule -- no blank title -- holds
** for what is written.
*/
static int
import_title(store *s, int64_t sid, rwkv_err *err)
{
    sqlite3_stmt *st;
    char t[STORE_TITLE_MAX] = "", clean[STORE_TITLE_MAX];
    int rc;

    if ((rc = store_prep(s, "SELECT text FROM turns WHERE session_id=? AND role=? "
                            "ORDER BY id LIMIT 1", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, sid);
    sqlite3_bind_int(st, 2, STORE_ROLE_USER);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_text(st, 0) != NULL)
        store_title_auto((const char *)sqlite3_column_text(st, 0), t, sizeof t);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_dberr(s, err, "import");
    store_title_clean(t, clean, sizeof clean);
    if (clean[strspn(clean, " ")] == '\0')
        return RWKV_OK;
    if ((rc = store_prep(s, "UPDATE sessions SET title=? WHERE id=?", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_text(st, 1, clean, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, sid);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "import");
    sqlite3_finalize(st);
    return rc;
}

/* Room for turn NT in *MAP (*CAP entries), grown by doubling. */
static int
import_map_room(struct idmap **map, size_t *cap, size_t nt, rwkv_err *err)
{
    struct idmap *x = store_grow(*map, cap, nt, sizeof *x, 1024);

    if (x == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    *map = x;
    return RWKV_OK;
}

/*
** Import step 3: the turns array TA..TB of the file TEXT, one object at a
** time (each parsed on its own), into session SID.  *MAP (the caller frees it, also on
** failure) gets the old and new ids of the *NT turns.
*/
static int
import_turns(store *s, const char *text, const char *ta, const char *tb, const char *what,
             int64_t sid, struct idmap **map, size_t *nt, struct tok_check *tc,
             struct state_take *sc, rwkv_err *err)
{
    const char *p = scan_ws(ta + 1, tb);
    size_t cap = 0;
    int rc;

    if (p < tb && *p == ']')
        p++;
    else
        for (;;) {
            const char *te = scan_value(p, tb);
            json_doc *td = NULL;
            char where[32];
            rwkv_err e2;
            if (te == NULL)
                return rwkv_errf(err, RWKV_EFORMAT, "%s: \"turns\"[%zu]: malformed JSON", what, *nt);
            if (*nt >= STORE_IMPORT_MAX_TURNS)
                return rwkv_errf(err, RWKV_EFORMAT, "%s: \"turns\" must be an array of at most %d turns", what,
                                 STORE_IMPORT_MAX_TURNS);
            if ((rc = import_map_room(map, &cap, *nt, err)) != RWKV_OK)
                return rc;
            if (json_parse(p, (size_t)(te - p), what, &td, &e2) != RWKV_OK) {
                /* parsed on its own: its bytes count from the turn's start */
                snprintf(where, sizeof where, "\"turns\"[%zu]: ", *nt);
                return import_json_err(err, &e2, what, where, 0, (long)(p - text));
            }
            rc = import_turn(s, json_root(td), *nt, sid, *map, tc, sc, what, err);
            json_free(td);
            if (rc != RWKV_OK)
                return rc;
            (*nt)++;
            p = scan_ws(te, tb);
            if (p < tb && *p == ',') {
                p = scan_ws(p + 1, tb);
                continue;
            }
            if (p < tb && *p == ']') {
                p++;
                break;
            }
            return rwkv_errf(err, RWKV_EFORMAT, "%s: \"turns\": expected , or ] after \"turns\"[%zu]", what,
                             *nt - 1);
        }
    if (scan_ws(p, tb) != tb)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: \"turns\": text after the array", what);
    return RWKV_OK;
}

/* Import step 4: session SID's head: the file's HEAD (mapped through MAP),
** or its last turn when the file has none.  S NULL: HEAD checked only. */
static int
import_set_head(store *s, int64_t sid, const struct idmap *map, size_t nt, int64_t head,
                const char *what, rwkv_err *err)
{
    int64_t head_new = 0;
    sqlite3_stmt *st;
    int rc;

    if (head > 0) {
        const struct idmap *hm = map_find(map, nt, head);
        if (hm == NULL)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: \"head\" %lld is not a turn of the file", what,
                             (long long)head);
        head_new = hm->new_;
    }
    if (head == 0 && nt > 0)
        head_new = map[nt - 1].new_;
    if (head_new <= 0 || s == NULL)
        return RWKV_OK;
    if ((rc = store_prep(s, "UPDATE sessions SET head_turn=? WHERE id=?", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, head_new);
    sqlite3_bind_int64(st, 2, sid);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "import");
    sqlite3_finalize(st);
    return rc;
}

/* The file's "framing" (absent or null: the defaults), its greeting cleaned
** like every text of an import. */
static int
import_framing(const json_value *r, const char *what, framing *fr, rwkv_err *err)
{
    char *g;
    int rc;

    if ((rc = framing_from_json(json_get(r, "framing"), what, fr, err)) != RWKV_OK ||
        fr->greeting == NULL)
        return rc;
    if ((g = store_text_clean(fr->greeting, strlen(fr->greeting), NULL)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    free(fr->greeting);
    fr->greeting = g;
    return RWKV_OK;
}

enum store_format
store_format_for_name(const char *path)
{
    size_t n = strlen(path);

    return n >= 5 && strcasecmp(path + n - 5, ".json") == 0 ? STORE_FMT_JSON : STORE_FMT_MD;
}

/* A Markdown export starts with its "# title" line (after blanks). */
static int
is_markdown_export(const char *text, size_t len)
{
    size_t i = 0;

    while (i < len && isspace((unsigned char)text[i]))
        i++;
    return i + 2 <= len && text[i] == '#' && text[i + 1] == ' ';
}

/*
** A JSON export is an object: a file that does not start with '{' (after
** blanks) is some other file -- a text, a binary, an empty file -- and is
** named as such, rather than as the JSON parser's "bad number at byte 0".
*/
static int
import_sniff(const char *text, size_t len, const char *what, rwkv_err *err)
{
    size_t i = 0;
    unsigned char c;

    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)   /* an editor's mark: json_parse skips it */
        i = 3;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
        i++;
    if (i == len)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: not a rwkv-tui session export (the file is %s)", what,
                         len ? "blank" : "empty");
    if ((c = (unsigned char)text[i]) == '{')
        return RWKV_OK;
    if (c > ' ' && c < 0x7f)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: not a rwkv-tui session export (a JSON export starts "
                                            "with '{', this file with '%c')", what, c);
    return rwkv_errf(err, RWKV_EFORMAT, "%s: not a rwkv-tui session export (a JSON export starts "
                                        "with '{', this file with byte 0x%02x)", what, c);
}

/* The session's own sampling values of root R into *OUT (*HAS 1), or none
** (absent or null: a file exported before they were, *HAS 0). */
static int
import_sampling(const json_value *r, const char *what, rwkv_sampling *out, int *has,
                rwkv_err *err)
{
    const json_value *v = json_get(r, "sampling");

    *has = 0;
    if (v == NULL || v->type == JSON_NULL)
        return RWKV_OK;
    if (v->type != JSON_OBJECT)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: \"sampling\" must be an object or null", what);
    *has = 1;
    return parse_sampling(v, out, what, "the session's sampling", err);
}

/*
** The steps of an import in one order for both callers: the file as a
** whole, its session fields and framing (into SS, *HEAD, FR), then -- in S's
** transaction, or with S NULL only checked (store_import_check) -- its
** model, session, turns and head.  *ID the new session (0 for a check).
*/
/* The first open's replay after an import into session SID: the turns
** above the head's nearest saved state (the root when none) and their
** tokens, into INFO (0 when the head has its state, or there is no head). */
static int
import_replay_cost(store *s, int64_t sid, store_import_info *info, rwkv_err *err)
{
    sqlite3_stmt *st;
    int64_t head = 0;
    int rc;

    info->replay_turns = info->replay_tokens = info->text_only = info->text_only_first = 0;
    if ((rc = store_prep(s, "SELECT head_turn FROM sessions WHERE id=?", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, sid);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW)
        head = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_dberr(s, err, "import");
    if (head <= 0)
        return RWKV_OK;
    if ((rc = store_prep(s, STORE_PATH_CTE " SELECT length(t.tokens)/4,"
                            " EXISTS(SELECT 1 FROM snapshots n WHERE n.turn_id=t.id)"
                            " FROM p JOIN turns t ON t.id=p.id ORDER BY p.depth DESC", &st, err))
        != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, head);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && sqlite3_column_int(st, 1) == 0) {
        info->replay_turns++;
        info->replay_tokens += sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_dberr(s, err, "import");
    /* text without tokens (store_turn_read's "tokens are missing") */
    if ((rc = store_prep(s, STORE_PATH_CTE " SELECT count(*), min(t.id) FROM p JOIN turns t"
                            " ON t.id=p.id WHERE t.text<>'' AND coalesce(length(t.tokens), 0)=0",
                         &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, head);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        info->text_only = sqlite3_column_int64(st, 0);
        info->text_only_first = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? RWKV_OK : store_dberr(s, err, "import");
}

/*
** The framing's banned ids (FR) against the vocabulary the turns were
** checked with (TC, decided at the first turn with tokens; none: a World
** one where the model names its vocabulary, else unknown and not checked):
** the sampler refuses an id past its model's head (256 rows byte-level,
** TOK_WORLD_HEAD World), so such a session could never be resumed.
*/
static int
import_ban_check(const struct tok_check *tc, const framing *fr, const char *what, rwkv_err *err)
{
    int bytes = tc->t != NULL ? tok_is_bytes(tc->t) : 0;
    int32_t rows = bytes ? 256 : TOK_WORLD_HEAD;

    if (tc->t == NULL && tc->vocab_path[0] == '\0')
        return RWKV_OK;
    for (size_t i = 0; i < fr->n_ban; i++)
        if (fr->ban[i] >= rows)
            return rwkv_errf(err, RWKV_EFORMAT, "%s: framing \"ban\": token id %d is outside the "
                             "%s vocabulary (0..%d): no reply could be sampled with it",
                             what, (int)fr->ban[i], bytes ? "byte-level" : "World", (int)rows - 1);
    return RWKV_OK;
}

/*
** ERR, a JSON error the parser found where the file ends ("... at byte N",
** N its length but for trailing blanks; a string or a \u escape the end
** cut), said as what it is: a file cut short -- a copy or a download not
** finished -- not a syntax error to look for at its last byte.
*/
static void
import_cut_short(const char *text, size_t len, const char *what, rwkv_err *err)
{
    const char *at = strstr(err->msg, " at byte ");
    long b;

    while (len > 0 && isspace((unsigned char)text[len - 1]))
        len--;
    if (err->code != RWKV_EFORMAT)
        return;
    if (at == NULL) {
        /* a file too large for the parser's diagnosis (import_parse_head) */
        if (strstr(err->msg, "(malformed JSON)") == NULL || (len > 0 && text[len - 1] == '}'))
            return;
    } else if (sscanf(at, " at byte %ld", &b) != 1 || b < 0 ||
               ((size_t)b < len && strstr(err->msg, "JSON unterminated string at") == NULL &&
                strstr(err->msg, "JSON truncated \\u escape at") == NULL)) {
        return;
    }
    rwkv_errf(err, RWKV_EFORMAT, "%s: the file ends at byte %zu inside the export: cut short "
                                 "(a copy or a download not finished?)", what, len);
}

static int
import_run(store *s, const char *text, size_t len, const char *what, const store_import_vocab *iv,
           struct state_take *sc, int64_t *id, rwkv_err *err)
{
    struct tok_check tc;
    json_doc *doc = NULL;
    const json_value *r, *v, *sv;
    const char *ta = NULL, *tb = NULL;
    store_session ss;
    struct idmap *map = NULL;
    char *head_text = NULL;
    size_t nt = 0;
    int64_t head = 0;
    framing fr;
    rwkv_sampling samp;
    int rc, has_samp = 0;

    *id = 0;
    framing_init(&fr);
    memset(&tc, 0, sizeof tc);
    if (is_markdown_export(text, len))
        return rwkv_errf(err, RWKV_EFORMAT, "%s: a Markdown export, which cannot be imported "
                                            "(export with --format json, or to a .json name)",
                         what);
    if ((rc = import_sniff(text, len, what, err)) != RWKV_OK)
        return rc;
    if ((rc = import_parse_head(text, len, what, &ta, &tb, &doc, &head_text, err)) != RWKV_OK) {
        import_cut_short(text, len, what, err);
        goto out;
    }
    r = json_root(doc);
    if ((rc = import_session_fields(r, what, &ss, &head, err)) != RWKV_OK ||
        (rc = import_framing(r, what, &fr, err)) != RWKV_OK ||
        (rc = import_sampling(r, what, &samp, &has_samp, err)) != RWKV_OK ||
        (rc = import_model_check(r, what, err)) != RWKV_OK)
        goto out;
    if (ta == NULL || *ta != '[') {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: \"turns\" must be an array of at most %d turns", what,
                       STORE_IMPORT_MAX_TURNS);
        goto out;
    }
    /* the turns' tokens are checked with the vocabulary of the file's model */
    tc.v = iv;
    tc.fr = &fr;
    v = json_get(r, "model");
    tc.model_path = v && v->type == JSON_OBJECT && json_str(v, "path") ? json_str(v, "path") : "";
    tc.vocab_path = v && v->type == JSON_OBJECT && json_str(v, "vocab") ? json_str(v, "vocab") : "";
    if (sc != NULL && v && v->type == JSON_OBJECT && get_hex64(v, "fingerprint", &sc->model.fingerprint)) {
        int64_t x;
        const char *mv = json_str(v, "version");
        sc->has_model = 1;
        if (mv != NULL && strlen(mv) < sizeof sc->model.version)
            snprintf(sc->model.version, sizeof sc->model.version, "%s", mv);
        sc->model.n_layer = get_int(v, "n_layer", &x) && x > 0 && x < INT32_MAX ? (int)x : 0;
        sc->model.n_embd = get_int(v, "n_embd", &x) && x > 0 && x < INT32_MAX ? (int)x : 0;
        sc->model.n_head = get_int(v, "n_head", &x) && x > 0 && x < INT32_MAX ? (int)x : 0;
        sc->model.head_size = get_int(v, "head_size", &x) && x > 0 && x < INT32_MAX ? (int)x : 0;
    }
    if (s == NULL) {
        if ((rc = import_turns(NULL, text, ta, tb, what, 0, &map, &nt, &tc, NULL, err)) == RWKV_OK &&
            (rc = import_ban_check(&tc, &fr, what, err)) == RWKV_OK)
            rc = import_set_head(NULL, 0, map, nt, head, what, err);
        goto out;
    }
    if ((rc = store_tx_begin(s, err)) != RWKV_OK)
        goto out;
    sv = json_get(r, "state_file");
    if ((v && v->type == JSON_OBJECT && (rc = import_model(s, v, &ss.model_id, err)) != RWKV_OK) ||
        (sv && sv->type == JSON_OBJECT &&
         (rc = import_statefile(s, sv, &ss.state_file_id, err)) != RWKV_OK) ||
        (rc = store_session_insert_tx(s, &ss, id, err)) != RWKV_OK ||
        (rc = store_session_set_framing(s, *id, &fr, err)) != RWKV_OK ||
        (has_samp && (rc = store_session_sampling_put(s, *id, &samp, err)) != RWKV_OK) ||
        (rc = import_turns(s, text, ta, tb, what, *id, &map, &nt, &tc, sc, err)) != RWKV_OK ||
        (rc = import_ban_check(&tc, &fr, what, err)) != RWKV_OK ||
        (rc = import_set_head(s, *id, map, nt, head, what, err)) != RWKV_OK ||
        (ss.title[0] == '\0' && (rc = import_title(s, *id, err)) != RWKV_OK) ||
        (sc->info.taken > 0 && (rc = store_retain(s, *id, err)) != RWKV_OK) ||
        (rc = import_replay_cost(s, *id, &sc->info, err)) != RWKV_OK) {
        store_tx_rollback(s);
        *id = 0;
        goto out;
    }
    rc = store_tx_commit(s, err);
    if (rc != RWKV_OK)
        *id = 0;
    if (sc->info.refused > STORE_IMPORT_NOTE_LINES) {
        size_t l = strlen(sc->info.note);
        snprintf(sc->info.note + l, sizeof sc->info.note - l,
                 "\n%s: and %lld more saved states not taken", what,
                 (long long)sc->info.refused - STORE_IMPORT_NOTE_LINES);
    }
out:
    tok_close(tc.bytes);
    framing_fini(&fr);
    free(map);
    free(head_text);
    json_free(doc);
    return rc;
}

int
store_import_states(store *s, const char *text, size_t len, const char *what,
                    const store_import_vocab *v, int take, store_import_info *info, int64_t *id,
                    rwkv_err *err)
{
    struct state_take sc;
    int rc;

    memset(&sc, 0, sizeof sc);
    sc.take = take;
    rc = import_run(s, text, len, what, v, &sc, id, err);
    if (info != NULL)
        *info = sc.info;
    return rc;
}

void
store_import_note(const store_import_info *in, const char *what, int64_t id, int take, char *buf,
                  size_t cap)
{
    char cost[160] = "";

    buf[0] = '\0';
    if (in->text_only > 0 && in->refused == 0) {
        snprintf(buf, cap, "%s: %lld turn%s of session %lld %s text without %s tokens (a damaged "
                 "row's export, or a file made without them), the first turn %lld: the session "
                 "reads, searches and exports, and goes on only from before that turn ('sessions "
                 "fork %lld TURN')", what, (long long)in->text_only, in->text_only == 1 ? "" : "s",
                 (long long)id, in->text_only == 1 ? "holds" : "hold",
                 in->text_only == 1 ? "its" : "their", (long long)in->text_only_first,
                 (long long)id);
        return;
    }
    if (in->replay_turns > 0)
        snprintf(cost, sizeof cost, "the first open of session %lld replays %lld turn%s "
                 "(%lld tokens)", (long long)id, (long long)in->replay_turns,
                 in->replay_turns == 1 ? "" : "s", (long long)in->replay_tokens);
    if (in->refused > 0)
        snprintf(buf, cap, "%s%s%s", in->note, cost[0] ? "; " : "", cost);
    else if (cost[0] && in->carried > 0 && !take)
        snprintf(buf, cap, "%s: its %lld saved state%s not taken (import --states takes them, "
                 "from a file you trust): %s", what, (long long)in->carried,
                 in->carried == 1 ? "" : "s", cost);
    else if (cost[0] && in->carried == 0)
        snprintf(buf, cap, "%s: no saved states (sessions export --states carries them): %s", what,
                 cost);
}

int
store_import(store *s, const char *text, size_t len, const char *what, int64_t *id, rwkv_err *err)
{
    return store_import_states(s, text, len, what, NULL, 0, NULL, id, err);
}

int
store_import_ex(store *s, const char *text, size_t len, const char *what,
                const store_import_vocab *v, int64_t *id, rwkv_err *err)
{
    return store_import_states(s, text, len, what, v, 0, NULL, id, err);
}

int
store_import_check(const char *text, size_t len, const char *what, rwkv_err *err)
{
    int64_t id;

    return import_run(NULL, text, len, what, NULL, NULL, &id, err);
}

int
store_import_check_ex(const char *text, size_t len, const char *what,
                      const store_import_vocab *v, rwkv_err *err)
{
    int64_t id;

    return import_run(NULL, text, len, what, v, NULL, &id, err);
}
