#!/usr/bin/env bash
# tests/tui/greeting_start_fail.sh -- a greeting whose worker thread could
# not be started (here at a model load: a strategy change makes a new
# session, whose greeting is fed on the worker) leaves the client idle with
# an error notice, never "prefilling" for ever; the runtime feeds a greeting
# still pending with the first message, which is answered, the greeting's
# turn saved before it.  gdb makes pthread_create fail once, for the worker
# only (holdlib.sh); without gdb, or where it may not attach, the checks are
# skipped.  The demo model.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=6
hold_gdb $N_CHECKS "a greeting whose worker does not start"
hold_nothread "$TMP/nothread.gdb"

tui_start --max-tokens 6 --seed 3
if ! hold_run "$(tui_pid)" "$TMP/nothread.gdb"; then
    skip $N_CHECKS "gdb could not attach: $(hold_why)"
    tui_quit
    tui_finish
    exit
fi
keys F5 C-s
check "the strategy prompt" 'strategy: cpu'
keys Enter
check "the greeting's worker did not start" 'could not start the worker thread'
hold_wait
[ -e "$TMP/failed" ] && ok || fail "gdb: $(tail -3 "$TMP/gdb.log")"
wait_idle 50 && ok || fail "still busy: $(screen | head -1)"
type_text "hello"
send 100
[ "$(screen | grep -cE '^RWKV +6 tok')" = 1 ] && ok ||
    fail "the message was not answered: $(screen | head -20)"
tui_quit
"$RWKV_TUI" sessions --db "$DB" show 1 | grep -qE "^#[0-9]+ system" && ok ||
    fail "no greeting turn saved: $("$RWKV_TUI" sessions --db "$DB" show 1 | head -5)"
tui_finish
