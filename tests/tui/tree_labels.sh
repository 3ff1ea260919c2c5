#!/usr/bin/env bash
# tests/tui/tree_labels.sh -- a reply holding bytes a terminal must not get
# (control characters, an escape sequence) and ill-formed UTF-8, as a
# byte-level model writes them (tiny-7v0's replies do): the F6 tree labels
# its turn with the text as the transcript shows it (tui_label, the
# transcript's sanitiser: controls and escape sequences dropped, each
# ill-formed subpart one U+FFFD), not one U+FFFD per control byte.  The
# tree reads the text as saved (store_session_tree does not clean it); the
# one rule (core/text/utf8.h) cleans it for the label.  A session title with
# the same bytes is shown the same way in F2 and on the status line (its
# line break a space).
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 5
type_text "first words"
send
tui_quit
# "ab" ^A "cd" ESC[31m "red" ^X "ok" 0xFF 0xFE "end", then a second line
sqlite3 "$DB" "update turns set text = CAST(X'61620163641b5b33316d726564186f6bfffe656e640a6d6f7265' AS TEXT)
               where id = (select max(id) from turns where role = 2)" || fail "sqlite3 update"
sqlite3 "$DB" "update sessions set title = CAST(X'61620163641b5b33316d726564186f6bfffe656e640a6d6f7265' AS TEXT)
               where id = 1" || fail "sqlite3 title"

tui_start --session 1
check "the transcript: controls and the escape sequence dropped" '^  abcdredok��end +│'
keys F6
check "F6 open" 'Branches'
check "F6: the reply's label as the transcript shows it" '\* RWKV: +abcdredok��end +│'
check_not "F6: no U+FFFD for a control byte, no escape's tail" 'ab�cd|\[31m' 1
check_not "F6: the first line only" 'endmore' 1
keys Escape
check_not "F6 closed" 'Branches'
check "status line: the title as the transcript shows it" 'session: abcdredok��end more'
keys F2
check "F2 open" ' Sessions '
check "F2: the title as the transcript shows it" '│  abcdredok��end more +[0-9]+ turns'
check_not "F2: no U+FFFD for a control byte, no escape's tail" 'ab�cd|\[31m' 1
keys Escape
tui_quit
tui_finish
