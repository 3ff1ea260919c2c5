/*
** text.h -- text helpers of the TUI that never touch curses (house style
** G12): growable byte buffers, display width of UTF-8 text (wcwidth: CJK and
** emoji 2 columns, combining marks 0), word wrapping by display width, and
** grapheme clusters, and the sanitiser that keeps escape sequences and control characters in model
** output away from the terminal.
**
** Width depends on LC_CTYPE: the program calls setlocale(LC_ALL, "") and
** tests use C.UTF-8.  In tui/ allocation failure is fatal (STYLE G6), so the
** x-wrappers never return NULL.
*/
#ifndef RWKV_TUI_TEXT_H
#define RWKV_TUI_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "../core/text/utf8.h"

void *tui_xmalloc(size_t n);
void *tui_xrealloc(void *p, size_t n);
char *tui_xstrdup(const char *s);
char *tui_xstrndup(const char *s, size_t n);
/*
** The array P (owned; NULL when empty) of *CAP elements of SIZE bytes, N of
** them in use, with room for one more: doubled when full (FIRST elements the
** first time), *CAP updated.  Returns the array, perhaps moved.
*/
void *tui_xgrow(void *p, size_t *cap, size_t n, size_t size, size_t first);

/* A growable byte string, always NUL terminated once anything was added. */
typedef struct tui_buf {
    char  *p;       /* owned; NULL until the first append */
    size_t len, cap;
} tui_buf;

void tui_buf_init(tui_buf *b);
void tui_buf_fini(tui_buf *b);
void tui_buf_add(tui_buf *b, const char *s, size_t n);
void tui_buf_adds(tui_buf *b, const char *s);
void tui_buf_clear(tui_buf *b);

/* Display columns of code point CP: 2 wide, 0 combining/zero-width, 1 else
** (an unprintable CP counts 1: the sanitiser has replaced it already).
** Outside a UTF-8 locale a CJK or other East Asian wide character is 2 all
** the same (the client draws it "??"). */
int tui_cp_width(uint32_t cp);

/*
** Decode one character at S (N > 0 bytes).  Returns the byte length (>= 1)
** and sets *CP (U+FFFD for an ill-formed byte, which is then consumed alone
** or as its maximal subpart).
*/
size_t tui_next_cp(const char *s, size_t n, uint32_t *cp);

/*
** One grapheme cluster (UAX #29 essentials: a base with its combining marks,
** variation selectors and emoji modifiers; an emoji ZWJ sequence; a pair of
** regional indicators, i.e. a flag; '\n' alone) at S[0..N), N > 0.
** Returns its byte length; *WIDTH is its display columns (the width of its
** first code point; 2 for a ZWJ sequence or a flag); *DRAW how many of its
** leading bytes keep that width on every terminal when drawn through
** curses: the base, its zero-width marks and both halves of a flag, but not
** a skin-tone modifier (tmux counts it 2 more columns, kitty 0) nor the
** rest of a ZWJ sequence (curses would give each emoji cells of its own;
** tui/view.c puts a whole sequence into one cell instead when it fits).
*/
size_t tui_cluster(const char *s, size_t n, int *width, size_t *draw);

/* Display columns of N bytes of UTF-8 at S (summed per cluster). */
int tui_str_width(const char *s, size_t n);

/*
** A "whole character" for editing and cursor moves: one grapheme cluster.
** Length in bytes of the one at S[0..N), and the start of the one that ends
** at S+POS (POS > 0).
*/
size_t tui_char_len(const char *s, size_t n);
size_t tui_char_prev(const char *s, size_t pos);

/* The ellipsis that ends a cut text: "\u2026" (one cell) in a UTF-8 locale,
** else "...".  Static string. */
const char *tui_ellipsis(void);

