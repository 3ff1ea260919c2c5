#!/usr/bin/env bash
# tests/cli/chat_leave_unsaved.sh -- the line chat's /reset and /fork while
# an exchange a failed save kept out still cannot be written (the leaving
# rule, storage/session.h).  The command tries to write it first (one wait
# for the lock); when that fails it does nothing: one line says how many
# exchanges, how to quit (/quit) and why, and the chat goes on as it was.
# Once the lock is gone the same command writes the exchange and does what
# it was asked.  Before, /reset and /fork dropped the exchange without a
# word: the message sent under the lock was in no session; then the line
# said "or quit" without how.  The real binary, real files; another
# program (python3's sqlite3) holds the database's write lock past the busy
# time (10 s).
. "$(dirname "$0")/lib.sh"
q() { sqlite3 "$1" "$2" 2>/dev/null; }

if ! command -v sqlite3 >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    skip 11 "sqlite3 or python3 not found"
    finish
    exit
fi

D=$TMP/leave.db
replies() { [ "$(grep -c '^Assistant:' "$TMP/out")" -ge "$1" ]; }
said() { grep -c "$1" "$TMP/err"; }
# (how to quit named: the line chat's command)
refused='^rwkv-tui: (/fork: )?1 exchange is not saved, so this chat stays: try again, or quit with /quit \('"$D"': .*database is locked.*\)$'

chat_bg --demo --db "$D" --new leave --seed 1 --max-tokens 6
printf 'one\n' >&3
poll sh -c "[ \"\$(sqlite3 '$D' 'select count(*) from turns where role=2 and interrupted=0' 2>/dev/null)\" = 1 ]" \
    && ok || fail "the first reply was not saved: $(cat "$TMP/err")"
hold_lock "$D" || fail "no lock taken"
printf 'two\n' >&3
poll replies 2 && ok || fail "no reply to the second message: $(cat "$TMP/out")"

# /reset and /fork under the lock: refused, one line each, the chat goes on
printf '/reset\n/fork 3\n' >&3
poll sh -c "[ \$(grep -Ec '$refused' '$TMP/err') -ge 2 ]" && ok \
    || fail "/reset and /fork under the lock: not refused with one line each: $(cat "$TMP/err")"
[ "$(said 'conversation reset\|branched')" = 0 ] && ok || fail "left anyway: $(cat "$TMP/err")"
[ "$(q "$D" "select count(*) from turns where text='two'")" = 0 ] && ok \
    || fail "written under the lock?"

# the lock gone: /reset writes it first, then resets; the chat goes on
release_lock
printf '/reset\nthree\n' >&3
poll replies 3 && ok || fail "no reply after the reset: $(cat "$TMP/out") $(cat "$TMP/err")"
exec 3>&-
wait $pid
rc=$?
err=$(cat "$TMP/err")
[ $rc = 0 ] && ok || fail "exit $rc: $err"
printf '%s\n' "$err" | grep -qxF "saving works again: the earlier exchange not saved is in session 1 now" \
    && ok || fail "no line saying it was saved: $err"
printf '%s\n' "$err" | grep -qF "(conversation reset: the next message starts a new branch of session 1)" \
    && ok || fail "not reset once the lock was gone: $err"
# "two" on the first branch after "one"; "three" a new branch from the start
[ "$(q "$D" "select u.text from turns u join turns p on u.parent_id=p.id join turns pp on p.parent_id=pp.id where u.role=1 and pp.text='one'")" = two ] \
    && ok || fail "two not after one: $(q "$D" 'select id, parent_id, role, text from turns')"
[ "$(q "$D" "select count(*) from turns where role=1 and text='three' and depth=(select depth from turns where text='one')")" = 1 ] \
    && ok || fail "three not a new branch: $(q "$D" 'select id, parent_id, role, depth, text from turns')"
finish
