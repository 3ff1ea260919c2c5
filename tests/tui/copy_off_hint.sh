#!/usr/bin/env bash
# tests/tui/copy_off_hint.sh -- with `clipboard: off` in the config, M-k on
# a reply without a code block says so without pointing at M-c (which is
# off too: it would only say "copying is off"); with copying on it still
# names M-c.
. "$(dirname "$0")/tmuxlib.sh"

mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
printf 'clipboard: off\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
tui_start --max-tokens 4 --seed 5
type_text "no code here"
send
keys M-k
check "no code block said" 'the reply has no code block' 
check "... and that copying is off" 'copying is off: clipboard: off in the config file'
check_not "M-c not offered" 'M-c copies all of it' 1
tui_quit

rm -f "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
tui_start --max-tokens 4 --seed 5
type_text "no code here"
send
keys M-k
check "copying on: M-c offered" 'the reply has no code block \(M-c copies all of it\)'
tui_quit
tui_finish
