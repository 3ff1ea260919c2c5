#!/usr/bin/env bash
# tests/cli/chat_stdout_fail.sh -- the line chat whose stdout cannot be
# written (a full disk: /dev/full).  The first failed write stops the reply
# (kept as interrupted in a saved session, as Ctrl-C would) and ends the
# chat: one line "stdout: No space left on device", exit status 1.  Before,
# every remaining message of the input was answered into the void (and
# saved as if seen), the exit status came only at the end, and after a
# /command's output the line named the wrong error ("Input/output error").
# The demo model; nothing touches the user's files.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home"
if [ ! -w /dev/full ]; then
    skip 9 "/dev/full not available"
    finish
    exit
fi
for i in $(seq 40); do echo "message $i"; done >"$TMP/in"
chat() { timeout -k 5 120 "$T" chat --demo --seed 1 --max-tokens 40 "$@" >/dev/full 2>"$TMP/err"; }
errs() { grep -c '^rwkv-tui: ' "$TMP/err"; }

# --- a saved chat: one reply started, none after it ----------------------------------------
chat --db "$TMP/s.db" --new full --stats <"$TMP/in"
rc=$?
[ $rc = 1 ] && ok || fail "saved: exit $rc (want 1)"
[ "$(errs)" = 1 ] && grep -q '^rwkv-tui: stdout: No space left on device$' "$TMP/err" \
    && ok || fail "saved: stderr: $(head -c 400 "$TMP/err")"
[ "$(grep -c '^\[stats\]' "$TMP/err")" = 1 ] && ok || fail "saved: $(grep -c '^\[stats\]' "$TMP/err") replies made (want 1)"
"$T" sessions --db "$TMP/s.db" list --json >"$TMP/list" 2>&1
grep -q '"turns": 2,' "$TMP/list" && ok || fail "saved: the session holds: $(grep -o '"turns": [0-9]*' "$TMP/list")"
"$T" sessions --db "$TMP/s.db" show 1 >"$TMP/show" 2>&1
grep -q '^#3 assistant .*\[interrupted\]' "$TMP/show" && ok || fail "saved: the reply is not kept as interrupted: $(tail -n 4 "$TMP/show")"

# --- not saved: the same, and no "(reply interrupted ...)" note -----------------------------
chat --stats <"$TMP/in"
rc=$?
[ $rc = 1 ] && [ "$(errs)" = 1 ] && grep -q '^rwkv-tui: stdout: No space left on device$' "$TMP/err" \
    && ! grep -q 'interrupted' "$TMP/err" && ok || fail "unsaved: exit $rc, stderr: $(head -c 400 "$TMP/err")"
[ "$(grep -c '^\[stats\]' "$TMP/err")" = 1 ] && ok || fail "unsaved: $(grep -c '^\[stats\]' "$TMP/err") replies made (want 1)"

# --- a /command's output fails first: the right reason, nothing after it ---------------------
{ echo /show; cat "$TMP/in"; } | chat --stats
rc=$?
[ $rc = 1 ] && [ "$(errs)" = 1 ] && grep -q '^rwkv-tui: stdout: No space left on device$' "$TMP/err" \
    && [ "$(grep -c '^\[stats\]' "$TMP/err")" = 0 ] && ok || fail "/show first: exit $rc, stderr: $(head -c 400 "$TMP/err")"

# --- free generation: stopped too ------------------------------------------------------------
{ echo '+gen once upon a time'; echo '+++'; echo '++'; cat "$TMP/in"; } | chat --stats
rc=$?
[ $rc = 1 ] && [ "$(errs)" = 1 ] && [ "$(grep -c '^\[stats\]' "$TMP/err")" = 0 ] \
    && ok || fail "+gen: exit $rc, stderr: $(head -c 400 "$TMP/err")"
finish
