#!/usr/bin/env bash
# tests/tui/queued_cancel.sh -- a message sent while the greeting is still
# being fed waits for it ("your message goes out next"); typed on after it
# and then cut by Esc before its reply began, the message comes back into
# the input box above what was typed since -- neither is lost (the box held
# only the newer text before, while the notice said the message was back).
# gdb holds the greeting's worker (at a model load: a strategy change makes a
# new session whose greeting is fed on the worker) while the client alone
# takes the keys (holdlib.sh); without gdb, or where it may not attach, the
# checks are skipped.  The demo model.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=5
hold_gdb $N_CHECKS "a message queued behind the greeting, then cut"

tui_start --max-tokens 6 --seed 3
keys F5 C-s
check "the strategy prompt" 'strategy: cpu'
# Enter loads the model and starts the greeting's worker, held at its start;
# the client alone takes the message, Enter (queued), more text and Esc,
# apart (a burst of keys would be taken as a paste, its Enter a new line)
if ! hold_start "$(tui_pid)" worker_main sess_cancel tui_notice; then
    skip $((N_CHECKS - 1)) "gdb could not attach: $(hold_why)"
    tui_quit
    tui_finish
    exit
fi
keys Enter
hold_hit || fail "the greeting's worker never began"
type_text "first"
sleep 0.5
keys Enter
sleep 0.5
type_text "second"
sleep 0.5
keys Escape
hold_end
check "the message cut before its reply" 'your message is back in the input box'
wait_idle 50 && ok || fail "still busy: $(screen | head -1)"
box=$(screen | grep -E '^> |^  second' | tr -d '\n')
case "$box" in
*first*second*) ok ;;
*) fail "the input box lost a message: '$box' ($(screen | tail -5))" ;;
esac
[ "$(screen | grep -cE '^RWKV +[0-9]+ tok')" = 0 ] && ok ||
    fail "a reply was made: $(screen | head -20)"
tui_quit
tui_finish
