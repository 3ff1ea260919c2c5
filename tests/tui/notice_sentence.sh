#!/usr/bin/env bash
# tests/tui/notice_sentence.sh -- notices read as sentences.  The runtime's
# asides, which the line chat prints in parentheses under the line they
# qualify ("(no saved state for turn 4: replayed 40 tokens ...)"), stand
# alone in the footer and in M-l: without the outer parentheses.  And a
# sibling step with nowhere to go ("no previous sibling") is information:
# M-l files it without "error:".  Before, both were as said.  The real
# binary under tmux, a real SQLite file whose saved states were deleted.
. "$(dirname "$0")/tmuxlib.sh"

T=$RWKV_TUI
if ! command -v python3 >/dev/null 2>&1; then
    skip 4 "python3 not found"
    finish
    exit
fi
printf 'hello\n' | "$T" chat --demo --db "$DB" --new s --seed 1 --max-tokens 6 >/dev/null 2>&1 ||
    fail "the session was not made"
sql_rows "$DB" 'delete from snapshots' >/dev/null
tui_start --session 1
check "the replay said" 'no saved state for turn [0-9]+: replayed'
screen | grep -qE '\(no saved state for turn' && fail "the notice is in parentheses" || ok
keys M-,
check "the step refused" 'no previous sibling'
keys M-l
check "M-l: information, not an error" '[0-9:]+  no previous sibling'
tui_finish
