#!/usr/bin/env bash
# tests/tui/start_fail_once.sh -- a session the full-screen client cannot
# open at start (--session ID) ends it with one line that names the session
# once: the open's own line names it already ("session 1 was made with M
# (RWKV-7...), not this model (RWKV-6...)"); before, the client put
# "session 1: " before it ("rwkv-tui: session 1: session 1 was made
# with ...").  The line chat's same start says it the same way.  Models
# written by the binary itself: session 1 made with a v7 file, which is
# then replaced by a v6 one at the same path.
. "$(dirname "$0")/tmuxlib.sh"
T=$RWKV_TUI
M=$TMP/m.pth

"$T" bench --save "$M" --shape demo --seed 1 >/dev/null 2>&1 && ok || fail "bench --save v7"
printf 'hello\n' | "$T" chat --model "$M" --db "$DB" --new one --max-tokens 4 --seed 1 \
    >/dev/null 2>&1 && ok || fail "chat with the v7 file"
"$T" bench --save "$M" --shape demo-v6 --seed 1 >/dev/null 2>&1 && ok || fail "bench --save v6 over it"

NODEMO=1 NOWAIT=1 tui_start --db "$DB" --session 1
wait_for '^EXIT=' 60 && ok || fail "the client did not end: $(screen | tail -3)"
err=$(cat "$TMP/stderr.$RUNS")
check "exit 1" '^EXIT=1'
case $err in
*"rwkv-tui: session 1 was made with $M (RWKV-7"*"not this model (RWKV-6"*) ok ;;
*) fail "not the open's line: $err" ;;
esac
n=$(printf '%s\n' "$err" | grep -o 'session 1\b' | grep -c '')
[ "$n" = 1 ] && ok || fail "session 1 named $n times: $err"
# the line chat: the same line, the session named once
out=$("$T" chat --db "$DB" --session 1 --max-tokens 2 </dev/null 2>&1 >/dev/null)
case $out in
"rwkv-tui: chat: session 1 was made with $M (RWKV-7"*"not this model (RWKV-6"*) ok ;;
*) fail "chat: $out" ;;
esac
n=$(printf '%s\n' "$out" | grep -o 'session 1\b' | grep -c '')
[ "$n" = 1 ] && ok || fail "chat: session 1 named $n times: $out"
tui_finish
