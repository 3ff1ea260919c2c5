#!/usr/bin/env bash
# tests/tui/enter_noop.sh -- Enter on a menu row that has nothing to do says
# so and leaves the menu open.  F5's row of the model in use (the demo here:
# no file to switch to) and F6's rows of the current branch other than your
# messages (a reply, the start) closed the menu without a word, as if a
# switch had begun -- and the Esc a user then pressed to "close the menu"
# cancelled the running reply instead.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 5 --seed 4
type_text "hello"
send
keys F5
check "F5 open" '│  Models'
keys Enter
check "F5 Enter on the model in use: said" 'demo is the model in use \(C-s changes its strategy\)'
check "... the menu stays open" '│  Models' 2
keys Escape
check_not "Esc closes it" '│  Models'

keys F6
check "F6 open" 'Branches: the whole tree'
check "the reply is selected" '\* RWKV: '
keys Enter
check "F6 Enter on a reply of this branch: said" 'already on this branch'
check "... the menu stays open" 'Branches: the whole tree' 2
# Enter on your message still edits it (and closes the menu)
keys Up
keys Enter
check "F6 Enter on your message: edit" 'edit and send: the message starts a new branch there'
check_not "... the menu closed" 'Branches: the whole tree'
keys Escape
check "Esc leaves edit mode" 'edit cancelled'
tui_quit
tui_finish
