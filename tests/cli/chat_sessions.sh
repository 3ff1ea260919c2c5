#!/usr/bin/env bash
# tests/cli/chat_sessions.sh -- `rwkv-tui chat --new/--session/--resume/--db`:
# every turn saved with its state, a resumed session continuing exactly as
# one long process does (snapshot or replay), crash and Ctrl-C mid-reply,
# bad input.  Real database files in a temp dir, the real binary, the
# fixture models -- or, without them, the demo model for every check that
# holds for any byte-level model (the others are counted as skipped).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
TINY="--model $FX/models/tiny-7v0-fp32.pth"
[ -e "$FX/models/tiny-7v0-fp32.pth" ] || [ -n "${CI:-}" ] || TINY=--demo
WORLD="--model $FX/models/world-7v0-rand-bf16.pth --vocab $FX/rwkv_vocab_v20230424.txt"
STATE="$FX/states/state-7v0-A.pth"
HAVE_SQLITE=0
command -v sqlite3 >/dev/null 2>&1 && HAVE_SQLITE=1
q() { sqlite3 "$@"; }
# copy a database (and its WAL, if a writer left one)
cpdb() { cp "$1" "$2" && { [ ! -e "$1-wal" ] || cp "$1-wal" "$2-wal"; }; }

# --- help ---------------------------------------------------------------------------
out=$("$T" chat --help)
for w in '--new TITLE' '--session ID' '--resume' '/history' '/fork TURN' '/sessions' 'no database is touched'; do
    case $out in *"$w"*) ok ;; *) fail "chat --help lacks '$w'" ;; esac
done

# --- plain chat touches no database ------------------------------------------------
printf 'hi\n' | XDG_DATA_HOME="$TMP/xdg0" "$T" chat $TINY --seed 1 --max-tokens 5 >/dev/null 2>&1 \
    && [ ! -e "$TMP/xdg0" ] && ok || fail "plain chat created $TMP/xdg0"

# --- 1. --new saves every turn --------------------------------------------------------
D1=$TMP/one.db
printf 'hi\nwhat is 2+2?\n' | "$T" chat $TINY --db "$D1" --new t1 --seed 1 --max-tokens 40 >"$TMP/n1" 2>"$TMP/n1.err"
rc=$?
[ $rc = 0 ] && ok || fail "--new exit $rc: $(cat "$TMP/n1.err")"
[ "$(cat "$TMP/n1.err")" = "new session 1: t1" ] && ok || fail "--new stderr: $(cat "$TMP/n1.err")"
[ "$(grep -c '^Assistant:' "$TMP/n1")" = 2 ] && ok || fail "--new: replies: $(cat "$TMP/n1")"
out=$("$T" sessions --db "$D1" list)
# TURNS: the messages (2 + 2), the greeting not counted
printf '%s\n' "$out" | grep -Eq '^ +1 .* 4  t1$' && ok || fail "sessions list: $out"
out=$("$T" sessions --db "$D1" show 1)
case $out in *"#1 system [state]"*"#2 user [state]:"*"hi"*"#3 assistant [state]:"*"#4 user [state]:"*"what is 2+2?"*"#5 assistant [state]:"*) ok ;;
    *) fail "sessions show: $out" ;; esac
# the same count everywhere: 4 messages, the greeting apart
case $out in *"; 4 turns in the tree, 4 on this branch (and the greeting)"*) ok ;;
    *) fail "show's count: $out" ;; esac
# the replies stored are the replies printed
"$T" sessions --db "$D1" export 1 >"$TMP/n1.md"
grep -qx -- '- current branch: 4 turns (4 in the whole tree), after the greeting' "$TMP/n1.md" && ok ||
    fail "export's count: $(head -8 "$TMP/n1.md")"
[ "$("$T" sessions --db "$D1" list --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["turns"])')" = 4 ] \
    && ok || fail "list --json's count"
