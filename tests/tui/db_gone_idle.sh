#!/usr/bin/env bash
# tests/tui/db_gone_idle.sh -- the session database deleted, or replaced,
# while the full-screen client sits idle.  Before, the client found out only
# at the next save, leave or quit: a user who left it open after the file
# went learned it only when they next sent a message.  Now, while no reply
# runs, the file is looked at every few seconds (tui/app.c, idle_db_check:
# the save's own check, sess_db_check) and the save's line says it, once:
# the chat stays on screen, nothing is typed for the user, and F10 asks as
# after a failed save.  The real binary under tmux, a real SQLite file
# removed with rm (and, in a second run, replaced with mv).
. "$(dirname "$0")/tmuxlib.sh"

if ! command -v sqlite3 >/dev/null 2>&1; then
    skip 13 "sqlite3 not found"
    finish
    exit
fi

gone='while in use, the session database was deleted: this chat goes on without saving'

# --- deleted, then nothing typed: said within seconds, once -----------------------------------
tui_start --seed 1 --max-tokens 6
type_text "first words"
send
[ "$(saved_user_text "$DB")" = "first words" ] && ok || fail "the message was not saved"
rm -f "$DB" "$DB-wal" "$DB-shm"
check "idle: the save's line, no key pressed" "$gone" 8
screen | grep -q 'first words' && ok || fail "the chat left the screen: $(screen | head -5)"
screen | grep -Eq '^> (Type a message|输入消息)' && ok ||
    fail "something typed in the input box: $(screen | grep '^> ')"
[ ! -e "$DB" ] && ok || fail "something made at $DB"
# a few more checks' worth of idle time: the line is not said again
sleep 7
keys M-l
check "the message log" 'session database was deleted' 10
n=$(screen | grep -c 'session database was deleted')
[ "$n" = 1 ] && ok || fail "said $n times: $(screen | grep 'session database was deleted')"
keys Escape
keys F10
check "F10: asked, no retry offered" \
    '1 exchange is only in memory: e export, q quit anyway, Esc back \(.*deleted'
keys q
wait_for '^EXIT=1' 20 && ok || fail "q: not exit 1: $(screen | tail -3)"

# --- replaced by another file (mv over it): the inode changed ---------------------------------
tui_start --seed 1 --max-tokens 6
type_text "second words"
send
[ "$(saved_user_text "$DB")" = "second words" ] && ok || fail "the message was not saved"
sqlite3 "$TMP/other.db" 'create table t(x); insert into t values (1);' &&
    mv -f "$TMP/other.db" "$DB"
check "idle: a file replaced is said too" 'while in use, the session database was replaced' 8
screen | grep -q 'second words' && ok || fail "the chat left the screen: $(screen | head -5)"
[ "$(sqlite3 "$DB" 'select x from t')" = 1 ] && ok || fail "the file put there was changed"
keys F10
wait_for 'e export, q quit anyway' 20
keys q
wait_for '^EXIT=1' 20 || fail "q: not exit 1: $(screen | tail -3)"
tui_finish
