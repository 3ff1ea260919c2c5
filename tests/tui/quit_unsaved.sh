#!/usr/bin/env bash
# tests/tui/quit_unsaved.sh -- quitting the full-screen client right after
# a save failed.  What the failed save kept out is written once more on the
# way out; when that still fails the client asks (r retry, e export, q quit
# anyway, Esc back) instead of quitting; r quits once it works, e writes the
# conversation (the kept-out exchange too) to a file `sessions import`
# takes back, q quits with one line on stderr and exit status 1, Esc goes
# back to the chat; SIGTERM (no one to ask) tries once and says it the
# same way.  Before, F10 quit at once, exit 0, and the exchange was gone.
# The real binary under tmux, real files: another program (python3's
# sqlite3) holds the database's write lock past the busy time (10 s), and
# the file-size limit (`ulimit -f`, which fails saves at once).
. "$(dirname "$0")/tmuxlib.sh"

T=$RWKV_TUI
tui_pid() { pgrep -P "$(tmx display-message -p '#{pane_pid}')" | head -1; }
saved() { saved_user_text "$1"; }

if ! command -v sqlite3 >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    skip 20 "sqlite3 or python3 not found"
    finish
    exit
fi

# --- the lock held at F10: asked; the lock gone, r saves and quits --------------------------
tui_start --seed 1 --max-tokens 6
type_text "one"
send
[ "$(saved "$DB")" = "one" ] && ok || fail "the first message was not saved"
hold_lock "$DB" && ok || fail "no lock taken"
type_text "two"
keys Enter
check "the message waits for the lock, then fails to save" 'saving your message: .*database is locked' 40
wait_idle 300
keys F10
check "F10 with the lock still held: asked" \
    '1 exchange is not saved: r retry, e export, q quit anyway, Esc back \(.*database is locked' 40
screen | grep -q '^EXIT=' && fail "quit without asking" || ok
release_lock
keys r
wait_for '^EXIT=0' 40 && ok || fail "r once the lock is gone: no clean exit: $(screen | tail -3)"
grep -qxF "saving works again: the earlier exchange not saved is in session 1 now" "$TMP/stderr.$RUNS" \
    && ok || fail "no line saying it was saved: $(cat "$TMP/stderr.$RUNS")"
[ "$(saved "$DB")" = "one two" ] && ok || fail "saved: '$(saved "$DB")'"

# --- under the file-size limit: saves fail at once ------------------------------------------
printf '#!/bin/sh\nulimit -f 3000\nexec "%s" "$@"\n' "$T" >"$TMP/limited"
chmod +x "$TMP/limited"
limited_start() {   # limited_start DB: a client whose saves fail, one message sent
    RWKV_TUI=$TMP/limited tui_start --seed 1 --max-tokens 6 --db "$1"
    type_text "kept out"
    send
    check "the save failed" 'file-size limit'
}

# Esc goes back to the chat; e exports it (the kept-out message too) and quits
limited_start "$TMP/e.db"
keys F10
check "F10: asked" 'not saved: r retry, e export, q quit anyway, Esc back \(.*file-size'
keys Escape
check "Esc: back to the chat" 'not quit: what is not saved is tried again'
screen | grep -q '^EXIT=' && fail "Esc quit" || ok
keys F10
check "F10 again: asked again" 'r retry, e export, q quit anyway'
keys e
check "e: the file asked" 'export this chat to'
keys C-u
type_text "$TMP/rescue.json"
keys Enter
wait_for '^EXIT=0' 20 && ok || fail "e: no clean exit: $(screen | tail -3)"
grep -q "not saved (.*): this chat is exported to $TMP/rescue.json ('rwkv-tui sessions import' takes it back)" \
    "$TMP/stderr.$RUNS" && ok || fail "e: no line naming the file: $(cat "$TMP/stderr.$RUNS")"
out=$("$T" sessions --db "$TMP/back.db" import "$TMP/rescue.json" 2>&1) && ok || fail "import: $out"
[ "$(saved "$TMP/back.db")" = "kept out" ] && ok || fail "imported: '$(saved "$TMP/back.db")'"

# q quits without them: one line, exit 1
limited_start "$TMP/q.db"
keys F10
check "F10: asked" 'r retry, e export, q quit anyway'
keys q
wait_for '^EXIT=1' 20 && ok || fail "q: exit: $(screen | tail -3)"
grep -Eq "^rwkv-tui: leaving with [0-9]+ exchanges? not saved \(.*file-size limit.*\): (it is|they are) not in the session$" \
    "$TMP/stderr.$RUNS" && ok || fail "q: no line: $(cat "$TMP/stderr.$RUNS")"

# SIGTERM: no one to ask; tried once, the same line
limited_start "$TMP/term.db"
pid=$(tui_pid)
[ -n "$pid" ] && kill -TERM "$pid" && ok || fail "no process"
wait_for '^EXIT=143' 20 && ok || fail "SIGTERM: exit: $(screen | tail -3)"
grep -Eq "^rwkv-tui: leaving with [0-9]+ exchanges? not saved" "$TMP/stderr.$RUNS" && ok \
    || fail "SIGTERM: no line: $(cat "$TMP/stderr.$RUNS")"

# --- nothing kept out: F10 quits at once, as always --------------------------------------------
tui_start --seed 1 --max-tokens 4 --db "$TMP/plain.db"
type_text "fine"
send
tui_quit
[ ! -s "$TMP/stderr.$RUNS" ] && ok || fail "a plain quit said: $(cat "$TMP/stderr.$RUNS")"
tui_finish
