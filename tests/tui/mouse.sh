#!/usr/bin/env bash
# tests/tui/mouse.sh -- the mouse wheel scrolls the transcript (3 rows a
# step) and moves the selection in a menu.  The wheel is sent as the bytes
# a terminal (or tmux, for a pane that enabled mouse reporting) writes: the
# X10/normal encoding ESC [ M b x y that ncurses reads for TERM=tmux-256color
# and screen (b = 32 + 64 wheel up, 32 + 65 wheel down; x, y = 32 + column/row).
. "$(dirname "$0")/tmuxlib.sh"

wheel_up()   { tmx send-keys -l $'\e[M`**'; sleep 0.15; }
wheel_down() { tmx send-keys -l $'\e[Ma**'; sleep 0.15; }

W=100 H=30 tui_start --max-tokens 3000 --seed 4
type_text "a long one"
keys Enter
wait_idle 300 || fail "reply did not finish"
check_not "at the end" 'more below'
wheel_up
check "wheel up scrolls 3 rows" '── 3 more below \(End\)'
wheel_up
check "again: 6 rows" '── 6 more below \(End\)'
wheel_down
check "wheel down: back 3" '── 3 more below \(End\)'
wheel_down
check_not "wheel down: at the end" 'more below'

# in a menu longer than its box the wheel moves the selection, and the
# list follows it
tmx resize-window -x 100 -y 20
keys F1
check "help open" 'Help: every key'
check_not "last help line below the box" 'Models: C-s +change the strategy'
for i in $(seq 1 30); do wheel_down; done
check "wheel brought the last line into view" 'Models: C-s +change the strategy'
for i in $(seq 1 30); do wheel_up; done
check_not "and back up" 'Models: C-s +change the strategy'
keys Escape
tui_quit
tui_finish
