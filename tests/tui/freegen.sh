#!/usr/bin/env bash
# tests/tui/freegen.sh -- ChatRWKV's free generation in the full-screen
# client: M-g generates from a prompt without the chat framing, M-+ goes on
# where it stopped, Esc stops it; nothing of it is saved.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 16 --seed 3
keys M-+
check "nothing to continue yet" 'nothing to continue'
# every notice stays in the message log (M-l), whole
keys M-l
check "message log" 'Messages \(newest first\)'
check "the notice, marked an error" '[0-9:]{8}  error: nothing to continue: M-g starts a free generation'
keys Escape
check_not "log closed" 'Messages \(newest first\)'
sleep 0.3              # (an Esc and then M-g at once would read as one key)
keys M-g
check "prompt" 'generate from:'
type_text "Once upon a time"
send
check "shown, marked not saved" 'free generation \(not saved\): Once upon a time'
check "done notice" 'M-\+ continues it'
keys M-+
wait_idle
check "continued" '\(continued\)'
tui_quit
n=$(sqlite3 "$DB" 'select count(*) from turns' 2>/dev/null)
[ "${n:-0}" = 0 ] && ok || fail "free generation saved $n turns"

# a long one is stopped with Esc and continues with M-+
tui_start --max-tokens 1000000 --seed 4
keys M-g
type_text "go"
keys Enter
check "generating" 'generating'
sleep 1
keys Escape
check "stopped" 'generation stopped; M-\+ continues it'
tui_quit
tui_finish
