#!/usr/bin/env bash
# tests/cli/chat_input.sh -- what the line chat does with input that is not
# a plain line of a terminal or a file:
#   - stdin closed (`chat <&-`): one line "stdin: cannot read: ...", exit 1
#     (before, the thread pool's /proc/stat took descriptor 0 and its lines
#     were sent as messages, exit 0);
#   - a line longer than any message (16 MiB): refused whole with one line,
#     read past without keeping it (before, all of it was read into memory:
#     `chat < /dev/zero` took memory until it failed, then exit 0 silently);
#   - an endless line is still ended by SIGTERM;
#   - blanks after a /command's argument are not part of it ("/save F "
#     wrote a file named "F ", "/think on " was refused).
# The demo model; nothing touches the user's files.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home"
chat() { timeout -k 5 60 "$T" chat --demo --seed 1 --max-tokens 3 "$@"; }

# --- stdin closed: a read error, not input from some other file ----------------------------
chat <&- >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc = 1 ] && ok || fail "stdin closed: exit $rc (want 1): $(head -c 300 "$TMP/err")"
grep -c '' "$TMP/err" | grep -qx 1 && grep -q '^rwkv-tui: stdin: cannot read: Bad file descriptor$' "$TMP/err" \
    && ok || fail "stdin closed: stderr: $(head -c 300 "$TMP/err")"
grep -q 'Assistant:' "$TMP/out" && fail "stdin closed: replies were made: $(head -c 200 "$TMP/out")" || ok

# --- a line longer than 16 MiB: refused whole, memory bounded ------------------------------
# 100 MB of 'a' without a newline, then a real message
{ head -c 100000000 /dev/zero | tr '\0' a; printf '\nhi\n'; } >"$TMP/big"
# (a sanitizer build -- make asan sets RWKV_ASAN -- maps terabytes of shadow
# memory: its peak RSS and a `ulimit -v` say nothing about ours)
if [ -x /usr/bin/time ] && [ -z "${RWKV_ASAN:-}" ]; then
    /usr/bin/time -o "$TMP/rss" -f '%M' timeout -k 5 120 "$T" chat --demo --seed 1 --max-tokens 3 \
        <"$TMP/big" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    rss=$(tail -n 1 "$TMP/rss")
    # the demo model needs ~12 MB; the kept part of the line 16 MiB
    [ "$rss" -lt 80000 ] 2>/dev/null && ok || fail "100 MB line: peak memory $rss kB (want < 80 MB)"
else
    chat <"$TMP/big" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    skip 1 "/usr/bin/time not found or a sanitizer build: peak memory not checked"
fi
rm -f "$TMP/big"
[ $rc = 0 ] && ok || fail "100 MB line: exit $rc"
grep -q '^rwkv-tui: this line is longer than 16 MiB (100000001 bytes): not sent$' "$TMP/err" \
    && ok || fail "100 MB line: stderr: $(head -c 300 "$TMP/err")"
[ "$(grep -c '^Assistant:' "$TMP/out")" = 1 ] && ok || fail "100 MB line: the next message not answered once: $(head -c 200 "$TMP/out")"

# --- an endless line: SIGTERM still ends the chat ------------------------------------------
# (under a memory limit: the old code read it all into memory)
( [ -n "${RWKV_ASAN:-}" ] || ulimit -v 4000000 2>/dev/null; exec timeout -k 10 3 "$T" chat --demo --seed 1 --max-tokens 3 \
    </dev/zero >"$TMP/out" 2>"$TMP/err" )
rc=$?
[ $rc = 124 ] && ok || fail "endless line: exit $rc (want 124, ended by timeout's SIGTERM): $(head -c 300 "$TMP/err")"

# --- blanks after an argument ------------------------------------------------------------
cd "$TMP" || exit 1
printf 'hi\n/save st.pth \n/think on \t\n/framing\n' | chat >"$TMP/out" 2>"$TMP/err"
[ -f "$TMP/st.pth" ] && [ ! -e "$TMP/st.pth " ] && ok || fail "/save st.pth<blank>: files: $(ls "$TMP" | tr '\n' '|')"
grep -q '^think     on$' "$TMP/out" && ! grep -q 'think' "$TMP/err" && ok \
    || fail "/think on<blanks>: $(grep think "$TMP/out" "$TMP/err")"
printf '/state st.pth  \nhello\n' | chat >"$TMP/out" 2>"$TMP/err"
grep -q '^(started over from st.pth)$' "$TMP/err" && [ "$(grep -c '^Assistant:' "$TMP/out")" = 1 ] \
    && ok || fail "/state st.pth<blanks>: $(head -c 300 "$TMP/err")"
finish
