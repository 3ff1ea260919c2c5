#!/usr/bin/env bash
# tests/cli/chat_int_reply_end.sh -- Ctrl-C in the line chat after a reply's
# generation ended but before its save is done (a save that waits for a
# lock, or fails slowly, makes that a long while).  There is no reply left
# to stop, so the key is one at the prompt: the chat ends once the save is
# done, exit 0, the reply saved whole.  Before, it was taken as a cancel
# that found nothing, and the key was lost: the chat waited for the next
# line.  Between two alternatives of /regen N the same key stops the batch
# and the chat goes on, as it did.
#
# gdb makes the instant (holdlib.sh): the chat is held on entering
# sess_save_finish (the reply's save, after the front end has printed its
# end), SIGINT is sent, and it goes on.  Without gdb, or where it may not
# attach, the checks are skipped.  The tiny RWKV-7 fixture model (the demo
# model without the fixtures), greedy, a saved session, stdin a FIFO.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=9
BYTE=$(tiny_or_demo)
have_fixture models/tiny-7v0-fp32.pth 0 || true
hold_gdb $N_CHECKS "the Ctrl-C at a reply's end" sqlite3

D=$TMP/c.db
q() { sqlite3 "$D" "$1"; }
test_q() { [ "$(q "$1")" = "$2" ]; }      # test_q SQL VALUE
# reply_of TEXT: "interrupted,length" of the reply saved under message TEXT
reply_of() {
    q "SELECT group_concat(interrupted || ',' || (length(text) > 0), ' ') FROM turns
       WHERE parent_id IN (SELECT id FROM turns WHERE text = '$1')"
}

ended() { [ ! -e /proc/$pid ] || [ "$(cut -d' ' -f3 /proc/$pid/stat 2>/dev/null)" = Z ]; }
answered() { [ "$(reply_of "$1")" = "0,1" ]; }   # saved whole, not empty

# --- /regen 3: Ctrl-C while the first alternative is saved stops the batch ---------------
chat_hello $BYTE --db "$D" --new endint --max-tokens 8 --seed 3 --temperature 1 --top-p 1 \
    --stop QQQQQQ --ban 10,13 || fail "no reply to hello: $(cat "$TMP/err")"
poll test_q 'SELECT count(*) FROM turns WHERE role = 2' 1 ||
    fail "the first reply was not saved: $(cat "$TMP/err")"
hold_int sess_save_finish '/regen 3' $N_CHECKS
poll grep -qF '(alternatives stopped: 1 of 3 made)' "$TMP/err" && ok ||
    fail "the batch did not stop at the Ctrl-C: $(cat "$TMP/err")"

# the chat goes on: the next message is answered
trap '' PIPE
printf 'second\n' >&3 2>/dev/null
poll answered second && ok ||
    fail "the message after the batch was not answered: $(cat "$TMP/err")"
kill -0 $pid 2>/dev/null && ok || fail "the chat ended at a Ctrl-C between alternatives"

# --- Ctrl-C while the reply is saved: the chat ends, the reply kept whole ----------------
n=$(chat_replies)
e=$(wc -l <"$TMP/err")
hold_int sess_save_finish 'third' 6
poll ended || kill -TERM $pid                     # the old binary waits for a line
wait $pid
rc=$?
exec 3>&-
[ $rc = 0 ] && ok || fail "the chat did not end at the Ctrl-C (exit $rc): $(cat "$TMP/err")"
[ "$(chat_replies)" = $((n + 1)) ] && ok || fail "replies printed: $(chat_replies), want $((n + 1))"
[ "$(reply_of third)" = "0,1" ] && ok ||
    fail "the reply the Ctrl-C followed was not saved whole: '$(reply_of third)'"
said=$(tail -n +$((e + 1)) "$TMP/err")
[ -z "$said" ] && ok || fail "something was said after the last message: $said"
[ "$(q 'SELECT count(*) FROM turns WHERE role = 1')" = 3 ] && ok ||
    fail "messages saved: $(q 'SELECT text FROM turns WHERE role = 1')"

# the session resumes after the last reply
out=$(printf '' | "$RWKV_TUI" chat $BYTE --db "$D" --resume --max-tokens 2 2>&1 >/dev/null)
[ $? = 0 ] && ok || fail "the session did not resume: $out"
finish
