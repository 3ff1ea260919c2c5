#!/usr/bin/env bash
# tests/tui/resume_state_gone.sh -- --session N of a session whose state
# file is gone opens from its saved states, as the line chat does (the
# open's rule, below both: its start is needed only to go back there);
# the bar names the file "(not on disk)", and the next message goes on in
# that session, with its framing and sampling (a blank chat and another
# session, once, then a refusal at launch; now neither).
. "$(dirname "$0")/tmuxlib.sh"

if have_fixture models/tiny-7v0-fp32.pth 7 && have_fixture states/state-7v0-A.pth 7; then
    cp "$FX/states/state-7v0-A.pth" "$TMP/gone.pth"
    printf 'hi there\n' | "$RWKV_TUI" chat --model "$FX/models/tiny-7v0-fp32.pth" --state "$TMP/gone.pth" \
        --db "$DB" --new stategone --max-tokens 3 >/dev/null 2>"$TMP/c.err" || fail "chat: $(cat "$TMP/c.err")"
    rm "$TMP/gone.pth"
    NODEMO=1 tui_start --db "$DB" --session 1
    check "it opens: the conversation" 'hi there'
    check "the bar: the file, not on disk" 'gone\.pth \(not on disk\)'
    type_text "more"
    send
    tui_quit
    n=$("$RWKV_TUI" sessions --db "$DB" list 2>&1 | grep -c '^ *[0-9]')
    [ "$n" = 1 ] && ok || fail "sessions after the message: $("$RWKV_TUI" sessions --db "$DB" list 2>&1)"
    # the line chat goes on the same way
    printf 'x\n' | "$RWKV_TUI" chat --db "$DB" --session 1 --max-tokens 3 >/dev/null 2>"$TMP/l.err"
    [ $? = 0 ] && rows_are "$DB" "select count(*) from turns" 6 && ok ||
        fail "line chat: $(cat "$TMP/l.err") ($(sql_rows "$DB" 'select count(*) from turns') turns)"
    # a session that opens: the client runs
    NODEMO=1 tui_start --db "$DB" --model "$FX/models/tiny-7v0-fp32.pth"
    check "a new chat starts" 'F1 help'
    tui_quit
fi
tui_finish
