#!/usr/bin/env bash
# tests/cli/greeting_state.sh -- a greeting with a state file: the demo feeds
# no greeting when a state is loaded, and neither does the chat; the user is
# told so in one line (sess_create, sess_switch_state: the runtime's note, so
# the full-screen client says it too) and /framing shows it as not fed (the
# rule F8 shows: sess_greeting_used).  Without a state file nothing changes.
. "$(dirname "$0")/lib.sh"

have_fixture models/tiny-7v0-fp32.pth 9 || { finish; exit; }
have_fixture states/state-7v0-A.pth 9 || { finish; exit; }
M="--model $FX/models/tiny-7v0-fp32.pth"
S="--state $FX/states/state-7v0-A.pth"
G='User: yo\n\nAssistant: hey\n\n'
NOTE='the greeting is not fed: a chat that starts from a state file starts from the state alone'

printf '/framing\nhello\n' | "$RWKV_TUI" chat $M $S --greeting "$G" --seed 2 --max-tokens 16 \
    >"$TMP/o1" 2>"$TMP/e1"
[ $? = 0 ] && ok || fail "chat --state --greeting: exit status: $(cat "$TMP/e1")"
[ "$(grep -c "$NOTE" "$TMP/e1")" = 1 ] && ok || fail "no one-line note: $(cat "$TMP/e1")"
grep -q '^greeting  (not fed: a state file is in use)$' "$TMP/o1" && ok ||
    fail "/framing shows the greeting as fed: $(head -1 "$TMP/o1")"
# the reply is the one without --greeting: nothing of it was fed
printf 'hello\n' | "$RWKV_TUI" chat $M $S --seed 2 --max-tokens 16 >"$TMP/o2" 2>"$TMP/e2"
[ "$(grep '^Assistant:' "$TMP/o1")" = "$(grep '^Assistant:' "$TMP/o2")" ] && ok ||
    fail "the reply differs from the one without --greeting"
grep -q "$NOTE" "$TMP/e2" && fail "a note without a greeting of one's own" || ok
# --no-greeting with a state: nothing to say
printf '/framing\n' | "$RWKV_TUI" chat $M $S --no-greeting --seed 2 >"$TMP/o3" 2>"$TMP/e3"
grep -q "$NOTE" "$TMP/e3" && fail "a note with --no-greeting" || ok

# without a state file the greeting is fed and shown; /state FILE then says it
printf '/framing\n/state %s\n/framing\n' "$FX/states/state-7v0-A.pth" |
    "$RWKV_TUI" chat $M --greeting "$G" --seed 2 >"$TMP/o4" 2>"$TMP/e4"
[ "$(grep -c '^greeting' "$TMP/o4")" = 2 ] && ok || fail "/framing twice: $(cat "$TMP/o4")"
grep '^greeting' "$TMP/o4" | head -1 | grep -q 'User: yo\\n\\nAssistant: hey' && ok ||
    fail "/framing without a state: $(head -1 "$TMP/o4")"
grep '^greeting' "$TMP/o4" | tail -1 | grep -q 'not fed: a state file is in use' && ok ||
    fail "/framing after /state: $(grep '^greeting' "$TMP/o4" | tail -1)"
[ "$(grep -c "$NOTE" "$TMP/e4")" = 1 ] && ok || fail "/state with a greeting: no note: $(cat "$TMP/e4")"
finish