printf '' | "$T" chat $TINY --db "$D1" --session 1 >/dev/null 2>"$TMP/n1r.err"
grep -q '^resumed session 1: t1 (4 turns)$' "$TMP/n1r.err" && ok || fail "resume's count: $(cat "$TMP/n1r.err")"
# a regenerated reply: the tree holds 5 messages, the branch 4; the resume
# line counts as TURNS and show do
cp "$D1" "$TMP/one-regen.db"
printf '/regen\n' | "$T" chat $TINY --db "$TMP/one-regen.db" --session 1 --max-tokens 3 >/dev/null 2>&1
printf '' | "$T" chat $TINY --db "$TMP/one-regen.db" --session 1 >/dev/null 2>"$TMP/n1r2.err"
grep -q '^resumed session 1: t1 (5 turns in the tree, 4 on this branch)$' "$TMP/n1r2.err" && ok ||
    fail "resume's count with a sibling: $(cat "$TMP/n1r2.err")"
r1=$(sed -n 's/^Assistant:\(.*\)$/\1/p' "$TMP/n1" | head -1)
"$T" sessions --db "$D1" export 1 --format json | python3 -c 'import json,sys; r=sys.argv[1]; sys.exit(0 if any(r in t["text"] for t in json.load(sys.stdin)["turns"]) else 1)' "$r1" && ok || fail "first reply not in the export"
if [ $HAVE_SQLITE = 1 ]; then
    [ "$(q "$D1" 'select count(*) from turns where role=1')" = 2 ] && ok || fail "user turns"
    [ "$(q "$D1" "select count(*) from turns where role=2 and interrupted=0 and sampling like '%seed=%' and length(tokens)>0")" = 2 ] \
        && ok || fail "assistant turns with sampling+seed: $(q "$D1" 'select role, interrupted, sampling from turns')"
    # the two replies drew different seeds from --seed 1
    [ "$(q "$D1" "select count(distinct sampling) from turns where role=2")" = 2 ] && ok || fail "reply seeds not distinct"
    [ "$(q "$D1" 'select count(*) from turns where role=2 and decode_tps>0')" = 2 ] && ok || fail "speeds not saved"
fi

# --- 2. resumed == one process (tiny, seeded) --------------------------------------------
three() { printf 'hi\nwhat is 2+2?\nand 3+3?\n'; }
three | "$T" chat $TINY --seed 7 --max-tokens 40 >"$TMP/A" 2>/dev/null
D2=$TMP/two.db
three | "$T" chat $TINY --db "$D2" --new one --seed 7 --max-tokens 40 >"$TMP/A2" 2>/dev/null
cmp -s "$TMP/A" "$TMP/A2" && ok || fail "saving changed the replies"
printf 'hi\nwhat is 2+2?\n' | "$T" chat $TINY --db "$D2" --new split --seed 7 --max-tokens 40 >"$TMP/B1" 2>/dev/null
cpdb "$D2" "$TMP/two-before.db"   # for test 3
printf 'and 3+3?\n' | "$T" chat --db "$D2" --session 2 --seed 7 >"$TMP/B2" 2>"$TMP/B2.err"
rc=$?
[ $rc = 0 ] && ok || fail "--session exit $rc: $(cat "$TMP/B2.err")"
grep -qx 'resumed session 2: split (4 turns)' "$TMP/B2.err" && ok || fail "resume line: $(cat "$TMP/B2.err")"
grep -q 'replayed' "$TMP/B2.err" && fail "replayed although the snapshot exists: $(cat "$TMP/B2.err")" || ok
[ "$(grep -c '^Assistant:' "$TMP/B2")" = 1 ] && ok || fail "resumed: $(cat "$TMP/B2")"
cat "$TMP/B1" "$TMP/B2" | cmp -s - "$TMP/A" && ok || fail "tiny: resumed third reply differs from one process"
if [ $HAVE_SQLITE = 1 ]; then
    # the third reply drew the same seed as in the one-process session
    s1=$(q "$D2" "select sampling from turns where session_id=1 and role=2 order by id limit 1 offset 2")
    s2=$(q "$D2" "select sampling from turns where session_id=2 and role=2 order by id limit 1 offset 2")
    [ -n "$s1" ] && [ "$s1" = "$s2" ] && ok || fail "third reply's sampling/seed: '$s1' vs '$s2'"
