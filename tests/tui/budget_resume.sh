#!/usr/bin/env bash
# tests/tui/budget_resume.sh -- the full-screen client resuming a session
# whose states `sessions budget` dropped but the head's.  The open replayed
# the whole conversation for the state before the last message at every
# resume (and said so each time), though only a regeneration starts from
# it.  Now the resume takes the head's state and replays nothing; C-r, the
# first thing that needs that state, rebuilds it (the runtime's one place,
# storage/session_db.c sess_lazy_prev, as the line chat's + and /regen:
# tests/cli/budget_resume.sh), its note in the message log, and draws the
# reply a stored state gives; the database keeps within its budget.
. "$(dirname "$0")/tmuxlib.sh"

q() { sqlite3 "$1" "$2" 2>/dev/null; }
states() { q "$1" "select (select coalesce(sum(length(blob)),0) from snapshots)
                        + (select coalesce(sum(length(blob)),0) from state_blobs)"; }
head_done() { [ "$(q "$DB" "select t.id <> $head and t.interrupted = 0 from sessions s
                             join turns t on t.id = s.head_turn where s.id = 1")" = 1 ]; }

long=$(head -c 3000 /dev/zero | tr '\0' 'a')
for i in $(seq 30); do echo "message number $i $long"; done |
    "$RWKV_TUI" chat --demo --db "$DB" --new "long one" --max-tokens 8 --seed 1 >/dev/null 2>&1 ||
    fail "making the session"
cp "$DB" "$TMP/ref.db"                  # every state kept
one=$(q "$DB" "select max(n) from (select length(blob) n from state_blobs
                                    union all select length(blob) from snapshots)")
budget=$((one * 3 / 2))                 # the head's state alone fits
"$RWKV_TUI" sessions --db "$DB" budget "${budget}B" >/dev/null && ok || fail "budget ${budget}B"
head=$(q "$DB" "select head_turn from sessions where id=1")
before=$(q "$DB" "select parent_id from turns where id=(select parent_id from turns where id=$head)")
said="no saved state for turn $before: replayed [1-9][0-9]* tokens from the"

W=160 tui_start --resume --max-tokens 8 --seed 9
check "resumed" 'session: long one \|' 30
wait_idle 600
keys M-l
check "the log has the resume" "resumed 'long one'"
if screen | grep -Eq "$said|replayed"; then
    fail "the resume replayed"; screen | sed 's/^/    | /' | head -30
else ok; fi
keys Escape
[ "$(q "$DB" "select group_concat(turn_id) from snapshots")" = "$head" ] && ok ||
    fail "the resume wrote states: $(q "$DB" "select group_concat(turn_id) from snapshots")"

# C-r: the state before the last message rebuilt now, said, and the reply
# a stored state gives (a key within 30 ms of Esc would be Alt-key)
sleep 0.3
keys C-r
# the rebuild replays ~90k tokens: minutes under a sanitizer, so wait up to 10
for _ in $(seq 3000); do head_done && break; sleep 0.2; done
head_done || fail "the regeneration did not end"
wait_idle 600
keys M-l
check "the regeneration's replay is in the log" "$said"
keys Escape
tui_quit
printf '+\n' | "$RWKV_TUI" chat --demo --db "$TMP/ref.db" --resume --max-tokens 8 --seed 9 \
    >"$TMP/ref.out" 2>&1 || fail "ref regeneration: $(cat "$TMP/ref.out")"
grep -q 'replayed' "$TMP/ref.out" && fail "a stored state replayed: $(cat "$TMP/ref.out")" || ok
got=$(q "$DB" "select hex(tokens) from turns where id=(select head_turn from sessions where id=1)")
want=$(q "$TMP/ref.db" "select hex(tokens) from turns where id=(select head_turn from sessions where id=1)")
[ -n "$got" ] && [ "$got" = "$want" ] && ok || fail "regenerated reply differs: $got vs $want"
after=$(states "$DB")
[ "$after" -le "$budget" ] && ok ||
    fail "over the budget after the regeneration: $after > $budget bytes ($(q "$DB" "select count(*) from snapshots") states)"
tui_finish
