#!/usr/bin/env bash
# tests/tui/resume_model.sh -- the full-screen client resuming a session
# with another model (`rwkv-tui --session 1 --model OTHER`): the turns it
# computes are not written into session 1, whose row names the model that
# made it (before, they were, and `sessions show 1` named the old model for
# them).  The next message goes on as a new session of the model in use,
# holding the conversation, said in one line (as F5's switch starts a new
# session); session 1 is as it was.  Models written by the binary itself.
. "$(dirname "$0")/tmuxlib.sh"
T=$RWKV_TUI
A=$TMP/a.pth
B=$TMP/b.pth

"$T" bench --save "$A" --shape demo --seed 1 >/dev/null 2>&1 && ok || fail "bench --save a"
"$T" bench --save "$B" --shape demo --seed 2 >/dev/null 2>&1 && ok || fail "bench --save b"
printf 'from a\n' | "$T" chat --model "$A" --db "$DB" --new one --max-tokens 4 --seed 1 \
    >/dev/null 2>&1 && ok || fail "chat with a"
before=$("$T" sessions --db "$DB" export 1 --format md)

W=240 NODEMO=1 tui_start --db "$DB" --session 1 --model "$B" --max-tokens 4 --seed 2
check "session 1 open" 'from a'
type_text "from b"
send
check "said once: a new session" "session 1 was made with $A; with $B this conversation goes on as session 2"
check_not "not the plain new-session line" 'new session 2'
tui_quit
[ "$("$T" sessions --db "$DB" export 1 --format md)" = "$before" ] && ok ||
    fail "session 1 changed: $("$T" sessions --db "$DB" show 1)"
out=$("$T" sessions --db "$DB" show 2)
case $out in
*"model $B "*"from a"*"from b"*) ok ;;
*) fail "session 2: $out" ;;
esac
tui_finish
