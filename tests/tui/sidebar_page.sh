#!/usr/bin/env bash
# tests/tui/sidebar_page.sh -- PgUp/PgDn in the focused sidebar change the
# selected value by 10 steps (F1: "Sidebar: Left/Right, -/+ change it by one
# step (PgUp/PgDn: 10)"); they scrolled the transcript instead, the value
# unchanged (the transcript's scroll keys were read before the sidebar's).
# Outside the sidebar PgUp still pages the transcript.
. "$(dirname "$0")/tmuxlib.sh"

for i in $(seq 20); do echo "line $i"; done |
    "$RWKV_TUI" chat --demo --db "$DB" --max-tokens 8 --seed 1 >/dev/null 2>&1
W=100 H=30 tui_start --resume --top-p 0.3
check "resumed" 'line 20'
keys Tab
check "the sidebar has the focus" 'Tab +back to input'
keys Down
keys PPage
check "PgUp: top-p up 10 steps" 'top-p +0\.8 ' 5
check_not "... the transcript not scrolled" 'more below'
keys NPage
check "PgDn: back 10 steps" 'top-p +0\.3 ' 5
keys Tab
keys PPage
check "outside the sidebar PgUp pages the transcript" '[0-9]+ more below \(End\)' 5
check "... and the value stays" 'top-p +0\.3 ' 2
tui_quit
tui_finish
