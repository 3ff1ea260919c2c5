#!/usr/bin/env bash
# tests/cli/state_budget_words.sh -- `sessions state` on a turn without a
# saved state says who dropped it: a leaf (which the retention keeps) whose
# state the budget dropped is blamed on the budget, with its size and how
# the state comes back; a turn inside a chain, which the retention itself
# drops, keeps the retention's line.  The demo model, a real database file.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/b.db

printf 'a\nb\n' | "$T" chat --demo --db "$D" --new one --max-tokens 4 >/dev/null 2>&1
# session 2: turns 6 (greeting) .. 17 (8 a leaf beside 9: /regen); 15 is one
# of the last 6 of its branch, which the retention keeps
printf 'c\n/regen\nd\ne\nf\ng\n' | "$T" chat --demo --db "$D" --new two --max-tokens 4 \
    >/dev/null 2>&1
rows_are "$D" "SELECT max(id) FROM turns WHERE session_id=2" 17 && ok ||
    fail "turns: $(sql_rows "$D" 'SELECT id, session_id, parent_id FROM turns')"
# turn 10: inside the chain, more than 6 turns above the leaf: retention
out=$("$T" sessions --db "$D" state 2 10 2>&1)
printf '%s\n' "$out" | grep -q 'has no saved state (kept: leaves, branch points' && ok ||
    fail "retention: $out"
"$T" sessions --db "$D" budget 200kB >/dev/null 2>&1 && ok || fail "budget 200kB"
rows_are "$D" "SELECT count(*) FROM snapshots WHERE turn_id IN (5, 15)" 0 && ok || fail "turn 5 or 15 kept"
for t in 1:5 2:15; do
    out=$("$T" sessions --db "$D" state ${t%%:*} ${t#*:} 2>&1)
    [ $? = 1 ] && ok || fail "state $t: exit: $out"
    printf '%s\n' "$out" | grep -q "turn ${t#*:} has no saved state: the state budget (200 kB) dropped it" &&
        ok || fail "state $t: not blamed on the budget: $out"
    printf '%s\n' "$out" | grep -q 'kept: leaves' && fail "state $t: the retention blamed: $out" || ok
done
# the chain turn keeps the retention's line under a budget too
out=$("$T" sessions --db "$D" state 2 10 2>&1)
printf '%s\n' "$out" | grep -q 'kept: leaves, branch points' && ok || fail "retention, budget: $out"
finish
