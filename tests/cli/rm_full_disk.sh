#!/usr/bin/env bash
# tests/cli/rm_full_disk.sh -- deleting to make room on a full disk.  The
# SQLite of Debian and Ubuntu is built with SECURE_DELETE: every page a
# delete freed was zeroed through the WAL, so `sessions rm` of a session
# needed as much free space as its states took (and wrote it twice), and on
# a full disk it failed "disk full (nothing was saved)" -- the one command
# meant to make room.  The vacuum after it moved as many pages again in one
# go, through the WAL too (a session deleted before another: the other's
# pages move into the hole).  Now a delete needs room for the pages it
# changes (a few), the vacuum goes in steps when the disk is full, and the
# file shrinks with no free page left.  Same for `sessions budget` pruning
# states on a full disk.
# Needs root and mount(8): skipped otherwise.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
full_disk_mnt 12
D=$MNT/a.db

# fill: the disk full but for about 1.5 MiB
fill() {
    local avail
    rm -f "$MNT/fill"
    avail=$(df -k "$MNT" | awk 'NR==2 {print $4}')
    dd if=/dev/zero of="$MNT/fill" bs=1k count=$((avail - 1536)) 2>/dev/null
}
# a session of N messages (its own words: no state shared), its states MBs
chat_n() {
    local n=$1 title=$2 seed=$3 i
    for i in $(seq "$n"); do echo "$title message $i"; done |
        "$T" chat --demo --db "$D" --new "$title" --seed "$seed" --max-tokens 3 >/dev/null 2>"$TMP/err" ||
        fail "chat $title: $(cat "$TMP/err")"
}
size() { stat -c %s "$D"; }

# --- rm: session 1 (first in the file), session 2 after it -----------------------------
chat_n 50 big 1
chat_n 50 other 2
s0=$(size)
fill
out=$("$T" sessions --db "$D" rm 1 2>&1); rc=$?
[ $rc = 0 ] && [ "$out" = "deleted session 1" ] && ok || fail "rm on a full disk: exit $rc: $out"
out=$("$T" sessions --db "$D" list 2>&1)
grep -q ' other$' <<<"$out" && ! grep -q ' big$' <<<"$out" && ok || fail "list after rm: $out"
s1=$(size)
[ "$s1" -lt $((s0 - 1048576)) ] && ok || fail "the file did not shrink: $s0 -> $s1 bytes"
[ ! -e "$D-wal" ] || [ ! -s "$D-wal" ] && ok || fail "a WAL left: $(ls -l "$MNT")"
out=$("$T" sessions --db "$D" show 2 2>&1)
grep -q '^other message 2$' <<<"$out" && ok || fail "show 2 after rm: $out"
rm -f "$MNT/fill"
rows_are "$D" "PRAGMA integrity_check" ok && ok || fail "integrity: $(sql_rows "$D" 'PRAGMA integrity_check')"
rows_are "$D" "PRAGMA freelist_count" 0 && ok || fail "free pages left: $(sql_rows "$D" 'PRAGMA freelist_count')"

# --- budget: the states of a session pruned on a full disk ------------------------------
rm -f "$MNT/fill" "$D"
chat_n 80 big 1
chat_n 2 small 2
s0=$(size)
fill
out=$("$T" sessions --db "$D" budget 300kB 2>&1); rc=$?
[ $rc = 0 ] && ok || fail "budget on a full disk: exit $rc: $out"
s1=$(size)
[ "$s1" -lt $((s0 - 1048576)) ] && ok || fail "budget: the file did not shrink: $s0 -> $s1 bytes"
out=$("$T" sessions --db "$D" budget 2>&1)
grep -q '^saved states: [0-9]* kB in [0-9]* states; budget: 300 kB' <<<"$out" && ok ||
    fail "budget after: $out"
out=$("$T" sessions --db "$D" show 1 2>&1)
[ "$(grep -c '^#[0-9]* user' <<<"$out")" = 80 ] && ok || fail "show 1 after budget: $out"
rm -f "$MNT/fill"
rows_are "$D" "PRAGMA integrity_check" ok && ok || fail "integrity: $(sql_rows "$D" 'PRAGMA integrity_check')"
finish
