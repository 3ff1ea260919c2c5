#!/usr/bin/env bash
# tests/tui/load_error_shape.sh -- what an F5 load that fails says: one
# shape, "FILE: not loaded: REASON; X stays in use", the file named once
# (a truncated file read "not loaded: FILE: reason", a missing vocabulary
# "FILE: not loaded: ..."); and a state file that does not fit the model
# switched to is named once ("state file X does not fit this model: X:
# tensor ..." named it twice).  tui/model_load.c, storage/session.c,
# core/status.c (rwkv_err_past_path).
. "$(dirname "$0")/tmuxlib.sh"

F=${RWKV_FIXTURES:-/work/shared/fixtures}
[ -f "$F/models/tiny-7v0-fp32.pth" ] || { skip 8 "no fixtures"; tui_finish; exit; }
mkdir -p "$TMP/models" "$TMP/states" "$XDG_CONFIG_HOME/rwkv-tui"
head -c 300000 "$F/models/tiny-7v0-fp32.pth" >"$TMP/models/trunc.pth"
cp "$F/models/tiny-7v0-fp32.pth" "$TMP/models/other.pth"
python3 "$(dirname "$0")/mkstate.py" "$TMP/states/mid.safetensors" 2 7 13 ||
    { echo "python3 needed"; echo "0 passed, 1 failed"; exit 1; }
printf 'state_dir: %s\n' "$TMP/states" > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"

W=160 TUI_ENV="RWKV_TUI_MODELS='$TMP/models'" tui_start --no-greeting
keys F5
check "models menu" 'trunc\.pth'
type_text "trunc"
keys Enter
check "the truncated file: FILE: not loaded: why" "$TMP/models/trunc\.pth: not loaded: " 60
check_not "the file named once" "not loaded: $TMP/models/trunc\.pth" 1
wait_for ' Models| Model ' 1 && keys Escape
sleep 0.3

# a state file in use, then a model it does not fit
keys F3
type_text "mid.s"
keys Enter
check "the state in use" 'state: mid' 30
keys F5
check "models menu again" 'other\.pth'
type_text "other"
keys Enter
check "switched" 'other' 60
wait_idle 300
sleep 0.3
keys M-l
check "the state refused, in the log" 'does not fit this model: ' 30
check "... the reason after it, the file not named again" 'does not fit this model: state file has'
check_not "... no path after it" 'does not fit this model: /' 1
keys Escape
tui_quit
tui_finish
