#!/usr/bin/env bash
# tests/tui/state_fit_first.sh -- F3 Enter on a state file made for another
# model is refused at once, the reason said and the menu kept, before the
# "new session or replay?" question (it asked first, and the refusal came
# only after the answer); a state that fits still asks.
. "$(dirname "$0")/tmuxlib.sh"

if ! have_fixture states/state-5v2-A.pth 8; then
    tui_finish
    exit
fi
mkdir -p "$TMP/states"
cp "$FX/states/state-5v2-A.pth" "$TMP/states/"
# one that fits the demo model (RWKV-7, 2 layers, 2 heads of 64)
python3 "$(dirname "$0")/mkstate.py" "$TMP/states/calm.safetensors" 2 7 13 \
    || { echo "python3 needed"; echo "0 passed, 1 failed"; exit 1; }

TUI_ENV="RWKV_TUI_STATES=$TMP/states" tui_start --max-tokens 3 --seed 5
type_text "first words"
send
keys F3
check "state menu" 'State files'
type_text "state-5v2"
keys Enter
check "refused at once" 'state file has 12 layers, the model has 2'
check_not "no question asked" 'Replay this conversation|New session from this state' 1
check "the menu stays" 'State files'
check "the state unchanged" 'state: none'
keys Escape
check_not "menu closed" 'State files'
# a state that fits: the question as before
keys F3
type_text "calm"
keys Enter
check "a fitting state asks" 'Replay this conversation under it \(cost: [0-9]+ tokens\)'
keys Escape
tui_quit
tui_finish
