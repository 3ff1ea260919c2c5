#!/usr/bin/env bash
# tests/tui/home_keys.sh -- F1 says "Home/End, C-a/C-e: start/end of line
# (empty box: top/end of transcript)": in an empty message box C-a and C-e
# go to the top and the end of the transcript as Home and End do (they
# only moved the cursor of the empty box: nothing happened); with text in
# the box all four move the cursor.
. "$(dirname "$0")/tmuxlib.sh"

for i in $(seq 20); do echo "line $i"; done |
    "$RWKV_TUI" chat --demo --db "$DB" --max-tokens 8 --seed 1 >/dev/null 2>&1
W=100 H=30 tui_start --resume
check "resumed at the end" 'line 20'
keys C-a
check "C-a, empty box: the top of the transcript" '^Note' 5
check "... the rest below" '[0-9]+ more below \(End\)' 2
keys C-e
check_not "C-e, empty box: the end again" 'more below'
keys Home
check "Home, empty box: the top" '[0-9]+ more below \(End\)' 5
keys End
check_not "End: the end" 'more below'
# with text: the cursor moves, the transcript stays
type_text "abc"
keys C-a
type_text "X"
check "C-a with text: the line's start" '^> Xabc' 5
check_not "... the transcript not moved" 'more below' 1
keys C-e
type_text "Y"
check "C-e with text: the line's end" '^> XabcY' 5
keys C-u
tui_quit
tui_finish
