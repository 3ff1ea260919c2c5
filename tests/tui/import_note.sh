#!/usr/bin/env bash
# tests/tui/import_note.sh -- F2's C-o says what the first open of the
# imported session replays, in the words `sessions import` prints on stderr
# (one function makes the line for both): an export without its states
# holds none, so the first open replays the whole conversation.
. "$(dirname "$0")/tmuxlib.sh"

W=200 H=30 tui_start --max-tokens 6 --seed 2
type_text "apples are red"
send
check "saved" 'session: apples are red'
"$RWKV_TUI" sessions --db "$DB" export 1 --format json --out "$TMP/s1.json" >/dev/null 2>&1 ||
    fail "sessions export"
# the line the command line says for the same file
"$RWKV_TUI" sessions --db "$TMP/cli.db" import "$TMP/s1.json" >/dev/null 2>"$TMP/cli.err" ||
    fail "sessions import: $(cat "$TMP/cli.err")"
# (the greeting, the message and its reply)
grep -Eq 'no saved states \(sessions export --states carries them\): the first open of session 1 replays 3 turns \([0-9]+ tokens\)$' \
    "$TMP/cli.err" && ok || fail "the command line's note: $(cat "$TMP/cli.err")"
want=$(sed -E 's/.*(replays 3 turns \([0-9]+ tokens\))$/\1/' "$TMP/cli.err")

keys F2 C-o
check "import prompt" 'import the session file'
type_text "$TMP/s1.json"
keys Enter
check "imported, with what its first open replays" \
    "imported .*s1\.json as session 2 \(Enter resumes it\); .*s1\.json: no saved states"
keys Escape M-l
check "the message log holds the same count" "session 2 $(printf '%s' "$want" | sed 's/[().]/\\&/g')"
tui_quit
tui_finish
