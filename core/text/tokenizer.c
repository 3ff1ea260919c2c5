/*
** tokenizer.c -- the RWKV World trie tokenizer and the byte tokenizer.
**
** World vocabulary file (rwkv_vocab_v20230424.txt), one token a line:
**
**     <id> <python literal> <byte length>\n        e.g.  33155 'Hello' 5
**
** The literal is a Python str ('..' or "..") or bytes (b'..' or b"..")
** literal.  Str literals are UTF-8 text where \xHH and \uHHHH name code
** points (encoded as UTF-8, so '\x80' is C2 80); in bytes literals \xHH is
** one raw byte and only ASCII may appear unescaped.  The byte length must
** equal the decoded length.  We accept the part of Python's literal syntax
** the format uses (escapes \\ \' \" \n \t \r \xHH, and \uHHHH in str
** literals) and refuse anything ambiguous: id 0, duplicate ids and
** duplicate pieces (the reference's eval()-based loader would keep an
** arbitrary one).  The reference's encoder assumes every single byte is a
** token, so a vocabulary lacking one is refused too: encoding then never
** fails.
**
** Layout after loading:
**   blob               every piece's bytes, back to back
**   off[id], len[id]   piece of ID inside blob; off == TOK_ABSENT for a gap
**   trie               node 0 = root; root[b] = child of the root for byte b;
**                      deeper edges live in an open-addressing hash table
**                      keyed by (parent node, byte) (struct tok_edge, kept
**                      at most half full: 2 MB for World); node_id[n] = the
**                      token that ends at node n, or -1; l2[a<<8|b] caches
**                      the depth-2 nodes (256 KB, stays in cache), so most
**                      encode steps never reach the hash table.
** Encoding is greedy longest match from the left (the reference's
** TRIE_TOKENIZER.encodeBytes): walk the trie from each position as far as
** the text allows, remember the last node that ends a token, emit it, and
** continue after it.
**
** The byte tokenizer shares the struct: 256 one-byte pieces, id = byte, no
** trie.  It is a bijection: id 0 is the byte 00 there.
*/
#include "tokenizer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/fileio.h"
#include "../mem.h"
#include "utf8.h"

/* The World vocabulary is ~1 MB; anything 64x larger is not a vocabulary. */
#define TOK_MAX_FILE  (64u << 20)
/* Ids above this are refused so that the per-id tables stay small (the
** largest real vocabularies have ~2^18 entries). */
#define TOK_MAX_ID    ((1 << 21) - 1)
/* Longest piece accepted (World's longest is 128 bytes); also bounds the
** stream decoder's stack buffer. */
#define TOK_MAX_PIECE 1024
/* Total piece bytes bound the trie's node count, which must fit the 24
** bits an edge key gives it (World: 373358 bytes, 116079 nodes). */
#define TOK_MAX_BYTES ((1u << 24) - 2)
/* Initial edge-table size: World ends at 2^18 after one doubling. */
#define TOK_EDGES0    (1u << 17)
/* Marks an id that has no line in the vocabulary. */
#define TOK_ABSENT    UINT32_MAX

/* A trie edge below depth 1: key = (parent << 8 | byte) + 1 (0 = empty
** slot), so parents must be < 2^24 - 1: see TOK_MAX_BYTES. */
struct tok_edge {
    uint32_t key;
    uint32_t child;
};

struct tok {
    int            is_bytes;
    size_t         n_vocab;    /* largest id + 1 */
    uint32_t      *off;        /* (n_vocab,) offset into blob or TOK_ABSENT */
    uint32_t      *len;        /* (n_vocab,) piece length in bytes */
    unsigned char *blob;       /* all pieces back to back */
    /* trie (World only) */
    uint32_t       root[256];  /* root's child per byte; 0 = none */
    uint32_t      *l2;         /* (256*256,) node of the 2-byte prefix a<<8|b; 0 = none */
    int32_t       *node_id;    /* (n_nodes,) token ending here or -1 */
    unsigned char *node_leaf;  /* (n_nodes,) 1 if the node has no children */
    size_t         n_nodes;
    struct tok_edge *edges;    /* (hmask+1,) open addressing, linear probing */
    size_t         hmask;
    size_t         n_edges;
};

/* ---- growable byte buffer used while parsing ---------------------------- */

