#!/usr/bin/env bash
# tests/tui/replay_status.sh -- the status line while a replay runs.
#   An open (F2, as --session/--resume at start) that replays: the line said
#   "session: new | 169 tok" (the session left, its greeting) until the open
#   ended, then jumped to the session and its count -- a user reads "new" as
#   "my chat was lost".  Now it names the session being opened, with the
#   tokens its branch holds (tui/session.c, open_target).
#   An edit whose fork point has no saved state: the fork replays the history
#   up to the message first, and the count added the replay's tokens to the
#   exchanges before the message, already counted (20527 .. 24415 tok for a
#   branch of 12763).  Now the replay adds nothing: the count never goes
#   above what the branch holds once the reply is done.
# gdb holds the replay mid-way (the worker stopped after its second progress
# report, the UI thread alone runs and redraws), so the line is read while
# it runs whatever the machine's speed; without gdb, or where it may not
# attach, the checks are skipped.  The demo model, one compute thread.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=12
hold_gdb $N_CHECKS "a replay held mid-way"

# 30 exchanges, imported: no saved states, so every open and edit replays
for i in $(seq 30); do echo "message number $i"; done |
    "$RWKV_TUI" chat --demo --db "$TMP/src.db" --new "long one" --max-tokens 8 --seed 1 \
    >/dev/null 2>"$TMP/c.err" || fail "chat: $(cat "$TMP/c.err")"
"$RWKV_TUI" sessions --db "$TMP/src.db" export 1 --format json --out "$TMP/l.json" &&
    "$RWKV_TUI" sessions --db "$DB" import "$TMP/l.json" >/dev/null 2>&1 && ok || fail "export/import"

# the worker held in the replay once two of its reports were posted; the UI
# thread alone redraws until the test says go
hold_script "$TMP/replay.gdb" <<'EOF'
class Report(gdb.Breakpoint):
    n = 0
    def stop(self):
        Report.n += 1
        return Report.n >= 3
class Go(gdb.Breakpoint):
    def stop(self):
        return os.path.exists(os.path.join(tmp, "go"))
Report("tui_worker_progress")
touch("ready")
gdb.execute("continue")                 # the replay's worker is there: all stop
touch("hit")
gdb.execute("delete")
gdb.execute("set scheduler-locking on")
gdb.execute("thread 1")                 # the UI thread alone ...
Go("tui_view_draw")
gdb.execute("continue")                 # ... until the test says go
gdb.execute("set scheduler-locking off")
touch("done")
EOF

# held: the status line (the first) into $TMP/held once it shows BAR
held_line() {
    local bar=$1
    hold_hit || { fail "the replay never reported twice"; return 1; }
    wait_for "^.*$bar" 10 || fail "no $bar bar while held: $(screen | head -1)"
    screen | head -1 >"$TMP/held"
    touch "$TMP/go"
    hold_wait
    [ -e "$TMP/done" ] && ok || fail "gdb: $(tail -5 "$TMP/gdb.log")"
}
count() { sed -nE 's/.*session: (.*) \| ([0-9]+) tok.*/\2/p'; }
title() { sed -nE 's/.*session: (.*) \| ([0-9]+) tok.*/\1/p'; }

W=160 tui_start --max-tokens 8 --seed 2 --threads 1
check "a new session at start" 'session: new \| [0-9]+ tok'

# ---- the open, held in its replay
keys F2
check "the sessions menu" 'long one'
type_text "long one"
if ! hold_run "$(tui_pid)" "$TMP/replay.gdb"; then
    skip $((N_CHECKS - 2)) "gdb could not attach: $(hold_why)"
    tui_quit
    tui_finish
    exit
fi
keys Enter
held_line 'replaying \['
wait_idle 600 || fail "the open did not end"
opened=$(screen | head -1)
t=$(title <"$TMP/held") n=$(count <"$TMP/held") m=$(printf '%s\n' "$opened" | count)
[ "$t" = "long one" ] && ok || fail "during the open the status line names '$t': $(cat "$TMP/held")"
[ -n "$n" ] && [ "$n" = "$m" ] && ok ||
    fail "during the open $n tok, once open $m tok: $(cat "$TMP/held") / $opened"

# ---- an edit of a message 10 exchanges back: its fork point has no state
keys F6
check "the tree" 'message number 30'
keys $(printf 'Up %.0s' $(seq 21))
keys Enter
check "editing" 'edit and send: the message starts a new branch there' 10
keys End
type_text " E"
rm -f "$TMP/ready" "$TMP/hit" "$TMP/done" "$TMP/go"
hold_run "$(tui_pid)" "$TMP/replay.gdb" || fail "gdb could not attach again: $(hold_why)"
keys Enter
held_line 'prefilling \['
wait_idle 600 || fail "the reply did not end"
check "the edit's reply came" 'message number 20 E'
done_line=$(screen | head -1)
n=$(count <"$TMP/held") m=$(printf '%s\n' "$done_line" | count)
[ -n "$n" ] && [ -n "$m" ] && [ "$n" -gt 0 ] && [ "$n" -le "$m" ] && ok ||
    fail "during the edit's replay $n tok, more than the branch's $m: $(cat "$TMP/held") / $done_line"
tui_quit
tui_finish
