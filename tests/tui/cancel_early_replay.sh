#!/usr/bin/env bash
# tests/tui/cancel_early_replay.sh -- the client's replays: Esc pressed after
# a session is opened (F2 Enter), a sibling asked for (M-,) or a state-file
# switch with replay chosen (F3), but before the worker has begun the job,
# stops that replay as one during it does: "cancelled: nothing changed" --
# the session not opened, the branch not stepped, the state not switched --
# and the next one is not touched by it: it goes through.  (The replay
# cleared the runtime's cancel as it began, so such an Esc was lost and the
# replay ran to its end.)  gdb makes the instant (holdlib.sh); without gdb,
# or where it may not attach, the checks are skipped.  The demo model; the
# saved states deleted (a budget can no longer be set under one state), so
# every step replays.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=19
hold_gdb $N_CHECKS "the cancel before a replay starts"

mkdir -p "$TMP/states" "$XDG_CONFIG_HOME/rwkv-tui"
python3 "$(dirname "$0")/mkstate.py" "$TMP/states/calm.safetensors" 2 7 13 && ok ||
    fail "python3 needed for the state file"
printf 'state_dir: %s\n' "$TMP/states" >"$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
# a message answered twice: two sibling replies, the second the head
printf 'hello there\n/regen\n' |
    "$RWKV_TUI" chat --demo --db "$DB" --new twice --max-tokens 8 --seed 2 >/dev/null 2>&1 &&
    sqlite3 "$DB" "DELETE FROM snapshots" && ok || fail "making the session"
head_turn() { sqlite3 "$DB" "SELECT head_turn FROM sessions WHERE id = 1"; }
HEAD=$(head_turn)

tui_start --max-tokens 8
# opening it, Esc before its job began: not opened
keys F2
check "the sessions menu" 'twice'
if ! held Enter Escape; then
    skip $((N_CHECKS - 3)) "gdb could not attach: $(hold_why)"
    tui_quit
    tui_finish
    exit
fi
check "an open cancelled before its job began" 'cancelled: nothing changed'
check_not "... the session not opened" 'hello there' 1
[ "$(head_turn)" = "$HEAD" ] && ok || fail "the head moved: $HEAD -> $(head_turn)"
keys F2 Enter
check "the next open goes through" '^RWKV  < 2/2 >' 30
wait_idle 100

# M-, (the first reply), Esc before its job began: not stepped
held M-, Escape || fail "gdb could not attach a second time"
check "a sibling step cancelled before its job began" 'cancelled: nothing changed'
check "... still on the second reply" '^RWKV  < 2/2 >'
[ "$(head_turn)" = "$HEAD" ] && ok || fail "the head moved: $HEAD -> $(head_turn)"
keys M-,
check "the next step goes through" '^RWKV  < 1/2 >' 30
wait_idle 100

# F3, the state, "replay this conversation", Esc before its job began: not switched
keys F3
check "the state menu" 'calm\.safetensors'
type_text calm
keys Enter
check "asks what to do" 'Replay this conversation under it'
held "Down Enter" Escape || fail "gdb could not attach a third time"
check "a state switch cancelled before its job began" 'cancelled: nothing changed'
check_not "... the state not switched" 'state: calm' 1
keys F3
type_text calm
keys Enter
check "asks again" 'Replay this conversation under it'
keys Down Enter
check "the next switch goes through" 'replayed [0-9]+ tokens under state' 30
check "... the state switched" 'state: calm\.safetensors'
tui_quit
tui_finish
