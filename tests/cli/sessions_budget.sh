#!/usr/bin/env bash
# tests/cli/sessions_budget.sh -- `sessions budget [SIZE|off]`: a disk budget
# for the saved states of a real database (storage/store_budget.c).  Over it
# the states go in order (other sessions' chain states, least recently
# updated session first; then their last ones; the current session's head
# never), the file shrinks, and a session whose states were dropped resumes
# by replay with the very reply an untouched copy gives.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/b.db
q() { sqlite3 "$1" "$2" 2>/dev/null; }
# (a shared state, schema v8, counts once)
states() { q "$1" "select (select coalesce(sum(length(blob)),0) from snapshots)
                        + (select coalesce(sum(length(blob)),0) from state_blobs)"; }

for i in 1 2 3; do
    yes "message $i" | head -12 | "$T" chat --demo --db "$DB" --new "s$i" --max-tokens 4 --seed $i \
        >/dev/null 2>&1 || fail "chat s$i"
    sleep 0.01   # distinct updated times
done
cp "$DB" "$TMP/ref.db"
cp "$DB" "$TMP/bare.db"   # for the bare numbers below
before=$(states "$DB")
n_before=$(q "$DB" "select count(*) from snapshots")

out=$("$T" sessions --db "$DB" budget)
case $out in "saved states: "*" in $n_before states; budget: none"*) ok ;; *) fail "no budget: $out" ;; esac

# a budget of half: the oldest sessions lose their chain states first
half=$((before / 2))
out=$("$T" sessions --db "$DB" budget "${half}B") && ok || fail "budget ${half}B"
case $out in "budget "*": dropped "*" saved states ("*) ok ;; *) fail "set: $out" ;; esac
after=$(states "$DB")
[ "$after" -le "$half" ] && ok || fail "states $after > budget $half"
# s3 (the newest) keeps more than s1, and each kept its head while it could
k1=$(q "$DB" "select count(*) from snapshots n join turns t on t.id=n.turn_id where t.session_id=1")
k3=$(q "$DB" "select count(*) from snapshots n join turns t on t.id=n.turn_id where t.session_id=3")
[ "$k3" -gt "$k1" ] && ok || fail "newest session kept $k3, oldest $k1"
h=$(q "$DB" "select count(*) from sessions e where exists(select 1 from snapshots where turn_id=e.head_turn)")
[ "$h" = 3 ] && ok || fail "heads kept: $h of 3"
out=$("$T" sessions --db "$DB" budget)
case $out in *"budget: "*[0-9]" kB"|*"budget: "*[0-9]" MB") ok ;; *) fail "shown: $out" ;; esac

# under one saved state is refused, a unit or not: it would drop them all
one=$(q "$DB" "select min(length(blob)) from state_blobs")
[ -n "$one" ] || one=$(q "$DB" "select min(length(blob)) from snapshots")   # (schema < v8)
n_now=$(q "$DB" "select count(*) from snapshots")
for v in 1kB 500B 1B 0.00001GB $((one - 1))B; do
    expect_fail "$v: under one state" \
        "budget: '$v' is less than one saved state \\(the smallest takes [0-9.]+ (kB|MB)\\) and would drop every state: give more \\(500MB, 2GB\\), or say 'off' for none" \
        "$T" sessions --db "$DB" budget "$v"
done
[ "$(q "$DB" "select count(*) from snapshots")" = "$n_now" ] && ok || fail "a refused budget dropped states"
# a session with no state left resumes by replay, with the untouched copy's reply
# (one state's budget: the oldest sessions' states go first, s1's all)
"$T" sessions --db "$DB" budget "${one}B" >/dev/null || fail "budget ${one}B"
[ "$(q "$DB" "select count(*) from snapshots n join turns t on t.id=n.turn_id where t.session_id=1")" = 0 ] &&
    ok || fail "${one}B left s1 states"
r1=$(printf 'and now?\n' | "$T" chat --demo --db "$DB" --session 1 --max-tokens 8 --seed 9 2>"$TMP/e1")
r2=$(printf 'and now?\n' | "$T" chat --demo --db "$TMP/ref.db" --session 1 --max-tokens 8 --seed 9 2>/dev/null)
[ -n "$r1" ] && [ "$r1" = "$r2" ] && ok || fail "resumed reply differs: '$r1' vs '$r2'"
grep -qi 'replay' "$TMP/e1" && ok || fail "no replay note: $(cat "$TMP/e1")"
# the budget holds while chatting: the head just written is kept, the rest goes
[ "$(q "$DB" "select count(*) from snapshots")" = 1 ] && ok ||
    fail "after a turn at ${one}B: $(q "$DB" "select turn_id from snapshots")"
