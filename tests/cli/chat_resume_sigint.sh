#!/usr/bin/env bash
# tests/cli/chat_resume_sigint.sh -- Ctrl-C (SIGINT) while `chat --resume`
# replays a session whose states are not in the file (an import without
# --states): the replay stops at once, the chat says so in one line
# ("chat: replay cancelled") and leaves with status 130, the session as it
# was, nothing answered.  Ctrl-C used to be ignored there: the replay ran to
# its end, then the chat left silently with status 0 (SIGTERM already
# cancelled it, chat_signals.sh).
. "$(dirname "$0")/lib.sh"

if have_fixture models/tiny-6v0-fp32.pth 5; then
    M=$FX/models/tiny-6v0-fp32.pth
    python3 -c "print('word ' * 8000)" >"$TMP/long.txt"
    "$RWKV_TUI" chat --model "$M" --db "$TMP/a.db" --new long --max-tokens 3 --seed 1 \
        <"$TMP/long.txt" >/dev/null 2>&1
    "$RWKV_TUI" sessions --db "$TMP/a.db" export 1 --out "$TMP/a.json" 2>/dev/null
    "$RWKV_TUI" sessions --db "$TMP/b.db" import "$TMP/a.json" >/dev/null 2>&1
    before=$("$RWKV_TUI" sessions --db "$TMP/b.db" export 1 --format json | grep -v '"updated_ms"')
    mkfifo "$TMP/in"
    start=$(date +%s)
    "$RWKV_TUI" chat --db "$TMP/b.db" --resume --max-tokens 3 <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    exec 7>"$TMP/in"
    # the database open (the model loaded, Ctrl-C the chat's), then the replay
    # of 40k tokens runs (seconds)
    poll eval 'ls -l /proc/$pid/fd 2>/dev/null | grep -q b.db'
    sleep 0.5
    kill -INT $pid
    echo "after" >&7
    exec 7>&-
    wait $pid
    rc=$?
    took=$(($(date +%s) - start))
    [ $rc = 130 ] && ok || fail "exit status $rc, not 130: $(cat "$TMP/err")"
    grep -q '^rwkv-tui: chat: replay cancelled$' "$TMP/err" && [ "$(wc -l <"$TMP/err")" = 1 ] && ok ||
        fail "not one line saying the replay was cancelled: $(cat "$TMP/err")"
    [ ! -s "$TMP/out" ] && ok || fail "answered after the cancel: $(cat "$TMP/out")"
    after=$("$RWKV_TUI" sessions --db "$TMP/b.db" export 1 --format json | grep -v '"updated_ms"')
    [ "$before" = "$after" ] && ok || fail "the cancelled replay changed the session"
    [ "$took" -le 4 ] && ok || fail "the replay was not stopped at once ($took s)"
fi
finish
