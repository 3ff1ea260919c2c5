#!/usr/bin/env bash
# tests/tui/paste_question.sh -- a paste while a question is open (F2's
# delete "(y/n)", F6's, the unsaved-exchange question) is no answer and no
# text: the question takes keys, not typing.  A bracketed paste went into
# the question's line, drawn after "(y/n)" (a pasted "yes" read as text
# after the question), though a y/n question has no text to edit.  Now it
# is dropped; y or n typed still answers.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 4 --seed 2
type_text "hello"
send
keys F2
check "F2 open" 'Sessions'
keys C-d
check "delete asked" "delete '.*'\? \(y/n\)"
keys -l $'\e[200~yes please\e[201~'
sleep 0.5
check "the question is still open" "delete '.*'\? \(y/n\)" 2
screen | tail -1 | grep -q 'yes please' && fail "the paste was typed into the question: $(screen | tail -1)" || ok
[ "$(sqlite3 "$DB" 'select count(*) from sessions')" = 1 ] && ok || fail "the paste deleted the session"
keys n
check_not "n: the question goes" "delete '.*'\? \(y/n\)"
[ "$(sqlite3 "$DB" 'select count(*) from sessions')" = 1 ] && ok || fail "n deleted the session"
keys Escape
tui_quit
tui_finish
