/*
** menu.h -- the list logic every menu shares (sessions, branches, state
** files, presets, models, help): items, a case-insensitive search filter,
** the selection and the first visible row.  No curses (house style G12).
*/
#ifndef RWKV_TUI_MENU_H
#define RWKV_TUI_MENU_H

#include <stddef.h>
#include <stdint.h>

#define TUI_MENU_FILTER 128   /* bytes of search text */
/* An item whose data starts with this byte matches any filter (the owner
** marks items found by its own search, e.g. session contents). */
#define TUI_MENU_MATCH '\x01'
/* An item whose data starts with this byte matches no filter (the owner
** hides it, e.g. a session of another model under "model:NAME"). */
#define TUI_MENU_HIDDEN '\x02'

typedef struct tui_menu_item {
    char   *label;    /* owned */
    char   *detail;   /* owned, may be NULL: shown dimmed after the label */
    char   *data;     /* owned, may be NULL: e.g. a path */
    int64_t id;
} tui_menu_item;

typedef struct tui_menu {
    int            kind;      /* which menu (the app's enum) */
    char           title[96];
    tui_menu_item *items;
    size_t         n, cap;
    size_t        *vis;       /* indices of the items matching the filter */
    size_t         nvis;
    size_t         sel;       /* index into vis */
    size_t         top;       /* first visible index into vis */
    size_t         page;      /* rows of the last view (tui_menu_fit), 0 = none yet */
    int            widest;    /* cells of the widest item: label, two blanks, detail */
    int            label_col; /* 1: the labels are a column, each cut or padded to one
                                 width, so the details line up (F2's sessions) */
    int            no_whole;  /* 1: no rows kept under the list for the selected
                                 item whole: each item is already a cut (F6's
                                 turns: a first line's first 80 bytes), so the
                                 list has those rows */
    char           filter[TUI_MENU_FILTER];  /* the search as typed (shown) */
    char           match[TUI_MENU_FILTER];   /* the part of it matched against the items */
    char           note[512]; /* what the fill said of a list it left empty (--no-db:
                                 sessions are not saved), shown there alone in
                                 place of "(empty)"; "" = none */
    /* where the list was last drawn (the view sets it; clicks read it) */
    int            list_y, list_x, list_w, list_h;
} tui_menu;

void tui_menu_init(tui_menu *m, int kind, const char *title);
void tui_menu_fini(tui_menu *m);
void tui_menu_clear(tui_menu *m);
/* Cells of IT as a row shows it whole: the label, two blanks, the detail. */
int  tui_menu_item_width(const tui_menu_item *it);
/* Add an item (strings copied; DETAIL and DATA may be NULL). */
void tui_menu_add(tui_menu *m, const char *label, const char *detail,
                  const char *data, int64_t id);
/* Set the filter and recompute the visible items (the selection stays on
** the same item when it still matches, else goes to the first). */
void tui_menu_set_filter(tui_menu *m, const char *filter);
/* The same, matching only MATCH (the owner handles the rest of FILTER
** itself, e.g. a "model:NAME" word, through TUI_MENU_HIDDEN). */
void tui_menu_set_filter_match(tui_menu *m, const char *filter, const char *match);
void tui_menu_move(tui_menu *m, long delta);   /* clamped, no wrap */
/* PgUp/PgDn: the selection moves by a page (the last view's rows less
** one, 10 before the first draw); DIR is -1 or +1. */
void tui_menu_page(tui_menu *m, int dir);
void tui_menu_home(tui_menu *m);
void tui_menu_end(tui_menu *m);
/* Select the item with ID if visible; returns 1 if found. */
int  tui_menu_select_id(tui_menu *m, int64_t id);
/* Adjust top so that the selection is inside a view of H rows. */
void tui_menu_fit(tui_menu *m, int h);
/* The visible index (into vis) of the row drawn at screen cell (Y, X), or
** -1 when no item is there. */
long tui_menu_row_at(const tui_menu *m, int y, int x);
/* The selected item (borrowed), NULL if nothing matches. */
const tui_menu_item *tui_menu_selected(const tui_menu *m);

#endif
