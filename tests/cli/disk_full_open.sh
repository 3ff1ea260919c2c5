#!/usr/bin/env bash
# tests/cli/disk_full_open.sh -- an existing session database, closed
# cleanly (no -wal, no -shm beside it), on a disk that is full.  To read a
# WAL database SQLite makes its 32 KiB -shm, which a full disk refuses: every
# command failed with "open: disk I/O error" (list, show, export, search,
# chat --resume) and left a -wal and a 3-byte -shm behind.  Now the readers
# read it (read-only), the chat opens the session and answers, its failed
# saves said as a full disk's (one line) and named on leaving (exit 1), a
# writing `sessions` command fails in one line saying the disk is full, and
# nothing is left beside the file.  Room again while the chat runs: its next
# message saves, the exchange kept out first.
# Needs root and mount(8): skipped otherwise.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
full_disk_mnt 19
D=$MNT/a.db

# what is beside the database and the filler: nothing
strays() { ls -A "$MNT" | grep -v '^a\.db$' | grep -v '^fill$' | tr '\n' ' '; }
users() { "$T" sessions --db "$D" show 1 2>&1 | grep -A1 '^#[0-9]* user' | grep -v '^#\|^--' | tr '\n' ' '; }

printf 'one\n' | "$T" chat --demo --db "$D" --new first --seed 1 --max-tokens 3 >/dev/null 2>&1
[ -s "$D" ] && [ -z "$(strays)" ] && ok || fail "setup: $(ls -l "$MNT")"
cat /dev/zero >"$MNT/fill" 2>/dev/null

# --- the readers ------------------------------------------------------------------------
out=$("$T" sessions --db "$D" list 2>&1); rc=$?
[ $rc = 0 ] && grep -q ' first$' <<<"$out" && ok || fail "list: exit $rc: $out"
out=$("$T" sessions --db "$D" show 1 2>&1); rc=$?
[ $rc = 0 ] && grep -q '^#[0-9]* user' <<<"$out" && ok || fail "show: exit $rc: $out"
"$T" sessions --db "$D" export 1 --out "$TMP/rescue.json" 2>"$TMP/err"; rc=$?
[ $rc = 0 ] && grep -q '"one"' "$TMP/rescue.json" && ok || fail "export: exit $rc: $(cat "$TMP/err")"
out=$("$T" sessions --db "$D" search one 2>&1); rc=$?
[ $rc = 0 ] && grep -q 'session 1 ' <<<"$out" && ok || fail "search: exit $rc: $out"
[ -z "$(strays)" ] && ok || fail "the readers left: $(strays)"

# --- a writing command: one line, the disk full ------------------------------------------
rc_is "rename on a full disk" 1 '^rwkv-tui: renaming session 1: .*a\.db: disk full' \
    "$T" sessions --db "$D" rename 1 other
[ -z "$(strays)" ] && ok || fail "rename left: $(strays)"

# --- the chat: it resumes and answers, the saves fail ------------------------------------
printf 'two\nthree\n' | "$T" chat --demo --db "$D" --resume --seed 2 --max-tokens 3 \
    >"$TMP/out" 2>"$TMP/err"
rc=$?
err=$(cat "$TMP/err")
grep -q '^resumed session 1: first' "$TMP/err" && ok || fail "resume: $err"
[ "$(chat_replies)" = 2 ] && ok || fail "not every message answered: $err"
[ "$(grep -c '^rwkv-tui: saving' "$TMP/err")" = 1 ] &&
    grep -q '^rwkv-tui: saving your message: .*a\.db: disk full' "$TMP/err" && ok \
    || fail "the failed saves' line: $err"
grep -q 'disk I/O error' "$TMP/err" && fail "disk I/O error: $err" || ok
[ $rc = 1 ] && grep -q '^rwkv-tui: leaving with 2 exchanges not saved (.*disk full.*): they are not in the session$' \
    "$TMP/err" && ok || fail "leaving: exit $rc: $err"
[ -z "$(strays)" ] && ok || fail "the chat left: $(strays)"
[ "$(users)" = "one " ] && ok || fail "the session changed: $(users)"

# --- room again while the chat runs: the next message saves --------------------------------
chat_bg --demo --db "$D" --resume --seed 2 --max-tokens 3
printf 'four\n' >&3
poll chat_replied 1 && ok || fail "no reply to 'four': $(cat "$TMP/err")"
rm -f "$MNT/fill"
printf 'five\n' >&3
exec 3>&-
wait $pid && ok || fail "exit $? once there is room: $(cat "$TMP/err")"
grep -qxF "saving works again: the earlier exchange not saved is in session 1 now" "$TMP/err" && ok \
    || fail "no line when saving worked again: $(cat "$TMP/err")"
[ "$(users)" = "one four five " ] && ok || fail "saved messages: $(users)"
finish
