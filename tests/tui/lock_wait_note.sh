#!/usr/bin/env bash
# tests/tui/lock_wait_note.sh -- a reply's saves wait for another program's
# write lock on the worker thread (up to STORE_BUSY_MS): the client says so
# once the wait lasts, with its bound, as the line chat does (lock_hook,
# tui/app.c) -- the screen said nothing for the 10 s.  The lock let go,
# the message is in the session after the quit.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 3
type_text "first"
send
hold_lock "$DB" || fail "the lock was not taken"
type_text "second"
keys Enter
check "the wait is said" "waiting up to 10 s for the lock another program holds on" 8
release_lock
wait_idle 300 || fail "the reply did not end"
tui_quit
# (saved by the wait, or, had it run out, by the quit's flush: nothing lost)
n=$("$RWKV_TUI" sessions --db "$DB" show 1 2>/dev/null | grep -c 'second')
[ "$n" -ge 1 ] && ok || fail "the second message was not saved: $("$RWKV_TUI" sessions --db "$DB" show 1 2>&1 | tail -5)"
tui_finish
