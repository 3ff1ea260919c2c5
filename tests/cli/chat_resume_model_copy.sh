#!/usr/bin/env bash
# tests/cli/chat_resume_model_copy.sh -- the fork made by resuming a session
# with another model (`chat --session 1 --model B`, chat_resume_model.sh)
# copies the conversation so far into the new session.  Its copied replies
# were computed by the other model: their speeds (prefill_tps, decode_tps)
# are not this model's, so the copy has none (0: unknown) -- before, it kept
# them and they read as B's.  The reply B writes has its own.  And a first
# message cancelled before its reply began takes that new session away
# again, said plainly: made for the message cancelled, deleted again, the
# session resumed as it was (before: "it held only the cancelled message",
# while it held the copied conversation too), and leaving then makes no
# copy of it (before, a session 4 was made at the end, holding nothing new).  Models written by the binary
# itself (`bench --save`); gdb makes the early Ctrl-C (holdlib.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/holdlib.sh"
T=$RWKV_TUI
N_CHECKS=8
D=$TMP/s.db
A=$TMP/a.pth
B=$TMP/b.pth

if ! python3 -c 'import sqlite3' 2>/dev/null; then
    skip $N_CHECKS "python3 with sqlite3 not found"
    finish
    exit
fi
q() { sql_rows "$D" "$1"; }

"$T" bench --save "$A" --shape demo --seed 1 >/dev/null 2>&1 || fail "bench --save a"
"$T" bench --save "$B" --shape demo --seed 2 >/dev/null 2>&1 || fail "bench --save b"
printf 'hello\n' | "$T" chat --db "$D" --model "$A" --new one --max-tokens 4 --seed 1 >/dev/null 2>&1
[ "$(q 'select count(*) from turns where session_id=1 and role=2 and decode_tps>0')" = 1 ] && ok ||
    fail "session 1's reply has no speed: $(q 'select id, prefill_tps, decode_tps from turns')"
printf 'with b\n' | "$T" chat --db "$D" --model "$B" --session 1 --max-tokens 4 --seed 1 \
    >/dev/null 2>"$TMP/err"
grep -q 'goes on as session 2' "$TMP/err" && ok || fail "no fork: $(cat "$TMP/err")"
# the copy of session 1's reply: no speeds; B's own reply: its speeds
[ "$(q "select prefill_tps || ',' || decode_tps from turns where session_id=2 and role=2 and parent_id=(select id from turns where session_id=2 and text='hello')")" = "0.0,0.0" ] &&
    ok || fail "the copied reply keeps A's speeds: $(q 'select id, session_id, text, prefill_tps, decode_tps from turns where role=2')"
[ "$(q "select decode_tps>0 from turns where session_id=2 and role=2 and parent_id=(select id from turns where session_id=2 and text='with b')")" = 1 ] &&
    ok || fail "B's reply has no speed: $(q 'select id, session_id, prefill_tps, decode_tps from turns where role=2')"
[ "$(q "select decode_tps>0 from turns where session_id=1 and role=2")" = 1 ] && ok ||
    fail "session 1's reply lost its speed"

# a first message cancelled before its reply began (gdb holds it in sess_submit)
hold_gdb 3 "the early Ctrl-C"
chat_bg --db "$D" --model "$B" --session 1 --max-tokens 4 --seed 1
hold_int sess_submit cancelled 3
poll grep -q 'message dropped' "$TMP/err" || fail "not dropped: $(cat "$TMP/err")"
exec 3>&-
wait $pid
if grep -q 'goes on as session 3$' "$TMP/err"; then
    grep -q '^session 3, made for the message you cancelled, is deleted again; session 1 is as it was$' "$TMP/err" &&
        ok || fail "the fork's removal: $(cat "$TMP/err")"
    grep -q 'it held only the cancelled message' "$TMP/err" && fail "said it held only the message: $(cat "$TMP/err")" || ok
    # and leaving then makes no copy of session 1 (nothing new in it)
    [ "$(q 'select count(*) from sessions where id>2')" = 0 ] && ok ||
        fail "a session made at the end: $("$T" sessions --db "$D" list 2>&1)"
else
    skip 3 "the fork was not made before the cancel: $(cat "$TMP/err")"
fi
finish
