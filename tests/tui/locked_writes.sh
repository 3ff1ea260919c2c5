#!/usr/bin/env bash
# tests/tui/locked_writes.sh -- while another program holds the session
# database's write lock, the writes the client makes on its own thread (F2's
# fork, rename and delete, F6's delete) wait up to the busy timeout (10 s)
# and fail: meanwhile the footer says at once what is being done (not the
# menu or y/n question of the key before, frozen), and the error names the
# action (a rename's prompt opens again holding the title).  Once the lock
# goes, the same keys work.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 5
type_text "first words"
send
type_text "second words"
send
hold_lock "$DB" || fail "no lock taken"

# F2 C-y: fork
keys F2
check "F2 open" 'Sessions'
keys C-y
check "fork: the footer says it while it waits" '^forking session 1\.\.\.' 4
check "fork: the error names it" 'forking session 1: .*database is locked' 30

# F2 C-r: rename
keys Escape F2
check "F2 open" 'Sessions'
keys C-r C-u
type_text "a new title"
keys Enter
check "rename: the footer says it while it waits" '^renaming session 1\.\.\.' 4
check "rename: the error names it" 'renaming session 1: .*database is locked' 30
# the title typed is kept: the prompt is open again (prompt_retry.sh); Esc
# gives up, back in the menu
check "rename: the prompt holds the title" '^new title: a new title *$' 2
keys Escape
check_not "rename: Esc closes it" '^new title:'

# F2 C-d: delete
keys Escape F2
check "F2 open" 'Sessions'
keys C-d
check "delete: asked" "delete 'first words'\? \(y/n\)"
keys y
check "delete: the footer says it while it waits" '^deleting session 1\.\.\.' 4
check "delete: the error names it" 'deleting session 1: .*database is locked' 30

# F6 C-d: delete a turn (the last reply)
keys Escape F6
check "F6 open" 'Branches'
keys C-d
check "F6 delete: asked" 'delete this turn and 0 below it'
keys y
check "F6 delete: the footer says it while it waits" '^deleting turn [0-9]+ and the turns below it\.\.\.' 4
check "F6 delete: the error names it" 'deleting turn [0-9]+: .*database is locked' 30
keys Escape
release_lock

# the lock gone: the same keys work, and no progress line is left behind
keys F2
check "F2 open" 'Sessions'
keys C-r C-u
type_text "a new title"
keys Enter
check "renamed: the menu shows the new title" 'a new title +[0-9]+ turns'
check_not "renamed: no progress line left" 'renaming session'
[ "$(sqlite3 "$DB" 'select title from sessions where id=1')" = "a new title" ] && ok ||
    fail "the title was not saved"
keys C-y
check "forked: the copy is opened" 'a new title' 
check_not "forked: no progress line left" 'forking session' 10
[ "$(sqlite3 "$DB" 'select count(*) from sessions')" = 2 ] && ok || fail "no fork saved"
tui_quit
tui_finish
