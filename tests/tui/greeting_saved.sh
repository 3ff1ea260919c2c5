#!/usr/bin/env bash
# tests/tui/greeting_saved.sh -- the full-screen client's greeting at start
# comes from the database when a saved session fed the same one to the same
# model with the same strategy (the runtime's rule, as in the line chat):
# the message log says so, and the first reply is the one a prefill gives.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 6 --seed 9
type_text "same words"
send
keys F10
wait_for '^EXIT=0' 10 && ok || fail "first run did not quit"

tui_start --max-tokens 6 --seed 9
keys M-l
check "message log" 'Messages \(newest first\)'
check "the greeting's state came from the database" 'greeting: its state saved before'
keys Escape
check_not "log closed" 'Messages \(newest first\)'
type_text "same words"
send
tui_quit
reply() { "$RWKV_TUI" sessions --db "$DB" show "$1" | sed -n '/^#[0-9]* assistant /,$p' | sed 1d; }
[ -n "$(reply 1)" ] && [ "$(reply 1)" = "$(reply 2)" ] && ok ||
    fail "replies differ: '$(reply 1)' / '$(reply 2)'"
tui_finish
