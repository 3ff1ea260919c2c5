#!/usr/bin/env bash
# tests/tui/prompt_history.sh -- the one-line prompts' histories
# (tui/history.h): M-g's prompts, the paths typed to save or read a file
# (F3 C-w, F2 C-e / C-o share one) and F5 C-s's strategies each outlive the
# client in their own file beside the message box's history (0600, same
# format), Up/Down step through them, C-f's queries too (C-p/C-n in the
# search line, where Up/Down move between matches), a rename keeps none, a prompt not
# used writes nothing, and `history: off` writes none of them.
. "$(dirname "$0")/tmuxlib.sh"

SD=$XDG_STATE_HOME/rwkv-tui

tui_start --max-tokens 2 --seed 3
keys M-g
check "M-g prompt" '^generate from \(\\n = newline\): '
type_text 'tell a story'
keys Enter
check "generated" 'free generation \(not saved\): tell a story'
wait_idle
keys M-g
check "M-g prompt again" '^generate from \(\\n = newline\): *$'
keys Up
check "Up: the last prompt" '^generate from \(\\n = newline\): tell a story'
keys Down
check "Down: empty again" '^generate from \(\\n = newline\): *$'
keys Escape
check_not "prompt closed" '^generate from \(\\n = newline\): '
# a message, then its export: the path goes into the files' history
type_text 'hello there'
send
wait_idle
keys F2
check "sessions" 'Sessions'
keys C-e
check "export prompt" '^export to'
keys C-u
type_text "$TMP/out one.md"
keys Enter
check "exported" 'exported to'
keys Escape
check_not "sessions closed" 'Sessions'
# C-f: the query is kept when the search line closes
keys C-f
check "search line" '^search: '
type_text "there"
check "found" '^search: there +1/1'
keys Escape
check_not "search closed" '^search: '
tui_quit
grep -qx 's there' "$SD/history-search" && ok || fail "history-search: $(cat "$SD/history-search" 2>&1)"
hf=$SD/history-generate
[ "$(stat -c %a "$hf" 2>/dev/null)" = 600 ] && ok || fail "no 0600 $hf"
[ "$(head -1 "$hf")" = 'rwkv-tui history 1' ] && grep -qx 's tell a story' "$hf" && ok ||
    fail "history-generate: $(cat "$hf" 2>&1)"
grep -qx "s $TMP/out one.md" "$SD/history-files" && ok || fail "history-files: $(cat "$SD/history-files" 2>&1)"
[ -e "$SD/history-strategy" ] && fail "an unused prompt wrote its history" || ok

# the next run: M-g's prompt and the path are there; F3 C-w offers the
# path typed for the export
tui_start --max-tokens 2 --seed 3
keys M-g Up
check "next run: M-g's history" '^generate from \(\\n = newline\): tell a story'
keys Escape
check_not "prompt closed" '^generate from \(\\n = newline\): '
# the search line: C-p brings the last run's query back (Up is the previous match)
sleep 0.3              # (an Esc and then C-f at once would read as one key)
keys C-f
check "search line, empty" '^search: +Enter/Down next'
keys C-p
check "C-p: the last search" '^search: there'
keys C-n
check "C-n: empty again" '^search: +Enter/Down next'
keys Escape
check_not "search closed" '^search: '
keys F3
check "states" 'State files'
keys C-w
check "save-as prompt" '^save the current state as: '
keys Up
check "Up: the export's path" "^save the current state as: $TMP/out one.md"
keys Escape
check_not "save-as closed" '^save the current state as: '
keys Escape F2
check "sessions again" 'Sessions'
keys C-r
check "rename prompt" '^new title: hello there'
keys Up
check "a rename has no history" '^new title: hello there'
keys Escape Escape
tui_quit

# history: off -- no prompt history is written
rm -f "$SD"/history-*
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
printf 'history: off\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
tui_start --max-tokens 2 --seed 3
keys M-g
type_text 'not kept'
keys Enter
check "generated" 'free generation \(not saved\): not kept'
wait_idle
tui_quit
ls "$SD"/history-* >/dev/null 2>&1 && fail "history: off wrote $(ls "$SD")" || ok
rm -f "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
tui_finish
