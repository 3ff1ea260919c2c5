#!/usr/bin/env bash
# tests/cli/state_file_moves.sh -- a session's state file is its content
# (sess_resume_state, store_stateid.c): an export names it (path and
# digest) and an import links it, so the imported session replays from the
# same state; a session whose file moved goes on with a copy (--state COPY:
# the same bytes, recorded from then on) and says how when the file is gone;
# another file given with --state is refused before a model loads; and the
# greeting and names given with --resume apply to the new session /state
# starts (session.c, take_launch_names).
. "$(dirname "$0")/lib.sh"

have_fixture models/tiny-7v0-fp32.pth 14 || { finish; exit; }
have_fixture states/state-7v0-A.pth 14 || { finish; exit; }
case $FX in /*) ;; *) FX=$PWD/$FX ;; esac
cd "$TMP" || exit 1
cp "$FX/models/tiny-7v0-fp32.pth" m.pth
cp "$FX/states/state-7v0-A.pth" A.pth
D=$TMP/d.db

printf 'hi\n' | "$RWKV_TUI" chat --model m.pth --state A.pth --db "$D" --new s1 --seed 3 \
    --max-tokens 4 >/dev/null 2>e0 || fail "chat --state --new: $(cat e0)"

# 1. the export names the state file, the import keeps it
"$RWKV_TUI" sessions --db "$D" export 1 --format json >ex.json 2>e1
grep -q "\"state_file\": {\"name\": \"A.pth\", \"path\": \"$TMP/A.pth\", \"size\": [0-9]*, \"digest\": \"[0-9a-f]\{16\}\"}" ex.json &&
    ok || fail "JSON export without the state file: $(grep -n state ex.json)"
"$RWKV_TUI" sessions --db "$D" export 1 2>e1 | grep -q "^- state file: $TMP/A.pth (digest [0-9a-f]*)\$" &&
    ok || fail "Markdown export without the state file"
"$RWKV_TUI" sessions --db "$TMP/d2.db" import ex.json >/dev/null 2>e1 || fail "import: $(cat e1)"
"$RWKV_TUI" sessions --db "$TMP/d2.db" show 1 | grep -qx "state file $TMP/A.pth" &&
    ok || fail "imported session without its state file: $("$RWKV_TUI" sessions --db "$TMP/d2.db" show 1)"
# its state is the original's (a replay from A, not from zeros)
printf '/save o.pth\n' | "$RWKV_TUI" chat --db "$D" --session 1 >/dev/null 2>e1 || fail "save o: $(cat e1)"
printf '/save i.pth\n' | "$RWKV_TUI" chat --db "$TMP/d2.db" --session 1 >/dev/null 2>e1 ||
    fail "save i: $(cat e1)"
cmp -s o.pth i.pth && ok || fail "the imported session's state differs from the original's"
# an old export (no state_file) imports as before: no state file
grep -v '"state_file"' ex.json >old.json
"$RWKV_TUI" sessions --db "$TMP/d3.db" import old.json >/dev/null 2>e1 || fail "old import: $(cat e1)"
"$RWKV_TUI" sessions --db "$TMP/d3.db" show 1 | grep -q "^state file" &&
    fail "an old export got a state file" || ok

# 2. the file moved: the session goes on from its saved states (going back
# to its start says so: resume_state_gone.sh), a copy goes on
mkdir sub && cp A.pth sub/copy.pth && mv A.pth moved.pth
printf '/history\n' | "$RWKV_TUI" chat --db "$D" --resume >/dev/null 2>e2 && ok ||
    fail "moved state file: $(cat e2)"
printf 'x\n' | "$RWKV_TUI" chat --db "$D" --session 1 --state sub/copy.pth --max-tokens 2 \
    >/dev/null 2>e2 && ok || fail "--state with a copy: $(cat e2)"
"$RWKV_TUI" sessions --db "$D" show 1 | grep -qx "state file $TMP/sub/copy.pth" &&
    ok || fail "the copy's path not recorded"
printf 'x\n' | "$RWKV_TUI" chat --db "$D" --resume --max-tokens 2 >/dev/null 2>e2 &&
    ok || fail "resume after the copy was recorded: $(cat e2)"

# 3. another file is refused, before a model loads (the model named does
# not exist: the state file is what is said)
printf 'yo\n/save other.pth\n' | "$RWKV_TUI" chat --model m.pth --state sub/copy.pth --max-tokens 2 \
    >/dev/null 2>&1 || fail "saving another state"
expect_fail "another state" \
    "^rwkv-tui: chat: session 1 starts from the state file $TMP/sub/copy\\.pth, and $TMP/other\\.pth holds another state" \
    "$RWKV_TUI" chat --db "$D" --session 1 --state other.pth --model "$TMP/none.pth"
printf 'hi\n' | "$RWKV_TUI" chat --model m.pth --db "$D" --new plain --max-tokens 2 >/dev/null 2>&1
expect_fail "no state file" "^rwkv-tui: chat: session 2 has no state file: leave out --state" \
    "$RWKV_TUI" chat --db "$D" --session 2 --state sub/copy.pth

# 4. --user / --greeting with --resume: the new session /state starts takes them
printf 'hi\n' | "$RWKV_TUI" chat --model m.pth --db "$D" --new named --user Bob --bot Alice \
    --greeting 'Bob: hey' --max-tokens 2 >/dev/null 2>&1
printf '/state sub/copy.pth\nagain\n' | "$RWKV_TUI" chat --db "$D" --session 3 --user Carol \
    --bot Dave --greeting 'Carol: yo' --max-tokens 2 >/dev/null 2>e4 || fail "chat: $(cat e4)"
grep -q "keeps its own greeting and names: Bob / Alice" e4 && ok || fail "no note: $(cat e4)"
"$RWKV_TUI" sessions --db "$D" show 4 >s5 2>&1
grep -q '^framing: greeting "Carol: yo" ([0-9]* bytes); user Carol, bot Dave;' s5 &&
    ok || fail "the new session's framing: $(grep framing s5)"
"$RWKV_TUI" sessions --db "$D" show 3 | grep -q '^framing: greeting "Bob: hey" .*user Bob, bot Alice;' &&
    ok || fail "the resumed session's framing changed"
finish
