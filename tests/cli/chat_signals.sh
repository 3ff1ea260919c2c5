#!/usr/bin/env bash
# tests/cli/chat_signals.sh -- SIGTERM and SIGHUP (the terminal closed) to
# a line chat during a reply: the reply stops, everything it streamed is in
# the session (before: the part since the last once-a-second save was lost),
# marked interrupted, the database closed cleanly (no -wal left), and the
# exit status is the signal's.  At the prompt the chat ends the same way.
# Real files in a temp dir, the real binary.
. "$(dirname "$0")/lib.sh"

streamed() { [ "$(wc -c <"$TMP/out")" -gt 4000 ]; }
q() { sqlite3 "$1" "$2" 2>/dev/null; }

# during_reply SIG CODE: kill -SIG while a long reply streams
during_reply() {
    local sig=$1 code=$2 D=$TMP/$1.db rc saved shown
    chat_bg --demo --db "$D" --new "$sig" --seed 1 --max-tokens 1000000
    printf 'tell me everything\n' >&3
    poll streamed && ok || fail "$sig: the reply does not stream"
    kill -"$sig" $pid
    wait $pid
    rc=$?
    exec 3>&-
    [ $rc = "$code" ] && ok || fail "$sig: exit $rc, want $code: $(cat "$TMP/err")"
    # what was shown: "Assistant:" TEXT "\n\n"
    shown=$(( $(wc -c <"$TMP/out") - 12 ))
    saved=$(q "$D" "select length(cast(text as blob)) from turns where role=2")
    [ "$saved" = "$shown" ] && ok || fail "$sig: $saved bytes saved of the $shown streamed"
    [ "$(q "$D" 'select interrupted from turns where role=2')" = 1 ] && ok \
        || fail "$sig: the reply is not marked interrupted"
    [ ! -e "$D-wal" ] && ok || fail "$sig: the database was not closed (a -wal file left)"
}

if ! command -v sqlite3 >/dev/null 2>&1; then
    skip 10 "sqlite3 not found"
    finish
    exit
fi
during_reply TERM 143
during_reply HUP 129

# at the prompt: the chat ends, what was said is kept
chat_bg --demo --db "$TMP/p.db" --new prompt --seed 1 --max-tokens 4
printf 'hi\n' >&3
poll sh -c "[ \"\$(sqlite3 '$TMP/p.db' 'select count(*) from snapshots' 2>/dev/null)\" = 3 ]" \
    && ok || fail "the first reply was not saved"
kill -TERM $pid
wait $pid
rc=$?
exec 3>&-
[ $rc = 143 ] && ok || fail "TERM at the prompt: exit $rc: $(cat "$TMP/err")"
[ "$(q "$TMP/p.db" 'select count(*) from turns where role=2 and interrupted=0')" = 1 ] && ok \
    || fail "TERM at the prompt: the reply is not kept whole"
finish
