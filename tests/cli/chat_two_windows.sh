#!/usr/bin/env bash
# tests/cli/chat_two_windows.sh -- one session open in two line chats at once
# (two terminals): A says hi, B resumes and writes, then A writes again.
# A's message goes under A's last reply, so it starts a branch beside B's
# turns: A is told in one line; nothing is lost (both branches stay in the
# tree).  Then B writes again: on B's branch, beside A's, and B is told so.  Real processes on one
# database file; the messages go through FIFOs so that the order is fixed.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/s.db
NOTE='^session 1 was changed in another window: this message '
FORK="${NOTE}starts a new branch beside it \\(F6 / /history shows both\\)\$"
GOES_ON="${NOTE}goes on this window's branch, beside the other one \\(F6 / /history shows both\\)\$"

# wait_turn ID: until turn ID of the file is a reply saved with its state
# (at most ~60 s, then the checks below fail)
wait_turn() {
    local i
    for i in $(seq 600); do
        "$T" sessions --db "$D" show 1 2>/dev/null | grep -q "^#$1 assistant \\[state\\]" && return 0
        sleep 0.1
    done
    return 1
}

# the line chat prints its notes on stderr: wait until PROCESS's has a line
# matching PATTERN
wait_note() {
    local i
    for i in $(seq 600); do
        grep -qE "$2" "$TMP/$1.err" && return 0
        sleep 0.1
    done
    return 1
}

mkfifo "$TMP/a.in" "$TMP/b.in"
"$T" chat --demo --db "$D" --new two --seed 1 --max-tokens 4 <"$TMP/a.in" >"$TMP/a.out" 2>"$TMP/a.err" &
pa=$!
exec 3>"$TMP/a.in"
printf 'hi from a\n' >&3
wait_turn 3 && ok || fail "A's first reply not saved: $(cat "$TMP/a.err")"

"$T" chat --demo --db "$D" --session 1 --seed 2 --max-tokens 4 <"$TMP/b.in" >"$TMP/b.out" 2>"$TMP/b.err" &
pb=$!
exec 4>"$TMP/b.in"
printf 'hello from b\n' >&4
wait_turn 5 && ok || fail "B's reply not saved: $(cat "$TMP/b.err")"
grep -qE "$NOTE" "$TMP/b.err" && fail "B was told of a change it did not meet: $(cat "$TMP/b.err")" || ok

printf 'again from a\n' >&3
wait_turn 7 && ok || fail "A's second reply not saved: $(cat "$TMP/a.err")"
wait_note a "$FORK" && ok || fail "A not told: $(cat "$TMP/a.err")"

printf 'again from b\n' >&4
wait_turn 9 && ok || fail "B's second reply not saved: $(cat "$TMP/b.err")"
wait_note b "$GOES_ON" && ok || fail "B not told: $(cat "$TMP/b.err")"

exec 3>&- 4>&-
wait $pa && wait $pb && ok || fail "a chat failed: $(cat "$TMP/a.err" "$TMP/b.err")"
[ "$(grep -cE "$NOTE" "$TMP/a.err")" = 1 ] && [ "$(grep -cE "$NOTE" "$TMP/b.err")" = 1 ] && ok ||
    fail "one note each: $(cat "$TMP/a.err" "$TMP/b.err")"
# nothing lost: 8 messages in the tree, A's second message beside B's first
out=$("$T" sessions --db "$D" list)
printf '%s\n' "$out" | grep -Eq '^ +1 .* 8  two$' && ok || fail "list: $out"
out=$("$T" sessions --db "$D" show 1)
case $out in *"#3 assistant"*"[2 branches]"*) ok ;; *) fail "show: $out" ;; esac

# a window alone on the session afterwards: no note
printf 'solo\n' | "$T" chat --demo --db "$D" --session 1 --seed 3 --max-tokens 4 >/dev/null 2>"$TMP/c.err" &&
    ok || fail "third chat: $(cat "$TMP/c.err")"
grep -qE "$NOTE" "$TMP/c.err" && fail "a lone window was told: $(cat "$TMP/c.err")" || ok
finish
