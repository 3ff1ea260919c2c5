# tests/cli/lib.sh -- helpers for shell tests of the real binary.
# Source it; call ok/fail (or check CMD...), end with `finish`.
# Checks that need the reference fixtures go under `if have_fixture REL N`
# (N = how many checks that block makes): without the fixture they are
# counted as skipped -- or failed when CI is set (see docs/testing.md).
set -u
RWKV_TUI=${RWKV_TUI:-$PWD/rwkv-tui}
# the binary's English (the full-screen client follows LANGUAGE, which
# would win over the tests' own LC_ALL): a developer's Chinese desktop passes
unset LANGUAGE LC_MESSAGES
FX=${RWKV_FIXTURES:-../shared/fixtures}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rwkv-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# the default session database (XDG_DATA_HOME/rwkv-tui) goes here, never to
# the developer's own: a test running a chat without --db wrote a session
# there, and what is there (the no-model line's hint of saved sessions)
# changed what the next run of another test read.  A test of the default
# place sets its own.
export XDG_DATA_HOME=$TMP/data
_pass=0
_fail=0
_skip=0
ok()   { _pass=$((_pass + 1)); }
fail() { _fail=$((_fail + 1)); echo "FAIL ${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]}: $*"; }
# skip N REASON: N checks not run, one SKIP line.
skip() { _skip=$((_skip + $1)); shift; echo "SKIP $*"; }
# have_fixture REL N: 0 when $FX/REL exists; otherwise N checks are counted
# as skipped (CI set: one failure) and it returns 1.
have_fixture() {
    [ -e "$FX/$1" ] && return 0
    if [ -n "${CI:-}" ]; then
        _fail=$((_fail + 1))
        echo "FAIL ${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]}: fixture $FX/$1 missing and CI is set (set RWKV_FIXTURES=DIR)"
    else
        skip "$2" "($2) fixture $FX/$1 not found (reference fixtures come from RWKV_FIXTURES)"
    fi
    return 1
}
# is_root: permission checks cannot fail for root; tests skip them then.
is_root() { [ "$(id -u)" = 0 ]; }
# expect_fail DESC PATTERN CMD... : CMD exits non-zero, stderr is exactly one
# line matching PATTERN (extended regex), and nothing crashed.
expect_fail() {
    local desc=$1 pat=$2; shift 2
    local err rc n
    err=$("$@" 2>&1 >/dev/null)
    rc=$?
    n=$(printf '%s' "$err" | grep -c '')
    if [ $rc -eq 0 ]; then fail "$desc: exit 0"; return; fi
    if [ $rc -ge 128 ]; then fail "$desc: crashed (exit $rc): $err"; return; fi
    if [ "$n" != 1 ]; then fail "$desc: $n stderr lines: $err"; return; fi
    if ! printf '%s' "$err" | grep -Eq -- "$pat"; then fail "$desc: stderr '$err' !~ /$pat/"; return; fi
    ok
}
# poll CMD...: run CMD every 0.1 s until it succeeds (0) or ~60 s pass (1):
# a condition waited for, never a fixed pause.
poll() {
    local i
    for i in $(seq 600); do "$@" && return 0; sleep 0.1; done
    return 1
}
# chat_bg ARGS...: `rwkv-tui chat ARGS` in the background, its stdin the FIFO
# $TMP/in (written through fd 3; exec 3>&- is its EOF), its output in
# $TMP/out and $TMP/err; $pid is its process id.
chat_bg() {
    rm -f "$TMP/in"
    mkfifo "$TMP/in"
    "$RWKV_TUI" chat "$@" <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    exec 3>"$TMP/in"
}
# chat_replies: how many replies a chat has printed to $TMP/out (chat_bg's,
# or one run >"$TMP/out"): its "Assistant:" lines; chat_replied N: N or more
# (a condition for poll: read afresh each time).
chat_replies() { grep -c '^Assistant:' "$TMP/out"; }
chat_replied() { [ "$(chat_replies)" -ge "$1" ]; }
# chat_hello ARGS...: chat_bg ARGS, then the message "hello": 0 once its
# reply is printed, 1 when none came (~60 s).
chat_hello() {
    chat_bg "$@"
    printf 'hello\n' >&3
    poll chat_replied 1
}
# tiny_or_demo: the options for the tiny RWKV-7 fixture model, or --demo
# where it is missing and CI is not set (have_fixture models/tiny-7v0-fp32.pth 0
# in the test says so, or fails under CI).
tiny_or_demo() {
    if [ -e "$FX/models/tiny-7v0-fp32.pth" ] || [ -n "${CI:-}" ]; then
        printf '%s\n' "--model $FX/models/tiny-7v0-fp32.pth"
    else
        printf '%s\n' --demo
    fi
}
# full_disk_mnt N: MNT=$TMP/mnt, an 8 MiB tmpfs mounted there for a disk
# that fills up (unmounted at exit); not root, or mount(8) failed: N checks
# skipped and the test ends.
full_disk_mnt() {
    MNT=$TMP/mnt
    mkdir -p "$MNT"
    if ! is_root || ! mount -t tmpfs -o size=8m tmpfs "$MNT" 2>/dev/null; then
        skip "$1" "a full disk needs a tmpfs: not root, or mount failed"
        finish
        exit
    fi
    trap 'umount "$MNT" 2>/dev/null; rm -rf "$TMP"' EXIT
}
# rc_is DESC RC PATTERN CMD...: exit status RC, one stderr line matching
# PATTERN, nothing on stdout.  Two checks.
rc_is() {
    local desc=$1 want=$2 pat=$3 rc
    shift 3
    "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    [ "$rc" = "$want" ] && ok || fail "$desc: exit $rc, not $want ($(cat "$TMP/err"))"
    if [ "$(grep -c '' "$TMP/err")" = 1 ] && grep -Eq -- "$pat" "$TMP/err" && [ ! -s "$TMP/out" ]; then
        ok
    else
        fail "$desc: stderr '$(cat "$TMP/err")' !~ /$pat/ (stdout: $(head -c 200 "$TMP/out"))"
    fi
}
# hold_lock DB: another program (python3's sqlite3) takes DB's write lock
# (BEGIN EXCLUSIVE) and holds it, so the binary's saves wait out their busy
# time and fail, until release_lock; 0 once it is held, 1 when it was not
# taken (~60 s).  It has no fd 3 or 4: a chat's stdin FIFO written through
# them still gets its EOF when the test closes them.
hold_lock() {
    rm -f "$TMP/locked" "$TMP/release"
    python3 - "$1" "$TMP" 3>&- 4>&- <<'EOF' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
open(os.path.join(sys.argv[2], "locked"), "w").close()
while not os.path.exists(os.path.join(sys.argv[2], "release")):
    time.sleep(0.05)
db.execute("ROLLBACK")
EOF
    _locker=$!
    poll test -e "$TMP/locked"
}
# delete_turn DB TURN: another program (python3's sqlite3) deletes TURN and
# every turn under it, the session's head moved to its parent (what
# store_turn_prune does: F6's delete in another window).  No fd 3 or 4.
delete_turn() {
    python3 - "$1" "$2" 3>&- 4>&- <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
t = int(sys.argv[2])
ids, todo = [], [t]
while todo:
    i = todo.pop()
    ids.append(i)
    todo += [r[0] for r in db.execute("SELECT id FROM turns WHERE parent_id=?", (i,))]
sid, parent = db.execute("SELECT session_id, parent_id FROM turns WHERE id=?", (t,)).fetchone()
q = ",".join("?" * len(ids))
db.execute("DELETE FROM snapshots WHERE turn_id IN (%s)" % q, ids)
db.execute("UPDATE turns SET parent_id=NULL WHERE id IN (%s)" % q, ids)
db.execute("DELETE FROM turns WHERE id IN (%s)" % q, ids)
db.execute("UPDATE sessions SET head_turn=? WHERE id=?", (parent, sid))
db.commit()
EOF
}
# sql_rows DB SQL: the rows (python3's sqlite3, no sqlite3 tool needed), one
# a line, columns joined by '|'; a write is committed.  No fd 3.
sql_rows() {
    python3 - "$1" "$2" 3>&- <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for row in db.execute(sys.argv[2]).fetchall():
    print("|".join(str(c) for c in row))
db.commit()
EOF
}
# rows_are DB SQL WANT: SQL's rows on DB read WANT -- a condition poll runs
# afresh each time (poll test "$(sql_rows ...)" = 1 reads the rows once)
rows_are() { test "$(sql_rows "$1" "$2" 2>/dev/null)" = "$3"; }
# n_sessions DB: the number of sessions in DB (0: no file)
n_sessions() {
    [ -e "$1" ] || { echo 0; return; }
    sql_rows "$1" "SELECT count(*) FROM sessions"
}
# has_rows DB SQL: SQL reads a row on DB (for poll, as rows_are)
has_rows() { test -n "$(sql_rows "$1" "$2" 2>/dev/null)"; }
# partial_saved DB: turn 5 (a reply streaming in another process, after a
# one-exchange session's greeting, message and reply) is saved with more than
# 20 tokens and still begun.
partial_saved() {
    local n
    n=$(sql_rows "$1" 'select length(tokens)/4 from turns where id=5 and interrupted=1' 2>/dev/null)
    [ -n "$n" ] && [ "$n" -gt 20 ]
}
# end_cut DB S: the chat_bg chat, its stdin closed after a last message,
# ends; that message's reply, streaming in session S, is cut by SIGINT once
# it does, unless it ended first (the demo model's replies may go on for
# ever, and where the reply before was cut decides which).  Returns the
# chat's exit status.
end_cut() {
    poll _cut_or_gone "$1" "$2"
    kill -INT $pid 2>/dev/null
    wait $pid
}
_cut_or_gone() {
    case "$(ps -o stat= -p $pid 2>/dev/null)" in ''|Z*) return 0 ;; esac
    [ "$(sql_rows "$1" "select count(*) from turns where session_id=$2 and interrupted=1 and length(tokens)>0" 2>/dev/null)" -gt 0 ] 2>/dev/null
}
# release_lock: the lock hold_lock took is let go; returns once it is.
release_lock() { touch "$TMP/release"; wait $_locker; }
finish() {
    if [ $_skip -gt 0 ]; then echo "$_pass passed, $_fail failed, $_skip skipped"
    else echo "$_pass passed, $_fail failed"; fi
    [ $_fail = 0 ]
}

# zoo_db DB: a session "Zoo" of 40 turns imported into DB (a search for
# "zoo" finds every turn; no model needed)
zoo_db() {
    python3 - "$TMP/zoo.json" <<'PY'
import json, sys
turns = [{"id": i, "parent": i - 1 or None, "role": "user" if i % 2 else "assistant",
          "text": "message %d from the zoo about pangolins number %d" % (i, i * 7),
          "time_ms": 1700000000000 + i} for i in range(1, 41)]
json.dump({"format": "rwkv-tui-session", "version": 1, "title": "Zoo", "created_ms": 1700000000000,
           "strategy": "cpu fp32", "model": None, "turns": turns}, open(sys.argv[1], "w"))
PY
    "$RWKV_TUI" sessions --db "$1" import "$TMP/zoo.json" >/dev/null 2>"$TMP/zoo.err" && ok ||
        fail "import: $(cat "$TMP/zoo.err")"
}
