#!/usr/bin/env bash
# tests/tui/fork_key.sh -- in the sessions menu (F2) C-f does what it does
# everywhere, search (typing already searches the list: it says so and
# creates nothing), and C-y forks the selected session; at 80x24 on
# TERM=screen.
. "$(dirname "$0")/tmuxlib.sh"

TUI_ENV="TERM=screen" W=80 H=24 tui_start --max-tokens 4 --seed 3
type_text "only talk"
send
check "saved" 'new session [0-9]+: only talk'
keys F2
check "sessions menu" ' Sessions '
check "the hint names the fork key" 'C-y fork'
keys C-f
check "C-f says typing searches" 'C-f: type to search this list'
check "the menu stays open" ' Sessions '
check_not "C-f forked nothing" 'only talk \(fork\)'
n=$(screen | grep -Ec 'only talk +[0-9]+ turns')
if [ "$n" = 1 ]; then ok; else fail "C-f: want one session listed, got $n"; screen | sed 's/^/    | /'; fi
# typing after C-f searches, as always
type_text "zzz"
check "typing searches" 'search: zzz'
keys C-u
check "search cleared" 'only talk +[0-9]+ turns'
# C-y forks
keys C-y
check "C-y forked" "resumed 'only talk \(fork\)'"
check "the fork has the transcript" '^  only talk'
keys F2
check "the fork listed" 'only talk \(fork\) +[0-9]+ turns'
n=$(screen | grep -Ec 'only talk( \(fork\))? +[0-9]+ turns')
if [ "$n" = 2 ]; then ok; else fail "after C-y: want two sessions, got $n"; screen | sed 's/^/    | /'; fi
keys Escape
# F1 lists the fork key and no C-f fork
keys F1
type_text "fork it"
check "F1 lists C-y fork" 'Sessions: C-y +fork it as a new session'
keys Escape
tui_quit
tui_finish