struct tok_buf {
    unsigned char *p;
    size_t         n, cap;
};

static int
buf_reserve(struct tok_buf *b, size_t more)
{
    size_t want, cap;
    unsigned char *np;

    if (more > SIZE_MAX - b->n)
        return -1;
    want = b->n + more;
    if (want <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 4096;
    while (cap < want) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    np = realloc(b->p, cap);
    if (np == NULL)
        return -1;
    b->p = np;
    b->cap = cap;
    return 0;
}

/* ---- trie --------------------------------------------------------------- */

static inline size_t
tok_hash(uint32_t key, size_t mask)
{
    return (size_t)(((uint64_t)key * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

static inline uint32_t
trie_child(const tok *t, uint32_t node, unsigned char c)
{
    uint32_t key = (node << 8 | c) + 1;
    size_t h = tok_hash(key, t->hmask);

    for (;;) {
        uint32_t k = t->edges[h].key;
        if (k == key)
            return t->edges[h].child;
        if (k == 0)
            return 0;
        h = (h + 1) & t->hmask;
    }
}

/* Double the edge table; -1 when out of memory. */
static int
trie_grow(tok *t)
{
    size_t cap = (t->hmask + 1) * 2;
    struct tok_edge *ne = calloc(cap, sizeof *ne), *old = t->edges;

    if (ne == NULL)
        return -1;
    for (size_t i = 0; i <= t->hmask; i++) {
        size_t h;
        if (old[i].key == 0)
            continue;
        h = tok_hash(old[i].key, cap - 1);
        while (ne[h].key != 0)
            h = (h + 1) & (cap - 1);
        ne[h] = old[i];
    }
    free(old);
    t->edges = ne;
    t->hmask = cap - 1;
    return 0;
}

/* Child of NODE for byte C, created if missing; 0 when out of memory.  The
** node arrays are preallocated (one node per piece byte at most). */
static uint32_t
trie_add_child(tok *t, uint32_t node, unsigned char c)
{
    uint32_t key;
    size_t h;

    if (node == 0) {
        if (t->root[c] == 0) {
            t->root[c] = (uint32_t)t->n_nodes;
            t->node_id[t->n_nodes] = -1;
            t->node_leaf[t->n_nodes] = 1;
            t->n_nodes++;
            t->node_leaf[0] = 0;
        }
        return t->root[c];
    }
    key = (node << 8 | c) + 1;
    h = tok_hash(key, t->hmask);
    while (t->edges[h].key != 0) {
        if (t->edges[h].key == key)
            return t->edges[h].child;
        h = (h + 1) & t->hmask;
    }
    /* keep the load factor <= 1/2 so that probes stay short */
    if (2 * (t->n_edges + 1) > t->hmask + 1) {
        if (trie_grow(t) < 0)
            return 0;
        h = tok_hash(key, t->hmask);
        while (t->edges[h].key != 0)
            h = (h + 1) & t->hmask;
    }
    t->edges[h].key = key;
    t->edges[h].child = (uint32_t)t->n_nodes;
    t->n_edges++;
    t->node_id[t->n_nodes] = -1;
    t->node_leaf[t->n_nodes] = 1;
    t->node_leaf[node] = 0;
    return (uint32_t)t->n_nodes++;
}

/* ---- vocabulary line parser --------------------------------------------- */

static int
hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parse N hex digits at S into *V; -1 if they are not all hex digits. */
static int
hexn(const char *s, const char *end, int n, uint32_t *v)
{
    *v = 0;
    if (end - s < n)
        return -1;
    for (int i = 0; i < n; i++) {
        int h = hexval((unsigned char)s[i]);
        if (h < 0)
            return -1;
        *v = *v << 4 | (uint32_t)h;
    }
    return 0;
}

/* Parse a decimal number without sign or leading junk; -1 if none/too big. */
static const char *
parse_uint(const char *s, const char *end, long max, long *out)
{
    long v = 0;
    const char *p = s;

    while (p < end && *p >= '0' && *p <= '9') {
        v = v * 10 + (*p - '0');
        if (v > max)
            return NULL;
        p++;
    }
    if (p == s)
        return NULL;
    *out = v;
    return p;
}

/*
** The escape after a backslash in a literal: C is the byte after it, *PP
** points past the two; appends what it stands for to BLOB (room for
** UTF8_MAX bytes reserved) and moves *PP past any hex digits.  On error
** writes the reason to WHY and returns -1.
*/
static int
put_escape(unsigned char c, const char **pp, const char *end, int is_bytes,
           struct tok_buf *blob, char *why, size_t whycap)
{
    unsigned char enc[UTF8_MAX];
    uint32_t v;
    int n;

    switch (c) {
    case '\\': case '\'': case '"':
        blob->p[blob->n++] = c;
        return 0;
    case 'n':
        blob->p[blob->n++] = '\n';
        return 0;
    case 't':
        blob->p[blob->n++] = '\t';
        return 0;
    case 'r':
        blob->p[blob->n++] = '\r';
        return 0;
    case 'x':
    case 'u':
        if (c == 'u' && is_bytes) {
            snprintf(why, whycap, "\\u escape in a bytes literal");
            return -1;
        }
        if (hexn(*pp, end, c == 'x' ? 2 : 4, &v) < 0) {
            snprintf(why, whycap, "bad \\%c escape (expected %d hex digits)", c,
                     c == 'x' ? 2 : 4);
            return -1;
        }
        *pp += c == 'x' ? 2 : 4;
        if (is_bytes) {
            blob->p[blob->n++] = (unsigned char)v;
            return 0;
        }
        n = utf8_encode(v, enc);
        if (n == 0) {
            snprintf(why, whycap, "\\u%04x is a surrogate, not a character", (unsigned)v);
            return -1;
        }
        memcpy(blob->p + blob->n, enc, (size_t)n);
        blob->n += (size_t)n;
        return 0;
    default:
        if (c >= 0x21 && c < 0x7f)
            snprintf(why, whycap, "unsupported escape '\\%c'", c);
        else
            snprintf(why, whycap, "unsupported escape (byte 0x%02x after '\\')", c);
        return -1;
    }
}

/*
** The quoted literal at *PP ('..', ".." or b'..'), decoded and appended to
** BLOB; *PP moves past its closing quote.  Returns 0, -1 with the reason in
** WHY, or -2 for out of memory.
*/
static int
parse_literal(const char **pp, const char *end, struct tok_buf *blob, char *why, size_t whycap)
{
    const char *p = *pp;
    size_t start = blob->n;
    int is_bytes = 0;
    char q;

    if (p < end && *p == 'b') {
        is_bytes = 1;
        p++;
    }
    if (p == end || (*p != '\'' && *p != '"')) {
        snprintf(why, whycap, "expected a quoted literal ('..', \"..\" or b'..') after the id");
        return -1;
    }
    q = *p++;
    for (;;) {
        unsigned char c;
        int n;

        if (p == end) {
            snprintf(why, whycap, "unterminated %s literal", is_bytes ? "bytes" : "string");
            return -1;
        }
        c = (unsigned char)*p;
        if (c == (unsigned char)q) {
            p++;
            break;
        }
        if (buf_reserve(blob, UTF8_MAX) < 0)
            return -2;
        if (c != '\\') {
            if (is_bytes) {
                if (c >= 0x80) {
                    snprintf(why, whycap, "non-ASCII byte 0x%02x in a bytes literal", c);
                    return -1;
                }
                blob->p[blob->n++] = c;
                p++;
                continue;
            }
            n = utf8_decode((const unsigned char *)p, (size_t)(end - p), NULL);
            if (n <= 0) {
                snprintf(why, whycap, "invalid UTF-8 at byte 0x%02x", c);
                return -1;
            }
            memcpy(blob->p + blob->n, p, (size_t)n);
            blob->n += (size_t)n;
            p += n;
            continue;
        }
        if (p + 1 == end) {
            snprintf(why, whycap, "unterminated %s literal", is_bytes ? "bytes" : "string");
            return -1;
        }
        c = (unsigned char)p[1];
        p += 2;
        if (put_escape(c, &p, end, is_bytes, blob, why, whycap) < 0)
            return -1;
        if (blob->n - start > TOK_MAX_PIECE) {
            snprintf(why, whycap, "piece longer than %d bytes", TOK_MAX_PIECE);
            return -1;
        }
    }
    *pp = p;
    return 0;
}

/*
** Parse one line S..END (no newline).  Appends the piece to BLOB, sets *ID
** and *PLEN.  On error writes the reason to WHY and returns -1 (-2 for out
** of memory).
*/
static int
parse_line(const char *s, const char *end, struct tok_buf *blob, long *id,
           size_t *plen, char *why, size_t whycap)
{
    const char *p;
    size_t start = blob->n;
    long want;
    int rc;

    if (s == end) {
        snprintf(why, whycap, "empty line");
        return -1;
    }
    p = parse_uint(s, end, TOK_MAX_ID, id);
    if (p == NULL) {
        if (s < end && *s >= '0' && *s <= '9')
            snprintf(why, whycap, "token id is larger than %d", TOK_MAX_ID);
        else
            snprintf(why, whycap, "expected a token id at the start of the line");
        return -1;
    }
    if (*id == 0) {
        snprintf(why, whycap, "token id 0 is reserved for end of text");
        return -1;
    }
    if (p == end || *p != ' ') {
        snprintf(why, whycap, "expected a space after the token id");
        return -1;
    }
    p++;
    rc = parse_literal(&p, end, blob, why, whycap);
    if (rc < 0)
        return rc;
    *plen = blob->n - start;
    if (*plen > TOK_MAX_PIECE) {
        snprintf(why, whycap, "piece longer than %d bytes", TOK_MAX_PIECE);
        return -1;
    }
    if (p == end || *p != ' ') {
        snprintf(why, whycap, "expected ' <byte length>' after the literal");
        return -1;
    }
    p++;
    p = parse_uint(p, end, 1L << 30, &want);
    if (p == NULL || p != end) {
        snprintf(why, whycap, "expected the byte length (a number) at the end of the line");
        return -1;
    }
    if (*plen == 0) {
        snprintf(why, whycap, "empty token");
        return -1;
    }
    if ((size_t)want != *plen) {
        snprintf(why, whycap, "literal decodes to %zu bytes but the line says %ld", *plen, want);
        return -1;
    }
    return 0;
}

/* ---- open / close ------------------------------------------------------- */

static tok *
tok_new(void)
{
    tok *t = calloc(1, sizeof *t);
    return t;
}

void
tok_close(tok *t)
{
    if (t == NULL)
        return;
    free(t->off);
    free(t->len);
    free(t->blob);
    free(t->node_id);
    free(t->node_leaf);
    free(t->edges);
    free(t->l2);
    free(t);
}

int
tok_create_bytes(tok **out, rwkv_err *err)
{
    tok *t = tok_new();

    *out = NULL;
    if (t == NULL || (t->off = malloc(256 * sizeof *t->off)) == NULL ||
        (t->len = malloc(256 * sizeof *t->len)) == NULL || (t->blob = malloc(256)) == NULL) {
        tok_close(t);
        return rwkv_errf(err, RWKV_ENOMEM, "byte tokenizer: out of memory");
    }
    t->is_bytes = 1;
    t->n_vocab = 256;
    for (int i = 0; i < 256; i++) {
        t->off[i] = (uint32_t)i;
        t->len[i] = 1;
        t->blob[i] = (unsigned char)i;
    }
    *out = t;
    return RWKV_OK;
}

/* One parsed line, kept until the per-id tables can be sized. */
struct tok_entry {
    uint32_t id, off, len, line;
};

/* Build the per-id tables and the trie from ENTS; WHAT names the input. */
static int
tok_build(tok *t, const struct tok_entry *ents, size_t n_ents, uint32_t max_id,
          size_t total, const char *what, rwkv_err *err)
{
    size_t nodes_cap = total + 1;

    if (total > TOK_MAX_BYTES)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: the pieces add up to %zu bytes, more than %u", what,
                         total, TOK_MAX_BYTES);
    t->n_vocab = (size_t)max_id + 1;
    t->off = malloc(t->n_vocab * sizeof *t->off);
    t->len = calloc(t->n_vocab, sizeof *t->len);
    t->node_id = malloc(nodes_cap * sizeof *t->node_id);
    t->node_leaf = malloc(nodes_cap);
    t->edges = calloc(TOK_EDGES0, sizeof *t->edges);
    if (!t->off || !t->len || !t->node_id || !t->node_leaf || !t->edges)
        return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory for %zu tokens", what, n_ents);
    t->hmask = TOK_EDGES0 - 1;
    memset(t->off, 0xff, t->n_vocab * sizeof *t->off);   /* TOK_ABSENT */
    t->node_id[0] = -1;
    t->node_leaf[0] = 1;
    t->n_nodes = 1;
    for (size_t i = 0; i < n_ents; i++) {
        const struct tok_entry *e = &ents[i];
        uint32_t node = 0;

        if (t->off[e->id] != TOK_ABSENT) {
            for (size_t j = 0; j < i; j++)
                if (ents[j].id == e->id)
                    return rwkv_errf(err, RWKV_EFORMAT, "%s:%u: token id %u already defined on line %u",
                                     what, e->line, e->id, ents[j].line);
        }
        t->off[e->id] = e->off;
        t->len[e->id] = e->len;
        for (uint32_t k = 0; k < e->len; k++)
            if ((node = trie_add_child(t, node, t->blob[e->off + k])) == 0)
                return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", what);
        if (t->node_id[node] >= 0) {
            uint32_t other = (uint32_t)t->node_id[node];
            uint32_t line = 0;
            for (size_t j = 0; j < i; j++)
                if (ents[j].id == other)
                    line = ents[j].line;
            return rwkv_errf(err, RWKV_EFORMAT, "%s:%u: token %u has the same bytes as token %u (line %u)",
                             what, e->line, e->id, other, line);
        }
        t->node_id[node] = (int32_t)e->id;
    }
    for (int b = 0; b < 256; b++)
        if (t->root[b] == 0 || t->node_id[t->root[b]] < 0)
            return rwkv_errf(err, RWKV_EFORMAT,
                             "%s: no token for the single byte 0x%02x (every byte must be a token)",
                             what, b);
    if ((t->l2 = malloc(256 * 256 * sizeof *t->l2)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", what);
    for (int a = 0; a < 256; a++)
        for (int b = 0; b < 256; b++)
            t->l2[a << 8 | b] = t->node_leaf[t->root[a]] ? 0 : trie_child(t, t->root[a], (unsigned char)b);
    return RWKV_OK;
}

int
tok_open_world_mem(const char *data, size_t size, const char *what, tok **out, rwkv_err *err)
{
    struct tok_buf blob = { 0 };
    struct tok_entry *ents = NULL;
    size_t n_ents = 0, cap_ents = 0;
    uint32_t max_id = 0, line = 0;
    const char *p = data, *end = data + size;
    char why[160];
    tok *t = NULL;
    int rc;

    *out = NULL;
    if (size > TOK_MAX_FILE)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: %zu bytes is too large for a vocabulary (limit %u)",
                         what, size, TOK_MAX_FILE);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        long id;
        size_t plen;

        line++;
        if (le > p && le[-1] == '\r')
            le--;
        rc = parse_line(p, le, &blob, &id, &plen, why, sizeof why);
        if (rc == -2) {
            rc = rwkv_errf(err, RWKV_ENOMEM, "%s:%u: out of memory", what, line);
            goto fail;
        }
        if (rc < 0) {
            rc = rwkv_errf(err, RWKV_EFORMAT, "%s:%u: %s", what, line, why);
            goto fail;
        }
        if (n_ents == cap_ents) {
            size_t nc = cap_ents ? cap_ents * 2 : 1024;
            struct tok_entry *ne = realloc(ents, nc * sizeof *ne);
            if (ne == NULL) {
                rc = rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", what);
                goto fail;
            }
            ents = ne;
            cap_ents = nc;
        }
        ents[n_ents].id = (uint32_t)id;
        ents[n_ents].off = (uint32_t)(blob.n - plen);
        ents[n_ents].len = (uint32_t)plen;
        ents[n_ents].line = line;
        n_ents++;
        if ((uint32_t)id > max_id)
            max_id = (uint32_t)id;
        p = nl ? nl + 1 : end;
    }
    if (n_ents == 0) {
        rc = rwkv_errf(err, RWKV_EFORMAT, "%s: empty vocabulary", what);
        goto fail;
    }
    if ((t = tok_new()) == NULL) {
        rc = rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", what);
        goto fail;
    }
    t->blob = blob.p;
    blob.p = NULL;
    rc = tok_build(t, ents, n_ents, max_id, blob.n, what, err);
    if (rc != RWKV_OK)
        goto fail;
    free(ents);
    *out = t;
    return RWKV_OK;
fail:
    free(blob.p);
    free(ents);
    tok_close(t);
    return rc;
}

int
tok_open_world(const char *path, tok **out, rwkv_err *err)
{
    FILE *f;
    char *data = NULL;
    size_t n = 0, cap = 0;
    int rc;

    *out = NULL;
    /* a regular file only: a FIFO or device is refused, never waited on */
    if ((rc = rwkv_fopen_regular(path, &f, err)) != RWKV_OK) {
        /* "P: cannot open: WHY" / "P: not a regular file (..)" ->
         * "P: cannot open vocabulary: WHY" */
        char why[RWKV_ERR_MSG];
        const char *w = err->msg;
        size_t pl = strlen(path);
        if (strncmp(w, path, pl) == 0 && strncmp(w + pl, ": ", 2) == 0)
            w += pl + 2;
        if (strncmp(w, "cannot open: ", 13) == 0)
            w += 13;
        snprintf(why, sizeof why, "%s", w);
        return rwkv_errf(err, rc, "%s: cannot open vocabulary: %s", path, why);
    }
    for (;;) {
        size_t got;
        if (n == cap) {
            char *nd;
            if (cap >= TOK_MAX_FILE + 1) {
                fclose(f);
                free(data);
                return rwkv_errf(err, RWKV_EFORMAT, "%s: too large for a vocabulary (limit %u bytes)",
                                 path, TOK_MAX_FILE);
            }
            cap = cap ? cap * 2 : 1 << 20;
            if (cap > TOK_MAX_FILE + 1)
                cap = TOK_MAX_FILE + 1;
            nd = realloc(data, cap);
            if (nd == NULL) {
                fclose(f);
                free(data);
                return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", path);
            }
            data = nd;
        }
        got = fread(data + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        fclose(f);
        free(data);
        return rwkv_errf(err, RWKV_EIO, "%s: cannot read vocabulary: %s", path, strerror(e));
    }
    fclose(f);
    rc = tok_open_world_mem(data ? data : "", n, path, out, err);
    free(data);
    return rc;
}

/* ---- queries ------------------------------------------------------------ */

int
tok_is_bytes(const tok *t)
{
    return t->is_bytes;
}

size_t
tok_vocab_size(const tok *t)
{
    return t->n_vocab;
}

int
tok_piece(const tok *t, int32_t id, const char **bytes, size_t *len)
{
    if (id == 0 && !t->is_bytes) {
        *bytes = "";
        *len = 0;
        return RWKV_OK;
    }
    if (id < 0 || (size_t)id >= t->n_vocab || t->off[id] == TOK_ABSENT) {
        *bytes = "";
        *len = 0;
        return RWKV_EINVAL;
    }
    *bytes = (const char *)t->blob + t->off[id];
    *len = t->len[id];
    return RWKV_OK;
}

/* ---- encode / decode ---------------------------------------------------- */

int
tok_encode(const tok *t, const char *text, size_t len, int32_t **ids, size_t *n, rwkv_err *err)
{
    const unsigned char *s = (const unsigned char *)text;
    int32_t *v;
    uint64_t bytes;
    size_t k = 0, i = 0;

    *ids = NULL;
    *n = 0;
    /* at most one token per byte */
    if (!mem_mul_ok(len ? len : 1, sizeof *v, &bytes) || bytes > SIZE_MAX ||
        (v = malloc((size_t)bytes)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "tokenizer: out of memory for %zu bytes of text", len);
    if (t->is_bytes) {
        for (i = 0; i < len; i++)
            v[i] = s[i];
        *ids = v;
        *n = len;
        return RWKV_OK;
    }
    while (i < len) {
        /* every single byte is a token: the fallback match */
        int32_t best = t->node_id[t->root[s[i]]];
        size_t best_end = i + 1, j = i + 2;
        uint32_t node = i + 1 < len ? t->l2[s[i] << 8 | s[i + 1]] : 0;

        if (node != 0) {
            if (t->node_id[node] >= 0) {
                best = t->node_id[node];
                best_end = j;
            }
            while (j < len && !t->node_leaf[node]) {
                node = trie_child(t, node, s[j]);
                if (node == 0)
                    break;
                j++;
                if (t->node_id[node] >= 0) {
                    best = t->node_id[node];
                    best_end = j;
                }
            }
        }
        v[k++] = best;
        i = best_end;
    }
    *ids = v;
    *n = k;
    return RWKV_OK;
}

int
tok_decode(const tok *t, const int32_t *ids, size_t n, char **text, size_t *len, rwkv_err *err)
{
    size_t total = 0, o = 0;
    const char *b;
    size_t bl;
    char *s;

    *text = NULL;
    *len = 0;
    for (size_t i = 0; i < n; i++) {
        if (tok_piece(t, ids[i], &b, &bl) != RWKV_OK)
            return rwkv_errf(err, RWKV_EINVAL, "token id %ld (position %zu) is not in the vocabulary (0..%zu)",
                             (long)ids[i], i, t->n_vocab - 1);
        total += bl;   /* bl <= TOK_MAX_PIECE: wraps only past 2^54 ids */
        if (total < bl)
            return rwkv_errf(err, RWKV_ENOMEM, "tokenizer: %zu tokens decode to too many bytes", n);
    }
    if (total == SIZE_MAX || (s = malloc(total + 1)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "tokenizer: out of memory decoding %zu tokens", n);
    for (size_t i = 0; i < n; i++) {
        tok_piece(t, ids[i], &b, &bl);
        memcpy(s + o, b, bl);
        o += bl;
    }
    s[o] = '\0';
    *text = s;
    *len = o;
    return RWKV_OK;
}

/* ---- streaming decode --------------------------------------------------- */

void
tok_stream_init(tok_stream *st)
{
    st->npend = 0;
}

/*
** Turn BUF (M bytes) into valid UTF-8 in OUT: complete characters are
** copied, each maximal ill-formed subpart becomes one U+FFFD, and a valid
** but cut-short tail is left for later: *TAIL = its offset.  Returns the
** bytes written or -1 when OUT (with its NUL) would overflow CAP.
*/
static long
stream_sanitize(const unsigned char *buf, size_t m, char *out, size_t cap, size_t *tail)
{
    size_t i = 0, o = 0;

    while (i < m) {
        int r = utf8_decode(buf + i, m - i, NULL);
        if (r == 0)
            break;
        if (r > 0) {
            if (o + (size_t)r + 1 > cap)
                return -1;
            memcpy(out + o, buf + i, (size_t)r);
            o += (size_t)r;
            i += (size_t)r;
        } else {
            if (o + UTF8_REPL_LEN + 1 > cap)
                return -1;
            memcpy(out + o, UTF8_REPL, UTF8_REPL_LEN);
            o += UTF8_REPL_LEN;
            i += (size_t)-r;
        }
    }
    if (cap == 0)
        return -1;
    out[o] = '\0';
    *tail = i;
    return (long)o;
}

long
tok_stream_push(tok_stream *st, const tok *t, int32_t id, char *out, size_t cap)
{
    unsigned char buf[UTF8_MAX + TOK_MAX_PIECE];
    const char *piece;
    size_t plen, m, tail;
    long w;

    if (tok_piece(t, id, &piece, &plen) != RWKV_OK)
        return -2;
    /* pend holds at most UTF8_MAX-1 bytes (a cut-short valid prefix) */
    m = st->npend;
    memcpy(buf, st->pend, m);
    memcpy(buf + m, piece, plen);
    m += plen;
    w = stream_sanitize(buf, m, out, cap, &tail);
    if (w < 0)
        return -1;
    st->npend = m - tail;
    memcpy(st->pend, buf + tail, st->npend);
    return w;
}

long
tok_stream_flush(tok_stream *st, char *out, size_t cap)
{
    if (st->npend == 0) {
        if (cap == 0)
            return -1;
        out[0] = '\0';
        return 0;
    }
    if (cap < UTF8_REPL_LEN + 1)
        return -1;
    /* a dangling prefix is one maximal subpart: one U+FFFD */
    memcpy(out, UTF8_REPL, UTF8_REPL_LEN);
    out[UTF8_REPL_LEN] = '\0';
    st->npend = 0;
    return UTF8_REPL_LEN;
}
