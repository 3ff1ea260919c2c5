#!/usr/bin/env bash
# tests/tui/disk_full_start.sh -- the full-screen client started on a full
# disk, as the line chat is (tests/cli/disk_full_open.sh, chat_disk_full.sh):
# a database there already (closed cleanly: no -wal, no -shm) and a new one.
# Before, it did not start ("PATH: open: disk I/O error" for the one there,
# "PATH: disk full (nothing was saved)" for a new one, exit 1).  Now it
# starts, F2 lists the sessions there, a message is answered and its failed
# save said (disk full), F10 asks about the exchange not saved, q quits with
# the leaving line (exit 1), and nothing is left beside the file.
# Needs root and mount(8): skipped otherwise.
. "$(dirname "$0")/tmuxlib.sh"
T=$RWKV_TUI
MNT=$TMP/mnt
mkdir -p "$MNT"
if ! is_root || ! mount -t tmpfs -o size=8m tmpfs "$MNT" 2>/dev/null; then
    skip 17 "a full disk needs a tmpfs: not root, or mount failed"
    finish
    exit
fi
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; umount "$MNT" 2>/dev/null; rm -rf "$TMP"' EXIT
strays() { ls -A "$MNT" | grep -v '^a\.db$' | grep -v '^fill$' | tr '\n' ' '; }

# one_chat WHAT: the client on $MNT/a.db, the disk full: it starts, says
# the disk is full once (the model row of a new file at the start, else the
# message's save), answers, asks at F10, q quits with exit 1.  Seven checks.
one_chat() {
    NODEMO=1 tui_start --demo --db "$MNT/a.db" --seed 1 --max-tokens 3
    screen | grep -q '^EXIT=' && fail "$1: did not start: $(cat "$TMP/stderr.$RUNS")" || ok
    if [ "$1" = new ]; then
        check "$1: the failed save said" 'saving the model row: .*a\.db: disk full' 20
        keys Escape
    fi
    type_text "two"
    send
    check "$1: answered" 'RWKV .* 3 tok' 20
    if [ "$1" != new ]; then
        check "$1: the failed save said" 'saving .*a\.db: .*disk full' 20
        keys Escape
    fi
    keys F10
    check "$1: F10 asks" '1 exchange is not saved: r retry, e export, q quit anyway' 20
    keys q
    wait_exit 1 30 && ok || fail "$1: q: no exit 1: $(screen_rows | grep EXIT)"
    grep -q 'leaving with 1 exchange not saved (.*disk full' "$TMP/stderr.$RUNS" && ok \
        || fail "$1: the leaving line: $(cat "$TMP/stderr.$RUNS")"
    [ -z "$(strays)" ] && ok || fail "$1: left beside the file: $(strays)"
}

# --- a database there already -----------------------------------------------------------
printf 'one\n' | "$T" chat --demo --db "$MNT/a.db" --new first --seed 1 --max-tokens 3 >/dev/null 2>&1
[ -s "$MNT/a.db" ] && [ -z "$(strays)" ] && ok || fail "setup: $(ls -l "$MNT")"
cat /dev/zero >"$MNT/fill" 2>/dev/null
NODEMO=1 tui_start --demo --db "$MNT/a.db"
f2_find first
keys Escape
keys F10
wait_exit 0 30 && ok || fail "F10 without a message: no clean exit: $(cat "$TMP/stderr.$RUNS")"
one_chat "there already"

# --- a new database -----------------------------------------------------------------------
rm -f "$MNT"/*
cat /dev/zero >"$MNT/fill" 2>/dev/null
one_chat "new"
tui_finish
