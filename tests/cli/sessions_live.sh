#!/usr/bin/env bash
# tests/cli/sessions_live.sh -- `sessions show` and `sessions fork` of a
# session whose reply a line chat is still writing (its writer's lease:
# store_turn_writing).  Line chat A streams a long reply (turn 5 under
# message 4).  Meanwhile `show` marks it [being written], not
# [interrupted] (it is not cut: its row holds the text so far); `fork` at
# it, or at a turn of the conversation under it, goes on from before its
# message (turn 3), as a resume does, and says so in its one line -- never
# a copy of its partial text as if final; /fork in a line chat the same.
# Once A is killed (kill -9: its writer gone), the reply is [interrupted]
# and `fork` at it copies it, cut, as before.  Real processes on one
# database file, the demo model, python3's sqlite3 to read the rows.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
N_CHECKS=11

if ! python3 -c 'import sqlite3' 2>/dev/null; then
    skip $N_CHECKS "python3 with sqlite3 not found"
    finish
    exit
fi
q() { sql_rows "$@"; }

D=$TMP/s.db
printf 'hi\n' | "$T" chat --demo --db "$D" --new live --seed 1 --max-tokens 4 >/dev/null 2>&1
chat_bg --demo --db "$D" --session 1 --seed 3 --max-tokens 1000000 --stop QQQZZZ
printf 'tell me a long story\n' >&3
poll partial_saved "$D" && ok || fail "A's reply not saved as it streams: $(cat "$TMP/err")"

# show: being written, not interrupted
out=$("$T" sessions --db "$D" show 1 2>&1)
case $out in *"#5 assistant [being written]:"*) ok ;;
    *) fail "show: the live reply: $(printf '%s' "$out" | grep '^#5')" ;; esac

# fork at the live reply: before its message, said in one line
out=$("$T" sessions --db "$D" fork 1 5 2>&1)
[ "$out" = "forked session 1 at turn 3 as session 2 (reply 5 is still being written in another window: branched before its message 4)" ] &&
    ok || fail "fork at the live reply: $out"
# the copy ends with the first exchange's reply: no partial text in it
[ "$(q "$D" "select count(*) from turns where session_id=2 and (text='tell me a long story' or interrupted<>0)")" = 0 ] &&
    ok || fail "session 2 holds A's message or a cut reply: $("$T" sessions --db "$D" show 2 2>&1 | grep '^#')"
[ "$(q "$D" "select role from turns where id=(select head_turn from sessions where id=2)")" = 2 ] &&
    ok || fail "session 2's head is no finished reply: $("$T" sessions --db "$D" show 2 2>&1 | grep '^#')"

# /fork at it in a line chat: branched before its message, said so
printf '/fork 5\n' | "$T" chat --demo --db "$D" --session 1 --max-tokens 4 >/dev/null 2>"$TMP/f.err"
grep -q '^(reply 5 is still being written in another window: branched before its message 4; the next message starts a new branch)$' "$TMP/f.err" &&
    ok || fail "/fork 5: $(cat "$TMP/f.err")"
grep -q 'branched at turn 5' "$TMP/f.err" && fail "/fork 5 said it branched at the live reply: $(cat "$TMP/f.err")" || ok

# A killed: its writer gone, the reply is cut
{ kill -9 $pid; wait $pid; } 2>/dev/null
exec 3>&-
# (/fork moved session 1's head to turn 3: back on A's branch)
q "$D" 'update sessions set head_turn=5 where id=1' >/dev/null
out=$("$T" sessions --db "$D" show 1 2>&1)
case $out in *"#5 assistant [interrupted]:"*) ok ;;
    *) fail "show after kill -9: $(printf '%s' "$out" | grep '^#5')" ;; esac
out=$("$T" sessions --db "$D" fork 1 5 2>&1)
case $out in "forked session 1 at turn 5 as session "[0-9]*) ok ;; *) fail "fork at the cut reply: $out" ;; esac
sid=${out##* }
[ "$(q "$D" "select count(*) from turns where session_id=$sid and interrupted<>0")" = 1 ] && ok ||
    fail "the cut reply not copied: $("$T" sessions --db "$D" show "$sid" 2>&1 | grep '^#')"
case $(grep -c '\[being written\]' <<<"$("$T" sessions --db "$D" show "$sid" 2>&1)") in 0) ok ;;
    *) fail "a copy of a cut reply shown as being written" ;; esac
finish
