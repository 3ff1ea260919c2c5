#!/usr/bin/env bash
# tests/tui/input_rows.sh -- Up and Down in the message box move by the rows
# it draws: in a paragraph wrapped over three rows, Up goes one row up
# (it recalled the input history, the paragraph being one line without a
# newline), and Up on the first row recalls the history.
. "$(dirname "$0")/tmuxlib.sh"

W=40 H=20 tui_start --max-tokens 2
type_text "earlier"
send
wait_idle
# 38 columns a row: "one111111 two222222 three3333" / "four44444 five55555
# six666666" / "seven7777 eight8888", the cursor at the end (column 19)
type_text "one111111 two222222 three3333 four44444 five55555 six666666 seven7777 eight8888"
check "wrapped over rows" '^  four44444 five55555 six666666'
keys Up
type_text "X"
check "Up: a row up at the same column, not the history" '^  four44444 five55555X six666666'
check_not "the history not recalled" '^> earlier' 1
keys Up Up
check "Up on the first row: the history" '^> earlier'
keys Down
check "Down: the paragraph back" 'five55555X'
keys C-u
tui_quit
tui_finish
