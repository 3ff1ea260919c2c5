#!/usr/bin/env bash
# tests/cli/sessions_json.sh -- `sessions list --json`: an array, most recent
# first, of id, title, model, state_file, strategy, framing, turns,
# head_turn, created, updated (+ _ms); valid JSON whatever the title holds;
# [] for an empty database; --json elsewhere is a usage error.  The framing
# (null = the default) is in the JSON and in `sessions show` when it is not
# the default; show names the state file as the JSON does.
. "$(dirname "$0")/lib.sh"
DB=$TMP/s.db
python3 "$(dirname "$0")/../tui/mkstate.py" "$TMP/calm.safetensors" 2 7 13 ||
    { echo "python3 needed"; echo "0 passed, 1 failed"; exit 1; }

# an empty database (an empty file is one; a missing one is an error)
: >"$TMP/empty.db"
out=$("$RWKV_TUI" sessions --db "$TMP/empty.db" list --json 2>&1)
[ "$out" = "[]" ] && ok || fail "empty: '$out'"

printf 'hi\n' | "$RWKV_TUI" chat --demo --db "$DB" --new 'quote " back \ tab	end' --seed 1 \
    --max-tokens 3 >/dev/null 2>"$TMP/e1" || fail "chat 1: $(cat "$TMP/e1")"
printf 'hello\nagain\n' | "$RWKV_TUI" chat --demo --db "$DB" --state "$TMP/calm.safetensors" \
    --seed 1 --max-tokens 3 >/dev/null 2>"$TMP/e2" || fail "chat 2: $(cat "$TMP/e2")"
printf 'yo\n' | "$RWKV_TUI" chat --demo --db "$DB" --new framed --user Bob --bot Alice \
    --stop 'END' --ban 5,6 --no-greeting --seed 1 --max-tokens 3 >/dev/null 2>"$TMP/e3" ||
    fail "chat 3: $(cat "$TMP/e3")"
"$RWKV_TUI" sessions --db "$DB" list --json >"$TMP/j" 2>"$TMP/je"
rc=$?
[ $rc = 0 ] && ok || fail "list --json exit $rc: $(cat "$TMP/je")"
python3 - "$TMP/j" "$TMP/calm.safetensors" >"$TMP/py" 2>&1 <<'PY' && ok || fail "json: $(cat "$TMP/py")"
import json, sys
v = json.load(open(sys.argv[1]))
assert isinstance(v, list) and len(v) == 3, v
keys = {"id", "title", "model", "state_file", "strategy", "framing", "turns", "head_turn",
        "created", "updated", "created_ms", "updated_ms"}
for o in v:
    assert set(o) == keys, sorted(o)
framed, new, old = v
assert old["framing"] is None and new["framing"] is None, (old["framing"], new["framing"])
assert framed["framing"] == {"greeting": "", "user": "Bob", "bot": "Alice", "stop": ["END"],
                             "ban": [5, 6]}, framed["framing"]
assert new["updated_ms"] >= old["updated_ms"], "not most recent first"
assert old["id"] == 1 and new["id"] == 2, (old["id"], new["id"])
# a title is one line: its tab became a space (store_title_clean)
assert old["title"] == 'quote " back \\ tab end', repr(old["title"])
assert old["state_file"] is None, old["state_file"]
assert new["state_file"] == sys.argv[2], new["state_file"]
assert old["model"] == "(demo)" or old["model"] is None, old["model"]
# messages: the greeting's system turn is not counted
assert old["turns"] == 2 and new["turns"] == 4, (old["turns"], new["turns"])
assert new["head_turn"] > 0
assert new["created"].endswith("Z") and "T" in new["created"], new["created"]
PY
# show: the framing when it is not the default
"$RWKV_TUI" sessions --db "$DB" show 3 >"$TMP/s3" 2>&1
grep -qx 'framing: greeting none; user Bob, bot Alice; stop END; ban 5,6' "$TMP/s3" && ok ||
    fail "show 3 framing: $(grep -i framing "$TMP/s3")"
"$RWKV_TUI" sessions --db "$DB" show 1 | grep -q '^framing' && fail "show 1 has a framing line" || ok
# show: the state file the session started from, as list --json names it
"$RWKV_TUI" sessions --db "$DB" show 2 | grep -qx "state file $TMP/calm.safetensors" && ok ||
    fail "show 2 state file: $("$RWKV_TUI" sessions --db "$DB" show 2 | head -6)"
"$RWKV_TUI" sessions --db "$DB" show 1 | grep -q '^state file' && fail "show 1 has a state file line" || ok
# the plain list is unchanged
"$RWKV_TUI" sessions --db "$DB" list | head -1 | grep -Eq '^ *ID +UPDATED +TURNS +TITLE' && ok ||
    fail "plain list header: $("$RWKV_TUI" sessions --db "$DB" list | head -1)"
expect_fail "--json on show" 'only|--json is an option of .sessions list.' \
    "$RWKV_TUI" sessions --db "$DB" show 1 --json
"$RWKV_TUI" sessions --help | grep -q 'list \[--json\]' && ok || fail "--help does not mention --json"
finish
