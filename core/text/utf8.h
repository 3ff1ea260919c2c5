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
** The terminal rule: the one rule for what a terminal is shown of text that
** came from a model, a user or a file (a reply, a turn's label, a session
** title).  Nothing it lets through can move the cursor (but '\n'), change
** colours or modes, set a title or the clipboard, or make a terminal and a
** width table disagree:
**   - escape sequences go whole: ESC [ ... final (CSI), ESC ] / P / X / ^ / _
**     ... BEL or ST (OSC, DCS, SOS, PM, APC), ESC (intermediates) final, and
**     their 8-bit forms U+009B, U+009D, U+0090, U+0098, U+009E, U+009F; a
**     C0 control or a non-ASCII byte inside a CSI ends it and is taken as
**     text (terminals execute it there), ESC inside a string ends the
**     string and starts a new sequence; one longer than UTF8_SAN_MAX_SEQ
**     is given up on and the rest shown as text;
**   - C0 controls but '\n' (CR, BS, BEL, ...), DEL and the other C1
**     controls are dropped;
**   - '\t' becomes UTF8_SAN_TAB spaces (its width depends on tab stops no
**     width count can know);
**   - U+2028 / U+2029 (line / paragraph separator) become '\n';
**   - the bidi controls (ALM, LRM, RLM, LRE..RLO, LRI..PDI: they reorder
**     what a bidi terminal draws, the "Trojan Source" trick) and the
**     invisible format characters ZWSP, WJ, the invisible operators, the
**     deprecated format characters, BOM/ZWNBSP, MVS and the interlinear
**     annotation marks are dropped; ZWJ, ZWNJ, variation selectors, emoji
**     modifiers, tags and combining marks stay (emoji and scripts need
**     them);
**   - each maximal ill-formed subpart of invalid UTF-8 (as utf8_decode)
**     becomes one U+FFFD (the user sees that something was there);
**   - everything else is copied byte for byte.
** The output is well-formed UTF-8 whose only control is '\n', and the rule
** is idempotent (cleaning clean text changes nothing).  It is for display
** only: what is saved is the exact text (a reply is replayed token-exact).
**
** It works on a stream split anywhere: a UTF8_SAN handle keeps a character
** or a sequence cut by the end of one piece until the next call (initialise
** it with utf8_san_init; plain data, nothing to free).  With SAN == NULL
** the call is one-shot: a character cut by the end of IN becomes U+FFFD.
**
** OUT needs room for UTF8_SANITIZE_MAX(N) bytes (a pending character from
** the previous call may come out with this call's bytes).  Returns the
** bytes written to OUT; nothing is NUL-terminated.  Pure: no allocation, no
** I/O.
*/
#define UTF8_SAN_TAB     4     /* spaces for a tab: the transcript's indent step */
#define UTF8_SAN_MAX_SEQ 512   /* an escape sequence longer than this is given up
                                  on, so an unterminated OSC cannot eat a reply */
typedef struct utf8_san {
    unsigned char pend[UTF8_MAX];   /* start of a character cut by the last piece */
    size_t        npend;            /* 0..UTF8_MAX-1 */
    int           state;            /* in an escape sequence (utf8.c UTF8_SAN_*) */
    size_t        seqlen;           /* its bytes so far */
    int           line;             /* utf8_san_line's rule: every line break '\n' */
    int           after_cr;         /* (line) the last character was a CR */
} utf8_san;

/* Each input byte gives at most UTF8_SAN_TAB (a tab) or UTF8_REPL_LEN bytes;
** a pending character's bytes come out with the next call's. */
#define UTF8_SANITIZE_MAX(n) \
    ((UTF8_SAN_TAB > UTF8_REPL_LEN ? UTF8_SAN_TAB : UTF8_REPL_LEN) * ((size_t)(n) + UTF8_MAX))

void   utf8_san_init(utf8_san *san);
size_t utf8_sanitize_for_terminal(utf8_san *san, const void *in, size_t n, char *out);
/* End of the stream: a pending cut character becomes U+FFFD (an escape
** sequence left open is dropped).  OUT needs room for UTF8_REPL_LEN bytes;
** returns the bytes written (0 or UTF8_REPL_LEN); SAN is ready for a new
** stream. */
size_t utf8_san_flush(utf8_san *san, char *out);

/* 1 for a code point the rule drops (C0 controls but '\n' and '\t', DEL,
** C1, the bidi controls and the invisible format characters above): what
** is never shown as itself.  A writer that must keep such a character
** (a JSON string) escapes it instead. */
int utf8_san_drops(uint32_t cp);

/*
** The rule for one line (a session title): IN (N bytes; a NUL is a control
** like any other) cleaned by the terminal rule with each '\t' one space
** (not UTF8_SAN_TAB: a title is one line, not indented text) and each line
** break one space -- LF, CR, CR LF (one break), NEL (U+0085), U+2028 and
** U+2029 alike, so no break glues two words -- into OUT (CAP >= 1 bytes,
** NUL-terminated), cut before a
** character that does not fit.  A character cut by the end of IN is one
** U+FFFD.  Idempotent.  Reads IN in bounded pieces and stops once OUT is
** full.  Returns the bytes written (without the NUL).
*/
size_t utf8_san_line(const void *in, size_t n, char *out, size_t cap);

/*
** The start of a text for a label (a turn in the F6 tree): IN (N bytes; a
** NUL is a control like any other) cleaned by the terminal rule, with the
** blank lines before the first visible character left out -- so a text
** opening with escape sequences, controls or empty lines is labelled by
** its first visible text -- into OUT (CAP >= 1 bytes, NUL-terminated), cut
** before a character that does not fit; the lines after the first are
** kept (the label takes the first).  MORE: IN is a prefix of a longer text,
** so a character cut by its end is left out (not U+FFFD).  Bounded: reads at
** most N bytes, in pieces, and stops once OUT is full.  The result is
** clean (cleaning it again changes nothing).  Returns the bytes written.
*/
size_t utf8_san_label(const void *in, size_t n, int more, char *out, size_t cap);

#endif
