#!/usr/bin/env bash
# tests/tui/nodb_branches.sh -- under --no-db nothing is saved, so there is
# no tree of branches: F6 and M-, / M-. say that sessions are not being
# saved (--no-db), where F6 showed only "(empty)" and M-, said "no saved
# turn to switch" (as if something had gone missing); the note stands alone
# in F6's and F2's list, where "(empty)" was drawn under it.
. "$(dirname "$0")/tmuxlib.sh"

NODEMO=1 W=100 H=24 tui_start --demo --no-db --max-tokens 2 --seed 5
type_text "hello"
send
keys F6
check "F6: says why there is no tree" 'sessions are not being saved \(--no-db\): no branches to show'
# (the list itself says it, alone: no "(empty)" under the note)
check "F6: the note in the list" '│ +sessions are not being saved \(--no-db\): no branches to show'
check_not "F6: no (empty) under the note" '\(empty\)' 1
keys Escape
check_not "F6 closed" 'Branches' 5
keys F2
check "F2: the note in the list" '│ +no session database \(--no-db\)'
check_not "F2: no (empty) under the note" '\(empty\)' 1
keys Escape
check_not "F2 closed" ' Sessions ' 5
keys M-,
check "M-,: says why" 'sessions are not being saved \(--no-db\): no branches to switch'
keys M-.
check_not "M-.: not 'no saved turn'" 'no saved turn' 1
tui_quit
tui_finish
