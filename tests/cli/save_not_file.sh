#!/usr/bin/env bash
# tests/cli/save_not_file.sh -- /save to a device or a pipe (/dev/null, a
# FIFO) is refused with one line, the chat going on: nothing there is a
# file that --state loads.  It used to say "(state saved to /dev/null: load
# it with --state /dev/null)" -- a state thrown away, and a load that
# cannot work.  A file is saved as before, one named by a link too.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI

mkfifo "$TMP/pipe"
# (a reader on the FIFO: an open for writing would wait for one)
cat "$TMP/pipe" >"$TMP/piped" &
reader=$!
exec 5>"$TMP/pipe"
ln -s "$TMP/real.pth" "$TMP/link.pth"
printf 'hi\n/save /dev/null\n/save %s\n/save %s\nagain\n' "$TMP/pipe" "$TMP/link.pth" |
    "$T" chat --demo --seed 1 --max-tokens 2 >"$TMP/out" 2>"$TMP/err"
rc=$?
exec 5>&-
wait $reader
[ $rc = 0 ] && ok || fail "chat: exit $rc: $(cat "$TMP/err")"
grep -qx 'rwkv-tui: /save: /dev/null is not a file (a device or a pipe): the state was not saved' \
    "$TMP/err" && ok || fail "/save /dev/null: $(cat "$TMP/err")"
grep -qx "rwkv-tui: /save: $TMP/pipe is not a file (a device or a pipe): the state was not saved" \
    "$TMP/err" && ok || fail "/save FIFO: $(cat "$TMP/err")"
grep -q 'load it with --state /dev/null\|--state '"$TMP/pipe" "$TMP/err" &&
    fail "a load named for a device: $(cat "$TMP/err")" || ok
[ ! -s "$TMP/piped" ] && ok || fail "a state written into the pipe"
# the chat went on: both messages answered; a link to a file is a file
[ "$(chat_replies)" = 2 ] && ok || fail "the chat did not go on: $(cat "$TMP/out")"
grep -qx "(state saved to $TMP/real.pth through the link $TMP/link.pth: load it with --state $TMP/link.pth)" "$TMP/err" &&
    [ -L "$TMP/link.pth" ] && [ -s "$TMP/real.pth" ] && ok || fail "/save through a link: $(cat "$TMP/err")"
finish
