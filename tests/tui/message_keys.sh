#!/usr/bin/env bash
# tests/tui/message_keys.sh -- M-p / M-n step through the transcript message
# by message: the previous / next message's header (yours or the model's)
# comes to the top of the view, and the copy keys then take the reply in
# view -- the one stepped to, or the reply to your message stepped to (not
# the last reply starting above the view's bottom).  There were no such
# keys: a reply far back in a long chat was PgUp page by page away, or F6 /
# C-f for words of it.  Notes (the demo's) are no messages; before the
# first message M-p says there is no earlier one.  A saved chat of 60
# exchanges (a line chat's export, its turns replaced).
. "$(dirname "$0")/tmuxlib.sh"

long_chat 40

# top_is DESC HEADER TEXT: the transcript's top row is HEADER's ("You",
# "RWKV"), the row below it starts with TEXT
top_is() {
    local i r2 r3
    for i in $(seq 50); do
        r2=$(screen_rows | sed -n 2p); r3=$(screen_rows | sed -n 3p)
        case $r2 in "$2"*) case $r3 in "  $3"*) ok; return ;; esac ;; esac
        sleep 0.1
    done
    fail "$1: the top rows are '$r2' / '$r3', want '$2' / '  $3'"
}

W=100 H=30 tui_start --session 2
tmx set-option -g set-clipboard on
check "the long chat is open, at its end" 'Answer 59\.' 60
keys Home
top_is "Home: the demo's note at the top" Note "Demo model"
keys M-p
check "M-p before the first message: none earlier" 'no earlier message'
keys M-n
top_is "M-n: the first message at the top (the note is none)" You "question 0 please"
keys M-n
top_is "M-n: the first reply's header at the top" RWKV "Answer 0. word0-0"
keys M-n
top_is "M-n: the next message" You "question 1 please"
keys M-n M-n M-n
top_is "M-n three times: three messages on" RWKV "Answer 2. word2-0"
keys M-p
top_is "M-p: the message before" You "question 2 please"
# the copy keys: the reply to the message at the top (replies 2 and 3
# start above the view's bottom too)
keys M-c
check "M-c copies" 'copied the reply'
copied "M-c with your message at the top: its reply" "Answer 2. word2-0"
keys M-n M-n M-n
top_is "M-n three times: reply 3 at the top" RWKV "Answer 3. word3-0"
keys M-c
copied "M-c with a reply at the top: that reply" "Answer 3. word3-0"
# a scroll key: the steps go from the view's top row again
keys PPage
keys M-n
check "after PgUp, M-n brings a header to the top" 'more below'
r2=$(screen_rows | sed -n 2p)
case $r2 in You*|RWKV*) ok ;; *) fail "after PgUp, M-n: the top row is '$r2'" ;; esac
# at the end: stepping back from the last reply
keys End
check_not "End: back at the end" 'more below'
keys M-p
check "M-p at the end: scrolled back" 'more below'
r2=$(screen_rows | sed -n 2p)
case $r2 in You*|RWKV*) ok ;; *) fail "M-p at the end: the top row is '$r2'" ;; esac
tui_quit
tui_finish
