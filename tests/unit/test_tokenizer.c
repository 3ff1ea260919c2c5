/*
** test_tokenizer.c -- World and byte tokenizers against the reference.
**
**   * every case of fixtures/tokenizer/world_tokenizer_cases.jsonl: encode
**     equals the reference's TRIE_TOKENIZER ids, decode gives back the input
**     bytes (and `decoded` for the valid-UTF-8 cases), UTF-8 validity agrees
**     with the reference's decode();
**   * the vocabulary literals: total piece bytes and an FNV-1a hash of all
**     pieces in id order, computed with Python's ast.literal_eval;
**   * the streaming decoder: characters split across tokens, invalid bytes
**     (expected output from Python's bytes.decode('utf-8', 'replace'), which
**     substitutes maximal subparts like Unicode's table 3-8), flush, limits;
**   * malformed vocabulary files: one line "FILE:LINE: what" each.
*/
#include "../../core/clock.h"
#include "../../core/io/json.h"
#include "../../core/text/tokenizer.h"
#include "../../core/text/utf8.h"
#include "../harness.h"

#include <stdint.h>
#include <time.h>
#include <unistd.h>

/* Reference numbers for rwkv_vocab_v20230424.txt (Python, ast.literal_eval). */
#define WORLD_VOCAB_SIZE   65530u
#define WORLD_PIECE_BYTES  373358u
#define WORLD_PIECE_FNV1A  0x1ce69ac813551bd5ull
#define WORLD_MAX_PIECE    128u

/* Stream output buffer: more than any piece + 16. */
#define TOK_STREAM_TEST_CAP 2048

static int
unhex(const char *h, unsigned char *out, size_t *n)
{
    size_t k = 0;
    while (h[0] && h[1]) {
        unsigned v;
        if (sscanf(h, "%2x", &v) != 1)
            return -1;
        out[k++] = (unsigned char)v;
        h += 2;
    }
    *n = k;
    return 0;
}

/* Growable output for stream tests. */
struct sbuf {
    char  *p;
    size_t n, cap;
};

