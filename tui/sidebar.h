/*
** sidebar.h -- the parameter sidebar's model: one row per params_table
** entry (house style G11); stepping and typed edits stay within the
** table's bounds.  No curses.
*/
#ifndef RWKV_TUI_SIDEBAR_H
#define RWKV_TUI_SIDEBAR_H

#include <stddef.h>

#include "../core/chat/params.h"
#include "../core/status.h"

/* Where the parameter rows were last drawn (the view sets it). */
typedef struct tui_sidebar_geom {
    int top, x, rows;        /* first row's line, left column, rows shown (0 = hidden) */
} tui_sidebar_geom;
/* The parameter row at screen cell (Y, X), or -1. */
int  tui_sidebar_row_at(const tui_sidebar_geom *g, int y, int x);

/* Number of rows (entries in params_table). */
int  tui_param_count(void);
/* Step entry I of S by DIR steps (+1/-1, or +-10 for a page), clamped to
** [min, max] of the table.  Returns 1 if the value changed. */
int  tui_param_step(rwkv_sampling *s, int i, int dir);
/* Set entry I from typed TEXT: out of bounds or not a number leaves S
** unchanged and fills ERR. */
int  tui_param_set_text(rwkv_sampling *s, int i, const char *text, rwkv_err *err);

#endif
