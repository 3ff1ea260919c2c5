#!/usr/bin/env bash
# tests/cli/write_full_disk.sh -- a file written to a full disk is refused
# with the disk's own error, "No space left on device", whatever the size
# of the write (core/io/fileio.c: every file goes through rwkv_atomic, whose
# stream keeps the failing write's errno).  /dev/full fails every write with
# ENOSPC.  Before, a block larger than stdio's buffer (an export of a long
# session, a state) failed in fwrite itself, the commit's fflush found
# nothing left to fail on and only the error flag was seen: "Input/output
# error".
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
if [ ! -w /dev/full ]; then
    skip 6 "/dev/full not available"
    finish
    exit
fi
DB=$TMP/s.db
long=$(head -c 3000 /dev/zero | tr '\0' a)
printf '%s\n%s\n%s\n' "$long" "$long" "$long" |
    "$T" chat --demo --db "$DB" --new big --max-tokens 4 >/dev/null 2>&1 && ok || fail "chat"
"$T" sessions --db "$DB" export 1 --out "$TMP/x.txt" && ok || fail "export to a file"
[ "$(stat -c %s "$TMP/x.txt")" -gt 8192 ] && ok || fail "the export is not larger than a buffer"
expect_fail "a long export to a full disk" \
    '^rwkv-tui: /dev/full: cannot write: No space left on device$' \
    "$T" sessions --db "$DB" export 1 --out /dev/full
expect_fail "a state to a full disk" \
    '^rwkv-tui: /dev/full: cannot write: No space left on device$' \
    "$T" eval --demo --tokens 1,2 --out "$TMP/l.bin" --state-out /dev/full
expect_fail "a short write to a full disk" \
    '^rwkv-tui: /dev/full: cannot write: No space left on device$' \
    "$T" eval --demo --tokens 1,2 --out /dev/full
finish
