#!/usr/bin/env bash
# tests/tui/alts_count_int.sh -- M-R's count is an integer written as every
# integer is (params_int_check: digits alone, blanks around allowed as in
# the sidebar's prompt): "+2" was read by strtol as 2 and made two
# alternatives; now it is refused in one line, the prompt kept open, and
# nothing made.  " 2 " and "2" still make two.
. "$(dirname "$0")/tmuxlib.sh"
user_turns() { sqlite3 "$DB" "select count(*) from turns where role=1"; }
replies() { sqlite3 "$DB" "select count(*) from turns where role=2"; }

tui_start --max-tokens 4 --seed 3
type_text "first words"
send
[ "$(replies)" = 1 ] && ok || fail "one reply after the first message: $(replies)"
for v in "+2" "2." "1e1" "0x2"; do
    keys M-R
    check "M-R asks ($v)" 'alternatives \(1-16\): 3'
    keys C-u
    type_text "$v"
    keys Enter
    check "'$v' refused" "alternatives: '$(printf '%s' "$v" | sed 's/[.+]/\\&/g')' is not a number from 1 to 16"
    keys Escape
    check_not "Esc: the prompt goes" 'alternatives \(1-16\)'
done
sleep 0.5
[ "$(replies)" = 1 ] && ok || fail "a refused count made replies: $(replies)"
keys M-R C-u
type_text " 2 "
keys Enter
check "' 2 ' makes two" '2 alternatives made, each a branch' 60
wait_idle
[ "$(replies)" = 3 ] && ok || fail "two alternatives: $(replies) replies"
[ "$(user_turns)" = 1 ] && ok || fail "a count was sent as a message: $(user_turns) user turns"
tui_quit
tui_finish
