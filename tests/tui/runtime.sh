#!/usr/bin/env bash
# tests/tui/runtime.sh -- the full-screen client keeps every promise of the
# session runtime (storage/session.h), on the real binary under tmux:
# kill -9 mid-reply keeps the message and the streamed part (first message
# of a new chat included); Esc during the prefill puts the message back in
# the input box; Esc leaves edit mode; --resume / --session open a saved
# session; a replay shows progress and can be cancelled with nothing lost;
# F5 then chatting records the model really used; another model's session is
# refused; the state label names the state in use.
. "$(dirname "$0")/tmuxlib.sh"

T=$RWKV_TUI
q() { sqlite3 "$1" "$2" 2>/dev/null; }

# the pid of the binary in the tmux pane (the pane's shell runs it)
tui_pid() { pgrep -P "$(tmx display-message -p '#{pane_pid}')" | head -1; }

# --- kill -9 during the first reply of a new chat -------------------------------------
tui_start --max-tokens 1000000 --seed 5
type_text "first words of a new chat"
keys Enter
check "generating" 'generating'
# until the streamed part has been saved (at most every second: a fixed
# pause was too short on a busy machine); then kill
for i in $(seq 200); do
    n=$(q "$DB" "select length(text) from turns where role=2 and interrupted=1")
    [ -n "$n" ] && [ "$n" -gt 20 ] && break
    sleep 0.1
done
pid=$(tui_pid)
[ -n "$pid" ] && kill -9 "$pid" && ok || fail "no process to kill"
wait_for 'EXIT=137' 10 && ok || fail "not killed: $(screen | tail -3)"
out=$("$T" sessions --db "$DB" show 1 2>&1)
case $out in *"user"*"first words of a new chat"*"assistant [interrupted]:"*) ok ;;
    *) fail "after kill -9: $(printf '%s' "$out" | head -c 300)" ;; esac
n=$(q "$DB" "select length(text) from turns where role=2 and interrupted=1")
[ -n "$n" ] && [ "$n" -gt 20 ] && ok || fail "streamed part not saved (text length '$n')"

# ... and it opens again with --resume: the message and the interrupted reply are there
tui_start --resume --max-tokens 8
check "interrupted reply shown" 'interrupted'
check "resumed notice" "resumed 'first words of a new chat'|replayed"
check "session title in the status line" 'session: first words'
tui_quit

# --- Esc during the prefill: the message goes back to the input box --------------------
# (a 200 kB paste fed one token at a time: seconds of prefill even on a fast machine)
head -c 200000 /dev/zero | tr '\0' 'x' >"$TMP/long.txt"
tui_start --chunk 1 --max-tokens 4 --db "$TMP/esc.db"
tmx load-buffer "$TMP/long.txt"
tmx paste-buffer -p
check "pasted" '^[>*](↑| )x{20}'
keys Enter
check "prefilling" 'prefilling'
keys Escape
check "message back in the input box" 'back in the input box'
check "the input box holds it" '^[>*](↑| )x{20}'
wait_idle
[ "$(q "$TMP/esc.db" 'select count(*) from turns where role=1')" = 0 ] && ok \
    || fail "cancelled message was stored"
# sending it again works (the session is titled from it, not from a later one)
keys C-u
type_text "a real message"
send
[ "$(q "$TMP/esc.db" 'select title from sessions')" = "a real message" ] && ok \
    || fail "title: $(q "$TMP/esc.db" 'select title from sessions')"
# --- edit mode is left with Esc ---------------------------------------------------------
keys M-e
check "edit mode" 'editing an earlier message'
check "edit prompt" '^\* a real message'
keys Escape
check "edit cancelled" 'edit cancelled'
type_text "a follow-up"
send
# not a fork: the follow-up is a child of the first reply (ids are never
# given twice: the cancelled message's turns took some)
R1=$(q "$TMP/esc.db" "select id from turns where role=2 order by id limit 1")
[ -n "$R1" ] && [ "$(q "$TMP/esc.db" "select parent_id from turns where text='a follow-up'")" = "$R1" ] && ok \
    || fail "Esc did not leave edit mode: $(q "$TMP/esc.db" 'select id,parent_id,role,substr(text,1,20) from turns')"
# --- C-u in edit mode clears the text and stays there: a rewrite forks ----------------
keys M-e
check "edit mode again" '^\* a follow-up'
keys C-u
check "C-u cleared the text, still editing" '^\* (Type a message.*)? *$'
check_not "C-u did not cancel" 'edit cancelled' 1
type_text "rewritten"
send
# a fork at the edited message's parent (the first reply), beside it
[ -n "$R1" ] && [ "$(q "$TMP/esc.db" "select parent_id from turns where text='rewritten'")" = "$R1" ] && ok \
    || fail "C-u left edit mode: $(q "$TMP/esc.db" 'select id,parent_id,role,substr(text,1,20) from turns')"
tui_quit