/*
** The one rule for shortening text into a message or a row: at most MAX
** bytes of S, cut after a whole character (never inside a UTF-8 sequence
** nor between a character and its combining marks; spaces before the cut
** dropped), then tui_ellipsis() when anything was cut; into OUT (CAP bytes, which also bounds it).
** Returns OUT.
*/
char *tui_cut(char *out, size_t cap, const char *s, size_t max);

/* One wrapped row: bytes [off, off+len) of the text, COLS display columns. */
typedef struct tui_span {
    size_t off, len;
    int    cols;
} tui_span;

/*
** Wrap N bytes of TEXT to WIDTH columns (WIDTH >= 1): '\n' ends a row; rows
** break after a space or before/after a wide (CJK) character where possible,
** else at any character.  Kinsoku: a row does not start with closing
** punctuation (、。，）」...) nor end with opening punctuation (（「...); the
** character before comes down with it instead.  A space at a break is not shown.  Every row fits
** in WIDTH except a single wide character when WIDTH is 1.  Returns the row
** count (>= 1: empty text is one empty row); *OUT is malloc'ed, owned by
** the caller (free()).
*/
size_t tui_wrap(const char *text, size_t n, int width, tui_span **out);

/*
** The sanitiser: the terminal rule (core/text/utf8.h, utf8_sanitize_for_
** terminal: escape sequences dropped whole, controls but '\n' dropped,
** '\t' spaces, bidi controls and invisible format characters dropped,
** ill-formed UTF-8 U+FFFD) as a stream appending to a tui_buf.  Every text
** the TUI shows from a model, a user or a file goes through it (directly,
** or by tui_label), so a text looks the same wherever it is shown.  A
** sequence or a character cut at a chunk end waits for the next chunk.
*/
#define TUI_SAN_MAX_SEQ UTF8_SAN_MAX_SEQ
typedef struct tui_sanitizer {
    utf8_san u;
} tui_sanitizer;

void tui_san_init(tui_sanitizer *s);
/* Filter N bytes of IN, appending the safe text to OUT. */
void tui_san_push(tui_sanitizer *s, const char *in, size_t n, tui_buf *out);
/* End of stream: a dangling partial character becomes U+FFFD. */
void tui_san_flush(tui_sanitizer *s, tui_buf *out);
/* One-shot: sanitise N bytes of IN into OUT. */
void tui_sanitize(const char *in, size_t n, tui_buf *out);
/*
** The copy rule (M-c, M-k): N bytes of a saved text IN as the clipboard
** gets them, appended to OUT -- the terminal rule above, but its tabs and
** carriage returns kept as they are, so a copied Makefile recipe, TSV or
** CRLF text is the one saved.  Nothing else the rule drops gets through:
** a paste hands the clipboard to a terminal or a program, where an escape
** sequence or a bidi control would act.  A tab or CR ends an escape
** sequence it cuts (a terminal would act on it there) and a character it
** cuts is one U+FFFD.
*/
void tui_sanitize_copy(const char *in, size_t n, tui_buf *out);
/*
** A one-line label from N bytes of TEXT (a turn's text, a title): cleaned as
** the transcript shows it (the sanitiser above), its first line, cut to at
** most MAX bytes (tui_cut) into OUT (CAP bytes, NUL-terminated).  Every
** label built from turn text goes through here, so a reply looks the same
** in the F6 tree, F2 and the transcript.  Returns OUT.
*/
char *tui_label(char *out, size_t cap, const char *text, size_t n, size_t max);

/*
** A progress bar of WIDTH cells (>= 1) for FRAC (clamped to [0,1]) written
** to OUT (NUL terminated; CAP >= 4 * WIDTH + 1 always suffices).  UTF8: full
** blocks U+2588, one partial block of eighths (U+2589..U+258F) at the edge
** and light shade U+2591 for the rest; else ASCII '#' and '-'.  Exactly
** WIDTH display columns.  Returns the bytes written.
*/
size_t tui_progress_bar(char *out, size_t cap, double frac, int width, int utf8);

#endif
