#!/usr/bin/env bash
# tests/tui/editor_fail.sh -- C-x (the message in $VISUAL / $EDITOR) that
# fails says why in the footer: the exit status, the signal, or what the
# shell's 127 means (not found).  It said only "editor '...' failed".  The
# message box keeps its text.
. "$(dirname "$0")/tmuxlib.sh"

# fails VISUAL PATTERN DESC: C-x with VISUAL; the footer matches PATTERN.
# Two checks.
fails() {
    TUI_ENV="VISUAL='$1'" tui_start --max-tokens 4
    type_text "draft"
    keys C-x
    check "$3" "$2"
    check "$3: the draft kept" '^> draft'
    tui_quit
}
fails false "editor 'false' failed: exit status 1" "an editor that exits 1"
fails "$TMP/no-such-editor" "editor '.*no-such-editor' failed: not found \\(exit status 127\\)" \
    "an editor that is not there"
fails 'kill -9 $$ #' "editor 'kill -9 [$][$] #' failed: killed by signal 9" \
    "an editor killed by a signal"
tui_finish
