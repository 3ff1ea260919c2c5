#!/usr/bin/env bash
# tests/tui/shift_scroll.sh -- Shift-Up/Down scroll the transcript one line
# (F1, README) on every terminal type.  tmux (and GNU screen, passing on an
# xterm's keys) send xterm's ESC[1;2A / ESC[1;2B for them; where the
# terminfo names them (xterm-256color, tmux-256color: kri/kind) curses
# gives KEY_SR/KEY_SF, but TERM=screen's has no kri/kind -- tmux's old
# default-terminal, still common -- so the sequence came as an unknown CSI
# and was dropped: the keys did nothing.  Now the client reads the two
# sequences itself.  A session of 20 exchanges, resumed at 80x24.
. "$(dirname "$0")/tmuxlib.sh"

for i in $(seq 20); do echo "line $i"; done |
    "$RWKV_TUI" chat --demo --db "$DB" --max-tokens 8 --seed 1 >/dev/null 2>&1
for term in screen xterm-256color; do
    TUI_ENV="TERM=$term" W=80 H=24 tui_start --resume
    check "$term: resumed at the end" 'line 20'
    check_not "$term: nothing below" 'more below'
    keys S-Up
    check "$term: Shift-Up scrolls one line" ' 1 more below \(End\)' 5
    keys S-Up
    check "$term: again, two" ' 2 more below \(End\)' 5
    keys S-Down
    check "$term: Shift-Down back one" ' 1 more below \(End\)' 5
    screen | grep -q '^> .*1;2' && fail "$term: the sequence was typed into the box" || ok
    tui_quit
done
tui_finish
