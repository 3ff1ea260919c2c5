#!/usr/bin/env bash
# tests/tui/lang_zh_refused.sh -- in the Chinese interface a prompt's
# refusal is Chinese too: F2 C-b's budget (the store's words, through the
# catalog: the menus' connection had no language) and F5 C-s's strategy
# (the engine's reason, English, inside a Chinese sentence: one that does
# not parse, and one the load refuses).
. "$(dirname "$0")/tmuxlib.sh"


TUI_ENV="LANGUAGE=zh_CN" tui_start --max-tokens 3 --seed 5
keys F2
check "F2" '会话（已保存的状态'
keys C-b
check "budget prompt" '上限（500MB、2GB、off）：'
type_text "5XB"
keys Enter
check "budget refused" '改正后按 Enter  Esc 放弃'
dialog_has "the budget's refusal is Chinese" "上限：'5XB' 不是大小"
check_not "not English" 'is not a size' 1
keys Escape
check "Esc: back in F2" '会话（已保存的状态'
keys Escape
check_not "F2 closed" '会话（已保存的状态'

keys F5
check "F5" '模型'
keys C-s
check "strategy prompt" '策略：'
keys C-u
type_text "cpu foo"
keys Enter
check "strategy refused" '改正后按 Enter  Esc 放弃'
dialog_has "a Chinese sentence around the parser's reason" "策略未更改（invalid strategy 'cpu foo'"
keys C-u
type_text "cuda:7 fp16"
keys Enter
dialog_has "the load's refusal: a Chinese sentence too" 'demo：未能加载（'
dialog_has "... keeping the loader's reason" "cuda:7 fp16"
dialog_has "... and what stays" '）；继续使用'
keys Escape
keys Escape
tui_quit
tui_finish
