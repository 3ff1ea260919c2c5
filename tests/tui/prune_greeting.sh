#!/usr/bin/env bash
# tests/tui/prune_greeting.sh -- F6's delete of the "Start" row (the whole
# conversation: "the session stays, empty") leaves a session exactly like
# a new one of the same framing: the next message goes under a greeting
# turn again, and what the chat fed (greeting + message) is what the tree
# says, so a replay (another strategy, a resume) rebuilds the same state.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 10 --seed 3
type_text "one"
send
keys F6
check "F6 open" 'Branches: the whole tree'
check "the start row" '\* Start: User: hi'
keys Up Up
keys C-d
check "asks for the whole conversation" 'delete the whole conversation \(2 turns\)\? the session stays, empty'
keys y
check_not "menu closed: the session is opened again, empty" 'Branches: the whole tree'
wait_idle 100
type_text "two"
send
tui_quit

q() { sqlite3 "$DB" "$1"; }
# the tree: a greeting (system) turn is the root, "two" is its child
sys=$(q "select count(*) from turns where session_id=1 and role=0 and parent_id is null")
[ "$sys" = 1 ] && ok || fail "no greeting root in the pruned session: $(q 'select id,parent_id,role,text from turns')"
par=$(q "select p.role from turns t join turns p on p.id=t.parent_id where t.session_id=1 and t.role=1 and t.text='two'")
[ "$par" = 0 ] && ok || fail "'two' is not under the greeting (its parent's role: '$par')"

# a session that never had the delete: the same message in a new session
printf 'two\n' | "$RWKV_TUI" chat --demo --db "$DB" --new ref --max-tokens 10 --seed 3 \
    >/dev/null 2>"$TMP/ref.err" && ok || fail "reference chat: $(cat "$TMP/ref.err")"
u1=$(q "select id from turns where session_id=1 and role=1 and text='two'")
u2=$(q "select id from turns where session_id=2 and role=1 and text='two'")
# the states the two chats fed the reply from are the same state
"$RWKV_TUI" sessions --db "$DB" state 1 "$u1" --vs "$u2" >"$TMP/vs" 2>&1
grep -q 'cosine of the whole states: 1.000000' "$TMP/vs" && ok ||
    fail "the state before 'two' differs from a new session's: $(tail -2 "$TMP/vs" | tr '\n' '|')"
# a replay under another strategy feeds the same tokens for both
rep() {
    "$RWKV_TUI" chat --demo --db "$DB" --session "$1" --strategy 'cpu bf16' --max-tokens 3 \
        </dev/null 2>&1 | grep -o 'replayed [0-9]* tokens' | head -1
}
r1=$(rep 1)
r2=$(rep 2)
[ -n "$r1" ] && [ "$r1" = "$r2" ] && ok || fail "replays differ: session 1 '$r1', a new session '$r2'"
tui_finish
