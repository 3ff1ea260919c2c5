#!/usr/bin/env bash
# tests/cli/title_line_breaks.sh -- every line break in a session title is
# one space (store_title_clean, utf8_san_line): LF, CR, CR LF (one), NEL,
# U+2028, U+2029, on every path that sets a title -- `chat --new`, `sessions
# rename`, `sessions fork --title`, an import's "title".  A lone CR was
# dropped, gluing the words ("first\rsecond" saved as "firstsecond") while
# U+2028 gave a space and --help says line breaks become spaces.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/t.db
title() { sql_rows "$DB" "SELECT title FROM sessions WHERE id=$1"; }

echo hello | "$T" chat --demo --seed 1 --max-tokens 3 --db "$DB" --new $'first\rsecond' \
    >/dev/null 2>"$TMP/err" && ok || fail "chat --new: $(cat "$TMP/err")"
[ "$(title 1)" = "first second" ] && ok || fail "chat --new with a CR: '$(title 1)'"
grep -q 'new session 1: first second$' "$TMP/err" && ok || fail "the note: $(cat -A "$TMP/err")"

# rename: each break one space, a CR LF one
i=0
for t in $'a\rb' $'a\nb' $'a\r\nb' $'a\xc2\x85b' $'a\xe2\x80\xa8b' $'a\xe2\x80\xa9b' $'a\tb'; do
    i=$((i + 1))
    "$T" sessions --db "$DB" rename 1 "$t" >/dev/null 2>"$TMP/err" || fail "rename $i: $(cat "$TMP/err")"
    [ "$(title 1)" = "a b" ] && ok || fail "rename $i ($(printf '%s' "$t" | od -An -c | tr -s ' ')): '$(title 1)'"
done
"$T" sessions --db "$DB" rename 1 $'one\r\rtwo\r' >/dev/null 2>&1
[ "$(title 1)" = "one  two " ] && ok || fail "two CRs two spaces: '$(title 1)'"
out=$("$T" sessions --db "$DB" list | tail -n 1)
case $out in *"one  two ") ok ;; *) fail "list: '$out'" ;; esac

# fork --title
turn=$(sql_rows "$DB" "SELECT max(id) FROM turns WHERE session_id=1")
"$T" sessions --db "$DB" fork 1 "$turn" --title $'x\ry' >/dev/null 2>"$TMP/err" &&
    ok || fail "fork: $(cat "$TMP/err")"
[ "$(title 2)" = "x y" ] && ok || fail "fork --title with a CR: '$(title 2)'"

# an import's title
"$T" sessions --db "$DB" export 1 --format json --out "$TMP/e.json" 2>/dev/null && ok || fail "export"
python3 - "$TMP/e.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["title"] = "left\rright\u0085end"
json.dump(d, open(sys.argv[1], "w"))
PY
"$T" sessions --db "$DB" import "$TMP/e.json" >/dev/null 2>"$TMP/err" && ok ||
    fail "import: $(cat "$TMP/err")"
[ "$(title 3)" = "left right end" ] && ok || fail "imported title: '$(title 3)'"
finish