fi
# greedy, --resume, model taken from the session
three | "$T" chat $TINY --temperature 0 --max-tokens 40 >"$TMP/G" 2>/dev/null
D3=$TMP/greedy.db
printf 'hi\nwhat is 2+2?\n' | "$T" chat $TINY --db "$D3" --new g --temperature 0 --max-tokens 40 >"$TMP/G1" 2>/dev/null
printf 'and 3+3?\n' | "$T" chat --db "$D3" --resume >"$TMP/G2" 2>"$TMP/G2.err"
cat "$TMP/G1" "$TMP/G2" | cmp -s - "$TMP/G" && ok || fail "greedy --resume differs: $(cat "$TMP/G2.err")"
# forking in place at the second reply and sending the third message again
# gives the same reply (turns: 1 greeting, 2/3, 4/5, 6/7)
printf '/fork 5\nand 3+3?\n' | "$T" chat --db "$D3" --resume >"$TMP/G3" 2>"$TMP/G3.err"
cmp -s "$TMP/G3" "$TMP/G2" && grep -qx '(branched at turn 5: the next message starts a new branch)' "$TMP/G3.err" \
    && ok || fail "fork at 5: $(cat "$TMP/G3.err")"
if [ $HAVE_SQLITE = 1 ]; then
    # (the state after 5 is the one before the last message: the open rebuilds
    # it by replay and keeps it, so the fork takes it and a later open too)
    q "$D3" 'delete from snapshots where turn_id=5'
    printf '/fork 6\nand 3+3?\n' | "$T" chat --db "$D3" --resume >"$TMP/G4" 2>"$TMP/G4.err"
    cmp -s "$TMP/G4" "$TMP/G2" && [ "$(q "$D3" 'select count(*) from snapshots where turn_id=5')" = 1 ] &&
        ok || fail "fork before 6 with replay: $(cat "$TMP/G4.err")"
    # a fork further back, where no open passes: replayed there, the same reply
    q "$D3" 'delete from snapshots where turn_id in (3, 5)'
    printf '/fork 5\nand 3+3?\n' | "$T" chat --db "$D3" --session 1 >"$TMP/G5" 2>"$TMP/G5.err"
    cmp -s "$TMP/G5" "$TMP/G2" && ok || fail "fork at 5 after its state was dropped: $(cat "$TMP/G5.err")"
fi
# World model
if have_fixture models/world-7v0-rand-bf16.pth 1; then
three | "$T" chat $WORLD --seed 3 --max-tokens 30 >"$TMP/W" 2>/dev/null
D4=$TMP/world.db
printf 'hi\nwhat is 2+2?\n' | "$T" chat $WORLD --db "$D4" --new w --seed 3 --max-tokens 30 >"$TMP/W1" 2>/dev/null
printf 'and 3+3?\n' | "$T" chat --db "$D4" --session 1 --seed 3 --vocab "$FX/rwkv_vocab_v20230424.txt" >"$TMP/W2" 2>"$TMP/W2.err"
cat "$TMP/W1" "$TMP/W2" | cmp -s - "$TMP/W" && ok || fail "world: resumed third reply differs: $(cat "$TMP/W2.err")"
fi
# a state-file session resumes from its state file (no --state needed)
HAVE_STATE=0
if have_fixture states/state-7v0-A.pth 2; then
HAVE_STATE=1
three | "$T" chat $TINY --state "$STATE" --seed 5 --max-tokens 40 >"$TMP/S" 2>/dev/null
D5=$TMP/state.db
printf 'hi\nwhat is 2+2?\n' | "$T" chat $TINY --state "$STATE" --db "$D5" --new s --seed 5 --max-tokens 40 >"$TMP/S1" 2>/dev/null
printf 'and 3+3?\n' | "$T" chat --db "$D5" --session 1 --seed 5 >"$TMP/S2" 2>"$TMP/S2.err"
cat "$TMP/S1" "$TMP/S2" | cmp -s - "$TMP/S" && ok || fail "state file: resumed differs: $(cat "$TMP/S2.err")"
expect_fail "other state file" 'starts from the state file' "$T" chat --db "$D5" --session 1 --state "$FX/states/state-7v0-B.pth"
fi

