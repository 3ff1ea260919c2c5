#!/usr/bin/env bash
# tests/tui/message_log.sh -- the message log (M-l, tui/notice.c): a notice
# longer than the footer's buffer is kept whole; an error of the start (a
# bad config key, in the transcript) is in the log too; the log keeps the
# last 200 and says how many older ones it let go.
. "$(dirname "$0")/tmuxlib.sh"

# a config error at start: in the transcript and, marked, in the log
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
printf 'language: fr\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
W=100 H=30 tui_start
check "config error in the transcript" "config.yaml:1:11: field"
check "... naming the field" "'language': 'fr' is not"
keys M-l
check "config error in the log" '[0-9:]{8}  error: /'
keys Escape
tui_quit
rm -f "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"

# a notice of ~660 bytes (the editor command named in it): the log has its end
words=$(printf ' abcd%.0s' $(seq 130))
TUI_ENV="VISUAL='false$words'" W=100 H=30 tui_start
keys C-x
check "the editor failed" "editor 'false abcd"
keys Escape
sleep 0.3              # (an Esc and then M-l at once would read as one key)
keys M-l
check "the long notice whole in the log" "abcd' failed"
keys Escape
check_not "log closed" 'Messages \(newest first\)'
# 205 more notices: the oldest go, and the log says so at its end
keys $(printf 'C-c %.0s' $(seq 205))
keys M-l End
check "older messages counted" '\([0-9]+ older messages not kept: the log holds the last 200\)'
check "the newest kept" 'nothing to cancel'
keys Escape
tui_quit
tui_finish
