/*
** utf8.h -- UTF-8 validation, decoding and encoding (RFC 3629 / Unicode 15
** table 3-7: no overlongs, no surrogates, nothing above U+10FFFF).
**
** Pure functions over caller buffers; nothing allocates.  Display width is
** not here (that belongs to the TUI's wrapping code).
*/
#ifndef RWKV_UTF8_H
#define RWKV_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Longest UTF-8 sequence, and the encoding of U+FFFD REPLACEMENT CHARACTER. */
#define UTF8_MAX      4
#define UTF8_REPL     "\xef\xbf\xbd"
#define UTF8_REPL_LEN 3

/*
** Examine the sequence starting at S (N bytes available, N >= 1).
**   > 0  a complete valid character of that many bytes; *CP its code point
**   0    a valid prefix that the end of the buffer cuts short (needs more)
**   < 0  ill-formed: the first -r bytes are the "maximal subpart" (Unicode
**        3.9, U+FFFD substitution of maximal subparts) to replace with one
**        U+FFFD; decoding resumes at S[-r].
** CP may be NULL.
*/
int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* 1 if the N bytes at S are entirely valid UTF-8 (N may be 0). */
int utf8_valid(const void *s, size_t n);

/*
** Encode code point CP into OUT (room for UTF8_MAX bytes).  Returns the
** length, or 0 for a surrogate or a value above U+10FFFF.
*/
int utf8_encode(uint32_t cp, unsigned char *out);

/*
** The model-text sanitiser: makes text from a model (or any outside source)
** safe to print on a terminal, so that it cannot send escape sequences or
** other control codes.  Each of these becomes one U+FFFD:
**   - a C0 control character other than '\n' and '\t' (ESC among them),
**   - DEL (U+007F) and the C1 controls U+0080..U+009F (8-bit CSI, OSC, ...),
**   - every maximal ill-formed subpart of invalid UTF-8 (as utf8_decode).
** Everything else is copied byte for byte.
**
** It works on a stream split anywhere: a UTF8_SAN handle keeps a character
** cut by the end of one piece until the next call (initialise it with
** utf8_san_init; plain data, nothing to free).  With SAN == NULL the call is
** one-shot: a character cut by the end of IN becomes U+FFFD.
**
** OUT needs room for UTF8_SANITIZE_MAX(N) bytes (a pending character from the
** previous call may come out with this call's bytes).  Returns the bytes
** written to OUT; nothing is NUL-terminated.  Pure: no allocation, no I/O.
*/
typedef struct utf8_san {
    unsigned char pend[UTF8_MAX];   /* start of a character cut by the last piece */
    size_t        npend;            /* 0..UTF8_MAX-1 */
} utf8_san;

#define UTF8_SANITIZE_MAX(n) (UTF8_REPL_LEN * ((size_t)(n) + UTF8_MAX))

void   utf8_san_init(utf8_san *san);
size_t utf8_sanitize_for_terminal(utf8_san *san, const void *in, size_t n, char *out);
/* End of the stream: a pending cut character becomes U+FFFD.  OUT needs room
** for UTF8_REPL_LEN bytes; returns the bytes written (0 or UTF8_REPL_LEN). */
size_t utf8_san_flush(utf8_san *san, char *out);

#endif
