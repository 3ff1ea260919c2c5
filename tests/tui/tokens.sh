#!/usr/bin/env bash
# tests/tui/tokens.sh -- tokens in the conversation (status line "| N tok")
# and per message (a dim "N tok" at the right of each header): a user turn
# counts its framed prompt ("User: MSG\n\nAssistant:", after a reply cut by
# max-tokens also the "\n\n" separator; the demo model's vocabulary is
# bytes), a reply the tokens generated; the total is the greeting plus every
# turn; all the same after a resume.
. "$(dirname "$0")/tmuxlib.sh"

# the N of "N tok" on the header of the K-th turn of ROLE (You / RWKV)
tok_of() { screen | grep -E "^$1 .* [0-9]+ tok *│?" | sed -n "${2}p" | grep -oE '[0-9]+ tok' | tail -1 | grep -oE '[0-9]+'; }
total() { screen | head -1 | grep -oE '\| [0-9]+ tok' | grep -oE '[0-9]+'; }

tui_start --max-tokens 5 --seed 5
g=$(total)
[ -n "$g" ] && [ "$g" -gt 0 ] && ok || fail "greeting tokens in the status line: '$(screen | head -1)'"
type_text "hello"
send
check "header counts" '^You .* [0-9]+ tok'
u1=$(tok_of You 1); r1=$(tok_of RWKV 1)
# "User: hello\n\nAssistant:" = 6 + 5 + 12 bytes
[ "$u1" = 23 ] && ok || fail "first prompt: '$u1' tokens, want 23"
[ -n "$r1" ] && [ "$r1" -ge 1 ] && [ "$r1" -le 5 ] && ok || fail "reply tokens '$r1' not in 1..5"
t1=$(total)
[ "$t1" = $((g + u1 + r1)) ] && ok || fail "total $t1 != greeting $g + $u1 + $r1"
type_text "again"
send
u2=$(tok_of You 2); r2=$(tok_of RWKV 2)
# after a reply cut by max-tokens the next prompt starts with "\n\n"
want=23
[ "$r1" = 5 ] && want=25
[ "$u2" = "$want" ] && ok || fail "second prompt: '$u2' tokens, want $want"
t2=$(total)
[ "$t2" = $((t1 + u2 + r2)) ] && ok || fail "total $t2 != $t1 + $u2 + $r2"
tui_quit

tui_start --resume
check "resumed" '^  again'
[ "$(tok_of You 1)" = "$u1" ] && [ "$(tok_of You 2)" = "$u2" ] && ok ||
    fail "user tokens after resume: $(tok_of You 1) $(tok_of You 2), want $u1 $u2"
[ "$(tok_of RWKV 1)" = "$r1" ] && [ "$(tok_of RWKV 2)" = "$r2" ] && ok ||
    fail "reply tokens after resume: $(tok_of RWKV 1) $(tok_of RWKV 2), want $r1 $r2"
[ "$(total)" = "$t2" ] && ok || fail "total after resume $(total), want $t2"
tui_quit
tui_finish
