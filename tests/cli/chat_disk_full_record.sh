#!/usr/bin/env bash
# tests/cli/chat_disk_full_record.sh -- what a chat says of its failed saves
# agrees with what is in the file.  On an empty 4 MiB disk a new session's
# first message row fits, its state or its reply's completion does not:
# the file then holds the message and its reply's begun row (empty, marked
# interrupted).  Before: the warning said "saving your message" while the
# message was saved (its state had failed), and the leaving line said all
# the exchanges "are not in the session" while the first one's message was.
# Now the warning names what failed (the message's state, the reply) and the
# leaving line says what of the first exchange is in the file.
# Needs root and mount(8): skipped otherwise.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
MNT=$TMP/mnt
mkdir -p "$MNT"
if ! is_root || ! mount -t tmpfs -o size=4m tmpfs "$MNT" 2>/dev/null; then
    skip 6 "a full disk needs a tmpfs: not root, or mount failed"
    finish
    exit
fi
trap 'umount "$MNT" 2>/dev/null; rm -rf "$TMP"' EXIT

# run NAME MODEL-ARGS...: a new session's three messages on the empty disk,
# then the file's rows (read from a copy) against what was said
run() {
    local name=$1 rows users leave
    shift
    rm -rf "$MNT"/* "$TMP/copy"
    printf 'one\ntwo\nthree\n' | "$T" chat "$@" --db "$MNT/x.db" --new full --seed 1 \
        --max-tokens 5 >"$TMP/out" 2>"$TMP/err"
    [ "$(chat_replies)" = 3 ] && ok || fail "$name: not every message answered: $(cat "$TMP/err")"
    mkdir -p "$TMP/copy" && cp "$MNT"/x.db* "$TMP/copy/" 2>/dev/null
    users=$(sql_rows "$TMP/copy/x.db" "SELECT text FROM turns WHERE role=1 ORDER BY id" | tr '\n' ' ')
    rows=$(sql_rows "$TMP/copy/x.db" "SELECT r.interrupted || ':' || length(r.text) FROM turns u JOIN turns r
        ON r.parent_id=u.id WHERE u.role=1 AND u.text='one'")
    leave=$(grep '^rwkv-tui: leaving with' "$TMP/err")
    case "$users" in
    "one "*)
        grep -q '^rwkv-tui: saving your message:' "$TMP/err" &&
            fail "$name: 'saving your message' while the message is in the file: $(cat "$TMP/err")" || ok
        if [ "$rows" = "1:0" ]; then
            grep -q "but the first one's message is, with an empty reply marked interrupted$" <<<"$leave" && ok \
                || fail "$name: the file holds 'one' and an empty interrupted reply; said: $leave"
        elif [ -z "$rows" ]; then
            grep -q "but the first one's message is, without its reply$" <<<"$leave" && ok \
                || fail "$name: the file holds 'one' without a reply; said: $leave"
        else
            [ -z "$leave" ] && ok || fail "$name: the reply is in ($rows); said: $leave"
        fi ;;
    *)
        ok
        grep -q ': they are not in the session$' <<<"$leave" && ok \
            || fail "$name: nothing in the file; said: $leave" ;;
    esac
}
run demo --demo
if have_fixture models/tiny-7v0-fp32.pth 3; then
    run tiny-7v0 --model "$FX/models/tiny-7v0-fp32.pth"
fi
finish
