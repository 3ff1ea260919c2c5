#!/usr/bin/env bash
# tests/tui/tree_rows.sh -- F6 gives its list every row of the box: at 80x24
# a 17-row tree with a long message in it opened with "↑ 2 more above" (the
# "Start:" row hidden) and 4 empty rows under the list, kept for the
# selected row whole (tui/view.c, menu_whole_rows, from the widest row),
# though a row of the tree is only the start of its turn (node_text) and
# nothing was drawn there.  Other menus still keep those rows (F1:
# tests/tui/menu_whole.sh).
. "$(dirname "$0")/tmuxlib.sh"

LONG="$(printf 'long%.0s words ' $(seq 12))end"
W=80 H=24 tui_start --max-tokens 3 --seed 3
type_text "$LONG"
send
for w in a2 a3 a4 a5 a6 a7 a8; do
    type_text "$w"
    send
done
keys F6
check "tree open" 'Branches: the whole tree'
check "the Start row in sight" '\* Start: '
check "the last reply in sight (selected)" '\* You:  a8'
check_not "nothing hidden above" 'more above'
check_not "nothing hidden below" 'more below'
# the box's 21 rows: its borders, the list's 17, one list row and the row
# above the key bar blank (there were 4 and the rows hidden above)
blank=$(screen | grep -cE '^ │ +│ ?$')
[ "$blank" -le 2 ] && ok || { fail "$blank empty rows in the box"; screen | sed 's/^/    | /'; }
# the long row selected: cut with … in its row, no rule and pane under it
keys Home Down
check "the long message cut" '\* You:  long words .*…'
check_not "no pane under the list" '│─────' 2
keys Escape
tui_quit
tui_finish
