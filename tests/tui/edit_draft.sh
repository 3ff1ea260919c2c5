#!/usr/bin/env bash
# tests/tui/edit_draft.sh -- M-e (or Enter on a message in F6) with text
# typed in the box keeps that text: the edit sets it aside, Esc puts it
# back, sending the edit brings it back after the send, and a quit while
# editing keeps both in the history's draft.  The edit replaced the box's
# text and Esc emptied the box: the draft was gone (C-y and Up had nothing).
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 5 --seed 3
type_text "first message"
send
type_text "my draft words"
keys M-e
check "M-e: editing, the draft said to come back" 'editing an earlier message \(Esc cancels\); your draft comes back after it'
check "the box holds the message" '^\* first message'
keys Escape
check "Esc: said" 'edit cancelled: your draft is back'
check "Esc: the draft is back" '^> my draft words'

# sending the edit: the draft comes back after it
keys M-e
check "editing again" '^\* first message'
keys C-u
type_text "edited message"
keys Enter
check "the edit is sent" '^  edited message'
wait_idle
check "after the send: the draft is back" '^> my draft words'
n=$(sqlite3 "$DB" "select count(*) from turns where role=1 and text='edited message'")
[ "$n" = 1 ] && ok || fail "the edit was not sent as a branch ($n rows)"

# F6's Enter on a message: the same
keys F6
check "F6 open" 'Branches'
keys Up Enter
check "F6: editing, the draft said to come back" 'edit and send: a new branch there; your draft comes back after it'
check "F6: the box holds the message" '^\* edited message'
keys Escape
check "F6 edit, Esc: the draft is back" '^> my draft words'

# a quit while editing: the history's draft holds the edit's text and the
# draft set aside
keys M-e
check "editing before the quit" '^\* edited message'
tui_quit
grep -q '^d .*my draft words' "$XDG_STATE_HOME/rwkv-tui/history" && ok ||
    fail "the draft set aside is not in the history's draft: $(tail -2 "$XDG_STATE_HOME/rwkv-tui/history")"
tui_finish
