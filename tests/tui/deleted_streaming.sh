#!/usr/bin/env bash
# tests/tui/deleted_streaming.sh -- the full-screen client's session
# deleted in another window (`sessions rm`) while its reply streams: the
# reply goes on, and when it ends (Esc here) the conversation is saved as
# a new session, said in ONE line -- "session 1 was deleted elsewhere: this
# conversation goes on as session 2" -- not that line and a "new session
# 2: TITLE" line, nor a failed save of the reply ("saving the reply: ...
# no turn 5 in session 1").  The line chat's twin is
# tests/cli/chat_deleted_one_line.sh.  Real processes on one database, the
# demo model.
. "$(dirname "$0")/tmuxlib.sh"
T=$RWKV_TUI

if ! python3 -c 'import sqlite3' 2>/dev/null; then
    skip 6 "python3 with sqlite3 not found"
    tui_finish
    exit
fi
q() { sql_rows "$DB" "$1"; }

# session 1: greeting 1, message 2, reply 3; the client's long reply is 5
printf 'hi\n' | "$T" chat --demo --db "$DB" --new gone --seed 1 --max-tokens 4 >/dev/null 2>&1
W=160 tui_start --session 1 --seed 3 --max-tokens 1000000 --stop QQQZZZ
type_text "tell me a long story"
keys Enter
poll partial_saved "$DB" || fail "the reply not saved as it streams"
"$T" sessions --db "$DB" rm 1 >/dev/null 2>&1 || fail "sessions rm 1 failed"
keys Escape
# (the footer shows the cut's own notice after it: the log has them all)
wait_for 'reply interrupted' 30 || fail "Esc did not end the reply"
wait_idle 300
keys M-l
# (the log wraps it: "... goes" / "on as session 2")
check "one line says where it goes on" 'session 1 was deleted elsewhere: this conversation goes'
log=$(screen)
[ "$(grep -c 'session 2' <<<"$log")" = 1 ] && grep -q 'on as session 2' <<<"$log" && ok ||
    fail "session 2 named more than once: $(grep 'session 2' <<<"$log")"
grep -Eq 'new session 2|saving the reply' <<<"$log" && fail "more lines: $(grep -E 'new session 2|saving the reply' <<<"$log")" || ok
keys Escape
# the reply went on in session 2: the message and the reply's text so far
[ "$(q "select count(*) from turns where session_id=2 and role=1 and text='tell me a long story'")" = 1 ] &&
[ "$(q "select length(text) > 20 from turns where session_id=2 and role=2 and parent_id=(select id from turns where session_id=2 and text='tell me a long story')")" = 1 ] &&
    ok || fail "session 2: $("$T" sessions --db "$DB" show 2 2>&1 | grep '^#')"
tui_quit
tui_finish
