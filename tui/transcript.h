/*
** transcript.h -- the transcript model (house style G12): the turns shown,
** each turn's text (already sanitised), and a cache of display rows wrapped
** for one width, plus the scroll position.  No curses: tui/view.c draws it.
**
** Row layout per turn:  a header row (role, flags, sibling position), the
** text rows indented by TUI_TR_INDENT columns, one blank row.
**
** A reply's Markdown is rendered (tui/markdown.c): its rows index the
** rendered text (tui_tr_shown), prose wraps at most TUI_TR_MAX_TEXT columns
** wide, list items hang under their text, code-block rows are inset by
** TUI_TR_CODE_INSET and hard-wrapped at the pane's width.  The reasoning
** block a reply starts with (G1 models' "<think>...</think>") has rows of
** its own (tui_row.think), or one TUI_ROW_FOLD row when the transcript's
** fold_think is set (a view setting: the text is not changed).
*/
#ifndef RWKV_TUI_TRANSCRIPT_H
#define RWKV_TUI_TRANSCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "markdown.h"
#include "text.h"

#define TUI_TR_INDENT 2
#define TUI_TR_MAX_TEXT 100     /* a reply's prose wraps at most this wide: a
                                   readable measure on wide terminals */
#define TUI_TR_CODE_INSET 2     /* code blocks: columns inset from the text */

enum tui_turn_role { TUI_TURN_USER, TUI_TURN_ASSISTANT, TUI_TURN_INFO, TUI_TURN_ERROR };

/* Turn flags. */
#define TUI_TURN_STREAMING   1u   /* reply still being generated */
#define TUI_TURN_INTERRUPTED 2u   /* reply cancelled by the user; text kept */

typedef struct tui_turn {
    int           role;
    unsigned      flags;
    tui_buf       text;        /* sanitised UTF-8 */
    tui_buf       raw;         /* the text as given (saved): what M-c / M-k copy */
    tui_sanitizer san;         /* for streamed raw text */
    char          stats[96];   /* "42 tok, 120.3 tok/s", shown on demand */
    int64_t       store_id;    /* turn id in the store, 0 if none */
    size_t        ntok;        /* tokens the turn put in the context (a user
                                  turn: its framed prompt; a reply: the tokens
                                  generated); 0 = not known yet */
    int           sib_index;   /* 1-based position among siblings, 0 = n/a */
    int           sib_count;
    tui_md        md;          /* ASSISTANT: the text's Markdown rendered */
} tui_turn;

enum tui_row_kind { TUI_ROW_HEADER, TUI_ROW_TEXT, TUI_ROW_BLANK, TUI_ROW_FOLD };

typedef struct tui_row {
    int    turn;      /* index into turns */
    int    kind;      /* enum tui_row_kind */
    size_t off, len;  /* TEXT rows: bytes of tui_tr_shown(turn); FOLD: the
                         bytes of the folded reasoning block */
    int    indent;    /* TEXT rows: columns after TUI_TR_INDENT */
    int    code;      /* TEXT rows: a code-block row */
    int    think;     /* TEXT rows: 1 in a reasoning block; FOLD: its lines */
} tui_row;

typedef struct tui_transcript {
    tui_turn *turns;
    int       nturns;
    size_t    cap;
    tui_row  *rows;
    size_t    nrows, rcap;
    int       width;     /* text width the rows were wrapped for */
    size_t    scroll;    /* rows hidden below the view; 0 = follow the end
                            (clamped to the view drawn: tui_tr_fit) */
    int       view_h;    /* height of the view last fitted (tui_tr_fit), 0 =
                            none yet: a re-wrap keeps its top row's text */
    unsigned long gen;   /* counts changes of rows[] (a turn laid out) */
    int       fold_think;  /* reasoning blocks as one TUI_ROW_FOLD row each */
    int       focus;     /* the turn a jump brought into view (C-f's match,
                            F6's reply, M-p/M-n's message), -1 = none: the
                            copy keys take it (your message: its reply)
                            while it is in view; a scroll key clears it */
} tui_transcript;

