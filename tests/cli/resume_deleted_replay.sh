#!/usr/bin/env bash
# tests/cli/resume_deleted_replay.sh -- a session deleted elsewhere (`sessions
# rm`, F2 in another window) while `chat --session ID` replays it (a long
# session imported without states: minutes for a large model): the chat goes
# on, its turns saved in a new session, said in one line -- as when the
# session is deleted at any later time.  It used to die once the replay was
# done: "saving the branch position: ...: turn N is not in session 1 (the
# chat goes on)", then "chat: ...: no turn N", exit status 1, every message
# typed meanwhile lost.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI

# cpu_ticks PID: the user + system CPU time of PID, in clock ticks
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

if have_fixture models/tiny-7v0-fp32.pth 5; then
    M=$FX/models/tiny-7v0-fp32.pth
    # 600 exchanges, no states: the resume replays ~40k tokens (seconds)
    python3 - "$TMP/long.json" <<'EOF'
import json, sys
turns, parent, nid = [], None, 1
for i in range(600):
    u = "message %d about pangolins and their burrows" % i
    framed = ("" if i == 0 else "\n\n") + "User: " + u + "\n\nAssistant:"
    turns.append({"id": nid, "parent": parent, "role": "user", "text": u,
                  "tokens": list(framed.encode()), "time_ms": 1700000000000 + nid})
    parent, nid = nid, nid + 1
    a = " Reply %d: they dig, and sleep in the day." % i
    turns.append({"id": nid, "parent": parent, "role": "assistant", "text": a,
                  "tokens": list(a.encode()), "time_ms": 1700000000000 + nid})
    parent, nid = nid, nid + 1
json.dump({"format": "rwkv-tui-session", "version": 1, "title": "long talk",
           "created_ms": 1700000000000, "strategy": "cpu fp32", "model": None,
           "head": parent, "turns": turns}, open(sys.argv[1], "w"))
EOF
    "$T" sessions --db "$TMP/a.db" import "$TMP/long.json" >/dev/null 2>&1
    mkfifo "$TMP/in"
    "$T" chat --db "$TMP/a.db" --session 1 --model "$M" --threads 1 --max-tokens 3 --seed 1 \
        <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    exec 7>"$TMP/in"
    # the session read (the database open, then CPU time spent: the replay),
    # the chat held still while another program deletes the session
    poll eval 'ls -l /proc/$pid/fd 2>/dev/null | grep -q a.db'
    # (0.3 s of CPU; a sanitizer build is several times slower and would still
    # be reading the branch then, before the replay this test is about)
    ticks=30; [ -n "${RWKV_ASAN:-}" ] && ticks=200
    poll eval '[ "$(cpu_ticks $pid)" -ge $ticks ]'
    kill -STOP $pid
    "$T" sessions --db "$TMP/a.db" rm 1 >/dev/null 2>&1 && ok || fail "sessions rm during the replay"
    kill -CONT $pid
    printf 'first after\nsecond after\n' >&7
    exec 7>&-
    wait $pid
    rc=$?
    [ $rc = 0 ] && ok || fail "exit status $rc: $(cat "$TMP/err")"
    [ "$(chat_replies)" = 2 ] && ok || fail "not both messages answered: $(cat "$TMP/out")"
    if grep -q '^rwkv-tui: session 1 was deleted elsewhere: this conversation goes on as session 2$' \
        "$TMP/err" && ! grep -Eq 'no turn|branch position' "$TMP/err"; then
        ok
    else
        fail "not said as a deletion: $(cat "$TMP/err")"
    fi
    out=$("$T" sessions --db "$TMP/a.db" list 2>&1)
    printf '%s\n' "$out" | grep -Eq '^ +2 .* 1204  long talk$' && ok ||
        fail "the conversation not saved as session 2: $out"
fi
finish
