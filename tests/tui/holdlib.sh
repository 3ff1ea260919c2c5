# tests/tui/holdlib.sh -- the instant between the client queueing a worker
# job and the worker thread beginning it, made on purpose (sourced after
# tmuxlib.sh; the name ends in lib.sh so tests/run.sh does not run it).  A
# person hits that instant by chance, so gdb makes it: the worker thread is
# stopped where it begins (worker_main, before its first call into the
# runtime) while the UI thread alone runs and takes the cancel key -- until
# cancel_or_close has said "cancelling..." (after sess_cancel and the
# client's own flag) -- then everything goes on.
#
#   hold_gdb N WHAT     no gdb: N checks skipped (WHAT is not driven), finish, exit
#   held KEYS CANCEL    KEYS start a job; CANCEL is pressed while its worker is
#                       held.  1 when gdb could not attach (hold_why says why)
#   hold_why            gdb's line saying why it could not attach

hold_gdb() {
    command -v gdb >/dev/null 2>&1 && return 0
    skip "$1" "gdb not found: $2 is not driven in the client"
    finish
    exit
}

hold_why() { grep -m1 -iE 'ptrace|error|python' "$TMP/gdb.log"; }

cat >"$TMP/hold.gdb" <<'EOF'
set pagination off
set confirm off
python
import gdb, os
tmp = os.environ["HOLD_TMP"]
def touch(name):
    open(os.path.join(tmp, name), "w").close()
try:
    gdb.execute("attach " + os.environ["HOLD_PID"])
except gdb.error:
    touch("noattach")
    raise
gdb.execute("break worker_main")
touch("ready")
gdb.execute("continue")                 # the job is queued, its thread begins: all stop
touch("hit")
gdb.execute("set scheduler-locking on")
gdb.execute("thread 1")                 # the UI thread alone ...
gdb.execute("tbreak sess_cancel")
gdb.execute("continue")                 # ... until it takes the cancel
gdb.execute("tbreak tui_notice")
gdb.execute("continue")                 # ("cancelling...": the client's flag is set too)
gdb.execute("finish")
gdb.execute("set scheduler-locking off")
gdb.execute("delete")
gdb.execute("detach")                   # the worker begins the job, cancelled
end
EOF

held() {
    local pid i
    rm -f "$TMP/ready" "$TMP/hit" "$TMP/noattach"
    pid=$(pgrep -P "$(tmx display -p '#{pane_pid}')" | head -1)
    HOLD_TMP=$TMP HOLD_PID=$pid timeout 120 gdb -nx -batch -x "$TMP/hold.gdb" >"$TMP/gdb.log" 2>&1 &
    for i in $(seq 300); do
        [ -e "$TMP/ready" ] || [ -e "$TMP/noattach" ] && break
        sleep 0.1
    done
    if [ ! -e "$TMP/ready" ]; then
        wait
        return 1
    fi
    keys $1
    poll test -e "$TMP/hit" || fail "the worker never began the job"
    keys $2
    wait
    return 0
}
