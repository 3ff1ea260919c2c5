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

#endif
