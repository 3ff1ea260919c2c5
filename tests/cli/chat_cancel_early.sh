#!/usr/bin/env bash
# tests/cli/chat_cancel_early.sh -- the line chat: a Ctrl-C that lands after
# a message line is read but before its reply has begun (while the runtime
# saves it, sess_submit) stops that reply as at its first step (the
# runtime's cancel rule, storage/session.h): "message dropped", no row
# saved, and the chat goes on -- the next message is answered whole (before,
# that Ctrl-C was taken as one at the prompt: the reply ran in full and the
# chat then ended).  A SIGTERM at that instant leaves: the message is kept
# with an empty interrupted reply and nothing says "dropped" (it did).
#
# gdb makes the instant (holdlib.sh): the chat is stopped on entering
# sess_submit, SIGINT is sent, and it goes on.  Without gdb, or where it may
# not attach, the checks are skipped; tests/unit/test_session_cancel_early.c
# covers the rule without gdb.  The tiny RWKV-7 fixture model (the demo
# model without the fixtures), greedy, a saved session, stdin a FIFO.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=10
BYTE=$(tiny_or_demo)
have_fixture models/tiny-7v0-fp32.pth 0 || true
hold_gdb $N_CHECKS "the early Ctrl-C" sqlite3

D=$TMP/c.db
rows() { sqlite3 "$D" "SELECT count(*) FROM turns WHERE text = '$1'"; }

chat_hello $BYTE --db "$D" --new early --max-tokens 8 --seed 3 --temperature 0 \
    --stop QQQQQQ --ban 10,13 || fail "no reply to hello: $(cat "$TMP/err")"
hold_int sess_submit second $N_CHECKS
poll grep -q 'cancelled before the reply started; message dropped' "$TMP/err" && ok ||
    fail "the message cut before its reply began: $(cat "$TMP/err")"
[ "$(chat_replies)" = 1 ] && ok || fail "a reply to the cancelled message was printed: $(cat "$TMP/out")"

# the next message: answered whole, and the chat did not end (a chat that
# did is a failed check, not a SIGPIPE)
trap '' PIPE
printf 'third\n' >&3 2>/dev/null
poll chat_replied 2 && ok || fail "the next message was not answered: $(cat "$TMP/err")"
exec 3>&-
wait $pid
rc=$?
[ $rc = 0 ] && ok || fail "exit $rc: $(cat "$TMP/err")"
[ "$(rows second)|$(rows third)" = "0|1" ] && ok ||
    fail "saved rows: second $(rows second), third $(rows third)"
[ "$(sqlite3 "$D" "SELECT interrupted FROM turns WHERE parent_id = \
     (SELECT id FROM turns WHERE text = 'third')")" = 0 ] && ok ||
    fail "the next reply was saved interrupted"

# SIGTERM at the same instant: the chat leaves (the signal's status), the
# message stays in the session with an empty interrupted reply (the abandon
# rule, storage/session.h), and nothing says it was dropped
D=$TMP/t.db
chat_hello $BYTE --db "$D" --new term --max-tokens 8 --seed 3 --temperature 0 \
    --stop QQQQQQ --ban 10,13 || fail "no reply to hello: $(cat "$TMP/err")"
if ! hold_start $pid sess_submit; then
    exec 3>&-
    wait $pid
    skip 4 "gdb could not attach: $(hold_why)"
    finish
    exit
fi
printf 'second\n' >&3
hold_hit || fail "the chat never entered sess_submit"
kill -TERM $pid
hold_end
wait $pid
rc=$?
exec 3>&-
[ $rc = 143 ] && ok || fail "SIGTERM: exit $rc, want 143: $(cat "$TMP/err")"
[ "$(rows second)" = 1 ] && ok || fail "the message cut by SIGTERM was not kept: $(rows second) rows"
[ "$(sqlite3 "$D" "SELECT interrupted || ',' || length(text) FROM turns WHERE parent_id = \
     (SELECT id FROM turns WHERE text = 'second')")" = "1,0" ] && ok ||
    fail "its reply is not one empty interrupted row"
grep -q 'message dropped' "$TMP/err" && fail "said dropped, but kept: $(cat "$TMP/err")" || ok

# the first message of a chat that saves: its session, announced ("new
# session 1: ..."), is removed again with the cancelled message, and that
# is said (it was deleted without a word)
D=$TMP/n.db
chat_bg $BYTE --db "$D" --max-tokens 8 --seed 3 --temperature 0
hold_int sess_submit first 2
poll grep -q 'message dropped' "$TMP/err" || fail "not dropped: $(cat "$TMP/err")"
exec 3>&-
wait $pid
if grep -q '^new session 1: first$' "$TMP/err"; then
    grep -q '^session 1, made for the message you cancelled, is deleted again$' "$TMP/err" && ok ||
        fail "an announced session went without a word: $(cat "$TMP/err")"
else
    grep -q 'session 1, made' "$TMP/err" && fail "removal said of a session never announced" || ok
fi
n=$("$RWKV_TUI" sessions --db "$D" list 2>&1 | grep -c '^ *[0-9]')
[ "$n" = 0 ] && ok || fail "sessions left: $("$RWKV_TUI" sessions --db "$D" list 2>&1)"
finish