static void
sbuf_add(struct sbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

/* Stream-decode IDS one at a time (+ flush) into OUT; checks the prefix
** invariant along the way when FULL (the concatenated bytes) is valid. */
static int
stream_all(const tok *t, const int32_t *ids, size_t n, struct sbuf *out, const unsigned char *full,
           int full_valid)
{
    tok_stream st;
    char chunk[TOK_STREAM_TEST_CAP];
    size_t pushed = 0;
    int ok = 1;

    tok_stream_init(&st);
    out->n = 0;
    for (size_t i = 0; i < n; i++) {
        const char *pc;
        size_t pl;
        long w = tok_stream_push(&st, t, ids[i], chunk, sizeof chunk);
        tok_piece(t, ids[i], &pc, &pl);
        pushed += pl;
        if (w < 0)
            return 0;
        if ((size_t)w != strlen(chunk) && memchr(chunk, 0, (size_t)w) == NULL)
            ok = 0;
        sbuf_add(out, chunk, (size_t)w);
        if (st.npend >= UTF8_MAX)
            ok = 0;
        if (full_valid) {
            /* emitted = everything pushed except the waiting tail */
            if (out->n + st.npend != pushed || memcmp(out->p, full, out->n) != 0)
                ok = 0;
        }
    }
    long w = tok_stream_flush(&st, chunk, sizeof chunk);
    if (w < 0)
        return 0;
    sbuf_add(out, chunk, (size_t)w);
    return ok;
}

static void
test_world_cases(const tok *w)
{
    char path[1024];
    FILE *f = fopen(test_fixture_path(path, sizeof path, "tokenizer/world_tokenizer_cases.jsonl"), "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t ll;
    int n_cases = 0, n_enc = 0, n_dec = 0, n_str = 0, n_stream = 0;
    struct sbuf sb = { 0 };

    TEST_CONDF(f != NULL, "cannot open %s", path);
    if (f == NULL)
        return;
    while ((ll = getline(&line, &cap, f)) > 0) {
        json_doc *doc;
        rwkv_err err;
        const json_value *r, *toks;
        const char *id, *hex, *dec;
        unsigned char *bytes;
        size_t nb = 0, nid;
        int32_t *ids;
        char *text;
        size_t tl;
        int valid, same;

        if (json_parse(line, (size_t)ll, "case", &doc, &err) != RWKV_OK) {
            TEST_CONDF(0, "fixture line: %s", err.msg);
            continue;
        }
        r = json_root(doc);
        id = json_str(r, "id");
        hex = json_str(r, "bytes_hex");
        dec = json_str(r, "decoded");
        toks = json_get(r, "tokens");
        valid = json_get(r, "decode_valid_utf8") && json_get(r, "decode_valid_utf8")->num != 0;
        if (!id || !hex || !dec || !toks || toks->type != JSON_ARRAY) {
            TEST_CONDF(0, "fixture line %d lacks fields", n_cases + 1);
            json_free(doc);
            continue;
        }
        n_cases++;
        bytes = malloc(strlen(hex) / 2 + 1);
        unhex(hex, bytes, &nb);

        TEST_CONDF(tok_encode(w, (const char *)bytes, nb, &ids, &nid, &err) == RWKV_OK, "%s: encode: %s",
                   id, err.msg);
        same = nid == toks->len;
        for (size_t i = 0; same && i < nid; i++)
            same = json_at(toks, i)->is_int && json_at(toks, i)->i64 == ids[i];
        TEST_CONDF(same, "%s: encode gives %zu ids, reference %zu (first ids %d %d)", id, nid, toks->len,
                   nid > 0 ? ids[0] : -1, nid > 1 ? ids[1] : -1);
        n_enc += same;

        /* decode the reference ids (not ours) */
        int32_t *rid = malloc((toks->len + 1) * sizeof *rid);
        for (size_t i = 0; i < toks->len; i++)
            rid[i] = (int32_t)json_at(toks, i)->i64;
        TEST_CONDF(tok_decode(w, rid, toks->len, &text, &tl, &err) == RWKV_OK, "%s: decode: %s", id, err.msg);
        same = text && tl == nb && memcmp(text, bytes, nb) == 0;
        TEST_CONDF(same, "%s: decode gives %zu bytes, want %zu", id, tl, nb);
        n_dec += same;
        TEST_CONDF(utf8_valid(bytes, nb) == valid, "%s: utf8_valid says %d, reference %d", id, !valid, valid);
        if (valid) {
            same = json_get(r, "decoded")->len == nb && memcmp(dec, bytes, nb) == 0 && tl == nb && memcmp(text, dec, nb) == 0;
            TEST_CONDF(same, "%s: decoded text differs from the reference", id);
            n_str += same;
        } else {
            TEST_CONDF(strcmp(dec, UTF8_REPL) == 0, "%s: reference decoded is not U+FFFD", id);
        }

        /* streaming: valid text comes back byte-exact; any text comes back valid */
        same = stream_all(w, rid, toks->len, &sb, bytes, valid);
        TEST_CONDF(same, "%s: stream invariant broken", id);
        if (valid)
            same = same && sb.n == nb && memcmp(sb.p, bytes, nb) == 0;
        else
            same = same && sb.n > 0 && utf8_valid(sb.p, sb.n);
        TEST_CONDF(same, "%s: stream output wrong (%zu bytes)", id, sb.n);
        n_stream += same;

        free(rid);
        free(text);
        free(ids);
        free(bytes);
        json_free(doc);
    }
    free(line);
    free(sb.p);
    fclose(f);
    TEST_CONDF(n_cases >= 290, "only %d fixture cases read", n_cases);
    TEST_INFO("world cases: %d read, encode ok %d, decode ok %d, text ok %d, stream ok %d", n_cases, n_enc,
              n_dec, n_str, n_stream);
}

static void
test_world_pieces(const tok *w)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t total = 0, maxlen = 0;
    int roundtrip = 1, bad = 0;
    const char *p;
    size_t n;

    TEST_CONDF(tok_vocab_size(w) == WORLD_VOCAB_SIZE, "vocab size %zu", tok_vocab_size(w));
    TEST_COND("world is not bytes", !tok_is_bytes(w));
    for (int32_t id = 1; id < (int32_t)tok_vocab_size(w); id++) {
        int32_t *ids;
        size_t nid;
        rwkv_err err;

        if (tok_piece(w, id, &p, &n) != RWKV_OK) {
            bad++;
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            h ^= (unsigned char)p[i];
            h *= 0x100000001b3ull;
        }
        total += n;
        if (n > maxlen)
            maxlen = n;
        /* a piece is its own longest match */
        if (tok_encode(w, p, n, &ids, &nid, &err) != RWKV_OK || nid != 1 || ids[0] != id)
            roundtrip = 0;
        free(ids);
    }
    TEST_CONDF(bad == 0, "%d ids missing", bad);
    TEST_CONDF(total == WORLD_PIECE_BYTES, "piece bytes %zu", total);
    TEST_CONDF(h == WORLD_PIECE_FNV1A, "piece hash %016llx", (unsigned long long)h);
    TEST_CONDF(maxlen == WORLD_MAX_PIECE, "longest piece %zu", maxlen);
    TEST_COND("every piece encodes to its own id", roundtrip);

    TEST_COND("id 0 is end of text", tok_piece(w, 0, &p, &n) == RWKV_OK && n == 0);
    TEST_COND("id 1 is byte 00", tok_piece(w, 1, &p, &n) == RWKV_OK && n == 1 && p[0] == 0);
    TEST_COND("id 256 is byte ff", tok_piece(w, 256, &p, &n) == RWKV_OK && n == 1 && (unsigned char)p[0] == 0xff);
    TEST_COND("str '\\x80' is C2 80", tok_piece(w, 2423, &p, &n) == RWKV_OK && n == 2 && memcmp(p, "\xc2\x80", 2) == 0);
    TEST_COND("b'\\x80' is 80", tok_piece(w, 129, &p, &n) == RWKV_OK && n == 1 && (unsigned char)p[0] == 0x80);
    TEST_COND("'\\u2002' is E2 80 82", tok_piece(w, 9804, &p, &n) == RWKV_OK && n == 3 && memcmp(p, "\xe2\x80\x82", 3) == 0);
    TEST_COND("\"'\" is a quote", tok_piece(w, 40, &p, &n) == RWKV_OK && n == 1 && p[0] == '\'');
    TEST_COND("id 65530 refused", tok_piece(w, 65530, &p, &n) == RWKV_EINVAL);
    TEST_COND("id -1 refused", tok_piece(w, -1, &p, &n) == RWKV_EINVAL);

    {
        int32_t bad_ids[] = { 33155, 70000 };
        char *t;
        size_t tl;
        rwkv_err err;
        TEST_COND("decode refuses an unknown id", tok_decode(w, bad_ids, 2, &t, &tl, &err) == RWKV_EINVAL &&
                                                      strstr(err.msg, "70000") && t == NULL);
        int32_t eot[] = { 0, 33155, 0 };
        TEST_COND("decode skips end of text", tok_decode(w, eot, 3, &t, &tl, &err) == RWKV_OK && tl == 5 &&
                                                  strcmp(t, "Hello") == 0);
        free(t);
        int32_t *ids;
        size_t nid;
        TEST_COND("encode empty", tok_encode(w, "", 0, &ids, &nid, &err) == RWKV_OK && nid == 0);
        free(ids);
    }
}

static void
test_bytes(void)
{
    tok *b;
    rwkv_err err;
    unsigned char all[256];
    int32_t *ids;
    size_t n, tl;
    char *t;
    const char *p;
    int ok = 1;

    TEST_COND("create bytes", tok_create_bytes(&b, &err) == RWKV_OK);
    TEST_COND("bytes vocab 256", tok_vocab_size(b) == 256 && tok_is_bytes(b));
    for (int i = 0; i < 256; i++)
        all[i] = (unsigned char)(255 - i);
    TEST_COND("bytes encode", tok_encode(b, (const char *)all, 256, &ids, &n, &err) == RWKV_OK && n == 256);
    for (int i = 0; i < 256; i++)
        ok = ok && ids[i] == 255 - i;
    TEST_COND("bytes ids = byte values", ok);
    TEST_COND("bytes decode", tok_decode(b, ids, n, &t, &tl, &err) == RWKV_OK && tl == 256 &&
                                  memcmp(t, all, 256) == 0);
    free(t);
    free(ids);
    TEST_COND("bytes id 0 is byte 00", tok_piece(b, 0, &p, &n) == RWKV_OK && n == 1 && p[0] == 0);
    TEST_COND("bytes id 256 refused", tok_piece(b, 256, &p, &n) == RWKV_EINVAL);
    tok_close(b);
    tok_close(NULL);
}

/* Push BYTES one token per byte (tokenizer T maps byte -> id byte+OFF). */
static void
stream_bytes(const tok *t, int off, const char *in, size_t n, struct sbuf *out)
{
    tok_stream st;
    char chunk[64];

    tok_stream_init(&st);
    out->n = 0;
    sbuf_add(out, "", 0);
    for (size_t i = 0; i < n; i++) {
        long w = tok_stream_push(&st, t, (int32_t)(unsigned char)in[i] + off, chunk, sizeof chunk);
        if (w > 0)
            sbuf_add(out, chunk, (size_t)w);
    }
    long w = tok_stream_flush(&st, chunk, sizeof chunk);
    if (w > 0)
        sbuf_add(out, chunk, (size_t)w);
}

static void
test_stream(const tok *w)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        /* Python bytes.decode('utf-8', 'replace') results */
        { "a\xf1\x80\x80\xe1\x80\xc2" "b\x80" "c\x80\xbf" "d",
          "a" UTF8_REPL UTF8_REPL UTF8_REPL "b" UTF8_REPL "c" UTF8_REPL UTF8_REPL "d" },
        { "\xed\xa0\x80", UTF8_REPL UTF8_REPL UTF8_REPL },       /* surrogate */
        { "\xc0\xaf", UTF8_REPL UTF8_REPL },                     /* overlong */
        { "\xf4\x90\x80\x80", UTF8_REPL UTF8_REPL UTF8_REPL UTF8_REPL },  /* > U+10FFFF */
        { "\xe0\x80\x80", UTF8_REPL UTF8_REPL UTF8_REPL },
        { "\xe4\xb8", UTF8_REPL },                               /* cut short at the end */
        { "\xe4\xb8" "a", UTF8_REPL "a" },
        { "\xf0\x9f\x98", UTF8_REPL },
        { "\xff", UTF8_REPL },
        { "\xe4\xb8\xad\xf0\x9f\x98\x80", "\xe4\xb8\xad\xf0\x9f\x98\x80" },
    };
    tok *b;
    rwkv_err err;
    struct sbuf sb = { 0 };
    tok_stream st;
    char out[64];
    long r;

    tok_create_bytes(&b, &err);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        stream_bytes(b, 0, cases[i].in, strlen(cases[i].in), &sb);
        TEST_CONDF(strcmp(sb.p, cases[i].want) == 0, "bytes stream case %zu", i);
        stream_bytes(w, 1, cases[i].in, strlen(cases[i].in), &sb);
        TEST_CONDF(strcmp(sb.p, cases[i].want) == 0, "world stream case %zu", i);
    }

    /* CJK split across three tokens (World single-byte ids = byte + 1) */
    tok_stream_init(&st);
    TEST_COND("E4 waits", tok_stream_push(&st, w, 0xe4 + 1, out, sizeof out) == 0 && out[0] == 0 && st.npend == 1);
    TEST_COND("B8 waits", tok_stream_push(&st, w, 0xb8 + 1, out, sizeof out) == 0 && st.npend == 2);
    TEST_COND("end of text in the middle waits", tok_stream_push(&st, w, 0, out, sizeof out) == 0 && st.npend == 2);
    r = tok_stream_push(&st, w, 0xad + 1, out, sizeof out);
    TEST_COND("AD completes 中", r == 3 && strcmp(out, "\xe4\xb8\xad") == 0 && st.npend == 0);

    /* emoji split 2 + 2 through the mem loader with multi-byte pieces */
    {
        char voc[16384];
        size_t vn = 0;
        tok *v;
        for (int i = 0; i < 256; i++)
            vn += (size_t)snprintf(voc + vn, sizeof voc - vn, "%d b'\\x%02x' 1\n", i + 1, i);
        vn += (size_t)snprintf(voc + vn, sizeof voc - vn,
                               "300 b'\\xf0\\x9f' 2\n301 b'\\x98\\x80a' 3\n302 b'\\xff\\xfe\\xe4' 3\n"
                               "303 '\\u4e2d' 3\n304 b'\\xb8\\xad' 2\n");
        TEST_CONDF(tok_open_world_mem(voc, vn, "mem", &v, &err) == RWKV_OK, "mem vocab: %s", err.msg);
        if (v) {
            tok_stream_init(&st);
            TEST_COND("F0 9F waits", tok_stream_push(&st, v, 300, out, sizeof out) == 0 && st.npend == 2);
            r = tok_stream_push(&st, v, 301, out, sizeof out);
            TEST_COND("98 80 a completes the emoji", r == 5 && strcmp(out, "\xf0\x9f\x98\x80" "a") == 0);
            r = tok_stream_push(&st, v, 302, out, sizeof out);
            TEST_COND("FF FE E4: two U+FFFD, E4 waits", r == 6 && strcmp(out, UTF8_REPL UTF8_REPL) == 0 &&
                                                          st.npend == 1);
            r = tok_stream_push(&st, v, 303, out, sizeof out);
            TEST_COND("E4 then a whole char: U+FFFD + 中", r == 6 && strcmp(out, UTF8_REPL "\xe4\xb8\xad") == 0);
            r = tok_stream_push(&st, v, 0xe4 + 1, out, sizeof out);
            r = tok_stream_push(&st, v, 304, out, sizeof out);
            TEST_COND("E4 + B8 AD", r == 3 && strcmp(out, "\xe4\xb8\xad") == 0);
            int32_t *ids;
            size_t nid;
            TEST_COND("mem vocab longest match", tok_encode(v, "\xf0\x9f\x98\x80" "ab", 6, &ids, &nid, &err) == RWKV_OK &&
                                                     nid == 3 && ids[0] == 300 && ids[1] == 301 && ids[2] == 'b' + 1);
            free(ids);
            TEST_COND("mem vocab size", tok_vocab_size(v) == 305);
            tok_close(v);
        }
    }

    /* flush */
    tok_stream_init(&st);
    tok_stream_push(&st, b, 0xe4, out, sizeof out);
    tok_stream_push(&st, b, 0xb8, out, sizeof out);
    r = tok_stream_flush(&st, out, sizeof out);
    TEST_COND("flush emits one U+FFFD", r == 3 && strcmp(out, UTF8_REPL) == 0 && st.npend == 0);
    r = tok_stream_flush(&st, out, sizeof out);
    TEST_COND("second flush is empty", r == 0 && out[0] == 0);
    r = tok_stream_push(&st, b, 'a', out, sizeof out);
    TEST_COND("after flush 'a'", r == 1 && strcmp(out, "a") == 0);

    /* limits: CAP too small leaves the state unchanged; bad id */
    tok_stream_init(&st);
    tok_stream_push(&st, b, 0xe4, out, sizeof out);
    tok_stream_push(&st, b, 0xb8, out, sizeof out);
    TEST_COND("cap too small", tok_stream_push(&st, b, 0xad, out, 3) == -1 && st.npend == 2);
    TEST_COND("cap 0", tok_stream_push(&st, b, 0xad, out, 0) == -1 && st.npend == 2);
    r = tok_stream_push(&st, b, 0xad, out, 4);
    TEST_COND("cap exact", r == 3 && strcmp(out, "\xe4\xb8\xad") == 0);
    TEST_COND("bad id -2", tok_stream_push(&st, w, 65530, out, sizeof out) == -2 &&
                               tok_stream_push(&st, b, -1, out, sizeof out) == -2);
    TEST_COND("flush cap too small", tok_stream_flush(&st, out, 0) == -1);

    /* the documented bound: piece length + 16 always suffices for World */
    {
        static const char *pends[] = { "", "\xf0\x9f\x98", "\xe4", "\xf4\x8f" };
        int fits = 1;
        char big[TOK_STREAM_TEST_CAP];
        for (size_t k = 0; k < sizeof pends / sizeof pends[0]; k++) {
            for (int32_t id = 0; id < (int32_t)tok_vocab_size(w); id++) {
                const char *pc;
                size_t pl;
                tok_piece(w, id, &pc, &pl);
                tok_stream_init(&st);
                for (const char *q = pends[k]; *q; q++)
                    tok_stream_push(&st, b, (unsigned char)*q, big, sizeof big);
                if (tok_stream_push(&st, w, id, big, pl + 16) < 0)
                    fits = 0;
            }
        }
        TEST_COND("piece length + 16 is enough for every World token", fits);
    }
    free(sb.p);
    tok_close(b);
}

