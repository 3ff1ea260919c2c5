#!/usr/bin/env bash
# tests/cli/import_nodb.sh -- a `sessions import` that fails (a missing
# file, `{}`, a Markdown export, a file with a bad turn deep inside) creates
# no database: the file is read and checked before the database is opened
# (it left a new empty 1 MB database behind; only saving creates one).  A
# good file still creates it; an existing database is opened as before.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/n.db
cd "$TMP" || exit 1

none_made() {   # DESC: no file of the database is there
    if [ -e "$D" ] || [ -e "$D-wal" ] || [ -e "$D-shm" ] || [ -e "$D-journal" ]; then
        fail "$1: a database was created: $(ls "$TMP" | tr "\n" " ")"
        rm -f "$D" "$D-wal" "$D-shm" "$D-journal"
    else
        ok
    fi
}

good='{"format": "rwkv-tui-session", "version": 1, "title": "x",
 "turns": [{"id": 1, "role": "user", "text": "a"},
 {"id": 2, "parent": 1, "role": "assistant", "text": "b"}]}'

expect_fail "a missing file" "^rwkv-tui: .*nonexist\\.json" "$T" sessions --db "$D" import "$TMP/nonexist.json"
none_made "a missing file"
printf '{}' >empty.json
expect_fail "{}" "^rwkv-tui: empty\\.json: not a rwkv-tui session export" "$T" sessions --db "$D" import empty.json
none_made "{}"
printf '# a chat\n\n**User:** hi\n' >chat.md
expect_fail "a Markdown export" "^rwkv-tui: chat\\.md: a Markdown export" "$T" sessions --db "$D" import chat.md
none_made "a Markdown export"
printf '' | "$T" sessions --db "$D" import - >/dev/null 2>&1 && fail "an empty stdin imported" || ok
none_made "an empty stdin"
# the last turn's error, found only when the turns are read
printf '%s' "$good" | sed 's/"role": "assistant"/"role": "robot"/' >bad.json
expect_fail "a bad turn" "^rwkv-tui: bad\\.json: turn 2: \"role\" must be" "$T" sessions --db "$D" import bad.json
none_made "a bad turn"
printf '%s' "$good" | sed 's/"title": "x",/"title": "x", "head": 9,/' >head.json
expect_fail "a bad head" "^rwkv-tui: head\\.json: \"head\" 9 is not a turn of the file" \
    "$T" sessions --db "$D" import head.json
none_made "a bad head"

# a good file creates it; then a bad one changes nothing in it
printf '%s' "$good" >good.json
"$T" sessions --db "$D" import good.json >out 2>err && grep -q 'as session 1' out && ok ||
    fail "good import: $(cat out err)"
[ -e "$D" ] && ok || fail "no database after a good import"
"$T" sessions --db "$D" import bad.json >/dev/null 2>&1 && fail "bad.json imported" || ok
[ "$("$T" sessions --db "$D" list --json | grep -c '"id"')" = 1 ] && ok ||
    fail "sessions after a refused import: $("$T" sessions --db "$D" list)"
"$T" sessions --db "$D" import - <good.json >out 2>err && grep -q 'imported stdin as session 2' out && ok ||
    fail "import - : $(cat out err)"
finish
