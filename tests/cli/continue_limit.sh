#!/usr/bin/env bash
# tests/cli/continue_limit.sh -- `/continue` records the reply's total
# as its max_tokens: held to the limit (1000000), so a session the chat
# saved itself is never read back as damaged (it was earlier tokens +
# max_tokens, 1000005 here, and `sessions show/export` and `chat --resume`
# then refused the session).  A database that already holds such a row
# (made before the fix) resumes, shows and exports, the value read as the
# limit; other values out of range are still damage.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
case $FX in /*) ;; *) FX=$PWD/$FX ;; esac   # the checks below run in $TMP
TINY="--model $FX/models/tiny-7v0-fp32.pth"
[ -e "$FX/models/tiny-7v0-fp32.pth" ] || [ -n "${CI:-}" ] || TINY=--demo
D=$TMP/c.db
cd "$TMP" || exit 1

# sql DB SQL: run SQL on DB through Python's sqlite3 (as a tamperer would)
sql() {
    python3 - "$1" "$2" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute(sys.argv[2])
c.commit()
EOF
}

# --- the chat writes no value out of range ---------------------------------------
printf 'Tell me a story.\n/set max_tokens 1000000\n/continue\n' |
    "$T" chat $TINY --db "$D" --new c --seed 1 --max-tokens 5 --stop e >out 2>err
[ $? = 0 ] && [ "$(grep -c '^Assistant:' out)" = 2 ] && ok || fail "chat: $(cat out err)"
"$T" sessions --db "$D" show 1 >show 2>show.err && ok || fail "show after /continue: $(cat show.err)"
grep -q damaged show show.err && fail "a saved reply reads as damaged: $(cat show show.err)" || ok
"$T" sessions --db "$D" export 1 --format json >x.json 2>x.err && ok || fail "export: $(cat x.err)"
grep -q '"max_tokens": 1000000[,}]' x.json && ok || fail "recorded max_tokens: $(grep -o '"max_tokens": [0-9]*' x.json)"

# --- a row of the old /continue (past the limit) is read, not refused --------------
sql "$D" "UPDATE turns SET sampling=replace(sampling, 'max_tokens=1000000', 'max_tokens=1000005') WHERE role=2"
grep -q 'max_tokens=1000005' <(python3 -c "
import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT group_concat(sampling) FROM turns').fetchone()[0])" "$D") &&
    ok || fail "tampering did not take"
"$T" sessions --db "$D" show 1 >show 2>show.err && ok || fail "show of an old row: $(cat show.err)"
grep -q damaged show show.err && fail "an old row reads as damaged: $(cat show.err)" || ok
"$T" sessions --db "$D" export 1 >x.md 2>x.err && ok || fail "export md of an old row: $(cat x.err)"
"$T" sessions --db "$D" export 1 --format json >y.json 2>x.err && ok || fail "export json of an old row: $(cat x.err)"
grep -q '"max_tokens": 1000000[,}]' y.json && ok || fail "exported max_tokens: $(grep -o '"max_tokens": [0-9]*' y.json)"
printf 'more\n' | "$T" chat $TINY --db "$D" --resume --max-tokens 3 >out 2>err && ok ||
    fail "resume of an old row: $(cat err)"
grep -q '^resumed session 1' err && ok || fail "resume: $(cat err)"
# a file exported with the old value imports as the database reads it
sed 's/"max_tokens": 1000000/"max_tokens": 1000005/' y.json >z.json
grep -q '"max_tokens": 1000005' z.json && ok || fail "z.json not made"
"$T" sessions --db "$D" import z.json >/dev/null 2>x.err && ok || fail "import of an old export: $(cat x.err)"

# --- any other value out of range is still damage -----------------------------------
sql "$D" "UPDATE turns SET sampling=replace(sampling, 'max_tokens=1000005', 'max_tokens=0') WHERE session_id=1 AND role=2"
"$T" sessions --db "$D" show 1 >show 2>show.err
grep -q 'max-tokens: 0 is out of range' show.err && ok || fail "max_tokens=0 not damage: $(cat show.err)"
finish
