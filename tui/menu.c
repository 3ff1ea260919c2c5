/*
** menu.c -- list menu logic.  See menu.h.
**
** Invariants: vis[] lists, in item order, exactly the items whose label or
** detail contains the match text (ASCII case-insensitively; the filter
** unless the owner set another), or whose data starts with TUI_MENU_MATCH
** (set by the owner, e.g. a full-text hit), and none whose data starts
** with TUI_MENU_HIDDEN;
** sel < nvis unless nvis == 0; top <= sel (tui_menu_fit brings the
** selection into the view, so top may be behind it only until the next
** fit).
*/
#include "menu.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

void
tui_menu_init(tui_menu *m, int kind, const char *title)
{
    memset(m, 0, sizeof *m);
    m->kind = kind;
    snprintf(m->title, sizeof m->title, "%s", title);
}

void
tui_menu_clear(tui_menu *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->items[i].label);
        free(m->items[i].detail);
        free(m->items[i].data);
    }
    m->n = m->nvis = m->sel = m->top = 0;
    m->widest = 0;
}

void
tui_menu_fini(tui_menu *m)
{
    tui_menu_clear(m);
    free(m->items);
    free(m->vis);
    memset(m, 0, sizeof *m);
}

static int
contains_ci(const char *hay, const char *needle)
{
    size_t nl = strlen(needle);

    if (nl == 0)
        return 1;
    if (hay == NULL)
        return 0;
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < nl && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == nl)
            return 1;
    }
    return 0;
}

static void
refilter(tui_menu *m)
{
    size_t old = m->nvis > 0 ? m->vis[m->sel] : (size_t)-1;

    m->vis = tui_xrealloc(m->vis, (m->n ? m->n : 1) * sizeof *m->vis);
    m->nvis = 0;
    m->sel = 0;
    for (size_t i = 0; i < m->n; i++) {
        if (m->items[i].data && m->items[i].data[0] == TUI_MENU_HIDDEN)
            continue;
        if (contains_ci(m->items[i].label, m->match) ||
            contains_ci(m->items[i].detail, m->match) ||
            (m->items[i].data && m->items[i].data[0] == TUI_MENU_MATCH)) {
            if (i == old)
                m->sel = m->nvis;
            m->vis[m->nvis++] = i;
        }
    }
    if (m->top > m->sel)
        m->top = m->sel;
}

int
tui_menu_item_width(const tui_menu_item *it)
{
    int w = tui_str_width(it->label, strlen(it->label));

    return it->detail ? w + 2 + tui_str_width(it->detail, strlen(it->detail)) : w;
}

void
tui_menu_add(tui_menu *m, const char *label, const char *detail,
             const char *data, int64_t id)
{
    tui_menu_item *it;

    m->items = tui_xgrow(m->items, &m->cap, m->n, sizeof *m->items, 16);
    it = &m->items[m->n++];
    it->label = tui_xstrdup(label ? label : "");
    it->detail = detail ? tui_xstrdup(detail) : NULL;
    it->data = data ? tui_xstrdup(data) : NULL;
    it->id = id;
    if (tui_menu_item_width(it) > m->widest)
        m->widest = tui_menu_item_width(it);
    refilter(m);
}

void
tui_menu_set_filter_match(tui_menu *m, const char *filter, const char *match)
{
    snprintf(m->filter, sizeof m->filter, "%s", filter);
    snprintf(m->match, sizeof m->match, "%s", match);
    refilter(m);
}

void
tui_menu_set_filter(tui_menu *m, const char *filter)
{
    tui_menu_set_filter_match(m, filter, filter);
}

void
tui_menu_move(tui_menu *m, long delta)
{
    long s;

    if (m->nvis == 0)
        return;
    s = (long)m->sel + delta;
    if (s < 0)
        s = 0;
    if (s >= (long)m->nvis)
        s = (long)m->nvis - 1;
    m->sel = (size_t)s;
    if (m->top > m->sel)
        m->top = m->sel;
}

void
tui_menu_page(tui_menu *m, int dir)
{
    long step = m->page > 1 ? (long)m->page - 1 : m->page == 1 ? 1 : 10;
    long top = (long)m->top + dir * step;
    long max_top = m->page && m->nvis > m->page ? (long)(m->nvis - m->page) : 0;

    /* the view scrolls by the step and the selection with it */
    m->top = (size_t)(top < 0 ? 0 : top > max_top ? max_top : top);
    tui_menu_move(m, dir * step);
    if (m->top > m->sel)
        m->top = m->sel;
}

void
tui_menu_home(tui_menu *m)
{
    m->sel = 0;
    m->top = 0;
}

void
tui_menu_end(tui_menu *m)
{
    m->sel = m->nvis ? m->nvis - 1 : 0;
}

int
tui_menu_select_id(tui_menu *m, int64_t id)
{
    for (size_t i = 0; i < m->nvis; i++) {
        if (m->items[m->vis[i]].id == id) {
            m->sel = i;
            if (m->top > m->sel)
                m->top = m->sel;
            return 1;
        }
    }
    return 0;
}

void
tui_menu_fit(tui_menu *m, int h)
{
    if (h < 1)
        h = 1;
    m->page = (size_t)h;
    if (m->sel < m->top)
        m->top = m->sel;
    if (m->sel >= m->top + (size_t)h)
        m->top = m->sel - (size_t)h + 1;
    if (m->nvis > (size_t)h && m->top > m->nvis - (size_t)h)
        m->top = m->nvis - (size_t)h;
    if (m->nvis <= (size_t)h)
        m->top = 0;
}

const tui_menu_item *
tui_menu_selected(const tui_menu *m)
{
    if (m->nvis == 0)
        return NULL;
    return &m->items[m->vis[m->sel]];
}

long
tui_menu_row_at(const tui_menu *m, int y, int x)
{
    size_t k;

    if (y < m->list_y || y >= m->list_y + m->list_h || x < m->list_x ||
        x >= m->list_x + m->list_w)
        return -1;
    k = m->top + (size_t)(y - m->list_y);
    return k < m->nvis ? (long)k : -1;
}
