#!/usr/bin/env bash
# tests/tui/note_idle.sh -- a note of the session runtime made while no job
# runs is a notice, not only a line of the message log.  The greeting's
# notes at start go to the log alone (the footer's keys matter more on the
# first screen), and the client told them apart by the job it thought was
# running -- the last one, kept after it ended, and the one running when the
# note was drained rather than when it was made.  F5 after a failed save
# shows what went wrong: its retry (the leaving rule, storage/session.h)
# writes the exchange kept out and says "saving works again" from the UI
# thread, then the new model's greeting starts, and the note was taken for
# the greeting's: the user never saw that the exchange was saved, nor in
# which session.  Now a note is tagged with the job it was made in
# (tui/worker.c) and the worker has no job after one ends.  The real binary
# under tmux, a real file; another program (python3's sqlite3) holds the
# database's write lock past the busy time (10 s).  The demo model.
. "$(dirname "$0")/tmuxlib.sh"

saved() { saved_user_text "$1"; }

if ! command -v sqlite3 >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    skip 7 "sqlite3 or python3 not found"
    finish
    exit
fi

tui_start --seed 1 --max-tokens 6
keep_one_out "$DB"
release_lock

# F5, the same demo model again (a strategy change): the exchange kept out
# is written first, then the model loads and its greeting is fed
keys F5 C-s C-u
type_text "cpu fp32"
keys Enter
check "F5: the save that works again is a notice" \
    'saving works again: the earlier exchange not saved is in session 1' 40
wait_idle 100
[ "$(saved "$DB")" = "first words kept words" ] && ok || fail "saved: '$(saved "$DB")'"
keys M-l
check "and in the message log" '[0-9:]{8}  saving works again' 10
keys Escape
check_not "log closed" 'Messages \(newest first\)'
tui_quit
tui_finish
