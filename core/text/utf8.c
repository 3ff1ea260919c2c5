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

/* ---- the terminal rule (see utf8.h) ------------------------------------ */

/*
** A byte-driven state machine (the subset of the VT500 parser that tells
** where a sequence ends):
**
**   TEXT --ESC--> ESC --'['--> CSI --final 0x40..0x7E--> TEXT
**                  |  --']' 'P' 'X' '^' '_'--> STR --BEL, CAN, SUB--> TEXT
**                  |  --0x20..0x2F: stay; other 0x30..0x7E--> TEXT
**   TEXT --U+009B--> CSI;  U+0090/0098/009D/009E/009F --> STR
**   STR --ESC--> STR_ESC --'\'--> TEXT (ST); else --> ESC with that byte
**   STR --0xC2--> STR_C2 --0x9C--> TEXT (8-bit ST); else --> STR with it
**   ESC or CSI on a C0 control or a byte >= 0x7F: back to TEXT, and the
**   byte is taken as text there (a terminal executes it).
** Only TEXT decodes UTF-8: its pending bytes (PEND) are a valid prefix, and
** a character that changes the state is always the last pending byte, so
** PEND is empty whenever the state is not TEXT.
*/
enum { UTF8_SAN_TEXT, UTF8_SAN_ESC, UTF8_SAN_CSI, UTF8_SAN_STR, UTF8_SAN_STR_ESC,
       UTF8_SAN_STR_C2 };

void
utf8_san_init(utf8_san *san)
{
    memset(san, 0, sizeof *san);
}

int
utf8_san_drops(uint32_t cp)
{
    if (cp < 0xa0)
        return (cp < 0x20 && cp != '\n' && cp != '\t') || cp >= 0x7f;
    if (cp < 0x61c)
        return 0;
    return cp == 0x61c ||                               /* ALM */
           cp == 0x180e ||                              /* Mongolian vowel separator */
           cp == 0x200b || cp == 0x200e || cp == 0x200f || /* ZWSP, LRM, RLM */
           (cp >= 0x202a && cp <= 0x202e) ||            /* LRE RLE PDF LRO RLO */
           (cp >= 0x2060 && cp <= 0x206f) ||            /* WJ, invisible ops, LRI..PDI, ... */
           cp == 0xfeff ||                              /* BOM / ZWNBSP */
           (cp >= 0xfff9 && cp <= 0xfffb);              /* interlinear annotation */
}

/* The complete character CP (its LEN bytes at B) in text: into OUT by the
** rule, or the start of a sequence.  Returns the bytes written. */
static size_t
utf8_san_char(utf8_san *s, uint32_t cp, const unsigned char *b, size_t len, char *out)
{
    if (s->line) {                              /* utf8_san_line: every break is one */
        int cr = s->after_cr;
        s->after_cr = cp == '\r';
        if (cp == '\n' && cr)                   /* CR LF: the CR was the break */
            return 0;
        if (cp == '\r' || cp == 0x85) {         /* CR, NEL */
            out[0] = '\n';
            return 1;
        }
    }
    switch (cp) {
    case 0x1b:
        s->state = UTF8_SAN_ESC;
        s->seqlen = 0;
        return 0;
    case 0x9b:                                  /* 8-bit CSI */
        s->state = UTF8_SAN_CSI;
        s->seqlen = 0;
        return 0;
    case 0x90: case 0x98: case 0x9d: case 0x9e: case 0x9f:   /* DCS SOS OSC PM APC */
        s->state = UTF8_SAN_STR;
        s->seqlen = 0;
        return 0;
    case '\t':
        memset(out, ' ', UTF8_SAN_TAB);
        return UTF8_SAN_TAB;
    case 0x2028: case 0x2029:                   /* line / paragraph separator */
        out[0] = '\n';
        return 1;
    default:
        break;
    }
    if (utf8_san_drops(cp))
        return 0;
    memcpy(out, b, len);
    return len;
}

