/*
** search.c -- search within the transcript.  See search.h.
**
** Invariants: m[] holds every match of q_done in the shown text of every
** turn, in transcript order, none overlapping within a turn; cur < n
** unless n == 0.
*/
#define _XOPEN_SOURCE 700
#include "search.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../storage/store.h"
#include "text.h"

void
tui_search_init(tui_search *s)
{
    memset(s, 0, sizeof *s);
    tui_input_init(&s->q);
}

void
tui_search_fini(tui_search *s)
{
    tui_input_fini(&s->q);
    free(s->m);
    free(s->q_done);
    memset(s, 0, sizeof *s);
}

/* Length in HAY at P of a match of NEEDLE (both compared folded), or 0.
** The folding is the sessions search's own (store_casefold_cp): C-f here,
** F2's search and `sessions search` find the same text ("istanbul" finds
** "İstanbul" in all three or in none). */
static size_t
match_at(const char *hay, size_t n, size_t p, const char *needle, size_t nn)
{
    size_t i = p, j = 0;

    while (j < nn) {
        uint32_t a, b;
        if (i >= n)
            return 0;
        i += tui_next_cp(hay + i, n - i, &a);
        j += tui_next_cp(needle + j, nn - j, &b);
        if (store_casefold_cp(a) != store_casefold_cp(b))
            return 0;
    }
    return i - p;
}

size_t
tui_find_ci(const char *hay, size_t n, const char *needle, size_t nn, size_t from,
            size_t *mlen)
{
    if (nn == 0)
        return (size_t)-1;
    for (size_t p = from; p < n;) {
        uint32_t cp;
        size_t k = match_at(hay, n, p, needle, nn);
        if (k > 0) {
            *mlen = k;
            return p;
        }
        p += tui_next_cp(hay + p, n - p, &cp);
    }
    return (size_t)-1;
}

static void
add(tui_search *s, int turn, size_t off, size_t len)
{
    s->m = tui_xgrow(s->m, &s->cap, s->n, sizeof *s->m, 64);
    s->m[s->n].turn = turn;
    s->m[s->n].off = off;
    s->m[s->n].len = len;
    s->n++;
}

int
tui_search_update(tui_search *s, const tui_transcript *t)
{
    int changed = s->q_done == NULL || strcmp(s->q_done, s->q.buf) != 0;

    if (!changed && s->gen == t->gen)
        return 0;
    free(s->q_done);
    s->q_done = tui_xstrdup(s->q.buf);
    s->gen = t->gen;
    s->n = 0;
    for (int i = 0; i < t->nturns && s->q.len > 0; i++) {
        const char *txt = tui_tr_shown(&t->turns[i]);
        size_t n = strlen(txt), p = 0, len;
        while ((p = tui_find_ci(txt, n, s->q.buf, s->q.len, p, &len)) != (size_t)-1) {
            add(s, i, p, len);
            p += len;
        }
    }
    if (s->cur >= s->n)
        s->cur = s->n ? s->n - 1 : 0;
    return changed;
}

void
tui_search_pick(tui_search *s, int turn)
{
    s->cur = 0;
    for (size_t i = 0; i < s->n && s->m[i].turn <= turn; i++)
        s->cur = i;
}

void
tui_search_next(tui_search *s)
{
    if (s->n)
        s->cur = (s->cur + 1) % s->n;
}

void
tui_search_prev(tui_search *s)
{
    if (s->n)
        s->cur = (s->cur + s->n - 1) % s->n;
}

size_t
tui_search_row(const tui_search *s, const tui_transcript *t)
{
    if (s->n == 0)
        return (size_t)-1;
    return tui_tr_row_of(t, s->m[s->cur].turn, s->m[s->cur].off);
}

size_t
tui_search_first_in(const tui_search *s, int turn, size_t off)
{
    size_t lo = 0, hi = s->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const tui_search_match *m = &s->m[mid];
        if (m->turn < turn || (m->turn == turn && m->off + m->len <= off))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
