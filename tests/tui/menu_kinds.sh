#!/usr/bin/env bash
# tests/tui/menu_kinds.sh -- F5 and F3 list only files of their kind, told
# from the tensors' names in the file's index (rwkv_ckpt_kind): a
# state-tuning file beside the models is not in F5 (Enter on it failed with
# "a state file (blocks.N.att.time_state)..."), and F3 over a folder of
# models ($RWKV_TUI_STATES at the models folder) lists its state files,
# not the models.  A file whose kind cannot be told (not a checkpoint) stays
# in both, and Enter says what is wrong with it.
. "$(dirname "$0")/tmuxlib.sh"

if ! have_fixture models/tiny-7v0-fp32.pth 11 || ! have_fixture states/state-7v0-A.pth 11; then
    tui_finish
    exit
fi
# one folder holding models, a state file of each format and a damaged file
D=$TMP/mixed
mkdir -p "$D"
cp "$FX/models/tiny-7v0-fp32.pth" "$FX/models/tiny-6v0-bf16.pth" "$FX/states/state-7v0-A.pth" "$D/"
chmod u+w "$D"/*
python3 "$(dirname "$0")/mkstate.py" "$D/calm.safetensors" 2 7 13 ||
    fail "mkstate.py: python3 needed"
printf 'not a checkpoint\n' >"$D/broken.pth"

NODEMO=1 TUI_ENV=RWKV_TUI_STATES=$D tui_start --model "$D/tiny-7v0-fp32.pth" --db "$DB" \
    --max-tokens 4
check "the model loaded" 'tiny-7v0-fp32\.pth \| cpu fp32'
keys F5
check "F5: the other model beside it" 'tiny-6v0-bf16\.pth'
check "F5: a file that is no checkpoint stays" 'broken\.pth'
check_not "F5: no .pth state file" 'state-7v0-A\.pth' 1
check_not "F5: no safetensors state file" 'calm\.safetensors' 1
type_text "broken"
keys Enter
check "F5: Enter on the damaged file says why" 'broken\.pth: not loaded: not a checkpoint'
check "the model is kept" 'tiny-7v0-fp32\.pth \| cpu fp32'
wait_idle
keys F3
check "F3: the .pth state file" 'state-7v0-A\.pth'
check "F3: the safetensors state file" 'calm\.safetensors'
check "F3: a file that is no checkpoint stays" 'broken\.pth'
check_not "F3: no model (the one in use)" 'tiny-7v0-fp32\.pth +/' 1
check_not "F3: no model (another)" 'tiny-6v0-bf16\.pth' 1
type_text "state-7v0"
keys Enter
check "F3: the state file is used" 'state: state-7v0-A\.pth'
keys F3
check "F3 again: the state in use" 'state-7v0-A\.pth +\(in use\)'
check_not "F3 again: still no model" 'tiny-6v0-bf16\.pth' 1
keys Escape
tui_quit
tui_finish
