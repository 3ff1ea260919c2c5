#!/usr/bin/env bash
# tests/tui/sessions_columns.sh -- F2's rows are columns: the turns, #id,
# model and date start at the same column on every row, whatever the
# title's width (a title too long for its column is cut with an ellipsis,
# a CJK one counted in cells), at 80x24 and at 40 columns; resizing keeps
# them lined up.  (They moved with each title's width.)
. "$(dirname "$0")/tmuxlib.sh"

# session TITLE N: N exchanges under the greeting
imp() {
    python3 - "$1" "$2" >"$TMP/i.json" <<'PY'
import json, sys
title, n = sys.argv[1], int(sys.argv[2])
turns = [{"id": 1, "parent": None, "role": "system", "text": "hi", "time_ms": 1700000000001}]
for i in range(n):
    turns.append({"id": 2 * i + 2, "parent": 2 * i + 1, "role": "user", "text": "q %d" % i,
                  "time_ms": 1700000000002 + 2 * i})
    turns.append({"id": 2 * i + 3, "parent": 2 * i + 2, "role": "assistant", "text": "a %d" % i,
                  "time_ms": 1700000000003 + 2 * i})
print(json.dumps({"format": "rwkv-tui-session", "version": 1, "title": title,
                  "created_ms": 1700000000000, "strategy": "cpu fp32", "model": None, "turns": turns}))
PY
    "$RWKV_TUI" sessions --db "$DB" import "$TMP/i.json" >/dev/null 2>"$TMP/imp.err" ||
        fail "import $1: $(cat "$TMP/imp.err")"
}
LONG="A title far too long for its column in the sessions menu at eighty columns wide"
imp "x" 1
imp "$LONG" 6
imp "中文标题" 1
for i in $(seq 4 11); do imp "plain $i" $((i % 3 + 1)); done

# aligned N: on N session rows or more (one with " turns  #"), where " turns  #",
# the date and the end of the row start, in cells; ONE set of columns
aligned() {
    screen | python3 -c '
import re, sys, unicodedata
def cells(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
cols = set()
n = 0
for line in sys.stdin.read().split("\n"):
    if "│─" in line:
        break                # the selected row whole under the list
    m = re.search(r" turns  #", line)
    d = re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", line)
    if not m:
        continue
    n += 1
    cols.add((cells(line[:m.start()]), cells(line[:d.start()]) if d else -1))
print(n, len(cols), sorted(cols))
sys.exit(0 if n >= int(sys.argv[1]) and len(cols) == 1 else 1)' "$1"
}

W=80 H=24 tui_start
keys F2
check "sessions menu" 'Enter resume'
check "every row" 'plain 11'
if out=$(aligned 11); then ok; else fail "80x24: the columns move: $out"; screen | sed 's/^/    | /'; fi
check "80x24: the long title cut with an ellipsis" 'A title far too long for.*…  +12 turns  #2 '
keys End Up
check "80x24: the long title selected: whole under the list" '^ │  A title far too long .* at eighty +│$'
check "80x24: ... its end wrapped" '^ │  columns wide  12 turns  #2 '

# the short titles are padded, not cut
check "80x24: the CJK title whole" '中文标题 +2 turns  #3 '
keys Escape
check_not "closed" 'Enter resume'

# 40 columns: the titles get a third of the row, the details follow in line
# (cut: the selected row is whole under the list)
tui_resize 40 24
keys F2
check "40x24: sessions menu" 'plain 11'
if out=$(aligned 11); then ok; else fail "40x24: the columns move: $out"; screen | sed 's/^/    | /'; fi
check "40x24: the CJK title in its column" '中文标题 +2 turns'
check "40x24: the long title cut" 'A title f…  12 turns  #2 '
# a resize with the menu open keeps the rows lined up
tui_resize 80 24
check "80x24 again" 'A title far too long'
if out=$(aligned 11); then ok; else fail "resized: the columns move: $out"; screen | sed 's/^/    | /'; fi
keys Escape
tui_quit
tui_finish
