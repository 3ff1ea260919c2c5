#!/usr/bin/env bash
# tests/tui/prune_leaf.sh -- F6 C-d on a leaf (a turn with nothing below)
# asked "delete this turn and 0 below it?"; now "delete this turn?", with
# what happens to the chat when it is on it, in English and in Chinese
# (tui/menu_branches.c).  A turn with turns below still counts them.  The
# line shown while the deletion runs (held there by gdb) counts the same way:
# it said "and the turns below it" for a leaf too.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

tui_start --max-tokens 3 --seed 3
type_text "alpha"
send
keys F6
check "tree menu" 'Branches: the whole tree'
keys C-d                      # the last reply: the chat is on it
check "a leaf on the chat's branch" 'delete this turn\? the chat moves to the turn above \(y/n\)'
check_not "no count of 0" 'and 0 below'
keys n Up C-d                 # alpha: its reply below
check "a turn with one below" 'delete this turn and 1 below\? the chat moves'
keys n Escape
check_not "the tree closed" 'Branches: the whole tree'
sleep 0.5                     # (Esc and then C-r at once would read as one key)
keys C-r                      # a second reply: the first is a side leaf
check "two replies" '^RWKV  < 2/2 >'

wait_idle
keys F6
check "tree again" '├─ RWKV: .*< 1/2 >'
keys Up C-d                   # the first reply
check "a side leaf" 'delete this turn\? \(y/n\)'
check_not "no count of 0 (side)" 'and 0 below'
keys n Escape
tui_quit

# the same in Chinese
TUI_ENV="LANGUAGE=zh_CN" tui_start --max-tokens 3 --seed 3
type_text "alpha"
send
keys F6
check "tree menu (zh)" '分支'
keys C-d
check "a leaf (zh)" '删除这一轮？对话将移到上一轮'
check_not "no count (zh)" '及其下的 0 轮'
keys n Escape
tui_quit

# the line while the deletion runs: held where it begins (store_turn_prune)
hold_gdb 4 "the line shown while a deletion runs"
tui_start --max-tokens 3 --seed 3
type_text "alpha"
send
wait_idle
keys F6
check "tree (held)" 'Branches: the whole tree'
keys C-d
check "leaf asked (held)" 'delete this turn\? the chat moves'
if hold_start "$(tui_pid)" store_turn_prune; then
    keys y
    hold_hit || fail "y: the deletion never began"
    check "a leaf's line while it goes" 'deleting turn [0-9]+\.\.\.'
    check_not "no turns below a leaf" 'and the turns below it'
    hold_end
else
    fail "gdb could not attach: $(hold_why)"
fi
tui_quit
tui_finish
