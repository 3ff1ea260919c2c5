#!/usr/bin/env bash
# tests/tui/resize.sh -- resize 120x40 -> 40x12 -> (too small) -> 20x6 ->
# 120x40 with a correct redraw at every size; the footer's notice stays
# through a resize (a key, not a resize, clears it).
. "$(dirname "$0")/tmuxlib.sh"

# every screen row fits the window and the frame is complete
frame_ok() {
    local w=$1 h=$2 s n maxw
    s=$(screen)
    n=$(printf '%s\n' "$s" | wc -l)
    maxw=$(printf '%s\n' "$s" | while IFS= read -r l; do echo "${#l}"; done | sort -n | tail -1)
    [ "$n" -le "$h" ] && [ "$maxw" -le "$w" ]
}

tui_start --max-tokens 20 --seed 5
type_text "resize me please"
send
check "120x40: sidebar" 'Parameters'
check "120x40: message" 'resize me please'

check "120x40: the new session's notice" '^new session 1: resize me please'

tmx resize-window -x 40 -y 12
check "40x12: status line" '^ DEMO MODEL'
# a resize is no key pressed: the notice stays until one is
check "40x12: the notice stays" '^new session 1: resize'
type_text "x"
keys BSpace
check "40x12: footer" '^F1 help'
check "40x12: input prompt" '^> '
check_not "40x12: sidebar hidden when narrow" 'Parameters'
if frame_ok 40 12; then ok; else fail "40x12: rows wider than the window"; screen; fi
# the separator spans the whole width
if screen | grep -Eq '^─{40}$'; then ok; else fail "40x12: separator not 40 wide"; screen; fi

tmx resize-window -x 15 -y 5
check "15x5: too small notice" '^terminal too'
check "15x5: notice says the size" '15x5'

tmx resize-window -x 20 -y 6
check "20x6: footer back" '^F1 help'
check "20x6: status" '^ DEMO'
check_not "20x6: no too-small notice" 'too small'
if screen | grep -Eq '^─{20}$'; then ok; else fail "20x6: separator"; screen; fi

# a menu at the smallest size
keys F1
check "20x6: help menu fits" 'Help'
if frame_ok 20 6; then ok; else fail "20x6 menu: rows wider than the window"; screen; fi
keys Escape
check_not "20x6: menu closed" 'Help'
# typing still works at the smallest size
type_text "tiny"
check "20x6: input visible" '^> tiny'
keys C-u

tmx resize-window -x 120 -y 40
check "120x40 again: sidebar" 'Parameters'
check "120x40 again: transcript" 'resize me please'
check "120x40 again: full footer" 'F1 help.*F10 quit'
if screen | grep -Eq '^─{120}$'; then ok; else fail "120x40: separator"; screen; fi
# the sidebar border is on every transcript row: 40 - status - sep - input - footer = 36
n=$(screen | grep -c '│')
if [ "$n" -eq 36 ]; then ok; else fail "120x40: sidebar border on $n rows, want 36"; screen; fi

tui_quit
tui_finish
