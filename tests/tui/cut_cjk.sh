#!/usr/bin/env bash
# tests/tui/cut_cjk.sh -- a message that quotes user text cuts it after a
# whole character with "…", never inside a UTF-8 sequence: F2's delete
# question for a 40-character Chinese title (120 bytes; the question keeps
# 100 of them: 33 characters) and the status line's session title, which
# gives way to the speeds (at 80 columns too) with "…".
. "$(dirname "$0")/tmuxlib.sh"

ten="一二三四五六七八九十"
title="$ten$ten$ten$ten"                         # 40 characters, 120 bytes
valid_utf8() { screen | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1; }

tui_start --max-tokens 2 --seed 4
type_text "hello"
send
keys F2
check "sessions menu" ' Sessions '
keys C-r
check "rename prompt" 'new title:'
keys C-u
type_text "$title"
keys Enter
check "renamed" "$ten$ten +[0-9]+ turns|$ten$ten.*…"
keys C-d
check "the question cuts the title after a whole character, with …" \
    "delete '$ten$ten$ten一二三…'\\? \\(y/n\\)"
valid_utf8 && ok || fail "the screen holds broken UTF-8: $(screen | grep delete)"
keys n
check_not "n: no deletion" "delete '"
keys Escape
# the title gives way to the speeds: its head and …, the token count kept
check "the status line: the title cut with …" "session: 一二三[^ |]*… \| [0-9]+ tok +decode"
tmx resize-window -x 80 -y 24
# (beside the demo label the labels give way to the title: its head, …,
# the token count and the speeds, nothing overwritten)
check "80 columns: the title cut with … before the speeds" \
    '^ DEMO MODEL \(random weights\) +一二三[^ |]*… \| [0-9]+ tok +decode [0-9.]+ tok/s $'

tui_quit
tui_finish
