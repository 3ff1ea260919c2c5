/*
** search.h -- search within the current transcript (C-f): the query, the
** matches in the text the transcript shows (tui_tr_shown: a reply's
** rendered Markdown, so what is found is what is on the screen) and the
** current match.  No curses (house style G12): app.c feeds it keys and
** tui/view.c draws the highlights and the "search: QUERY  n/m" line.
**
** Matching is case-insensitive per code point (towlower in the locale's
** LC_CTYPE; ASCII always), starts only on a character boundary and never
** splits a UTF-8 sequence, so CJK and any other script are found as typed.
*/
#ifndef RWKV_TUI_SEARCH_H
#define RWKV_TUI_SEARCH_H

#include <stddef.h>

#include "input.h"
#include "transcript.h"

typedef struct tui_search_match {
    int    turn;        /* index into the transcript's turns */
    size_t off, len;    /* bytes of tui_tr_shown(turn) */
} tui_search_match;

typedef struct tui_search {
    int               open;    /* the search line is shown */
    tui_input         q;       /* the query being typed */
    tui_search_match *m;       /* owned; in transcript order */
    size_t            n, cap;
    size_t            cur;     /* current match (< n unless n == 0) */
    /* what the matches were found in: recomputed when either differs */
    char             *q_done;  /* owned copy of the query, NULL = never */
    unsigned long     gen;     /* the transcript's layout count (tui_transcript.gen) */
} tui_search;

void tui_search_init(tui_search *s);
void tui_search_fini(tui_search *s);

/*
** Find NEEDLE (NN bytes, UTF-8) in HAY (N bytes) case-insensitively,
** starting at byte FROM (a character boundary).  Returns the offset of the
** first match and sets *MLEN to its length in HAY, or (size_t)-1.
*/
size_t tui_find_ci(const char *hay, size_t n, const char *needle, size_t nn, size_t from,
                   size_t *mlen);

/*
** Bring the matches up to date with the query and transcript T (nothing
** is done when neither changed since the last call).  Returns 1 when the
** query changed: the caller then picks the current match
** (tui_search_pick) and brings it into view.  When only the transcript
** changed (a reply streaming in), the current match keeps its index.
*/
int  tui_search_update(tui_search *s, const tui_transcript *t);

/* The current match becomes the last one starting in a turn <= TURN (the
** turn at the bottom of the view), or the first match when none does. */
void tui_search_pick(tui_search *s, int turn);
void tui_search_next(tui_search *s);   /* wraps around */
void tui_search_prev(tui_search *s);

/* Index of the first match in turn TURN that ends after byte OFF, or of
** the first match of a later turn; s->n when none (binary search). */
size_t tui_search_first_in(const tui_search *s, int turn, size_t off);

/* The transcript row holding the current match's start; (size_t)-1 when
** there is no match. */
size_t tui_search_row(const tui_search *s, const tui_transcript *t);

#endif