# --- 3. snapshots gone -> replay, same output ------------------------------------------------
if [ $HAVE_SQLITE = 1 ]; then
    cpdb "$TMP/two-before.db" "$TMP/r1.db"
    q "$TMP/r1.db" 'delete from snapshots where turn_id in (select id from turns where session_id=2)'
    printf 'and 3+3?\n' | "$T" chat --db "$TMP/r1.db" --session 2 --seed 7 >"$TMP/R1" 2>"$TMP/R1.err"
    cmp -s "$TMP/R1" "$TMP/B2" && ok || fail "replay from the root differs: $(cat "$TMP/R1.err")"
    grep -Eq '^\(no saved state for turn [0-9]+: replayed [0-9]+ tokens from the start of the session\)$' "$TMP/R1.err" \
        && ok || fail "replay note: $(cat "$TMP/R1.err")"
    # only the leaf's snapshot gone: replay from the nearest one
    cpdb "$TMP/two-before.db" "$TMP/r2.db"
    q "$TMP/r2.db" 'delete from snapshots where turn_id=(select max(id) from turns where session_id=2)'
    printf 'and 3+3?\n' | "$T" chat --db "$TMP/r2.db" --session 2 --seed 7 >"$TMP/R2" 2>"$TMP/R2.err"
    cmp -s "$TMP/R2" "$TMP/B2" && ok || fail "replay from a snapshot differs: $(cat "$TMP/R2.err")"
    grep -Eq 'replayed [0-9]+ tokens from the state saved with turn [0-9]+\)$' "$TMP/R2.err" \
        && ok || fail "replay note (nearest): $(cat "$TMP/R2.err")"
    # a corrupt snapshot blob is skipped and replayed
    cpdb "$TMP/two-before.db" "$TMP/r3.db"
    q "$TMP/r3.db" "update state_blobs set blob=substr(blob,1,100) where id=(select blob_id from snapshots
                   where turn_id=(select max(id) from turns where session_id=2))"
    printf 'and 3+3?\n' | "$T" chat --db "$TMP/r3.db" --session 2 --seed 7 >"$TMP/R3" 2>"$TMP/R3.err"
    cmp -s "$TMP/R3" "$TMP/B2" && ok || fail "replay past a corrupt snapshot differs: $(cat "$TMP/R3.err")"
    grep -q 'replayed' "$TMP/R3.err" && ok || fail "corrupt snapshot note: $(cat "$TMP/R3.err")"
fi
# other weights of the same shape: snapshots not used, replayed, told in one line
if have_fixture models/tiny-7v0-bf16.pth 2; then
cpdb "$TMP/two-before.db" "$TMP/r4.db"
printf 'and 3+3?\n' | "$T" chat --model "$FX/models/tiny-7v0-bf16.pth" --db "$TMP/r4.db" --session 2 --seed 7 \
    >"$TMP/R4" 2>"$TMP/R4.err"
rc=$?
[ $rc = 0 ] && ok || fail "same-shape model exit $rc: $(cat "$TMP/R4.err")"
[ "$(grep -c 'not used: made with another model.*replayed [0-9]* tokens' "$TMP/R4.err")" = 1 ] && ok \
    || fail "same-shape model note: $(cat "$TMP/R4.err")"
fi
# another precision: replayed too
cpdb "$TMP/two-before.db" "$TMP/r5.db"
printf 'and 3+3?\n' | "$T" chat --db "$TMP/r5.db" --session 2 --seed 7 --strategy 'cpu bf16' >/dev/null 2>"$TMP/R5.err" \
    && grep -q 'bf16.*replayed [0-9]* tokens' "$TMP/R5.err" && ok || fail "precision note: $(cat "$TMP/R5.err")"

# --- 4. SIGKILL mid-reply ----------------------------------------------------------------------
D6=$TMP/kill.db
printf 'hi\n' | "$T" chat $TINY --db "$D6" --new k --seed 1 --max-tokens 20 >/dev/null 2>&1
before=$("$T" sessions --db "$D6" export 1 --format json | grep -v '"updated_ms"\|"head"')
( printf 'tell me a long story\n'; sleep 6 ) 2>/dev/null |
    "$T" chat $TINY --db "$D6" --session 1 --max-tokens 1000000 --stop QQQZZZ >"$TMP/k.out" 2>"$TMP/k.err" &
