#!/usr/bin/env bash
# tests/tui/edit_busy.sh -- M-e while a reply is being written says "a reply
# is still running", as C-r, M-r and C-n do.  It took the message before the
# one being answered (that one is not saved until its reply ends), and Enter
# then forked the chat from there, leaving the branch; with one message it
# said "no saved message to edit".
. "$(dirname "$0")/tmuxlib.sh"

# (a reply without a stop string runs to 1,000,000 tokens: it is still
# running when the keys below arrive)
tui_start --max-tokens 1000000 --stop QQQQQQQQQQQQ --seed 2
type_text "first message"
send
check "the first reply streams" 'generating [0-9]+ tok' 20
keys M-e
check "refused during the only message's reply" 'a reply is still running'
check_not "not 'no saved message'" 'no saved message to edit' 1
keys Escape
wait_idle
type_text "second message"
send
check "the second reply streams" 'generating [0-9]+ tok' 20
keys M-e
check "refused during the second reply" 'a reply is still running'
check_not "not editing the first message" 'editing an earlier message' 1
keys Escape
wait_idle
# when idle, M-e takes the last message
keys M-e
check "idle: editing" 'editing an earlier message'
check "the box holds the second message" '^\* second message'
keys Escape
tui_quit
n=$(sqlite3 "$DB" "select count(*) from turns where role=1")
[ "$n" = 2 ] && ok || fail "user turns: $n (a fork was made?)"
tui_finish
