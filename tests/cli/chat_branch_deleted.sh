#!/usr/bin/env bash
# tests/cli/chat_branch_deleted.sh -- a line chat on a session whose branch
# another window deletes under it (F6's delete in the full-screen client;
# here python3's sqlite3 deletes the rows as store_turn_prune does).  The
# next message, regeneration or continuation has no parent to go under: it
# must not fail "tried again" forever and lose everything at quit, but go
# on as a new session holding the whole conversation from this window's
# copy, said in one line, as a session deleted elsewhere does.  What the
# other window deleted stays deleted in the old session.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/d.db


# wait_out PATTERN: until the chat's stdout has a line matching it
wait_out() { poll grep -qE "$1" "$TMP/out"; }
# shown N: the chat's /show printed more than N times
shown() { [ "$(grep -c max_tokens "$TMP/out")" -gt "$1" ]; }

# a session of two exchanges: 1 greeting, 2 m1, 3 its reply, 4 m2, 5 its reply
setup() {
    rm -f "$D" "$D"-wal "$D"-shm
    printf 'm1\nm2\n' | "$T" chat --demo --db "$D" --new del --max-tokens 4 --seed 1 \
        >/dev/null 2>&1
}

# run NAME DELETE LINE...: a chat on session 1 (max-tokens 4: each reply cut,
# so /continue has something to do); once it is open, turn DELETE (and what
# is under it) is deleted elsewhere; then the LINEs are sent one by one
run() {
    local name=$1 del=$2 i=0 line
    shift 2
    setup
    chat_bg --demo --db "$D" --session 1 --max-tokens 4 --seed 2
    printf '/show\n' >&3
    wait_out 'max_tokens' || fail "$name: the chat did not open: $(cat "$TMP/err")"
    delete_turn "$D" "$del"
    for line in "$@"; do
        i=$((i + 1))
        printf '%s\n/show\n' "$line" >&3
        poll shown "$i" ||
            fail "$name: no answer to '$line': $(cat "$TMP/err")"
    done
    exec 3>&-
    wait $pid
}

NOTE='^rwkv-tui: turn [0-9]+ of session 1 was deleted elsewhere: this conversation goes on as session 2$'

# a message after the branch's end was deleted (the repro: turn 4 and 5)
run message 4 'after delete' 'second try'
rc=$?
[ $rc = 0 ] && ok || fail "message: exit $rc: $(cat "$TMP/err")"
grep -q 'not saved\|tried again\|is not in session' "$TMP/err" &&
    fail "message: a save failed: $(cat "$TMP/err")" || ok
[ "$(grep -cE "$NOTE" "$TMP/err")" = 1 ] && ok || fail "message: one note: $(cat "$TMP/err")"
out=$("$T" sessions --db "$D" show 2)
case $out in
*"m1"*"m2"*"after delete"*"second try"*) ok ;;
*) fail "message: session 2 lacks the conversation: $out" ;;
esac
out=$("$T" sessions --db "$D" show 1)
case $out in
*"m2"*) fail "message: the deleted turns came back in session 1: $out" ;;
*"#3 assistant"*) ok ;;
*) fail "message: session 1: $out" ;;
esac

# a regeneration whose message was deleted (its reply goes under turn 4)
run regen 4 /regen 'after regen'
rc=$?
[ $rc = 0 ] && ok || fail "regen: exit $rc: $(cat "$TMP/err")"
[ "$(grep -cE "$NOTE" "$TMP/err")" = 1 ] && ok || fail "regen: one note: $(cat "$TMP/err")"
out=$("$T" sessions --db "$D" show 2)
case $out in
*"m1"*"m2"*"after regen"*) ok ;;
*) fail "regen: session 2: $out" ;;
esac

# a continuation of a reply that was deleted (turn 5 alone)
run continue 5 /continue 'after continue'
rc=$?
[ $rc = 0 ] && ok || fail "continue: exit $rc: $(cat "$TMP/err")"
[ "$(grep -cE "$NOTE" "$TMP/err")" = 1 ] && ok || fail "continue: one note: $(cat "$TMP/err")"
out=$("$T" sessions --db "$D" show 2)
case $out in
*"m1"*"m2"*"after continue"*) ok ;;
*) fail "continue: session 2: $out" ;;
esac
finish
