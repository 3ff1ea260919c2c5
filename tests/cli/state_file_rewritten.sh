#!/usr/bin/env bash
# tests/cli/state_file_rewritten.sh -- a state-file row is one content at
# one path (store_statefile_add): a state saved over the old name and used
# by a new session gets a row of its own, so the older session keeps
# naming the bytes it was made with -- its resume says the path now holds
# another state (it loaded the new bytes silently: the new session had
# rewritten the shared row's digest) and goes on with a copy of its own;
# (the state-file list naming the path once: tests/unit/test_store_stateid.c).  A row made before digests were
# kept takes a --state, its file gone, only when the file fits the model,
# saying it could not be checked; its file there gives it a digest at its
# first use.  The session's own sampling values go through a JSON export
# and import (sessions export --format json: "sampling").
. "$(dirname "$0")/lib.sh"

have_fixture models/tiny-7v0-fp32.pth 16 || { finish; exit; }
have_fixture states/state-7v0-A.pth 16 || { finish; exit; }
command -v sqlite3 >/dev/null 2>&1 || { skip "no sqlite3" 16; finish; exit; }
case $FX in /*) ;; *) FX=$PWD/$FX ;; esac
cd "$TMP" || exit 1
cp "$FX/models/tiny-7v0-fp32.pth" m.pth
cp "$FX/states/state-7v0-A.pth" A.pth
D=$TMP/d.db
q() { sqlite3 "$D" "$@"; }

# another state for the same model: a conversation saved as a state file
printf 'yo\n/save B.pth\n' | "$RWKV_TUI" chat --model m.pth --state A.pth --max-tokens 2 \
    >/dev/null 2>e0 && [ -s B.pth ] || fail "saving B: $(cat e0)"
cmp -s A.pth B.pth && fail "B is A"

# 1. session 1 from s.pth holding A; s.pth saved over with B, session 2 from it
cp A.pth s.pth
printf 'hi\n' | "$RWKV_TUI" chat --model m.pth --state s.pth --db "$D" --new one --max-tokens 2 \
    >/dev/null 2>e1 || fail "session 1: $(cat e1)"
cp B.pth s.pth
printf 'hi\n' | "$RWKV_TUI" chat --model m.pth --state s.pth --db "$D" --new two --max-tokens 2 \
    >/dev/null 2>e1 || fail "session 2: $(cat e1)"
[ "$(q "SELECT count(*) FROM state_files WHERE path='$TMP/s.pth'")" = 2 ] &&
    ok || fail "rows of s.pth: $(q 'SELECT id, path, fingerprint FROM state_files')"
[ "$(q 'SELECT count(DISTINCT state_file_id) FROM sessions')" = 2 ] &&
    ok || fail "the sessions share a row: $(q 'SELECT id, state_file_id FROM sessions')"
# the older session is not given the new bytes, said in one line
expect_fail "the path holds another state" \
    "^rwkv-tui: chat: $TMP/s\\.pth: holds another state than session 1 was made with \\(digest [0-9a-f]{16} on record, [0-9a-f]{16} now\\); --state PATH resumes it with a copy of it\$" \
    "$RWKV_TUI" chat --db "$D" --session 1
expect_fail "--state naming the rewritten path" "s\\.pth: holds another state than session 1 was made with" \
    "$RWKV_TUI" chat --db "$D" --session 1 --state s.pth
# the newer session goes on with its own
printf 'x\n' | "$RWKV_TUI" chat --db "$D" --session 2 --max-tokens 2 >/dev/null 2>e1 &&
    ok || fail "session 2 refused: $(cat e1)"
# the older one goes on with a copy of its bytes
cp A.pth copyA.pth
printf 'x\n' | "$RWKV_TUI" chat --db "$D" --session 1 --state copyA.pth --max-tokens 2 >/dev/null 2>e1 &&
    ok || fail "session 1 with a copy of A: $(cat e1)"
"$RWKV_TUI" sessions --db "$D" show 1 | grep -qx "state file $TMP/copyA.pth" &&
    ok || fail "the copy not recorded: $("$RWKV_TUI" sessions --db "$D" show 1)"

# 3. a row without a digest (made before they were kept), its file gone
cp A.pth old.pth
printf 'hi\n' | "$RWKV_TUI" chat --model m.pth --state old.pth --db "$D" --new three --max-tokens 2 \
    >/dev/null 2>e3 || fail "session 3: $(cat e3)"
q "UPDATE state_files SET fingerprint=0 WHERE id=(SELECT state_file_id FROM sessions WHERE id=3)"
rm old.pth
expect_fail "a model given as the state file" \
    "^rwkv-tui: chat: --state m\\.pth: a model, not a state file: give it as --model" \
    "$RWKV_TUI" chat --db "$D" --session 3 --state m.pth
if [ -e "$FX/states/state-6v0-A.pth" ]; then
    cp "$FX/states/state-6v0-A.pth" six.pth
    expect_fail "a state for another model shape" \
        "^rwkv-tui: chat: session 3: $TMP/six\\.pth: (state file has [0-9]+ layers, the model has|tensor 'blocks\\.0\\.att\\.time_state' has shape)" \
        "$RWKV_TUI" chat --db "$D" --session 3 --state six.pth
else
    skip "no state-6v0-A.pth" 1
fi
[ "$(q 'SELECT state_file_id FROM sessions WHERE id=3')" = \
  "$(q "SELECT id FROM state_files WHERE path='$TMP/old.pth'")" ] &&
    ok || fail "a refused file was recorded"
printf 'x\n' | "$RWKV_TUI" chat --db "$D" --session 3 --state B.pth --max-tokens 2 >/dev/null 2>e3 &&
    ok || fail "a fitting file refused: $(cat e3)"
grep -qx "(session 3: its state file $TMP/old\\.pth is gone with no digest on record to check a copy against: taking $TMP/B\\.pth as its state file)" e3 &&
    ok || fail "no note: $(cat e3)"

# 4. a row without a digest whose file is there: its first use records it
printf 'hi\n' | "$RWKV_TUI" chat --model m.pth --state A.pth --db "$D" --new four --max-tokens 2 \
    >/dev/null 2>e4 || fail "session 4: $(cat e4)"
sf=$(q 'SELECT state_file_id FROM sessions WHERE id=4')
q "UPDATE state_files SET fingerprint=0 WHERE id=$sf"
printf 'x\n' | "$RWKV_TUI" chat --db "$D" --session 4 --max-tokens 2 >/dev/null 2>e4 ||
    fail "session 4: $(cat e4)"
[ "$(q "SELECT fingerprint<>0 FROM state_files WHERE id=$sf")" = 1 ] &&
    ok || fail "no digest recorded: $(q "SELECT * FROM state_files WHERE id=$sf")"

# 5. the session's own sampling values are exported and imported
printf '/set temperature 0.25\n/set top_k 7\nhey\n' | "$RWKV_TUI" chat --model m.pth --db "$D" \
    --new five --max-tokens 2 >/dev/null 2>e5 || fail "session 5: $(cat e5)"
"$RWKV_TUI" sessions --db "$D" export 5 --format json >ex.json 2>e5 || fail "export: $(cat e5)"
grep -q '^  "sampling": {"temperature": 0.25, .*"top_k": 7[,}]' ex.json &&
    ok || fail "no session sampling in the export: $(grep -n sampling ex.json | head -3)"
"$RWKV_TUI" sessions --db "$TMP/d2.db" import ex.json >/dev/null 2>e5 || fail "import: $(cat e5)"
v=$(sqlite3 "$TMP/d2.db" "SELECT value FROM settings WHERE key='session_sampling/1'")
case " $v " in *" temperature=0.25 "*" top_k=7 "*) ok ;; *) fail "imported sampling row: '$v'" ;; esac
# a file without it (an older export) imports as before: no row
grep -v '^  "sampling": ' ex.json >old.json
"$RWKV_TUI" sessions --db "$TMP/d3.db" import old.json >/dev/null 2>e5 || fail "old import: $(cat e5)"
[ -z "$(sqlite3 "$TMP/d3.db" "SELECT value FROM settings WHERE key='session_sampling/1'")" ] &&
    ok || fail "an old export got a sampling row"
# a bad one is refused, naming it
sed 's/^  "sampling": {.*}/  "sampling": 3/' ex.json | grep -v '^  "sampling": {' >bad.json
expect_fail "bad sampling" '"sampling" must be an object or null' \
    "$RWKV_TUI" sessions --db "$TMP/d4.db" import bad.json
finish
