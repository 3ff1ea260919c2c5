#!/usr/bin/env bash
# tests/tui/tokens_live.sh -- the status line's token count is the tokens
# the context holds now (tui_session_tokens_now), at every moment:
# - after C-n the same as at a start: the greeting is counted, fed or to be
#   fed with the next message (after a resume it said "0 tok");
# - while a reply streams: the exchanges before it, the message's tokens
#   and the reply's so far (it said the count before the message);
# - during alternative k/N (M-R): the count before the old reply and the
#   new reply's tokens so far (it said the old reply's count).
. "$(dirname "$0")/tmuxlib.sh"

# N_ctx N_gen from the status line while a reply streams: "| N tok  ...
# generating M tok..." (the busy part PAT); empty when not there
counts() {
    screen | head -1 | sed -nE "s#.*\| ([0-9]+) tok +$1 ([0-9]+) tok\.\.\..*#\1 \2#p"
}
# wait for counts PAT with a reply of at least 5 tokens so far
live_counts() {
    local i=0 c
    while [ $i -lt 200 ]; do
        c=$(counts "$1")
        if [ -n "$c" ] && [ "${c#* }" -ge 5 ]; then echo "$c"; return 0; fi
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# the count N - M while a reply of M tokens streams: the context before it
# (G, the greeting, then P more: the message)
before_reply() {
    local c
    c=$(live_counts "$1") || return 1
    echo $((${c% *} - ${c#* }))
}

tui_start --max-tokens 1000000 --stop QQQQQQQQQQQQ --seed 3
G=$(screen | head -1 | sed -nE 's/.*\| ([0-9]+) tok.*/\1/p')
[ -n "$G" ] && [ "$G" -gt 0 ] && ok || fail "a start counts the greeting: '$(screen | head -1)'"

type_text "count me"
keys Enter
b=$(before_reply 'generating') || fail "no live count: '$(screen | head -1)'"
P=$((b - G))
[ "$P" -gt 0 ] && ok || fail "streaming: the message is not counted ($b before the reply, greeting $G)"
sleep 0.5
b=$(before_reply 'generating')
[ "$b" = $((G + P)) ] && ok || fail "streaming: the count does not follow the reply ($b, not $((G + P)))"
keys Escape
check "the reply cut" '^  \[interrupted\]' 20
wait_idle
R=$(screen | head -1 | sed -nE 's/.*\| ([0-9]+) tok.*/\1/p')
[ -n "$R" ] && [ "$R" -gt $((G + P)) ] && ok || fail "at rest: '$R' after the reply (before it $((G + P)))"

keys M-R C-u
type_text "3"
keys Enter
for t in 1 2; do
    b=$(before_reply 'alternative 1/3: generating')
    [ "$b" = $((G + P)) ] && ok ||
        fail "alternative 1/3 ($t): $b, not the count before the old reply ($((G + P))) + the new one's"
    sleep 0.5
done
keys Escape
check "the batch stops" 'alternatives stopped at 1 of 3' 20
wait_idle

keys C-n
check "C-n: the greeting counted" "session: new \| $G tok"
tui_quit

# C-n after a resume: the state was restored whole, so the new session's
# greeting is fed with its first message -- counted as at a start
tui_start --session 1 --max-tokens 1000000 --stop QQQQQQQQQQQQ --seed 3
check "resumed" 'session: count me'
keys C-n
check "C-n: a new session" 'new session'
check "C-n after a resume: the greeting counted as at a start" "session: new \| $G tok"
type_text "count me"
keys Enter
b=$(before_reply 'generating')
[ "$b" = $((G + P)) ] && ok || fail "after C-n, streaming: $b before the reply, not $((G + P))"
keys Escape
check "the reply cut" '^  \[interrupted\]' 20
wait_idle
tui_quit
tui_finish
