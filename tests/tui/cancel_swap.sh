#!/usr/bin/env bash
# tests/tui/cancel_swap.sh -- Esc while the worker swaps the chat: opening a
# session saved with other role names makes the runtime a new chat and
# destroys the one in use (storage/session_db.c, load_framed).  The cancel
# is the runtime's own (storage/session.h, the cancel rule), so an Esc in
# that instant never writes into the chat being destroyed -- it used to:
# sess_cancel read the chat pointer, and the worker could free that chat
# before the cancel flag was stored into it.  The open needs no replay, so
# it goes on (the rule), and the Esc does not carry over: the next message
# is answered.
#
# gdb makes the instant: the open's worker is held where it begins while the
# UI thread alone takes the Esc; a UI thread that then stands in chat_cancel
# (the old way) is held there while the worker alone runs the open to its
# end, and the test fails when the worker destroys that very chat.  One
# compute thread, so the worker runs alone.  Without gdb, or where it may not
# attach, the checks are skipped.  The demo model.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=8
hold_gdb $N_CHECKS "Esc while the chat is swapped"

# a session whose role names are not the launch's: opening it swaps the chat
printf 'hello there\n' |
    "$RWKV_TUI" chat --demo --db "$DB" --new bob --user Bob --max-tokens 6 --seed 2 \
    >/dev/null 2>&1 && ok || fail "making the session"

hold_script "$TMP/swap.gdb" <<'EOF'
gdb.execute("break worker_main")
touch("ready")
gdb.execute("continue")                 # the open's worker begins: all stop
touch("hit")
worker = gdb.selected_thread()
gdb.execute("delete")
gdb.execute("set scheduler-locking on")
gdb.execute("thread 1")                 # the UI thread alone takes the Esc
gdb.execute("break chat_cancel")
gdb.execute("break tui_notice")         # "cancelling...": the cancel was sent
gdb.execute("continue")
if gdb.selected_frame().name() == "chat_cancel":
    chat = int(gdb.parse_and_eval("(long) c"))
    gdb.execute("delete")
    worker.switch()                     # the worker alone runs the open
    gdb.execute("break chat_destroy if (long) c == %d" % chat)
    gdb.execute("finish")
    if gdb.selected_frame().name() == "chat_destroy":
        touch("destroyed")
gdb.execute("set scheduler-locking off")
touch("done")
EOF

tui_start --max-tokens 6 --seed 3 --threads 1
keys F2
check "the sessions menu" 'bob'
if ! hold_run "$(tui_pid)" "$TMP/swap.gdb"; then
    skip $((N_CHECKS - 3)) "gdb could not attach: $(hold_why)"
    tui_quit
    tui_finish
    exit
fi
keys Enter
hold_hit || fail "the open's worker never began"
keys Escape
hold_wait
[ -e "$TMP/done" ] && ok || fail "gdb: $(tail -5 "$TMP/gdb.log")"
[ ! -e "$TMP/destroyed" ] && ok ||
    fail "the Esc wrote into the chat the open destroyed (sess_cancel read the chat)"
check "the open needs no replay: it went on" "resumed 'bob'" 30
wait_idle 100
type_text "next"
send 100
check_not "the Esc did not carry over to the next message" 'cancelled before the reply started' 1
[ "$(screen | grep -cE '^RWKV +6 tok')" = 2 ] && screen | grep -q '^Bob ' && ok ||
    fail "the next message not answered whole under the session's names: $(screen | head -20)"
tui_quit
tui_finish
