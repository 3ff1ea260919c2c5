#!/usr/bin/env bash
# tests/tui/resume_state_copy.sh -- the full-screen client's --session N
# --state F follows the line chat's rule (sess_resume_state): F holding
# another state is refused with one line and exit 1 (it was ignored: the
# session went on under its own file); a copy of the session's file, moved
# since, resumes it and is recorded.  And the names given with --session
# apply to the new session C-n makes (they were the resumed session's).
. "$(dirname "$0")/tmuxlib.sh"

if have_fixture models/tiny-7v0-fp32.pth 8 && have_fixture states/state-7v0-A.pth 8; then
    cp "$FX/states/state-7v0-A.pth" "$TMP/A.pth"
    printf 'hi\n' | "$RWKV_TUI" chat --model "$FX/models/tiny-7v0-fp32.pth" --state "$TMP/A.pth" \
        --db "$DB" --new withstate --user Bob --bot Alice --max-tokens 3 >/dev/null 2>"$TMP/c.err" ||
        fail "chat: $(cat "$TMP/c.err")"
    # another state of the same model (it loads: only its bytes differ)
    printf 'yo\n/save %s\n' "$TMP/other.pth" | "$RWKV_TUI" chat --model "$FX/models/tiny-7v0-fp32.pth" \
        --state "$TMP/A.pth" --max-tokens 2 >/dev/null 2>&1 || fail "saving another state"
    NODEMO=1 NOWAIT=1 tui_start --db "$DB" --session 1 --state "$TMP/other.pth"
    check "another state: exit 1" '^EXIT=1' 20
    grep -qx "rwkv-tui: session 1 starts from the state file $TMP/A\\.pth, and $TMP/other\\.pth holds another state: give a copy of that file, or leave out --state (or start a --new session)" \
        "$TMP/stderr.$RUNS" && ok || fail "stderr: $(cat "$TMP/stderr.$RUNS")"
    # the file moved: a copy of it resumes the session, recorded from now on
    mkdir "$TMP/sub" && mv "$TMP/A.pth" "$TMP/sub/copy.pth"
    NODEMO=1 tui_start --db "$DB" --session 1 --state "$TMP/sub/copy.pth" --user Carol --bot Dave
    check "resumed with the copy" 'state: copy\.pth \| session: withstate'
    "$RWKV_TUI" sessions --db "$DB" show 1 | grep -qx "state file $TMP/sub/copy.pth" && ok ||
        fail "the copy not recorded: $("$RWKV_TUI" sessions --db "$DB" show 1 | sed -n 4p)"
    # C-n: the new session takes the names given (Carol / Dave)
    keys C-n
    check "new session" 'new session'
    type_text "again"
    send
    "$RWKV_TUI" sessions --db "$DB" show 2 2>&1 | grep -q '^framing: .*user Carol, bot Dave;' && ok ||
        fail "C-n's session: $("$RWKV_TUI" sessions --db "$DB" show 2 2>&1 | grep framing)"
    "$RWKV_TUI" sessions --db "$DB" show 1 2>&1 | grep -q '^framing: .*user Bob, bot Alice;' && ok ||
        fail "the resumed session's names changed"
    tui_quit
fi
tui_finish
