/*
** termcheck.c -- can curses drive this terminal?  Asked with setupterm()
** before newterm(): a failing newterm() leaks inside ncurses (LeakSanitizer
** sees it), a failing setupterm() does not.  Kept apart because
** <term.h> defines macros (lines, columns, ...) that clash with ordinary
** names elsewhere.
**
** Usable means: terminfo knows the type and it can address the cursor
** (cup).  TERM=dumb, and hardcopy or glass terminals, are known but cannot:
** the full-screen client on them is one unusable line, so they are refused
** like an unknown type (the caller points to `rwkv-tui chat`).
*/
#define NCURSES_WIDECHAR 1
#include "app.h"

#include <ncursesw/curses.h>
#include <ncursesw/term.h>

int
tui_term_usable(int fd)
{
    int err = 0;

    char *cup;
    int usable;

    if (setupterm(NULL, fd, &err) != OK)
        return 0;
    cup = tigetstr("cup");
    usable = cup != NULL && cup != (char *)-1 && !hard_copy && lines != 1;
    del_curterm(cur_term);
    return usable;
}
