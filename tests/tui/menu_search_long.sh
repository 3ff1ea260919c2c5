#!/usr/bin/env bash
# tests/tui/menu_search_long.sh -- a menu's search longer than its title row
# shows its end, cut at the front with an ellipsis (by cells: a wide
# character is two), in every menu and at every size; it used to vanish
# (only "(no match)" and the plain title were left).
. "$(dirname "$0")/tmuxlib.sh"

long="first title and even more text so that it is longer than the whole menu box END"
W=80 H=24 tui_start
for m in F2 F6 M-l; do
    keys $m
    check "$m: the menu opened" 'Esc close'
    type_text "$long"
    check "$m: the query's end shown after an ellipsis" "search: …[a-z ]*whole menu box END"
    keys Escape
    check_not "$m: closed" 'Esc close'
done
# wide characters: cut between characters, the last one in sight
keys F2
type_text "中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文尾"
check "CJK query: its end" 'search: …(中文)+中?尾'
keys Escape
# the smallest terminal: the end of the query still shows
tui_resize 20 6
keys F2
type_text "abcdefghijklmnopqrstuvwxyz"
check "20x6: the query's end" 'search: …[a-z]*yz'
keys Escape
tui_resize 80 24
tui_quit
tui_finish
