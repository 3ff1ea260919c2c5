#!/usr/bin/env bash
# tests/tui/transcript_gap.sh -- the transcript's text keeps one column free
# before the sidebar's border: a message's text (here one long word, cut at
# the width) never runs into it ("imaginationiben|").
. "$(dirname "$0")/tmuxlib.sh"

W=80 H=24 tui_start --max-tokens 2 --seed 7
check "the sidebar is shown" 'Parameters'
type_text "$(printf 'imagination%.0s' $(seq 12))"
send
check "the message is in the transcript" '^  imaginationimagination'
check_not "no text right against the border" '[^ ]│' 2
tui_quit
tui_finish
