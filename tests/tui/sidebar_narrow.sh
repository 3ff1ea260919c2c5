#!/usr/bin/env bash
# tests/tui/sidebar_narrow.sh -- F7 (the sidebar toggle) below 60 columns,
# where the sidebar is hidden either way, says what it did and why nothing
# changed on the screen; it toggled silently.  The setting still holds when
# the terminal is wide enough.
. "$(dirname "$0")/tmuxlib.sh"

W=50 H=16 tui_start --max-tokens 4
keys F7
check "F7 at 50 columns: off, and why it was not shown" \
    'sidebar off \(hidden below 60 columns anyway\)'
keys F7
check "F7 again: on, shown from 60 columns" 'sidebar on: shown from 60 columns \(now 50\)'
tui_resize 100 24
check "100 columns: the sidebar shows" 'Parameters'
# at 100 columns the toggle is in sight: no notice
keys F7
check_not "F7 at 100 columns: hidden" 'Parameters'
check_not "nothing said where it shows" 'sidebar (on|off)'
tui_resize 50 16
keys F7
check "F7 at 50 columns again: on" 'sidebar on: shown from 60 columns \(now 50\)'
tui_resize 100 24
check "back at 100 columns: shown" 'Parameters'
tui_resize 50 16     # (the size it started at, for the quit's line)
tui_quit
tui_finish
