#!/usr/bin/env bash
# tests/tui/menu_swap.sh -- F8 (the framing) while the worker opens a session
# saved with other role names: the open makes the runtime a new chat and
# framing and frees the ones in use (storage/session_db.c, load_framed), so
# a menu that reads them (menus.h, reads_chat: the framing, the presets) is
# not opened while such a job runs -- "wait for the model to finish" -- as
# the UI thread would read what the worker frees.  After the open, F8 shows
# the session's own names.
#
# gdb makes the instant (holdlib.sh): the open's worker is held where it
# begins while the UI thread alone takes F8.  Without gdb, or where it may
# not attach, the checks are skipped.  The demo model.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=7
hold_gdb $N_CHECKS "F8 while a session is opened"

# a session whose role names are not the launch's: opening it swaps the chat
printf 'hello there\n' |
    "$RWKV_TUI" chat --demo --db "$DB" --new bob --user Bob --max-tokens 6 --seed 2 \
    >/dev/null 2>&1 && ok || fail "making the session"

tui_start --max-tokens 6 --seed 3 --threads 1
keys F2
check "the sessions menu" 'bob'
if ! held Enter F8 worker_main tui_menu_open; then
    skip $((N_CHECKS - 3)) "gdb could not attach: $(hold_why)"
    tui_quit
    tui_finish
    exit
fi
check "the open went on" "resumed 'bob'" 30
wait_idle 100
screen | grep -q 'Framing of this session' && fail "F8 opened the framing menu during the open" || ok
keys M-l
check "F8 was refused" 'wait for the model to finish \(Esc cancels it\)'
keys Escape
keys F8
check "after the open, F8 shows the session's names" 'user name +Bob'
tui_quit
tui_finish
