#!/usr/bin/env bash
# tests/cli/import_blank_title.sh -- a `sessions import` of a file whose
# "title" is "" or blanks still imports, and the session is titled as a new
# chat is, from its first message (store_title_auto: its first line, cut at
# 60 bytes after a whole word with an ellipsis); before, it kept the blank
# title, which `sessions list` showed as nothing and F2 as a blank row
# while rename / fork --title refuse one.  A file with no message stays
# untitled (as a new chat with none), not blanks.  A title given is kept.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/t.db
cd "$TMP" || exit 1

# mk FILE TITLE FIRST: an export titled TITLE (a JSON string's inside)
# whose first message is FIRST, under a greeting turn
mk() {
    printf '{"format": "rwkv-tui-session", "version": 1, "title": "%s",
 "turns": [{"id": 1, "role": "system", "text": "hello"},
 {"id": 2, "parent": 1, "role": "user", "text": "%s"},
 {"id": 3, "parent": 2, "role": "assistant", "text": "b"},
 {"id": 4, "parent": 3, "role": "user", "text": "second"}]}' "$2" "$3" >"$1"
}
# title_of ID: the session's title as `sessions list --json` gives it
title_of() {
    "$T" sessions --db "$D" list --json | python3 -c '
import json, sys
for s in json.load(sys.stdin):
    if s["id"] == int(sys.argv[1]):
        print(s["title"])' "$1"
}
# imports DESC FILE WANT: imported (exit 0), its title WANT
imports() {
    local out id got
    if ! out=$("$T" sessions --db "$D" import "$2" 2>&1); then
        fail "$1: import failed: $out"
        return
    fi
    id=$("$T" sessions --db "$D" list --json | python3 -c 'import json,sys; print(max(s["id"] for s in json.load(sys.stdin)))')
    got=$(title_of "$id")
    [ "$got" = "$3" ] && ok || fail "$1: title '$got', not '$3'"
}

mk empty.json "" "what is the weather like\\nin Paris"
imports '"title": ""' empty.json "what is the weather like"
mk blank.json "   " "tell me a story"
imports '"title": "   "' blank.json "tell me a story"
mk tabs.json "\\t \\n" "tabs and a line break"
imports '"title": "\\t \\n" (blank once cleaned)' tabs.json "tabs and a line break"
long="one two three four five six seven eight nine ten eleven twelve thirteen"
mk long.json "" "$long"
imports 'a long first message: the new-chat rule' long.json \
    "one two three four five six seven eight nine ten eleven…"
mk kept.json "my title" "not this"
imports 'a title given is kept' kept.json "my title"
# no message at all: untitled (""), not blanks
printf '{"format": "rwkv-tui-session", "version": 1, "title": "  ",
 "turns": [{"id": 1, "role": "system", "text": "hello"}]}' >greet.json
imports 'no message: untitled' greet.json ""
# what rename refuses, the import never leaves: no title of blanks
n=$(sqlite3 "$D" "select count(*) from sessions where title <> '' and trim(title) = ''" 2>/dev/null)
[ "${n:-0}" = 0 ] && ok || fail "$n sessions titled with blanks"
finish
