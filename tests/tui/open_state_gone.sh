#!/usr/bin/env bash
# tests/tui/open_state_gone.sh -- a session opened in the client (F2) whose
# state file is gone opens from its saved states, as a resume at launch
# does (sess_state_check, the one rule of both), the bar naming the file
# "(not on disk)"; one whose path now holds another state (saved over the
# old name) is refused rather than opened on the other bytes.
. "$(dirname "$0")/tmuxlib.sh"

if have_fixture models/tiny-7v0-fp32.pth 6 && have_fixture states/state-7v0-A.pth 6; then
    M=$FX/models/tiny-7v0-fp32.pth
    cp "$FX/states/state-7v0-A.pth" "$TMP/gone.pth"
    cp "$FX/states/state-7v0-A.pth" "$TMP/s.pth"
    printf 'hi\n' | "$RWKV_TUI" chat --model "$M" --state "$TMP/gone.pth" --db "$DB" --new gonefile \
        --max-tokens 3 >/dev/null 2>"$TMP/c.err" || fail "chat 1: $(cat "$TMP/c.err")"
    printf 'hi\n/save %s\n' "$TMP/B.pth" | "$RWKV_TUI" chat --model "$M" --state "$TMP/s.pth" \
        --db "$DB" --new rewritten --max-tokens 3 >/dev/null 2>"$TMP/c.err" || fail "chat 2: $(cat "$TMP/c.err")"
    rm "$TMP/gone.pth"
    cp "$TMP/B.pth" "$TMP/s.pth"
    W=250 NODEMO=1 tui_start --db "$DB" --model "$M"
    # the newest first: session 2, whose s.pth holds B now
    keys F2
    check "sessions menu" 'rewritten +[0-9]+ turns'
    keys Enter
    check "other bytes refused" "s\\.pth: holds another state than session 2 was made with \\(digest [0-9a-f]{16} on record, [0-9a-f]{16} now\\); --session 2 --state PATH at launch resumes it"
    check_not "not opened" 'session: rewritten'
    keys F2
    check "sessions menu again" 'gonefile +[0-9]+ turns'
    keys Down Enter
    check "gone: opened from its saved states" 'gone\.pth \(not on disk\)'
    tui_quit
fi
tui_finish
