#!/usr/bin/env bash
# tests/cli/chat_fork_point_state.sh -- a fork point whose saved state is
# gone (dropped by retention before it became one, or by the budget) is
# rebuilt by replay when a fork goes on from it (/fork TURN), or when a
# branch is opened whose replay passes it -- and that rebuilt state is kept
# now, as an open keeps a leaf's: before, it was thrown away, so every later
# fork there (and every sibling step past it) replayed again.  Real
# processes on one database file, the demo model, python3's sqlite3.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
N_CHECKS=6

if ! python3 -c 'import sqlite3' 2>/dev/null; then
    skip $N_CHECKS "python3 with sqlite3 not found"
    finish
    exit
fi
D=$TMP/s.db
q() { sql_rows "$D" "$1"; }
chat() { printf '%b' "$1" | "$T" chat --demo --db "$D" --session 1 --seed 2 --max-tokens 4 >/dev/null 2>"$TMP/err"; }

# session 1: greeting (1), then a,b,c,d: turns 2-9; turn 3 (a's reply) loses its state
printf 'a\nb\nc\nd\n' | "$T" chat --demo --db "$D" --new forks --seed 1 --max-tokens 4 >/dev/null 2>&1
q 'delete from snapshots where turn_id=3' >/dev/null
# a fork at turn 3: replayed, and kept
chat '/fork 3\nother\n'
grep -q 'no saved state for turn 3: replayed' "$TMP/err" && ok || fail "no replay for /fork 3: $(cat "$TMP/err")"
[ "$(q 'select count(*) from snapshots where turn_id=3')" = 1 ] && ok ||
    fail "the fork point's rebuilt state not kept: $(q 'select turn_id from snapshots')"
# the next fork there, from the first branch's end, needs no replay
q 'update sessions set head_turn=9 where id=1' >/dev/null
chat '/fork 3\nthird\n'
grep -q 'replayed' "$TMP/err" && fail "a second fork at turn 3 replayed: $(cat "$TMP/err")" || ok
[ "$(q 'select count(*) from turns where parent_id=3')" = 3 ] && ok || fail "the forks: $(q 'select id, parent_id from turns')"

# a branch opened whose replay passes its fork point (turn 3, its state gone
# again): the first branch's end, states from turn 4 on gone, head on it
q 'delete from snapshots where turn_id between 3 and 9' >/dev/null
q 'update sessions set head_turn=9 where id=1' >/dev/null
chat ''
grep -q 'no saved state for turn 9: replayed' "$TMP/err" && ok || fail "no replay of turn 9: $(cat "$TMP/err")"
[ "$(q 'select count(*) from snapshots where turn_id=3')" = 1 ] && ok ||
    fail "the fork point passed not kept: $(q 'select turn_id from snapshots')"
finish
