#!/usr/bin/env bash
# tests/tui/framing_swap_draw.sh -- the screen redrawn while the worker opens
# a session saved with other role names.  The open makes the runtime a new
# chat and framing and puts them in place of the ones in use on the worker
# thread (storage/session_db.c, load_framed); the transcript's headers and
# the status line's think mode were read from the runtime's framing at
# every redraw, so a redraw in that instant read it while it was rewritten
# (a data race) and showed the new session's names over the old session's
# turns.  Now the screen shows the UI thread's copies, taken while no job
# runs (tui/session.c, tui_session_sync): during the open the names the
# user had, after it the session's own.
#
# gdb makes the instant: the open's worker is held just after the session's
# framing replaced the one in use, while the UI thread alone runs, takes a
# resize and a key, and redraws; then everything goes on.  One compute
# thread, so the worker runs alone.  Without gdb, or where it may not
# attach, the checks are skipped.  The demo model.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=11
hold_gdb $N_CHECKS "a redraw while an open swaps the framing"

# a session whose role names are not the launch's: opening it swaps the framing
printf 'hello there\n' |
    "$RWKV_TUI" chat --demo --db "$DB" --new bob --user Bob --max-tokens 6 --seed 2 \
    >/dev/null 2>&1 && ok || fail "making the session"

hold_draws "$TMP/draw.gdb" <<'EOF'
class Swapped(gdb.Breakpoint):
    # the worker, in load_framed, has put the session's framing in place of
    # the one in use (s->fr = *fr) and clears its own copy: the job goes on
    def stop(self):
        up = gdb.selected_frame().older()
        return up is not None and up.name() == "load_framed"
Swapped("framing_init")
EOF

tui_start --user Alice --max-tokens 6 --seed 3 --threads 1
type_text "hi"
send
check "the launch's name heads the message" '^Alice '
keys F2
check "the sessions menu" 'bob'
type_text "bob"
if ! hold_run "$(tui_pid)" "$TMP/draw.gdb"; then
    skip $((N_CHECKS - 4)) "gdb could not attach: $(hold_why)"
    tui_quit
    tui_finish
    exit
fi
keys Enter
hold_hit || fail "the open's worker never put the session's framing in place"
# the worker held mid-open: a resize and a key, each redrawn by the UI thread
tmx resize-window -x 110 -y 40
type_text "x"
check "the UI thread redrew during the open (the key typed)" '^> x' 10
check "during the open: the names the user had" '^Alice ' 5
screen | grep -q '^Bob ' && fail "during the open: the new session's names over the old turns:
$(screen | head -12)" || ok
touch "$TMP/go"
hold_wait
[ -e "$TMP/done" ] && ok || fail "gdb: $(tail -5 "$TMP/gdb.log")"
check "the open went on" "resumed 'bob'" 30
wait_idle 100
check "after the open: the session's own names" '^Bob ' 10
check_not "... and not the launch's" '^Alice '
tui_quit
tui_finish
