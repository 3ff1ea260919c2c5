#!/usr/bin/env bash
# tests/tui/prompt_retry.sh -- a prompt whose Enter fails after the typing
# (the write refused: another program holds the database's write lock, a
# folder that does not exist) opens again holding the text: the error stays
# in sight above it (a dialog: the footer is the prompt's) whatever is typed,
# Enter tries again and Esc gives up.  F2's rename, F4's preset name and
# F2's export path (F3's state file: state_save.sh; the refusals of the
# database's own name: sessions_io.sh).
. "$(dirname "$0")/tmuxlib.sh"

# the footer (the last line) is prompt LABEL holding TEXT
prompt_holds() {
    if wait_for '.' 1 && screen | tail -1 | grep -Eq -- "^$2 *\$"; then ok; else
        fail "$1: the footer is not /$2/: $(screen | tail -1)"
    fi
}

tui_start --max-tokens 5
type_text "first words"
send
title() { sqlite3 "$DB" 'select title from sessions where id=1'; }

# --- rename: the lock held, Enter fails; the title typed stays ------------------
hold_lock "$DB" || fail "no lock taken"
keys F2
check "F2 open" 'Sessions'
keys C-r C-u
type_text "kept title"
keys Enter
check "rename: the error, in sight" 'database is locked' 30
check "rename: the dialog says what the keys do" 'Enter tries again  Esc gives up'
prompt_holds "rename: the prompt is open again" 'new title: kept title'
# typing goes into the prompt, and the error stays
type_text " two"
prompt_holds "rename: typing edits the kept text" 'new title: kept title two'
check "rename: the error stays while typing" 'renaming session 1: .*' 2
check "... and the keys with it" 'Enter tries again  Esc gives up' 2
release_lock
keys Enter
check "rename: Enter tried again, and it is renamed" 'kept title two +[0-9]+ turns'
check_not "rename: the dialog went" 'Enter tries again'
[ "$(title)" = "kept title two" ] && ok || fail "title saved: '$(title)'"

# --- Esc gives up: the old title kept, back in the menu ----------------------------
hold_lock "$DB" || fail "no lock taken"
keys C-r C-u
type_text "not this one"
keys Enter
check "rename again: the error" 'database is locked' 30
prompt_holds "rename again: the prompt holds it" 'new title: not this one'
keys Escape
check_not "Esc: the dialog goes" 'Enter tries again'
check "Esc: back in the menu" 'kept title two +[0-9]+ turns'
screen | tail -1 | grep -q 'new title:' && fail "Esc: the prompt is still open" || ok
release_lock
[ "$(title)" = "kept title two" ] && ok || fail "title after Esc: '$(title)'"
keys Escape
check_not "menu closed" 'Sessions  \('

# --- a preset's name (F4 C-s) -----------------------------------------------------
hold_lock "$DB" || fail "no lock taken"
keys F4
check "presets menu" 'Presets'
keys C-s
check "preset name prompt" 'save preset as:'
type_text "mine"
keys Enter
check "preset: the error" 'database is locked' 30
prompt_holds "preset: the prompt holds the name" 'save preset as: mine'
release_lock
keys Enter
check "preset: Enter tried again, saved" "preset 'mine' saved"
[ "$(sqlite3 "$DB" "select count(*) from presets where name='mine'")" = 1 ] && ok ||
    fail "preset not in the database"

# --- an export path whose folder is missing (F2 C-e) ------------------------------
keys F2
check "F2 open" 'Sessions'
keys C-e C-u
type_text "$TMP/no/such/x.md"
keys Enter
check "export: the error" 'no/such/x\.md: ' 10
prompt_holds "export: the prompt holds the path" "export to .*no/such/x\\.md"
mkdir -p "$TMP/no/such"
keys Enter
check "export: Enter tried again, written" 'session 1 exported to .*no/such/x\.md \(Markdown\)'
[ -s "$TMP/no/such/x.md" ] && ok || fail "no export file"
tui_quit
tui_finish
