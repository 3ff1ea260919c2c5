#!/usr/bin/env bash
# tests/cli/chat_state_unsaved_note.sh -- a reply saved without its state
# (the state's write failed: a trigger on the file stands in for a full
# disk) is said in one line on stderr, once however many replies it hits;
# the line chat said nothing (storage/session_db.c, sess_save_finish).
# tests/tui/state_unsaved_note.sh is the full-screen client's side.  The
# demo model.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home"
DB=$TMP/s.db
chat() { timeout -k 5 60 "$T" chat --demo --db "$DB" --seed 1 --max-tokens 3 "$@"; }

printf 'one\n' | chat --new s >/dev/null 2>"$TMP/err" && ok || fail "first chat: $(cat "$TMP/err")"
sql_rows "$DB" "CREATE TRIGGER test_fail_state BEFORE INSERT ON snapshots WHEN
    (SELECT role FROM turns WHERE id=NEW.turn_id)=2 BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END" >/dev/null
printf 'two\nthree\n' | chat --session 1 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc = 0 ] && ok || fail "exit $rc: $(cat "$TMP/err")"
[ "$(grep -c '^Assistant:' "$TMP/out")" = 2 ] && ok || fail "replies: $(cat "$TMP/out")"
n=$(grep -c 'saving the state after the reply' "$TMP/err")
[ "$n" = 1 ] && ok || fail "said $n times: $(cat "$TMP/err")"
grep -qx "rwkv-tui: saving the state after the reply: $DB: disk full (test) (the reply is saved without it: a resume rebuilds it by replaying the conversation)" "$TMP/err" &&
    ok || fail "the line: $(cat "$TMP/err")"
[ "$(sql_rows "$DB" "SELECT count(*) FROM turns WHERE role=2 AND interrupted=0 AND length(text)>0")" = 3 ] &&
    ok || fail "replies in the file: $(sql_rows "$DB" "SELECT id, interrupted, text FROM turns WHERE role=2")"
finish
