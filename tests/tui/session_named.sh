#!/usr/bin/env bash
# tests/tui/session_named.sh -- a new session's first reply: the status line
# names the session as soon as its row exists, not when the reply ends.  The
# runtime makes the row with the first message's rows and posts no event of
# its own for it, so the status line said "session: new" for the whole first
# reply while F2 already listed the session (and did not mark it open).
# A cancel before the reply began takes the new row away: "new" again.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 1000000 --seed 3
check "a new chat: session: new" '^ DEMO MODEL .*session: new'
type_text "Hello there"
keys Enter
check "the first reply is running" '^ DEMO MODEL .*generating' 10
check "the status line names the session during its first reply" \
    '^ DEMO MODEL .*session: Hello there.*generating'
keys F2
check "F2 marks it open during its first reply" 'Hello there.*\(open\)'
keys Escape
check_not "F2 closed" '\(open\)'
keys Escape
check "the reply stopped" 'reply interrupted'
check "the session still named after the reply" '^ DEMO MODEL .*session: Hello there'
# C-n: a new chat, nothing saved yet
keys C-n
check "C-n: session: new again" '^ DEMO MODEL .*session: new'
type_text "Second chat"
keys Enter
check "the second session named during its first reply" \
    '^ DEMO MODEL .*session: Second chat.*generating'
keys Escape
check "stopped" 'reply interrupted'
tui_quit
tui_finish