/* ---- malformed vocabulary files ----------------------------------------- */

static char tmpdir[256];

static void
write_file(const char *path, const char *head, const char *tail)
{
    FILE *f = fopen(path, "wb");
    fputs(head, f);
    fputs(tail, f);
    fclose(f);
}

/* 256 valid single-byte lines. */
static char base_vocab[256 * 24];

static void
bad_vocab(const char *line, const char *want, int with_base)
{
    char path[512];
    tok *t = (tok *)1;
    rwkv_err err;
    int rc;

    snprintf(path, sizeof path, "%s/bad.txt", tmpdir);
    write_file(path, with_base ? base_vocab : "", line);
    rc = tok_open_world(path, &t, &err);
    TEST_CONDF(rc == RWKV_EFORMAT && t == NULL && strncmp(err.msg, path, strlen(path)) == 0 &&
                   strstr(err.msg, want) != NULL && strchr(err.msg, '\n') == NULL,
               "vocab line '%s': got rc %d '%s', want '%s'", line, rc, err.msg, want);
}

static void
test_malformed(void)
{
    char path[512];
    size_t n = 0;
    tok *t;
    rwkv_err err;
    const char *p;
    size_t pl;

    snprintf(tmpdir, sizeof tmpdir, "%s/tok-test.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        TEST_COND("mkdtemp", 0);
        return;
    }
    for (int i = 0; i < 256; i++)
        n += (size_t)snprintf(base_vocab + n, sizeof base_vocab - n, "%d b'\\x%02x' 1\n", i + 1, i);

    bad_vocab("257 'ab' 3\n", ":257: literal decodes to 2 bytes but the line says 3", 1);
    bad_vocab("257 'ab 2\n", ":257: unterminated string literal", 1);
    bad_vocab("257 b'ab\n", ":257: unterminated bytes literal", 1);
    bad_vocab("257 'a\\qb' 3\n", ":257: unsupported escape '\\q'", 1);
    bad_vocab("257 b'\\u1234' 6\n", ":257: \\u escape in a bytes literal", 1);
    bad_vocab("x 'ab' 2\n", ":257: expected a token id", 1);
    bad_vocab("257 'ab'\n", ":257: expected ' <byte length>' after the literal", 1);
    bad_vocab("257 'ab' 2x\n", ":257: expected the byte length", 1);
    bad_vocab("257 'ab' \n", ":257: expected the byte length", 1);
    bad_vocab("257  'ab' 2\n", ":257: expected a quoted literal", 1);
    bad_vocab("257 ab 2\n", ":257: expected a quoted literal", 1);
    bad_vocab("0 'ab' 2\n", ":257: token id 0 is reserved", 1);
    bad_vocab("5 'ab' 2\n", ":257: token id 5 already defined on line 5", 1);
    bad_vocab("257 b'\\x00' 1\n", ":257: token 257 has the same bytes as token 1 (line 1)", 1);
    bad_vocab("257 'A' 1\n", ":257: token 257 has the same bytes as token 66", 1);
    bad_vocab("257 '\\ud800' 3\n", ":257: \\ud800 is a surrogate", 1);
    bad_vocab("257 '\\x4' 1\n", ":257: bad \\x escape", 1);
    bad_vocab("257 '\\u12g4' 3\n", ":257: bad \\u escape", 1);
    bad_vocab("\n257 'ab' 2\n", ":257: empty line", 1);
    bad_vocab("257 '' 0\n", ":257: empty token", 1);
    bad_vocab("257 '\xff' 1\n", ":257: invalid UTF-8", 1);
    bad_vocab("257 b'\xc3\xa9' 2\n", ":257: non-ASCII byte 0xc3 in a bytes literal", 1);
    bad_vocab("99999999 'ab' 2\n", ":257: token id is larger than", 1);
    bad_vocab("257 'ab' 99999999999\n", ":257: expected the byte length", 1);
    bad_vocab("1 b'\\x00' 1\n", "no token for the single byte 0x01", 0);
    bad_vocab("", "empty vocabulary", 0);

    /* valid corner cases: escapes, CRLF, no final newline, "..." literals */
    snprintf(path, sizeof path, "%s/ok.txt", tmpdir);
    write_file(path, base_vocab,
               "257 '\\x80' 2\r\n258 '\\\\\\'\\\"\\n\\t\\r' 6\n259 \"it's\" 4\n260 '\\u00e9t\xc3\xa9' 5\n"
               "300 b'\\xe4\\xb8' 2");
    TEST_CONDF(tok_open_world(path, &t, &err) == RWKV_OK, "ok vocab: %s", err.msg);
    if (t) {
        TEST_COND("ok: '\\x80'", tok_piece(t, 257, &p, &pl) == RWKV_OK && pl == 2 && memcmp(p, "\xc2\x80", 2) == 0);
        TEST_COND("ok: escapes", tok_piece(t, 258, &p, &pl) == RWKV_OK && pl == 6 && memcmp(p, "\\'\"\n\t\r", 6) == 0);
        TEST_COND("ok: double quotes", tok_piece(t, 259, &p, &pl) == RWKV_OK && pl == 4 && memcmp(p, "it's", 4) == 0);
        TEST_COND("ok: \\u00e9 + raw UTF-8", tok_piece(t, 260, &p, &pl) == RWKV_OK && pl == 5 &&
                                                memcmp(p, "\xc3\xa9t\xc3\xa9", 5) == 0);
        TEST_COND("ok: gap ids refused", tok_piece(t, 299, &p, &pl) == RWKV_EINVAL);
        TEST_COND("ok: vocab size", tok_vocab_size(t) == 301);
        tok_close(t);
    }

    snprintf(path, sizeof path, "%s/does-not-exist.txt", tmpdir);
    TEST_COND("missing file", tok_open_world(path, &t, &err) == RWKV_EIO && t == NULL && strstr(err.msg, path) &&
                                  strstr(err.msg, "No such file"));
    TEST_COND("a directory", tok_open_world(tmpdir, &t, &err) != RWKV_OK && t == NULL);

    snprintf(path, sizeof path, "%s/bad.txt", tmpdir);
    unlink(path);
    snprintf(path, sizeof path, "%s/ok.txt", tmpdir);
    unlink(path);
    rmdir(tmpdir);
}

