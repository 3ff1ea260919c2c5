#!/usr/bin/env bash
# tests/cli/import_cut_short.sh -- `sessions import` of an export cut short
# (a copy or a download not finished).  It said what the JSON parser saw at
# the file's end, "JSON expected ',' or ']' at byte 6182" (the file's
# length), "JSON unterminated string at byte 999991" (where the last string
# began), or for a file over 16 MiB "not a rwkv-tui session export
# (malformed JSON)": a syntax error to hunt for.  Now one line says the file
# ends inside the export, cut short; a real syntax error inside the file is
# still named at its byte, and a whole file still imports.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
cd "$TMP" || exit 1
export HOME=$TMP/home XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/cfg
unset RWKV_VOCAB

printf 'hello there\nand more\n' | "$T" chat --demo --db d.db --seed 1 --max-tokens 20 >/dev/null 2>"$TMP/e" ||
    fail "chat --demo: $(cat "$TMP/e")"
"$T" sessions --db d.db export 1 --format json --out d.json 2>"$TMP/e" || fail "export: $(cat "$TMP/e")"
len=$(stat -c %s d.json)

# cut N: the first N bytes of d.json as c.json; its import is refused as cut
cut_at() {
    local n=$1 desc=$2
    head -c "$n" d.json >c.json
    expect_fail "$desc (cut at $n of $len)" \
        "^rwkv-tui: c\.json: the file ends at byte [0-9]+ inside the export: cut short \(a copy or a download not finished\?\)$" \
        "$T" sessions --db one.db import c.json
}
cut_at 40 "in the header"
cut_at $((len / 2)) "in the turns"
cut_at $((len - 3)) "before the last brackets"
# inside a string: the text of the first turn
at=$(grep -bo '"text": "' d.json | head -n 1 | cut -d: -f1)
cut_at $((at + 14)) "inside a string"
[ ! -e one.db ] && ok || fail "a refused file made a database"

# a syntax error inside the file: still its byte
python3 - <<'EOF'
s = open("d.json").read()
i = s.index('"title"')
open("bad.json", "w").write(s[:i] + '"title" "x", ' + s[i:])
EOF
expect_fail "a syntax error inside" "^rwkv-tui: bad\.json: JSON expected ':' at byte [0-9]+$" \
    "$T" sessions --db one.db import bad.json

# a file over 16 MiB (too large for the parser's diagnosis), cut in its turns
python3 - <<'EOF'
s = open("d.json").read()
i = s.index('"turns": [') + len('"turns": [')
big = s[:i] + " " * (17 << 20) + s[i:]
open("big.json", "w").write(big[:(17 << 20) + i + 200])
EOF
expect_fail "a big file cut" \
    "^rwkv-tui: big\.json: the file ends at byte [0-9]+ inside the export: cut short " \
    "$T" sessions --db one.db import big.json

# the whole file imports
out=$("$T" sessions --db one.db import d.json 2>/dev/null) && [ "$out" = "imported d.json as session 1" ] && ok ||
    fail "the whole file: $out"
finish
