#!/usr/bin/env bash
# tests/cli/chat_help_pipe.sh -- `chat --help` says what a closed pipe does
# as README ("Output errors are reported") and rwkv-tui(1) do: it ends the
# chat with SIGPIPE, like cat; a stdout that cannot be written otherwise
# (a full disk) is one line and exit status 1.  Before, the help said only
# the latter, which a pipe into `head` contradicted (exit 141).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI

help=$("$T" chat --help)
case $help in
*"a closed pipe ends it with SIGPIPE, like cat"*) ok ;;
*) fail "chat --help does not say what a closed pipe does" ;;
esac
case $help in
*"stdout that cannot be written (a full disk)"*"exit status 1"*) ok ;;
*) fail "chat --help lost the full-disk line" ;;
esac
# what it says is what happens: a pipe closed early, SIGPIPE (128 + 13)
printf 'one\ntwo\nthree\n' | "$T" chat --demo --seed 1 --max-tokens 40 2>/dev/null | head -c 10 >/dev/null
st=("${PIPESTATUS[@]}")
[ "${st[1]}" = 141 ] && ok || fail "a closed pipe: exit ${st[1]}, not 141 (SIGPIPE)"
# and a full disk: one line, 1
if [ -w /dev/full ]; then
    printf 'one\n' | "$T" chat --demo --seed 1 --max-tokens 8 >/dev/full 2>"$TMP/err"
    rc=$?
    [ "$rc" = 1 ] && grep -q 'stdout: No space left on device' "$TMP/err" && ok ||
        fail "/dev/full: exit $rc, $(cat "$TMP/err")"
else
    skip 1 "no /dev/full"
fi
finish
