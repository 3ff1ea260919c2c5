#!/usr/bin/env bash
# tests/tui/open_queue_cancel.sh -- a message queued while a session is
# being opened (Enter during F2's open, open_queue.sh) and then Esc: the
# message comes back to the input box at once, nothing sent and nothing lost.
# The open itself goes on here (one that replays nothing is not cut: the
# cancel rule, storage/session.h); the message used to go out in it after
# the screen said "cancelling...".  gdb holds the open's worker so both keys come while it runs
# (holdlib.sh); without gdb, or where it may not attach, the checks are
# skipped.  The demo model.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=4
hold_gdb $N_CHECKS "Esc after Enter during an open"

printf 'hello there\n' |
    "$RWKV_TUI" chat --demo --db "$DB" --new opened --max-tokens 8 --seed 2 >/dev/null 2>&1 &&
    ok || fail "making the session"
turns() { sqlite3 "$DB" "SELECT count(*) FROM turns"; }
N0=$(turns)

tui_start --max-tokens 8
type_text "queued words"
f2_find opened
# the open's worker held; Enter (the message queued: the UI thread runs until
# it has said so) then Esc (until it has cancelled and said "cancelling...")
held_or_end $((N_CHECKS - 2)) Enter "Enter Escape" worker_main tui_notice sess_cancel tui_notice
wait_idle 100
check "the message is back in the input box" '^> queued words'
[ "$(turns)" = "$N0" ] && ok || fail "$(turns) turns saved, not $N0: the message was sent"
tui_quit
tui_finish
