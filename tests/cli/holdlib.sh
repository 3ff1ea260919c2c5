# tests/cli/holdlib.sh -- an instant a person hits only by chance, made on
# purpose: gdb attaches to the real binary and stops it where a thread
# enters a function (sourced after lib.sh or tmuxlib.sh; the name ends in
# lib.sh so tests/run.sh does not run it).  tests/tui/holdlib.sh drives it
# from the full-screen client's keys.
#
#   hold_gdb N WHAT [TOOL...]  no gdb (or no TOOL): N checks skipped (WHAT is
#                       not driven), finish, exit
#   hold_start PID BREAK [UNTIL...]
#                       gdb attaches to PID and breaks on the function
#                       BREAK; 0 once the break point is set (PID runs on),
#                       1 when gdb could not attach (hold_why says why).
#                       When a thread enters BREAK every thread stops; then
#                       with UNTIL (functions) the UI thread (thread 1) alone
#                       runs until it has entered each in turn and returned
#                       from the last, and everything goes on; without UNTIL
#                       everything stays stopped until hold_end (a signal
#                       sent meanwhile is delivered after)
#   hold_hit            0 once a thread stopped at BREAK, 1 when none did (~60 s)
#   hold_end            let everything go on; returns once gdb has detached
#   hold_why            gdb's line saying why it could not attach
#   hold_script FILE    a script of a test's own into FILE: gdb attaches, passes
#                       SIGINT on, runs the Python read from stdin (at the left
#                       margin; touch(NAME) makes $TMP/NAME, and "ready" must
#                       be touched once its break points are set), then
#                       deletes them and detaches
#   hold_run PID FILE   run that script on PID in the background; 0 once it
#                       is ready, 1 when gdb could not attach (hold_why);
#                       hold_wait waits for its end
#   hold_int BREAK LINE N
#                       the line chat of chat_bg ($pid, its input on fd 3):
#                       LINE is sent, the chat held where it enters BREAK,
#                       SIGINT sent, and everything goes on; when gdb could
#                       not attach, N checks skipped, finish, exit

# hold_run_chat FILE: gdb RUNS the binary (not attached).  FILE holds the
# middle of a Python block (tmp, os, time, gdb and touch(NAME) defined) that
# runs the chat and brings it where the test wants it; this adds the head
# (gdb's settings, those names) and the end -- touch "hit", wait up to 60 s
# for $TMP/go (the test acts meanwhile), delete the break points, run the
# chat to its end -- and starts gdb in the background (HOLD_RUN_PID; its log
# $TMP/gdb.log).  LeakSanitizer cannot run under ptrace, and the chat exits
# under gdb: a sanitizer build's leak check is off.
hold_run_chat() {
    {
        cat <<EOF2
set pagination off
set confirm off
set breakpoint pending on
python
import gdb, os, time
tmp = "$TMP"
def touch(name):
    open(os.path.join(tmp, name), "w").close()
EOF2
        cat "$1"
        cat <<'EOF2'
touch("hit")
for i in range(600):
    if os.path.exists(os.path.join(tmp, "go")):
        break
    time.sleep(0.1)
gdb.execute("delete")
gdb.execute("continue")                 # to the end
end
EOF2
    } >"$1.gdb"
    [ -n "${RWKV_ASAN:-}" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    timeout 120 gdb -nx -batch -x "$1.gdb" "$RWKV_TUI" >"$TMP/gdb.log" 2>&1 &
    HOLD_RUN_PID=$!
}

hold_gdb() {
    local n=$1 what=$2 t
    shift 2
    set -- gdb "$@"
    for t in "$@"; do
        command -v "$t" >/dev/null 2>&1 && continue
        t="$*"
        skip "$n" "${t// / or } not found: $what is not driven"
        finish
        exit
    done
}

hold_why() { grep -m1 -iE 'ptrace|error|python' "$TMP/gdb.log"; }

hold_script() {
    {
        cat <<'EOF'
set pagination off
set confirm off
python
import gdb, os, time
tmp = os.environ["HOLD_TMP"]
def touch(name):
    open(os.path.join(tmp, name), "w").close()
try:
    gdb.execute("attach " + os.environ["HOLD_PID"])
except gdb.error:
    touch("noattach")
    raise
gdb.execute("handle SIGINT nostop noprint pass")    # a test's kill -INT is the program's
EOF
        cat
        printf '%s\n' 'gdb.execute("delete")' \
            'gdb.execute("detach")                   # everything goes on' end
    } >"$1"
}

hold_script "$TMP/hold.gdb" <<'EOF'
until = os.environ["HOLD_UNTIL"].split()
gdb.execute("break " + os.environ["HOLD_BREAK"])
touch("ready")
gdb.execute("continue")                 # a thread enters BREAK: all stop
touch("hit")
if until:
    gdb.execute("set scheduler-locking on")
    gdb.execute("thread 1")             # the UI thread alone ...
    for fn in until:
        gdb.execute("tbreak " + fn)
        gdb.execute("continue")         # ... until it has entered each ...
    gdb.execute("finish")               # ... and returned from the last
    gdb.execute("set scheduler-locking off")
else:
    for i in range(600):                # the test acts meanwhile (hold_end)
        if os.path.exists(os.path.join(tmp, "go")):
            break
        time.sleep(0.1)
EOF

hold_run() {
    rm -f "$TMP/ready" "$TMP/hit" "$TMP/noattach" "$TMP/go"
    HOLD_TMP=$TMP HOLD_PID=$1 HOLD_BREAK=${HOLD_BREAK:-} HOLD_UNTIL=${HOLD_UNTIL:-} \
        timeout 120 gdb -nx -batch -x "$2" >"$TMP/gdb.log" 2>&1 &
    _hold_gdb=$!
    poll test -e "$TMP/ready" -o -e "$TMP/noattach"
    [ -e "$TMP/ready" ] && return 0
    wait $_hold_gdb
    return 1
}

hold_wait() { wait $_hold_gdb; }

hold_start() {
    local pid=$1 brk=$2
    shift 2
    HOLD_BREAK=$brk HOLD_UNTIL="$*" hold_run "$pid" "$TMP/hold.gdb"
}

hold_hit() { poll test -e "$TMP/hit"; }

hold_end() { touch "$TMP/go"; hold_wait; }

hold_int() {
    if ! hold_start $pid "$1"; then
        exec 3>&-
        wait $pid
        skip "$3" "gdb could not attach: $(hold_why)"
        finish
        exit
    fi
    printf '%s\n' "$2" >&3
    hold_hit || fail "the chat never entered $1"
    kill -INT $pid
    hold_end
}
