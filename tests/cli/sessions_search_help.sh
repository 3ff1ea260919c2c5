#!/usr/bin/env bash
# tests/cli/sessions_search_help.sh -- `sessions --help` says what `search`
# matches and how it prints a match, and each thing it says is what the
# search does (storage/store_export.c, store_search):
# - every word in the one title or the one message (a word in the title
#   and another in a message: no match);
# - anywhere, inside a word too; case ignored in every script; accents not;
# - "a phrase" in quotes is one word;
# - the messages of every branch (a regenerated reply too), not the greeting;
# - titles first, then messages; a line each, "session ID (title): ..." or
#   "session ID turn TURN (user|assistant) TITLE: ...", the words in [ ].
# It said "search titles and messages: every word ... must appear as a
# substring, any script": not where (one title or one message), nor case,
# the greeting, the branches or the lines printed.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/s.db

help=$("$T" sessions --help 2>&1) && ok || fail "sessions --help exit $?"
row=$(printf '%s\n' "$help" | sed -n '/^  search TEXT/,/^  [a-z]/p' | sed '$d' | tr -s ' \n' ' ')
for want in 'every word of TEXT, all in the one title or the one message' \
            'inside a word too' 'case ignored in every script, accents not' \
            '"a phrase" in quotes is one word' 'on every branch; not the greeting' \
            'titles first' 'then messages, newest first' '"session ID (title): SNIPPET"' \
            '"session ID turn TURN (user|assistant) TITLE: SNIPPET"' 'the words in [ ]' \
            'at most 50'; do
    case $row in
    *"$want"*) ok ;;
    *) fail "search's help does not say '$want': $row" ;;
    esac
done

# one session: a greeting, a message, its reply and a regenerated one
# (two branches), then a second message on the first branch
cat > "$TMP/i.json" <<'JSON'
{"format": "rwkv-tui-session", "version": 1, "title": "Pangolin facts",
 "created_ms": 1700000000000, "strategy": "cpu fp32", "model": null,
 "turns": [
  {"id": 1, "parent": null, "role": "system", "text": "User: hi\n\nAssistant: a zebra says hello", "time_ms": 1700000000001},
  {"id": 2, "parent": 1, "role": "user", "text": "Tell me about PYTHON snakes", "time_ms": 1700000000002},
  {"id": 3, "parent": 2, "role": "assistant", "text": "Scaly mammals, pangolins", "time_ms": 1700000000003},
  {"id": 4, "parent": 2, "role": "assistant", "text": "Armadillo cousins", "time_ms": 1700000000004},
  {"id": 5, "parent": 3, "role": "user", "text": "and a café near them", "time_ms": 1700000000005}
 ]}
JSON
"$T" sessions --db "$DB" import "$TMP/i.json" >/dev/null 2>"$TMP/imp.err" && ok ||
    fail "import: $(cat "$TMP/imp.err")"

s() { "$T" sessions --db "$DB" search "$@" 2>&1; }
none() { case $(s "$1") in "no matches for "*) ok ;; *) fail "search $1: $2: $(s "$1")" ;; esac; }
has() { s "$1" | grep -Eq -- "$2" && ok || fail "search $1: not /$2/: $(s "$1")"; }

none 'pangolin python' "a word of the title and one of a message matched"
has 'pangolins scaly' '^session 1 turn [0-9]+ \(assistant\) Pangolin facts: \[Scaly\] mammals, \[pangolins\]$'
has 'ytho' '^session 1 turn [0-9]+ \(user\) Pangolin facts: Tell me about P\[YTHO\]N snakes$'
has 'python' 'about \[PYTHON\] snakes'
has 'CAFÉ' 'and a \[café\] near them'
none 'cafe' "an e found an accented e"
has '"about python"' 'me \[about PYTHON\] snakes'
none '"python about"' "the words of a phrase out of order matched"
has 'armadillo' '^session 1 turn [0-9]+ \(assistant\) Pangolin facts: \[Armadillo\] cousins$'
none 'zebra' "the greeting was searched"
first=$(s 'pangolin' | sed -n 1p)
[ "$first" = "session 1 (title): [Pangolin] facts" ] && ok || fail "titles first: '$first'"
[ "$(s 'pangolin' | wc -l)" = 2 ] && ok || fail "pangolin: not two lines: $(s pangolin)"
finish
