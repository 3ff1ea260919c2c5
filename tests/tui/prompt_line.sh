#!/usr/bin/env bash
# tests/tui/prompt_line.sh -- the one-line prompts at 80 columns: a typed
# path longer than the line scrolls so its end (and the cursor) stays in
# sight (it was cut, the cursor pinned to the last column); a y/n question
# too long for the line keeps its "(y/n)" (the branch delete's was cut off);
# a long label leaves the typed text room.
. "$(dirname "$0")/tmuxlib.sh"

W=80 H=24 tui_start --max-tokens 3 --seed 5
type_text "hello"
send

keys F2 C-e C-u
type_text "$TMP/some/deep/folder/for/the/exports/session-2026-12-03-final-ABC.md"
check "a long path: its end in sight" 'final-ABC\.md *$'
check "the label stays" '^export to '
cx=$(tmx display -p '#{cursor_x}')
[ "$cx" -lt 79 ] && ok || fail "cursor pinned at column $cx"
keys C-a
check "Home: the start of the path again" "^export to \\(\\.md Markdown, \\.json JSON\\): $TMP"
keys Escape
check_not "prompt closed" '^export to '
keys Escape
check_not "menu closed" 'Enter resume'

# a y/n question longer than the line: cut in the middle, (y/n) kept (at
# 80 columns the branch delete's question fits whole now: 50 columns)
tmx resize-window -x 50 -y 24
check "50 columns" '^─{50}$'
keys F6
check "branches" 'Branches: the whole tree'
keys Up C-d
check "the question keeps its (y/n)" '(…|\.\.\.) \(y/n\) *$'
keys n
check_not "n: no question" '\(y/n\)'
keys Escape

# a narrow screen: the label is cut so the typed text shows
tui_resize 30 10
keys F2 C-e C-u
type_text "abcdefghijklmnopqrstuvwxyz"
check "typed text in sight at 30 columns" 'tuvwxyz *$'
keys Escape
check_not "closed" 'tuvwxyz *$'
keys Escape
check_not "menu closed" 'Sessions'
tui_quit

# a two-line paste into the rename prompt: the lines joined by a space (they
# were glued: "line oneline two"), the last newline gone (a pasted path's)
tui_start --max-tokens 3 --seed 5
type_text "hello"
send
keys F2
check "sessions for the rename" ' Sessions '
keys C-r
check "rename prompt" 'new title:'
keys C-u
printf 'line one\nline two\n' > "$TMP/two"
tmx load-buffer "$TMP/two"
tmx paste-buffer -p -r
check "pasted: one line, a space between" 'new title: line one line two *$'
keys Enter
check "renamed" 'line one line two +[0-9]+ turns'
keys Escape
tui_quit
tui_finish
