#!/usr/bin/env bash
# tests/tui/mouse.sh -- the mouse wheel scrolls the transcript (3 rows a
# step) and moves the selection in a menu; a click selects a menu row and a
# click on the selected row acts (as Enter), a click outside closes it; a click on a sidebar parameter
# selects it (the sidebar takes the keys), a second click asks for a value,
# a click elsewhere gives the keys back to the input box.  The wheel is sent as the bytes
# a terminal (or tmux, for a pane that enabled mouse reporting) writes: the
# X10/normal encoding ESC [ M b x y that ncurses reads for TERM=tmux-256color
# and screen (b = 32 + 64 wheel up, 32 + 65 wheel down; x, y = 32 + column/row).
. "$(dirname "$0")/tmuxlib.sh"

wheel_up()   { tmx send-keys -l $'\e[M`**'; sleep 0.15; }
# click COL ROW (0-based cells): button 1 pressed (b = 32) and released (35)
chr() { printf "\\x$(printf %x "$1")"; }
click() {
    local x y
    x=$(chr $(($1 + 33))) y=$(chr $(($2 + 33)))
    tmx send-keys -l "$(printf '\e[M %b%b\e[M#%b%b' "$x" "$y" "$x" "$y")"
    sleep 0.15
}
# the screen row (0-based) of the first line matching PATTERN
row_of() { screen | grep -n -m1 -E -- "$1" | cut -d: -f1 | awk '{print $1 - 1}'; }
wheel_down() { tmx send-keys -l $'\e[Ma**'; sleep 0.15; }

W=100 H=30 tui_start --max-tokens 3000 --seed 4
type_text "a long one"
send 300 || fail "reply did not finish"
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
tui_resize 100 20
keys F1
check "help open" 'Help: every key'
check_not "last help line below the box" 'Models: C-s +change the strategy'
for i in $(seq 1 30); do wheel_down; done
check "wheel brought the last line into view" 'Models: C-s +change the strategy'
for i in $(seq 1 30); do wheel_up; done
check_not "and back up" 'Models: C-s +change the strategy'
keys Escape
tui_quit

# clicks in a menu: two sessions, the open one selected
W=100 H=30 tui_start --max-tokens 4 --seed 4
type_text "first talk"
send
keys C-n
type_text "second talk"
send
keys F2
check "sessions" 'first talk +[0-9]+ turns'
r=$(row_of 'first talk +[0-9]+ turns')
click 30 "$r"
check "one click selects: the menu stays" 'first talk +[0-9]+ turns'
check "nothing resumed yet" 'session: second'
click 30 "$r"
check "a click on the selected row resumes it" "resumed 'first talk'"
check "its transcript" '^  first talk'
check_not "the menu closed" 'C-y fork'
# a click outside a menu's box closes it (as Esc)
keys F2
check "sessions again" 'first talk +[0-9]+ turns'
click 1 1
check_not "a click outside closed the menu" 'second talk +[0-9]+ turns'

# clicks on the sidebar
r=$(row_of '^.*│ top-p ')
[ -n "$r" ] && ok || fail "no top-p row in the sidebar"
click 80 "$r"
check "a click focuses the sidebar" 'Enter  type a value'
check "top-p selected: its help" 'nucleus|probability'
click 80 "$r"
check "a click on the selected parameter asks a value" 'top-p \[0\.\.1\]: '
keys Escape
check_not "prompt closed" 'top-p \[0\.\.1\]: '
click 10 3
check "a click elsewhere: the input box has the keys" 'Tab: edit values'
tui_quit
tui_finish
