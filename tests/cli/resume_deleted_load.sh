#!/usr/bin/env bash
# tests/cli/resume_deleted_load.sh -- `chat --session ID` looks the
# session up, loads its model (minutes for a big one), then opens it: a
# session deleted elsewhere meanwhile (`sessions rm`, another window) said
# "chat: DB: no session ID", the words of a number that was never a
# session.  Now it says the session was deleted while the model loaded
# (exit 1, nothing made); a number never used says it is not in the
# database and how to list the sessions.  gdb holds the chat in the load.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/holdlib.sh"
T=$RWKV_TUI
N_CHECKS=6

printf 'hello\n' | "$T" chat --demo --db "$TMP/a.db" --new "two talks" --max-tokens 2 --seed 1 \
    >/dev/null 2>"$TMP/err" || fail "the first chat: $(cat "$TMP/err")"
# a number never used
"$T" chat --db "$TMP/a.db" --session 7 </dev/null >/dev/null 2>"$TMP/err"
rc=$?
[ $rc = 1 ] && [ "$(cat "$TMP/err")" = "rwkv-tui: chat: $TMP/a.db: no session 7 ('rwkv-tui sessions --db $TMP/a.db list' lists the saved ones)" ] &&
    ok || fail "--session 7: exit $rc: $(cat "$TMP/err")"

hold_gdb $((N_CHECKS - 1)) "the deletion during the load"
cat >"$TMP/load" <<'EOF2'
gdb.execute("break rwkv_model_open_demo")
gdb.execute("run chat --db %s/a.db --session 1 --max-tokens 2 </dev/null >%s/out 2>%s/err"
            % (tmp, tmp, tmp))
EOF2
hold_run_chat "$TMP/load"
g=$HOLD_RUN_PID
if poll test -e "$TMP/hit"; then ok; else fail "the load never began: $(tail -5 "$TMP/gdb.log")"; fi
"$T" sessions --db "$TMP/a.db" rm 1 >/dev/null 2>&1 && ok || fail "sessions rm during the load"
touch "$TMP/go"
wait $g
grep -q 'exited with code 01' "$TMP/gdb.log" && ok ||
    fail "exit status: $(grep -m1 exited "$TMP/gdb.log") $(cat "$TMP/err")"
[ "$(cat "$TMP/err")" = "rwkv-tui: chat: session 1 was deleted (elsewhere) while the model loaded: nothing to resume" ] &&
    ok || fail "the deletion not said: $(cat "$TMP/err")"
[ "$(n_sessions "$TMP/a.db")" = 0 ] && ok || fail "a session was made: $(n_sessions "$TMP/a.db")"
finish
