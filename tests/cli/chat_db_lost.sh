#!/usr/bin/env bash
# tests/cli/chat_db_lost.sh -- the session database taken away under a
# running line chat (`rwkv-tui chat --demo --db F`): truncated (: > F),
# deleted, renamed over by another database (mv), overwritten in place
# (cp notes.txt F); and its -wal deleted, which is mended instead (nothing
# lost, saving goes on).  (Another database copied over it in place is told by
# the session's identity when SQLite reads the copy: test_store_file.c.)  The chat answers every message; at the next save one
# line says what happened to which file and that the chat goes on without
# saving, as with --no-db; the file is left as the user made it.  Real files
# in a temp dir, the real binary; the messages go through a FIFO so that
# the file changes between two of them.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI

# run_lost NAME ACTION: chat on $TMP/NAME.db; after the first reply is saved,
# run ACTION (with $D the database), then two more messages and /history.
# Leaves $TMP/NAME.out, $TMP/NAME.err and the exit status in $TMP/NAME.rc.
run_lost() {
    local name=$1 action=$2 pid i
    D=$TMP/$name.db
    mkfifo "$TMP/$name.in"
    "$T" chat --demo --db "$D" --new "$name" --seed 1 --max-tokens 8 \
        <"$TMP/$name.in" >"$TMP/$name.out" 2>"$TMP/$name.err" &
    pid=$!
    exec 3>"$TMP/$name.in"
    printf 'hi\n' >&3
    # wait for the first reply to be saved with its state (not a timed
    # check: at most ~60 s, then the checks below fail)
    for i in $(seq 600); do
        "$T" sessions --db "$D" show 1 2>/dev/null | grep -q '#3 assistant \[state\]' && break
        sleep 0.1
    done
    # the chat's checks never drop SQLite's locks: another process's reads
    # (the loop above) leave its WAL where it is
    [ -e "$D-wal" ] && ok || fail "$name: the WAL was taken away under the running chat"
    eval "$action"
    printf 'again\nthird\n/history\n' >&3
    exec 3>&-
    wait $pid
    echo $? >"$TMP/$name.rc"
}

# check_lost NAME WHAT: the run goes on to its end, the one line naming $D and
# WHAT, and leaving says that the conversation is saved nowhere (exit 1: the
# file that held it is gone, so every exchange counts as not saved).
check_lost() {
    local name=$1 what=$2 err
    err=$(cat "$TMP/$name.err")
    [ "$(cat "$TMP/$name.rc")" = 1 ] &&
        printf '%s\n' "$err" | grep -q "^rwkv-tui: leaving with 3 exchanges not saved ($D: while in use, the session database was $what): they are not in the session$" &&
        ok || fail "$name: exit $(cat "$TMP/$name.rc"), not 1 with the leaving line: $err"
    [ "$(grep -c '^Assistant:' "$TMP/$name.out")" = 3 ] && ok \
        || fail "$name: replies: $(cat "$TMP/$name.out")"
    [ "$(printf '%s\n' "$err" | grep -c 'without saving')" = 1 ] && ok || fail "$name: stderr: $err"
    printf '%s\n' "$err" | grep -qxF "rwkv-tui: $D: while in use, the session database was $what: this chat goes on without saving, as with --no-db (its turns stay in memory until you quit)" \
        && ok || fail "$name: the line: $err"
    # afterwards the chat is as with --no-db
    printf '%s\n' "$err" | grep -q '^rwkv-tui: /history: this chat is not saved' && ok \
        || fail "$name: /history after: $err"
    [ ! -e "$D-wal" ] && [ ! -e "$D-shm" ] && ok || fail "$name: WAL or shm left beside $D"
}

# --- truncated ------------------------------------------------------------------------
run_lost trunc ': > "$D"'
check_lost trunc truncated
[ -e "$D" ] && [ ! -s "$D" ] && ok || fail "trunc: the file is not left empty ($(stat -c %s "$D"))"
out=$("$T" sessions --db "$D" list 2>&1) && ok || fail "trunc: the empty file does not open: $out"

# --- deleted --------------------------------------------------------------------------
run_lost rm 'rm "$D"'
check_lost rm deleted
[ ! -e "$D" ] && ok || fail "rm: something made at $D"

# --- renamed over by another database -------------------------------------------------
printf 'elsewhere\n' | "$T" chat --demo --db "$TMP/other.db" --new other --max-tokens 2 >/dev/null 2>&1
[ -s "$TMP/other.db" ] && ok || fail "mv: no other database made"
run_lost mv 'mv "$TMP/other.db" "$D"'
check_lost mv "replaced by another file"
out=$("$T" sessions --db "$D" list 2>&1)
case $out in *hi*) fail "mv: this chat written into the other file: $out" ;; *) ok ;; esac

# --- something else copied over it in place (cp keeps the file) -------------------------
printf 'my notes\n' >"$TMP/notes.txt"
run_lost cp 'cp "$TMP/notes.txt" "$D"'
check_lost cp "overwritten (it is no longer a database)"
cmp -s "$TMP/notes.txt" "$D" && ok || fail "cp: the copy was written over"

# --- its -wal deleted (rm, a cleanup tool): not lost -- mended -------------------------
# SQLite would go on writing into the unlinked -wal (lost with the process);
# the store copies it into the file, makes a fresh one and says so once.
run_lost wal 'rm "$D-wal"'
err=$(cat "$TMP/wal.err")
[ "$(cat "$TMP/wal.rc")" = 0 ] && ok || fail "wal: exit $(cat "$TMP/wal.rc"): $err"
[ "$(grep -c '^Assistant:' "$TMP/wal.out")" = 3 ] && ok || fail "wal: replies: $(cat "$TMP/wal.out")"
[ "$(printf '%s\n' "$err" | grep -c 'its -wal file')" = 1 ] && ok || fail "wal: not one line: $err"
printf '%s\n' "$err" | grep -qxF "rwkv-tui: $D: its -wal file was deleted while in use: nothing is lost (what it held was copied into the database) and saving goes on" \
    && ok || fail "wal: the line: $err"
printf '%s\n' "$err" | grep -q 'without saving\|/history: this chat is not saved' \
    && fail "wal: saving stopped: $err" || ok
out=$("$T" sessions --db "$D" show 1 2>&1)
users=$(printf '%s\n' "$out" | grep -A1 '^#[0-9]* user' | grep -v '^#\|^--' | tr '\n' ' ')
[ "$users" = "hi again third " ] && ok || fail "wal: saved messages: '$users': $out"
finish
