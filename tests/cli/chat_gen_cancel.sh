#!/usr/bin/env bash
# tests/cli/chat_gen_cancel.sh -- the line chat: a +gen cut by Ctrl-C while
# its prompt is fed made nothing, so nothing is there to go on from: it says
# "(generation cancelled before it began)", as the full-screen client does,
# not "+++ continues it" (+++ then says there is nothing to continue); the
# next +gen runs whole, and +++ goes on from that one.
#
# gdb makes the instant (holdlib.sh): the chat is stopped on entering
# fgen_start_text (the line read, Ctrl-C routed to the generation), SIGINT is
# sent, and it goes on.  Without gdb, or where it may not attach, the checks
# are skipped.  The demo model, stdin a FIFO.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=7
hold_gdb $N_CHECKS "the Ctrl-C in a +gen prompt"

chat_bg --demo --max-tokens 6 --seed 3
said() { grep -c "$1" "$TMP/err"; }
printf '/show\n' >&3
poll grep -q 'seed' "$TMP/out" || fail "the chat did not start: $(cat "$TMP/err")"
hold_int fgen_start_text '+gen once upon a time' $N_CHECKS
poll grep -q 'generation cancelled before it began' "$TMP/err" && ok ||
    fail "a +gen cut in its prompt: $(cat "$TMP/err")"
[ "$(said 'continues it')" = 0 ] && ok || fail "it said +++ continues it: $(cat "$TMP/err")"
printf '+++\n' >&3
poll grep -q 'nothing to continue: start with +gen TEXT' "$TMP/err" && ok ||
    fail "+++ after it: $(cat "$TMP/err")"

# the next +gen runs whole (the Ctrl-C did not carry over), +++ goes on from it
: >"$TMP/out"
cut=$(said 'cancelled before it began\|generation stopped')
printf '+gen the next one\n' >&3
printf '+++\n/show\n' >&3
poll grep -q 'seed' "$TMP/out" || fail "no /show after the generations: $(cat "$TMP/err")"
python3 - "$TMP/out" <<'PY' && ok || fail "the next +gen or +++ made nothing: $(cat "$TMP/out")"
import sys
text = open(sys.argv[1], "rb").read().split(b"  temperature")[0]
sys.exit(0 if len([p for p in text.split(b"\n\n") if p.strip()]) >= 2 else 1)
PY
[ "$(said 'cancelled before it began\|generation stopped')" = "$cut" ] && ok ||
    fail "the next ones were cut: $(cat "$TMP/err")"
exec 3>&-
wait $pid
rc=$?
[ $rc = 0 ] && ok || fail "exit $rc: $(cat "$TMP/err")"
[ "$(said 'nothing to continue')" = 1 ] && ok || fail "+++ refused again: $(cat "$TMP/err")"
finish
