#!/usr/bin/env bash
# tests/cli/chat_deleted_streaming.sh -- a session deleted in another window
# (`sessions rm`) while its reply streams.  The partial reply's next save
# finds its row gone: that is no failed save (no "saving the partial reply:
# ... no reply in progress" line, which also promised a retry that could
# never work); the reply's end saves the conversation as a new session and
# says why, in the one line README promises.  Real processes on one database,
# the demo model, python3's sqlite3 to read the rows.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
N_CHECKS=5

if ! python3 -c 'import sqlite3' 2>/dev/null; then
    skip $N_CHECKS "python3 with sqlite3 not found"
    finish
    exit
fi
q() { sql_rows "$@"; }
# the deleted reply's streaming went on for a few more progress saves
more_streamed() { [ "$(wc -c <"$TMP/out")" -gt "$1" ]; }

D=$TMP/d.db
printf 'hi\n' | "$T" chat --demo --db "$D" --new gone --seed 1 --max-tokens 4 >/dev/null 2>&1
chat_bg --demo --db "$D" --session 1 --seed 3 --max-tokens 1000000 --stop QQQZZZ
printf 'tell me a long story\n' >&3
poll partial_saved "$D" && ok || fail "the reply not saved as it streams: $(cat "$TMP/err")"
"$T" sessions --db "$D" rm 1 >/dev/null 2>&1 || fail "sessions rm 1"
# at least two more seconds of streaming: two progress saves tried
sleep 2.5
kill -INT $pid
printf 'and then?\n' >&3
exec 3>&-
end_cut "$D" 2
rc=$?
[ $rc = 0 ] && ok || fail "chat exited $rc: $(cat "$TMP/err")"
grep -q "saving the partial reply" "$TMP/err" &&
    fail "a deleted reply's row taken as a failed save: $(cat "$TMP/err")" || ok
grep -q "session 1 was deleted elsewhere: this conversation goes on as session 2" "$TMP/err" && ok ||
    fail "not told: $(cat "$TMP/err")"
# session 2 holds the whole conversation: the greeting, 2 exchanges before
# the next message's, and its own
n=$(q "$D" 'select count(*) from turns where session_id=2')
[ "${n:-0}" -ge 6 ] && ok || fail "session 2 holds $n turns: $("$T" sessions --db "$D" list 2>&1)"
finish
