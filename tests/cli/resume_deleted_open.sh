#!/usr/bin/env bash
# tests/cli/resume_deleted_open.sh -- a session deleted elsewhere (`sessions
# rm`) while `chat --session ID` is still reading it -- its row, framing and
# branch, the first moments of the open, before the replay -- goes on as one
# deleted during the replay does (resume_deleted_replay.sh): its turns saved
# in a new session, said in one line, exit status 0.  It used to end the
# chat at once: "chat: ...: no turn N" (or "no session 1"), exit status 1.
# gdb starts the chat and holds it where the open reads (holdlib.sh's way:
# the instant a person hits by chance, made on purpose), once in the read of
# the branch and once before it, in the read of the framing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/holdlib.sh"
T=$RWKV_TUI
N_CHECKS=10

# opened_deleted BREAK CALLER: a chat resuming session 1 of a fresh copy of
# the three-exchange session, held by gdb where CALLER calls BREAK, while
# `sessions rm 1` runs; then two messages, the end.  Four checks.
opened_deleted() {
    local brk=$1 caller=$2 out
    rm -f "$TMP/a.db" "$TMP/in" "$TMP/hit" "$TMP/go" "$TMP/out" "$TMP/err"
    "$T" sessions --db "$TMP/a.db" import "$TMP/s.json" >/dev/null 2>&1
    mkfifo "$TMP/in"
    cat >"$TMP/open.gdb" <<EOF
gdb.execute("break $brk")
gdb.execute("run chat --db %s/a.db --session 1 --model $M --threads 1 --max-tokens 3 --seed 1"
            " <%s/in >%s/out 2>%s/err" % (tmp, tmp, tmp, tmp))
while True:                             # the open's own call of BREAK
    up = gdb.selected_frame().older()
    if up is not None and up.name() == "$caller":
        break
    gdb.execute("continue")
EOF
    hold_run_chat "$TMP/open.gdb"       # the test deletes the session meanwhile
    local g=$HOLD_RUN_PID
    exec 7>"$TMP/in"
    if ! poll test -e "$TMP/hit"; then
        exec 7>&-
        wait $g
        fail "$brk: the open never reached it: $(tail -5 "$TMP/gdb.log") $(cat "$TMP/err")"
        return
    fi
    "$T" sessions --db "$TMP/a.db" rm 1 >/dev/null 2>&1 && ok || fail "$brk: sessions rm during the open"
    touch "$TMP/go"
    printf 'first after\nsecond after\n' >&7
    exec 7>&-
    wait $g
    grep -q 'exited normally' "$TMP/gdb.log" && ok ||
        fail "$brk: exit status: $(grep -m1 exited "$TMP/gdb.log") $(cat "$TMP/err")"
    if [ "$(chat_replies)" = 2 ] &&
        grep -q '^rwkv-tui: session 1 was deleted elsewhere: this conversation goes on as session 2$' \
            "$TMP/err" && ! grep -Eq 'no turn|no session' "$TMP/err"; then
        ok
    else
        fail "$brk: not said as a deletion, or not both answered: $(cat "$TMP/err") / $(cat "$TMP/out")"
    fi
    # the whole conversation kept: 6 turns read, 4 written
    out=$("$T" sessions --db "$TMP/a.db" list 2>&1)
    printf '%s\n' "$out" | grep -Eq '^ +2 .* 10  three talks$' && ok ||
        fail "$brk: the conversation not saved as session 2: $out"
}

if have_fixture models/tiny-7v0-fp32.pth $N_CHECKS; then
    hold_gdb $N_CHECKS "the deletion during the open"
    M=$(realpath "$FX/models/tiny-7v0-fp32.pth")
    # three exchanges, no states (an import): the open reads, then replays
    python3 - "$TMP/s.json" <<'EOF'
import json, sys
turns, parent, nid = [], None, 1
for i in range(3):
    u = "message %d about pangolins" % i
    framed = ("" if i == 0 else "\n\n") + "User: " + u + "\n\nAssistant:"
    turns.append({"id": nid, "parent": parent, "role": "user", "text": u,
                  "tokens": list(framed.encode()), "time_ms": 1700000000000 + nid})
    parent, nid = nid, nid + 1
    a = " Reply %d: they dig." % i
    turns.append({"id": nid, "parent": parent, "role": "assistant", "text": a,
                  "tokens": list(a.encode()), "time_ms": 1700000000000 + nid})
    parent, nid = nid, nid + 1
json.dump({"format": "rwkv-tui-session", "version": 1, "title": "three talks",
           "created_ms": 1700000000000, "strategy": "cpu fp32", "model": None,
           "head": parent, "turns": turns}, open(sys.argv[1], "w"))
EOF
    # deleted while the branch is read (its turns) ...
    opened_deleted store_branch_read sess_load_branch
    # ... and before, while the session's framing is read
    opened_deleted store_session_framing open_framing
    # a session deleted before the open began is no session to resume
    "$T" sessions --db "$TMP/a.db" rm 2 >/dev/null 2>&1
    printf 'hi\n' | "$T" chat --db "$TMP/a.db" --session 2 --model "$M" --max-tokens 2 \
        >/dev/null 2>"$TMP/err"
    [ $? = 1 ] && grep -q 'no session 2' "$TMP/err" && ok ||
        fail "a deleted session resumed: $(cat "$TMP/err")"
    # (and the chat held nothing open: the file is whole)
    "$T" sessions --db "$TMP/a.db" list >/dev/null 2>&1 && ok || fail "the database after the runs"
fi
finish
