#!/usr/bin/env bash
# tests/tui/sidebar_open_edit.sh -- the sidebar while a session opens (F2
# Enter; --resume at start is the same job).  It showed the values of the
# session left (the defaults) until the open ended, and an edit made
# meanwhile was thrown away at the end: the runtime's values were copied
# over the sidebar's (tui_session_sync), in the chat and in the database.
# Now the sidebar shows the opened session's values from the open's start
# (sess_open_sampling), and an edit made meanwhile -- typed or stepped, a
# chunk size too -- wins when it ends, saved as the session's, as one made
# after it.  gdb holds the worker where the open begins (sess_open) while
# the UI thread alone runs and takes the keys; without gdb, or where it may
# not attach, the checks are skipped.  A step made while a reply runs was
# lost the same way at its end, and is kept now.  The demo model.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=20
hold_gdb $N_CHECKS "an open held at its start"

# a session with values of its own (the ones its reply ran with)
printf 'hello there\n' | "$RWKV_TUI" chat --demo --db "$DB" --new "own values" --max-tokens 9 \
    --temperature 0.6 --chunk 32 --seed 1 >/dev/null 2>"$TMP/c.err" && ok ||
    fail "chat: $(cat "$TMP/c.err")"
session_values() { sqlite3 "$DB" "SELECT value FROM settings WHERE key = 'session_sampling/1'"; }

hold_draws "$TMP/open.gdb" <<'EOF'
gdb.Breakpoint("sess_open")
EOF

tui_start
check "the defaults in a new session" 'max-tokens +1000'
keys F2
check "the sessions menu" 'own values'
type_text "own values"
if ! hold_run "$(tui_pid)" "$TMP/open.gdb"; then
    skip $((N_CHECKS - 3)) "gdb could not attach: $(hold_why)"
    tui_quit
    tui_finish
    exit
fi
keys Enter
if ! hold_hit; then
    fail "the open never reached sess_open"
    touch "$TMP/go"
fi
# the worker held: the UI thread alone draws and takes the keys
check "during the open: the session's max tokens" 'max-tokens +9 *$'
check "during the open: the session's temperature" 'temperature +0\.6 *$'
keys Tab Enter C-u
type_text "0.25"
keys Enter
check "temperature typed during the open" 'temperature +0\.25 *$'
keys Down Down Down Down Down Down Down Enter C-u
type_text "42"
keys Enter Tab
check "chunk typed during the open" 'chunk +42 *$'
touch "$TMP/go"
hold_wait
wait_idle 100
check "opened" "resumed 'own values'"
check "the edit kept after the open" 'temperature +0\.25 *$'
check "the chunk edit kept too" 'chunk +42 *$'
check "the session's other values stay" 'max-tokens +9 *$'
v=$(session_values)
case "$v" in *"temperature=0.25 "*"chunk=42 "*) ok ;; *) fail "saved as the session's: $v" ;; esac
tui_quit

# the next resume takes them
tui_start --resume
check "resumed" 'hello there'
check "resumed with the temperature set during the open" 'temperature +0\.25 *$'
check "and the chunk" 'chunk +42 *$'
tui_quit

# the same for a reply: a step made while it runs holds when it ends
tui_start --max-tokens 1000000 --threads 1
type_text "a long reply"
keys Enter
check "generating" 'generating'
keys Tab Right Tab
check "temperature stepped during the reply" 'temperature +1\.1 *$'
keys Escape
check "the reply stopped" 'reply interrupted'
check "the step kept once it ended" 'temperature +1\.1 *$'
case "$(sqlite3 "$DB" "SELECT value FROM settings WHERE key = 'session_sampling/2'")" in
*"temperature=1.1 "*) ok ;;
*) fail "saved: $(sqlite3 "$DB" "SELECT key, value FROM settings WHERE key LIKE 'session_sampling/%'")" ;;
esac
tui_quit
tui_finish