pid=$!
# until the streaming reply has been saved with more than 100 tokens (saved
# at most every second: a fixed pause could come first on a busy machine,
# and 100000 tokens could all be done first on a fast one); at most ~30 s
for _ in $(seq 300); do
    [ $HAVE_SQLITE = 1 ] || { sleep 2.5; break; }
    n=$(q "$D6" 'select length(tokens)/4 from turns where id=5 and interrupted=1' 2>/dev/null)
    [ -n "$n" ] && [ "$n" -gt 100 ] && break
    sleep 0.1
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
[ -s "$TMP/k.out" ] && ok || fail "no reply before the kill: $(cat "$TMP/k.err")"
out=$("$T" sessions --db "$D6" show 1)
case $out in *"#4 user [state]:"*"tell me a long story"*"#5 assistant [interrupted]:"*) ok ;; *) fail "after kill: $(printf '%s' "$out" | cut -c1-100)" ;; esac
after=$("$T" sessions --db "$D6" export 1 --format json)
# the first exchange is unchanged
first=$(printf '%s\n' "$before" | grep -o '"id": 3, .*' | head -1 | cut -c1-200)
case $after in *"$first"*) ok ;; *) fail "completed turns changed after the kill" ;; esac
if [ $HAVE_SQLITE = 1 ]; then
    [ "$(q "$D6" 'pragma integrity_check')" = ok ] && ok || fail "integrity_check after kill"
    n=$(q "$D6" 'select length(tokens)/4 from turns where id=5 and interrupted=1 and length(text)>0')
    [ -n "$n" ] && [ "$n" -gt 100 ] && ok || fail "partial reply not saved (tokens '$n')"
fi
printf 'go on\n' | "$T" chat --db "$D6" --session 1 --max-tokens 5 >"$TMP/k2" 2>"$TMP/k2.err"
rc=$?
[ $rc = 0 ] && grep -q 'replayed [0-9]* tokens from the state saved with turn 4' "$TMP/k2.err" \
    && grep -q 'resumed session 1: k (4 turns)' "$TMP/k2.err" && ok || fail "resume after kill ($rc): $(cat "$TMP/k2.err")"

# --- Ctrl-C mid-reply: partial reply saved, marked, with the state of its tokens -------------
D7=$TMP/int.db
( printf 'tell me a long story\n'; sleep 3 ) 2>/dev/null |
    "$T" chat $TINY --db "$D7" --new c --seed 2 --max-tokens 1000000 --stop QQQZZZ >"$TMP/c.out" 2>"$TMP/c.err" &
pid=$!
# until the reply streams (not a fixed pause: on a busy machine the Ctrl-C
# could come before the reply, on a fast one after its end); at most ~20 s
for _ in $(seq 200); do [ "$(wc -c <"$TMP/c.out")" -gt 1000 ] && break; sleep 0.1; done
kill -INT $pid
wait $pid
rc=$?
[ $rc = 0 ] && grep -q 'reply interrupted after' "$TMP/c.err" && ok || fail "Ctrl-C ($rc): $(cat "$TMP/c.err")"
out=$("$T" sessions --db "$D7" show 1)
case $out in *"#3 assistant [state] [interrupted]:"*) ok ;; *) fail "Ctrl-C row: $(printf '%s' "$out" | grep '#3')" ;; esac
if [ $HAVE_SQLITE = 1 ]; then
    # the saved text is what was printed
    q "$D7" 'select text from turns where id=3' >"$TMP/c.db.txt"
    sed -n 's/^Assistant://p' "$TMP/c.out" | head -c "$(stat -c %s "$TMP/c.db.txt")" >/dev/null
    head -c 2000 "$TMP/c.db.txt" | tr -d '\n' >"$TMP/c1"; sed 's/^Assistant://' "$TMP/c.out" | head -c 2000 | tr -d '\n' >"$TMP/c2"
    cmp -s "$TMP/c1" "$TMP/c2" && ok || fail "interrupted text differs from the printed text"
    # its snapshot == its tokens replayed: the next reply is the same either way
    cpdb "$D7" "$TMP/int2.db"
    q "$TMP/int2.db" 'delete from snapshots where turn_id=3'
    printf 'and then?\n' | "$T" chat --db "$D7" --session 1 --seed 9 --max-tokens 30 >"$TMP/c3" 2>/dev/null
    printf 'and then?\n' | "$T" chat --db "$TMP/int2.db" --session 1 --seed 9 --max-tokens 30 >"$TMP/c4" 2>"$TMP/c4.err"
    grep -q replayed "$TMP/c4.err" && cmp -s "$TMP/c3" "$TMP/c4" && ok \
        || fail "interrupted reply: snapshot and replay disagree: $(cat "$TMP/c4.err")"
fi

# --- /regen, /history, /fork, /reset, /sessions -----------------------------------------------
D8=$TMP/cmd.db
printf 'hi\n/regen\n/history\n/fork 2\nanother\n/history\n/sessions\n/fork 99\n/reset\nfresh\n' |
    "$T" chat $TINY --db "$D8" --new cmds --seed 4 --max-tokens 10 >"$TMP/m.out" 2>"$TMP/m.err"
