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
#   An open with nothing to replay (every state saved) showed "replaying 0
#   tok..." until it ended; now no busy field before a replay reports.
# gdb holds the replay mid-way (the worker stopped after its second progress
# report, the UI thread alone runs and redraws), so the line is read while
# it runs whatever the machine's speed; without gdb, or where it may not
# attach, the checks are skipped.  The demo model, one compute thread.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=16
hold_gdb $N_CHECKS "a replay held mid-way"

# 30 exchanges, imported: no saved states, so every open and edit replays
for i in $(seq 30); do echo "message number $i"; done |
    "$RWKV_TUI" chat --demo --db "$TMP/src.db" --new "long one" --max-tokens 8 --seed 1 \
    >/dev/null 2>"$TMP/c.err" || fail "chat: $(cat "$TMP/c.err")"
"$RWKV_TUI" sessions --db "$TMP/src.db" export 1 --format json --out "$TMP/l.json" &&
    "$RWKV_TUI" sessions --db "$DB" import "$TMP/l.json" >/dev/null 2>&1 && ok || fail "export/import"
# and one made here: every state saved, so its open replays nothing
printf 'all saved here\n' | "$RWKV_TUI" chat --demo --db "$DB" --new "all saved" --max-tokens 4 \
    --seed 1 >/dev/null 2>"$TMP/c2.err" && ok || fail "chat: $(cat "$TMP/c2.err")"

# the worker held in the replay once two of its reports were posted; the UI
# thread alone redraws until the test says go
hold_draws "$TMP/replay.gdb" <<'EOF'
class Report(gdb.Breakpoint):
    n = 0
    def stop(self):
        Report.n += 1
        return Report.n >= 3
Report("tui_worker_progress")
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

# ---- an open with nothing to replay, held at its start
hold_draws "$TMP/open.gdb" <<'EOF2'
gdb.Breakpoint("sess_open")
EOF2
keys F2
check "the sessions menu again" 'all saved'
type_text "all saved"
rm -f "$TMP/ready" "$TMP/hit" "$TMP/done" "$TMP/go"
hold_run "$(tui_pid)" "$TMP/open.gdb" || fail "gdb could not attach a third time: $(hold_why)"
keys Enter
if hold_hit; then
    sleep 1                              # a few redraws of the UI thread alone
    screen | head -1 >"$TMP/held"
    touch "$TMP/go"
    hold_wait
    grep -q 'replaying\|generating' "$TMP/held" && fail "nothing replayed yet: $(cat "$TMP/held")" || ok
else
    fail "the open never reached sess_open"
fi
wait_idle 60 || fail "the open did not end"
check "opened" 'all saved here'
tui_quit
tui_finish
