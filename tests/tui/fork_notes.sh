#!/usr/bin/env bash
# tests/tui/fork_notes.sh -- C-y in the sessions menu (F2) forks a session
# as a copy to go on from: the copy's transcript says what the original's
# says, the note that a message's blank lines were joined included, before
# the same message (the copy's turns are new rows: the note follows them);
# the original keeps its note.  At 80x24 on TERM=screen.
. "$(dirname "$0")/tmuxlib.sh"

# the line of the screen matching PATTERN (first), or 0
line_of() { screen | grep -nE -- "$1" | head -1 | cut -d: -f1; }
# the blank-line note stands above "para one", and only once (polled for
# up to 10 s: the key before it, e.g. Home, may not be drawn yet)
note_placed() {
    local n p c i
    for i in $(seq 100); do
        n=$(line_of '^  blank lines joined: in the chat format'); p=$(line_of '^  para one')
        c=$(screen | grep -c 'blank lines joined')
        if [ "${n:-0}" -gt 0 ] && [ "${p:-0}" -gt "$n" ] && [ "$c" = 1 ]; then ok; return; fi
        sleep 0.1
    done
    fail "$1: note at line ${n:-none} ($c times), message at ${p:-none}"
    screen | sed 's/^/    | /'
}

TUI_ENV="TERM=screen" W=80 H=24 tui_start --max-tokens 3 --seed 3
type_text $'para one\n\npara two'
send
check "the note is shown" '^  blank lines joined: in the chat format'
note_placed "the original"
type_text "plain"
send
check "second exchange" '^  plain'

# C-y: the fork opens with the note before the same message
keys F2
check "sessions menu" ' Sessions '
keys C-y
check "C-y forked" "resumed '.*\(fork\)'"
check "the fork has the transcript" '^  plain'
keys Home
note_placed "the fork"
check "the fork: the demo note too" '^  Demo model: random weights'

# the fork goes on by itself: its next message has no note
keys End
type_text "more"
send
check "the fork goes on" '^  more'
keys Home
note_placed "the fork, one more exchange"

# the original still has its note
keys F2
check "sessions menu again" ' Sessions '
keys Down Enter
check "back to the original" "resumed 'para one"
check_not "not the fork" "resumed '.*\(fork\)'" 2
keys Home
note_placed "the original again"
tui_quit
tui_finish
