#!/usr/bin/env bash
# tests/tui/resume_notes.sh -- the transcript's notes come back when it is
# rebuilt: a resume from F2, a branch switch, a new session and back, and
# --resume.  The run's notes (the demo model's, a config error) stay at the
# top; the note that a message's blank lines were joined stands before that
# message.  A new run cannot rebuild that one (the store keeps the message
# as the model got it, blank lines already joined): neither its transcript
# nor its message log (M-l) has it.  At 80x24 on TERM=screen.
. "$(dirname "$0")/tmuxlib.sh"

# the line of the screen matching PATTERN (first), or 0
line_of() { screen | grep -nE -- "$1" | head -1 | cut -d: -f1; }
# the blank-line note stands right above "You" and "para one" (polled for
# up to 10 s: the key before it, e.g. Home, may not be drawn yet)
note_placed() {
    local n p i
    for i in $(seq 100); do
        n=$(line_of '^  blank lines joined: in the chat format'); p=$(line_of '^  para one')
        if [ "${n:-0}" -gt 0 ] && [ "${p:-0}" -gt "$n" ]; then ok; return; fi
        sleep 0.1
    done
    fail "$1: note at line ${n:-none}, message at ${p:-none}"; screen | sed 's/^/    | /'
}

mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
printf 'clipboard: maybe\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
TUI_ENV="TERM=screen" W=80 H=24 tui_start --max-tokens 3 --seed 3
type_text $'para one\n\npara two'
send
check "the note is shown" '^  blank lines joined: in the chat format'
note_placed "before the resume"
type_text "plain"
send
check "second exchange" '^  plain'

# resume the session from F2: both kinds of notes are back
keys F2 Enter
check "resumed" "resumed 'para one"
keys Home
check "F2: the demo note" '^  Demo model: random weights'
check "F2: the config error" "field 'clipboard': 'maybe' is not osc52"
note_placed "after F2"

# a branch switch rebuilds the transcript too
keys End C-r
check "regenerated" '< 2/2 >'
wait_idle
keys M-,
check "switched to the first reply" '< 1/2 >'
keys Home
note_placed "after a branch switch"

# a new session: the run's notes, not the other session's message note
keys C-n
check "new session" 'new session'
check "new: the demo note" '^  Demo model: random weights'
check_not "new: no message note" 'blank lines joined'
keys F2
type_text "para"
keys Enter
check "back to it" "resumed 'para one"
keys Home
note_placed "back from a new session"

# editing that message starts a branch without it: the note stays with the
# old branch, and comes back with it
keys F6
type_text "para one"
keys Enter
check "editing" 'edit and send'
type_text " edited"
send
check "the edit sent" '^  para two edited'
check_not "the edit's branch has no note" 'blank lines joined'
keys F6
type_text "plain"
keys Enter
check "back on the old branch" '^  plain'
keys Home
note_placed "the old branch again"
tui_quit

# a new run: --resume keeps the run's notes; the message note cannot come back
TUI_ENV="TERM=screen" W=80 H=24 tui_start --resume
check "--resume: resumed" '^  para one'
keys Home
check "--resume: the demo note" '^  Demo model: random weights'
check "--resume: the config error" "field 'clipboard': 'maybe' is not osc52"
check_not "--resume: no message note" 'blank lines joined'
keys M-l
check "log open" 'Messages'
check_not "the log does not have it either" 'blank lines joined'
keys Escape
tui_quit
tui_finish
