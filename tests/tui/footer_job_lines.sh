#!/usr/bin/env bash
# tests/tui/footer_job_lines.sh -- a job's lines join in the footer instead
# of each replacing the one before, so every fact is in sight: F3's switch
# says the new session and the sampling it changed (the sampling line took
# the footer, and "new session from state X" was said nowhere); a message
# with -temp= keeps "this reply: temperature X, top_p Y" first, the
# runtime's notes after it (the first message's "new session N" replaced it
# at once).  The message log keeps each line alone.
. "$(dirname "$0")/tmuxlib.sh"

mkdir -p "$TMP/states"
python3 "$(dirname "$0")/mkstate.py" "$TMP/states/calm.safetensors" 2 7 13 ||
    { echo "python3 needed"; echo "0 passed, 1 failed"; exit 1; }
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
printf 'state_dir: %s\n' "$TMP/states" > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"

# footer_has DESC PATTERN: the bottom row comes to match PATTERN
footer_has() {
    local i f
    for i in $(seq 100); do
        f=$(screen_rows | tail -n 1)
        printf '%s' "$f" | grep -Eq -- "$2" && { ok; return; }
        sleep 0.1
    done
    fail "$1: the footer is '$f', want /$2/"
}

W=200 H=30 tui_start --max-tokens 3 --seed 1
type_text "-temp=0.3 -top_p=0.9 hi"
send
footer_has "-temp: the values first, the new session after them" \
    '^this reply: temperature 0\.3, top_p 0\.9; .*new session [0-9]+: hi'
keys M-l
check "the log has the values alone" '  this reply: temperature 0\.3, top_p 0\.9 *│'
check "... and the new session alone" '  new session [0-9]+: hi *│'
keys Escape
check_not "the log closed" 'Messages \(newest first\)'

# the next message: no note but where the reply stopped, after the values
type_text "again -temp=2"
send
footer_has "-temp: the values, then where the reply stopped" \
    '^this reply: temperature 2, top_p 0\.3; reply stopped at max tokens: M-r continues it'
keys F3
check "the state menu" 'State files'
type_text "calm"
keys Enter
check "asked: a new session or a replay" 'New session from this state'
keys Enter
footer_has "F3: the new session and the sampling it changed" \
    '^new session from state .*calm\.safetensors; sampling for a state file \(the demo.s\): top_p 0\.3 -> 0\.2'
tui_quit
tui_finish
