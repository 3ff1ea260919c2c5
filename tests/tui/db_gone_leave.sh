#!/usr/bin/env bash
# tests/tui/db_gone_leave.sh -- the session database deleted while the
# full-screen client runs, and no save since (so none found it):
#   - C-n (a new chat): before, it went on and the conversation the file
#     held was gone without a word.  Now refused, and the line says where
#     the exchange is (only in memory) and what to do (quit with F10 and
#     export it) -- not "try again", which cannot work.
#   - F10 then: the question offers no retry (e export, q quit anyway, Esc
#     back); q ends with the leaving line on stderr, exit 1.
#   - F10 straight after the deletion: before, a silent exit 0; now asked.
#   - a chat with no exchange: F10 quits (exit 0) with one line on stderr
#     saying the file is gone, never silently.
# The real binary under tmux, a real SQLite file removed with rm.
. "$(dirname "$0")/tmuxlib.sh"

if ! command -v sqlite3 >/dev/null 2>&1; then
    skip 14 "sqlite3 not found"
    finish
    exit
fi

# --- deleted, then C-n: refused with the way on ---------------------------------------------
tui_start --seed 1 --max-tokens 6
type_text "first"
send
[ "$(saved_user_text "$DB")" = "first" ] && ok || fail "the first message was not saved"
rm -f "$DB" "$DB-wal" "$DB-shm"
keys C-n
check "C-n: refused, where the exchange is and what to do" \
    '1 exchange is only in memory, so this chat stays: quit with F10 and export it \(e\), or go on here' 20
screen | grep -q 'try again' && fail "C-n: 'try again' promised: $(screen | tail -3)" || ok
screen | grep -q 'first' && ok || fail "C-n: the conversation left the screen"
keys Escape
keys F10
check "F10: asked, no retry offered" \
    '1 exchange is only in memory: e export, q quit anyway, Esc back \(.*deleted'
keys q
wait_for '^EXIT=1' 20 && ok || fail "q: not exit 1: $(screen | tail -3)"
grep -q 'leaving with 1 exchange not saved (.*while in use, the session database was deleted)' \
    "$TMP/stderr.$RUNS" && ok || fail "q: the leaving line: $(cat "$TMP/stderr.$RUNS")"
[ ! -e "$DB" ] && ok || fail "something made at $DB"

# --- deleted, then F10 at once: asked (was a silent exit 0) -----------------------------------
tui_start --seed 1 --max-tokens 6
type_text "second"
send
[ "$(saved_user_text "$DB")" = "second" ] && ok || fail "the message was not saved"
rm -f "$DB" "$DB-wal" "$DB-shm"
keys F10
check "F10 right after rm: asked" \
    '1 exchange is only in memory: e export, q quit anyway, Esc back'
screen | grep -q '^EXIT=' && fail "quit without asking" || ok
keys r
sleep 0.3
screen | grep -q '^EXIT=' && fail "r: quit (no retry is offered)" || ok
keys q
wait_for '^EXIT=1' 20 && ok || fail "q: not exit 1: $(screen | tail -3)"

# --- no exchange: F10 quits, one line says the file is gone -------------------------------------
tui_start --seed 1 --max-tokens 6
rm -f "$DB" "$DB-wal" "$DB-shm"
keys F10
wait_for '^EXIT=0' 20 && ok || fail "empty: no clean exit: $(screen | tail -3)"
grep -q 'while in use, the session database was deleted (this chat had nothing in it to lose)' \
    "$TMP/stderr.$RUNS" && ok || fail "empty: quit silently: '$(cat "$TMP/stderr.$RUNS")'"
tui_finish
