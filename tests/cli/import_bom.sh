#!/usr/bin/env bash
# tests/cli/import_bom.sh -- `sessions import` of an export an editor saved
# with a UTF-8 byte order mark in front (RFC 8259 lets a parser ignore one):
# imported as the same file without it, and an error in such a file is placed
# at its byte in the file, the mark counted.  It was refused ("this file with
# byte 0xef").
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI

printf 'hello there\n' | "$T" chat --demo --db "$TMP/d.db" --seed 1 >/dev/null 2>&1 || fail "chat --demo"
"$T" sessions --db "$TMP/d.db" export 1 --format json --out "$TMP/d.json" 2>/dev/null || fail "export"
printf '\357\273\277' | cat - "$TMP/d.json" >"$TMP/bom.json"
"$T" sessions --db "$TMP/one.db" import "$TMP/bom.json" >"$TMP/imp.out" 2>&1 && ok || fail "import with a BOM: $(cat "$TMP/imp.out")"
"$T" sessions --db "$TMP/two.db" import "$TMP/d.json" >/dev/null 2>&1 || fail "import without"
a=$("$T" sessions --db "$TMP/one.db" show 1 2>&1); b=$("$T" sessions --db "$TMP/two.db" show 1 2>&1)
[ -n "$a" ] && [ "$a" = "$b" ] && ok || fail "the BOM file's session differs: $a / $b"
"$T" sessions --db "$TMP/one.db" export 1 --format json --out "$TMP/back.json" 2>/dev/null || fail "export back"
cmp -s "$TMP/back.json" "$TMP/d.json" && ok || fail "the re-export differs from the file without the mark"
# an error is placed by the file's bytes, the mark counted
sed 's/"turns"/"turns" x/' "$TMP/d.json" >"$TMP/bad.json"
printf '\357\273\277' | cat - "$TMP/bad.json" >"$TMP/badbom.json"
e1=$("$T" sessions --db "$TMP/x.db" import "$TMP/bad.json" 2>&1); rc1=$?
e2=$("$T" sessions --db "$TMP/y.db" import "$TMP/badbom.json" 2>&1); rc2=$?
n1=$(printf '%s' "$e1" | grep -o 'at byte [0-9]*' | head -1 | grep -o '[0-9]*')
n2=$(printf '%s' "$e2" | grep -o 'at byte [0-9]*' | head -1 | grep -o '[0-9]*')
[ "$rc1" -ne 0 ] && [ "$rc2" -ne 0 ] && ok || fail "a broken file was imported ($rc1 $rc2)"
[ -n "$n1" ] && [ "$n2" = $((n1 + 3)) ] && ok || fail "positions: without the mark '$e1', with it '$e2'"
finish
