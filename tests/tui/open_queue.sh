#!/usr/bin/env bash
# tests/tui/open_queue.sh -- Enter while a session is being opened (F2: its
# replay runs on the worker) queues the message, as Enter while the greeting
# is prepared does: it goes out once the session is open, into that session.
# (Enter said "a reply is still running (Esc cancels it)", though no reply
# ran, and an Esc would have cancelled the open.)  gdb holds the open's
# worker so the keys come while it runs (holdlib.sh); without gdb, or where
# it may not attach, the checks are skipped.  The demo model.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=5
hold_gdb $N_CHECKS "Enter during an open"

printf 'hello there\n' |
    "$RWKV_TUI" chat --demo --db "$DB" --new opened --max-tokens 8 --seed 2 >/dev/null 2>&1 &&
    printf 'good day\n' |
    "$RWKV_TUI" chat --demo --db "$DB" --new second --max-tokens 8 --seed 2 >/dev/null 2>&1 &&
    ok || fail "making the sessions"
turns() { sqlite3 "$DB" "SELECT count(*) FROM turns WHERE session_id = ${1:-1}"; }
N0=$(turns)

tui_start --max-tokens 8
type_text "queued words"
f2_find opened
# the open's worker held; Enter pressed meanwhile (the UI thread runs until
# it has said what it does with the message)
held_or_end $((N_CHECKS - 3)) Enter Enter worker_main tui_notice
check "the session opened, then the message sent in it" 'queued words' 30
wait_idle 100
[ "$(turns)" = $((N0 + 2)) ] && ok || fail "session 1 has $(turns) turns, not $((N0 + 2))"

tui_quit
tui_finish
