#!/usr/bin/env bash
# tests/tui/budget_resume.sh -- the full-screen client resuming a session
# whose states `sessions budget` dropped but the head's: the open rebuilds
# the state before the last message by a replay of the whole conversation.
# It ran silently (M-l had "resumed 'long one'" alone, where the README
# promises a replay note) and its state was saved over the budget.  Now the
# note is in the message log and the database keeps within its budget (the
# line chat: tests/cli/budget_resume.sh; one runtime).
. "$(dirname "$0")/tmuxlib.sh"

q() { sqlite3 "$1" "$2" 2>/dev/null; }
states() { q "$1" "select (select coalesce(sum(length(blob)),0) from snapshots)
                        + (select coalesce(sum(length(blob)),0) from state_blobs)"; }

for i in $(seq 20); do echo "message number $i"; done |
    "$RWKV_TUI" chat --demo --db "$DB" --new "long one" --max-tokens 8 --seed 1 >/dev/null 2>&1 ||
    fail "making the session"
one=$(q "$DB" "select max(n) from (select length(blob) n from state_blobs
                                    union all select length(blob) from snapshots)")
budget=$((one * 3 / 2))                 # the head's state alone fits
"$RWKV_TUI" sessions --db "$DB" budget "${budget}B" >/dev/null && ok || fail "budget ${budget}B"
head=$(q "$DB" "select head_turn from sessions where id=1")
before=$(q "$DB" "select parent_id from turns where id=(select parent_id from turns where id=$head)")

W=160 tui_start --resume
check "resumed" 'session: long one \|' 30
wait_idle 600
keys M-l
check "the replay is in the log" \
    "no saved state for turn $before: replayed [1-9][0-9]* tokens from the"
keys Escape
tui_quit
after=$(states "$DB")
[ "$after" -le "$budget" ] && ok ||
    fail "over the budget after the resume: $after > $budget bytes ($(q "$DB" "select count(*) from snapshots") states)"
[ "$(q "$DB" "select count(*) from snapshots where turn_id=$head")" = 1 ] && ok ||
    fail "the head's state was dropped"
tui_finish
