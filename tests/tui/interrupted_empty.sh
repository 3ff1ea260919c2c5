#!/usr/bin/env bash
# tests/tui/interrupted_empty.sh -- an interrupted reply says so once: on its
# header, and, when it has text, on the row after its text (where it was
# cut).  One stopped before any text showed "[interrupted]" on its header and
# again on the row below it.  A saved session (a line chat's export, its
# turns replaced): an empty interrupted reply, then one with text.
. "$(dirname "$0")/tmuxlib.sh"

printf 'hello\n' | "$RWKV_TUI" chat --demo --db "$DB" --max-tokens 4 --seed 1 >/dev/null 2>&1 ||
    fail "line chat"
"$RWKV_TUI" sessions --db "$DB" export 1 --format json > "$TMP/s.json" || fail "export"
python3 - "$TMP/s.json" <<'PY' || fail "make the session"
import json, sys
p = sys.argv[1]
d = json.load(open(p))
turns, tid = [d["turns"][0]], d["turns"][0]["id"]
for i, (u, r) in enumerate([("stop at once", ""), ("stop later", " Some words")]):
    turns.append({"id": tid + 1, "parent": tid, "role": "user", "text": u,
                  "tokens": list(("User: %s\n\nAssistant:" % u).encode())})
    turns.append({"id": tid + 2, "parent": tid + 1, "role": "assistant", "text": r,
                  "tokens": list(r.encode()), "interrupted": True})
    tid += 2
d["turns"], d["head"], d["title"] = turns, tid, "cut replies"
json.dump(d, open(p, "w"))
PY
"$RWKV_TUI" sessions --db "$DB" import "$TMP/s.json" >/dev/null 2>&1 || fail "import"

W=50 H=24 tui_start --session 2
check "the session is open" 'Some words'
rows=$(screen_rows)
# the empty reply: its header marked, the row below it blank
printf '%s\n' "$rows" | grep -A1 -E '^RWKV +\[interrupted\]' | head -2 > "$TMP/empty"
[ "$(sed -n 2p "$TMP/empty" | tr -d ' │')" = "" ] && ok ||
    fail "the empty reply's row below its header: '$(sed -n 2p "$TMP/empty")'"
# in all: two headers marked, and one end mark (the reply with text)
n_head=$(printf '%s\n' "$rows" | grep -cE '^RWKV +\[interrupted\]')
n_end=$(printf '%s\n' "$rows" | grep -cE '^  \[interrupted\]')
[ "$n_head" = 2 ] && ok || fail "headers marked: $n_head, want 2"
[ "$n_end" = 1 ] && ok || fail "rows marked after a reply's text: $n_end, want 1
$(printf '%s\n' "$rows" | grep -v '^ *│* *$' | head -20)"
tui_quit
tui_finish
