#!/usr/bin/env bash
# tests/cli/sessions_nul.sh -- text another program wrote into the session
# database:
#   - a NUL byte inside a turn's text (Python's sqlite3 binding a str with
#     '\0'), a turn's text stored as a blob with a NUL, and a title with a
#     NUL: `sessions show`, `sessions export` (Markdown and JSON), `sessions
#     list` and a resume's transcript (/history) hold the whole text, the
#     NUL dropped -- they stopped at the NUL (the rows were read as C
#     strings);
#   - a framing whose greeting and names hold a C1 control (U+009B, an 8-bit
#     CSI), U+2028 and a bidi override: `sessions list --json` escapes them
#     (\u009b, \u2028, \u202e) in the framing object as in every other
#     string of it, never a raw C1 byte a terminal in 8-bit mode acts on.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/s.db
command -v python3 >/dev/null || { echo "python3 needed"; echo "0 passed, 1 failed"; exit 1; }

printf 'hi\nagain\n' | "$T" chat --demo --db "$DB" --new nul --seed 1 --max-tokens 3 \
    >/dev/null 2>"$TMP/e" && ok || fail "chat: $(cat "$TMP/e")"
python3 - "$DB" <<'PY' && ok || fail "rows written by another program"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE turns SET text=? WHERE id=(SELECT min(id) FROM turns WHERE role=1)",
          ("hi\x00 after the nul",))
c.execute("UPDATE turns SET text=? WHERE id=(SELECT min(id) FROM turns WHERE role=2)",
          (b"\x00reply after a nul",))
c.execute("UPDATE sessions SET title=?", ("nul\x00 title tail",))
c.execute("UPDATE sessions SET framing=?",
          ('{"greeting": "csi \\u009b31m", "user": "A\\u2028B", "bot": "Bot\\u202e",'
           ' "stop": [], "ban": []}',))
c.commit()
PY

# --- a NUL inside text: the whole text, the NUL dropped ------------------------------------
"$T" sessions --db "$DB" show 1 >"$TMP/show" 2>&1 && ok || fail "show: $(cat "$TMP/show")"
grep -qx 'hi after the nul' "$TMP/show" && ok || fail "show: the message cut: $(cat -v "$TMP/show")"
grep -qx 'reply after a nul' "$TMP/show" && ok || fail "show: the blob reply cut: $(cat -v "$TMP/show")"
grep -qx 'session 1: nul title tail' "$TMP/show" && ok || fail "show: the title cut: $(head -1 "$TMP/show")"
LC_ALL=C grep -q "$(printf '\001')" "$TMP/show" && fail "show: a control byte" || ok
tr -d '\n' <"$TMP/show" | od -An -c | grep -q '\\0' && fail "show: a NUL printed" || ok
"$T" sessions --db "$DB" list >"$TMP/list" 2>&1
grep -q 'nul title tail' "$TMP/list" && ok || fail "list: the title cut: $(cat -v "$TMP/list")"
"$T" sessions --db "$DB" export 1 >"$TMP/md" 2>&1 && ok || fail "export: $(cat "$TMP/md")"
grep -q 'hi after the nul' "$TMP/md" && grep -q 'reply after a nul' "$TMP/md" && ok ||
    fail "export md: cut: $(cat -v "$TMP/md")"
"$T" sessions --db "$DB" export 1 --format json >"$TMP/js" 2>&1 && ok || fail "export json: $(cat "$TMP/js")"
grep -qF '"text": "hi after the nul"' "$TMP/js" && grep -qF '"text": "reply after a nul"' "$TMP/js" &&
    grep -qF '"title": "nul title tail"' "$TMP/js" && ok || fail "export json: cut: $(cat -v "$TMP/js")"
# a resume's transcript
printf '/history\n' | "$T" chat --db "$DB" --session 1 >"$TMP/h" 2>&1 && ok || fail "resume: $(cat "$TMP/h")"
grep -q 'user *hi after the nul$' "$TMP/h" && grep -q 'assistant *reply after a nul$' "$TMP/h" && ok ||
    fail "resume: the transcript cut: $(cat -v "$TMP/h")"

# --- C1, U+2028 and a bidi override in the framing: escaped in list --json ------------------
"$T" sessions --db "$DB" list --json >"$TMP/j" 2>&1 && ok || fail "list --json: $(cat "$TMP/j")"
grep -qF '"greeting": "csi \u009b31m"' "$TMP/j" && grep -qF '"user": "A\u2028B"' "$TMP/j" &&
    grep -qF '"bot": "Bot\u202e"' "$TMP/j" && ok || fail "list --json: framing not escaped: $(cat -v "$TMP/j")"
LC_ALL=C grep -q "$(printf '\302\233')\|$(printf '\342\200\250')\|$(printf '\342\200\256')" "$TMP/j" &&
    fail "list --json: a raw C1, U+2028 or bidi character: $(cat -v "$TMP/j")" || ok
python3 -c 'import json, sys; v = json.load(open(sys.argv[1])); f = v[0]["framing"]
assert f["greeting"] == "csi \x9b31m" and f["user"] == "A\u2028B" and f["bot"] == "Bot\u202e", f' \
    "$TMP/j" 2>"$TMP/pe" && ok || fail "list --json: not the real text: $(cat "$TMP/pe")"
# the JSON export imports back, whole (the rows another program rewrote above
# are no longer their tokens, which an import checks: imported without them)
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); [t.pop("tokens") for t in d["turns"]]
json.dump(d, open(sys.argv[1], "w"))' "$TMP/js"
out=$("$T" sessions --db "$DB" import "$TMP/js" 2>&1) && id=${out##* } && ok || fail "import: $out"
"$T" sessions --db "$DB" show "${id:-0}" 2>&1 | grep -qx 'hi after the nul' && ok ||
    fail "imported copy: $("$T" sessions --db "$DB" show "${id:-0}" 2>&1 | cat -v)"
finish
