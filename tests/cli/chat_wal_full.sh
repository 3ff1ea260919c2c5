#!/usr/bin/env bash
# tests/cli/chat_wal_full.sh -- the disk fills up while the line chat runs,
# after its first exchange is saved: the next saves need the -wal to grow
# (it is cut to nothing after each save) and cannot.  The chat answers
# every message; one line says what failed and why, once; nothing saved
# before is lost (the file reads whole, the first exchange in it); no
# crash.  Quit while still full: the leaving line, exit 1.  Room again
# before the quit: the exchanges kept out are written ("saving works
# again").  (chat_disk_full.sh: a disk full before the session starts.)
# Needs root and mount(8): skipped otherwise.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
full_disk_mnt 10
D=$MNT/a.db

# start: a chat whose first exchange is saved, then the disk filled
start() {
    rm -f "$MNT"/*
    chat_bg --demo --db "$D" --new full --seed 1 --max-tokens 8
    printf 'first\n' >&3
    poll rows_are "$D" 'select count(*) from turns where role=2 and interrupted=0' 1 ||
        fail "the first exchange was not saved: $(cat "$TMP/err")"
    cat /dev/zero >"$MNT/fill" 2>/dev/null
}
users() { sql_rows "$D" 'select text from turns where role=1 order by depth' | tr '\n' ' '; }

# --- full to the end --------------------------------------------------------------------------
start
printf 'second\nthird\n' >&3
poll chat_replied 3 || true
exec 3>&-
wait $pid
rc=$?
err=$(cat "$TMP/err")
[ "$(chat_replies)" = 3 ] && ok || fail "full: not every message answered: $(cat "$TMP/out")"
[ "$(printf '%s\n' "$err" | grep -c 'disk full')" = 2 ] && ok || fail "full: not one line, then the leaving line: $err"
printf '%s\n' "$err" | grep -q "^rwkv-tui: saving your message: $D: disk full (nothing was saved) (the chat goes on; what is not saved is tried again with your next message)$" &&
    ok || fail "full: the line: $err"
[ $rc = 1 ] && printf '%s\n' "$err" | grep -q "^rwkv-tui: leaving with 2 exchanges not saved ($D: disk full (nothing was saved)): they are not in the session$" &&
    ok || fail "full: exit $rc, the leaving line: $err"
rm -f "$MNT/fill"
[ "$(sql_rows "$D" 'pragma integrity_check')" = ok ] && ok || fail "full: the file is damaged"
[ "$(users)" = "first " ] && ok || fail "full: saved: '$(users)'"
"$T" sessions --db "$D" show 1 >/dev/null 2>&1 && ok || fail "full: session 1 does not read"

# --- room again before the quit: written then ------------------------------------------------
start
printf 'second\n' >&3
poll grep -q 'disk full' "$TMP/err" || fail "room: the save did not fail: $(cat "$TMP/err")"
poll chat_replied 2 || fail "room: no second reply"
rm -f "$MNT/fill"
exec 3>&-
wait $pid
rc=$?
err=$(cat "$TMP/err")
[ $rc = 0 ] && ok || fail "room: exit $rc: $err"
printf '%s\n' "$err" | grep -q 'saving works again: the earlier exchange not saved is in session 1 now' &&
    ok || fail "room: not written at the quit: $err"
[ "$(users)" = "first second " ] && ok || fail "room: saved: '$(users)'"
finish
