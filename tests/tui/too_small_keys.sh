#!/usr/bin/env bash
# tests/tui/too_small_keys.sh -- while the terminal is too small to show
# anything but the "too small" line, keys that would act on what is out of
# sight are dropped: a 'y' no longer answers a hidden "delete?" question,
# Enter no longer sends the box's text; quitting still works.
. "$(dirname "$0")/tmuxlib.sh"

W=80 H=24 tui_start --max-tokens 4 --seed 3
type_text "keep this session"
send
keys F2
check "sessions menu" ' Sessions '
keys C-d
check "the delete question" 'delete .*\(y/n\)|delete .*y/n|\(y/n\)'
tmx resize-window -x 15 -y 5
check "15x5: too small" '^terminal too'
keys y
sleep 0.5
tmx resize-window -x 80 -y 24
check "back at 80x24: the question still open" '\(y/n\)|y/n'
keys n
check_not "n: the question goes" 'y/n'
n=$(sqlite3 "$DB" 'select count(*) from sessions' 2>/dev/null)
[ "$n" = 1 ] && ok || fail "the session was deleted by a key pressed while the screen was too small ($n sessions)"
keys Escape
wait_for ' Sessions ' 1 && keys Escape
check_not "menu closed" ' Sessions '

# text typed and Enter while too small: nothing sent, nothing typed
u0=$(sqlite3 "$DB" "select count(*) from turns where role=1" 2>/dev/null)
tmx resize-window -x 15 -y 5
check "too small again" '^terminal too'
type_text "blind"
keys Enter
sleep 0.5
tmx resize-window -x 80 -y 24
check "the box" '^> Type a message'
u=$(sqlite3 "$DB" "select count(*) from turns where role=1" 2>/dev/null)
[ "$u" = "$u0" ] && ok || fail "a message went out while the screen was too small ($u0 -> $u user turns)"

# quitting still works when too small
tmx resize-window -x 15 -y 5
check "too small for the quit" '^terminal too'
tui_quit
tui_finish
