#!/usr/bin/env bash
# tests/cli/import_int_numbers.sh -- `sessions import` of an integer
# sampling value (top_k, max_tokens, chunk, seed) written as a JSON number
# with a point or an exponent: 1e1 and 10.0 were read as 10 (the number
# printed back as "10" before params_int_check saw it), where /set, --top-k
# and a JSON string "1e1" refuse them (params_int.sh).  Now refused in one
# line naming the value and where (the turn, or the session's sampling),
# nothing written; digits alone still import, and a float value may have
# its point.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
cd "$TMP" || exit 1
WHY='written with a point or exponent is not an integer \(digits alone: no sign, point or exponent\)'

# turn FIELD VALUE: a two-turn export whose reply has FIELD: VALUE (raw JSON)
turn() {
    printf '%s' '{"format": "rwkv-tui-session", "version": 1, "title": "x",
 "turns": [{"id": 1, "role": "user", "text": "a"},
 {"id": 2, "parent": 1, "role": "assistant", "text": "b", "sampling": {"'"$1"'": '"$2"'}}]}' >i.json
}
# sess FIELD VALUE: the session's own sampling has it
sess() {
    printf '%s' '{"format": "rwkv-tui-session", "version": 1, "title": "x",
 "sampling": {"'"$1"'": '"$2"'}, "turns": [{"id": 1, "role": "user", "text": "a"}]}' >i.json
}

for c in "top_k 1e1 top-k 10" "top_k 10.0 top-k 10" "max_tokens 2.5 max-tokens 2\\.5" \
         "chunk 1E2 chunk 100"; do
    set -- $c
    turn "$1" "$2"
    expect_fail "turn: $1 $2" "^rwkv-tui: i\\.json: turn 2: $3: $4 $WHY\$" "$T" sessions --db s.db import i.json
done
sess top_k 1e1
expect_fail "session: top_k 1e1" "^rwkv-tui: i\\.json: the session's sampling: top-k: 10 $WHY\$" \
    "$T" sessions --db s.db import i.json
sess seed 3.0
expect_fail "session: seed 3.0" "^rwkv-tui: i\\.json: the session's sampling: seed: 3 $WHY\$" \
    "$T" sessions --db s.db import i.json
[ ! -e s.db ] || [ "$("$T" sessions --db s.db list 2>/dev/null | grep -c 'x')" = 0 ] && ok ||
    fail "a refused import wrote a session: $("$T" sessions --db s.db list)"

# digits alone import; a float value keeps its point
turn top_k 10
"$T" sessions --db s.db import i.json >/dev/null 2>err && ok || fail "top_k 10 refused: $(cat err)"
turn temperature 1e-1
"$T" sessions --db s.db import i.json >/dev/null 2>err && ok || fail "temperature 1e-1 refused: $(cat err)"
finish
