#!/usr/bin/env bash
# tests/tui/branches_show.sh -- F6 is a long chat's table of contents:
# Enter on a reply of this branch shows it in the transcript (its header at
# the top of the view, the menu closed, End back to the end).  It only
# said "already on this branch", the menu open: in a chat of hundreds of
# turns the one way to a reply far back was PgUp, page by page, or a search
# for words of it.  Enter on your message still edits it; on the start
# row it still says so.  A saved chat of 60 exchanges (a line chat's
# export, its turns replaced).
. "$(dirname "$0")/tmuxlib.sh"

long_chat 40

W=100 H=30 tui_start --session 2
check "the long chat is open, at its end" 'Answer 59\.' 60   # (its open replays ~3,000 tokens: long under a sanitizer)
keys F6
check "F6 open" 'Branches: the whole tree'
check "its key bar names the new use of Enter" 'Enter edit/show/switch'
type_text "Answer 12."
check "F6's search finds the reply" 'RWKV: Answer 12\.'
keys Enter
check_not "Enter on the reply: the menu closes" 'Branches: the whole tree'
check "... and says so" 'the reply is in view \(End: back to the end\)'
# the reply's header is the top row of the transcript, its text below it
row2=$(screen_rows | sed -n 2p)
row3=$(screen_rows | sed -n 3p)
case $row2 in RWKV*) ok ;; *) fail "the reply's header is not the top row: '$row2'" ;; esac
case $row3 in *"Answer 12. word12-0"*) ok ;; *) fail "the reply is not below its header: '$row3'" ;; esac
check "the view is scrolled back" 'more below \(End\)'
keys End
check_not "End: back to the end" 'more below'
check "... the last reply in sight" 'word59-39'

# Enter on your message: still an edit
keys F6
check "F6 again" 'Branches: the whole tree'
type_text "question 30 please"
check "F6's search finds the message" 'You: +question 30 please'
keys Enter
check "Enter on your message: an edit" 'edit and send: the message starts a new branch there'
keys Escape
check "Esc leaves it" 'edit cancelled'
tui_quit
tui_finish
