#!/usr/bin/env bash
# tests/cli/params_int.sh -- an integer sampling value (top_k, max_tokens,
# chunk, seed) is digits alone wherever it is read, as the CLI's options
# are: the line chat's /set and `sessions import` took "1e1", "5." and "+5"
# (read as 10, 5 and 5) where --top-k refused them.  /set says why in one
# line and the chat goes on; an import is refused, naming the turn.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
cd "$TMP" || exit 1
WHY='is not an integer \(digits alone: no sign, point or exponent\)'

# --- /set: refused, the value unchanged, the chat goes on --------------------
printf '%s\n' '/set top_k 1e1' '/set max_tokens 5.' '/set chunk +5' '/set top-k 0x10' \
    '/set seed 1e3' '/set top_k -0' '/show' '/set top_k  12 ' '/set max_tokens 3' '/show' 'hello' |
    "$T" chat --demo --seed 1 --top-k 7 >out 2>err
rc=$?
[ $rc = 0 ] && ok || fail "/set: exit $rc: $(cat err)"
for v in "top-k: '1e1'" "max-tokens: '5\\.'" "chunk: '\\+5'" "top-k: '0x10'" "seed: '1e3'" \
         "top-k: '-0'"; do
    grep -Eqx "rwkv-tui: /set $v $WHY" err && ok || fail "/set $v: $(cat err)"
done
[ "$(grep -c . err)" = 6 ] && ok || fail "one line each: $(cat err)"
# the first /show: the values as given on the command line and by default
shows=$(grep -E '^  (top_k|max_tokens|chunk) ' out)
first=$(printf '%s\n' "$shows" | head -n 3 | tr -s ' ' | tr '\n' '|')
[ "$first" = " top_k 7 (set)| max_tokens 1000| chunk 256|" ] && ok ||
    fail "refused values changed something: '$first'"
second=$(printf '%s\n' "$shows" | sed -n 4,6p | tr -s ' ' | tr '\n' '|')
[ "$second" = " top_k 12 (set)| max_tokens 3 (set)| chunk 256|" ] && ok ||
    fail "digits (blanks around) still set: '$second'"
grep -q '^Assistant:' out && ok || fail "the chat did not go on to a reply: $(cat out)"

# --- sessions import: a turn's integer value as text -------------------------
for v in '"1e1"' '"5."' '"+5"'; do
    printf '%s' '{"format": "rwkv-tui-session", "version": 1, "title": "x",
 "turns": [{"id": 1, "role": "user", "text": "a"},
 {"id": 2, "parent": 1, "role": "assistant", "text": "b", "sampling": {"top_k": '"$v"'}}]}' >i.json
    pat=$(printf '%s' "$v" | sed 's/"//g; s/[.+]/\\&/g')
    expect_fail "import top_k $v" \
        "^rwkv-tui: i\\.json: turn 2: top-k: '$pat' $WHY\$" \
        "$T" sessions --db s.db import i.json
done
[ ! -e s.db ] || [ "$("$T" sessions --db s.db list | grep -c .)" -le 1 ] && ok ||
    fail "a refused import wrote a session: $("$T" sessions --db s.db list)"
# the same file with digits imports
sed -i 's/"top_k": "+5"/"top_k": "10"/' i.json
"$T" sessions --db s.db import i.json >/dev/null 2>err && ok || fail "digits refused: $(cat err)"
finish