static void
test_speed(const tok *w, double load_ms)
{
    /* a mixed text: the fixture's prose, code and CJK, repeated to ~8 MB */
    static const char *parts[] = {
        "User: What is the capital of France?\n\nAssistant: The capital of France is Paris. ",
        "int main(void) { for (int i = 0; i < 10; i++) printf(\"%d\\n\", i); return 0; }\n",
        "\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97\xe7\xac\xa6\xe4\xb8\xb2\xe6\xb5\x8b\xe8\xaf\x95\xe3\x80\x82 ",
        "The quick brown fox jumps over the lazy dog, 1234567890 times.    \t\n",
    };
    size_t cap = 8u << 20, n = 0, nid;
    char *text = malloc(cap);
    int32_t *ids;
    rwkv_err err;
    double t0, ms;

    while (n < cap - 200)
        for (size_t k = 0; k < 4; k++) {
            size_t l = strlen(parts[k]);
            memcpy(text + n, parts[k], l);
            n += l;
        }
    t0 = (mono_now_s() * 1e3);
    TEST_COND("encode 8 MB", tok_encode(w, text, n, &ids, &nid, &err) == RWKV_OK);
    ms = (mono_now_s() * 1e3) - t0;
    TEST_INFO("speed: load %.1f ms, encode %.1f MB/s (%zu bytes -> %zu tokens in %.1f ms)", load_ms,
              n / 1e6 / (ms / 1e3), n, nid, ms);
    free(ids);
    free(text);
}

int
main(void)
{
    char path[1024];
    tok *w = NULL;
    rwkv_err err;
    double t0 = (mono_now_s() * 1e3), load_ms;

    /* the World vocabulary comes with the fixtures: 2433 checks need it */
    int have = test_have_fixture("rwkv_vocab_v20230424.txt", 2433);
    int rc = have ? tok_open_world(test_fixture_path(path, sizeof path, "rwkv_vocab_v20230424.txt"),
                                   &w, &err)
                  : RWKV_ENOTSUP;
    load_ms = (mono_now_s() * 1e3) - t0;
    if (have)
        TEST_CONDF(rc == RWKV_OK, "load World vocab: %s", err.msg);
    if (rc == RWKV_OK) {
        test_world_pieces(w);
        if (test_have_fixture("tokenizer/world_tokenizer_cases.jsonl", 2370))
            test_world_cases(w);
        test_stream(w);
        test_speed(w, load_ms);
    }
    test_bytes();
    test_malformed();
    tok_close(w);
    return TEST_REPORT();
}
