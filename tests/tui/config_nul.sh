#!/usr/bin/env bash
# tests/tui/config_nul.sh -- a config value holding a NUL byte (YAML's "\0"
# escape): "preset: \"fine\0junk\"" was read as the preset 'fine' (the C
# string ended at the NUL, the rest dropped without a word).  Now it is one
# problem line naming the file, line, column and field, and the value is
# not used; the settings beside it still are.
. "$(dirname "$0")/tmuxlib.sh"

if ! command -v sqlite3 >/dev/null 2>&1; then
    skip 4 "sqlite3 not found"
    tui_finish
    exit
fi
printf 'hi\n' | "$RWKV_TUI" chat --demo --db "$DB" --seed 1 --max-tokens 2 >/dev/null 2>&1
sqlite3 "$DB" "INSERT INTO presets(name, builtin, sampling) VALUES ('fine', 0, 'temperature=0.7')" ||
    fail "preset row"
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
printf 'preset: "fine\\0junk"\nlanguage: en\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"

W=160 tui_start
check "one line names the field" \
    "config\\.yaml:1:9: field 'preset': the value holds a NUL byte \\(\\\\0\\)"
check "the preset cut at the NUL is not loaded" 'temperature +1 *$'
[ "$(screen | grep -c 'NUL byte')" = 1 ] && ok || fail "said more than once: $(screen | grep 'NUL')"
tui_quit
tui_finish
