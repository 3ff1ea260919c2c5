#!/usr/bin/env bash
# tests/tui/words_paste.sh -- readline word motion in the input box (M-b,
# M-f, M-d, M-Backspace; CJK words are runs of one script), and a pasted
# message with blank lines: the chat format ends a turn at a blank line, so
# they are joined (as ChatRWKV's chat demo does); the transcript shows the
# message as sent, and a notice says so, once.
. "$(dirname "$0")/tmuxlib.sh"

W=80 H=24 tui_start --max-tokens 3 --seed 5
type_text "alpha beta gamma"
keys M-b
type_text "X"
check "M-b: start of the last word" '^> alpha beta Xgamma'
keys M-b M-b
type_text "Y"
check "M-b twice more: start of beta" '^> alpha Ybeta Xgamma'
keys C-a M-f
type_text "Z"
check "M-f: end of the first word" '^> alphaZ Ybeta Xgamma'
keys M-d
check "M-d: deletes to the end of the next word" '^> alphaZ Xgamma'
keys C-e M-BSpace
check "M-Backspace: deletes the word before" '^> alphaZ *$'
keys C-u
type_text "日本語のテキスト、ok"
keys C-a M-f
type_text "|"
check "M-f over CJK: the Han run" '^> 日本語\|のテキスト、ok'
keys M-f M-f
type_text "|"
check "M-f: hiragana, then katakana" '^> 日本語\|の\|?テキスト\|、ok|^> 日本語\|のテキスト\|、ok'
keys C-e M-b M-b
type_text "^"
check "M-b over the ideographic comma" '\^テキスト'
keys C-e C-u

# a pasted message with a blank line
tmx set-buffer "$(printf 'para one\n\npara two')"
tmx paste-buffer -p
send
check "a note in the transcript: blank lines joined" '^  blank lines joined: in the chat format'
check "sent as two lines, no blank row between" '^  para one'
if screen | grep -A1 '^  para one' | tail -1 | grep -q '^  para two'; then ok; else
    fail "blank line shown in the transcript"; screen | sed 's/^/    | /'; fi
# the second time: no notice
tmx set-buffer "$(printf 'para three\n\n\npara four')"
tmx paste-buffer -p
send
check "second paste sent" '^  para four'
n=$(screen | grep -c 'blank lines joined')
[ "$n" = 1 ] && ok || fail "the note shown $n times (once expected)"

keys M-l
check "the notice in the log" 'blank lines joined: in the chat format a blank line ends'
keys Escape
tui_quit

# after a resume the transcript shows the same (what was saved)
tui_start --resume
check "resumed: the same two lines" '^  para one'
if screen | grep -A1 '^  para one' | tail -1 | grep -q '^  para two'; then ok; else fail "resume differs"; fi
tui_quit
tui_finish
