#!/usr/bin/env bash
# tests/cli/budget_resume.sh -- a resume after `sessions budget` dropped
# every state but the head's.  The open takes the head's state as it is;
# the state before the last message, which only a regeneration or a
# continuation starts from, is rebuilt when one of them first needs it
# (storage/session_db.c, sess_lazy_prev) -- not at every open, where a
# resume that only went on with the chat replayed the whole conversation
# for nothing, and said so each time.  So: the resume replays nothing and
# writes nothing; the first regeneration (or continuation) says the replay
# in the one line every replay has, once, and gives the tokens a stored
# state gives; the rebuilt state is saved under the budget; a kill -9
# during that replay loses nothing.  The line chat here; the full-screen
# client runs the same runtime (tests/tui/budget_resume.sh).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/b.db
q() { sqlite3 "$1" "$2" 2>/dev/null; }
# the bytes of the saved states (a shared state, schema v8, counts once)
states() { q "$1" "select (select coalesce(sum(length(blob)),0) from snapshots)
                        + (select coalesce(sum(length(blob)),0) from state_blobs)"; }
nstates() { q "$1" "select count(*) from snapshots"; }
# the turn tree as it is (ids, shape, flags and tokens)
tree() { q "$1" "select id, parent_id, role, interrupted, hex(tokens) from turns order by id" |
             md5sum; }
# the replies printed (the notes in parentheses left out)
replies() { printf '%s\n' "$1" | grep -v '^('; }

# a long conversation (about 90000 tokens: its replay takes a while)
long=$(head -c 3000 /dev/zero | tr '\0' 'a')
for i in $(seq 30); do echo "message number $i $long"; done |
    "$T" chat --demo --db "$DB" --new "long one" --max-tokens 8 --seed 1 >/dev/null 2>&1 ||
    fail "making the session"
cp "$DB" "$TMP/ref.db"                  # every state kept
# a budget of one state and a half: the head's alone is kept
one=$(q "$DB" "select max(n) from (select length(blob) n from state_blobs
                                    union all select length(blob) from snapshots)")
budget=$((one * 3 / 2))
"$T" sessions --db "$DB" budget "${budget}B" >/dev/null && ok || fail "budget ${budget}B"
head=$(q "$DB" "select head_turn from sessions where id=1")
[ "$(nstates "$DB")" = 1 ] && [ "$(q "$DB" "select turn_id from snapshots")" = "$head" ] && ok ||
    fail "the budget did not keep the head's state alone: $(q "$DB" "select turn_id from snapshots")"
# the turn before the last message (the head is its reply): its state is
# the one a regeneration starts from
before=$(q "$DB" "select parent_id from turns where id=(select parent_id from turns where id=$head)")
said="^\(no saved state for turn $before: replayed [1-9][0-9]* tokens from the start of the session\)$"
tree0=$(tree "$DB")
cp "$DB" "$TMP/c.db"
cp "$DB" "$TMP/k.db"
cp "$DB" "$TMP/x.db"
cp "$TMP/ref.db" "$TMP/ref2.db"

# --- the resume: no replay, nothing written ----------------------------------------------
"$T" chat --demo --db "$DB" --resume </dev/null >"$TMP/o1" 2>&1 || fail "resume: $(cat "$TMP/o1")"
grep -q '^resumed session 1: long one' "$TMP/o1" && ok || fail "not resumed: $(cat "$TMP/o1")"
if grep -q 'replayed' "$TMP/o1"; then fail "the resume replayed: $(cat "$TMP/o1")"; else ok; fi
[ "$(nstates "$DB")" = 1 ] && [ "$(q "$DB" "select turn_id from snapshots")" = "$head" ] &&
    [ "$(tree "$DB")" = "$tree0" ] && ok ||
    fail "the resume wrote states or turns: $(q "$DB" "select turn_id from snapshots")"

# --- the first regeneration: the replay, said once; the tokens of a stored state ----------
r1=$(printf '+\n+\n' | "$T" chat --demo --db "$DB" --resume --max-tokens 8 --seed 9 2>&1)
r2=$(printf '+\n+\n' | "$T" chat --demo --db "$TMP/ref.db" --resume --max-tokens 8 --seed 9 2>&1)
n=$(printf '%s\n' "$r1" | grep -Ec "$said")
[ "$n" = 1 ] && ok || fail "the regeneration's replay said $n times (once wanted): $r1"
printf '%s\n' "$r2" | grep -q 'replayed' && fail "a stored state replayed: $r2" || ok
[ -n "$(replies "$r1")" ] && [ "$(replies "$r1")" = "$(replies "$r2")" ] && ok ||
    fail "regenerated replies differ: '$(replies "$r1")' vs '$(replies "$r2")'"
after=$(states "$DB")
[ "$after" -le "$budget" ] && ok || fail "over the budget after a regeneration: $after > $budget"

# --- a continuation starts from it too --------------------------------------------------
c1=$(printf '/continue\n' | "$T" chat --demo --db "$TMP/c.db" --resume --max-tokens 8 --seed 9 2>&1)
c2=$(printf '/continue\n' | "$T" chat --demo --db "$TMP/ref2.db" --resume --max-tokens 8 --seed 9 2>&1)
n=$(printf '%s\n' "$c1" | grep -Ec "$said")
[ "$n" = 1 ] && ok || fail "the continuation's replay said $n times (once wanted): $c1"
[ -n "$(replies "$c1")" ] && [ "$(replies "$c1")" = "$(replies "$c2")" ] && ok ||
    fail "continued replies differ: '$(replies "$c1")' vs '$(replies "$c2")'"
after=$(states "$TMP/c.db")
[ "$after" -le "$budget" ] && ok || fail "over the budget after a continuation: $after > $budget"

# --- kill -9 during that replay: nothing lost, nothing half-written ------------------------
# the CPU time (ticks) the chat has used
cpu() { awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null; }
busy() { [ "$(cpu)" -ge "$((u0 + 20))" ] 2>/dev/null; }
chat_bg --demo --db "$TMP/k.db" --resume --max-tokens 8 --seed 9
poll grep -q '^resumed session 1' "$TMP/out" "$TMP/err" || fail "kill: not resumed"
u0=$(cpu)
echo '+' >&3
poll busy                               # in the replay (0.2 s of CPU on it)
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
exec 3>&-
if cat "$TMP/out" "$TMP/err" | grep -Eq "$said|^Assistant:"; then
    skip 2 "the replay ended before the kill (a fast machine): $(cat "$TMP/out" "$TMP/err")"
else
    [ "$(tree "$TMP/k.db")" = "$tree0" ] && ok || fail "kill -9 in the replay changed the turns"
    [ "$(q "$TMP/k.db" "select group_concat(turn_id) from snapshots")" = "$head" ] &&
        [ "$(q "$TMP/k.db" "pragma integrity_check")" = ok ] && ok ||
        fail "kill -9 in the replay: states $(q "$TMP/k.db" "select group_concat(turn_id) from snapshots")"
fi
# ... and the next regeneration does it all again, the same
k1=$(printf '+\n+\n' | "$T" chat --demo --db "$TMP/k.db" --resume --max-tokens 8 --seed 9 2>&1)
n=$(printf '%s\n' "$k1" | grep -Ec "$said")
[ "$n" = 1 ] && [ "$(replies "$k1")" = "$(replies "$r2")" ] && ok ||
    fail "after kill -9: replay said $n times, replies '$(replies "$k1")' vs '$(replies "$r2")'"

# --- Ctrl-C during that replay: nothing changed, the next + does it again ----------------
trap '' PIPE                            # a chat gone: the writes below fail, not the test
chat_bg --demo --db "$TMP/x.db" --resume --max-tokens 8 --seed 9
poll grep -q '^resumed session 1' "$TMP/out" "$TMP/err" || fail "cancel: not resumed"
u0=$(cpu)
echo '+' >&3
poll busy
kill -INT $pid 2>/dev/null
poll grep -q '^(cancelled before the reply started; nothing changed)$' "$TMP/err" "$TMP/out"
echo '+' >&3
echo '+' >&3
exec 3>&-
wait $pid
trap - PIPE
x1=$(cat "$TMP/out" "$TMP/err")
if printf '%s\n' "$x1" | grep -q '^(cancelled before the reply started; nothing changed)$'; then
    printf '%s\n' "$x1" | grep -q '/regen:' && fail "a cancelled replay is an error: $x1" || ok
    n=$(printf '%s\n' "$x1" | grep -Ec "$said")
    [ "$n" = 1 ] && [ "$(replies "$x1" | grep -v '^resumed')" = "$(replies "$r2" | grep -v '^resumed')" ] &&
        ok || fail "after a cancel: replay said $n times, replies '$(replies "$x1")' vs '$(replies "$r2")'"
else
    skip 2 "the replay ended before the cancel (a fast machine): $x1"
fi
finish
