#!/usr/bin/env bash
# tests/cli/budget_resume.sh -- a resume after `sessions budget` dropped
# every state but the head's.  The open takes the head's state as it is and
# rebuilds the state before the last message (so that a regeneration works
# at once) by a replay of the whole conversation: that replay was silent
# (no note, where the README's Retention section promises one), and the
# state it rebuilt was saved over the budget -- the database left over the
# user's own rule.  Now the replay is said, in the one line every replay
# has, and the rebuilt state is saved as any save is: the budget applied
# after it (storage/store_snapshot.c, snapshot_put), the head spared.  The
# line chat here; the full-screen client runs the same open
# (tests/tui/budget_resume.sh).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/b.db
q() { sqlite3 "$1" "$2" 2>/dev/null; }
# the bytes of the saved states (a shared state, schema v8, counts once)
states() { q "$1" "select (select coalesce(sum(length(blob)),0) from snapshots)
                        + (select coalesce(sum(length(blob)),0) from state_blobs)"; }
nstates() { q "$1" "select count(*) from snapshots"; }

for i in $(seq 20); do echo "message number $i"; done |
    "$T" chat --demo --db "$DB" --new "long one" --max-tokens 8 --seed 1 >/dev/null 2>&1 ||
    fail "making the session"
cp "$DB" "$TMP/ref.db"
# a budget of one state and a half: the head's alone is kept
one=$(q "$DB" "select max(n) from (select length(blob) n from state_blobs
                                    union all select length(blob) from snapshots)")
budget=$((one * 3 / 2))
"$T" sessions --db "$DB" budget "${budget}B" >/dev/null && ok || fail "budget ${budget}B"
head=$(q "$DB" "select head_turn from sessions where id=1")
[ "$(nstates "$DB")" = 1 ] && [ "$(q "$DB" "select turn_id from snapshots")" = "$head" ] && ok ||
    fail "the budget did not keep the head's state alone: $(q "$DB" "select turn_id from snapshots")"
# the turn before the last message (the head is its reply): its state is
# the one the open rebuilds
before=$(q "$DB" "select parent_id from turns where id=(select parent_id from turns where id=$head)")

# the resume: the replay is said
"$T" chat --demo --db "$DB" --resume </dev/null >"$TMP/o1" 2>&1 || fail "resume: $(cat "$TMP/o1")"
if grep -Eq "^\(no saved state for turn $before: replayed [1-9][0-9]* tokens from the start of the session\)$" \
    "$TMP/o1"; then ok; else fail "the resume's replay was not said: $(cat "$TMP/o1")"; fi
# ... and the database stays within its budget, the head's state kept
after=$(states "$DB")
[ "$after" -le "$budget" ] && ok ||
    fail "over the budget after the resume: $after > $budget bytes ($(nstates "$DB") states)"
[ "$(q "$DB" "select count(*) from snapshots where turn_id=$head")" = 1 ] && ok ||
    fail "the head's state was dropped"

# the rebuilt state is right: a regeneration gives the reply an untouched copy gives
r1=$(printf '+\n' | "$T" chat --demo --db "$DB" --resume --max-tokens 8 --seed 9 2>&1)
r2=$(printf '+\n' | "$T" chat --demo --db "$TMP/ref.db" --resume --max-tokens 8 --seed 9 2>&1)
r1=$(printf '%s\n' "$r1" | grep -v '^(')
r2=$(printf '%s\n' "$r2" | grep -v '^(')
[ -n "$r1" ] && [ "$r1" = "$r2" ] && ok || fail "regenerated reply differs: '$r1' vs '$r2'"
after=$(states "$DB")
[ "$after" -le "$budget" ] && ok || fail "over the budget after a regeneration: $after > $budget"
finish
