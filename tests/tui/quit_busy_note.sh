#!/usr/bin/env bash
# tests/tui/quit_busy_note.sh -- quitting the full-screen client while a
# reply runs loses nothing the runtime said.  The quit stops the job and
# takes its last events; it took only the reply's text and its end, so a
# note among them -- a save that failed under another program's lock while
# the quit waited for the job -- was dropped: in no footer, no message log,
# not on stderr.  Now they are taken as any others are (app.c,
# handle_events).  When the client ends, the note is on stderr after the
# screen, as the line chat prints one ("rwkv-tui: ..."), before the quit's
# own lines ("saving works again"); when it asks instead (an exchange is
# still not saved) and the user goes back to the chat, the note is in the
# message log like any other, and a later exit does not print it again.
# A message whose save fails while the quit waits is not lost with its cut
# prefill either (storage/session.h, sess_abandon): kept with an empty
# interrupted reply, it is what the quit then asks about -- and writes, once
# the lock is gone.  (Before, the runtime dropped it: the client quit, the
# note said it "is tried again with your next message", and it never was.)
# The real binary under tmux, a real file; another program (python3's
# sqlite3) holds the database's write lock past the busy time (10 s), and
# F10 comes while a save waits for it: the note is made after the quit
# began, every time.  Where a reply's row is to fail, gdb holds the client
# while the lock is taken (holdlib.sh); without gdb those checks are skipped.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

if ! command -v sqlite3 >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    skip 39 "sqlite3 or python3 not found"
    finish
    exit
fi

# (the job's wait given up by the quit: "database is locked (gave up waiting)")
locked=': database is locked (\(gave up waiting\) )?\(the chat goes on'
again='saving works again: the earlier exchange not saved is in session 1 now'
errors() { cat "$TMP/stderr.$RUNS"; }

# first_words: "first words" sent and saved.  One check.
first_words() {
    type_text "first words"
    send
    [ "$(saved_user_text "$DB")" = "first words" ] && ok || fail "the first message was not saved"
}

# kept_reply DB: the reply under "kept words" in DB is one row, empty and
# marked interrupted.  One check.
kept_reply() {
    [ "$(sqlite3 "$1" "select r.interrupted || ',' || r.text from turns u join turns r on r.parent_id=u.id where u.role=1 and u.text='kept words'" 2>/dev/null)" = "1," ] \
        && ok || fail "no empty interrupted reply under it: $(sqlite3 "$1" 'select id, parent_id, role, interrupted, text from turns' 2>/dev/null)"
}
# message_quit: "kept words" sent under the lock, F10 while its save waits
# (its reply has not begun).  One check.
message_quit() {
    type_text "kept words"
    keys Enter
    wait_for '^> Type a message' 10 && ok || fail "the message was not taken: $(screen | tail -3)"
    keys F10
}

# --- the message's save fails while the quit waits, the lock still held: asked -------------
# (the message is kept, so the quit's retry has it: asked with its count;
# Esc goes back to the chat, which shows it, with its reply cut before it
# began; once the lock is gone the next quit writes it)
tui_start --seed 1 --max-tokens 6
first_words
hold_lock "$DB" && ok || fail "no lock taken"
message_quit
check "F10 while the message's save waited: asked, the message not saved" \
    '1 exchange is not saved: r retry, e export, q quit anyway, Esc back' 60
screen | grep -q '^EXIT=' && fail "quit without asking: the message was dropped" || ok
keys Escape
check "Esc: back to the chat" 'not quit: what is not saved is tried again'
check "the message is still in the chat" '^  kept words'
check "its reply marked interrupted" '\[interrupted\]'
keys F10
check "F10 again, the lock still held: asked again" '1 exchange is not saved: r retry' 40
release_lock
keys r
wait_for '^EXIT=0' 40 && ok || fail "r once the lock was gone: no clean exit: $(screen | tail -3)"
grep -qxF "$again" "$TMP/stderr.$RUNS" && ok || fail "no line saying it was saved: '$(errors)'"
[ "$(saved_user_text "$DB")" = "first words kept words" ] && ok \
    || fail "the message was lost: saved '$(saved_user_text "$DB")'"
