/*
** json.c -- strict recursive-descent JSON parser.  See json.h.
**
** Invariants: the parser never reads past TEXT+LEN; every allocation is
** recorded in the doc's chain so json_free releases a half-built tree too;
** depth is capped at JSON_MAX_DEPTH.
*/
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct chunk {
    struct chunk *next;
    max_align_t   data[];
};

struct json_doc {
    struct chunk *chunks;
    json_value   *root;
};

struct parser {
    const char *p, *end, *start;
    const char *what;
    json_doc   *doc;
    rwkv_err   *err;
    int         depth;
};

static void *
doc_alloc(json_doc *doc, size_t n)
{
    struct chunk *c = malloc(sizeof *c + n);

    if (c == NULL)
        return NULL;
    c->next = doc->chunks;
    doc->chunks = c;
    return c->data;
}

static int
fail(struct parser *ps, const char *msg)
{
    return rwkv_errf(ps->err, RWKV_EFORMAT, "%s: JSON %s at byte %ld", ps->what,
                     msg, (long)(ps->p - ps->start));
}

static void
skip_ws(struct parser *ps)
{
    while (ps->p < ps->end &&
           (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int parse_value(struct parser *ps, json_value **out);

static int
hex4(struct parser *ps, unsigned *out)
{
    unsigned v = 0;

    if (ps->end - ps->p < 4)
        return fail(ps, "truncated \\u escape");
    for (int i = 0; i < 4; i++) {
        char c = *ps->p++;
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return fail(ps, "bad \\u escape");
    }
    *out = v;
    return RWKV_OK;
}

static size_t
put_utf8(char *dst, unsigned cp)
{
    if (cp < 0x80) {
        dst[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        dst[0] = (char)(0xC0 | (cp >> 6));
        dst[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (char)(0xE0 | (cp >> 12));
        dst[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        dst[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    dst[0] = (char)(0xF0 | (cp >> 18));
    dst[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    dst[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    dst[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Parse a string starting at the opening quote; *OUT is doc-owned. */
static int
parse_string(struct parser *ps, const char **out, size_t *outlen)
{
    const char *q;
    char *buf, *w;

    ps->p++; /* opening quote */
    /* Decoded text is never longer than the escaped source. */
    for (q = ps->p; q < ps->end && *q != '"'; q++)
        if (*q == '\\')
            q++;
    if (q >= ps->end)
        return fail(ps, "unterminated string");
    buf = doc_alloc(ps->doc, (size_t)(q - ps->p) + 1);
    if (buf == NULL)
        return rwkv_errf(ps->err, RWKV_ENOMEM, "%s: out of memory", ps->what);
    w = buf;
    while (*ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p++;
        if (c < 0x20)
            return fail(ps, "control character in string");
        if (c != '\\') {
            *w++ = (char)c;
            continue;
        }
        c = (unsigned char)*ps->p++;
        switch (c) {
        case '"': *w++ = '"'; break;
        case '\\': *w++ = '\\'; break;
        case '/': *w++ = '/'; break;
        case 'b': *w++ = '\b'; break;
        case 'f': *w++ = '\f'; break;
        case 'n': *w++ = '\n'; break;
        case 'r': *w++ = '\r'; break;
        case 't': *w++ = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (hex4(ps, &cp) != RWKV_OK)
                return ps->err ? ps->err->code : RWKV_EFORMAT;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u')
                    return fail(ps, "lone surrogate");
                ps->p += 2;
                if (hex4(ps, &lo) != RWKV_OK)
                    return RWKV_EFORMAT;
                if (lo < 0xDC00 || lo > 0xDFFF)
                    return fail(ps, "bad surrogate pair");
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return fail(ps, "lone surrogate");
            }
            w += put_utf8(w, cp);
            break;
        }
        default:
            return fail(ps, "bad escape");
        }
    }
    ps->p++; /* closing quote */
    *w = '\0';
    *out = buf;
    *outlen = (size_t)(w - buf);
    return RWKV_OK;
}

static int
parse_number(struct parser *ps, json_value *v)
{
    const char *s = ps->p;
    char tmp[64];
    int frac = 0;
    size_t n;

    if (ps->p < ps->end && *ps->p == '-')
        ps->p++;
    if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
        return fail(ps, "bad number");
    if (*ps->p == '0')
        ps->p++;
    else
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    if (ps->p < ps->end && *ps->p == '.') {
        frac = 1;
        ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
            return fail(ps, "bad number");
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        frac = 1;
        ps->p++;
        if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
            ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
            return fail(ps, "bad number");
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    }
    n = (size_t)(ps->p - s);
    if (n >= sizeof tmp)
        return fail(ps, "number too long");
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    v->type = JSON_NUMBER;
    v->num = strtod(tmp, NULL);
    if (!frac) {
        errno = 0;
        long long ll = strtoll(tmp, NULL, 10);
        if (errno == 0) {
            v->is_int = 1;
            v->i64 = ll;
        }
    }
    return RWKV_OK;
}

static int
expect_word(struct parser *ps, const char *w)
{
    size_t n = strlen(w);

    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n) != 0)
        return fail(ps, "unexpected token");
    ps->p += n;
    return RWKV_OK;
}

/* Parse '[' ... ']' or '{' ... '}' into V. */
static int
parse_container(struct parser *ps, json_value *v, int is_obj)
{
    size_t cap = 8, n = 0;
    json_value **items;
    const char **keys = NULL;
    int rc;

    if (++ps->depth > JSON_MAX_DEPTH)
        return fail(ps, "nesting too deep");
    ps->p++;
    items = doc_alloc(ps->doc, cap * sizeof *items);
    if (is_obj)
        keys = doc_alloc(ps->doc, cap * sizeof *keys);
    if (items == NULL || (is_obj && keys == NULL))
        return rwkv_errf(ps->err, RWKV_ENOMEM, "%s: out of memory", ps->what);
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == (is_obj ? '}' : ']')) {
        ps->p++;
        goto done;
    }
    for (;;) {
        if (n == cap) {
            size_t ncap = cap * 2;
            json_value **ni = doc_alloc(ps->doc, ncap * sizeof *ni);
            const char **nk = is_obj ? doc_alloc(ps->doc, ncap * sizeof *nk) : NULL;
            if (ni == NULL || (is_obj && nk == NULL))
                return rwkv_errf(ps->err, RWKV_ENOMEM, "%s: out of memory", ps->what);
            memcpy(ni, items, n * sizeof *ni);
            if (is_obj)
                memcpy(nk, keys, n * sizeof *nk);
            items = ni;
            keys = nk;
            cap = ncap;
        }
        skip_ws(ps);
        if (is_obj) {
            size_t klen;
            if (ps->p >= ps->end || *ps->p != '"')
                return fail(ps, "expected object key");
            if ((rc = parse_string(ps, &keys[n], &klen)) != RWKV_OK)
                return rc;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':')
                return fail(ps, "expected ':'");
            ps->p++;
        }
        if ((rc = parse_value(ps, &items[n])) != RWKV_OK)
            return rc;
        n++;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == (is_obj ? '}' : ']')) {
            ps->p++;
            break;
        }
        return fail(ps, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
done:
    v->type = is_obj ? JSON_OBJECT : JSON_ARRAY;
    v->items = items;
    v->keys = keys;
    v->len = n;
    ps->depth--;
    return RWKV_OK;
}

static int
parse_value(struct parser *ps, json_value **out)
{
    json_value *v;

    skip_ws(ps);
    if (ps->p >= ps->end)
        return fail(ps, "unexpected end");
    v = doc_alloc(ps->doc, sizeof *v);
    if (v == NULL)
        return rwkv_errf(ps->err, RWKV_ENOMEM, "%s: out of memory", ps->what);
    memset(v, 0, sizeof *v);
    *out = v;
    switch (*ps->p) {
    case '{': return parse_container(ps, v, 1);
    case '[': return parse_container(ps, v, 0);
    case '"': v->type = JSON_STRING; return parse_string(ps, &v->str, &v->len);
    case 't': v->type = JSON_BOOL; v->num = 1; return expect_word(ps, "true");
    case 'f': v->type = JSON_BOOL; return expect_word(ps, "false");
    case 'n': v->type = JSON_NULL; return expect_word(ps, "null");
    default: return parse_number(ps, v);
    }
}

int
json_parse(const char *text, size_t len, const char *what, json_doc **out,
           rwkv_err *err)
{
    struct parser ps;
    json_doc *doc;
    int rc;

    *out = NULL;
    doc = calloc(1, sizeof *doc);
    if (doc == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", what);
    ps.p = ps.start = text;
    ps.end = text + len;
    ps.what = what;
    ps.doc = doc;
    ps.err = err;
    ps.depth = 0;
    /* a UTF-8 byte order mark in front (some editors save one; RFC 8259
     * lets a parser ignore it) is skipped; positions still count it */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        ps.p += 3;
    rc = parse_value(&ps, &doc->root);
    if (rc == RWKV_OK) {
        skip_ws(&ps);
        if (ps.p != ps.end)
            rc = fail(&ps, "trailing data");
    }
    if (rc != RWKV_OK) {
        json_free(doc);
        return rc;
    }
    *out = doc;
    return RWKV_OK;
}

int
json_parse_file(const char *path, json_doc **out, rwkv_err *err)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    int rc;

    *out = NULL;
    if (f == NULL)
        return rwkv_errf(err, RWKV_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return rwkv_errf(err, RWKV_EIO, "%s: cannot seek", path);
    }
    buf = malloc((size_t)n + 1);
    if (buf == NULL) {
        fclose(f);
        return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", path);
    }
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return rwkv_errf(err, RWKV_EIO, "%s: short read", path);
    }
    fclose(f);
    rc = json_parse(buf, (size_t)n, path, out, err);
    free(buf);
    return rc;
}

void
json_free(json_doc *doc)
{
    struct chunk *c, *next;

    if (doc == NULL)
        return;
    for (c = doc->chunks; c != NULL; c = next) {
        next = c->next;
        free(c);
    }
    free(doc);
}

const json_value *
json_root(const json_doc *doc)
{
    return doc->root;
}

const json_value *
json_get(const json_value *v, const char *key)
{
    if (v == NULL || v->type != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->keys[i], key) == 0)
            return v->items[i];
    return NULL;
}

const json_value *
json_at(const json_value *v, size_t i)
{
    if (v == NULL || v->type != JSON_ARRAY || i >= v->len)
        return NULL;
    return v->items[i];
}

double
json_num(const json_value *obj, const char *key, double def)
{
    const json_value *v = json_get(obj, key);

    if (v == NULL || (v->type != JSON_NUMBER && v->type != JSON_BOOL))
        return def;
    return v->num;
}

const char *
json_str(const json_value *obj, const char *key)
{
    const json_value *v = json_get(obj, key);

    return (v != NULL && v->type == JSON_STRING) ? v->str : NULL;
}

/* ---- writing ---------------------------------------------------------------- */

/*
** 1 when character CP (U+00A0 or above) is written \uXXXX: U+2028/U+2029
** (line breaks to JavaScript and to some viewers) and the bidi controls and
** invisible format characters the display rule drops -- the list of
** core/text/utf8.c utf8_san_drops, kept here because core/io sits below
** core/text (tests/unit/test_json_escape.c checks the two agree).
*/
static int
json_escapes_cp(uint32_t cp)
{
    return cp == 0x2028 || cp == 0x2029 ||
           cp == 0x61c ||                               /* ALM */
           cp == 0x180e ||                              /* Mongolian vowel separator */
           cp == 0x200b || cp == 0x200e || cp == 0x200f || /* ZWSP, LRM, RLM */
           (cp >= 0x202a && cp <= 0x202e) ||            /* LRE RLE PDF LRO RLO */
           (cp >= 0x2060 && cp <= 0x206f) ||            /* WJ, invisible ops, LRI..PDI, ... */
           cp == 0xfeff ||                              /* BOM / ZWNBSP */
           (cp >= 0xfff9 && cp <= 0xfffb);              /* interlinear annotation */
}

/* The character at U (N >= 1 bytes left) when it is one this writer
** escapes and is not ASCII: *LEN its bytes, returns it; else 0.  Every
** such character is a well-formed 2- or 3-byte sequence: a lead byte is
** never a continuation byte, so matching at any byte cannot split one. */
static uint32_t
json_escaped_seq(const unsigned char *u, size_t n, size_t *len)
{
    uint32_t cp;

    if (u[0] == 0xc2 && n >= 2 && u[1] >= 0x80 && u[1] <= 0x9f) {   /* C1 controls */
        *len = 2;
        return u[1];
    }
    if (u[0] < 0xd8 || u[0] > 0xef || n < 2 || (u[1] & 0xc0) != 0x80)
        return 0;
    if (u[0] < 0xe0) {
        cp = (uint32_t)(u[0] & 0x1f) << 6 | (u[1] & 0x3f);
        *len = 2;
    } else {
        if (n < 3 || (u[2] & 0xc0) != 0x80)
            return 0;
        cp = (uint32_t)(u[0] & 0x0f) << 12 | (uint32_t)(u[1] & 0x3f) << 6 | (u[2] & 0x3f);
        *len = 3;
    }
    return cp >= 0xa0 && json_escapes_cp(cp) ? cp : 0;
}

void
json_write_string(const char *s, size_t len, json_put_fn put, void *ud)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t run = 0;                      /* bytes copied as they are, pending */

    put(ud, "\"", 1);
    for (size_t i = 0; i < len;) {
        unsigned char c = u[i];
        char e[8];
        size_t n = 1;
        uint32_t cp = c;
        const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
                        : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;

        if (esc == NULL && c >= 0x80)
            cp = json_escaped_seq(u + i, len - i, &n);
        if (esc == NULL && ((c >= 0x20 && c < 0x7f) || (c >= 0x80 && cp == 0))) {
            run++;
            i++;
            continue;
        }
        if (run)
            put(ud, s + i - run, run);
        run = 0;
        if (esc == NULL) {
            snprintf(e, sizeof e, "\\u%04x", (unsigned)cp);
            esc = e;
        }
        put(ud, esc, strlen(esc));
        i += n;
    }
    if (run)
        put(ud, s + len - run, run);
    put(ud, "\"", 1);
}
