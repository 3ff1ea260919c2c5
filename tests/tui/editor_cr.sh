#!/usr/bin/env bash
# tests/tui/editor_cr.sh -- C-x: the file the editor wrote with old-Mac line
# ends (a lone CR) or Windows ones (CR LF) comes into the message box with
# each line end a newline, as a paste's do, and is sent so: "one", "two",
# "three", a blank line (CR CR: joined, said), "four".  The box dropped
# every lone CR ("onetwo", "threefour"): the lines were glued.
. "$(dirname "$0")/tmuxlib.sh"

printf '#!/bin/sh\nprintf "one\\rtwo\\r\\nthree\\r\\rfour\\r" > "$1"\n' >"$TMP/ed.sh"
chmod +x "$TMP/ed.sh"
TUI_ENV="VISUAL='$TMP/ed.sh'" tui_start --max-tokens 4
keys C-x
check "the editor's text: its first line alone" '^> one *$'
check "... CR LF one line end" '^  two *$'
screen | grep -A3 '^  three *$' | grep -q '^  four *$' && ok ||
    fail "CR CR: not 'three', a blank line, 'four': $(screen | tail -8 | tr '\n' '|')"
screen | grep -q 'onetwo\|threefour' && fail "lines glued: $(screen | tail -8 | tr '\n' '|')" || ok
send
check "the blank line joined, said" 'blank lines joined'
[ "$(sqlite3 "$DB" "SELECT hex(text) FROM turns WHERE role=1")" = \
  "$(printf 'one\ntwo\nthree\nfour' | od -An -tx1 | tr -d ' \n' | tr a-f A-F)" ] && ok ||
    fail "saved: $(sqlite3 "$DB" "SELECT quote(text) FROM turns WHERE role=1")"
tui_quit
tui_finish