kept_reply "$DB"

# --- ... the lock gone while the quit's retry waits: written, the client ends ---------------
DB=$TMP/freed.db
tui_start --seed 1 --max-tokens 6
first_words
hold_lock "$DB" && ok || fail "no lock taken"
message_quit
# the quit's retry, said at once (the job's own wait given up): its line,
# then the lock's waiting line over it after 0.1 s (old code: 10 s of
# nothing first)
check "the quit's retry of the kept message, at once" \
    'saving the exchange not saved yet|waiting for the lock another program holds on .*freed\.db' 6
release_lock
wait_for '^EXIT=0' 40 && ok || fail "F10: no clean exit: $(screen | tail -3)"
note=$(grep -nE "^rwkv-tui: saving your message: .*$locked" "$TMP/stderr.$RUNS" | cut -d: -f1)
said=$(grep -nxF "$again" "$TMP/stderr.$RUNS" | cut -d: -f1)
[ -n "$note" ] && [ -n "$said" ] && [ "$note" -lt "$said" ] && ok \
    || fail "not the note, then the line saying it was saved: '$(errors)'"
[ "$(saved_user_text "$DB")" = "first words kept words" ] && ok \
    || fail "the message was lost: saved '$(saved_user_text "$DB")'"
kept_reply "$DB"

# --- a reply's row fails while the quit waits: asked, and the note in the log ---------------
# busy_quit DB: "kept words" sent; the client held (gdb) where the reply's
# row is first written, the lock taken meanwhile; then F10 while that write
# waits for the lock.  Three checks; 1 when gdb could not attach.
busy_quit() {
    type_text "kept words"
    hold_start "$(tui_pid)" store_turn_finish || return 1
    keys Enter
    hold_hit && ok || fail "the reply's row was never written"
    hold_lock "$1" && ok || fail "no lock taken"
    hold_end
    keys F10
    check "F10 while the reply's save waited: asked, the exchange not saved" \
        '1 exchange is not saved: r retry, e export, q quit anyway, Esc back' 60
}
held_skip() {
    skip "$1" "gdb could not attach: $(hold_why)"
    tmx kill-server 2>/dev/null
    tui_finish
    exit
}

if ! command -v gdb >/dev/null 2>&1; then
    skip 18 "gdb not found: a quit while a reply's save waits is not driven"
    tui_finish
    exit
fi

DB=$TMP/asked.db
tui_start --seed 1 --max-tokens 6
first_words
busy_quit "$DB" || held_skip 17
keys Escape
check "Esc: back to the chat" 'not quit: what is not saved is tried again'
keys M-l
check "the note made while quitting is in the message log" \
    '[0-9:]{8}  error: saving the reply: ' 10
keys Escape
check_not "log closed" 'Messages \(newest first\)'
release_lock
tui_quit
grep -qxF "$again" "$TMP/stderr.$RUNS" && ok || fail "no line saying it was saved: '$(errors)'"
grep -q 'saving the reply' "$TMP/stderr.$RUNS" \
    && fail "the note the log had was printed again at a later exit: '$(errors)'" || ok

# --- ... the client ends from the question: the note on stderr, before the try's line -------
DB=$TMP/ends.db
tui_start --seed 1 --max-tokens 6
first_words
busy_quit "$DB" || held_skip 7
release_lock
keys r
wait_for '^EXIT=0' 40 && ok || fail "r once the lock was gone: no clean exit: $(screen | tail -3)"
note=$(grep -nE "^rwkv-tui: saving the reply: .*$locked" "$TMP/stderr.$RUNS" | cut -d: -f1)
said=$(grep -nxF "$again" "$TMP/stderr.$RUNS" | cut -d: -f1)
[ -n "$note" ] && ok || fail "the note made while quitting was lost: '$(errors)'"
[ -n "$note" ] && [ -n "$said" ] && [ "$note" -lt "$said" ] && ok \
    || fail "not both, in the order said: '$(errors)'"
[ "$(saved_user_text "$DB")" = "first words kept words" ] && ok \
    || fail "saved: '$(saved_user_text "$DB")'"
tui_finish
