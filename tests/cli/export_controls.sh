#!/usr/bin/env bash
# export_controls.sh -- a turn's control characters survive a JSON export
# and its import (store_text_utf8): the chat keeps a user's 0x01 or 0x7f (a
# lone "\r" is a line break: chat_normalize) in the text, the JSON writes them escaped (\r, \u0001), as
# the README promises every JSON string, and the import keeps them: the
# same bytes in both sessions.  Only ill-formed UTF-8 becomes U+FFFD, and the
# Markdown export still cleans them (text read as text).
. "$(dirname "$0")/lib.sh"
DB=$TMP/s.db
printf 'a\rb\001c\177d\n' | "$RWKV_TUI" chat --demo --db "$DB" --new ctl --max-tokens 2 >/dev/null 2>&1 ||
    fail "chat"
hex=$(sqlite3 "$DB" "select hex(text) from turns where role=1" 2>/dev/null)
[ "$hex" = 610A6201637F64 ] && ok || fail "saved text: $hex"
"$RWKV_TUI" sessions --db "$DB" export 1 --format json > "$TMP/e.json" || fail "export"
grep -qF '"text": "a\nb\u0001c\u007fd"' "$TMP/e.json" && ok ||
    fail "JSON text: $(grep -o '"text": "a[^"]*"' "$TMP/e.json")"
"$RWKV_TUI" sessions --db "$DB" import "$TMP/e.json" >/dev/null || fail "import"
hex2=$(sqlite3 "$DB" "select hex(t.text) from turns t join sessions s on s.id=t.session_id
    where s.id=2 and t.role=1" 2>/dev/null)
[ "$hex2" = "$hex" ] && ok || fail "imported text: $hex2 (was $hex)"
# the export of the import is the same text
"$RWKV_TUI" sessions --db "$DB" export 2 --format json > "$TMP/e2.json" || fail "export 2"
grep -qF '"text": "a\nb\u0001c\u007fd"' "$TMP/e2.json" && ok || fail "second export"
# ill-formed UTF-8 in a file to import: one U+FFFD; Markdown: controls cleaned
# (its tokens too, 0xff before the message: an import checks them against the text)
LC_ALL=C sed $'s/"text": "a\\\\nb/"text": "\\xffa\\\\nb/; s/"tokens": \\[85,115,101,114,58,32,97,10,/"tokens": [85,115,101,114,58,32,255,97,10,/' \
    "$TMP/e.json" > "$TMP/bad.json"
"$RWKV_TUI" sessions --db "$DB" import "$TMP/bad.json" >/dev/null || fail "import a raw 0xff"
hex3=$(sqlite3 "$DB" "select hex(text) from turns where session_id=3 and role=1" 2>/dev/null)
[ "$hex3" = EFBFBD610A6201637F64 ] && ok || fail "raw 0xff: $hex3"
"$RWKV_TUI" sessions --db "$DB" export 1 --format md > "$TMP/e.md" || fail "md export"
LC_ALL=C grep -q $'\r\|\001' "$TMP/e.md" && fail "Markdown holds a raw control" || ok
finish
