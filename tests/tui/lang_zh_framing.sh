#!/usr/bin/env bash
# tests/tui/lang_zh_framing.sh -- F8 in the Chinese interface: a value
# refused is said in Chinese (storage's and the engine's English line
# through the catalog, tui_tr_msg: the bans' list, a role name), and a
# change made says so in Chinese ("framing changed" went through "%s" and
# stayed English).
. "$(dirname "$0")/tmuxlib.sh"

# edit ROW TEXT: F8, the ROWth row (0: the greeting), its value TEXT, Enter
edit() {
    local d=""
    keys F8
    check "F8 ($2)" '本会话的对话设定'
    for _ in $(seq "$1"); do d="$d Down"; done
    [ -n "$d" ] && keys $d
    keys Enter
    keys C-u
    type_text "$2"
    keys Enter
}

TUI_ENV="LANGUAGE=zh_CN" tui_start --max-tokens 3 --seed 5
edit 4 "abc"
check "the bans refused" '改正后按 Enter  Esc 放弃'
dialog_has "the bans' refusal is Chinese" "对话设定：禁用 token：'abc' 不是用逗号分隔的 token id 列表"
check_not "not English" 'is not a comma-separated' 1
keys Escape
keys Escape
edit 1 "a:b"
check "the role name refused" '改正后按 Enter  Esc 放弃'
dialog_has "the role name's refusal is Chinese, what it is about too" "对话设定：用户名：角色名中不能有 ':'"
check_not "not English" 'in a role name' 1
keys Escape
keys Escape
edit 3 "END"
check "a stop string changed: said in Chinese" '对话设定已更改 *$'
check_not "not English" 'framing changed' 1
tui_quit
tui_finish
