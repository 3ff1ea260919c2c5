#!/usr/bin/env bash
# tests/tui/states_dir_errors.sh -- F3 with no state file says what is wrong
# with the folder the user named (state_dir in the config, RWKV_TUI_STATES),
# as F5 does for model_dir: missing, a file, empty.  Only with none named
# does it say to set one.
. "$(dirname "$0")/tmuxlib.sh"

mkdir -p "$XDG_CONFIG_HOME/rwkv-tui" "$TMP/empty"
: > "$TMP/afile"
cfg="$XDG_CONFIG_HOME/rwkv-tui/config.yaml"

f3_says() {   # DESC PATTERN: F3 opened, its notice matches
    keys F3
    check "$1" "$2"
    keys Escape
    tui_quit
}

printf 'state_dir: %s/nope/states\n' "$TMP" > "$cfg"
W=120 H=24 tui_start
f3_says "state_dir missing" "state folder .*/nope/states: No such file or directory"
printf 'state_dir: %s/afile\n' "$TMP" > "$cfg"
W=120 H=24 tui_start
f3_says "state_dir a file" "state folder .*/afile: Not a directory"
printf 'state_dir: %s/empty\n' "$TMP" > "$cfg"
W=120 H=24 tui_start
f3_says "state_dir empty" "no state files \(\.pth, \.safetensors\) in .*/empty"
rm -f "$cfg"
W=120 H=24 TUI_ENV="RWKV_TUI_STATES=$TMP/gone" tui_start
f3_says "RWKV_TUI_STATES missing" "state folder .*/gone: No such file or directory"
W=120 H=24 tui_start
f3_says "none named: where to set one" 'no state files: set state_dir in the config file or RWKV_TUI_STATES'
# Chinese
printf 'state_dir: %s/nope/states\n' "$TMP" > "$cfg"
W=120 H=24 TUI_ENV="LANGUAGE=zh_CN" tui_start
f3_says "zh_CN: the folder named" "状态文件夹 .*/nope/states："
tui_finish
