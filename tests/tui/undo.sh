#!/usr/bin/env bash
# tests/tui/undo.sh -- C-_ (C-/) undoes the last change in the message box:
# a paste into a drafted message goes and the draft stays, a C-u comes
# back, a typed word goes back a word at a time.  There was no undo: C-_
# did nothing.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 5 --seed 3
type_text "my draft"
printf 'PASTED TEXT\nsecond line' >"$TMP/paste.txt"
tmx load-buffer "$TMP/paste.txt"
tmx paste-buffer -p
check "the paste is in the box" '^  second line'
keys C-_
check "C-_: the paste goes, the draft stays" '^> my draft *$'
check_not "C-_: no pasted line left" 'second line' 2
keys C-u
check "C-u cleared the box" '^> Type a message'
keys C-_
check "C-_ after C-u: the draft is back" '^> my draft *$'
type_text " and more"
keys C-_
check "C-_: the last typed word goes" '^> my draft and *$'
# an edit begun (M-e) replaced the box's text: C-_ gives it back
keys C-u
type_text "first message"
send
type_text "unsent words"
keys M-e
check "M-e: editing" '^\* first message'
keys C-_
check "C-_ after M-e: the draft is back" '^\* unsent words *$'
tui_quit
tui_finish
