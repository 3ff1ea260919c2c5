#!/usr/bin/env bash
# tests/tui/state_unsaved_note.sh -- the full-screen client says a reply was
# saved without its state (its write failed: a trigger on the file stands
# in for a full disk), once for two such replies, in the footer and the
# message log (M-l); it said nothing.  tests/cli/chat_state_unsaved_note.sh
# is the line chat's side.  The demo model.
. "$(dirname "$0")/tmuxlib.sh"

"$RWKV_TUI" chat --demo --db "$DB" --new s --seed 1 --max-tokens 3 <<<'one' >/dev/null 2>&1
sqlite3 "$DB" "CREATE TRIGGER test_fail_state BEFORE INSERT ON snapshots WHEN
    (SELECT role FROM turns WHERE id=NEW.turn_id)=2 BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END"
W=160 H=30 tui_start --max-tokens 3 --seed 1
type_text "two"
send
check "said" 'saving the state after the reply: .*disk full \(test\)'
type_text "three"
send
keys M-l
check "the message log" 'Messages \(newest first\)'
n=$(log_flat | grep -o 'savingthestateafterthereply' | wc -l)
[ "$n" = 1 ] && ok || fail "in the log $n times: $(log_flat | head -c 400)"
keys Escape
tui_quit
tui_finish
