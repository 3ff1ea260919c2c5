#!/usr/bin/env bash
# tests/cli/import_error_order.sh -- `sessions import` of a file whose turn
# is not valid JSON (a non-finite sampling value, a stray comma) says so as
# every other import error does: the file first, then the turn, then why,
# the byte counted in the file ('i.json: "turns"[1]: JSON bad number at
# byte N'; it said "turn 1: i.json: ... at byte M", M counted from the
# turn).  A turn that parses is named by its "id" ("turn 2").
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/s.db
cd "$TMP" || exit 1

head='{"format": "rwkv-tui-session", "version": 1, "title": "x",
 "turns": [{"id": 1, "role": "user", "text": "a"},
 {"id": 2, "parent": 1, "role": "assistant", "text": "b", "sampling": {"temperature": '
# the byte of VALUE in the file: the length of what comes before it
at=$(printf '%s' "$head" | wc -c)
for v in NaN Infinity; do
    printf '%s%s}}]}' "$head" "$v" >i.json
    expect_fail "$v" "^rwkv-tui: i\\.json: \"turns\"\\[1\\]: JSON bad number at byte $at\$" \
        "$T" sessions --db "$D" import i.json
done
printf '%s1.5},}]}' "$head" >i.json
expect_fail "a stray comma" "^rwkv-tui: i\\.json: \"turns\"\\[1\\]: JSON expected object key at byte $((at + 5))\$" \
    "$T" sessions --db "$D" import i.json
# the rest of the file's errors in the same order, as before
printf '%s1e999}}]}' "$head" >i.json
expect_fail "an overflowing value" "^rwkv-tui: i\\.json: turn 2: temperature: 'inf' is not a number\$" \
    "$T" sessions --db "$D" import i.json
[ ! -e "$D" ] || [ "$("$T" sessions --db "$D" list | grep -c .)" -le 1 ] && ok ||
    fail "a refused import wrote a session: $("$T" sessions --db "$D" list)"
finish
