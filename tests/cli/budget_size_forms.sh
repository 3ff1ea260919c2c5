#!/usr/bin/env bash
# tests/cli/budget_size_forms.sh -- the sizes `sessions budget` (and F2's
# C-b, the same store_size_parse) takes.  A size as the program prints it,
# with one space before the unit ("500 MB", "1.5 GiB"), is taken: it was
# refused as "not a size", though `sessions budget` and F2 say every size
# that way.  A number C's strtod reads but nobody types as a size -- hex
# (0x10MB was 16 MB), an exponent (1e3MB was 1 GB) -- is refused, as are two
# spaces, a space with no unit, and two points.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/b.db

printf 'hi\n' | "$T" chat --demo --db "$DB" --new s1 --max-tokens 4 >/dev/null 2>&1 || fail "chat"
takes() {   # SIZE SAID: `budget SIZE` exits 0, its line starting "budget SAID:"
    local out
    out=$("$T" sessions --db "$DB" budget "$1" 2>&1) && case $out in "budget $2:"*) ok; return ;; esac
    fail "budget '$1': $out"
}
takes "5 MB" "5 MB"
takes "1.5 GiB" "1.61 GB"
takes "2 gb" "2 GB"
takes "500MB" "500 MB"
for s in 1e3MB 0x10MB "5  MB" "5 " "1.2.3GB" " 5MB"; do
    expect_fail "budget '$s'" "^rwkv-tui: sessions budget: '$s' is not a size" \
        "$T" sessions --db "$DB" budget "$s"
done
out=$("$T" sessions --db "$DB" budget 2>&1)
case $out in *"budget: 500 MB"*) ok ;; *) fail "a refused size changed the budget: $out" ;; esac
finish
