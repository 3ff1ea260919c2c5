#!/usr/bin/env bash
# tests/tui/sibling_queue.sh -- Left pressed three times in F6 (or M-, three
# times) while the first step still replays goes three siblings back, F6
# left open or closed at once: the
# steps pressed meanwhile are taken one by one as each ends (they were
# refused with "wait for the model to finish", and the chat stopped one step
# along).  The replays are made slow on purpose: a long message, and every
# saved state deleted (a budget can no longer be set under one state).
. "$(dirname "$0")/tmuxlib.sh"

# a session whose last message is long (a replay of it takes a while) with
# four replies to it; a sanitizer build (make asan sets RWKV_ASAN) runs the
# model ~10x slower, so a message a tenth as long replays as long there
words=60000
[ -n "${RWKV_ASAN:-}" ] && words=6000
long=$(python3 -c 'import random, sys; random.seed(3); print(" ".join(random.choice(["alpha","beta","gamma","delta","omega"]) for _ in range(int(sys.argv[1]))))' $words)
printf '%s\n/regen 3\n' "$long" |
    "$RWKV_TUI" chat --demo --db "$DB" --new q --max-tokens 4 --seed 2 >/dev/null 2>&1 && ok ||
    fail "chat"
[ "$(sqlite3 "$DB" "select count(*) from turns where role=2" 2>/dev/null)" = 4 ] && ok ||
    fail "replies: $(sqlite3 "$DB" "select id, role from turns" 2>/dev/null | tr '\n' ' ')"

for how in F6 F6-closed keys; do
    sqlite3 "$DB" "DELETE FROM snapshots" && ok || fail "dropping the saved states"
    tui_start --max-tokens 4
    keys F2 Enter
    # (the waits are long for sanitizer builds, where resuming replays
    # these long turns for minutes; a normal build takes seconds)
    check "$how: resumed on the 4th reply" '^RWKV  < 4/4 >' 600
    wait_idle 600
    if [ $how = F6 ]; then
        keys F6
        check "F6 open" 'Branches'
        keys Left Left Left
        wait_for 'replaying' 5
        wait_idle 600
        check "F6: three steps back" '< 1/4 > \*|\* .*< 1/4 >' 600
        keys Escape
    elif [ $how = F6-closed ]; then
        # F6 closed before the steps are done: they are still taken
        keys F6
        check "F6 open" 'Branches'
        keys Left Left Left Escape
        wait_for 'replaying' 5
        wait_idle 600
    else
        keys M-, M-, M-,
        wait_for 'replaying' 5
        wait_idle 600
    fi
    check "$how: the transcript is on the first reply" '^RWKV  < 1/4 >' 600
    check_not "$how: no step refused" 'wait for the model|a reply is still running' 1
    tui_quit
    "$RWKV_TUI" sessions --db "$DB" budget off >/dev/null
    # back to the 4th for the next round
    printf '' | "$RWKV_TUI" chat --demo --db "$DB" --session 1 >/dev/null 2>&1
    sqlite3 "$DB" "update sessions set head_turn=(select max(id) from turns)" 2>/dev/null
done
tui_finish
