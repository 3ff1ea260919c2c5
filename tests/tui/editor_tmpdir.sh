#!/usr/bin/env bash
# tests/tui/editor_tmpdir.sh -- C-x writes the message for the editor in a
# temporary file in $TMPDIR, as every other temporary file of rwkv-tui (a
# library state file's copy), else /tmp: it was always /tmp, so where /tmp
# cannot be written (a sandbox, a full /tmp) C-x failed whatever TMPDIR said.
. "$(dirname "$0")/tmuxlib.sh"

mkdir -p "$TMP/tdir"
# the editor: says which folder its file is in, and writes a message
cat >"$TMP/ed.sh" <<ED
#!/bin/sh
dirname "\$1" >"$TMP/where"
printf 'from the editor' >"\$1"
ED
chmod +x "$TMP/ed.sh"
# edit TMPDIR: C-x with that TMPDIR; the editor's text comes back in the box
edit() {
    rm -f "$TMP/where"
    TUI_ENV="VISUAL='$TMP/ed.sh' TMPDIR=\"$1\"" tui_start --max-tokens 4
    keys C-x
    check "TMPDIR=$1: the editor's text in the box" '^> from the editor'
    tui_quit
}
edit "$TMP/tdir"
[ "$(cat "$TMP/where" 2>/dev/null)" = "$TMP/tdir" ] && ok ||
    fail "TMPDIR=$TMP/tdir: the editor's file was in '$(cat "$TMP/where" 2>/dev/null)'"
[ -z "$(ls -A "$TMP/tdir")" ] && ok || fail "the temporary file was left: $(ls "$TMP/tdir")"
# a TMPDIR with a quote (it would break the command line): /tmp
mkdir -p "$TMP/it's"
edit "$TMP/it's"
[ "$(cat "$TMP/where" 2>/dev/null)" = /tmp ] && ok ||
    fail "TMPDIR with a quote: the editor's file was in '$(cat "$TMP/where" 2>/dev/null)'"
tui_finish
