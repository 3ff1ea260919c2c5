#!/usr/bin/env bash
# tests/cli/chat_new_title.sh -- `chat --new TITLE` with a line break and an
# escape sequence in TITLE: the session is saved under the title as the
# client makes one (one line, escapes dropped: store_title_clean), and the
# note "new session N: TITLE" says that title -- it said the title as given,
# two lines on stderr with the escape sequence raw, even into a pipe.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
ESC=$(printf '\033')

title=$(printf 'first\nsecond %s[31mred' "$ESC")
echo hello | "$T" chat --demo --seed 1 --max-tokens 3 --db "$TMP/t.db" --new "$title" \
    >/dev/null 2>"$TMP/err" && ok || fail "chat --new: $(cat "$TMP/err")"
note=$(grep 'new session' "$TMP/err")
[ "$note" = "new session 1: first second red" ] && ok || fail "the note: '$note'"
[ "$(grep -c . "$TMP/err")" = 1 ] && ok || fail "stderr is one line: $(cat -A "$TMP/err")"
grep -q "$ESC" "$TMP/err" && fail "an escape sequence on stderr: $(cat -A "$TMP/err")" || ok
listed=$("$T" sessions list --db "$TMP/t.db" | tail -n 1)
case $listed in *"first second red") ok ;; *) fail "saved title: '$listed'" ;; esac
finish
