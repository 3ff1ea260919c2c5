#!/usr/bin/env bash
# tests/tui/status_title.sh -- the session title in the status line gets
# the room there is: beside the demo label at 80 columns the labels that
# repeat what the screen says (the model label "demo", "state: none"),
# then the strategy and the word "session" give way before the title is
# cut; a 300-character title is cut with … and the token count stays.
. "$(dirname "$0")/tmuxlib.sh"

W=80 H=24 tui_start --max-tokens 3 --seed 2
type_text "Hello friend"
send
check "80 columns: the whole title beside the demo label and the speed" \
    '^ DEMO MODEL \(random weights\) +Hello friend \| [0-9]+ tok +decode [0-9.]+ tok/s $'
tmx resize-window -x 100 -y 24
check "100 columns: the strategy and the title" \
    '^ DEMO MODEL \(random weights\) +cpu fp32 \| session: Hello friend \| [0-9]+ tok'
tmx resize-window -x 160 -y 24
check "160 columns: every label" \
    '^ DEMO MODEL \(random weights\) +demo \| cpu fp32 \| state: none \| session: Hello friend \| [0-9]+ tok'

# a 300-character title (F2, C-r): its head and …, the count kept
tmx resize-window -x 80 -y 24
long=$(printf 'abcdefghij%.0s' $(seq 30))
keys F2
check "sessions menu" ' Sessions '
keys C-r
check "rename prompt" 'new title:'
keys C-u
type_text "$long"
keys Enter
check "renamed" 'abcdefghij'
keys Escape
check "80 columns: a 300-character title cut with …, the count kept" \
    '^ DEMO MODEL \(random weights\) +abcdefghij[a-j]*… \| [0-9]+ tok +decode'
tmx resize-window -x 30 -y 8
# (the short label: the whole one would leave the line no room for the count)
check "30 columns: the demo label first, short, and the count" '^ DEMO [^M]*[0-9]+ tok'
tmx resize-window -x 80 -y 24
check "back at 80 columns" '^ DEMO MODEL \(random weights\) +abcdefghij[a-j]*… \| [0-9]+ tok'
tui_quit
tui_finish
