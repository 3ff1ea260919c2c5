/*
** utf8.c -- UTF-8 decoding with Unicode's well-formed byte table.
**
** Well-formed sequences (Unicode table 3-7):
**   00..7F
**   C2..DF 80..BF
**   E0     A0..BF 80..BF        E1..EC 80..BF 80..BF
**   ED     80..9F 80..BF        EE..EF 80..BF 80..BF
**   F0     90..BF 80..BF 80..BF F1..F3 80..BF 80..BF 80..BF
**   F4     80..8F 80..BF 80..BF
** Only the second byte has a lead-dependent range; every later byte is
** 80..BF.  That is all utf8_decode needs to know.
*/
#include "utf8.h"

#include <string.h>

int
utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned c = s[0];
    unsigned lo = 0x80, hi = 0xbf;   /* range of the second byte */
    int need;
    uint32_t v;

    if (c < 0x80) {
        if (cp)
            *cp = c;
        return 1;
    }
    if (c < 0xc2 || c > 0xf4)
        return -1;
    if (c < 0xe0) {
        need = 2;
        v = c & 0x1f;
    } else if (c < 0xf0) {
        need = 3;
        v = c & 0x0f;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
    } else {
        need = 4;
        v = c & 0x07;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    }
    for (int i = 1; i < need; i++) {
        if ((size_t)i >= n)
            return 0;
        if (s[i] < lo || s[i] > hi)
            return -i;
        v = (v << 6) | (s[i] & 0x3f);
        lo = 0x80;
        hi = 0xbf;
    }
    if (cp)
        *cp = v;
    return need;
}

int
utf8_valid(const void *p, size_t n)
{
    const unsigned char *s = p;
    size_t i = 0;

    while (i < n) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        int r = utf8_decode(s + i, n - i, NULL);
        if (r <= 0)
            return 0;
        i += (size_t)r;
    }
    return 1;
}

int
utf8_encode(uint32_t cp, unsigned char *out)
{
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xc0 | (cp >> 6));
        out[1] = (unsigned char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp >= 0xd800 && cp <= 0xdfff)
        return 0;
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xe0 | (cp >> 12));
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    if (cp > 0x10ffff)
        return 0;
    out[0] = (unsigned char)(0xf0 | (cp >> 18));
    out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

/* ---- the model-text sanitiser (see utf8.h) ------------------------------- */

void
utf8_san_init(utf8_san *san)
{
    memset(san, 0, sizeof *san);
}

/* Code points that must not reach a terminal as they are. */
static int
utf8_is_control(uint32_t cp)
{
    return (cp < 0x20 && cp != '\n' && cp != '\t') || (cp >= 0x7f && cp <= 0x9f);
}

/* Clean S[0..N) into OUT, returning the bytes written.  FINAL: a character
** cut by the end is replaced; otherwise it is left, and *USED (the bytes
** consumed) stops before it. */
static size_t
utf8_san_run(const unsigned char *s, size_t n, int final, char *out, size_t *used)
{
    size_t i = 0, k = 0;

    while (i < n) {
        uint32_t cp = 0;
        int r = utf8_decode(s + i, n - i, &cp);
        if (r == 0 && !final)
            break;                                  /* wait for the rest */
        if (r > 0 && !utf8_is_control(cp)) {
            memcpy(out + k, s + i, (size_t)r);
            k += (size_t)r;
        } else {
            memcpy(out + k, UTF8_REPL, UTF8_REPL_LEN);
            k += UTF8_REPL_LEN;
        }
        i += r > 0 ? (size_t)r : r < 0 ? (size_t)-r : n - i;
    }
    *used = i;
    return k;
}

size_t
utf8_sanitize_for_terminal(utf8_san *san, const void *in, size_t n, char *out)
{
    const unsigned char *s = in;
    size_t k = 0, used;

    if (san == NULL)
        return utf8_san_run(s, n, 1, out, &used);
    /* first the character the last piece cut: complete it with the first
     * bytes of IN, one character at a time */
    while (san->npend > 0 && n > 0) {
        unsigned char buf[UTF8_MAX];
        size_t take = UTF8_MAX - san->npend < n ? UTF8_MAX - san->npend : n, r_used;
        uint32_t cp = 0;
        int r;

        memcpy(buf, san->pend, san->npend);
        memcpy(buf + san->npend, s, take);
        r = utf8_decode(buf, san->npend + take, &cp);
        if (r == 0) {
            /* still a prefix: then TAKE == N (UTF8_MAX bytes are never
             * a prefix), so all of IN joins the pending bytes */
            memcpy(san->pend + san->npend, s, take);
            san->npend += take;
            return k;
        }
        if (r > 0 && !utf8_is_control(cp)) {
            memcpy(out + k, buf, (size_t)r);
            k += (size_t)r;
        } else {
            memcpy(out + k, UTF8_REPL, UTF8_REPL_LEN);
            k += UTF8_REPL_LEN;
        }
        r_used = r > 0 ? (size_t)r : (size_t)-r;
        if (r_used >= san->npend) {          /* it ended inside IN */
            s += r_used - san->npend;
            n -= r_used - san->npend;
            san->npend = 0;
        } else {                             /* an ill-formed part of the pending bytes */
            memmove(san->pend, san->pend + r_used, san->npend - r_used);
            san->npend -= r_used;
        }
    }
    if (san->npend > 0)                      /* N == 0: keep waiting */
        return k;
    k += utf8_san_run(s, n, 0, out + k, &used);
    memcpy(san->pend, s + used, n - used);   /* a cut character: < UTF8_MAX bytes */
    san->npend = n - used;
    return k;
}

size_t
utf8_san_flush(utf8_san *san, char *out)
{
    if (san == NULL || san->npend == 0)
        return 0;
    san->npend = 0;
    memcpy(out, UTF8_REPL, UTF8_REPL_LEN);
    return UTF8_REPL_LEN;
}
