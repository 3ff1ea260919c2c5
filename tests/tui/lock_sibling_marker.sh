#!/usr/bin/env bash
# tests/tui/lock_sibling_marker.sh -- a message sent while another program
# holds the database's write lock: its save fails (kept out, tried again
# later), and its reply -- the only child of its message -- shows no
# sibling marker.  Before, the reply took the saved ids of the exchange
# before it (sess_last_ids gave them back for an exchange not saved), so
# its header read that reply's "< 4/4 >", and kept it after the retry
# saved it.  The real binary under tmux; python3's sqlite3 holds the lock.
. "$(dirname "$0")/tmuxlib.sh"

if ! command -v sqlite3 >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    skip 6 "sqlite3 or python3 not found"
    finish
    exit
fi

tui_start --max-tokens 6 --seed 9
type_text "alpha"
send
keys M-R C-u
type_text "3"
keys Enter
check "three alternatives made" '^RWKV  < 4/4 >' 60
wait_idle 300
hold_lock "$DB" && ok || fail "no lock taken"
type_text "msg under lock"
keys Enter
check "the message waits for the lock, then fails to save" 'saving your message: .*database is locked' 40
wait_idle 300
[ "$(screen | grep -c '^RWKV  < 4/4 >')" = 1 ] && ok ||
    fail "the new reply shows a sibling marker: $(screen | grep '^RWKV')"
release_lock
type_text "beta"
send
check "the kept-out exchange saved with the next one" 'saving works again' 40
[ "$(screen | grep -c '^RWKV  < 4/4 >')" = 1 ] && ok ||
    fail "after the retry: $(screen | grep '^RWKV')"
tui_finish
