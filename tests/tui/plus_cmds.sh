#!/usr/bin/env bash
# tests/tui/plus_cmds.sh -- the full-screen client and ChatRWKV's + commands
# (core/chat/freegen.h, fgen_cmd_parse: one recognition for both front
# ends): typing "+reset" and Enter sends nothing, a notice names the key
# that does it, and the text stays in the box; "+1 agreed" is a message.
# And --greeting with --state: the greeting is not fed, and the client says
# so (storage/session.c, the runtime's note), as the line chat does.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 3
type_text "+reset"
keys Enter
check "+reset: the key named" "\\+reset is ChatRWKV's, not sent: here C-n does it"
check "the text stays in the box" '^> \+reset'
n=$("$RWKV_TUI" sessions --db "$DB" list 2>/dev/null | grep -c '^ *[0-9]')
[ "$n" = 0 ] && ok || fail "+reset was sent: $("$RWKV_TUI" sessions --db "$DB" list 2>&1)"
keys C-u
type_text "+GEN"
keys Enter
check "+GEN: upper case is the command too" "\\+gen is ChatRWKV's, not sent: here M-g"
keys C-u
type_text "+1 agreed"
send
n=$("$RWKV_TUI" sessions --db "$DB" list 2>/dev/null | grep -c '^ *[0-9]')
[ "$n" = 1 ] && ok || fail "+1 agreed was not sent: $("$RWKV_TUI" sessions --db "$DB" list 2>&1)"
tui_quit

if have_fixture models/tiny-7v0-fp32.pth 2 && have_fixture states/state-7v0-A.pth 2; then
    cp "$FX/states/state-7v0-A.pth" "$TMP/st.pth"
    NODEMO=1 tui_start --db "$TMP/g.db" --model "$FX/models/tiny-7v0-fp32.pth" --state "$TMP/st.pth" \
        --greeting Hello
    keys M-l
    check "the note in the log" 'the greeting is not fed: a chat that starts from a state file'
    keys Escape
    keys F8
    check "F8 says it" 'greeting +\(not fed: a state file is in use\)'
    keys Escape
    tui_quit
fi
tui_finish
