#!/usr/bin/env bash
# tests/cli/chat_live_reply.sh -- a reply still being written in another
# window is not taken as cut.  Line chat A streams a long reply; line chat B
# resumes the session meanwhile (`chat --session 1`).  B says so in one line
# and goes on from the turn before A's message, a new branch beside it: its
# turns never hang under A's reply, whose row holds only part of its text
# until A ends it -- so the tree and the saved states agree afterwards (B's
# states, rebuilt by replay from the stored tokens, are the ones B saved).
# The same for a writer stopped by Ctrl-Z (alive, however long it has not
# saved).  A writer killed with kill -9 is dead at once: its reply is resumed
# as cut, as before (its partial text kept, its state rebuilt by replay).
# Real processes on one database file, the demo model, python3's sqlite3 to
# read the rows.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
N_CHECKS=14
NOTE='^session 1: a reply is still being written in another window; this window goes on from turn 3 \(a new branch beside it\)$'

if ! python3 -c 'import sqlite3' 2>/dev/null; then
    skip $N_CHECKS "python3 with sqlite3 not found"
    finish
    exit
fi

q() { sql_rows "$@"; }


# writer DB: session 1 with one exchange (turns 1-3), then chat A on it
# streaming a long reply (turns 4 and 5) in the background, its stdin the
# FIFO fd 3; returns once part of the reply is saved
writer() {
    printf 'hi\n' | "$T" chat --demo --db "$1" --new live --seed 1 --max-tokens 4 >/dev/null 2>&1
    chat_bg --demo --db "$1" --session 1 --seed 3 --max-tokens 1000000 --stop QQQZZZ
    printf 'tell me a long story\n' >&3
    poll partial_saved "$1"
}

# end_writer DB: A's reply cut by Ctrl-C (its row completed, with its state),
# then A leaves
reply_ended() { [ -n "$(q "$1" 'select turn_id from snapshots where turn_id=5')" ]; }
end_writer() {
    kill -INT $pid
    poll reply_ended "$1" || fail "A's reply did not end: $(cat "$TMP/err")"
    exec 3>&-
    wait $pid
}

# --- 1. A writes while B resumes, writes, and leaves --------------------------
D=$TMP/a.db
writer "$D" && ok || fail "A's reply not saved as it streams: $(cat "$TMP/err")"
printf 'hello from b\n' |
    "$T" chat --demo --db "$D" --session 1 --seed 2 --max-tokens 4 >"$TMP/b.out" 2>"$TMP/b.err"
grep -qE "$NOTE" "$TMP/b.err" && ok || fail "B not told: $(cat "$TMP/b.err")"
end_writer "$D"
# B's message is beside A's (under turn 3), not under A's reply (turn 5)
[ "$(q "$D" "select parent_id from turns where text='hello from b'")" = 3 ] && ok ||
    fail "B's message under: $(q "$D" "select id, parent_id from turns where text='hello from b'")"
# A's reply is whole, one row, its state saved; nothing under it
[ "$(q "$D" 'select count(*) from turns where parent_id=5')" = 0 ] && ok || fail "turns under A's reply"
out=$("$T" sessions --db "$D" show 1)
case $out in *"#4 user [state]:"*"tell me a long story"*"#5 assistant [state] [interrupted]:"*) ok ;;
    *) fail "A's branch: $(printf '%s' "$out" | cut -c1-300)" ;; esac
# the states agree with the tree: B's reply's state, rebuilt by replay from
# the stored tokens (the saved states of B's turns deleted, the head on B's
# reply), is the one B saved
rb=$(q "$D" "select id from turns where parent_id=(select id from turns where text='hello from b')")
saved=$("$T" sessions --db "$D" state 1 "$rb" --json 2>&1)
q "$D" "delete from snapshots where turn_id in ($rb, (select parent_id from turns where id=$rb))" >/dev/null
q "$D" "update sessions set head_turn=$rb where id=1" >/dev/null
"$T" chat --demo --db "$D" --session 1 </dev/null >/dev/null 2>"$TMP/r.err"
grep -q "no saved state for turn $rb: replayed" "$TMP/r.err" && ok ||
    fail "no replay of B's branch: $(cat "$TMP/r.err")"
rebuilt=$("$T" sessions --db "$D" state 1 "$rb" --json 2>&1)
[ -n "$saved" ] && [ "$saved" = "$rebuilt" ] && ok ||
    fail "B's saved state differs from its replay: $(printf '%s' "$saved" | cut -c1-120) / $(printf '%s' "$rebuilt" | cut -c1-120)"

# --- 2. A stopped by Ctrl-Z is alive: the same ---------------------------------
D=$TMP/z.db
writer "$D" && ok || fail "A's reply not saved as it streams: $(cat "$TMP/err")"
kill -STOP $pid
printf 'hello from b\n' |
    "$T" chat --demo --db "$D" --session 1 --seed 2 --max-tokens 4 >"$TMP/b.out" 2>"$TMP/b.err"
grep -qE "$NOTE" "$TMP/b.err" && ok || fail "B not told (A stopped): $(cat "$TMP/b.err")"
kill -CONT $pid
end_writer "$D"
[ "$(q "$D" "select parent_id from turns where text='hello from b'")" = 3 ] && ok ||
    fail "B's message under (A stopped): $(q "$D" "select id, parent_id from turns where text='hello from b'")"

# --- 3. A killed with kill -9: its reply is resumed as cut, as before ----------
D=$TMP/k.db
writer "$D" && ok || fail "A's reply not saved as it streams: $(cat "$TMP/err")"
kill -9 $pid
wait $pid 2>/dev/null
exec 3>&-
printf 'hello from b\n' |
    "$T" chat --demo --db "$D" --session 1 --seed 2 --max-tokens 4 >"$TMP/b.out" 2>"$TMP/b.err"
grep -q "still being written" "$TMP/b.err" && fail "a dead writer taken as alive: $(cat "$TMP/b.err")" || ok
grep -q "no saved state for turn 5: replayed" "$TMP/b.err" && ok ||
    fail "the cut reply was not resumed: $(cat "$TMP/b.err")"
[ "$(q "$D" "select parent_id from turns where text='hello from b'")" = 5 ] && ok ||
    fail "B's message not under the cut reply: $(q "$D" "select id, parent_id from turns where text='hello from b'")"
finish
