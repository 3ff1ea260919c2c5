#!/usr/bin/env bash
# tests/tui/status_narrow_busy.sh -- a running reply stays in sight in the
# status line at any width the client draws (20 columns): the demo label
# shortens to "DEMO" where the whole one leaves no room for the job's name,
# and the job shows as "generating N tok...", then "generating..." (a long
# prefill: "prefilling N%") where even the count does not fit.  At 20x6 the
# line was the demo label alone, cut ("DEMO MODEL (rando"), with no sign
# that anything ran.  Idle, the whole label where it leaves a count room.
. "$(dirname "$0")/tmuxlib.sh"

# status_has DESC PATTERN: the top row comes to match PATTERN, and fits
status_has() {
    local i s
    for i in $(seq 200); do
        s=$(screen_rows | head -n 1)
        if printf '%s' "$s" | grep -Eq -- "$2"; then
            [ "${#s}" -le "$(tmx display -p "#{window_width}")" ] && ok || fail "$1: the status line is ${#s} columns: '$s'"
            return
        fi
        sleep 0.1
    done
    fail "$1: the status line is '$s', want /$2/"
}

W=20 H=6 tui_start --max-tokens 150000 --seed 3
status_has "20x6 idle: the short label and the count" '^ DEMO [^M]*[0-9]+ tok *$'
type_text "x"
keys Enter
status_has "20x6: a reply running is said" '^ DEMO generating\.\.\. *$'
tui_resize 40 8
status_has "40x8: with its count" '^ DEMO generating [0-9]+ tok\.\.\.'
keys Escape
wait_idle 300
status_has "40x8 idle: the whole demo label" '^ DEMO MODEL \(random weights\) .*[0-9]+ tok'
tui_resize 20 6
status_has "20x6 idle again: the short label" '^ DEMO [^M]*[0-9]+ tok *$'
# a long message: its prefill's share, then the reply
printf 'word %.0s' $(seq 6000) > "$TMP/long"
tmx load-buffer "$TMP/long"
tmx paste-buffer -p
check "pasted" '^>.*word word'
keys Enter
status_has "20x6: a long prefill's share" '^ DEMO prefilling [0-9]+% *$'
status_has "20x6: then the reply" '^ DEMO generating\.\.\.'
keys Escape
wait_idle 300
tui_quit
tui_finish