/* The text the rows of TU index: the rendered Markdown of a reply, else
** the text itself.  Borrowed, valid until the turn changes. */
const char *tui_tr_shown(const tui_turn *tu);
/* The bytes a reply's text TEXT (LEN bytes) starts with that the client
** never shows: a reply follows "Assistant:", so models start it with one
** space (" Hi."); the stored text keeps it, the transcript, M-c and F6
** leave it out.  0 or 1. */
static inline size_t
tui_reply_lead(const char *text, size_t len)
{
    return len > 0 && text != NULL && text[0] == ' ';
}
/* The header of a turn of ROLE (TUI_TURN_*): the session's role names
** USER and BOT where it has its own ("" where not: F8, --user/--bot), else
** "You" and "RWKV"; "Error" and "Note" for the client's own turns.  The
** one rule for every place that names a turn's speaker (the transcript's
** headers, F6's tree).  Borrowed from USER, BOT or static storage. */
const char *tui_tr_who(int role, const char *user, const char *bot);
/* Markdown styles (TUI_MD_*) of those bytes, or NULL (no Markdown). */
const unsigned char *tui_tr_styles(const tui_turn *tu);

void tui_tr_init(tui_transcript *t);
void tui_tr_fini(tui_transcript *t);
void tui_tr_clear(tui_transcript *t);

/* Add a turn with N raw bytes of TEXT (sanitised here); returns its index. */
int  tui_tr_add(tui_transcript *t, int role, const char *text, size_t n);
/* Append raw streamed bytes to turn I (sanitised, split sequences kept). */
void tui_tr_append(tui_transcript *t, int i, const char *text, size_t n);
/* End of a streamed turn: flush the sanitiser, clear STREAMING. */
void tui_tr_finish(tui_transcript *t, int i, unsigned set_flags);
/* Drop turns from index I on (I..nturns-1). */
void tui_tr_truncate(tui_transcript *t, int i);

/* Re-wrap every turn for a pane WIDTH columns wide.  A view scrolled back
** keeps the text at its top row in that row (a row count alone would land
** elsewhere once the rows are re-wrapped). */
void tui_tr_layout(tui_transcript *t, int width);
/* Fit the transcript to the view it is drawn in, WIDTH x H: re-wrap when
** the width changed (a view scrolled back keeps the text at its top, in a
** view H rows high), and clamp the scroll position to the rows that view
** can have below it (the height or the rows may have changed since it was
** set).  Called before each draw, so `scroll` is then exactly the rows the
** drawn view has below it. */
void tui_tr_fit(tui_transcript *t, int width, int h);
/* Fold (FOLD 1) or unfold every reasoning block, streamed ones too. */
void tui_tr_set_fold(tui_transcript *t, int fold);

/*
** Scrolling for a view H rows high.  DELTA > 0 scrolls back (up).  The
** scroll position is clamped to [0, nrows - H].  When rows are added while
** scrolled back, the view stays on the same text.
*/
void   tui_tr_scroll(tui_transcript *t, long delta, int h);
void   tui_tr_scroll_top(tui_transcript *t, int h);
void   tui_tr_scroll_end(tui_transcript *t);
/* First row index shown in a view H rows high. */
size_t tui_tr_first_row(const tui_transcript *t, int h);
/* The row of turn TURN that shows byte OFF of tui_tr_shown (the next row
** when OFF is a space dropped at a wrap; the FOLD row of a folded block);
** (size_t)-1 when TURN has none. */
size_t tui_tr_row_of(const tui_transcript *t, int turn, size_t off);
/* Scroll a view H rows high so that ROW is shown (centred when it was
** out of view). */
void   tui_tr_show_row(tui_transcript *t, size_t row, int h);
/* Scroll a view H rows high so that ROW is its top row, as near as the
** end allows (there the view follows the end). */
void   tui_tr_show_top(tui_transcript *t, size_t row, int h);
/* The header row of turn TURN; (size_t)-1 when there is none. */
size_t tui_tr_header_row(const tui_transcript *t, int turn);
/* The header row of the message (a user or assistant turn; notes are not
** messages) nearest before ROW (DIR < 0) or after it (DIR > 0): M-p and
** M-n's steps.  (size_t)-1 when there is none. */
size_t tui_tr_msg_row(const tui_transcript *t, size_t row, int dir);
/* 1 when a row of turn TURN is in a view H rows high. */
int    tui_tr_in_view(const tui_transcript *t, int turn, int h);

#endif
