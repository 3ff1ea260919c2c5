#!/usr/bin/env bash
# tests/cli/fork_while_deleted.sh -- `sessions fork` while another program
# deletes what it forks.  The fork read the session and the path of turns,
# then waited for the write lock; the other program's delete committed in
# between:
#   - the session removed: the fork failed "turn 2 is not in session 2"
#     (nothing copied, the new session's own id taken for a turn);
#   - a branch of the path removed (F6's delete in another window): the
#     fork copied the turns still there, said "forked session 1 at turn 13
#     as session 2", and the new session ended higher up.
# Now the fork takes the lock before it reads: "no session 1", and "turn 13
# is not in session 1", nothing made.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/f.db

# locked_do SQL: another program takes the write lock, waits until the fork
# (its stderr $TMP/err) says it waits for it, runs SQL and commits; 0 once
# the lock is held.
locked_do() {
    rm -f "$TMP/locked"
    : >"$TMP/err"
    python3 - "$D" "$TMP" "$1" 3>&- 4>&- <<'EOF' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA foreign_keys=ON")
db.execute("BEGIN EXCLUSIVE")
open(os.path.join(sys.argv[2], "locked"), "w").close()
for _ in range(600):
    if "waiting" in open(os.path.join(sys.argv[2], "err")).read():
        break
    time.sleep(0.05)
for q in sys.argv[3].split(";"):
    db.execute(q)
db.execute("COMMIT")
EOF
    _locker=$!
    poll test -e "$TMP/locked"
}
setup() {
    rm -f "$D" "$D-wal" "$D-shm"
    printf 'one\ntwo\nthree\nfour\nfive\nsix\n' |
        "$T" chat --demo --db "$D" --new s --seed 1 --max-tokens 3 >/dev/null 2>"$TMP/e" ||
        fail "setup: $(cat "$TMP/e")"
}

# --- the session deleted -------------------------------------------------------------
setup
locked_do "DELETE FROM snapshots WHERE turn_id IN (SELECT id FROM turns WHERE session_id=1);
UPDATE turns SET parent_id=NULL WHERE session_id=1;
DELETE FROM turns WHERE session_id=1; DELETE FROM sessions WHERE id=1" || fail "no lock taken"
"$T" sessions --db "$D" fork 1 13 >"$TMP/out" 2>>"$TMP/err"; rc=$?
wait $_locker
[ $rc = 1 ] && ok || fail "session deleted: exit $rc: $(cat "$TMP/out" "$TMP/err")"
grep -v '^waiting' "$TMP/err" | grep -qx "rwkv-tui: forking session 1: .*f\.db: no session 1" && ok ||
    fail "session deleted: $(cat "$TMP/err")"
[ "$(n_sessions "$D")" = 0 ] && ok || fail "session deleted: a session made: $(n_sessions "$D")"

# --- a branch of the path deleted: turns 8 and below ------------------------------------
setup
locked_do "UPDATE turns SET parent_id=NULL WHERE session_id=1 AND id>=8;
DELETE FROM turns WHERE session_id=1 AND id>=8; UPDATE sessions SET head_turn=7 WHERE id=1" ||
    fail "no lock taken"
"$T" sessions --db "$D" fork 1 13 >"$TMP/out" 2>>"$TMP/err"; rc=$?
wait $_locker
[ $rc = 1 ] && ok || fail "branch deleted: exit $rc: $(cat "$TMP/out" "$TMP/err")"
grep -v '^waiting' "$TMP/err" | grep -qx "rwkv-tui: forking session 1: .*f\.db: turn 13 is not in session 1" &&
    ok || fail "branch deleted: $(cat "$TMP/err")"
[ "$(n_sessions "$D")" = 1 ] && ok || fail "branch deleted: a session made: $(n_sessions "$D")"

# --- no other program: the fork as before -------------------------------------------------
setup
out=$("$T" sessions --db "$D" fork 1 13 2>&1) && [ "$out" = "forked session 1 at turn 13 as session 2" ] &&
    ok || fail "plain fork: $out"
[ "$(sql_rows "$D" "SELECT count(*) FROM turns WHERE session_id=2")" = 13 ] && ok ||
    fail "plain fork: turns $(sql_rows "$D" "SELECT count(*) FROM turns WHERE session_id=2")"
finish
