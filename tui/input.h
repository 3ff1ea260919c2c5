/*
** input.h -- the input box's editor model (house style G12): a UTF-8
** buffer with a cursor, editing on whole characters (a code point and the
** combining marks after it), logical lines split by '\n', and a history of
** sent messages.  No curses: tui/view.c draws it with tui_input_layout().
*/
#ifndef RWKV_TUI_INPUT_H
#define RWKV_TUI_INPUT_H

#include <stddef.h>

#define TUI_INPUT_HISTORY 1000         /* messages kept for Up/Down (and in
                                          the history file, history.h) */
#define TUI_INPUT_MAX     (1u << 20)   /* bytes accepted in the box (paste cap) */

typedef struct tui_input {
    char   *buf;          /* owned, NUL terminated */
    size_t  len, cap;
    size_t  cur;          /* cursor: byte offset, on a character boundary */
    char  **hist;         /* owned strings, oldest first */
    unsigned char *hcut;  /* hcut[i]: hist[i] is a message cut when the history
                             file kept it (tui_input_remember_cut) */
    size_t  nhist;
    size_t  hpos;         /* == nhist when editing the draft */
    char   *draft;        /* the unsent text while browsing history, owned */
    size_t  nnew;         /* the newest NNEW entries were added by tui_input_take
                             (sent in this run: history.c saves them) */
    char   *kill;         /* the text the last kill deleted (C-y puts it back),
                             owned, NULL when none */
    size_t  kill_len;
    size_t  kill_at_len, kill_at_cur;   /* len and cur right after that kill */
    int     kill_joins;   /* the box unchanged since: the next kill adds to it */
    int     sel;          /* the whole text is selected (tui_input_select_all) */
    struct tui_undo *undo;   /* owned: the text before each change, oldest first */
    size_t  nundo, undo_bytes;
    int     undo_open;    /* the newest step takes the next insert too: the
                             cursor and length are where the last left them */
    size_t  undo_cur, undo_len;
} tui_input;

#define TUI_INPUT_UNDO       100                 /* undo steps kept */
#define TUI_INPUT_UNDO_BYTES (8 * TUI_INPUT_MAX) /* their text at most (the
                                                    oldest go first) */

void tui_input_init(tui_input *in);
void tui_input_fini(tui_input *in);

/* S (N bytes) at the cursor; set: S replaces the whole text.  What does not
** fit TUI_INPUT_MAX is left out from the first character (code point) that
** does not fit whole, so the box stays well-formed UTF-8; both return the
** characters left out (0: all went in) for the caller to say. */
size_t tui_input_insert(tui_input *in, const char *s, size_t n);  /* at cursor */
size_t tui_input_set(tui_input *in, const char *s);               /* replace all */
void tui_input_clear(tui_input *in);
/*
** Select the whole text, the cursor at its end (a prompt or the search line
** opened holding text: a kept query, a current value, a default path), as a
** browser's find bar does: a character typed, a paste or C-y replaces it,
** Backspace and Delete remove it, Left and Right keep it and go to its start
** and end.  Any other change or move drops the selection first (the key
** handler clears SEL after each key); set and clear drop it.  Empty text:
** nothing is selected.
*/
void tui_input_select_all(tui_input *in);

void tui_input_left(tui_input *in);
void tui_input_right(tui_input *in);
void tui_input_home(tui_input *in);        /* start of the cursor's line */
void tui_input_end(tui_input *in);         /* end of the cursor's line */
/* Up/Down move between lines keeping the display column; on the first (last)
** line they step through the history instead.  Return 1 if anything moved. */
int  tui_input_up(tui_input *in);
int  tui_input_down(tui_input *in);
/* The same by the rows of IN wrapped to WIDTH columns (tui_input_layout's),
** so a long paragraph is walked row by row; WIDTH < 1: by lines. */
int  tui_input_up_at(tui_input *in, int width);
int  tui_input_down_at(tui_input *in, int width);
void tui_input_backspace(tui_input *in);
void tui_input_delete(tui_input *in);
void tui_input_kill_eol(tui_input *in);    /* Ctrl-K (joins lines at the end) */
void tui_input_kill_all(tui_input *in);    /* Ctrl-U: the whole text, every line */
void tui_input_kill_word(tui_input *in);   /* Ctrl-W */
/*
** Every kill (C-k, C-u, C-w, M-d, M-Backspace) keeps the text it deleted,
** so an accident loses nothing: C-y puts it back at the cursor.  Kills in
** a row, the box unchanged between them, add up to one text in its order
** (C-w C-w, then C-y: both words).  Yank returns the bytes it inserted.
*/
size_t tui_input_yank(tui_input *in);      /* Ctrl-Y */
/*
** Undo (C-_, as readline and Emacs): every change to the text -- typing, a
** paste, a deletion, a kill or yank, the text replaced (an edit begun, a
** history entry recalled, a message put back) -- keeps the text and cursor
** it changed, and undo puts the last of them back.  Characters inserted one
** after another (typed, or a paste's, the cursor where the last left it)
** are one step; tui_input_undo_break ends a step (the box's caller: a typed
** blank or new line, so a typed sentence goes back a word at a time).
** Sending (tui_input_take) forgets them.  Returns 1 when the text changed.
*/
int  tui_input_undo(tui_input *in);
void tui_input_undo_break(tui_input *in);
/*
** Readline word motion (M-b, M-f, M-d, M-Backspace).  A word is a run of
** characters of one class: letters and digits (any script without a class
** of its own), Han ideographs, hiragana, katakana, hangul; spaces and
** punctuation (ASCII, CJK and fullwidth) separate words.  So "日本語の
** テキスト" is three words and "你好world" two.  Moves are by whole
** characters (tui_char_len).
*/
void tui_input_word_left(tui_input *in);       /* M-b: start of this/previous word */
void tui_input_word_right(tui_input *in);      /* M-f: end of this/next word */
void tui_input_kill_word_next(tui_input *in);  /* M-d: to the end of the word */
void tui_input_kill_word_prev(tui_input *in);  /* M-Backspace: to the start of the word */

