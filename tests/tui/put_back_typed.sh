#!/usr/bin/env bash
# tests/tui/put_back_typed.sh -- a message whose reply could not start goes
# back to the input box as it was typed: its blank line and the blanks at
# its start still there.  It came back as the transcript showed it (ends
# stripped, blank lines joined: the chat's framing), so a retry sent other
# text than the user's and an edit started from it.  gdb makes the worker's
# pthread_create fail once (holdlib.sh hold_nothread, as
# worker_start_fail.sh); without gdb, or where it may not attach, the
# checks are skipped.  The demo model.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=4
hold_gdb $N_CHECKS "a message put back after its reply could not start"

hold_nothread "$TMP/nothread.gdb"
tui_start --max-tokens 4 --seed 3
if ! hold_run "$(tui_pid)" "$TMP/nothread.gdb"; then
    skip $((N_CHECKS - 1)) "gdb could not attach: $(hold_why)"
    tui_quit
    tui_finish
    exit
fi
tmx set-buffer "$(printf '   first\n\nsecond')"
tmx paste-buffer -p
check "pasted" '^  second'
keys Enter
check "the worker did not start; the message is back" 'your message is back in the input box'
hold_wait
# as typed: "   first", a blank line, "second" (it came back "first", "second")
screen | grep -A2 '^>    first *$' | sed -n 2,3p | tr -d ' ' | tr '\n' '|' | grep -qx '|second|' && ok ||
    fail "not as typed: $(screen | grep -A3 '^> ' | tr '\n' '|')"
tui_quit
tui_finish
