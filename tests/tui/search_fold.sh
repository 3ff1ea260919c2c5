#!/usr/bin/env bash
# tests/tui/search_fold.sh -- one case folding: C-f in the transcript folds
# as F2's search and `sessions search` do (the store's, store_casefold_cp),
# so the three find the same text.  With "İstanbul" in a message, C-f found
# it by "istanbul" (towlower) while F2 and `sessions search` did not.
. "$(dirname "$0")/tmuxlib.sh"

printf 'we flew to \xc4\xb0stanbul\n' |
    "$RWKV_TUI" chat --demo --db "$DB" --new trip --max-tokens 3 --seed 1 >/dev/null 2>&1 &&
    ok || fail "making the session"
# the sessions search's answer, which C-f and F2 must agree with
if "$RWKV_TUI" sessions --db "$DB" search istanbul 2>/dev/null | grep -q '^session 1 '; then
    want='1/1' f2=1
else
    want='no match' f2=0
fi

W=100 H=24 tui_start --resume
check "resumed" 'we flew to İstanbul'
keys C-f
type_text "istanbul"
check "C-f finds what the sessions search finds" "search: istanbul +$want"
keys C-u
type_text "İSTANBUL"
check "C-f: the same letters in another case" 'search: İSTANBUL +1/1'
keys Escape
keys F2
check "sessions menu" 'Enter resume'
type_text "istanbul"
check "F2's search typed" 'search: istanbul'
if [ $f2 = 1 ]; then
    check "F2 finds it too" 'trip +2 turns'
else
    check "F2 finds nothing either" '\(no match\)'
fi
keys Escape
tui_quit
tui_finish
