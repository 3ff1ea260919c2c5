#!/usr/bin/env bash
# tests/tui/new_unsaved.sh -- C-n (a new session) in the full-screen client
# while an exchange a failed save kept out still cannot be written (the
# leaving rule, storage/session.h).  C-n tries to write it first ("saving
# ..."; one wait for the lock); when that fails the chat stays as it was and
# the message line says how many, the quit key (as the footer names it)
# and why.  Once the lock is gone C-n writes it, says so, and starts the
# new session.  Before, C-n dropped the exchange without a word: the
# message sent under the lock was in no session; then the line said "or
# quit" without how.  The real binary under tmux, a real file; another program
# (python3's sqlite3) holds the database's write lock past the busy time
# (10 s).
. "$(dirname "$0")/tmuxlib.sh"

saved() { saved_user_text "$1"; }

if ! command -v sqlite3 >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    skip 12 "sqlite3 or python3 not found"
    finish
    exit
fi

tui_start --seed 1 --max-tokens 6
keep_one_out "$DB"

# C-n under the lock: refused, said; the conversation stays on the screen
keys C-n
# (its line, then the lock's waiting line over it after 0.1 s: either)
check "C-n: what it waits for is said" \
    'saving the exchange not saved yet|waiting for the lock another program holds on .*sessions\.db' 8
check "C-n under the lock: refused, how many, the quit key" \
    '1 exchange is not saved, so this chat stays: try again, or quit with F10' 40
check "... and why (the footer names the database by its file name)" 'sessions\.db: database is locked\)'
keys Escape
check_not "Esc: the line goes" 'so this chat stays'
screen | grep -q 'kept words' && screen | grep -q 'first words' && ok \
    || fail "the conversation left the screen: $(screen)"
[ "$(saved "$DB")" = "first words" ] && ok || fail "saved under the lock: '$(saved "$DB")'"

# the lock gone: C-n writes it first, then the new session
release_lock
keys C-n
check "C-n again: written, said" 'saving works again: the earlier exchange not saved is in session 1' 40
check_not "C-n again: the conversation left" 'kept words'
[ "$(saved "$DB")" = "first words kept words" ] && ok || fail "saved: '$(saved "$DB")'"
tui_quit
tui_finish
