#!/usr/bin/env bash
# tests/tui/preset_damaged.sh -- F4 on a damaged preset row (its sampling
# text tampered with: a value that is no integer, words that are no
# name=value): the list marks it, and Enter says which preset and what is
# wrong in one line -- before, the line was the row's own words alone
# ("top-k: '1e1' is not an integer ..."), naming no preset.  Nothing is
# loaded; a sound preset still loads.
. "$(dirname "$0")/tmuxlib.sh"

if ! command -v sqlite3 >/dev/null 2>&1; then
    skip 8 "sqlite3 not found"
    tui_finish
    exit
fi
printf 'hi\n' | "$RWKV_TUI" chat --demo --db "$DB" --seed 1 --max-tokens 2 >/dev/null 2>&1
sqlite3 "$DB" "INSERT INTO presets(name, builtin, sampling) VALUES
    ('broken', 0, 'temperature=0.4 top_k=1e1'), ('junk', 0, 'garbage'), ('fine', 0, 'temperature=0.7')" ||
    fail "preset rows"

W=160 tui_start
keys F4
check "presets menu" ' Presets '
check "the list marks it" 'broken +damaged \(Enter says why\)'
type_text "broken"
keys Enter
check "Enter names the preset and what is wrong" \
    "preset 'broken' is damaged, nothing loaded: top-k: '1e1' is not an integer"
check "nothing loaded" 'temperature +1 *$'
keys F4
type_text "junk"
keys Enter
check "the other one too" "preset 'junk' is damaged, nothing loaded: sampling values 'garbage': expected name=value"
keys F4
type_text "fine"
keys Enter
check "a sound one loads" "preset 'fine' loaded"
check "... its value" 'temperature +0\.7 *$'
tui_quit
tui_finish
