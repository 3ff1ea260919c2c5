#!/usr/bin/env bash
# tests/cli/vacuum_one_page.sh -- `sessions vacuum` counts pages in their
# number: "1 free page given back", "0 free pages" (one page freed by a
# table another program dropped).  And `sessions --help` names every key
# `sessions list --json` prints.  The demo model, a real database file.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/v.db

printf 'a\n' | "$T" chat --demo --db "$D" --new one --max-tokens 4 >/dev/null 2>&1
out=$("$T" sessions --db "$D" vacuum 2>&1)
printf '%s\n' "$out" | grep -q '(0 free pages given back)$' && ok || fail "none: $out"
sql_rows "$D" "CREATE TABLE junk(x)" >/dev/null
sql_rows "$D" "INSERT INTO junk VALUES (1)" >/dev/null
sql_rows "$D" "DROP TABLE junk" >/dev/null
rows_are "$D" "PRAGMA freelist_count" 1 && ok || fail "free pages: $(sql_rows "$D" 'PRAGMA freelist_count')"
out=$("$T" sessions --db "$D" vacuum 2>&1)
printf '%s\n' "$out" | grep -q '(1 free page given back)$' && ok || fail "one: $out"

# --help: every key of list --json
keys=$("$T" sessions --db "$D" list --json | python3 -c '
import json, sys
print(" ".join(json.load(sys.stdin)[0].keys()))')
help=$("$T" sessions --help 2>&1 | tr -s ' \n' '  ')
for k in $keys; do
    case $help in *"$k,"*|*"$k)"*|*"$k;"*) ok ;; *) fail "--help lacks the list --json key '$k'" ;; esac
done
finish
