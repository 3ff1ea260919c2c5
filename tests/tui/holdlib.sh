# tests/tui/holdlib.sh -- the instant between the client queueing a worker
# job and the worker thread beginning it, made on purpose (sourced after
# tmuxlib.sh; the name ends in lib.sh so tests/run.sh does not run it).  A
# person hits that instant by chance, so gdb makes it (tests/cli/holdlib.sh):
# the worker thread is stopped where it begins (worker_main, before its first
# call into the runtime) while the UI thread alone runs and takes the cancel
# key -- until cancel_or_close has said "cancelling..." (after sess_cancel and
# the client's own flag) -- then everything goes on.
#
#   hold_gdb N WHAT     no gdb: N checks skipped (WHAT is not driven), finish, exit
#   held KEYS CANCEL [BREAK UNTIL...]
#                       KEYS start a job; CANCEL is pressed while its worker is
#                       held; with BREAK, the worker is held where it enters
#                       BREAK and the UI thread runs until UNTIL (default:
#                       worker_main, sess_cancel then tui_notice).  1 when
#                       gdb could not attach (hold_why says why)
#   held_or_end N KEYS CANCEL [BREAK UNTIL...]
#                       held; when gdb could not attach, N checks skipped
#                       (hold_why says why), the client quit, the test ends
#   hold_draws FILE     a script (hold_run) holding a job's worker while the UI
#                       thread alone runs and redraws: the Python read from
#                       stdin sets the break points that stop the worker
#                       (gdb.Breakpoint subclasses; "ready" is touched after
#                       it); once one stops it ($TMP/hit) the UI thread alone
#                       runs, through tui_view_draw, until $TMP/go exists;
#                       then everything goes on ($TMP/done)
#   hold_why            gdb's line saying why it could not attach
#   tui_pid             the client's process id (for hold_run)
#   hold_nothread FILE  a script (hold_run) making the next pthread_create
#                       called by tui_worker_start fail with EAGAIN, as when
#                       the process is out of threads ($TMP/failed once done)
. "$(dirname "${BASH_SOURCE[0]}")/../cli/holdlib.sh"

tui_pid() { pgrep -P "$(tmx display -p '#{pane_pid}')" | head -1; }

held() {
    local start=$1 cancel=$2
    shift 2
    [ $# -gt 0 ] || set -- worker_main sess_cancel tui_notice
    hold_start "$(tui_pid)" "$@" || return 1
    keys $start
    hold_hit || fail "$start: the worker never reached $1"
    keys $cancel
    hold_end
    return 0
}

held_or_end() {
    local n=$1
    shift
    held "$@" && return 0
    skip "$n" "gdb could not attach: $(hold_why)"
    tui_quit
    tui_finish
    exit
}

hold_draws() {
    {
        cat
        cat <<'EOF'
class Go(gdb.Breakpoint):
    # the UI thread redraws until the test says go
    def stop(self):
        return os.path.exists(os.path.join(tmp, "go"))
touch("ready")
gdb.execute("continue")                 # the job's worker is there: all stop
touch("hit")
gdb.execute("delete")
gdb.execute("set scheduler-locking on")
gdb.execute("thread 1")                 # the UI thread alone ...
Go("tui_view_draw")
gdb.execute("continue")                 # ... until the test says go
gdb.execute("set scheduler-locking off")
touch("done")
EOF
    } | hold_script "$1"
}

hold_nothread() {
    hold_script "$1" <<'EOF'
gdb.execute("break pthread_create")
touch("ready")
while True:
    gdb.execute("continue")
    up = gdb.selected_frame().older()
    if up is not None and up.name() == "tui_worker_start":
        break
gdb.execute("return (int) 11")
touch("failed")
EOF
}
