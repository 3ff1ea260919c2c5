#!/usr/bin/env bash
# tests/tui/lang_zh.sh -- the Chinese interface (tui/i18n.h, po/zh_CN.po):
# chosen by LANGUAGE=zh_CN under C.UTF-8 (no zh_CN locale needed) or by
# "language: zh" in the config; "language: en" keeps English in a Chinese
# environment; Traditional Chinese and a non-UTF-8 locale stay English.  At
# 80x24 the footer keeps F1 and F10, F1, F2 and a notice are Chinese, F1's
# key column is padded by display width; 20x6 draws and quits cleanly.
. "$(dirname "$0")/tmuxlib.sh"

footer() { screen | tail -1; }
# cells before the first occurrence of $2 in line $1 (CJK: 2 cells)
col_of() {
    python3 -c 'import sys, unicodedata as u
l, s = sys.argv[1], sys.argv[2]
i = l.find(s)
print(-1 if i < 0 else sum(2 if u.east_asian_width(c) in "WF" else 1 for c in l[:i]))' "$1" "$2"
}

TUI_ENV="LANGUAGE=zh_CN" W=80 H=24 tui_start
check "80x24 zh: footer help" '^F1 帮助 .*F10 退出 *$'
check "80x24 zh: footer sessions, regen" 'F2 会话 .*C-r 重新生成'
# (at 80 columns the labels that repeat the screen give way to the title)
check "zh: status line labels" '^ 演示模型（随机权重） .*cpu fp32 \| 会话：新建 \| [0-9]+ tok'
check "zh: input placeholder" '^> 输入消息。Enter 发送'
check "zh: the demo note" '^提示'
keys C-c
check "zh: a notice" '^没有可取消的操作；F10 或 C-q 退出'
keys F1
check "zh: F1 title" '│  帮助：所有按键 '
check "zh: F1 rows" 'F2 +会话：恢复、分叉、重命名、删除、搜索'
check "zh: F1 key bar" '│ 输入以搜索  Esc 关闭 '
# the key column padded in cells: a Chinese key's description starts where
# an ASCII key's does
type_text "侧栏"
check "zh: F1 search" '侧栏：Up/Down +选择参数'
line=$(screen | grep '侧栏：Up/Down')
c1=$(col_of "$line" '选择参数')
keys C-u
type_text "C-q"
check "F1 search C-q" 'C-d \(输入框为空\), C-q +退出'
line=$(screen | grep 'C-d (输入框为空), C-q')
c2=$(col_of "$line" '退出')
[ "$c1" -gt 0 ] && [ "$c1" = "$c2" ] && ok || fail "F1 description columns differ: $c1 vs $c2"
keys Escape F2
check "zh: F2 title" '^ *│  会话（已保存的状态：[0-9.]+ [kMG]B） +│'
# (an empty list: only the keys that do not act on a session)
check "zh: F2 key bar" '│ C-o 导入  Esc 关闭 +│'
check "zh: F2 empty" '│  \(空\) +│'
keys Escape
check_not "zh: F2 closed" '│  \(空\) +│'
# a reply: the header and the status line after it
type_text "你好"
send
# a note with variable parts (storage's, through the catalog) is Chinese too
check "zh: the new session's note" '新会话 1：你好'
check_not "zh: no English note" 'new session 1'
tmx resize-window -x 120 -y 24
check "zh: the title in the status line" '状态：无 \| 会话：你好 \|'
tmx resize-window -x 80 -y 24
check "zh: decode speed" '^ 演示.*解码 [0-9.]+ tok/s'
tui_quit
# storage's replay note (store_snapshot.c): resumed under another precision,
# the saved state is not used and the reason is Chinese too
TUI_ENV="LANGUAGE=zh_CN" W=200 H=24 tui_start --session 1 --strategy "'cpu bf16'"
check "zh: the replay note" '第 [0-9]+ 轮保存的状态未使用：以 fp32 生成，当前策略以 bf16 计算'
check_not "zh: no English replay note" 'not used|made with'
tui_quit

# the config's language: zh in an English environment
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
printf 'language: zh\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
TUI_ENV="LANG=en_US.UTF-8" W=80 H=24 tui_start
check "language: zh" '^F1 帮助 .*F10 退出 *$'
tui_quit
# language: en wins over a Chinese environment
printf 'language: en\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
TUI_ENV="LANGUAGE=zh_CN" W=80 H=24 tui_start
check "language: en over LANGUAGE=zh_CN" '^F1 help .*F10 quit *$'
keys F2
check "language: en: F2 title" '^ *│  Sessions  \(saved states: [0-9.]+ [kMG]B\) +│'
keys Escape
tui_quit
# a bad value: one line naming the file, the rest of the config kept
printf 'language: fr\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
TUI_ENV="LANGUAGE=zh_CN" W=100 H=24 tui_start
check "language: fr refused" "config.yaml:1:11: field"
check "... naming the field" "'language'"
check "language: fr: the environment decides" '^F1 帮助 '
tui_quit
rm -f "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"

# Traditional Chinese and a locale that cannot draw CJK: English
TUI_ENV="LANGUAGE=zh_TW" W=80 H=24 tui_start
check "zh_TW: English" '^F1 help .*F10 quit *$'
tui_quit
TUI_ENV="LANG=C LC_ALL=C LANGUAGE=zh_CN" W=80 H=24 tui_start
check "no UTF-8 locale: English" '^F1 help .*F10 quit *$'
tui_quit
# a UTF-8 locale that is named but not installed (a container's
# LANG=zh_CN.UTF-8): the characters come from C.UTF-8, so the client speaks
# Chinese and draws CJK (it was English, with '?' for the message)
TUI_ENV="LC_ALL= LANG=zh_CN.UTF-8" W=80 H=24 tui_start
check "zh_CN.UTF-8 not installed: Chinese" '^F1 帮助 .*F10 退出 *$'
type_text "你好"
check "zh_CN.UTF-8 not installed: CJK drawn" '你好'
tui_quit

# 20x6: drawn, the footer keeps help and quit, menus and a resize below the
# minimum do not crash, F10 quits cleanly
TUI_ENV="LANGUAGE=zh_CN" W=20 H=6 tui_start
check "20x6 zh: footer" '^F1 帮助 +F10 退出 *$'
keys F1
check "20x6 zh: F1 open" '帮助'
keys Escape F2
check "20x6 zh: F2 open" '会话'
keys Escape
tmx resize-window -x 19 -y 5
check "below the minimum: said in Chinese" '终端太小'
tmx resize-window -x 20 -y 6
check "20x6 again" '^F1 帮助 +F10 退出 *$'
tui_quit
tui_finish
