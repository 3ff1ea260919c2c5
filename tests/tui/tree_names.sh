#!/usr/bin/env bash
# tests/tui/tree_names.sh -- F6's tree names the speakers as the transcript's
# headers do (tui_tr_who, the one rule): the session's own role names
# (--user/--bot, F8) where it has them, else "You" and "RWKV" -- the tree
# said "You:" and "RWKV:" whatever the names.  The shorter name is padded,
# so messages and replies start in one column.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 5 --seed 2 --user Ann --bot Bo
type_text "first"
send
check "the transcript's header names the user" '^Ann( |$)'
check "the transcript's header names the bot" '^Bo( |$)'
keys F6
check "F6 open" 'Branches'
check "F6: the message under the user's name" '\* Ann: first'
check "F6: the reply under the bot's name, in the same column" '\* Bo:  [^ ]'
check_not "F6: no default names" '(You|RWKV):' 1
keys Escape
check_not "F6 closed" 'Branches'
tui_quit

# the same session resumed: its names come back with it
tui_start --session 1
check "resumed" 'session: first'
keys F6
check "F6 after a resume: the user's name" '\* Ann: first'
check_not "F6 after a resume: no default names" '(You|RWKV):' 1
keys Escape
tui_quit

# without names of its own: "You" and "RWKV", as before
tui_start --max-tokens 5 --seed 2
type_text "second"
send
keys F6
check "default names: You, padded to RWKV's width" '\* You:  second'
check "default names: RWKV" '\* RWKV: [^ ]'
keys Escape
tui_quit
tui_finish
