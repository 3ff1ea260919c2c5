#!/usr/bin/env bash
# tests/tui/quit_said.sh -- what is said while the unsaved-exchange question
# (quit.c: "1 exchange is not saved: r retry, e export, q quit anyway, Esc
# back") is open is in sight above it.  The question holds the footer and
# every key, so the log (M-l) is out of reach until Esc: a note made while
# quitting -- the save of the message the quit waited for, failed under
# another program's lock -- was in the message log only, and the user chose
# r, e or q without having seen it; so was a notice made while the question
# was open (a paste's end).  Now a dialog above the question, "Said while
# quitting", shows them (the database's folder left out, as the footer
# does); Esc back to the chat and the dialog goes (the log has them).
. "$(dirname "$0")/tmuxlib.sh"

if ! command -v sqlite3 >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    skip 11 "sqlite3 or python3 not found"
    finish
    exit
fi

tui_start --seed 1 --max-tokens 6
type_text "first words"
send
[ "$(saved_user_text "$DB")" = "first words" ] && ok || fail "the first message was not saved"
hold_lock "$DB" && ok || fail "no lock taken"
type_text "kept words"
keys Enter
wait_for '^> Type a message' 10 || true
keys F10          # while the message's save waits for the lock
check "F10 while the save waited: asked" \
    '1 exchange is not saved: r retry, e export, q quit anyway, Esc back' 60
check "the note made while quitting is in sight, in a dialog" 'Said while quitting' 5
check "... saying what failed" 'saving your message: .*sessions\.db: database is locked' 5
# a notice made while the question is open: a bracketed paste the terminal
# never ends (a lone Esc ends it) says so
keys -l $'\e[200~pasted'
sleep 0.3
keys Escape
check "a notice made while asked is in sight too" 'paste ended by Esc' 5
check "... the question still open" 'r retry, e export, q quit anyway' 2
screen | tail -1 | grep -q 'pasted' && fail "the pasted text was typed into the question" || ok
keys Escape
check "Esc: back to the chat" 'not quit: what is not saved is tried again'
check_not "... and the dialog went" 'Said while quitting'
release_lock
tui_quit
tui_finish
