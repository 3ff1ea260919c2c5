#!/usr/bin/env bash
# tests/tui/nodb_presets.sh -- F4 without a session database (--no-db):
# presets live in the database, so the menu says there is none and C-s
# refuses before a name is asked (it crashed: the save ran on no store).
. "$(dirname "$0")/tmuxlib.sh"

NODEMO=1 W=80 H=24 tui_start --demo --no-db --max-tokens 4 --seed 3
keys F4
check "F4 says why it is empty" 'no session database \(--no-db\): no presets to load or save'
keys C-s
check "C-s refused with the same line" 'no session database \(--no-db\): no presets to load or save'
check_not "no name asked" 'save preset as:' 2
keys Escape
wait_for ' Presets ' 1 && keys Escape   # the first Esc may only dismiss the notice
check_not "the menu closes" ' Presets '
# the client goes on: a message still gets its reply
type_text "still here"
send
check "a reply after the refusal" "^RWKV +[0-9]+ tok"
tui_quit
tui_finish
