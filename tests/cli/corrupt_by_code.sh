#!/usr/bin/env bash
# tests/cli/corrupt_by_code.sh -- the runtime tells a damaged database from
# any other failed save by the store's code (RWKV_ECORRUPT), not by the
# text of its line.  Before, it looked for ": the session database is
# corrupt (" in the message, so a save that failed for another reason on a
# database whose folder's name holds those words (here: a lock another
# program holds) was said as a damaged file -- "a retry cannot mend" -- and
# the retry the next message makes went unsaid.  The real binary, a real
# file; another program (python3's sqlite3) holds the write lock past the
# busy time.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
    skip 3 "python3 not found"
    finish
    exit
fi

mkdir -p "$TMP/x: the session database is corrupt (y" || fail "mkdir"
D="$TMP/x: the session database is corrupt (y/c.db"
chat_bg --demo --db "$D" --new c --seed 1 --max-tokens 6
printf 'one\n' >&3
poll rows_are "$D" 'select count(*) from turns where role=2' 1 ||
    fail "the first reply was not saved: $(cat "$TMP/err")"
hold_lock "$D" || fail "no lock taken"
printf 'two\n' >&3
poll grep -q 'saving .*database is locked' "$TMP/err" || fail "the save did not fail: $(cat "$TMP/err")"
release_lock
exec 3>&-
wait $pid
err=$(cat "$TMP/err")
printf '%s\n' "$err" | grep -q 'tried again with your next message' && ok ||
    fail "a lock said as something else: $err"
printf '%s\n' "$err" | grep -q 'a retry cannot mend' && fail "a lock said as a damaged file: $err" || ok
printf '%s\n' "$err" | grep -q 'saving works again' && ok || fail "not saved at the quit: $err"
finish
