#!/usr/bin/env bash
# tests/tui/input_marks.sh -- a message box taller than its rows (a long
# paste) marks the rows out of sight: an arrow up beside the prompt sign
# when rows are above the first one shown, an arrow down on the last row
# when rows are below it.  The box showed the rows around the cursor with
# "> " on the first of them, which read as the start of the text.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 5 --seed 3
seq 1 40 >"$TMP/lines.txt"
tmx load-buffer "$TMP/lines.txt"
tmx paste-buffer -p
check "the paste's end in the box" '^  40 *$'
check "rows above: marked" '^>↑[0-9]+ *$'
check_not "nothing below: no down arrow" '^ ↓' 2
for i in $(seq 25); do keys Up; done
check "moved up: rows below marked" '^ ↓[0-9]+ *$'
check "and rows above still" '^>↑[0-9]+ *$'
keys C-u
type_text "one line"
check "a short text: the prompt sign alone" '^> one line *$'
check_not "a short text: no marks" '↑|↓' 2
keys C-u
tui_quit
tui_finish
