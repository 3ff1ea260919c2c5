#!/usr/bin/env bash
# tests/cli/first_save_atomic.sh -- a new session's first save is one write
# (storage/session_db.c, first_begin): its row, framing, greeting, first
# exchange and states are all in the file, or none of it.  A first save
# that fails part-way (the file-size limit, a full disk) leaves no row and
# takes no id, so the session a later save makes is session 1, the only one,
# whole.  Before, each part was a commit of its own: a try's session row was
# written, its greeting failed, the row was deleted again -- and its id was
# gone for good (ids are never given twice, schema v6): after two failed
# messages the first session saved was session 3.
# Part 1: `ulimit -f` (any user).  Part 2: a full tmpfs in one running chat
# (needs root and mount(8): skipped otherwise).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
N_CHECKS2=7

replies() { grep -c '^Assistant:' "$1"; }
# no_rows DB WHAT: no session, turn or state, and no id taken
no_rows() {
    rows_are "$1" "SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM turns),
                   (SELECT count(*) FROM snapshots)" "0|0|0" && ok \
        || fail "$2: rows left: $(sql_rows "$1" "SELECT id, title FROM sessions") / turns: \
$(sql_rows "$1" "SELECT count(*) FROM turns")"
    rows_are "$1" "SELECT group_concat(seq) FROM id_seq" "0,0" && ok \
        || fail "$2: ids taken: $(sql_rows "$1" "SELECT name, seq FROM id_seq")"
}
# only_one DB TITLE USERS: `sessions list` shows session 1 alone, titled
# TITLE, whose turns are a greeting and the messages USERS (space-ended)
# with their replies, every turn in it
only_one() {
    local list users
    list=$("$T" sessions --db "$1" list 2>&1)
    [ "$(printf '%s\n' "$list" | grep -c '^ *[0-9]')" = 1 ] &&
        printf '%s\n' "$list" | grep -Eq "^ +1 .* $2\$" && ok \
        || fail "not session 1 alone: $list"
    users=$(sql_rows "$1" "SELECT text FROM turns WHERE role=1 ORDER BY id" | tr '\n' ' ')
    [ "$users" = "$3" ] && ok || fail "saved messages: '$users'"
    rows_are "$1" "SELECT count(*) FROM turns WHERE session_id<>1 OR session_id IS NULL" 0 &&
        rows_are "$1" "SELECT role FROM turns WHERE parent_id IS NULL" 0 && ok \
        || fail "partial rows: $(sql_rows "$1" "SELECT id, session_id, parent_id, role FROM turns")"
}

# --- 1: the file-size limit, two processes --------------------------------------------------
D=$TMP/a.db
printf '' | "$T" chat --demo --db "$D" >/dev/null 2>&1   # the file, its schema
[ -s "$D" ] && ok || fail "no database made"
# room for the session's row, not for its greeting's state: the try fails
# part-way, for each message
(ulimit -f 400; printf 'one\ntwo\n' | "$T" chat --demo --db "$D" --seed 1 --max-tokens 3 \
    >"$TMP/out" 2>"$TMP/err")
err=$(cat "$TMP/err")
[ "$(replies "$TMP/out")" = 2 ] && ok || fail "limit: not every message answered: $err"
grep -q '^rwkv-tui: saving .*file-size limit' "$TMP/err" && ok || fail "limit: the failure line: $err"
grep -q '^new session' "$TMP/err" && fail "limit: a session announced: $err" || ok
no_rows "$D" "limit"
# --new TITLE: the same, the session made at the start
(ulimit -f 400; printf 'one\n' | "$T" chat --demo --db "$D" --new early --seed 1 --max-tokens 3 \
    >"$TMP/out" 2>"$TMP/err")
no_rows "$D" "--new under the limit"
# no limit: the session made now is session 1, whole
printf 'three\n' | "$T" chat --demo --db "$D" --seed 1 --max-tokens 3 >"$TMP/out" 2>"$TMP/err"
grep -qx 'new session 1: three' "$TMP/err" && ok || fail "not session 1 announced: $(cat "$TMP/err")"
only_one "$D" three "three "

# --- 2: a full disk in one chat, then room again ------------------------------------------
MNT=$TMP/mnt
mkdir -p "$MNT"
if ! is_root || ! mount -t tmpfs -o size=8m tmpfs "$MNT" 2>/dev/null; then
    skip $N_CHECKS2 "a full disk needs a tmpfs: not root, or mount failed"
    finish
    exit
fi
trap 'umount "$MNT" 2>/dev/null; rm -rf "$TMP"' EXIT
D=$MNT/b.db
# 1800 KiB left: the new file's schema and the session's row fit, not its
# greeting's state and the -wal (chat_disk_full.sh)
cat /dev/zero >"$MNT/fill" 2>/dev/null
truncate -s $(( $(stat -c %s "$MNT/fill") - 1800 * 1024 )) "$MNT/fill"
chat_bg --demo --db "$D" --seed 1 --max-tokens 3
printf 'one\n' >&3
poll sh -c "[ \$(grep -c '^Assistant:' '$TMP/out') -ge 1 ]" && ok || fail "no reply to 'one': $(cat "$TMP/err")"
printf 'two\n' >&3
poll sh -c "[ \$(grep -c '^Assistant:' '$TMP/out') -ge 2 ]" && ok || fail "no reply to 'two': $(cat "$TMP/err")"
no_rows "$D" "full disk"
rm -f "$MNT/fill"
printf 'three\n' >&3
exec 3>&-
wait $pid
only_one "$D" one "one two three "
finish
