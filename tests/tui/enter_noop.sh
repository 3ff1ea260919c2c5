#!/usr/bin/env bash
# tests/tui/enter_noop.sh -- Enter on a menu row that has nothing to do says
# so and leaves the menu open.  F5's row of the model in use (the demo here:
# no file to switch to) and F6's start row of the current branch closed
# the menu without a word, as if a switch had begun -- and the Esc a user
# then pressed to "close the menu" cancelled the running reply instead.
# (F6's Enter on a reply of this branch now shows it: branches_show.sh.)
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
keys Up Up
check "the start row" '\* Start: '
keys Enter
check "F6 Enter on the start of this branch: said" 'already on this branch'
check "... the menu stays open" 'Branches: the whole tree' 2
keys Down Down
keys Enter
# (a reply of this branch is shown in the transcript: branches_show.sh)
check "F6 Enter on a reply of this branch: shown" 'the reply is in view'
check_not "... the menu closed" 'Branches: the whole tree'
keys F6
check "F6 open again" 'Branches: the whole tree'
# Enter on your message still edits it (and closes the menu)
keys Up
keys Enter
check "F6 Enter on your message: edit" 'edit and send: the message starts a new branch there'
check_not "... the menu closed" 'Branches: the whole tree'
keys Escape
check "Esc leaves edit mode" 'edit cancelled'
tui_quit
tui_finish
