#!/usr/bin/env bash
# tests/cli/chat_term_unsaved.sh -- SIGTERM (or SIGHUP) to a line chat while
# a message's save waits for another program's lock, before its reply began:
# the message is kept (storage/session.h, sess_abandon), so the way out
# writes it when the lock is gone, or names it as not saved when it is
# still held.  Before, the runtime dropped it with its cut prefill: nothing
# was left for the way out to write or count, the exit said nothing of it
# ("message dropped", while the note said it would be tried again), and
# the words were lost.  Real files in a temp dir, the real binary; another
# program (python3's sqlite3) holds the database's write lock past the busy
# time (10 s).
. "$(dirname "$0")/lib.sh"
q() { sqlite3 "$1" "$2" 2>/dev/null; }

if ! command -v sqlite3 >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    skip 13 "sqlite3 or python3 not found"
    finish
    exit
fi

# saved DB: the messages of session 1 in order, one line
saved() { q "$1" "select group_concat(text, ' ') from (select text from turns where role=1 order by depth)"; }
rchar() { sed -n 's/^rchar: //p' "/proc/$pid/io" 2>/dev/null; }
failed_note() { grep -q 'saving your message: .*database is locked' "$TMP/err"; }

# term_in_save DB: "one" said and saved, the lock taken, "two" sent; once
# the chat has read it (its read count moved: it waits for the lock in the
# message's save) SIGTERM.  Two checks.
term_in_save() {
    local before
    chat_bg --demo --db "$1" --new kept --seed 1 --max-tokens 6
    printf 'one\n' >&3
    poll sh -c "[ \"\$(sqlite3 '$1' 'select count(*) from turns where role=2 and interrupted=0' 2>/dev/null)\" = 1 ]" \
        && ok || fail "the first reply was not saved: $(cat "$TMP/err")"
    hold_lock "$1" && ok || fail "no lock taken on $1"
    before=$(rchar)
    printf 'two\n' >&3
    if [ -n "$before" ]; then
        poll sh -c "[ \"\$(sed -n 's/^rchar: //p' /proc/$pid/io 2>/dev/null)\" != '$before' ]" \
            || fail "the chat did not read the message"
        sleep 0.5                       # into the save's wait (10 s)
    else
        sleep 2                         # no /proc/PID/io: well inside that wait
    fi
    kill -TERM $pid
}

# --- the lock still held on the way out: named as not saved ----------------------------------
D=$TMP/held.db
term_in_save "$D"
wait $pid
rc=$?
exec 3>&-
release_lock
err=$(cat "$TMP/err")
[ $rc = 143 ] && ok || fail "SIGTERM: exit $rc, want 143: $err"
failed_note && ok || fail "the message's save did not fail under the lock: $err"
printf '%s\n' "$err" | grep -qx "rwkv-tui: leaving with 1 exchange not saved ($D: .*database is locked.*): it is not in the session" \
    && ok || fail "the kept message was not named as not saved: $err"
printf '%s\n' "$err" | grep -q 'message dropped' && fail "said dropped, but kept: $err" || ok
[ "$(saved "$D")" = "one" ] && ok || fail "saved: '$(saved "$D")'"

# --- the lock gone while the chat leaves: the message written, its reply empty, interrupted --
D=$TMP/freed.db
term_in_save "$D"
poll failed_note || fail "the message's save did not fail under the lock: $(cat "$TMP/err")"
release_lock
wait $pid
rc=$?
exec 3>&-
err=$(cat "$TMP/err")
[ $rc = 143 ] && ok || fail "SIGTERM: exit $rc, want 143: $err"
printf '%s\n' "$err" | grep -qxF "saving works again: the earlier exchange not saved is in session 1 now" \
    && ok || fail "no line saying it was saved: $err"
[ "$(saved "$D")" = "one two" ] && ok || fail "the kept message was lost: saved '$(saved "$D")': $err"
[ "$(q "$D" "select r.interrupted || ',' || r.text || ',' || length(coalesce(r.tokens, x'')) from turns u join turns r on r.parent_id=u.id where u.role=1 and u.text='two'")" = "1,,0" ] \
    && ok || fail "its reply is not one empty interrupted row: $(q "$D" 'select id, parent_id, role, interrupted, text from turns')"
finish
