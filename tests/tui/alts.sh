#!/usr/bin/env bash
# tests/tui/alts.sh -- M-R asks how many alternatives of the last reply to
# make; each streams in the reply's place, the status line says which, and
# all are sibling replies (< k/N >, stepped with M-, / M-. and in F6 with
# Left/Right).  A bad count is refused with one line; Esc stops a batch,
# keeping the finished ones and the cut one.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 8 --seed 9
# nothing to regenerate yet
keys M-R
check "no reply yet: refused" 'no reply to regenerate'
type_text "alpha"
send
keys M-R
check "asks how many, 3 offered" 'alternatives \(1-16\): 3'
keys C-u
type_text "17"
keys Enter
check "17 refused" "alternatives: '17' is not a number from 1 to 16"
check_not "... nothing made" '< 2/2 >' 2
keys M-R C-u
type_text "3"
keys Enter
check "three alternatives made" '3 alternatives made, each a branch'
check "the last one shown: sibling 4 of 4" '^RWKV  < 4/4 >'
wait_idle
keys M-,
check "previous sibling" '^RWKV  < 3/4 >'
keys M-.
check "next sibling" '^RWKV  < 4/4 >'
keys F6
check "F6 shows the four replies" '< 4/4 >'
keys Left
check "Left in F6 steps to the 3rd" '< 3/4 >'
keys Left
check "... and the 2nd" '< 2/4 >'
keys Escape
check "the transcript follows" '^RWKV  < 2/4 >'
tui_quit

# Esc during the second of three long alternatives: the first and the cut
# one kept (replies without a stop string run to 30000 tokens: seconds, a
# minute under the sanitizers)
tui_start --max-tokens 30000 --stop QQQQQQQQQQQQ
keys F2 Enter
check "resumed" '^  alpha'
wait_idle
keys M-R C-u
type_text "3"
keys Enter
check "the status line says which alternative" 'alternative 1/3: generating'
check "the second one streams" 'alternative 2/3: generating' 180
keys Escape
check "the batch stops" 'alternatives stopped at 2 of 3: all kept as branches'
check_not "no third" 'alternative 3/3'
# (the long reply hides its header: F6 shows where it is)
keys F6
check "two more siblings, the cut one last" '< 6/6 >'
keys Escape
tui_quit
tui_finish
