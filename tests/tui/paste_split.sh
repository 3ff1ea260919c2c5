#!/usr/bin/env bash
# tests/tui/paste_split.sh -- a bracketed paste that arrives in parts with
# gaps longer than 200 ms (a slow link) stays a paste until ESC[201~: its
# Enter is a new line, nothing is sent half-way, the footer says a paste is
# under way; an end marker split in two still ends it (no "[201~" left in
# the box); a lone Esc ends a paste whose end never comes.  At 80x24 on
# TERM=screen.  The bytes go raw (send-keys -H), as a terminal writes them.
. "$(dirname "$0")/tmuxlib.sh"

# raw TEXT: TEXT's bytes (printf escapes allowed) to the client as they are
raw() { tmx send-keys -H $(printf "$1" | od -An -tx1); }

TUI_ENV="TERM=screen" W=80 H=24 tui_start --max-tokens 3 --seed 3
raw '\033[200~slow part one'
sleep 0.5
raw '\rpart two'
sleep 0.5
check "mid-paste: the footer says so" '^pasting\.\.\. \(Esc ends the paste\)'
check "mid-paste: the Enter was a new line" '^  part two'
check_not "mid-paste: nothing sent" '^You '
raw 'and more'
sleep 0.5
raw '\033[201~'
check_not "the paste ended" '^pasting\.\.\.'
check "both parts in the box" '^> slow part one'
check "the second line" '^  part twoand more'
check_not "still nothing sent" '^You '
# typing after the paste: keys again; Enter sends the whole message
send
check "sent whole: first line" '^  slow part one'
check "sent whole: second line" '^  part twoand more'

# the end marker itself split by a gap
raw '\033[200~split end'
sleep 0.5
raw '\033'
sleep 0.5
raw '[201~'
check_not "split marker: the paste ended" '^pasting\.\.\.'
check "split marker: the text" '^> split end'
check_not "no marker left in the box" '201~'
keys C-u

# a paste whose end never comes: a lone Esc ends it, the keys act again
raw '\033[200~no end'
sleep 0.5
check "open paste" '^pasting\.\.\.'
keys Escape
check "Esc ended it" 'paste ended by Esc' 5
check "its text kept" '^> no end'
type_text "!"
check "typing again" '^> no end!'
keys F1
type_text "pasting"
check "F1 lists it" 'Esc \(pasting\.\.\.\) +end a paste whose end'
keys Escape
tui_quit
tui_finish
