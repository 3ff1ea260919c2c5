#!/usr/bin/env bash
# tests/cli/chat_db_gone_leave.sh -- the session database deleted while the
# line chat runs, and then no message saved (so no save found it):
#   - EOF (quit) right after the deletion.  Before, the runtime noticed only
#     at the next save: the quit was a silent exit 0 and the conversation
#     the file held was gone.  Now the quit looks at the file (a stat): the
#     leaving line names how many exchanges and why, exit 1.
#   - the same with a chat that has no exchange: one line says the file is
#     gone (nothing of this chat lost: exit 0), never a silent quit.
#   - /reset (the leaving rule) right after the deletion: before, it went
#     on and dropped the conversation without a word; now refused.
#   - /reset after a message found the file gone: refused with a line that
#     says the exchanges are only in memory and what can be done, not "try
#     again" (no retry can save to a file that is gone).
# Real processes on a real SQLite file, the demo model.
. "$(dirname "$0")/lib.sh"

# start NAME: a chat on $TMP/NAME.db whose first reply is saved; $D the file
start() {
    D=$TMP/$1.db
    chat_bg --demo --db "$D" --new "$1" --seed 1 --max-tokens 4
    printf 'first\n' >&3
    poll has_rows "$D" 'select id from turns where role=2' ||
        fail "$1: first reply not saved: $(cat "$TMP/err")"
}
# end: EOF, wait; $rc the exit status, $err the stderr
end() {
    exec 3>&-
    wait $pid
    rc=$?
    err=$(cat "$TMP/err")
}
lost="$TMP/[a-z]*\\.db: while in use, the session database was deleted"

# --- deleted, then quit at once: said, exit 1 -------------------------------------------
start idle
rm -f "$D" "$D-wal" "$D-shm"
end
[ $rc = 1 ] && ok || fail "idle: exit $rc after the file was deleted: $err"
printf '%s\n' "$err" | grep -qx "rwkv-tui: leaving with 1 exchange not saved ($lost): it is not in the session" &&
    ok || fail "idle: the leaving line: $err"
printf '%s\n' "$err" | grep -q 'goes on without saving' && fail "idle: a 'goes on' line at the quit: $err" || ok
[ ! -e "$D" ] && [ ! -e "$D-wal" ] && ok || fail "idle: something made at $D"

# --- no exchange at all: one line, exit 0 -------------------------------------------------
D=$TMP/empty.db
chat_bg --demo --db "$D" --new empty --seed 1 --max-tokens 4
poll rows_are "$D" 'select count(*) from sessions' 1 ||
    fail "empty: no session made: $(cat "$TMP/err")"
rm -f "$D" "$D-wal" "$D-shm"
end
[ $rc = 0 ] && ok || fail "empty: exit $rc: $err"
printf '%s\n' "$err" | grep -qx "rwkv-tui: $lost (this chat had nothing in it to lose)" && ok ||
    fail "empty: the quit was silent or wrong: $err"

# --- deleted, then /reset at once: refused, the conversation kept ---------------------------
start reset
rm -f "$D" "$D-wal" "$D-shm"
printf '/reset\n/history\n' >&3
end
way="so this chat stays: quit with /quit \\(it is lost then\\), or go on here; no retry can save it \\($lost\\)"
printf '%s\n' "$err" | grep -qE "^rwkv-tui: 1 exchange is only in memory, $way$" && ok ||
    fail "reset: not refused: $err"
printf '%s\n' "$err" | grep -q 'conversation reset' && fail "reset: the conversation was dropped: $err" || ok
[ $rc = 1 ] && printf '%s\n' "$err" | grep -q 'leaving with 1 exchange not saved' && ok ||
    fail "reset: exit $rc: $err"

# --- deleted, found by a save, then /reset: no "try again" -----------------------------------
start again
rm -f "$D" "$D-wal" "$D-shm"
printf 'second\n' >&3
poll grep -q 'goes on without saving' "$TMP/err" || fail "again: deletion not told: $(cat "$TMP/err")"
printf '/reset\n' >&3
end
printf '%s\n' "$err" | grep -qE "^rwkv-tui: 2 exchanges are only in memory, $way$" && ok ||
    fail "again: the refusal: $err"
printf '%s\n' "$err" | grep -q 'try again' && fail "again: 'try again' promised: $err" || ok
[ $rc = 1 ] && ok || fail "again: exit $rc"
finish
