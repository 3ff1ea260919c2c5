#!/usr/bin/env bash
# tests/tui/replay_ctrl_c.sh -- Ctrl-C during the client's replay of a session
# whose states are not in the file (an import without --states) cancels it
# as Esc does (runtime.sh): "cancelled: nothing changed", the session as it
# was, and the client goes on (the line chat: chat_resume_sigint.sh).  Ctrl-C
# is a key there (raw mode), the same cancel as Esc: sess_cancel.
. "$(dirname "$0")/tmuxlib.sh"

if have_fixture models/tiny-6v0-fp32.pth 4; then
    M=$FX/models/tiny-6v0-fp32.pth
    python3 -c "print('word ' * 8000)" >"$TMP/long.txt"
    "$RWKV_TUI" chat --model "$M" --db "$TMP/a.db" --new long --max-tokens 3 --seed 1 \
        <"$TMP/long.txt" >/dev/null 2>&1
    "$RWKV_TUI" sessions --db "$TMP/a.db" export 1 --out "$TMP/a.json" 2>/dev/null
    "$RWKV_TUI" sessions --db "$DB" import "$TMP/a.json" >/dev/null 2>&1
    before=$("$RWKV_TUI" sessions --db "$DB" export 1 --format json | grep -v '"updated_ms"')
    NODEMO=1 NOWAIT=1 tui_start --model "$M" --db "$DB" --session 1
    check "replay progress" 'replaying'
    keys C-c
    check "Ctrl-C cancelled the replay" 'cancelled: nothing changed'
    after=$("$RWKV_TUI" sessions --db "$DB" export 1 --format json | grep -v '"updated_ms"')
    [ "$before" = "$after" ] && ok || fail "a cancelled replay changed the session"
    # the client is still there: F10 leaves it, status 0
    tui_quit
fi
tui_finish
