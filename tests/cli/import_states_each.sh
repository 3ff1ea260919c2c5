#!/usr/bin/env bash
# tests/cli/import_states_each.sh -- `sessions import --states` names every
# state it does not take on a line of its own: the file, the turn and what
# is wrong (here three states whose "checksum" was changed), not the first
# one and "(and 2 more)".  The import goes on: the session is there, the
# first open replays.  The demo model, real database and JSON files.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/e.db

printf 'a\nb\nc\n' | "$T" chat --demo --db "$D" --new one --max-tokens 4 >/dev/null 2>&1
"$T" sessions --db "$D" export 1 --format json --states --out "$TMP/e.json" 2>"$TMP/e" && ok ||
    fail "export: $(cat "$TMP/e")"
python3 - "$TMP/e.json" "$TMP/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = 0
for t in d["turns"]:
    if "state" in t:
        n += 1
        t["state"]["checksum"] = "0" * 16
assert n == 3, n
json.dump(d, open(sys.argv[2], "w"))
PY
[ $? = 0 ] && ok || fail "the export did not carry 3 states"
"$T" sessions --db "$D" import --states "$TMP/bad.json" >"$TMP/o" 2>"$TMP/e"
[ $? = 0 ] && ok || fail "import: $(cat "$TMP/e")"
grep -q '^imported .*bad.json as session 2$' "$TMP/o" && ok || fail "import: $(cat "$TMP/o")"
[ "$(grep -c 'bad.json: turn [0-9]*: saved state not taken: "checksum" 0000000000000000 is not the state' "$TMP/e")" = 3 ] &&
    ok || fail "one line per refused state: $(cat "$TMP/e")"
grep -q 'more' "$TMP/e" && fail "a count instead of the lines: $(cat "$TMP/e")" || ok
[ "$(grep -o 'turn [0-9]*:' "$TMP/e" | sort -u | wc -l)" = 3 ] && ok || fail "three turns: $(cat "$TMP/e")"
# what the first open replays is still said, once
[ "$(grep -c 'the first open of session 2 replays' "$TMP/e")" = 1 ] && ok || fail "replay: $(cat "$TMP/e")"
finish
