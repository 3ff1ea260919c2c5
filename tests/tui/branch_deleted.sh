#!/usr/bin/env bash
# tests/tui/branch_deleted.sh -- the full-screen client on a session whose
# branch another window deletes under it (F6's delete there; here
# python3's sqlite3 deletes the rows as store_turn_prune does).  The next
# message has no parent to go under: it goes on as a new session holding
# the whole conversation, said in one line -- not "tried again" forever with
# F10's retry failing and only an export keeping it.  And the session's own
# sampling values: a sidebar change with no reply after it is kept at F10.
. "$(dirname "$0")/tmuxlib.sh"
T=$RWKV_TUI

if ! command -v python3 >/dev/null 2>&1; then
    skip 8 "python3 not found"
    finish
    exit
fi


# 1 greeting, 2 m1, 3 its reply, 4 m2, 5 its reply
printf 'm1\nm2\n' | "$T" chat --demo --db "$DB" --new del --max-tokens 4 --seed 1 >/dev/null 2>&1
tui_start --session 1 --max-tokens 4 --seed 2
check "session 1 open" 'm2'
delete_turn "$DB" 4
type_text "from client after delete"
send
check "said: a new session" 'turn 5 of session 1 was deleted elsewhere: this conversation goes on as session 2'
check_not "no failed save" 'saving your message'
tui_quit
out=$("$T" sessions --db "$DB" show 2)
case $out in
*m1*m2*"from client after delete"*) ok ;;
*) fail "session 2: $out" ;;
esac

# a sidebar value changed, no reply after it, F10: kept
tui_start --session 1
keys Tab Right
check "temperature stepped up" 'temperature +1\.1'
keys Tab
tui_quit
out=$(printf '/show\n' | "$T" chat --demo --db "$DB" --session 1 2>/dev/null)
printf '%s\n' "$out" | grep -Eq '^ +temperature +1\.1 ' && ok || fail "temperature not kept: $out"
tui_finish
