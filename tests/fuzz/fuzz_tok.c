/*
** fuzz_tok.c -- libFuzzer harness for the tokenizers (core/text/tokenizer.c).
**
**   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_POSIX_C_SOURCE=200809L \
**       tests/fuzz/fuzz_tok.c core/text/tokenizer.c core/text/utf8.c core/status.c core/mem.c \
**       -o fuzz_tok && ./fuzz_tok tests/fuzz/corpus/tok
**
** The first input byte picks the mode, the rest is the payload:
**   even  payload is a vocabulary file: loading either succeeds or fails with
**         RWKV_EFORMAT and one line naming "fuzz:LINE" or "fuzz:"; a loaded
**         vocabulary must round-trip the payload through encode/decode.
**   odd   payload is text: with the byte tokenizer and a built-in small
**         World-format vocabulary (multi-byte and partial-UTF-8 pieces),
**         decode(encode(x)) == x, every id is a token, ids are greedy longest
**         matches, and the stream decoder (split points chosen by the first
**         byte) emits valid UTF-8, equal to x when x is valid.
** Invariant violations call FUZZ_CHECK, which aborts unless the includer
** (tests/unit/test_tokenizer_fuzz.c replays the corpus) defines it.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/text/tokenizer.h"
#include "../../core/text/utf8.h"

#include "fuzz_entry.h"

/* Stream chunk buffer: longer than any piece of the built-in vocab + 16. */
#define FUZZ_STREAM_CAP 256

/* Extra pieces of the built-in vocabulary (the 256 single bytes come first). */
static const char *fuzz_pieces[] = {
    "b'\\xe4\\xb8' 2", "b'\\xad\\xe6' 2", "'\\u4e2d\\u6587' 6", "b'\\xf0\\x9f' 2",
    "b'\\x98\\x80' 2", "'\xf0\x9f\x98\x80' 4", "' the' 4",          "' th' 3",
    "'the' 3",        "'\\n\\n' 2",      "'User:' 5",         "b'\\xff\\xfe' 2",
    "'  ' 2",         "'    ' 4",        "\"it's\" 4",         "'\\x80' 2",
};

static tok *
fuzz_vocab(void)
{
    static tok *t;
    static char text[256 * 20 + 1024];
    size_t n = 0;
    rwkv_err err;

    if (t != NULL)
        return t;
    for (int i = 0; i < 256; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%d b'\\x%02x' 1\n", i + 1, i);
    for (size_t i = 0; i < sizeof fuzz_pieces / sizeof fuzz_pieces[0]; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%zu %s\n", 300 + i, fuzz_pieces[i]);
    if (tok_open_world_mem(text, n, "fuzz-vocab", &t, &err) != RWKV_OK)
        FUZZ_CHECK(0);
    return t;
}

/* decode(encode(x)) == x and greedy maximality; returns the ids (malloc'ed). */
static int32_t *
fuzz_roundtrip(const tok *t, const char *s, size_t n, size_t *nid)
{
    int32_t *ids = NULL;
    char *back = NULL;
    size_t bl = 0, pos = 0;
    rwkv_err err;

    FUZZ_CHECK(tok_encode(t, s, n, &ids, nid, &err) == RWKV_OK);
    if (ids == NULL)
        return NULL;
    FUZZ_CHECK(*nid <= n);
    for (size_t i = 0; i < *nid; i++) {
        const char *p;
        size_t pl;
        FUZZ_CHECK(tok_piece(t, ids[i], &p, &pl) == RWKV_OK && pl > 0);
        FUZZ_CHECK(pos + pl <= n && memcmp(s + pos, p, pl) == 0);
        pos += pl;
    }
    FUZZ_CHECK(pos == n);
    FUZZ_CHECK(tok_decode(t, ids, *nid, &back, &bl, &err) == RWKV_OK);
    FUZZ_CHECK(back != NULL && bl == n && memcmp(back, s, n) == 0 && back[bl] == '\0');
    free(back);
    return ids;
}

/* Each id is the longest piece of T matching at its position (brute force). */
static void
fuzz_greedy(const tok *t, const int32_t *ids, size_t nid, const char *s, size_t n)
{
    size_t pos = 0;

    for (size_t i = 0; i < nid; i++) {
        size_t best = 0, pl;
        const char *p;
        for (int32_t id = 1; id < (int32_t)tok_vocab_size(t); id++)
            if (tok_piece(t, id, &p, &pl) == RWKV_OK && pl > best && pl <= n - pos &&
                memcmp(s + pos, p, pl) == 0)
                best = pl;
        tok_piece(t, ids[i], &p, &pl);
        FUZZ_CHECK(pl == best);
        pos += pl;
    }
}

static void
fuzz_stream(const tok *t, const int32_t *ids, size_t nid, const char *s, size_t n)
{
    char chunk[FUZZ_STREAM_CAP];
    char *out = malloc(3 * n + 8);
    size_t o = 0;
    tok_stream st;
    long w;

    if (out == NULL)
        return;
    tok_stream_init(&st);
    for (size_t i = 0; i < nid; i++) {
        w = tok_stream_push(&st, t, ids[i], chunk, sizeof chunk);
        FUZZ_CHECK(w >= 0 && st.npend < UTF8_MAX);
        if (w < 0)
            break;
        FUZZ_CHECK(o + (size_t)w <= 3 * n + 4);
        memcpy(out + o, chunk, (size_t)w);
        o += (size_t)w;
    }
    w = tok_stream_flush(&st, chunk, sizeof chunk);
    FUZZ_CHECK(w >= 0 && st.npend == 0);
    if (w > 0) {
        memcpy(out + o, chunk, (size_t)w);
        o += (size_t)w;
    }
    FUZZ_CHECK(utf8_valid(out, o));
    if (utf8_valid(s, n))
        FUZZ_CHECK(o == n && memcmp(out, s, n) == 0);
    free(out);
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    const char *s;
    size_t n, nid;
    int32_t *ids;
    tok *t;
    rwkv_err err;

    if (size == 0)
        return 0;
    s = (const char *)data + 1;
    n = size - 1;
    if ((data[0] & 1) == 0) {
        int rc = tok_open_world_mem(s, n, "fuzz", &t, &err);
        FUZZ_CHECK(rc == RWKV_OK || rc == RWKV_EFORMAT);
        if (rc != RWKV_OK) {
            FUZZ_CHECK(t == NULL && strncmp(err.msg, "fuzz:", 5) == 0 && strchr(err.msg, '\n') == NULL);
            return 0;
        }
        ids = fuzz_roundtrip(t, s, n, &nid);
        fuzz_stream(t, ids, nid, s, n);
        free(ids);
        tok_close(t);
        return 0;
    }
    if (tok_create_bytes(&t, &err) == RWKV_OK) {
        ids = fuzz_roundtrip(t, s, n, &nid);
        FUZZ_CHECK(nid == n);
        fuzz_stream(t, ids, nid, s, n);
        free(ids);
        tok_close(t);
    }
    t = fuzz_vocab();
    if (t != NULL) {
        ids = fuzz_roundtrip(t, s, n, &nid);
        fuzz_greedy(t, ids, nid, s, n);
        fuzz_stream(t, ids, nid, s, n);
        free(ids);
    }
    return 0;
}
