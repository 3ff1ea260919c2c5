#!/usr/bin/env bash
# tests/tui/log_zh_start.sh -- the message log (M-l) in the Chinese
# interface: an error of the start (a config's, a theme's) was logged before
# the config had set the language, so it read "error: ..." among the
# "错误：..." of the rest.  Now an error's mark is put in front when the log
# is shown (tui/notice.c, tui_log_entry), and the theme's sentence is said
# in the language the config set (tui/app.c, load_config).
. "$(dirname "$0")/tmuxlib.sh"

mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
printf 'language: zh\ntemperatur: 0.8\n' >"$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
printf 'name: broken\nroles:\n  user: { fg: purple }\n' >"$TMP/bad-theme.yaml"
W=100 H=30 tui_start --theme "$TMP/bad-theme.yaml"
check "the Chinese interface" 'F1 帮助'
check "config error in the transcript" "config.yaml:2:1: "
keys C-c                       # a later error, said after the start
sleep 0.3
keys M-l
check "the log open" '[0-9:]{8}  '
check "config error marked in Chinese" '[0-9:]{8}  错误：/.*config\.yaml:2:1'
check "theme error marked in Chinese" '[0-9:]{8}  错误：/.*bad-theme\.yaml:3'
check "theme sentence in Chinese" '改用默认主题'
screen | grep -q 'error: ' && fail "an English mark in the log: $(screen | grep 'error: ')" || ok
keys Escape
tui_quit

# English: the same mark as before
printf 'temperatur: 0.8\n' >"$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
W=100 H=30 tui_start
keys M-l
check "English: config error marked" '[0-9:]{8}  error: /.*config\.yaml:1:1'
keys Escape
tui_quit
tui_finish
