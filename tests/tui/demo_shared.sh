#!/usr/bin/env bash
# tests/tui/demo_shared.sh -- --demo is one model in every command: a chat
# saved by `chat --demo` opens in the full-screen client's --demo from its
# saved states (no replay, no "made with another model"), and the other way
# round.
. "$(dirname "$0")/tmuxlib.sh"

T=$RWKV_TUI
printf 'one\ntwo\n' | "$T" chat --demo --db "$DB" --new "from the line chat" --max-tokens 4 \
    >/dev/null 2>&1 && ok || fail "chat --demo failed"

tui_start --resume
check "resumed" 'session: from the line'
keys M-l
check "the message log" 'Messages'
check_not "the line chat's states are used" 'another model|replayed'
keys Escape
type_text "three"
send
tui_quit

out=$(echo four | "$T" chat --demo --db "$DB" --resume --max-tokens 4 2>&1 >/dev/null)
case $out in *"another model"*|*replayed*) fail "chat --resume after the client: $out" ;; *) ok ;; esac
tui_finish
