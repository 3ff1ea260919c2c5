#!/usr/bin/env bash
# tests/cli/sessions_budget_words.sh -- sizes and counts as people read
# them in `sessions budget` (storage/store_budget.c: store_size_str, the one
# size formatter, F2's title and budget prompt use it too; store_budget_say,
# the line both front ends print).  One state is "1 state", one dropped "1
# saved state"; a size has no trailing zeros ("2 GB") and one that rounds to
# 1000 of a unit is said in the next ("1 TB").  Before: "68 kB in 1 states
# now", "budget 1000.00 GB", "budget 2.00 GB".
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/b.db
q() { sqlite3 "$1" "$2" 2>/dev/null; }

printf 'hi\nmore\n' | "$T" chat --demo --db "$DB" --new s1 --max-tokens 4 >/dev/null 2>&1 || fail "chat"
one=$(q "$DB" "select min(length(blob)) from state_blobs")
[ -n "$one" ] || one=$(q "$DB" "select min(length(blob)) from snapshots")   # (schema < v8)
n=$(q "$DB" "select count(*) from snapshots")
[ "$n" -ge 3 ] && ok || fail "only $n states saved"
S='[0-9]+(\.[0-9]+)? (kB|MB)'
says() {   # DESC PATTERN CMD...: stdout is one line matching PATTERN
    local desc=$1 pat=$2 out; shift 2
    out=$("$@" 2>&1)
    printf '%s\n' "$out" | grep -Eqx -- "$pat" && ok || fail "$desc: '$out' !~ /$pat/"
}
says "many states" "saved states: $S in $n states; budget: none \\(the retention policy alone decides\\)" \
    "$T" sessions --db "$DB" budget
says "two kept" "budget $S: dropped $((n - 2)) saved states? \\($S; rebuilt from the turns' tokens when needed\\), $S in 2 states now" \
    "$T" sessions --db "$DB" budget "$((2 * one))B"
says "one dropped, one left" "budget $S: dropped 1 saved state \\($S; rebuilt from the turns' tokens when needed\\), $S in 1 state now" \
    "$T" sessions --db "$DB" budget "${one}B"
says "one state" "saved states: $S in 1 state; budget: $S" "$T" sessions --db "$DB" budget
says "1TB" "budget 1 TB: the saved states fit \\($S in 1 state\\)" "$T" sessions --db "$DB" budget 1TB
says "2GB" "budget 2 GB: the saved states fit \\($S in 1 state\\)" "$T" sessions --db "$DB" budget 2GB
says "1500MB" "budget 1\\.5 GB: the saved states fit \\($S in 1 state\\)" "$T" sessions --db "$DB" budget 1500MB
says "shown" "saved states: $S in 1 state; budget: 1\\.5 GB" "$T" sessions --db "$DB" budget
finish
