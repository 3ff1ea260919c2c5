#!/usr/bin/env bash
# tests/tui/chat.sh -- send a message with --demo and see it answered; F1
# help lists the keys; Esc cancels a long reply (kept, marked interrupted);
# the DEMO label; quit cleanly.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 40 --seed 3
check "demo label in the status line" 'DEMO MODEL \(random weights\)'
check "footer lists keys" 'F1 help.*F2 sessions'
check "sidebar shows max tokens from the command line" 'max-tokens +40'

type_text "Hello there, model"
keys Enter
check "user turn shown" '^You'
check "message in the transcript" 'Hello there, model'
check "reply header" '^RWKV'
wait_idle || fail "reply did not finish"
check "decode speed in the status line" 'decode [0-9.]+ tok/s'
# the reply rows have text under the RWKV header
if screen | awk '/^RWKV/{getline; print; exit}' | grep -Eq '^  [^ ]'; then ok; else fail "reply text missing"; fi
check_not "no streaming mark after the end" '^RWKV.*\.\.\.'

# F9: per-turn stats on demand
keys F9
check "stats shown" '40 tok, prefill [0-9]+ tok/s, decode'
keys F9

# F1 help lists every bound key and the editing keys
keys F1
check "help opens" 'Help: every key'
for k in 'F2 +sessions' 'F3 +state files' 'F6 +branches' 'C-r +regenerate' 'M-e +edit' 'F10 +quit'; do
    check "help lists $k" "$k"
done
keys Escape
check "help closes" 'F1 help.*F2 sessions'
check_not "help gone" 'Help: every key'

# Multi-line input: C-j inserts a newline, Enter sends both lines
type_text "line one"
keys C-j
type_text "line two"
check "two-line input box" '^  line two'
keys Enter
check "multi-line message sent" '^  line one'
wait_idle

# Esc cancels a long reply, which is kept and marked interrupted
keys Tab
for i in 1 2 3 4 5 6; do keys Down; done
keys Enter C-u
type_text "1000000"
keys Enter Tab
check "max tokens raised" 'max-tokens +1000000'
type_text "go on forever"
keys Enter
check "generating" 'generating' 5
sleep 0.5
keys Escape
check "cancelled reply marked at its end" '^  \[interrupted\]' 10
wait_idle || fail "still busy after cancel"
check "still responsive after cancel" 'F1 help'

tui_quit
tui_finish
