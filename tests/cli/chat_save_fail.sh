#!/usr/bin/env bash
# tests/cli/chat_save_fail.sh -- a line chat whose saves fail for a while,
# then work again: another program holds the database's write lock past the
# busy timeout (10 s), and the file-size limit (`ulimit -f`) is reached.
# The chat answers every message; the failure is one line, said once; once
# saving works, the turns it kept out are written first, in order, so the
# session has no hole (before: the next message was saved under the last
# saved one, its state holding turns the file did not have).  Over the
# file-size limit the chat is not killed by SIGXFSZ and says which limit.
# Real files in a temp dir, the real binary, a real SQLite lock.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/s.db

replies() { grep -c '^Assistant:' "$TMP/out"; }

# --- the write lock held by another program while a message is sent ------------------
chat_bg --demo --db "$D" --new retry --seed 1 --max-tokens 6
printf 'one\n' >&3
poll sh -c "'$T' sessions --db '$D' show 1 2>/dev/null | grep -q '#3 assistant \[state\]'" \
    && ok || fail "the first reply was not saved: $(cat "$TMP/err")"
hold_lock "$D" && ok || fail "no lock taken"
printf 'two\n' >&3
poll sh -c "[ \$(grep -c '^Assistant:' '$TMP/out') -ge 2 ]" && ok \
    || fail "no reply to the second message: $(cat "$TMP/out")"
release_lock
printf 'three\n' >&3
exec 3>&-
wait $pid && ok || fail "chat exit $?: $(cat "$TMP/err")"
err=$(cat "$TMP/err")
[ "$(replies)" = 3 ] && ok || fail "replies: $(cat "$TMP/out")"
[ "$(printf '%s\n' "$err" | grep -c '^rwkv-tui: saving')" = 1 ] && ok \
    || fail "not one line for the failed saves: $err"
printf '%s\n' "$err" | grep -q "^rwkv-tui: saving your message: $D: .*database is locked.*tried again with your next message" \
    && ok || fail "the failure line: $err"
printf '%s\n' "$err" | grep -qxF "saving works again: the earlier exchange not saved is in session 1 now" \
    && ok || fail "no line when saving worked again: $err"
# every message, in order, on one branch (nothing lost, nothing out of place)
out=$("$T" sessions --db "$D" show 1 2>&1)
users=$(printf '%s\n' "$out" | grep -A1 '^#[0-9]* user' | grep -v '^#\|^--' | tr '\n' ' ')
[ "$users" = "one two three " ] && ok || fail "saved messages: '$users': $out"
printf '%s\n' "$out" | grep -q '6 turns in the tree, 6 on this branch' && ok \
    || fail "the turns are not one branch: $out"
# and the session goes on from it
out=$(printf 'four\n' | "$T" chat --demo --db "$D" --resume --max-tokens 4 2>&1) && ok \
    || fail "resume after the failed save: $out"

# --- the file-size limit reached ----------------------------------------------------------
# (the limit applies to the subshell only; before, SIGXFSZ killed the chat
# without a word, exit 153)
D2=$TMP/limit.db
for i in $(seq 12); do echo "message $i"; done >"$TMP/msgs"
(ulimit -f 3000; "$T" chat --demo --db "$D2" --new limit --seed 1 --max-tokens 6 \
    <"$TMP/msgs" >"$TMP/out2" 2>"$TMP/err2")
rc=$?
err=$(cat "$TMP/err2")
# the exchanges still not saved at the end are named, and the status is 1
# (chat_quit_unsaved.sh)
[ $rc = 1 ] && ok || fail "over the file-size limit: exit $rc: $err"
printf '%s\n' "$err" | grep -Eq '^rwkv-tui: leaving with [0-9]+ exchanges? not saved' && ok \
    || fail "over the file-size limit: no line at the end for what was not saved: $err"
[ "$(grep -c '^Assistant:' "$TMP/out2")" = 12 ] && ok || fail "replies: $(cat "$TMP/out2")"
[ "$(printf '%s\n' "$err" | grep -c '^rwkv-tui: saving')" = 1 ] && ok \
    || fail "not one line for the failed saves: $err"
printf '%s\n' "$err" | grep -q "^rwkv-tui: saving .*: $D2: the file reached the file-size limit (ulimit -f)" \
    && ok || fail "the limit is not named: $err"
# what was saved before stays readable, and the next start (no limit) works
"$T" sessions --db "$D2" show 1 >/dev/null 2>&1 && ok || fail "show after the limit"
out=$(printf 'again\n' | "$T" chat --demo --db "$D2" --resume --max-tokens 4 2>&1) && ok \
    || fail "resume after the limit: $out"
finish
