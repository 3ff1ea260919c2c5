#!/usr/bin/env bash
# tests/tui/cancel_early.sh -- the client: Esc (or C-c) pressed after a
# message is sent (or C-r asked for) but before the worker has begun the job
# stops that reply as at its first step (the runtime's cancel rule,
# storage/session.h): the message is not sent -- "cancelled before the
# reply started", back in the input box, no row saved -- and a regeneration
# changes nothing; the next message is not touched by it and runs whole.
#
# gdb makes that instant (tests/tui/holdlib.sh: the worker held where it
# begins while the UI thread alone takes the key).  Without gdb, or where it
# may not attach, the checks are skipped;
# tests/unit/test_session_cancel_early.c holds the worker the same way
# without gdb.  The tiny RWKV-7 fixture model (the demo model without the
# fixtures), greedy, a saved session.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=11
BYTE="--model $FX/models/tiny-7v0-fp32.pth"
[ -e "$FX/models/tiny-7v0-fp32.pth" ] || [ -n "${CI:-}" ] || BYTE=--demo
have_fixture models/tiny-7v0-fp32.pth 0 || true
hold_gdb $N_CHECKS "the cancel before the job starts"

# the text of the last reply on the screen; the rows holding TEXT
reply_text() { screen | grep -A1 '^RWKV ' | tail -1 | sed 's/│.*//; s/ *$//'; }
rows() { sqlite3 "$DB" "SELECT count(*) FROM turns WHERE text = '$1'"; }

NODEMO=1 W=80 H=24 tui_start $BYTE --db "$DB" --max-tokens 8 --seed 3 --temperature 0 \
    --stop QQQQQQ --ban 10,13
type_text hello
send
OLD=$(reply_text)
[ -n "$OLD" ] && ok || fail "no reply to hello: $(screen | tail -5)"

# a message, Esc before its job began
type_text second
if ! held Enter Escape; then
    skip $((N_CHECKS - 1)) "gdb could not attach: $(hold_why)"
    tui_quit
    tui_finish
    exit
fi
check "a message cancelled before its job began: said, and back in the box" \
    'cancelled before the reply started: your message is back in the input box'
check "... the message is in the input box" '^> second'
[ "$(reply_text)" = "$OLD" ] && ok || fail "the last reply was '$OLD', now '$(reply_text)'"
[ "$(rows second)" = 0 ] && ok || fail "the cancelled message was saved ($(rows second) rows)"

# C-r, C-c before its job began: nothing changed
keys C-u
held C-r C-c || fail "gdb could not attach a second time"
check "a regeneration cancelled before its job began: said" 'cancelled before the reply started'
[ "$(reply_text)" = "$OLD" ] && ok || fail "after C-r: the reply was '$OLD', now '$(reply_text)'"

# the next message: the cancels do not carry over, its reply runs whole
type_text third
send
check "the next message was answered" '^RWKV .*8 tok'
check_not "... not interrupted" 'interrupted' 1
[ "$(rows third)" = 1 ] && ok || fail "the next message was not saved ($(rows third) rows)"
[ "$(sqlite3 "$DB" "SELECT interrupted FROM turns WHERE parent_id = \
     (SELECT id FROM turns WHERE text = 'third')")" = 0 ] && ok ||
    fail "its reply was saved interrupted"
tui_quit
tui_finish
