#!/usr/bin/env bash
# tests/tui/resume_draft.sh -- a start with --session ID that finds an
# unsent draft in the input history says both: the session resumed and the
# draft kept.  Before, "your unsent draft is kept" was replaced at once by
# "resumed '...'", so the draft went unnoticed.
. "$(dirname "$0")/tmuxlib.sh"

W=160 H=30 tui_start --max-tokens 2 --seed 3
type_text 'a message to resume'
send
type_text 'an unsent draft'
keys C-q
if wait_for '^EXIT=0' 10; then ok; else fail "C-q: no clean exit"; fi
sid=$(sqlite3 "$DB" 'select id from sessions order by id limit 1')
[ -n "$sid" ] && ok || fail "no session saved"

W=160 H=30 tui_start --max-tokens 2 --seed 3 --session "$sid"
check "both said: resumed and the draft" "resumed '.*'; your unsent draft is kept: Up brings it back"
sleep 1
check "still both a moment later" "resumed '.*'; your unsent draft is kept"
keys Up
check "Up: the draft" '^> an unsent draft'
tui_quit
tui_finish
