#!/usr/bin/env bash
# tests/tui/live_reply.sh -- the full-screen client opening a session
# (--session 1) whose reply a line chat is still writing in another
# terminal: the client says so in one line and goes on from the turn before
# that reply's message, a new branch beside it -- not under the reply, whose
# row holds only part of its text until the line chat ends it.
. "$(dirname "$0")/tmuxlib.sh"

if ! python3 -c 'import sqlite3' 2>/dev/null; then
    skip 5 "python3 with sqlite3 not found"
    tui_finish
    exit
fi

# q SQL: the rows of $DB
q() { sql_rows "$DB" "$1"; }

# session 1: one exchange (turns 1-3); then line chat A streams a long reply
# (turns 4, 5), its stdin the FIFO fd 3 (kept from the tmux server)
printf 'hi\n' | "$RWKV_TUI" chat --demo --db "$DB" --new live --seed 1 --max-tokens 4 >/dev/null 2>&1
chat_bg --demo --db "$DB" --session 1 --seed 3 --max-tokens 1000000 --stop QQQZZZ
printf 'tell me a long story\n' >&3
poll partial_saved "$DB" && ok || fail "A's reply not saved as it streams: $(cat "$TMP/err")"

tui_start --session 1 --max-tokens 3 3>&-
check "the client is told" "session 1: a reply is still being written in another window; this window goes on from turn 3" 20
type_text "hello from the client"
send 300 3>&-
[ "$(q "select parent_id from turns where text='hello from the client'")" = 3 ] && ok ||
    fail "the client's message under: $(q "select id, parent_id from turns where role=1")"
tui_quit

# A's reply cut by Ctrl-C, A leaves: nothing hangs under its reply
reply_ended() { [ -n "$(q 'select turn_id from snapshots where turn_id=5')" ]; }
kill -INT $pid
poll reply_ended || fail "A's reply did not end: $(cat "$TMP/err")"
exec 3>&-
wait $pid
[ "$(q 'select count(*) from turns where parent_id=5')" = 0 ] && ok || fail "turns under A's reply"
tui_finish
