#!/usr/bin/env bash
# tests/tui/search_many.sh -- F2's search lists every session with a match,
# however many hits two long chats have (it kept the sessions of the first
# 200 turn hits, newest first: two 150-message chats filled them and the
# older short ones were hidden, as if gone); `sessions search` says when its
# 50 lines were cut and which sessions match.
. "$(dirname "$0")/tmuxlib.sh"

# session T: N messages "WORD i" (each with a reply), from time T0 on
mk() {
    python3 - "$1" "$2" "$3" "$4" >"$TMP/$1.json" <<'PY'
import json, sys
title, n, t0, word = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
turns = []
for i in range(n):
    turns.append({"id": 2 * i + 1, "parent": 2 * i if i else None, "role": "user",
                  "text": "%s %d" % (word, i), "time_ms": t0 + 2 * i})
    turns.append({"id": 2 * i + 2, "parent": 2 * i + 1, "role": "assistant",
                  "text": "reply %d" % i, "time_ms": t0 + 2 * i + 1})
print(json.dumps({"format": "rwkv-tui-session", "version": 1, "title": title,
                  "created_ms": t0, "strategy": "cpu fp32", "model": None, "turns": turns}))
PY
    "$RWKV_TUI" sessions --db "$DB" import "$TMP/$1.json" >/dev/null 2>"$TMP/imp.err" ||
        fail "import $1: $(cat "$TMP/imp.err")"
}
mk shortalpha 2 1750000000000 hello
mk shortbeta 3 1750000001000 hello
mk unrelated 3 1750000002000 other
mk longgamma 150 1750000003000 hello
mk longdelta 150 1750000004000 hello

W=120 H=40 tui_start
keys F2
check "sessions menu" 'Enter resume'
type_text "hello"
check "search typed" 'search: hello'
check "the long chats match" 'longdelta'
check "... and the first short one" 'shortalpha'
check "... and the second short one" 'shortbeta'
check_not "the one without a match is hidden" 'unrelated' 1
keys Escape
tui_quit

# the CLI: 50 lines, then which sessions match
out=$("$RWKV_TUI" sessions --db "$DB" search hello)
[ "$(printf '%s\n' "$out" | grep -c '^session ')" = 50 ] && ok ||
    fail "sessions search: $(printf '%s\n' "$out" | grep -c '^session ') lines"
printf '%s\n' "$out" | tail -1 | grep -qx '(the newest 50 matches; 4 sessions match: 5 4 2 1)' && ok ||
    fail "sessions search: the cut is not said: $(printf '%s\n' "$out" | tail -1)"
out=$("$RWKV_TUI" sessions --db "$DB" search other)
printf '%s\n' "$out" | grep -q 'sessions match' && fail "a search under 50 hits says it was cut: $out" || ok
tui_finish
