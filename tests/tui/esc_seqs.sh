#!/usr/bin/env bash
# tests/tui/esc_seqs.sh -- an escape sequence the terminfo does not name
# never leaves characters in the input box: an unknown SS3 key (ESC O 5 Q), a
# terminal's OSC colour reply and DCS reply, an X10 mouse report, an
# unknown CSI -- each read whole and dropped, under TERM=screen and
# TERM=xterm-256color.  Alt-keys (ESC and a key typed later) and a lone Esc
# still act.  Under TERM=linux (whose F1-F4 are ESC [ [ A..D) inside tmux,
# which sends them as ESC O P..S, F1-F4 open their menus instead of typing
# P, Q, R, S.  The bytes go raw (send-keys -H), as a terminal writes them.
. "$(dirname "$0")/tmuxlib.sh"

raw() { tmx send-keys -H $(printf "$1" | od -An -tx1); }

for term in screen xterm-256color; do
    TUI_ENV="TERM=$term" W=80 H=24 tui_start --max-tokens 2 --seed 5
    type_text "abc"
    raw '\033O5Q'
    raw '\033]11;rgb:0/0/0\033\\'
    raw '\033]10;rgb:ffff/ffff/ffff\007'
    raw '\033P1$r0m\033\\'
    raw '\033[M !!'
    raw '\033[99;5x'
    type_text "def ghi"
    check "$term: the sequences left nothing in the box" '^> abcdef ghi *$'
    keys M-b                       # Alt-b: to the start of the word
    type_text "X"
    check "$term: Alt-b still moves by word" '^> abcdef Xghi *$'
    keys F1
    check "$term: F1 opens help" 'Help: every key'
    keys Escape
    check_not "$term: a lone Esc still closes it" 'Help: every key'
    tui_quit
done

# TERM=linux: tmux sends F1-F4 as ESC O P..S, which that terminfo lacks
TUI_ENV="TERM=linux" W=80 H=24 tui_start --max-tokens 2 --seed 5
for fk in "F1 Help: every key" "F2 Sessions" "F3 State files" "F4 Presets"; do
    key=${fk%% *} title=${fk#* }
    keys "$key"
    check "linux: $key opens its menu" "$title"
    keys Escape
    check_not "linux: $key's menu closed" "$title"
done
type_text "end"
check "linux: no P, Q, R or S typed" '^> end *$'
tui_quit
tui_finish
