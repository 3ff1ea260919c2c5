#!/usr/bin/env bash
# tests/tui/narrow.sh -- at a width where the sidebar is hidden, Tab does not
# move the focus into it: typed keys still reach the input box.  Where it is
# shown and focused, typing (not its own keys) goes to the input box too.
. "$(dirname "$0")/tmuxlib.sh"

W=50 H=16 tui_start --max-tokens 4
keys Tab
check "told why" 'sidebar needs 60 columns'
type_text "abc"
check "keys reach the input box" '> abc'
keys C-u
# a wide terminal: Tab focuses the sidebar; narrowing it gives the focus back
tui_resize 120 30
keys Tab
check "sidebar focused" 'Left/Right|edit values|Parameters'
tui_resize 50 16
type_text "xyz"
check "focus back in the input box" '> xyz'
keys C-u
# typing in the focused sidebar (a stray Tab) goes to the message box, with
# the focus; letters change no value (h/l once stepped temperature)
tui_resize 120 30
keys Tab
check "sidebar focused again" 'Enter +type a value'
type_text "hello, jkl ok"
check "typed into the message box" '> hello, jkl ok'
check "temperature unchanged" 'temperature +1 *$'
check "top-p unchanged" 'top-p +0\.3 *$'
check_not "the focus left the sidebar" 'Enter +type a value'
# the sidebar's own keys still act there: a digit starts a value
keys C-u Tab
type_text "7"
check "a digit in the sidebar opens the value prompt" 'temperature \[0\.\.[0-9.]+\]: 7'
keys Escape
check_not "prompt closed" 'temperature \['
tui_resize 50 16
tui_quit
tui_finish
