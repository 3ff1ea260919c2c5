#!/usr/bin/env bash
# tests/tui/params.sh -- the parameter sidebar: step values within their
# bounds, type one in, refuse one out of bounds; a reply obeys max tokens;
# the sidebar can be hidden; a preset is replaced only after a second Enter.
. "$(dirname "$0")/tmuxlib.sh"
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"

tui_start --seed 11
check "sidebar" 'Parameters'
check "default max tokens" 'max-tokens +1000'
keys Tab
check "focus hint" 'Enter +type a value'
keys Right
check "temperature stepped up" 'temperature +1\.1'
keys Left Left
check "temperature stepped down" 'temperature +0\.9'
keys Right
# top-p: up to 1.0 and no further
keys Down
for i in $(seq 20); do keys Right; done
check "top-p clamps at 1" 'top-p +1 *$'
keys Down Down Down Down Down     # max-tokens
keys Enter
check "value prompt with bounds" 'max-tokens \[1\.\.1000000\]'
keys C-u
type_text "0"
keys Enter
check "out of bounds refused" 'out of range'
check "value kept" 'max-tokens +1000'
keys Enter C-u
type_text "5"
keys Enter
check "max tokens set to 5" 'max-tokens +5 *$'
keys Tab
type_text "count to ten"
send
keys F9
check "reply obeyed max tokens" '\(prefill [0-9]+ tok/s, decode [0-9.]+ tok/s, max tokens\) +5 tok'
keys F9

# a second reply after raising it to 12 by typing a digit in the sidebar
keys Tab
keys 1 2 Enter
# typing "1" opens the prompt with "1", then "2": 12
check "typed 12" 'max-tokens +12 *$'
keys Tab
type_text "again"
send
keys F9
check "second reply obeyed 12" '\(prefill [^)]*\) +12 tok'
keys F9

keys F7
check_not "sidebar hidden" 'Parameters'
keys F7
check "sidebar shown" 'Parameters'

tui_quit

# presets: save the current values under a name, load them in a new run,
# and the config's "preset:" applies one at start
tui_start --max-tokens 77 --temperature 0.5
keys F4
check "presets menu" 'Presets'
keys C-s
check "preset name prompt" 'save preset as:'
type_text "calm77"
keys Enter
check "preset saved" "preset 'calm77' saved"
tui_quit
tui_start
check "defaults in a new run" 'max-tokens +1000'
keys F4
check "preset listed" 'calm77 +temp 0\.5 +top-p 0\.3 +max 77'
type_text "calm77"
keys Enter
check "preset loaded" "preset 'calm77' loaded"
check "preset values in the sidebar" 'max-tokens +77'
tui_quit
printf 'preset: calm77\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
tui_start
check "config preset applied" 'max-tokens +77'
check "config preset temperature" 'temperature +0\.5'
tui_quit
tui_start --max-tokens 9
check "command line wins over the preset" 'max-tokens +9'
tui_quit
rm -f "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
# saving over an existing preset asks first: Esc keeps it, a second Enter
# replaces it
tui_start --max-tokens 55
keys F4 C-s
type_text "calm77"
keys Enter
check "an existing preset: asks first" 'preset exists: Enter replaces it, Esc keeps it: calm77'
keys Escape
check_not "Esc: no question" 'preset exists'
keys F4
check "Esc kept it" 'calm77 +temp 0\.5 +top-p 0\.3 +max 77'
keys C-s
type_text "calm77"
keys Enter
check "asked again" 'preset exists: Enter replaces it'
keys Enter
check "second Enter: saved over it" "preset 'calm77' saved"
keys F4
check "replaced" 'calm77 +temp [0-9.]+ +top-p [0-9.]+ +max 55'
keys Escape
check_not "menu closed" 'Presets'
tui_quit
tui_finish