[ "$(q "$DB" "select count(*) from snapshots n join sessions e on e.head_turn=n.turn_id where e.id=1")" = 1 ] &&
    ok || fail "the session's head state was not kept"

# off: the budget goes; states are kept by the retention alone again
out=$("$T" sessions --db "$DB" budget off) && ok || fail "off"
case $("$T" sessions --db "$DB" budget) in *"budget: none"*) ok ;; *) fail "off not kept" ;; esac
printf 'more\n' | "$T" chat --demo --db "$DB" --session 1 --max-tokens 4 >/dev/null 2>&1
[ "$(q "$DB" "select count(*) from snapshots")" -ge 2 ] && ok || fail "off: states not kept"

# the file gives the space back when a budget drops states
cp "$TMP/ref.db" "$TMP/big.db"
s0=$(stat -c %s "$TMP/big.db")
"$T" sessions --db "$TMP/big.db" budget "${one}B" >/dev/null
s1=$(stat -c %s "$TMP/big.db")
[ "$s1" -lt $((s0 / 2)) ] && ok || fail "file $s0 -> $s1 bytes"

# sizes: units, and one line for what is not one
for v in 500MB 2GB 1.5GiB 750k 3T 1024000B 5000000000; do
    "$T" sessions --db "$TMP/ref.db" budget "$v" >/dev/null && ok || fail "size $v refused"
done
# a bare number is bytes; under the smallest saved state (where it would drop
# them all, and megabytes were likely meant) it is refused with what it means
small=$(q "$TMP/bare.db" "select min(length(blob)) from state_blobs")
n_bare=$(q "$TMP/bare.db" "select count(*) from snapshots")
expect_fail "a bare number under one state" \
    "budget: '500' with no unit means bytes, less than one saved state \\(the smallest takes [0-9.]+ (kB|MB)\\)" \
    "$T" sessions --db "$TMP/bare.db" budget 500
expect_fail "... and what to do" "and would drop every state: give a unit \\(500MB, 2GB\\)$" \
    "$T" sessions --db "$TMP/bare.db" budget 500
[ "$(q "$TMP/bare.db" "select count(*) from snapshots")" = "$n_bare" ] && ok ||
    fail "a refused bare number dropped states"
"$T" sessions --db "$TMP/bare.db" budget "$small" >/dev/null && ok ||
    fail "a bare number of the smallest state ($small) refused"
"$T" sessions --db "$TMP/bare.db" budget off >/dev/null
[ "$(q "$TMP/bare.db" "select count(*) from snapshots")" -lt "$n_bare" ] && ok ||
    fail "a budget of one state dropped no states"
# no state saved yet: nothing to compare with but the smallest model's state
# (RWKV-4 169M: 184 kB), so under 64 kB is refused, a unit or not
for s in 1 2 3; do "$T" sessions --db "$TMP/bare.db" rm "$s" >/dev/null 2>&1; done
if [ "$(q "$TMP/bare.db" "select count(*) from snapshots")" = 0 ]; then
    expect_fail "bare 500, no states" \
        "budget: '500' with no unit means bytes, less than any model's saved state \\(64 kB at the least\\)" \
        "$T" sessions --db "$TMP/bare.db" budget 500
    expect_fail "1kB, no states" "budget: '1kB' is less than any model's saved state \\(64 kB at the least\\)" \
        "$T" sessions --db "$TMP/bare.db" budget 1kB
    "$T" sessions --db "$TMP/bare.db" budget 64kB >/dev/null && ok || fail "64kB, no states"
else
    fail "sessions rm left states"
fi
expect_fail "bad unit" "'2X' is not a size" "$T" sessions --db "$DB" budget 2X
expect_fail "negative" "'-5' is not a size" "$T" sessions --db "$DB" budget -- -5
expect_fail "no number" "'MB' is not a size" "$T" sessions --db "$DB" budget MB
expect_fail "zero" "say 'off' for none" "$T" sessions --db "$DB" budget 0
expect_fail "two sizes" "usage: rwkv-tui sessions budget \[SIZE\|off\]" \
    "$T" sessions --db "$DB" budget 1GB 2GB
expect_fail "no database" "no session database here" "$T" sessions --db "$TMP/none.db" budget
finish
