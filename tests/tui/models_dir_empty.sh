#!/usr/bin/env bash
# tests/tui/models_dir_empty.sh -- F5 names the model folders the user named
# (model_dir in the config, one or a list; RWKV_TUI_MODELS) that hold no
# model, as F3 names an empty state_dir: "no models (.pth, .safetensors) in
# DIR", "in A or B", "in A, B or C" (the one rule: tui_folder_none).  It
# said nothing: the menu listed the model in use alone.  A folder with a
# model makes the others' emptiness no news: nothing said.
. "$(dirname "$0")/tmuxlib.sh"

mkdir -p "$XDG_CONFIG_HOME/rwkv-tui" "$TMP/e1" "$TMP/e2" "$TMP/e3" "$TMP/full"
: > "$TMP/e1/notes.txt"
cfg="$XDG_CONFIG_HOME/rwkv-tui/config.yaml"

f5_says() {   # DESC PATTERN: F5 opened, its notice matches
    keys F5
    check "$1" "$2"
    keys Escape
    tui_quit
}

printf 'model_dir: %s/e1\n' "$TMP" > "$cfg"
W=120 H=24 tui_start
f5_says "model_dir empty" "no models \(\.pth, \.safetensors\) in .*/e1 *$"
printf 'model_dir: [%s/e1, %s/e2]\n' "$TMP" "$TMP" > "$cfg"
W=120 H=24 tui_start
f5_says "two empty" "no models \(\.pth, \.safetensors\) in .*/e1 or .*/e2 *$"
printf 'model_dir: [%s/e1, %s/e2, %s/e1]\n' "$TMP" "$TMP" "$TMP" > "$cfg"
W=120 H=24 TUI_ENV="RWKV_TUI_MODELS=$TMP/e3" tui_start
f5_says "three empty (one named twice)" "no models \(\.pth, \.safetensors\) in .*/e1, .*/e2 or .*/e3 *$"
rm -f "$cfg"
W=120 H=24 TUI_ENV="RWKV_TUI_MODELS=$TMP/e3" tui_start
f5_says "RWKV_TUI_MODELS empty" "no models \(\.pth, \.safetensors\) in .*/e3 *$"
W=120 H=24 TUI_ENV="RWKV_TUI_MODELS=$TMP/e3 LANGUAGE=zh_CN" tui_start
f5_says "zh_CN" ".*/e3 中没有模型（\.pth、\.safetensors）"
if have_fixture models/tiny-7v0-fp32.pth 3; then
    ln -s "$(realpath "$FX/models/tiny-7v0-fp32.pth")" "$TMP/full/tiny.pth"   # (FX may be relative)
    printf 'model_dir: [%s/e1, %s/full]\n' "$TMP" "$TMP" > "$cfg"
    W=120 H=24 tui_start
    keys F5
    check "a folder with a model: listed" 'tiny\.pth'
    check_not "... the empty one not named" 'no models'
    keys Escape
    tui_quit
fi
tui_finish