/* Byte C inside a sequence: 1 when the sequence takes it, 0 when the
** sequence ended before it (the state is TEXT then; C is text). */
static int
utf8_san_seq(utf8_san *s, unsigned char c)
{
    switch (s->state) {
    case UTF8_SAN_ESC:
        if (c == 0x1b) {                        /* ESC ESC: the second starts anew */
            s->seqlen = 0;
            return 1;
        }
        if (c < 0x20 || c >= 0x7f) {
            s->state = UTF8_SAN_TEXT;
            return 0;
        }
        if (c == '[')
            s->state = UTF8_SAN_CSI;
        else if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_')
            s->state = UTF8_SAN_STR;
        else if (c >= 0x30)                     /* a final byte; 0x20..0x2F stay */
            s->state = UTF8_SAN_TEXT;
        return 1;
    case UTF8_SAN_CSI:
        if (c >= 0x20 && c < 0x40)              /* parameters, intermediates */
            return 1;
        s->state = UTF8_SAN_TEXT;
        return c >= 0x40 && c <= 0x7e;          /* the final byte */
    case UTF8_SAN_STR_C2:
        s->state = UTF8_SAN_STR;
        if (c == 0x9c) {                        /* U+009C ST */
            s->state = UTF8_SAN_TEXT;
            return 1;
        }
        return utf8_san_seq(s, c);
    case UTF8_SAN_STR_ESC:
        if (c == '\\') {                        /* ESC \ = ST */
            s->state = UTF8_SAN_TEXT;
            return 1;
        }
        s->state = UTF8_SAN_ESC;                /* ESC ended the string, starts a sequence */
        s->seqlen = 0;
        return utf8_san_seq(s, c);
    default:                                    /* UTF8_SAN_STR */
        if (c == 0x07 || c == 0x18 || c == 0x1a)    /* BEL ends it; CAN, SUB cancel */
            s->state = UTF8_SAN_TEXT;
        else if (c == 0x1b)
            s->state = UTF8_SAN_STR_ESC;
        else if (c == 0xc2)
            s->state = UTF8_SAN_STR_C2;
        return 1;
    }
}

/* Clean the pending bytes into OUT, returning the bytes written.  FINAL: a
** character cut by the end is U+FFFD; otherwise it stays pending. */
static size_t
utf8_san_drain(utf8_san *s, int final, char *out)
{
    size_t i = 0, k = 0;

    while (i < s->npend && s->state == UTF8_SAN_TEXT) {
        uint32_t cp = 0;
        int r = utf8_decode(s->pend + i, s->npend - i, &cp);
        if (r == 0 && !final)
            break;                              /* wait for the rest */
        if (r > 0) {
            k += utf8_san_char(s, cp, s->pend + i, (size_t)r, out + k);
            i += (size_t)r;
        } else {
            memcpy(out + k, UTF8_REPL, UTF8_REPL_LEN);
            k += UTF8_REPL_LEN;
            i += r < 0 ? (size_t)-r : s->npend - i;
        }
    }
    if (s->state != UTF8_SAN_TEXT)              /* never: see the state machine */
        i = s->npend;
    memmove(s->pend, s->pend + i, s->npend - i);
    s->npend -= i;
    return k;
}

size_t
utf8_sanitize_for_terminal(utf8_san *san, const void *in, size_t n, char *out)
{
    const unsigned char *p = in;
    utf8_san one;
    size_t k = 0;

    if (san == NULL) {
        utf8_san_init(&one);
        k = utf8_sanitize_for_terminal(&one, in, n, out);
        return k + utf8_san_flush(&one, out + k);
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];

        if (san->state != UTF8_SAN_TEXT) {
            if (++san->seqlen > UTF8_SAN_MAX_SEQ)
                san->state = UTF8_SAN_TEXT;     /* given up on: the rest is text */
            else if (utf8_san_seq(san, c))
                continue;
        }
        /* PEND holds a valid prefix (< UTF8_MAX bytes): room for C */
        san->pend[san->npend++] = c;
        k += utf8_san_drain(san, 0, out + k);
    }
    return k;
}

