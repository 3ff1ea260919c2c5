#!/usr/bin/env bash
# tests/tui/edit_scroll.sh -- editing a message shows it: M-e (the last
# message) and Enter on your message in F6 scroll the transcript to the
# message being edited when it was scrolled away (here by a C-f search).
. "$(dirname "$0")/tmuxlib.sh"

W=80 H=24 tui_start --max-tokens 2 --seed 6
keys F7
check_not "sidebar hidden" 'Parameters'
for w in alpha bravo charlie delta echo foxtrot golf zulu; do
    type_text "message $w"
    send
done
check "the last message shown" '^  message zulu'
# C-f to the first message: the last one scrolls away
keys C-f
type_text "message alpha"
keys Enter
check "search: at the first message" '^  message alpha'
keys Escape
check_not "the last message scrolled away" '^  message zulu'
keys M-e
check "M-e: edit mode" '^\* message zulu'
check "M-e: the transcript shows the message edited" '^  message zulu'
keys Escape
check "edit cancelled" 'edit cancelled'

# F6 Enter on the first message (on the current path) from the end
keys End                # (the box is empty: the transcript's end)
check_not "the first message out of view" '^  message alpha'
keys F6
check "branches menu" 'Branches'
type_text "alpha"
check "filtered to it" 'You: +message alpha'
keys Enter
check "F6 Enter: edit mode" '^\* message alpha'
check "F6 Enter: the transcript shows the message edited" '^  message alpha'
keys Escape
tui_quit
tui_finish
