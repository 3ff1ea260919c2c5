#!/usr/bin/env bash
# tests/cli/chat_deleted_one_line.sh -- a session deleted in another window
# (`sessions rm`) while its reply streams goes on as a new session, said in
# ONE line: "session 1 was deleted elsewhere: this conversation goes on as
# session 2".  Before, the new session's own "new session 2: TITLE" line
# came first, then that one -- two lines for one event, the cause after its
# effect -- after a third, "saving the reply: ... no turn 5 in session 1
# (... tried again with your next message)", when the reply ended: no save
# failed, the reply's end is where the conversation goes on in session 2.
# The same when a turn of the session is deleted (F6's delete in
# another window): one line naming the turn.  Real processes on one
# database, the demo model, python3's sqlite3 for the turn's delete.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
N_CHECKS=6

if ! python3 -c 'import sqlite3' 2>/dev/null; then
    skip $N_CHECKS "python3 with sqlite3 not found"
    finish
    exit
fi

# streamed DB WHAT: session 1 (one exchange), its next reply streaming in
# chat_bg; WHAT deletes meanwhile; the reply cut, one more message, the end
streamed() {
    printf 'hi\n' | "$T" chat --demo --db "$1" --new gone --seed 1 --max-tokens 4 >/dev/null 2>&1
    chat_bg --demo --db "$1" --session 1 --seed 3 --max-tokens 1000000 --stop QQQZZZ
    printf 'tell me a long story\n' >&3
    poll partial_saved "$1" || fail "the reply not saved as it streams: $(cat "$TMP/err")"
    "$2" "$1"
    kill -INT $pid
    printf 'and then?\n' >&3
    exec 3>&-
    end_cut "$1" 2
}
rm_session() { "$T" sessions --db "$1" rm 1 >/dev/null 2>&1; }
rm_turn() { delete_turn "$1" 4; }

# the session deleted
streamed "$TMP/a.db" rm_session
grep -qE '^(rwkv-tui: )?session 1 was deleted elsewhere: this conversation goes on as session 2$' "$TMP/err" && ok ||
    fail "not told: $(cat "$TMP/err")"
grep -q '^new session 2\|saving the reply' "$TMP/err" && fail "more lines: $(cat "$TMP/err")" || ok
[ "$(grep -c 'session 2' "$TMP/err")" = 1 ] && ok || fail "session 2 named more than once: $(cat "$TMP/err")"

# a turn of it deleted (the streaming reply's message, and the reply with it)
streamed "$TMP/b.db" rm_turn
grep -qE '^(rwkv-tui: )?turn 4 of session 1 was deleted elsewhere: this conversation goes on as session 2$' "$TMP/err" &&
    ok || fail "turn: not told: $(cat "$TMP/err")"
grep -q '^new session 2\|saving the reply' "$TMP/err" && fail "turn: more lines: $(cat "$TMP/err")" || ok
[ "$(grep -c 'session 2' "$TMP/err")" = 1 ] && ok || fail "turn: session 2 named more than once: $(cat "$TMP/err")"
finish
