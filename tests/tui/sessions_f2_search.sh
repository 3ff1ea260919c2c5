#!/usr/bin/env bash
# tests/tui/sessions_f2_search.sh -- F2's as-you-type search matches what
# `sessions search` matches: the messages from the first character typed
# (a one-character query searched the titles only: `w`, `_`, `5`), and never
# the greeting (its words -- "expert", "answer" -- listed every session).
# What a row shows is searched too: "#N" finds session N by its id.
. "$(dirname "$0")/tmuxlib.sh"

# session TITLE MSG: the demo-like greeting, MSG and a reply
imp() {
    python3 - "$1" "$2" >"$TMP/i.json" <<'PY'
import json, sys
g = ("User: hi\n\nAssistant: Hi. I am your assistant and I will provide expert full response "
     "in full details. Please feel free to ask any question and I will always answer it.")
print(json.dumps({"format": "rwkv-tui-session", "version": 1, "title": sys.argv[1],
                  "created_ms": 1700000000000, "strategy": "cpu fp32", "model": None, "turns": [
    {"id": 1, "parent": None, "role": "system", "text": g, "time_ms": 1700000000001},
    {"id": 2, "parent": 1, "role": "user", "text": sys.argv[2], "time_ms": 1700000000002},
    {"id": 3, "parent": 2, "role": "assistant", "text": "fine", "time_ms": 1700000000003}]}))
PY
    "$RWKV_TUI" sessions --db "$DB" import "$TMP/i.json" >/dev/null 2>"$TMP/imp.err" ||
        fail "import $1: $(cat "$TMP/imp.err")"
}
imp "Alpha" "say it with me"
imp "Bravo" "snake_case please"
imp "Charlie" "nothing here"

# the CLI's answers, which F2 must agree with
out=$("$RWKV_TUI" sessions --db "$DB" search w)
case $out in "session 1 turn "*"Alpha: say it [w]ith me") ok ;; *) fail "sessions search w: $out" ;; esac

W=80 H=24 tui_start
keys F2
check "sessions menu" 'Enter resume'
check "the three sessions" 'Charlie'
# one character: the message "say it with me"
type_text "w"
check "search typed" 'search: w'
check "'w': the session whose message holds it" 'Alpha'
check_not "'w': not the others (their greeting has one)" 'Bravo|Charlie' 3
keys C-u
check "cleared" 'Charlie'
type_text "_"
check "'_': the message snake_case" 'Bravo'
check_not "'_': not the others" 'Alpha|Charlie' 3
keys C-u
# the greeting's words are no message's
type_text "expert"
check "'expert': only the greeting has it" '\(no match\)'
check_not "'expert': no session" 'Alpha|Bravo|Charlie' 3
keys C-u
type_text "answer"
check "'answer': no session" '\(no match\)'
keys C-u
# blanks are no search (and no error)
type_text "  "
check "two blanks: every session" 'Charlie'
check_not "two blanks: no error" 'search: search|empty text' 2
keys C-u
# "#2", as the rows show an id (the row's own text): session 2 (Bravo)
type_text "#2"
check "'#2': session 2" 'Bravo'
check_not "'#2': not the others" 'Alpha|Charlie' 3
keys C-u
type_text "#9"
check "'#9': no such session" '\(no match\)'
keys C-u Escape
check_not "closed" 'Enter resume'
tui_quit
tui_finish
