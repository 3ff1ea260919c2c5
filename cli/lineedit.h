/*
** lineedit.h -- the line chat's own line editor (`rwkv-tui chat` on a
** terminal): one line drawn after the prompt, scrolled sideways when it is
** wider than the terminal, edited with the keys of readline and linenoise,
** with Up/Down through the full-screen client's input history (the same
** file, tui/history.h) and this run's lines.
**
** The editing model is the client's input box (tui/input.h: UTF-8, a whole
** character at a time, wide characters two columns); this file adds the
** keys (bytes in, edits out: ledit_feed), the sideways view (ledit_view)
** and the terminal (ledit_read).  The terminal is the editor's only while
** ledit_read runs: its modes are put back before it returns, on Ctrl-Z
** (and drawn again on fg), and on a fatal signal.  It keeps ISIG and IXON
** as the line mode has them, so Ctrl-C is the SIGINT the chat handles and
** C-s / C-q still stop and start the output.
**
** Keys: Left/Right, C-b/C-f; Home/End, C-a/C-e; Backspace, Delete, C-d (on
** an empty line: end of input); C-u (the whole line), C-k (to its end), C-w
** (the word before), C-y (put back what they took), C-_ (undo); M-b/M-f
** and C-Left/C-Right (a word); Up/Down, C-p/C-n (history); C-l (clear the
** screen); Enter (CR or LF).  A bracketed paste (ESC [ 200 ~ ... ESC [ 201
** ~) goes in as it is, its line breaks kept ('\n'), for Enter to send.
*/
#ifndef RWKV_CLI_LINEEDIT_H
#define RWKV_CLI_LINEEDIT_H

#include <signal.h>
#include <stddef.h>

typedef struct ledit ledit;   /* opaque: text, history, keys not yet read */

/* The longest line it holds (bytes): the client's input box's (TUI_INPUT_MAX). */
#define LEDIT_TEXT_MAX (1u << 20)
/* What was typed ahead while the terminal was in its line mode (a reply
** streaming) comes as lines ending in LF, and Linux keeps 4095 bytes of
** one: a line that long was cut (ledit_take's *CUT); 0 where not known. */
#if defined(__linux__)
#define LEDIT_TTY_LINE 4095
#else
#define LEDIT_TTY_LINE 0
#endif

/* What ledit_feed and ledit_read end with. */
enum {
    LEDIT_MORE = 0,    /* (ledit_feed) the line goes on */
    LEDIT_ENTER,       /* Enter: ledit_take has the line */
    LEDIT_EOF,         /* C-d on an empty line, or the terminal closed */
    LEDIT_STOP,        /* (ledit_read) *STOP was set (a signal the caller handles) */
    LEDIT_ERROR        /* (ledit_read) the terminal could not be read or set: errno */
};

/* A new editor, its history empty; ledit_destroy accepts NULL. */
ledit *ledit_create(void);
void   ledit_destroy(ledit *e);

/* The full-screen client's input history (tui_history_path) as the lines
** Up reaches first; a missing or damaged file is an empty history.
** 0, or -1 when there is none to read. */
int ledit_history_load(ledit *e);

/*
** Take N bytes the terminal sent.  Returns LEDIT_MORE when all were used,
** else LEDIT_ENTER or LEDIT_EOF with *USED the bytes used up to that key
** (the rest is the next line's).
*/
int ledit_feed(ledit *e, const char *b, size_t n, size_t *used);
/* Nothing came for a while: an ESC alone (or a sequence cut short) is
** dropped, and a paste whose end mark never came is taken as ended. */
void ledit_timeout(ledit *e);
/* Milliseconds to wait for the rest of what was fed before ledit_timeout;
** -1 when nothing waits. */
int ledit_wait_ms(const ledit *e);

/* The text and the cursor (a byte offset); borrowed, valid until the next
** change. */
const char *ledit_text(const ledit *e, size_t *len, size_t *cur);

/*
** The line Enter ended (LEDIT_ENTER): malloc'ed, NUL-terminated, *LEN its
** bytes; it joins the history (unless blank) and the editor starts a new
** empty line.  *LOST: the characters that did not fit the editor's buffer
** (TUI_INPUT_MAX bytes): not 0, the caller refuses the line.  *CUT: 1 when
** a part of it typed ahead in the terminal's line mode was cut there
** (LEDIT_TTY_LINE): the caller refuses it too.  NULL when out of memory.
*/
char *ledit_take(ledit *e, size_t *len, size_t *lost, int *cut);

/*
** The sideways view of TEXT[0..LEN) with the cursor at CUR in COLS columns:
** *FIRST (in: the last view's first byte, 0 at the start; out: this view's)
** is moved as little as keeps the cursor on screen -- the cursor's column
** at most COLS - 1, a wide character never cut in two.  Returns the end of
** the bytes shown; *COL is the cursor's column.  Line breaks and other
** control characters count one column (drawn as one sign).
*/
size_t ledit_view(const char *text, size_t len, size_t cur, int cols, size_t *first, int *col);

/*
** Read one line from the terminal (stdin, drawn on stdout) after PROMPT:
** LEDIT_ENTER (ledit_take has it), LEDIT_EOF, LEDIT_STOP when *STOP is set
** (a signal's handler set it; the read is cut at once), or LEDIT_ERROR
** (errno).  stdout's buffer is flushed first; the terminal's modes are put
** back before it returns.
*/
int ledit_read(ledit *e, const char *prompt, volatile sig_atomic_t *stop);

#endif
