#!/usr/bin/env bash
# tests/tui/states.sh -- the state-file menu: list the state_dir of the
# config, start a new session from a state, then switch again and replay
# the conversation under it (the cost is shown); a state file made for
# another model is refused with its message.
. "$(dirname "$0")/tmuxlib.sh"

# State-tuning files for the demo model (RWKV-7, 2 layers, 2 heads of 64):
# safetensors with blocks.N.att.time_state [2, 64, 64] float32.
mkdir -p "$TMP/states"
python3 "$(dirname "$0")/mkstate.py" "$TMP/states/calm.safetensors" 2 7 13 \
    || { echo "python3 needed"; echo "0 passed, 1 failed"; exit 1; }
python3 "$(dirname "$0")/mkstate.py" "$TMP/states/wrong-model.safetensors" 3 7 13 \
    || { echo "python3 needed"; echo "0 passed, 1 failed"; exit 1; }
cat > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml" 2>/dev/null || mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
printf 'state_dir: %s\n' "$TMP/states" > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"

tui_start --max-tokens 6 --seed 5
keys F3
check "state menu" 'State files'
check "lists calm" 'calm\.safetensors'
check "lists the other" 'wrong-model\.safetensors'
type_text "calm"
check_not "search narrows" 'wrong-model'
keys Enter
check "new session from the state" 'state: calm\.safetensors'
check "state defaults applied (top-p 0.2)" 'top-p +0\.2'
check "the values changed said (sess_switch_state's note)" 'state file \(the demo.s\): top_p 0\.3 -> 0\.2'
type_text "hello state"
send
check "reply under the state" '^RWKV'
keys F10
check "quit" '^EXIT=0'

# switch again with a conversation: the question shows the replay cost
tui_start --max-tokens 6 --seed 5
type_text "first"
send
keys F3
type_text "calm"
keys Enter
check "asks what to do" 'New session from this state'
check "replay cost shown" 'Replay this conversation under it \(cost: [0-9]+ tokens\)'
keys Down Enter
check "replayed" 'replayed [0-9]+ tokens under state'
check "transcript kept" '^  first'
check "status shows the state" 'state: calm\.safetensors'
type_text "after replay"
send
check "chat continues" '^  after replay'
# the replayed conversation is a saved session
keys F2
check "replayed session saved" 'first +[0-9]+ turns'
keys Escape

# a state for another model: refused at once (no question), nothing changes
keys F3
type_text "wrong"
keys Enter
check "wrong state refused" '3 layers, the model has 2'
check_not "no question for it" 'New session from this state' 1
keys Escape
check_not "the menu closed" 'State files'
check "still on calm" 'state: calm\.safetensors'
# back to no state file, replayed: said so (it read "under state no state file")
keys F3
type_text "(none)"
keys Enter
check "asks again" 'Replay this conversation under it'
keys Down Enter
check "replayed with no state file" 'replayed [0-9]+ tokens with no state file'
check_not "not 'under state no state file'" 'under state no state' 1
tui_quit
tui_finish
