#!/usr/bin/env bash
# tests/tui/branches.sh -- regenerate makes a sibling reply; step between
# siblings (M-, / M-.); fork at an earlier turn by editing that message from
# the branches menu, then step back to the first branch.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 8 --seed 9
type_text "alpha"
send
type_text "beta"
send
check "two exchanges" '^  beta'

keys C-r
check "regenerated reply is sibling 2 of 2" '^RWKV  < 2/2 >'
wait_idle
keys M-,
check "previous sibling" '^RWKV  < 1/2 >'
keys M-.
check "next sibling" '^RWKV  < 2/2 >'

# fork at the first message (the search finds it in the tree)
keys F6
check "branches menu" 'Branches: the whole tree'
check "lists the first message" 'You:  alpha'
type_text "alpha"
keys Enter
check "editing notice" 'new branch'
check "message in the input box" '^\* alpha'
type_text " two"
send
check "new branch shown" '^  alpha two'
check "user turn is sibling 2 of 2" '^You  < 2/2 >'
check_not "the old branch's later turn is gone" '^  beta'

# back to the first branch: its later turns return
keys F6
check "branches menu again" 'You:  alpha two'
type_text "alpha two"
keys Left
keys Escape
check "first branch back" '^  beta'
check "first message back" '^  alpha( +│|$)'
check "sibling position" '^You  < 1/2 >'

# the branches survive a restart
tui_quit
tui_start --max-tokens 8
keys F2 Enter
check "resumed on the first branch" '^  beta'
keys F6
type_text "alpha"
keys Right Escape
check "second branch after restart" '^  alpha two'
# regenerate right after a resume: a third... here a second reply sibling
keys C-r
check "regenerate after resume" '^RWKV  < 2/2 >'
wait_idle
check_not "no error" '^Error|failed'
tui_quit
tui_finish
