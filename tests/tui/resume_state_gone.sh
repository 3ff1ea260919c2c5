#!/usr/bin/env bash
# tests/tui/resume_state_gone.sh -- --session N of a session whose state
# file is gone ends the client with one line and exit status 1, as the line
# chat does: it opened a blank chat (not even the greeting), and the next
# message made another session with the default framing and sampling.
. "$(dirname "$0")/tmuxlib.sh"

if have_fixture models/tiny-7v0-fp32.pth 6 && have_fixture states/state-7v0-A.pth 6; then
    cp "$FX/states/state-7v0-A.pth" "$TMP/gone.pth"
    printf 'hi\n' | "$RWKV_TUI" chat --model "$FX/models/tiny-7v0-fp32.pth" --state "$TMP/gone.pth" \
        --db "$DB" --new stategone --max-tokens 3 >/dev/null 2>"$TMP/c.err" || fail "chat: $(cat "$TMP/c.err")"
    rm "$TMP/gone.pth"
    NODEMO=1 NOWAIT=1 tui_start --db "$DB" --session 1
    check "exit 1" '^EXIT=1' 20
    # (said before the model loads, with the way on: a copy of it, --state)
    grep -qx "rwkv-tui: $TMP/gone\\.pth: cannot open: No such file or directory (the state file session 1 was saved with: --state PATH resumes it with a copy of it elsewhere)" "$TMP/stderr.$RUNS" &&
        ok || fail "stderr: $(cat "$TMP/stderr.$RUNS")"
    n=$("$RWKV_TUI" sessions --db "$DB" list 2>&1 | grep -c '^ *[0-9]')
    [ "$n" = 1 ] && ok || fail "sessions after the failed start: $("$RWKV_TUI" sessions --db "$DB" list 2>&1)"
    # the line chat says the same and exits 1 too
    printf 'x\n' | "$RWKV_TUI" chat --db "$DB" --session 1 >/dev/null 2>"$TMP/l.err"
    [ $? = 1 ] && grep -q "gone\\.pth: cannot open" "$TMP/l.err" && ok || fail "line chat: $(cat "$TMP/l.err")"
    # a session that opens: the client runs
    NODEMO=1 tui_start --db "$DB" --model "$FX/models/tiny-7v0-fp32.pth"
    check "a new chat starts" 'F1 help'
    tui_quit
fi
tui_finish
