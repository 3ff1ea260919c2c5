#!/usr/bin/env bash
# tests/cli/chat_disk_full.sh -- a line chat on a full disk (a small tmpfs):
# the session's row fits, its greeting turn (a state) does not.  The chat
# answers every message, one line says what failed and why, once, and no
# session is announced that is not there (before: `--new TITLE` said "new
# session 1: TITLE", then "could not create the session" and exited 1
# without answering; without --new each message announced "new session N"
# of a session deleted again at once).  Once there is room again, the
# session is made -- under the title given -- with the exchanges kept out.
# Needs root and mount(8): skipped otherwise.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
full_disk_mnt 34
D=$MNT/a.db

# fill: an empty database, then the disk filled but for 1800 KiB -- room for
# the session's row, not for its greeting turn's state and the -wal
fill() {
    rm -f "$MNT"/*
    "$T" sessions --db "$D" list >/dev/null 2>&1
    cat /dev/zero >"$MNT/fill" 2>/dev/null
    truncate -s $(( $(stat -c %s "$MNT/fill") - 1800 * 1024 )) "$MNT/fill"
}
# announced_exist WHAT: one "new session N" at most, and N is in the file
# (before: one a message, each deleted again at once)
announced_exist() {
    local ids n id bad=""
    ids=$(sed -n 's/^new session \([0-9]*\): .*/\1/p' "$TMP/err")
    n=$(printf '%s' "$ids" | grep -c '')
    for id in $ids; do "$T" sessions --db "$D" show "$id" >/dev/null 2>&1 || bad="$bad $id"; done
    [ "$n" -le 1 ] && [ -z "$bad" ] && ok || fail "$1: sessions announced: $n, not there:$bad: $(cat "$TMP/err")"
}

# --- --new TITLE, no room for the session's start -----------------------------------------
fill
printf 'one\ntwo\n' | "$T" chat --demo --db "$D" --new mytitle --seed 1 --max-tokens 3 \
    >"$TMP/out" 2>"$TMP/err"
rc=$?
err=$(cat "$TMP/err")
[ "$(chat_replies)" = 2 ] && ok || fail "--new: not every message answered: $(cat "$TMP/out") / $err"
[ "$(grep -c '^rwkv-tui: saving' "$TMP/err")" = 1 ] && ok || fail "--new: not one line for the failed saves: $err"
grep -Eq '^rwkv-tui: saving (the new session|the greeting): .*disk full.*the chat goes on' "$TMP/err" && ok \
    || fail "--new: the failure line: $err"
announced_exist "--new"
grep -q 'could not create' "$TMP/err" && fail "--new: the chat refused: $err" || ok
# leaving, the exchanges not saved are named, status 1 (chat_quit_unsaved.sh)
[ $rc = 1 ] && ok || fail "--new: exit $rc: $err"
grep -q '^rwkv-tui: leaving with 2 exchanges not saved' "$TMP/err" && ok || fail "--new: the leaving line: $err"
# a try's row whose delete failed too (the -wal took the last bytes) is
# deleted by the next try: one empty session left at most, none announced
[ "$("$T" sessions --db "$D" list 2>/dev/null | grep -c ' 0  mytitle$')" -le 1 ] &&
    [ "$("$T" sessions --db "$D" list 2>/dev/null | grep -c mytitle)" -le 1 ] && ok \
    || fail "--new: session rows left: $("$T" sessions --db "$D" list 2>&1)"

# --- --db alone: each message tries, none announces a session --------------------------
fill
printf 'one\ntwo\nthree\n' | "$T" chat --demo --db "$D" --seed 1 --max-tokens 3 \
    >"$TMP/out" 2>"$TMP/err"
err=$(cat "$TMP/err")
[ "$(chat_replies)" = 3 ] && ok || fail "--db: not every message answered: $err"
[ "$(grep -c '^rwkv-tui: saving' "$TMP/err")" = 1 ] && ok || fail "--db: not one line for the failed saves: $err"
announced_exist "--db"

# --- room again: the session is made, under its title, with what was kept out ---------
fill
chat_bg --demo --db "$D" --new mytitle --seed 1 --max-tokens 3
printf 'one\n' >&3
poll chat_replied 1 && ok || fail "no reply to 'one': $(cat "$TMP/err")"
rm -f "$MNT/fill"
printf 'two\n' >&3
exec 3>&-
wait $pid && ok || fail "exit $? once saving works: $(cat "$TMP/err")"
err=$(cat "$TMP/err")
[ "$(grep -Ec '^new session [0-9]+: mytitle$' "$TMP/err")" = 1 ] && ok \
    || fail "the session announced once it is there: $err"
sid=$(sed -n 's/^new session \([0-9]*\): mytitle$/\1/p' "$TMP/err")
grep -qxF "saving works again: the earlier exchange not saved is in session $sid now" "$TMP/err" && ok \
    || fail "no line when saving worked again: $err"
