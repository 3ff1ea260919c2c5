#!/usr/bin/env bash
# tests/cli/sessions_search_output.sh -- `rwkv-tui sessions search`:
# - the greeting (the framing's opening, a system turn) is not searched: the
#   demo greeting's words ("answer", "question", "expert") found every
#   default-framed session; titles and messages still are;
# - an empty phrase ('""', '" "') is nothing to search for (usage, exit 2),
#   not "no matches";
# - a cut search names every matching session in one sentence wrapped at 80
#   columns (300 ids were one 1.5 kB line); a short list stays one line.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/s.db
GREET="User: hi\\n\\nAssistant: Hi. I am your assistant and I will provide expert full response in full details. Please feel free to ask any question and I will always answer it."

# session TITLE MSG: the greeting, MSG, a reply
imp() {
    cat > "$TMP/i.json" <<JSON
{"format": "rwkv-tui-session", "version": 1, "title": "$1",
 "created_ms": 1700000000000, "strategy": "cpu fp32", "model": null,
 "turns": [
  {"id": 1, "parent": null, "role": "system", "text": "$GREET", "time_ms": 1700000000001},
  {"id": 2, "parent": 1, "role": "user", "text": "$2", "time_ms": 1700000000002},
  {"id": 3, "parent": 2, "role": "assistant", "text": "ok $3", "time_ms": 1700000000003}
 ]}
JSON
    "$T" sessions --db "$DB" import "$TMP/i.json" >/dev/null 2>"$TMP/imp.err" ||
        fail "import $1: $(cat "$TMP/imp.err")"
}
imp "one" "what is the answer?" a
imp "two" "tell me about pangolins" b
imp "three" "nothing here" c

# F6: the greeting is not a message
out=$("$T" sessions --db "$DB" search answer)
printf '%s\n' "$out" | grep -Eqx 'session 1 turn [0-9]+ \(user\) one: what is the \[answer\]\?' && ok ||
    fail "'answer' matches the greetings: $out"
out=$("$T" sessions --db "$DB" search expert)
[ "$out" = "no matches for 'expert'" ] && ok || fail "'expert' (only in the greeting): $out"
out=$("$T" sessions --db "$DB" search 'question answer')
[ "$out" = "no matches for 'question answer'" ] && ok || fail "'question answer': $out"
out=$("$T" sessions --db "$DB" search am)
[ "$out" = "no matches for 'am'" ] && ok || fail "'am' (2 characters, a scan): $out"
out=$("$T" sessions --db "$DB" search pangolin)
printf '%s\n' "$out" | grep -Eqx 'session 2 turn [0-9]+ \(user\) two: tell me about \[pangolin\]s' && ok || fail "a message: $out"
out=$("$T" sessions --db "$DB" search three)
[ "$out" = "session 3 (title): [three]" ] && ok || fail "a title: $out"
out=$("$T" sessions --db "$DB" search 'ok c')
printf '%s\n' "$out" | grep -Eqx 'session 3 turn [0-9]+ \(assistant\) three: \[ok\] \[c\]' && ok || fail "a reply: $out"

# C13: an empty phrase is nothing to search for
expect_fail "'\"\"'" '^rwkv-tui: sessions search: nothing to search for' "$T" sessions --db "$DB" search '""'
expect_fail "'\"\" \"\"'" 'nothing to search for' "$T" sessions --db "$DB" search '"" ""'
expect_fail "'\" \"'" 'nothing to search for' "$T" sessions --db "$DB" search '" "'
"$T" sessions --db "$DB" search '""' >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && ok || fail "'\"\"' exits $rc (a usage error is 2)"
out=$("$T" sessions --db "$DB" search '"" pangolin')
printf '%s\n' "$out" | grep -Eqx 'session 2 turn [0-9]+ \(user\) two: tell me about \[pangolin\]s' && ok || fail "'\"\" pangolin': $out"

# C10: 120 sessions match: the ids wrapped at 80 columns, newest first, all there
python3 - "$TMP/many.json" <<'PY'
import json, sys
turns = []
for i in range(60):
    turns.append({"id": 2 * i + 1, "parent": 2 * i if i else None, "role": "user",
                  "text": "hello %d" % i, "time_ms": 1750000000000 + 2 * i})
    turns.append({"id": 2 * i + 2, "parent": 2 * i + 1, "role": "assistant",
                  "text": "reply %d" % i, "time_ms": 1750000000001 + 2 * i})
json.dump({"format": "rwkv-tui-session", "version": 1, "title": "long", "created_ms": 1750000000000,
           "strategy": "cpu fp32", "model": None, "turns": turns}, open(sys.argv[1], "w"))
PY
"$T" sessions --db "$DB" import "$TMP/many.json" >/dev/null || fail "import long"
bad=0
for i in $(seq 120); do
    printf '{"format": "rwkv-tui-session", "version": 1, "title": "t%d", "created_ms": 1700000000000, "strategy": "cpu fp32", "model": null, "turns": [{"id": 1, "parent": null, "role": "user", "text": "hello there", "time_ms": %d}]}' \
        "$i" $((1600000000000 + i)) > "$TMP/s.json"
    "$T" sessions --db "$DB" import "$TMP/s.json" >/dev/null 2>"$TMP/imp.err" || bad=$i
done
[ $bad = 0 ] && ok || fail "import $bad: $(cat "$TMP/imp.err")"
out=$("$T" sessions --db "$DB" search hello)
[ "$(printf '%s\n' "$out" | grep -c '^session ')" = 50 ] && ok ||
    fail "50 hit lines: $(printf '%s\n' "$out" | grep -c '^session ')"
tail=$(printf '%s\n' "$out" | sed -n '/^(the newest 50 matches/,$p')
first=$(printf '%s\n' "$tail" | head -1)
case $first in "(the newest 50 matches; 121 sessions match: 4 124 123 "*) ok ;; *) fail "the count line: $first" ;; esac
long=$(printf '%s\n' "$tail" | awk 'length($0) > 80' | head -1)
[ -z "$long" ] && ok || fail "a line over 80 columns: ${long:0:100}..."
[ "$(printf '%s\n' "$tail" | grep -c '')" -gt 1 ] && ok || fail "not wrapped: ${tail:0:100}..."
# the ids, joined again, are every matching session, newest first, once
ids=$(printf '%s\n' "$tail" | tr '\n' ' ' | sed 's/^.*match: //; s/) *$//' | tr -s ' ')
want="4 $(seq 124 -1 5 | tr '\n' ' ' | sed 's/ $//')"
[ "$ids" = "$want" ] && ok || fail "the ids: '$ids'"
printf '%s\n' "$out" | tail -1 | grep -q ')$' && ok || fail "the sentence does not end the output"
finish
