/*
** state_save.h -- the full-screen client's "save the current state as a
** state file" (C-w in the F3 state-files menu): a persona made from the
** conversation, written by rwkv_state_save_file (core/model/state_file.c) in the
** .pth layout the pip package loads, plus the token shifts so that --state
** FILE and F3 give it back exactly (docs/state-files.md).
**
** UI thread only, and only while no job runs (a->busy == 0): while a job
** runs the chat belongs to the worker thread.
*/
#ifndef RWKV_TUI_STATE_SAVE_H
#define RWKV_TUI_STATE_SAVE_H

#include <stddef.h>

struct app;

/* The folder saved states go to by default and F3 lists:
** $XDG_DATA_HOME/rwkv-tui/states (~/.local/share/rwkv-tui/states) into BUF.
** 0, or -1 when neither XDG_DATA_HOME nor HOME is set. */
int  tui_state_dir(char *buf, size_t cap);
/* $VAR/rwkv-tui/LEAF (VAR an XDG base directory variable, used when it is
** an absolute path), else $HOME/HOME_DIR/rwkv-tui/LEAF, into BUF.  0, or -1
** when neither is set (or BUF is too small). */
int  tui_xdg_path(char *buf, size_t cap, const char *var, const char *home_dir, const char *leaf);
/* mkdir -p DIR (0700 for what is created).  0 or -1 (errno). */
int  tui_make_dirs(const char *dir);
/* C-w in F3: the path prompt, pre-filled with DIR/NAME.pth (NAME from the
** session title, else the date; a name not yet taken).  A notice instead
** while a job runs. */
void tui_state_save_ask(struct app *a);
/* Save the chat's current state at PATH ("~/" expanded; the default folder
** is created when PATH is in it).  Then F3 opens again on the new file.
** 0, or -1 with a notice (busy, an empty path, a write error). */
int  tui_state_save(struct app *a, const char *path);

#endif
