#!/usr/bin/env bash
# tests/tui/kill_yank.sh -- C-u clears the whole input box, every line of
# it wherever the cursor is (README: "C-u only clears the text, to rewrite
# it"), not just the cursor's line; and what a kill deleted comes back with
# C-y, so an accident loses nothing: a pasted 1,200-line text, a message in
# edit mode (M-e), words deleted with C-w in a row (one text, in order).
. "$(dirname "$0")/tmuxlib.sh"

user_turns() { sqlite3 "$DB" "select replace(text, char(10), '|') from turns where role = 1 order by id" 2>&1; }
# last_sent DESC WANT: the last message stored is WANT
last_sent() {
    local t i
    for i in $(seq 100); do t=$(user_turns | tail -1); [ "$t" = "$2" ] && break; sleep 0.1; done
    [ "$t" = "$2" ] && ok || fail "$1: stored '${t:0:100}', not '$2'"
}

W=80 H=24 tui_start --max-tokens 2 --seed 4

# --- a pasted page: C-u takes all of it, C-y brings it back
seq -f 'pasted line %g' 1200 > "$TMP/page.txt"
tmx load-buffer "$TMP/page.txt"
tmx paste-buffer -p
check "the paste is in the box" '^  pasted line 1200 *$' 20
keys C-u
check "C-u: the box is empty" '^> Type a message'
check_not "C-u: no line of the paste left" 'pasted line' 5
keys C-y
check "C-y: the paste is back" '^  pasted line 1200 *$' 20
keys C-u
check "C-u again: empty" '^> Type a message'
type_text "short one"
send
last_sent "C-u, then a message: only it is sent" "short one"

# --- kills in a row add up: C-w C-w, then C-y puts both words back
type_text "one two three"
keys C-w C-w
check "C-w C-w: two words gone" '^> one *$'
keys C-y
check "C-y: both words back, in order" '^> one two three *$'
keys C-u

# --- edit mode: C-u clears every line of the message, not the last one
type_text "first line"
keys C-j
type_text "second line"
keys C-j
type_text "third line"
send
last_sent "a three-line message" "first line|second line|third line"
keys M-e
check "M-e: edit mode" '^\* first line'
keys Up                 # the cursor on the middle line
keys C-u
check "C-u in edit mode: the box is empty (every line)" '^\* Type a message'
type_text "rewritten"
send
last_sent "edit mode: only the new text is sent" "rewritten"

tui_quit
tui_finish
