/*
** history.h -- the input box's history kept across runs: what was sent,
** and the draft left in the box at quit, in one small file,
** $XDG_STATE_HOME/rwkv-tui/history (~/.local/state/rwkv-tui/history), mode
** 0600, written atomically (core/io/fileio.h).
**
** One history for the user, not one per session database: like a shell's,
** it records what was typed at this keyboard, and Up already reaches across
** sessions within a run.  `history: off` in the config (or --no-db, which
** saves nothing) keeps it from being written.
**
** Format: the line "rwkv-tui history 1", then one entry a line, oldest
** first: "s TEXT" (sent), "c TEXT" (sent, and cut as below: Up says so) or
** "d TEXT" (the draft left at quit; at most one, the last line).  TEXT escapes '\\' as "\\\\", newline as "\\n" and CR as
** "\\r"; every other byte is itself, so any text round-trips.  At most
** TUI_INPUT_HISTORY entries, each sent one cut to TUI_HISTORY_ENTRY_MAX
** bytes on a whole character (its session keeps it whole); the draft is
** kept whole (at most the box's TUI_INPUT_MAX).
*/
#ifndef RWKV_TUI_HISTORY_H
#define RWKV_TUI_HISTORY_H

#include <stddef.h>

#include "../core/status.h"
#include "input.h"

#define TUI_HISTORY_ENTRY_MAX (16u << 10)   /* bytes kept of one sent entry */

/*
** The one-line prompts that keep a history of their own, as a shell keeps
** one per purpose (tui_prompt_class.hist): what was typed there, not the
** messages.  A file each beside the message box's, in the same format and
** under the same rules (0600, atomic, `history: off`, nothing with --no-db),
** written at quit only when the prompt was used:
**   history-generate  M-g's free-generation prompts
**   history-files     the paths typed to save or read a file (F3 C-w save
**                     the state, F2 C-e export, F2 C-o import)
**   history-strategy  F5 C-s's strategy strings
**   history-search    C-f's queries (kept when the search line closes)
** A rename, a preset's name, a value or a yes/no keeps none: what it is
** asked for differs each time.  Up/Down in a prompt step through its
** history; in the search line, where they move between matches, C-p/C-n.
*/
enum tui_phist { TUI_PHIST_NONE, TUI_PHIST_GEN, TUI_PHIST_FILES, TUI_PHIST_STRATEGY,
                 TUI_PHIST_SEARCH, TUI_PHIST_N };

/* The history file's path into BUF.  0, or -1 when neither XDG_STATE_HOME
** (absolute) nor HOME is set. */
int tui_history_path(char *buf, size_t cap);
/* The same for prompt history WHICH (enum tui_phist, not NONE). */
int tui_history_prompt_path(int which, char *buf, size_t cap);

/*
** Load PATH into IN's history (its entries replaced, the draft the last
** one).  A missing file is an empty history.  Returns 0, 1 when the file
** held a draft (the first Up brings it back), or -1 with ERR one line
** (unreadable, damaged: IN's history is then left empty).
*/
int tui_history_load(tui_input *in, const char *path, rwkv_err *err);

/*
** Save IN's history and DRAFT (NULL or blank: none) to PATH, its folder
** created when missing.  The file is read again first, so the entries
** another client saved meanwhile are kept: the file's entries, then the
** ones sent in this run (IN->nnew), then the draft, the newest
** TUI_INPUT_HISTORY kept.  0, or -1 with ERR one line.
*/
int tui_history_save(const tui_input *in, const char *draft, const char *path, rwkv_err *err);

/*
** What was typed ahead while the model loaded and never read as keys (a
** Ctrl-C or SIGTERM ended the load): RAW, N bytes as the terminal sent
** them, as the box would have taken them -- Enter (CR or LF) a new line,
** Backspace (DEL, ^H) taking the character before, escape sequences
** (arrows, F-keys, Alt-x, the bracketed paste's markers) and other control
** bytes dropped, the rest sanitised (text.h) and its ends trimmed of new
** lines.  Malloc'ed, or NULL when nothing is left (kept as the history's
** draft: app.c, typeahead_keep).
*/
char *tui_typeahead_text(const char *raw, size_t n);

#endif
