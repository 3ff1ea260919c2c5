#!/usr/bin/env bash
# tests/tui/prefill_kept.sh -- a message is saved when it is sent, not when
# its reply starts: kill -9 or a quit (F10, a hang-up) during a long prefill
# keeps it, with an empty interrupted reply, and --resume shows it; Esc
# during the prefill still takes it back (runtime.sh), in a saved session
# too, leaving the session as it was.
. "$(dirname "$0")/tmuxlib.sh"

q() { sqlite3 "$1" "$2" 2>/dev/null; }
tui_pid() { pgrep -P "$(tmx display-message -p '#{pane_pid}')" | head -1; }

# a 200 kB paste fed one token at a time: seconds of prefill on any machine
head -c 200000 /dev/zero | tr '\0' 'x' >"$TMP/long.txt"
paste_long() {
    tmx load-buffer "$TMP/long.txt"
    tmx paste-buffer -p
    check "pasted" '^[>*](↑| )x{20}'
    keys Enter
    check "prefilling" 'prefilling'
}

# --- kill -9 during the prefill of the first message of a new chat ----------------------
tui_start --chunk 1 --max-tokens 4
paste_long
pid=$(tui_pid)
[ -n "$pid" ] && kill -9 "$pid" && ok || fail "no process to kill"
wait_for 'EXIT=137' 10 && ok || fail "not killed: $(screen | tail -3)"
[ "$(q "$DB" 'select length(text) from turns where role=1')" = 200000 ] && ok \
    || fail "kill -9 in the prefill: the message was lost"
[ "$(q "$DB" 'select interrupted from turns where role=2')" = 1 ] && ok \
    || fail "no interrupted reply row: $(q "$DB" 'select id, role, interrupted from turns')"
# the session opens again with it (the state before the reply is replayed)
tui_start --resume --max-tokens 4
# shown once its 200,000 tokens are replayed, one at a time as first fed
# (--chunk 1): seconds here, minutes under the sanitizers
check "the message is back on screen" '^  x{40}' 600
check "its reply marked interrupted" 'interrupted'
tui_quit

# --- F10 during the prefill of a message in a saved session -------------------------------
tui_start --chunk 1 --max-tokens 4 --db "$TMP/quit.db"
type_text "a short one"
send
paste_long
keys F10
wait_for '^EXIT=0' 30 && ok || fail "F10 in the prefill: no clean exit: $(screen | tail -3)"
[ "$(q "$TMP/quit.db" 'select count(*) from turns where role=1')" = 2 ] && ok \
    || fail "F10 in the prefill: the message was lost"

# --- Esc during the prefill in a saved session: the session is as it was -------------------
tui_start --chunk 1 --max-tokens 4 --db "$TMP/esc.db"
type_text "kept before"
send
head_before=$(q "$TMP/esc.db" 'select head_turn from sessions')
paste_long
keys Escape
check "message back in the input box" 'back in the input box'
wait_idle
[ "$(q "$TMP/esc.db" 'select count(*) from turns')" = 3 ] && ok \
    || fail "Esc in the prefill: rows left: $(q "$TMP/esc.db" 'select id, role from turns')"
[ "$(q "$TMP/esc.db" 'select head_turn from sessions')" = "$head_before" ] && ok \
    || fail "Esc in the prefill: the head moved"
keys C-u
type_text "after the cancel"
send
[ "$(q "$TMP/esc.db" "select count(*) from turns where role=1 and text='after the cancel'")" = 1 ] \
    && ok || fail "no message after the cancel"
tui_quit
tui_finish
