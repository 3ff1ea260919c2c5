/*
** termcheck.c -- can curses drive this terminal?  Asked with setupterm()
** before newterm(): a failing newterm() leaks inside ncurses (LeakSanitizer
** sees it), a failing setupterm() does not.  Kept apart because
** <term.h> defines macros (lines, columns, ...) that clash with ordinary
** names elsewhere.
*/
#define NCURSES_WIDECHAR 1
#include "app.h"

#include <ncursesw/curses.h>
#include <ncursesw/term.h>

int
tui_term_usable(int fd)
{
    int err = 0;

    if (setupterm(NULL, fd, &err) != OK)
        return 0;
    del_curterm(cur_term);
    return 1;
}