out=$("$T" sessions --db "$D" show "${sid:-0}" 2>&1)
users=$(printf '%s\n' "$out" | grep -A1 '^#[0-9]* user' | grep -v '^#\|^--' | tr '\n' ' ')
[ "$users" = "one two " ] && ok || fail "saved messages: '$users': $out"
printf '%s\n' "$out" | grep -q 'mytitle' && printf '%s\n' "$out" | grep -q '^#[0-9]* system' && ok \
    || fail "the session's title or greeting turn: $out"
[ "$("$T" sessions --db "$D" list 2>/dev/null | grep -c mytitle)" = 1 ] && ok \
    || fail "one session: $("$T" sessions --db "$D" list 2>&1)"

# --- a new database on a full disk (0 KiB free) or a nearly full one (300 KiB: less
# than its schema needs): the chat answered nothing ("PATH: disk full", exit 1).  It
# answers every message, one line says the disk is full, the leaving line names
# what is not saved (exit 1), and nothing is left on the disk
for free in 0 300; do
    rm -f "$MNT"/*
    cat /dev/zero >"$MNT/fill" 2>/dev/null
    truncate -s $(( $(stat -c %s "$MNT/fill") - free * 1024 )) "$MNT/fill"
    printf 'one\ntwo\n' | "$T" chat --demo --db "$D" --new mytitle --seed 1 --max-tokens 3 \
        >"$TMP/out" 2>"$TMP/err"
    rc=$?
    err=$(cat "$TMP/err")
    [ "$(chat_replies)" = 2 ] && ok || fail "new db, $free KiB free: not every message answered: $err"
    [ "$(grep -c '^rwkv-tui: saving' "$TMP/err")" = 1 ] &&
        grep -q '^rwkv-tui: saving .*a\.db: disk full.*the chat goes on' "$TMP/err" && ok \
        || fail "new db, $free KiB free: the one line: $err"
    [ $rc = 1 ] && grep -q '^rwkv-tui: leaving with 2 exchanges not saved (.*disk full' "$TMP/err" && ok \
        || fail "new db, $free KiB free: exit $rc: $err"
    [ "$(ls -A "$MNT")" = fill ] && ok || fail "new db, $free KiB free: left: $(ls -A "$MNT")"
done
# ... and once there is room, the session is made with the exchange kept out
rm -f "$MNT"/*
cat /dev/zero >"$MNT/fill" 2>/dev/null
chat_bg --demo --db "$D" --new mytitle --seed 1 --max-tokens 3
printf 'one\n' >&3
poll chat_replied 1 && ok || fail "new db: no reply to 'one': $(cat "$TMP/err")"
rm -f "$MNT/fill"
printf 'two\n' >&3
exec 3>&-
wait $pid && ok || fail "new db: exit $? once saving works: $(cat "$TMP/err")"
grep -qxF "saving works again: the earlier exchange not saved is in session 1 now" "$TMP/err" && ok \
    || fail "new db: no line when saving worked again: $(cat "$TMP/err")"
users=$("$T" sessions --db "$D" show 1 2>&1 | grep -A1 '^#[0-9]* user' | grep -v '^#\|^--' | tr '\n' ' ')
[ "$users" = "one two " ] && ok || fail "new db: saved messages: '$users'"

# --- a model not yet in the file, the disk full before the chat starts --------------------
# Its row is a failed save, not a failed start (it exited 1 before the
# first message); and a row whose INSERT ... RETURNING was finalized after
# its row, the commit failing unseen, was taken as saved: every session
# then failed on "FOREIGN KEY constraint failed".
if have_fixture models/tiny-7v0-fp32.pth 4; then
    rm -f "$MNT"/*
    printf 'zero\n' | "$T" chat --demo --db "$D" --seed 1 --max-tokens 2 >/dev/null 2>&1
    # room to open the file (its 32 KiB -shm and a -wal page), not to add a row
    cat /dev/zero >"$MNT/fill" 2>/dev/null
    truncate -s $(( $(stat -c %s "$MNT/fill") - 36 * 1024 )) "$MNT/fill"
    printf 'one\ntwo\n' | "$T" chat --model "$FX/models/tiny-7v0-fp32.pth" --db "$D" --seed 1 \
        --max-tokens 3 >"$TMP/out" 2>"$TMP/err"
    err=$(cat "$TMP/err")
    [ "$(chat_replies)" = 2 ] && ok || fail "model row: not every message answered: $err"
    [ "$(grep -c '^rwkv-tui: saving' "$TMP/err")" = 1 ] && ok || fail "model row: not one line: $err"
    grep -q '^rwkv-tui: saving the model row: .*disk full' "$TMP/err" && ok || fail "model row: the line: $err"
    grep -q 'FOREIGN KEY' "$TMP/err" && fail "model row: a session made on a row not there: $err" || ok
fi
finish
