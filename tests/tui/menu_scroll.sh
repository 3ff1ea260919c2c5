#!/usr/bin/env bash
# tests/tui/menu_scroll.sh -- long lists (F1 help, the message log) at 80x24
# and 20x6: PgDn/PgUp move a page, Home/End the ends, and a "more below" /
# "more above" mark says when the list is cut; the box is cleared whole,
# with a border, so no transcript text shows beside it.  Esc followed at
# once by a resize is not lost.
. "$(dirname "$0")/tmuxlib.sh"

W=80 H=24 tui_start --max-tokens 3 --seed 5
type_text "TRANSCRIPTTEXT TRANSCRIPTTEXT TRANSCRIPTTEXT TRANSCRIPTTEXT TRANSCRIPTTEXT"
send
keys F1
check "help open" 'Help: every key'
check "80x24: more below" '↓ [0-9]+ more below'
check_not "80x24: nothing above yet" 'more above' 1
# the box covers the transcript rows beside it
if screen | sed -n '2,20p' | grep -q 'TRANSCRIPTTEXT'; then fail "transcript shows beside the help box"; screen | sed 's/^/    | /'; else ok; fi
if screen | sed -n '3p' | grep -Eq '^ │ .* │ *$'; then ok; else fail "no border beside the box: $(screen | sed -n 3p)"; fi
first=$(screen | sed -n '3p')
keys NPage
check "PgDn: more above" '↑ [0-9]+ more above'
if [ "$(screen | sed -n '3p')" != "$first" ]; then ok; else fail "PgDn did not scroll the view"; fi
keys End
check_not "End: nothing below" 'more below' 3
check "End: the last help line" 'Models: C-s +change the strategy'
keys Home
check "Home: the first line again" 'F1 +help: every key'
check_not "Home: nothing above" 'more above' 3
keys NPage NPage
keys PPage PPage
check "PgUp twice back at the top" 'F1 +help: every key'
keys Escape
check_not "help closed" 'Help: every key'

# 20x6: one list row; the marks in short form
tui_resize 20 6
keys F1
check "20x6: help open" 'Help'
check "20x6: short mark below" '↓[0-9]+'
keys End
check "20x6: short mark above" '↑[0-9]+'
check_not "20x6: nothing below at the end" '↓[0-9]+' 3
keys PPage
check "20x6: PgUp: both marks" '↑[0-9]+ ↓[0-9]+'
# Esc with a resize right after it (inside the wait for an Alt key): both count
keys Escape
tmx resize-window -x 80 -y 24
check_not "Esc then a resize: the help closes" 'Help: every key' 3
check "... and the screen is 80 wide again" 'F4 presets'
tui_quit
tui_finish
