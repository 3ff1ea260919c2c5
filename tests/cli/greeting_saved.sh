#!/usr/bin/env bash
# tests/cli/greeting_saved.sh -- a new chat takes the state after the
# greeting from the database (a saved session's greeting turn: the same
# tokens, the same model file, the same strategy string) instead of feeding
# it again, with a note; the replies are the ones a prefill gives.  Another
# strategy, another greeting or a damaged snapshot: fed as before.  The demo
# model (no fixtures needed), real database files.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/g.db
NOTE='greeting: its state saved before'
G='User: hi, you know pangolins\n\nAssistant: I do: ask me about pangolins.'
run() {   # run NAME [options]: one message, seeded; stdout NAME.out, stderr NAME.err
    local name=$1
    shift
    printf 'tell me about scales\n' | "$T" chat --demo --db "$D" --seed 7 --max-tokens 12 "$@" \
        >"$TMP/$name.out" 2>"$TMP/$name.err"
}

run first --greeting "$G" && ok || fail "first run: $(cat "$TMP/first.err")"
grep -q "$NOTE" "$TMP/first.err" && fail "first run reused a greeting: $(cat "$TMP/first.err")" || ok
run again --greeting "$G" && ok || fail "second run: $(cat "$TMP/again.err")"
grep -q "$NOTE" "$TMP/again.err" && ok || fail "second run fed the greeting again: $(cat "$TMP/again.err")"
cmp -s "$TMP/first.out" "$TMP/again.out" && ok ||
    fail "the reply after a saved greeting differs: $(cat "$TMP/first.out") / $(cat "$TMP/again.out")"
# the sessions made either way hold the same greeting turn
n=$("$T" sessions --db "$D" list --json | grep -c '"id"')
[ "$n" = 2 ] && ok || fail "want 2 sessions, got $n"
greeting() { "$T" sessions --db "$D" show "$1" | sed -n '/ system \[state\]:$/,/ user /p' | sed '1d;$d'; }
[ -n "$(greeting 1)" ] && [ "$(greeting 1)" = "$(greeting 2)" ] && ok ||
    fail "greeting turns differ: $(greeting 1) / $(greeting 2)"

# not reused: another strategy string, another greeting
run bf16 --greeting "$G" --strategy "cpu bf16" && ok || fail "bf16 run: $(cat "$TMP/bf16.err")"
grep -q "$NOTE" "$TMP/bf16.err" && fail "another strategy reused the greeting" || ok
run other --greeting "User: hello\n\nAssistant: Hi." && ok || fail "other greeting: $(cat "$TMP/other.err")"
grep -q "$NOTE" "$TMP/other.err" && fail "another greeting reused a state" || ok
# ... and the demo greeting of an earlier run is reused in turn
run other2 --greeting "User: hello\n\nAssistant: Hi." && grep -q "$NOTE" "$TMP/other2.err" && ok ||
    fail "the second greeting was not reused: $(cat "$TMP/other2.err")"

# damaged snapshots of the greeting turns: fed again, the same reply
if command -v sqlite3 >/dev/null 2>&1; then
    sqlite3 "$D" "UPDATE state_blobs SET blob = randomblob(length(blob)) WHERE id IN
                  (SELECT blob_id FROM snapshots WHERE turn_id IN (SELECT id FROM turns WHERE role = 0))" &&
        ok || fail "damage"
    run damaged --greeting "$G" && ok || fail "run after damage: $(cat "$TMP/damaged.err")"
    grep -q "$NOTE" "$TMP/damaged.err" && fail "a damaged state was reused" || ok
    cmp -s "$TMP/first.out" "$TMP/damaged.out" && ok || fail "reply after damage differs"
elif [ -n "${CI:-}" ]; then
    fail "sqlite3 not found"
else
    skip 3 "(3) sqlite3 not found"
fi
finish
