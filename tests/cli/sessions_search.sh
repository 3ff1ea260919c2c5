#!/usr/bin/env bash
# tests/cli/sessions_search.sh -- `rwkv-tui sessions search`: words match as
# prefixes ("pango" finds "pangolins"), all words required, and quotes or
# FTS5 operators typed by the user are text (never an SQL/FTS error).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/s.db

cat > "$TMP/chat.json" <<'JSON'
{"format": "rwkv-tui-session", "version": 1, "title": "Pangolin facts",
 "created_ms": 1700000000000, "strategy": "cpu fp32", "model": null, "head": 2,
 "turns": [
  {"id": 1, "parent": null, "role": "user", "text": "Where do pangolins sleep?",
   "tokens": [85], "time_ms": 1700000000001},
  {"id": 2, "parent": 1, "role": "assistant", "text": "In burrows, nearby termites.",
   "tokens": [73], "time_ms": 1700000000002}
 ]}
JSON
"$T" sessions --db "$DB" import "$TMP/chat.json" >/dev/null && ok || fail "import"

out=$("$T" sessions --db "$DB" search pango) &&
    [ "$(printf '%s\n' "$out" | grep -c '^session 1 turn')" = 1 ] &&
    case $out in *"[pangolins]"*) ok ;; *) fail "prefix: $out" ;; esac || fail "prefix search: $out"
out=$("$T" sessions --db "$DB" search 'burr term') &&
    case $out in *"turn 2 (assistant)"*) ok ;; *) fail "two prefixes: $out" ;; esac || fail "two prefixes"
out=$("$T" sessions --db "$DB" search 'burr zebra') &&
    case $out in *"no matches"*) ok ;; *) fail "all words required: $out" ;; esac || fail "all words"
out=$("$T" sessions --db "$DB" search 'NEAR(') &&
    case $out in *"[nearby]"*) ok ;; *) fail "NEAR( is a word: $out" ;; esac || fail "NEAR("
for q in '"' '*' 'AND' 'NEAR(' '-' '"pango' 'a"b' '(' 'text:pango' '^x' 'OR NOT'; do
    if out=$("$T" sessions --db "$DB" search "$q" 2>&1); then ok
    else fail "search [$q] failed: $out"; fi
done
expect_fail "empty search" "empty text" "$T" sessions --db "$DB" search '   '
finish
