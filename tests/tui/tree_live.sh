#!/usr/bin/env bash
# tests/tui/tree_live.sh -- F6 opened while a reply is being written (the
# worker owns the runtime then): when the reply ends, the open tree is
# filled again, the new turns marked '*' and the selection on the new head;
# at 80x24 on TERM=screen.  The reply is long (the demo model's 150000
# tokens) so that F6 opens while it streams.
. "$(dirname "$0")/tmuxlib.sh"

TUI_ENV="TERM=screen" W=80 H=24 tui_start --max-tokens 3 --seed 3
type_text "first one"
send
# the second reply long: max-tokens typed in the sidebar
keys Tab Down Down Down Down Down Down Enter C-u
type_text "150000"
keys Enter Tab
check "max-tokens set" 'max-tokens +150000'
type_text "second one"
keys Enter
check "the reply streams" 'generating' 20
keys F6
check "tree menu" 'Branches: the whole tree'
# (seconds in a normal build; minutes under a sanitizer)
wait_idle 9000 || fail "the long reply did not end in 15 minutes"
check "the new message marked" '\* You: +second one'
# the list's rows (F6 keeps no pane under its list: its rows are cuts
# already, tests/tui/tree_rows.sh)
n=$(screen | grep -Ec '\* RWKV: ')
if [ "$n" = 2 ]; then ok; else fail "want both replies marked, got $n"; screen | sed 's/^/    | /'; fi
check_not "no pane under the list" '│─────' 1
check_not "no unmarked turn" '│ +(You|RWKV): '
# the selection followed the head: C-d on it says the chat is on it
keys C-d
check "selection on the new reply" 'delete this turn\? the chat moves to'
keys n
keys Escape
tui_quit
tui_finish
