#!/usr/bin/env bash
# tests/tui/prune_fit.sh -- F6's delete question whole at 80 columns, in
# English and in Chinese: "delete this turn and 2 below it? you are on it:
# the chat moves to the tu… (y/n)" was cut (the prompt line keeps "(y/n)" and
# cuts the middle), right where it says where the chat goes
# (tui/menu_branches.c, prune_ask).  The longest form: a turn on the chat's
# branch with turns below it and a sibling beside it.
. "$(dirname "$0")/tmuxlib.sh"

# ask LANGPAT...: alpha, its reply regenerated (two siblings), beta and its
# reply; F6 with the second reply to alpha selected, C-d
ask() {
    type_text "alpha"
    send
    keys C-r
    check "two replies ($1)" '^RWKV  < 2/2 >'
    wait_idle
    type_text "beta"
    send
    keys F6
    check "tree ($1)" '\* (You|你): +alpha'
    keys Up Up C-d                    # beta's reply, beta, alpha's second reply
}

W=80 H=24 tui_start --max-tokens 3 --seed 3
ask en
check "the whole question, (y/n) and all" \
    'delete this turn and 2 below\? the chat moves to the branch beside it \(y/n\)'
check_not "nothing cut" 'the …|…  ?\(y/n\)'
keys n Up Up C-d                      # alpha: the chat moves to the start
check "the turn above" 'delete this turn and 4 below\? the chat moves to the turn above \(y/n\)'
keys n Escape
tui_quit

TUI_ENV="LANGUAGE=zh_CN" W=80 H=24 tui_start --max-tokens 3 --seed 3
ask zh
check "the whole question (zh)" '删除这一轮及其下的 2 轮？对话将移到旁边的分支 \(y/n\)'
check_not "nothing cut (zh)" '…  ?\(y/n\)'
keys n Escape
tui_quit
tui_finish
