#!/usr/bin/env bash
# tests/tui/locked_writes.sh -- while another program holds the session
# database's write lock, the writes the client makes on its own thread (F2's
# fork, rename and delete, F6's delete) wait up to the busy timeout (10 s):
# the footer says so exactly while the write waits ("waiting for the lock
# another program holds on …/sessions.db (Esc gives up)...", the seconds
# counted), with the screen drawn (not the menu or y/n question of the key
# before, frozen).  A wait left alone runs out and the error names the
# action; Esc gives the wait up at once, the error saying so (a rename's
# prompt opens again holding the title, as for any failed write).  Once the
# lock goes, the same keys work, and a write that does not wait never shows
# the line.
. "$(dirname "$0")/tmuxlib.sh"

WAITING='waiting for the lock another program holds on …/sessions\.db \(Esc gives up\)\.\.\.'

# never_shown DESC PATTERN: PATTERN is not on the screen at any of ten looks
# over a second
never_shown() {
    local i
    for i in 1 2 3 4 5 6 7 8 9 10; do
        if screen | grep -Eq -- "$2"; then fail "$1: /$2/ is on screen"; return; fi
        sleep 0.1
    done
    ok
}

tui_start --max-tokens 5
type_text "first words"
send
type_text "second words"
send
hold_lock "$DB" || fail "no lock taken"

# F2 C-y: fork, the wait left alone: the line, its seconds, then the error
keys F2
check "F2 open" 'Sessions'
keys C-y
check "fork: the footer says it waits for the lock" "^$WAITING" 4
check "fork: the seconds counted" "^$WAITING [1-9] s" 4
check "fork: the wait runs out, the error names it" 'forking session 1: .*database is locked' 30
check_not "fork: the waiting line went" 'waiting for the lock'

# F2 C-r: rename; Esc gives up the wait, the title kept
keys Escape F2
check "F2 open" 'Sessions'
keys C-r C-u
type_text "a new title"
keys Enter
check "rename: the footer says it waits for the lock" "^$WAITING" 4
keys Escape
check "rename: Esc gave the wait up, the error says so" \
    'renaming session 1: .*database is locked \(gave up waiting\)' 3
check "rename: the prompt holds the title" '^new title: a new title *$' 2
check_not "rename: no waiting line left" 'waiting for the lock'
keys Escape
check_not "rename: Esc closes the prompt" '^new title:'

# F2 C-d: delete; Esc gives up
keys Escape F2
check "F2 open" 'Sessions'
keys C-d
check "delete: asked" "delete 'first words'\? \(y/n\)"
keys y
check "delete: the footer says it waits for the lock" "^$WAITING" 4
keys Escape
check "delete: Esc gave the wait up, the error says so" \
    'deleting session 1: .*database is locked \(gave up waiting\)' 3

# F6 C-d: delete a turn (the last reply); Esc gives up
keys Escape F6
check "F6 open" 'Branches'
keys C-d
check "F6 delete: asked" 'delete this turn\? '
keys y
check "F6 delete: the footer says it waits for the lock" "^$WAITING" 4
keys Escape
check "F6 delete: Esc gave the wait up, the error says so" \
    'deleting turn [0-9]+: .*database is locked \(gave up waiting\)' 3
keys Escape
release_lock
[ "$(sqlite3 "$DB" 'select count(*) from sessions')" = 1 ] && ok || fail "a write was done"

# the lock gone: the same keys work, and no waiting line shows
keys F2
check "F2 open" 'Sessions'
keys C-r C-u
type_text "a new title"
keys Enter
never_shown "renamed: no waiting line" 'waiting for the lock'
check "renamed: the menu shows the new title" 'a new title +[0-9]+ turns'
[ "$(sqlite3 "$DB" 'select title from sessions where id=1')" = "a new title" ] && ok ||
    fail "the title was not saved"
keys C-y
never_shown "forked: no waiting line" 'waiting for the lock'
check "forked: the copy is opened" 'a new title'
check_not "forked: no progress line left" 'forking session' 10
[ "$(sqlite3 "$DB" 'select count(*) from sessions')" = 2 ] && ok || fail "no fork saved"
tui_quit
tui_finish
