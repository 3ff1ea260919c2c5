#!/usr/bin/env bash
# tests/tui/tokens_bare.sh -- the status line's token count is what the
# chat's state holds: the greeting's tokens and each turn's.  A session
# whose first message is a root (imported without its greeting turn) holds
# no greeting, and its count is the sum of its turns' (it added the
# greeting's tokens as if fed); a session with one counts them.
. "$(dirname "$0")/tmuxlib.sh"

printf 'hi\nhow are you\n' | "$RWKV_TUI" chat --demo --db "$TMP/src.db" --new T --max-tokens 3 \
    --seed 1 >/dev/null 2>"$TMP/c.err" && ok || fail "chat: $(cat "$TMP/c.err")"
"$RWKV_TUI" sessions --db "$TMP/src.db" export 1 --format json --out "$TMP/e.json" && ok ||
    fail "export"
python3 - "$TMP/e.json" "$TMP/bare.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
root = [t for t in d["turns"] if t["role"] == "system"][0]["id"]
d["turns"] = [t for t in d["turns"] if t["id"] != root]
for t in d["turns"]:
    if t.get("parent") == root:
        t["parent"] = None
json.dump(d, open(sys.argv[2], "w"))
PY
"$RWKV_TUI" sessions --db "$DB" import "$TMP/e.json" >/dev/null 2>"$TMP/i1.err" && ok ||
    fail "import: $(cat "$TMP/i1.err")"
"$RWKV_TUI" sessions --db "$DB" import "$TMP/bare.json" >/dev/null 2>"$TMP/i2.err" && ok ||
    fail "import without the greeting: $(cat "$TMP/i2.err")"

# the status line's count against the turns' own ("N tok" at each header's
# right, the greeting's "Start" included when there is one)
count_check() {
    local what=$1 plus=${2:-0} s turns status
    s=$(screen)
    turns=$(printf '%s\n' "$s" | sed -n '2,$p' | grep -oE '  [0-9]+ tok *(│|$)' |
            grep -oE '[0-9]+' | awk '{ n += $1 } END { print n + 0 }')
    status=$(printf '%s\n' "$s" | head -1 | grep -oE '\| [0-9]+ tok' | grep -oE '[0-9]+')
    if [ -n "$status" ] && [ "$turns" -gt 0 ] && [ "$status" = $((turns + plus)) ]; then
        ok
    else
        fail "$what: the status line says '$status' tokens, the turns hold $turns (+ $plus)"
        printf '%s\n' "$s" | sed 's/^/    | /'
    fi
}

W=120 H=40 tui_start --session 2
check "the bare session: its turns" 'how are you'
check_not "no greeting in it" 'I am your assistant' 1
count_check "no greeting"
tui_quit
# the greeting's tokens: a new chat's count before its first message
W=120 H=40 tui_start
greet=$(screen | head -1 | grep -oE '\| [0-9]+ tok' | grep -oE '[0-9]+')
[ "${greet:-0}" -gt 0 ] && ok || fail "a new chat counts no greeting: '$greet'"
tui_quit
W=120 H=40 tui_start --session 1
check "the session with its greeting" 'how are you'
count_check "with the greeting" "${greet:-0}"
tui_quit
tui_finish