/* Take the text for sending: returns it (malloc'ed, owned by caller), adds
** it to the history unless empty or equal to the last entry, and clears the
** box.  Returns NULL if the box holds only whitespace (nothing is changed). */
char *tui_input_take(tui_input *in);
/* Add a copy of S to the history (not counted in NNEW) unless it is blank
** or equal to the last entry; the oldest entry goes when it is full. */
void tui_input_remember(tui_input *in, const char *s);
/* The same for S, the start of a longer message when CUT (the history file
** keeps TUI_HISTORY_ENTRY_MAX bytes of one: history.h). */
void tui_input_remember_cut(tui_input *in, const char *s, int cut);
/* 1 when history entry I was remembered cut. */
int  tui_input_hist_cut(const tui_input *in, size_t i);
/* IN's history replaced by a copy of SRC's entries (none of them new to
** this run), browsing reset: a prompt opened with its kind's history. */
void tui_input_history_from(tui_input *in, const tui_input *src);
/* The text not sent: the box's unless it is a history entry recalled
** unchanged, else the draft kept while browsing the history.  NULL when
** that is blank.  Borrowed: valid until the next change to IN. */
const char *tui_input_unsent(const tui_input *in);

/*
** Layout for a box WIDTH columns wide (wrapped like the transcript): returns
** the row count and the cursor's row and column.
*/
int  tui_input_layout(const tui_input *in, int width, int *cur_row, int *cur_col);

/*
** Escape sequences (ECMA-48), the one grammar for every key read: typed,
** pasted (with markers or without) and typed during a load.  Fed the bytes
** after an ESC one at a time, the scanner says when they make a whole
** sequence, when they cannot be one, and when more bytes may complete one:
**
**   CSI      ESC [ P* I* F    P parameter 0x30-0x3F, I intermediate
**                             0x20-0x2F, F final 0x40-0x7E
**   SS3      ESC O P* F       (xterm's old modified F1-F4: ESC O 2 P)
**   Linux    ESC [ [ A..E     the console's F1-F5
**   strings  ESC ] (OSC), ESC P (DCS), ESC _ (APC), ESC ^ (PM): anything
**            up to BEL or ST (ESC \); an ESC that is no ST ends it as none
**
** Typed keys (TYPED set) are also read this way, where ESC and a key within
** the wait is Alt-key, so a scripted M-[ x must not be taken for a
** sequence: there a CSI or SS3 without parameter bytes is one only when its
** final byte is one terminals send bare (TUI_ESC_BARE_CSI/SS3: arrows,
** Home/End, F1-F4, focus reports, back-tab), and ESC [ M is an X10 mouse
** report with its three bytes.  A string typed needs its terminator.  In a
** paste every well-formed sequence is one (ESC [ x included).
*/
#define TUI_ESC_MAX 64     /* bytes of a sequence kept (and put back when it
                              turns out to be none): a 24-bit SGR pair is 37,
                              and curses' ungetch queue holds 137 */
#define TUI_ESC_BARE_CSI "ABCDEFGHIMOPQRSZ"
#define TUI_ESC_BARE_SS3 "ABCDEFHMPQRSX"

enum { TUI_ESC_NONE = -1, TUI_ESC_MORE = 0, TUI_ESC_DONE = 1 };

typedef struct tui_esc {   /* plain data: the scanner's state */
    int    typed;          /* keys typed, not a paste */
    int    kind;           /* the byte after ESC, 0 before it; 'L' Linux's [[, 'X' X10 */
    size_t n;              /* bytes fed */
    int    params;         /* parameter bytes seen */
    int    inter;          /* intermediate bytes seen */
    int    esc;            /* in a string: the last byte was ESC */
} tui_esc;

void tui_esc_start(tui_esc *e, int typed);
/* Feed the next byte B (0-255) after the ESC: TUI_ESC_DONE when B ends a
** whole sequence, TUI_ESC_NONE when the bytes fed (B included) are none,
** else TUI_ESC_MORE.  Not to be fed after DONE or NONE. */
int  tui_esc_feed(tui_esc *e, int b);

#endif
