#!/usr/bin/env bash
# tests/tui/term_keys.sh -- keys a terminal sends that its TERM does not
# name still act.  tmux sends Home/End as ESC [ 1 ~ / ESC [ 4 ~ whatever
# TERM says (an xterm TERM inside tmux, a common set-up, names ESC O H);
# under TERM=vt100 a modern terminal's F5-F10, Delete and PgUp/PgDn are
# VT220 sequences vt100's terminfo lacks; Ctrl- and Alt-Left/Right are
# readline's word motion.  All of them were dropped: F10 did not quit.
. "$(dirname "$0")/tmuxlib.sh"

# the editing keys: word motion, Home, End, Delete
edit_keys() {
    type_text "alpha beta gamma"
    keys C-Left
    type_text "X"
    keys M-Left M-Left
    type_text "Y"
    keys C-Right
    type_text "Z"
    keys Home
    type_text "H"
    keys End
    type_text "E"
    keys Left DC
    check "$1: word motion, Home, End, Delete" '^> Halpha YbetaZ Xgamma *$'
    keys C-u
}

TUI_ENV="TERM=vt100" tui_start --max-tokens 3000 --seed 4
edit_keys vt100
type_text "a long reply please"
send
keys PPage
check "vt100: PgUp scrolls" 'more below \(End\)'
keys NPage NPage NPage
check_not "vt100: PgDn scrolls back" 'more below \(End\)'
keys F5
check "vt100: F5 opens the models" 'Models'
keys Escape
keys F6
check "vt100: F6 opens the branches" 'Branches'
keys Escape
keys F10
wait_exit 0 && ok || fail "vt100: F10 did not quit"

TUI_ENV="TERM=xterm-256color" tui_start --seed 4
edit_keys xterm-256color
keys F10
wait_exit 0 && ok || fail "xterm-256color: F10 did not quit"
tui_finish
