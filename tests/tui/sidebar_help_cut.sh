#!/usr/bin/env bash
# tests/tui/sidebar_help_cut.sh -- the sidebar's help for the selected
# parameter: top-p's fits 80x24 whole (English and Chinese); where the rows
# cannot hold a help its last row ends with an ellipsis (never a sentence
# cut short that reads as another), and F1 lists every parameter's help
# whole.
. "$(dirname "$0")/tmuxlib.sh"

W=80 H=24 tui_start
keys Tab Down
check "80x24: top-p's help whole" '0\.99 is wide\)'
tui_resize 80 22
check "80x22: the cut help ends with an ellipsis" '│ this mass \(pip rule: …$'
keys Tab
keys F1
type_text "top-p"
check "F1: the parameter's help" 'Parameters: top-p +nucleus sampling'
check "F1: whole (the selected row below the list)" 'alone, 0\.99 is wide\)'
keys Escape
tui_quit
W=80 H=24 TUI_ENV="LANGUAGE=zh_CN" tui_start
keys Tab Down
check "zh_CN 80x24: top-p's help whole" '0\.99 为宽）'
tui_resize 80 20
check "zh_CN 80x20: cut with an ellipsis" '核采样.*…'
keys Tab
tui_quit
tui_finish
