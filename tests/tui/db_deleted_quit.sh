#!/usr/bin/env bash
# tests/tui/db_deleted_quit.sh -- the session database deleted while the
# full-screen client runs.  The runtime says the chat goes on without
# saving, as with --no-db; everything said is then saved nowhere, so F10
# asks what a failed save's quit asks, less the retry that cannot work
# (e export, q quit anyway, Esc back), and e writes the whole
# conversation to a file `sessions import` takes back.  Before, F10 quit at once with status 0 and it was
# all gone.  F2 says the database is gone instead of listing the deleted
# file's sessions, which cannot be opened.  The real binary under tmux, a
# real SQLite file removed with rm.
. "$(dirname "$0")/tmuxlib.sh"

T=$RWKV_TUI
if ! command -v sqlite3 >/dev/null 2>&1; then
    skip 8 "sqlite3 not found"
    finish
    exit
fi

tui_start --seed 1 --max-tokens 6
type_text "first"
send
[ "$(saved_user_text "$DB")" = "first" ] && ok || fail "the first message was not saved"
rm -f "$DB" "$DB-wal" "$DB-shm"
type_text "after rm"
send
keys F2
check "F2: the database is gone, no stale rows" 'session database was deleted'
screen | grep -q 'first' && screen | grep -qE '^ *[> ]? *1 ' && fail "F2 lists the deleted file's sessions" || ok
keys Escape
keys F10
check "F10: asked (no retry: the file is gone)" \
    '2 exchanges are only in memory: e export, q quit anyway, Esc back \(.*deleted'
screen | grep -q '^EXIT=' && fail "quit without asking" || ok
keys e
check "e: the file asked" 'export this chat to'
keys C-u
type_text "$TMP/rescue.json"
keys Enter
wait_for '^EXIT=0' 20 && ok || fail "e: no clean exit: $(screen | tail -3)"
out=$("$T" sessions --db "$TMP/back.db" import "$TMP/rescue.json" 2>&1) && ok || fail "import: $out"
[ "$(saved_user_text "$TMP/back.db")" = "first after rm" ] && ok ||
    fail "imported: '$(saved_user_text "$TMP/back.db")'"
tui_finish
