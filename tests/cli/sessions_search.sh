#!/usr/bin/env bash
# tests/cli/sessions_search.sh -- `rwkv-tui sessions search`: words match as
# substrings in any script ("ango" finds "pangolins", a Chinese word inside a
# sentence is found), titles match, all words are required, words under 3
# characters work, and quotes or FTS5 operators typed by the user are text
# (never an SQL/FTS error).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/s.db

cat > "$TMP/chat.json" <<'JSON'
{"format": "rwkv-tui-session", "version": 1, "title": "Pangolin facts",
 "created_ms": 1700000000000, "strategy": "cpu fp32", "model": null, "head": 2,
 "turns": [
  {"id": 1, "parent": null, "role": "user", "text": "Where do pangolins sleep?",
   "tokens": [85, 115, 101, 114, 58, 32, 87, 104, 101, 114, 101, 32, 100, 111, 32, 112, 97, 110, 103, 111, 108, 105, 110, 115, 32, 115, 108, 101, 101, 112, 63, 10, 10, 65, 115, 115, 105, 115, 116, 97, 110, 116, 58], "time_ms": 1700000000001},
  {"id": 2, "parent": 1, "role": "assistant", "text": "In burrows, nearby termites. 它们喜欢吃蚂蚁。",
   "tokens": [73, 110, 32, 98, 117, 114, 114, 111, 119, 115, 44, 32, 110, 101, 97, 114, 98, 121, 32, 116, 101, 114, 109, 105, 116, 101, 115, 46, 32, 229, 174, 131, 228, 187, 172, 229, 150, 156, 230, 172, 162, 229, 144, 131, 232, 154, 130, 232, 154, 129, 227, 128, 130], "time_ms": 1700000000002}
 ]}
JSON
"$T" sessions --db "$DB" import "$TMP/chat.json" >/dev/null && ok || fail "import"

out=$("$T" sessions --db "$DB" search pango) &&
    [ "$(printf '%s\n' "$out" | grep -c '^session 1 turn')" = 1 ] &&
    case $out in *"[pango]lins"*) ok ;; *) fail "prefix: $out" ;; esac || fail "prefix search: $out"
# the title matches too
out=$("$T" sessions --db "$DB" search pango) &&
    case $out in *"session 1 (title): [Pango]lin facts"*) ok ;; *) fail "title: $out" ;; esac || fail "title search"
out=$("$T" sessions --db "$DB" search 'facts') &&
    [ "$out" = "session 1 (title): Pangolin [facts]" ] && ok || fail "title only: $out"
# a substring inside a word, any script
out=$("$T" sessions --db "$DB" search ermit) &&
    case $out in *"turn 2 (assistant)"*"t[ermit]es"*) ok ;; *) fail "infix: $out" ;; esac || fail "infix"
out=$("$T" sessions --db "$DB" search 吃蚂蚁) &&
    case $out in *"turn 2 (assistant)"*"[吃蚂蚁]"*) ok ;; *) fail "chinese inside a sentence: $out" ;; esac || fail "cjk"
out=$("$T" sessions --db "$DB" search 蚂) &&
    case $out in *"turn 2 (assistant)"*) ok ;; *) fail "1 character: $out" ;; esac || fail "cjk 1 char"
out=$("$T" sessions --db "$DB" search 'do sleep') &&
    case $out in *"turn 1 (user)"*) ok ;; *) fail "2-character word: $out" ;; esac || fail "short word"
out=$("$T" sessions --db "$DB" search 'burr term') &&
    case $out in *"turn 2 (assistant)"*) ok ;; *) fail "two prefixes: $out" ;; esac || fail "two prefixes"
out=$("$T" sessions --db "$DB" search 'burr zebra') &&
    case $out in *"no matches"*) ok ;; *) fail "all words required: $out" ;; esac || fail "all words"
out=$("$T" sessions --db "$DB" search 'NEAR(') &&
    case $out in *"no matches"*) ok ;; *) fail "NEAR( is text: $out" ;; esac || fail "NEAR("
out=$("$T" sessions --db "$DB" search '"nearby termites"') &&
    case $out in *"[nearby termites]"*) ok ;; *) fail "phrase: $out" ;; esac || fail "phrase"
for q in '"' '*' 'AND' 'NEAR(' '-' '"pango' 'a"b' '(' 'text:pango' '^x' 'OR NOT'; do
    if out=$("$T" sessions --db "$DB" search "$q" 2>&1); then ok
    else fail "search [$q] failed: $out"; fi
done
expect_fail "empty search" "nothing to search for" "$T" sessions --db "$DB" search '   '
finish