[ $? = 0 ] && ok || fail "commands: $(cat "$TMP/m.err")"
[ "$(grep -c '^Assistant:' "$TMP/m.out")" = 4 ] && ok || fail "commands: replies: $(cat "$TMP/m.out")"
grep -Eq '^  #2 +user +hi \[2 branches\]$' "$TMP/m.out" && ok || fail "/history after /regen: $(cat "$TMP/m.out")"
grep -q '^(branched before message 2: the next message starts a new branch)$' "$TMP/m.err" && ok || fail "/fork: $(cat "$TMP/m.err")"
grep -Eq '^  #5 +user +another$' "$TMP/m.out" && ok || fail "/history after /fork"
grep -Eq '^\* +1 +5 turns +cmds$' "$TMP/m.out" && ok || fail "/sessions: $(cat "$TMP/m.out")"
grep -q '/fork: .*no turn 99' "$TMP/m.err" && ok || fail "/fork 99: $(cat "$TMP/m.err")"
grep -q 'the next message starts a new branch of session 1' "$TMP/m.err" && ok || fail "/reset"
out=$("$T" sessions --db "$D8" show 1)
case $out in *"#1 system [state] [3 branches]"*) ok ;; *) fail "tree after commands: $out" ;; esac
# the regenerated reply is the same as a one-process /regen
printf 'hi\n/regen\n' | "$T" chat $TINY --seed 4 --max-tokens 10 >"$TMP/m2" 2>/dev/null
head -n 4 "$TMP/m.out" | cmp -s - "$TMP/m2" && ok || fail "/regen in a saved session samples otherwise"
# /regen right after a resume re-prefills and saves a sibling
printf '/regen\n' | "$T" chat --db "$D1" --session 1 --seed 1 >/dev/null 2>&1
out=$("$T" sessions --db "$D1" show 1)
case $out in *"#4 user [state] [2 branches]"*) ok ;; *) fail "/regen after resume: $out" ;; esac
# commands need a saved chat
printf '/history\n/fork 1\n/sessions\n' | "$T" chat $TINY --seed 1 2>"$TMP/e.err" >/dev/null
[ "$(grep -c 'this chat is not saved' "$TMP/e.err")" = 3 ] && ok || fail "unsaved: $(cat "$TMP/e.err")"
# --db alone: a new session titled by the first message
printf 'pangolins?\n' | "$T" chat $TINY --db "$TMP/auto.db" --seed 1 --max-tokens 5 >/dev/null 2>"$TMP/a.err"
grep -qx 'new session 1: pangolins?' "$TMP/a.err" && ok || fail "--db alone: $(cat "$TMP/a.err")"
# a long first line: cut after a whole word, ending in an ellipsis; one long
# word: after a whole character
printf 'the pangolin is a scaly mammal that rolls into a ball when it is afraid of things
' |
    "$T" chat $TINY --db "$TMP/auto.db" --seed 1 --max-tokens 2 >/dev/null 2>"$TMP/a.err"
grep -qx 'new session 2: the pangolin is a scaly mammal that rolls into a ball when…' "$TMP/a.err" \
    && ok || fail "long title: $(cat "$TMP/a.err")"
printf '%s\n' "$(printf 'é%.0s' $(seq 40))" |
    "$T" chat $TINY --db "$TMP/auto.db" --seed 1 --max-tokens 2 >/dev/null 2>"$TMP/a.err"
grep -qx "new session 3: $(printf 'é%.0s' $(seq 30))…" "$TMP/a.err" \
    && ok || fail "one long word: $(cat "$TMP/a.err")"

# a session resumes from any directory (model and state paths are absolute)
if [ $HAVE_STATE = 1 ]; then
(cd "$TMP" && printf 'and 3+3?\n' | "$T" chat --db "$D5" --session 1 --seed 5 >/dev/null 2>"$TMP/cd.err") \
    && grep -q 'resumed session 1' "$TMP/cd.err" && ok || fail "resume elsewhere: $(cat "$TMP/cd.err")"
# /state in a saved session: the next message starts a new session from it
printf 'hi\n/state %s\nhello\n' "$STATE" | "$T" chat $TINY --db "$TMP/st.db" --new st --seed 1 --max-tokens 5 \
    >/dev/null 2>"$TMP/st.err"
