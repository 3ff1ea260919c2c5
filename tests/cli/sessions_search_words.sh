#!/usr/bin/env bash
# tests/cli/sessions_search_words.sh -- `sessions search a b`: the words not
# quoted for the shell are one TEXT, joined with spaces, as a search box
# takes them (`search a b` is `search 'a b'`: every word, in any order); it
# was a bare usage error ("usage: rwkv-tui sessions search TEXT", exit 2).
# A quoted phrase stays one word among them; --help says so.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/s.db

cat > "$TMP/i.json" <<'JSON'
{"format": "rwkv-tui-session", "version": 1, "title": "Pangolin facts",
 "created_ms": 1700000000000, "strategy": "cpu fp32", "model": null,
 "turns": [
  {"id": 1, "parent": null, "role": "user", "text": "Tell me about B1 from the zoo", "time_ms": 1700000000002},
  {"id": 2, "parent": 1, "role": "assistant", "text": "Scaly mammals, pangolins", "time_ms": 1700000000003}
 ]}
JSON
"$T" sessions --db "$DB" import "$TMP/i.json" >/dev/null 2>"$TMP/err" && ok || fail "import: $(cat "$TMP/err")"

s() { "$T" sessions --db "$DB" search "$@" 2>"$TMP/err"; }
out=$(s B1 from) && ok || fail "search B1 from: exit $?: $(cat "$TMP/err")"
[ "$out" = "$(s 'B1 from')" ] && ok || fail "search B1 from is not search 'B1 from': $out"
case $out in *"turn 1 (user)"*"[B1] [from]"*) ok ;; *) fail "search B1 from: '$out'" ;; esac
out=$(s from zoo B1 about) && case $out in *"turn 1 (user)"*) ok ;; *) fail "4 words: '$out'" ;; esac ||
    fail "4 words: exit: $(cat "$TMP/err")"
out=$(s from zebra) && case $out in "no matches for 'from zebra'") ok ;; *) fail "every word: '$out'" ;; esac ||
    fail "from zebra: $(cat "$TMP/err")"
out=$(s '"scaly mammals"' pangolins) &&
    case $out in *"turn 2 (assistant)"*"[Scaly mammals], [pangolins]"*) ok ;; *) fail "phrase + word: '$out'" ;; esac ||
    fail "phrase + word: $(cat "$TMP/err")"
out=$(s '"mammals scaly"' pangolins) &&
    case $out in "no matches for"*) ok ;; *) fail "a phrase out of order matched: '$out'" ;; esac ||
    fail "phrase out of order: $(cat "$TMP/err")"
out=$(s -- --from zoo) && case $out in "no matches for '--from zoo'") ok ;; *) fail "after --: '$out'" ;; esac ||
    fail "after --: $(cat "$TMP/err")"
rc_is "no words" 2 '^rwkv-tui: sessions search: usage: rwkv-tui sessions search TEXT\.\.\.$' \
    "$T" sessions --db "$DB" search
rc_is "blank words" 2 'nothing to search for' "$T" sessions --db "$DB" search ' ' ' '
help=$("$T" sessions --help | sed -n '/^  search TEXT/,/^  [a-z]/p' | tr -s ' \n' ' ')
case $help in *"search TEXT... "*"words not quoted for the shell are one TEXT (search a b is search 'a b', both words)"*) ok ;;
*) fail "--help: $help" ;; esac
finish
