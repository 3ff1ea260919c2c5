#!/usr/bin/env bash
# tests/tui/resize_keeps_place.sh -- a transcript scrolled back keeps its
# place when its rows are wrapped again: a resize to another width, F7
# (the sidebar's columns) and back.  The scroll was kept as a count of rows
# below the view, and a re-wrap changes what that count is: reading
# exchange 43 of 60 at 120 columns, a resize to 70 put exchange 49 on the
# screen, 40x20 exchange 51 -- the place lost, further in a longer chat.  Now the view's top row keeps its text.  A
# saved chat of 60 exchanges (a line chat's export, its turns replaced).
. "$(dirname "$0")/tmuxlib.sh"

long_chat 40

# top_turn: the exchange the view's first numbered text belongs to
# ("question N", "Answer N" or a "wordN-K" of reply N)
top_turn() {
    screen | sed 's/│.*$//' | grep -oE 'question [0-9]+|Answer [0-9]+|word[0-9]+-' | head -1 |
        grep -oE '[0-9]+' | head -1
}
# check_top DESC N: the view's first numbered text is of exchange N
check_top() {
    local i n
    for i in $(seq 50); do
        n=$(top_turn)
        [ "$n" = "$2" ] && { ok; return; }
        sleep 0.1
    done
    fail "$1: the view shows exchange ${n:-none} at its top, want $2"
    screen | sed 's/^/    | /' | head -12
}

W=120 H=30 tui_start --session 2
check "the long chat is open" 'Answer 59\.' 60   # (its open replays ~3,000 tokens: long under a sanitizer)
keys PPage PPage PPage PPage PPage PPage
wait_for 'more below \(End\)' 5
sleep 0.5
want=$(top_turn)
[ -n "$want" ] && [ "$want" -lt 50 ] && ok || fail "scrolled back: exchange '${want}' at the top"
tui_resize 70 30
check_top "70 columns: the same place" "$want"
keys F7
check_not "F7: the sidebar hidden" 'Parameters'
check_top "F7 (the sidebar's columns to the text): the same place" "$want"
keys F7
check "F7 again: the sidebar back" 'Parameters'
check_top "F7 again: the same place" "$want"
tui_resize 120 30
check_top "120 columns again: the same place" "$want"
tui_resize 40 20
check_top "40x20: the same place" "$want"
tui_resize 120 30
check_top "120x30 again: the same place" "$want"
# End still goes to the end, and a resize there stays at the end
keys End
check_not "End: nothing below" 'more below'
tui_resize 70 30
check "at the end after a resize" 'word59-39'
check_not "... nothing below" 'more below' 2
tui_quit
tui_finish
