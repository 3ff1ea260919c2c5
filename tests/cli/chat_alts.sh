#!/usr/bin/env bash
# tests/cli/chat_alts.sh -- `/regen N` in the line chat: N alternative
# replies, each under its header, saved as sibling replies of the message
# with their own seeds; the same command with the same seed gives the same
# replies; Ctrl-C stops the batch keeping the finished ones and the cut one
# (which /continue lets go on); a bad N is refused with one line.  Real
# database files in a temp dir, the real binary, the demo model.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
HAVE_SQLITE=0
command -v sqlite3 >/dev/null 2>&1 && HAVE_SQLITE=1

# --- help -----------------------------------------------------------------------
"$T" chat --help | grep -q '^ */regen \[N\] ' && ok || fail "chat --help lacks /regen [N]"

# --- /regen 3: three headers, three more replies, four siblings in the tree -----
D=$TMP/a.db
printf 'hi\n/regen 3\n/history\n' |
    "$T" chat --demo --db "$D" --new alts --seed 4 --max-tokens 10 >"$TMP/a.out" 2>"$TMP/a.err"
[ $? = 0 ] && ok || fail "/regen 3: $(cat "$TMP/a.err")"
[ "$(grep -c '^Assistant:' "$TMP/a.out")" = 4 ] && ok || fail "/regen 3: replies: $(cat "$TMP/a.out")"
for k in 1 2 3; do
    grep -qx -- "-- alternative $k/3 --" "$TMP/a.out" && ok || fail "header $k/3: $(cat "$TMP/a.out")"
done
grep -Eq '^  #2 +user +hi \[4 branches\]$' "$TMP/a.out" && ok || fail "/history: $(cat "$TMP/a.out")"
# the chat goes on from the last alternative, and says which turns they are
grep -Eq '^  #6 +assistant ' "$TMP/a.out" && ok || fail "not on the last alternative: $(cat "$TMP/a.out")"
grep -q 'saved beside the first reply as turns #4 #5 #6;' "$TMP/a.err" && ok ||
    fail "summary: $(cat "$TMP/a.err")"
out=$("$T" sessions --db "$D" show 1)
case $out in *"#2 user [state] [4 branches]"*) ok ;; *) fail "tree: $out" ;; esac
if [ $HAVE_SQLITE = 1 ]; then
    [ "$(sqlite3 "$D" "select count(distinct sampling) from turns where parent_id = 2")" = 4 ] &&
        ok || fail "the siblings do not each have their own seed"
fi

# the same command with the same seed: the same replies (in a fresh database)
printf 'hi\n/regen 3\n' |
    "$T" chat --demo --db "$TMP/b.db" --new alts --seed 4 --max-tokens 10 >"$TMP/b.out" 2>/dev/null
head -n "$(wc -l <"$TMP/b.out")" "$TMP/a.out" | cmp -s - "$TMP/b.out" && ok || fail "the same /regen 3 replied otherwise"
# N times /regen is the same as /regen N (the seeds go on alike)
printf 'hi\n/regen\n/regen\n/regen\n' |
    "$T" chat --demo --db "$TMP/c.db" --new alts --seed 4 --max-tokens 10 >"$TMP/c.out" 2>/dev/null
diff <(grep -v '^-- alternative' "$TMP/b.out") "$TMP/c.out" >/dev/null && ok ||
    fail "/regen 3 differs from three /regen: $(cat "$TMP/b.out" "$TMP/c.out")"
# unsaved: the same headers, no turns to name (and it says so)
printf 'hi\n/regen 2\n' | "$T" chat --demo --seed 4 --max-tokens 10 >"$TMP/u.out" 2>"$TMP/u.err"
[ "$(grep -c '^-- alternative' "$TMP/u.out")" = 2 ] && ! grep -q 'saved beside' "$TMP/u.err" &&
    grep -q 'not saved: it goes on from the last alternative' "$TMP/u.err" && ok ||
    fail "unsaved /regen 2: $(cat "$TMP/u.out" "$TMP/u.err")"
# nothing to regenerate: one line, no summary
printf '/regen 3\n' | "$T" chat --demo --seed 4 --max-tokens 10 >/dev/null 2>"$TMP/n.err"
[ "$(wc -l <"$TMP/n.err")" -le 2 ] && grep -q '/regen: nothing to regenerate yet' "$TMP/n.err" &&
    ! grep -q 'alternatives stopped' "$TMP/n.err" && ok || fail "/regen 3 first: $(cat "$TMP/n.err")"

# --- a bad N: one line, nothing done -----------------------------------------------
printf 'hi\n/regen 0\n/regen 17\n/regen x\n/regen 2 3\n' |
    "$T" chat --demo --db "$TMP/e.db" --new e --seed 4 --max-tokens 5 >"$TMP/e.out" 2>"$TMP/e.err"
[ "$(grep -c '^rwkv-tui: usage: /regen \[N\] (N alternatives, 1..16; got ' "$TMP/e.err")" = 4 ] &&
    ok || fail "bad N: $(cat "$TMP/e.err")"
[ "$(grep -c '^Assistant:' "$TMP/e.out")" = 1 ] && ok || fail "bad N made replies: $(cat "$TMP/e.out")"

# --- Ctrl-C during alternative 2 of 3: 1 finished + the cut one kept --------------
# (replies without a stop string that run until Ctrl-C)
trap "" PIPE
mkfifo "$TMP/in"
D=$TMP/j.db
"$T" chat --demo --db "$D" --new cut --seed 1 --max-tokens 3 --stop QQQQQQQQQQQQ \
    <"$TMP/in" >"$TMP/j" 2>"$TMP/j.err" &
pid=$!
exec 7>"$TMP/in"
# 100000 tokens: seconds an alternative (the demo model makes ~25000 a
# second), so the second one still runs when the loop below sees it stream
printf 'hi\n/set max_tokens 100000\n/regen 3\n' >&7
# until the second alternative streams (at most ~60 s; not a fixed pause)
for _ in $(seq 600); do
    [ "$(sed -n '/^-- alternative 2\/3 --$/,$p' "$TMP/j" | wc -c)" -gt 1000 ] && break
    sleep 0.1
done
kill -INT $pid
for _ in $(seq 200); do grep -q 'alternatives stopped' "$TMP/j.err" && break; sleep 0.1; done
printf '/set max_tokens 3\n/continue\n/history\n' >&7
exec 7>&-
wait $pid
rc=$?
[ $rc = 0 ] && ok || fail "Ctrl-C in the batch: exit $rc"
grep -q '^(alternatives stopped: 2 of 3 made)$' "$TMP/j.err" && ok || fail "stopped: $(cat "$TMP/j.err")"
! grep -q 'alternative 3/3' "$TMP/j" && ok || fail "a third alternative began"
grep -Eq '^  #2 +user +hi \[3 branches\]$' "$TMP/j" && ok || fail "kept: $(tail -5 "$TMP/j")"
grep -q 'reply interrupted' "$TMP/j.err" && ok || fail "the cut one: $(cat "$TMP/j.err")"
if [ $HAVE_SQLITE = 1 ]; then
    # the cut one went on with /continue: its row complete, 3 tokens longer
    [ "$(sqlite3 "$D" "select count(*) from turns where parent_id = 2 and interrupted = 0")" = 3 ] &&
        ok || fail "after /continue: $(sqlite3 "$D" "select id, interrupted from turns")"
fi
finish
