#!/usr/bin/env bash
# tests/tui/tree.sh -- F6 shows the session's whole turn tree: branch glyphs
# (ASCII without a UTF-8 locale), sibling positions, the current path marked
# with '*'; Enter on a turn of another branch switches to it; C-d deletes a
# turn and everything below it after saying what happens (a side branch, the
# current branch, the whole conversation).
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 6 --seed 3
type_text "alpha"
send
type_text "beta"
send
keys C-r
check "two replies to beta" '^RWKV  < 2/2 >'
wait_idle

keys F6
check "tree menu" 'Branches: the whole tree'
check "first reply: a tee" '├─ RWKV: .*< 1/2 >'
check "second reply: a corner, marked current" '\* └─ RWKV: .*< 2/2 >'
check "the path above marked" '\* You:  beta'
check_not "the other reply not marked" '\* ├─ RWKV'

# Enter on the other reply switches to its branch
keys Up Enter
check "switched: first reply shown" '^RWKV  < 1/2 >'
keys F6
check "now the first reply is marked" '\* ├─ RWKV: .*< 1/2 >'
check "the second one is not" '  └─ RWKV: .*< 2/2 >'

# Right steps the selected reply to its sibling; the selection follows it
# (C-d on it says the chat is on it), Left comes back
keys Right
check "stepped: the second reply marked" '\* └─ RWKV: .*< 2/2 >'
keys C-d
check "the selection followed the step" 'delete this turn\? the chat moves to the branch beside it'
keys n
keys Left
check "back: the first reply marked" '\* ├─ RWKV: .*< 1/2 >'

# delete the side branch (the second reply): nothing else moves
keys Down C-d
check "asks, with what goes" 'delete this turn\? \(y/n\)'
keys n
check "n keeps it" '└─ RWKV: .*< 2/2 >'
keys C-d
check "asks again" 'delete this turn\?'
keys y
check "deleted" 'deleted 1 turn'
check_not "the tree lost it" '< 2/2 >'
keys Escape
check_not "the transcript has one reply" '^RWKV  < '
check "still on beta" '^  beta'

# delete the current branch at beta: the chat moves to the turn above
keys F6
type_text "beta"
keys C-d
check "says the chat moves" 'delete this turn and [0-9]+ below\? the chat moves to the turn above'
keys y
check_not "beta gone" '^  beta'
check "alpha stays" '^  alpha'

# the whole conversation: the first turn of the path
n=$("$RWKV_TUI" sessions list --db "$DB" --json 2>/dev/null | grep -o '"turns": [0-9]*' | head -1 | grep -o '[0-9]*$')
keys F6 Home C-d
check "says everything goes" 'delete the whole conversation \([0-9]+ turns\)\? the session stays, empty'
check "... counting the turns as sessions list does ($n)" "delete the whole conversation \\($n turns\\)"
keys y
check_not "alpha gone" '^  alpha'
keys F2
check "the session is kept, empty" 'alpha +0 turns'
keys Escape
check_not "sessions closed" 'C-y fork'
# and it goes on: a new message in the emptied session
type_text "gamma"
send
check "a message after the delete" '^  gamma'
check_not "no error" 'Error|failed'
keys F6
check "the tree has it" '\* You:  gamma'
keys Escape
tui_quit

# no UTF-8 locale: ASCII branch glyphs
rm -f "$DB"
TUI_ENV="LC_ALL=C LANG=C" tui_start --max-tokens 4 --seed 3
type_text "one"
send
keys C-r
check "regenerated" '^RWKV  < 2/2 >'
wait_idle
keys F6
check "ASCII tee" '\|- RWKV:'
check "ASCII corner, marked" '\* `- RWKV:'
keys Escape
tui_quit
tui_finish
