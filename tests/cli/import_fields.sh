#!/usr/bin/env bash
# tests/cli/import_fields.sh -- `sessions import` names what is wrong:
#   - "version": 2 said "session export version is not 1": now that a newer
#     rwkv-tui wrote it and this one reads version 1 (and 0 or "1" that the
#     version must be 1);
#   - a NUL (\u0000) in a framing name or stop string read "must be a
#     string" (it was one): now that it holds a NUL;
#   - "fingerprint": "zz" in "model" was taken (as 0: another model's row
#     could be linked), and so was a "model" that is no object: refused,
#     naming the field;
#   - a negative "prefill_tps" or "decode_tps", or one that is no number,
#     was taken (shown as a speed, or as 0): refused, naming the turn;
#   - turns without tokens were taken with "the first open replays N
#     turns (0 tokens)", and no resume could go on from them: said at the
#     import; `sessions show` named each (2,000 lines): ten, the rest counted.
# Every refusal: exit 1, one line, nothing imported.  Null speeds and the
# program's own export still import.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
cd "$TMP" || exit 1

edit() {   # edit IN OUT PYTHON: OUT is IN's JSON (d) after the statements
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
refused() {   # refused DESC FILE PATTERN: one line "rwkv-tui: FILE: PATTERN", nothing imported
    local desc=$1 f=$2 pat=$3 n
    n=$(n_sessions one.db)
    expect_fail "$desc" "^rwkv-tui: $f: $pat\$" "$T" sessions --db one.db import "$f"
    [ "$(n_sessions one.db)" = "$n" ] && ok || fail "$desc: something was imported"
}
imports() {
    local out
    out=$("$T" sessions --db one.db import "$2" 2>&1) && ok || fail "$1: refused: $out"
}

printf 'hello there\n' | "$T" chat --demo --db d.db --seed 1 --max-tokens 4 >/dev/null 2>"$TMP/e" ||
    fail "chat --demo: $(cat "$TMP/e")"
"$T" sessions --db d.db export 1 --format json --out d.json 2>"$TMP/e" || fail "export: $(cat "$TMP/e")"
imports "the demo's own export" d.json

edit d.json v2.json 'd["version"] = 2'
refused "version 2" v2.json 'a session export of version 2, written by a newer rwkv-tui: this one reads version 1'
edit d.json v0.json 'd["version"] = 0'
refused "version 0" v0.json '"version" must be 1'
edit d.json vs.json 'd["version"] = "1"'
refused "version \"1\"" vs.json '"version" must be 1'

edit d.json f1.json 'd["framing"] = {"user": "Us\0er"}'
refused "a NUL in a framing name" f1.json 'framing "user" holds a NUL \(\\u0000\)'
edit d.json f2.json 'd["framing"] = {"stop": ["ok", "a\0b"]}'
refused "a NUL in a stop string" f2.json 'framing "stop" holds a NUL \(\\u0000\)'

edit d.json m1.json 'd["model"] = {"path": "/x/m.pth", "fingerprint": "zz", "version": "7.0"}'
refused "fingerprint zz" m1.json '"model": "fingerprint" must be 16 hex digits'
edit d.json m2.json 'd["model"] = {"path": "/x/m.pth", "fingerprint": 12}'
refused "fingerprint a number" m2.json '"model": "fingerprint" must be 16 hex digits'
edit d.json m3.json 'd["model"] = "/x/m.pth"'
refused "model a string" m3.json '"model" must be an object or null'
edit d.json m4.json 'd["model"] = {"path": "/x/m.pth", "fingerprint": "00000000000000ab"}'
imports "a model of 16 hex digits" m4.json

edit d.json t1.json 'd["turns"][2]["prefill_tps"] = -5'
refused "a negative prefill_tps" t1.json 'turn 3: "prefill_tps" must be a number, 0 or more'
edit d.json t2.json 'd["turns"][2]["decode_tps"] = "fast"'
refused "decode_tps a string" t2.json 'turn 3: "decode_tps" must be a number, 0 or more'
edit d.json t3.json 'd["turns"][2]["prefill_tps"] = None; d["turns"][2]["decode_tps"] = None'
imports "null speeds" t3.json

# turns without tokens (a damaged row's export, a file made without them):
# imported, but no chat can go on past the first -- said so at the import
# (it said "the first open replays N turns (0 tokens)", and the resume
# then failed)
edit d.json n1.json 'd["turns"][1].pop("tokens"); d["turns"][2].pop("tokens")'
out=$("$T" sessions --db two.db import n1.json 2>"$TMP/e")
[ $? = 0 ] && [ "$out" = "imported n1.json as session 1" ] &&
    [ "$(cat "$TMP/e")" = "rwkv-tui: n1.json: 2 turns of session 1 hold text without their tokens (a damaged row's export, or a file made without them), the first turn 2: the session reads, searches and exports, and goes on only from before that turn ('sessions fork 1 TURN')" ] &&
    ok || fail "turns without tokens: $out / $(cat "$TMP/e")"
# `sessions show` of such a session: ten damaged turns named, the rest
# counted (one line a turn: 2,000 lines for a long one)
python3 - many.json <<'PY'
import json, sys
turns = [{"id": i, "parent": i - 1 or None, "role": "user" if i % 2 else "assistant",
          "text": "line %d" % i, "time_ms": 1700000000000 + i} for i in range(1, 15)]
json.dump({"format": "rwkv-tui-session", "version": 1, "title": "many", "created_ms": 1700000000000,
           "strategy": "cpu fp32", "model": None, "turns": turns}, open(sys.argv[1], "w"))
PY
"$T" sessions --db three.db import many.json >/dev/null 2>&1 || fail "import many.json"
"$T" sessions --db three.db show 1 >"$TMP/o" 2>"$TMP/e"
[ $? = 1 ] && [ "$(grep -c ' is damaged in the database: ' "$TMP/e")" = 10 ] &&
    [ "$(tail -n 1 "$TMP/e")" = "rwkv-tui: sessions show: and 4 more damaged turns (14 in all; [damaged] marks each)" ] &&
    [ "$(grep -c '^#[0-9]* .*\[damaged\]:$' "$TMP/o")" = 14 ] && ok || fail "show: $(cat "$TMP/e")"
finish
