#!/usr/bin/env bash
# tests/tui/ctrl_d.sh -- C-d in the message box: readline's (and Emacs')
# delete-char, the character after the cursor, when the box holds text (it
# did nothing there); in an empty box it still quits.  F1 says so.
. "$(dirname "$0")/tmuxlib.sh"

tui_start
type_text 'xabc def'
keys C-a C-d
check "C-d at the start: the first character gone" '^> abc def *$'
keys End Left Left Left C-d
check "C-d in the middle: the character after the cursor" '^> abc ef *$'
keys End C-d
check "C-d at the end: nothing" '^> abc ef *$'
check_not "... and no quit" 'EXIT=' 1
keys F1
type_text 'C-d'
check "F1 names it" 'Backspace/Delete,.*C-d +delete a whole character \(Delete and C-d: the one'
keys Escape               # (the search first, then the menu)
check_not "F1's search cleared" 'search: C-d'
screen | grep -q 'Help: every key' && keys Escape
check_not "F1 closed" 'Help: every key'
keys C-u C-d
if wait_for '^EXIT=0' 10; then ok; else fail "C-d in the empty box: no quit"; fi
tui_finish
