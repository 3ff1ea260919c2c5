#!/usr/bin/env bash
# tests/tui/history_crash.sh -- a message sent is in the input history's
# file at once: a client killed later in the run (kill -9, a crash, a power
# cut) loses none of it, and Up at the next start brings it back.  The file
# was written at quit only: what was sent in a killed run was gone from Up
# (its session kept it).
. "$(dirname "$0")/tmuxlib.sh"

HIST=$XDG_STATE_HOME/rwkv-tui/history
tui_start --max-tokens 5 --seed 3
type_text "sent before the crash"
send
poll grep -q '^s sent before the crash$' "$HIST" && ok ||
    fail "not in the history file after the send: $(cat "$HIST" 2>/dev/null | tail -2)"
type_text "a second one"
send
poll grep -q '^s a second one$' "$HIST" && ok || fail "the second message is not in the file"
pid=$(pgrep -P "$(tmx display -p '#{pane_pid}')" | head -1)
kill -9 "$pid"
poll sh -c "! kill -0 $pid 2>/dev/null" || fail "the client did not die"
n=$(grep -c '^s ' "$HIST")
[ "$n" = 2 ] && ok || fail "the file holds $n sent entries (2 sent): $(cat "$HIST")"
tui_start --max-tokens 5 --seed 3
keys Up
check "Up after the crash: the last message sent" '^> a second one'
keys Up
check "Up again: the one before" '^> sent before the crash'
keys C-u
tui_quit
n=$(grep -c '^s ' "$HIST")
[ "$n" = 2 ] && ok || fail "after the quit: $n sent entries, each once: $(cat "$HIST")"
tui_finish
