#!/usr/bin/env bash
# tests/tui/tree_open.sh -- F6 pressed while a session opens (the replay of
# --session N): it says the session is being opened (before: "nothing saved
# yet", the start's empty chat) and shows that session's tree once it is open
# (before: it stayed "(empty)" until closed and opened again).
. "$(dirname "$0")/tmuxlib.sh"

q() { sqlite3 "$1" "$2" 2>/dev/null; }

# a saved session whose states after the greeting are gone: opening it
# replays a 360,000-token message (seconds on any machine)
python3 -c "print(' '.join(['apple'] * 60000))" >"$TMP/long.txt"
printf 'short one\n' >>"$TMP/long.txt"
"$RWKV_TUI" chat --demo --db "$DB" --new tree-open --max-tokens 2 <"$TMP/long.txt" \
    >/dev/null 2>"$TMP/chat.err" && ok || fail "chat: $(cat "$TMP/chat.err")"
q "$DB" "delete from snapshots where turn_id in (select id from turns where role != 0)"
[ "$(q "$DB" 'select count(*) from snapshots')" = 1 ] && ok || fail "states left after the greeting's"

NOWAIT=1 tui_start --session 1
check "the replay runs" 'replaying' 60
keys F6
check "F6 says the session is being opened" 'a session is being opened: its tree comes when it is open'
check_not "not: nothing saved" 'nothing saved yet'
# once open (the replay ended: seconds here, minutes under the sanitizers),
# the menu, still up, holds the session's tree, the head selected
wait_idle 6000 || fail "the replay did not end"
check "the tree once open" '\* You:  short one'
check "its reply, marked" '\* RWKV: ' 10
check_not "no (empty) menu" '\(empty\)'
keys Escape
tui_quit
tui_finish