grep -qx 'new session 2: hello' "$TMP/st.err" && "$T" sessions --db "$TMP/st.db" show 2 | grep -q '^#[0-9]* user' \
    && ok || fail "/state: $(cat "$TMP/st.err")"
printf 'more\n' | "$T" chat --db "$TMP/st.db" --resume --seed 1 --max-tokens 5 >/dev/null 2>"$TMP/st2.err" \
    && grep -qx 'resumed session 2: hello (2 turns)' "$TMP/st2.err" && ok || fail "resume /state session: $(cat "$TMP/st2.err")"
elif [ -z "${CI:-}" ]; then   # (under CI the missing state file failed above)
    skip 3 "(3) the state-file session checks need $FX/states"
fi

# --- 5. bad input: one line, non-zero ----------------------------------------------------------
if have_fixture models/tiny-6v0-fp32.pth 1; then
expect_fail "wrong model" 'session 2 was made with .*tiny-7v0-fp32.* not this model.*start a new session' \
    "$T" chat --model "$FX/models/tiny-6v0-fp32.pth" --db "$D2" --session 2
fi
expect_fail "no such session" 'no session 999' "$T" chat $TINY --db "$D2" --session 999
printf 'SQLite format 3\0garbage garbage garbage' >"$TMP/bad.db"
expect_fail "corrupt db" 'bad.db' "$T" chat $TINY --db "$TMP/bad.db" --new x
head -c 4096 /dev/urandom >"$TMP/rand.db"
expect_fail "random db" 'rand.db' "$T" chat --db "$TMP/rand.db" --resume
expect_fail "resume, no db" 'no saved sessions' "$T" chat --db "$TMP/none.db" --resume
[ ! -e "$TMP/none.db" ] && ok || fail "--resume created a database"
: >"$TMP/empty.db"
expect_fail "resume, empty db" 'no saved sessions in' "$T" chat --db "$TMP/empty.db" --resume
expect_fail "bad id" "option --session: 'abc' is not an integer in \[1, " "$T" chat --session abc
expect_fail "two modes" 'one of --session' "$T" chat $TINY --new a --resume
expect_fail "empty title" 'title' "$T" chat $TINY --new ''
if have_fixture states/state-7v0-A.pth 1; then
expect_fail "state for a session without" 'has no state file' "$T" chat --db "$D2" --session 2 --state "$STATE"
fi
if [ $HAVE_SQLITE = 1 ]; then
    [ "$(q "$D2" 'pragma integrity_check')" = ok ] && ok || fail "integrity_check"
fi

# --- a World session keeps its model and vocabulary (resume and import: no --vocab) -------
if have_fixture models/world-7v0-rand-bf16.pth 5 && have_fixture rwkv_vocab_v20230424.txt 5; then
    WDB=$TMP/world-vocab.db
    printf 'hello\n' | RWKV_WEIGHT_CACHE=0 "$T" chat --model "$FX/models/world-7v0-rand-bf16.pth" \
        --vocab "$FX/rwkv_vocab_v20230424.txt" --db "$WDB" --new w --max-tokens 4 --seed 1 \
        >/dev/null 2>"$TMP/w1.err" && ok || fail "world chat: $(cat "$TMP/w1.err")"
    printf 'more\n' | RWKV_WEIGHT_CACHE=0 "$T" chat --db "$WDB" --resume --max-tokens 4 \
        >"$TMP/w2" 2>"$TMP/w2.err" && grep -q 'resumed session 1: w' "$TMP/w2.err" && ok \
        || fail "world resume without --vocab: $(cat "$TMP/w2.err")"
    "$T" sessions --db "$WDB" export 1 --format json >"$TMP/w.json" && ok || fail "world export"
    "$T" sessions --db "$TMP/world2.db" import "$TMP/w.json" >/dev/null && ok || fail "world import"
    printf 'again\n' | RWKV_WEIGHT_CACHE=0 "$T" chat --db "$TMP/world2.db" --session 1 --max-tokens 4 \
        >/dev/null 2>"$TMP/w3.err" && grep -q 'resumed session 1' "$TMP/w3.err" && ok \
        || fail "imported world session without --model/--vocab: $(cat "$TMP/w3.err")"
fi

finish
