#!/usr/bin/env bash
# tests/tui/narrow.sh -- at a width where the sidebar is hidden, Tab does not
# move the focus into it: typed keys still reach the input box.
. "$(dirname "$0")/tmuxlib.sh"

W=50 H=16 tui_start --max-tokens 4
keys Tab
check "told why" 'sidebar needs 60 columns'
type_text "abc"
check "keys reach the input box" '> abc'
keys C-u
# a wide terminal: Tab focuses the sidebar; narrowing it gives the focus back
tmx resize-window -x 120 -y 30 2>/dev/null
sleep 0.5
keys Tab
check "sidebar focused" 'Left/Right|edit values|Parameters'
tmx resize-window -x 50 -y 16 2>/dev/null
sleep 0.5
type_text "xyz"
check "focus back in the input box" '> xyz'
tui_quit
tui_finish
