#!/usr/bin/env bash
# tests/tui/rename_open.sh -- renaming the session that is open (F2, C-r)
# holds for the rest of the run.  The rename wrote the database and the
# status line, but the runtime kept the old title and gave it back with the
# next reply: the status line named the old title again and F3's C-w
# offered old-name.pth.  Now the rename of the open session goes through
# the runtime (sess_rename), so every copy follows; a CJK title too.
. "$(dirname "$0")/tmuxlib.sh"
export XDG_DATA_HOME=$TMP/data
TUI_ENV="XDG_DATA_HOME='$XDG_DATA_HOME'"

rename_open() {
    keys F2
    check "the sessions menu lists it" "$1"
    keys C-r
    check "the rename prompt" 'new title: '
    keys C-u
    type_text "$2"
    keys Enter
    check "the menu shows the new title" "$2"
    keys Escape
    check_not "the menu closed" '│  Sessions'
    check "the status line names it" "session: $2"
}

tui_start --max-tokens 5 --seed 4
type_text "old name"
send
check "titled from the message" 'session: old name'
rename_open 'old name' 'Brand New'
type_text "more"
send
check "the next reply done" 'more'
check "the status line still names the new title" 'session: Brand New'
check_not "... not the old one" 'session: old name' 1
keys F3 C-w
check "F3 C-w offers the new title's name" 'save the current state as: .*/Brand-New\.pth'
keys Escape                          # (back to F3's menu, then closed)
check_not "the prompt closed" 'save the current state as'
keys Escape
check_not "F3 closed" 'State files'
rename_open 'Brand New' '新的名字 two'
type_text "third"
send
check "the status line keeps the CJK title" 'session: 新的名字 two'
[ "$(sqlite3 "$DB" "SELECT title FROM sessions WHERE id = 1")" = '新的名字 two' ] && ok ||
    fail "the database: $(sqlite3 "$DB" "SELECT id, title FROM sessions")"
tui_quit
tui_finish
