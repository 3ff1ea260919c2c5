#!/usr/bin/env bash
# tests/tui/worker_start_fail.sh -- a reply whose worker thread could not be
# started ("could not start the generation thread") leaves nothing behind:
# the transcript keeps no message nor empty reply (the runtime recorded
# none) and the text is back in the input box.  It is not left expected:
# an Esc after it -- here of a free generation, which the runtime does not
# expect -- is void for the next message, which is answered (it was cut at
# its first step, "cancelled before the reply started", by an Esc sent
# before it was typed).  gdb makes pthread_create fail once, for the worker
# only (EAGAIN, as when the process is out of threads), and then holds the
# free generation's worker where it begins while the Esc is taken
# (holdlib.sh); without gdb, or where it may not attach, the checks are
# skipped.  The demo model.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=10
hold_gdb $N_CHECKS "a worker thread that does not start"

hold_nothread "$TMP/nothread.gdb"

tui_start --max-tokens 6 --seed 3
if ! hold_run "$(tui_pid)" "$TMP/nothread.gdb"; then
    skip $((N_CHECKS - 1)) "gdb could not attach: $(hold_why)"
    tui_quit
    tui_finish
    exit
fi
type_text "hello"
keys Enter
check "the worker did not start" 'could not start the generation thread'
hold_wait
[ -e "$TMP/failed" ] && ok || fail "gdb: $(tail -3 "$TMP/gdb.log")"
# nothing was sent or saved: the transcript has no such turns, the text is
# back in the input box (and goes out with the next Enter)
check "the message is back" 'your message is back in the input box'
screen | grep -q '^> hello' && ok || fail "the text is not in the input box: $(screen | tail -4)"
screen | grep -qE '^(You|RWKV)( |$)' && fail "turns left in the transcript: $(screen | head -12)" || ok
[ -z "$("$RWKV_TUI" sessions --db "$DB" list 2>/dev/null | grep hello)" ] && ok ||
    fail "saved: $("$RWKV_TUI" sessions --db "$DB" list)"
keys C-u

# Esc of a free generation, before its worker began (it is cut in its prompt)
keys M-g
check "the prompt" 'generate from'
type_text "once"
held Enter Escape || fail "gdb could not attach a second time: $(hold_why)"
check "the free generation cut" 'generation cancelled before it began'

# the next message: answered, not cut by that Esc
type_text "next"
send 100
check_not "the next message was not cut" 'cancelled before the reply started' 1
tui_quit
tui_finish
