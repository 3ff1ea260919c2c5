#!/usr/bin/env bash
# tests/tui/fork_live.sh -- F2's fork (C-y) of a session whose reply a
# line chat is still writing in another terminal.  The fork rule
# (sess_fork_point) moves the fork point before that reply's message, and
# F2 says why, in the words `sessions fork` and /fork use
# (sess_fork_live_why): "forked session 1 at turn 3 as session 2 (reply 5
# is still being written in another window: branched before its message
# 4)" -- before, the copy opened without a word, not at the head asked for.
. "$(dirname "$0")/tmuxlib.sh"

if ! python3 -c 'import sqlite3' 2>/dev/null; then
    skip 4 "python3 with sqlite3 not found"
    tui_finish
    exit
fi

# session 1: one exchange (turns 1-3); then line chat A streams a long reply
# (turns 4, 5), its stdin the FIFO fd 3 (kept from the tmux server)
printf 'hi\n' | "$RWKV_TUI" chat --demo --db "$DB" --new live --seed 1 --max-tokens 4 >/dev/null 2>&1
chat_bg --demo --db "$DB" --session 1 --seed 3 --max-tokens 1000000 --stop QQQZZZ
printf 'tell me a long story\n' >&3
poll partial_saved "$DB" || fail "A's reply not saved as it streams: $(cat "$TMP/err")"

# (wide: the whole line in the footer)
W=180 tui_start --max-tokens 3 3>&-
keys F2
check "sessions menu" 'live +[0-9]+ turns'
keys C-y
# (the open's own notes may follow it in the footer: the log has it, wrapped)
wait_for 'session: live \(fork\)' 20 || fail "C-y: the fork not opened"
wait_idle 300
keys M-l
wait_for 'Messages \(newest first\)' 10 || fail "M-l: no log"
# the log's wrapped lines joined (box edges, time stamps and blanks dropped)
log=$(screen | sed 's/[│|]/ /g; s/[0-9][0-9]:[0-9][0-9]:[0-9][0-9]//g' | tr -s ' \n' '  ')
case $log in
*"forked session 1 at turn 3 as session 2 (reply 5 is still being written in another window: branched before its message 4)"*) ok ;;
*) fail "F2 did not say why the fork point moved: $log" ;;
esac
keys Escape
[ "$(sql_rows "$DB" 'select head_turn from sessions where id=2')" = \
  "$(sql_rows "$DB" "select id from turns where session_id=2 and role=2 and text<>''" | tail -1)" ] && ok ||
    fail "session 2's head: $(sql_rows "$DB" 'select id, role, parent_id from turns where session_id=2')"
tui_quit

kill -9 $pid 2>/dev/null
exec 3>&-
wait $pid 2>/dev/null
tui_finish
