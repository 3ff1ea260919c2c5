#!/usr/bin/env bash
# tests/tui/preset_long_name.sh -- F4's C-s with a name longer than a
# preset's 255 bytes.  It was taken whole, refused after Enter ("preset name
# must be 1..255 bytes") with "Enter tries again" under it -- and Enter
# failed the same way, over and over.  Now the prompt stops taking text at
# 255 bytes and says so, as F2's rename does for a title; a name the store
# refuses is to be corrected ("correct it, then Enter"), never tried again
# unchanged.
. "$(dirname "$0")/tmuxlib.sh"

LONG=$(printf 'P%.0s' $(seq 300))
tui_start --max-tokens 33
keys F4 C-s
check "the preset name prompt" 'save preset as: '
type_text "$LONG"
check "the prompt stops at 255 bytes and says so" 'a preset name holds at most 255 bytes: '
keys Enter
check "saved under the 255 bytes typed (the notice, cut)" "^preset 'PPPP"
check_not "no failure to try again" 'Enter tries again' 1
check_not "no refusal" 'preset name must be' 1
n=$(sqlite3 "$DB" "SELECT length(name) FROM presets WHERE name LIKE 'PPP%'")
[ "$n" = 255 ] && ok || fail "the preset's name: $n bytes, want 255"
keys F4
check "listed" 'PPPP.* +max 33'
keys Escape
tui_quit
tui_finish