# --- a replay shows progress, can be cancelled, and then finishes ---------------------
# (a 0.1B-shaped random model, so that replaying takes seconds; World vocabulary)
RDB=$TMP/replay.db
if have_fixture rwkv_vocab_v20230424.txt 7; then
    V=$FX/rwkv_vocab_v20230424.txt
    "$T" bench --shape 0.1b --save "$TMP/m01.pth" >/dev/null 2>&1 || fail "bench --save 0.1b"
    printf 'one\ntwo\nthree\n' | RWKV_WEIGHT_CACHE=0 "$T" chat --model "$TMP/m01.pth" --vocab "$V" \
        --db "$RDB" --new replayed --max-tokens 150 --seed 3 --stop QQQZZZ >/dev/null 2>&1 \
        || fail "making the session to replay"
    before=$("$T" sessions --db "$RDB" export 1 --format json | grep -v '"updated_ms"')
    # another precision: the saved states cannot be used, so the client replays
    NODEMO=1 NOWAIT=1 TUI_ENV="RWKV_WEIGHT_CACHE=0" tui_start --model "$TMP/m01.pth" --vocab "$V" \
        --db "$RDB" --session 1 --strategy "'cpu bf16'" --threads 1
    check "replay progress" 'replaying'
    keys Escape
    check "replay cancelled" 'cancelled: nothing changed'
    after=$("$T" sessions --db "$RDB" export 1 --format json | grep -v '"updated_ms"')
    [ "$before" = "$after" ] && ok || fail "a cancelled replay changed the session"
    keys F2 Enter
    check "replay again" 'replaying'
    wait_idle 1200
    check "replayed and resumed" 'replayed [0-9]+ tokens|not used'
    tui_quit
fi

# --- the chat's framing options (as the line chat's): --no-greeting, --stop -------------
tui_start --no-greeting --stop '"QQQ"' --max-tokens 6 --db "$TMP/frame.db"
type_text "no greeting here"
send
tui_quit
[ "$(q "$TMP/frame.db" 'select count(*) from turns where role=0')" = 0 ] && ok \
    || fail "--no-greeting: a greeting turn was saved"
[ "$(q "$TMP/frame.db" 'select count(*) from turns where role=2')" = 1 ] && ok || fail "--no-greeting: no reply"

# --- --session of a missing session: one line, non-zero --------------------------------
printf 'hi\n' | "$T" chat --demo --db "$TMP/s99.db" --max-tokens 2 >/dev/null 2>&1
"$T" --demo --db "$TMP/s99.db" --session 99 >/dev/null 2>"$TMP/s99.err" </dev/null
rc=$?
[ $rc != 0 ] && grep -q 'no session 99' "$TMP/s99.err" && ok || fail "--session 99 ($rc): $(cat "$TMP/s99.err")"

# --- with real checkpoints: model switch, another model's session, the state label -------
if have_fixture models/tiny-6v0-fp32.pth 9 && have_fixture states/state-7v0-A.pth 9; then
    M=$FX/models
    MDB=$TMP/models.db
    export RWKV_WEIGHT_CACHE=0
    NODEMO=1 tui_start --model "$M/tiny-7v0-fp32.pth" --db "$MDB" --max-tokens 6 --seed 1
    keys F5
    check "models menu" 'Models'
    type_text "tiny-6v0-fp32"
    keys Enter
    check "switched model" 'tiny-6v0-fp32\.pth \| cpu fp32'
    wait_idle
    type_text "after the switch"
    send
    tui_quit
    p=$(q "$MDB" "select m.path from sessions s join models m on m.id=s.model_id where s.title='after the switch'")
    case $p in *tiny-6v0-fp32.pth) ok ;; *) fail "model recorded after F5: '$p'" ;; esac
    # the line chat resumes it under that model, with no --model
    printf 'go on\n' | "$T" chat --db "$MDB" --resume --max-tokens 4 >/dev/null 2>"$TMP/r.err" \
        && grep -q 'resumed session' "$TMP/r.err" && ok || fail "chat --resume: $(cat "$TMP/r.err")"
    # that session (RWKV-6) opened in a client running RWKV-7: it asks to load
    # that model first (tests/tui/f2_other_model.sh); n changes nothing
    NODEMO=1 tui_start --model "$M/tiny-7v0-fp32.pth" --db "$MDB" --max-tokens 6
    keys F2
    check "sessions menu" 'Sessions'
    type_text "after the switch"
    keys Enter
    check "another model: asks to load it" 'was made with .*tiny-6v0-fp32\.pth \(RWKV-6\.0, [0-9]+ layers\): load it'
    keys n
    check "nothing opened" 'session: new'
    tui_quit
    # the state label follows the session: a session without a state file opened
    # in a client started with --state says "none", and the next new chat uses none
    printf 'plain\n' | "$T" chat --model "$M/tiny-7v0-fp32.pth" --db "$TMP/st.db" --new plain \
        --max-tokens 4 >/dev/null 2>&1
    NODEMO=1 tui_start --model "$M/tiny-7v0-fp32.pth" --state "$FX/states/state-7v0-A.pth" \
        --db "$TMP/st.db" --max-tokens 4
    check "label: the state file" 'state: state-7v0-A\.pth'
    keys F2 Enter
    check "opened the plain session" '^  plain'
    check "label: none" 'state: none'
    keys C-n
    type_text "fresh"
    send
    tui_quit
    [ "$(q "$TMP/st.db" "select ifnull(state_file_id,0) from sessions where title='fresh'")" = 0 ] \
        && ok || fail "the new chat used the stale state file"
fi
tui_finish
