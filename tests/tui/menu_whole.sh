#!/usr/bin/env bash
# tests/tui/menu_whole.sh -- a menu row too long for the box: cut with an
# ellipsis, and when it is the selected one, shown whole under a rule below
# the list (the help's description hanging under itself, a long session
# title wrapped); on a wide terminal the box grows to fit its widest row
# (up to 120 columns) instead.  80x24 and 130x30, TERM=screen.
. "$(dirname "$0")/tmuxlib.sh"

LONG="a rather long first message that names the session and goes on past the box"
TUI_ENV="TERM=screen" W=80 H=24 tui_start --max-tokens 3 --seed 5
type_text "$LONG"
send

keys F1
check "help open" 'Help: every key'
check "a cut description ends in an ellipsis" 'F2 +sessions: resume, fork, rename, delete, sear…  │'
check_not "F1's row fits: no pane yet" '│─────' 2
keys Down
check "F2 selected: the rule of the pane" '│─────'
check "F2 whole: the first line" '^ │  F2 +sessions: resume, fork, rename, delete, +│$'
# the rest hangs under the description, not under the key
check "F2 whole: the rest hangs under the description" '^ │ {29}search +│$'
keys Down
check_not "F3's row fits: the pane is gone" '│─────' 3
check_not "F3's row fits: F2's text is gone" '^ │ {29}search' 1
keys Escape
check_not "help closed" 'Help: every key'

keys F2
check "sessions open" 'Sessions'
# the title (the message's first words) is cut to its column on the row,
# the details after it in theirs; the row whole under it
check "the session's row is cut" 'a rather long first mess[^│]*…  2 turns  #1  [0-9-]+ [0-9:]+  \(open\)  \(demo\)  │'
check "the selected session whole under the list" '^ │  #1  [0-9-]+ [0-9:]+  \(open\)  \(demo\) +│$'
keys Escape
check_not "sessions closed" '^ │  Sessions'

# wide: the box grows to the widest row; F2's description fits on its row
tui_resize 130 30
keys F1
check "130x30: help open" 'Help: every key'
check "130x30: F2's row whole" 'F2 +sessions: resume, fork, rename, delete, search +│'
keys Down
check_not "130x30: F2's row fits: no pane" '│─────' 2
# the box is wider than the 76 columns of an 80-column terminal
w=$(screen | grep -m1 'Help: every key' | sed 's/^[^│]*│//; s/│.*$//' | wc -c)
if [ "$w" -gt 100 ]; then ok; else fail "help box $w columns wide at 130 columns"; screen | sed 's/^/    | /'; fi
keys Escape
check_not "help closed again" 'Help: every key'
tui_resize 80 24
check "80 columns again" 'F4 presets'
tui_quit
tui_finish