size_t
utf8_san_flush(utf8_san *san, char *out)
{
    size_t k = 0;

    if (san == NULL)
        return 0;
    if (san->state == UTF8_SAN_TEXT)
        k = utf8_san_drain(san, 1, out);
    utf8_san_init(san);
    return k;
}

/* ---- one line, a label (see utf8.h) ------------------------------------- */

/* Bytes of input cleaned at a time by utf8_san_line and utf8_san_label:
** both stop once their output is full, so a megabyte text reads a piece or
** two. */
#define UTF8_SAN_CHUNK 256

/* Where utf8_san_into writes. */
struct utf8_san_out {
    char  *out;
    size_t cap, k;   /* OUT holds K bytes, room for CAP with the NUL */
    int    line;     /* utf8_san_line: '\t' and line breaks one space */
    int    lead;     /* utf8_san_label: no visible character yet */
};

/* Append the clean text B (N bytes, well-formed UTF-8) to O by whole
** characters; 1 when one did not fit (O is full). */
static int
utf8_san_put(struct utf8_san_out *o, const char *b, size_t n)
{
    for (size_t i = 0; i < n;) {
        int r = utf8_decode((const unsigned char *)b + i, n - i, NULL);
        size_t m = r > 0 ? (size_t)r : 1;

        if (o->lead) {
            if (b[i] == '\n') {            /* a blank line before the text: left out */
                o->k = 0;
                i++;
                continue;
            }
            if (b[i] != ' ')
                o->lead = 0;
            else if (o->k + 1 >= o->cap) {  /* blanks past the room: not the text yet */
                i++;
                continue;
            }
        }
        if (o->k + m >= o->cap)
            return 1;                       /* cut before a whole character */
        if (o->line && b[i] == '\n')
            o->out[o->k] = ' ';
        else
            memcpy(o->out + o->k, b + i, m);
        o->k += m;
        i += m;
    }
    return 0;
}

/* IN (N bytes) by the rule into O, in pieces, until O is full; MORE: a
** character cut by the end of IN is left out.  Returns O's length. */
static size_t
utf8_san_into(const void *in, size_t n, int more, struct utf8_san_out *o)
{
    char buf[UTF8_SANITIZE_MAX(UTF8_SAN_CHUNK)];
    unsigned char tab[UTF8_SAN_CHUNK];
    const unsigned char *p = in;
    utf8_san san;
    size_t w;

    if (o->cap == 0)
        return 0;
    utf8_san_init(&san);
    san.line = o->line;
    for (size_t i = 0; i < n;) {
        size_t m = n - i < UTF8_SAN_CHUNK ? n - i : UTF8_SAN_CHUNK;
        const unsigned char *q = p + i;
        if (o->line) {                      /* a tab is one space in a line */
            for (size_t j = 0; j < m; j++)
                tab[j] = q[j] == '\t' ? ' ' : q[j];
            q = tab;
        }
        w = utf8_sanitize_for_terminal(&san, q, m, buf);
        if (utf8_san_put(o, buf, w))
            goto full;
        i += m;
    }
    if (!more) {
        w = utf8_san_flush(&san, buf);
        utf8_san_put(o, buf, w);
    }
full:
    o->out[o->k] = '\0';
    return o->k;
}

size_t
utf8_san_line(const void *in, size_t n, char *out, size_t cap)
{
    struct utf8_san_out o = { out, cap, 0, 1, 0 };

    return utf8_san_into(in, in ? n : 0, 0, &o);
}

size_t
utf8_san_label(const void *in, size_t n, int more, char *out, size_t cap)
{
    struct utf8_san_out o = { out, cap, 0, 0, 1 };

    return utf8_san_into(in, in ? n : 0, more, &o);
}
