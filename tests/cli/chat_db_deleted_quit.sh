#!/usr/bin/env bash
# tests/cli/chat_db_deleted_quit.sh -- the session database deleted while
# the line chat runs: the runtime says the chat goes on without saving, as
# with --no-db, its turns in memory until the end.  Leaving then (EOF) must
# not be a quiet exit 0, as it was: what was said is saved nowhere, so it
# is the leaving rule of any failed save -- one line on stderr naming how
# many exchanges are not saved and why, exit status 1.  Real processes on
# a real SQLite file, the demo model.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI

chat_bg --demo --db "$TMP/del.db" --new del --seed 1 --max-tokens 4
printf 'first\n' >&3
poll grep -q 'new session 1' "$TMP/err" || fail "no session made: $(cat "$TMP/err")"
poll has_rows "$TMP/del.db" 'select id from turns where role=2' ||
    fail "first reply not saved"
rm -f "$TMP/del.db" "$TMP/del.db-wal" "$TMP/del.db-shm"
printf 'after rm\n' >&3
poll grep -q 'goes on without saving' "$TMP/err" && ok || fail "deletion not told: $(cat "$TMP/err")"
exec 3>&-
wait $pid
rc=$?
[ $rc = 1 ] && ok || fail "exit $rc after the chat was saved nowhere: $(cat "$TMP/err")"
grep -qE 'leaving with 2 exchanges not saved \(.*deleted\): they are not in the session' "$TMP/err" &&
    ok || fail "the leaving line: $(cat "$TMP/err")"

# no database (the chat's default): nothing to save, nothing said, exit 0
printf 'hi\n' | "$T" chat --demo --seed 1 --max-tokens 4 >/dev/null 2>"$TMP/err2"
rc=$?
[ $rc = 0 ] && ! grep -q 'not saved' "$TMP/err2" && ok || fail "no database: exit $rc $(cat "$TMP/err2")"
finish
