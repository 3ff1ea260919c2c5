#!/usr/bin/env bash
# tests/tui/copy_found.sh -- M-c and M-k take the reply a search (C-f) or
# F6 brought into view, not the next one.  They took "the last reply that
# starts above the view's bottom": C-f centres its match, so the reply
# after it was usually in view too, and M-c copied that one (M-k said "no
# code block" of the reply found with one).  A scroll key (PgUp, PgDn,
# Shift-Up/Down, Home, End, the wheel) brings the usual rule back.  A saved
# chat of 60 exchanges (a line chat's export, its turns replaced), every
# tenth reply with a code block.
. "$(dirname "$0")/tmuxlib.sh"

long_chat 20 10


W=100 H=30 tui_start --session 2
tmx set-option -g set-clipboard on
check "the long chat is open" 'Answer 59\.' 60   # (its open replays ~3,000 tokens: long under a sanitizer)
keys C-f
type_text "Answer 20."
check "C-f: one match" 'search: Answer 20\. +1/1'
keys Escape
check "the reply after it in view too" 'Answer 21\.'
keys M-c
check "M-c: copied" 'copied the reply'
copied "M-c after C-f: the reply found" "Answer 20. word20-0"
keys M-k
check "M-k: its code block" 'copied code block 1 of 1'
copied "M-k after C-f: the found reply's block" "code of 20"

# F6 Enter on a reply of this branch (branches_show.sh): that one
keys F6
check "F6" 'Branches: the whole tree'
type_text "Answer 30."
check "F6's search finds the reply" 'RWKV: Answer 30\.'
keys Enter
check "shown" 'the reply is in view'
keys M-c
copied "M-c after F6: the reply shown" "Answer 30. word30-0"

# a scroll key: the usual rule (the last reply starting above the bottom)
keys S-Down
check "Shift-Down: the view moved" 'more below'
keys M-c
sleep 0.5
n=$(tmx show-buffer 2>/dev/null | grep -oE '^Answer [0-9]+' | grep -oE '[0-9]+')
[ "${n:-0}" -gt 30 ] && ok || fail "after a scroll key: the reply at the view's bottom, got '${n:-none}'"
keys End
check_not "End" 'more below'
keys M-c
copied "at the end: the last reply" "Answer 59. word59-0"
tui_quit
tui_finish
