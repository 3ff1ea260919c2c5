#!/usr/bin/env bash
# tests/tui/scroll_indicator.sh -- the separator's "N more below (End)"
# counts the rows the drawn view has below it, after the view changed too.
# The scroll position is kept as rows below the view; a resize or F7 that
# re-wraps the transcript or makes the view taller can leave it counting
# more rows than there are.  The view was drawn clamped, but the count was
# printed raw: "4 more below" over a transcript shown whole, or F7 keeping
# the narrower layout's count.  Now the position is clamped to the view
# before each draw (tui_tr_fit).  PgUp, PgDn, Shift-Down and End still move
# the view and its count as before.  80x24, TERM=screen.
. "$(dirname "$0")/tmuxlib.sh"

# below: the N of "N more below" on the screen, or 0 when there is none
below() {
    local n
    n=$(screen | grep -oE '[0-9]+ more below \(End\)' | head -1)
    echo "${n%% *}"
}
# wait_below N: poll until the count is N (none: 0); 0 when it is
wait_below() {
    local i n
    for i in $(seq 50); do
        n=$(below)
        [ "${n:-0}" = "$1" ] && return 0
        sleep 0.1
    done
    return 1
}
# check_below DESC N: the count is N
check_below() {
    local n
    if wait_below "$2"; then ok; else
        n=$(below); fail "$1: want ${2} more below, the screen says ${n:-none}"
        screen | sed 's/^/    | /'
    fi
}

# --- a resize: narrow, PgUp, back to 80x24 where it all fits -------------
TUI_ENV="TERM=screen" W=80 H=24 tui_start --max-tokens 40 --seed 1
type_text "hello there"
send
check "80x24: the reply" '^RWKV( |$)'
check_not "80x24: it all fits, nothing below" 'more below'
tui_resize 30 10
keys PPage
check "30x10: PgUp scrolls back" ' [0-9]+ more below \(End\)'
tmx resize-window -x 80 -y 24
check "80x24 again: the transcript shown whole" '^Note( |$)'
check "80x24 again: the reply in sight" '^RWKV( |$)'
check_not "80x24 again: the whole transcript fits, nothing below" 'more below'
# nothing left to scroll: PgDn and End change nothing, PgUp has no rows
keys PPage
check "80x24: PgUp with it all in sight: still the top" '^Note( |$)'
check_not "80x24: PgUp with it all in sight: nothing below" 'more below'

# --- a taller view, the width unchanged ----------------------------------
# (the sidebar stays: the transcript is not re-wrapped, only clamped)
type_text "second message"
send
type_text "third message"
send
keys PPage PPage PPage PPage
check "80x24, three exchanges: PgUp to the top" '^Note( |$)'
n=$(below)
[ "${n:-0}" -gt 0 ] && ok || fail "80x24, three exchanges: PgUp shows no count"
tmx resize-window -x 80 -y 60
check "80x60: the top in sight" '^Note( |$)'
check_below "80x60: a view that holds it all, nothing below" 0
# (the position was clamped there: back at 80x24 the view follows the end)
tmx resize-window -x 80 -y 24
check "back at 80x24: drawn" '^F1 help'
check_below "back at 80x24: at the end, nothing below" 0
tui_quit

# --- F7: the sidebar off re-wraps the transcript wider -------------------
# Long messages wrap to more rows beside the sidebar than without it.
TUI_ENV="TERM=screen" W=80 H=24 tui_start --max-tokens 40 --seed 1
for i in 1 2 3 4 5 6; do
    type_text "message $i: a longer line of words, so that it wraps to more rows beside the sidebar than it does when the sidebar is off"
    send
done
check_not "6 exchanges: at the end, nothing below" 'more below'
for i in 1 2 3 4 5; do keys PPage; done
check "PgUp to the top" '^Note( |$)'
narrow=$(below)
[ "${narrow:-0}" -gt 0 ] && ok || fail "PgUp to the top: no count"
keys F7
check_not "F7: the sidebar off" 'Parameters'
check "F7: still at the top" '^Note( |$)'
wide=$(below)
if [ "${wide:-0}" -lt "${narrow:-0}" ]; then ok; else
    fail "F7: the wider layout has fewer rows below, the count stayed ${wide:-none} (was ${narrow:-none})"
    screen | sed 's/^/    | /'
fi
# the count is the rows below: one Shift-Down takes one off, and that many
# reach the end
keys S-Down
check_below "F7: Shift-Down takes one off the count" $(( ${wide:-0} - 1 ))
for i in $(seq $(( ${wide:-0} - 2 ))); do keys S-Down; done
check_below "F7: as many Shift-Downs as the count said, less one" 1
keys S-Down
check_below "F7: ... and one more reaches the end" 0
# PgUp, PgDn and End as before: PgUp goes back h - 2 = 18 rows, PgDn
# forward as far, End to the end
keys PPage
check_below "PgUp: 18 rows back" 18
keys PPage PPage PPage
check "PgUp to the top again" '^Note( |$)'
top=$(below)
keys NPage
check_below "PgDn: 18 rows on" $(( ${top:-0} - 18 ))
keys End
check_below "End: at the end" 0
# F7 again: beside the sidebar there are more rows; a view scrolled back
# keeps the text at its top (resize_keeps_place.sh), so the top stays in
# sight and the count is the narrower layout's again
keys PPage PPage PPage PPage PPage
check "the top, sidebar off" '^Note( |$)'
keys F7
check "F7: the sidebar back" 'Parameters'
check "F7 back: still at the top" '^Note( |$)'
check_below "F7 back: the narrower layout's count" "${narrow:-0}"
tui_quit
tui_finish
