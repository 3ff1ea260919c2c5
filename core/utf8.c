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
