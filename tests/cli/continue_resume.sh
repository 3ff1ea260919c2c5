#!/usr/bin/env bash
# tests/cli/continue_resume.sh -- a /continue after a resume, and the
# session's own sampling values:
#  - the continued reply records its new total as its max_tokens (so it
#    regenerates whole), but the session's max-tokens stays the user's: a
#    resume after it, and the replies after that, use 4, not 8;
#  - a value changed with /set and no reply after it is kept at /quit;
#  - the continued reply keeps its first run's prefill speed (not 0) and a
#    decode speed (as M-r in the process that wrote the reply does).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/c.db

# field TURN KEY: KEY of turn TURN in the JSON export of session 1
# (sampling.KEY for a sampling value)
field() {
    "$T" sessions --db "$D" export 1 --format json | python3 -c '
import json, sys
turn, key = int(sys.argv[1]), sys.argv[2]
for t in json.load(sys.stdin)["turns"]:
    if t["id"] == turn:
        v = t["sampling"][key[9:]] if key.startswith("sampling.") else t[key]
        print(v)' "$1" "$2"
}
# shown NAME: the value /show gives NAME after a resume
shown() {
    printf '/show\n' | "$T" chat --demo --db "$D" --resume 2>/dev/null |
        awk -v n="$1" '$1 == n { print $2 }'
}

printf 'hello there\nhow are you\n' |
    "$T" chat --demo --db "$D" --new first --seed 7 --max-tokens 4 --top-p 0.5 >/dev/null 2>&1
p0=$(field 5 prefill_tps)
[ "$(field 5 sampling.max_tokens)" = 4 ] && ok || fail "first run: max_tokens $(field 5 sampling.max_tokens)"

printf '/continue\n' | "$T" chat --demo --db "$D" --resume >/dev/null 2>"$TMP/err" && ok ||
    fail "continue: $(cat "$TMP/err")"
[ "$(field 5 sampling.max_tokens)" = 8 ] && ok || fail "continued: max_tokens $(field 5 sampling.max_tokens)"
python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not (a > 0 and abs(a - b) <= 1e-6 * a))' \
    "$p0" "$(field 5 prefill_tps)" && ok || fail "prefill_tps $p0 became $(field 5 prefill_tps)"
python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > 0)' "$(field 5 decode_tps)" && ok ||
    fail "decode_tps $(field 5 decode_tps)"

# the session's max-tokens is still the user's 4, and a new reply uses it
[ "$(shown max_tokens)" = 4 ] && ok || fail "resumed max_tokens: $(shown max_tokens)"
printf '/regen\n' | "$T" chat --demo --db "$D" --resume >/dev/null 2>"$TMP/err" && ok ||
    fail "regen: $(cat "$TMP/err")"
[ "$(field 6 sampling.max_tokens)" = 4 ] && ok || fail "regenerated: max_tokens $(field 6 sampling.max_tokens)"

# a value set with no reply after it is kept at quit; --top-p given at
# launch wins for that run only (no reply: not the session's)
printf '/set temperature 0.4\n/quit\n' | "$T" chat --demo --db "$D" --resume >/dev/null 2>&1
[ "$(shown temperature)" = 0.4 ] && ok || fail "temperature not kept: $(shown temperature)"
printf '/quit\n' | "$T" chat --demo --db "$D" --resume --top-p 0.9 >/dev/null 2>&1
[ "$(shown top_p)" = 0.5 ] && ok || fail "top_p: $(shown top_p)"
[ "$(shown max_tokens)" = 4 ] && ok || fail "max_tokens: $(shown max_tokens)"
finish
