#!/usr/bin/env bash
# tests/tui/search.sh -- C-f searches the current transcript: typing
# highlights every match (reverse video; the current one bold and
# underlined), the footer says "n/m", Enter/C-f/Down go to the next match,
# Up/S-Tab to the previous one (wrapping), the transcript scrolls to the
# match, the search is case-insensitive and finds CJK text inside a
# sentence; Esc closes it and the highlights go; a paste goes into it (and
# into a menu's search), not into the hidden message box.
. "$(dirname "$0")/tmuxlib.sh"
SGR="python3 $(dirname "$0")/sgr.py"
st() { tmx capture-pane -p -e | $SGR "$1"; }
footer() { screen | tail -1; }

W=80 H=24 tui_start --max-tokens 3 --seed 5
say() { type_text "$1"; send; }
say "first Zebrafish line"
say "我们今天去东京看樱花了"
# enough turns that the first ones scroll out of an 80x24 view
for i in 1 2 3 4 5 6; do say "filler message number $i"; done
say "last zebrafish LINE"
wait_idle 600                  # every reply made (slow under a sanitizer)
check_not "first message scrolled out" 'first Zebrafish line' 20

keys C-f
check "search line opens" '^search: '
type_text "ZEBRAFISH"
check "two matches, case-insensitive; the newest is current" 'search: ZEBRAFISH +2/2'
s=$(st 'zebrafish LINE')
printf '%s' "$s" | grep -q 'rev=1 ul=1' && ok || fail "current match not reversed+underlined: $s"
keys Enter
check "Enter: next match wraps to the first" 'search: ZEBRAFISH +1/2'
check "the transcript scrolled to it" 'first Zebrafish line'
s=$(st 'Zebrafish line')
printf '%s' "$s" | grep -q 'rev=1 ul=1' && ok || fail "first match now current: $s"
keys Up
check "Up: previous match" 'search: ZEBRAFISH +2/2'
check "scrolled back down to it" 'last zebrafish LINE'
keys C-f
check "C-f: next" 'search: ZEBRAFISH +1/2'
keys BTab
check "S-Tab: previous" 'search: ZEBRAFISH +2/2'
keys Down
check "Down: next" 'search: ZEBRAFISH +1/2'

# CJK inside a sentence; editing the query re-searches
keys C-u
type_text "东京"
check "CJK word inside a sentence" 'search: 东京 +1/1'
check "the CJK message is in view" '我们今天去东京看樱花了'
s=$(st '东京看')
printf '%s' "$s" | grep -q 'rev=1' && ok || fail "CJK match not highlighted: $s"
s=$(st '今天去')
printf '%s' "$s" | grep -q 'rev=0' && ok || fail "text beside the match highlighted: $s"
keys BSpace
check "a one-character query" 'search: 东 +1/1'
type_text "Xq"
check "no match said" 'search: 东Xq +no match'

keys C-u
type_text "FILLER MESSAGE NUMBER"
check "six matches" 'FILLER MESSAGE NUMBER +[1-6]/6'

keys Escape
check_not "Esc closes the search line" '^search: '
keys End
check "End: the end of the transcript" 'filler message number 6'
s=$(st 'filler message number 6')
printf '%s' "$s" | grep -q 'rev=0' && ok || fail "highlight left after Esc: $s"
check "footer back" 'F1 help'
# typing goes to the input box again
type_text "abc"
check "input box takes keys" '^> abc'
keys C-u

# C-f again: the last query is kept
keys C-f
check "last query kept" 'search: FILLER MESSAGE NUMBER +[1-6]/6'
keys Escape

# a paste goes into the search line (it went to the hidden message box),
# and into a menu's search; a newline there is a space
keys C-f C-u
tmx set-buffer "zebrafish"
tmx paste-buffer -p
check "pasted into the search line" 'search: zebrafish +[12]/2'
keys Escape
check_not "search closed" '^search: '
check "the message box got nothing" '^> Type a message'
keys F2
check "sessions menu" 'Enter resume'
tmx set-buffer "$(printf 'last\nzebrafish')"
tmx paste-buffer -p
check "pasted into the menu's search" 'search: last zebrafish'
keys Escape
check_not "menu closed" 'Enter resume'
check "the message box still empty" '^> Type a message'

# the help lists the search key
keys F1
type_text "search the"
check "help: C-f search" 'C-f +search the transcript'
keys Escape
check_not "help closed" 'Help: every key'

# 20x6: the search line stays on its row
tui_resize 20 6
keys C-f
type_text "zzzzzzzz"
check "20x6: search line" '^search: '
last=$(screen | tail -1)
[ "${#last}" -le 20 ] && ok || fail "20x6: search line ${#last} columns: '$last'"
keys Escape
check_not "20x6: search closed" '^search: '
tui_resize 80 24
tui_quit
tui_finish
