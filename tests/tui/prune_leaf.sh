#!/usr/bin/env bash
# tests/tui/prune_leaf.sh -- F6 C-d on a leaf (a turn with nothing below)
# asked "delete this turn and 0 below it?"; now "delete this turn?", with
# what happens to the chat when it is on it, in English and in Chinese
# (tui/menu_branches.c).  A turn with turns below still counts them.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 3 --seed 3
type_text "alpha"
send
keys F6
check "tree menu" 'Branches: the whole tree'
keys C-d                      # the last reply: the chat is on it
check "a leaf on the chat's branch" 'delete this turn\? you are on it: the chat moves to the turn above \(y/n\)'
check_not "no count of 0" 'and 0 below it'
keys n Up C-d                 # alpha: its reply below
check "a turn with one below" 'delete this turn and 1 below it\? you are on it'
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
check_not "no count of 0 (side)" 'and 0 below it'
keys n Escape
tui_quit

# the same in Chinese
TUI_ENV="LANGUAGE=zh_CN" tui_start --max-tokens 3 --seed 3
type_text "alpha"
send
keys F6
check "tree menu (zh)" '分支'
keys C-d
check "a leaf (zh)" '删除这一轮？你正在此分支上'
check_not "no count (zh)" '及其下的 0 轮'
keys n Escape
tui_quit
tui_finish
